"""Run each form of the DiT block norms once on small shapes that take the
16-byte and the scalar paths, a warp and a block per row, for compute-sanitizer:

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 sanitize_dit_block.py
    compute-sanitizer --tool racecheck --error-exitcode 1 python3 sanitize_dit_block.py

Exits non-zero if an output is not finite (unwritten poisoned memory)."""
import torch

import lit_kernels as lk
from lit_testing import Sanitized

dev = "cuda"
run = Sanitized("sanitize_dit_block")
r, check, bad = run.rand, run.check, run.bad


def poison(count, shape, dtype):
    blocks = [torch.full(shape, float("nan"), device=dev, dtype=dtype) for _ in range(count)]
    del blocks


for dt in (torch.bfloat16, torch.float32):
    # 2048: a warp per row (16-bit) or a block (fp32); 5120: a block per row;
    # 1001 and 7: the scalar block and warp forms
    for D in (2048, 5120, 1001, 7):
        for norm in ("layer", "rms"):
            x = r(2, 9, D, dtype=dt)
            ada = r(2, 9, 6, D, dtype=dt) * 0.3
            per_sample = ada[:, :1]
            poison(1, (2, 9, D), dt)
            check(f"norm_modulate {D} {norm}",
                  lk.norm_modulate(x, per_sample[:, :, 1], per_sample[:, :, 0], norm, 1e-6,
                                   r(D, dtype=dt), r(D, dtype=dt)))
            poison(2, (2, 9, D), dt)
            check(f"gated {D} {norm}",
                  *lk.gated_residual_norm_modulate(x, r(2, 9, D, dtype=dt), ada[:, :, 2], ada[:, :, 1],
                                                   ada[:, :, 0], norm))
            res = r(2, 9, D, dtype=dt)
            _, y = lk.gated_residual_norm_modulate_(res, r(2, 9, D, dtype=dt), None, per_sample[:, :, 1],
                                                    per_sample[:, :, 0], norm)
            check(f"in place {D} {norm}", res, y)

torch.cuda.synchronize()
run.finish()

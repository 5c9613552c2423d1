"""Run qk_norm_rope once per kernel (three dtypes, both table types, head_dim
64, 128 and 256) on small shapes with a batch, one-token steps, grouped-query
heads and strided inputs, for compute-sanitizer:

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 sanitize_qk_norm_rope.py
    compute-sanitizer --tool racecheck --error-exitcode 1 python3 sanitize_qk_norm_rope.py

Exits non-zero if an output is not finite (unwritten poisoned memory)."""
import torch

import lit_kernels as lk
from lit_testing import Sanitized

dev = "cuda"
run = Sanitized("sanitize_qk_norm_rope")
r, check, bad = run.rand, run.check, run.bad


for dt in (torch.bfloat16, torch.float16, torch.float32):
    for d in (64, 128, 256):
        for b, s, hq, hk in ((2, 5, 4, 1), (3, 1, 8, 2), (1, 33, 2, 2)):
            qkv = r(b, s, (hq + 2 * hk) * d, dtype=dt)  # q and k as slices of a fused projection
            q, k = qkv[..., : hq * d], qkv[..., hq * d: (hq + hk) * d]
            for table in (torch.float32, dt):
                cos, sin = r(b, s, d, dtype=table), r(1, s, d, dtype=table)[0]
                sin = sin.expand(b, s, d).contiguous()
                blocks = [torch.full(sh, float("nan"), dtype=dt, device=dev)
                          for sh in ((b, hq, s, d), (b, hk, s, d))]
                del blocks
                qo, ko = lk.qk_norm_rope(q, k, r(d, dtype=dt), r(d, dtype=dt), cos, sin, 1e-6)
                torch.cuda.synchronize()
                if not (torch.isfinite(qo.float()).all() and torch.isfinite(ko.float()).all()):
                    bad.append(f"{dt} D={d} {b}x{s} {hq}/{hk} {table}")

torch.cuda.synchronize()
run.finish()

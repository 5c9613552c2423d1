"""Run the fused linear cross-entropy once on small shapes that take the
16-byte and the one-element paths, several chunks, an ignored row and the
backward's scaling, for compute-sanitizer:

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 sanitize_loss.py
    compute-sanitizer --tool racecheck --error-exitcode 1 python3 sanitize_loss.py

Exits non-zero if an output is not finite (unwritten poisoned memory)."""
import torch

import lit_kernels as lk
from lit_testing import Sanitized

run = Sanitized("sanitize_loss")
r, check = run.rand, run.check

for dt in (torch.bfloat16, torch.float32):
    for tokens, d, classes, chunk in ((37, 64, 2048, 16), (37, 64, 1001, 0), (3, 32, 7, 1)):
        h = r(tokens, d, dtype=dt).requires_grad_()
        w = r(classes, d, dtype=dt, scale=0.2).requires_grad_()
        y = torch.randint(0, classes, (tokens,), device="cuda")
        y[1] = -100
        loss = lk.linear_cross_entropy(h, w, y, label_smoothing=0.1, z_loss=1e-4, chunk_tokens=chunk)
        (loss * 0.5).backward()
        check(f"linear_cross_entropy {classes} {dt}", loss, h.grad, w.grad)
        with torch.no_grad():
            check(f"linear_cross_entropy no grad {classes} {dt}",
                  lk.linear_cross_entropy(h, w, y, reduction="sum", chunk_tokens=chunk))

torch.cuda.synchronize()
run.finish()

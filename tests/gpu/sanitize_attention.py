"""Run both attention kernels once on small shapes (partial tiles, causal
with seq_q != seq_k, grouped heads, both head dims) for compute-sanitizer:

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 sanitize_attention.py
    compute-sanitizer --tool racecheck --error-exitcode 1 python3 sanitize_attention.py

Exits non-zero if an output is not finite (unwritten poisoned memory)."""
import torch

import lit_kernels as lk
from lit_testing import Sanitized

run = Sanitized("sanitize_attention")
r, check, bad = run.rand, run.check, run.bad
hopper = torch.cuda.get_device_capability() == (9, 0)


for backend in ["portable"] + (["hopper"] if hopper else []):
    for d in (64, 128):
        for sq, sk, causal in ((200, 200, True), (70, 333, True), (129, 300, False)):
            q, k, v = r(1, 4, sq, d), r(1, 2, sk, d), r(1, 2, sk, d)
            out, lse = lk.attention(q, k, v, causal=causal, return_lse=True, backend=backend)
            check(f"{backend} d={d} {sq}x{sk} causal={causal}", out)
if hopper:
    for sched, form in ((0, 0), (1, 0), (2, 0), (1, 1), (1, 2)):
        lk.ops._attention_tuning(sched, form)
        check(f"hopper schedule {sched} form {form}",
              lk.attention(r(1, 2, 300, 128), r(1, 2, 300, 128), r(1, 2, 300, 128), causal=True,
                           backend="hopper"))
    lk.ops._attention_tuning(-1, 0)
run.finish()

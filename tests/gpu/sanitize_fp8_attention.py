"""Run FP8 attention and its quantizer once on small shapes (partial tiles,
keys not a multiple of 16, causal with seq_q != seq_k, grouped heads, both
schedules) for compute-sanitizer:

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 sanitize_fp8_attention.py
    compute-sanitizer --tool racecheck --error-exitcode 1 python3 sanitize_fp8_attention.py

Exits non-zero if an output is not finite (unwritten poisoned memory)."""
import lit_kernels as lk
from lit_testing import Sanitized

run = Sanitized("sanitize_fp8_attention")
r, check = run.rand, run.check

for sched in (-1, 2):  # the default schedule, and ping-pong
    lk.ops._attention_tuning(sched, 0)
    for sq, sk, causal in ((200, 200, True), (70, 333, True), (129, 301, False), (1, 77, False)):
        q, k, v = r(1, 4, sq, 128), r(1, 2, sk, 128), r(1, 2, sk, 128)
        out = lk.fp8_attention(q, k, v, causal=causal)
        check(f"fp8 schedule {sched} {sq}x{sk} causal={causal}", out)
lk.ops._attention_tuning(-1, 0)
run.finish()

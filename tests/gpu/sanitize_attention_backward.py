"""Run the attention backward once on small shapes (partial tiles, causal
with seq_q != seq_k both ways, grouped heads, both head dims, dq by atomics
and deterministic, each form of the dK/dV kernel, or the forms named) for
compute-sanitizer:

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 sanitize_attention_backward.py [FORM ...]
    compute-sanitizer --tool racecheck --error-exitcode 1 python3 sanitize_attention_backward.py [FORM ...]

Exits non-zero if a gradient is not finite (unwritten poisoned memory)."""

import sys

import lit_kernels as lk
from lit_testing import Sanitized

run = Sanitized("sanitize_attention_backward")
r, check = run.rand, run.check

# The dK/dV kernel's forms (the tuning hook; 0 the default: Hopper on sm_90),
# or those named on the command line.
FORMS = [int(x) for x in sys.argv[1:]] or [0, 1, 2, 3, 4, 5, 6, 7]
for form in FORMS:
    lk.ops._attention_backward_tuning(form)
    for d in (64, 128):
        for sq, sk, causal in ((200, 200, True), (70, 150, True), (150, 70, True), (129, 100, False)):
            q, k, v, dout = r(1, 4, sq, d), r(1, 2, sk, d), r(1, 2, sk, d), r(1, 4, sq, d)
            out, lse = lk.attention(q, k, v, causal=causal, return_lse=True, backend="portable")
            for det in (False, True):
                grads = lk.attention_backward(dout, q, k, v, out, lse, causal, dlse=lse * 0.5,
                                              deterministic=det)
                check(f"form={form} d={d} {sq}x{sk} causal={causal} deterministic={det}", *grads)
lk.ops._attention_backward_tuning(0)
run.finish()

"""Run every FP8 kernel once on small shapes (partial tiles, both
schedules, the promoted and block modes, a gated epilogue, every quantizer
prologue and both granularities) for compute-sanitizer:

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 sanitize_fp8.py
    compute-sanitizer --tool racecheck --error-exitcode 1 python3 sanitize_fp8.py

Exits non-zero if an output is not finite (unwritten poisoned memory).
Needs an H100/H200 for the GEMM; the quantizers run anywhere."""
import torch

import lit_kernels as lk
from lit_testing import Sanitized

run = Sanitized("sanitize_fp8")
r, check, bad = run.rand, run.check, run.bad
hopper = torch.cuda.get_device_capability() == (9, 0)


x = r(37, 3072 + 16)
for g in ("token", "group"):
    check(f"quantize {g}", *lk.quantize_fp8(x, g))
    check(f"rms {g}", *lk.rms_norm_quant_fp8(x, r(x.shape[-1]), 1e-6, g))
    check(f"layer {g}", *lk.layer_norm_quant_fp8(x, r(x.shape[-1]), r(x.shape[-1]), 1e-5, g))
    check(f"act {g}", *lk.act_quant_fp8(x, "gelu_tanh", g))
    check(f"act + bias {g}", *lk.act_quant_fp8(x, "gelu_tanh", g, r(x.shape[-1])))
    gu = r(37, 2 * 2816)
    check(f"act_and_mul {g}", *lk.act_and_mul_quant_fp8(gu[:, :2816], gu[:, 2816:], "silu", g))
xm = r(2, 40, 3072)
check("norm_modulate", *lk.norm_modulate_quant_fp8(xm, r(2, 1, 3072, scale=0.1), r(2, 1, 3072, scale=0.1)))
check("gated norm_modulate", *lk.gated_norm_modulate_quant_fp8(
    xm, r(2, 40, 3072), r(2, 40, 3072), r(2, 1, 3072, scale=0.1), r(2, 1, 3072, scale=0.1)))
check("weight blocks", *lk.quantize_fp8_weight(r(300, 4112, scale=0.02), "block"))
check("wide row", *lk.quantize_fp8(r(3, 32768)))
if hopper:
    m, n, k = 200, 520, 272
    qa, sa = lk.quantize_fp8(r(m, k))
    qw, sw = lk.quantize_fp8_weight(r(n, k, scale=0.05))
    qb, sb = lk.quantize_fp8(r(m, k), "group")
    qwb, swb = lk.quantize_fp8_weight(r(n, k, scale=0.05), "block")
    for sched in (1, 2, 4, 5):
        lk.ops._fp8_gemm_tuning(sched)
        check(f"fast schedule {sched}", lk.fp8_gemm(qa, qw.t(), sa, sw.t(), r(n), "gelu"))
        check(f"gated schedule {sched}", lk.fp8_gemm(qa, qw.t(), sa, sw.t(), None, "swiglu"))
    lk.ops._fp8_gemm_tuning(0)
    check("promoted", lk.fp8_gemm(qa, qw.t(), sa, sw.t(), accumulate="promoted"))
    check("block", lk.fp8_gemm(qb, qwb.t(), sb, swb.t()))
    # more tiles than SMs: the promoting loop's prefetch of the next k-block stays within a tile
    qa2, sa2 = lk.quantize_fp8(r(2048, k))
    qw2, sw2 = lk.quantize_fp8_weight(r(1280, k, scale=0.05))
    qb2, sb2 = lk.quantize_fp8(r(2048, k), "group")
    qwb2, swb2 = lk.quantize_fp8_weight(r(1280, k, scale=0.05), "block")
    for sched in (4, 5):  # clusters of two over more tiles than SMs, an odd number of tile rows
        lk.ops._fp8_gemm_tuning(sched)
        check(f"cluster schedule {sched}, many tiles", lk.fp8_gemm(qa2[:1920], qw2.t(), sa2[:1920], sw2.t()))
    lk.ops._fp8_gemm_tuning(0)
    check("promoted, many tiles", lk.fp8_gemm(qa2, qw2.t(), sa2, sw2.t(), accumulate="promoted"))
    check("block, many tiles", lk.fp8_gemm(qb2, qwb2.t(), sb2, swb2.t()))
run.finish()

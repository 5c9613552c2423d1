"""Run the GEMM kernels once on small shapes (partial tiles, every epilogue
kind, the element-wise loader, stream-K's partial tiles, the few-rows
kernel's staged pieces, row blocks, clusters and the narrow tiles'
pairs) for compute-sanitizer:

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 sanitize_gemm.py
    compute-sanitizer --tool racecheck --error-exitcode 1 python3 sanitize_gemm.py

Exits non-zero if an output is not finite (unwritten poisoned memory)."""
import torch

import lit_kernels as lk
from lit_testing import Sanitized

run = Sanitized("sanitize_gemm")
r, check, bad = run.rand, run.check, run.bad
hopper = torch.cuda.get_device_capability() == (9, 0)


for dtype in (torch.bfloat16, torch.float16):
    for backend in ["portable"] + (["hopper"] if hopper else []):
        for m, n, k in ((200, 300, 136), (129, 520, 64)):
            a, w = r(m, k, dtype=dtype), r(n, k, dtype=dtype, scale=0.1)
            check(f"{backend} plain {m}x{n}x{k}", lk.gemm(a, w.t(), r(n, dtype=dtype), "gelu", backend=backend))
            check(f"{backend} swiglu {m}x{n}x{k}", lk.gemm(a, w[: n // 2 * 2].t(), None, "swiglu", backend=backend))
    # few rows: a partial last piece (K 1000), rows past N, every row block,
    # the gated stages, and (sm_90) K split over clusters of 2 and 4
    for m in (1, 11, 29):
        a, w = r(m, 1000, dtype=dtype), r(70, 1000, dtype=dtype, scale=0.1)
        check(f"few rows {m}x70x1000", lk.gemm(a, w.t(), r(70, dtype=dtype), "gelu", backend="few_rows"))
        g, u = r(70, 1000, dtype=dtype, scale=0.1), r(70, 1000, dtype=dtype, scale=0.1)
        check(f"few rows gated {m}", lk.gemm_gated(a, g.t(), u.t(), None, None, "silu", backend="few_rows"))
    if hopper:
        for splits in (2, 4):
            lk.ops._gemm_few_rows_tuning(splits)
            check(f"few rows, K split {splits}", lk.gemm(r(3, 2048, dtype=dtype), r(40, 2048, dtype=dtype, scale=0.1).t(),
                                                        backend="few_rows"))
        lk.ops._gemm_few_rows_tuning(0)
    big = r(130, 210, dtype=dtype)
    check("element-wise loads", lk.gemm(big[:, 3:203], r(90, 200, dtype=dtype, scale=0.1).t(), None, "silu"))
if hopper:
    lk.ops._gemm_tuning(2, 0)
    check("hopper clusters of 2", lk.gemm(r(300, 256), r(600, 256, scale=0.1).t(), backend="hopper"))
    lk.ops._gemm_tuning(0, 0, 2)  # stream-K: partial tiles through the workspace
    check("hopper stream-K", lk.gemm(r(100, 1104), r(600, 1104, scale=0.1).t(), r(600), "gelu", backend="hopper"))
    check("hopper stream-K, 40 rows", lk.gemm(r(40, 2048), r(300, 2048, scale=0.1).t(), backend="hopper"))
    lk.ops._gemm_tuning(0, 0, 3)  # split-K: every tile in parts
    check("hopper split-K", lk.gemm(r(100, 1104), r(600, 1104, scale=0.1).t(), r(600), "gelu", backend="hopper"))
    for width in (128, 64, 32):  # narrow tiles, whole and split, a partial last tile of columns
        for mode in (0, 3):
            lk.ops._gemm_tuning(0, 0, mode, width)
            check(f"hopper {width}-column tiles, schedule {mode}",
                  lk.gemm(r(300, 1104), r(600, 1104, scale=0.1).t(), r(600), "silu", backend="hopper"))
    for width in (128, 64, 32):  # pairs sharing A: an odd count of column tiles, partial last rows
        lk.ops._gemm_tuning(2, 0, 0, width)
        check(f"hopper {width}-column pairs", lk.gemm(r(300, 1104), r(520, 1104, scale=0.1).t(), r(520),
                                                     backend="hopper"))
    lk.ops._gemm_tuning(0, 0, 2, 32)
    check("hopper 32-column tiles, stream-K, 40 rows",
          lk.gemm(r(40, 2048), r(1000, 2048, scale=0.1).t(), r(1000), "gelu", backend="hopper"))
    lk.ops._gemm_tuning(0, 0, 0)
run.finish()

"""A small run of every kernel path for compute-sanitizer (memcheck, racecheck):

    compute-sanitizer --tool memcheck  python3 tests/gpu/sanitize_norms.py
    compute-sanitizer --tool racecheck python3 tests/gpu/sanitize_norms.py

Sub-warp rows, block rows, the two-pass path, scalar (odd / misaligned)
accesses, strided views, the fused op; all with and without weight.
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import check, lit, rand  # noqa: E402


def ref(x, w, eps=1e-6):
    x64 = x.double()
    y = x64 * torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + eps)
    return y * w.double() if w is not None else y


def main():
    L = lit()
    n = 0
    for dtype in (torch.bfloat16, torch.float32):
        for rows, hidden in [(37, 128), (5, 7), (3, 1), (9, 4096), (4, 5120), (3, 4095), (2, 65536), (2, 12288)]:
            x = rand((rows, hidden), dtype)
            for w in (rand((hidden,), dtype, offset=1.0), None):
                check(L.rms_norm(x, w, 1e-6), ref(x, w), dtype, f"{rows}x{hidden}")
                res = rand((rows, hidden), dtype)
                expect = x + res
                y, _ = L.fused_add_rms_norm(x, res, w, 1e-6)
                check(y, ref(expect, w), dtype, f"fused {rows}x{hidden}")
                n += 2
        qkv = rand((9, 3 * 4 * 64), dtype)
        q = qkv[:, : 4 * 64].view(9, 4, 64)
        check(L.rms_norm(q, None, 1e-6), ref(q, None), dtype, "view")
        flat = rand((3 * 256 + 1,), dtype)[1:].view(3, 256)
        check(L.rms_norm(flat, None, 1e-6), ref(flat, None), dtype, "misaligned")
        n += 2
    torch.cuda.synchronize()
    print(f"sanitize_norms: {n} calls checked")


if __name__ == "__main__":
    main()

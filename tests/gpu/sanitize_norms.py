"""A small run of every kernel path for compute-sanitizer (memcheck, racecheck):

    compute-sanitizer --tool memcheck  python3 tests/gpu/sanitize_norms.py
    compute-sanitizer --tool racecheck python3 tests/gpu/sanitize_norms.py

Sub-warp rows, block rows, the two-pass path, scalar (odd / misaligned)
accesses, strided views, the fused op; all with and without weight. The
backward: narrow and block rows at one, two and four vectors a thread, the
wide kernel, a saved rstd, a per-head view, a misaligned x; LayerNorm's
backward over the same forms, with each of the weight and the bias present
or absent and the statistics saved and recomputed.
"""

import os
import sys

import torch
import torch.nn.functional as F

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
    n += backward(L)
    n += layer_norm_backward(L)
    torch.cuda.synchronize()
    print(f"sanitize_norms: {n} calls checked")


def ref_backward(x, w, dy, eps=1e-6):
    x64 = x.double().requires_grad_()
    w64 = w.double().requires_grad_() if w is not None else None
    y = x64 * torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + eps)
    y = y * w64 if w64 is not None else y
    g = torch.autograd.grad(y, (x64, w64) if w64 is not None else (x64,), dy.double())
    return g[0], (g[1] if w64 is not None else None)


def backward(L):
    n = 0
    for dtype in (torch.bfloat16, torch.float32):
        # rows x hidden: narrow groups, one / two / four vectors a thread, the wide kernel
        for rows, hidden in [(37, 128), (5, 7), (3, 1), (1100, 4096), (9, 8192), (5, 16384), (3, 20000), (2, 65536)]:
            x = rand((rows, hidden), dtype)
            dy = rand((rows, hidden), dtype)
            for w in (rand((hidden,), dtype, offset=1.0), None):
                dx, dw = L.rms_norm_backward(dy, x, w, 1e-6)
                rdx, rdw = ref_backward(x, w, dy)
                if hidden > 1:  # at one element dx cancels to ~1e-6 of its terms (test_norms_backward)
                    check(dx, rdx, dtype, f"backward {rows}x{hidden}")
                else:
                    assert torch.isfinite(dx).all(), f"backward {rows}x{hidden}: dx not finite"
                if w is not None:
                    check(dw, rdw, dtype, f"backward dw {rows}x{hidden}")
                n += 1
            rstd = torch.rsqrt(x.float().pow(2).mean(-1) + 1e-6)
            dx, _ = L.rms_norm_backward(dy, x, None, 1e-6, rstd)
            if hidden > 1:
                check(dx, ref_backward(x, None, dy)[0], dtype, f"backward saved rstd {rows}x{hidden}")
            n += 1
        qkv = rand((9, 3 * 4 * 64), dtype)
        q = qkv[:, : 4 * 64].view(9, 4, 64)
        dy = rand((9, 4, 64), dtype)
        w = rand((64,), dtype, offset=1.0)
        dx, dw = L.rms_norm_backward(dy, q, w, 1e-6)
        check(dx, ref_backward(q, w, dy)[0], dtype, "backward view")
        flat = rand((3 * 256 + 1,), dtype)[1:].view(3, 256)
        dy = rand((3, 256), dtype)
        dx, _ = L.rms_norm_backward(dy, flat, None, 1e-6)
        check(dx, ref_backward(flat, None, dy)[0], dtype, "backward misaligned")
        n += 2
    return n


def ref_ln_backward(x, w, b, dy, eps=1e-5):
    """float64 autograd of F.layer_norm: (dx, dw or None, db or None)."""
    x64 = x.double().requires_grad_()
    w64 = w.double().requires_grad_() if w is not None else None
    b64 = b.double().requires_grad_() if b is not None else None
    y = F.layer_norm(x64, x64.shape[-1:], w64, b64, eps)
    g = list(torch.autograd.grad(y, [t for t in (x64, w64, b64) if t is not None], dy.double()))
    dx = g.pop(0)
    return dx, (g.pop(0) if w64 is not None else None), (g.pop(0) if b64 is not None else None)


def check_ln(got, x, w, b, dy, dtype, what):
    want = ref_ln_backward(x, w, b, dy)
    if x.shape[-1] > 3:
        check(got[0], want[0], dtype, f"{what} dx")
    else:  # up to three elements dx may cancel far below its terms (test_layernorm_backward)
        assert torch.isfinite(got[0]).all(), f"{what}: dx not finite"
    for g, r, name in ((got[1], want[1], "dw"), (got[2], want[2], "db")):
        if r is not None:
            check(g, r, dtype, f"{what} {name}")


def layer_norm_backward(L):
    n = 0
    for dtype in (torch.bfloat16, torch.float32):
        # rows x hidden: narrow groups, one / two / four vectors a thread (also single
        # elements: 1023, 2047), the wide kernel
        for rows, hidden in [(37, 128), (5, 7), (3, 1), (1100, 4096), (9, 8192), (5, 16384), (7, 1023), (5, 2047),
                             (3, 20000), (2, 65536)]:
            x = rand((rows, hidden), dtype, offset=0.3)
            dy = rand((rows, hidden), dtype)
            w = rand((hidden,), dtype, offset=1.0)
            b = rand((hidden,), dtype)
            for wi, bi in ((w, b), (w, None), (None, b), (None, None)):
                check_ln(L.layer_norm_backward(dy, x, wi, bi, 1e-5), x, wi, bi, dy, dtype,
                         f"ln backward {rows}x{hidden}")
                n += 1
            x64 = x.double()
            mean = x64.mean(-1).float()
            rstd = torch.rsqrt(x64.var(-1, unbiased=False) + 1e-5).float()
            check_ln(L.layer_norm_backward(dy, x, w, b, 1e-5, mean, rstd), x, w, b, dy, dtype,
                     f"ln backward saved stats {rows}x{hidden}")
            n += 1
        qkv = rand((9, 3 * 4 * 64), dtype)
        q = qkv[:, : 4 * 64].view(9, 4, 64)
        dy = rand((9, 4, 64), dtype)
        w, b = rand((64,), dtype, offset=1.0), rand((64,), dtype)
        check_ln(L.layer_norm_backward(dy, q, w, b, 1e-5), q, w, b, dy, dtype, "ln backward view")
        flat = rand((3 * 256 + 1,), dtype)[1:].view(3, 256)
        dy = rand((3, 256), dtype)
        check_ln(L.layer_norm_backward(dy, flat, None, None, 1e-5), flat, None, None, dy, dtype,
                 "ln backward misaligned")
        n += 2
    return n


if __name__ == "__main__":
    main()

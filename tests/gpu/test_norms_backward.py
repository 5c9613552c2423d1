"""RMSNorm's backward (rms_norm_backward and the autograd formula of rms_norm)
against float64 autograd of the eager formula, on a GPU.

    python3 -m pytest tests/gpu/test_norms_backward.py   (or: python3 tests/gpu/test_norms_backward.py)
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import DTYPES, TOLERANCE, check, lit, poison_next, pytest, rand, requires_cuda  # noqa: E402

EPS = 1e-6
# 16392 and 65536 bf16 elements pass the register kernel's 2048 vectors (the wide kernel);
# fp32 rows pass it from 8196 elements.
HIDDEN = [1, 3, 7, 127, 128, 4096, 4097, 5120, 16384, 16392, 65536]


def reference(x, w, dy, eps=EPS):
    """float64 autograd of y = x * rsqrt(mean(x^2) + eps) * w: (dx, dw or None)."""
    x64 = x.detach().double().requires_grad_()
    w64 = w.detach().double().requires_grad_() if w is not None else None
    y = x64 * torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + eps)
    if w64 is not None:
        y = y * w64
    grads = torch.autograd.grad(y, (x64, w64) if w64 is not None else (x64,), dy.double())
    return grads[0], (grads[1] if w64 is not None else None)


def rows_for(hidden):
    return [1, 3, 130] if hidden >= 16384 else [1, 3, 130, 1027]


def check_dx(dx, ref_dx, x, w, dy, dtype, what):
    """dx = r*g - x*r^3*sum(g*x)/n. At n = 1 the two terms cancel to
    r*g*eps*r^2 (dx is about 1e-6 of either term), which no fp32 evaluation
    of the difference keeps to relative precision; there the error is held
    to the tolerance relative to the terms, r*g, as the backward error of
    the computation. Every other row length is held to dx itself."""
    if x.shape[-1] != 1:
        return check(dx, ref_dx, dtype, f"{what}: dx")
    x64 = x.double()
    g = dy.double() * (w.double() if w is not None else 1.0)
    terms = g * torch.rsqrt(x64 * x64 + EPS)
    assert torch.isfinite(dx).all(), f"{what}: dx not finite"
    err = float((dx.double() - ref_dx).norm() / terms.norm().clamp_min(1e-300))
    assert err < TOLERANCE[dtype], f"{what}: dx error {err:.3e} of the cancelling terms ({dtype})"


def check_grads(dx, dw, x, w, dy, dtype, what):
    ref_dx, ref_dw = reference(x, w, dy)
    check_dx(dx, ref_dx, x, w, dy, dtype, what)
    if w is None:
        assert dw is None, f"{what}: dw without a weight"
    else:
        assert dw.dtype == w.dtype and dw.shape == w.shape, f"{what}: dw {dw.dtype} {tuple(dw.shape)}"
        check(dw, ref_dw, dtype, f"{what}: dw")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hidden", HIDDEN)
@pytest.mark.parametrize("with_weight", [True, False])
def test_rms_norm_backward(dtype, hidden, with_weight):
    requires_cuda()
    for rows in rows_for(hidden):
        x = rand((rows, hidden), dtype, scale=2.0, offset=0.3)
        w = rand((hidden,), dtype, offset=1.0) if with_weight else None
        dy = rand((rows, hidden), dtype)
        poison_next((rows, hidden), dtype)
        dx, dw = lit().rms_norm_backward(dy, x, w, EPS)
        check_grads(dx, dw, x, w, dy, dtype, f"rows={rows} hidden={hidden}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hidden", [128, 4096, 65536])
def test_saved_rstd(dtype, hidden):
    """A saved rstd gives the recomputed one's result; a wrong one is used as given."""
    requires_cuda()
    x = rand((67, hidden), dtype, scale=2.0)
    w = rand((hidden,), dtype, offset=1.0)
    dy = rand((67, hidden), dtype)
    rstd = torch.rsqrt(x.double().pow(2).mean(-1) + EPS).float()
    dx, dw = lit().rms_norm_backward(dy, x, w, EPS, rstd)
    check_grads(dx, dw, x, w, dy, dtype, f"saved rstd hidden={hidden}")
    dx2, _ = lit().rms_norm_backward(dy, x, w, EPS, rstd * 2)
    assert not torch.allclose(dx2.float(), dx.float()), "the saved rstd was not read"


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize("rows", [1, 2, 31, 4097, 100_003])
def test_many_rows(dtype, rows):
    requires_cuda()
    for hidden in (64, 4096):
        if rows * hidden > 2**28:
            continue
        x = rand((rows, hidden), dtype)
        w = rand((hidden,), dtype, offset=1.0)
        dy = rand((rows, hidden), dtype)
        dx, dw = lit().rms_norm_backward(dy, x, w, EPS)
        check_grads(dx, dw, x, w, dy, dtype, f"rows={rows} hidden={hidden}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_layouts(dtype):
    """Per-head views of a fused QKV output, a misaligned start, a
    non-contiguous dy, a 3-D x: the forward's layouts, without copies of x."""
    requires_cuda()
    L = lit()
    qkv = rand((2, 9, 3 * 4 * 128), dtype)
    q = qkv[..., : 4 * 128].view(2, 9, 4, 128)
    w = rand((128,), dtype, offset=1.0)
    dy = rand((2, 9, 4, 128), dtype)
    dx, dw = L.rms_norm_backward(dy, q, w, EPS)
    check_grads(dx, dw, q, w, dy, dtype, "per-head view")
    flat = rand((5 * 256 + 1,), dtype)[1:].view(5, 256)
    dyf = rand((5, 256), dtype)
    dx, dw = L.rms_norm_backward(dyf, flat, w.repeat(2), EPS)
    check_grads(dx, dw, flat, w.repeat(2), dyf, dtype, "misaligned x")
    dyt = rand((256, 5), dtype).t()
    dx, dw = L.rms_norm_backward(dyt, flat, None, EPS)
    check_grads(dx, dw, flat, None, dyt, dtype, "transposed dy")
    x3 = rand((3, 7, 4096), dtype)
    dy3 = rand((3, 7, 4096), dtype)
    w3 = rand((4096,), dtype, offset=1.0)
    dx, dw = L.rms_norm_backward(dy3, x3, w3, EPS)
    assert dx.shape == x3.shape and dx.is_contiguous()
    check_grads(dx, dw, x3, w3, dy3, dtype, "3-D x")


@pytest.mark.parametrize("hidden", [128, 4096, 8192, 16384, 65536])
def test_weight_gradient_is_deterministic(hidden):
    requires_cuda()
    x = rand((3001, hidden), torch.float32)
    w = rand((hidden,), torch.float32, offset=1.0)
    dy = rand((3001, hidden), torch.float32)
    first = lit().rms_norm_backward(dy, x, w, EPS)
    for _ in range(3):
        again = lit().rms_norm_backward(dy, x, w, EPS)
        assert torch.equal(first[0], again[0]) and torch.equal(first[1], again[1]), "not bitwise reproducible"


def test_empty():
    requires_cuda()
    L = lit()
    x = torch.empty((0, 64), device="cuda", dtype=torch.bfloat16)
    w = rand((64,), torch.bfloat16)
    dx, dw = L.rms_norm_backward(x, x, w, EPS)
    assert dx.shape == (0, 64) and torch.equal(dw, torch.zeros_like(w)), "no rows: dw must be zero"


def test_rejects_bad_inputs():
    requires_cuda()
    L = lit()
    x = rand((4, 64), torch.bfloat16)
    w = rand((64,), torch.bfloat16)
    cases = [
        (lambda: L.rms_norm_backward(rand((4, 32), torch.bfloat16), x, w), "dy has shape"),
        (lambda: L.rms_norm_backward(x.float(), x, w), "dy"),
        (lambda: L.rms_norm_backward(x, x, w.float()), "weight"),
        (lambda: L.rms_norm_backward(x, x, rand((32,), torch.bfloat16)), "weight must have shape"),
        (lambda: L.rms_norm_backward(x, x, w, EPS, torch.ones(4, device="cuda", dtype=torch.bfloat16)), "rstd"),
        (lambda: L.rms_norm_backward(x, x, w, EPS, torch.ones(3, device="cuda")), "one value per row"),
        (lambda: L.rms_norm_backward(x.cpu(), x.cpu(), w.cpu()), "CUDA"),
        (lambda: L.rms_norm_backward(x.double(), x.double(), None), "dtype"),
    ]
    for fn, words in cases:
        with pytest.raises(RuntimeError) as info:
            fn()
        assert words in str(info.value), f"message {info.value!s:.200} lacks {words!r}"


@pytest.mark.parametrize("dtype", DTYPES)
def test_autograd(dtype):
    """loss.backward() through lit_kernels.rms_norm, with and without a weight,
    and a weight that does not require a gradient."""
    requires_cuda()
    L = lit()
    for w_grad in (True, False, None):
        x = rand((37, 4096), dtype).requires_grad_()
        w = rand((4096,), dtype, offset=1.0).requires_grad_(bool(w_grad)) if w_grad is not None else None
        dy = rand((37, 4096), dtype)
        L.rms_norm(x, w, EPS).backward(dy)
        ref_dx, ref_dw = reference(x, w, dy)
        check(x.grad, ref_dx, dtype, f"autograd dx (weight grad {w_grad})")
        if w_grad:
            check(w.grad, ref_dw, dtype, "autograd dw")
        elif w is not None:
            assert w.grad is None


def test_layer_trains():
    """The RMSNorm layer says it has a backward, and a step through it
    updates the weight as eager PyTorch's does."""
    requires_cuda()
    from torch import nn

    L = lit()
    assert L.layers.RMSNorm.has_backward
    norm = L.layers.RMSNorm()
    norm.weight = nn.Parameter(rand((4096,), torch.float32, offset=1.0))
    norm.variance_epsilon = EPS
    x = rand((64, 4096), torch.float32).requires_grad_()
    dy = rand((64, 4096), torch.float32)
    norm(x).backward(dy)
    ref_dx, ref_dw = reference(x, norm.weight, dy)
    check(x.grad, ref_dx, torch.float32, "layer dx")
    check(norm.weight.grad, ref_dw, torch.float32, "layer dw")


def test_compiled_training_step():
    """torch.compile(fullgraph=True) of a step through rms_norm: no graph
    break, and the gradients of eager's."""
    requires_cuda()
    L = lit()
    lin = torch.nn.Linear(1024, 1024, device="cuda", dtype=torch.bfloat16)
    w = rand((1024,), torch.bfloat16, offset=1.0).requires_grad_()

    def step(x):
        h = L.rms_norm(x, w, EPS)
        return (lin(h).float() ** 2).mean()

    x = rand((2, 77, 1024), torch.bfloat16).requires_grad_()
    loss = step(x)
    loss.backward()
    eager = (x.grad.clone(), w.grad.clone(), lin.weight.grad.clone())
    for t in (x, w, lin.weight, lin.bias):
        t.grad = None
    torch._dynamo.reset()
    compiled = torch.compile(step, fullgraph=True)
    loss_c = compiled(x)
    loss_c.backward()
    torch.testing.assert_close(loss_c, loss, rtol=1e-2, atol=1e-3)
    for got, want, name in zip((x.grad, w.grad, lin.weight.grad), eager, ("x", "weight", "linear")):
        err = float((got.double() - want.double()).norm() / want.double().norm())
        assert err < 2e-2, f"compiled step's {name} gradient differs from eager's by {err:.2e}"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))

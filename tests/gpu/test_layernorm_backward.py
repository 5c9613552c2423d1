"""LayerNorm's backward (layer_norm_backward and the autograd formula of
layer_norm) against float64 autograd of F.layer_norm, on a GPU.

    python3 -m pytest tests/gpu/test_layernorm_backward.py   (or: python3 tests/gpu/test_layernorm_backward.py)
"""

import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import DTYPES, TOLERANCE, check, lit, poison_next, pytest, rand, rel_err, requires_cuda  # noqa: E402

EPS = 1e-5
# 16392 and 65536 bf16 elements pass the register kernel's 2048 vectors (the wide kernel);
# fp32 rows pass it from 8196 elements. Odd lengths take single elements: 1023 and 2047
# at two and four a thread, 4097 the wide kernel.
HIDDEN = [1, 2, 3, 7, 127, 128, 1023, 2047, 4096, 4097, 5120, 16384, 16392, 65536]
# (weight, bias) present
PARAMS = [(True, True), (True, False), (False, True), (False, False)]


def reference(x, w, b, dy, eps=EPS):
    """float64 autograd of F.layer_norm(x, weight, bias): (dx, dw or None, db or None)."""
    x64 = x.detach().double().requires_grad_()
    w64 = w.detach().double().requires_grad_() if w is not None else None
    b64 = b.detach().double().requires_grad_() if b is not None else None
    y = F.layer_norm(x64, x64.shape[-1:], w64, b64, eps)
    inputs = [t for t in (x64, w64, b64) if t is not None]
    grads = list(torch.autograd.grad(y, inputs, dy.double()))
    dx = grads.pop(0)
    dw = grads.pop(0) if w64 is not None else None
    db = grads.pop(0) if b64 is not None else None
    return dx, dw, db


def stats(x, eps=EPS):
    """The forward's statistics in fp32, one value a row: (mean, rstd)."""
    x64 = x.double()
    mean = x64.mean(-1)
    rstd = torch.rsqrt(x64.var(-1, unbiased=False) + eps)
    return mean.reshape(-1).float(), rstd.reshape(-1).float()


def params(hidden, dtype, with_w, with_b):
    w = rand((hidden,), dtype, offset=1.0) if with_w else None
    b = rand((hidden,), dtype, scale=0.5) if with_b else None
    return w, b


def rows_for(hidden):
    return [1, 3, 130] if hidden >= 16384 else [1, 3, 130, 1027]


def check_dx(dx, ref_dx, x, w, dy, dtype, what):
    """dx = rstd * (g - mean(g) - xhat * mean(g * xhat)): g with its
    components along ones and xhat removed. At n = 1 the exact gradient is
    zero and at n = 2 about eps / var of its terms (nothing is left once two
    directions are removed); at n = 3 one direction is left, and a single
    row's g can be nearly orthogonal to it. No fp32 evaluation of the
    difference keeps such a result to relative precision, so at n <= 3 the
    error is held to the tolerance relative to the terms, rstd * g, as the
    backward error of the computation. Every other row length is held to dx
    itself."""
    if x.shape[-1] > 3:
        return check(dx, ref_dx, dtype, f"{what}: dx")
    x64 = x.double()
    g = dy.double() * (w.double() if w is not None else 1.0)
    terms = g * torch.rsqrt(x64.var(-1, unbiased=False, keepdim=True) + EPS)
    assert torch.isfinite(dx).all(), f"{what}: dx not finite"
    err = float((dx.double() - ref_dx).norm() / terms.norm().clamp_min(1e-300))
    assert err < TOLERANCE[dtype], f"{what}: dx error {err:.3e} of the cancelling terms ({dtype})"


def check_grads(got, x, w, b, dy, dtype, what, tol=None):
    """dx, dw and db against float64 autograd: under the dtype's tolerance,
    or under `tol` where given."""
    dx, dw, db = got
    ref_dx, ref_dw, ref_db = reference(x, w, b, dy)
    assert dx.shape == x.shape and dx.is_contiguous(), f"{what}: dx {tuple(dx.shape)}"
    if tol is not None:
        for name, t, ref in (("dx", dx, ref_dx), ("dw", dw, ref_dw), ("db", db, ref_db)):
            if ref is not None:
                assert torch.isfinite(t).all() and rel_err(t, ref) < tol, \
                    f"{what}: {name} relative error {rel_err(t, ref):.3e} >= {tol:.0e}"
        return
    check_dx(dx, ref_dx, x, w, dy, dtype, what)
    for name, got_t, param, ref in (("dw", dw, w, ref_dw), ("db", db, b, ref_db)):
        if param is None:
            assert got_t is None, f"{what}: {name} without its parameter"
        else:
            assert got_t.dtype == param.dtype and got_t.shape == param.shape, \
                f"{what}: {name} {got_t.dtype} {tuple(got_t.shape)}"
            check(got_t, ref, dtype, f"{what}: {name}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hidden", HIDDEN)
@pytest.mark.parametrize("with_w,with_b", PARAMS)
def test_layer_norm_backward(dtype, hidden, with_w, with_b):
    requires_cuda()
    for rows in rows_for(hidden):
        x = rand((rows, hidden), dtype, scale=2.0, offset=0.3)
        w, b = params(hidden, dtype, with_w, with_b)
        dy = rand((rows, hidden), dtype)
        poison_next((rows, hidden), dtype)
        got = lit().layer_norm_backward(dy, x, w, b, EPS)
        check_grads(got, x, w, b, dy, dtype, f"rows={rows} hidden={hidden} w={with_w} b={with_b}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hidden", [128, 4096, 8192, 16384, 65536])
def test_saved_stats(dtype, hidden):
    """Saved mean and rstd give the recomputed ones' result; wrong ones are
    used as given."""
    requires_cuda()
    x = rand((67, hidden), dtype, scale=2.0, offset=0.5)
    w, b = params(hidden, dtype, True, True)
    dy = rand((67, hidden), dtype)
    mean, rstd = stats(x)
    got = lit().layer_norm_backward(dy, x, w, b, EPS, mean, rstd)
    check_grads(got, x, w, b, dy, dtype, f"saved stats hidden={hidden}")
    again = lit().layer_norm_backward(dy, x, w, b, EPS, mean, rstd * 2)
    assert not torch.allclose(again[0].float(), got[0].float()), "the saved rstd was not read"
    again = lit().layer_norm_backward(dy, x, w, b, EPS, mean + 1, rstd)
    assert not torch.allclose(again[1].float(), got[1].float()), "the saved mean was not read"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hidden", [64, 4096, 65536])
def test_large_mean(dtype, hidden):
    """Rows whose mean is 400 times their spread in fp32 (60 times in the
    16-bit types, whose resolution at 30 is still finer than the spread).
    The two-pass variance keeps rstd: a one-pass E[x^2] - mean^2 in fp32
    would be off by about 1e-2 of the variance. What remains in fp32 is the
    rounding of the mean itself (some 1e-7 of it, up to 1e-4 of the spread
    here), which every fp32 LayerNorm has: fp32 is held to 1e-3, the 16-bit
    types to their tolerance."""
    requires_cuda()
    x = rand((33, hidden), dtype, scale=0.5, offset=200.0 if dtype == torch.float32 else 30.0)
    w, b = params(hidden, dtype, True, True)
    dy = rand((33, hidden), dtype)
    check_grads(lit().layer_norm_backward(dy, x, w, b, EPS), x, w, b, dy, dtype, f"large mean {hidden}",
                tol=1e-3 if dtype == torch.float32 else None)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize("rows", [1, 2, 31, 4097, 100_003])
def test_many_rows(dtype, rows):
    requires_cuda()
    for hidden in (64, 4096):
        if rows * hidden > 2**28:
            continue
        x = rand((rows, hidden), dtype)
        w, b = params(hidden, dtype, True, True)
        dy = rand((rows, hidden), dtype)
        got = lit().layer_norm_backward(dy, x, w, b, EPS)
        check_grads(got, x, w, b, dy, dtype, f"rows={rows} hidden={hidden}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_layouts(dtype):
    """A misaligned start (the forward's scalar path), per-head views of a
    fused projection, a non-contiguous dy, a 3-D x: without copies of x."""
    requires_cuda()
    L = lit()
    flat = rand((5 * 256 + 1,), dtype)[1:].view(5, 256)
    dyf = rand((5, 256), dtype)
    w, b = params(256, dtype, True, True)
    check_grads(L.layer_norm_backward(dyf, flat, w, b, EPS), flat, w, b, dyf, dtype, "misaligned x")
    dyt = rand((256, 5), dtype).t()
    check_grads(L.layer_norm_backward(dyt, flat, None, b, EPS), flat, None, b, dyt, dtype, "transposed dy")
    qkv = rand((2, 9, 3 * 4 * 128), dtype)
    q = qkv[..., : 4 * 128].view(2, 9, 4, 128)
    wq, bq = params(128, dtype, True, True)
    dy = rand((2, 9, 4, 128), dtype)
    check_grads(L.layer_norm_backward(dy, q, wq, bq, EPS), q, wq, bq, dy, dtype, "per-head view")
    mean, rstd = stats(q)
    check_grads(L.layer_norm_backward(dy, q, wq, bq, EPS, mean, rstd), q, wq, bq, dy, dtype, "per-head, saved")
    x3 = rand((3, 7, 4096), dtype)
    dy3 = rand((3, 7, 4096), dtype)
    w3, b3 = params(4096, dtype, True, True)
    check_grads(L.layer_norm_backward(dy3, x3, w3, b3, EPS), x3, w3, b3, dy3, dtype, "3-D x")


@pytest.mark.parametrize("hidden", [128, 4096, 8192, 16384, 65536])
def test_parameter_gradients_are_deterministic(hidden):
    requires_cuda()
    x = rand((3001, hidden), torch.float32)
    w, b = params(hidden, torch.float32, True, True)
    dy = rand((3001, hidden), torch.float32)
    first = lit().layer_norm_backward(dy, x, w, b, EPS)
    for _ in range(3):
        again = lit().layer_norm_backward(dy, x, w, b, EPS)
        assert all(torch.equal(a, c) for a, c in zip(first, again)), "not bitwise reproducible"


def test_empty():
    requires_cuda()
    L = lit()
    x = torch.empty((0, 64), device="cuda", dtype=torch.bfloat16)
    w, b = params(64, torch.bfloat16, True, True)
    dx, dw, db = L.layer_norm_backward(x, x, w, b, EPS)
    assert dx.shape == (0, 64), "no rows: dx must be empty"
    assert torch.equal(dw, torch.zeros_like(w)) and torch.equal(db, torch.zeros_like(b)), "no rows: dw, db zero"


def test_rejects_bad_inputs():
    requires_cuda()
    L = lit()
    x = rand((4, 64), torch.bfloat16)
    w, b = params(64, torch.bfloat16, True, True)
    mean, rstd = stats(x)
    cases = [
        (lambda: L.layer_norm_backward(rand((4, 32), torch.bfloat16), x, w, b), "dy has shape"),
        (lambda: L.layer_norm_backward(x.float(), x, w, b), "dy"),
        (lambda: L.layer_norm_backward(x, x, w.float(), b), "weight"),
        (lambda: L.layer_norm_backward(x, x, w, b.float()), "bias"),
        (lambda: L.layer_norm_backward(x, x, rand((32,), torch.bfloat16), b), "weight must have shape"),
        (lambda: L.layer_norm_backward(x, x, w, rand((32,), torch.bfloat16)), "bias must have shape"),
        (lambda: L.layer_norm_backward(x, x, w, b, EPS, mean, None), "both mean and rstd"),
        (lambda: L.layer_norm_backward(x, x, w, b, EPS, None, rstd), "both mean and rstd"),
        (lambda: L.layer_norm_backward(x, x, w, b, EPS, mean.bfloat16(), rstd), "mean must be a float32"),
        (lambda: L.layer_norm_backward(x, x, w, b, EPS, mean, rstd[:3]), "one value per row"),
        (lambda: L.layer_norm_backward(x, x, w, b, -1.0), "eps must be >= 0"),
        (lambda: L.layer_norm_backward(x[:, :0], x[:, :0], None, None), "non-empty last dimension"),
        (lambda: L.layer_norm_backward(x.cpu(), x.cpu(), w.cpu(), b.cpu()), "CUDA"),
        (lambda: L.layer_norm_backward(x.double(), x.double(), None, None), "dtype"),
    ]
    for fn, words in cases:
        with pytest.raises(RuntimeError) as info:
            fn()
        assert words in str(info.value), f"message {info.value!s:.200} lacks {words!r}"


def test_opcheck():
    """torch.library.opcheck on layer_norm with inputs that need a gradient
    (its registered formula) and on layer_norm_backward (its fake)."""
    requires_cuda()
    ops = lit().ops
    bf = torch.bfloat16
    x = rand((5, 64), bf).requires_grad_()
    w, b = (t.requires_grad_() for t in params(64, bf, True, True))
    torch.library.opcheck(ops.layer_norm.default, (x, w, b, EPS))
    torch.library.opcheck(ops.layer_norm.default, (x, None, b, EPS))
    torch.library.opcheck(ops.layer_norm.default, (x, None, None, EPS))
    xd = x.detach()
    mean, rstd = stats(xd)
    torch.library.opcheck(ops.layer_norm_backward.default, (rand((5, 64), bf), xd, w.detach(), b.detach(), None,
                                                            None, EPS))
    torch.library.opcheck(ops.layer_norm_backward.default, (rand((5, 64), bf), xd, None, b.detach(), mean, rstd,
                                                            EPS))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("with_w,with_b", PARAMS)
def test_autograd(dtype, with_w, with_b):
    """loss.backward() through lit_kernels.layer_norm, and parameters that do
    not require a gradient."""
    requires_cuda()
    L = lit()
    for grads in (True, False):
        x = rand((37, 4096), dtype, offset=0.3).requires_grad_()
        w, b = params(4096, dtype, with_w, with_b)
        for t in (w, b):
            if t is not None:
                t.requires_grad_(grads)
        dy = rand((37, 4096), dtype)
        L.layer_norm(x, w, b, EPS).backward(dy)
        ref_dx, ref_dw, ref_db = reference(x, w, b, dy)
        check(x.grad, ref_dx, dtype, f"autograd dx (w={with_w} b={with_b})")
        for t, ref, name in ((w, ref_dw, "dw"), (b, ref_db, "db")):
            if t is not None and grads:
                check(t.grad, ref, dtype, f"autograd {name}")
            elif t is not None:
                assert t.grad is None, f"{name} given to a parameter that does not require it"


def test_layer_trains():
    """The LayerNorm layer says it has a backward; a step through it gives
    eager PyTorch's gradients, on its mixed-dtype path too (16-bit
    parameters, fp32 input: normalized in fp32)."""
    requires_cuda()
    from torch import nn

    L = lit()
    assert L.layers.LayerNorm.has_backward
    for pdtype, xdtype in ((torch.float32, torch.float32), (torch.bfloat16, torch.float32)):
        norm = L.layers.LayerNorm()
        norm.weight = nn.Parameter(rand((4096,), pdtype, offset=1.0))
        norm.bias = nn.Parameter(rand((4096,), pdtype, scale=0.5))
        norm.eps = EPS
        x = rand((64, 4096), xdtype, offset=0.2).requires_grad_()
        dy = rand((64, 4096), xdtype)
        norm(x).backward(dy)
        ref_dx, ref_dw, ref_db = reference(x, norm.weight.float(), norm.bias.float(), dy)
        check(x.grad, ref_dx, torch.float32, f"layer dx ({pdtype})")
        check(norm.weight.grad, ref_dw, pdtype, f"layer dw ({pdtype})")
        check(norm.bias.grad, ref_db, pdtype, f"layer db ({pdtype})")


def test_compiled_training_step():
    """torch.compile(fullgraph=True) of a step through layer_norm: no graph
    break, and the gradients of eager's."""
    requires_cuda()
    L = lit()
    lin = torch.nn.Linear(1024, 1024, device="cuda", dtype=torch.bfloat16)
    w = rand((1024,), torch.bfloat16, offset=1.0).requires_grad_()
    b = rand((1024,), torch.bfloat16, scale=0.5).requires_grad_()

    def step(x):
        h = L.layer_norm(x, w, b, EPS)
        return (lin(h).float() ** 2).mean()

    x = rand((2, 77, 1024), torch.bfloat16, offset=0.3).requires_grad_()
    loss = step(x)
    loss.backward()
    eager = (x.grad.clone(), w.grad.clone(), b.grad.clone(), lin.weight.grad.clone())
    for t in (x, w, b, lin.weight, lin.bias):
        t.grad = None
    torch._dynamo.reset()
    compiled = torch.compile(step, fullgraph=True)
    loss_c = compiled(x)
    loss_c.backward()
    torch.testing.assert_close(loss_c, loss, rtol=1e-2, atol=1e-3)
    for got, want, name in zip((x.grad, w.grad, b.grad, lin.weight.grad), eager, ("x", "weight", "bias", "linear")):
        err = float((got.double() - want.double()).norm() / want.double().norm())
        assert err < 2e-2, f"compiled step's {name} gradient differs from eager's by {err:.2e}"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))

"""The gated activations' backward (act_and_mul_backward, gated_backward and
the autograd formulas of act_and_mul, swiglu and geglu) against float64
autograd of the eager expressions, on a GPU.

    python3 -m pytest tests/gpu/test_activations_backward.py
"""

import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import DTYPES, check, lit, poison_next, pytest, rand, requires_cuda  # noqa: E402

ACTS = ["silu", "gelu", "gelu_tanh"]
SIZES = [(1, 1), (3, 7), (130, 4097), (1000, 64), (3000, 1408)]


def act64(name, x):
    if name == "silu":
        return F.silu(x)
    return F.gelu(x, approximate="tanh" if name == "gelu_tanh" else "none")


def ref_act_and_mul(gate, up, dout, name):
    g = gate.detach().double().requires_grad_()
    u = up.detach().double().requires_grad_()
    return torch.autograd.grad(act64(name, g) * u, (g, u), dout.double())


def ref_fused(x, dout, name, gate_first):
    x64 = x.detach().double().requires_grad_()
    a, b = x64.chunk(2, -1)
    gate, up = (a, b) if gate_first else (b, a)
    return torch.autograd.grad(act64(name, gate) * up, (x64,), dout.double())[0]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", ACTS)
def test_act_and_mul_backward(dtype, activation):
    requires_cuda()
    for rows, d in SIZES:
        gate = rand((rows, d), dtype, scale=3.0)
        up = rand((rows, d), dtype)
        dout = rand((rows, d), dtype)
        poison_next((rows, d), dtype)
        dg, du = lit().act_and_mul_backward(dout, gate, up, activation)
        rg, ru = ref_act_and_mul(gate, up, dout, activation)
        check(dg, rg, dtype, f"{activation} dgate {rows}x{d}")
        check(du, ru, dtype, f"{activation} dup {rows}x{d}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", ACTS)
@pytest.mark.parametrize("gate_first", [True, False])
def test_gated_backward(dtype, activation, gate_first):
    requires_cuda()
    for rows, d in SIZES:
        x = rand((rows, 2 * d), dtype, scale=3.0)
        dout = rand((rows, d), dtype)
        poison_next((rows, 2 * d), dtype)
        dx = lit().gated_backward(dout, x, activation, gate_first)
        check(dx, ref_fused(x, dout, activation, gate_first), dtype, f"{activation} {rows}x{2 * d}")


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_extreme_gates(dtype):
    """Gates far in both tails: the sigmoid's exponential overflows, erfc's
    tail matters; both gradients stay finite and right."""
    requires_cuda()
    gate = torch.tensor([[-120.0, -30.0, -9.0, -3.0, 0.0, 3.0, 9.0, 30.0, 120.0] * 8], device="cuda").to(dtype)
    up = rand(gate.shape, dtype)
    dout = rand(gate.shape, dtype)
    for activation in ACTS:
        dg, du = lit().act_and_mul_backward(dout, gate, up, activation)
        rg, ru = ref_act_and_mul(gate, up, dout, activation)
        check(dg, rg, dtype, f"{activation} dgate, extreme")
        check(du, ru, dtype, f"{activation} dup, extreme")


@pytest.mark.parametrize("dtype", DTYPES)
def test_layouts(dtype):
    """Column slices of one projection as gate and up, a misaligned start,
    a non-contiguous dout, 3-D inputs."""
    requires_cuda()
    L = lit()
    proj = rand((77, 2 * 1024 + 8), dtype, scale=2.0)
    gate, up = proj[:, :1024], proj[:, 1024 + 8:]
    dout = rand((1024, 77), dtype).t()
    dg, du = L.act_and_mul_backward(dout, gate, up, "silu")
    rg, ru = ref_act_and_mul(gate, up, dout, "silu")
    check(dg, rg, dtype, "column slices: dgate")
    check(du, ru, dtype, "column slices: dup")
    flat = rand((5 * 130 + 1,), dtype)[1:].view(5, 130)
    g2, u2 = flat[:, :65], flat[:, 65:]
    d2 = rand((5, 65), dtype)
    dg, du = L.act_and_mul_backward(d2, g2, u2, "gelu")
    rg, ru = ref_act_and_mul(g2, u2, d2, "gelu")
    check(dg, rg, dtype, "misaligned: dgate")
    check(du, ru, dtype, "misaligned: dup")
    x3 = rand((2, 9, 2 * 256), dtype)
    d3 = rand((2, 9, 256), dtype)
    dx = L.gated_backward(d3, x3, "gelu_tanh", False)
    assert dx.shape == x3.shape
    check(dx, ref_fused(x3, d3, "gelu_tanh", False), dtype, "3-D fused")


def test_rejects_bad_inputs():
    requires_cuda()
    L = lit()
    g = rand((4, 64), torch.bfloat16)
    x = rand((4, 128), torch.bfloat16)
    cases = [
        (lambda: L.act_and_mul_backward(g, g, rand((4, 32), torch.bfloat16)), "same shape"),
        (lambda: L.act_and_mul_backward(g.float(), g, g), "dout has dtype"),
        (lambda: L.act_and_mul_backward(g, g, g, "relu"), "activation must be"),
        (lambda: L.gated_backward(rand((4, 32), torch.bfloat16), x, "silu", True), "halved"),
        (lambda: L.gated_backward(g, rand((4, 127), torch.bfloat16), "silu", True), "even"),
        (lambda: L.gated_backward(g, x.t().contiguous().t(), "silu", True), "contiguous"),
        (lambda: L.gated_backward(g, x, "tanh", True), "activation must be"),
    ]
    for fn, words in cases:
        with pytest.raises(RuntimeError) as info:
            fn()
        assert words in str(info.value), f"message {info.value!s:.200} lacks {words!r}"


@pytest.mark.parametrize("dtype", DTYPES)
def test_autograd(dtype):
    """loss.backward() through act_and_mul, swiglu and geglu."""
    requires_cuda()
    L = lit()
    gate = rand((37, 512), dtype, scale=2.0).requires_grad_()
    up = rand((37, 512), dtype).requires_grad_()
    dout = rand((37, 512), dtype)
    L.act_and_mul(gate, up, "gelu_tanh").backward(dout)
    rg, ru = ref_act_and_mul(gate, up, dout, "gelu_tanh")
    check(gate.grad, rg, dtype, "autograd act_and_mul dgate")
    check(up.grad, ru, dtype, "autograd act_and_mul dup")
    for fn, name, gate_first in ((lambda x: L.swiglu(x, True), "silu", True),
                                 (lambda x: L.swiglu(x, False), "silu", False),
                                 (lambda x: L.geglu(x, "none", False), "gelu", False),
                                 (lambda x: L.geglu(x, "tanh", True), "gelu_tanh", True)):
        x = rand((37, 1024), dtype, scale=2.0).requires_grad_()
        fn(x).backward(dout)
        check(x.grad, ref_fused(x, dout, name, gate_first), dtype, f"autograd {name} gate_first={gate_first}")


def test_opcheck_with_gradients():
    """torch.library.opcheck on the forward ops with inputs that need a
    gradient (their registered formulas), and on the backward ops."""
    requires_cuda()
    L = lit()
    ops = L.ops
    bf = torch.bfloat16
    g = rand((5, 64), bf).requires_grad_()
    u = rand((5, 64), bf).requires_grad_()
    x = rand((5, 128), bf).requires_grad_()
    torch.library.opcheck(ops.act_and_mul.default, (g, u, "silu"))
    torch.library.opcheck(ops.swiglu.default, (x, True))
    torch.library.opcheck(ops.geglu.default, (x, "tanh", False))
    torch.library.opcheck(ops.rms_norm.default, (rand((5, 64), bf).requires_grad_(),
                                                 rand((64,), bf).requires_grad_(), 1e-6))
    torch.library.opcheck(ops.act_and_mul_backward.default, (rand((5, 64), bf), g.detach(), u.detach(), "gelu"))
    torch.library.opcheck(ops.gated_backward.default, (rand((5, 64), bf), x.detach(), "silu", False))
    torch.library.opcheck(ops.rms_norm_backward.default, (rand((5, 64), bf), rand((5, 64), bf),
                                                          rand((64,), bf), None, 1e-6))


def test_layers_train():
    """SiluMLP's step through act_and_mul gives eager's gradients."""
    requires_cuda()
    from torch import nn

    L = lit()
    mlp = nn.Module()
    mlp.gate_proj = nn.Linear(256, 512, bias=False, device="cuda")
    mlp.up_proj = nn.Linear(256, 512, bias=False, device="cuda")
    mlp.down_proj = nn.Linear(512, 256, bias=False, device="cuda")
    x = rand((33, 256), torch.float32)
    eager = mlp.down_proj(F.silu(mlp.gate_proj(x)) * mlp.up_proj(x)).square().mean()
    eager.backward()
    want = [p.grad.clone() for p in (mlp.gate_proj.weight, mlp.up_proj.weight, mlp.down_proj.weight)]
    for p in (mlp.gate_proj.weight, mlp.up_proj.weight, mlp.down_proj.weight):
        p.grad = None
    L.layers.SiluMLP.forward(mlp, x).square().mean().backward()
    for p, w in zip((mlp.gate_proj.weight, mlp.up_proj.weight, mlp.down_proj.weight), want):
        check(p.grad, w.double(), torch.float32, "SiluMLP weight gradient")


def test_compiled_training_step():
    """A gated MLP through swiglu under torch.compile(fullgraph=True): no
    graph break, eager's gradients."""
    requires_cuda()
    L = lit()
    up = torch.nn.Linear(512, 2048, device="cuda", dtype=torch.bfloat16)
    down = torch.nn.Linear(1024, 512, device="cuda", dtype=torch.bfloat16)

    def step(x):
        return down(L.swiglu(up(x), True)).float().square().mean()

    x = rand((2, 65, 512), torch.bfloat16).requires_grad_()
    step(x).backward()
    eager = (x.grad.clone(), up.weight.grad.clone(), down.weight.grad.clone())
    for t in (x, up.weight, up.bias, down.weight, down.bias):
        t.grad = None
    torch._dynamo.reset()
    torch.compile(step, fullgraph=True)(x).backward()
    for got, want, name in zip((x.grad, up.weight.grad, down.weight.grad), eager, ("x", "up", "down")):
        err = float((got.double() - want.double()).norm() / want.double().norm())
        assert err < 2e-2, f"compiled step's {name} gradient differs from eager's by {err:.2e}"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))

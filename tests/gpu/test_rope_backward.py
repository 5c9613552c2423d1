"""The rotary embeddings' backward (rope_backward, rope_3d_backward,
rope_3d_grid_backward and the autograd formulas of rope, rope_3d and
rope_3d_grid) against float64 autograd of the eager rotations, on a GPU.

    python3 -m pytest tests/gpu/test_rope_backward.py   (or: python3 tests/gpu/test_rope_backward.py)
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import DTYPES, check, lit, poison_next, pytest, rand, requires_cuda  # noqa: E402

DEV = "cuda"
CASES = [
    # tokens, q heads, kv heads, head_size, rot_dim
    (128, 32, 8, 128, 128),  # Llama-3-8B, Qwen3-8B
    (37, 32, 8, 128, 64),  # partial rotary, odd tokens
    (19, 4, 1, 80, 32),  # GQA 4:1
    (5, 3, 3, 6, 4),  # tiny: scalar path
    (11, 2, 1, 10, 6),  # rot_dim not a multiple of the vector: scalar path
    (1, 1, 1, 64, 64),
]


# ---------------------------------------------------------------- references --
def rope64(positions, q, k, head_size, cache, is_neox):
    """The 1D rotation in float64 (vLLM's layout), differentiable."""
    T, rot = positions.shape[0], cache.shape[1]
    half = rot // 2
    cs = cache.double()[positions.long()]
    c, s = cs[:, None, :half], cs[:, None, half:]

    def apply(x):
        h = x.reshape(T, -1, head_size)
        r, tail = h[..., :rot], h[..., rot:]
        if is_neox:
            a, b = r[..., :half], r[..., half:]
            out = torch.cat([a * c - b * s, b * c + a * s], dim=-1)
        else:
            a, b = r[..., 0::2], r[..., 1::2]
            out = torch.stack([a * c - b * s, b * c + a * s], dim=-1).flatten(-2)
        return torch.cat([out, tail], dim=-1).reshape(x.shape)

    return apply(q), apply(k)


def rope_grads64(positions, q, k, head_size, cache, is_neox, dq, dk):
    q64 = q.detach().double().requires_grad_()
    k64 = k.detach().double().requires_grad_()
    qo, ko = rope64(positions, q64, k64, head_size, cache, is_neox)
    return torch.autograd.grad((qo, ko), (q64, k64), (dq.double(), dk.double()))


def ltx_cos_sin(grid, dim, theta=10000.0):
    """cos/sin [B, S, dim] float32 of diffusers' LTXVideoRotaryPosEmbed for
    the coordinates grid (as tests/gpu/test_ops.py derives them)."""
    freqs = lit().ltx_rope_freqs(dim, theta, grid.device)
    ang = (freqs[None, None, :, None] * (grid[:, :, None, :] * 2 - 1)).flatten(2)
    cos = ang.cos().repeat_interleave(2, dim=-1)
    sin = ang.sin().repeat_interleave(2, dim=-1)
    pad = dim % 6
    if pad:
        cos = torch.cat([torch.ones_like(cos[..., :pad]), cos], dim=-1)
        sin = torch.cat([torch.zeros_like(sin[..., :pad]), sin], dim=-1)
    return cos, sin


def ltx64(x, cos, sin):
    """diffusers' apply_rotary_emb in float64, differentiable in x."""
    a, b = x[..., 0::2], x[..., 1::2]
    rot = torch.stack([-b, a], dim=-1).flatten(-2)
    return x * cos.double() + rot * sin.double()


def ltx_grad64(x, cos, sin, dout):
    x64 = x.detach().double().requires_grad_()
    return torch.autograd.grad(ltx64(x64, cos, sin), (x64,), dout.double())[0]


LTX_CASES = [  # batch, frames, height, width, dim
    (1, 2, 4, 6, 2048),
    (2, 3, 5, 7, 2048),  # odd token count
    (1, 2, 3, 3, 96),
    (2, 1, 2, 5, 130),  # dim % 6 == 4, dim % 8 != 0: scalar path
    (1, 1, 1, 3, 6),
]


# ---------------------------------------------------------------------- 1D --
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("is_neox", [True, False])
@pytest.mark.parametrize("cache_f32", [True, False])
def test_rope_backward(dtype, case, is_neox, cache_f32):
    requires_cuda()
    L = lit()
    T, Hq, Hkv, hs, rot = case
    cache = L.rope_cos_sin_cache(4096, rot, 1e6, torch.float32 if cache_f32 else dtype, DEV)
    positions = torch.randint(0, 4096, (T,), device=DEV)
    q, k = rand((T, Hq * hs), dtype), rand((T, Hkv * hs), dtype)
    dq, dk = rand((T, Hq * hs), dtype), rand((T, Hkv * hs), dtype)
    poison_next((T, Hq * hs), dtype)
    gq, gk = L.rope_backward(positions, dq, dk, hs, cache, is_neox)
    rq, rk = rope_grads64(positions, q, k, hs, cache, is_neox, dq, dk)
    check(gq, rq, dtype, f"rope_backward dq {case} neox={is_neox}")
    check(gk, rk, dtype, f"rope_backward dk {case} neox={is_neox}")
    if rot < hs:  # the unrotated channels' gradient is the output's, exactly
        assert torch.equal(gq.reshape(T, Hq, hs)[..., rot:], dq.reshape(T, Hq, hs)[..., rot:])
    # the same through autograd
    qa, ka = q.clone().requires_grad_(), k.clone().requires_grad_()
    qo, ko = L.rope(positions, qa, ka, hs, cache, is_neox)
    torch.autograd.backward((qo, ko), (dq, dk))
    check(qa.grad, rq, dtype, f"autograd rope dq {case}")
    check(ka.grad, rk, dtype, f"autograd rope dk {case}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("is_neox", [True, False])
def test_rope_backward_views(dtype, is_neox):
    """query and key as column slices of one fused QKV projection (token
    stride past the width), 3-D head views, int32 positions, a strided
    output gradient, a misaligned start (the scalar path)."""
    requires_cuda()
    L = lit()
    T, Hq, Hkv, hs = 45, 8, 2, 128
    cache = L.rope_cos_sin_cache(1000, hs, 1e4, torch.float32, DEV)
    positions = torch.randint(0, 1000, (T,), device=DEV, dtype=torch.int32)
    qkv = rand((T, (Hq + 2 * Hkv) * hs), dtype).requires_grad_()
    q, k = qkv[:, :Hq * hs], qkv[:, Hq * hs:(Hq + Hkv) * hs]
    qo, ko = L.rope(positions, q.view(T, Hq, hs), k.view(T, Hkv, hs), hs, cache, is_neox)
    dq = rand((T, Hq, hs), dtype)
    dk = rand((T, 2 * Hkv, hs), dtype)[:, ::2]  # not contiguous
    torch.autograd.backward((qo, ko), (dq, dk))
    rq, rk = rope_grads64(positions, q.detach().view(T, Hq, hs), k.detach().view(T, Hkv, hs), hs, cache,
                          is_neox, dq, dk)
    check(qkv.grad[:, :Hq * hs], rq.reshape(T, -1), dtype, "fused QKV: dq")
    check(qkv.grad[:, Hq * hs:(Hq + Hkv) * hs], rk.reshape(T, -1), dtype, "fused QKV: dk")
    assert torch.all(qkv.grad[:, (Hq + Hkv) * hs:] == 0), "a gradient reached v"
    # the op on strided gradients directly: slices of a wider buffer
    g = rand((T, (Hq + Hkv) * hs + 8), dtype)
    gq, gk = g[:, :Hq * hs], g[:, Hq * hs:(Hq + Hkv) * hs]
    oq, ok = L.rope_backward(positions, gq, gk, hs, cache, is_neox)
    rq, rk = rope_grads64(positions, gq, gk, hs, cache, is_neox, gq, gk)  # the gradients of gq, gk
    check(oq, rq, dtype, "strided grads: dq")
    check(ok, rk, dtype, "strided grads: dk")
    flat = rand((T * 2 * hs + 1,), dtype)[1:].view(T, 2 * hs)  # misaligned by one element
    oq, ok = L.rope_backward(positions, flat[:, :hs], flat[:, hs:], hs, cache, is_neox)
    rq, rk = rope_grads64(positions, flat[:, :hs], flat[:, hs:], hs, cache, is_neox, flat[:, :hs], flat[:, hs:])
    check(oq, rq, dtype, "misaligned: dq")
    check(ok, rk, dtype, "misaligned: dk")


@pytest.mark.parametrize("is_neox", [True, False])
def test_rope_gradcheck(is_neox):
    """float32: torch.autograd.gradcheck (finite differences of a linear map
    are exact up to rounding, so a wide step and tight tolerances hold), and
    the adjoint identity <rope(u), v> = <u, rope_backward(v)> in float64 sums."""
    requires_cuda()
    L = lit()
    T, Hq, Hkv, hs, rot = 3, 2, 1, 8, 6
    cache = L.rope_cos_sin_cache(64, rot, 1e4, torch.float32, DEV)
    positions = torch.randint(0, 64, (T,), device=DEV)
    q = rand((T, Hq * hs), torch.float32).requires_grad_()
    k = rand((T, Hkv * hs), torch.float32).requires_grad_()

    def fn(a, b):
        return L.rope(positions, a, b, hs, cache, is_neox)

    assert torch.autograd.gradcheck(fn, (q, k), eps=1e-1, atol=1e-4, rtol=1e-3)
    u, v = rand((97, 4 * 128), torch.float32), rand((97, 4 * 128), torch.float32)
    uk, vk = rand((97, 128), torch.float32), rand((97, 128), torch.float32)
    pos = torch.randint(0, 4096, (97,), device=DEV)
    big = L.rope_cos_sin_cache(4096, 128, 1e4, torch.float32, DEV)
    fu, fk = L.rope(pos, u, uk, 128, big, is_neox)
    bv, bk = L.rope_backward(pos, v, vk, 128, big, is_neox)
    lhs = (fu.double() * v.double()).sum() + (fk.double() * vk.double()).sum()
    rhs = (u.double() * bv.double()).sum() + (uk.double() * bk.double()).sum()
    assert abs(float(lhs - rhs)) <= 1e-5 * float(lhs.abs() + rhs.abs() + 1), f"adjoint: {lhs} vs {rhs}"


# ---------------------------------------------------------------------- 3D --
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", LTX_CASES)
@pytest.mark.parametrize("batched_table", [False, True])
def test_rope_3d_backward(dtype, case, batched_table):
    requires_cuda()
    L = lit()
    B, Fr, H, W, D = case
    grid = L.ltx_video_coords(B if batched_table else 1, Fr, H, W, (8 / 25, 32, 32), device=DEV)
    cos, sin = ltx_cos_sin(grid, D)
    x = rand((B, Fr * H * W, D), dtype)
    dout = rand(x.shape, dtype)
    poison_next(x.shape, dtype)
    dx = L.rope_3d_backward(dout, cos, sin)
    ref = ltx_grad64(x, cos, sin, dout)
    check(dx, ref, dtype, f"rope_3d_backward {case}")
    xa = x.clone().requires_grad_()
    L.rope_3d(xa, cos, sin).backward(dout)
    check(xa.grad, ref, dtype, f"autograd rope_3d {case}")


def test_rope_3d_backward_is_the_transpose():
    """Tables whose two members of a pair differ (not a rotation): the
    gradient is still the transpose of the forward's map."""
    requires_cuda()
    L = lit()
    x, dout = rand((2, 9, 64), torch.float32), rand((2, 9, 64), torch.float32)
    cos, sin = torch.rand(1, 9, 64, device=DEV), torch.rand(1, 9, 64, device=DEV)
    check(L.rope_3d_backward(dout, cos, sin), ltx_grad64(x, cos, sin, dout), torch.float32, "transpose")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", LTX_CASES)
@pytest.mark.parametrize("scaled", [True, False])
def test_rope_3d_grid_backward(dtype, case, scaled):
    requires_cuda()
    L = lit()
    B, Fr, H, W, D = case
    grid = L.ltx_video_coords(B, Fr, H, W, (8 / 25, 32, 32) if scaled else None, device=DEV)
    freqs = L.ltx_rope_freqs(D, device=DEV)
    cos, sin = ltx_cos_sin(grid, D)
    q, k = rand((B, Fr * H * W, D), dtype), rand((B, Fr * H * W, D), dtype)
    dq, dk = rand(q.shape, dtype), rand(q.shape, dtype)
    poison_next(q.shape, dtype)
    gq, gk = L.rope_3d_grid_backward(dq, dk, grid, freqs)
    # unscaled coordinates reach angles where a float32 ulp is large: the
    # reference takes cos/sin of the same float32 angles, as the forward's test
    check(gq, ltx_grad64(q, cos, sin, dq), dtype, f"rope_3d_grid_backward dq {case}")
    check(gk, ltx_grad64(k, cos, sin, dk), dtype, f"rope_3d_grid_backward dk {case}")
    qa, ka = q.clone().requires_grad_(), k.clone().requires_grad_()
    qo, ko = L.rope_3d_grid(qa, ka, grid, freqs)
    torch.autograd.backward((qo, ko), (dq, dk))
    check(qa.grad, ltx_grad64(q, cos, sin, dq), dtype, f"autograd rope_3d_grid dq {case}")
    check(ka.grad, ltx_grad64(k, cos, sin, dk), dtype, f"autograd rope_3d_grid dk {case}")


def test_rope_3d_gradcheck():
    requires_cuda()
    L = lit()
    grid = L.ltx_video_coords(1, 1, 2, 2, (8 / 25, 32, 32), device=DEV)
    cos, sin = ltx_cos_sin(grid, 14)
    freqs = L.ltx_rope_freqs(14, device=DEV)
    x = rand((1, 4, 14), torch.float32).requires_grad_()
    y = rand((1, 4, 14), torch.float32).requires_grad_()
    assert torch.autograd.gradcheck(lambda a: L.rope_3d(a, cos, sin), (x,), eps=1e-1, atol=1e-4, rtol=1e-3)
    assert torch.autograd.gradcheck(lambda a, b: L.rope_3d_grid(a, b, grid, freqs), (x, y), eps=1e-1,
                                    atol=1e-4, rtol=1e-3)


# ----------------------------------------------------------- registrations --
def test_opcheck_with_gradients():
    """torch.library.opcheck on the forward ops with inputs that need a
    gradient (their registered formulas) and on the backward ops."""
    requires_cuda()
    L = lit()
    ops = L.ops
    bf = torch.bfloat16
    cache = L.rope_cos_sin_cache(64, 32, 1e4, torch.float32, DEV)
    pos = torch.randint(0, 64, (7,), device=DEV)
    q, k = rand((7, 4 * 64), bf).requires_grad_(), rand((7, 64), bf).requires_grad_()
    torch.library.opcheck(ops.rope.default, (pos, q, k, 64, cache, True))
    torch.library.opcheck(ops.rope.default, (pos, q, k, 64, cache, False))
    torch.library.opcheck(ops.rope_backward.default, (pos, rand((7, 4 * 64), bf), rand((7, 64), bf), 64, cache,
                                                      True))
    grid = L.ltx_video_coords(1, 2, 2, 3, (8 / 25, 32, 32), device=DEV)
    freqs = L.ltx_rope_freqs(96, device=DEV)
    cos, sin = ltx_cos_sin(grid, 96)
    x, y = rand((1, 12, 96), bf).requires_grad_(), rand((1, 12, 96), bf).requires_grad_()
    torch.library.opcheck(ops.rope_3d.default, (x, cos, sin))
    torch.library.opcheck(ops.rope_3d_grid.default, (x, y, grid, freqs))
    torch.library.opcheck(ops.rope_3d_backward.default, (rand((1, 12, 96), bf), cos, sin))
    torch.library.opcheck(ops.rope_3d_grid_backward.default, (rand((1, 12, 96), bf), rand((1, 12, 96), bf), grid,
                                                              freqs))


def test_compiled_training_step():
    """torch.compile(fullgraph=True) of a step through rope: projections,
    the rotation, a score; no graph break, eager's gradients."""
    requires_cuda()
    L = lit()
    T, Hq, Hkv, hs = 67, 8, 2, 64
    wq = torch.nn.Linear(256, Hq * hs, device=DEV, dtype=torch.bfloat16)
    wk = torch.nn.Linear(256, Hkv * hs, device=DEV, dtype=torch.bfloat16)
    cache = L.rope_cos_sin_cache(512, hs, 1e4, torch.bfloat16, DEV)
    positions = torch.randint(0, 512, (T,), device=DEV)

    def step(x):
        qo, ko = L.rope(positions, wq(x), wk(x), hs, cache, True)
        s = qo.view(T, Hkv, Hq // Hkv, hs) * ko.view(T, Hkv, 1, hs)
        return s.float().sum(-1).square().mean()

    x = rand((T, 256), torch.bfloat16).requires_grad_()
    step(x).backward()
    eager = (x.grad.clone(), wq.weight.grad.clone(), wk.weight.grad.clone())
    for t in (x, wq.weight, wq.bias, wk.weight, wk.bias):
        t.grad = None
    torch._dynamo.reset()
    torch.compile(step, fullgraph=True)(x).backward()
    for got, want, name in zip((x.grad, wq.weight.grad, wk.weight.grad), eager, ("x", "wq", "wk")):
        err = float((got.double() - want.double()).norm() / want.double().norm())
        assert err < 2e-2, f"compiled step's {name} gradient differs from eager's by {err:.2e}"


def test_compiled_ltx_step():
    """The same for LTX-Video's rope_3d and rope_3d_grid."""
    requires_cuda()
    L = lit()
    D = 192
    proj = torch.nn.Linear(D, 2 * D, device=DEV, dtype=torch.bfloat16)
    grid = L.ltx_video_coords(1, 2, 3, 5, (8 / 25, 32, 32), device=DEV)
    freqs = L.ltx_rope_freqs(D, device=DEV)
    cos, sin = ltx_cos_sin(grid, D)

    def step(x):
        q, k = proj(x).chunk(2, -1)
        q2, k2 = L.rope_3d_grid(q.contiguous(), k.contiguous(), grid, freqs)
        return (L.rope_3d(q2, cos, sin) * k2).float().sum(-1).square().mean()

    x = rand((1, 30, D), torch.bfloat16).requires_grad_()
    step(x).backward()
    eager = (x.grad.clone(), proj.weight.grad.clone())
    x.grad = proj.weight.grad = proj.bias.grad = None
    torch._dynamo.reset()
    torch.compile(step, fullgraph=True)(x).backward()
    for got, want, name in zip((x.grad, proj.weight.grad), eager, ("x", "proj")):
        err = float((got.double() - want.double()).norm() / want.double().norm())
        assert err < 2e-2, f"compiled LTX step's {name} gradient differs from eager's by {err:.2e}"


# -------------------------------------------------------------------- layer --
def _rotary_module(L, hs, rot, is_neox, dtype):
    m = torch.nn.Module()
    m.head_size, m.is_neox_style = hs, is_neox
    m.cos_sin_cache = L.rope_cos_sin_cache(2048, rot, 1e4, dtype, DEV)
    return m


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("is_neox", [True, False])
def test_layer_with_gradients(dtype, is_neox):
    """RotaryEmbedding with query and key that require grad: out of place
    (the inputs untouched), the forward's values, the reference gradients;
    without grad it still rotates in place; compiled, eager's gradients."""
    requires_cuda()
    L = lit()
    assert L.layers.RotaryEmbedding.has_backward
    T, Hq, Hkv, hs, rot = 33, 8, 2, 128, 64
    m = _rotary_module(L, hs, rot, is_neox, dtype)
    positions = torch.randint(0, 2048, (T,), device=DEV)
    q0, k0 = rand((T, Hq, hs), dtype), rand((T, Hkv, hs), dtype)
    q, k = q0.clone().requires_grad_(), k0.clone().requires_grad_()
    qo, ko = L.layers.RotaryEmbedding.forward(m, positions, q, k)
    assert qo.shape == q.shape and ko.shape == k.shape
    assert torch.equal(q.detach(), q0) and torch.equal(k.detach(), k0), "the layer wrote its inputs"
    fq, fk = rope64(positions, q0.double(), k0.double(), hs, m.cos_sin_cache, is_neox)
    check(qo.detach(), fq, dtype, "layer forward q")
    check(ko.detach(), fk, dtype, "layer forward k")
    dq, dk = rand(q.shape, dtype), rand(k.shape, dtype)
    torch.autograd.backward((qo, ko), (dq, dk))
    rq, rk = rope_grads64(positions, q0, k0, hs, m.cos_sin_cache, is_neox, dq, dk)
    check(q.grad, rq, dtype, "layer dq")
    check(k.grad, rk, dtype, "layer dk")
    with torch.no_grad():  # inference keeps the in-place path
        q1, k1 = q0.clone(), k0.clone()
        r1, r2 = L.layers.RotaryEmbedding.forward(m, positions, q1, k1)
        assert r1 is q1 and r2 is k1
        check(q1, fq, dtype, "layer in place q")
    if dtype == torch.bfloat16:
        torch._dynamo.reset()
        q.grad = k.grad = None
        fn = torch.compile(lambda p, a, b: L.layers.RotaryEmbedding.forward(m, p, a, b), fullgraph=True)
        cq, ck = fn(positions, q, k)
        torch.autograd.backward((cq, ck), (dq, dk))
        check(q.grad, rq, dtype, "compiled layer dq")
        check(k.grad, rk, dtype, "compiled layer dk")


# ---------------------------------------------------------------- rejected --
def test_rejects_bad_inputs():
    requires_cuda()
    L = lit()
    bf = torch.bfloat16
    cache = L.rope_cos_sin_cache(64, 64, 1e4, torch.float32, DEV)
    cache32 = L.rope_cos_sin_cache(64, 32, 1e4, torch.float32, DEV)
    pos = torch.randint(0, 64, (5,), device=DEV)
    g, gk = rand((5, 4 * 64), bf), rand((5, 64), bf)
    x = rand((1, 6, 96), bf)
    grid = L.ltx_video_coords(1, 1, 2, 3, device=DEV)
    freqs = L.ltx_rope_freqs(96, device=DEV)
    cos, sin = ltx_cos_sin(grid, 96)
    cases = [
        (lambda: L.rope_backward(pos, g, gk.float(), 64, cache, True), "grad_key has dtype"),
        (lambda: L.rope_backward(pos, g.cpu(), gk, 64, cache, True), "grad_query must be a CUDA tensor"),
        (lambda: L.rope_backward(pos, g.int(), gk, 64, cache, True), "supported dtypes"),
        (lambda: L.rope_backward(pos, g[:4], gk, 64, cache, True), "tokens"),
        (lambda: L.rope_backward(pos, g, gk, 48, cache32, True), "multiple of head_size"),
        (lambda: L.rope_backward(pos, rand((5, 8, 64), bf)[:, ::2], gk, 64, cache, True), "contiguous heads"),
        (lambda: L.rope_backward(pos, g, gk, 32, cache, True), "rot_dim"),
        (lambda: L.rope_backward(pos, g, gk, 64, cache.half(), True), "cos_sin_cache must be float32"),
        (lambda: L.rope_backward(pos.float(), g, gk, 64, cache, True), "int64 or int32"),
        (lambda: L.rope_3d_backward(x.transpose(1, 2).contiguous().transpose(1, 2), cos, sin), "contiguous"),
        (lambda: L.rope_3d_backward(rand((1, 6, 95), bf), cos, sin), "dim even"),
        (lambda: L.rope_3d_backward(x, cos.half(), sin), "float32"),
        (lambda: L.rope_3d_grid_backward(x, rand((1, 5, 96), bf), grid, freqs), "grad_key must have the shape"),
        (lambda: L.rope_3d_grid_backward(x, x, grid, freqs[:3]), "freqs must be"),
    ]
    for fn, words in cases:
        with pytest.raises(RuntimeError) as info:
            fn()
        assert words in str(info.value), f"message {info.value!s:.200} lacks {words!r}"


def test_refuses_table_gradients():
    """A table, the coordinates or the frequencies that require grad: the
    backward raises and names it instead of leaving it without a gradient."""
    requires_cuda()
    L = lit()
    bf = torch.bfloat16
    cache = L.rope_cos_sin_cache(64, 64, 1e4, torch.float32, DEV).requires_grad_()
    pos = torch.randint(0, 64, (5,), device=DEV)
    q, k = rand((5, 128), bf).requires_grad_(), rand((5, 64), bf).requires_grad_()
    qo, ko = L.rope(pos, q, k, 64, cache, True)
    with pytest.raises(RuntimeError, match="cos_sin_cache"):
        (qo.float().sum() + ko.float().sum()).backward()
    grid = L.ltx_video_coords(1, 1, 2, 3, device=DEV)
    cos, sin = ltx_cos_sin(grid, 96)
    x = rand((1, 6, 96), bf).requires_grad_()
    with pytest.raises(RuntimeError, match="no gradient flows to cos"):
        L.rope_3d(x, cos.requires_grad_(), sin).float().sum().backward()
    freqs = L.ltx_rope_freqs(96, device=DEV).requires_grad_()
    qo, ko = L.rope_3d_grid(x, x, grid, freqs)
    with pytest.raises(RuntimeError, match="freqs"):
        (qo.float().sum() + ko.float().sum()).backward()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))

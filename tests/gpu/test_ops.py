"""GPU tests for layer_norm, ada_layer_norm, gelu, geglu, swiglu, act_and_mul,
rope / rope_ (1D) and rope_3d / rope_3d_grid (LTX-Video).

Every check compares with a float64 reference by ||out - ref|| / ||ref|| on
fresh random inputs, with the op's output memory poisoned with NaN first, so an
element the kernel does not write fails the check. Needs a CUDA GPU and the
built extension (import lit_kernels). Tests that compare with diffusers'
own modules run when diffusers is importable (PYTHONPATH to its src/).
"""

import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

from lit_testing import lit_or_none  # the shared helpers find the build

lk = lit_or_none()  # None: no build here, and every test skips

pytestmark = pytest.mark.skipif(not torch.cuda.is_available() or lk is None,
                                reason="needs a CUDA GPU and a build of lit_kernels")

OPS = torch.ops._lit_kernels
DTYPES = [torch.float32, torch.float16, torch.bfloat16]
TOL = {torch.float32: 1e-5, torch.float16: 2e-3, torch.bfloat16: 1e-2}
DEV = "cuda"


def rel_err(out: torch.Tensor, ref: torch.Tensor) -> float:
    out = out.double()
    ref = ref.double()
    if not torch.isfinite(out).all():
        return float("inf")
    den = ref.norm().item()
    num = (out - ref).norm().item()
    return num / den if den > 0 else num


def assert_close(out, ref, dtype, what=""):
    e = rel_err(out, ref)
    assert e < TOL[dtype], f"{what}: relative error {e:.3e} >= {TOL[dtype]:.0e}"


def poison(shape, dtype):
    """Leave a NaN-filled block of exactly this size in the caching allocator,
    so the op's next output of that size lands on NaNs."""
    t = torch.empty(shape, dtype=dtype, device=DEV)
    t.fill_(float("nan"))
    del t


def randn(*shape, dtype=torch.float32, scale=1.0):
    return (torch.randn(*shape, device=DEV, dtype=torch.float32) * scale).to(dtype)


# ------------------------------------------------------------- LayerNorm ----
LN_SHAPES = [(4, 2048), (2, 33, 4096), (3, 7, 1000), (5, 64), (2, 5, 3), (1, 1, 1),
             (2, 3, 40000), (7, 12289), (1, 6, 768),
             (2, 40001), (3, 65536),  # rows past the registers: scalar, and vectors
             # sm_90's cluster a row: more rows than resident clusters, parts
             # of unequal length, eight vectors a thread; the widest vector
             # rows take the three-sweep kernel everywhere
             (300, 36864), (97, 40008), (2, 131072), (2, 131080)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", LN_SHAPES)
@pytest.mark.parametrize("affine", ["none", "weight", "weight_bias"])
def test_layer_norm(dtype, shape, affine):
    torch.manual_seed(hash((shape, affine)) % 2**31)
    D = shape[-1]
    x = randn(*shape, dtype=dtype, scale=2.0) + 0.5
    w = randn(D, dtype=dtype) if affine != "none" else None
    b = randn(D, dtype=dtype) if affine == "weight_bias" else None
    poison(shape, dtype)
    y = lk.layer_norm(x, w, b, 1e-5)
    ref = F.layer_norm(x.double(), (D,), None if w is None else w.double(),
                       None if b is None else b.double(), 1e-5)
    assert y.shape == x.shape and y.dtype == dtype
    assert_close(y, ref, dtype, f"layer_norm {shape} {affine}")


def ada_ref(x, scale, shift, w, b, eps):
    D = x.shape[-1]
    y = F.layer_norm(x.double(), (D,), None if w is None else w.double(),
                     None if b is None else b.double(), eps)
    sc = scale.double().reshape(scale.shape[0], 1, D) if x.dim() == 3 else scale.double().reshape(-1, D)
    sh = shift.double().reshape(shift.shape[0], 1, D) if x.dim() == 3 else shift.double().reshape(-1, D)
    return y * (1 + sc) + sh


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("B,T,D", [(2, 300, 2048), (1, 17, 1000), (3, 5, 64), (2, 1, 4096),
                                   (4, 9, 7), (1, 3, 40000)])
@pytest.mark.parametrize("form", ["BD", "B1D", "chunks", "broadcast"])
@pytest.mark.parametrize("affine", [False, True])
def test_ada_layer_norm(dtype, B, T, D, form, affine):
    torch.manual_seed(B * 1000 + T + D)
    x = randn(B, T, D, dtype=dtype, scale=1.5)
    if form == "BD":
        scale, shift = randn(B, D, dtype=dtype, scale=0.3), randn(B, D, dtype=dtype)
    elif form == "B1D":
        scale, shift = randn(B, 1, D, dtype=dtype, scale=0.3), randn(B, 1, D, dtype=dtype)
    elif form == "chunks":  # views into one projection output, as DiT blocks make them
        emb = randn(B, 1, 6 * D, dtype=dtype, scale=0.3)
        shift, scale = emb[..., :D], emb[..., D:2 * D]
    else:
        scale, shift = randn(1, D, dtype=dtype, scale=0.3), randn(1, D, dtype=dtype)
    w = randn(D, dtype=dtype) if affine else None
    b = randn(D, dtype=dtype) if affine else None
    poison((B, T, D), dtype)
    y = lk.ada_layer_norm(x, scale, shift, w, b, 1e-6)
    sc = scale.expand(B, *scale.shape[1:]) if form == "broadcast" else scale
    sh = shift.expand(B, *shift.shape[1:]) if form == "broadcast" else shift
    assert_close(y, ada_ref(x, sc, sh, w, b, 1e-6), dtype, f"ada {B}x{T}x{D} {form}")


# The cluster path asks the runtime once per device how many clusters fit;
# as the first call of a process inside a CUDA-graph capture, that query
# runs during the capture. A fresh interpreter makes sure it is the first.
GRAPH_FIRST_CALL = r"""
import sys, torch
import torch.nn.functional as F
sys.path[:0] = PATHS
try:
    from lit_testing import lit
    lk = lit()
except ImportError:
    import lit_kernels as lk
D = 65536
x = torch.randn(64, D, device="cuda").to(torch.bfloat16)
w = torch.randn(D, device="cuda").to(torch.bfloat16)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    y = lk.layer_norm(x, w, None, 1e-5)
x.copy_(torch.randn(64, D, device="cuda").to(torch.bfloat16))
g.replay()
torch.cuda.synchronize()
ref = F.layer_norm(x.double(), (D,), w.double(), None, 1e-5)
print("REL_ERR", ((y.double() - ref).norm() / ref.norm()).item())
"""


def test_layer_norm_wide_rows_cuda_graph_first_call():
    code = GRAPH_FIRST_CALL.replace("PATHS", repr([os.path.dirname(os.path.abspath(__file__))] + sys.path))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    err = float(proc.stdout.split("REL_ERR")[-1])
    assert err < TOL[torch.bfloat16], f"graph replay: relative error {err:.3e}"


def test_ada_layer_norm_2d():
    x = randn(6, 512, dtype=torch.bfloat16)
    scale, shift = randn(6, 512, dtype=torch.bfloat16, scale=0.2), randn(6, 512, dtype=torch.bfloat16)
    y = lk.ada_layer_norm(x, scale, shift)
    ref = F.layer_norm(x.double(), (512,), eps=1e-6) * (1 + scale.double()) + shift.double()
    assert_close(y, ref, torch.bfloat16, "ada 2d")


# ----------------------------------------------------------- activations ----
ACT_SIZES = [(1,), (7,), (4, 2048), (3, 1000003), (2, 2688, 8192), (5, 13)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", ACT_SIZES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(dtype, shape, approximate):
    torch.manual_seed(len(shape) * 7 + shape[-1])
    x = randn(*shape, dtype=dtype, scale=3.0)
    poison(shape, dtype)
    y = lk.gelu(x, approximate)
    assert_close(y, F.gelu(x.double(), approximate=approximate), dtype, f"gelu {shape}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_gelu_misaligned(dtype):
    base = randn(10001, dtype=dtype, scale=3.0)
    x = base[1:]  # contiguous but 16-byte misaligned: scalar path
    y = lk.gelu(x, "tanh")
    assert_close(y, F.gelu(x.double(), approximate="tanh"), dtype, "gelu misaligned")


def ulp16(ref, dtype):
    """Spacing of dtype's values at |ref| (float64), subnormals included."""
    mant, min_normal = (8, 2.0 ** -126) if dtype == torch.bfloat16 else (11, 2.0 ** -14)
    _, e = torch.frexp(ref.abs().clamp_min(min_normal))
    return torch.ldexp(torch.ones_like(ref), e - mant)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_gelu_erf_every_16bit_input(dtype):
    """Every finite 16-bit input through the exact GELU, element by element:
    within one unit in the last place of the result, or within 1e-6 where the
    float erf form's cancellation (x << 0) reaches outputs that small."""
    x = torch.arange(-32768, 32768, dtype=torch.int32, device=DEV).to(torch.int16).view(dtype)
    x = x[torch.isfinite(x)].contiguous()
    y = lk.gelu(x, "none").double()
    ref = F.gelu(x.double())
    err = (y - ref).abs()
    bad = err > torch.maximum(ulp16(ref, dtype), torch.full_like(ref, 1e-6))
    assert not bad.any(), (f"{int(bad.sum())} inputs off, worst x={x[err.argmax()].item()} "
                           f"got {y[err.argmax()].item()} want {ref[err.argmax()].item()}")


def test_gelu_erf_float32_tail():
    """float32 keeps the erfc form: no cancellation for x << 0, so the
    relative error of every element stays small out to x = -12 (GELU about
    -2e-32, still a normal float32).

    The reference is 0.5 x erfc(-x / sqrt 2) in float64: F.gelu in float64
    computes 1 + erf, whose cancellation leaves only multiples of 2^-53 once
    erfc(-x / sqrt 2) falls below that (x < -8.3), so it cannot judge this
    tail. The bound is the conditioning of erfc: the kernel's float32
    argument t = -x / sqrt 2 carries up to half an ulp of rounding, which
    d ln erfc / dt = -2t (for large t) turns into a relative error of about
    2 t^2 2^-24 = x^2 2^-24 in the result; the erf form is off by up to 100%
    there."""
    x = torch.linspace(-12.0, 6.0, 200001, device=DEV, dtype=torch.float32)
    y = lk.gelu(x, "none").double()
    xd = x.double()
    ref = 0.5 * xd * torch.special.erfc(-xd * 0.7071067811865476)
    keep = ref.abs() > 0
    rel = (y - ref).abs()[keep] / ref.abs()[keep]
    bound = 2e-6 + 2.0 * xd[keep] ** 2 * 2.0 ** -24
    worst = (rel / bound).argmax()
    assert (rel <= bound).all(), (f"relative error {rel[worst].item():.3e} at x={xd[keep][worst].item()} "
                                  f"over its bound {bound[worst].item():.3e}")


def gated_ref(x, act, gate_first):
    d = x.shape[-1] // 2
    a, b = x[..., :d].double(), x[..., d:].double()
    gate, val = (a, b) if gate_first else (b, a)
    return act(gate) * val


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 2 * 2048), (3, 5, 2 * 1000), (7, 2 * 13), (1, 2),
                                   (2, 64, 2 * 12288)])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("gate_first", [False, True])
def test_geglu(dtype, shape, approximate, gate_first):
    torch.manual_seed(shape[-1])
    x = randn(*shape, dtype=dtype, scale=2.0)
    out_shape = shape[:-1] + (shape[-1] // 2,)
    poison(out_shape, dtype)
    y = lk.geglu(x, approximate, gate_first)
    assert y.shape == out_shape
    ref = gated_ref(x, lambda t: F.gelu(t, approximate=approximate), gate_first)
    assert_close(y, ref, dtype, f"geglu {shape}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 2 * 2048), (3, 5, 2 * 1000), (7, 2 * 13), (1, 2),
                                   (33, 2 * 12288)])
@pytest.mark.parametrize("gate_first", [True, False])
def test_swiglu(dtype, shape, gate_first):
    torch.manual_seed(shape[-1] + 1)
    x = randn(*shape, dtype=dtype, scale=2.0)
    out_shape = shape[:-1] + (shape[-1] // 2,)
    poison(out_shape, dtype)
    y = lk.swiglu(x, gate_first)
    assert_close(y, gated_ref(x, F.silu, gate_first), dtype, f"swiglu {shape}")


ACTS = {"silu": F.silu, "gelu": F.gelu, "gelu_tanh": lambda t: F.gelu(t, approximate="tanh")}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", list(ACTS))
@pytest.mark.parametrize("form", ["separate", "slices", "odd", "3d"])
def test_act_and_mul(dtype, activation, form):
    torch.manual_seed(len(form) + len(activation))
    if form == "separate":
        gate, up = randn(64, 12288, dtype=dtype, scale=2.0), randn(64, 12288, dtype=dtype)
    elif form == "slices":  # column slices of one [T, 2d] buffer: rows 2d apart
        gu = randn(37, 2 * 1024, dtype=dtype, scale=2.0)
        gate, up = gu[:, :1024], gu[:, 1024:]
    elif form == "odd":
        gate, up = randn(5, 999, dtype=dtype, scale=2.0), randn(5, 999, dtype=dtype)
    else:
        gate, up = randn(2, 9, 4096, dtype=dtype, scale=2.0), randn(2, 9, 4096, dtype=dtype)
    poison(gate.shape, dtype)
    y = lk.act_and_mul(gate, up, activation)
    ref = ACTS[activation](gate.double()) * up.double()
    assert_close(y, ref, dtype, f"act_and_mul {activation} {form}")


# ---------------------------------------------------------------- RoPE 1D ----
def rope_ref(positions, q, k, head_size, cache, is_neox):
    """float64 rotation of query/key [T, H*hs] by the vLLM cache layout."""
    T = positions.shape[0]
    rot = cache.shape[1]
    half = rot // 2
    cs = cache.double()[positions.long()]
    cos, sin = cs[:, :half], cs[:, half:]

    def apply(x):
        x = x.double().reshape(T, -1, head_size).clone()
        r = x[..., :rot]
        c, s = cos[:, None, :], sin[:, None, :]
        if is_neox:
            a, b = r[..., :half], r[..., half:]
            out = torch.cat([a * c - b * s, b * c + a * s], dim=-1)
        else:
            a, b = r[..., 0::2], r[..., 1::2]
            out = torch.stack([a * c - b * s, b * c + a * s], dim=-1).flatten(-2)
        x[..., :rot] = out
        return x

    return apply(q), apply(k)


ROPE_CASES = [
    # tokens, q heads, kv heads, head_size, rot_dim
    (128, 32, 8, 128, 128),  # Qwen3-8B
    (37, 32, 8, 128, 64),  # partial rotary
    (19, 4, 1, 80, 32),
    (5, 3, 3, 6, 4),  # tiny: scalar path
    (11, 2, 1, 10, 6),  # rot_dim not a multiple of the vector: scalar path
    (1, 1, 1, 64, 64),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", ROPE_CASES)
@pytest.mark.parametrize("is_neox", [True, False])
@pytest.mark.parametrize("cache_f32", [True, False])
@pytest.mark.parametrize("inplace", [False, True])
def test_rope(dtype, case, is_neox, cache_f32, inplace):
    T, Hq, Hkv, hs, rot = case
    torch.manual_seed(T * 31 + hs)
    max_pos = 4096
    cache = lk.rope_cos_sin_cache(max_pos, rot, 1e6, torch.float32 if cache_f32 else dtype, DEV)
    positions = torch.randint(0, max_pos, (T,), device=DEV)
    q = randn(T, Hq * hs, dtype=dtype)
    k = randn(T, Hkv * hs, dtype=dtype)
    qr, kr = rope_ref(positions, q, k, hs, cache, is_neox)
    if inplace:
        q2, k2 = q.clone(), k.clone()
        lk.rope_(positions, q2, k2, hs, cache, is_neox)
        qo, ko = q2, k2
    else:
        poison(q.shape, dtype)
        qo, ko = lk.rope(positions, q, k, hs, cache, is_neox)
    assert_close(qo, qr.reshape(q.shape), dtype, "rope q")
    assert_close(ko, kr.reshape(k.shape), dtype, "rope k")
    if rot < hs:  # the unrotated channels are exact copies
        assert torch.equal(qo.reshape(T, Hq, hs)[..., rot:], q.reshape(T, Hq, hs)[..., rot:])


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
@pytest.mark.parametrize("is_neox", [True, False])
def test_rope_fused_qkv_views(dtype, is_neox):
    """query/key as column slices of one QKV projection (token stride > width),
    3-D head views, int32 positions."""
    T, Hq, Hkv, hs = 45, 8, 2, 128
    qkv = randn(T, (Hq + 2 * Hkv) * hs, dtype=dtype)
    q = qkv[:, : Hq * hs]
    k = qkv[:, Hq * hs: (Hq + Hkv) * hs]
    cache = lk.rope_cos_sin_cache(1000, hs, 1e4, torch.float32, DEV)
    positions = torch.randint(0, 1000, (T,), device=DEV, dtype=torch.int32)
    qr, kr = rope_ref(positions, q, k, hs, cache, is_neox)
    qo, ko = lk.rope(positions, q.view(T, Hq, hs), k.view(T, Hkv, hs), hs, cache, is_neox)
    assert qo.shape == (T, Hq, hs)
    assert_close(qo, qr, dtype, "rope view q")
    assert_close(ko, kr, dtype, "rope view k")
    v_before = qkv[:, (Hq + Hkv) * hs:].clone()
    lk.rope_(positions, q, k, hs, cache, is_neox)  # in place through the views
    assert_close(q, qr.reshape(q.shape), dtype, "rope_ view q")
    assert_close(k, kr.reshape(k.shape), dtype, "rope_ view k")
    assert torch.equal(qkv[:, (Hq + Hkv) * hs:], v_before), "rope_ wrote outside q and k"


# ---------------------------------------------------------------- RoPE 3D ----
def ltx_cos_sin(grid, dim, theta=10000.0):
    """cos/sin [B, S, dim] float32 by the formula of diffusers'
    LTXVideoRotaryPosEmbed (re-derived here: frequency band j of axis a sits at
    pair dim%6/2 + 3j + a, the first dim%6 channels have cos 1 and sin 0)."""
    freqs = lk.ltx_rope_freqs(dim, theta, grid.device)  # [F]
    ang = freqs[None, None, :, None] * (grid[:, :, None, :] * 2 - 1)  # [B, S, F, 3]
    ang = ang.flatten(2)  # band-major, axis-minor
    cos = ang.cos().repeat_interleave(2, dim=-1)
    sin = ang.sin().repeat_interleave(2, dim=-1)
    pad = dim % 6
    if pad:
        cos = torch.cat([torch.ones_like(cos[..., :pad]), cos], dim=-1)
        sin = torch.cat([torch.zeros_like(sin[..., :pad]), sin], dim=-1)
    return cos, sin


def ltx_apply_ref(x, cos, sin):
    xd = x.double()
    a, b = xd[..., 0::2], xd[..., 1::2]
    rot = torch.stack([-b, a], dim=-1).flatten(-2)
    return xd * cos.double() + rot * sin.double()


LTX_CASES = [  # batch, frames, height, width, dim
    (1, 2, 4, 6, 2048),
    (2, 3, 5, 7, 2048),
    (1, 2, 3, 3, 96),
    (2, 1, 2, 5, 130),  # dim % 6 == 4, dim % 8 != 0: scalar path
    (1, 1, 1, 3, 6),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", LTX_CASES)
@pytest.mark.parametrize("batched_table", [False, True])
def test_rope_3d(dtype, case, batched_table):
    B, Fr, H, W, D = case
    torch.manual_seed(D + Fr)
    grid = lk.ltx_video_coords(B if batched_table else 1, Fr, H, W, (8 / 25, 32, 32), device=DEV)
    cos, sin = ltx_cos_sin(grid, D)
    x = randn(B, Fr * H * W, D, dtype=dtype)
    poison(x.shape, dtype)
    y = lk.rope_3d(x, cos, sin)
    assert_close(y, ltx_apply_ref(x, cos, sin), dtype, "rope_3d")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", LTX_CASES)
@pytest.mark.parametrize("scaled", [True, False])
def test_rope_3d_grid(dtype, case, scaled):
    B, Fr, H, W, D = case
    torch.manual_seed(D * 3 + Fr)
    grid = lk.ltx_video_coords(B, Fr, H, W, (8 / 25, 32, 32) if scaled else None, device=DEV)
    cos, sin = ltx_cos_sin(grid, D)
    q = randn(B, Fr * H * W, D, dtype=dtype)
    k = randn(B, Fr * H * W, D, dtype=dtype)
    poison(q.shape, dtype)
    qo, ko = lk.rope_3d_grid(q, k, grid, lk.ltx_rope_freqs(D, device=DEV))
    # unscaled coordinates reach angles of ~1e5 rad, where one float32 ulp of
    # the angle is ~0.01: compare against cos/sin of the same float32 angles.
    assert_close(qo, ltx_apply_ref(q, cos, sin), dtype, "rope_3d_grid q")
    assert_close(ko, ltx_apply_ref(k, cos, sin), dtype, "rope_3d_grid k")


def _diffusers():
    try:
        from diffusers.models.transformers import transformer_ltx  # noqa: F401
        from diffusers.models import activations  # noqa: F401
        return transformer_ltx, activations
    except Exception:  # pragma: no cover - diffusers is optional
        return None


def test_ltx_apply_rotary_emb_signature():
    x = randn(1, 6, 12, dtype=torch.bfloat16)
    cos, sin = ltx_cos_sin(lk.ltx_video_coords(1, 1, 2, 3, device=DEV), 12)
    assert torch.equal(lk.ltx_apply_rotary_emb(x, (cos, sin)), lk.rope_3d(x, cos, sin))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_rope_3d_matches_diffusers(dtype):
    mods = _diffusers()
    if mods is None:
        pytest.skip("diffusers not importable")
    ltx, _ = mods
    B, Fr, H, W, D = 2, 3, 4, 6, 2048
    rope_mod = ltx.LTXVideoRotaryPosEmbed(dim=D, base_num_frames=20, base_height=2048,
                                          base_width=2048, patch_size=1, patch_size_t=1,
                                          theta=10000.0)
    hs = randn(B, Fr * H * W, D, dtype=dtype)
    scale = (8 / 25, 32, 32)
    cos, sin = rope_mod(hs, Fr, H, W, scale)
    q, k = randn(B, Fr * H * W, D, dtype=dtype), randn(B, Fr * H * W, D, dtype=dtype)
    ref_q = ltx.apply_rotary_emb(q, (cos, sin))
    ref_k = ltx.apply_rotary_emb(k, (cos, sin))
    grid = lk.ltx_video_coords(B, Fr, H, W, scale, device=DEV)
    # the kernel's table-driven form against diffusers' own output
    assert_close(lk.rope_3d(q, cos, sin), ref_q.double(), dtype, "rope_3d q vs diffusers")
    assert_close(lk.rope_3d(k, cos, sin), ref_k.double(), dtype, "rope_3d k vs diffusers")
    # the in-kernel cos/sin against diffusers' float64-applied rotation
    qo, ko = lk.rope_3d_grid(q, k, grid, lk.ltx_rope_freqs(D, device=DEV))
    assert_close(qo, ltx_apply_ref(q, cos, sin), dtype, "rope_3d_grid q vs diffusers table")
    assert_close(ko, ltx_apply_ref(k, cos, sin), dtype, "rope_3d_grid k vs diffusers table")
    # and our re-derived table is diffusers' table
    c2, s2 = ltx_cos_sin(grid, D)
    assert torch.allclose(c2, cos, atol=1e-6) and torch.allclose(s2, sin, atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_gated_match_diffusers(dtype):
    mods = _diffusers()
    if mods is None:
        pytest.skip("diffusers not importable")
    _, act = mods
    torch.manual_seed(0)
    geglu_mod = act.GEGLU(64, 96).to(DEV, dtype)
    swiglu_mod = act.SwiGLU(64, 96).to(DEV, dtype)
    x = randn(3, 10, 64, dtype=dtype)
    with torch.no_grad():
        h = geglu_mod.proj(x)
        assert_close(lk.geglu(h), geglu_mod(x).double(), dtype, "geglu vs diffusers GEGLU")
        h = swiglu_mod.proj(x)
        assert_close(lk.swiglu(h, gate_first=False), swiglu_mod(x).double(), dtype,
                     "swiglu vs diffusers SwiGLU")
        assert_close(lk.layers.GEGLU.forward(geglu_mod, x), geglu_mod(x).double(), dtype,
                     "GEGLU layer vs diffusers GEGLU")
        gelu_mod = act.GELU(64, 96, approximate="tanh").to(DEV, dtype)
        assert_close(lk.layers.DiffusersGELU.forward(gelu_mod, x), gelu_mod(x).double(), dtype,
                     "DiffusersGELU layer vs diffusers GELU")


# ------------------------------------------------------------- bad input ----
def _cpu(t):
    return t.cpu()


BAD = [
    ("layer_norm cpu", lambda: lk.layer_norm(torch.randn(4, 8)), "CUDA"),
    ("layer_norm int", lambda: lk.layer_norm(torch.randint(0, 3, (4, 8), device=DEV)), "dtype"),
    ("layer_norm weight dtype",
     lambda: lk.layer_norm(randn(4, 8), randn(8, dtype=torch.bfloat16)), "dtype"),
    ("layer_norm weight shape", lambda: lk.layer_norm(randn(4, 8), randn(9)), "shape"),
    ("layer_norm non-contiguous", lambda: lk.layer_norm(randn(8, 4).t()), "contiguous"),
    ("ada scale shape",
     lambda: lk.ada_layer_norm(randn(2, 3, 8), randn(2, 9), randn(2, 8)), "scale"),
    ("ada scale batch",
     lambda: lk.ada_layer_norm(randn(2, 3, 8), randn(3, 8), randn(3, 8)), "scale"),
    ("gelu approximate", lambda: lk.gelu(randn(8), "fast"), "approximate"),
    ("geglu odd", lambda: lk.geglu(randn(4, 7)), "even"),
    ("swiglu cpu", lambda: lk.swiglu(torch.randn(4, 8)), "CUDA"),
    ("act_and_mul shapes", lambda: lk.act_and_mul(randn(4, 8), randn(4, 9)), "same shape"),
    ("act_and_mul activation", lambda: lk.act_and_mul(randn(4, 8), randn(4, 8), "relu"),
     "activation"),
    ("rope positions dtype",
     lambda: lk.rope(torch.zeros(4, device=DEV), randn(4, 64), randn(4, 64), 64,
                     randn(16, 64), True), "positions"),
    ("rope rot > head",
     lambda: lk.rope(torch.zeros(4, dtype=torch.long, device=DEV), randn(4, 64), randn(4, 64),
                     32, randn(16, 64), True), "rot_dim"),
    ("rope heads", lambda: lk.rope(torch.zeros(4, dtype=torch.long, device=DEV), randn(4, 60),
                                   randn(4, 64), 64, randn(16, 64), True), "multiple"),
    ("rope tokens", lambda: lk.rope(torch.zeros(3, dtype=torch.long, device=DEV), randn(4, 64),
                                    randn(4, 64), 64, randn(16, 64), True), "tokens"),
    ("rope cache dtype",
     lambda: lk.rope(torch.zeros(4, dtype=torch.long, device=DEV), randn(4, 64),
                     randn(4, 64), 64, randn(16, 64, dtype=torch.float16), True), "cos_sin_cache"),
    ("rope_3d cos dtype",
     lambda: lk.rope_3d(randn(1, 4, 12), randn(1, 4, 12, dtype=torch.bfloat16), randn(1, 4, 12)),
     "float32"),
    ("rope_3d odd dim", lambda: lk.rope_3d(randn(1, 4, 7), randn(1, 4, 7), randn(1, 4, 7)), "even"),
    ("rope_3d_grid freqs",
     lambda: lk.rope_3d_grid(randn(1, 4, 12), randn(1, 4, 12), randn(1, 4, 3), randn(3)), "freqs"),
]


@pytest.mark.parametrize("name,fn,msg", BAD, ids=[b[0] for b in BAD])
def test_bad_input(name, fn, msg):
    with pytest.raises(RuntimeError, match=msg):
        fn()


# -------------------------------------------------------- torch.compile ----
def _compile_cases():
    bf = torch.bfloat16
    pos = lambda T: torch.randint(0, 512, (T,), device=DEV)  # noqa: E731
    cache = lambda: lk.rope_cos_sin_cache(512, 128, 1e6, torch.float32, DEV)  # noqa: E731
    g = lambda: lk.ltx_video_coords(1, 2, 3, 4, (8 / 25, 32, 32), device=DEV)  # noqa: E731
    return {
        "layer_norm": (lambda x, w, b: lk.layer_norm(x, w, b, 1e-5) * 2,
                       lambda: (randn(3, 40, 1024, dtype=bf), randn(1024, dtype=bf), randn(1024, dtype=bf))),
        "ada_layer_norm": (lambda x, s, h: lk.ada_layer_norm(x, s, h) + 1,
                           lambda: (randn(2, 40, 1024, dtype=bf), randn(2, 1, 1024, dtype=bf),
                                    randn(2, 1, 1024, dtype=bf))),
        "gelu": (lambda x: lk.gelu(x, "tanh") - 1, lambda: (randn(7, 1000, dtype=bf),)),
        "geglu": (lambda x: lk.geglu(x) * 3, lambda: (randn(7, 2048, dtype=bf),)),
        "swiglu": (lambda x: lk.swiglu(x) * 3, lambda: (randn(7, 2048, dtype=bf),)),
        "act_and_mul": (lambda a, b: lk.act_and_mul(a, b, "gelu_tanh") + a,
                        lambda: (randn(7, 1024, dtype=bf), randn(7, 1024, dtype=bf))),
        "rope": (lambda p, q, k, c: tuple(t * 2 for t in lk.rope(p, q, k, 128, c, True)),
                 lambda: (pos(33), randn(33, 4096, dtype=bf), randn(33, 1024, dtype=bf), cache())),
        "rope_": (lambda p, q, k, c: (lk.rope_(p, q, k, 128, c, False), q * 2, k + 1)[1:],
                  lambda: (pos(33), randn(33, 4096, dtype=bf), randn(33, 1024, dtype=bf), cache())),
        "rope_3d": (lambda x, c, s: lk.rope_3d(x, c, s) * 2,
                    lambda: (randn(1, 24, 2048, dtype=bf),) + ltx_cos_sin(g(), 2048)),
        "rope_3d_grid": (lambda q, k, gr, f: tuple(t + 1 for t in lk.rope_3d_grid(q, k, gr, f)),
                         lambda: (randn(1, 24, 2048, dtype=bf), randn(1, 24, 2048, dtype=bf), g(),
                                  lk.ltx_rope_freqs(2048, device=DEV))),
    }


@pytest.mark.parametrize("name", list(_compile_cases()))
def test_torch_compile_fullgraph(name):
    torch._dynamo.reset()
    fn, make = _compile_cases()[name]
    torch.manual_seed(1)
    args = make()
    args_eager = tuple(a.clone() for a in args)
    ref = fn(*args_eager)
    out = torch.compile(fn, fullgraph=True)(*args)
    ref = ref if isinstance(ref, tuple) else (ref,)
    out = out if isinstance(out, tuple) else (out,)
    for o, r in zip(out, ref):
        assert_close(o, r.double(), torch.bfloat16, f"{name}: compiled vs eager")


def _opcheck_cases():
    bf = torch.bfloat16
    pos = torch.randint(0, 64, (9,), device=DEV)
    cache = lk.rope_cos_sin_cache(64, 64, 1e4, torch.float32, DEV)
    grid = lk.ltx_video_coords(1, 2, 2, 3, (8 / 25, 32, 32), device=DEV)
    cos, sin = ltx_cos_sin(grid, 96)
    return [
        (OPS.layer_norm.default, (randn(3, 5, 64, dtype=bf), randn(64, dtype=bf), None, 1e-5)),
        (OPS.ada_layer_norm.default, (randn(2, 5, 64, dtype=bf), randn(2, 64, dtype=bf),
                                      randn(2, 64, dtype=bf), None, None, 1e-6)),
        (OPS.gelu.default, (randn(5, 64, dtype=bf), "tanh")),
        (OPS.geglu.default, (randn(5, 64, dtype=bf), "none", False)),
        (OPS.swiglu.default, (randn(5, 64, dtype=bf), True)),
        (OPS.act_and_mul.default, (randn(5, 64, dtype=bf), randn(5, 64, dtype=bf), "silu")),
        (OPS.rope.default, (pos, randn(9, 4 * 64, dtype=bf), randn(9, 64, dtype=bf), 64, cache, True)),
        (OPS.rope_.default, (pos, randn(9, 4 * 64, dtype=bf), randn(9, 64, dtype=bf), 64, cache, False)),
        (OPS.rope_3d.default, (randn(1, 12, 96, dtype=bf), cos, sin)),
        (OPS.rope_3d_grid.default, (randn(1, 12, 96, dtype=bf), randn(1, 12, 96, dtype=bf), grid,
                                    lk.ltx_rope_freqs(96, device=DEV))),
    ]


@pytest.mark.parametrize("idx", range(10))
def test_opcheck(idx):
    op, args = _opcheck_cases()[idx]
    torch.library.opcheck(op, args)


# ----------------------------------------------------------------- layers ----
def test_layers():
    """The forward-only layers run on the modules they replace."""
    bf = torch.bfloat16
    ln = torch.nn.LayerNorm(256, device=DEV, dtype=bf)
    with torch.no_grad():
        ln.weight.copy_(randn(256, dtype=bf))
        ln.bias.copy_(randn(256, dtype=bf))
    x = randn(4, 256, dtype=bf)
    assert_close(lk.layers.LayerNorm.forward(ln, x),
                 F.layer_norm(x.double(), (256,), ln.weight.double(), ln.bias.double()), bf,
                 "LayerNorm layer")
    g = torch.nn.GELU(approximate="tanh")
    assert_close(lk.layers.GELU.forward(g, x), F.gelu(x.double(), approximate="tanh"), bf, "GELU")
    h = randn(4, 512, dtype=bf)
    assert_close(lk.layers.SiluAndMul.forward(torch.nn.Module(), h),
                 F.silu(h[:, :256].double()) * h[:, 256:].double(), bf, "SiluAndMul")

    class MLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gate_proj = torch.nn.Linear(256, 512, bias=False, device=DEV, dtype=bf)
            self.up_proj = torch.nn.Linear(256, 512, bias=False, device=DEV, dtype=bf)
            self.down_proj = torch.nn.Linear(512, 256, bias=False, device=DEV, dtype=bf)

    mlp = MLP()
    with torch.no_grad():
        ref = mlp.down_proj(F.silu(mlp.gate_proj(x)) * mlp.up_proj(x))
        out = lk.layers.SiluMLP.forward(mlp, x)
    assert_close(out, ref.double(), bf, "SiluMLP")

    rot = torch.nn.Module()
    rot.head_size = 128
    rot.is_neox_style = True
    rot.cos_sin_cache = lk.rope_cos_sin_cache(256, 128, 1e6, torch.float32, DEV)
    p = torch.randint(0, 256, (5,), device=DEV)
    q, k = randn(5, 512, dtype=bf), randn(5, 128, dtype=bf)
    qr, kr = rope_ref(p, q, k, 128, rot.cos_sin_cache, True)
    qo, ko = lk.layers.RotaryEmbedding.forward(rot, p, q, k)
    assert qo is q and ko is k  # in place, as vLLM's
    assert_close(qo, qr.reshape(q.shape), bf, "RotaryEmbedding q")
    assert_close(ko, kr.reshape(k.shape), bf, "RotaryEmbedding k")

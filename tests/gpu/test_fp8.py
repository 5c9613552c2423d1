"""GPU tests for the FP8 ops: the FP8 GEMM (every scaling, both accumulation
modes, both output dtypes, every epilogue, odd and strided shapes), the
quantizers (bit-exact against a float reference where the input is exact,
within one e4m3 step of a float64 prologue otherwise), the weight
quantizers, FP8Linear, torch.compile, and the refusals.

The GEMM is checked against a float64 product of its dequantized inputs, so
the only differences are the accumulation and the output rounding: the
dtype's tolerance applies. Quantized inputs for the GEMM tests come from a
reference quantizer written here, not from the package's, so that the two
are checked independently. Needs an H100/H200 and a build of lit_kernels.
"""
import math
import os

import pytest
import torch
import torch.nn.functional as F

from lit_testing import check, lit_or_none, poison_next, rand, rel_err

lk = lit_or_none()  # None: no build here, and every test skips

HOPPER = torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)
pytestmark = pytest.mark.skipif(lk is None or not HOPPER,
                                reason="needs an H100/H200 and a build of lit_kernels")

E4M3 = torch.float8_e4m3fn
FMAX = 448.0
OUT_DTYPES = [torch.bfloat16, torch.float16]
ACTS = {"none": lambda x: x, "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "silu": F.silu}
GATED = {"swiglu": "silu", "geglu": "gelu", "geglu_tanh": "gelu_tanh"}


# ------------------------------------------------------------- references --
def ref_quant(x, bm, bk):
    """x [R, C] (float) to e4m3 with a scale per bm x bk block (None: the
    whole dimension): (q, scale [ceil(R/bm), ceil(C/bk)]) with
    s = amax / 448 and q = clamp(x / s) in e4m3."""
    R, C = x.shape
    bm, bk = bm or R, bk or C
    xf = x.float()
    pr, pc = -R % bm, -C % bk
    xp = F.pad(xf, (0, pc, 0, pr))
    blocks = xp.reshape((R + pr) // bm, bm, (C + pc) // bk, bk).abs().amax(dim=(1, 3))
    s = blocks.clamp_min(1e-12) / fmax_like(blocks)
    full = s.repeat_interleave(bm, 0).repeat_interleave(bk, 1)[:R, :C]
    q = (xf / full).clamp(-FMAX, FMAX).to(E4M3)
    return q, s


def fmax_like(t):
    """448 as a tensor: PyTorch divides by a Python scalar as a multiplication
    by its reciprocal, which rounds differently from the kernels' division."""
    return torch.full_like(t, FMAX)


def codes(q):
    """e4m3 values as ordinals: adjacent representable values differ by 1."""
    b = q.view(torch.uint8).int()
    return torch.where(b >= 128, -(b - 128), b)


def dequant(q, s, bm, bk):
    R, C = q.shape
    bm, bk = bm or R, bk or C
    full = s.double().repeat_interleave(bm, 0).repeat_interleave(bk, 1)[:R, :C]
    return q.double() * full


def operands(m, n, k, scaling, strided=False):
    """a [M, K] and b [K, N] (K-major) in e4m3, their scales in the shapes
    fp8_gemm takes, and the float64 dequantized a and b."""
    x = rand((m, k + (32 if strided else 0)), torch.bfloat16)[:, :k]
    w = rand((n, k), torch.bfloat16, scale=1 / math.sqrt(k))  # a weight [N, K]
    if scaling == "tensor":
        qa, sa = ref_quant(x, None, None)
        qw, sw = ref_quant(w, None, None)
        da, dw = dequant(qa, sa, None, None), dequant(qw, sw, None, None)
        sa, sb = sa.reshape(()), sw.reshape(())
    elif scaling == "row":
        qa, sa = ref_quant(x, 1, None)  # sa [M, 1]
        qw, sw = ref_quant(w, 1, None)  # sw [N, 1]
        da, dw = dequant(qa, sa, 1, None), dequant(qw, sw, 1, None)
        sb = sw.t()
    else:
        qa, sa = ref_quant(x, 1, 128)    # [M, Kb]
        qw, sw = ref_quant(w, 128, 128)  # [Nb, Kb]
        da, dw = dequant(qa, sa, 1, 128), dequant(qw, sw, 128, 128)
        sb = sw.t()
    if strided:  # a read in place from a wider matrix: row stride K + 32
        wide = torch.zeros((m, k + 32), dtype=E4M3, device="cuda")
        wide[:, :k] = qa
        qa = wide[:, :k]
    return qa, qw.t(), sa, sb, da, dw.t()


def ref_epilogue(y, bias, epilogue):
    if epilogue in GATED:
        n = y.shape[1] // 2
        g, u = y[:, :n], y[:, n:]
        if bias is not None:
            g, u = g + bias[:n].double(), u + bias[n:].double()
        return ACTS[GATED[epilogue]](g) * u
    if bias is not None:
        y = y + bias.double()
    return ACTS[epilogue](y)


# ---------------------------------------------------------------- the GEMM --
SCHEDULES = {"cooperative": 1, "pingpong": 2, "cooperative_cluster2": 4, "pingpong_cluster2": 5}


@pytest.fixture(params=list(SCHEDULES))
def schedule(request):
    """The fast accumulation's schedules, forced through the tuning hook (the
    clusters of two apply to plain products; other epilogues take the rule)."""
    lk.ops._fp8_gemm_tuning(SCHEDULES[request.param])
    yield request.param
    lk.ops._fp8_gemm_tuning(0)


SHAPES = [(1, 256, 256), (7, 300, 512), (64, 4095, 1024), (1000, 520, 1008), (4096, 1024, 4096),
          (129, 7, 2048), (300, 4097, 16)]


@pytest.mark.parametrize("scaling", ["tensor", "row"])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_fp8_gemm_shapes_fast(shape, out_dtype, scaling, schedule):
    """The fast accumulation, on both schedules."""
    m, n, k = shape
    qa, qb, sa, sb, da, db = operands(m, n, k, scaling)
    poison_next((m, n), out_dtype)
    out = lk.fp8_gemm(qa, qb, sa, sb, out_dtype=out_dtype)
    assert out.dtype == out_dtype and out.shape == (m, n)
    check(out, da @ db, out_dtype, f"{scaling} fast {schedule} {shape}")


@pytest.mark.parametrize("scaling", ["tensor", "row", "block"])
@pytest.mark.parametrize("out_dtype", OUT_DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_fp8_gemm_shapes_promoted(shape, out_dtype, scaling):
    """The promoted accumulation (block scales always are)."""
    m, n, k = shape
    qa, qb, sa, sb, da, db = operands(m, n, k, scaling)
    poison_next((m, n), out_dtype)
    out = lk.fp8_gemm(qa, qb, sa, sb, out_dtype=out_dtype, accumulate="promoted")
    assert out.dtype == out_dtype and out.shape == (m, n)
    check(out, da @ db, out_dtype, f"{scaling} promoted {shape}")


@pytest.mark.parametrize("scaling", ["tensor", "row", "block"])
@pytest.mark.parametrize("epilogue", list(ACTS) + list(GATED))
@pytest.mark.parametrize("bias", [False, True])
def test_fp8_gemm_epilogues(scaling, epilogue, bias, schedule):
    m, n, k = 333, 512, 768
    qa, qb, sa, sb, da, db = operands(m, n, k, scaling)
    bvec = rand((n,), torch.bfloat16) if bias else None
    out = lk.fp8_gemm(qa, qb, sa, sb, bvec, epilogue)
    check(out, ref_epilogue(da @ db, bvec, epilogue), torch.bfloat16, f"{scaling} {epilogue}")


@pytest.mark.parametrize("scaling", ["tensor", "row", "block"])
@pytest.mark.parametrize("activation", ["silu", "gelu_tanh"])
def test_fp8_gemm_gated(scaling, activation, schedule):
    m, n, k = 500, 384, 1024
    qa, qg, sa, sg, da, dg = operands(m, n, k, scaling)
    _, qu, _, su, _, du = operands(m, n, k, scaling)
    bg, bu = rand((n,), torch.float16), rand((n,), torch.float16)
    out = lk.fp8_gemm_gated(qa, qg, qu, sa, sg, su, bg, bu, activation, torch.float16)
    ref = ACTS[activation](da @ dg + bg.double()) * (da @ du + bu.double())
    check(out, ref, torch.float16, f"gated {scaling} {activation}")


@pytest.mark.parametrize("scaling", ["row", "block"])
def test_fp8_gemm_strided_a(scaling, schedule):
    m, n, k = 777, 640, 1536
    qa, qb, sa, sb, da, db = operands(m, n, k, scaling, strided=True)
    assert qa.stride(0) == k + 32
    check(lk.fp8_gemm(qa, qb, sa, sb), da @ db, torch.bfloat16, f"strided {scaling}")


@pytest.mark.parametrize("m", [1, 13, 100])
@pytest.mark.parametrize("scaling", ["tensor", "row", "block"])
def test_fp8_gemm_rows_past_m(m, scaling, schedule):
    """A product of under 128 rows copies only its rows of A (rounded up to
    8): the rows after them in memory (NaN here) are never read, and the
    shared-memory rows no copy writes (left NaN by the product before) reach
    no stored output, on every schedule and both accumulations."""
    n, k = 640, 1024
    qa, qb, sa, sb, da, db = operands(m, n, k, scaling)
    nan_a = torch.full((256, k), float("nan"), device="cuda").to(E4M3)
    _, qb_t, _, sb_t, _, _ = operands(256, n, k, "tensor")
    lk.fp8_gemm(nan_a, qb_t, torch.ones((), device="cuda"), sb_t)  # fills the stages with NaN
    big = torch.full((m + 40, k), float("nan"), device="cuda").to(E4M3)
    big[:m] = qa
    a = big[:m]
    poison_next((m, n), torch.bfloat16)
    check(lk.fp8_gemm(a, qb, sa, sb), da @ db, torch.bfloat16, f"{scaling} {schedule} M={m}")
    check(lk.fp8_gemm(a, qb, sa, sb, accumulate="promoted"), da @ db, torch.bfloat16,
          f"{scaling} promoted M={m}")


def test_fp8_gemm_scales_strided():
    """Scales read with their strides: a [M, 1] column of a wider matrix, a
    block scale of b stored transposed."""
    m, n, k = 256, 384, 512
    qa, qb, sa, sb, da, db = operands(m, n, k, "block")
    sa_t = sa.t().contiguous().t()  # [M, Kb], M-major as DeepGEMM stores it
    assert sa_t.stride() != sa.stride()
    check(lk.fp8_gemm(qa, qb, sa_t, sb.contiguous()), da @ db, torch.bfloat16, "block strides")
    qa, qb, sa, sb, da, db = operands(m, n, k, "row")
    wide = torch.zeros((m, 3), device="cuda")
    wide[:, 1:2] = sa
    check(lk.fp8_gemm(qa, qb, wide[:, 1:2], sb), da @ db, torch.bfloat16, "row scale column")


def test_fp8_accumulation_error_falls_with_promotion():
    """Over a long K the promoted sum is at least as close to float64 as the
    tensor cores' own accumulation (and both within the bf16 tolerance)."""
    m, n, k = 256, 256, 16384
    qa, qb, sa, sb, da, db = operands(m, n, k, "tensor")
    ref = da @ db
    fast = rel_err(lk.fp8_gemm(qa, qb, sa, sb, out_dtype=torch.float16), ref)
    prom = rel_err(lk.fp8_gemm(qa, qb, sa, sb, out_dtype=torch.float16, accumulate="promoted"), ref)
    assert prom <= fast * 1.05 + 1e-5, (fast, prom)
    assert fast < 1e-2 and prom < 2e-3, (fast, prom)


def test_fp8_gemm_gated_promoted():
    m, n, k = 300, 256, 2048
    qa, qg, sa, sg, da, dg = operands(m, n, k, "row")
    _, qu, _, su, _, du = operands(m, n, k, "row")
    out = lk.fp8_gemm_gated(qa, qg, qu, sa, sg, su, activation="silu", accumulate="promoted")
    check(out, F.silu(da @ dg) * (da @ du), torch.bfloat16, "gated promoted")


def test_fp8_pingpong_tile_counts():
    """Ping-pong with one to five tiles a CTA (the turn hand-over at every
    parity of the count), and more CTAs than tiles."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    for tiles_m in (1, 2, 3):
        for per_cta in (1, 2, 5):
            m, n, k = 128 * tiles_m, 128 * max(1, per_cta * sms // tiles_m), 256
            qa, qb, sa, sb, da, db = operands(m, n, k, "row")
            lk.ops._fp8_gemm_tuning(2)
            try:
                check(lk.fp8_gemm(qa, qb, sa, sb), da @ db, torch.bfloat16, f"{m}x{n}")
            finally:
                lk.ops._fp8_gemm_tuning(0)


def test_fp8_gemm_deterministic():
    qa, qb, sa, sb, _, _ = operands(1000, 1024, 2048, "block")
    first = lk.fp8_gemm(qa, qb, sa, sb)
    for _ in range(3):
        assert torch.equal(lk.fp8_gemm(qa, qb, sa, sb), first)


def test_fp8_gemm_compiles_fullgraph():
    qa, qb, sa, sb, da, db = operands(512, 768, 1024, "row")
    bias = rand((768,), torch.bfloat16)

    def f(a, b, s_a, s_b, c):
        return lk.fp8_gemm(a, b, s_a, s_b, c, "gelu_tanh")

    eager = f(qa, qb, sa, sb, bias)
    compiled = torch.compile(f, fullgraph=True)(qa, qb, sa, sb, bias)
    assert torch.equal(eager, compiled)


# ---------------------------------------------------------- the quantizers --
def exact_quant(v, group):
    """The quantizer's own arithmetic on exact fp32 values v [R, C]: amax per
    row or 128-group, s = amax / 448, q = e4m3(clamp(v * (448 / amax)))."""
    R, C = v.shape
    if group:
        pad = -C % 128
        amax = F.pad(v.abs(), (0, pad)).reshape(R, -1, 128).amax(-1).clamp_min(1e-12)
        inv = (fmax_like(amax) / amax).repeat_interleave(128, 1)[:, :C]
    else:
        amax = v.abs().amax(-1, keepdim=True).clamp_min(1e-12)
        inv = fmax_like(amax) / amax
    return (v * inv).clamp(-FMAX, FMAX).to(E4M3), amax / fmax_like(amax)


@pytest.mark.parametrize("dtype", OUT_DTYPES)
@pytest.mark.parametrize("group", [False, True])
@pytest.mark.parametrize("shape", [(1, 16), (7, 48), (1000, 4096), (3, 4112), (64, 14336), (2, 32768)],
                         ids=lambda s: "x".join(map(str, s)))
def test_quantize_bit_exact(shape, group, dtype):
    x = rand(shape, dtype, scale=3.0)
    x[0, 0] = 0  # zeros and a row of them
    if shape[0] > 2:
        x[2] = 0
    q, s = lk.quantize_fp8(x, "group" if group else "token")
    q_ref, s_ref = exact_quant(x.float(), group)
    assert q.dtype == E4M3 and s.dtype == torch.float32
    assert s.shape == (shape[0], math.ceil(shape[1] / 128) if group else 1)
    assert torch.equal(s, s_ref), "scales differ"
    assert torch.equal(q.view(torch.uint8), q_ref.view(torch.uint8)), "e4m3 bytes differ"


@pytest.mark.parametrize("dtype", OUT_DTYPES)
def test_quantize_exact_at_every_magnitude(dtype):
    """Scales and bytes bit-exact with an amax in every binade, from under
    the 1e-12 floor to the dtype's largest one."""
    lo, hi = (-133, 127) if dtype == torch.bfloat16 else (-24, 15)
    exps = torch.arange(lo, hi + 1, device="cuda", dtype=torch.float32)
    u = torch.rand((len(exps), 512), device="cuda") * 2 - 1
    x = u * torch.exp2(exps)[:, None]
    x[:, 7] = 1.5 * torch.exp2(exps)  # each row's amax in its binade
    x = x.to(dtype)
    assert torch.isfinite(x.float()).all()
    for g in (False, True):
        q, s = lk.quantize_fp8(x, "group" if g else "token")
        q_ref, s_ref = exact_quant(x.float(), g)
        assert torch.equal(s, s_ref), f"group={g}: scales differ"
        assert torch.equal(q.view(torch.uint8), q_ref.view(torch.uint8)), f"group={g}: e4m3 bytes differ"


def test_quantize_strided_and_batched():
    x = rand((4, 33, 512 + 64), torch.bfloat16)[..., :512]
    q, s = lk.quantize_fp8(x)
    assert q.shape == (4, 33, 512) and s.shape == (4, 33, 1)
    q_ref, s_ref = exact_quant(x.reshape(-1, 512).float(), False)
    assert torch.equal(q.reshape(-1, 512).view(torch.uint8), q_ref.view(torch.uint8))
    assert torch.equal(s.reshape(-1, 1), s_ref)


def test_quantize_saturates():
    """Values the scale maps past 448 by rounding clamp to 448, never NaN."""
    x = torch.tensor([[448.0, -448.0, 1.0, 447.0] * 4], device="cuda").to(torch.bfloat16)
    q, s = lk.quantize_fp8(x)
    assert torch.isfinite(q.float()).all() and q.float().abs().max() == FMAX


def check_fused(q, s, ref, group, what):
    """q * s against the float64 prologue `ref` [R, C]: within e4m3's
    rounding, and q within one e4m3 step of the float64 value quantized with
    the same scale for all but a few elements near a rounding boundary."""
    R, C = ref.shape
    q2, s2 = q.reshape(R, C), s.reshape(R, -1)
    full = s2.double().repeat_interleave(128, 1)[:, :C] if group else s2.double()
    deq = q2.double() * full
    e = rel_err(deq, ref)
    assert e < 0.045, f"{what}: dequantized relative error {e:.3e}"
    amax = ref.abs().amax(-1, keepdim=True) if not group else None
    if amax is not None:
        assert torch.allclose(s2.double(), amax / FMAX, rtol=2e-3, atol=1e-12), f"{what}: scales"
    exact = (ref / full).clamp(-FMAX, FMAX).float().to(E4M3)
    same = (exact.view(torch.uint8) == q2.view(torch.uint8)).double().mean().item()
    assert same > 0.98, f"{what}: only {same:.4f} of the bytes match the float64 prologue"
    step = (codes(exact) - codes(q2)).abs().max().item()
    assert step <= 1, f"{what}: a byte {step} e4m3 steps from the float64 prologue's"


@pytest.mark.parametrize("dtype", OUT_DTYPES)
@pytest.mark.parametrize("group", [False, True])
@pytest.mark.parametrize("hidden", [64, 3072, 4096, 8192 + 16])
@pytest.mark.parametrize("affine", [False, True])
def test_rms_and_layer_norm_quant(hidden, group, dtype, affine):
    x = rand((37, hidden), dtype, scale=2.0, offset=0.5)
    w = rand((hidden,), dtype, offset=1.0) if affine else None
    b = rand((hidden,), dtype) if affine else None
    g = "group" if group else "token"
    xd = x.double()
    rms = xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + 1e-6)
    if affine:
        rms = rms * w.double()
    check_fused(*lk.rms_norm_quant_fp8(x, w, 1e-6, g), rms, group, f"rms {hidden}")
    ln = F.layer_norm(xd, (hidden,), w.double() if affine else None, b.double() if affine else None,
                      1e-5)
    check_fused(*lk.layer_norm_quant_fp8(x, w, b, 1e-5, g), ln, group, f"layer {hidden}")


@pytest.mark.parametrize("norm", ["layer", "rms"])
@pytest.mark.parametrize("per_token", [False, True])
def test_norm_modulate_quant(norm, per_token):
    B, S, D = 2, 77, 3072
    x = rand((B, S, D), torch.bfloat16, scale=2.0)
    mshape = (B, S, D) if per_token else (B, 1, D)
    scale, shift = rand(mshape, torch.bfloat16, scale=0.3), rand(mshape, torch.bfloat16, scale=0.3)
    q, s = lk.norm_modulate_quant_fp8(x, scale, shift, norm=norm)
    assert q.shape == (B, S, D) and s.shape == (B, S, 1)
    xd = x.double()
    if norm == "layer":
        n = F.layer_norm(xd, (D,), eps=1e-6)
    else:
        n = xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + 1e-6)
    ref = n * (1 + scale.double()) + shift.double()
    check_fused(q, s, ref.reshape(-1, D), False, f"{norm} per_token={per_token}")


@pytest.mark.parametrize("norm", ["layer", "rms"])
@pytest.mark.parametrize("per_token", [False, True])
def test_gated_norm_modulate_quant(norm, per_token):
    """r = residual + gate * branch, written out, and the norm of the fp32
    sum quantized: r within one bf16 rounding of the float64 sum, q against
    the float64 prologue of the unrounded sum."""
    B, S, D = 2, 77, 3072
    res = rand((B, S, D), torch.bfloat16, scale=2.0) + 20.0  # a large mean, as residual streams have
    branch = rand((B, S, D), torch.bfloat16, scale=2.0)
    mshape = (B, S, D) if per_token else (B, 1, D)
    gate, scale, shift = (rand(mshape, torch.bfloat16, scale=0.3) for _ in range(3))
    r, q, s = lk.gated_norm_modulate_quant_fp8(res, branch, gate, scale, shift, norm=norm)
    assert r.shape == (B, S, D) and r.dtype == torch.bfloat16 and q.shape == (B, S, D) and s.shape == (B, S, 1)
    total = res.double() + gate.double() * branch.double()
    assert torch.allclose(r.double(), total, rtol=2 ** -8, atol=0), "the residual update"
    if norm == "layer":
        n = F.layer_norm(total, (D,), eps=1e-6)
    else:
        n = total * torch.rsqrt(total.pow(2).mean(-1, keepdim=True) + 1e-6)
    ref = n * (1 + scale.double()) + shift.double()
    check_fused(q, s, ref.reshape(-1, D), False, f"gated {norm} per_token={per_token}")
    if norm == "layer":
        # the point of the fusion: the norm of the rounded sum is measurably
        # further from the float64 one than the fused op's
        q2, s2 = lk.norm_modulate_quant_fp8(r, scale, shift, norm=norm)
        err = rel_err(q.double() * s.double(), ref)
        err2 = rel_err(q2.double() * s2.double(), ref)
        assert err < err2, f"fused {err:.3e} vs rounded first {err2:.3e}"


def test_gated_norm_modulate_quant_refusals():
    x = rand((2, 8, 1024), torch.bfloat16)
    m = rand((2, 1, 1024), torch.bfloat16)
    odd = rand((2, 1, 1025), torch.bfloat16)[..., 1:]
    raises("gate must start on a 16-byte boundary", lk.gated_norm_modulate_quant_fp8, x, x.clone(), odd, m, m)
    raises("scale must start on a 16-byte boundary", lk.norm_modulate_quant_fp8, x, odd, m)
    raises("branch has shape", lk.gated_norm_modulate_quant_fp8, x, x[:, :4].clone(), m, m, m)
    raises("contiguous", lk.gated_norm_modulate_quant_fp8, x, x.transpose(0, 1).contiguous().transpose(0, 1),
           m, m, m)
    raises("dtype", lk.gated_norm_modulate_quant_fp8, x, x.half(), m, m, m)


@pytest.mark.parametrize("activation", ["gelu", "gelu_tanh", "silu"])
def test_act_quant(activation):
    x = rand((300, 6144), torch.bfloat16, scale=2.0)
    q, s = lk.act_quant_fp8(x, activation)
    check_fused(q, s, ACTS[activation](x.double()), False, activation)
    gate, up = rand((300, 2 * 2816), torch.bfloat16).chunk(2, -1)  # column slices of one matrix
    q, s = lk.act_and_mul_quant_fp8(gate, up, activation, "group")
    check_fused(q, s, ACTS[activation](gate.double()) * up.double(), True, f"{activation} * up")


@pytest.mark.parametrize("activation", ["gelu_tanh", "silu"])
@pytest.mark.parametrize("group", [False, True])
def test_act_quant_bias(activation, group):
    """act(x + bias): the bias a GEMM left out, added by the quantizer."""
    x = rand((300, 3072), torch.bfloat16, scale=2.0)
    b = rand((3072,), torch.bfloat16)
    q, s = lk.act_quant_fp8(x, activation, "group" if group else "token", b)
    check_fused(q, s, ACTS[activation](x.double() + b.double()), group, f"{activation} + bias")
    q0, _ = lk.act_quant_fp8(x, activation, "group" if group else "token")
    assert not torch.equal(q0.view(torch.uint8), q.view(torch.uint8)), "the bias was not added"


def test_quantizers_refuse_unaligned_vectors():
    """A weight or bias that starts off a 16-byte boundary (a slice) is
    refused by name, never read as 16-byte vectors."""
    x = rand((8, 1024), torch.bfloat16)
    odd = rand((1025,), torch.bfloat16)[1:]
    raises("bias must start on a 16-byte boundary", lk.act_quant_fp8, x, "gelu_tanh", "token", odd)
    raises("weight must start on a 16-byte boundary", lk.rms_norm_quant_fp8, x, odd)
    raises("bias must start on a 16-byte boundary", lk.layer_norm_quant_fp8, x, None, odd)
    raises("shape", lk.act_quant_fp8, x, "gelu_tanh", "token", rand((512,), torch.bfloat16))
    raises("dtype", lk.act_quant_fp8, x, "gelu_tanh", "token", rand((1024,), torch.float16))


@pytest.mark.parametrize("shape", [(128, 128), (300, 4112), (4096, 1024)],
                         ids=lambda s: "x".join(map(str, s)))
def test_weight_quantizers(shape):
    w = rand(shape, torch.bfloat16, scale=0.02)
    q, s = lk.quantize_fp8_weight(w, "block")
    q_ref, s_ref = ref_quant(w, 128, 128)
    # the kernel multiplies by 448 / amax where the reference divides by s:
    # allow one e4m3 step on the rare boundary case, and exact scales
    assert torch.equal(s, s_ref)
    diff = (codes(q) - codes(q_ref)).abs()
    assert diff.max().item() <= 1 and (diff > 0).double().mean().item() < 1e-3
    q, s = lk.quantize_fp8_weight(w, "channel")
    assert s.shape == (shape[0], 1)
    q_ref, s_ref = exact_quant(w.float(), False)
    assert torch.equal(q.view(torch.uint8), q_ref.view(torch.uint8)) and torch.equal(s, s_ref)


# ------------------------------------------------------------- the layers --
@pytest.mark.parametrize("scaling", ["row", "block"])
def test_fp8_linear(scaling):
    from lit_kernels import fp8

    lin = torch.nn.Linear(1024, 640, bias=True, device="cuda", dtype=torch.bfloat16)
    layer = fp8.FP8Linear.from_linear(lin, scaling)
    x = rand((3, 50, 1024), torch.bfloat16)
    ref = F.linear(x.double(), lin.weight.double(), lin.bias.double())
    y = layer(x)
    assert y.shape == (3, 50, 640) and y.dtype == torch.bfloat16
    assert rel_err(y, ref) < 0.06, rel_err(y, ref)
    q, s = lk.quantize_fp8(x, "group" if scaling == "block" else "token")
    assert torch.equal(layer.forward_fp8(q, s, torch.bfloat16), y)
    # the bias left to the caller: the same sum, rounded once more
    no_bias = layer.forward_fp8(q, s, torch.bfloat16, add_bias=False)
    assert rel_err(no_bias.double() + lin.bias.double(), y.double()) < 1e-2
    assert rel_err(no_bias, y) > 1e-2, "add_bias=False still added the bias"


def _tiny_flux():
    from diffusers import FluxTransformer2DModel
    torch.manual_seed(0)
    return FluxTransformer2DModel(patch_size=1, in_channels=64, num_layers=1, num_single_layers=1,
                                  attention_head_dim=128, num_attention_heads=2, joint_attention_dim=256,
                                  pooled_projection_dim=64, guidance_embeds=False,
                                  axes_dims_rope=(16, 56, 56)).cuda().eval()


def test_patch_flux_eager_and_compiled():
    """patch_flux on a small Flux transformer: its output is as close to the
    fp32 model's as FP8 allows, eagerly and under torch.compile (where the
    biases and the single block's GELU move out of the GEMMs), and the two
    agree with each other."""
    import importlib.util
    if importlib.util.find_spec("diffusers") is None:
        pytest.skip("diffusers is not importable")
    from lit_kernels import fp8

    g = torch.Generator(device="cuda").manual_seed(1)
    img, txt = 256, 64
    inputs = dict(hidden_states=torch.randn(1, img, 64, device="cuda", generator=g),
                  encoder_hidden_states=torch.randn(1, txt, 256, device="cuda", generator=g),
                  pooled_projections=torch.randn(1, 64, device="cuda", generator=g),
                  timestep=torch.tensor([0.5], device="cuda"),
                  img_ids=torch.stack(torch.meshgrid(torch.zeros(1), torch.arange(16.0), torch.arange(16.0),
                                                     indexing="ij"), -1).reshape(-1, 3).cuda(),
                  txt_ids=torch.zeros(txt, 3, device="cuda"), return_dict=False)
    with torch.no_grad():
        ref = _tiny_flux()(**inputs)[0].double()
        model = _tiny_flux().to(torch.bfloat16)
        x16 = {k: v.to(torch.bfloat16) if torch.is_tensor(v) and k not in ("img_ids", "txt_ids") else v
               for k, v in inputs.items()}
        assert fp8.patch_flux(model) == 2
        eager = model(**x16)[0]
        compiled = torch.compile(model, fullgraph=False)(**x16)[0]
    for name, out in (("eager", eager), ("compiled", compiled)):
        assert torch.isfinite(out).all(), name
        assert rel_err(out, ref) < 0.03, f"{name}: {rel_err(out, ref):.3e} from the fp32 model"
    assert rel_err(compiled, eager) < 0.01, rel_err(compiled, eager)


def test_quantize_linears_swaps_block_layers():
    from lit_kernels import fp8

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = torch.nn.Linear(256, 256)
            self.norm = torch.nn.Linear(256, 512)   # a modulation projection: left alone
            self.odd = torch.nn.Linear(40, 256)     # K not a multiple of 16: left alone

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer_blocks = torch.nn.ModuleList([Block(), Block()])
            self.proj_out = torch.nn.Linear(256, 64)

    model = Model().cuda().to(torch.bfloat16)
    assert fp8.quantize_linears(model) == 2
    assert isinstance(model.transformer_blocks[1].attn, fp8.FP8Linear)
    assert isinstance(model.transformer_blocks[1].norm, torch.nn.Linear)
    assert isinstance(model.transformer_blocks[0].odd, torch.nn.Linear)
    assert isinstance(model.proj_out, torch.nn.Linear)


# ------------------------------------------------------------- bad input --
def raises(match, fn, *args, **kwargs):
    with pytest.raises(RuntimeError, match=match):
        fn(*args, **kwargs)


def test_refusals():
    qa, qb, sa, sb, _, _ = operands(64, 128, 256, "row")
    bf = qa.to(torch.bfloat16)
    raises("float8_e4m3fn", lk.fp8_gemm, bf, qb, sa, sb)
    raises("float8_e4m3fn", lk.fp8_gemm, qa, qb.to(torch.float8_e5m2), sa, sb)
    raises("match no scaling", lk.fp8_gemm, qa, qb, sa[:10], sb)
    raises("float32", lk.fp8_gemm, qa, qb, sa.half(), sb)
    raises("contiguous along K", lk.fp8_gemm, qa, qb.contiguous(), sa, sb)
    raises("multiple of 16", lk.fp8_gemm, qa[:, :40], qb[:40], sa, sb)
    raises("output dtype", lk.fp8_gemm, qa, qb, sa, sb, rand((128,), torch.float16))
    raises("bfloat16 or float16", lk.fp8_gemm, qa, qb, sa, sb, None, "none", torch.float32)
    raises("accumulate", lk.fp8_gemm, qa, qb, sa, sb, accumulate="exact")
    raises("CUDA tensor", lk.fp8_gemm, qa.cpu(), qb, sa, sb)
    raises("bfloat16 or float16", lk.quantize_fp8, rand((4, 64), torch.float32))
    raises("multiple of 16", lk.quantize_fp8, rand((4, 40), torch.bfloat16))
    raises("multiple of 16", lk.quantize_fp8, rand((4, 40000), torch.bfloat16))
    with pytest.raises(ValueError, match="granularity"):
        lk.quantize_fp8(rand((4, 64), torch.bfloat16), "tensor")


def test_suite_fails_when_package_is_expected():
    """The device scripts set LIT_KERNELS_PATH: there the package must load."""
    if os.environ.get("LIT_KERNELS_PATH"):
        assert lk is not None

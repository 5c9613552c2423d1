"""GPU tests for FP8 attention: the quantizer (bit-exact against a float
reference with its scales, a row's for q and a 128-key block's for k and v;
the transposed V's key order and padding), the attention kernel
against a float64 emulation of what it computes (the dequantized inputs, P
rounded to e4m3 against the running maximum of each 128-key block, as the
kernel rounds it), causal and not, grouped-query heads, lengths that are not
multiples of the tiles, strided operands, both output dtypes, the
log-sum-exp, fp8_attention end to end and under torch.compile, and the
refusals. Needs an H100/H200 and a build of lit_kernels.
"""
import math

import pytest
import torch
import torch.nn.functional as F

from lit_testing import lit_or_none, poison_next, rand, rel_err

lk = lit_or_none()  # None: no build here, and every test skips

HOPPER = torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)
pytestmark = pytest.mark.skipif(lk is None or not HOPPER,
                                reason="needs an H100/H200 and a build of lit_kernels")

E4M3 = torch.float8_e4m3fn
D = 128
P_LOG2 = 8   # the kernel scales P by 2^8 before rounding it to e4m3
BLOCK = 128  # keys a block of the kernel's online softmax


# ------------------------------------------------------------- references --
def slot_of_key(k):
    """Where key k sits in a row of the transposed V (written independently
    of the kernel's header): within each 16 keys, slots 4c .. 4c + 3 hold
    keys 2c, 2c + 1, 8 + 2c, 9 + 2c."""
    j = k % 16
    return k - j + 4 * ((j % 8) // 2) + j % 2 + (2 if j >= 8 else 0)


def rows_of(scale, operand, s):
    """The scale of each of s rows: q's are per row already; k's and v's,
    one a block of 128 rows, repeated over the block."""
    return scale if operand == "q" else scale.repeat_interleave(BLOCK, dim=2)[:, :, :s]


def ref_quant(x, operand):
    """x [B, H, S, 128] to e4m3 with the operand's scales: "q" one a row
    ([B, H, S]), "k" and "v" one a block of 128 rows ([B, H, ceil(S / 128)]);
    each amax / 448 (v's rounded up to a power of two), the values times
    448 / amax (v's: divided by the scale; the kernel's arithmetic, in fp32),
    saturating. Returns the values [B, H, S, 128] and the scales."""
    b, h, s, d = x.shape
    xf = x.float()
    if operand == "q":
        amax = xf.abs().amax(dim=3).clamp_min(1e-12)  # [B, H, S]
    else:
        nb = (s + BLOCK - 1) // BLOCK
        padded = F.pad(xf, (0, 0, 0, nb * BLOCK - s))
        amax = padded.abs().reshape(b, h, nb, BLOCK * d).amax(dim=3).clamp_min(1e-12)
    scale = amax / torch.full_like(amax, 448.0)
    if operand == "v":
        mant, exp = torch.frexp(scale)  # scale = mant 2^exp, mant in [0.5, 1)
        scale = torch.ldexp(torch.ones_like(scale), torch.where(mant == 0.5, exp - 1, exp))
        inv = rows_of(1.0 / scale, operand, s)
    else:
        per_row = rows_of(amax, operand, s)
        inv = torch.full_like(per_row, 448.0) / per_row
    q = (xf * inv[..., None]).clamp(-448, 448).to(E4M3)
    return q, scale


def dequant(x8, scale, operand):
    """The e4m3 values [B, H, S, 128] times their scales, in float64."""
    return x8.double() * rows_of(scale, operand, x8.shape[2]).double()[..., None]


def untranspose_v(vt, seq):
    """The transposed V [B, H, 128, padded] back to [B, H, seq, 128]."""
    slots = torch.tensor([slot_of_key(k) for k in range(seq)], device=vt.device)
    return vt.index_select(3, slots).transpose(2, 3)


def emulate(q8, sq, k8, sk, v, causal, scale):
    """What the kernel computes, in float64: S from the dequantized q and k;
    each 128-key block's P = 2^8 exp2(S' - m_j) with m_j the row's running
    maximum after block j, rounded to e4m3; O = sum_j 2^(m_j - m) P_j V_j over
    sum_j 2^(m_j - m) sum(P_j unrounded); lse from the unrounded sums. v is
    the dequantized V [B, Hkv, seq_k, 128]. Rows that see no key: 0, -inf."""
    b, hq, sq_len, _ = q8.shape
    hkv, sk_len = k8.shape[1], k8.shape[2]
    g = hq // hkv
    qd = dequant(q8, sq, "q")
    kd = dequant(k8, sk, "k").repeat_interleave(g, 1)
    vd = v.double().repeat_interleave(g, 1)
    s = qd @ kd.transpose(2, 3) * (scale * math.log2(math.e))  # base-2 logits
    if causal:
        i = torch.arange(sq_len, device=s.device)[:, None]
        j = torch.arange(sk_len, device=s.device)[None, :]
        s = s.masked_fill(j > i + (sk_len - sq_len), float("-inf"))
    nb = (sk_len + BLOCK - 1) // BLOCK
    pad = nb * BLOCK - sk_len
    s = F.pad(s, (0, pad), value=float("-inf"))
    vd = F.pad(vd, (0, 0, 0, pad))
    sb = s.reshape(b, hq, sq_len, nb, BLOCK)
    m = torch.cummax(sb.amax(dim=4), dim=3).values  # running max after each block
    safe = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    p = torch.exp2(sb - safe[..., None] + P_LOG2)
    w = torch.exp2(safe - safe[..., -1:])  # each block's correction to the final max
    w = torch.where(torch.isinf(m), torch.zeros_like(w), w)
    pq = p.float().to(E4M3).double()
    o = torch.einsum("bhqnk,bhqn,bhnkd->bhqd", pq, w, vd.reshape(b, hq, nb, BLOCK, D))
    l = (p.sum(dim=4) * w).sum(dim=3)
    out = torch.where(l[..., None] > 0, o / l[..., None], torch.zeros_like(o))
    lse = torch.where(l > 0, (safe[..., -1] + torch.log2(l) - P_LOG2) * math.log(2),
                      torch.full_like(l, float("-inf")))
    return out, lse


def quantized(b, hq, hkv, sq_len, sk_len, dtype=torch.bfloat16):
    q = rand((b, hq, sq_len, D), dtype)
    k = rand((b, hkv, sk_len, D), dtype)
    v = rand((b, hkv, sk_len, D), dtype)
    q8, sq = lk.quantize_attention_fp8(q, "q")
    k8, sk = lk.quantize_attention_fp8(k, "k")
    v8, sv = lk.quantize_attention_fp8(v, "v")
    return (q, k, v), (q8, sq, k8, sk, v8, sv)


def v_dequantized(v8, sv, seq):
    return dequant(untranspose_v(v8, seq), sv, "v")


# --------------------------------------------------------------- quantizer --
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 3, 77), (1, 2, 1000), (2, 4, 4096)])
@pytest.mark.parametrize("operand", ["q", "k", "v"])
def test_quantizer_matches_reference(dtype, shape, operand):
    b, h, s = shape
    x = rand((b, h, s, D), dtype, scale=3.0)
    # rows and blocks of very different ranges, so a scale that covered
    # more than its row or block would be caught
    x = x * torch.logspace(-3, 3, s, device="cuda", dtype=torch.float32)[:, None].to(dtype)
    q8, scale = lk.quantize_attention_fp8(x, operand)
    rq, rs = ref_quant(x, operand)
    if operand == "v":
        q8 = untranspose_v(q8, s).contiguous()
    assert q8.dtype == E4M3 and q8.shape == x.shape and q8.is_contiguous()
    n = s if operand == "q" else (s + BLOCK - 1) // BLOCK
    assert scale.shape == (b, h, n) and scale.dtype == torch.float32
    assert torch.equal(scale, rs)
    assert torch.equal(q8.view(torch.uint8), rq.view(torch.uint8))


@pytest.mark.parametrize("seq", [1, 15, 16, 17, 64, 130, 1000])
def test_transposed_v_layout(seq):
    v = rand((2, 3, seq, D), torch.bfloat16)
    # the next allocation of the output's size lands on NaN bytes (0x7f)
    nan = torch.full((2, 3, D, (seq + 15) // 16 * 16), 0x7F, dtype=torch.uint8, device="cuda")
    del nan
    vt, sv = lk.quantize_attention_fp8(v, "v")
    rq, rs = ref_quant(v, "v")
    padded = (seq + 15) // 16 * 16
    assert vt.shape == (2, 3, D, padded) and vt.dtype == E4M3
    assert sv.shape == (2, 3, (seq + BLOCK - 1) // BLOCK)
    assert torch.equal(sv, rs)
    back = untranspose_v(vt, seq)
    assert torch.equal(back.contiguous().view(torch.uint8), rq.view(torch.uint8))
    # the padding keys are zeros (their P is zero, and 0 * NaN would not be)
    pad_slots = [slot_of_key(k) for k in range(seq, padded)]
    if pad_slots:
        assert torch.equal(vt[..., pad_slots].view(torch.uint8),
                           torch.zeros_like(vt[..., pad_slots].view(torch.uint8)))


def test_qkv_in_one_launch_matches_each():
    q = rand((2, 8, 300, D), torch.float16)
    k = rand((2, 2, 1000, D), torch.float16, scale=5.0)
    v = rand((2, 2, 1000, D), torch.float16, scale=0.1)
    got = lk.quantize_attention_fp8_qkv(q, k, v)
    want = (lk.quantize_attention_fp8(q, "q") + lk.quantize_attention_fp8(k, "k")
            + lk.quantize_attention_fp8(v, "v"))
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert torch.equal(g.view(torch.uint8) if g.dtype == E4M3 else g,
                           w.view(torch.uint8) if w.dtype == E4M3 else w)


def test_quantizer_strided_and_zero_head():
    x = rand((2, 300, 4, D), torch.bfloat16).transpose(1, 2)  # [B, H, S, D] view of [B, S, H, D]
    x[1, 2] = 0  # an all-zero head: tiny scales, zeros, no NaN
    for operand in ("q", "k", "v"):
        q8, s = lk.quantize_attention_fp8(x, operand)
        rq, rs = ref_quant(x, operand)
        if operand == "v":
            q8 = untranspose_v(q8, 300).contiguous()
        assert torch.equal(q8.view(torch.uint8), rq.view(torch.uint8))
        assert torch.equal(s, rs) and (s[1, 2] > 0).all()


# --------------------------------------------------------------- attention --
CASES = [  # batch, q heads, kv heads, seq_q, seq_k, causal
    (1, 2, 2, 128, 128, False),
    (1, 2, 2, 100, 100, False),
    (2, 4, 4, 1000, 1000, False),
    (2, 4, 4, 1000, 1000, True),
    (1, 8, 2, 777, 777, True),    # grouped-query heads
    (1, 4, 1, 513, 513, False),   # multi-query
    (2, 2, 2, 1, 1500, True),     # one query row: sees every key
    (1, 2, 2, 7, 300, False),
    (1, 2, 2, 300, 200, True),    # seq_q > seq_k: the first rows see no key
    (1, 2, 2, 4096, 4096, True),
]


@pytest.mark.parametrize("case", CASES)
def test_attention_fp8_matches_emulation(case):
    b, hq, hkv, sq_len, sk_len, causal = case
    _, (q8, sq, k8, sk, v8, sv) = quantized(b, hq, hkv, sq_len, sk_len)
    vd = v_dequantized(v8, sv, sk_len)
    scale = 1 / math.sqrt(D)
    poison_next((b, hq, sq_len, D), torch.bfloat16)
    out, lse = lk.attention_fp8(q8, k8, v8, sq, sk, sv, causal=causal, return_lse=True)
    ref, ref_lse = emulate(q8, sq, k8, sk, vd, causal, scale)
    assert out.dtype == torch.bfloat16 and out.shape == (b, hq, sq_len, D)
    assert torch.isfinite(out).all()
    e = rel_err(out, ref)
    assert e < 1e-2, f"{case}: relative error {e:.3e} against the emulation"
    seen = torch.isfinite(ref_lse)
    assert torch.equal(torch.isfinite(lse), seen)
    assert (lse[seen].double() - ref_lse[seen]).abs().max().item() < 1e-3
    if not seen.all():  # rows that see no key are zeros
        assert out[~seen].abs().max().item() == 0


@pytest.mark.parametrize("causal", [False, True])
def test_v_blocks_of_different_ranges(causal):
    """K and V blocks whose ranges differ by 10^6, one V block all zeros:
    O is carried in units of the current block's V scale and rescaled by
    the ratio at each block, so every block's own scale must come through."""
    sk_len = 700  # six blocks, the last one partial
    q = rand((1, 2, 300, D), torch.bfloat16)
    k = rand((1, 2, sk_len, D), torch.bfloat16)
    v = rand((1, 2, sk_len, D), torch.bfloat16)
    v_factors = torch.tensor([1e-3, 10.0, 0.0, 1e3, 1.0, 1e-2], device="cuda")
    k_factors = torch.tensor([0.5, 2.0, 0.1, 3.0, 1.0, 0.25], device="cuda")  # logits stay O(10)
    v = v * v_factors.repeat_interleave(BLOCK)[:sk_len, None].to(torch.bfloat16)
    k = k * k_factors.repeat_interleave(BLOCK)[:sk_len, None].to(torch.bfloat16)
    q8, sq = lk.quantize_attention_fp8(q, "q")
    k8, sk = lk.quantize_attention_fp8(k, "k")
    v8, sv = lk.quantize_attention_fp8(v, "v")
    out, lse = lk.attention_fp8(q8, k8, v8, sq, sk, sv, causal=causal, return_lse=True)
    ref, ref_lse = emulate(q8, sq, k8, sk, v_dequantized(v8, sv, sk_len), causal, 1 / math.sqrt(D))
    assert torch.isfinite(out).all()
    assert rel_err(out, ref) < 1e-2
    seen = torch.isfinite(ref_lse)
    # logits here reach about 15: the FP8 product's accumulation error grows with them
    tol = 1e-3 * max(1.0, ref_lse[seen].abs().max().item())
    assert (lse[seen].double() - ref_lse[seen]).abs().max().item() < tol


def test_attention_fp8_close_to_float():
    """Against attention of the unquantized bf16 inputs in float64: FP8's
    own error (rounding of Q, K, V and P), about 5% on random inputs, far
    below the 100% a wrong key order or layout gives."""
    (q, k, v), (q8, sq, k8, sk, v8, sv) = quantized(1, 4, 4, 2048, 2048)
    out = lk.attention_fp8(q8, k8, v8, sq, sk, sv)
    ref = F.scaled_dot_product_attention(q.double(), k.double(), v.double())
    assert rel_err(out, ref) < 0.1


@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16])
def test_out_dtype_and_scale(out_dtype):
    _, (q8, sq, k8, sk, v8, sv) = quantized(1, 2, 2, 300, 300)
    out = lk.attention_fp8(q8, k8, v8, sq, sk, sv, scale=0.05, out_dtype=out_dtype)
    vd = v_dequantized(v8, sv, 300)
    ref, _ = emulate(q8, sq, k8, sk, vd, False, 0.05)
    assert out.dtype == out_dtype
    assert rel_err(out, ref) < 1e-2


def test_strided_operands():
    """q and k as views into wider buffers, strides whole 16-byte pieces."""
    _, (q8, sq, k8, sk, v8, sv) = quantized(2, 2, 2, 200, 333)
    qw = torch.zeros((2, 2, 200, 2 * D), dtype=torch.uint8, device="cuda").view(E4M3)
    kw = torch.zeros((2, 2, 333, 2 * D), dtype=torch.uint8, device="cuda").view(E4M3)
    qw[..., D:] = q8
    kw[..., D:] = k8
    out = lk.attention_fp8(qw[..., D:], kw[..., D:], v8, sq, sk, sv, causal=True)
    ref = lk.attention_fp8(q8, k8, v8, sq, sk, sv, causal=True)
    assert torch.equal(out, ref)


def test_fp8_attention_end_to_end_and_compiled():
    q = rand((1, 8, 1500, D), torch.float16)
    k = rand((1, 2, 1500, D), torch.float16)
    v = rand((1, 2, 1500, D), torch.float16)
    out = lk.fp8_attention(q, k, v, causal=True)
    assert out.dtype == torch.float16
    ref = F.scaled_dot_product_attention(q.double(), k.double().repeat_interleave(4, 1),
                                         v.double().repeat_interleave(4, 1), is_causal=True)
    assert rel_err(out, ref) < 0.1
    compiled = torch.compile(lambda a, b, c: lk.fp8_attention(a, b, c, causal=True),
                             fullgraph=True)
    assert torch.equal(compiled(q, k, v), out)


def test_empty():
    _, (q8, sq, k8, sk, v8, sv) = quantized(1, 2, 2, 1, 64)
    out = lk.attention_fp8(q8[:, :, :0], k8, v8, sq[:, :, :0], sk, sv)
    assert out.shape == (1, 2, 0, D)


# ---------------------------------------------------------------- refusals --
def refused(match, fn):
    with pytest.raises(RuntimeError, match=match):
        fn()
        torch.cuda.synchronize()


def test_refusals():
    (q, k, v), (q8, sq, k8, sk, v8, sv) = quantized(1, 2, 2, 64, 64)
    att = lk.attention_fp8
    refused("float8_e4m3fn", lambda: att(q, k8, v8, sq, sk, sv))
    refused("V transposed", lambda: att(q8, k8, k8, sq, sk, sv))
    refused("q_scale", lambda: att(q8, k8, v8, sq[:, :1], sk, sv))
    refused("q_scale", lambda: att(q8, k8, v8, sq[:, :, :1], sk, sv))  # a scale per head
    refused("k_scale", lambda: att(q8, k8, v8, sq, sq, sv))
    refused("v_scale", lambda: att(q8, k8, v8, sq, sk, sv[..., :0]))
    refused("float32", lambda: att(q8, k8, v8, sq.double(), sk, sv))
    refused("out_dtype", lambda: att(q8, k8, v8, sq, sk, sv, out_dtype=torch.float32))
    wide = torch.zeros((1, 2, 64, D + 8), dtype=torch.uint8, device="cuda").view(E4M3)
    refused("strides", lambda: att(wide[..., :D], k8, v8, sq, sk, sv))  # rows 136 bytes apart
    refused("CUDA", lambda: att(q8.cpu(), k8, v8, sq, sk, sv))
    refused("multiple of k's", lambda: att(q8, k8[:, :1].expand(1, 3, 64, D).contiguous(), v8,
                                           sq, sk, sv))
    refused("head_dim 128", lambda: lk.quantize_attention_fp8(q[..., :64].contiguous(), "q"))
    refused("float16 or bfloat16", lambda: lk.quantize_attention_fp8(q.float(), "q"))
    refused("4-d", lambda: lk.quantize_attention_fp8(q[0], "q"))
    refused("operand", lambda: lk.quantize_attention_fp8(q, "o"))
    refused("must be one", lambda: lk.quantize_attention_fp8_qkv(q, k.half(), v))
    qg = q.clone().requires_grad_()
    with pytest.raises(RuntimeError, match="inference-only"):
        lk.fp8_attention(qg, k, v)

"""GPU tests for the attention forward pass (lit_kernels.attention), on the
Hopper kernel (TMA + wgmma) and the portable one (cp.async + mma.sync).

Every check compares with a float64 reference (scores, softmax and the
product in float64, grouped K/V heads repeated) by ||out - ref|| / ||ref||
under the dtype's tolerance, on fresh random inputs, with the output memory
poisoned with NaN first so that an element the kernel does not write fails.
The log-sum-exp is compared element-wise. Needs a CUDA GPU and a build of
lit_kernels; the Hopper cases need an H100/H200.
"""
import math

import pytest
import torch

from lit_testing import check, lit_or_none, poison_next, rand

lk = lit_or_none()  # None: no build here, and every test skips

pytestmark = pytest.mark.skipif(not torch.cuda.is_available() or lk is None,
                                reason="needs a CUDA GPU and a build of lit_kernels")

DTYPES = [torch.bfloat16, torch.float16]
HOPPER = torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)
BACKENDS = ["portable"] + (["hopper"] if HOPPER else [])


def reference(q, k, v, causal, scale):
    """float64 (out, lse); a row that sees no key gets zeros and -inf."""
    group = q.shape[1] // k.shape[1]
    qd = q.double()
    kd = k.double().repeat_interleave(group, dim=1)
    vd = v.double().repeat_interleave(group, dim=1)
    s = (qd @ kd.transpose(-1, -2)) * scale
    if causal:
        sq, sk = q.shape[2], k.shape[2]
        i = torch.arange(sq, device=q.device)[:, None]
        j = torch.arange(sk, device=q.device)[None, :]
        s = s.masked_fill(j > i + sk - sq, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)  # rows with no key: 0/0
    return p @ vd, lse


def run(q, k, v, causal, backend, scale=None):
    poison_next(q.shape, q.dtype)
    return lk.attention(q, k, v, causal=causal, scale=scale, return_lse=True, backend=backend)


def check_both(q, k, v, causal, backend, what, scale=None):
    s = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    out, lse = run(q, k, v, causal, backend, scale)
    ref, ref_lse = reference(q, k, v, causal, s)
    check(out, ref, q.dtype, what)
    assert lse.dtype == torch.float32 and lse.shape == q.shape[:3], what
    finite = torch.isfinite(ref_lse)
    assert torch.equal(torch.isfinite(lse), finite), f"{what}: lse finiteness differs"
    err = (lse.double() - ref_lse)[finite].abs().max().item() if finite.any() else 0.0
    assert err < 1e-3, f"{what}: lse error {err:.2e}"


def qkv(b, hq, hkv, sq, sk, d, dtype):
    return (rand((b, hq, sq, d), dtype), rand((b, hkv, sk, d), dtype), rand((b, hkv, sk, d), dtype))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq", [1, 3, 127, 4097])
def test_matches_float64(seq, causal, head_dim, dtype, backend):
    heads = (2, 2) if seq > 1000 else (4, 1)
    q, k, v = qkv(1, heads[0], heads[1], seq, seq, head_dim, dtype)
    check_both(q, k, v, causal, backend, f"{backend} seq={seq} causal={causal} d={head_dim}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("ratio", [1, 4, 8])
def test_grouped_query_heads(ratio, backend):
    q, k, v = qkv(2, 8, 8 // ratio, 300, 300, 128, torch.bfloat16)
    check_both(q, k, v, True, backend, f"{backend} gqa ratio {ratio}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sq,sk", [(1, 700), (5, 4100), (77, 300), (300, 77), (128, 257), (130, 1)])
def test_causal_bottom_right(sq, sk, dtype, backend):
    """seq_q != seq_k: query i sees keys j <= i + seq_k - seq_q; with seq_q >
    seq_k the first rows see nothing and come back zero with lse = -inf."""
    q, k, v = qkv(2, 4, 2, sq, sk, 64, dtype)
    check_both(q, k, v, True, backend, f"{backend} causal {sq}x{sk}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_more_tiles_than_sms(causal, head_dim, backend):
    """Hundreds of tiles: the Hopper kernel's CTAs each take several from
    its counter, and causal tiles come in groups of heads."""
    q, k, v = qkv(2, 16, 4, 1100, 1100, head_dim, torch.bfloat16)
    check_both(q, k, v, causal, backend, f"{backend} many tiles causal={causal} d={head_dim}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_rows_without_keys_many_tiles(backend):
    """seq_q > seq_k with causal: whole tiles see no key, among hundreds."""
    q, k, v = qkv(1, 40, 8, 900, 700, 64, torch.float16)
    check_both(q, k, v, True, backend, f"{backend} empty tiles")


@pytest.mark.parametrize("backend", BACKENDS)
def test_non_causal_cross_lengths(backend):
    q, k, v = qkv(3, 4, 4, 200, 333, 128, torch.float16)
    check_both(q, k, v, False, backend, f"{backend} cross 200x333")


@pytest.mark.parametrize("backend", BACKENDS)
def test_strided_views_and_scale(backend):
    """q, k, v as [batch, seq, heads, dim] projections viewed with
    transpose(1, 2), as attention layers build them, and a custom scale."""
    b, s, d = 2, 190, 128
    q = rand((b, s, 8, d), torch.bfloat16).transpose(1, 2)
    k = rand((b, s, 2, d), torch.bfloat16).transpose(1, 2)
    v = rand((b, s, 2, d), torch.bfloat16).transpose(1, 2)
    check_both(q, k, v, True, backend, f"{backend} strided", scale=0.05)


def test_default_backend_and_path():
    q, k, v = qkv(1, 4, 4, 64, 64, 64, torch.bfloat16)
    want = "hopper" if HOPPER else "portable"
    assert lk.attention_path(q, k, v) == want
    out = lk.attention(q, k, v)
    ref, _ = reference(q, k, v, False, 1 / 8)
    check(out, ref, q.dtype, "auto")


@pytest.mark.skipif(not HOPPER, reason="the schedules are the Hopper kernel's")
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("d", [64, 128])
def test_schedules_agree(d, causal):
    """Every Hopper consumer schedule, and each measured form of the overlap
    schedule (head_dim 128: the two-stage ring, the late rescale), computes
    the same thing."""
    q, k, v = qkv(1, 4, 2, 600, 600, d, torch.bfloat16)
    ref, _ = reference(q, k, v, causal, 1 / math.sqrt(d))
    tunings = [(s, 0) for s in (0, 1, 2)] + ([(1, 1), (1, 2)] if d == 128 else [])
    try:
        for sched, form in tunings:
            lk.ops._attention_tuning(sched, form)
            out = lk.attention(q, k, v, causal=causal, backend="hopper")
            check(out, ref, q.dtype, f"schedule {sched} form {form}")
    finally:
        lk.ops._attention_tuning(-1, 0)


@pytest.mark.skipif(not HOPPER, reason="the forms are the Hopper kernel's")
def test_tuning_hook_rejects():
    """The forms exist for the overlap schedule at head_dim 128 only."""
    try:
        with pytest.raises(RuntimeError, match="overlap schedule"):
            lk.ops._attention_tuning(2, 1)
        with pytest.raises(RuntimeError, match="form must be"):
            lk.ops._attention_tuning(1, 3)
        lk.ops._attention_tuning(1, 1)
        q, k, v = qkv(1, 4, 4, 64, 64, 64, torch.bfloat16)
        with pytest.raises(RuntimeError, match="not supported"):
            lk.attention(q, k, v, backend="hopper")
    finally:
        lk.ops._attention_tuning(-1, 0)


def test_empty_inputs():
    q, k, v = qkv(1, 2, 2, 0, 5, 64, torch.bfloat16)
    out, lse = lk.attention(q, k, v, return_lse=True)
    assert out.shape == q.shape and lse.shape == (1, 2, 0)


def test_torch_compile_fullgraph():
    q, k, v = qkv(2, 8, 2, 257, 257, 128, torch.bfloat16)

    def f(q, k, v):
        out, lse = lk.attention(q, k, v, causal=True, return_lse=True)
        return out * 2, lse

    compiled = torch.compile(f, fullgraph=True)
    out, lse = compiled(q, k, v)
    ref_out, ref_lse = f(q, k, v)
    assert torch.equal(out, ref_out) and torch.equal(lse, ref_lse)


def test_opcheck():
    q, k, v = qkv(1, 2, 1, 70, 70, 64, torch.float16)
    torch.library.opcheck(lk.ops.attention.default, (q, k, v, True, None, True, "auto"),
                          test_utils=("test_schema", "test_faketensor"))


def test_rejections():
    q, k, v = qkv(1, 4, 2, 16, 16, 128, torch.bfloat16)
    cases = [
        (lambda: lk.attention(q.float(), k.float(), v.float()), "float16 or bfloat16"),
        (lambda: lk.attention(q, k.half(), v.half()), "but q has dtype"),
        (lambda: lk.attention(q[..., :96], k[..., :96], v[..., :96]), "head_dim 96"),
        (lambda: lk.attention(q[0], k[0], v[0]), "must be 4-d"),
        (lambda: lk.attention(q, k[:, :1].expand(1, 3, 16, 128), v[:, :1].expand(1, 3, 16, 128)),
         "multiple of k's"),
        (lambda: lk.attention(rand((1, 4, 16, 256), torch.bfloat16)[..., ::2], k, v), "strides"),
        (lambda: lk.attention(q, k, v[:, :, :8]), "same shape"),
        (lambda: lk.attention(q.cpu(), k.cpu(), v.cpu()), "CUDA tensor"),
        (lambda: lk.attention(q, k, v, backend="flash"), "unknown backend"),
        (lambda: lk.attention(q, k, v, scale=-1.0), "scale must be positive"),
    ]
    for fn, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            fn()
    qg = q.clone().requires_grad_()
    with torch.no_grad():
        lk.attention(qg, k, v)  # no graph to build (the gradient: test_attention_backward.py)
    if not HOPPER:
        with pytest.raises(RuntimeError, match="backend 'hopper' cannot run"):
            lk.attention(q, k, v, backend="hopper")

"""GPU tests for attention_decode (flash-decoding over a KV cache).

Every check compares with a float64 reference computed from the inputs
upcast (the queries are the last seq_q positions of each sequence, causal
bottom-right within its valid length), by ||out - ref|| / ||ref|| under the
dtype's tolerance, with the output memory poisoned with NaN first so that an
element the kernels do not write fails. The log-sum-exp is checked too.
Needs a CUDA GPU and a build of lit_kernels.
"""

import pytest
import torch

from lit_testing import check, lit_or_none, poison_next, rand

lk = lit_or_none()  # None: no build here, and every test skips

pytestmark = pytest.mark.skipif(not torch.cuda.is_available() or lk is None,
                                reason="needs a CUDA GPU and a build of lit_kernels")

DEV = "cuda"
DTYPES = [torch.bfloat16, torch.float16]


def reference(q, k, v, seqlens, scale=None):
    """float64 (out, lse): out [b, hq, sq, d], lse [b, hq, sq]; a query that
    sees no key gives 0 and -inf."""
    b, hq, sq, d = q.shape
    hkv = k.shape[1]
    scale = d ** -0.5 if scale is None else scale
    out = torch.zeros(b, hq, sq, d, dtype=torch.float64, device=q.device)
    lse = torch.full((b, hq, sq), float("-inf"), dtype=torch.float64, device=q.device)
    for i in range(b):
        n = int(seqlens[i])
        if n == 0:
            continue
        kk = k[i, :, :n].double().repeat_interleave(hq // hkv, dim=0)
        vv = v[i, :, :n].double().repeat_interleave(hq // hkv, dim=0)
        s = q[i].double() @ kk.transpose(-1, -2) * scale  # [hq, sq, n]
        pos = torch.arange(n, device=q.device)
        limit = n - sq + torch.arange(sq, device=q.device)  # last key each query sees
        s = s.masked_fill(pos[None, None, :] > limit[None, :, None], float("-inf"))
        m = torch.logsumexp(s, dim=-1)  # -inf where nothing is seen
        seen = torch.isfinite(m)
        p = torch.where(seen[..., None], torch.exp(s - m[..., None]), torch.zeros_like(s))
        out[i] = p @ vv
        lse[i] = m
    return out, lse


def check_lse(lse, ref, what):
    assert lse.dtype == torch.float32 and lse.shape == ref.shape, what
    inf = torch.isinf(ref)
    assert torch.equal(torch.isinf(lse), inf), f"{what}: -inf lse where the reference has none, or missing"
    if (~inf).any():
        err = (lse.double()[~inf] - ref[~inf]).abs().max().item()
        assert err < 2e-3, f"{what}: lse off by {err:.2e}"


def make(batch, q_heads, kv_heads, seq_q, dim, max_seq, dtype):
    q = rand((batch, q_heads, seq_q, dim), dtype)
    k = rand((batch, kv_heads, max_seq, dim), dtype)
    v = rand((batch, kv_heads, max_seq, dim), dtype)
    return q, k, v


def run_and_check(q, k, v, seqlens, dtype, what, scale=None):
    poison_next(q.shape, dtype)
    out, lse = lk.attention_decode(q, k, v, seqlens, scale=scale, return_lse=True)
    ref, ref_lse = reference(q, k, v, seqlens.cpu(), scale)
    check(out, ref.to(out.device), dtype, what)
    check_lse(lse, ref_lse, what)
    return out, lse


# --------------------------------------------------------------- correctness --
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [64, 128])
@pytest.mark.parametrize("group", [1, 4, 8])
@pytest.mark.parametrize("seq_q", [1, 4])
def test_decode_ragged(dtype, dim, group, seq_q):
    kv_heads = 2
    seqlens = torch.tensor([1, 777, 1300, 64], dtype=torch.int32, device=DEV)
    q, k, v = make(4, kv_heads * group, kv_heads, seq_q, dim, 1400, dtype)
    run_and_check(q, k, v, seqlens, dtype, f"{dtype} d{dim} group {group} seq_q {seq_q}")


@pytest.mark.parametrize("fold", [1, 2])
@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("splits", [1, 2, 3, 7, 16, 64])
def test_decode_forced_splits(splits, stages, fold):
    """Lengths that are not multiples of the split or of the 64-key tile,
    more splits than tiles, the one-split path that skips the combine, both
    pipeline depths, and the splits merged by the combine kernel (fold 1)
    or in a cluster (fold 2, sm_90, up to 16 splits)."""
    for dtype, dim in ((torch.bfloat16, 128), (torch.float16, 64)):
        seqlens = torch.tensor([1000, 5, 129, 4097], dtype=torch.int32, device=DEV)
        q, k, v = make(4, 8, 2, 2, dim, 4100, dtype)
        lk.ops._attention_decode_tuning(splits, stages, fold)
        try:
            run_and_check(q, k, v, seqlens, dtype, f"{splits} splits, {stages} stages, fold {fold}, d{dim}")
        finally:
            lk.ops._attention_decode_tuning(0, 0)


def allocations(fn):
    """How many blocks the caching allocator hands out during fn()."""
    torch.cuda.synchronize()
    before = torch.cuda.memory_stats()["allocation.all.allocated"]
    fn()
    torch.cuda.synchronize()
    return torch.cuda.memory_stats()["allocation.all.allocated"] - before


@pytest.mark.skipif(torch.cuda.is_available() and torch.cuda.get_device_capability() < (9, 0),
                    reason="the splits merge in a cluster on sm_90 only")
@pytest.mark.parametrize("splits", [2, 8, 16])
def test_decode_fold_takes_no_partial_buffers(splits):
    """On sm_90 the planner folds the combine into a cluster of the splits:
    the call allocates its output and lse only, not the partial buffers the
    combine kernel reads; with the fold refused it allocates both. Two row
    groups (GQA 8 x 16 tokens) and a sequence shorter than one split."""
    dtype = torch.bfloat16
    seqlens = torch.tensor([3000, 40], dtype=torch.int32, device=DEV)
    q, k, v = make(2, 16, 2, 9, 128, 3000, dtype)
    try:
        for fold, expected in ((2, 2), (1, 4)):
            lk.ops._attention_decode_tuning(splits, 0, fold)
            assert allocations(lambda: lk.attention_decode(q, k, v, seqlens, return_lse=True)) == expected, \
                f"fold {fold}, {splits} splits: expected {expected} allocations"
            run_and_check(q, k, v, seqlens, dtype, f"fold {fold}, {splits} splits, two row groups")
        # the rule folds short splits in a grid of at most one block an SM
        # (one sequence, 1024 keys: four splits of 256), and not long ones
        lk.ops._attention_decode_tuning(0, 0)
        short = (q[:1, :, :1], k[:1, :, :1024], v[:1, :, :1024],
                 torch.tensor([1000], dtype=torch.int32, device=DEV))
        assert allocations(lambda: lk.attention_decode(*short)) == 2, "the rule did not fold short splits"
        run_and_check(*short, dtype, "the rule's fold")
        long_q, long_k, long_v = make(1, 32, 8, 1, 128, 32768, dtype)
        long_n = torch.tensor([32768], dtype=torch.int32, device=DEV)
        assert allocations(lambda: lk.attention_decode(long_q, long_k, long_v, long_n)) == 4, \
            "the rule folded long splits"
    finally:
        lk.ops._attention_decode_tuning(0, 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_decode_many_rows(dtype):
    """GQA 8 x 16 tokens (128 rows a K/V head: two row groups), GQA 16 x 3."""
    for q_heads, kv_heads, seq_q in ((16, 2, 16), (16, 1, 3), (6, 1, 5)):
        seqlens = torch.tensor([300, 17], dtype=torch.int32, device=DEV)
        q, k, v = make(2, q_heads, kv_heads, seq_q, 128, 320, dtype)
        run_and_check(q, k, v, seqlens, dtype, f"{q_heads}/{kv_heads} heads, seq_q {seq_q}")


def test_decode_long_context_and_scale():
    dtype = torch.bfloat16
    seqlens = torch.tensor([33000, 20000], dtype=torch.int32, device=DEV)
    q, k, v = make(2, 32, 8, 1, 128, 33024, dtype)
    run_and_check(q, k, v, seqlens, dtype, "long context")
    run_and_check(q, k, v, seqlens, dtype, "scale 0.3", scale=0.3)


def test_decode_strided_views():
    """q as a [batch, seq, heads, dim] tensor transposed, caches that are a
    slice of larger buffers (heads and positions), values past each length
    set to NaN (they must never be read)."""
    dtype = torch.float16
    b, hq, hkv, sq, d = 3, 8, 2, 3, 64
    q = rand((b, sq, hq, d), dtype).transpose(1, 2)
    big_k = rand((b, hkv + 1, 600, d), dtype)
    big_v = rand((b, hkv + 1, 600, d), dtype)
    k, v = big_k[:, 1:, :520], big_v[:, 1:, :520]
    seqlens = torch.tensor([520, 3, 333], dtype=torch.int32, device=DEV)
    for i, n in enumerate(seqlens.tolist()):
        k[i, :, n:] = float("nan")
        v[i, :, n:] = float("nan")
    run_and_check(q, k, v, seqlens, dtype, "strided views")


def test_decode_empty_and_zero_lengths():
    dtype = torch.bfloat16
    q, k, v = make(2, 4, 2, 2, 128, 100, dtype)
    seqlens = torch.zeros(2, dtype=torch.int32, device=DEV)
    out, lse = lk.attention_decode(q, k, v, seqlens, return_lse=True)
    assert torch.equal(out, torch.zeros_like(out)) and torch.isinf(lse).all()
    seqlens = torch.tensor([1, 0], dtype=torch.int32, device=DEV)  # seq_q 2, one key: only the last query sees it
    run_and_check(q, k, v, seqlens, dtype, "length 1 with two queries")
    e = lk.attention_decode(q[:0], k[:0], v[:0], seqlens[:0])
    assert e.shape == (0, 4, 2, 128)


def test_decode_lengths_clamped():
    """A length above max_seq reads max_seq keys, a negative one none."""
    dtype = torch.bfloat16
    q, k, v = make(2, 4, 2, 1, 64, 200, dtype)
    out = lk.attention_decode(q, k, v, torch.tensor([500, -3], dtype=torch.int32, device=DEV))
    ref, _ = reference(q, k, v, torch.tensor([200, 0]))
    check(out, ref, dtype, "clamped lengths")


# ------------------------------------------------------------------ rejects --
def test_decode_rejects():
    dtype = torch.bfloat16
    q, k, v = make(2, 8, 2, 1, 128, 64, dtype)
    n = torch.tensor([10, 20], dtype=torch.int32, device=DEV)
    cases = [
        ((q.float(), k.float(), v.float(), n), "supported: float16 and bfloat16"),
        ((q, k.half(), v.half(), n), "k_cache has dtype Half but q has dtype BFloat16"),
        ((q.cpu(), k.cpu(), v.cpu(), n.cpu()), "must be a CUDA tensor"),
        ((q[..., :96], k[..., :96], v[..., :96], n), "head_dim 96; supported: 64 and 128"),
        ((rand((2, 8, 17, 128), dtype), k, v, n), "seq_q is 17; the decode kernels take 1 to 16"),
        ((q, k, v, n.long()), "cache_seqlens has dtype Long; it must be int32"),
        ((q, k, v, n[:1]), r"cache_seqlens must have shape \[2\]"),
        ((q, k, v, n.cpu()), "cache_seqlens must be a CUDA tensor"),
        ((q, k.transpose(2, 3).contiguous().transpose(2, 3), v, n), "last dimension must be contiguous"),
        ((rand((2, 6, 1, 128), dtype), rand((2, 4, 64, 128), dtype), rand((2, 4, 64, 128), dtype), n),
         r"q_heads \(6\) must be a multiple of kv_heads \(4\)"),
        ((q, k, v[:, :, :32], n), "they must have the same shape"),
        ((q, rand((2, 2, 64, 64), dtype), rand((2, 2, 64, 64), dtype), n), "with q's batch and head_dim"),
        ((q, k[0], v, n), "k_cache must be 4-D"),
    ]
    for args, pattern in cases:
        with pytest.raises(RuntimeError, match=pattern):
            lk.attention_decode(*args)
    grad_q = q.detach().clone().requires_grad_(True)
    with pytest.raises(RuntimeError, match="inference only"):
        lk.attention_decode(grad_q, k, v, n)
    odd = torch.empty(2, 2, 64, 132, dtype=dtype, device=DEV)[..., :128]  # rows 132 elements apart
    with pytest.raises(RuntimeError, match="multiples of 8 elements"):
        lk.attention_decode(q, odd, odd, n)
    with pytest.raises(RuntimeError, match="splits must be"):
        lk.ops._attention_decode_tuning(-1)
    with pytest.raises(RuntimeError, match="fold must be"):
        lk.ops._attention_decode_tuning(0, 0, 3)
    with pytest.raises(RuntimeError, match="stages must be"):
        lk.ops._attention_decode_tuning(0, 4)


# ------------------------------------------------- compile, graphs, opcheck --
def test_decode_under_torch_compile():
    dtype = torch.bfloat16
    q, k, v = make(2, 8, 2, 1, 128, 300, dtype)
    n = torch.tensor([300, 41], dtype=torch.int32, device=DEV)

    def f(q, k, v, n):
        out, lse = lk.attention_decode(q * 1.0, k, v, n, return_lse=True)
        return out.float() * 2.0, lse

    eager = f(q, k, v, n)
    compiled = torch.compile(f, fullgraph=True)(q, k, v, n)
    for e, c in zip(eager, compiled):
        assert torch.equal(e, c), "torch.compile changed the result"


def test_decode_cuda_graph():
    """A static cache: the lengths change between replays, the graph does not."""
    dtype = torch.float16
    q, k, v = make(2, 8, 2, 1, 64, 512, dtype)
    n = torch.tensor([10, 20], dtype=torch.int32, device=DEV)
    lk.attention_decode(q, k, v, n)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = lk.attention_decode(q, k, v, n)
    for lengths in ([10, 20], [512, 1], [300, 299]):
        n.copy_(torch.tensor(lengths, dtype=torch.int32))
        g.replay()
        ref, _ = reference(q, k, v, n.cpu())
        check(out, ref, dtype, f"graph replay {lengths}")


def test_decode_opcheck():
    q, k, v = make(2, 4, 2, 1, 64, 100, torch.bfloat16)
    n = torch.tensor([100, 7], dtype=torch.int32, device=DEV)
    torch.library.opcheck(lk.ops.attention_decode.default, (q, k, v, n, None, True))


# ------------------------------------------------------------- integrations --
def _static_cache(model, max_len):
    from transformers import StaticCache
    try:
        return StaticCache(config=model.config, max_cache_len=max_len)
    except TypeError:
        return StaticCache(config=model.config, max_batch_size=2, max_cache_len=max_len,
                           device="cuda", dtype=torch.bfloat16)


def test_transformers_attention_interface():
    """attn_implementation="lit" against "sdpa" on a small LLaMA: prefill
    without a cache, a prefill into a StaticCache and a decode step from it,
    eager and under torch.compile(fullgraph=True); a padded batch refused."""
    pytest.importorskip("transformers")
    from transformers import LlamaConfig, LlamaForCausalLM
    name = lk.integrations.register_transformers()
    cfg = LlamaConfig(hidden_size=512, intermediate_size=1024, num_attention_heads=8, num_key_value_heads=2,
                      head_dim=64, num_hidden_layers=2, vocab_size=1000)
    torch.manual_seed(0)
    model = LlamaForCausalLM(cfg).to("cuda", torch.bfloat16).eval()
    ids = torch.randint(0, 1000, (2, 100), device=DEV)

    def rel(a, b):
        return float((a.float() - b.float()).norm() / b.float().norm())

    outs = {}
    with torch.no_grad():
        for impl in ("sdpa", name):
            model.set_attn_implementation(impl)
            full = model(input_ids=ids, use_cache=False).logits
            cache = _static_cache(model, 128)
            model(input_ids=ids[:, :99], past_key_values=cache, use_cache=True)
            step = model(input_ids=ids[:, 99:], past_key_values=cache, use_cache=True).logits
            outs[impl] = (full, step)
        assert rel(outs[name][0], outs["sdpa"][0]) < 2e-2, "prefill differs from SDPA"
        assert rel(outs[name][1], outs["sdpa"][1]) < 2e-2, "decode step differs from SDPA"
        assert rel(outs[name][1][:, -1], outs["sdpa"][0][:, -1]) < 2e-2, "decode step differs from the full prefill"

        compiled = torch.compile(model, fullgraph=True, dynamic=False)
        cache = _static_cache(model, 128)
        model(input_ids=ids[:, :99], past_key_values=cache, use_cache=True)
        step = compiled(input_ids=ids[:, 99:], past_key_values=cache, use_cache=True).logits
        assert rel(step, outs["sdpa"][1]) < 2e-2, "compiled decode step differs from SDPA"

        mask = torch.ones_like(ids)
        mask[0, :5] = 0
        with pytest.raises(ValueError, match="padding"):
            model(input_ids=ids, attention_mask=mask, use_cache=False)
    torch._dynamo.reset()


def test_diffusers_attention_matches_sdpa():
    """dispatch_attention_fn's layout [batch, seq, heads, head_dim]; the
    kernel's result against SDPA on the same tensors."""
    import torch.nn.functional as F
    q, k, v = (rand((2, 300, 8, 64), torch.bfloat16) for _ in range(3))
    out = lk.integrations.diffusers_attention(q, k, v)
    ref = F.scaled_dot_product_attention(q.transpose(1, 2).double(), k.transpose(1, 2).double(),
                                         v.transpose(1, 2).double()).transpose(1, 2)
    check(out, ref, torch.bfloat16, "diffusers_attention")


def test_diffusers_attention_masked_fallback():
    """A call with an attention mask goes to diffusers' dispatch_attention_fn:
    eagerly it warns once and is counted; under torch.compile(fullgraph=True)
    it is traced into the graph (no warning, which Dynamo cannot trace) and
    gives the same result."""
    import importlib.util
    import warnings

    import torch.nn.functional as F
    if importlib.util.find_spec("diffusers") is None:
        pytest.skip("diffusers is not importable")
    integ = lk.integrations
    q, k, v = (rand((2, 40, 4, 64), torch.bfloat16) for _ in range(3))
    mask = torch.rand(2, 1, 40, 40, device=DEV) > 0.4
    mask |= torch.eye(40, dtype=torch.bool, device=DEV)  # no row fully masked
    ref = F.scaled_dot_product_attention(q.transpose(1, 2).double(), k.transpose(1, 2).double(),
                                         v.transpose(1, 2).double(),
                                         attn_mask=mask).transpose(1, 2)
    integ.FALLBACKS.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = integ.diffusers_attention(q, k, v, attn_mask=mask)
        integ.diffusers_attention(q, k, v, attn_mask=mask)
    check(out, ref, torch.bfloat16, "masked fallback, eager")
    assert integ.FALLBACKS["attention mask"] == 2
    assert sum("attention mask" in str(w.message) for w in caught) == 1
    torch._dynamo.reset()
    compiled = torch.compile(lambda a, b, c, m: integ.diffusers_attention(a, b, c, attn_mask=m),
                             fullgraph=True)
    check(compiled(q, k, v, mask), ref, torch.bfloat16, "masked fallback, compiled")
    assert integ.FALLBACKS["attention mask"] == 2
    torch._dynamo.reset()

"""GPU tests for rope_paged_append (RoPE with the step's keys and values
written into a paged KV cache) and paged_slot_mapping.

The op is checked bit for bit against the package's own `rope` (itself
tested against float64 in test_ops.py) followed by a scatter into the
pool, once against float64 directly, and end to end: appended tokens read
back by attention_decode through the block table. Pools start as NaN, so
a row written where it should not be, or not written where it should,
shows. Needs a CUDA GPU and a build of lit_kernels.
"""

import pytest
import torch

from lit_testing import check, lit_or_none, rand
from test_attention_decode import reference

lk = lit_or_none()  # None: no build here, and every test skips

pytestmark = pytest.mark.skipif(not torch.cuda.is_available() or lk is None,
                                reason="needs a CUDA GPU and a build of lit_kernels")

DEV = "cuda"
DTYPES = [torch.bfloat16, torch.float16]
NAN = float("nan")


def pool(pages, page_size, heads, dim, dtype, layout="nhd"):
    """A NaN page pool [pages, page_size, heads, dim]: contiguous (nhd), or a
    view of FlashInfer's HND storage [pages, heads, page_size, dim]."""
    if layout == "hnd":
        return torch.full((pages, heads, page_size, dim), NAN, dtype=dtype, device=DEV).transpose(1, 2)
    return torch.full((pages, page_size, heads, dim), NAN, dtype=dtype, device=DEV)


def rows(cache, slots):
    """The pool rows [len(slots), heads, dim] of the given slots (any strides)."""
    ps = cache.shape[1]
    s = slots.long()
    return cache[s // ps, s % ps]


def inputs(tokens, q_heads, kv_heads, dim, dtype, extra_cols=0):
    """query, key, value as column slices of one fused QKV output; extra_cols
    pads each token's row (a token stride that breaks 16-byte alignment)."""
    width = (q_heads + 2 * kv_heads) * dim + extra_cols
    qkv = rand((tokens, width), dtype)
    q = qkv[:, : q_heads * dim]
    k = qkv[:, q_heads * dim: (q_heads + kv_heads) * dim]
    v = qkv[:, (q_heads + kv_heads) * dim: (q_heads + 2 * kv_heads) * dim]
    return q, k, v


def run_and_check(dtype, page_size, neox, rot_dim, dim=128, q_heads=8, kv_heads=2, tokens=37,
                  layout="nhd", extra_cols=0, cache_dtype=torch.float32, positions_dtype=torch.long):
    pages = (tokens + page_size - 1) // page_size + 3
    kc = pool(pages, page_size, kv_heads, dim, dtype, layout)
    vc = pool(pages, page_size, kv_heads, dim, dtype, layout)
    slots = torch.randperm(pages * page_size, device=DEV)[:tokens]
    positions = torch.randint(0, 4096, (tokens,), device=DEV).to(positions_dtype)
    cos_sin = lk.rope_cos_sin_cache(4096, rot_dim, dtype=cache_dtype, device=DEV)
    q, k, v = inputs(tokens, q_heads, kv_heads, dim, dtype, extra_cols)
    k0, v0 = k.clone(), v.clone()
    q_ref, k_ref = lk.rope(positions, q, k, dim, cos_sin, neox)
    lk.rope_paged_append(positions, q, k, v, dim, cos_sin, neox, kc, vc, slots)
    what = f"{dtype} pages of {page_size} neox={neox} rot {rot_dim}/{dim} {layout} +{extra_cols}"
    assert torch.equal(q, q_ref), f"{what}: query differs from rope()"
    assert torch.equal(k, k0) and torch.equal(v, v0), f"{what}: key or value was changed"
    assert torch.equal(rows(kc, slots), k_ref.view(tokens, kv_heads, dim)), f"{what}: cached keys"
    assert torch.equal(rows(vc, slots), v0.view(tokens, kv_heads, dim)), f"{what}: cached values"
    written = torch.zeros(pages * page_size, dtype=torch.bool, device=DEV)
    written[slots] = True
    for c in (kc, vc):  # every other row untouched
        flat = torch.stack([c[s // page_size, s % page_size] for s in range(pages * page_size)])
        assert torch.isnan(flat[~written]).all(), f"{what}: a row outside the slots was written"
    return q, kc, vc, slots


# --------------------------------------------------------------- correctness --
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("page_size", [1, 16, 64])
@pytest.mark.parametrize("neox", [True, False])
def test_append_matches_rope_and_scatter(dtype, page_size, neox):
    for rot_dim in (128, 64):  # full and partial rotary
        run_and_check(dtype, page_size, neox, rot_dim)


@pytest.mark.parametrize("dtype", DTYPES)
def test_append_layouts(dtype):
    """HND pool views, a token stride off the 16-byte grid (scalar path), a
    cos/sin cache in the input's dtype, int32 positions, head_size 64 and
    MHA (as many KV heads as query heads), a rot_dim that is no multiple of
    two vectors."""
    run_and_check(dtype, 16, True, 128, layout="hnd")
    run_and_check(dtype, 16, False, 128, extra_cols=2)
    run_and_check(dtype, 64, True, 128, cache_dtype=dtype, positions_dtype=torch.int32)
    run_and_check(dtype, 16, True, 64, dim=64, q_heads=4, kv_heads=4)
    run_and_check(dtype, 16, True, 72, dim=80, q_heads=4, kv_heads=1)


def test_append_vllm_pool():
    """vLLM's pool kv_cache [2, num_blocks, block_size, kv_heads, head_size]
    passes as its two strided halves."""
    dtype = torch.bfloat16
    kv = torch.full((2, 6, 16, 2, 128), NAN, dtype=dtype, device=DEV)
    slots = torch.tensor([3, 40, 95], device=DEV)
    positions = torch.tensor([3, 9, 100], device=DEV)
    cos_sin = lk.rope_cos_sin_cache(128, 128, device=DEV)
    q, k, v = inputs(3, 8, 2, 128, dtype)
    _, k_ref = lk.rope(positions, q, k, 128, cos_sin, True)
    lk.rope_paged_append(positions, q, k, v, 128, cos_sin, True, kv[0], kv[1], slots)
    assert torch.equal(rows(kv[0], slots), k_ref.view(3, 2, 128))
    assert torch.equal(rows(kv[1], slots), v.reshape(3, 2, 128))


def test_append_float64():
    """Against RoPE computed in float64 from the formula, not from rope()."""
    dtype, dim, rot = torch.bfloat16, 128, 128
    tokens, page_size = 19, 16
    kc, vc = pool(4, page_size, 2, dim, dtype), pool(4, page_size, 2, dim, dtype)
    slots = torch.randperm(64, device=DEV)[:tokens]
    positions = torch.randint(0, 2048, (tokens,), device=DEV)
    cos_sin = lk.rope_cos_sin_cache(2048, rot, device=DEV)
    q, k, v = inputs(tokens, 8, 2, dim, dtype)
    q0, k0 = q.clone(), k.clone()

    def rotate(x, heads):
        x = x.double().view(tokens, heads, dim)
        c = cos_sin[positions, : rot // 2].double()[:, None]
        s = cos_sin[positions, rot // 2:].double()[:, None]
        a, b = x[..., : rot // 2], x[..., rot // 2:]
        return torch.cat((a * c - b * s, b * c + a * s), -1)

    lk.rope_paged_append(positions, q, k, v, dim, cos_sin, True, kc, vc, slots)
    check(q.view(tokens, 8, dim), rotate(q0, 8), dtype, "query")
    check(rows(kc, slots), rotate(k0, 2), dtype, "cached keys")


def test_append_padding_and_slots_outside_the_pool():
    """A negative slot: not written, the query still rotated. A slot at or
    past the pool: not written, that token's query NaN, the others exact."""
    dtype, dim = torch.float16, 64
    kc, vc = pool(2, 16, 1, dim, dtype), pool(2, 16, 1, dim, dtype)
    slots = torch.tensor([5, -1, 32, 1 << 62, 31], device=DEV)
    positions = torch.arange(5, device=DEV) * 7
    cos_sin = lk.rope_cos_sin_cache(64, dim, device=DEV)
    q, k, v = inputs(5, 4, 1, dim, dtype)
    q_ref, k_ref = lk.rope(positions, q, k, dim, cos_sin, True)
    lk.rope_paged_append(positions, q, k, v, dim, cos_sin, True, kc, vc, slots)
    for t in (0, 1, 4):
        assert torch.equal(q[t], q_ref[t]), f"token {t}: query not rotated"
    for t in (2, 3):
        assert torch.isnan(q[t].view(4, dim)[:, :dim]).all(), f"token {t}: slot outside the pool, query not NaN"
    written = {5: 0, 31: 4}
    for s in range(32):
        got = kc[s // 16, s % 16]
        if s in written:
            assert torch.equal(got, k_ref[written[s]].view(1, dim))
            assert torch.equal(vc[s // 16, s % 16], v[written[s]].view(1, dim))
        else:
            assert torch.isnan(got).all() and torch.isnan(vc[s // 16, s % 16]).all(), f"slot {s} written"


def test_paged_slot_mapping():
    table = torch.tensor([[7, 2, -1], [4, 0, 9]], dtype=torch.int32, device=DEV)
    positions = torch.tensor([0, 17, 33, 20, 47, 48, -1, 5], device=DEV)
    seq_ids = torch.tensor([0, 0, 0, 1, 1, 1, 1, -1], device=DEV)
    got = lk.paged_slot_mapping(table, positions, 16, seq_ids)
    past = 1 << 62
    assert got.dtype == torch.long
    assert got.tolist() == [7 * 16, 2 * 16 + 1, past, 0 * 16 + 4, 9 * 16 + 15, past, past, -1]
    # one decode step: token b of sequence b
    assert lk.paged_slot_mapping(table, torch.tensor([3, 16], device=DEV), 16).tolist() == [115, 0]
    # a sequence index past the table's rows, and an empty table
    assert lk.paged_slot_mapping(table, torch.tensor([1], device=DEV), 16,
                                 torch.tensor([2], device=DEV)).tolist() == [past]
    empty = torch.empty(2, 0, dtype=torch.int32, device=DEV)
    assert lk.paged_slot_mapping(empty, torch.tensor([0, 1], device=DEV), 16).tolist() == [past, past]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("page_size", [16, 64])
def test_decode_step_reads_what_was_appended(dtype, page_size):
    """Prompts written by the op as chunks (several tokens a sequence), then
    one decode step: attention_decode over the pool equals float64 attention
    of the rotated query over the rotated keys."""
    dim, q_heads, kv_heads = 128, 8, 2
    lengths = [5, 70, 130]
    batch, width = len(lengths), (max(lengths) + page_size) // page_size  # room for one more token
    pages = batch * width + 2
    kc, vc = pool(pages, page_size, kv_heads, dim, dtype), pool(pages, page_size, kv_heads, dim, dtype)
    table = torch.randperm(pages, device=DEV)[: batch * width].view(batch, width).to(torch.int32)
    cos_sin = lk.rope_cos_sin_cache(width * page_size, dim, device=DEV)
    seq_ids = torch.cat([torch.full((n,), i, device=DEV) for i, n in enumerate(lengths)])
    positions = torch.cat([torch.arange(n, device=DEV) for n in lengths])
    q, k, v = inputs(len(positions), q_heads, kv_heads, dim, dtype)
    _, k_rot = lk.rope(positions, q, k, dim, cos_sin, True)
    slots = lk.paged_slot_mapping(table, positions, page_size, seq_ids)
    lk.rope_paged_append(positions, q, k, v, dim, cos_sin, True, kc, vc, slots)
    # the decode step: one token a sequence, at position n
    n = torch.tensor(lengths, dtype=torch.int32, device=DEV)
    qs, ks, vs = inputs(batch, q_heads, kv_heads, dim, dtype)
    qs0, ks0 = qs.clone(), ks.clone()
    step_slots = lk.paged_slot_mapping(table, n, page_size)
    lk.rope_paged_append(n, qs, ks, vs, dim, cos_sin, True, kc, vc, step_slots)
    q_step, k_step = lk.rope(n, qs0, ks0, dim, cos_sin, True)
    assert torch.equal(qs, q_step)
    out = lk.attention_decode(qs.view(batch, 1, q_heads, dim).transpose(1, 2), kc, vc, n + 1,
                              block_table=table)
    # the same cache, contiguous: [batch, kv_heads, max_len, dim]
    longest = max(lengths) + 1
    kk = torch.zeros(batch, kv_heads, longest, dim, dtype=dtype, device=DEV)
    vv = torch.zeros_like(kk)
    at = 0
    for i, m in enumerate(lengths):
        kk[i, :, :m] = k_rot[at: at + m].view(m, kv_heads, dim).transpose(0, 1)
        vv[i, :, :m] = v[at: at + m].reshape(m, kv_heads, dim).transpose(0, 1)
        kk[i, :, m] = k_step[i].view(kv_heads, dim)
        vv[i, :, m] = vs[i].view(kv_heads, dim)
        at += m
    ref, _ = reference(q_step.view(batch, 1, q_heads, dim).transpose(1, 2), kk, vv, (n + 1).cpu())
    check(out, ref.to(out.device), dtype, f"decode after append, pages of {page_size}")


# ------------------------------------------------------------------ refusals --
def test_append_rejects():
    dtype, dim = torch.bfloat16, 64
    kc, vc = pool(2, 16, 2, dim, dtype), pool(2, 16, 2, dim, dtype)
    pos = torch.arange(3, device=DEV)
    cs = lk.rope_cos_sin_cache(16, dim, device=DEV)
    q, k, v = inputs(3, 4, 2, dim, dtype)
    slots = torch.tensor([0, 1, 2], device=DEV)
    ok = dict(positions=pos, query=q, key=k, value=v, head_size=dim, cos_sin_cache=cs, is_neox=True,
              k_cache=kc, v_cache=vc, slot_mapping=slots)
    cases = [
        (dict(slot_mapping=slots.int()), "slot_mapping has dtype Int; it must be int64"),
        (dict(slot_mapping=slots[:2]), r"slot_mapping must be \[tokens\] = \[3\]"),
        (dict(slot_mapping=slots.cpu()), "slot_mapping must be a CUDA tensor"),
        (dict(k_cache=kc[..., :32]), r"k_cache must be \[num_pages, page_size, kv_heads = 2, head_size = 64\]"),
        (dict(v_cache=vc[:, :, :1]), r"v_cache must be \[num_pages, page_size, kv_heads = 2"),
        (dict(v_cache=vc[:1]), "must have one shape"),
        (dict(k_cache=kc.half()), "k_cache has dtype Half but the input has BFloat16"),
        (dict(k_cache=pool(2, 16, 2, 2 * dim, dtype)[..., ::2]), "k_cache must be contiguous in its last dimension"),
        (dict(value=v[:, :dim]), "value has 1 heads but key has 2"),
        (dict(value=v.half()), "value has dtype Half"),
        (dict(query=q.float(), key=k.float(), value=v.float(), k_cache=kc.float(), v_cache=vc.float()),
         "query is float32; the paged cache is float16 or bfloat16"),
        (dict(positions=pos[:2]), "query has 3 tokens but positions has 2"),
        (dict(cos_sin_cache=cs[:, :3].contiguous()), r"cos_sin_cache width \(rot_dim\) must be even"),
    ]
    for change, pattern in cases:
        args = dict(ok, **change)
        with pytest.raises(RuntimeError, match=pattern):
            lk.rope_paged_append(**args)
    assert torch.isnan(kc).all() and torch.isnan(vc).all(), "a refused call wrote to the pool"


# ------------------------------------------------- compile, graphs, opcheck --
def test_append_cuda_graph():
    """Positions and slots change between replays; the graph does not."""
    dtype, dim = torch.bfloat16, 128
    kc, vc = pool(8, 16, 2, dim, dtype), pool(8, 16, 2, dim, dtype)
    cs = lk.rope_cos_sin_cache(128, dim, device=DEV)
    q, k, v = inputs(4, 8, 2, dim, dtype)
    q_in = q.clone()
    pos = torch.zeros(4, dtype=torch.long, device=DEV)
    slots = torch.zeros(4, dtype=torch.long, device=DEV)
    lk.rope_paged_append(pos, q, k, v, dim, cs, True, kc, vc, slots)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        lk.rope_paged_append(pos, q, k, v, dim, cs, True, kc, vc, slots)
    for step in range(3):
        pos.copy_(torch.tensor([step, 10 + step, 20 + step, 30 + step]))
        slots.copy_(torch.tensor([step, 40 + step, 80 + step, 120 + step]))
        q.copy_(q_in)
        g.replay()
        q_ref, k_ref = lk.rope(pos, q_in, k, dim, cs, True)
        assert torch.equal(q, q_ref), f"replay {step}: query"
        assert torch.equal(rows(kc, slots), k_ref.view(4, 2, dim)), f"replay {step}: keys"


def test_append_under_torch_compile():
    dtype, dim = torch.float16, 64
    cs = lk.rope_cos_sin_cache(64, dim, device=DEV)
    pos = torch.arange(6, device=DEV)
    slots = torch.tensor([9, 3, 0, 30, 17, 4], device=DEV)
    q, k, v = inputs(6, 4, 2, dim, dtype)

    def f(q, k, v, kc, vc):
        q = q * 1.0  # a producer, so the in-place rotation of a temporary is traced
        lk.rope_paged_append(pos, q, k, v, dim, cs, True, kc, vc, slots)
        return q.float() * 2.0

    eager_pools = (pool(2, 16, 2, dim, dtype), pool(2, 16, 2, dim, dtype))
    comp_pools = (pool(2, 16, 2, dim, dtype), pool(2, 16, 2, dim, dtype))
    eager = f(q, k, v, *eager_pools)
    compiled = torch.compile(f, fullgraph=True)(q, k, v, *comp_pools)
    assert torch.equal(eager, compiled), "torch.compile changed the query"
    for a, b in zip(eager_pools, comp_pools):
        assert torch.equal(a.nan_to_num(7.0), b.nan_to_num(7.0)), "torch.compile changed the pool"


def test_append_opcheck():
    dtype, dim = torch.bfloat16, 64
    kc = torch.zeros(2, 16, 2, dim, dtype=dtype, device=DEV)
    vc = torch.zeros_like(kc)
    cs = lk.rope_cos_sin_cache(16, dim, device=DEV)
    q, k, v = (x.contiguous() for x in inputs(3, 4, 2, dim, dtype))
    args = (torch.arange(3, device=DEV), q, k, v, dim, cs, True, kc, vc, torch.tensor([1, 7, 20], device=DEV))
    torch.library.opcheck(lk.ops.rope_paged_append.default, args)

"""GPU tests for attention_decode over a paged KV cache (block_table).

A contiguous cache is scattered into a shuffled page pool; the paged call
is checked against the float64 reference of test_attention_decode.py (with
the output poisoned first) and bit for bit against the contiguous kernel
at the same forced split count. Needs a CUDA GPU and a build of
lit_kernels.
"""

import itertools

import pytest
import torch

from lit_testing import check, lit_or_none, poison_next, rand
from test_attention_decode import check_lse, reference

lk = lit_or_none()  # None: no build here, and every test skips

pytestmark = pytest.mark.skipif(not torch.cuda.is_available() or lk is None,
                                reason="needs a CUDA GPU and a build of lit_kernels")

DEV = "cuda"
DTYPES = [torch.bfloat16, torch.float16]
NAN = float("nan")


def paged(k, v, page_size, spare=3, seed=0):
    """k, v [b, h, n, d] (n a multiple of page_size) scattered into a shuffled
    pool [pages, page_size, h, d] with `spare` pages no sequence owns (NaN);
    returns (k_pool, v_pool, block_table int32 [b, n / page_size])."""
    b, h, n, d = k.shape
    per_seq = n // page_size
    total = b * per_seq + spare
    g = torch.Generator().manual_seed(seed)
    order = torch.randperm(total, generator=g)[: b * per_seq].to(k.device)
    pools = []
    for x in (k, v):
        pool = torch.full((total, page_size, h, d), NAN, dtype=x.dtype, device=x.device)
        pool[order] = x.view(b, h, per_seq, page_size, d).permute(0, 2, 3, 1, 4).reshape(-1, page_size, h, d)
        pools.append(pool)
    return pools[0], pools[1], order.view(b, per_seq).to(torch.int32)


def make(batch, q_heads, kv_heads, seq_q, dim, max_seq, dtype, lengths):
    q = rand((batch, q_heads, seq_q, dim), dtype)
    k = rand((batch, kv_heads, max_seq, dim), dtype)
    v = rand((batch, kv_heads, max_seq, dim), dtype)
    for i, m in enumerate(lengths):  # past each length: NaN, which must never be read
        k[i, :, max(m, 0):] = NAN
        v[i, :, max(m, 0):] = NAN
    n = torch.tensor(lengths, dtype=torch.int32, device=DEV)
    return q, k, v, n


def padded(max_len, page_size):
    return (max_len + page_size - 1) // page_size * page_size


def check_paged(q, k, v, n, page_size, dtype, what, table_fill=None):
    """The paged call against the float64 reference of the contiguous cache;
    entries past each sequence's pages set to table_fill when given."""
    kp, vp, table = paged(k, v, page_size)
    if table_fill is not None:
        for i, m in enumerate(n.tolist()):
            table[i, (max(m, 0) + page_size - 1) // page_size:] = table_fill
    poison_next(q.shape, dtype)
    out, lse = lk.attention_decode(q, kp, vp, n, return_lse=True, block_table=table)
    ref, ref_lse = reference(q, k, v, n.cpu())
    check(out, ref.to(out.device), dtype, what)
    check_lse(lse, ref_lse, what)
    return kp, vp, table


# --------------------------------------------------------------- correctness --
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [64, 128])
@pytest.mark.parametrize("page_size", [1, 16, 64, 256])
def test_paged_ragged(dtype, dim, page_size):
    lengths = [0, 1, 63, 777, 1300]
    for q_heads, kv_heads, seq_q in ((8, 8, 1), (16, 4, 4), (32, 4, 1)):
        q, k, v, n = make(5, q_heads, kv_heads, seq_q, dim, padded(1300, page_size), dtype, lengths)
        check_paged(q, k, v, n, page_size, dtype,
                    f"{dtype} d{dim} pages of {page_size}, {q_heads}/{kv_heads} heads, seq_q {seq_q}",
                    table_fill=-1)


@pytest.mark.parametrize("fold", [1, 2])
@pytest.mark.parametrize("splits", [1, 2, 3, 7, 16])
def test_paged_equals_contiguous(splits, fold):
    """The same split count reads the same keys in the same order: equal bits."""
    dtype = torch.bfloat16
    q, k, v, n = make(3, 32, 8, 1, 128, 2048, dtype, [2048, 1000, 5])
    kp, vp, table = paged(k, v, 16)
    lk.ops._attention_decode_tuning(splits, 0, fold)
    try:
        a = lk.attention_decode(q, k, v, n, return_lse=True)
        b = lk.attention_decode(q, kp, vp, n, return_lse=True, block_table=table)
    finally:
        lk.ops._attention_decode_tuning(0, 0)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]), f"{splits} splits: paged differs from contiguous"


def test_paged_shared_prefix():
    """Three sequences share their first four pages (a common prompt)."""
    dtype = torch.float16
    ps = 16
    q, k, v, n = make(3, 8, 2, 2, 128, 256, dtype, [256, 100, 64])
    k[1:, :, : 4 * ps] = k[0, :, : 4 * ps]
    v[1:, :, : 4 * ps] = v[0, :, : 4 * ps]
    kp, vp, table = paged(k, v, ps)
    table[1:, :4] = table[0, :4]  # the copies' own pages are now owned by no one
    poison_next(q.shape, dtype)
    out = lk.attention_decode(q, kp, vp, n, block_table=table)
    ref, _ = reference(q, k, v, n.cpu())
    check(out, ref.to(out.device), dtype, "shared prefix")


def test_paged_layout_views():
    """FlashInfer's HND pool through a transposed view, and the 5-D NHD pool
    [pages, 2, page_size, h, d] through strided views of K and V."""
    dtype = torch.bfloat16
    ps = 64
    q, k, v, n = make(2, 16, 4, 1, 128, 512, dtype, [512, 300])
    kp, vp, table = paged(k, v, ps)
    hnd_k, hnd_v = kp.transpose(1, 2).contiguous(), vp.transpose(1, 2).contiguous()  # [pages, h, ps, d]
    ref, _ = reference(q, k, v, n.cpu())
    poison_next(q.shape, dtype)
    out = lk.attention_decode(q, hnd_k.transpose(1, 2), hnd_v.transpose(1, 2), n, block_table=table)
    check(out, ref.to(out.device), dtype, "HND view")
    pool = torch.stack([kp, vp], dim=1)  # [pages, 2, ps, h, d]
    poison_next(q.shape, dtype)
    out = lk.attention_decode(q, pool[:, 0], pool[:, 1], n, block_table=table)
    check(out, ref.to(out.device), dtype, "5-D NHD views")


@pytest.mark.parametrize("fold", [1, 2])
def test_paged_bad_entry_in_the_only_split_with_keys(fold):
    """A short sequence whose every key sits in the first of 4 splits, its
    one page out of the pool: the other splits are empty (-inf) and the
    poison must still reach the row, whichever kernel merges the splits."""
    dtype = torch.bfloat16
    q, k, v, n = make(2, 8, 2, 1, 128, 512, dtype, [512, 10])
    kp, vp, table = paged(k, v, 16)
    table[1, 0] = kp.shape[0]
    lk.ops._attention_decode_tuning(4, 0, fold)
    try:
        out, lse = lk.attention_decode(q, kp, vp, n, return_lse=True, block_table=table)
    finally:
        lk.ops._attention_decode_tuning(0, 0)
    assert torch.isnan(out[1]).all() and torch.isnan(lse[1]).all(), f"fold {fold}: the bad page did not poison"
    ref, _ = reference(q, k, v, n.cpu())
    check(out[:1], ref[:1].to(out.device), dtype, "the other sequence")


@pytest.mark.parametrize("splits", [1, 3])
def test_paged_bad_entry_poisons_its_sequence(splits):
    dtype = torch.bfloat16
    ps = 16
    q, k, v, n = make(3, 8, 2, 1, 64, 512, dtype, [512, 400, 200])
    kp, vp, table = paged(k, v, ps)
    table[1, 5] = kp.shape[0]  # one past the pool, inside sequence 1's length
    table[2, 20] = -7          # past sequence 2's length: never read
    lk.ops._attention_decode_tuning(splits, 0)
    try:
        out, lse = lk.attention_decode(q, kp, vp, n, return_lse=True, block_table=table)
    finally:
        lk.ops._attention_decode_tuning(0, 0)
    assert torch.isnan(out[1]).all() and torch.isnan(lse[1]).all(), "a bad entry did not poison its sequence"
    ref, _ = reference(q, k, v, n.cpu())
    check(out[[0, 2]], ref[[0, 2]].to(out.device), dtype, "the other sequences")
    table[1, 5] = -1
    out = lk.attention_decode(q, kp, vp, n, block_table=table)
    assert torch.isnan(out[1]).all(), "a negative entry did not poison its sequence"


def test_paged_lengths_clamped_and_empty():
    dtype = torch.bfloat16
    q, k, v, n = make(2, 4, 2, 1, 128, 128, dtype, [1000, -3])
    kp, vp, table = paged(k, v, 64)
    out = lk.attention_decode(q, kp, vp, n, block_table=table)
    ref, _ = reference(q, k, v, torch.tensor([128, 0]))
    check(out, ref.to(out.device), dtype, "clamped to the table's width")
    empty = torch.empty(2, 0, dtype=torch.int32, device=DEV)
    out = lk.attention_decode(q, kp, vp, n, block_table=empty)
    assert torch.equal(out, torch.zeros_like(out)), "an empty table must give zeros"


def test_paged_table_from_page_list():
    """paged_table turns FlashInfer's CSR page list into the padded table."""
    indptr = torch.tensor([0, 3, 3, 5], dtype=torch.int32, device=DEV)
    indices = torch.tensor([7, 2, 9, 4, 0], dtype=torch.int32, device=DEV)
    last = torch.tensor([5, 0, 16], dtype=torch.int32, device=DEV)
    table, lengths = lk.paged_table(indptr, indices, last, 16, 4)
    assert table.dtype == torch.int32 and lengths.dtype == torch.int32
    assert table.tolist() == [[7, 2, 9, -1], [-1, -1, -1, -1], [4, 0, -1, -1]]
    assert lengths.tolist() == [37, 0, 32]
    # and it drives the op: pages 7, 2, 9 hold sequence 0's positions
    dtype = torch.float16
    q, k, v, _ = make(3, 4, 1, 1, 64, 64, dtype, [0, 0, 0])
    kp = rand((10, 16, 1, 64), dtype)
    vp = rand((10, 16, 1, 64), dtype)
    out = lk.attention_decode(q, kp, vp, lengths, block_table=table)
    kc = kp[table[0, :3].long()].reshape(1, 48, 1, 64).transpose(1, 2)
    vc = vp[table[0, :3].long()].reshape(1, 48, 1, 64).transpose(1, 2)
    ref, _ = reference(q[:1], kc, vc, torch.tensor([37]))
    check(out[:1], ref.to(out.device), dtype, "paged_table's table")


def test_paged_rejects():
    dtype = torch.bfloat16
    q, k, v, n = make(2, 8, 2, 1, 128, 64, dtype, [10, 20])
    kp, vp, table = paged(k, v, 16)
    cases = [
        ((q, kp, vp, n, table.long()), "block_table has dtype Long; it must be int32"),
        ((q, kp, vp, n, table.cpu()), "block_table must be a CUDA tensor"),
        ((q, kp, vp, n, table[0]), r"block_table must be \[batch, pages_per_seq\]"),
        ((q, kp, vp, n, table[:1]), r"block_table must be \[batch, pages_per_seq\]"),
        ((q, kp, vp, n, table.t().contiguous().t()), "block_table's rows must be contiguous"),
        ((q, kp[:, :12], vp[:, :12], n, table), "it must be a power of two"),
        ((q, kp, vp[:, :8], n, table), "they must have the same shape"),
        ((q, kp[..., :64], vp[..., :64], n, table), "with q's head_dim"),
        ((q, kp[0], vp[0], n, table), r"k_cache must be 4-D \[num_pages, page_size, kv_heads, head_dim\]"),
        ((rand((2, 5, 1, 128), dtype), kp, vp, n, table), r"q_heads \(5\) must be a multiple of kv_heads \(2\)"),
    ]
    for (qq, kk, vv, nn, tt), pattern in cases:
        with pytest.raises(RuntimeError, match=pattern):
            lk.attention_decode(qq, kk, vv, nn, block_table=tt)


# ------------------------------------------------- compile, graphs, opcheck --
def test_paged_cuda_graph():
    """The table and the lengths change between replays; the graph does not."""
    dtype = torch.float16
    q, k, v, n = make(2, 8, 2, 1, 64, 512, dtype, [512, 512])
    n.copy_(torch.tensor([10, 20], dtype=torch.int32))
    kp, vp, table = paged(k, v, 16)
    t = table.clone()
    lk.attention_decode(q, kp, vp, n, block_table=t)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = lk.attention_decode(q, kp, vp, n, block_table=t)
    swapped = table.flip(0)  # the sequences' pages exchanged
    for lengths, tab, kk, vv in (([10, 20], table, k, v), ([512, 1], table, k, v),
                                 ([300, 299], swapped, k.flip(0), v.flip(0))):
        n.copy_(torch.tensor(lengths, dtype=torch.int32))
        t.copy_(tab)
        g.replay()
        ref, _ = reference(q, kk, vv, n.cpu())
        check(out, ref.to(out.device), dtype, f"graph replay {lengths}")


def test_paged_under_torch_compile():
    dtype = torch.bfloat16
    q, k, v, n = make(2, 8, 2, 1, 128, 320, dtype, [320, 41])
    kp, vp, table = paged(k, v, 64)

    def f(q, kp, vp, n, table):
        out, lse = lk.attention_decode(q * 1.0, kp, vp, n, return_lse=True, block_table=table)
        return out.float() * 2.0, lse

    eager = f(q, kp, vp, n, table)
    compiled = torch.compile(f, fullgraph=True)(q, kp, vp, n, table)
    for e, c in zip(eager, compiled):
        assert torch.equal(e, c), "torch.compile changed the result"


def test_paged_opcheck():
    q, k, v, n = make(2, 4, 2, 1, 64, 128, torch.bfloat16, [100, 7])
    kp, vp, table = paged(k, v, 16, spare=0)
    kp, vp = kp.nan_to_num(), vp.nan_to_num()
    torch.library.opcheck(lk.ops.attention_decode.default, (q, kp, vp, n, None, True, table))


# -------------------------------------------- transformers' continuous batching --
class _FakePagedCache:
    """What transformers_paged_attention reads of transformers'
    PagedAttentionCache: one layer group, flat pools per layer."""

    def __init__(self, pools_k, pools_v, block_size):
        self.key_cache, self.value_cache, self.block_size = pools_k, pools_v, block_size
        self.layer_index_to_group_indices = {i: (0, i) for i in range(len(pools_k))}


class _Layer(torch.nn.Module):
    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx


def _packed_call(past, new, block, kv_heads, q_heads, dim, dtype, seed=0):
    """Sequences with `past` cached tokens each and `new` tokens arriving,
    their pages shuffled through a flat pool as transformers lays it out;
    returns the function's arguments and the float64 reference output."""
    g = torch.Generator().manual_seed(seed)
    pages_each = [-(-(p + n) // block) for p, n in zip(past, new)]
    pool_blocks = sum(pages_each) + 3
    order = torch.randperm(pool_blocks, generator=g).tolist()
    k_pool = torch.full((pool_blocks * block, kv_heads, dim), NAN, dtype=dtype, device=DEV)
    v_pool = torch.full_like(k_pool, NAN)
    reads, writes, qs, ks, vs, refs = [], [], [], [], [], []
    at = 0
    for p, n, pages in zip(past, new, pages_each):
        blocks = order[at: at + pages]
        at += pages
        slots = torch.tensor([blocks[t // block] * block + t % block for t in range(p + n)], device=DEV)
        k_all = rand((p + n, kv_heads, dim), dtype)
        v_all = rand((p + n, kv_heads, dim), dtype)
        k_pool[slots[:p]] = k_all[:p]  # the cache before the call
        v_pool[slots[:p]] = v_all[:p]
        reads.append(slots)
        writes.append(slots[p:])
        q = rand((n, q_heads, dim), dtype)
        qs.append(q)
        ks.append(k_all[p:])
        vs.append(v_all[p:])
        ref, _ = reference(q.transpose(0, 1)[None], k_all.transpose(0, 1)[None], v_all.transpose(0, 1)[None],
                           torch.tensor([p + n]))
        refs.append(ref[0].transpose(0, 1))  # [n, q_heads, dim]

    def cu(lengths):
        return torch.tensor([0, *itertools.accumulate(lengths)], dtype=torch.int32, device=DEV)

    kwargs = dict(cache=_FakePagedCache([k_pool], [v_pool], block), read_index=[torch.cat(reads)],
                  write_index=[torch.cat(writes)], cu_seq_lens_q=cu(new),
                  cu_seq_lens_k=cu([p + n for p, n in zip(past, new)]), max_seqlen_q=max(new),
                  max_seqlen_k=max(p + n for p, n in zip(past, new)))
    query = torch.cat(qs).transpose(0, 1)[None]  # [1, q_heads, tokens, dim]
    key = torch.cat(ks).transpose(0, 1)[None]
    value = torch.cat(vs).transpose(0, 1)[None]
    return query, key, value, kwargs, torch.cat(refs)[None], (k_pool, v_pool, torch.cat(writes),
                                                               torch.cat(ks), torch.cat(vs))


@pytest.mark.parametrize("block", [16, 64])
def test_transformers_paged_attention_decode_and_mixed(block):
    """A decode step (one token a sequence: attention_decode through the
    block table), a mixed step (prompt chunks beside decode tokens: the
    masked SDPA) and a step of whole prompts (an empty read index), each
    against float64, the new keys and values in the pool."""
    integ = lk.integrations
    dtype = torch.bfloat16
    for past, new, path in (([0, 37, 200, 15], [1, 1, 1, 1], "decode"),
                            ([0, 37, 200], [20, 1, 5], "sdpa"),
                            ([0, 0], [5, 19], "sdpa")):
        query, key, value, kwargs, ref, (kp, vp, writes, k_new, v_new) = _packed_call(
            past, new, block, 2, 8, 128, dtype)
        if not any(past):  # whole prompts only: transformers passes no read index
            kwargs["read_index"] = [kwargs["read_index"][0][:0]]
        before = integ.PAGED_CALLS[path]
        out, weights = integ.transformers_paged_attention(_Layer(0), query, key, value, None,
                                                          scaling=128 ** -0.5, **kwargs)
        assert weights is None and integ.PAGED_CALLS[path] == before + 1, f"{path}: wrong path taken"
        check(out, ref.to(out.device), dtype, f"paged|lit {path}, blocks of {block}")
        assert torch.equal(kp[writes], k_new) and torch.equal(vp[writes], v_new), f"{path}: new tokens not cached"


def test_transformers_generate_batch_runs_on_the_kernel():
    """model.generate_batch (continuous batching, pages of 16, prompts
    chunked by a 24-token budget) with attn_implementation="lit" against
    the same with "sdpa": the same greedy tokens, and the decode steps on
    attention_decode."""
    pytest.importorskip("transformers")
    import transformers
    if not hasattr(transformers, "ContinuousBatchingConfig"):
        pytest.skip("this transformers has no ContinuousBatchingConfig")
    from transformers import ContinuousBatchingConfig, GenerationConfig, LlamaConfig, LlamaForCausalLM
    name = lk.integrations.register_transformers()
    cfg = LlamaConfig(hidden_size=512, intermediate_size=1024, num_attention_heads=8, num_key_value_heads=2,
                      head_dim=64, num_hidden_layers=2, vocab_size=1000)
    torch.manual_seed(0)
    model = LlamaForCausalLM(cfg).to("cuda", torch.bfloat16).eval()
    with torch.no_grad():
        model.lm_head.weight.mul_(30.0)  # peaked logits: no near-ties for rounding to flip
    prompts = [torch.randint(0, 1000, (n,)).tolist() for n in (5, 40, 17)]
    gen = GenerationConfig(max_new_tokens=12, do_sample=False, eos_token_id=-1)
    tokens = {}
    for impl in ("sdpa", name):
        model.set_attn_implementation(impl)
        cb = ContinuousBatchingConfig(block_size=16, num_blocks=64, max_batch_tokens=24, use_cuda_graph=False)
        before = lk.integrations.PAGED_CALLS["decode"]
        out = model.generate_batch(inputs=prompts, generation_config=gen, continuous_batching_config=cb)
        tokens[impl] = [out[f"req_{i}"].generated_tokens for i in range(len(prompts))]
        if impl == name:
            assert lk.integrations.PAGED_CALLS["decode"] > before, "no decode step ran on attention_decode"
    assert tokens[name] == tokens["sdpa"], f"lit {tokens[name]} != sdpa {tokens['sdpa']}"

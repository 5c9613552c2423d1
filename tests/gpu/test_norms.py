"""RMSNorm and fused add + RMSNorm against float64 references on a GPU.

    python3 -m pytest tests/gpu/test_norms.py      (or: python3 tests/gpu/test_norms.py)
"""

import inspect
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import DTYPES, check, lit, poison, pytest, rand, requires_cuda  # noqa: E402

HIDDEN = [1, 7, 127, 128, 4095, 5120, 12288, 65536]
EPS = 1e-6


def ref_rms_norm(x, w, eps):
    x64 = x.double()
    y = x64 * torch.rsqrt(x64.pow(2).mean(-1, keepdim=True) + eps)
    return y * w.double() if w is not None else y


def rows_for(hidden):
    return [1, 3, 130] if hidden >= 12288 else [1, 3, 130, 1027]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hidden", HIDDEN)
@pytest.mark.parametrize("with_weight", [True, False])
def test_rms_norm(dtype, hidden, with_weight):
    requires_cuda()
    for rows in rows_for(hidden):
        x = rand((rows, hidden), dtype, scale=2.0, offset=0.3)
        w = rand((hidden,), dtype, offset=1.0) if with_weight else None
        y = lit().rms_norm(x, w, EPS)
        check(y, ref_rms_norm(x, w, EPS), dtype, f"rms_norm rows={rows} hidden={hidden}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hidden", HIDDEN)
@pytest.mark.parametrize("with_weight", [True, False])
def test_fused_add_rms_norm(dtype, hidden, with_weight):
    requires_cuda()
    for rows in rows_for(hidden):
        x = rand((rows, hidden), dtype)
        res = rand((rows, hidden), dtype, scale=3.0)
        w = rand((hidden,), dtype, offset=1.0) if with_weight else None
        expect_res = x + res  # eager add: fp32 sum rounded to dtype
        res_k = res.clone()
        y, r = lit().fused_add_rms_norm(x, res_k, w, EPS)
        assert r is res_k
        assert torch.equal(res_k, expect_res), f"new residual differs (rows={rows}, hidden={hidden})"
        check(y, ref_rms_norm(expect_res, w, EPS), dtype, f"fused rows={rows} hidden={hidden}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows", [1, 2, 31, 4097, 1_000_000])
@pytest.mark.parametrize("hidden", [64, 128, 256])
def test_per_head_rows(dtype, rows, hidden):
    """q_norm / k_norm shapes: many short rows, one weight of head_dim."""
    requires_cuda()
    x = rand((rows, hidden), dtype)
    w = rand((hidden,), dtype, offset=1.0)
    check(lit().rms_norm(x, w, EPS), ref_rms_norm(x, w, EPS), dtype, f"rows={rows}")
    if rows <= 4097:
        res = rand((rows, hidden), dtype)
        y, r = lit().fused_add_rms_norm(x, res.clone(), w, EPS)
        check(y, ref_rms_norm(x + res, w, EPS), dtype, f"fused rows={rows}")


@pytest.mark.parametrize("dtype", DTYPES)
def test_strided_views(dtype):
    """Per-head views of a fused QKV projection, sliced rows, offset starts."""
    requires_cuda()
    L = lit()
    tokens, heads, hd = 37, 4, 128
    qkv = rand((tokens, 3 * heads * hd), dtype)
    q = qkv[:, : heads * hd].view(tokens, heads, hd)  # rows: two strided groups
    k = qkv[:, heads * hd: 2 * heads * hd].view(tokens, heads, hd)
    w = rand((hd,), dtype, offset=1.0)
    for t in (q, k):
        y = L.rms_norm(t, w, EPS)
        assert y.is_contiguous()
        check(y, ref_rms_norm(t, w, EPS), dtype, "qkv view")
    b = rand((2, 5, 3, 64), dtype)[:, :, 1, :]  # strided rows, aligned
    check(L.rms_norm(b, None, EPS), ref_rms_norm(b, None, EPS), dtype, "slice")
    flat = rand((9 * 4096 + 1,), dtype)
    off = flat[1:].view(9, 4096)  # misaligned start: the scalar path
    check(L.rms_norm(off, w.repeat(32), EPS), ref_rms_norm(off, w.repeat(32), EPS), dtype, "offset")
    bc = rand((1, 256), dtype).expand(6, 256)  # stride-0 rows
    check(L.rms_norm(bc, None, EPS), ref_rms_norm(bc, None, EPS), dtype, "broadcast rows")


def test_poisoned_outputs_written():
    """Outputs are fresh tensors; every element must come back finite even
    when the allocator hands back memory we filled with NaN first."""
    requires_cuda()
    for shape in [(5, 4096), (1000, 128), (3, 65536), (7, 4095)]:
        for dtype in DTYPES:
            p = poison(shape, dtype)
            del p  # the caching allocator reuses this block for the output
            x = rand(shape, dtype)
            w = rand((shape[-1],), dtype, offset=1.0)
            check(lit().rms_norm(x, w, EPS), ref_rms_norm(x, w, EPS), dtype, f"poison {shape}")


def test_all_launch_configs():
    """Every (values per thread, threads per row, block) the tuning hook can
    force computes the same function."""
    requires_cuda()
    L = lit()
    try:
        for hidden in [128, 2048, 4096, 5120]:
            for dtype in DTYPES:
                x = rand((67, hidden), dtype)
                w = rand((hidden,), dtype, offset=1.0)
                res = rand((67, hidden), dtype)
                ref = ref_rms_norm(x, w, EPS)
                ref_f = ref_rms_norm(x + res, w, EPS)
                ref_nw = ref_rms_norm(x, None, EPS)
                for vpt in (1, 2, 4, 8):
                    for tpr in (0, 4, 8, 16, 32):
                        for block in (128, 256, 512):
                            L.ops._rms_norm_tuning(vpt, tpr, block)
                            tag = f"cfg {vpt}/{tpr}/{block} h={hidden}"
                            check(L.rms_norm(x, w, EPS), ref, dtype, tag)
                            check(L.rms_norm(x, None, EPS), ref_nw, dtype, "no weight " + tag)
                            y, _ = L.fused_add_rms_norm(x, res.clone(), w, EPS)
                            check(y, ref_f, dtype, "fused " + tag)
    finally:
        L.ops._rms_norm_tuning(0, 0, 0)


def test_repeatable():
    """Same inputs, same bits, every time (a moving result is a race)."""
    requires_cuda()
    for shape in [(4096, 4096), (50000, 128), (2, 65536)]:
        x = rand(shape, torch.bfloat16)
        w = rand((shape[-1],), torch.bfloat16, offset=1.0)
        first = lit().rms_norm(x, w, EPS)
        for _ in range(5):
            assert torch.equal(lit().rms_norm(x, w, EPS), first)


def test_matches_torch_rms_norm():
    requires_cuda()
    for dtype in DTYPES:
        x = rand((64, 4096), dtype)
        w = rand((4096,), dtype, offset=1.0)
        ours = lit().rms_norm(x, w, EPS)
        theirs = F.rms_norm(x.float(), (4096,), w.float(), EPS)
        check(ours, theirs, dtype, "vs F.rms_norm")


def test_empty_tensors():
    requires_cuda()
    L = lit()
    for dtype in DTYPES:
        for shape in [(0, 128), (2, 0, 64), (3, 0)]:
            x = torch.empty(shape, device="cuda", dtype=dtype)
            w = rand((shape[-1],), dtype)
            y = L.rms_norm(x, w, EPS)
            assert y.shape == x.shape and y.dtype == dtype
            assert L.rms_norm(x, None, EPS).shape == x.shape
            r = torch.empty(shape, device="cuda", dtype=dtype)
            y2, r2 = L.fused_add_rms_norm(x, r, w, EPS)
            assert y2.shape == x.shape and r2 is r


def test_rejects_bad_inputs():
    requires_cuda()
    L = lit()
    x = rand((4, 128), torch.bfloat16)
    w = rand((128,), torch.bfloat16)
    cases = [
        (lambda: L.rms_norm(x.cpu(), None, EPS), "must be a CUDA tensor"),
        (lambda: L.rms_norm(x.double(), None, EPS), "supported dtypes are"),
        (lambda: L.rms_norm(x.to(torch.int32), None, EPS), "supported dtypes are"),
        (lambda: L.rms_norm(x, w[:64], EPS), "weight must have shape"),
        (lambda: L.rms_norm(x, w.float(), EPS), "weight has dtype"),
        (lambda: L.rms_norm(x, w.cpu(), EPS), "weight must be a CUDA tensor"),
        (lambda: L.rms_norm(x, rand((2, 64), torch.bfloat16), EPS), "weight must have shape"),
        (lambda: L.rms_norm(x, rand((256,), torch.bfloat16)[::2], EPS), "weight must be contiguous"),
        (lambda: L.rms_norm(x.t(), None, EPS), "last dimension must be contiguous"),
        (lambda: L.rms_norm(rand((4, 5, 6, 8), torch.bfloat16)[:, ::2, ::2, :], None, EPS),
         "at most two strided groups"),
        (lambda: L.fused_add_rms_norm(x, rand((4, 64), torch.bfloat16), w, EPS), "residual has shape"),
        (lambda: L.fused_add_rms_norm(x, x.float().clone(), w, EPS), "residual has dtype"),
        (lambda: L.fused_add_rms_norm(x, x.cpu(), w, EPS), "residual must be a CUDA tensor"),
        (lambda: L.fused_add_rms_norm(x, rand((128, 4), torch.bfloat16).t(), w, EPS), "must be contiguous"),
    ]
    for fn, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            fn()


def test_layers():
    requires_cuda()
    L = lit()
    x = rand((3, 11, 512), torch.bfloat16)
    w = rand((512,), torch.bfloat16, offset=1.0)
    m = L.layers.RMSNorm()
    m.weight = torch.nn.Parameter(w)
    m.variance_epsilon = 1e-5
    check(m(x), ref_rms_norm(x, w, 1e-5), torch.bfloat16, "layer (transformers attrs)")
    d = L.layers.RMSNorm()
    d.weight = None
    d.eps = 1e-6
    check(d(x), ref_rms_norm(x, None, 1e-6), torch.bfloat16, "layer (diffusers attrs, no weight)")
    f = L.layers.FusedAddRMSNorm()
    f.weight = torch.nn.Parameter(w)
    f.variance_epsilon = 1e-6
    res = rand(x.shape, torch.bfloat16)
    expect = x + res
    y, r = f(x, res)
    assert torch.equal(r, expect)
    check(y, ref_rms_norm(expect, w, 1e-6), torch.bfloat16, "fused layer")


def test_layers_follow_kernels_rules():
    """HF kernels' kernelize accepts only stateless layers: no constructor,
    no members besides forward (and can_torch_compile / has_backward)."""
    L = lit()
    base = {n for n, _ in inspect.getmembers(torch.nn.Module)}
    for cls in (L.layers.RMSNorm, L.layers.FusedAddRMSNorm):
        assert cls.__init__ is torch.nn.Module.__init__
        extra = {n for n, _ in inspect.getmembers(cls)} - base
        assert extra <= {"can_torch_compile", "has_backward"}, extra


def test_torch_compile_fullgraph():
    """Every op inside one compiled graph: no graph break, same results."""
    requires_cuda()
    L = lit()
    torch._dynamo.reset()
    norm = L.layers.RMSNorm()
    norm.weight = torch.nn.Parameter(rand((256,), torch.bfloat16, offset=1.0))
    norm.variance_epsilon = 1e-6

    def f(x, res, w, wq):
        h = L.rms_norm(x, w, EPS)                                # hidden-size norm
        q = L.rms_norm(h.view(*h.shape[:-1], 8, 32), wq, EPS)   # per-head norm
        y, res = L.fused_add_rms_norm(q.flatten(-2) * 2.0, res, w, EPS)
        z = L.rms_norm(y, None, EPS)                             # no weight
        return norm(z), res, h, q, y

    x = rand((2, 33, 256), torch.bfloat16)
    res = rand((2, 33, 256), torch.bfloat16)
    w = rand((256,), torch.bfloat16, offset=1.0)
    wq = rand((32,), torch.bfloat16, offset=1.0)
    res_eager = res.clone()
    res_comp = res.clone()
    eager = f(x, res_eager, w, wq)
    compiled = torch.compile(f, fullgraph=True)
    got = compiled(x, res_comp, w, wq)
    for a, b in zip(got, eager):
        assert torch.equal(a, b)
    assert torch.equal(res_comp, res_eager), "residual mutation lost under torch.compile"
    explain = torch._dynamo.explain(f)(x, res.clone(), w, wq)
    assert explain.graph_break_count == 0, explain.break_reasons


def test_cuda_graph_capture():
    requires_cuda()
    L = lit()
    x = rand((64, 2048), torch.float16)
    w = rand((2048,), torch.float16, offset=1.0)
    y = L.rms_norm(x, w, EPS)
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        L.rms_norm(x, w, EPS)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        out = L.rms_norm(x, w, EPS)
    x.copy_(rand((64, 2048), torch.float16))
    g.replay()
    torch.cuda.synchronize()
    check(out, ref_rms_norm(x, w, EPS), torch.float16, "graph replay")
    assert not torch.equal(out, y)


def test_other_device_guard():
    requires_cuda()
    if torch.cuda.device_count() < 2:
        pytest.skip("one GPU")
    x = rand((8, 256), torch.bfloat16).to("cuda:1")
    w = rand((256,), torch.bfloat16).to("cuda:1")
    y = lit().rms_norm(x, w, EPS)
    assert y.device == x.device
    check(y, ref_rms_norm(x, w, EPS), torch.bfloat16, "cuda:1")


if __name__ == "__main__":
    from _minipytest import run_module
    sys.exit(run_module(globals(), sys.argv[1] if len(sys.argv) > 1 else None))

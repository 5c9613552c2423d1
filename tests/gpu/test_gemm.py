"""GPU tests for the tensor-core GEMM: gemm, gemm_gated, linear, gemm_path and
the GatedMLP layer, on the Hopper kernel (TMA + wgmma) and the portable one
(cp.async + mma.sync).

Every check compares with a float64 reference (the product of the inputs
upcast, then the epilogue in float64) by ||out - ref|| / ||ref|| under the
dtype's tolerance, on fresh random inputs, with the output memory poisoned
with NaN first so that an element the kernel does not write fails. Needs a
CUDA GPU and a build of lit_kernels; the Hopper cases need an H100/H200.
"""
import math


import pytest
import torch
import torch.nn.functional as F

from lit_testing import check, lit_or_none, poison_next, rand

lk = lit_or_none()  # None: no build here, and every test skips

pytestmark = pytest.mark.skipif(not torch.cuda.is_available() or lk is None,
                                reason="needs a CUDA GPU and a build of lit_kernels")

DEV = "cuda"
DTYPES = [torch.bfloat16, torch.float16]
HOPPER = torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)
BACKENDS = ["portable"] + (["hopper"] if HOPPER else [])
ACTS = {
    "none": lambda x: x,
    "gelu": lambda x: F.gelu(x),
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
}
GATED = {"swiglu": "silu", "geglu": "gelu", "geglu_tanh": "gelu_tanh"}


def randn(*shape, dtype, scale=1.0):
    return rand(shape, dtype, scale)


def reference(a, b, bias, epilogue):
    """float64 epilogue(a @ b + bias), b [K, N]."""
    y = a.double() @ b.double()
    if epilogue in GATED:
        n = b.shape[1] // 2
        g, u = y[:, :n], y[:, n:]
        if bias is not None:
            g = g + bias[:n].double()
            u = u + bias[n:].double()
        return ACTS[GATED[epilogue]](g) * u
    if bias is not None:
        y = y + bias.double()
    return ACTS[epilogue](y)


def weight_t(n, k, dtype):
    """b [K, N] as a linear layer's weight [N, K] transposed: K-major."""
    return randn(n, k, dtype=dtype, scale=1 / math.sqrt(max(k, 1))).t()


# --------------------------------------------------------------- correctness --
# Sizes of 1, 7, 4095 and 4097 in every position (one large at a time keeps
# the float64 reference fast), and K not a multiple of 32, 64 or 8.
SHAPES = [(1, 1, 1), (7, 7, 7), (1, 4097, 64), (4097, 1, 72), (7, 300, 4095), (129, 7, 4097),
          (4095, 4097, 8), (4097, 64, 4096), (64, 4095, 4096), (300, 520, 1000), (256, 512, 256)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_gemm_odd_shapes(shape, dtype, backend):
    m, n, k = shape
    a = randn(m, k, dtype=dtype)
    b = weight_t(n, k, dtype)
    # TMA needs row strides of 16 bytes; a single row has no stride to speak of
    aligned = (m == 1 or k % 8 == 0) and (n == 1 or k % 8 == 0)
    if backend == "hopper" and not aligned:
        with pytest.raises(RuntimeError, match="backend 'hopper' cannot run this call: TMA needs row strides"):
            lk.gemm(a, b, backend="hopper")
        return
    poison_next((m, n), dtype)
    out = lk.gemm(a, b, backend=backend)
    check(out, reference(a, b, None, "none"), dtype, f"{backend} {dtype} {m}x{n}x{k}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("epilogue", list(ACTS) + list(GATED))
@pytest.mark.parametrize("with_bias", [False, True])
def test_gemm_epilogues(epilogue, with_bias, dtype, backend):
    m, n, k = 333, 1000, 520  # partial tiles in M and N, K not a multiple of 64
    a = randn(m, k, dtype=dtype)
    b = weight_t(n, k, dtype)
    bias = randn(n, dtype=dtype, scale=0.5) if with_bias else None
    n_out = n // 2 if epilogue in GATED else n
    poison_next((m, n_out), dtype)
    out = lk.gemm(a, b, bias, epilogue, backend=backend)
    check(out, reference(a, b, bias, epilogue), dtype, f"{backend} {epilogue} bias={with_bias}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("activation", ["silu", "gelu", "gelu_tanh", "none"])
def test_gemm_gated_two_weights(activation, backend):
    dtype = torch.bfloat16
    m, n, k = 300, 700, 256
    a = randn(m, k, dtype=dtype)
    bg, bu = weight_t(n, k, dtype), weight_t(n, k, dtype)
    cg, cu = randn(n, dtype=dtype), randn(n, dtype=dtype)
    poison_next((m, n), dtype)
    out = lk.gemm_gated(a, bg, bu, cg, cu, activation, backend=backend)
    ref = ACTS[activation](a.double() @ bg.double() + cg.double()) * (a.double() @ bu.double() + cu.double())
    check(out, ref, dtype, f"gemm_gated {activation} {backend}")
    # the same product through gemm's concatenated form
    if activation != "none":
        name = {"silu": "swiglu", "gelu": "geglu", "gelu_tanh": "geglu_tanh"}[activation]
        cat = torch.cat([bg.t(), bu.t()]).t()  # [K, 2N], K-major
        same = lk.gemm(a, cat, torch.cat([cg, cu]), name, backend=backend)
        check(same, ref, dtype, f"gemm {name} {backend}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_gemm_strided_and_unaligned(backend):
    dtype = torch.float16
    big = randn(400, 600, dtype=dtype)
    a = big[:, 8:520]  # row stride 600, 16-byte aligned start: both kernels
    w = randn(700, 512, dtype=dtype, scale=0.05)
    out = lk.gemm(a, w.t(), backend=backend)
    check(out, a.double() @ w.double().t(), dtype, f"strided a {backend}")
    w_big = randn(700, 530, dtype=dtype, scale=0.05)
    out = lk.gemm(a, w_big[:, 5:517].t(), backend="portable")  # unaligned b rows: element-wise loads
    check(out, a.double() @ w_big[:, 5:517].double().t(), dtype, "unaligned b")
    a1 = big[:, 1:513]  # starts 2 bytes off
    if backend == "hopper":
        with pytest.raises(RuntimeError, match="16-byte boundary"):
            lk.gemm(a1, w_big[:, :512].t(), backend="hopper")
    out = lk.gemm(a1, w_big[:, :512].t())  # auto: portable
    check(out, a1.double() @ w_big[:, :512].double().t(), dtype, "unaligned a, auto")


def test_gemm_path_choice():
    dtype = torch.bfloat16
    a, b = randn(256, 512, dtype=dtype), weight_t(256, 512, dtype)
    assert lk.gemm_path(a, b) == ("hopper" if HOPPER else "portable")
    assert lk.gemm_path(randn(256, 511, dtype=dtype), weight_t(256, 511, dtype)) == "portable"


def test_gemm_k_zero_and_empty():
    dtype = torch.bfloat16
    a = torch.empty(5, 0, device=DEV, dtype=dtype)
    b = torch.empty(0, 7, device=DEV, dtype=dtype)
    bias = randn(7, dtype=dtype)
    out = lk.gemm(a, b, bias, "gelu")
    check(out, F.gelu(bias.double()).expand(5, 7), dtype, "K = 0")
    assert lk.gemm(torch.empty(0, 16, device=DEV, dtype=dtype), weight_t(9, 16, dtype)).shape == (0, 9)
    assert lk.gemm(randn(4, 16, dtype=dtype), weight_t(0, 16, dtype)).shape == (4, 0)


def test_gemm_tuning_hook_paths():
    """The Hopper kernel's cluster and tile-order choices compute the same product."""
    if not HOPPER:
        pytest.skip("needs compute capability 9.0")
    dtype = torch.bfloat16
    a, b = randn(1000, 256, dtype=dtype), weight_t(1300, 256, dtype)
    ref = reference(a, b, None, "none")
    try:
        for cluster, group in ((2, 0), (2, 3), (1, 1), (1, 16)):
            lk.ops._gemm_tuning(cluster, group)
            check(lk.gemm(a, b, backend="hopper"), ref, dtype, f"cluster {cluster} group {group}")
    finally:
        lk.ops._gemm_tuning(0, 0)
    with pytest.raises(RuntimeError, match="cluster must be"):
        lk.ops._gemm_tuning(3, 0)


def sliced_weight_operands(m, n, k, ldb, dtype):
    """A (m x k), the weight's transpose (k x n) sliced from rows ldb apart,
    and a bias of n."""
    a = randn(m, k, dtype=dtype)
    b = randn(n, ldb, dtype=dtype, scale=1 / math.sqrt(k))[:, :k].t()
    return a, b, randn(n, dtype=dtype)


@pytest.mark.parametrize("m, n, k, ldb", [(512, 520, 1000, 1000), (700, 300, 7000, 7000),
                                         (1000, 5000, 1000, 1032), (513, 264, 200, 200),
                                         (200, 1000, 1000, 1032), (128, 5000, 7000, 7000)])
def test_gemm_rows_off_the_128_byte_grid(m, n, k, ldb):
    """Weights whose rows do not start on 128-byte boundaries: with A of four
    row tiles or more the rule runs them in clusters of two sharing B, and
    on narrow tiles (here 200 and 128 rows) in pairs sharing A.
    Partial last row and column tiles, K not a multiple of 64, a weight
    that is a slice of a wider buffer, with and without a bias, and the
    same products on single CTAs forced."""
    if not HOPPER:
        pytest.skip("needs compute capability 9.0")
    dtype = torch.bfloat16
    a, b, bias = sliced_weight_operands(m, n, k, ldb, dtype)
    try:
        for cluster in (0, 1):
            lk.ops._gemm_tuning(cluster, 0)
            for bi in (None, bias):
                poison_next((m, n), dtype)
                check(lk.gemm(a, b, bias=bi), reference(a, b, bi, "none"), dtype,
                      f"{m}x{n}x{k} ldb {ldb} bias {bi is not None} cluster {cluster or 'rule'}")
    finally:
        lk.ops._gemm_tuning(0, 0)


@pytest.mark.parametrize("width", [32, 64, 128])
@pytest.mark.parametrize("m, n, k, ldb", [(128, 1024, 4096, 4096), (1000, 520, 1000, 1000), (333, 200, 1000, 1032),
                                         (4097, 520, 200, 200), (700, 300, 7000, 7000), (100, 520, 256, 256)])
def test_narrow_pairs_share_a(m, n, k, ldb, width):
    """Narrow tiles in pairs (two column tiles of the same rows, each CTA
    loading half of A's box for both), forced through the tuning hook:
    partial last row and column tiles, an odd count of column tiles (the
    pair's second tile wholly past N), K not a multiple of 64, a weight
    sliced from a wider buffer, with and without a bias. Under 128 rows a
    pair cannot halve A's box, and the forced pair runs as single CTAs."""
    if not HOPPER:
        pytest.skip("needs compute capability 9.0")
    dtype = torch.bfloat16
    a, b, bias = sliced_weight_operands(m, n, k, ldb, dtype)
    try:
        lk.ops._gemm_tuning(2, 0, 0, width)
        for bi in (None, bias):
            poison_next((m, n), dtype)
            check(lk.gemm(a, b, bias=bi, backend="hopper"), reference(a, b, bi, "none"), dtype,
                  f"{m}x{n}x{k} ldb {ldb} width {width} pairs, bias {bi is not None}")
    finally:
        lk.ops._gemm_tuning(0, 0)


# ------------------------------------------------------------- stream-K --
# Shapes whose tiles leave SMs idle (few tiles, or a wave and a bit), with
# K not a multiple of 64 and M at most 64 (the second consumer idle); each
# with whole tiles only (1), stream-K forced (2), split-K forced (3: where
# the tiles are fewer than the SMs) and the rule (0).
SK_SHAPES = [(1, 1000, 4096), (64, 1024, 4096), (100, 4096, 12288), (128, 520, 7000),
             (1000, 5000, 7000), (333, 1000, 520), (7, 7, 4096), (4097, 256, 4104), (65, 4096, 200)]


def with_stream_k(mode, fn):
    lk.ops._gemm_tuning(0, 0, mode)
    try:
        return fn()
    finally:
        lk.ops._gemm_tuning(0, 0, 0)


@pytest.mark.parametrize("mode", [1, 2, 3, 0])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SK_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_stream_k_shapes(shape, dtype, mode):
    if not HOPPER:
        pytest.skip("needs compute capability 9.0")
    m, n, k = shape
    a, b = randn(m, k, dtype=dtype), weight_t(n, k, dtype)
    poison_next((m, n), dtype)
    out = with_stream_k(mode, lambda: lk.gemm(a, b, backend="hopper"))
    check(out, reference(a, b, None, "none"), dtype, f"stream_k={mode} {m}x{n}x{k}")


@pytest.mark.parametrize("mode", [2, 3])
@pytest.mark.parametrize("epilogue", list(ACTS) + list(GATED))
def test_stream_k_epilogues(epilogue, mode):
    """The epilogue runs once, on the sum of every part."""
    if not HOPPER:
        pytest.skip("needs compute capability 9.0")
    dtype = torch.bfloat16
    m, n, k = 200, 1000, 3000
    a, b = randn(m, k, dtype=dtype), weight_t(n, k, dtype)
    bias = randn(n, dtype=dtype, scale=0.5)
    n_out = n // 2 if epilogue in GATED else n
    poison_next((m, n_out), dtype)
    out = with_stream_k(mode, lambda: lk.gemm(a, b, bias, epilogue, backend="hopper"))
    check(out, reference(a, b, bias, epilogue), dtype, f"stream_k={mode} {epilogue}")


@pytest.mark.parametrize("width", [0, 32, 64, 128, 256])
@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("shape", SK_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_tile_widths(shape, mode, width):
    """Each tile width (the rule's, and 32, 64, 128 and 256 columns forced
    through the tuning hook) under every schedule, with a bias and an
    activation; a gated product asked for a narrow width keeps 256-column
    tiles and the same result."""
    if not HOPPER:
        pytest.skip("needs compute capability 9.0")
    dtype = torch.bfloat16
    m, n, k = shape
    a, b = randn(m, k, dtype=dtype), weight_t(n, k, dtype)
    bias = randn(n, dtype=dtype, scale=0.5)
    poison_next((m, n), dtype)
    lk.ops._gemm_tuning(0, 0, mode, width)
    try:
        out = lk.gemm(a, b, bias, "gelu", backend="hopper")
        gated = lk.gemm(a, b[:, : n // 2 * 2], None, "swiglu", backend="hopper") if n >= 2 else None
    finally:
        lk.ops._gemm_tuning(0, 0, 0)
    check(out, reference(a, b, bias, "gelu"), dtype, f"tile_n={width} stream_k={mode} {m}x{n}x{k}")
    if gated is not None:
        check(gated, reference(a, b[:, : n // 2 * 2], None, "swiglu"), dtype, f"tile_n={width} gated {m}x{n}x{k}")
    with pytest.raises(RuntimeError, match="tile_n must be"):
        lk.ops._gemm_tuning(0, 0, 0, 96)


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("m", [1, 13, 64, 100])
def test_rows_past_m(m, mode):
    """A product of under 128 rows copies only its rows of A (rounded up to
    8): the rows after them in memory are never read (here NaN), and the
    shared-memory rows no copy writes (here left NaN by a product before)
    reach no stored output. Under every schedule, with a bias and a gate."""
    if not HOPPER:
        pytest.skip("needs compute capability 9.0")
    dtype = torch.bfloat16
    n, k = 1000, 4096
    b = weight_t(n, k, dtype)
    lk.gemm(torch.full((256, k), float("nan"), device="cuda", dtype=dtype), b, backend="hopper")
    big = torch.full((m + 40, k), float("nan"), device="cuda", dtype=dtype)
    big[:m] = randn(m, k, dtype=dtype)
    a = big[:m]
    bias = randn(n, dtype=dtype, scale=0.5)
    poison_next((m, n), dtype)
    lk.ops._gemm_tuning(0, 0, mode)
    try:
        out = lk.gemm(a, b, bias, "gelu", backend="hopper")
        gated = lk.gemm(a, b, None, "swiglu", backend="hopper")
    finally:
        lk.ops._gemm_tuning(0, 0, 0)
    check(out, reference(a, b, bias, "gelu"), dtype, f"stream_k={mode} M={m}")
    check(gated, reference(a, b, None, "swiglu"), dtype, f"gated stream_k={mode} M={m}")


def test_stream_k_deterministic():
    """The parts are added in k order whichever CTA arrives last: every run
    gives the same bits."""
    if not HOPPER:
        pytest.skip("needs compute capability 9.0")
    dtype = torch.bfloat16
    a, b = randn(64, 12288, dtype=dtype), weight_t(4096, 12288, dtype)
    for mode in (2, 3):
        first = with_stream_k(mode, lambda: lk.gemm(a, b, backend="hopper"))
        for _ in range(5):
            assert torch.equal(with_stream_k(mode, lambda: lk.gemm(a, b, backend="hopper")), first)
        check(first, reference(a, b, None, "none"), dtype, f"stream_k={mode} 64x4096x12288")


def test_stream_k_graph_and_two_streams():
    """The workspace comes from the caching allocator on the caller's
    stream: a CUDA graph replays with fresh counters, and two streams that
    run stream-K products at once do not share them."""
    if not HOPPER:
        pytest.skip("needs compute capability 9.0")
    dtype = torch.bfloat16
    a, b = randn(128, 4096, dtype=dtype), weight_t(1024, 4096, dtype)
    a2, b2 = randn(96, 4096, dtype=dtype), weight_t(2048, 4096, dtype)
    lk.ops._gemm_tuning(0, 0, 2)
    try:
        s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
        s1.wait_stream(torch.cuda.current_stream())
        s2.wait_stream(torch.cuda.current_stream())
        outs1, outs2 = [], []
        for _ in range(20):
            with torch.cuda.stream(s1):
                outs1.append(lk.gemm(a, b, backend="hopper"))
            with torch.cuda.stream(s2):
                outs2.append(lk.gemm(a2, b2, backend="hopper"))
        torch.cuda.synchronize()
        ref1, ref2 = reference(a, b, None, "none"), reference(a2, b2, None, "none")
        for o1, o2 in zip(outs1, outs2):
            check(o1, ref1, dtype, "stream 1")
            check(o2, ref2, dtype, "stream 2")
        g = torch.cuda.CUDAGraph()
        s1.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s1):
            lk.gemm(a, b, backend="hopper")
        torch.cuda.current_stream().wait_stream(s1)
        with torch.cuda.graph(g):
            captured = lk.gemm(a, b, backend="hopper")
        for _ in range(3):
            a.copy_(randn(128, 4096, dtype=dtype))
            g.replay()
            torch.cuda.synchronize()
            check(captured, reference(a, b, None, "none"), dtype, "graph replay")
    finally:
        lk.ops._gemm_tuning(0, 0, 0)
    with pytest.raises(RuntimeError, match="stream_k must be"):
        lk.ops._gemm_tuning(0, 0, 4)


# ------------------------------------------------------- the few-rows kernel --
# M 1-32 across its three row-block forms (8, 16, 32 rows), N not a multiple
# of its 16 columns, K multiples of 8 that are not multiples of its 128-value
# pieces or of the 8 warps' share; and either side of the rule's limits at
# 9-16 rows (rows of b on 256-byte boundaries; N <= 2 K, or N <= 3 K with
# K >= 4096).
FEW_SHAPES = [(1, 1, 8), (1, 4097, 4096), (2, 17, 24), (3, 64, 8), (7, 1000, 1000),
              (8, 4096, 4104), (9, 300, 520), (15, 33, 4096), (16, 14336, 4096),
              (17, 1000, 4096), (24, 513, 1032), (31, 4095, 256), (32, 4096, 4096),
              (4, 4096, 4096), (4, 4096, 4104), (16, 4096, 4096), (1, 14336, 4096),
              (12, 2048, 1024), (12, 2056, 1024), (12, 12288, 4096), (12, 12296, 4096),
              (12, 3072, 1024), (12, 1000, 1024), (12, 1000, 1032)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", FEW_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_few_rows_shapes(shape, dtype):
    m, n, k = shape
    a = randn(m, k, dtype=dtype)
    b = weight_t(n, k, dtype)
    poison_next((m, n), dtype)
    out = lk.gemm(a, b, backend="few_rows")
    check(out, reference(a, b, None, "none"), dtype, f"few_rows {dtype} {m}x{n}x{k}")
    # auto's rule (gemm_few_rows_preferred), restated
    preferred = m <= 8 or (m <= 16 and b.stride(1) % 128 == 0 and (n <= 2 * k or (n <= 3 * k and k >= 4096)))
    assert lk.gemm_path(a, b) == ("few_rows" if preferred else ("hopper" if HOPPER else "portable"))
    if preferred:
        assert torch.equal(lk.gemm(a, b), out)  # and the partial sums add in a fixed order


@pytest.mark.parametrize("splits", [1, 2, 4, 8])
@pytest.mark.parametrize("shape", [(1, 1024, 4096), (16, 3072, 12288), (5, 1000, 520)],
                         ids=lambda s: "x".join(map(str, s)))
def test_few_rows_splits(shape, splits):
    """Each split of K over a cluster (forced through the benchmark's hook;
    below sm_90 every split runs as 1) gives the product, the same bits
    every call."""
    m, n, k = shape
    dtype = torch.bfloat16
    a, b = randn(m, k, dtype=dtype), weight_t(n, k, dtype)
    bias = randn(n, dtype=dtype)
    try:
        lk.ops._gemm_few_rows_tuning(splits)
        out = lk.gemm(a, b, bias, "gelu", backend="few_rows")
        again = lk.gemm(a, b, bias, "gelu", backend="few_rows")
    finally:
        lk.ops._gemm_few_rows_tuning(0)
    check(out, reference(a, b, bias, "gelu"), dtype, f"few_rows splits={splits} {shape}")
    assert torch.equal(out, again)
    with pytest.raises(RuntimeError, match="splits must be"):
        lk.ops._gemm_few_rows_tuning(3)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("epilogue", list(ACTS) + list(GATED))
@pytest.mark.parametrize("with_bias", [False, True])
def test_few_rows_epilogues(epilogue, with_bias, dtype):
    m, n, k = 13, 1000, 520
    a = randn(m, k, dtype=dtype)
    b = weight_t(n, k, dtype)
    bias = randn(n, dtype=dtype, scale=0.5) if with_bias else None
    n_out = n // 2 if epilogue in GATED else n
    poison_next((m, n_out), dtype)
    out = lk.gemm(a, b, bias, epilogue, backend="few_rows")
    check(out, reference(a, b, bias, epilogue), dtype, f"few_rows {epilogue} bias={with_bias}")


def test_few_rows_gated_two_weights_and_strides():
    dtype = torch.bfloat16
    big = randn(20, 600, dtype=dtype)
    a = big[:, 8:520]  # row stride 600, 16-byte aligned start
    bg, bu = weight_t(700, 512, dtype), weight_t(700, 512, dtype)
    cg, cu = randn(700, dtype=dtype), randn(700, dtype=dtype)
    out = lk.gemm_gated(a, bg, bu, cg, cu, "silu", backend="few_rows")
    ref = F.silu(a.double() @ bg.double() + cg.double()) * (a.double() @ bu.double() + cu.double())
    check(out, ref, dtype, "few_rows gated, strided a")


def test_few_rows_refusals_and_fallback(capfd):
    dtype = torch.float16
    w = randn(700, 530, dtype=dtype, scale=0.05)
    a = randn(4, 512, dtype=dtype)
    with pytest.raises(RuntimeError, match="at most 32 rows"):
        lk.gemm(randn(33, 512, dtype=dtype), w[:, :512].t(), backend="few_rows")
    with pytest.raises(RuntimeError, match="positive multiple of 8"):
        lk.gemm(a[:, :500], w[:, :500].t(), backend="few_rows")
    unaligned = w[:, 5:517].t()  # rows start 10 bytes off a 16-byte boundary
    with pytest.raises(RuntimeError, match="16-byte pieces"):
        lk.gemm(a, unaligned, backend="few_rows")
    assert lk.gemm_path(a, unaligned) == "portable"
    capfd.readouterr()
    torch.set_warn_always(True)  # the warning is once a process; this makes it every call
    try:
        out = lk.gemm(a, unaligned)
        lk.gemm(randn(64, 512, dtype=dtype), w[:, :512].contiguous().t())
    finally:
        torch.set_warn_always(False)
    said = capfd.readouterr().err
    if HOPPER:  # the fast kernel passed over for alignment: said, not silent, and only then
        assert said.count("not the Hopper TMA + wgmma kernel: TMA needs operands") == 1, said
    else:
        assert "Hopper TMA" not in said, said
    check(out, a.double() @ unaligned.double(), dtype, "unaligned b, auto")
    assert lk.gemm_path(randn(33, 512, dtype=dtype), w[:, :512].t()) in ("hopper", "portable")


# ---------------------------------------------------------- rejected inputs --
def test_gemm_rejects():
    bf = torch.bfloat16
    a, b = randn(64, 32, dtype=bf), weight_t(48, 32, bf)
    cases = [
        (lambda: lk.gemm(a.float(), b.float()), "float16 or bfloat16"),
        (lambda: lk.gemm(a, b.half()), "b has dtype"),
        (lambda: lk.gemm(a.cpu(), b.cpu()), "CUDA tensor"),
        (lambda: lk.gemm(a, weight_t(48, 31, bf)), r"must be \[K, N\] with K = a.size\(1\)"),
        (lambda: lk.gemm(a, b.contiguous()), "b must be contiguous along K"),
        (lambda: lk.gemm(a.t(), weight_t(48, 64, bf)), "a must be contiguous along K"),
        (lambda: lk.gemm(a, b, randn(47, dtype=bf)), r"bias must have shape \[48\]"),
        (lambda: lk.gemm(a, b, randn(48, dtype=torch.float16)), "bias must be a"),
        (lambda: lk.gemm(a, weight_t(47, 32, bf), None, "swiglu"), "N must be even"),
        (lambda: lk.gemm(a, b, None, "relu"), "unknown epilogue 'relu'"),
        (lambda: lk.gemm(a, b, backend="cublas"), "unknown backend 'cublas'"),
        (lambda: lk.gemm(a[None], b), "must be 2-D"),
        (lambda: lk.gemm(a, torch.zeros(1, 48, device=DEV, dtype=bf).expand(32, 48)),
         "b must be contiguous along K"),
        (lambda: lk.gemm_gated(a, b, weight_t(40, 32, bf)), "same shape"),
        (lambda: lk.gemm_gated(a, b, b, activation="relu"), "unknown activation 'relu'"),
    ]
    for fn, pattern in cases:
        with pytest.raises(RuntimeError, match=pattern):
            fn()
    if not HOPPER:
        with pytest.raises(RuntimeError, match="backend 'hopper' cannot run this call: the Hopper kernel needs"):
            lk.gemm(a, b, backend="hopper")


# ------------------------------------------------- compile, graphs, opcheck --
def test_gemm_under_torch_compile():
    dtype = torch.bfloat16
    x = randn(3, 100, 256, dtype=dtype)
    w1 = randn(512, 256, dtype=dtype, scale=0.06)
    b1 = randn(512, dtype=dtype)
    wg, wu = randn(384, 256, dtype=dtype, scale=0.06), randn(384, 256, dtype=dtype, scale=0.06)

    def f(x):
        h = lk.linear(x, w1, b1, "gelu_tanh")
        g = lk.gemm_gated(x.reshape(-1, 256), wg.t(), wu.t(), None, None, "silu")
        return h, g

    eager = f(x)
    compiled = torch.compile(f, fullgraph=True)(x)
    for e, c in zip(eager, compiled):
        assert torch.equal(e, c), "torch.compile changed the result"


def test_gemm_cuda_graph():
    dtype = torch.float16
    a, b = randn(300, 256, dtype=dtype), weight_t(512, 256, dtype)
    out = lk.gemm(a, b, None, "silu")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        lk.gemm(a, b, None, "silu")
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        captured = lk.gemm(a, b, None, "silu")
    a.copy_(randn(300, 256, dtype=dtype))
    g.replay()
    torch.cuda.synchronize()
    check(captured, reference(a, b, None, "silu"), dtype, "graph replay on new inputs")
    assert not torch.equal(captured, out)


def test_gemm_opcheck():
    dtype = torch.bfloat16
    a, b = randn(64, 32, dtype=dtype), weight_t(48, 32, dtype)
    torch.library.opcheck(lk.ops.gemm.default, (a, b, randn(48, dtype=dtype), "gelu", "auto"))
    torch.library.opcheck(lk.ops.gemm.default, (a, b, None, "swiglu", "portable"))
    torch.library.opcheck(lk.ops.gemm_gated.default, (a, b, b, None, None, "silu", "auto"))


# ------------------------------------------------------------------- layers --
def test_linear_matches_f_linear():
    dtype = torch.bfloat16
    x = randn(2, 37, 256, dtype=dtype)
    w, bias = randn(300, 256, dtype=dtype, scale=0.06), randn(300, dtype=dtype)
    out = lk.linear(x, w, bias, "silu")
    ref = F.silu(x.double() @ w.double().t() + bias.double())
    check(out, ref, dtype, "linear")
    assert out.shape == (2, 37, 300)


@pytest.mark.parametrize("hidden_act", ["silu", "gelu_pytorch_tanh", "gelu"])
def test_gated_mlp_on_transformers(hidden_act):
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaMLP
    cfg = transformers.LlamaConfig(hidden_size=256, intermediate_size=704, hidden_act=hidden_act)
    mlp = LlamaMLP(cfg).to(DEV, torch.bfloat16)
    for p in mlp.parameters():
        p.data = randn(*p.shape, dtype=torch.bfloat16, scale=0.06)
    x = randn(3, 50, 256, dtype=torch.bfloat16)
    with torch.no_grad():
        ref = mlp.double()(x.double())
        mlp.to(torch.bfloat16)
        layer = lk.layers.GatedMLP()
        layer.gate_proj, layer.up_proj, layer.down_proj, layer.act_fn = (
            mlp.gate_proj, mlp.up_proj, mlp.down_proj, mlp.act_fn)
        out = layer(x)
    check(out, ref, torch.bfloat16, f"GatedMLP ({hidden_act}) vs LlamaMLP in float64")


def test_gated_mlp_refuses_unknown_activation():
    layer = lk.layers.GatedMLP()
    layer.act_fn = torch.nn.ReLU()
    with pytest.raises(ValueError, match="no fused epilogue for the activation ReLU"):
        layer(randn(2, 8, dtype=torch.bfloat16))

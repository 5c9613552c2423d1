"""DiT block norms (norm_modulate, gated_residual_norm_modulate and its
in-place form) against float64 references on a GPU.

    python3 -m pytest tests/gpu/test_dit_block.py      (or: python3 tests/gpu/test_dit_block.py)

Every check compares with a float64 reference by ||out - ref|| / ||ref|| on
fresh random inputs, the op's outputs landing on NaN-filled memory, so an
element the kernel does not write fails. The LTX-Video block test runs where
diffusers is importable (PYTHONPATH to its src/) and the injection script is
beside the package (kernels/scripts/ in the repository, scripts/ in a copy of
the skill's assets).
"""

import importlib.util
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import DTYPES, TOLERANCE, check, injection_script, lit, pytest, rand, requires_cuda  # noqa: E402

EPS = 1e-6
NORMS = ["layer", "rms"]


# ---------------------------------------------------------------- helpers ----
def poison_blocks(count, shape, dtype):
    """Leave `count` NaN-filled blocks of this size in the caching allocator, so
    that the op's next `count` outputs of the size land on NaN."""
    blocks = [torch.full(shape, float("nan"), dtype=dtype, device="cuda") for _ in range(count)]
    del blocks


def as_bsd(t, B, S, D):
    """A modulation tensor (any accepted shape) as float64 [B, S, D], the way
    the op reads it: 2-d forms are a row per sample."""
    t = t.double()
    if t.dim() == 1:
        t = t.view(1, 1, D)
    elif t.dim() == 2:
        t = t[:, None, :]
    return t.expand(B, S, D)


def ref_norm_modulate(x, scale, shift, norm, eps=EPS, weight=None, bias=None):
    """float64 reference; x [B, S, D] or [rows, D] (rows = samples of one token)."""
    x3 = x.double() if x.dim() == 3 else x.double()[:, None, :]
    B, S, D = x3.shape
    if norm == "layer":
        n = F.layer_norm(x3, (D,), eps=eps)
    else:
        n = x3 * torch.rsqrt(x3.pow(2).mean(-1, keepdim=True) + eps)
    if weight is not None:
        n = n * weight.double()
    if bias is not None:
        n = n + bias.double()
    y = n * (1 + as_bsd(scale, B, S, D)) + as_bsd(shift, B, S, D)
    return y if x.dim() == 3 else y[:, 0, :]


def ref_residual(residual, branch, gate):
    r3 = residual.double() if residual.dim() == 3 else residual.double()[:, None, :]
    b3 = branch.double() if branch.dim() == 3 else branch.double()[:, None, :]
    B, S, D = r3.shape
    r = r3 + (b3 * as_bsd(gate, B, S, D) if gate is not None else b3)
    return r if residual.dim() == 3 else r[:, 0, :]


def modulation(form, B, S, D, dtype, which=0):
    """scale/shift/gate in one of the forms a DiT produces. `which` picks the
    chunk of the [B, T, 6, D] forms, so scale and shift are different views
    of one tensor."""
    if form == "B1D":
        return rand((B, 1, D), dtype, scale=0.3)
    if form == "BD":
        return rand((B, D), dtype, scale=0.3)
    if form == "D":
        return rand((D,), dtype, scale=0.3)
    if form == "1D":
        return rand((1, D), dtype, scale=0.3)
    if form == "11D":
        return rand((1, 1, D), dtype, scale=0.3)
    if form == "BSD":
        return rand((B, S, D), dtype, scale=0.3)
    if form == "1SD":
        return rand((1, S, D), dtype, scale=0.3)
    if form == "chunks":  # emb.chunk(6, -1) of a [B, 1, 6 D] projection
        return rand((B, 1, 6 * D), dtype, scale=0.3)[..., which * D:(which + 1) * D]
    if form == "ada_per_sample":  # (table + temb).unbind(2) of [B, 1, 6, D]
        return rand((B, 1, 6, D), dtype, scale=0.3)[:, :, which]
    if form == "ada_per_token":  # [B, S, 6, D]: a token stride of 6 D
        return rand((B, S, 6, D), dtype, scale=0.3)[:, :, which]
    if form == "expanded":  # one row per sample, expanded over the tokens (token stride 0)
        return rand((B, 1, D), dtype, scale=0.3).expand(B, S, D)
    if form == "transposed":  # [S, B, D] storage seen as [B, S, D]: batch stride D
        return rand((S, B, D), dtype, scale=0.3).transpose(0, 1)
    raise ValueError(form)


# --------------------------------------------------------- norm_modulate ----
# (B, S, D): every launch shape of both dtype families: a warp per row with
# 2, 4 and 8 vectors a lane, a block per row with 2, 4 and 8, and the scalar
# warp and block forms (D not a multiple of the 16-byte vector).
SHAPES = [(2, 300, 2048), (1, 17, 1000), (3, 5, 64), (2, 1, 4096), (4, 9, 7), (2, 3, 8192),
          (1, 4, 5120), (2, 6, 1001), (1, 1, 1), (3, 2, 3072), (1, 3, 300), (2, 1030, 256)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("affine", ["none", "weight", "weight_bias"])
def test_norm_modulate(dtype, norm, shape, affine):
    requires_cuda()
    B, S, D = shape
    x = rand(shape, dtype, scale=2.0, offset=0.5)
    scale, shift = modulation("B1D", B, S, D, dtype), modulation("B1D", B, S, D, dtype)
    w = rand((D,), dtype, offset=1.0) if affine != "none" else None
    b = rand((D,), dtype) if affine == "weight_bias" else None
    poison_blocks(1, shape, dtype)
    y = lit().norm_modulate(x, scale, shift, norm, EPS, w, b)
    assert y.dtype == dtype and y.is_contiguous()
    check(y, ref_norm_modulate(x, scale, shift, norm, EPS, w, b), dtype, f"{norm} {shape} {affine}")


FORMS = ["B1D", "BD", "D", "1D", "11D", "BSD", "1SD", "chunks", "ada_per_sample", "ada_per_token",
         "expanded", "transposed"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("D", [2048, 1001])
def test_modulation_forms(dtype, norm, form, D):
    """Per sample, per token, broadcast, and strided views: the vector path
    (2048) and the scalar one (1001, and every chunk at an odd offset)."""
    requires_cuda()
    B, S = 3, 37
    x = rand((B, S, D), dtype, scale=1.5)
    scale = modulation(form, B, S, D, dtype, which=1)
    shift = modulation(form, B, S, D, dtype, which=0)
    poison_blocks(1, (B, S, D), dtype)
    y = lit().norm_modulate(x, scale, shift, norm)
    check(y, ref_norm_modulate(x, scale, shift, norm), dtype, f"{norm} {form} D={D}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm", NORMS)
def test_two_dim_input(dtype, norm):
    """x [rows, D]: a row of modulation per row, or one for all."""
    requires_cuda()
    x = rand((130, 1536), dtype, scale=2.0)
    for scale, shift in ((rand((130, 1536), dtype, scale=0.3), rand((130, 1536), dtype)),
                         (rand((1536,), dtype, scale=0.3), rand((1, 1536), dtype))):
        y = lit().norm_modulate(x, scale, shift, norm)
        check(y, ref_norm_modulate(x, scale, shift, norm), dtype, f"2-d {norm} {tuple(scale.shape)}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm", NORMS)
def test_misaligned_views(dtype, norm):
    """Inputs, modulation and affine parameters one element off 16-byte
    alignment: the scalar path, same results."""
    requires_cuda()
    B, S, D = 2, 33, 2048

    def off(shape):
        return rand((int(torch.tensor(shape).prod()) + 1,), dtype, scale=1.5)[1:].view(shape)

    x = off((B, S, D))
    assert x.data_ptr() % 16 != 0
    scale, shift, w, b = off((B, 1, D)), off((B, 1, D)), off((D,)), off((D,))
    y = lit().norm_modulate(x, scale, shift, norm, EPS, w, b)
    check(y, ref_norm_modulate(x, scale, shift, norm, EPS, w, b), dtype, f"misaligned {norm}")
    res, br, g = off((B, S, D)), off((B, S, D)), off((B, 1, D))
    r, y = lit().gated_residual_norm_modulate(res, br, g, scale, shift, norm)
    r_ref = ref_residual(res, br, g)
    check(r, r_ref, dtype, f"misaligned residual {norm}")
    check(y, ref_norm_modulate(r_ref.to(dtype), scale, shift, norm), dtype, f"misaligned gated {norm}")


# ------------------------------------------- gated_residual_norm_modulate ----
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("gate_form", [None, "B1D", "ada_per_sample", "ada_per_token", "D"])
@pytest.mark.parametrize("shape", [(2, 300, 2048), (1, 7, 8192), (3, 5, 5120), (2, 9, 1001),
                                   (1, 1, 7), (4, 1, 64)])
def test_gated_residual(dtype, norm, gate_form, shape):
    requires_cuda()
    B, S, D = shape
    res = rand(shape, dtype, scale=3.0, offset=0.2)
    br = rand(shape, dtype)
    gate = None if gate_form is None else modulation(gate_form, B, S, D, dtype, which=2)
    scale = modulation("ada_per_sample", B, S, D, dtype, which=1)
    shift = modulation("ada_per_sample", B, S, D, dtype, which=0)
    w = rand((D,), dtype, offset=1.0)
    poison_blocks(2, shape, dtype)
    r, y = lit().gated_residual_norm_modulate(res, br, gate, scale, shift, norm, EPS, w)
    r_ref = ref_residual(res, br, gate)
    check(r, r_ref, dtype, f"r {norm} {gate_form} {shape}")
    if gate is None:  # one fp32 add, rounded once: what PyTorch's add computes
        assert torch.equal(r, res + br), "residual + branch differs from PyTorch's add"
    # the norm reads the sum as rounded and stored
    check(y, ref_norm_modulate(r_ref.to(dtype), scale, shift, norm, EPS, w), dtype,
          f"y {norm} {gate_form} {shape}")


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("gated", [False, True])
def test_tuning_hook_forms(norm, gated):
    """Every launch form the tuning hook forces on a 2048-wide bf16 row
    (256 vectors) computes the op; a form the row does not fit (warp rows
    of two vectors a lane hold 64, the gated op has no warp form) is an
    error, not a wrong answer. The hook is reset to the rule afterwards."""
    requires_cuda()
    lk, dtype = lit(), torch.bfloat16
    B, S, D = 2, 40, 2048
    x = rand((B, S, D), dtype, scale=2.0)
    br = rand((B, S, D), dtype)
    gate = modulation("ada_per_token", B, S, D, dtype, which=2)
    scale = modulation("ada_per_sample", B, S, D, dtype, which=1)
    shift = modulation("ada_per_sample", B, S, D, dtype, which=0)
    fits = [(1, 1), (2, 1), (4, 1)] + ([] if gated else [(8, 0)])
    misfits = [(8, 0)] if gated else [(2, 0)]
    r_ref = ref_residual(x, br, gate)
    want = ref_norm_modulate(r_ref.to(dtype) if gated else x, scale, shift, norm, EPS)

    def run():
        if gated:
            return lk.gated_residual_norm_modulate(x, br, gate, scale, shift, norm, EPS)
        return (None, lk.norm_modulate(x, scale, shift, norm, EPS))
    try:
        for items, block_row in fits:
            lk.ops._norm_modulate_tuning(items, block_row)
            r, y = run()
            torch.cuda.synchronize()
            if gated:
                check(r, r_ref, dtype, f"r, form {items}/{block_row}")
            check(y, want, dtype, f"y, form {items}/{block_row}")
        for items, block_row in misfits:
            lk.ops._norm_modulate_tuning(items, block_row)
            with pytest.raises(RuntimeError):
                run()
                torch.cuda.synchronize()
    finally:
        lk.ops._norm_modulate_tuning(0, 0)
    with pytest.raises(RuntimeError):
        lk.ops._norm_modulate_tuning(3, 1)  # not 1, 2, 4 or 8


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm", NORMS)
def test_in_place(dtype, norm):
    """gated_residual_norm_modulate_ writes r over the residual, returns that
    same tensor and y, both equal to the functional op's."""
    requires_cuda()
    B, S, D = 2, 77, 2048
    res = rand((B, S, D), dtype, scale=2.0)
    br = rand((B, S, D), dtype)
    gate = modulation("ada_per_token", B, S, D, dtype, which=2)
    scale = modulation("ada_per_token", B, S, D, dtype, which=1)
    shift = modulation("ada_per_token", B, S, D, dtype, which=0)
    r_f, y_f = lit().gated_residual_norm_modulate(res, br, gate, scale, shift, norm)
    before = res.clone()
    res_in = res
    ptr = res.data_ptr()
    r_i, y_i = lit().gated_residual_norm_modulate_(res_in, br, gate, scale, shift, norm)
    assert r_i is res_in and res_in.data_ptr() == ptr
    assert torch.equal(res_in, r_f), "in-place residual differs from the functional op's"
    assert torch.equal(y_i, y_f), "in-place y differs from the functional op's"
    assert not torch.equal(res_in, before)
    check(res_in, ref_residual(before, br, gate), dtype, "in-place residual")


def test_empty():
    requires_cuda()
    bf = torch.bfloat16
    for shape in ((0, 5, 64), (2, 0, 64)):
        x = rand(shape, bf)
        sc, sh = rand((64,), bf), rand((64,), bf)
        assert lit().norm_modulate(x, sc, sh, "rms").shape == shape
        r, y = lit().gated_residual_norm_modulate(x, x.clone(), None, sc, sh, "layer")
        assert r.shape == shape and y.shape == shape


def test_repeatable():
    requires_cuda()
    x = rand((4, 100, 3072), torch.bfloat16)
    sc, sh = rand((4, 1, 3072), torch.bfloat16), rand((4, 1, 3072), torch.bfloat16)
    a = lit().norm_modulate(x, sc, sh, "layer")
    b = lit().norm_modulate(x, sc, sh, "layer")
    assert torch.equal(a, b)


def test_cuda_graph_capture():
    requires_cuda()
    bf = torch.bfloat16
    x, br = rand((2, 64, 2048), bf), rand((2, 64, 2048), bf)
    sc, sh, g = rand((2, 1, 2048), bf), rand((2, 1, 2048), bf), rand((2, 1, 2048), bf)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        lit().gated_residual_norm_modulate(x, br, g, sc, sh, "rms")
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        r, y = lit().gated_residual_norm_modulate(x, br, g, sc, sh, "rms")
    x.copy_(rand(x.shape, bf))
    graph.replay()
    torch.cuda.synchronize()
    r_ref = ref_residual(x, br, g)
    check(r, r_ref, bf, "graph r")
    check(y, ref_norm_modulate(r_ref.to(bf), sc, sh, "rms"), bf, "graph y")


# ------------------------------------------------------------- rejection ----
def _bad_cases():
    bf = torch.bfloat16
    x = rand((2, 3, 64), bf)
    m = rand((2, 1, 64), bf)
    lk = lit()
    return [
        ("cpu", lambda: lk.norm_modulate(x.cpu(), m.cpu(), m.cpu(), "rms"), "CUDA"),
        ("int dtype", lambda: lk.norm_modulate(x.to(torch.int32), m, m, "rms"), "dtype"),
        ("float64", lambda: lk.norm_modulate(x.double(), m.double(), m.double(), "rms"), "dtype"),
        ("scale dtype", lambda: lk.norm_modulate(x, m.float(), m, "rms"), "scale has dtype"),
        ("shift device", lambda: lk.norm_modulate(x, m, m.cpu(), "rms"), "shift"),
        ("scale hidden", lambda: lk.norm_modulate(x, rand((2, 1, 63), bf), m, "rms"), "scale must have shape"),
        ("scale batch", lambda: lk.norm_modulate(x, rand((3, 1, 64), bf), m, "rms"), "scale must have shape"),
        ("scale tokens", lambda: lk.norm_modulate(x, rand((2, 4, 64), bf), m, "rms"), "scale must have shape"),
        ("scale 3-d for 2-d x", lambda: lk.norm_modulate(x[0], rand((1, 1, 64), bf), m[0], "rms"),
         "scale must have shape"),
        ("scale last dim strided", lambda: lk.norm_modulate(x, rand((2, 1, 128), bf)[..., ::2], m, "rms"),
         "contiguous in its last dimension"),
        ("x not contiguous", lambda: lk.norm_modulate(rand((2, 64, 3), bf).transpose(1, 2), m, m, "rms"),
         "contiguous"),
        ("x 4-d", lambda: lk.norm_modulate(rand((2, 3, 4, 64), bf), m, m, "rms"), r"\[B, S, D\]"),
        ("unknown norm", lambda: lk.norm_modulate(x, m, m, "batch"), "norm must be"),
        ("negative eps", lambda: lk.norm_modulate(x, m, m, "rms", -1.0), "eps"),
        ("hidden too large", lambda: lk.norm_modulate(rand((1, 2, 8200), bf), rand((8200,), bf),
                                                      rand((8200,), bf), "rms"), "8192"),
        ("weight shape", lambda: lk.norm_modulate(x, m, m, "layer", EPS, rand((63,), bf)), "weight"),
        ("bias dtype", lambda: lk.norm_modulate(x, m, m, "layer", EPS, None, rand((64,), torch.float16)),
         "bias"),
        ("branch shape", lambda: lk.gated_residual_norm_modulate(x, rand((2, 4, 64), bf), None, m, m, "rms"),
         "branch has shape"),
        ("branch dtype", lambda: lk.gated_residual_norm_modulate(x, x.float(), None, m, m, "rms"),
         "branch has dtype"),
        ("branch strided", lambda: lk.gated_residual_norm_modulate(x, rand((2, 6, 64), bf)[:, ::2], None, m,
                                                                   m, "rms"), "contiguous"),
        ("gate shape", lambda: lk.gated_residual_norm_modulate(x, x, rand((2, 1, 32), bf), m, m, "rms"),
         "gate must have shape"),
        ("residual cpu", lambda: lk.gated_residual_norm_modulate(x.cpu(), x, None, m, m, "rms"), "CUDA"),
        ("in-place residual strided",
         lambda: lk.gated_residual_norm_modulate_(rand((2, 6, 64), bf)[:, ::2], x, None, m, m, "rms"),
         "contiguous"),
    ]


@pytest.mark.parametrize("idx", range(23))
def test_rejects_bad_input(idx):
    requires_cuda()
    cases = _bad_cases()
    assert len(cases) == 23
    name, fn, msg = cases[idx]
    with pytest.raises(RuntimeError, match=msg):
        fn()


def test_inference_only():
    """With grad mode on, an input that requires grad is refused (there is no
    backward); without grad mode the same call runs."""
    requires_cuda()
    bf = torch.bfloat16
    x = rand((2, 3, 64), bf).requires_grad_()
    m = rand((2, 1, 64), bf)
    with pytest.raises(RuntimeError, match="inference-only"):
        lit().norm_modulate(x, m, m, "rms")
    with pytest.raises(RuntimeError, match="inference-only"):
        lit().gated_residual_norm_modulate(x.detach(), x.detach(), m.requires_grad_(), m.detach(),
                                           m.detach(), "rms")
    with torch.no_grad():
        y = lit().norm_modulate(x, m, m, "rms")
    check(y, ref_norm_modulate(x.detach(), m.detach(), m.detach(), "rms"), bf, "no_grad")
    with torch.inference_mode():
        lit().norm_modulate(x.detach(), m.detach(), m.detach(), "layer")


# --------------------------------------------------------- torch.compile ----
def test_torch_compile_fullgraph():
    """The three ops inside one compiled graph with ops around them: no graph
    break, the same results as eager, the in-place residual written back."""
    requires_cuda()
    torch._dynamo.reset()
    lk = lit()
    bf = torch.bfloat16

    def f(x, h, a, ada, w):
        shift, scale, gate = ada.unbind(2)[:3]
        y1 = lk.norm_modulate(x * 2, scale, shift, "rms", 1e-6, w)
        r, y2 = lk.gated_residual_norm_modulate(h, a, gate, scale, shift, "layer", 1e-6)
        h2 = h * 0.5
        _, y3 = lk.gated_residual_norm_modulate_(h2, a, None, scale, shift, "rms", 1e-6)
        return y1 + 1, r * 2, y2 - 1, h2 + 0, y3

    args = (rand((2, 40, 1024), bf), rand((2, 40, 1024), bf), rand((2, 40, 1024), bf),
            rand((2, 40, 6, 1024), bf, scale=0.3), rand((1024,), bf, offset=1.0))
    eager = f(*[a.clone() for a in args])
    compiled = torch.compile(f, fullgraph=True)(*[a.clone() for a in args])
    for i, (c, e) in enumerate(zip(compiled, eager)):
        check(c, e.double(), bf, f"compiled output {i}")

    def g(h, a, ada):
        shift, scale = ada[:, :, 0], ada[:, :, 1]
        return lk.gated_residual_norm_modulate_(h, a, None, scale, shift, "rms")[1] * 3

    h_e, h_c = args[1].clone(), args[1].clone()
    ye = g(h_e, args[2], args[3])
    yc = torch.compile(g, fullgraph=True)(h_c, args[2], args[3])
    assert torch.equal(h_c, h_e), "in-place residual of a graph input lost under torch.compile"
    check(yc, ye.double(), bf, "compiled in-place y")


def _opcheck_cases():
    bf = torch.bfloat16
    ops = torch.ops._lit_kernels
    x, a = rand((2, 5, 64), bf), rand((2, 5, 64), bf)
    ada = rand((2, 5, 6, 64), bf, scale=0.3)
    return [
        (ops.norm_modulate.default, (x, ada[:, :1, 1], ada[:, :1, 0], None, None, "rms", 1e-6)),
        (ops.norm_modulate.default, (x, ada[:, :, 1], ada[:, :, 0], rand((64,), bf), rand((64,), bf),
                                     "layer", 1e-5)),
        (ops.gated_residual_norm_modulate.default, (x, a, ada[:, :1, 2], ada[:, :1, 1], ada[:, :1, 0],
                                                    None, None, "layer", 1e-6)),
        (ops.gated_residual_norm_modulate_.default, (x.clone(), a, None, ada[:, :, 1], ada[:, :, 0], None,
                                                     None, "rms", 1e-6)),
    ]


@pytest.mark.parametrize("idx", range(4))
def test_opcheck(idx):
    requires_cuda()
    op, args = _opcheck_cases()[idx]
    torch.library.opcheck(op, args)


# --------------------------------------------------- LTX-Video's block ----
def _tiny_ltx(dtype, layers=2):
    from diffusers import LTXVideoTransformer3DModel
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = LTXVideoTransformer3DModel(in_channels=16, out_channels=16, num_attention_heads=4,
                                           attention_head_dim=32, cross_attention_dim=128,
                                           num_layers=layers, caption_channels=64)
    with torch.no_grad():  # the scale_shift_tables start small: make the modulation matter
        for name, p in model.named_parameters():
            if "scale_shift_table" in name:
                p.copy_(torch.randn_like(p) * 0.5)
    # drawn in fp32 and then cast, so that the bf16 model is the fp32 one rounded
    return model.to(dtype).eval()


def _ltx_inputs(model, per_token, dtype):
    g = torch.Generator(device="cuda").manual_seed(3)
    B, F_, H, W, T = 2, 2, 4, 6, 16
    S = F_ * H * W
    mask = torch.ones(B, T, device="cuda", dtype=dtype)
    mask[:, T * 3 // 4:] = 0
    timestep = (torch.rand(B, S, device="cuda", generator=g) * 1000 if per_token
                else torch.tensor([300.0, 700.0], device="cuda"))
    return dict(hidden_states=torch.randn(B, S, 16, device="cuda", generator=g).to(dtype),
                encoder_hidden_states=torch.randn(B, T, 64, device="cuda", generator=g).to(dtype),
                timestep=timestep, encoder_attention_mask=mask, num_frames=F_, height=H, width=W,
                rope_interpolation_scale=(8 / 25, 32, 32), return_dict=False)


@pytest.mark.parametrize("patch", ["block", "block_chain"])
@pytest.mark.parametrize("per_token", [False, True])
def test_ltx_block_patch_matches_diffusers(patch, per_token):
    """The block patches of the injection script on a small LTX-Video
    transformer: in fp32 they compute what the stock model does (to fp32
    rounding); in bf16 they are no further from the fp32 model than the
    stock bf16 model is."""
    requires_cuda()
    if importlib.util.find_spec("diffusers") is None:
        pytest.skip("diffusers is not importable")
    inj = injection_script("ltx_kernel_injection")
    if inj is None:
        pytest.skip("ltx_kernel_injection.py is not beside the package")
    lk = lit()
    with torch.no_grad():
        stock32 = _tiny_ltx(torch.float32)
        inputs32 = _ltx_inputs(stock32, per_token, torch.float32)
        ref32 = stock32(**inputs32)[0]
        fused32 = _tiny_ltx(torch.float32)
        counts = inj.apply_patches(fused32, lk, (patch,))
        assert counts == inj.expected_counts((patch,), 2), counts
        out32 = fused32(**inputs32)[0]
        check(out32, ref32.double(), torch.float32, f"fp32 {patch} per_token={per_token}")

        stock16 = _tiny_ltx(torch.bfloat16)
        inputs16 = _ltx_inputs(stock16, per_token, torch.bfloat16)
        ref16 = stock16(**inputs16)[0]
        inj.apply_patches(stock16, lk, (patch,))
        out16 = stock16(**inputs16)[0]
    e_stock = (ref16.double() - ref32.double()).norm() / ref32.double().norm()
    e_fused = (out16.double() - ref32.double()).norm() / ref32.double().norm()
    assert e_fused <= 1.1 * e_stock + 1e-3, f"bf16 {patch}: {e_fused:.3e} from fp32, stock {e_stock:.3e}"
    assert e_fused < TOLERANCE[torch.bfloat16] * 3


if __name__ == "__main__":
    from _minipytest import run_module
    sys.exit(run_module(globals(), sys.argv[1] if len(sys.argv) > 1 else None))

"""GPU tests for the attention backward pass (lit_kernels.attention_backward
and the autograd formula of lit_kernels.attention), on a GPU of compute
capability 8.0 or newer.

dq, dk and dv are compared with float64 autograd of the reference attention
(scores, softmax and products in float64, grouped K/V heads repeated, the
forward's bottom-right causal mask) by ||x - ref|| / ||ref||, and held to
three times the error of the same gradients computed by PyTorch's autograd
of that reference in the input's dtype (its matrix products in the dtype,
its softmax in fp32), or three times that of FlashAttention's formula in
float64 given the output rounded to the dtype (formula_grads: at a few keys
a row the rounding of D = rowsum(dO * O) alone can exceed PyTorch's error),
or to a quarter of the dtype's tolerance where that is larger. The norm in
the denominator is never taken below 1e-3 of the rms of dout a element.
Where dq or dk cancel to rounding (one key a row), the error is held to the
dtype's tolerance relative to the terms they sum (term_norms).

    python3 -m pytest -q tests/gpu/test_attention_backward.py   (or: python3 tests/gpu/test_attention_backward.py)
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import TOLERANCE, lit_or_none, pytest, rand  # noqa: E402

lk = lit_or_none()  # None: no build here, and every test skips

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or lk is None or torch.cuda.get_device_capability() < (8, 0),
    reason="needs a CUDA GPU of compute capability 8.0+ and a build of lit_kernels")

DTYPES = [torch.bfloat16, torch.float16]
HOPPER = torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)


def attention_math(q, k, v, causal, scale, dtype, return_lse=False):
    """The reference attention through autograd: the products in `dtype`
    (float64 for the reference, the input's dtype for the peer), the softmax
    in float64 or fp32. A row that sees no key gets P = 0 (and so a zero
    output and zero gradients) without a NaN anywhere."""
    acc = torch.float64 if dtype == torch.float64 else torch.float32
    group = q.shape[1] // k.shape[1]
    qd, kd, vd = (t.to(dtype) for t in (q, k, v))
    kd = kd.repeat_interleave(group, dim=1)
    vd = vd.repeat_interleave(group, dim=1)
    s = (qd @ kd.transpose(-1, -2)).to(acc) * scale
    sq, sk = q.shape[2], k.shape[2]
    if causal:
        i = torch.arange(sq, device=q.device)[:, None]
        j = torch.arange(sk, device=q.device)[None, :]
        hidden = j > i + sk - sq
        seen = ~hidden.all(dim=-1, keepdim=True)  # rows that see a key
        s = s.masked_fill(hidden & seen, float("-inf")).masked_fill(~seen, 0.0)
        p = torch.softmax(s, dim=-1) * seen
    else:
        p = torch.softmax(s, dim=-1)
    out = p.to(dtype) @ vd
    if return_lse:
        return out, torch.logsumexp(s, dim=-1)
    return out


def math_grads(q, k, v, dout, causal, scale, dtype):
    ins = [t.detach().to(dtype).requires_grad_() for t in (q, k, v)]
    out = attention_math(*ins, causal, scale, dtype)
    return torch.autograd.grad(out, ins, dout.to(dtype))


def lit_grads(q, k, v, dout, causal, scale=None, **kw):
    ins = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    out = lk.attention(*ins, causal=causal, scale=scale, **kw)
    out.backward(dout)
    return [t.grad for t in ins]


def rel(x, ref, floor):
    x, ref = x.double(), ref.double()
    return float((x - ref).norm() / max(float(ref.norm()), floor * math.sqrt(ref.numel()), 1e-300))


def term_norms(q, k, v, dout, causal, scale):
    """The norms of dq and dk computed from |dS| = P |dP| and |K|, |Q|: the
    size of the terms whose sum the gradients are. With one key a row they
    cancel (P = 1, dS = dP - D) to the rounding of D, which the kernels take
    from the rounded output, as FlashAttention does; PyTorch's autograd sums
    P dP instead and gets 0 there."""
    group = q.shape[1] // k.shape[1]
    qd, kd, vd, od = (t.double() for t in (q, k, v, dout))
    kd = kd.repeat_interleave(group, dim=1)
    vd = vd.repeat_interleave(group, dim=1)
    s = (qd @ kd.transpose(-1, -2)) * scale
    sq, sk = q.shape[2], k.shape[2]
    if causal:
        i = torch.arange(sq, device=q.device)[:, None]
        j = torch.arange(sk, device=q.device)[None, :]
        s = s.masked_fill(j > i + sk - sq, float("-inf"))
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)
    t = p * (od @ vd.transpose(-1, -2)).abs()
    tq = scale * (t @ kd.abs())
    tk = scale * (t.transpose(-1, -2) @ qd.abs())
    tk = tk.view(tk.shape[0], k.shape[1], group, *tk.shape[2:]).sum(2)
    return {"dq": float(tq.norm()), "dk": float(tk.norm())}


def formula_grads(q, k, v, dout, causal, scale):
    """The gradients in float64 by FlashAttention's formula, D = rowsum(dO *
    O) with O rounded to the input's dtype (the output the kernels are given):
    what that rounding alone costs, which is part of every FlashAttention
    backward's error and, where few keys make dP - D small, most of it."""
    group = q.shape[1] // k.shape[1]
    qd, kd, vd, od = (t.double() for t in (q, k, v, dout))
    ke, ve = kd.repeat_interleave(group, dim=1), vd.repeat_interleave(group, dim=1)
    s = (qd @ ke.transpose(-1, -2)) * scale
    sq, sk = q.shape[2], k.shape[2]
    if causal:
        i = torch.arange(sq, device=q.device)[:, None]
        j = torch.arange(sk, device=q.device)[None, :]
        s = s.masked_fill(j > i + sk - sq, float("-inf"))
    p = torch.softmax(s, dim=-1).nan_to_num(0.0)
    o = (p @ ve).to(q.dtype).double()
    ds = p * (od @ ve.transpose(-1, -2) - (od * o).sum(-1, keepdim=True))
    dq = scale * (ds @ ke)
    fold = lambda x: x.view(x.shape[0], k.shape[1], group, *x.shape[2:]).sum(2)  # noqa: E731
    return dq, fold(scale * (ds.transpose(-1, -2) @ qd)), fold(p.transpose(-1, -2) @ od)


def check_grads(got, q, k, v, dout, causal, scale, what):
    s = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    ref = math_grads(q, k, v, dout, causal, s, torch.float64)
    peer = math_grads(q, k, v, dout, causal, s, q.dtype)
    formula = formula_grads(q, k, v, dout, causal, s)
    terms = term_norms(q, k, v, dout, causal, s)
    floor = 1e-3 * float(dout.double().pow(2).mean().sqrt())
    for name, g, r, p, f in zip(("dq", "dk", "dv"), got, ref, peer, formula):
        assert g.shape == r.shape and g.dtype == q.dtype, f"{what}: {name} {g.dtype} {tuple(g.shape)}"
        bad = (~torch.isfinite(g)).sum().item()
        assert bad == 0, f"{what}: {name} has {bad} non-finite elements"
        if name in terms and float(r.norm()) < 1e-3 * terms[name]:
            # the terms cancel (one key a row): the error is held to the
            # dtype's tolerance relative to them
            e = float((g.double() - r).norm()) / terms[name]
            assert e < TOLERANCE[q.dtype], f"{what}: {name} error {e:.3e} of its cancelling terms"
            continue
        e, ep, ef = rel(g, r, floor), rel(p, r, floor), rel(f, r, floor)
        bound = max(3 * ep, 3 * ef, TOLERANCE[q.dtype] / 4)
        assert e <= bound, (f"{what}: {name} error {e:.3e} > {bound:.3e} (PyTorch in {q.dtype}: "
                            f"{ep:.3e}, the formula with the rounded output: {ef:.3e})")


def inputs(b, hq, hkv, sq, sk, d, dtype):
    return (rand((b, hq, sq, d), dtype), rand((b, hkv, sk, d), dtype), rand((b, hkv, sk, d), dtype),
            rand((b, hq, sq, d), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq", [1, 3, 127, 1000, 4097])
def test_matches_float64(seq, causal, head_dim, dtype):
    heads = (2, 2) if seq > 1000 else (4, 1)
    q, k, v, dout = inputs(1, heads[0], heads[1], seq, seq, head_dim, dtype)
    got = lit_grads(q, k, v, dout, causal, backend="portable")
    check_grads(got, q, k, v, dout, causal, None, f"seq={seq} causal={causal} d={head_dim} {dtype}")


@pytest.mark.skipif(not HOPPER, reason="the Hopper forward needs an H100/H200")
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_after_hopper_forward(causal, head_dim):
    """The forward forced onto the Hopper kernel, the backward on the
    default: the log-sum-exp both forwards store is the same."""
    if not HOPPER:
        pytest.skip("the Hopper forward needs an H100/H200")
    q, k, v, dout = inputs(2, 8, 2, 777, 777, head_dim, torch.bfloat16)
    got = lit_grads(q, k, v, dout, causal, backend="hopper")
    check_grads(got, q, k, v, dout, causal, None, f"hopper forward causal={causal} d={head_dim}")


@pytest.mark.parametrize("ratio", [1, 4, 5, 8])
def test_grouped_query_heads_batch(ratio):
    hkv = 2
    q, k, v, dout = inputs(3, hkv * ratio, hkv, 300, 300, 128, torch.bfloat16)
    got = lit_grads(q, k, v, dout, True)
    check_grads(got, q, k, v, dout, True, None, f"batch 3, group {ratio}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sq,sk", [(100, 300), (300, 100), (1, 257), (257, 1), (64, 200), (130, 70)])
def test_causal_cross_lengths(sq, sk, dtype):
    """seq_q != seq_k under the bottom-right mask, rows that see no key
    (seq_q > seq_k) included."""
    q, k, v, dout = inputs(2, 4, 2, sq, sk, 64, dtype)
    got = lit_grads(q, k, v, dout, True)
    check_grads(got, q, k, v, dout, True, None, f"causal {sq}x{sk} {dtype}")


@pytest.mark.parametrize("sq,sk", [(70, 333), (333, 70)])
def test_non_causal_cross_lengths(sq, sk):
    q, k, v, dout = inputs(1, 4, 4, sq, sk, 128, torch.float16)
    got = lit_grads(q, k, v, dout, False)
    check_grads(got, q, k, v, dout, False, None, f"non-causal {sq}x{sk}")


def test_strided_views_and_scale():
    """q, k, v as the [batch, heads, seq, d] views of [batch, seq, heads, d]
    projections, a scale that is not 1/sqrt(d), dout not contiguous."""
    b, s, hq, hkv, d = 3, 200, 8, 2, 128
    q = rand((b, s, hq, d), torch.bfloat16).transpose(1, 2)
    k = rand((b, s, hkv, d), torch.bfloat16).transpose(1, 2)
    v = rand((b, s, hkv, d), torch.bfloat16).transpose(1, 2)
    dout = rand((b, s, hq, d), torch.bfloat16).transpose(1, 2)
    qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
    lk.attention(qg, kg, vg, causal=True, scale=0.3).backward(dout)
    check_grads([qg.grad, kg.grad, vg.grad], q, k, v, dout, True, 0.3, "strided views, scale 0.3")


@pytest.mark.parametrize("causal", [False, True])
def test_loss_uses_lse(causal):
    """A loss of the output and the log-sum-exp: the lse's gradient enters
    as dlse. Held like check_grads, against PyTorch in float64 and float16."""
    q, k, v, dout = inputs(1, 4, 2, 200, 200, 64, torch.float16)
    w = rand((1, 4, 200), torch.float32)

    def grads(dtype):
        ins = [t.detach().to(dtype).requires_grad_() for t in (q, k, v)]
        out, lse = attention_math(*ins, causal, 1 / 8.0, dtype, return_lse=True)
        ((out.double() * dout.double()).sum() + (lse.double() * w.double()).sum()).backward()
        return [t.grad for t in ins]

    ins = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    out, lse = lk.attention(*ins, causal=causal, return_lse=True)
    ((out.double() * dout.double()).sum() + (lse.double() * w.double()).sum()).backward()
    for name, t, r, p in zip(("dq", "dk", "dv"), ins, grads(torch.float64), grads(torch.float16)):
        e, ep = rel(t.grad, r, 1e-3), rel(p, r, 1e-3)
        bound = max(3 * ep, TOLERANCE[torch.float16] / 4)
        assert e <= bound, f"lse in the loss, causal={causal}: {name} error {e:.3e} > {bound:.3e}"


def test_raw_op_without_lse():
    """The raw op called with return_lse=False records a graph too; its
    gradient recomputes the log-sum-exp."""
    q, k, v, dout = inputs(2, 4, 4, 150, 150, 128, torch.bfloat16)
    ins = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    out, lse = lk.ops.attention(*ins, True, None, False, "auto")
    assert lse.numel() == 0
    out.backward(dout)
    check_grads([t.grad for t in ins], q, k, v, dout, True, None, "raw op, no lse")


@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_deterministic(causal, head_dim):
    """deterministic=True: the same bits on two runs, dq included; the
    atomic form's gradients agree up to rounding (its dq up to the order of
    the additions)."""
    q, k, v, dout = inputs(2, 8, 2, 1000, 1000, head_dim, torch.bfloat16)
    a = lit_grads(q, k, v, dout, causal, deterministic=True)
    b = lit_grads(q, k, v, dout, causal, deterministic=True)
    for name, x, y in zip(("dq", "dk", "dv"), a, b):
        assert torch.equal(x, y), f"deterministic causal={causal} d={head_dim}: {name} differs between runs"
    c = lit_grads(q, k, v, dout, causal)
    for name, x, y in zip(("dq", "dk", "dv"), a, c):
        e = rel(x, y, 1e-3)
        assert e < TOLERANCE[torch.bfloat16] / 4, f"{name} of the two forms differs by {e:.3e}"
    check_grads(a, q, k, v, dout, causal, None, f"deterministic causal={causal} d={head_dim}")


@pytest.fixture
def kv_form():
    """Sets the dK/dV kernel's form through the benchmark hook; the default
    (0) again afterwards, whatever the test did."""
    yield lambda form: lk.ops._attention_backward_tuning(form)
    lk.ops._attention_backward_tuning(0)


@pytest.mark.parametrize("form", [1, 2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("deterministic", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("b,hq,hkv,sq,sk", [(1, 4, 1, 1000, 1000), (2, 8, 2, 300, 300),
                                             (1, 4, 2, 100, 300), (1, 4, 2, 300, 100),
                                             (1, 2, 2, 127, 127), (1, 2, 2, 3, 3)])
def test_kv_forms(b, hq, hkv, sq, sk, causal, head_dim, deterministic, form, kv_form):
    """The mma.sync dK/dV forms (8 warps, 128 keys a CTA; form 2 with whole
    64-query steps at head_dim 64; form 3 with a staggered walk over the
    query tiles; form 4 with 4 warps and 64 keys, the default below compute
    capability 9.0; forms 5 to 7, the Hopper kernel with the other order of
    its dQ product, with dQ by bulk reductions, and with the other order of
    its grid, where it runs) forced through the tuning hook: partial key tiles,
    seq_q != seq_k, grouped heads, dq by atomics and not."""
    q, k, v, dout = inputs(b, hq, hkv, sq, sk, head_dim, torch.bfloat16)
    kv_form(form)
    got = lit_grads(q, k, v, dout, causal, deterministic=deterministic)
    check_grads(got, q, k, v, dout, causal, None,
                f"form {form} {b}x{hq}/{hkv} {sq}x{sk} causal={causal} d={head_dim} det={deterministic}")
    if deterministic:  # against form 0: the same sums in another order
        kv_form(0)
        ref = lit_grads(q, k, v, dout, causal, deterministic=True)
        for name, x, y in zip(("dq", "dk", "dv"), got, ref):
            e = rel(x, y, 1e-3)
            assert e < TOLERANCE[torch.bfloat16] / 4, f"form {form}: {name} differs from form 0 by {e:.3e}"


@pytest.mark.parametrize("head_dim", [64, 128])
def test_default_is_hopper_on_sm90(head_dim):
    """On compute capability 9.0 the default form runs the Hopper dK/dV
    kernel (so every test above that leaves the form alone tests it), and
    any other form does not."""
    assert lk.ops._attention_backward_uses_hopper(head_dim) == HOPPER
    lk.ops._attention_backward_tuning(4)
    try:
        assert not lk.ops._attention_backward_uses_hopper(head_dim)
    finally:
        lk.ops._attention_backward_tuning(0)


def test_kv_form_hook_rejects():
    for form in (-1, 8):
        with pytest.raises(RuntimeError, match="form must be 0"):
            lk.ops._attention_backward_tuning(form)


def test_torch_compile_fullgraph_backward():
    """torch.compile(fullgraph=True) of a function calling attention, then
    .backward() on its loss (AOTAutograd compiles the backward through the
    fakes): no graph break, the same gradients as eager."""
    q, k, v, dout = inputs(2, 8, 2, 257, 257, 128, torch.bfloat16)

    def loss_of(q, k, v):
        out, lse = lk.attention(q, k, v, causal=True, return_lse=True)
        return (out.float() * dout.float()).sum() + lse.sum()

    eager = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    loss_of(*eager).backward()
    torch._dynamo.reset()
    comp = [t.detach().clone().requires_grad_() for t in (q, k, v)]
    torch.compile(loss_of, fullgraph=True)(*comp).backward()
    for name, x, y in zip(("dq", "dk", "dv"), comp, eager):
        e = rel(x.grad, y.grad, 1e-3)
        assert e < 1e-3, f"compiled {name} differs from eager's by {e:.2e}"


def test_torch_compile_training_module():
    """The usual form: torch.compile of a forward whose loss.backward() runs
    outside, with projections around attention."""
    torch.manual_seed(0)
    proj = torch.nn.Linear(256, 3 * 256, dtype=torch.bfloat16, device="cuda")

    def f(x):
        qkv = proj(x).view(2, 100, 3, 4, 64)
        q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))
        return lk.attention(q, k, v, causal=True).float().pow(2).mean()

    x = rand((2, 100, 256), torch.bfloat16)
    loss = torch.compile(f, fullgraph=True)(x)
    loss.backward()
    grads = [p.grad.clone() for p in proj.parameters()]
    proj.zero_grad()
    f(x).backward()
    for g, e in zip(grads, (p.grad for p in proj.parameters())):
        assert rel(g, e, 1e-6) < 1e-2


def test_transformers_training():
    """attn_implementation="lit" trains: a small LLaMA's loss and gradients
    (bf16, two layers, grouped heads) against "sdpa"'s."""
    pytest.importorskip("transformers")
    from transformers import LlamaConfig, LlamaForCausalLM
    name = lk.integrations.register_transformers()
    cfg = LlamaConfig(hidden_size=256, intermediate_size=512, num_attention_heads=4, num_key_value_heads=2,
                      head_dim=64, num_hidden_layers=2, vocab_size=1000, attention_dropout=0.0)
    torch.manual_seed(0)
    model = LlamaForCausalLM(cfg).to("cuda", torch.bfloat16).train()
    ids = torch.randint(0, 1000, (2, 100), device="cuda")
    runs = {}
    for impl in ("sdpa", name):
        model.set_attn_implementation(impl)
        model.zero_grad(set_to_none=True)
        loss = model(input_ids=ids, labels=ids, use_cache=False).loss
        loss.backward()
        runs[impl] = (loss.detach(), {n: p.grad.detach().clone() for n, p in model.named_parameters()})
    (loss, grads), (ref_loss, ref_grads) = runs[name], runs["sdpa"]
    assert rel(loss, ref_loss, 1e-6) < 1e-2, f"loss {loss.item()} vs sdpa's {ref_loss.item()}"
    for n, g in ref_grads.items():
        e = rel(grads[n], g, 1e-6)
        assert e < 3e-2, f"gradient of {n}: {e:.3e} from sdpa's"


def test_opcheck_backward_op():
    q, k, v, dout = inputs(1, 4, 2, 70, 70, 64, torch.float16)
    out, lse = lk.attention(q, k, v, causal=True, return_lse=True)
    torch.library.opcheck(lk.ops.attention_backward.default, (dout, q, k, v, out, lse, None, True, None, False),
                          test_utils=("test_schema", "test_faketensor"))


def test_opcheck_autograd():
    q, k, v, _ = inputs(1, 4, 2, 70, 70, 64, torch.float16)
    q, k, v = (t.requires_grad_() for t in (q, k, v))
    # deterministic dq: opcheck compares the eager and traced gradients closely
    torch.library.opcheck(lk.ops.attention.default, (q, k, v, True, None, True, "auto", True),
                          test_utils=("test_schema", "test_autograd_registration", "test_faketensor",
                                      "test_aot_dispatch_dynamic"))


def test_empty_sequences():
    for sq, sk in ((0, 5), (5, 0)):
        q, k, v, dout = inputs(1, 2, 2, sq, sk, 64, torch.bfloat16)
        dq, dk, dv = lit_grads(q, k, v, dout, False, backend="portable")
        assert dq.shape == q.shape and dk.shape == k.shape and dv.shape == v.shape
        assert not dq.any() and not dk.any() and not dv.any()


def test_rejections():
    q, k, v, dout = inputs(1, 4, 2, 16, 16, 128, torch.bfloat16)
    out, lse = lk.attention(q, k, v, return_lse=True)
    bwd = lk.attention_backward
    cases = [
        (lambda: bwd(dout.float(), q, k, v, out, lse), "dout must have q's shape, dtype"),
        (lambda: bwd(dout[:, :, :8], q, k, v, out, lse), "dout must have q's shape"),
        (lambda: bwd(dout, q, k, v, out, lse.half()), "lse must be a float32"),
        (lambda: bwd(dout, q, k, v, out, lse[:, :2]), r"lse has shape"),
        (lambda: bwd(dout, q, k, v, out, lse, dlse=lse[..., :8]), r"dlse has shape"),
        (lambda: bwd(dout, q, k, v, out[:, :2], lse), "out has shape"),
        (lambda: bwd(dout, q.float(), k.float(), v.float(), out, lse), "float16 or bfloat16"),
        (lambda: bwd(dout, q, k, v[:, :, :8], out, lse), "same shape"),
        (lambda: bwd(dout.cpu(), q.cpu(), k.cpu(), v.cpu(), out.cpu(), lse.cpu()), "CUDA tensor"),
        (lambda: bwd(dout, q, k, v, out, lse, scale=-1.0), "scale must be positive"),
    ]
    for fn, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            fn()
    # the forward now records a graph instead of refusing one
    qg = q.clone().requires_grad_()
    lk.attention(qg, k, v).float().sum().backward()
    assert qg.grad is not None and torch.isfinite(qg.grad).all()


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))

"""The fused linear cross-entropy (linear_cross_entropy and its autograd
Function) against float64 autograd of F.cross_entropy(h @ W.T, y), on a GPU.
The 16- and 32-bit results are held to the plain expression's own error in
the same dtype (its logits rounded to the dtype as ours are).

    python3 -m pytest tests/gpu/test_linear_cross_entropy.py
"""

import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import DTYPES, TOLERANCE, lit, pytest, rand, rel_err, requires_cuda  # noqa: E402

# (tokens, d, classes, chunks tried): one class; a class count that takes
# the one-element path (7, 1000 with bf16's 8-element vector: no; 1001:
# yes); Llama's and Qwen3's vocabularies
CASES = [(1, 16, 1, (0,)), (5, 32, 7, (0, 1, 2)), (257, 64, 1001, (0, 64, 100)),
         (300, 128, 1000, (0, 7)), (1000, 128, 32000, (0, 128)), (33, 256, 151936, (0, 8))]


def loss64(h, w, y, ignore_index=-100, label_smoothing=0.0, z_loss=0.0, reduction="mean", logits_dtype=None):
    """The loss in float64 (logits_dtype None) or as the plain expression
    computes it in the inputs' dtype: logits in that dtype, then float32."""
    z = F.linear(h, w)
    if logits_dtype is not None:
        z = z.float()
    rows = F.cross_entropy(z, y, ignore_index=ignore_index, label_smoothing=label_smoothing, reduction="none")
    valid = y != ignore_index
    rows = rows + z_loss * torch.logsumexp(z, -1).pow(2) * valid
    return rows.sum() / valid.sum() if reduction == "mean" else rows.sum()


def grads(fn, h, w):
    hh, ww = h.detach().clone().requires_grad_(), w.detach().clone().requires_grad_()
    loss = fn(hh, ww)
    loss.backward()
    return loss.detach(), hh.grad, ww.grad


def compare(h, w, y, dtype, what, chunk=0, **kw):
    """Ours against float64, bounded by twice the plain expression's error
    in this dtype plus a tenth of the dtype's tolerance."""
    L = lit()
    ours = grads(lambda a, b: L.linear_cross_entropy(a, b, y, chunk_tokens=chunk, **kw), h, w)
    ref = grads(lambda a, b: loss64(a, b, y, **kw), h.double(), w.double())
    plain = grads(lambda a, b: loss64(a, b, y, logits_dtype=dtype, **kw), h, w)
    for name, o, r, p in zip(("loss", "dh", "dw"), ours, ref, plain):
        assert o.dtype == (torch.float32 if name == "loss" else dtype), f"{what} {name} dtype {o.dtype}"
        assert torch.isfinite(o).all(), f"{what} {name}: not finite"
        bound = 2 * rel_err(p, r) + TOLERANCE[dtype] / 10
        e = rel_err(o, r)
        assert e <= bound, f"{what} {name}: error {e:.3e} > {bound:.3e} (plain {rel_err(p, r):.3e})"


def inputs(tokens, d, classes, dtype):
    h = rand((tokens, d), dtype)
    w = rand((classes, d), dtype, scale=1.0 / d ** 0.5 * 4)
    y = torch.randint(0, classes, (tokens,), device="cuda")
    return h, w, y


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_against_float64(dtype, reduction):
    requires_cuda()
    for tokens, d, classes, chunks in CASES:
        h, w, y = inputs(tokens, d, classes, dtype)
        if tokens > 3:
            y[::3] = -100
        for chunk in chunks:
            compare(h, w, y, dtype, f"{tokens}x{d}x{classes} chunk {chunk} {reduction}", chunk,
                    reduction=reduction)


@pytest.mark.parametrize("dtype", DTYPES)
def test_smoothing_and_z_loss(dtype):
    requires_cuda()
    for tokens, d, classes, chunks in CASES[1:4]:
        h, w, y = inputs(tokens, d, classes, dtype)
        y[1] = 5  # another ignore_index below
        for kw in ({"label_smoothing": 0.1}, {"z_loss": 1e-3}, {"label_smoothing": 0.2, "z_loss": 1e-4},
                   {"ignore_index": 5, "label_smoothing": 0.05}):
            compare(h, w, y, dtype, f"{tokens}x{classes} {kw}", chunks[-1], **kw)


def test_ignore_index_everywhere_and_nowhere():
    """Every token ignored: the mean is NaN (0 / 0, as F.cross_entropy's),
    the sum 0, the gradients 0. No token ignored: as any other case."""
    requires_cuda()
    L = lit()
    h, w, y = inputs(40, 64, 1000, torch.float32)
    y[:] = -100
    for reduction, expect in (("mean", float("nan")), ("sum", 0.0)):
        loss, dh, dw = grads(lambda a, b: L.linear_cross_entropy(a, b, y, reduction=reduction, chunk_tokens=16), h, w)
        ref = loss64(h.double(), w.double(), y, reduction=reduction)
        assert (loss.isnan().item() and ref.isnan().item()) or loss.item() == expect == ref.item(), \
            f"{reduction}: {loss.item()} (torch: {ref.item()})"
        assert dh.abs().max().item() == 0 and dw.abs().max().item() == 0
    y = torch.randint(0, 1000, (40,), device="cuda")
    compare(h, w, y, torch.float32, "nothing ignored", 16)


def test_which_gradients():
    """Only the hidden states, only the weight, neither (no_grad): the loss
    is the same and only what is asked for is returned."""
    requires_cuda()
    L = lit()
    h, w, y = inputs(100, 64, 1000, torch.bfloat16)
    full = grads(lambda a, b: L.linear_cross_entropy(a, b, y), h, w)
    hh = h.clone().requires_grad_()
    L.linear_cross_entropy(hh, w, y).backward()
    assert torch.equal(hh.grad, full[1])
    ww = w.clone().requires_grad_()
    L.linear_cross_entropy(h, ww, y).backward()
    assert torch.equal(ww.grad, full[2])
    with torch.no_grad():
        assert torch.equal(L.linear_cross_entropy(h, w, y), full[0])


def test_gradient_scale_and_second_backward():
    """The backward scales by the loss's gradient (a loss times 3, or
    divided for gradient accumulation); a second backward through the same
    graph is refused."""
    requires_cuda()
    L = lit()
    h, w, y = inputs(64, 64, 500, torch.float32)
    _, dh1, dw1 = grads(lambda a, b: L.linear_cross_entropy(a, b, y), h, w)
    _, dh3, dw3 = grads(lambda a, b: L.linear_cross_entropy(a, b, y) * 3.0, h, w)
    assert rel_err(dh3, 3 * dh1) < 1e-6 and rel_err(dw3, 3 * dw1) < 1e-6
    hh = h.clone().requires_grad_()
    loss = L.linear_cross_entropy(hh, w.clone().requires_grad_(), y)
    loss.backward(retain_graph=True)
    with pytest.raises(RuntimeError) as e:
        loss.backward()
    assert "second backward" in str(e.value)


def test_layouts():
    """Hidden states [batch, seq, d] sliced to drop the last position (not
    contiguous), labels [batch, seq - 1]; a transposed weight view."""
    requires_cuda()
    L = lit()
    dtype = torch.bfloat16
    full = rand((3, 50, 64), dtype)
    w = rand((64, 999), dtype, scale=0.5).t()  # [999, 64], not contiguous
    y = torch.randint(0, 999, (3, 49), device="cuda")
    h = full[:, :-1]
    loss = L.linear_cross_entropy(h, w, y, chunk_tokens=40)
    ref = loss64(h.double().reshape(-1, 64), w.double(), y.reshape(-1))
    assert rel_err(loss, ref) < 2e-2
    compare(h.reshape(-1, 64), w, y.reshape(-1), dtype, "transposed weight", 40)


def test_rejects_bad_inputs():
    requires_cuda()
    L = lit()
    h, w, y = inputs(8, 32, 100, torch.bfloat16)
    bad = [
        (lambda: L.linear_cross_entropy(h, w, y.clone().fill_(100)), "every label must lie in"),
        (lambda: L.linear_cross_entropy(h, w, torch.full_like(y, -5)), "every label must lie in"),
        (lambda: L.linear_cross_entropy(h, w, y.int()), "labels must be int64"),
        (lambda: L.linear_cross_entropy(h, w.float(), y), "weight must have hidden's dtype"),
        (lambda: L.linear_cross_entropy(h, w[:, :16], y), "hidden must be [tokens, d]"),
        (lambda: L.linear_cross_entropy(h, w, y[:4]), "labels must match hidden's leading"),
        (lambda: L.linear_cross_entropy(h, w, y, label_smoothing=1.5), "label_smoothing must lie"),
        (lambda: L.linear_cross_entropy(h, w, y, z_loss=-1.0), "z_loss must be"),
        (lambda: L.linear_cross_entropy(h, w, y, reduction="none"), "reduction must be"),
        (lambda: L.linear_cross_entropy(h, w, y, chunk_tokens=-1), "chunk_tokens must be"),
        (lambda: L.linear_cross_entropy(h.int(), w, y), "supported dtypes"),
        (lambda: L.linear_cross_entropy(h.cpu(), w.cpu(), y.cpu()), "must be a CUDA tensor"),
        (lambda: L.linear_cross_entropy(h, w[:0], y), "between 1 and 2^30"),
    ]
    for fn, text in bad:
        with pytest.raises((RuntimeError, ValueError)) as e:
            fn()
        assert text in str(e.value), f"expected {text!r} in {e.value}"


def test_compiled_step_matches_eager():
    """A training step through linear_cross_entropy under
    torch.compile(fullgraph=True): the loss and both gradients as eager's."""
    requires_cuda()
    L = lit()
    torch._dynamo.reset()
    h, w, y = inputs(300, 128, 5000, torch.bfloat16)
    proj = torch.nn.Linear(128, 128, device="cuda", dtype=torch.bfloat16)

    def step(x, weight):
        return L.linear_cross_entropy(proj(x), weight, y, label_smoothing=0.1, chunk_tokens=128)

    eager = grads(step, h, w)
    compiled = grads(torch.compile(step, fullgraph=True), h, w)
    for name, a, b in zip(("loss", "dh", "dw"), eager, compiled):
        assert rel_err(b, a) < 1e-2, f"{name}: compiled {rel_err(b, a):.3e} from eager"


def test_opcheck():
    requires_cuda()
    L = lit()
    ops = L.ops
    h, w, y = inputs(9, 32, 100, torch.bfloat16)
    y[2] = -100
    # the op itself has no autograd formula (the package's Function holds its
    # gradients), so it is checked on inputs that need none
    torch.library.opcheck(ops.linear_cross_entropy.default,
                          (h, w, y, -100, 0.1, 1e-4, 0, 4, True, True))
    torch.library.opcheck(ops.linear_cross_entropy.default,
                          (h, w, y, -100, 0.0, 0.0, 1, 0, False, False))
    torch.library.opcheck(ops.scale_by_.default, (rand((5, 64), torch.bfloat16),
                                                  torch.tensor([0.5], device="cuda")))


def test_chunk_rule():
    """The rule's chunk: a positive multiple of 128 tokens (or every token),
    never more tokens than there are."""
    requires_cuda()
    L = lit()
    for tokens in (1, 100, 4096, 16384, 100000):
        for classes in (1, 1000, 32000, 151936):
            c = L.linear_cross_entropy_chunk(tokens, classes)
            assert 1 <= c <= tokens and (c == tokens or c % 128 == 0), (tokens, classes, c)

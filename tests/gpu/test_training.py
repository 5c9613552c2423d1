"""lit_kernels.training.patch_for_training on small LLaMA- and Qwen3-shaped
models (random weights): the patched model's loss and every parameter's
gradient against the stock model's, eagerly and compiled, on a GPU.

    python3 -m pytest tests/gpu/test_training.py
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import lit, pytest, rel_err, requires_cuda  # noqa: E402

LAYERS = 2
# the largest relative error of the loss and of any gradient, patched against stock
TOL = {torch.float32: 1e-4, torch.bfloat16: 3e-2}


def build(family, dtype, **overrides):
    import transformers
    kw = dict(hidden_size=256, intermediate_size=512, num_attention_heads=4, num_key_value_heads=2,
              vocab_size=1000, max_position_embeddings=512, rms_norm_eps=1e-6, hidden_act="silu",
              tie_word_embeddings=False, num_hidden_layers=LAYERS)
    kw.update(overrides)
    if family == "qwen3":
        cfg = transformers.Qwen3Config(head_dim=64, **kw)
        cls = transformers.Qwen3ForCausalLM
    else:
        cfg = transformers.LlamaConfig(**kw)
        cls = transformers.LlamaForCausalLM
    cfg._attn_implementation = "sdpa"
    torch.manual_seed(0)
    return cls(cfg).to("cuda", dtype).train()


def batch(ignore=True):
    g = torch.Generator(device="cuda").manual_seed(3)
    ids = torch.randint(0, 1000, (2, 48), device="cuda", generator=g)
    labels = ids.clone()
    if ignore:
        labels[0, :5] = -100  # a prompt the loss skips
    return ids, labels


def loss_and_grads(model, ids, labels, **kw):
    model.zero_grad(set_to_none=True)
    loss = model(input_ids=ids, labels=labels, use_cache=False, **kw).loss
    loss.backward()
    return loss.detach(), {n: p.grad.detach().clone() for n, p in model.named_parameters()}


def assert_close(a, b, dtype, what):
    (la, ga), (lb, gb) = a, b
    assert rel_err(la, lb) <= TOL[dtype], f"{what} loss: {la.item()} vs {lb.item()}"
    for name in gb:
        e = rel_err(ga[name], gb[name])
        assert e <= TOL[dtype], f"{what} grad of {name}: relative error {e:.3e}"


@pytest.mark.parametrize("family", ["llama", "qwen3"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_matches_stock(family, dtype):
    requires_cuda()
    L = lit()
    ids, labels = batch()
    stock = loss_and_grads(build(family, dtype), ids, labels)
    model = build(family, dtype)
    counts = L.training.patch_for_training(model)
    norms = 2 * LAYERS + 1 + (2 * LAYERS if family == "qwen3" else 0)
    assert counts == {"rms_norm": norms, "mlp": LAYERS, "rope": LAYERS, "loss": 1, "recompute": LAYERS}, counts
    assert_close(loss_and_grads(model, ids, labels), stock, dtype, f"{family} eager")


@pytest.mark.parametrize("family", ["llama", "qwen3"])
def test_compiled_matches_eager(family):
    requires_cuda()
    L = lit()
    torch._dynamo.reset()
    ids, labels = batch()
    model = build(family, torch.float32)
    L.training.patch_for_training(model)
    eager = loss_and_grads(model, ids, labels)
    compiled = loss_and_grads(torch.compile(model), ids, labels)
    # named_parameters of the compiled wrapper carry a prefix
    compiled = (compiled[0], {n.removeprefix("_orig_mod."): g for n, g in compiled[1].items()})
    assert_close(compiled, eager, torch.float32, f"{family} compiled")


@pytest.mark.parametrize("family", ["llama", "qwen3"])
@pytest.mark.parametrize("compiled", [False, True])
def test_recompute_keeps_less_and_changes_nothing(family, compiled):
    """recompute=True: the same loss and gradients as recompute=False, and
    less kept between the forward and the backward (the outputs of the
    norms, the activation and the rotation are recomputed)."""
    requires_cuda()
    L = lit()
    g = torch.Generator(device="cuda").manual_seed(5)
    ids = torch.randint(0, 1000, (4, 512), device="cuda", generator=g)
    runs = {}
    for recompute in (False, True):
        torch._dynamo.reset()
        model = build(family, torch.float32)
        assert L.training.patch_for_training(model, recompute=recompute)["recompute"] == (LAYERS if recompute else 0)
        run = torch.compile(model) if compiled else model
        loss_and_grads(run, ids, ids)  # the compile, and every lazy allocation, before the measured step
        model.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        loss = run(input_ids=ids, labels=ids, use_cache=False).loss
        torch.cuda.synchronize()
        kept = torch.cuda.memory_allocated() - before
        loss.backward()
        grads = {n.removeprefix("_orig_mod."): p.grad.detach().clone() for n, p in run.named_parameters()}
        runs[recompute] = (loss.detach(), grads, kept)
    (l0, g0, k0), (l1, g1, k1) = runs[False], runs[True]
    assert_close((l1, g1), (l0, g0), torch.float32, f"{family} recompute")
    # the recomputed outputs are over a third of what a layer keeps without it
    assert k1 < 0.8 * k0, f"kept {k1 / 2**20:.1f} MiB with recompute, {k0 / 2**20:.1f} MiB without"


def test_under_transformers_checkpointing():
    """With transformers' own checkpointing of whole layers on (the Trainer's
    gradient_checkpointing), the patched layers leave the recomputation to
    it: the same loss and gradients as the stock model."""
    requires_cuda()
    L = lit()
    ids, labels = batch()
    stock = loss_and_grads(build("qwen3", torch.float32), ids, labels)
    model = build("qwen3", torch.float32)
    L.training.patch_for_training(model)
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    assert all(getattr(m, "gradient_checkpointing", False) for m in model.model.layers)
    assert_close(loss_and_grads(model, ids, labels), stock, torch.float32, "under transformers' checkpointing")


def test_num_items_in_batch():
    """The Trainer's token count for gradient accumulation: the summed loss
    over it, as the stock loss computes it."""
    requires_cuda()
    L = lit()
    ids, labels = batch()
    n = torch.tensor(77, device="cuda")
    stock = loss_and_grads(build("llama", torch.float32), ids, labels, num_items_in_batch=n)
    model = build("llama", torch.float32)
    L.training.patch_for_training(model)
    assert_close(loss_and_grads(model, ids, labels, num_items_in_batch=n), stock, torch.float32, "num_items")


def test_without_labels_is_stock():
    requires_cuda()
    L = lit()
    ids, _ = batch()
    stock = build("qwen3", torch.float32)(input_ids=ids, use_cache=False).logits
    model = build("qwen3", torch.float32)
    L.training.patch_for_training(model, norms=False, mlp=False, rotary=False)
    out = model(input_ids=ids, use_cache=False)
    assert out.logits is not None and torch.equal(out.logits, stock)


def test_refusals_and_unpatch():
    requires_cuda()
    L = lit()
    import transformers
    gpt2 = transformers.GPT2LMHeadModel(transformers.GPT2Config(n_layer=1, n_embd=64, n_head=2))
    with pytest.raises(ValueError) as e:
        L.training.patch_for_training(gpt2)
    assert "model_type 'gpt2'" in str(e.value)
    with pytest.raises(ValueError) as e:
        L.training.patch_for_training(build("llama", torch.float32, hidden_act="gelu"))
    assert "not silu" in str(e.value)
    model = build("llama", torch.float32)
    L.training.patch_for_training(model)
    L.training.unpatch_for_training(model)
    assert not any("forward" in m.__dict__ for m in model.modules())
    ids, labels = batch()
    assert model(input_ids=ids, labels=labels, use_cache=False).logits is not None

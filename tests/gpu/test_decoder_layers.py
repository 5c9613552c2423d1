"""GPU tests of the transformers patches of kernels/scripts/transformers_injection.py
on tiny two-layer Qwen3 and LLaMA models (random weights, bf16): the decoder
layer fused across its boundaries (layer_fusion), Qwen3's attention through
qk_norm_rope, and every other patch with them, against the unpatched model
and an fp32 copy of it, eagerly and under torch.compile(fullgraph=True), for
a prefill and for decode steps over a static cache.

The model-level criterion is the script's own (passes()): the patched logits
no further from the fp32 model's than the unpatched bf16 model's are (with a
margin for rounding order), and no further from the unpatched logits than
the two bf16 errors together allow. Needs transformers 5.

    python3 -m pytest -q tests/gpu/test_decoder_layers.py   (from a package copy: tests/)
"""
import os
import sys
from collections import Counter

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import injection_script, lit, pytest, requires_cuda  # noqa: E402

LAYERS = 2
TOL = 2e-2  # the script's floor for the distance from the unpatched bf16 logits
CTX, STEPS = 24, 3  # decode: tokens prefilled into the static cache, steps checked


def script():
    """transformers_injection.py from the repository or a package copy."""
    mod = injection_script("transformers_injection")
    if mod is None:
        pytest.skip("kernels/scripts/transformers_injection.py not found")
    return mod


def needs_transformers():
    requires_cuda()
    try:
        import transformers
    except ImportError:
        pytest.skip("transformers is not installed")
    if int(transformers.__version__.split(".")[0]) < 5:
        pytest.skip("layer_fusion needs transformers 5")


def tiny(ti, family, head_dim=64):
    """A two-layer model of the family: 8 query and 2 KV heads, random weights
    (norm weights redrawn by build_model), bf16 on the GPU."""
    cfg = ti.make_config(family, LAYERS, hidden_size=8 * head_dim, intermediate_size=1024,
                         num_attention_heads=8, num_key_value_heads=2, head_dim=head_dim,
                         vocab_size=1024, max_position_embeddings=4096)
    return ti.build_model(cfg)


def all_patches(ti, family, attention=False):
    p = ["norms", "mlp", "linears", "rope", "qk_norm_rope", "layer_fusion"] + (["attention"] if attention else [])
    return ti.applicable(family, p)


class Counting:
    """lit_kernels with a count of each function the patches call."""

    def __init__(self, lk):
        self.lk, self.calls = lk, Counter()

    def __getattr__(self, name):
        fn = getattr(self.lk, name)
        if not callable(fn) or isinstance(fn, type(sys)):
            return fn

        def counted(*a, **k):
            self.calls[name] += 1
            return fn(*a, **k)
        return counted


@torch.no_grad()
def prefill(model, ids):
    return model(input_ids=ids, use_cache=False).logits.float()


@torch.no_grad()
def decode(ti, model, ids, steps=STEPS, prefill_model=None):
    """Prefill CTX tokens into a static cache (with `prefill_model`, the eager
    model, when `model` is compiled: the lit attention takes a long prefill
    into a cache with spare slots only eagerly), then `steps` single-token
    steps; the logits of every step."""
    cache = ti.make_static_cache(model, ids.shape[1] + 8)
    (prefill_model or model)(input_ids=ids[:, :CTX], past_key_values=cache, use_cache=True, logits_to_keep=1)
    return [model(input_ids=ids[:, CTX + i: CTX + i + 1], past_key_values=cache, use_cache=True).logits.float()
            for i in range(steps)]


def references(ti, model, ids):
    """Unpatched bf16 and fp32 logits: prefill, then the decode steps."""
    ref = [prefill(model, ids)] + decode(ti, model, ids)
    m32 = ti.copy.deepcopy(model).float()
    ref32 = [prefill(m32, ids)] + decode(ti, m32, ids)
    del m32
    return ref, ref32


def assert_close(ti, outs, ref, ref32, what):
    for i, (o, r, r32) in enumerate(zip(outs, ref, ref32)):
        c = ti.compare(o, r, r32)
        assert ti.passes(c, TOL), f"{what}, output {i} ({'prefill' if i == 0 else 'decode'}): {c}"


def inputs(vocab, batch=1, seq=CTX + STEPS):
    g = torch.Generator(device="cuda").manual_seed(7)
    return torch.randint(0, vocab, (batch, seq), device="cuda", generator=g)


@pytest.mark.parametrize("family", ["qwen3", "llama"])
@pytest.mark.parametrize("which", ["layer_fusion", "qk_norm_rope", "linears", "all", "all+attention"])
def test_patched_matches_unpatched_eager(family, which):
    if which == "qk_norm_rope" and family != "qwen3":
        pytest.skip("LLaMA has no per-head norms")
    check_eager(family, which, batch=1)


@pytest.mark.parametrize("family", ["qwen3", "llama"])
@pytest.mark.parametrize("which", ["rope", "all+attention"])
def test_patched_decode_batch_of_three(family, which):
    """Three sequences at once: a decode step's position_ids are one row
    broadcast over the batch (stride 0), which the patches must hand to the
    kernels as contiguous positions."""
    check_eager(family, which, batch=3)


def check_eager(family, which, batch):
    """The model patched with `which` (a patch, "all" or "all+attention")
    against the unpatched one, eagerly, then unpatched again."""
    needs_transformers()
    ti = script()
    patches = {"all": all_patches(ti, family), "all+attention": all_patches(ti, family, True)}.get(which, [which])
    model = tiny(ti, family)
    ids = inputs(model.config.vocab_size, batch=batch)
    ref, ref32 = references(ti, model, ids)
    counts = ti.patch_model(model, family, lit(), patches)
    assert counts == ti.expected_counts(family, LAYERS, patches), counts
    outs = [prefill(model, ids)] + decode(ti, model, ids)
    assert_close(ti, outs, ref, ref32, f"{family} {which} eager")
    ti.unpatch_model(model)
    again = [prefill(model, ids)] + decode(ti, model, ids)
    for o, r in zip(again, ref):  # unpatched: the classes' own forwards, the same weights
        assert torch.equal(o, r), "unpatch_model did not restore the stock model"


@pytest.mark.parametrize("family", ["qwen3", "llama"])
def test_layer_fusion_fuses_every_boundary(family):
    """With the norms patched too, so that every norm that runs shows as a
    call: a forward makes 2 * layers - 1 fused_add_rms_norm calls (every
    residual add but the first layer's after attention, which starts the
    stream), and rms_norm runs only for the first layer's two norms (and
    Qwen3's q_norm, k_norm): the inner input norms and the final norm come
    out of the fused calls. The caller's inputs_embeds is not written."""
    needs_transformers()
    ti = script()
    model = tiny(ti, family)
    lk = Counting(lit())
    ti.patch_model(model, family, lk, ["norms", "layer_fusion"])
    ids = inputs(model.config.vocab_size, batch=2, seq=9)
    with torch.no_grad():
        emb = model.model.embed_tokens(ids)
        kept = emb.clone()
        model(inputs_embeds=emb, use_cache=False)
    per_head = 2 * LAYERS if family == "qwen3" else 0
    assert lk.calls["fused_add_rms_norm"] == 2 * LAYERS - 1, lk.calls
    assert lk.calls["rms_norm"] == 2 + per_head, lk.calls
    assert torch.equal(emb, kept), "layer_fusion wrote into the caller's inputs_embeds"


@pytest.mark.parametrize("family", ["qwen3", "llama"])
def test_layer_fusion_hidden_states_stay_distinct(family):
    """output_hidden_states: transformers captures each layer's output with
    hooks; the hooked layers run unfused, so every captured state is its own
    tensor and matches the unpatched model's."""
    needs_transformers()
    ti = script()
    model = tiny(ti, family)
    ids = inputs(model.config.vocab_size, seq=11)
    with torch.no_grad():
        ref = model(input_ids=ids, use_cache=False, output_hidden_states=True).hidden_states
        m32 = ti.copy.deepcopy(model).float()
        ref32 = m32(input_ids=ids, use_cache=False, output_hidden_states=True).hidden_states
        del m32
        ti.patch_model(model, family, lit(), ["layer_fusion"])
        got = model(input_ids=ids, use_cache=False, output_hidden_states=True).hidden_states
    assert len(got) == len(ref) == LAYERS + 1
    assert len({t.data_ptr() for t in got}) == len(got), "hidden states share storage"
    assert_close(ti, [t.float() for t in got], [t.float() for t in ref], [t.float() for t in ref32],
                 f"{family} hidden states")


@pytest.mark.parametrize("family", ["qwen3", "llama"])
@pytest.mark.parametrize("attention", [False, True], ids=["sdpa", "lit"])
def test_patched_compiled_fullgraph(family, attention):
    """Every patch, torch.compile(fullgraph=True): the prefill and the decode
    steps over a static cache (one compiled graph each)."""
    needs_transformers()
    ti = script()
    model = tiny(ti, family, head_dim=128)
    ids = inputs(model.config.vocab_size)
    ref, ref32 = references(ti, model, ids)
    ti.patch_model(model, family, lit(), all_patches(ti, family, attention))
    compiled = ti.compiled_of(model)
    outs = [prefill(compiled, ids)] + decode(ti, compiled, ids, prefill_model=model)
    assert_close(ti, outs, ref, ref32, f"{family} all patches{' + lit attention' if attention else ''} compiled")
    torch._dynamo.reset()


def test_layer_signature_refuses_unknown_parameters():
    """The fused forward reproduces a known set of parameters; a layer whose
    forward takes another is refused instead of silently losing it."""
    needs_transformers()
    ti = script()

    class Layer(torch.nn.Module):
        def forward(self, hidden_states, attention_mask=None, output_router_logits=False, **kwargs):
            return hidden_states

    with pytest.raises(ValueError, match="output_router_logits"):
        ti.layer_signature(Layer())
    model = tiny(ti, "llama")
    assert set(ti.layer_signature(model.model.layers[0])) <= set(ti.LAYER_PARAMS)


if __name__ == "__main__":
    from _minipytest import run_module
    sys.exit(run_module(globals(), sys.argv[1] if len(sys.argv) > 1 else None))

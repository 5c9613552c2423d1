"""The package's layers against the modules they replace (GPU).

Every layer declares can_torch_compile and has_backward (kernelize reads
them; has_backward is True only where the ops have a gradient); torch.nn.RMSNorm(eps=None) gets PyTorch's own epsilon; a weight of
another dtype is not cast per call (PyTorch's op takes the mix); LayerNorm
takes what diffusers' FP32LayerNorm takes (fp32 input, 16-bit parameters).

    python3 -m pytest -q tests/gpu/test_layers.py   (from a package copy: tests/test_layers.py)
"""
import inspect
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import check, lit, rand, requires_cuda  # noqa: E402

TRAINABLE = {"RMSNorm", "LayerNorm", "GEGLU", "SiluAndMul", "SiluMLP", "RotaryEmbedding"}  # layers whose ops all have a registered gradient


def layer_classes(L):
    return [c for _, c in inspect.getmembers(L.layers, inspect.isclass)
            if issubclass(c, torch.nn.Module) and c.__module__ == L.layers.__name__]


def test_every_layer_declares_its_flags():
    L = lit()
    classes = layer_classes(L)
    assert len(classes) >= 10, [c.__name__ for c in classes]
    base = {n for n, _ in inspect.getmembers(torch.nn.Module)}
    for cls in classes:
        assert cls.__dict__.get("can_torch_compile") is True, cls.__name__
        # True exactly where every op the layer calls has a registered gradient
        assert cls.__dict__.get("has_backward") is (cls.__name__ in TRAINABLE), cls.__name__
        assert cls.__init__ is torch.nn.Module.__init__, cls.__name__
        extra = {n for n, _ in inspect.getmembers(cls)} - base
        assert extra <= {"can_torch_compile", "has_backward"}, (cls.__name__, extra)


def test_rms_norm_eps_none_is_pytorchs():
    """torch.nn.RMSNorm(eps=None) normalizes with float32's epsilon for fp32,
    fp16 and bf16 input (ATen: numeric_limits of the op-math type); with a
    tiny mean square the epsilon decides the result, so a wrong one shows."""
    requires_cuda()
    L = lit()
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        ref = torch.nn.RMSNorm(256, eps=None, device="cuda", dtype=dtype)
        with torch.no_grad():
            ref.weight.copy_(rand((256,), dtype, offset=1.0))
        x = rand((4, 256), dtype, scale=1e-3)
        expect = ref(x)
        layer = L.layers.RMSNorm()
        layer.weight = ref.weight
        layer.eps = None
        check(layer(x), expect, dtype, f"RMSNorm(eps=None) {dtype}")


def test_rms_norm_other_weight_dtype_is_not_cast():
    """An fp32 weight with bf16 input: the layer gives what the module gives
    (PyTorch's op), and the weight is left as it is."""
    requires_cuda()
    L = lit()
    ref = torch.nn.RMSNorm(512, eps=1e-6, device="cuda", dtype=torch.float32)
    with torch.no_grad():
        ref.weight.copy_(rand((512,), torch.float32, offset=1.0))
    x = rand((8, 512), torch.bfloat16)
    layer = L.layers.RMSNorm()
    layer.weight = ref.weight
    layer.eps = 1e-6
    got = layer(x)
    assert got.dtype == ref(x).dtype
    check(got, ref(x), torch.bfloat16, "RMSNorm, fp32 weight, bf16 input")
    assert layer.weight.dtype == torch.float32


def test_layer_norm_takes_fp32_input_with_16bit_parameters():
    """diffusers' FP32LayerNorm: 16-bit weight and bias, fp32 (or 16-bit)
    input, normalized in fp32, returned in the input's dtype."""
    requires_cuda()
    L = lit()
    for wdt in (torch.bfloat16, torch.float16):
        w, b = rand((768,), wdt, offset=1.0), rand((768,), wdt)
        for xdt in (torch.float32, wdt):
            x = rand((5, 7, 768), xdt, scale=2.0)
            expect = F.layer_norm(x.float(), (768,), w.float(), b.float(), 1e-6).to(xdt)
            layer = L.layers.LayerNorm()
            layer.weight, layer.bias, layer.eps = torch.nn.Parameter(w), torch.nn.Parameter(b), 1e-6
            got = layer(x)
            assert got.dtype == xdt
            check(got, expect, xdt, f"LayerNorm x {xdt}, parameters {wdt}")


def test_layers_compile_fullgraph():
    """Every norm layer inside torch.compile(fullgraph=True)."""
    requires_cuda()
    L = lit()
    torch._dynamo.reset()
    rms = L.layers.RMSNorm()
    rms.weight, rms.eps = torch.nn.Parameter(rand((256,), torch.bfloat16, offset=1.0)), None
    ln = L.layers.LayerNorm()
    ln.weight, ln.bias, ln.eps = None, None, 1e-6

    def f(x):
        return ln(rms(x))

    x = rand((3, 9, 256), torch.bfloat16)
    torch.testing.assert_close(torch.compile(f, fullgraph=True)(x), f(x), rtol=0, atol=0)


if __name__ == "__main__":
    from _minipytest import run_module
    sys.exit(run_module(globals(), sys.argv[1] if len(sys.argv) > 1 else None))

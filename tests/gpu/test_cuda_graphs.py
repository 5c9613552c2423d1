"""The CUDA-graph example of references/troubleshooting.md (GPU): a step of
the package's ops captured by hand and compiled with mode="reduce-overhead",
replayed on new inputs, must give what eager gives.

    python3 -m pytest -q tests/gpu/test_cuda_graphs.py
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import injection_script, lit, requires_cuda  # noqa: E402


def test_cuda_graphs_example():
    requires_cuda()
    ex = injection_script("cuda_graphs_example")
    assert ex is not None, "kernels/scripts/cuda_graphs_example.py is missing: run make tangle"
    lk = lit()
    step = ex.make_step(lk)
    g = torch.Generator(device="cuda").manual_seed(7)
    inputs = [torch.randn(192, 1024, generator=g, device="cuda").to(torch.bfloat16) for _ in range(3)]
    eager = [step(x) for x in inputs]
    # the same kernels on the same inputs: a stale or overwritten output would differ by O(1)
    for name, outs in (("captured", ex.run_captured(step, inputs)), ("reduce-overhead", ex.run_compiled(step, inputs))):
        for i, (o, e) in enumerate(zip(outs, eager)):
            assert ex.rel(o, e) < 1e-3, f"{name}, input {i}: relative difference {ex.rel(o, e):.2e}"
    assert ex.main(lk, tokens=64, steps=2) == 0

"""Which kernel runs the attention of a stock transformers decoder (grouped
query heads, 32 query and 8 KV heads, head_dim 128) at a 1x4096 prefill, and
how long SDPA takes on that call in its forms, against lit_kernels.attention.

Prints one JSON object: the time of each form (best median of interleaved
rounds, CUDA events), the kernels the profiler saw for each SDPA form, and
the heaviest kernels of one layer of the stock Qwen3 model of the
transformers script (kernels/scripts/transformers_injection.py), compiled
with torch.compile(fullgraph=True) and called as that script calls it.
Needs a CUDA GPU, transformers and a build of lit_kernels on PYTHONPATH.
"""
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

import lit_kernels as lk

B, HQ, HKV, S, D = 1, 32, 8, 4096, 128


def median_ms(fn, iters=20):
    times = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return sorted(times)[len(times) // 2]


def kernels(fn):
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return sorted({e.key[:90] for e in prof.key_averages() if getattr(e, "self_device_time_total", 0)})


def stock_layer_kernels():
    """GPU time per kernel (us) of one compiled prefill of a one-layer stock
    Qwen3, the heaviest first."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "kernels", "scripts"))
    import transformers_injection as ti
    model = ti.build_model(ti.make_config("qwen3", 1))
    ids = torch.randint(0, 1000, (1, S), device="cuda")
    compiled = torch.compile(model, fullgraph=True, dynamic=False)

    @torch.no_grad()
    def call():
        return compiled(input_ids=ids, use_cache=False, logits_to_keep=1).logits
    call()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        call()
        torch.cuda.synchronize()
    rows = [(e.key[:120], e.self_device_time_total) for e in prof.key_averages()
            if getattr(e, "self_device_time_total", 0)]
    rows.sort(key=lambda r: -r[1])
    return [[name, us] for name, us in rows[:12]]


def main():
    g = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(B, HQ, S, D, device="cuda", dtype=torch.bfloat16, generator=g)
    k = torch.randn(B, HKV, S, D, device="cuda", dtype=torch.bfloat16, generator=g)
    v = torch.randn(B, HKV, S, D, device="cuda", dtype=torch.bfloat16, generator=g)
    rep = HQ // HKV
    k_rep, v_rep = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
    forms = {
        "sdpa enable_gqa": lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True),
        "sdpa repeated kv": lambda: F.scaled_dot_product_attention(q, k_rep, v_rep, is_causal=True),
        "sdpa repeat inside": lambda: F.scaled_dot_product_attention(
            q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1), is_causal=True),
        "lit attention": lambda: lk.attention(q, k, v, causal=True),
    }
    best = {name: float("inf") for name in forms}
    for _ in range(5):  # interleaved rounds, best median kept for each
        for name, fn in forms.items():
            fn()
            best[name] = min(best[name], median_ms(fn))
    flops = 4 * B * HQ * S * S * D / 2  # causal: half the score matrix
    out = {"shape": [B, HQ, HKV, S, D], "causal": True,
           "ms": best, "tflops": {n: flops / (t * 1e9) for n, t in best.items()},
           "kernels": {n: kernels(fn) for n, fn in forms.items() if n.startswith("sdpa")}}
    try:
        out["stock_qwen3_layer_compiled_us"] = stock_layer_kernels()
    except Exception as e:  # recorded, not hidden
        out["stock_qwen3_layer_error"] = repr(e)[:300]
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()

"""Run every op once on small shapes that take both the 16-byte and the scalar
paths, for compute-sanitizer:

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 sanitize_ops.py
    compute-sanitizer --tool racecheck --error-exitcode 1 python3 sanitize_ops.py

Exits non-zero if an output is not finite (unwritten poisoned memory)."""
import torch

import lit_kernels as lk
from lit_testing import Sanitized

dev = "cuda"
run = Sanitized("sanitize_ops")
r, check, bad = run.rand, run.check, run.bad


for dt in (torch.bfloat16, torch.float32):
    for D in (2048, 1000, 7):  # vector path, scalar path, tiny
        x = r(3, 5, D, dtype=dt)
        check(f"layer_norm {D}", lk.layer_norm(x, r(D, dtype=dt), r(D, dtype=dt)))
        check(f"ada {D}", lk.ada_layer_norm(x, r(3, 1, D, dtype=dt), r(3, D, dtype=dt)))
    # sm_90: a cluster a row (more rows than resident clusters, uneven
    # parts); elsewhere, and for the widest rows, the three sweeps
    check("layer_norm long", lk.layer_norm(r(2, 40000, dtype=dt)))
    check("layer_norm cluster rows", lk.layer_norm(r(97, 40008, dtype=dt), r(40008, dtype=dt),
                                                   r(40008, dtype=dt)))
    check("layer_norm widest", lk.layer_norm(r(2, 131080, dtype=dt)))
    check("layer_norm long scalar", lk.layer_norm(r(2, 40001, dtype=dt), r(40001, dtype=dt)))
    check("ada long", lk.ada_layer_norm(r(2, 3, 40000, dtype=dt), r(2, 40000, dtype=dt),
                                        r(2, 40000, dtype=dt)))
    for n in (4096 + 3, 1001):
        check(f"gelu {n}", lk.gelu(r(n, dtype=dt), "tanh"), lk.gelu(r(n, dtype=dt)))
    check("geglu", lk.geglu(r(5, 2 * 1024, dtype=dt)), lk.geglu(r(5, 2 * 13, dtype=dt)))
    check("swiglu", lk.swiglu(r(5, 2 * 1024, dtype=dt)), lk.swiglu(r(5, 2 * 13, dtype=dt)))
    gu = r(9, 2048, dtype=dt)
    check("act_and_mul", lk.act_and_mul(gu[:, :1024], gu[:, 1024:], "gelu"))
    for a in ("silu", "gelu", "gelu_tanh"):  # the backward: column slices, odd widths
        check(f"act_and_mul_backward {a}", *lk.act_and_mul_backward(r(9, 1024, dtype=dt), gu[:, :1024],
                                                                    gu[:, 1024:], a))
        check(f"gated_backward {a}", lk.gated_backward(r(5, 13, dtype=dt), r(5, 26, dtype=dt), a, False),
              lk.gated_backward(r(5, 1024, dtype=dt), r(5, 2048, dtype=dt), a, True))
    for hs, rot, neox in ((128, 128, True), (128, 64, False), (10, 6, True)):
        cache = lk.rope_cos_sin_cache(100, rot, 1e4, torch.float32, dev)
        pos = torch.randint(0, 100, (7,), device=dev)
        q, k = r(7, 4 * hs, dtype=dt), r(7, 2 * hs, dtype=dt)
        check(f"rope {hs} {rot}", *lk.rope(pos, q, k, hs, cache, neox))
        lk.rope_(pos, q, k, hs, cache, neox)
        check(f"rope_ {hs} {rot}", q, k)
        # the backward: contiguous gradients, then column slices of a wider
        # buffer, then a start one element off (the scalar path)
        check(f"rope_backward {hs} {rot}", *lk.rope_backward(pos, q, k, hs, cache, neox))
        g = r(7, 6 * hs + 8, dtype=dt)
        check(f"rope_backward slices {hs} {rot}", *lk.rope_backward(pos, g[:, :4 * hs], g[:, 4 * hs:6 * hs],
                                                                    hs, cache, neox))
        check(f"rope_backward misaligned {hs} {rot}", *lk.rope_backward(pos, g[:, 1:1 + 4 * hs],
                                                                        g[:, 1 + 4 * hs:1 + 6 * hs], hs, cache,
                                                                        neox))
    for D in (2048, 130):
        grid = lk.ltx_video_coords(2, 2, 2, 3, (8 / 25, 32, 32), device=dev)
        freqs = lk.ltx_rope_freqs(D, device=dev)
        q, k = r(2, 12, D, dtype=dt), r(2, 12, D, dtype=dt)
        check(f"rope_3d_grid {D}", *lk.rope_3d_grid(q, k, grid, freqs))
        cos = torch.rand(2, 12, D, device=dev)
        sin = torch.rand(1, 12, D, device=dev)
        check(f"rope_3d {D}", lk.rope_3d(q, cos, cos), lk.rope_3d(q, sin, sin))
        check(f"rope_3d_grid_backward {D}", *lk.rope_3d_grid_backward(q, k, grid, freqs))
        check(f"rope_3d_backward {D}", lk.rope_3d_backward(q, cos, cos), lk.rope_3d_backward(k, sin, sin))

torch.cuda.synchronize()
run.finish()

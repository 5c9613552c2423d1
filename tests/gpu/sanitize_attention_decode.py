"""Run the decode kernels once on small shapes (ragged lengths, one and
several splits, both pipeline depths, both head sizes and dtypes, two row
groups) for
compute-sanitizer:

    compute-sanitizer --tool memcheck --error-exitcode 1 python3 sanitize_attention_decode.py
    compute-sanitizer --tool racecheck --error-exitcode 1 python3 sanitize_attention_decode.py

Exits non-zero if an output is not finite (unwritten poisoned memory)."""
import torch

import lit_kernels as lk
from lit_testing import Sanitized

dev = "cuda"
run = Sanitized("sanitize_attention_decode")
r, check, bad = run.rand, run.check, run.bad


for dtype in (torch.bfloat16, torch.float16):
    for dim in (64, 128):
        for q_heads, kv_heads, seq_q in ((8, 2, 1), (8, 2, 4), (32, 2, 5)):
            for splits, stages in ((0, 0), (1, 2), (3, 3), (3, 2)):
                lk.ops._attention_decode_tuning(splits, stages)
                q = r(2, q_heads, seq_q, dim, dtype=dtype)
                k, v = r(2, kv_heads, 200, dim, dtype=dtype), r(2, kv_heads, 200, dim, dtype=dtype)
                n = torch.tensor([200, 70], dtype=torch.int32, device=dev)
                out = lk.attention_decode(q, k, v, n)
                check(f"{dtype} d{dim} {q_heads}/{kv_heads} seq_q {seq_q} splits {splits} stages {stages}", out)
lk.ops._attention_decode_tuning(0, 0)
run.finish()

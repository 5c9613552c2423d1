"""Run the decode kernels once on small shapes (ragged lengths, one and
several splits merged by the combine kernel and in a cluster, both
pipeline depths, both head sizes and dtypes, two row groups, a paged
cache) and rope_paged_append (both paths, a padding slot
and a slot past the pool) for compute-sanitizer:

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
            for splits, stages, fold in ((0, 0, 0), (1, 2, 0), (3, 3, 1), (3, 2, 1), (3, 3, 2), (16, 2, 2)):
                lk.ops._attention_decode_tuning(splits, stages, fold)
                q = r(2, q_heads, seq_q, dim, dtype=dtype)
                k, v = r(2, kv_heads, 200, dim, dtype=dtype), r(2, kv_heads, 200, dim, dtype=dtype)
                n = torch.tensor([200, 70], dtype=torch.int32, device=dev)
                out = lk.attention_decode(q, k, v, n)
                check(f"{dtype} d{dim} {q_heads}/{kv_heads} seq_q {seq_q} splits {splits} stages {stages} "
                      f"fold {fold}", out)
# the paged cache: pages of 16 and 64, one and several splits, -1 past each sequence's pages
for dtype in (torch.bfloat16, torch.float16):
    for dim in (64, 128):
        for page_size in (16, 64):
            for splits, fold in ((1, 0), (3, 1), (3, 2)):
                lk.ops._attention_decode_tuning(splits, 0, fold)
                q = r(2, 8, 1, dim, dtype=dtype)
                per_seq = 256 // page_size
                kp = r(2 * per_seq + 1, page_size, 2, dim, dtype=dtype)
                vp = r(2 * per_seq + 1, page_size, 2, dim, dtype=dtype)
                table = torch.randperm(2 * per_seq, device=dev).view(2, per_seq).to(torch.int32)
                table[1, (70 + page_size - 1) // page_size:] = -1
                n = torch.tensor([256, 70], dtype=torch.int32, device=dev)
                out = lk.attention_decode(q, kp, vp, n, block_table=table)
                check(f"paged {dtype} d{dim} pages of {page_size} splits {splits} fold {fold}", out)
lk.ops._attention_decode_tuning(0, 0)
# rope_paged_append: the vector path, the scalar path (a token stride off the
# 16-byte grid), a padding slot (-1) and one past the pool (its query NaN)
for dtype in (torch.bfloat16, torch.float16):
    for pad, neox in ((0, True), (2, False)):
        qkv = r(6, (8 + 2 * 2) * 128 + pad, dtype=dtype)
        q, k, v = qkv[:, :1024], qkv[:, 1024:1280], qkv[:, 1280:1536]
        kp, vp = r(2, 16, 2, 128, dtype=dtype), r(2, 16, 2, 128, dtype=dtype)
        cs = lk.rope_cos_sin_cache(64, 128, device=dev)
        slots = torch.tensor([0, 17, -1, 31, 5, 32], device=dev)
        lk.rope_paged_append(torch.arange(6, device=dev), q, k, v, 128, cs, neox, kp, vp, slots)
        check(f"append {dtype} pad {pad} pool", kp, vp)
        check(f"append {dtype} pad {pad} written queries", q[:5])
        if not torch.isnan(q[5]).all():
            bad.append(f"append {dtype} pad {pad}: the slot past the pool did not poison its query")
run.finish()

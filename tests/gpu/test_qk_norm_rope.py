"""GPU tests of qk_norm_rope: Qwen3's per-head RMSNorm (q_norm, k_norm) and
transformers' rotate-half RoPE in one pass, written as [B, H, S, D].

Every check compares with a float64 reference by ||out - ref|| / ||ref||
under the dtype's tolerance (lit_testing.check), on fresh random inputs and
weights, with the outputs' memory poisoned with NaN first. The tests that
compare with transformers' own Qwen3RMSNorm, apply_rotary_pos_emb and
Qwen3RotaryEmbedding run when transformers is importable.

    python3 -m pytest -q tests/gpu/test_qk_norm_rope.py   (from a package copy: tests/)
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lit_testing import DTYPES, check, lit, pytest, rand, requires_cuda  # noqa: E402

DEV = "cuda"
EPS = 1e-6


def reference(x, w, cos, sin, eps, d):
    """float64: per-head RMSNorm of x ([B, S, H*D] or [B, S, H, D]), then
    q * cos + rotate_half(q) * sin with cos/sin [B or 1, S, D] or [S, D];
    returns [B, H, S, D]."""
    b, s = x.shape[:2]
    x = x.double().reshape(b, s, -1, d)
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w.double()
    y = y.transpose(1, 2)
    c, sn = cos.double(), sin.double()
    if c.dim() == 2:
        c, sn = c[None], sn[None]
    c, sn = c[:, None], sn[:, None]
    half = d // 2
    rot = torch.cat([-y[..., half:], y[..., :half]], dim=-1)
    return y * c + rot * sn


def rotary_cos_sin(position_ids, d, base=1e6, dtype=torch.float32):
    """cos, sin [B, S, D] the way transformers' rotary_emb builds them (fp32
    angles, the frequencies repeated for both halves), cast to dtype."""
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64, device=DEV).float() / d))
    freqs = position_ids[:, :, None].float() * inv_freq[None, None, :]
    emb = torch.cat([freqs, freqs], dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def run_op(q, k, wq, wk, cos, sin, eps=EPS):
    d = wq.shape[0]
    b, s = q.shape[:2]
    hq = q.shape[2] if q.dim() == 4 else q.shape[2] // d
    hk = k.shape[2] if k.dim() == 4 else k.shape[2] // d
    # two NaN blocks of the outputs' sizes left in the caching allocator: the
    # op's outputs land on them, so an element it does not write shows
    blocks = [torch.full(shape, float("nan"), dtype=q.dtype, device=DEV)
              for shape in ((b, hq, s, d), (b, hk, s, d))]
    del blocks
    qo, ko = lit().qk_norm_rope(q, k, wq, wk, cos, sin, eps)
    assert qo.shape == (b, hq, s, d) and ko.shape == (b, hk, s, d), (qo.shape, ko.shape)
    assert qo.is_contiguous() and ko.is_contiguous()
    assert qo.dtype == q.dtype and ko.dtype == q.dtype
    return qo, ko


def check_op(q, k, wq, wk, cos, sin, what, eps=EPS):
    d = wq.shape[0]
    qo, ko = run_op(q, k, wq, wk, cos, sin, eps)
    check(qo, reference(q, wq, cos, sin, eps, d), q.dtype, what + " q")
    check(ko, reference(k, wk, cos, sin, eps, d), q.dtype, what + " k")
    return qo, ko


# (batch, seq, q heads, kv heads): Qwen3-8B's grouping, a batch, decode steps, MHA, MQA
SHAPES = [(1, 37, 32, 8), (3, 5, 4, 1), (2, 1, 16, 2), (1, 1, 8, 8), (4, 9, 6, 3)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("d", [64, 128, 256])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("table", ["f32 shared", "dtype per sequence"])
def test_against_float64(dtype, d, shape, table):
    requires_cuda()
    b, s, hq, hk = shape
    q, k = rand((b, s, hq * d), dtype, scale=2.0), rand((b, s, hk * d), dtype, scale=0.5)
    wq, wk = rand((d,), dtype, offset=1.0), rand((d,), dtype, offset=1.0)
    if table == "f32 shared":  # one table for the batch, as rotary_emb returns it for position_ids [1, S]
        pos = torch.arange(100, 100 + s, device=DEV)[None]
        cos, sin = rotary_cos_sin(pos, d)
    else:  # per-sequence positions, the model's dtype
        pos = torch.randint(0, 40000, (b, s), device=DEV)
        cos, sin = rotary_cos_sin(pos, d, dtype=dtype)
    check_op(q, k, wq, wk, cos, sin, f"{dtype} D={d} {shape} {table}")


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float32])
def test_halves_need_not_be_equal(dtype):
    """The op applies transformers' formula to whatever cos and sin it is
    given: tables whose halves differ give the reference's result too."""
    requires_cuda()
    b, s, d = 2, 7, 128
    q, k = rand((b, s, 4 * d), dtype), rand((b, s, 2 * d), dtype)
    wq, wk = rand((d,), dtype, offset=1.0), rand((d,), dtype, offset=1.0)
    cos, sin = rand((b, s, d), torch.float32), rand((b, s, d), torch.float32)
    check_op(q, k, wq, wk, cos, sin, "random tables")
    check_op(q, k, wq, wk, cos[0], sin[0], "random [S, D] tables")


def test_four_d_views_and_fused_qkv_slices():
    """q and k as column slices of one QKV projection (token stride wider
    than the heads), as [B, S, H, D] views, and with a sequence stride of
    two tokens; the input is left untouched."""
    requires_cuda()
    dt, b, s, hq, hk, d = torch.bfloat16, 2, 11, 8, 2, 128
    qkv = rand((b, s, (hq + 2 * hk) * d), dt)
    before = qkv.clone()
    q, k = qkv[..., : hq * d], qkv[..., hq * d: (hq + hk) * d]
    wq, wk = rand((d,), dt, offset=1.0), rand((d,), dt, offset=1.0)
    cos, sin = rotary_cos_sin(torch.arange(s, device=DEV)[None], d)
    qo, ko = check_op(q, k, wq, wk, cos, sin, "fused QKV slices")
    qo4, ko4 = check_op(q.view(b, s, hq, d), k.view(b, s, hk, d), wq, wk, cos, sin, "4-D views")
    assert torch.equal(qo, qo4) and torch.equal(ko, ko4)
    assert torch.equal(qkv, before), "qk_norm_rope wrote into its input"
    wide = rand((b, 2 * s, hq * d), dt)
    check_op(wide[:, ::2], rand((b, s, hk * d), dt), wq, wk, cos, sin, "sequence stride 2")


def test_long_prefill():
    """Qwen3-8B's heads at 4096 tokens: many blocks, one shared fp32 table."""
    requires_cuda()
    dt, s, d = torch.bfloat16, 4096, 128
    q, k = rand((1, s, 32 * d), dt), rand((1, s, 8 * d), dt)
    wq, wk = rand((d,), dt, offset=1.0), rand((d,), dt, offset=1.0)
    cos, sin = rotary_cos_sin(torch.arange(s, device=DEV)[None], d)
    check_op(q, k, wq, wk, cos, sin, "1x4096")


def test_empty():
    requires_cuda()
    dt, d = torch.bfloat16, 128
    w = rand((d,), dt, offset=1.0)
    qo, ko = lit().qk_norm_rope(rand((2, 0, 4 * d), dt), rand((2, 0, d), dt), w, w,
                                torch.zeros(1, 0, d, device=DEV), torch.zeros(1, 0, d, device=DEV))
    assert qo.shape == (2, 4, 0, d) and ko.shape == (2, 1, 0, d)


def _transformers_qwen3():
    try:
        from transformers.models.qwen3 import modeling_qwen3
    except Exception:  # noqa: BLE001
        return None
    return modeling_qwen3


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_matches_transformers_modules(dtype):
    """Against transformers' own Qwen3RMSNorm, Qwen3RotaryEmbedding and
    apply_rotary_pos_emb, run in float64 on the same inputs: the op must
    match them to the dtype's rounding."""
    requires_cuda()
    mq = _transformers_qwen3()
    if mq is None:
        pytest.skip("transformers with Qwen3 is not importable")
    from transformers import Qwen3Config
    b, s, hq, hk, d = 2, 19, 8, 2, 128
    try:
        cfg = Qwen3Config(hidden_size=hq * d, num_attention_heads=hq, num_key_value_heads=hk, head_dim=d,
                          rope_parameters={"rope_type": "default", "rope_theta": 1e6})
    except TypeError:
        cfg = Qwen3Config(hidden_size=hq * d, num_attention_heads=hq, num_key_value_heads=hk, head_dim=d,
                          rope_theta=1e6)
    rotary = mq.Qwen3RotaryEmbedding(cfg, device=DEV)
    q, k = rand((b, s, hq * d), dtype, scale=3.0), rand((b, s, hk * d), dtype)
    pos = torch.arange(500, 500 + s, device=DEV)[None].expand(b, s)
    cos32, sin32 = rotary(torch.empty(0, device=DEV, dtype=torch.float32), pos)
    cos16, sin16 = rotary(q, pos)  # what the model hands its attention layers
    q_norm = mq.Qwen3RMSNorm(d, eps=EPS).to(DEV, torch.float64)
    k_norm = mq.Qwen3RMSNorm(d, eps=EPS).to(DEV, torch.float64)
    with torch.no_grad():  # weights the dtype holds exactly: the op gets the same numbers
        q_norm.weight.copy_(rand((d,), dtype, offset=1.0).double())
        k_norm.weight.copy_(rand((d,), dtype, offset=1.0).double())
        for cos, sin, what in ((cos32, sin32, "fp32 tables"), (cos16, sin16, "model-dtype tables")):
            qh = q_norm(q.double().view(b, s, hq, d)).transpose(1, 2)
            kh = k_norm(k.double().view(b, s, hk, d)).transpose(1, 2)
            ref_q, ref_k = mq.apply_rotary_pos_emb(qh, kh, cos.double(), sin.double())
            qo, ko = run_op(q, k, q_norm.weight.to(dtype), k_norm.weight.to(dtype), cos, sin)
            check(qo, ref_q, dtype, f"q vs transformers ({what})")
            check(ko, ref_k, dtype, f"k vs transformers ({what})")


BAD = [
    ("head_dim 80", lambda L, r: L.qk_norm_rope(r(1, 3, 160), r(1, 3, 80), r(80), r(80), r(1, 3, 80),
                                                 r(1, 3, 80)), "head_dim 80 is not supported"),
    ("k_weight size", lambda L, r: L.qk_norm_rope(r(1, 3, 256), r(1, 3, 128), r(128), r(64),
                                                   r(1, 3, 128), r(1, 3, 128)), "k_weight"),
    ("heads not contiguous", lambda L, r: L.qk_norm_rope(
        r(1, 3, 64, 2).transpose(2, 3), r(1, 3, 64), r(64), r(64), r(1, 3, 64), r(1, 3, 64)),
     "contiguous heads"),
    ("last dim", lambda L, r: L.qk_norm_rope(r(1, 3, 96), r(1, 3, 64), r(64), r(64), r(1, 3, 64),
                                             r(1, 3, 64)), "multiple of head_dim"),
    ("misaligned", lambda L, r: L.qk_norm_rope(r(1, 3, 129)[..., 1:], r(1, 3, 64), r(64), r(64),
                                               r(1, 3, 64), r(1, 3, 64)), "16-byte"),
    ("seq mismatch", lambda L, r: L.qk_norm_rope(r(1, 3, 64), r(1, 4, 64), r(64), r(64), r(1, 3, 64),
                                                 r(1, 3, 64)), "batch and seq"),
    ("weight dtype", lambda L, r: L.qk_norm_rope(r(1, 3, 64), r(1, 3, 64), r(64).float(), r(64),
                                                 r(1, 3, 64), r(1, 3, 64)), "dtype"),
    ("cos shape", lambda L, r: L.qk_norm_rope(r(2, 3, 64), r(2, 3, 64), r(64), r(64), r(3, 3, 64),
                                              r(3, 3, 64)), "cos must be"),
    ("cos dtype", lambda L, r: L.qk_norm_rope(r(1, 3, 64), r(1, 3, 64), r(64), r(64),
                                              r(1, 3, 64).half(), r(1, 3, 64).half()), "float32 or the dtype"),
    ("cos/sin differ", lambda L, r: L.qk_norm_rope(r(1, 3, 64), r(1, 3, 64), r(64), r(64),
                                                   r(1, 3, 64).float(), r(1, 3, 64)), "same shape and dtype"),
    ("cpu", lambda L, r: L.qk_norm_rope(r(1, 3, 64).cpu(), r(1, 3, 64), r(64), r(64), r(1, 3, 64),
                                        r(1, 3, 64)), "CUDA"),
    ("int", lambda L, r: L.qk_norm_rope(torch.zeros(1, 3, 64, dtype=torch.int32, device=DEV),
                                        r(1, 3, 64), r(64), r(64), r(1, 3, 64), r(1, 3, 64)), "dtype"),
]


@pytest.mark.parametrize("name,fn,msg", BAD, ids=[b[0] for b in BAD])
def test_rejects(name, fn, msg):
    requires_cuda()

    def r(*shape):
        return rand(shape, torch.bfloat16)
    with pytest.raises(RuntimeError, match=msg):
        fn(lit(), r)


def test_torch_compile_fullgraph_and_opcheck():
    """Inside torch.compile(fullgraph=True) through the fake, with the
    outputs used by further ops; and torch.library.opcheck on the schema."""
    requires_cuda()
    L = lit()
    dt, b, s, d = torch.bfloat16, 2, 33, 128
    q, k = rand((b, s, 8 * d), dt), rand((b, s, 2 * d), dt)
    wq, wk = rand((d,), dt, offset=1.0), rand((d,), dt, offset=1.0)
    cos, sin = rotary_cos_sin(torch.arange(s, device=DEV)[None], d)

    def fn(q, k, wq, wk, cos, sin):
        qo, ko = L.qk_norm_rope(q, k, wq, wk, cos, sin, EPS)
        return qo * 2, (ko + 1).sum(dim=1)

    torch._dynamo.reset()
    eager = fn(q, k, wq, wk, cos, sin)
    compiled = torch.compile(fn, fullgraph=True)(q, k, wq, wk, cos, sin)
    for o, e in zip(compiled, eager):
        check(o, e.double(), dt, "compiled vs eager")
    op = L.ops.qk_norm_rope.default
    torch.library.opcheck(op, (q, k, wq, wk, cos, sin, EPS))
    torch.library.opcheck(op, (q.view(b, s, 8, d).half(), k.view(b, s, 2, d).half(), wq.half(), wk.half(),
                               cos[0].half(), sin[0].half(), 1e-5))


if __name__ == "__main__":
    from _minipytest import run_module
    sys.exit(run_module(globals(), sys.argv[1] if len(sys.argv) > 1 else None))

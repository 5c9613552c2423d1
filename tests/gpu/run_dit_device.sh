#!/bin/bash
# The GPU pass for the DiT block norms (references/dit-block.md), on the package
# exactly as tangled: one build, their tests, their benchmark cases, LTX-Video's
# compiled table and compute-sanitizer on their subset. Every step's time limit
# is cut to what is left before DEADLINE (default 530 s), so one call returns
# within 9 minutes with whatever finished, in this order of importance.
#   OUT=dir bash tests/gpu/run_dit_device.sh [GPU_TAG] [STEPS]
# STEPS (default tests,bench,ltx,sanitize) picks what runs after the build;
# ltx8064 adds the compiled table at 2 x 8064 tokens (--frames 21), ltx_tokens
# the one with a timestep per token. A warm machine keeps BUILD_DIR: a second
# call with REUSE_BUILD=1 skips the build, e.g. REUSE_BUILD=1 ... run_dit_device.sh h100 ltx8064,ltx_tokens.
# Writes $OUT/dit_block_$TAG.json (bench_ops.py), $OUT/ltx_compiled_$TAG.json
# (and _8064, _tokens), $OUT/norm_modulate_ptxas_$TAG.txt and $OUT/logs.tar.gz.
# diffusers comes from .fetched/diffusers/src (DIFFUSERS_SRC to change it).
set -u
TAG=${1:-h100}
STEPS=",${2:-tests,bench,ltx,sanitize},"
want() { [[ $STEPS == *",$1,"* ]]; }
OUT=${OUT:-$PWD/build/device-out}; mkdir -p "$OUT"
LOGS=$(mktemp -d)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
DEADLINE=${DEADLINE:-530}
# limit CAP: the step's own cap in seconds, or what is left before the deadline if less
limit() { local left=$(( DEADLINE - $(el) )); if (( left < $1 )); then echo $(( left > 0 ? left : 1 )); else echo "$1"; fi; }
left() { echo $(( DEADLINE - $(el) )); }
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
finish() { tar -czf "$OUT/logs.tar.gz" -C "$LOGS" . ; echo "done ($(el)s)"; }
trap finish EXIT
DIFFUSERS_SRC=${DIFFUSERS_SRC:-$PWD/.fetched/diffusers/src}
DIFFUSERS_COMMIT=$(cat .fetched/DIFFUSERS_COMMIT 2>/dev/null || echo unknown)
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  python3 -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__)"
  echo "diffusers $DIFFUSERS_SRC at $DIFFUSERS_COMMIT"
} > "$LOGS/env.txt" 2>&1; cat "$LOGS/env.txt"

BUILD_DIR=${BUILD_DIR:-/tmp/litbuild}
if [ -n "${REUSE_BUILD:-}" ] && ls "$BUILD_DIR"/torch*-linux/lit_kernels/_lit_kernels.so >/dev/null 2>&1; then
  echo "build reused from $BUILD_DIR"
else
  timeout "$(limit 240)" python3 kernels/build_local.py --archs 9.0 --out "$BUILD_DIR" --ptxas-report \
    > "$LOGS/build.txt" 2>&1
  rc=$?; echo "build rc=$rc ($(el)s)"; [ $rc = 0 ] || { tail -30 "$LOGS/build.txt"; exit 1; }
  # registers and spills of every norm_modulate_kernel instantiation on this GPU's target
  grep -A3 "Compiling entry function '.*norm_modulate_kernel" "$LOGS/build.txt" \
    | grep -E "Compiling entry|Used|spill" > "$OUT/norm_modulate_ptxas_$TAG.txt"
fi
export LIT_KERNELS_PATH=$(ls -d "$BUILD_DIR"/torch*-linux | head -1)
export PYTHONPATH=$LIT_KERNELS_PATH:$DIFFUSERS_SRC

if want tests; then
  timeout "$(limit 170)" python3 -m pytest -q -p no:cacheprovider tests/gpu/test_dit_block.py \
    > "$LOGS/tests.txt" 2>&1
  echo "tests rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests.txt" | tail -3
  grep -E "^FAILED" "$LOGS/tests.txt" | head -20
fi

if want bench; then
  timeout "$(limit 130)" python3 kernels/benchmarks/bench_ops.py --out "$OUT/dit_block_$TAG.json" \
    --only norm_modulate_rms,norm_modulate_rms_per_token,residual_norm_modulate_rms,gated_residual_norm_modulate_rms,gated_residual_norm_modulate_layer \
    > "$LOGS/bench.txt" 2>&1
  echo "bench rc=$? ($(el)s)"; grep -vE "^\s*$" "$LOGS/bench.txt" | tail -14
fi

# LTX-Video's compiled table: the stock model compiled, each patch alone, all,
# and the default set the rule gives; results are saved after every configuration.
ltx() {  # ltx NAME SECONDS_CAP [script flags...]
  local name=$1 cap=$2; shift 2
  local L; L=$(limit "$cap")
  if (( L < 60 )); then echo "$name skipped: $(left)s left"; return; fi
  timeout "$L" python3 kernels/scripts/ltx_kernel_injection.py --compiled --profile --budget $(( L - 45 )) \
    --diffusers-commit "$DIFFUSERS_COMMIT" --out "$OUT/$name.json" "$@" > "$LOGS/$name.txt" 2>&1
  echo "$name rc=$? ($(el)s)"; grep -E "^\[compiled\]|^built|ltx_kernel_injection|Error" "$LOGS/$name.txt" | tail -14
  grep -A12 '"helps"' "$LOGS/$name.txt" | head -24
}
want ltx && ltx "ltx_compiled_$TAG" 260
want ltx8064 && ltx "ltx_compiled_8064_$TAG" 300 --frames 21
want ltx_tokens && ltx "ltx_compiled_tokens_$TAG" 260 --per-token-timesteps

want sanitize && for tool in memcheck racecheck; do
  L=$(limit 75)
  if (( L < 30 )); then echo "sanitize $tool skipped: $(left)s left"; continue; fi
  timeout "$L" compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/sanitize_dit_block.py \
    > "$LOGS/sanitize_$tool.txt" 2>&1
  echo "sanitize $tool rc=$? ($(el)s)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|sanitize_dit_block:" "$LOGS/sanitize_$tool.txt" | tail -2
done

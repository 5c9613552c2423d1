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
. tests/gpu/device_common.sh
DIFFUSERS_SRC=${DIFFUSERS_SRC:-$PWD/.fetched/diffusers/src}
DIFFUSERS_COMMIT=$(cat .fetched/DIFFUSERS_COMMIT 2>/dev/null || echo unknown)
record_env "diffusers $DIFFUSERS_SRC at $DIFFUSERS_COMMIT"

BUILD_DIR=${BUILD_DIR:-/tmp/litbuild}
build_package "$BUILD_DIR" "$(limit 240)"
# registers and spills of every norm_modulate_kernel instantiation on this GPU's target
[ "$BUILT" = 1 ] && grep -A3 "Compiling entry function '.*norm_modulate_kernel" "$LOGS/build.txt" \
  | grep -E "Compiling entry|Used|spill" > "$OUT/norm_modulate_ptxas_$TAG.txt"
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

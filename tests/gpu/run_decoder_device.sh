#!/bin/bash
# The decoder-layer pass, on the package exactly as tangled: one build, the
# qk_norm_rope and decoder-layer test suites, then the transformers compiled
# table (transformers_injection.py --mode compiled) for Qwen3 and LLaMA in what
# is left of the call. Every step has a time cap and the whole call stays
# under 9 minutes (TOTAL, default 530 s); the table's JSON is rewritten after
# every row, so a cut keeps what was measured.
#   OUT=dir bash tests/gpu/run_decoder_device.sh [GPU_TAG] [STEPS]   (GPU_TAG: h100, h200)
# STEPS (default build,tests,table) picks the steps. More: sanitize
# (compute-sanitizer memcheck and racecheck of qk_norm_rope), qk_bench (the
# qk_norm_rope rows of bench_ops.py), compare (--mode compare with the new
# patches: eager and compiled checks at the script's compare cases).
# BUILD_DIR (default build/decoder inside the repository, git-ignored)
# survives between calls to a warm machine: REUSE_BUILD=1 then skips the
# build, and Inductor's cache there shortens the table's compiles. A second
# call, REUSE_BUILD=1 ... run_decoder_device.sh h100 table, gives the table
# the whole call.
# TABLE_ARGS adds arguments to the table's command line (say
# "--prefill 1x4096,1x2048,8x512" or "--models qwen3").
# Writes $OUT/transformers_compiled_$TAG.json (and with the optional steps
# $OUT/ops_qk_$TAG.json, $OUT/transformers_compare_$TAG.json) and $OUT/logs.tar.gz.
set -u
TAG=${1:-h100}
STEPS=",${2:-build,tests,table},"
want() { [[ $STEPS == *",$1,"* ]]; }
TOTAL=${TOTAL:-530}  # seconds the call may take, all steps together
DEADLINE=$TOTAL
. tests/gpu/device_common.sh
record_env "$(python3 -c "import transformers; print('transformers', transformers.__version__)" 2>&1)"

BUILD_DIR=${BUILD_DIR:-$PWD/build/decoder}
export TORCHINDUCTOR_CACHE_DIR=$BUILD_DIR/inductor-cache
if reusable "$BUILD_DIR" || want build; then
  build_package "$BUILD_DIR" 240
  [ "$BUILT" = 1 ] && grep -A3 "qk_norm_rope_kernel" "$LOGS/build.txt" | grep -E "registers|spill" \
    | sort | uniq -c | head -8
else
  echo "no build in $BUILD_DIR and the build step not asked for"; exit 1
fi
export PYTHONPATH=$LIT_KERNELS_PATH

if want tests; then  # one file at a time, so a cut in the second keeps the first's summary
  for t in test_qk_norm_rope:60 test_decoder_layers:170; do
    timeout ${t#*:} python3 -m pytest -q -p no:cacheprovider tests/gpu/${t%:*}.py > "$LOGS/${t%:*}.txt" 2>&1
    echo "${t%:*} rc=$? ($(el)s)"; grep -E "passed|failed|error|FAILED" "$LOGS/${t%:*}.txt" | tail -10
  done
fi

want sanitize && for tool in memcheck racecheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/sanitize_qk_norm_rope.py \
    > "$LOGS/sanitize_qk_norm_rope_$tool.txt" 2>&1
  echo "sanitize_qk_norm_rope $tool rc=$? ($(el)s)"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|sanitize_qk_norm_rope:" "$LOGS/sanitize_qk_norm_rope_$tool.txt" | tail -2
done

if want qk_bench; then
  timeout 150 python3 kernels/benchmarks/bench_ops.py --only qk_norm_rope --out "$OUT/ops_qk_$TAG.json" \
    > "$LOGS/bench_qk.txt" 2>&1
  echo "bench_ops qk_norm_rope rc=$? ($(el)s)"; grep "^qk_norm_rope" "$LOGS/bench_qk.txt" | tail -8
fi

if want compare; then
  LEFT=$(( TOTAL - $(el) - 30 ))
  [ $LEFT -gt 120 ] && { timeout $LEFT python3 kernels/scripts/transformers_injection.py --models qwen3,llama \
    --patches norms,mlp,qk_norm_rope,layer_fusion,attention --deadline $(( LEFT - 60 )) \
    --out "$OUT/transformers_compare_$TAG.json" > "$LOGS/compare.txt" 2>&1
  echo "compare rc=$? ($(el)s)"; grep -E "^\[|transformers_injection|Error" "$LOGS/compare.txt" | cut -c1-300 | tail -12; }
fi

if want table; then
  # the script stops starting measurements at --deadline; the timeout is the backstop
  LEFT=$(( TOTAL - $(el) ))
  if [ $LEFT -gt 90 ]; then
    timeout $LEFT python3 kernels/scripts/transformers_injection.py --mode compiled --models qwen3,llama \
      --deadline $(( LEFT - 75 )) --out "$OUT/transformers_compiled_$TAG.json" ${TABLE_ARGS:-} \
      > "$LOGS/table.txt" 2>&1
    echo "table rc=$? ($(el)s)"; grep -E "^\[|transformers_injection|Error" "$LOGS/table.txt" | cut -c1-300 | tail -40
  else
    echo "table skipped: $LEFT s left"
  fi
fi

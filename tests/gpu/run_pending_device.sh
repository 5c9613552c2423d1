#!/bin/bash
# Everything that has not yet run on a GPU, in calls that each fit the device
# tool's 10 minutes (see tests/gpu/PENDING.md for the order and what each
# result unblocks). Each call builds the package as tangled, then runs one
# phase; every step's limit is cut to what is left before DEADLINE (530 s).
#   OUT=dir bash tests/gpu/run_pending_device.sh [GPU_TAG] PHASE
# PHASE:
#   tests   every GPU test suite, the existing ones and the new ones
#   bench   bench_ops (GEGLU's erff form, LayerNorm's merged kernel and its
#           wide rows, qk_norm_rope, the DiT block norms) and the norm benchmark
#   sanitize  compute-sanitizer memcheck and racecheck on the new ops, then on
#           the LayerNorm / activation subset
#   fp8     the FP8 suite, the GEMM and attention suites, and bench_fp8
#   fp8_models  bench_fp8_models (MODELS=flux,qwen3 by default)
#   sanitize_hopper  memcheck and racecheck on the FP8 GEMM, the GEMM and attention
#   cuda_graphs  the CUDA-graph example of troubleshooting.md and its test
#   fp8_attention  the FP8 attention suite, the attention suites (the kernel it
#           shares), memcheck and racecheck on it, and bench_fp8_attention
#   gemm_shapes  the GEMM suite (the few-rows kernel included), the layer suite
#           whose GEMMs it now takes (SKIP_LAYERS=1 leaves it out), and
#           bench_gemm_shapes (the shape sweep)
# The compiled model tables have their own scripts: run_dit_device.sh (LTX-Video)
# and run_decoder_device.sh (Qwen3, LLaMA).
set -u
TAG=${1:-h100}
PHASE=${2:?phase: tests, bench or sanitize}
. tests/gpu/device_common.sh
DIFFUSERS_SRC=${DIFFUSERS_SRC:-$PWD/.fetched/diffusers/src}
record_env

BUILD_DIR=${BUILD_DIR:-/tmp/litbuild}
build_package "$BUILD_DIR" "$(limit 260)"
[ "$BUILT" = 1 ] && cp "$LOGS/build.txt" "$OUT/build_$TAG.txt"
export PYTHONPATH=$LIT_KERNELS_PATH:$DIFFUSERS_SRC

suite() {  # suite NAME CAP FILES...: one pytest run, its summary line and failures
  local name=$1 cap=$2; shift 2
  local L; L=$(limit "$cap")
  if (( L < 20 )); then echo "$name skipped: not enough time left"; return; fi
  timeout "$L" python3 -m pytest -q -p no:cacheprovider "$@" > "$LOGS/tests_$name.txt" 2>&1
  echo "$name rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests_$name.txt" | tail -1
  grep -E "^FAILED|^ERROR" "$LOGS/tests_$name.txt" | head -15
  cp "$LOGS/tests_$name.txt" "$OUT/tests_${name}_$TAG.txt"
}
sanitize() {  # sanitize SCRIPT CAP: memcheck and racecheck
  for tool in memcheck racecheck; do
    local L; L=$(limit "$2")
    if (( L < 20 )); then echo "$1 $tool skipped"; continue; fi
    timeout "$L" compute-sanitizer --tool $tool --error-exitcode 9 python3 "tests/gpu/$1.py" \
      > "$LOGS/${1}_$tool.txt" 2>&1
    echo "$1 $tool rc=$? ($(el)s)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOGS/${1}_$tool.txt" | tail -1
    cp "$LOGS/${1}_$tool.txt" "$OUT/${1}_${tool}_$TAG.txt"
  done
}

case $PHASE in
  tests)
    # the new suites first: they are what has never run
    suite qk_norm_rope 60 tests/gpu/test_qk_norm_rope.py
    suite dit_block 170 tests/gpu/test_dit_block.py
    suite ops 90 tests/gpu/test_ops.py
    suite norms_layers 90 tests/gpu/test_norms.py tests/gpu/test_layers.py
    suite gemm 90 tests/gpu/test_gemm.py
    suite attention 90 tests/gpu/test_attention.py tests/gpu/test_attention_decode.py
    suite decoder_layers 170 tests/gpu/test_decoder_layers.py
    suite cuda_graphs 90 tests/gpu/test_cuda_graphs.py
    ;;
  cuda_graphs)
    suite cuda_graphs 120 tests/gpu/test_cuda_graphs.py
    L=$(limit 120)
    timeout "$L" python3 kernels/scripts/cuda_graphs_example.py > "$LOGS/cuda_graphs_example.txt" 2>&1
    echo "cuda_graphs_example rc=$? ($(el)s)"; tail -3 "$LOGS/cuda_graphs_example.txt"
    cp "$LOGS/cuda_graphs_example.txt" "$OUT/cuda_graphs_example_$TAG.txt"
    ;;
  bench)
    L=$(limit 200)
    timeout "$L" python3 kernels/benchmarks/bench_ops.py --out "$OUT/ops_$TAG.json" > "$LOGS/bench_ops.txt" 2>&1
    echo "bench_ops rc=$? ($(el)s)"; tail -40 "$LOGS/bench_ops.txt"; cp "$LOGS/bench_ops.txt" "$OUT/bench_ops_$TAG.txt"
    B=$(( $(limit 240) - 40 ))
    if (( B > 60 )); then
      timeout $(( B + 40 )) python3 kernels/benchmarks/bench_norms.py --out "$OUT/rmsnorm_$TAG.json" --budget "$B" \
        > "$LOGS/bench_norms.txt" 2>&1
      echo "bench_norms rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_norms.txt" | tail -30
    fi
    ;;
  fp8)
    # the FP8 GEMM and quantizers, and the Hopper kernels the ring refactor touched
    suite fp8 150 tests/gpu/test_fp8.py
    suite gemm 90 tests/gpu/test_gemm.py
    suite attention 120 tests/gpu/test_attention.py tests/gpu/test_attention_decode.py
    L=$(limit 240)
    timeout "$L" python3 kernels/benchmarks/bench_fp8.py --out "$OUT/fp8_$TAG.json" > "$LOGS/bench_fp8.txt" 2>&1
    echo "bench_fp8 rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_fp8.txt" | tail -40; tail -5 "$LOGS/bench_fp8.txt"
    ;;
  fp8_models)
    # compiled Flux-shaped and Qwen3-shaped models: bf16, the plain FP8 recipe, the FP8 patches
    L=$(limit 480)
    timeout "$L" python3 kernels/benchmarks/bench_fp8_models.py --out "$OUT/fp8_models_$TAG.json" \
      --diffusers-src "$DIFFUSERS_SRC" --models "${MODELS:-flux,qwen3}" > "$LOGS/bench_fp8_models.txt" 2>&1
    echo "bench_fp8_models rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_fp8_models.txt" | tail -20
    tail -25 "$LOGS/bench_fp8_models.txt"
    ;;
  fp8_attention)
    suite fp8_attention 120 tests/gpu/test_fp8_attention.py
    suite attention 100 tests/gpu/test_attention.py
    sanitize sanitize_fp8_attention 60
    L=$(limit 200)
    timeout "$L" python3 kernels/benchmarks/bench_fp8_attention.py --out "$OUT/fp8_attention_$TAG.json" \
      > "$LOGS/bench_fp8_attention.txt" 2>&1
    echo "bench_fp8_attention rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_fp8_attention.txt" | tail -12
    tail -5 "$LOGS/bench_fp8_attention.txt"
    ;;
  gemm_shapes)
    suite gemm 120 tests/gpu/test_gemm.py
    [ -n "${SKIP_LAYERS:-}" ] || suite layers 90 tests/gpu/test_layers.py
    L=$(limit 420)
    timeout "$L" python3 kernels/benchmarks/bench_gemm_shapes.py --out "$OUT/gemm_shapes_$TAG.json" \
      > "$LOGS/bench_gemm_shapes.txt" 2>&1
    echo "bench_gemm_shapes rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_gemm_shapes.txt" | tail -120
    tail -3 "$LOGS/bench_gemm_shapes.txt"
    ;;
  sanitize_hopper)
    # the kernels on the shared Hopper ring
    sanitize sanitize_fp8 90
    sanitize sanitize_gemm 90
    sanitize sanitize_attention 90
    ;;
  sanitize)
    sanitize sanitize_fp8 60
    sanitize sanitize_qk_norm_rope 60
    sanitize sanitize_dit_block 75
    sanitize sanitize_ops 60
    sanitize sanitize_norms 60
    ;;
  *) echo "unknown phase $PHASE"; exit 2 ;;
esac

#!/bin/bash
# The GPU pass for every kernel, on the package exactly as tangled: one build,
# the norm, op and GEMM test suites, compute-sanitizer memcheck and racecheck
# on a representative subset, the benchmarks and the GEMM profile. Each step
# has a time cap so the call returns within the device tool's 10 minutes
# with whatever finished.
#   OUT=dir bash tests/gpu/run_all_device.sh [GPU_TAG] [STEPS]   (GPU_TAG: h100, h200)
# STEPS (default tests,sanitize,norms,ops) picks what runs after the build;
# the GEMM's: gemm_tests, gemm_sanitize, gemm_bench, gemm_profile (all of
# them: gemm); the attention's: attention_tests, attention_sanitize,
# attention_bench (all of them: attention); attention decode's:
# decode_tests, decode_sanitize, decode_bench (all three: decode).
# NORMS_BUDGET (default 240) caps the norm benchmark's seconds.
# Writes $OUT/rmsnorm_$TAG.json, $OUT/ops_$TAG.json, $OUT/gemm_$TAG.json,
# $OUT/gemm_profile_$TAG.json, $OUT/attention_$TAG.json,
# $OUT/attention_decode_$TAG.json and $OUT/logs.tar.gz.
# Set DIFFUSERS_SRC to a diffusers src/ folder to add the diffusers comparisons.
set -u
TAG=${1:-h100}
STEPS=",${2:-tests,sanitize,norms,ops},"
STEPS=${STEPS/,gemm,/,gemm_tests,gemm_sanitize,gemm_bench,gemm_profile,}
STEPS=${STEPS/,attention,/,attention_tests,attention_sanitize,attention_bench,}
STEPS=${STEPS/,decode,/,decode_tests,decode_sanitize,decode_bench,}
want() { [[ $STEPS == *",$1,"* ]]; }
OUT=${OUT:-$PWD/build/device-out}; mkdir -p "$OUT"
LOGS=$(mktemp -d)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
finish() { tar -czf "$OUT/logs.tar.gz" -C "$LOGS" . ; echo "done ($(el)s)"; }
trap finish EXIT
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  python3 -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__)"
} > "$LOGS/env.txt" 2>&1; cat "$LOGS/env.txt"

# BUILD_DIR inside the repository (build/ is git-ignored) survives between
# calls to a warm device machine; REUSE_BUILD=1 then skips the build.
BUILD_DIR=${BUILD_DIR:-/tmp/litbuild}
if [ -n "${REUSE_BUILD:-}" ] && ls "$BUILD_DIR"/torch*-linux/lit_kernels/_lit_kernels.so >/dev/null 2>&1; then
  echo "build reused from $BUILD_DIR"
else
  timeout 300 python3 kernels/build_local.py --archs 9.0 --out "$BUILD_DIR" --ptxas-report > "$LOGS/build.txt" 2>&1
  rc=$?; echo "build rc=$rc ($(el)s)"; [ $rc = 0 ] || { tail -30 "$LOGS/build.txt"; exit 1; }
fi
export LIT_KERNELS_PATH=$(ls -d "$BUILD_DIR"/torch*-linux | head -1)
export PYTHONPATH=$LIT_KERNELS_PATH${DIFFUSERS_SRC:+:$DIFFUSERS_SRC}

if want tests; then
  timeout 240 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_norms.py tests/gpu/test_ops.py tests/gpu/test_layers.py \
    > "$LOGS/tests.txt" 2>&1
  echo "tests rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests.txt" | tail -3
fi

want sanitize && for script in sanitize_norms sanitize_ops; do
  for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/$script.py \
      > "$LOGS/${script}_$tool.txt" 2>&1
    echo "$script $tool rc=$? ($(el)s)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOGS/${script}_$tool.txt" | tail -1
  done
done

if want gemm_tests; then
  timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_gemm.py > "$LOGS/tests_gemm.txt" 2>&1
  echo "gemm tests rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests_gemm.txt" | tail -3
fi

want gemm_sanitize && for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/sanitize_gemm.py \
    > "$LOGS/sanitize_gemm_$tool.txt" 2>&1
  echo "sanitize_gemm $tool rc=$? ($(el)s)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|sanitize_gemm:" "$LOGS/sanitize_gemm_$tool.txt" | tail -2
done

if want gemm_bench; then
  timeout 300 python3 kernels/benchmarks/bench_gemm.py --out "$OUT/gemm_$TAG.json" > "$LOGS/bench_gemm.txt" 2>&1
  echo "bench_gemm rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_gemm.txt" | tail -24
fi
if want gemm_profile; then
  timeout 300 python3 kernels/benchmarks/profile_gemm.py --out "$OUT/gemm_profile_$TAG.json" --raw-dir "$LOGS" \
    > "$LOGS/profile_gemm.txt" 2>&1
  echo "profile_gemm rc=$? ($(el)s)"; grep "^# " "$LOGS/profile_gemm.txt" | tail -24
fi

if want attention_tests; then
  timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_attention.py > "$LOGS/tests_attention.txt" 2>&1
  echo "attention tests rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests_attention.txt" | tail -3
fi
want attention_sanitize && for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/sanitize_attention.py \
    > "$LOGS/sanitize_attention_$tool.txt" 2>&1
  echo "sanitize_attention $tool rc=$? ($(el)s)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|sanitize_attention:" "$LOGS/sanitize_attention_$tool.txt" | tail -2
done
if want attention_bench; then
  timeout 300 python3 kernels/benchmarks/bench_attention.py --out "$OUT/attention_$TAG.json" > "$LOGS/bench_attention.txt" 2>&1
  echo "bench_attention rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_attention.txt" | tail -12
fi
if want decode_tests; then
  timeout 300 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_attention_decode.py \
    > "$LOGS/tests_attention_decode.txt" 2>&1
  echo "decode tests rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests_attention_decode.txt" | tail -3
fi
want decode_sanitize && for tool in memcheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/sanitize_attention_decode.py \
    > "$LOGS/sanitize_attention_decode_$tool.txt" 2>&1
  echo "sanitize_attention_decode $tool rc=$? ($(el)s)"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|sanitize_attention_decode:" "$LOGS/sanitize_attention_decode_$tool.txt" | tail -2
done
if want decode_bench; then
  timeout 300 python3 kernels/benchmarks/bench_attention_decode.py --out "$OUT/attention_decode_$TAG.json" \
    > "$LOGS/bench_attention_decode.txt" 2>&1
  echo "bench_attention_decode rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_attention_decode.txt" | tail -12
fi

if want norms; then
  B=${NORMS_BUDGET:-240}
  timeout $((B + 60)) python3 kernels/benchmarks/bench_norms.py --out "$OUT/rmsnorm_$TAG.json" --budget "$B" \
    > "$LOGS/bench_norms.txt" 2>&1
  echo "bench_norms rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_norms.txt" | tail -50
fi
if want ops; then
  timeout 150 python3 kernels/benchmarks/bench_ops.py --out "$OUT/ops_$TAG.json" > "$LOGS/bench_ops.txt" 2>&1
  echo "bench_ops rc=$? ($(el)s)"; tail -12 "$LOGS/bench_ops.txt"
fi

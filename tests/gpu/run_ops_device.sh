#!/bin/bash
# One GPU-machine pass for layer_norm, activations and RoPE: build, tests,
# sanitizer, benchmark, on the package as tangled (mirrors run_norms_device.sh).
#   bash tests/gpu/run_ops_device.sh [RESULTS_NAME] [bench_ops.py flags...]
# Writes under $OUT (default ./build/device-out): logs and RESULTS_NAME.json.
# Set DIFFUSERS_SRC to a diffusers src/ folder to run the tests that compare
# with diffusers' own LTX-Video RoPE, GEGLU, SwiGLU and GELU.
set -u
NAME=${1:-ops_h100}; shift || true
OUT=${OUT:-$PWD/build/device-out}; mkdir -p "$OUT"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/env.txt"
python3 kernels/build_local.py --out /tmp/litbuild --ptxas-report > "$OUT/build_log.txt" 2>&1 || { tail -30 "$OUT/build_log.txt"; exit 1; }
export LIT_KERNELS_PATH=$(ls -d /tmp/litbuild/torch*)
export PYTHONPATH=$LIT_KERNELS_PATH${DIFFUSERS_SRC:+:$DIFFUSERS_SRC}
echo "build done ($(el)s)"
python3 -m pytest -q -p no:cacheprovider tests/gpu/test_ops.py > "$OUT/ops_test_log.txt" 2>&1
echo "tests rc=$? ($(el)s)"; tail -3 "$OUT/ops_test_log.txt"
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/sanitize_ops.py > "$OUT/ops_sanitizer_$tool.txt" 2>&1
  echo "$tool rc=$? ($(el)s)"
done
python3 kernels/benchmarks/bench_ops.py --out "$OUT/$NAME.json" "$@" 2>&1 | tee "$OUT/ops_bench_log.txt" | tail -30
echo "done ($(el)s)"

#!/bin/bash
# The GPU pass for every kernel, on the package exactly as tangled: one build,
# the norm and op test suites, compute-sanitizer memcheck and racecheck on a
# representative subset, and both benchmarks. Each step has a time cap so the
# call returns within the device tool's 10 minutes with whatever finished.
#   OUT=dir bash tests/gpu/run_all_device.sh [GPU_TAG]      (GPU_TAG: h100, h200)
# Writes $OUT/rmsnorm_$TAG.json, $OUT/ops_$TAG.json and $OUT/logs.tar.gz.
# Set DIFFUSERS_SRC to a diffusers src/ folder to add the diffusers comparisons.
set -u
TAG=${1:-h100}
OUT=${OUT:-$PWD/build/device-out}; mkdir -p "$OUT"
LOGS=$(mktemp -d)
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
finish() { tar -czf "$OUT/logs.tar.gz" -C "$LOGS" . ; echo "done ($(el)s)"; }
trap finish EXIT
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
  python3 -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__)"
} > "$LOGS/env.txt" 2>&1; cat "$LOGS/env.txt"

timeout 150 python3 kernels/build_local.py --archs 9.0 --out /tmp/litbuild --ptxas-report > "$LOGS/build.txt" 2>&1
rc=$?; echo "build rc=$rc ($(el)s)"; [ $rc = 0 ] || { tail -30 "$LOGS/build.txt"; exit 1; }
export LIT_KERNELS_PATH=$(ls -d /tmp/litbuild/torch*-linux | head -1)
export PYTHONPATH=$LIT_KERNELS_PATH${DIFFUSERS_SRC:+:$DIFFUSERS_SRC}

timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_norms.py tests/gpu/test_ops.py \
  > "$LOGS/tests.txt" 2>&1
echo "tests rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests.txt" | tail -3

for script in sanitize_norms sanitize_ops; do
  for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/$script.py \
      > "$LOGS/${script}_$tool.txt" 2>&1
    echo "$script $tool rc=$? ($(el)s)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOGS/${script}_$tool.txt" | tail -1
  done
done

timeout 170 python3 kernels/benchmarks/bench_norms.py --out "$OUT/rmsnorm_$TAG.json" --budget 150 \
  > "$LOGS/bench_norms.txt" 2>&1
echo "bench_norms rc=$? ($(el)s)"; grep "^# " "$LOGS/bench_norms.txt" | tail -25
timeout 150 python3 kernels/benchmarks/bench_ops.py --out "$OUT/ops_$TAG.json" > "$LOGS/bench_ops.txt" 2>&1
echo "bench_ops rc=$? ($(el)s)"; tail -12 "$LOGS/bench_ops.txt"

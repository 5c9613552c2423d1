#!/bin/bash
# One GPU-machine pass for the norm kernels: build, tests, sanitizer, benchmark.
#   bash tests/gpu/run_norms_device.sh [RESULTS_NAME] [bench_norms.py flags...]
# Writes under $OUT (default ./build/device-out): build/test/sanitizer/bench logs and RESULTS_NAME.json.
set -u
NAME=${1:-rmsnorm_h100}; shift || true
OUT=${OUT:-$PWD/build/device-out}; mkdir -p "$OUT"
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
nvidia-smi --query-gpu=name,driver_version --format=csv | tee "$OUT/env.txt"
python3 -c "import torch, triton; print(torch.__version__, torch.version.cuda, triton.__version__)" | tee -a "$OUT/env.txt"
python3 kernels/build_local.py --out /tmp/litbuild --ptxas-report > "$OUT/build_log.txt" 2>&1 || { tail -30 "$OUT/build_log.txt"; exit 1; }
export LIT_KERNELS_PATH=$(ls -d /tmp/litbuild/torch*)
echo "build done ($(el)s)"
if python3 -m pytest --version >/dev/null 2>&1; then
  python3 -m pytest -q -p no:cacheprovider tests/gpu/test_norms.py > "$OUT/test_log.txt" 2>&1
else
  python3 tests/gpu/test_norms.py > "$OUT/test_log.txt" 2>&1
fi
echo "tests rc=$? ($(el)s)"; tail -3 "$OUT/test_log.txt"
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 9 python3 tests/gpu/sanitize_norms.py > "$OUT/sanitizer_$tool.txt" 2>&1
  echo "$tool rc=$? ($(el)s)"
done
python3 kernels/benchmarks/bench_norms.py --out "$OUT/$NAME.json" "$@" 2>&1 | tee "$OUT/bench_log.txt" | grep "^# " | tail -60
echo "done ($(el)s)"

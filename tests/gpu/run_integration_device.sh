#!/bin/bash
# The integration pass: the skill's scripts, exactly as tangled into
# kernels/scripts/, against the package as tangled. diffusers and HF's kernels
# library come from sources fetched into .fetched/ (git-ignored, carried).
#   OUT=dir bash tests/gpu/run_integration_device.sh [GPU_TAG]
# Writes $OUT/transformers_$TAG.json, $OUT/ltx_$TAG.json, $OUT/hub_local.json, $OUT/logs.tar.gz.
set -u
TAG=${1:-h100}
OUT=${OUT:-$PWD/build/device-out}; mkdir -p "$OUT"
LOGS=$(mktemp -d)
S=kernels/scripts
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
finish() { tar -czf "$OUT/logs.tar.gz" -C "$LOGS" . ; echo "done ($(el)s)"; }
trap finish EXIT
if [ ! -d /tmp/litbuild ]; then
  timeout 150 python3 kernels/build_local.py --archs 9.0 --out /tmp/litbuild > "$LOGS/build.txt" 2>&1 || exit 1
fi
export LIT_KERNELS_PATH=$(ls -d /tmp/litbuild/torch*-linux | head -1)
echo "build ready ($(el)s)"
PYTHONPATH=.fetched/kernels/kernels/src timeout 90 python3 $S/huggingface_kernels_example.py --repo /tmp/litbuild \
  --out "$OUT/hub_local.json" > "$LOGS/hub.txt" 2>&1
echo "hub rc=$? ($(el)s)"; grep -E "PASS|FAIL|Error" "$LOGS/hub.txt" | tail -5
PYTHONPATH=.fetched/diffusers/src DIFFUSERS_COMMIT=$(cat .fetched/DIFFUSERS_COMMIT) timeout 120 \
  python3 $S/ltx_kernel_injection.py --out "$OUT/ltx_$TAG.json" > "$LOGS/ltx.txt" 2>&1
echo "ltx rc=$? ($(el)s)"; grep -E "^(built|eager|compiled|patched|correctness|ltx_)|Error" "$LOGS/ltx.txt" | tail -12
LEFT=$(( 430 - $(el) ))
timeout $LEFT python3 $S/transformers_injection.py --out "$OUT/transformers_$TAG.json" --models qwen3,llama \
  --deadline $(( LEFT - 60 )) > "$LOGS/transformers.txt" 2>&1
echo "transformers rc=$? ($(el)s)"; grep -E "^\[|transformers_injection|Error" "$LOGS/transformers.txt" | cut -c1-400 | tail -20

#!/bin/bash
# The local build through the released Hugging Face kernels library: 0.13.0,
# the newest release that is pure Python (0.14 and later need the compiled
# kernels-data extension). Also the layer tests (flags, eps=None, dtypes).
#
# Prepare on a machine with the huggingface/kernels history (once):
#   mkdir -p .fetched/kernels-v0.13.0 &&
#   git --git-dir=PATH/TO/kernels.git archive v0.13.0 kernels | tar -x -C .fetched/kernels-v0.13.0
# Then on the GPU machine (carrying .fetched/kernels-v0.13.0):
#   OUT=out bash tests/gpu/run_kernels_release_device.sh
# Writes $OUT/hub_local.json (the results file the HF guide renders),
# $OUT/kernels_release.txt and $OUT/layers.txt.
set -u
OUT=${OUT:-$PWD/build/device-out}; mkdir -p "$OUT"
SRC=${KERNELS_SRC:-.fetched/kernels-v0.13.0/kernels}
BUILD=${BUILD_DIR:-/tmp/litbuild-release}
LOG="$OUT/kernels_release.txt"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 HF_HUB_OFFLINE=1
KPKG=$(mktemp -d)
{
  echo "== kernels from $SRC (its source tree, no install, no network)"
  VER=$(sed -n 's/^version = "\(.*\)"/\1/p' "$SRC/pyproject.toml" | head -1)
  echo "version $VER"
  # the package as it is released, plus the dist-info that kernels.__version__
  # (importlib.metadata) reads; its dependencies come from the machine
  cp -r "$SRC/src/kernels" "$KPKG/"
  mkdir -p "$KPKG/kernels-$VER.dist-info"
  printf 'Metadata-Version: 2.1\nName: kernels\nVersion: %s\n' "$VER" > "$KPKG/kernels-$VER.dist-info/METADATA"
  PYTHONPATH=$KPKG python3 -c "import kernels, huggingface_hub; print('kernels', kernels.__version__, 'huggingface_hub', huggingface_hub.__version__)"
  echo "== build"
  rm -rf "$BUILD"
  timeout 200 python3 kernels/build_local.py --archs 9.0 --out "$BUILD" > "$OUT/build_release.txt" 2>&1 || { tail -20 "$OUT/build_release.txt"; exit 1; }
  ls "$BUILD" "$BUILD"/torch*-linux
  cat "$BUILD"/torch*-linux/metadata.json
  echo "== huggingface_kernels_example.py"
  PYTHONPATH=$KPKG KERNELS_SOURCE="huggingface/kernels release v0.13.0, installed from its source" \
    timeout 200 python3 kernels/scripts/huggingface_kernels_example.py --repo "$BUILD" --out "$OUT/hub_local.json"
  echo "example rc=$?"
} > "$LOG" 2>&1
grep -E "^== |^kernels |example rc|PASS|FAIL|Error" "$LOG" | tail -20
LIT_KERNELS_PATH=$(ls -d "$BUILD"/torch*-linux | head -1) timeout 200 python3 tests/gpu/test_layers.py > "$OUT/layers.txt" 2>&1
echo "layers rc=$?"; tail -5 "$OUT/layers.txt"

# shellcheck shell=bash
# Sourced by tests/gpu/run_device.sh, from the repository root, at the start
# of a phase: what every device call shares. Sets OUT (created), LOGS (a fresh
# folder, packed into $OUT/logs.tar.gz when the script exits), the call's
# clock and DEADLINE, and the Python environment; defines the helpers below.

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

# record_env [LINE...]: the GPU, its clocks and the torch stack, then the
# caller's own lines, to $LOGS/env.txt and the output
record_env() {
  { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
    python3 -c "import torch, triton; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'triton', triton.__version__)"
    for line in "$@"; do echo "$line"; done
  } > "$LOGS/env.txt" 2>&1; cat "$LOGS/env.txt"
}

# reusable DIR: REUSE_BUILD is set and DIR holds a built package
reusable() { [ -n "${REUSE_BUILD:-}" ] && ls "$1"/torch*-linux/lit_kernels/_lit_kernels.so >/dev/null 2>&1; }

# build_package DIR CAP: reuse DIR's build (see reusable), else build the
# package as tangled for sm_90 into DIR within CAP seconds, ptxas report in
# $LOGS/build.txt, and exit on failure. Sets BUILT (1 when it built) and
# exports LIT_KERNELS_PATH.
build_package() {
  if reusable "$1"; then
    echo "build reused from $1"; BUILT=0
  else
    timeout "$2" python3 kernels/build_local.py --archs 9.0 --out "$1" --ptxas-report \
      > "$LOGS/build.txt" 2>&1
    local rc=$?; echo "build rc=$rc ($(el)s)"; [ $rc = 0 ] || { tail -30 "$LOGS/build.txt"; exit 1; }
    # shellcheck disable=SC2034  # BUILT is read by the sourcing script
    BUILT=1
  fi
  LIT_KERNELS_PATH=$(ls -d "$1"/torch*-linux | head -1); export LIT_KERNELS_PATH
}

# suite NAME CAP FILES...: one pytest run within CAP seconds (or what is left
# before DEADLINE), its summary line and failures; the log is copied to
# $OUT/tests_NAME_$TAG.txt
suite() {
  local name=$1 cap=$2; shift 2
  local L; L=$(limit "$cap")
  if (( L < 20 )); then echo "$name skipped: not enough time left"; return; fi
  timeout "$L" python3 -m pytest -q -p no:cacheprovider "$@" > "$LOGS/tests_$name.txt" 2>&1
  echo "$name rc=$? ($(el)s)"; grep -E "passed|failed|error" "$LOGS/tests_$name.txt" | tail -1
  grep -E "^FAILED|^ERROR" "$LOGS/tests_$name.txt" | head -15
  cp "$LOGS/tests_$name.txt" "$OUT/tests_${name}_$TAG.txt"
}

# sanitize SCRIPT CAP [ARG...]: compute-sanitizer memcheck, then racecheck,
# on tests/gpu/SCRIPT.py ARG..., each within CAP seconds (or what is left);
# the logs are copied to $OUT/SCRIPT[_ARGS]_TOOL_$TAG.txt
sanitize() {
  local script=$1 cap=$2; shift 2
  local name=$script${1:+_$(echo "$*" | tr ' ' '_')}
  for tool in memcheck racecheck; do
    local L; L=$(limit "$cap")
    if (( L < 20 )); then echo "$name $tool skipped"; continue; fi
    timeout "$L" compute-sanitizer --tool $tool --error-exitcode 9 python3 "tests/gpu/$script.py" "$@" \
      > "$LOGS/${name}_$tool.txt" 2>&1
    echo "$name $tool rc=$? ($(el)s)"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOGS/${name}_$tool.txt" | tail -1
    cp "$LOGS/${name}_$tool.txt" "$OUT/${name}_${tool}_$TAG.txt"
  done
}

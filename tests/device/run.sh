#!/bin/sh
# tests/gpu/run_device.sh, the GPU runner, without a GPU: no phase or an
# unknown one prints the usage and exits 2 (and creates nothing); the usage
# lists exactly the phases the script defines; every phase runs to its end
# against stub python3, timeout, nvidia-smi and compute-sanitizer (which log
# their calls) in a scratch copy of the repository, with no unbound
# variable, writing the files its commands name with --out and, but for
# hf_release, logs.tar.gz; shellcheck finds nothing above its "info" level
# (skipped where shellcheck is not installed).
#   tests/device/run.sh
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

runner=$here/tests/gpu/run_device.sh

# -- usage --------------------------------------------------------------------
for args in "" "nonexistent-phase" "../x" "want"; do
  # shellcheck disable=SC2086  # the arguments are split on purpose ("" is none)
  OUT=$tmp/o bash "$runner" $args > "$tmp/out" 2> "$tmp/err"
  rc=$?
  if [ "$rc" = 2 ] && grep -q "^  kernels" "$tmp/err" && [ ! -e "$tmp/o" ] && [ ! -s "$tmp/out" ]; then
    ok
  else
    bad "run_device.sh '$args': exit $rc (want 2), usage on stderr, nothing created"
  fi
done
if bash "$runner" --help | grep -q "^  OUT=dir bash tests/gpu/run_device.sh PHASE"; then ok; else bad "--help prints the usage"; fi

# the usage's phase list against the phase_* functions
bash "$runner" --help | sed -n '/Phases:$/,/^Every phase/p' | sed -n 's/^  \([a-z0-9_]*\) .*/\1/p' | sort > "$tmp/listed"
sed -n 's/^phase_\([a-z0-9_]*\)() {$/\1/p' "$runner" | sort > "$tmp/defined"
if [ -s "$tmp/defined" ] && cmp -s "$tmp/listed" "$tmp/defined"; then
  ok
else
  bad "the usage lists the phases the script defines:"
  diff "$tmp/listed" "$tmp/defined"
fi

# -- every phase against stubs -------------------------------------------------
mkdir -p "$tmp/bin" "$tmp/repo/tests/gpu" "$tmp/repo/.fetched/kernels-v0.13.0/kernels/src/kernels"
cp "$runner" "$here/tests/gpu/device_common.sh" "$tmp/repo/tests/gpu/"
echo 0123abc > "$tmp/repo/.fetched/DIFFUSERS_COMMIT"
echo 'version = "0.13.0"' > "$tmp/repo/.fetched/kernels-v0.13.0/kernels/pyproject.toml"
cat > "$tmp/bin/stub" << 'STUB'
#!/bin/sh
# logs its call; python3 writes what --out names and builds a fake package
echo "$(basename "$0") $*" >> "$CALLS"
case $(basename "$0") in
  timeout) shift; exec "$@" ;;
  python3)
    out="" prev=""
    for a in "$@"; do [ "$prev" = --out ] && out=$a; prev=$a; done
    case "$*" in
      *build_local.py*)
        mkdir -p "$out/torch-fake-linux/lit_kernels" && : > "$out/torch-fake-linux/lit_kernels/_lit_kernels.so"
        echo '{}' > "$out/torch-fake-linux/metadata.json" ;;
      *) if [ -n "$out" ]; then echo '{}' > "$out"; fi ;;
    esac ;;
esac
exit 0
STUB
chmod +x "$tmp/bin/stub"
for t in python3 timeout nvidia-smi compute-sanitizer; do ln -s stub "$tmp/bin/$t"; done

for phase in $(cat "$tmp/defined"); do
  rm -rf "$tmp/out" "$tmp/build" "$tmp/repo/build"
  CALLS=$tmp/calls.$phase
  : > "$CALLS"
  (cd "$tmp/repo" && PATH="$tmp/bin:$PATH" CALLS=$CALLS OUT=$tmp/out BUILD_DIR=$tmp/build \
    bash tests/gpu/run_device.sh "$phase" h100 > "$tmp/log.$phase" 2>&1)
  rc=$?
  why=""
  [ "$rc" = 0 ] || why="$why exit $rc;"
  grep -q "unbound variable" "$tmp/log.$phase" && why="$why an unbound variable;"
  [ -s "$CALLS" ] || why="$why no command ran;"
  if [ "$phase" != hf_release ] && [ ! -s "$tmp/out/logs.tar.gz" ]; then why="$why no logs.tar.gz;"; fi
  for f in $(sed -n 's/.* --out \([^ ]*\).*/\1/p' "$CALLS"); do
    case $f in "$tmp/out/"*) [ -e "$f" ] || why="$why $f not written;" ;; esac
  done
  if [ -z "$why" ]; then ok; else bad "phase $phase:$why"; tail -5 "$tmp/log.$phase"; fi
done

# -- shellcheck -----------------------------------------------------------------
if command -v shellcheck > /dev/null; then
  if shellcheck -S warning "$runner" "$here/tests/gpu/device_common.sh" "$0"; then ok; else bad "shellcheck"; fi
else
  echo "shellcheck not installed: skipped"
fi

echo "run_device.sh: $passed passed, $failed failed"
[ "$failed" = 0 ]

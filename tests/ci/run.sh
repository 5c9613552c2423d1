#!/bin/sh
# .ci/run must stop at its first failing step. Each case runs the script
# with a `make` on PATH that fails one step and logs every call, and checks
# that no step after the failing one ran (and that the script failed).
#   tests/ci/run.sh
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for fail in deps "all skill book" check; do
  rm -rf "$tmp/repo" "$tmp/bin" && mkdir -p "$tmp/repo/.ci" "$tmp/bin"
  cp "$here/.ci/run" "$tmp/repo/.ci/run"
  cat > "$tmp/bin/make" <<STUB
#!/bin/sh
echo "\$*" >> "$tmp/calls"
[ "\$*" = "$fail" ] && exit 2
exit 0
STUB
  chmod +x "$tmp/bin/make"
  : > "$tmp/calls"
  PATH="$tmp/bin:$PATH" sh "$tmp/repo/.ci/run" > /dev/null 2>&1
  rc=$?
  last=$(tail -n 1 "$tmp/calls")
  if [ "$rc" -ne 0 ] && [ "$last" = "$fail" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: make $fail failing: .ci/run exit $rc, last step run: make $last"
  fi
done
echo "ci: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

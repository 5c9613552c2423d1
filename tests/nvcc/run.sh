#!/bin/sh
# nvcc must point at the Markdown, not at the tangled file: tangle a fixture
# with --line-directives, compile it with a planted error, and check that
# nvcc names the document and the line of the error inside the Markdown,
# both at the top level and inside an included, indented chunk.
set -u
LIT=${LIT:-gen/build/lit}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
here=$(cd "$(dirname "$0")" && pwd)
lit=$(cd "$(dirname "$LIT")" && pwd)/$(basename "$LIT")
pass=0
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

check() { # name, fixture, expected "file(line)" in nvcc's output
  rm -rf "$work/p" && mkdir -p "$work/p" && cp -R "$here/$2/." "$work/p/"
  if ! (cd "$work/p" && "$lit" tangle -q --line-directives) >"$work/tangle.log" 2>&1; then
    echo "FAIL $1: tangle failed"; cat "$work/tangle.log"; fail=$((fail + 1)); return
  fi
  if (cd "$work/p" && "$NVCC" -std=c++17 -c kernels/planted.cu -o /dev/null) >"$work/nvcc.log" 2>&1; then
    echo "FAIL $1: nvcc accepted a planted error"; fail=$((fail + 1)); return
  fi
  if grep -F "$3" "$work/nvcc.log" >/dev/null; then
    echo "ok   $1: nvcc reports $3"; pass=$((pass + 1))
  else
    echo "FAIL $1: expected $3 in:"; cat "$work/nvcc.log"; fail=$((fail + 1))
  fi
}

if [ ! -x "$NVCC" ]; then echo "nvcc not found; set NVCC"; echo "0 passed, 1 failed"; exit 1; fi
check "error in the file's own block" top-level "references/planted.md(9): error"
check "error in an included chunk" in-chunk "references/planted.md(19): error"
echo "line directives: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/bin/sh
# run_golden.sh LIT [CASE...]: the golden tests.
#
# Each case is a folder tests/golden/<case>/ holding
#   input/            the project: index.md and the documents it links (and any
#                     files that exist before the run: outputs, .lit-record)
#   args              optional: lit's arguments (default: tangle)
#   env               optional: VAR=value lines exported for the run
#   setup.sh          optional: run in the copied project before lit (symlinks,
#                     permissions: things git does not keep)
#   steps.sh          optional: run instead of one `lit ARGS` (multi-run cases);
#                     it calls "$LIT" and its stderr and exit status are compared
#   expected/         the project tree after the run: every file, except that
#                     .md files identical to their input copy are left out
#   expected.stderr   the exact diagnostics
#   expected.status   the exit status
#
# The project is copied to a temporary folder and lit runs there. Symbolic
# links, FIFOs and empty folders are left out of the tree comparison. Set
# LIT_WRAPPER (e.g. "valgrind -q --error-exitcode=99") to run lit under a tool;
# GOLDEN_UPDATE=1 writes the actual results as expected (review them!).
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 LIT [CASE...]" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
lit=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
golden=$here/golden
if [ $# -gt 0 ]; then cases=$*; else cases=$(ls "$golden"); fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lit-golden.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0
failed=""
# A hung lit fails its case instead of the whole CI job.
limit=
command -v timeout >/dev/null && limit="timeout ${GOLDEN_TIMEOUT:-120}"

for name in $cases; do
  case=$golden/$name
  [ -d "$case/input" ] || continue
  work=$tmp/$name/work
  mkdir -p "$work"
  cp -R "$case/input/." "$work/"
  if [ -f "$case/setup.sh" ]; then
    (cd "$work" && sh "$case/setup.sh") || { echo "FAIL $name: setup.sh failed"; fail=$((fail + 1)); continue; }
  fi
  args=tangle
  [ -f "$case/args" ] && args=$(cat "$case/args")
  (
    cd "$work" || exit 97
    if [ -f "$case/env" ]; then
      while IFS= read -r kv; do
        case $kv in '' | '#'*) continue ;; esac
        export "$kv"
      done <"$case/env"
    fi
    LIT="$limit ${LIT_WRAPPER:-} $lit"
    export LIT
    if [ -f "$case/steps.sh" ]; then
      CASE_DIR=$case sh "$case/steps.sh"
    else
      # shellcheck disable=SC2086
      $LIT $args
    fi
  ) >"$tmp/$name/stdout" 2>"$tmp/$name/stderr"
  echo $? >"$tmp/$name/status"

  # The tree: drop symlinks and FIFOs, unchanged .md inputs, then empty folders.
  chmod -R u+rwX "$work" 2>/dev/null
  find "$work" \( -type l -o -type p \) -exec rm -f {} +
  (cd "$work" && find . -type f -name '*.md') | while IFS= read -r f; do
    if [ -f "$case/input/$f" ] && cmp -s "$work/$f" "$case/input/$f"; then rm -f "$work/$f"; fi
  done
  find "$work" -depth -type d -empty ! -path "$work" -exec rmdir {} \;
  # stdout (lit dump) is part of the result when the case expects it.
  if [ -f "$case/expected.stdout" ] || [ -s "$tmp/$name/stdout" ]; then stdout_checked=1; else stdout_checked=0; fi

  if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
    rm -rf "$case/expected"
    mkdir -p "$case/expected"
    cp -R "$work/." "$case/expected/"
    cp "$tmp/$name/stderr" "$case/expected.stderr"
    cp "$tmp/$name/status" "$case/expected.status"
    if [ -s "$tmp/$name/stdout" ]; then cp "$tmp/$name/stdout" "$case/expected.stdout"; else rm -f "$case/expected.stdout"; fi
  fi

  ok=1
  report=$tmp/$name/report
  : >"$report"
  exp_tree=$case/expected
  [ -d "$exp_tree" ] || exp_tree=$tmp/empty
  mkdir -p "$tmp/empty"
  diff -r "$exp_tree" "$work" >>"$report" 2>&1 || ok=0
  diff "$case/expected.stderr" "$tmp/$name/stderr" >>"$report" 2>&1 || ok=0
  diff "$case/expected.status" "$tmp/$name/status" >>"$report" 2>&1 || ok=0
  if [ "$stdout_checked" = 1 ]; then
    if [ -f "$case/expected.stdout" ]; then
      diff "$case/expected.stdout" "$tmp/$name/stdout" >>"$report" 2>&1 || ok=0
    else
      echo "unexpected stdout:" >>"$report"
      cat "$tmp/$name/stdout" >>"$report"
      ok=0
    fi
  fi
  if [ $ok = 1 ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    failed="$failed $name"
    echo "FAIL $name"
    sed 's/^/    /' "$report" | head -n 40
  fi
done

[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

#!/bin/sh
# tests/weave/run.sh LIT [--update]: the weaver's fixture cases.
#
#   project/        a small project: its skill bundle and book must equal
#                   expected/skill and expected/book; the bundle passes
#                   skill_check.py; `book --check` passes on a fresh weave
#                   and fails, naming the file, after a hand edit.
#   slow/           a string pattern the instruction budget cannot stop:
#                   the wall-clock alarm (LIT_LUA_SECONDS=1) must name it.
#   errors/CASE/    a project that must fail to weave: the messages of
#                   `lit skill` and `lit book` must equal CASE/expected.txt,
#                   the exit status must be 1, and nothing may be written.
#   skill-errors/CASE/  the same for `lit skill` alone (skill-only keys).
#
# --update rewrites the expected files from the current output.
# Ends with "N passed, N failed".
set -u
LIT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
UPDATE=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# ---- the project ----
P=$HERE/project
if "$LIT" skill --root "$P" --out "$TMP/skill" 2>"$TMP/skill.err"; then ok "project: skill weaves"; else bad "project: skill weaves"; cat "$TMP/skill.err"; fi
if "$LIT" book --root "$P" --out "$TMP/book" 2>"$TMP/book.err"; then ok "project: book weaves"; else bad "project: book weaves"; cat "$TMP/book.err"; fi
if [ "$UPDATE" = --update ]; then
  rm -rf "$HERE/expected"
  mkdir -p "$HERE/expected"
  cp -r "$TMP/skill/demo-kernels" "$HERE/expected/skill"
  cp -r "$TMP/book" "$HERE/expected/book"
fi
if diff -r "$HERE/expected/skill" "$TMP/skill/demo-kernels" >"$TMP/diff" 2>&1; then ok "project: skill bundle equals expected/skill"
else bad "project: skill bundle equals expected/skill"; head -40 "$TMP/diff"; fi
if diff -r "$HERE/expected/book" "$TMP/book" >"$TMP/diff" 2>&1; then ok "project: book equals expected/book"
else bad "project: book equals expected/book"; head -40 "$TMP/diff"; fi
if python3 "$HERE/skill_check.py" "$TMP/skill/demo-kernels" >"$TMP/check" 2>&1; then ok "project: bundle passes skill_check.py"
else bad "project: bundle passes skill_check.py"; cat "$TMP/check"; fi
if "$LIT" book --root "$P" --out "$TMP/book" --check 2>"$TMP/err"; then ok "project: book --check passes on a fresh weave"
else bad "project: book --check passes on a fresh weave"; cat "$TMP/err"; fi
echo "<!-- hand edit -->" >>"$TMP/book/guide.html"
if "$LIT" book --root "$P" --out "$TMP/book" --check 2>"$TMP/err"; then bad "project: book --check fails after a hand edit"
elif grep -q "guide.html differs" "$TMP/err"; then ok "project: book --check fails after a hand edit, naming the file"
else bad "project: book --check names the edited file"; cat "$TMP/err"; fi
rm "$TMP/book/style.css"
"$LIT" book --root "$P" --out "$TMP/book" --check 2>"$TMP/err"
if grep -q "style.css is missing" "$TMP/err"; then ok "project: book --check names a missing file"
else bad "project: book --check names a missing file"; cat "$TMP/err"; fi

# ---- cases that must fail ----
for dir in "$HERE"/errors/*/; do
  name=$(basename "$dir")
  out="$TMP/out-$name"
  {
    echo "== lit skill"
    (cd "$dir" && "$LIT" skill --out "$out/skill" 2>&1; echo "exit $?")
    echo "== lit book"
    (cd "$dir" && "$LIT" book --out "$out/book" 2>&1; echo "exit $?")
  } >"$TMP/got-$name"
  [ "$UPDATE" = --update ] && cp "$TMP/got-$name" "$dir/expected.txt"
  if diff -u "$dir/expected.txt" "$TMP/got-$name" >"$TMP/diff" 2>&1; then ok "errors/$name: messages and exit status as expected"
  else bad "errors/$name: messages and exit status as expected"; cat "$TMP/diff"; fi
  if [ -e "$out" ]; then bad "errors/$name: nothing written"; else ok "errors/$name: nothing written"; fi
done

# ---- skill-only errors (the book ignores the skill's keys) ----
for dir in "$HERE"/skill-errors/*/; do
  name=$(basename "$dir")
  out="$TMP/out-skill-$name"
  { (cd "$dir" && "$LIT" skill --out "$out" 2>&1; echo "exit $?"); } >"$TMP/got-skill-$name"
  [ "$UPDATE" = --update ] && cp "$TMP/got-skill-$name" "$dir/expected.txt"
  if diff -u "$dir/expected.txt" "$TMP/got-skill-$name" >"$TMP/diff" 2>&1; then ok "skill-errors/$name: messages and exit status as expected"
  else bad "skill-errors/$name: messages and exit status as expected"; cat "$TMP/diff"; fi
  if [ -e "$out" ]; then bad "skill-errors/$name: nothing written"; else ok "skill-errors/$name: nothing written"; fi
done

# ---- a C function the instruction budget cannot stop: the wall-clock alarm ----
if (cd "$HERE/slow" && LIT_LUA_SECONDS=1 "$LIT" book --out "$TMP/slow-book" 2>"$TMP/slow.err"); then
  bad "slow/: a slow string pattern is stopped"
elif grep -q "references/a.md:3:1: error: this Lua block ran for more than 1 s" "$TMP/slow.err" && [ ! -e "$TMP/slow-book" ]; then
  ok "slow/: a slow string pattern is stopped at its block, nothing written"
else
  bad "slow/: a slow string pattern is stopped at its block, nothing written"; cat "$TMP/slow.err"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

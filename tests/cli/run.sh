#!/bin/sh
# tests/cli/run.sh LIT: the command-line conventions.
#
#   lit --version, lit version; lit help [COMMAND], lit COMMAND --help for
#   every command, each describing every option its synopsis shows; the man
#   page (rendered by `lit man` from gen/lit.1.md) describing every option
#   of every command; did-you-mean for mistyped commands and options;
#   --min-tangled values checked; outside a project, the folder searched is
#   named and --root suggested; exit status 0, 1 (errors in the documents)
#   and 2 (usage); `make install PREFIX=...` installing lit and lit(1).
# Ends with "N passed, N failed".
set -u
LIT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
# run EXPECTED_STATUS WHAT ARGS...: output in $TMP/out, $TMP/err
run() {
  want=$1 what=$2
  shift 2
  "$LIT" "$@" >"$TMP/out" 2>"$TMP/err"
  got=$?
  if [ "$got" = "$want" ]; then ok "$what (exit $want)"; else bad "$what: exit $got, not $want"; cat "$TMP/err"; fi
}
has() { # has WHAT FILE TEXT
  if grep -qF -- "$3" "$2"; then ok "$1"; else bad "$1: no '$3' in"; sed 's/^/    /' "$2"; fi
}

run 0 "lit --version" --version
has "--version prints lit and a version" "$TMP/out" "lit 0."
run 0 "lit version" version
run 0 "lit help" help
for c in tangle dump stats skill book man help version; do
  has "lit help lists $c" "$TMP/out" "  $c "
done
has "lit help lists skill install" "$TMP/out" "  skill install "
has "lit help documents the exit status" "$TMP/out" "2 a usage error"

# Every command's help describes every option of its synopsis, and so does
# the man page.
"$LIT" man "$TOP/gen/lit.1.md" >"$TMP/lit.1" 2>"$TMP/err" && ok "lit man renders lit(1)" || { bad "lit man renders lit(1)"; cat "$TMP/err"; }
head -n 1 "$TMP/lit.1" | grep -q '^\.TH "LIT" "1"' && ok "lit(1) starts with its .TH header" || bad "lit(1) starts with its .TH header"
for c in tangle dump stats skill "skill install" book man help version; do
  # shellcheck disable=SC2086
  "$LIT" $c --help >"$TMP/help" 2>&1 || bad "lit $c --help exits 0"
  # shellcheck disable=SC2086
  "$LIT" help $c >"$TMP/help2" 2>&1
  cmp -s "$TMP/help" "$TMP/help2" && ok "lit $c --help equals lit help $c" || bad "lit $c --help equals lit help $c"
  opts=$(head -n 1 "$TMP/help" | tr ' ' '\n' | sed -n 's/^\[\(-[-a-z]*\)\]*$/\1/p')
  for o in $opts; do
    if grep -q "^  $o[ ,]" "$TMP/help"; then ok "lit $c --help describes $o"; else bad "lit $c --help describes $o"; fi
    # In the man page, the option appears in the command's own section.
    section=$(awk -v c="lit $c" '/^## /{on = ($0 == "## " c)} on' "$TOP/gen/lit.1.md")
    case $c in help | version) section=$(awk '/^## lit help, lit version/{on=1;next} /^#/{on=0} on' "$TOP/gen/lit.1.md") ;; esac
    if printf '%s\n' "$section" | grep -qF -- "**$o**"; then ok "lit(1) describes $o of lit $c"
    else bad "lit(1) describes $o of lit $c"; fi
  done
done

# Mistyped names.
run 2 "a mistyped command" tangel
has "a mistyped command gets a suggestion" "$TMP/err" "unknown command 'tangel'; did you mean 'tangle'?"
run 2 "a mistyped option" tangle --chek
has "a mistyped option gets a suggestion" "$TMP/err" "unknown option '--chek' for lit tangle; did you mean '--check'?"
run 2 "a mistyped install option" skill install --globl
has "a mistyped install option gets a suggestion" "$TMP/err" "did you mean '--global'?"
run 2 "an option of another command" stats --out x
has "the message says which commands take it" "$TMP/err" "lit stats takes no --out option (it is one of lit skill, lit book, lit serve, lit watch)"
run 2 "an unexpected argument" tangle extra
run 2 "an option without its value" tangle --root

# Numbers.
mkdir -p "$TMP/p/out"
printf -- '---\ntangle-roots: out\n---\n# P\n\n```{.c file=out/a.c}\nint a;\n```\n\n```{.c .example}\nint b;\n```\n' >"$TMP/p/index.md"
run 2 "--min-tangled abc" stats --root "$TMP/p" --min-tangled abc
has "--min-tangled abc: the message says what is wanted" "$TMP/err" "--min-tangled takes a percentage from 0 to 100, not 'abc'"
run 2 "--min-tangled -5" stats --root "$TMP/p" --min-tangled -5
run 2 "--min-tangled 101" stats --root "$TMP/p" --min-tangled 101
run 2 "--min-tangled 50x" stats --root "$TMP/p" --min-tangled 50x
run 0 "--min-tangled 50 (half the code is tangled)" stats --root "$TMP/p" --min-tangled 50
run 1 "--min-tangled 50.5 (not reached)" stats --root "$TMP/p" --min-tangled 50.5

# Outside a project.
mkdir -p "$TMP/empty"
(cd "$TMP/empty" && "$LIT" tangle) >"$TMP/out" 2>"$TMP/err"
[ $? = 2 ] && ok "outside a project: exit 2" || bad "outside a project: exit 2"
has "outside a project: the folder searched is named" "$TMP/err" "no index.md in $(cd "$TMP/empty" && pwd -P)"
has "outside a project: --root is suggested" "$TMP/err" "--root DIR"

# What the command line quotes back is escaped: an escape sequence in a
# mistyped command, a newline in a --root folder.
esc=$(printf '\033')
run 2 "a command holding an escape sequence" "tan${esc}[31mgle"
has "the escape sequence is written as an escape" "$TMP/err" "unknown command 'tan\x1b[31mgle'"
if grep -q "$esc" "$TMP/err"; then bad "no escape byte reaches the terminal"; else ok "no escape byte reaches the terminal"; fi
(cd "$TMP/empty" && "$LIT" tangle --root "no
lit: error: forged") >"$TMP/out" 2>"$TMP/err"
has "a newline in --root is written as an escape" "$TMP/err" "/no\nlit: error: forged does not exist"
[ "$(grep -c '' "$TMP/err")" = 2 ] && ok "--root with a newline: two messages, two lines" \
  || { bad "--root with a newline: two messages, two lines"; cat "$TMP/err"; }

# Exit status 1: errors in the documents.
printf -- '---\ntangle-roots: out\n---\n# P\n\n```{.c file=out/a.c}\n<<nothing>>\n```\n' >"$TMP/p/index.md"
run 1 "an error in the documents" tangle --root "$TMP/p"

# make install PREFIX=...
if make -s -C "$TOP" install PREFIX="$TMP/prefix" >"$TMP/out" 2>&1; then ok "make install PREFIX=..."
else bad "make install PREFIX=..."; cat "$TMP/out"; fi
"$TMP/prefix/bin/lit" --version >/dev/null 2>&1 && ok "installed lit runs" || bad "installed lit runs"
[ -f "$TMP/prefix/share/man/man1/lit.1" ] && head -n 1 "$TMP/prefix/share/man/man1/lit.1" | grep -q '^\.TH "LIT"' \
  && ok "installed lit(1) under share/man/man1" || bad "installed lit(1) under share/man/man1"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

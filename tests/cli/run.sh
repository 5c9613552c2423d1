#!/bin/sh
# tests/cli/run.sh LIT: the command-line conventions.
#
#   lit --version, lit version; lit help [COMMAND], lit COMMAND --help for
#   every command, each describing every option its synopsis shows; the man
#   page (rendered by `lit man` from gen/lit.1.md) describing every option
#   of every command; did-you-mean for mistyped commands and options;
#   --min-tangled values checked; outside a project, the folder searched is
#   named and --root suggested; an --entry outside the project refused at
#   the argument, nothing written; on this repository, a stitch and the skill's
#   description; exit status 0, 1 (errors in the documents)
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
for c in tangle map stitch dump stats skill book serve watch man help version; do
  has "lit help lists $c" "$TMP/out" "  $c "
done
has "lit help lists skill install" "$TMP/out" "  skill install "
has "lit help documents the exit status" "$TMP/out" "2 a usage error"
# The commands, as lit help lists them: every one is checked below, so a
# command added to lit is held to the same rules without editing this list.
COMMANDS=$(sed -n '/^commands:/,/^$/s/^  \([a-z]*\( install\)\{0,1\}\)  .*/\1/p' "$TMP/out")
[ "$(printf '%s\n' "$COMMANDS" | grep -c .)" -ge 11 ] && ok "lit help's command list is read" || bad "lit help's command list is read: $COMMANDS"
# Where lit(1) is to be found: `man lit` alone may open another lit (LLVM's).
has "lit help names the manual's file" "$TMP/out" "man gen/build/lit.1"

# Every command's help describes every option of its synopsis, and so does
# the man page.
"$LIT" man "$TOP/gen/lit.1.md" >"$TMP/lit.1" 2>"$TMP/err" && ok "lit man renders lit(1)" || { bad "lit man renders lit(1)"; cat "$TMP/err"; }
head -n 1 "$TMP/lit.1" | grep -q '^\.TH "LIT" "1"' && ok "lit(1) starts with its .TH header" || bad "lit(1) starts with its .TH header"
printf '%s\n' "$COMMANDS" | while IFS= read -r c; do
  # The synopsis of lit(1) names every command.
  if grep -qF -- "**lit $c**" "$TOP/gen/lit.1.md"; then ok "lit(1)'s SYNOPSIS names lit $c"
  else bad "lit(1)'s SYNOPSIS names lit $c"; fi
done
for c in $(printf '%s\n' "$COMMANDS" | tr ' ' '+'); do
  c=$(printf '%s' "$c" | tr '+' ' ')
  # shellcheck disable=SC2086
  "$LIT" $c --help >"$TMP/help" 2>&1 || bad "lit $c --help exits 0"
  # shellcheck disable=SC2086
  "$LIT" help $c >"$TMP/help2" 2>&1
  cmp -s "$TMP/help" "$TMP/help2" && ok "lit $c --help equals lit help $c" || bad "lit $c --help equals lit help $c"
  opts=$(head -n 1 "$TMP/help" | tr ' ' '\n' | sed -n 's/^\[\(-[-a-z]*\)\]*$/\1/p')
  for o in $opts; do
    if grep -q "^  $o[ ,]" "$TMP/help"; then ok "lit $c --help describes $o"; else bad "lit $c --help describes $o"; fi
    # In the man page, the option appears in the command's own section.
    # (a section may describe two commands: "## lit serve, lit watch")
    section=$(awk -v c="lit $c" '/^## /{on = ($0 == "## " c || index($0, "## " c ",") == 1 || index($0, ", " c) > 0)} on' "$TOP/gen/lit.1.md")
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

# An entry document outside the project: said plainly, at the argument
# (there is no Markdown line to point at), and nothing is written.
mkdir -p "$TMP/inner"
printf -- '---\ntangle-roots: out\n---\n# X\n\n```{.c file=out/a.c}\nint a;\n```\n' >"$TMP/outside.md"
for c in tangle book; do
  (cd "$TMP/inner" && "$LIT" $c --entry ../outside.md) >"$TMP/out" 2>"$TMP/err"
  [ $? = 2 ] && ok "lit $c --entry ../outside.md: exit 2" || { bad "lit $c --entry ../outside.md: exit 2"; cat "$TMP/err"; }
  has "lit $c --entry ../outside.md: the argument is named, and it is outside the project" "$TMP/err" \
    "lit: error: --entry ../outside.md: the entry document is outside the project"
  if grep -q "symbolic link" "$TMP/err"; then bad "lit $c --entry ../outside.md: no link is blamed"; cat "$TMP/err"
  else ok "lit $c --entry ../outside.md: no link is blamed"; fi
  [ -z "$(ls -A "$TMP/inner")" ] && ok "lit $c --entry ../outside.md: nothing written" \
    || { bad "lit $c --entry ../outside.md: nothing written"; ls -A "$TMP/inner"; }
done

# lit map and lit stitch: a file no block writes is a usage error, as is
# map without its file; stitch takes several files.
printf -- '---\ntangle-roots: out\n---\n# P\n\n```{.c file=out/a.c}\nint a;\n```\n' >"$TMP/p/index.md"
run 0 "lit tangle, before map and stitch" tangle -q --root "$TMP/p"
run 2 "lit map without a file" map --root "$TMP/p"
has "lit map without a file: the message says what it needs" "$TMP/err" "lit map needs the generated file"
run 2 "lit map of a file lit does not write" map --root "$TMP/p" out/b.c
has "lit map of a file lit does not write: the nearest is suggested" "$TMP/err" "did you mean 'out/a.c'?"
run 0 "lit map FILE:LINE" map --root "$TMP/p" out/a.c:3
has "lit map FILE:LINE names the document line" "$TMP/out" "out/a.c:3: index.md:7:1: file=out/a.c"
# A line number that is not a positive integer is named as one, not taken
# for a file lit does not write.
for n in 0 -1 abc '' +3 99999999999999999999999; do
  run 2 "lit map out/a.c:$n" map --root "$TMP/p" "out/a.c:$n"
  has "lit map out/a.c:$n: an invalid line number, named" "$TMP/err" "'out/a.c:$n': invalid line number '$n'"
  if grep -q "not a file this project generates" "$TMP/err"; then bad "lit map out/a.c:$n: not called an unknown file"
  else ok "lit map out/a.c:$n: not called an unknown file"; fi
done
run 2 "lit map past the last line" map --root "$TMP/p" out/a.c:99
has "lit map past the last line: says how many there are" "$TMP/err" "'out/a.c' has 3 lines: there is no line 99"
run 0 "lit stitch with nothing edited" stitch --root "$TMP/p" out/a.c out/a.c
has "lit stitch with nothing edited says so" "$TMP/err" "nothing to stitch"
run 2 "lit stitch of a file lit does not write" stitch --root "$TMP/p" out/a.c nowhere.c
# The files named are read ahead while the project loads, before it says
# which are its own: nothing outside the project is read, by a path with
# `..`, an absolute one or a link leading out. An access time older than
# the file's change shows a read (relatime updates it on the first one).
printf 'outside\n' >"$TMP/outside.c"
ln -s "$TMP/outside.c" "$TMP/p/out/link.c"
touch -a -d 2000-01-01 "$TMP/outside.c"
run 2 "lit stitch of files outside the project" stitch --root "$TMP/p" ../outside.c "$TMP/outside.c" out/link.c
[ "$(stat -c %X "$TMP/outside.c")" = "$(date -d 2000-01-01 +%s)" ] && ok "lit stitch reads no file outside the project" \
  || bad "lit stitch reads no file outside the project: $TMP/outside.c was read"
rm -f "$TMP/p/out/link.c"
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

# The README's tutorial, followed literally in an empty folder: its
# index.md and add.md, tangle, book, the hand edit it describes, map,
# stitch, and a clean --check.
mkdir -p "$TMP/tut"
python3 - "$TOP/README.md" "$TMP/tut" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
tut = s[s.index("### 3. Write your own literate kernel"):s.index("## Layout")]
open(sys.argv[2] + "/index.md", "w").write(re.search(r"```markdown\n(.*?)```\n", tut, re.S).group(1))
open(sys.argv[2] + "/add.md", "w").write(re.search(r"````markdown\n(.*?)````\n", tut, re.S).group(1))
PY
run 0 "tutorial: lit tangle" tangle --root "$TMP/tut"
run 0 "tutorial: lit book --out book" book --root "$TMP/tut" --out "$TMP/tut/book"
[ -f "$TMP/tut/book/add.html" ] && ok "tutorial: book/add.html is written" || bad "tutorial: book/add.html is written"
has "tutorial: the header names lit tangle" "$TMP/tut/kernels/add.cu" "\`lit tangle\` rewrites it"
sed 's/i < n)/i < n \&\& i >= 0)/' "$TMP/tut/kernels/add.cu" >"$TMP/tut/edited" && cp "$TMP/tut/edited" "$TMP/tut/kernels/add.cu"
run 0 "tutorial: lit map kernels/add.cu:5" map --root "$TMP/tut" kernels/add.cu:5
has "tutorial: map names the body's line in add.md" "$TMP/out" "add.md:7:1: <<add-body>>"
run 0 "tutorial: lit stitch" stitch --root "$TMP/tut"
has "tutorial: the edit is in add.md" "$TMP/tut/add.md" "if (i < n && i >= 0) out[i]"
run 0 "tutorial: lit tangle --check is clean after the stitch" tangle --check --root "$TMP/tut"
cmp -s "$TMP/tut/edited" "$TMP/tut/kernels/add.cu" && ok "tutorial: the edited file is kept as edited" \
  || bad "tutorial: the edited file is kept as edited"

# lit stitch on this repository: a constant changed in kernels/csrc goes
# into its block, and a line of a chunk that two scripts include goes into
# that chunk once; the other script follows at the next tangle, and a
# --check is clean after both.
mkdir -p "$TMP/repo"
(cd "$TOP" && cp -R index.md references kernels .lit-record "$TMP/repo/")
sed 's/(reinterpret_cast<uintptr_t>(p) \& 15u) == 0/(reinterpret_cast<uintptr_t>(p) \& 0xfu) == 0/' \
  "$TMP/repo/kernels/csrc/lit_common.cuh" >"$TMP/repo/edited.cuh"
sed 's/"build", "\*", "lit_kernels"/"build", "*", "lit_kernels"  # a local build/' \
  "$TMP/repo/kernels/scripts/transformers_injection.py" >"$TMP/repo/edited.py"
if cmp -s "$TMP/repo/edited.cuh" "$TMP/repo/kernels/csrc/lit_common.cuh" \
  || cmp -s "$TMP/repo/edited.py" "$TMP/repo/kernels/scripts/transformers_injection.py"; then
  bad "repository stitch: the edits apply to the tangled files"
fi
cp "$TMP/repo/edited.cuh" "$TMP/repo/kernels/csrc/lit_common.cuh"
cp "$TMP/repo/edited.py" "$TMP/repo/kernels/scripts/transformers_injection.py"
run 0 "repository stitch: lit stitch of two edited files" stitch --root "$TMP/repo"
has "repository stitch: the constant is in kernel-vocabulary.md" "$TMP/repo/references/kernel-vocabulary.md" "& 0xfu) == 0"
has "repository stitch: the shared chunk's line is in transformers-injection.md" \
  "$TMP/repo/references/transformers-injection.md" '"lit_kernels"  # a local build'
has "repository stitch: the other script that includes the chunk is named" "$TMP/err" "kernels/scripts/ltx_kernel_injection.py"
run 0 "repository stitch: the next tangle writes the other script" tangle -q --root "$TMP/repo"
has "repository stitch: the other script has the line" "$TMP/repo/kernels/scripts/ltx_kernel_injection.py" \
  '"lit_kernels"  # a local build'
cmp -s "$TMP/repo/edited.cuh" "$TMP/repo/kernels/csrc/lit_common.cuh" && cmp -s "$TMP/repo/edited.py" \
  "$TMP/repo/kernels/scripts/transformers_injection.py" && ok "repository stitch: the edited files stay as edited" \
  || bad "repository stitch: the edited files stay as edited"
run 0 "repository stitch: lit tangle --check is clean" tangle --check --root "$TMP/repo"

# The skill of this repository: agents choose a skill by its description,
# so it names what the skill is best at (attention, decode over a paged KV
# cache, the Hopper GEMM, FP8), within the Agent Skills limit of 1,024
# characters.
run 0 "repository skill: lit skill" skill --root "$TOP" --out "$TMP/skill"
sed -n 's/^description: //p' "$TMP/skill/cuda-kernels/SKILL.md" >"$TMP/desc"
for word in "attention" "decode" "paged KV cache" "wgmma GEMM" "FP8 GEMM" "FP8 inference"; do
  has "repository skill: the description names $word" "$TMP/desc" "$word"
done
n=$(tr -d '\n' <"$TMP/desc" | sed 's/^"//; s/"$//' | wc -c)
[ "$n" -ge 1 ] && [ "$n" -le 1024 ] && ok "repository skill: the description is 1-1024 characters ($n)" \
  || bad "repository skill: the description is 1-1024 characters ($n)"

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

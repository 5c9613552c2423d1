#!/bin/sh
# tests/weave/output_folders.sh LIT: the weaver's output folders.
#
# lit never deletes a file it did not write: `lit book --out DIR` and
# `lit skill --out DIR` replace a folder only when everything in it is named
# by the manifest lit left there (.lit-manifest); an output folder that is
# not empty and not lit's is refused. `lit skill install` stages under a
# hidden name, puts the target in place by a rename, cleans up what a killed
# run left, reports an old copy it cannot remove, and follows
# XDG_CONFIG_HOME for opencode's global folder. (Every interruption point is
# covered by tests/crash/run.sh.)
# Ends with "N passed, N failed".
set -u
LIT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
P=$HERE/project
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { # check WHAT CONDITION...
  what=$1; shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}

# ---- lit book --out DIR ----
# A folder that merely holds a chunks.html (what earlier versions took as
# proof of an earlier book) and a file of the user's: nothing is deleted.
mkdir -p "$TMP/site"
echo "<p>mine</p>" >"$TMP/site/chunks.html"
echo "my notes" >"$TMP/site/notes.txt"
"$LIT" book --root "$P" --out "$TMP/site" 2>"$TMP/err"
status=$?
check "book --out over a folder of other files: exit 1" [ $status = 1 ]
check "book --out: the user's file is kept" [ -f "$TMP/site/notes.txt" ]
check "book --out: nothing was written" [ ! -e "$TMP/site/index.html" ]
check "book --out: the message names the file" grep -q "notes.txt: error: lit did not write this file" "$TMP/err"

# A book lit wrote, then a file the user added to it.
"$LIT" book --root "$P" --out "$TMP/book" 2>/dev/null
check "book --out: a fresh folder gets a manifest" [ -s "$TMP/book/.lit-manifest" ]
echo "CNAME" >"$TMP/book/CNAME"
"$LIT" book --root "$P" --out "$TMP/book" 2>"$TMP/err"
check "book --out over its own book with a user's file: exit 1, the file kept" \
  sh -c '[ $0 = 1 ] && [ -f "$1/CNAME" ]' $? "$TMP/book"
rm "$TMP/book/CNAME"
check "book --out over its own book: replaced" "$LIT" book --root "$P" --out "$TMP/book"
check "book --check ignores the manifest" "$LIT" book --root "$P" --out "$TMP/book" --check

# The project folder itself, or any folder of other work.
(cd "$P" && "$LIT" book --out . 2>"$TMP/err")
check "book --out . (the project) is refused" sh -c '[ $0 = 1 ]' $?
check "book --out .: nothing written in the project" [ ! -e "$P/chunks.html" ]
check "book --out .: no staging folder left" sh -c '! ls -A "$0/.." | grep -q lit-new' "$P"

# ---- lit skill --out DIR: DIR receives NAME/, so DIR itself must be lit's ----
mkdir -p "$TMP/root"
echo "system file" >"$TMP/root/etc-passwd"
mkdir -p "$TMP/root/bin"
"$LIT" skill --root "$P" --out "$TMP/root" 2>"$TMP/err"
status=$?
check "skill --out over a folder of other work (as --out / would be): exit 1" [ $status = 1 ]
check "skill --out: no bundle written into it" [ ! -e "$TMP/root/demo-kernels" ]
check "skill --out: the message names what is there" grep -q "etc-passwd: error: lit did not write this" "$TMP/err"
check "skill --out a new folder works" "$LIT" skill --root "$P" --out "$TMP/skills"
check "skill --out the same folder again works" "$LIT" skill --root "$P" --out "$TMP/skills"

# ---- lit skill install ----
FROM=$TMP/skills/demo-kernels
mkdir -p "$TMP/dest"
# What a killed run left: a half-written staging folder of a process that
# no longer runs (4194304 is past the largest process id), with the marker
# lit writes first into every staging folder.
mkdir -p "$TMP/dest/.demo-kernels.lit-new-4194304"
printf 'lit staging folder of demo-kernels, process 4194304\n' >"$TMP/dest/.demo-kernels.lit-new-4194304/.lit-stage"
echo partial >"$TMP/dest/.demo-kernels.lit-new-4194304/SKILL.md"
# A folder of that name lit did not make (no marker): a user's, kept.
mkdir -p "$TMP/dest/.demo-kernels.lit-new-4194303"
echo "my notes" >"$TMP/dest/.demo-kernels.lit-new-4194303/notes.md"
check "install: works beside a killed run's leftovers" "$LIT" skill install --dest "$TMP/dest" --from "$FROM" >/dev/null 2>"$TMP/err"
check "install: the killed run's staging folder is cleaned up" [ ! -e "$TMP/dest/.demo-kernels.lit-new-4194304" ]
check "install: a folder of that name lit cannot vouch for is kept" [ -f "$TMP/dest/.demo-kernels.lit-new-4194303/notes.md" ]
check "install: and named in a warning" grep -q "lit-new-4194303: warning: .*lit cannot tell that it made it" "$TMP/err"
rm -r "$TMP/dest/.demo-kernels.lit-new-4194303"
check "install: nothing else is left beside it" sh -c '[ "$(ls -A "$0")" = demo-kernels ]' "$TMP/dest"
# Killed after an exchange, before the old copy (a whole earlier install,
# every file vouched for by its manifest) was removed: it goes too.
cp -R "$TMP/dest/demo-kernels" "$TMP/dest/.demo-kernels.lit-old-4194304"
"$LIT" skill install --dest "$TMP/dest" --from "$FROM" --force >/dev/null 2>&1
check "install: an old copy beside the target is removed" sh -c '[ "$(ls -A "$0")" = demo-kernels ]' "$TMP/dest"
check "install: the copy is whole" diff -r "$FROM" "$TMP/dest/demo-kernels" -x .lit-manifest
# Killed between the two renames of a system without renameat2: the old
# copy, aside under its hidden name, is put back.
mv "$TMP/dest/demo-kernels" "$TMP/dest/.demo-kernels.lit-old-4194304"
"$LIT" skill install --dest "$TMP/dest" --from "$FROM" 2>"$TMP/err"
check "install: an old copy left aside by a killed swap is put back first (and --force is asked for)" \
  sh -c '[ -f "$0/demo-kernels/SKILL.md" ] && grep -q -- --force "$1"' "$TMP/dest" "$TMP/err"

# --force over an install holding a file lit did not write: refused, kept.
echo "my tweak" >"$TMP/dest/demo-kernels/local-notes.md"
"$LIT" skill install --dest "$TMP/dest" --from "$FROM" --force 2>"$TMP/err"
check "install --force over a user's file: exit 1, the file kept" \
  sh -c '[ $0 = 1 ] && [ -f "$1/demo-kernels/local-notes.md" ]' $? "$TMP/dest"
rm "$TMP/dest/demo-kernels/local-notes.md"

# A fresh install never shows an empty or partial folder: killed at its
# first step (the staging folder), there is no target at all.
mkdir -p "$TMP/fresh"
sh -c 'LIT_TEST_CRASH_AT=1 exec "$0" skill install --dest "$1" --from "$2"' "$LIT" "$TMP/fresh" "$FROM" >/dev/null 2>&1
check "install killed at once: no target, nothing visible" sh -c '[ -z "$(ls "$0")" ]' "$TMP/fresh"

# Failing to remove the old copy is an error, and the next run removes it.
steps=0
n=1
while [ $n -lt 50 ]; do
  rm -rf "$TMP/d2" && cp -R "$TMP/dest" "$TMP/d2"
  if sh -c 'LIT_TEST_CRASH_AT=$3 exec "$0" skill install --dest "$1" --from "$2" --force' "$LIT" "$TMP/d2" "$FROM" $n >/dev/null 2>&1; then break; fi
  steps=$n
  n=$((n + 1))
done
rm -rf "$TMP/d2" && cp -R "$TMP/dest" "$TMP/d2"
LIT_TEST_FAIL_AT=$steps "$LIT" skill install --dest "$TMP/d2" --from "$FROM" --force 2>"$TMP/err"
check "install: an old copy that cannot be removed is an error (exit 1)" sh -c '[ $0 = 1 ]' $?
check "install: the error says so" grep -q "its old copy cannot be removed" "$TMP/err"
"$LIT" skill install --dest "$TMP/d2" --from "$FROM" --force >/dev/null 2>&1
check "install: the next run removes the old copy" sh -c '[ "$(ls -A "$0")" = demo-kernels ]' "$TMP/d2"

# opencode's global folder follows XDG_CONFIG_HOME.
mkdir -p "$TMP/home"
HOME=$TMP/home XDG_CONFIG_HOME=$TMP/xdg "$LIT" skill install --global --opencode --from "$FROM" >/dev/null 2>&1
check "install --global --opencode: under \$XDG_CONFIG_HOME/opencode/skills" [ -f "$TMP/xdg/opencode/skills/demo-kernels/SKILL.md" ]
check "install --global --opencode: not under ~/.config" [ ! -e "$TMP/home/.config" ]
HOME=$TMP/home XDG_CONFIG_HOME= "$LIT" skill install --global --opencode --from "$FROM" >/dev/null 2>&1
check "install --global --opencode: ~/.config/opencode/skills when XDG_CONFIG_HOME is empty" \
  [ -f "$TMP/home/.config/opencode/skills/demo-kernels/SKILL.md" ]

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

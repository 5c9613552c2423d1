#!/bin/sh
# tests/weave/skill_install.sh LIT: `lit skill install` in a temporary HOME.
#
# Builds the fixture bundle, then installs it with each flag into a scratch
# folder and HOME: --claude, --codex, --opencode (under the current folder),
# --global (all three under HOME, or one with an agent flag), --dest DIR.
# Checks that an existing install is refused without --force and replaced
# with it (unless it holds a file lit did not write), that a failed install
# leaves the old one whole and no staging folder behind, that a bundle
# holding a symbolic link is refused with the link named and nothing
# installed, and walks every link of an installed copy.
# Ends with "N passed, N failed".
set -u
LIT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'chmod -R u+rwX "$TMP" 2>/dev/null; rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
expect() { # expect WHAT COMMAND...: the command succeeds
  what=$1; shift
  if "$@" >"$TMP/out" 2>&1; then ok "$what"; else bad "$what"; cat "$TMP/out"; fi
}
expect_fail() {
  what=$1; shift
  if "$@" >"$TMP/out" 2>&1; then bad "$what"; cat "$TMP/out"; else ok "$what"; fi
}

"$LIT" skill --root "$HERE/project" --out "$TMP/build" || { echo "cannot build the fixture bundle"; exit 1; }
FROM=$TMP/build/demo-kernels
export HOME="$TMP/home"
mkdir -p "$HOME" "$TMP/work"
cd "$TMP/work" || exit 1

for flag in claude codex opencode; do
  expect "--$flag installs under ./.$flag/skills" "$LIT" skill install "--$flag" --from "$FROM"
  if [ -f ".$flag/skills/demo-kernels/SKILL.md" ] && grep -q "installed demo-kernels to .$flag/skills/demo-kernels" "$TMP/out"; then
    ok "--$flag: the bundle is there and the command says where"
  else bad "--$flag: the bundle is there and the command says where"; cat "$TMP/out"; fi
done

expect "--global installs for all three agents under HOME" "$LIT" skill install --global --from "$FROM"
for d in .claude/skills .codex/skills .config/opencode/skills; do
  if [ -f "$HOME/$d/demo-kernels/SKILL.md" ]; then ok "--global: $d"; else bad "--global: $d"; fi
done
rm -rf "$HOME/.claude"
expect "--global --claude installs for that agent only" "$LIT" skill install --global --claude --from "$FROM" --force
if [ -f "$HOME/.claude/skills/demo-kernels/SKILL.md" ] && ! grep -q codex "$TMP/out"; then ok "--global --claude: claude only"
else bad "--global --claude: claude only"; cat "$TMP/out"; fi

expect "--dest installs into DIR/NAME" "$LIT" skill install --dest "$TMP/dest" --from "$FROM"
[ -f "$TMP/dest/demo-kernels/.lit-manifest" ] && [ ! -e "$TMP/dest/demo-kernels/manifest.txt" ] \
  && ok "--dest: one manifest there" || bad "--dest: one manifest there"
cmp -s "$FROM/scripts/run.py" "$TMP/dest/demo-kernels/scripts/run.py" && [ -x "$TMP/dest/demo-kernels/scripts/run.py" ] \
  && ok "--dest: scripts copied as built, executable" || bad "--dest: scripts copied as built, executable"

echo "old" >"$TMP/dest/demo-kernels/marker"
expect_fail "an existing install is refused without --force" "$LIT" skill install --dest "$TMP/dest" --from "$FROM"
grep -q -- "--force" "$TMP/out" && ok "the refusal says to pass --force" || bad "the refusal says to pass --force"
[ -f "$TMP/dest/demo-kernels/marker" ] && ok "the refused install left the old one" || bad "the refused install left the old one"
# --force replaces what lit installed, never a file it did not write.
expect_fail "--force over an install holding a file lit did not write is refused" \
  "$LIT" skill install --dest "$TMP/dest" --from "$FROM" --force
grep -q "marker: error: lit did not write this file" "$TMP/out" && [ -f "$TMP/dest/demo-kernels/marker" ] \
  && ok "the refusal names the file, and keeps it" || bad "the refusal names the file, and keeps it"
rm "$TMP/dest/demo-kernels/marker"
echo "edited" >>"$TMP/dest/demo-kernels/SKILL.md"
expect "--force replaces it" "$LIT" skill install --dest "$TMP/dest" --from "$FROM" --force
cmp -s "$FROM/SKILL.md" "$TMP/dest/demo-kernels/SKILL.md" && ok "--force: the new copy, whole" \
  || bad "--force: the new copy, whole"

# A failing copy (an unreadable file in the source) must leave the old install whole.
if [ "$(id -u)" != 0 ]; then
  cp -r "$FROM" "$TMP/broken"
  echo "secret" >"$TMP/broken/unreadable.md"
  chmod 000 "$TMP/broken/unreadable.md"
  echo "old" >>"$TMP/dest/demo-kernels/SKILL.md"
  cp "$TMP/dest/demo-kernels/SKILL.md" "$TMP/old-skill"
  expect_fail "an install that fails mid-copy reports it" "$LIT" skill install --dest "$TMP/dest" --from "$TMP/broken" --force
  cmp -s "$TMP/old-skill" "$TMP/dest/demo-kernels/SKILL.md" && ok "the failed install left the old one whole" || bad "the failed install left the old one whole"
else
  # root reads anything: break the copy by making the destination's parent unwritable instead... root writes
  # anything too, so use a source that vanishes: a dangling bundle path.
  echo "old" >>"$TMP/dest/demo-kernels/SKILL.md"
  cp "$TMP/dest/demo-kernels/SKILL.md" "$TMP/old-skill"
  expect_fail "an install from a missing bundle fails" "$LIT" skill install --dest "$TMP/dest" --from "$TMP/nowhere/demo-kernels" --force
  cmp -s "$TMP/old-skill" "$TMP/dest/demo-kernels/SKILL.md" && ok "the failed install left the old one whole" || bad "the failed install left the old one whole"
fi
leftover=$(find "$TMP/dest" -maxdepth 1 -name '*lit-*' | wc -l)
[ "$leftover" = 0 ] && ok "no staging folder left behind" || bad "no staging folder left behind ($leftover)"

# A symbolic link in the bundle (it may lead anywhere, out of the project
# too) is never followed, nor skipped without a word: the install is
# refused, the link named, and nothing is installed.
cp -R "$FROM" "$TMP/linked"
ln -s /etc/hostname "$TMP/linked/hostname.md"
expect_fail "a bundle holding a symbolic link is refused" "$LIT" skill install --dest "$TMP/linkdest" --from "$TMP/linked"
grep -q "linked/hostname.md: error: is a symbolic link" "$TMP/out" && ok "the refusal names the link" \
  || { bad "the refusal names the link"; cat "$TMP/out"; }
[ -z "$(ls -A "$TMP/linkdest" 2>/dev/null)" ] \
  && ok "the refused install left nothing behind" || bad "the refused install left nothing behind"

expect_fail "no destination flag is a usage error" "$LIT" skill install --from "$FROM"
expect_fail "a folder without SKILL.md is refused" "$LIT" skill install --dest "$TMP/x" --from "$TMP/work"

# Without --from, the bundle is build/skill/NAME, NAME read from index.md as `lit skill` reads it.
expect_fail "no --from and no index.md here is refused" "$LIT" skill install --dest "$TMP/y"
grep -q -- "--from DIR" "$TMP/out" && ok "the refusal names --from" || bad "the refusal names --from"
mkdir -p "$TMP/named/build/skill" && cp -R "$FROM" "$TMP/named/build/skill/"
printf -- '---\nname: demo-kernels\n---\n# Demo\n' >"$TMP/named/index.md"
(cd "$TMP/named" && "$LIT" skill install --dest "$TMP/y") >"$TMP/out" 2>&1 &&
  [ -f "$TMP/y/demo-kernels/SKILL.md" ] && ok "no --from installs the bundle index.md names" ||
  { bad "no --from installs the bundle index.md names"; cat "$TMP/out"; }

expect "every link of an installed copy resolves" python3 "$HERE/skill_check.py" "$HOME/.claude/skills/demo-kernels"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

#!/bin/sh
# tests/crash/run.sh LIT: crash consistency and rollback of every write.
#
# lit counts each step that changes the disk (a folder made, a file
# staged, a journal written, a rename, a removal). LIT_TEST_CRASH_AT=N
# kills it (SIGKILL) at step N; LIT_TEST_FAIL_AT=N makes step N fail with
# ENOSPC. For `lit tangle` and `lit skill install`, each replacing an old
# state with a new one, this script stops a run at every step in turn:
#
#   killed at step N   the tree holds each file whole (old or new); a
#                      tangle --check reports it and changes nothing; once
#                      the next run has cleaned up, the tree is exactly the
#                      old state or exactly the new one (stitch: the next
#                      run is a tangle, which leaves the tree as it finds
#                      it once the stitch is undone), and a plain rerun
#                      reaches the new state
#   failed at step N   the run exits 1 and the tree is exactly the old state
#                      at once, with no temporary left behind; the first
#                      step after the commit point (the journal's "done")
#                      that fails leaves every file new, a warning and the
#                      journal, and the next run finishes the clean-up
#
# Every project also holds a user's files named like lit's temporaries and
# old copies of a dead process (no journal names them): every state must
# keep them. A run killed after its journal's "done" line (its commit
# point) has every file in place; the next run removes the old copies the
# journal names (each proven lit's by the journal's "made" line, written
# right after the copy was made: a kill at any step leaves none unproven),
# and no other .lit-old- file is left.
#
# Ends with "N passed, N failed".
set -u
LIT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
same() { diff -r "$1" "$2" >/dev/null 2>&1; }
# A user's files that only look like lit's, in the folders given.
lookalikes() {
  for d in "$@"; do
    echo "a user's" >"$d/.lit-tmp-4194304-0"
    echo "a user's" >"$d/.lit-old-4194304-1"
  done
}
# Whether a killed run had passed its commit point.
finished() { [ -f "$1/.lit-record-journal" ] && [ "$(tail -n 1 "$1/.lit-record-journal")" = done ]; }
# lit's old copies left in a tree: none but the user's look-alikes.
no_old_copies() { [ -z "$(find "$1" -name '.lit-old-*' ! -name '.lit-old-4194304-1')" ]; }

# ---- tangle: a changed file, an unchanged one, an orphan, a new folder ----
mkdir -p "$TMP/base"
cp "$HERE/project/old.md" "$TMP/base/index.md"
(cd "$TMP/base" && "$LIT" tangle -q) || { echo "cannot tangle the old state"; exit 1; }
lookalikes "$TMP/base" "$TMP/base/out"
cp "$HERE/project/new.md" "$TMP/base/index.md"
cp -R "$TMP/base" "$TMP/old"
cp -R "$TMP/base" "$TMP/new"
(cd "$TMP/new" && "$LIT" tangle -q 2>/dev/null) || { echo "cannot tangle the new state"; exit 1; }
same "$TMP/old" "$TMP/new" && { echo "the old and new states are the same"; exit 1; }

# Every output is whole: equal to its old or its new version, or absent
# where one of the states lacks it.
whole() {
  for f in out/a.c out/b.c out/gone.c out/new/c.c .lit-record; do
    if [ -e "$1/$f" ]; then
      cmp -s "$1/$f" "$TMP/old/$f" || cmp -s "$1/$f" "$TMP/new/$f" || return 1
    else
      [ -e "$TMP/old/$f" ] && [ -e "$TMP/new/$f" ] && return 1
    fi
  done
  return 0
}

n=1
kills=0
done_kills=0
while [ $n -lt 200 ]; do
  rm -rf "$TMP/run"
  cp -R "$TMP/base" "$TMP/run"
  status=$(cd "$TMP/run" && { LIT_TEST_CRASH_AT=$n "$LIT" tangle -q >/dev/null 2>&1; echo $?; } 2>/dev/null)
  [ $status = 0 ] && break
  kills=$((kills + 1))
  was_done=0
  finished "$TMP/run" && was_done=1 && done_kills=$((done_kills + 1))
  if [ $status != 137 ]; then bad "tangle killed at step $n: exit $status, not SIGKILL"; fi
  whole "$TMP/run" && ok || bad "tangle killed at step $n: a file is neither old nor new"
  # A --check reports the interrupted run and changes nothing.
  rm -rf "$TMP/killed"
  cp -R "$TMP/run" "$TMP/killed"
  (cd "$TMP/run" && "$LIT" tangle --check) >/dev/null 2>&1
  same "$TMP/run" "$TMP/killed" && ok || bad "tangle killed at step $n: a --check changed the tree"
  # The next run first undoes the interrupted one; failing at its own first
  # step, it leaves what the undo left, which must be one whole state.
  (cd "$TMP/run" && LIT_TEST_FAIL_AT=1 "$LIT" tangle -q) >/dev/null 2>&1
  if same "$TMP/run" "$TMP/old" || same "$TMP/run" "$TMP/new"; then ok
  else bad "tangle killed at step $n: after the next run, the tree is neither the old state nor the new"; diff -r "$TMP/old" "$TMP/run" | head -5; fi
  if [ $was_done = 1 ]; then
    same "$TMP/run" "$TMP/new" && no_old_copies "$TMP/run" && ok \
      || bad "tangle killed at step $n, after done: the next run did not finish it: $(find "$TMP/run" -name '.lit-*')"
  fi
  (cd "$TMP/run" && "$LIT" tangle -q) >/dev/null 2>&1
  if same "$TMP/run" "$TMP/new"; then ok; else bad "tangle killed at step $n: a rerun does not reach the new state"; fi
  n=$((n + 1))
done
[ $kills -ge 10 ] && ok || bad "tangle: only $kills write steps could be interrupted (LIT_TEST_CRASH_AT ignored?)"
[ $done_kills -ge 2 ] && ok || bad "tangle: killed after done at only $done_kills steps"
echo "tangle: killed at each of $kills steps ($done_kills after done)"

n=1
fails=0
while [ $n -lt 200 ]; do
  rm -rf "$TMP/run"
  cp -R "$TMP/base" "$TMP/run"
  (cd "$TMP/run" && LIT_TEST_FAIL_AT=$n "$LIT" tangle -q) >"$TMP/out" 2>&1
  status=$?
  if [ $status = 0 ]; then
    # The first step that can fail without failing the run comes after
    # done: every file is in place, the journal stays with a warning, and
    # the next run removes the old copies it names.
    if finished "$TMP/run" && grep -q "the clean-up stopped" "$TMP/out"; then ok
    else bad "tangle failing at step $n, after done: no journal left, or no warning"; cat "$TMP/out"; fi
    (cd "$TMP/run" && "$LIT" tangle -q) >/dev/null 2>&1
    same "$TMP/run" "$TMP/new" && no_old_copies "$TMP/run" && ok \
      || bad "tangle failing at step $n, after done: the next run did not finish it: $(find "$TMP/run" -name '.lit-*')"
    break
  fi
  fails=$((fails + 1))
  [ $status = 1 ] && grep -q "No space left on device" "$TMP/out" && ok || { bad "tangle failing at step $n: exit $status"; cat "$TMP/out"; }
  if same "$TMP/run" "$TMP/old"; then ok
  else bad "tangle failing at step $n: the tree is not the old state"; diff -r "$TMP/old" "$TMP/run" | head -5; fi
  n=$((n + 1))
done
[ $fails -ge 10 ] && ok || bad "tangle: only $fails write steps could fail (LIT_TEST_FAIL_AT ignored?)"
echo "tangle: failed at each of $fails steps"

# ---- stitch: a hand edit carried into two documents, and the record ----
mkdir -p "$TMP/sbase"
cp -R "$HERE/project/stitch/." "$TMP/sbase/"
(cd "$TMP/sbase" && "$LIT" tangle -q) || { echo "cannot tangle the stitch project"; exit 1; }
lookalikes "$TMP/sbase" "$TMP/sbase/doc" "$TMP/sbase/out"
sed 's/int top = 1;/int top = 10;/; s/int part = 2;/int part = 20;/' "$TMP/sbase/out/s.c" >"$TMP/s.c" && mv "$TMP/s.c" "$TMP/sbase/out/s.c"
rm -rf "$TMP/old" "$TMP/new"
cp -R "$TMP/sbase" "$TMP/old"
cp -R "$TMP/sbase" "$TMP/new"
(cd "$TMP/new" && "$LIT" stitch -q) || { echo "cannot stitch"; exit 1; }
same "$TMP/old" "$TMP/new" && { echo "the stitch changed nothing"; exit 1; }

swhole() {
  for f in index.md doc/part.md .lit-record out/s.c; do
    cmp -s "$1/$f" "$TMP/old/$f" || cmp -s "$1/$f" "$TMP/new/$f" || return 1
  done
}

n=1
kills=0
done_kills=0
while [ $n -lt 200 ]; do
  rm -rf "$TMP/run"
  cp -R "$TMP/sbase" "$TMP/run"
  status=$(cd "$TMP/run" && { LIT_TEST_CRASH_AT=$n "$LIT" stitch -q >/dev/null 2>&1; echo $?; } 2>/dev/null)
  [ $status = 0 ] && break
  kills=$((kills + 1))
  was_done=0
  finished "$TMP/run" && was_done=1 && done_kills=$((done_kills + 1))
  if [ $status != 137 ]; then bad "stitch killed at step $n: exit $status, not SIGKILL"; fi
  swhole "$TMP/run" && ok || bad "stitch killed at step $n: a document is neither old nor new"
  # The next run of lit (a tangle) first undoes the interrupted stitch, and
  # reads the documents it put back.
  (cd "$TMP/run" && "$LIT" tangle -q) >/dev/null 2>&1
  if same "$TMP/run" "$TMP/old" || same "$TMP/run" "$TMP/new"; then ok
  else bad "stitch killed at step $n: after the next run, the tree is neither the old state nor the new"; diff -r "$TMP/old" "$TMP/run" | head -5; fi
  if [ $was_done = 1 ]; then
    same "$TMP/run" "$TMP/new" && no_old_copies "$TMP/run" && ok \
      || bad "stitch killed at step $n, after done: the next run did not finish it: $(find "$TMP/run" -name '.lit-*')"
  fi
  (cd "$TMP/run" && "$LIT" stitch -q) >/dev/null 2>&1
  if same "$TMP/run" "$TMP/new"; then ok; else bad "stitch killed at step $n: a rerun does not reach the new state"; fi
  n=$((n + 1))
done
[ $kills -ge 5 ] && ok || bad "stitch: only $kills write steps could be interrupted (LIT_TEST_CRASH_AT ignored?)"
[ $done_kills -ge 2 ] && ok || bad "stitch: killed after done at only $done_kills steps"
echo "stitch: killed at each of $kills steps ($done_kills after done)"

n=1
fails=0
while [ $n -lt 200 ]; do
  rm -rf "$TMP/run"
  cp -R "$TMP/sbase" "$TMP/run"
  (cd "$TMP/run" && LIT_TEST_FAIL_AT=$n "$LIT" stitch -q) >"$TMP/out" 2>&1
  status=$?
  [ $status = 0 ] && break
  fails=$((fails + 1))
  [ $status = 1 ] && grep -q "No space left on device" "$TMP/out" && ok || { bad "stitch failing at step $n: exit $status"; cat "$TMP/out"; }
  if same "$TMP/run" "$TMP/old"; then ok
  else bad "stitch failing at step $n: the tree is not the old state"; diff -r "$TMP/old" "$TMP/run" | head -5; fi
  n=$((n + 1))
done
[ $fails -ge 5 ] && ok || bad "stitch: only $fails write steps could fail (LIT_TEST_FAIL_AT ignored?)"
echo "stitch: failed at each of $fails steps"

# ---- skill install: replacing an install, and a first install ----
"$LIT" skill --root "$HERE/../weave/project" --out "$TMP/v1" >/dev/null 2>&1 || { echo "cannot build the bundle"; exit 1; }
cp -R "$TMP/v1" "$TMP/v2"
B=demo-kernels
echo "# Added in the new version" >"$TMP/v2/$B/references/added.md"
echo "changed" >>"$TMP/v2/$B/SKILL.md"
rm -f "$TMP/v2/$B/scripts/run.py"
mkdir -p "$TMP/dest0"
"$LIT" skill install --dest "$TMP/dest0" --from "$TMP/v1/$B" >/dev/null || exit 1
mkdir -p "$TMP/want"
"$LIT" skill install --dest "$TMP/want" --from "$TMP/v2/$B" >/dev/null || exit 1

# The only thing an agent scanning DEST/*/SKILL.md may see is one whole skill.
visible_ok() {
  names=$(cd "$1" && ls)
  [ -z "$names" ] || [ "$names" = "$B" ]
}

for mode in replace fresh; do
  n=1
  kills=0
  while [ $n -lt 200 ]; do
    rm -rf "$TMP/dest"
    if [ $mode = replace ]; then cp -R "$TMP/dest0" "$TMP/dest"; else mkdir -p "$TMP/dest"; fi
    status=$({ LIT_TEST_CRASH_AT=$n "$LIT" skill install --dest "$TMP/dest" --from "$TMP/v2/$B" --force >/dev/null 2>&1; echo $?; } 2>/dev/null)
    [ $status = 0 ] && break
    kills=$((kills + 1))
    visible_ok "$TMP/dest" && ok || bad "install ($mode) killed at step $n: a second folder is visible: $(ls "$TMP/dest")"
    if [ ! -e "$TMP/dest/$B" ]; then
      # Gone only on a system without an atomic exchange, killed between its
      # two renames: the old copy waits under its hidden name, whole, and
      # the next install puts it back first.
      if [ $mode = fresh ]; then ok
      elif old=$(ls -d "$TMP/dest"/.$B.lit-old-* 2>/dev/null) && same "$old" "$TMP/dest0/$B"; then ok
      else bad "install ($mode) killed at step $n: the old install is gone"; fi
    elif same "$TMP/dest/$B" "$TMP/dest0/$B" || same "$TMP/dest/$B" "$TMP/want/$B"; then ok
    else bad "install ($mode) killed at step $n: the install is neither old nor new"; fi
    "$LIT" skill install --dest "$TMP/dest" --from "$TMP/v2/$B" --force >/dev/null 2>&1
    if same "$TMP/dest" "$TMP/want"; then ok
    else bad "install ($mode) killed at step $n: the next install leaves debris or a wrong copy: $(ls -A "$TMP/dest")"; fi
    n=$((n + 1))
  done
  [ $kills -ge 4 ] && ok || bad "install ($mode): only $kills steps could be interrupted"
  echo "install ($mode): killed at each of $kills steps"
  last=$((n - 1))

  n=1
  while [ $n -le $last ]; do
    rm -rf "$TMP/dest"
    if [ $mode = replace ]; then cp -R "$TMP/dest0" "$TMP/dest"; else mkdir -p "$TMP/dest"; fi
    LIT_TEST_FAIL_AT=$n "$LIT" skill install --dest "$TMP/dest" --from "$TMP/v2/$B" --force >"$TMP/out" 2>&1
    status=$?
    if [ $mode = replace ] && [ $n = $last ]; then
      # The last step removes the old copy: the new one is in place, and the
      # failure is an error, not a silent leftover.
      [ $status = 1 ] && grep -q "old copy cannot be removed" "$TMP/out" && ok \
        || { bad "install: a failed removal of the old copy is not an error (exit $status)"; cat "$TMP/out"; }
      same "$TMP/dest/$B" "$TMP/want/$B" && visible_ok "$TMP/dest" && ok || bad "install: after a failed removal, the new copy is not whole"
      "$LIT" skill install --dest "$TMP/dest" --from "$TMP/v2/$B" --force >/dev/null 2>&1
      same "$TMP/dest" "$TMP/want" && ok || bad "install: the next run does not clean up the old copy: $(ls -A "$TMP/dest")"
    else
      [ $status = 1 ] && ok || { bad "install ($mode) failing at step $n: exit $status"; cat "$TMP/out"; }
      if [ $mode = replace ]; then same "$TMP/dest" "$TMP/dest0" && ok || bad "install (replace) failing at step $n: not the old state: $(ls -A "$TMP/dest")"
      else [ -z "$(ls -A "$TMP/dest")" ] && ok || bad "install (fresh) failing at step $n: debris: $(ls -A "$TMP/dest")"; fi
    fi
    n=$((n + 1))
  done
  echo "install ($mode): failed at each of $last steps"
done

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]

#!/bin/sh
# make_seeds.sh TARGET CORPUS_DIR: fuzz seeds in the targets' input format
# (fuzz_input.h): index.md, then each further part after a "%%% <name>"
# line.
#
#   tangle, weave   one seed per golden case: index.md and up to two more
#                   documents; weave also gets the weaver's fixture project
#   write           the same, and each case's existing files (outputs, a
#                   .lit-record), up to six parts in all
set -eu
target=$1
corpus=$2
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/../golden
mkdir -p "$corpus"
seed() { # seed NAME FOLDER MAX_DOCS MAX_OTHER
  in=$2
  {
    cat "$in/index.md"
    (cd "$in" && find . -name '*.md' ! -path ./index.md | sed 's|^\./||' | sort | head -n "$3") |
      while read -r doc; do
        printf '\n%%%%%% %s\n' "$doc"
        cat "$in/$doc"
      done
    if [ "$4" -gt 0 ]; then
      (cd "$in" && find . -type f ! -name '*.md' | sed 's|^\./||' | sort | head -n "$4") |
        while read -r f; do
          printf '\n%%%%%% %s\n' "$f"
          cat "$in/$f"
        done
    fi
  } >"$corpus/seed-$1"
}
for case in "$golden"/*/; do
  [ -f "$case/input/index.md" ] || continue
  name=$(basename "$case")
  case $target in
    write) seed "$name" "$case/input" 2 3 ;;
    *) seed "$name" "$case/input" 2 0 ;;
  esac
done
if [ "$target" = write ]; then
  # A record, and journals of a killed run: ones lit could have written,
  # one that names a file outside the output folders.
  doc='---
tangle-roots: out
---
```{.c file=out/a.c}
int a;
```
'
  printf '%s\n%%%%%% out/a.c\nint old;\n%%%%%% .lit-record\n%s\n' "$doc" \
    '0123456789abcdef0123456789abcdef out/a.c' >"$corpus/seed-record"
  { printf '%s\n%%%%%% out/a.c\nint a;\n%%%%%% .lit-record-journal\n' "$doc"
    printf 'lit-journal 4194304\ndir\tout/n\ntemp\tout/.lit-tmp-4194304-0\n'
    printf 'replace\tout/.lit-tmp-4194304-0\tout/a.c\tout/.lit-old-4194304-0\ncommit\n'; } >"$corpus/seed-journal"
  # One with the "made" lines that prove its copies lit's, ended by "done".
  { printf '%s\n%%%%%% out/a.c\nint a;\n%%%%%% .lit-record-journal\n' "$doc"
    printf 'lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-0\nmade\tout/.lit-tmp-4194304-0\t1\t2\n'
    printf 'replace\tout/.lit-tmp-4194304-0\tout/a.c\tout/.lit-old-4194304-0\ncommit\n'
    printf 'made\tout/.lit-old-4194304-0\t1\t3\t7\t1700000000\t0\ndone\n'; } >"$corpus/seed-journal-made"
  { printf '%s\n%%%%%% keep.txt\nmine\n%%%%%% .lit-record-journal\n' "$doc"
    printf 'lit-journal 4194304\nremove\tkeep.txt\t.lit-old-4194304-0\ncommit\n'; } >"$corpus/seed-journal-outside"
fi
if [ "$target" = weave ]; then
  seed weave-project "$here/../weave/project" 2 0
fi

#!/bin/sh
# make_seeds.sh GOLDEN_DIR CORPUS_DIR: one fuzz seed per golden case, in the
# fuzz target's format: index.md, then each other document after a
# "%%% <name>" line (the target reads at most three documents).
set -eu
golden=$1
corpus=$2
mkdir -p "$corpus"
for case in "$golden"/*/; do
  in="$case/input"
  [ -f "$in/index.md" ] || continue
  name=$(basename "$case")
  {
    cat "$in/index.md"
    (cd "$in" && find . -name '*.md' ! -path ./index.md | sed 's|^\./||' | sort | head -n 2) |
      while read -r doc; do
        printf '\n%%%%%% %s\n' "$doc"
        cat "$in/$doc"
      done
  } >"$corpus/seed-$name"
done

#!/bin/sh
# tests/weave/bench_weave.sh LIT [RESULTS_JSON]: how fast the weaver is.
#
#   repository:  `lit skill` then `lit book` on this repository (what
#                `make skill book` runs), into a scratch folder
#   corpus:      `lit book` with the full chunk cross-reference on the
#                synthetic corpus of tests/bench/make_corpus.py (about 50 MB,
#                25,000 chunks, a 10,000-deep chain)
# Each is run RUNS times (default 5); the medians of wall, user and system
# seconds and of peak RSS (/usr/bin/time) go to RESULTS_JSON (default
# references/results/weave_speed.json) with the commands, the machine's
# processor count and its load average, since other work on the machine
# shows in wall time.
set -eu
lit=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
results=${2:-$repo/references/results/weave_speed.json}
runs=${RUNS:-5}
work=${BENCH_DIR:-$repo/gen/build/bench}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

if [ ! -f "$work/stats.json" ] || [ "$repo/tests/bench/make_corpus.py" -nt "$work/stats.json" ]; then
  rm -rf "$work"
  python3 "$repo/tests/bench/make_corpus.py" "$work"
fi

# one timed run: prints "wall user sys rss_kb"
timed() {
  /usr/bin/time -f '%e %U %S %M' -o "$scratch/t" "$@" >/dev/null 2>"$scratch/err" || { cat "$scratch/err" >&2; exit 1; }
  cat "$scratch/t"
}

: >"$scratch/repo"
: >"$scratch/corpus"
i=0
while [ "$i" -lt "$runs" ]; do
  a=$(cd "$repo" && timed "$lit" skill --out "$scratch/skill")
  b=$(cd "$repo" && timed "$lit" book --out "$scratch/book")
  echo "$a $b" | awk '{ printf "%.3f %.3f %.3f %d\n", $1 + $5, $2 + $6, $3 + $7, ($4 > $8 ? $4 : $8) }' >>"$scratch/repo"
  (cd "$work/md" && timed "$lit" book --out "$scratch/corpus-book") >>"$scratch/corpus"
  i=$((i + 1))
done

median() { # median of column $1 of file $2
  sort -n -k"$1","$1" "$2" | awk -v c="$1" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}
bytes=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['input_bytes'])" "$work/stats.json" 2>/dev/null ||
  du -sb "$work/md" | cut -f1)
out_bytes=$(du -sb "$scratch/corpus-book" | cut -f1)
cat >"$results" <<JSON
{
  "what": "weave speed: the skill and the book of this repository, and the HTML book of the 50 MB synthetic corpus with the full chunk cross-reference",
  "runs": $runs,
  "statistic": "median",
  "repository": {
    "command": "lit skill --out DIR && lit book --out DIR (what make skill book runs)",
    "wall_s": $(median 1 "$scratch/repo"),
    "user_s": $(median 2 "$scratch/repo"),
    "sys_s": $(median 3 "$scratch/repo"),
    "peak_rss_kb": $(median 4 "$scratch/repo")
  },
  "corpus": {
    "command": "cd gen/build/bench/md && lit book --out DIR (corpus: python3 tests/bench/make_corpus.py gen/build/bench)",
    "input_bytes": $bytes,
    "output_bytes": $out_bytes,
    "wall_s": $(median 1 "$scratch/corpus"),
    "user_s": $(median 2 "$scratch/corpus"),
    "sys_s": $(median 3 "$scratch/corpus"),
    "peak_rss_kb": $(median 4 "$scratch/corpus")
  },
  "machine": { "processors": $(nproc), "load_average_1min": $(cut -d' ' -f1 /proc/loadavg) },
  "tool": "tests/weave/bench_weave.sh"
}
JSON
cat "$results"

#!/bin/sh
# bench_tangle.sh LIT [RESULTS_JSON]: lit against Debian's notangle on the
# synthetic corpus (tests/bench/make_corpus.py: about 50 MB, 25,000 chunks,
# a 10,000-deep chain), side by side in one run.
#
# Each round runs, one after the other on the same machine:
#   lit:      `lit tangle -q` in the Markdown project, from a clean output
#             folder (every file and the record written)
#   notangle: one `notangle -R<root> ...` with every file root, on the noweb
#             form (tabs at notangle's default: no -t), output to a file
# timed with /usr/bin/time -f '%e %M' (wall seconds, peak RSS in KiB). The
# medians over RUNS rounds (default 5) go to RESULTS_JSON (default
# references/results/tangle_speed.json). Before timing, every root is checked
# to tangle to the same body with both tools.
set -eu
lit=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
results=${2:-$repo/references/results/tangle_speed.json}
runs=${RUNS:-5}
work=${BENCH_DIR:-$repo/gen/build/bench}
notangle=${NOTANGLE:-notangle}

if [ ! -f "$work/stats.json" ] || [ "$here/make_corpus.py" -nt "$work/stats.json" ]; then
  rm -rf "$work"
  python3 "$here/make_corpus.py" "$work"
fi
roots=$(cat "$work/roots.txt")
rflags=$(sed 's/^/-R/' "$work/roots.txt" | tr '\n' ' ')

# Same bodies (lit's two header lines removed) for every root.
(cd "$work/md" && rm -rf out .lit-record && "$lit" tangle -q)
for r in $roots; do
  "$notangle" -R"$r" "$work/corpus.nw" >"$work/want"
  sed -e '1,2d' "$work/md/$r" >"$work/got"
  if ! cmp -s "$work/want" "$work/got"; then
    echo "bench: lit and notangle disagree on $r" >&2
    exit 1
  fi
done
rm -f "$work/want" "$work/got"

: >"$work/lit.times"
: >"$work/notangle.times"
: >"$work/noop.times"
i=0
while [ $i -lt "$runs" ]; do
  rm -rf "$work/md/out" "$work/md/.lit-record"
  sync  # the last round's writes flushed before this one is timed, as for the stitch below
  (cd "$work/md" && /usr/bin/time -f '%e %M' -a -o "$work/lit.times" "$lit" tangle -q)
  (cd "$work/md" && /usr/bin/time -f '%e %M' -a -o "$work/noop.times" "$lit" tangle -q)
  # shellcheck disable=SC2086
  /usr/bin/time -f '%e %M' -a -o "$work/notangle.times" "$notangle" $rflags "$work/corpus.nw" >"$work/notangle.out"
  i=$((i + 1))
done
rm -f "$work/notangle.out"

# lit stitch of one hand edit: a line in the middle of the largest output
# changed, carried back into its block (the first line, from the middle on,
# that a stitch takes). That line found, RUNS rounds each put the documents
# and outputs back, make the edit, flush the copy's writes (sync, so that
# they do not land inside the timed run) and time the stitch.
: >"$work/stitch.times"
rm -rf "$work/md.keep" && cp -R "$work/md" "$work/md.keep"
big=$(cd "$work/md" && for r in $roots; do printf '%s %s\n' "$(wc -l <"$r")" "$r"; done | sort -n | tail -n 1)
n=${big%% *} file=${big#* }
line=$((n / 2))
while [ "$line" -lt "$n" ]; do
  awk -v L="$line" 'NR == L { $0 = $0 " /* stitched */" } { print }' "$work/md/$file" >"$work/edited"
  cp "$work/edited" "$work/md/$file"
  if (cd "$work/md" && "$lit" stitch -q "$file") >/dev/null 2>&1; then
    break
  fi
  cp "$work/md.keep/$file" "$work/md/$file"
  line=$((line + 1))
done
if [ "$line" -ge "$n" ]; then
  echo "bench: no line of $file from $((n / 2)) on could be stitched" >&2
  exit 1
fi
i=0
while [ $i -lt "$runs" ]; do
  rm -rf "$work/md" && cp -R "$work/md.keep" "$work/md"
  cp "$work/edited" "$work/md/$file"
  sync
  (cd "$work/md" && /usr/bin/time -f '%e %M' -a -o "$work/stitch.times" "$lit" stitch "$file") >/dev/null 2>&1
  i=$((i + 1))
done
rm -rf "$work/md" && mv "$work/md.keep" "$work/md"
rm -f "$work/edited"

python3 - "$work" "$results" "$runs" "$lit" "$rflags" <<'PY'
import json, os, platform, statistics, subprocess, sys, time
work, results, runs, lit, rflags = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
def read(name):
    rows = [l.split() for l in open(os.path.join(work, name)) if l.strip() and l.split()[0][0].isdigit()]
    return [float(r[0]) for r in rows], [int(r[1]) * 1024 for r in rows]
lit_t, lit_m = read('lit.times')
nt_t, nt_m = read('notangle.times')
noop_t, _ = read('noop.times')
stitch_t, _ = read('stitch.times')
stats = json.load(open(os.path.join(work, 'stats.json')))
def cpu():
    try:
        for line in open('/proc/cpuinfo'):
            if line.startswith('model name'):
                return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor()
def mem():
    try:
        for line in open('/proc/meminfo'):
            if line.startswith('MemTotal'):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
lit_s, nt_s = statistics.median(lit_t), statistics.median(nt_t)
peak = max(lit_m)
out = {
    'input_bytes': stats['input_bytes'],
    'chunks': stats['chunks'],
    'depth': stats['depth'],
    'files': stats['files'],
    'documents': stats['documents'],
    'lit_seconds': lit_s,
    'notangle_seconds': nt_s,
    'speedup': round(nt_s / lit_s, 3) if lit_s > 0 else None,
    'lit_noop_seconds': statistics.median(noop_t),
    'lit_stitch_seconds': statistics.median(stitch_t),
    'lit_stitch_runs_seconds': stitch_t,
    'lit_peak_rss_bytes': peak,
    'notangle_peak_rss_bytes': max(nt_m),
    'peak_rss_over_input': round(peak / stats['input_bytes'], 3),
    'runs': runs,
    'lit_runs_seconds': lit_t,
    'notangle_runs_seconds': nt_t,
    'targets': {'speedup_at_least': 2.5, 'peak_rss_over_input_below': 3.0, 'depth_without_overflow': 10000,
                'stitch_below_tangle': True},
    'machine': {'cpu': cpu(), 'cores': os.cpu_count(), 'memory_bytes': mem(), 'system': platform.platform()},
    'command': 'make bench-tangle  (tests/bench/bench_tangle.sh gen/build/lit)',
    'lit_command': 'lit tangle -q  (clean output folder)',
    'notangle_command': 'notangle %s corpus.nw > out' % rflags.strip(),
    'date': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
}
os.makedirs(os.path.dirname(results), exist_ok=True)
with open(results, 'w') as f:
    json.dump(out, f, indent=2)
    f.write('\n')
print('input %.1f MB, %d chunks, depth %d' % (out['input_bytes'] / 1e6, out['chunks'], out['depth']))
print('lit %.3f s (no-op %.3f s), notangle %.3f s: %.2fx; lit peak RSS %.1f MB = %.2fx input' % (
    lit_s, out['lit_noop_seconds'], nt_s, out['speedup'], peak / 1e6, out['peak_rss_over_input']))
print('lit stitch of one edited file: %.3f s' % out['lit_stitch_seconds'])
ok = out['speedup'] >= 2.5 and out['peak_rss_over_input'] < 3.0 and out['lit_stitch_seconds'] < lit_s
print('targets (>= 2.5x, < 3x input, stitch faster than the tangle): %s' % ('met' if ok else 'MISSED'))
print('wrote %s' % results)
sys.exit(0 if ok else 1)
PY

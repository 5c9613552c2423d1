$LIT tangle
status=$?
for f in out/run.sh out/tool.py; do
  if [ -x "$f" ]; then echo "$f is executable" >&2; else echo "$f is NOT executable" >&2; fi
done
exit $status

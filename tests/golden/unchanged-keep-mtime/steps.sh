$LIT tangle -q || exit 90
touch -d @946684800 out/a.c out/b.c .lit-record
sed 's/int b;/int b = 2;/' index.md >i.tmp && mv i.tmp index.md
$LIT tangle
status=$?
for f in out/a.c out/b.c .lit-record; do
  if [ "$(stat -c %Y "$f")" = 946684800 ]; then echo "$f: mtime kept" >&2; else echo "$f: rewritten" >&2; fi
done
exit $status

$LIT tangle -q || exit 90
cp out/a.c a.orig
cp index.md index.orig
# Each refused with its own message, not as an edit of lit's header
# comment (the diff sees every line changed and the header comes first),
# and no document changed: an emptied file, a byte-order mark, CRLF line
# endings, one CRLF line, a carriage return inside a line.
: >out/a.c
$LIT stitch out/a.c
printf '\357\273\277' >out/a.c && cat a.orig >>out/a.c
$LIT stitch out/a.c
sed 's/$/\r/' a.orig >out/a.c
$LIT stitch
sed '3s/$/\r/' a.orig >out/a.c
$LIT stitch
sed '3s/$/\rx/' a.orig >out/a.c
$LIT stitch
status=$?
cmp -s index.md index.orig || exit 91
cp a.orig out/a.c
rm a.orig index.orig
exit $status

$LIT tangle -q || exit 90
# The file edited by hand, and the document edited too since the tangle.
sed 's/int a = 1;/int a = 10;/' out/a.c >a.tmp && mv a.tmp out/a.c
sed 's/int b = 2;/int b = 3;/' index.md >i.tmp && mv i.tmp index.md
cp index.md index.edited
$LIT stitch
status=$?
# The stitch changed no document.
cmp -s index.md index.edited || exit 91
rm index.edited
exit $status

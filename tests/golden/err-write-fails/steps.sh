$LIT tangle -q || exit 90
cp out/a.c a.before
sed 's/int a;/int a = 1;/' a.md >a.tmp && mv a.tmp a.md
sed 's/int b;/int b = 2;/' index.md >i.tmp && mv i.tmp index.md
LIT_TEST_FAIL_WRITE=out/b.c $LIT tangle
status=$?
cmp -s a.before out/a.c && echo "out/a.c left as it was" >&2
rm a.before
ls -A out | grep -c lit-tmp >&2
exit $status

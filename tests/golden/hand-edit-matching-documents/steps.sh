$LIT tangle -q || exit 90
# The same change made by hand in the file and in the document: the file
# holds what lit writes, so it is no hand edit; the record follows it.
sed 's/int a = 1;/int a = 2;/' out/a.c >a.tmp && mv a.tmp out/a.c
sed 's/int a = 1;/int a = 2;/' index.md >i.tmp && mv i.tmp index.md
$LIT tangle --check
echo "check: $?"
$LIT tangle || exit 91
$LIT tangle --check

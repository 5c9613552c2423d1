$LIT tangle -q || exit 90
echo '/* hand edit */' >>out/a.c
sed 's/int b;/int b = 2;/' index.md >i.tmp && mv i.tmp index.md
$LIT tangle

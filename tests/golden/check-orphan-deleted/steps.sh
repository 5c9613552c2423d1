$LIT tangle -q || exit 90
rm out/b.c
sed 's|{.c file=out/b.c}|{.c .example}|' index.md >i.tmp && mv i.tmp index.md
$LIT tangle --check

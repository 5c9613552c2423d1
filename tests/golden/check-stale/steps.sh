$LIT tangle -q || exit 90
sed 's/int a;/int a = 1;/' a.md >a.tmp && mv a.tmp a.md
$LIT tangle --check

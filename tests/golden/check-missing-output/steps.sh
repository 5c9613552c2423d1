$LIT tangle -q || exit 90
rm out/b.c
$LIT tangle --check

$LIT tangle -q || exit 90
echo '/* hand edit */' >>out/a.c
$LIT tangle --force

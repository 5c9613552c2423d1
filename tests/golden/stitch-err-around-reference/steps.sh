$LIT tangle -q || exit 90
# Both lines around a reference that adds no line, changed as one hunk.
sed 's/int a = 1;/int a = 10;/; s/int b = 2;/int b = 20;/' out/a.c >a.tmp && mv a.tmp out/a.c
$LIT stitch

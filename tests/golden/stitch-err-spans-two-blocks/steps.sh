$LIT tangle -q || exit 90
# Two adjacent lines from two blocks changed as one hunk.
sed 's/int a = 1;/int a = 10;/; s/int b = 2;/int b = 20;/' out/a.c >a.tmp && mv a.tmp out/a.c
$LIT stitch

$LIT tangle -q || exit 90
# A line of <<body>> edited without the four spaces its reference adds.
sed 's/^    int x = 1;$/int x = 2;/' out/a.c >a.tmp && mv a.tmp out/a.c
$LIT stitch

$LIT tangle -q || exit 90
# Only the first of the two copies of <<step>> edited.
awk '/count\+\+;/ && !done { print "  count += 2;"; done = 1; next } { print }' out/a.c >a.tmp && mv a.tmp out/a.c
$LIT stitch

$LIT tangle -q || exit 90
# A line inserted where <<body>> ends and the file's block goes on: it
# could belong to either.
awk '{ print } /int x = 1;/ { print "    x++;" }' out/a.c >a.tmp && mv a.tmp out/a.c
$LIT stitch

$LIT tangle -q --line-directives || exit 90
# Lines inserted into <<body>> (after a #line directive, so at its start)
# and into <<more>> (before a #line directive, so at its end): the lines
# below them move, and so do the numbers of the directives after them,
# which lit stitch writes into the file.
awk '{ print } /^    #line 4 "a.md"$/ { print "    int y = 1;" } /x \+= 2;/ { print "    x += y;" }' out/ld.c >a.tmp && mv a.tmp out/ld.c
cp out/ld.c edited.c
$LIT stitch || exit 91
# The file keeps its edit; only its #line numbers changed.
diff edited.c out/ld.c
rm edited.c
$LIT tangle --check --line-directives || exit 92
$LIT tangle --line-directives

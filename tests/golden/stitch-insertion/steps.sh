$LIT tangle -q || exit 90
# Three insertions: between two lines of <<steps>> (indented as the
# reference indents it), between two lines of the file's block, and after
# the file's last line (the file's own block ends there).
awk '{ print } /x \+= 1;/ { print "  x -= 3;" } /int x = 0;/ { print "  int y = 1;" } END { print "/* end */" }' out/a.c >a.tmp && mv a.tmp out/a.c
$LIT stitch || exit 91
$LIT tangle --check || exit 92
$LIT tangle

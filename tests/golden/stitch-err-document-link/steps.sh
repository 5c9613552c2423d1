$LIT tangle -q || exit 90
# The hand edit: one line changed.
sed 's/puts("hello");/puts("hello, world");/' out/a.c >a.tmp && mv a.tmp out/a.c
# The stitch would rename its rewritten document over the link, turning it
# into a file: refused, named as a link, nothing changed.
$LIT stitch

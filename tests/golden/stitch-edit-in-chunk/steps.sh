$LIT tangle -q || exit 90
# The hand edit: one line changed.
sed 's/puts("hello");/puts("hello, world");/' out/a.c >a.tmp && mv a.tmp out/a.c
$LIT stitch || exit 91
# The documents now write the file as edited: nothing to write, no hand edit.
$LIT tangle --check || exit 92
$LIT tangle

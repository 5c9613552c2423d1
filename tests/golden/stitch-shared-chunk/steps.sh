$LIT tangle -q || exit 90
# <<limits>> edited in one of the two files that include it: the stitch
# says the other changes too, and lit tangle rewrites it.
sed 's/#define MAX 10/#define MAX 20/' out/a.c >a.tmp && mv a.tmp out/a.c
$LIT stitch || exit 91
$LIT tangle

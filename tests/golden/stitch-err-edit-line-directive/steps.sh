$LIT tangle -q --line-directives || exit 90
# A #line directive edited: no block holds it.
sed 's/^    #line 4 "a.md"$/    #line 40 "a.md"/' out/ld.c >a.tmp && mv a.tmp out/ld.c
$LIT stitch

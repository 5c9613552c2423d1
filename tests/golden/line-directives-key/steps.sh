# The project asks for #line directives in its front matter: a plain
# tangle writes them, and a plain --check (no option) finds the tree
# clean; without the key the same --check would report out/k.c.
$LIT tangle -q || exit 90
grep -q '^#line' out/k.c || exit 91
$LIT tangle --check

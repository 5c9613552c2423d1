$LIT tangle -q || exit 90
# The hand edit: a line of <<deps>> deleted, and one of the file's block.
grep -v -e '^old = ' -e '^name = ' out/a.toml >a.tmp && mv a.tmp out/a.toml
$LIT stitch || exit 91
$LIT tangle --check || exit 92
$LIT tangle

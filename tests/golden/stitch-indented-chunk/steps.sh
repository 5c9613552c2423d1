$LIT tangle -q || exit 90
# The hand edit: a line of <<add>> (indented 8 in the file, by both
# references) changed, and one added after it.
sed 's/^            total += item$/            total += item * 2\n            count += 1/' out/run.py >a.tmp && mv a.tmp out/run.py
$LIT stitch out/run.py || exit 91
$LIT tangle --check || exit 92
$LIT tangle

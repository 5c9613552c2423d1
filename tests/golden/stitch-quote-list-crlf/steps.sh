$LIT tangle -q || exit 90
# Edits inside a quote (a blank line added there is written ">") and a
# nested list item: the document's "> " and indentation stay as they are.
# index.md has CRLF line ends, kept: a stitched line ends as the line it
# replaces.
awk '{ sub(/int top = 0;/, "int top = 1;"); sub(/int quoted = 1;/, "int quoted = 10;"); sub(/int listed = 3;/, "int listed = 30;"); print } /^$/ && !blank { print "int added = 4;"; print ""; blank = 1 } /int listed = 30;/ { print "int listed2 = 5;" }' out/a.c >a.tmp && mv a.tmp out/a.c
$LIT stitch || exit 91
$LIT tangle --check || exit 92
$LIT tangle

# A link of 180 KB to a document that does not exist: the message quotes
# its first 200 and last 40 bytes and says how long it is, not all of it.
# (The link is added here, not kept in input/, and taken out again.)
link=$(head -c 184320 /dev/zero | tr '\0' x)
printf '1. [A](%s.md)\n' "$link" >>index.md
$LIT tangle
status=$?
cp "$CASE_DIR/input/index.md" index.md
exit $status

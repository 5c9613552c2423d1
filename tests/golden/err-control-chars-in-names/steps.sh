# An unlisted document whose name holds an escape sequence, made here and
# removed after the run so that no such name is ever committed.
red="docs/$(printf '\033')[31mred.md"
printf '# red\n' >"$red"
$LIT tangle
status=$?
rm "$red"
exit $status

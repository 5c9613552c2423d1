# The record path is absolute: a folder beside the project, by its full path.
abs=$(cd .. && pwd)/abs-record
sed "s|ABSOLUTE|$abs|" index.md >i.tmp && mv i.tmp index.md
$LIT tangle 2>err.txt
status=$?
sed "s|$abs|/ABS/record|" err.txt >&2
rm err.txt
[ -e "$abs" ] && echo "wrote outside the project" >&2
sed "s|$abs|ABSOLUTE|" index.md >i.tmp && mv i.tmp index.md
exit $status

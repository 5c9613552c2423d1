# Outside a project: the message names the folder searched (its full path,
# shown here as /PROJECT) and suggests --root.
$LIT tangle 2>err.txt
status=$?
$LIT book --root nowhere 2>>err.txt || status2=$?
sed "s|$PWD|/PROJECT|g" err.txt >&2
rm err.txt
echo "book: exit ${status2:-0}" >&2
exit $status

# A manifest that lists notes/x makes "notes" a folder of lit's; the
# user's own file of that name (and a link there) is not, and stays: the
# book is refused, not swapped in and the old copy deleted with it.
$LIT book 2>/dev/null || exit 90
printf '0123456789abcdef0123456789abcdef  notes/x\n0123456789abcdef0123456789abcdef  ln/x\n' >>book/.lit-manifest
echo 'my own notes' >book/notes
ln -s .. book/ln
$LIT book
status=$?
[ "$(cat book/notes 2>/dev/null)" = 'my own notes' ] || exit 91
[ -L book/ln ] || exit 92
rm -rf book
exit $status

# A book whose .lit-manifest lines have no hash (as an earlier version
# wrote them), with one page edited by hand: the name alone does not make
# the edit lit's, so the page is kept and the book refused. Pages that hold
# what lit writes now are lit's (replacing them loses nothing).
$LIT book 2>/dev/null || exit 90
sed 's/^[0-9a-f]*  //' book/.lit-manifest >m && mv m book/.lit-manifest
echo '<p>my notes</p>' >>book/chunks.html
cp book/chunks.html edited.html
$LIT book
status=$?
cmp -s book/chunks.html edited.html || exit 91
rm -rf book edited.html
exit $status

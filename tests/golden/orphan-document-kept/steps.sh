# A record never makes lit remove a document, nor a file of git's, though
# each lies in an output folder, no block writes it and it holds what the
# record says. First lit writes kernels/NOTES.md.
$LIT tangle -q || exit 90
# The user drops its block, keeps the file and links it as a document.
sed '/^```markdown/,$d' add.md >a.tmp && mv a.tmp add.md
printf '2. [Notes](kernels/NOTES.md)\n' >>index.md
# The record also names it through a link to its folder, and a nested
# repository's .git/HEAD (with that same content, so the hash matches).
ln -s . kernels/alias
mkdir -p kernels/vendor/.git && cp kernels/NOTES.md kernels/vendor/.git/HEAD
hash=$(sed -n 's|^\([0-9a-f]*\) kernels/NOTES.md$|\1|p' .lit-record)
printf '%s kernels/alias/NOTES.md\n%s kernels/vendor/.git/HEAD\n' "$hash" "$hash" >>.lit-record
$LIT tangle
status=$?
[ -f kernels/NOTES.md ] || echo "kernels/NOTES.md was removed" >&2
[ -f kernels/vendor/.git/HEAD ] || echo "kernels/vendor/.git/HEAD was removed" >&2
# Once warned, the record drops them: the next run is clean.
$LIT tangle --check || exit 91
rm -rf kernels/vendor/.git
exit $status

# Beside the book, names like a killed run's leftovers (a dead process's
# number) that lit did not make: a user's folder, then a link leading out
# of the project while the book is missing. Each is left as it is with a
# warning; the book is lit's own new folder, never the link.
mkdir -p .book.lit-new-4194304/mine && echo precious >.book.lit-new-4194304/mine/x
$LIT book || exit 90
[ -d book ] && [ ! -L book ] || exit 91
mv .book.lit-new-4194304 kept
mkdir -p ../outside && echo secret >../outside/s
ln -s ../outside .book.lit-old-4194303
rm -rf book
$LIT book || exit 92
[ -d book ] && [ ! -L book ] || exit 93
[ -L .book.lit-old-4194303 ] && [ "$(cat ../outside/s)" = secret ] || exit 94
rm -rf book

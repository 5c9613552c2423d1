# The bundle is installed under its folder's name: a skill name from
# index.md that is no folder name ('..' would make .claude/skills/.. the
# install), or a --from that ends in '.', is refused before anything is
# read or made.
$LIT skill install --claude
a=$?
$LIT skill install --from build/skill/t/. --dest dest
b=$?
[ -e .claude ] && exit 91
[ -e dest ] && exit 92
[ "$a" = 1 ] && [ "$b" = 1 ] || exit 93
exit 1

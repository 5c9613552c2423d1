# Tangled with #line directives: the map is of that tangle (the disk's).
$LIT tangle -q --line-directives || exit 90
$LIT map --json out/ld.c || exit 91
$LIT map --json out/ld.c:5 || exit 92
# A file edited by hand since: the map is of a fresh tangle, with a warning.
echo '/* edited */' >>out/ld.c
$LIT map out/ld.c:1

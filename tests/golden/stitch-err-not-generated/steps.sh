$LIT tangle -q || exit 90
echo 'int b = 2;' >>out/a.c
echo 'int c;' >out/other.c
# out/other.c is no file of the project's; out/a.cc a typo.
$LIT stitch out/other.c out/a.cc

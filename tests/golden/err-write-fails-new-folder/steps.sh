LIT_TEST_FAIL_WRITE=out/z.c $LIT tangle
status=$?
[ -e out ] && echo "out/ was left behind" >&2
exit $status

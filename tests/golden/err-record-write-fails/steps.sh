LIT_TEST_FAIL_WRITE=.lit-record $LIT tangle
status=$?
[ -e out ] && echo "out/ was left behind" >&2
ls -A | grep -c lit-tmp >&2
exit $status

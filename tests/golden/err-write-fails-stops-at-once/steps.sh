# The size limit raised past 7 TiB, so that only the failed write can stop
# the run: it must end at once (ulimit -t ends a run that expands on), with
# the file and the errno named, and no temporary left behind.
(ulimit -t 20 && LIT_MAX_FILE_SIZE=64T LIT_TEST_FAIL_WRITE=out/big.c $LIT tangle)
status=$?
find . -name '.lit-*' >&2
exit $status

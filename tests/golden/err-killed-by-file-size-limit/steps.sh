# A file size limit (ulimit -f, in 512-byte blocks) smaller than out/big.c:
# the write fails (SIGXFSZ would kill lit midway), nothing is written, and
# no temporary is left behind.
(ulimit -f 2 && $LIT tangle)
status=$?
find . -name '.lit-*' >&2
exit $status

$LIT tangle
status=$?
[ -e ../outside ] && echo "wrote outside the project" >&2
exit $status

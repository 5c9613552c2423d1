$LIT tangle
status=$?
[ -e ../elsewhere/record ] && echo "wrote outside the project through the link" >&2
exit $status

$LIT tangle
status=$?
[ -z "$(ls -A ../outside)" ] || echo "written outside the project: $(ls -A ../outside)" >&2
exit $status

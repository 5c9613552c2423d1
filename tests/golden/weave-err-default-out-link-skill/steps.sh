# lit skill with its default --out (build/skill) and a shipped build -> ../outside:
# refused, and nothing is written outside the project.
$LIT skill
s=$?
[ -z "$(ls -A ../outside)" ] || { echo "outside/ was written:" >&2; ls -RA ../outside >&2; }
exit $s

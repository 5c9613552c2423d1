# lit skill install --claude with a shipped link that leads out of the project
# on the way to ./.claude/skills: refused, and nothing is written outside.
$LIT skill install --claude
s=$?
[ -z "$(ls -A ../outside)" ] || { echo "outside/ was written:" >&2; ls -RA ../outside >&2; }
exit $s

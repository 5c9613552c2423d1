# lit skill install --codex with a shipped link that leads out of the project
# on the way to ./.codex/skills: refused, and nothing is written outside.
$LIT skill install --codex
s=$?
[ -z "$(ls -A ../outside)" ] || { echo "outside/ was written:" >&2; ls -RA ../outside >&2; }
exit $s

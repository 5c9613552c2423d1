$LIT skill --out out/skill
status=$?
rm -f "$(printf 'tests/a\nb.py')" # expected/ cannot hold it either
exit $status

$LIT skill --out out/skill
status=$?
rm -rf .git # git cannot hold it in expected/
exit $status

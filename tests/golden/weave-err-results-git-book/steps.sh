$LIT book --out out/book
status=$?
rm -rf .git # git cannot hold it in expected/
exit $status

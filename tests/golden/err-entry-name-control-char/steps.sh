e=$(printf 'e\033[31m.md')
$LIT tangle --entry "$e"
status=$?
mv "$e" index.md # the awkward name stays out of the expected tree
exit $status

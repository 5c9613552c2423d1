$LIT tangle -q || exit 90
echo '# a note someone added' >>.lit-record
$LIT tangle --check

$LIT tangle -q || exit 90
rm .lit-record
$LIT tangle --check

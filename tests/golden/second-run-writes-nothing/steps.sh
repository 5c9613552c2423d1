$LIT tangle -q || exit 90
$LIT tangle

# a name git cannot hold well: made here, and removed again by steps.sh
printf 'x\n' >"$(printf 'tests/a\nb.py')"

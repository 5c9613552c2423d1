$LIT tangle -q || exit 90
# Every line of the file, then one line, named from another folder.
$LIT map out/run.py || exit 91
mkdir sub
(cd sub && $LIT map --root .. ../out/run.py:6) || exit 92
# A file lit does not generate, and a line past the end.
$LIT map out/nothing.py
echo "status $?"
$LIT map out/run.py:99

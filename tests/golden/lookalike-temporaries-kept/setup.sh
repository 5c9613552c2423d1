# Files named like lit's temporaries and old copies, of a process that no
# longer runs (the largest process id cannot be running), of a version that
# named them without a process id, beside the document and in the output
# folder: no journal names them, so nothing proves them lit's, and they stay.
mkdir -p out/sub out/other
echo partial >out/sub/.lit-tmp-4194304-Ab12Cd
echo partial >out/.lit-tmp-Zx81Qw
echo old >out/other/.lit-old-4194304-3
echo "a user's" >out/sub/.lit-tmp-4194304-0
echo partial >.lit-tmp-4194304-Rr00Tt
echo "a user's" >.lit-tmp-4194304-0
echo "keep me" >out/.lit-tmp-notes.txt

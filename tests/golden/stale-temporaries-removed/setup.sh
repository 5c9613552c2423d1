# What killed runs left: a temporary of a process that no longer runs (the
# largest process id cannot be running), one from a version that named them
# without a process id, and an old copy kept for an undo.
mkdir -p out/sub out/other
echo partial >out/sub/.lit-tmp-4194304-Ab12Cd
echo partial >out/.lit-tmp-Zx81Qw
echo old >out/other/.lit-old-4194304-3
echo partial >.lit-tmp-4194304-Rr00Tt
echo "keep me" >out/.lit-tmp-notes.txt

# A dead run's journal ended by "done" (every file was in place; only its
# old copies were left to remove) that names a user's file as an old copy,
# with nothing proving it lit's (no "made" line gives the device, inode,
# size and time of the file the run kept there). The user's file stays,
# with a warning, and the tangle goes on.
mkdir -p out
echo "a user's" >out/.lit-old-4194304-0
printf 'lit-journal 4194304\nremove\tout/gone.c\tout/.lit-old-4194304-0\ncommit\ndone\n' >.lit-record-journal

# A dead run's journal (its plan whole, "commit" but no "done") that names
# a user's files as its staged copy and as the old copy of a file it
# removed, with nothing proving them lit's (no "made" line gives the device
# and inode of a file the run made). A name proves nothing: both stay where
# they are, with a warning each, the removed file is not put back from a
# file that is not lit's, and the tangle goes on.
mkdir -p out
echo "a user's" >out/.lit-tmp-4194304-1
echo "a user's too" >out/.lit-old-4194304-0
printf 'lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-1\nremove\tout/gone.c\tout/.lit-old-4194304-0\ncommit\n' \
  >.lit-record-journal

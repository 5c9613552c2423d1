# A journal as a cloned repository could hold: its plan says a run made
# out/user.c new (with the hash of the user's file there, which anyone can
# compute) and a "made" line for the staged copy, whose device and inode
# it cannot know; the copy is gone, as if renamed into place. The undo
# must not take the user's file for lit's new one and delete it: it stays,
# with a warning, and the tangle goes on.
mkdir -p out
printf "a user's file, which lit did not write\\n" >out/user.c
printf 'lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-0\nmade\tout/.lit-tmp-4194304-0\t1\t1\nnew\tout/.lit-tmp-4194304-0\tout/user.c\t87280cf8226e9bab627cf3e6d28f6de0\ncommit\n' \
  >.lit-record-journal

# ./.claude is a symbolic link to itself: a loop, reported as one
ln -s .claude .claude

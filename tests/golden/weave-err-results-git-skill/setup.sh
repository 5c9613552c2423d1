# git's own files, which git cannot hold, and a link to the folder under another name
mkdir .git && printf '{"x": 1}\n' >.git/x.json && ln -s .git gitdir

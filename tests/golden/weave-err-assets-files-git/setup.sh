# git's own files, which git cannot hold: a config whose remote URL holds a
# token, and a link to the folder under another name
mkdir .git && printf '[remote "origin"]\n\turl = https://me:TOKEN@example.com/x\n' >.git/config && ln -s .git gitdir

mkdir .git
ln -s .git meta

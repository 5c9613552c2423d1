ln -s references/sub refs2

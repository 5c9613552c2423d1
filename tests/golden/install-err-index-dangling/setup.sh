# The project's entry document is a link to nothing: the install cannot
# tell which files are the project's, so it installs nothing
ln -s gone.md index.md && mkdir dest

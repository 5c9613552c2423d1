# index.md is a folder: the project cannot be read, and the install
# cannot tell which files are its own, so it installs nothing
mkdir index.md dest

# The entry document is a link to the file that holds it, inside the project.
ln -s real/index.md index.md

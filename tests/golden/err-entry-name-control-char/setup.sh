# The entry document, named on the command line, under a name holding an
# escape sequence: refused like a linked document's.
mv index.md "$(printf 'e\033[31m.md')"

# A FIFO in the book's folder: --check refuses it, by its path, once, and
# reads no further; the pages it did not get to read are not reported
# missing.
mkdir -p book && mkfifo book/fifo

# A FIFO in a woven book: --check refuses it, by its path, once, and reads
# no further; the pages it did not get to read are not reported missing.
mkfifo book/fifo

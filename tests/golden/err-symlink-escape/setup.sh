mkdir -p out && ln -s ../elsewhere out/link && ln -s ../elsewhere/keep.txt out/file-link.c

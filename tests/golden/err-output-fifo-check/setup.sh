mkdir -p out && mkfifo out/a.c

mkfifo b.md

mkfifo .lit-record

mkdir .lit-record

# 50,000 identical headings ("## Notes") woven within 20 seconds. Each
# anchor's suffix was found by probing notes-1, notes-2, ... from the start,
# and print.html rescanned the whole contents list for every entry: 20,000
# headings took 20 s. The document and the book are made and removed here.
awk 'BEGIN { print "# Notes"; for (i = 0; i < 50000; i++) printf "\n## Notes\n\nText.\n" }' >notes.md
timeout 20 $LIT book --out book
status=$?
grep -o 'id="notes-1"' book/notes.html >&2
grep -o 'id="notes-49999"' book/notes.html >&2
grep -o 'id="notes--notes-49999"' book/print.html >&2
rm -rf notes.md book
exit $status

# A folder named like a killed `lit book`'s staging folder, its marker
# forged, that holds one of the project's documents: lit must not take it
# for a leftover and remove it.
mkdir -p .book.lit-new-4194304 &&
  printf '# Notes\n\nProse.\n' >.book.lit-new-4194304/notes.md &&
  printf 'lit staging folder of book, process 4194304\n' >.book.lit-new-4194304/.lit-stage

/* book.h: the book, one HTML page per document, from the same weave.
 *
 * OUT/index.html from the entry document and OUT/NAME.html for each other
 * document, in reading order; OUT/chunks.html, the index of chunks and of
 * generated files; OUT/style.css (screen and print). Each page has the
 * sidebar of every page with the current one marked, previous and next
 * links, its own table of contents and anchored headings. Code is
 * highlighted here, at build time; each code block is labelled with its
 * chunk and file and linked to its other parts ("continued from",
 * "continued in"), its users ("used in", on the first part) and the chunks
 * it includes ("defined in"), so every link is written once: linear. The
 * pages need no script, font or style from elsewhere.
 *
 * Ownership: the tree filled by lit_book_build belongs to the caller. */
#ifndef LIT_BOOK_H
#define LIT_BOOK_H

#include "diag.h"
#include "model.h"
#include "tree.h"

typedef struct {
  const char *out; /* default "book" */
  int check;       /* compare with OUT instead of writing it */
} lit_book_opts;

/* Builds every page into *tree. LIT_OK, or LIT_FAILED reported through d. */
lit_status lit_book_build(const lit_project *p, lit_tree *tree, lit_diags *d);
/* Builds, then writes OUT (or compares with it under check: LIT_DIFFERS). */
lit_status lit_book_run(const lit_project *p, const lit_book_opts *o, lit_diags *d);

#endif

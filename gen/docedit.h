/* docedit.h: replacing lines of code blocks in a document's own bytes.
 *
 * lit reads a document normalised (no byte-order mark, LF line ends, front
 * matter blanked), but lit stitch must write it back as its author keeps
 * it. So the edits are made on the bytes as they are on disk: every line
 * not edited stays byte for byte, and a new line gets the line ending of
 * the line it replaces or follows, and the container prefix ("> ", a list
 * item's indentation) of the line it replaces, or else the longest one of
 * the block's other lines (a blank line gets it without trailing blanks:
 * ">" in a quote, nothing in a list). */
#ifndef LIT_DOCEDIT_H
#define LIT_DOCEDIT_H

#include <stddef.h>

#include "diag.h"
#include "diff.h"
#include "doc.h"
#include "util.h"

typedef struct {
  const lit_block *block;
  int line;              /* the first document line replaced; for an insertion, the line the new lines go before */
  int nold;              /* how many lines are replaced (0: an insertion) */
  const lit_line *lines; /* the new lines of code, as the block is to hold them (borrowed) */
  size_t nlines;
} lit_docedit;

/* Applies edits[0..n) (each inside its block, the block's closing fence
 * line being where an insertion at its end goes; sorted by line, none
 * overlapping) to raw[0..len), the bytes of doc as they are on disk, and
 * appends the result to out. 0, or -1 after reporting through d at the
 * line that cannot be edited (the document changed since it was read, or
 * a line whose code cmark took from the middle of a tab). */
int lit_docedit_apply(const lit_doc *doc, const char *raw, size_t len, const lit_docedit *edits, size_t n, lit_buf *out,
                      lit_diags *d);
/* The same, made in text itself (its bytes as on disk): only the bytes
 * from the first edit on move, and no second copy of the document is
 * made. On -1 text is as it was. */
int lit_docedit_apply_in_place(const lit_doc *doc, lit_buf *text, const lit_docedit *edits, size_t n, lit_diags *d);

#endif

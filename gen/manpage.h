/* manpage.h: a Markdown document rendered as a man page (troff), which is
 * how lit's own manual, lit(1), is made from gen/lit.1.md.
 *
 * The document's front matter names the page: `man-name` (LIT),
 * `man-section` (1) and `man-manual` (the header's centre title); the
 * footer says "lit VERSION". Level-one headings become sections (.SH),
 * level-two subsections (.SS); cmark-gfm renders the rest. */
#ifndef LIT_MANPAGE_H
#define LIT_MANPAGE_H

#include "diag.h"
#include "util.h"

#define LIT_VERSION "0.9.0"

/* Renders the document at path into *out (the caller frees it). 0, or -1
 * after reporting through d. */
int lit_manpage(const char *path, lit_buf *out, lit_diags *d);

#endif

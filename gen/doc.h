/* doc.h: reading one document's code blocks and links with cmark-gfm.
 *
 * cmark finds every fenced block (backticks or tildes, any length, inside
 * lists and block quotes too), so nothing here matches fences with regular
 * expressions. Each block's info string goes through attrs.c; its content is
 * cut into text and <<reference>> segments. */
#ifndef LIT_DOC_H
#define LIT_DOC_H

#include "model.h"

/* Parses src (taken over by the result: the caller no longer frees it) into
 * a new document; reports every problem through d. The caller frees the
 * result with lit_doc_free. */
lit_doc *lit_doc_parse(lit_source *src, size_t order, lit_diags *d);
void lit_doc_free(lit_doc *doc);
/* Parses n sources (each taken over) into docs[0..n), numbering them from
 * first_order, on up to as many threads as there are processors; messages
 * reach d in document order, as if parsed one after another. */
void lit_doc_parse_many(lit_source *srcs, size_t n, size_t first_order, lit_doc **docs, lit_diags *d);

#endif

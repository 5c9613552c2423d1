/* book_search.h: the book's full-text search index, built at weave time.
 *
 * The index is one script, search-index.js, that hands the book's script
 * (book.js) a table of sections: each heading of each page with the text
 * under it (prose, table cells and code), so a search finds the section and
 * links straight to its anchor. A script rather than JSON, because a page
 * opened from file:// may load a script beside it but may not fetch a file.
 *
 * Ownership: the buffers are the caller's; nothing here allocates beyond them. */
#ifndef LIT_BOOK_SEARCH_H
#define LIT_BOOK_SEARCH_H

#include <stddef.h>

#include "util.h"
#include "weave.h"

/* Appends page pg's sections to out as JSON arrays [page, "anchor",
 * "heading", "text"], each followed by ",\n"; page is the page's index in
 * the index's page list. Reads pg->tree, so call it before the tree is
 * rendered (rendering replaces nodes). Safe on several pages at once. */
void lit_search_sections(const lit_wdoc *pg, size_t page, lit_buf *out);

/* Appends search-index.js to out: the pages (file, title) of the weave in
 * reading order and the sections gathered for them, in that order. */
void lit_search_index(const lit_weave *w, const lit_buf *sections, lit_buf *out);

/* Appends s[0..len) as a JSON string, "<" escaped so it is safe in HTML too. */
void lit_json_string(lit_buf *out, const char *s, size_t len);

#endif

/* book_search.h: the book's full-text search index, built at weave time.
 *
 * The index is one script, search-index.js, that hands the book's script
 * (book.js) the sections of the book (each heading of each page with the
 * text under it: prose, table cells and code) and a dictionary of the terms
 * that find them: each term with the sections that hold it, where (page
 * title, heading, text) and how often. A script rather than JSON, because a
 * page opened from file:// may load a script beside it but may not fetch a
 * file.
 *
 * Terms. A word is a run of ASCII letters and digits, joined by one '-' or
 * '_' between two of them, or by '.' between two letters ("split-K",
 * "head_dim", "cp.async"); every other byte (white space, punctuation, any
 * non-ASCII character) separates words. A word is cut into parts at its
 * joins and where its case changes ("splitK" -> split K, "RMSNorm" -> RMS
 * Norm, "FP8Linear" -> FP8 Linear; not "GPUs", "3D"). Each part, lowercased
 * and stemmed, is a term; a word of several parts is also the term of its
 * parts run together ("splitk", "rmsnorm"), so "split-K", "split K",
 * "splitK" and "splitk" all find it.
 *
 * The stemmer is a table of suffix rules (S_rules in book_search.c), which
 * the index carries to book.js: the query is stemmed by the same table, so
 * the two sides cannot drift apart. tests/search_words.txt holds words and
 * texts with their stems and terms, checked against both the C side
 * (check_book_search.c) and book.js (tests/browser/book_ui.py).
 *
 * Ownership: the buffers are the caller's; nothing here allocates beyond them
 * and its own temporaries. */
#ifndef LIT_BOOK_SEARCH_H
#define LIT_BOOK_SEARCH_H

#include <stddef.h>

#include "util.h"
#include "weave.h"

/* Appends page pg's sections to out, in a form only lit_search_index reads.
 * Reads pg->tree, so call it before the tree is rendered (rendering replaces
 * nodes). Safe on several pages at once. */
void lit_search_sections(const lit_wdoc *pg, lit_buf *out);

/* Appends search-index.js to out: the stemmer's rules, the pages (file,
 * title) of the weave in reading order, the sections gathered for them
 * (sections[i] is page i's), in that order, and the dictionary. */
void lit_search_index(const lit_weave *w, const lit_buf *sections, lit_buf *out);

/* Appends s[0..len) as a JSON string, "<" escaped so it is safe in HTML too;
 * line breaks and tabs become spaces. */
void lit_json_string(lit_buf *out, const char *s, size_t len);

/* Stems word[0..len), lowercase ASCII, in place (no rule lengthens a word)
 * and returns its new length: "tiles", "tiled", "tiling" -> "til". */
size_t lit_search_stem(char *word, size_t len);

/* One term of a text: its stem, the lowercased text it came from (raw),
 * where that text is in the input, and whether it is the joined term of a
 * word of several parts (then [start, end) is the whole word). */
typedef struct {
  const char *stem, *raw;
  size_t stem_len, raw_len, start, end;
  int joined;
} lit_search_term;

/* Calls fn for each term of text[0..len), in order: each word's parts, then,
 * for a word of several parts, the joined term. */
void lit_search_terms(const char *text, size_t len, void (*fn)(void *ctx, const lit_search_term *t), void *ctx);

#endif

/* source.h: one Markdown document as read from disk, ready for cmark.
 *
 * Loading normalises what people's editors produce: a UTF-8 byte-order mark
 * is dropped and CRLF becomes LF. A YAML-style front matter block at the top
 * (`---` ... `---`, `key: value` lines only) is parsed into key/value pairs
 * and blanked to empty lines in the text, so cmark's line numbers still match
 * the file. A source owns all of its strings; lit_source_free releases them. */
#ifndef LIT_SOURCE_H
#define LIT_SOURCE_H

#include <stddef.h>

#include "diag.h"
#include "util.h"

typedef struct {
  char *key;
  char *value;
  int line;
} lit_meta_entry;

typedef struct {
  char *path; /* as shown in messages: relative to the project root */
  char *text; /* normalised text handed to cmark */
  size_t len;
  size_t *line_starts; /* byte offset of each line; line N is line_starts[N-1] */
  size_t nlines;
  lit_meta_entry *meta;
  size_t nmeta;
  int has_front_matter;
  int borrowed;      /* text and line_starts are another source's (lit_source_borrow): not freed with this one */
  int borrowed_text; /* text only is the caller's bytes (lit_source_from_edited): not freed with this one */
  lit_file_id id;    /* the file read, as it was then (lit_source_read); lit stitch writes over it only unchanged */
} lit_source;

/* Reads root/relpath. On failure reports the error (naming relpath) and
 * returns -1 with *src empty. */
int lit_source_load(lit_source *src, const char *root, const char *relpath, lit_diags *d);
/* lit_source_load, but a file that cannot be read is not reported: its
 * errno (or LIT_ENOTREG, see lit_strerror) is returned, for a caller that
 * knows where the document was asked for (the link that names it). What is
 * wrong inside the document is reported through d all the same. */
int lit_source_read(lit_source *src, const char *root, const char *relpath, lit_diags *d);
/* Same, from bytes in memory (for tests and the fuzzer). */
void lit_source_from_bytes(lit_source *src, const char *path, const char *bytes, size_t len, lit_diags *d);
/* lit_source_from_bytes for bytes that are an edit of old, a loaded source
 * (lit stitch's rewritten document): the bytes equal to old's text at both
 * ends are neither checked nor indexed again (old's text was, and is
 * already in its normal form), only those between them, from the line
 * starts around them; the line index of the ends is old's, moved. When
 * those bytes need nothing changed (no BOM, CR, front matter, NUL or
 * non-UTF-8 byte) the text is `bytes` itself, borrowed: they must be
 * NUL-terminated at len and outlive src. Otherwise it is
 * lit_source_from_bytes. */
void lit_source_from_edited(lit_source *src, const char *path, const char *bytes, size_t len, const lit_source *old,
                            lit_diags *d);
void lit_source_free(lit_source *src);
/* dst becomes a copy of src that borrows src's text and line starts (the
 * bulk of a document: src must outlive dst) and owns the rest. */
void lit_source_borrow(lit_source *dst, const lit_source *src);
/* Line `line` (1-based) without its newline; NULL past the end. */
const char *lit_source_line(const lit_source *src, int line, size_t *len);
/* Value of a front matter key, or NULL. */
const char *lit_source_meta(const lit_source *src, const char *key, int *line);

#endif

/* tangle.h: expanding a file's root chunk into the file's bytes.
 *
 * Expansion walks an explicit stack, not the C stack, so a chain of any depth
 * expands without overflow. A reference's leading whitespace is put before every non-empty line
 * it includes, at every depth; blank lines stay empty. */
#ifndef LIT_TANGLE_H
#define LIT_TANGLE_H

#include "hash.h"
#include "linemap.h"
#include "model.h"
#include "util.h"

typedef struct {
  int line_directives; /* #line N "doc" wherever the source line jumps (C, C++, CUDA only) */
  lit_linemap *map;    /* NULL, or gets the origin of each line written (lit_tangle_file fits it to the file) */
} lit_tangle_opts;

/* Receives the file's bytes in order, in pieces of about a megabyte.
 * Returns 0 to go on, or an errno (a write that failed) to stop the
 * tangle there: nothing after a failed write could reach the disk. */
typedef int (*lit_sink_fn)(void *ctx, const char *data, size_t len);

/* Streams the file's full content (header comment, body, exactly one final
 * newline) to sink, so a file of any size needs only a megabyte of buffer.
 * The project must have loaded without errors (a reference cycle is an
 * assertion here: loading reports every one, and refuses a file whose
 * expansion passes the size limit). The expansion state is the call's own,
 * so the project is read-only and files may be tangled at once. Returns 0,
 * or the first nonzero value sink returned: the tangle stopped there. */
int lit_tangle_stream(const lit_project *p, const lit_file *f, const lit_tangle_opts *opts, lit_sink_fn sink,
                      void *ctx);
/* Same, appending the whole content to out. */
void lit_tangle_file(const lit_project *p, const lit_file *f, const lit_tangle_opts *opts, lit_buf *out);
/* Same, keeping nothing but the content's hash (lit_hash_hex's digits). */
void lit_tangle_hash(const lit_project *p, const lit_file *f, const lit_tangle_opts *opts, char hex[LIT_HASH_HEX + 1]);

#endif

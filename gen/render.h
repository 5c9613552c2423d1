/* render.h: the weaver's Lua side, and one document woven to Markdown.
 *
 * A renderer owns one sandboxed Lua state (lua_host.h) for one output,
 * "book" or "skill", with the weaver's API:
 *
 *   data(name)          the table the .data block(s) named `name` return
 *                       (several definitions merge: keys override, list
 *                       items append); each block runs once.
 *   results(path)       a JSON results file (project-relative, inside the
 *                       project) as a table; reading a field it lacks is an
 *                       error naming the file and the field path.
 *   md.table(header, rows [, align])  a GFM table; align is a list of
 *                       "l", "r" or "c" per column.
 *   fmt.num(x [, digits])  x with `digits` decimals (default 0).
 *   fmt.pct(x [, digits])  the fraction x as a percentage ("87.5%").
 *   lit.output          "book" or "skill".
 *   lit.doc             the path of the document being woven.
 *   lit.null            the value JSON null decodes to (r.x == lit.null).
 *
 * Weaving a document copies its prose and replaces its code blocks.
 * Lines between <!-- only: book --> (or skill) and <!-- end only --> are
 * woven into that output only, blocks among them included (and not run
 * for the other); the marker lines themselves never appear.
 *   .data and .filter blocks vanish; a .render block becomes the Markdown
 *   string it returns; every other fenced block passes through the filters
 *   (a {.lua .filter} block returns a function(block) or a table
 *   {book = f, skill = g}; a filter returns nil to keep the block, false to
 *   drop it, or a Markdown string that replaces it) and is then written as
 *   a plain fence whose info string is "LANG lit-block=N", N being the
 *   block's index in its document, for the back ends to find it again.
 *
 * Ownership: lit_render_new returns a renderer the caller frees with
 * lit_render_free. It borrows the project, which must outlive it. */
#ifndef LIT_RENDER_H
#define LIT_RENDER_H

#include <stddef.h>

#include "lua_host.h"
#include "model.h"
#include "util.h"

typedef struct lit_render lit_render;

/* One jump in the line map: woven line `out` shows source line `src`; lines
 * after it follow one to one unless `generated` (render output), where they
 * all map to `src`. */
typedef struct {
  int out, src, generated;
} lit_line_span;

typedef struct {
  lit_line_span *spans; /* owned; free with lit_line_map_free */
  size_t n, cap;
} lit_line_map;

void lit_line_map_free(lit_line_map *m);
/* The source line that woven line `line` came from. */
int lit_line_map_source(const lit_line_map *m, int line);

/* Loads every filter block of the project (reading order) into a fresh Lua
 * state; errors go to d. limits may be NULL. */
lit_render *lit_render_new(const lit_project *p, const char *output, const lit_lua_limits *limits, lit_diags *d);
void lit_render_free(lit_render *r);

/* Appends doc's woven Markdown to out and its line map to map (lines of out
 * counted from 1 at out's start). With bodies 0 the marked fences are left
 * empty: the book renders code from the model, so cmark need not copy it.
 * Returns 0, or -1 after reporting errors. */
int lit_render_doc(lit_render *r, const lit_doc *doc, int bodies, lit_buf *out, lit_line_map *map, lit_diags *d);

#endif

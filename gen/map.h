/* map.h: lit map, which document line wrote a line of a generated file.
 *
 * For a compiler's message about kernels/x.cu:120, or before editing a
 * generated file by hand: each line's document, line and column, its
 * chunk and the indentation the references including it added; lit's own
 * lines (the header comment, #line directives) say so. Read from a fresh
 * tangle in memory, in the mode (with or without #line) the file on disk
 * was written in; a file that differs from it gets a warning, since its
 * lines may no longer be the tangle's. */
#ifndef LIT_MAP_H
#define LIT_MAP_H

#include <stdio.h>

#include "diag.h"
#include "model.h"

typedef struct {
  const char *arg; /* FILE or FILE:LINE, relative to the project root or the current folder */
  int json;        /* one JSON object instead of a line per generated line */
} lit_map_opts;

/* Prints the map to out. LIT_USAGE if arg names no generated file or no
 * line of it (reported through d). */
lit_status lit_map_run(const lit_project *p, const lit_map_opts *o, FILE *out, lit_diags *d);

#endif

/* stats.h: how much of the documents' code is real.
 *
 * Counts the lines of CUDA, C, C++, Python and TOML blocks, split into those
 * that reach a generated file (tangled, so compiled and tested) and those
 * marked .example. The share tangled is what the knowledge base promises. */
#ifndef LIT_STATS_H
#define LIT_STATS_H

#include "model.h"
#include "util.h"

typedef struct {
  size_t tangled_lines, example_lines, unreached_lines;
} lit_stats;

/* Fills *st and, if out is non-NULL, appends a per-document report. */
void lit_stats_compute(const lit_project *p, lit_stats *st, lit_buf *out);

#endif

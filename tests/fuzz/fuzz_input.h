/* fuzz_input.h: how the fuzz targets read their input, shared by all.
 *
 * The input is up to FUZZ_MAX_PARTS named texts:
 *
 *   <index.md text>
 *   %%% <name>          (a separator line naming the next part)
 *   <its text>
 *
 * A part without a name after its separator is called a.md, b.md, ... The
 * names and texts point into the input, or into copies the parts own. */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../gen/util.h"

enum { FUZZ_MAX_PARTS = 6 };

typedef struct {
  const char *names[FUZZ_MAX_PARTS];
  const char *texts[FUZZ_MAX_PARTS];
  size_t lens[FUZZ_MAX_PARTS];
  char *owned[FUZZ_MAX_PARTS];
  size_t n;
} fuzz_parts;

/* Splits data into at most max (<= FUZZ_MAX_PARTS) parts. */
static inline void fuzz_split(const uint8_t *data, size_t size, size_t max, fuzz_parts *out) {
  static const char sep[] = "\n%%% ";
  static const char *const defaults[FUZZ_MAX_PARTS] = {"index.md", "a.md", "b.md", "c.md", "d.md", "e.md"};
  const char *text = (const char *)data;
  memset(out, 0, sizeof *out);
  size_t pos = 0;
  const char *name = defaults[0];
  while (out->n < max) {
    size_t next = size;
    for (size_t i = pos; out->n + 1 < max && i + sizeof sep - 1 <= size; i++)
      if (memcmp(text + i, sep, sizeof sep - 1) == 0) {
        next = i;
        break;
      }
    out->names[out->n] = name;
    out->texts[out->n] = text + pos;
    out->lens[out->n] = next - pos;
    out->n++;
    if (next >= size) break;
    size_t name_start = next + sizeof sep - 1, name_end = name_start;
    while (name_end < size && text[name_end] != '\n' && name_end - name_start < 64)
      name_end++;
    if (name_end > name_start) {
      out->owned[out->n] = lit_xstrndup(text + name_start, name_end - name_start);
      name = out->owned[out->n];
    } else {
      name = defaults[out->n];
    }
    pos = name_end < size ? name_end + 1 : size;
  }
}

static inline void fuzz_parts_free(fuzz_parts *p) {
  for (size_t i = 0; i < FUZZ_MAX_PARTS; i++)
    free(p->owned[i]);
}

#endif

#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>

#include "util.h"

typedef struct {
  lit_level level;
  char *text; /* the whole formatted line, without its newline */
} S_message;

struct lit_diags {
  S_message *items;
  size_t len, cap;
  size_t counts[3];
  size_t limit, dropped;
};

static const char *S_level_name(lit_level level) {
  switch (level) {
  case LIT_NOTE: return "note";
  case LIT_WARNING: return "warning";
  case LIT_ERROR: return "error";
  }
  return "error";
}

lit_diags *lit_diags_new(void) { return lit_xcalloc(1, sizeof(lit_diags)); }

void lit_diags_free(lit_diags *d) {
  if (!d) return;
  for (size_t i = 0; i < d->len; i++)
    free(d->items[i].text);
  free(d->items);
  free(d);
}

void lit_diags_set_limit(lit_diags *d, size_t max_errors) { d->limit = max_errors; }

void lit_diag(lit_diags *d, lit_level level, const char *file, int line, int col, const char *fmt, ...) {
  d->counts[level]++;
  if (d->limit && d->counts[LIT_ERROR] > d->limit) {
    d->dropped++;
    return;
  }
  lit_buf b = LIT_BUF_INIT;
  if (file) {
    lit_buf_puts(&b, file);
    if (line > 0) lit_buf_printf(&b, ":%d", line);
    if (line > 0 && col > 0) lit_buf_printf(&b, ":%d", col);
    lit_buf_puts(&b, ": ");
  } else {
    lit_buf_puts(&b, "lit: ");
  }
  lit_buf_printf(&b, "%s: ", S_level_name(level));
  va_list ap;
  va_start(ap, fmt);
  char tmp[512];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  if (n >= 0 && (size_t)n < sizeof tmp) {
    lit_buf_put(&b, tmp, (size_t)n);
  } else if (n >= 0) {
    char *big = lit_xmalloc((size_t)n + 1);
    vsnprintf(big, (size_t)n + 1, fmt, ap2);
    lit_buf_put(&b, big, (size_t)n);
    free(big);
  }
  va_end(ap2);
  va_end(ap);
  d->items = lit_grow(d->items, &d->cap, d->len + 1, sizeof(S_message));
  d->items[d->len].level = level;
  d->items[d->len].text = lit_buf_detach(&b);
  d->len++;
}

size_t lit_diags_count(const lit_diags *d, lit_level level) { return d->counts[level]; }

void lit_diags_print(const lit_diags *d, FILE *out) {
  for (size_t i = 0; i < d->len; i++)
    fprintf(out, "%s\n", d->items[i].text);
  if (d->dropped) fprintf(out, "lit: note: %zu further messages not shown\n", d->dropped);
}

void lit_diags_append(lit_diags *d, lit_diags *src) {
  for (size_t i = 0; i < src->len; i++) {
    d->items = lit_grow(d->items, &d->cap, d->len + 1, sizeof(S_message));
    d->items[d->len++] = src->items[i];
  }
  for (int l = 0; l < 3; l++)
    d->counts[l] += src->counts[l];
  d->dropped += src->dropped;
  src->len = 0;
  src->counts[0] = src->counts[1] = src->counts[2] = 0;
  src->dropped = 0;
}

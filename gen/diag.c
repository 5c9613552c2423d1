#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

/* Writes the character at s[0..n) (n > 0), or the escape that stands for
 * it, and returns how many bytes it took. */
static size_t S_escape_one(lit_buf *out, const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r" : NULL;
  if (named) {
    lit_buf_puts(out, named);
    return 1;
  }
  size_t len = c < 0x80 ? 1 : lit_utf8_len(s, n);
  if (c < 0x20 || c == 0x7f || len == 0) {
    lit_buf_printf(out, "\\x%02x", c);
    return 1;
  }
  if (c == 0xC2 && s[1] < 0xA0) { /* a C1 control: U+009B starts an escape sequence on some terminals */
    lit_buf_printf(out, "\\u%04x", s[1]);
    return 2;
  }
  lit_buf_put(out, (const char *)s, len);
  return len;
}

void lit_diag_escape(lit_buf *out, const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  size_t run = 0, i = 0; /* plain text is copied a run at a time */
  while (i < len) {
    if (u[i] >= 0x20 && u[i] < 0x7f) {
      i++;
      continue;
    }
    lit_buf_put(out, s + run, i - run);
    i += S_escape_one(out, u + i, len - i);
    run = i;
  }
  lit_buf_put(out, s + run, len - run);
}

/* The message, formatted, then escaped as a whole: the format strings are
 * lit's own and hold no control bytes, so only what they quote changes. */
static void S_format(lit_buf *out, const char *fmt, va_list ap) {
  lit_buf text = LIT_BUF_INIT;
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  if (n > 0) {
    lit_buf_reserve(&text, (size_t)n + 1);
    vsnprintf(text.data, (size_t)n + 1, fmt, ap2);
    text.len = (size_t)n;
    lit_diag_escape(out, text.data, text.len);
  }
  va_end(ap2);
  lit_buf_free(&text);
}

void lit_diag(lit_diags *d, lit_level level, const char *file, int line, int col, const char *fmt, ...) {
  d->counts[level]++;
  if (d->limit && d->counts[LIT_ERROR] > d->limit) {
    d->dropped++;
    return;
  }
  lit_buf b = LIT_BUF_INIT;
  if (file) {
    lit_diag_escape(&b, file, strlen(file));
    if (line > 0) lit_buf_printf(&b, ":%d", line);
    if (line > 0 && col > 0) lit_buf_printf(&b, ":%d", col);
    lit_buf_puts(&b, ": ");
  } else {
    lit_buf_puts(&b, "lit: ");
  }
  lit_buf_printf(&b, "%s: ", S_level_name(level));
  va_list ap;
  va_start(ap, fmt);
  S_format(&b, fmt, ap);
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

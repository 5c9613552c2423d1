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

/* What a message quotes is the user's (a link, a path, a Lua error), and
 * may be any length: a 180 KB link quoted whole buries the message. Every
 * run without white space past S_WORD_MAX bytes keeps its first S_HEAD
 * and last S_TAIL bytes (lit's own words are short, long quotes are names
 * and links, and a name's end is its extension), and a message still past
 * S_LINE_MAX (a quote with spaces) is cut there; each cut says how long
 * the text was. Counted in the bytes as formatted, before escaping. */
enum { S_WORD_MAX = 300, S_HEAD = 200, S_TAIL = 40, S_LINE_MAX = 4096 };

#define S_ELLIPSIS "\xE2\x80\xA6" /* U+2026 */

static int S_continuation(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

/* The first at most max bytes of s[0..len) that end on a character. */
static size_t S_head(const char *s, size_t len, size_t max) {
  size_t keep = max < len ? max : len;
  while (keep > 0 && keep < len && S_continuation(s[keep]))
    keep--;
  return keep;
}

/* A word s[0..len) as "HEAD…(N bytes)…TAIL" when it is too long. */
static void S_cut_word(lit_buf *out, const char *s, size_t len) {
  if (len <= S_WORD_MAX) {
    lit_buf_put(out, s, len);
    return;
  }
  size_t tail = len - S_TAIL;
  while (tail < len && S_continuation(s[tail]))
    tail++;
  lit_buf_put(out, s, S_head(s, len, S_HEAD));
  lit_buf_printf(out, S_ELLIPSIS "(%zu bytes)" S_ELLIPSIS, len);
  lit_buf_put(out, s + tail, len - tail);
}

static int S_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* s[0..len) with its long words and its length capped, into out. */
static void S_cap(lit_buf *out, const char *s, size_t len) {
  lit_buf words = LIT_BUF_INIT;
  for (size_t i = 0; i < len;) {
    size_t j = i;
    int space = S_space(s[i]);
    while (j < len && S_space(s[j]) == space)
      j++;
    if (space)
      lit_buf_put(&words, s + i, j - i);
    else
      S_cut_word(&words, s + i, j - i);
    i = j;
  }
  if (words.len <= S_LINE_MAX) {
    lit_buf_put(out, words.data, words.len);
  } else {
    lit_buf_put(out, words.data, S_head(words.data, words.len, S_LINE_MAX));
    lit_buf_printf(out, S_ELLIPSIS " (%zu bytes in all)", len);
  }
  lit_buf_free(&words);
}

/* The message, formatted, capped, then escaped as a whole: the format
 * strings are lit's own and hold no control bytes, so only what they
 * quote changes. */
static void S_format(lit_buf *out, const char *fmt, va_list ap) {
  lit_buf text = LIT_BUF_INIT;
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  if (n > 0) {
    lit_buf_reserve(&text, (size_t)n + 1);
    vsnprintf(text.data, (size_t)n + 1, fmt, ap2);
    text.len = (size_t)n;
    lit_buf capped = LIT_BUF_INIT;
    S_cap(&capped, text.data, text.len);
    lit_diag_escape(out, capped.data, capped.len);
    lit_buf_free(&capped);
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

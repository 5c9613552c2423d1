#include "source.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void S_index_lines(lit_source *src) {
  size_t cap = 1024;
  src->line_starts = lit_xmalloc(cap * sizeof(size_t));
  src->nlines = 0;
  const char *t = src->text, *end = src->text + src->len;
  const char *p = t;
  for (;;) {
    if (src->nlines == cap) src->line_starts = lit_grow(src->line_starts, &cap, cap + 1, sizeof(size_t));
    src->line_starts[src->nlines++] = (size_t)(p - t);
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl || nl + 1 == end) break;
    p = nl + 1;
  }
}

static void S_where(const lit_source *src, size_t off, int *line, int *col) {
  size_t lo = 0, hi = src->nlines;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (src->line_starts[mid] <= off)
      lo = mid;
    else
      hi = mid;
  }
  *line = (int)lo + 1;
  *col = (int)(off - src->line_starts[lo]) + 1;
}

/* The offset of the first NUL or non-UTF-8 byte of t[i..n), or n. */
static size_t S_next_bad(const unsigned char *t, size_t n, size_t i) {
  while (i < n) {
    /* Eight ASCII bytes at a time: no high bit, no zero byte. */
    uint64_t w;
    if (i + 8 <= n && (memcpy(&w, t + i, 8), ((w | ((w & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL)) &
                                              0x8080808080808080ULL) == 0x8080808080808080ULL &&
                                                 (w & 0x8080808080808080ULL) == 0)) {
      i += 8;
      continue;
    }
    if (t[i] != 0 && t[i] < 0x80) {
      i++;
      continue;
    }
    size_t len = t[i] ? lit_utf8_len(t + i, n - i) : 0;
    if (!len) return i;
    i += len;
  }
  return n;
}

/* cmark turns a NUL byte and every byte that is not UTF-8 into U+FFFD, so
 * code would change without a word: each is an error at its place (the
 * first few of a document, then a count). The bytes are then replaced
 * here, as cmark would, so that the rest of the document reads as it
 * will once the encoding is fixed: an invalid byte in a fence's info
 * string would otherwise hide the fence and bring false errors after it. */
static void S_check_encoding(lit_source *src, lit_diags *d) {
  enum { S_SHOWN = 5 };
  const unsigned char *t = (const unsigned char *)src->text;
  size_t n = src->len, i = 0, found = 0;
  while ((i = S_next_bad(t, n, i)) < n) {
    if (found++ < S_SHOWN) {
      int line, col;
      S_where(src, i, &line, &col);
      if (t[i] == 0)
        lit_diag(d, LIT_ERROR, src->path, line, col, "a NUL byte: Markdown reads it as U+FFFD; remove it");
      else
        lit_diag(d, LIT_ERROR, src->path, line, col,
                 "byte 0x%02X is not UTF-8: lit reads documents as UTF-8, and Markdown would turn it into U+FFFD; "
                 "save the file as UTF-8",
                 t[i]);
    }
    i++;
  }
  if (found > S_SHOWN)
    lit_diag(d, LIT_NOTE, src->path, 0, 0, "%zu more NUL or non-UTF-8 bytes in this document", found - S_SHOWN);
  if (!found) return;
  lit_buf fixed = LIT_BUF_INIT;
  lit_buf_reserve(&fixed, n + 2 * found + 1);
  for (i = 0; i < n;) {
    size_t len = t[i] == 0 ? 0 : t[i] < 0x80 ? 1 : lit_utf8_len(t + i, n - i);
    if (len) {
      lit_buf_put(&fixed, (const char *)t + i, len);
      i += len;
    } else {
      lit_buf_puts(&fixed, "\xEF\xBF\xBD");
      i++;
    }
  }
  free(src->text);
  src->len = fixed.len;
  src->text = lit_buf_detach(&fixed);
  free(src->line_starts);
  S_index_lines(src);
}

static int S_key_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'; }

/* Every front matter key lit reads, in any document (the entry document's
 * project settings, the skill's front matter and its short aliases, the
 * man page's): any other is a typo lit would silently ignore
 * ("tangle-root:"), so it is an error with the nearest key. Keep it in
 * step with lit(1)'s THE ENTRY DOCUMENT. */
static const char *const S_known_keys[] = {
    "tangle-roots",
    "tangle-record",
    "tangle-line-directives",
    "tangle-command",
    "title",
    "skill-name",
    "name",
    "skill-description",
    "description",
    "skill-license",
    "license",
    "skill-compatibility",
    "compatibility",
    "skill-allowed-tools",
    "allowed-tools",
    "skill-scripts",
    "skill-assets",
    "skill-assets-files",
    "man-name",
    "man-section",
    "man-manual",
};

/* Reports a key lit does not know or that an earlier line already gave
 * (the first would win unseen); 1 if the line is to be dropped. */
static int S_check_key(const lit_source *src, const char *key, size_t klen, int ln, int col, lit_diags *d) {
  size_t nk = sizeof S_known_keys / sizeof S_known_keys[0], k = 0;
  while (k < nk && !(strlen(S_known_keys[k]) == klen && memcmp(S_known_keys[k], key, klen) == 0))
    k++;
  if (k == nk) {
    char *word = lit_xstrndup(key, klen);
    const char *near = lit_nearest(word, S_known_keys, nk);
    lit_diag(d, LIT_ERROR, src->path, ln, col, "unknown front matter key '%s'%s%s%s", word,
             near ? "; did you mean '" : " (lit reads none but its own: see lit(1), THE ENTRY DOCUMENT)",
             near ? near : "", near ? "'?" : "");
    free(word);
    return 1;
  }
  for (size_t i = 0; i < src->nmeta; i++)
    if (strlen(src->meta[i].key) == klen && memcmp(src->meta[i].key, key, klen) == 0) {
      lit_diag(d, LIT_ERROR, src->path, ln, col, "front matter key '%s' is given again (first at line %d): keep one",
               src->meta[i].key, src->meta[i].line);
      return 1;
    }
  return 0;
}

/* Parses and blanks a front matter block; reports malformed lines, unknown
 * keys and keys given twice. */
static void S_front_matter(lit_source *src, lit_diags *d) {
  if (src->nlines < 2) return;
  size_t len;
  const char *first = lit_source_line(src, 1, &len);
  if (len != 3 || memcmp(first, "---", 3) != 0) return;
  size_t cap = 0;
  int close = 0;
  for (size_t ln = 2; ln <= src->nlines; ln++) {
    const char *s = lit_source_line(src, (int)ln, &len);
    if (len == 3 && memcmp(s, "---", 3) == 0) {
      close = (int)ln;
      break;
    }
  }
  if (!close) {
    lit_diag(d, LIT_ERROR, src->path, 1, 1, "front matter opened with '---' is never closed by a '---' line");
    return;
  }
  src->has_front_matter = 1;
  for (int ln = 2; ln < close; ln++) {
    const char *s = lit_source_line(src, ln, &len);
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
      i++;
    if (i == len || s[i] == '#') continue;
    size_t k0 = i;
    while (i < len && S_key_char(s[i]))
      i++;
    if (i == k0 || i >= len || s[i] != ':') {
      lit_diag(d, LIT_ERROR, src->path, ln, (int)i + 1, "front matter line must be 'key: value'");
      continue;
    }
    size_t k1 = i++;
    if (S_check_key(src, s + k0, k1 - k0, ln, (int)k0 + 1, d)) continue;
    while (i < len && (s[i] == ' ' || s[i] == '\t'))
      i++;
    size_t v0 = i, v1 = len;
    while (v1 > v0 && (s[v1 - 1] == ' ' || s[v1 - 1] == '\t'))
      v1--;
    if (v1 - v0 >= 2 && s[v0] == '"' && s[v1 - 1] == '"') {
      v0++;
      v1--;
    }
    src->meta = lit_grow(src->meta, &cap, src->nmeta + 1, sizeof(lit_meta_entry));
    lit_meta_entry *e = &src->meta[src->nmeta++];
    e->key = lit_xstrndup(s + k0, k1 - k0);
    e->value = lit_xstrndup(s + v0, v1 - v0);
    e->line = ln;
  }
  /* Blank every front matter line in place; newlines stay so lines still match. */
  size_t end = (size_t)close < src->nlines ? src->line_starts[close] : src->len;
  for (size_t i = 0; i < end; i++)
    if (src->text[i] != '\n') src->text[i] = ' ';
}

void lit_source_from_bytes(lit_source *src, const char *path, const char *bytes, size_t len, lit_diags *d) {
  memset(src, 0, sizeof *src);
  src->path = lit_xstrdup(path);
  if (len >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0) {
    bytes += 3;
    len -= 3;
  }
  char *t = lit_xmalloc(len + 1);
  size_t o = 0, i = 0;
  while (i < len) { /* copy runs between carriage returns; drop each CR of a CRLF */
    const char *cr = memchr(bytes + i, '\r', len - i);
    size_t run = cr ? (size_t)(cr - (bytes + i)) : len - i;
    memcpy(t + o, bytes + i, run);
    o += run;
    i += run;
    if (!cr) break;
    /* A lone CR ends a line too (old Mac files): cmark reads it so, and the
     * line index must agree with cmark's line numbers. */
    if (!(i + 1 < len && bytes[i + 1] == '\n')) t[o++] = '\n';
    i++;
  }
  t[o] = '\0';
  src->text = t;
  src->len = o;
  S_index_lines(src);
  S_check_encoding(src, d);
  S_front_matter(src, d);
}

/* The length of the longest common prefix (back 0) or suffix (back 1) of
 * a[0..n) and b[0..n), compared a page at a time. */
static size_t S_common(const char *a, const char *b, size_t n, int back) {
  enum { S_STEP = 4096 };
  size_t k = 0;
  while (k < n) {
    size_t m = n - k < S_STEP ? n - k : S_STEP;
    const char *x = back ? a + n - k - m : a + k, *y = back ? b + n - k - m : b + k;
    if (memcmp(x, y, m) != 0) {
      size_t j = 0;
      if (back)
        while (j < m && x[m - 1 - j] == y[m - 1 - j])
          j++;
      else
        while (j < m && x[j] == y[j])
          j++;
      return k + j;
    }
    k += m;
  }
  return n;
}

void lit_source_from_edited(lit_source *src, const char *path, const char *bytes, size_t len, const lit_source *old,
                            lit_diags *d) {
  /* A BOM or front matter is dropped or blanked: the text could not be
   * the bytes. */
  if (old->has_front_matter || (len >= 3 && (memcmp(bytes, "\xEF\xBB\xBF", 3) == 0 || memcmp(bytes, "---", 3) == 0))) {
    lit_source_from_bytes(src, path, bytes, len, d);
    return;
  }
  const size_t olen = old->len, least = len < olen ? len : olen;
  const size_t pre = S_common(bytes, old->text, least, 0);
  const size_t suf = S_common(bytes + len - (least - pre), old->text + olen - (least - pre), least - pre, 1);
  /* The bytes to check: from the line start at or before the first that
   * differs to the end of the line of the last; the ends are whole lines
   * of old's text (a newline ends each where it meets them, so no UTF-8
   * sequence is cut), valid and without a CR. */
  size_t from = pre, to = len - suf;
  while (from > 0 && bytes[from - 1] != '\n')
    from--;
  const char *nl = to < len ? memchr(bytes + to, '\n', len - to) : NULL;
  to = nl ? (size_t)(nl - bytes) + 1 : len;
  if (memchr(bytes + from, '\r', to - from) ||
      S_next_bad((const unsigned char *)bytes, to, from) < to) { /* to be fixed, and reported: the whole way */
    lit_source_from_bytes(src, path, bytes, len, d);
    return;
  }
  memset(src, 0, sizeof *src);
  src->path = lit_xstrdup(path);
  src->text = (char *)bytes;
  src->len = len;
  src->borrowed_text = 1;
  /* A line starts at 0 and after each newline but a last one. Those
   * before pre are old's (the newline before each is in the common start);
   * after len - suf, old's moved by len - olen (likewise in the common
   * end); the rest, pre and the newlines between, are found. */
  size_t lo = 0, hi = old->nlines, at = 0;
  while (lo < hi) { /* old's line starts < pre */
    size_t mid = lo + (hi - lo) / 2;
    if (old->line_starts[mid] < pre)
      lo = mid + 1;
    else
      hi = mid;
  }
  const size_t keep = lo, tail_from = olen - suf;
  lo = keep;
  hi = old->nlines;
  while (lo < hi) { /* the first of old's line starts > olen - suf */
    size_t mid = lo + (hi - lo) / 2;
    if (old->line_starts[mid] <= tail_from)
      lo = mid + 1;
    else
      hi = mid;
  }
  const size_t tail = lo;
  size_t cap = keep + (old->nlines - tail) + 64; /* the found ones: a few lines, as a rule */
  src->line_starts = lit_xmalloc(cap * sizeof(size_t));
  if (keep) memcpy(src->line_starts, old->line_starts, keep * sizeof(size_t));
  at = keep;
  if (pre == 0 || (pre < len && bytes[pre - 1] == '\n')) src->line_starts[at++] = pre;
  for (const char *p = bytes + pre, *end = bytes + len - suf; p < end;) {
    const char *n = memchr(p, '\n', (size_t)(end - p));
    if (!n) break;
    p = n + 1;
    if ((size_t)(p - bytes) >= len) break;
    if (at == cap) src->line_starts = lit_grow(src->line_starts, &cap, at + 1, sizeof(size_t));
    src->line_starts[at++] = (size_t)(p - bytes);
  }
  const size_t moved = old->nlines - tail;
  if (at + moved > cap) src->line_starts = lit_grow(src->line_starts, &cap, at + moved, sizeof(size_t));
  for (size_t k = tail; k < old->nlines; k++)
    src->line_starts[at++] = old->line_starts[k] - olen + len;
  src->nlines = at;
}

/* lit_source_from_bytes, taking over a NUL-terminated heap buffer (freed by
 * the source). */
static void S_adopt(lit_source *src, const char *path, char *bytes, size_t len, lit_diags *d) {
  /* Most documents have neither a BOM nor a CR: keep their buffer as it is. */
  if ((len >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0) || memchr(bytes, '\r', len)) {
    lit_source_from_bytes(src, path, bytes, len, d);
    free(bytes);
    return;
  }
  memset(src, 0, sizeof *src);
  src->path = lit_xstrdup(path);
  src->text = bytes;
  src->len = len;
  S_index_lines(src);
  S_check_encoding(src, d);
  S_front_matter(src, d);
}

int lit_source_read(lit_source *src, const char *root, const char *relpath, lit_diags *d) {
  memset(src, 0, sizeof *src);
  char *full =
      (root && root[0] && strcmp(root, ".") != 0) ? lit_xasprintf("%s/%s", root, relpath) : lit_xstrdup(relpath);
  lit_buf b = LIT_BUF_INIT;
  lit_file_id id;
  int err = lit_read_file_id(full, &b, &id);
  free(full);
  if (err) {
    lit_buf_free(&b);
    src->path = lit_xstrdup(relpath);
    return err;
  }
  size_t len = b.len;
  S_adopt(src, relpath, lit_buf_detach(&b), len, d);
  src->id = id;
  return 0;
}

int lit_source_load(lit_source *src, const char *root, const char *relpath, lit_diags *d) {
  int err = lit_source_read(src, root, relpath, d);
  if (err) lit_diag(d, LIT_ERROR, relpath, 0, 0, "cannot read this document: %s", lit_strerror(err));
  return err ? -1 : 0;
}

void lit_source_free(lit_source *src) {
  free(src->path);
  if (!src->borrowed) {
    if (!src->borrowed_text) free(src->text);
    free(src->line_starts);
  }
  for (size_t i = 0; i < src->nmeta; i++) {
    free(src->meta[i].key);
    free(src->meta[i].value);
  }
  free(src->meta);
  memset(src, 0, sizeof *src);
}

void lit_source_borrow(lit_source *dst, const lit_source *src) {
  *dst = *src;
  dst->borrowed = 1;
  dst->path = lit_xstrdup(src->path);
  dst->meta = lit_xcalloc(src->nmeta + 1, sizeof *dst->meta);
  for (size_t i = 0; i < src->nmeta; i++) {
    dst->meta[i] = src->meta[i];
    dst->meta[i].key = lit_xstrdup(src->meta[i].key);
    dst->meta[i].value = lit_xstrdup(src->meta[i].value);
  }
}

const char *lit_source_line(const lit_source *src, int line, size_t *len) {
  if (line < 1 || (size_t)line > src->nlines) {
    *len = 0;
    return NULL;
  }
  size_t start = src->line_starts[line - 1];
  size_t end = start;
  while (end < src->len && src->text[end] != '\n')
    end++;
  *len = end - start;
  return src->text + start;
}

const char *lit_source_meta(const lit_source *src, const char *key, int *line) {
  for (size_t i = 0; i < src->nmeta; i++)
    if (strcmp(src->meta[i].key, key) == 0) {
      if (line) *line = src->meta[i].line;
      return src->meta[i].value;
    }
  return NULL;
}

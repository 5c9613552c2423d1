#include "diff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

size_t lit_lines_count(const char *text, size_t len) {
  size_t count = 0;
  for (const char *p = text, *end = text + len; p < end; count++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    p = nl ? nl + 1 : end;
  }
  return count;
}

lit_line *lit_lines_split(const char *text, size_t len, size_t *n) {
  *n = 0;
  if (len == 0) return NULL;
  size_t count = lit_lines_count(text, len);
  lit_line *lines = lit_xmalloc(count * sizeof *lines);
  const char *p = text, *end = text + len;
  for (size_t i = 0; i < count; i++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    lines[i].s = p;
    lines[i].len = (size_t)((nl ? nl : end) - p);
    p = nl ? nl + 1 : end;
  }
  *n = count;
  return lines;
}

typedef struct {
  const lit_line *a, *b;
  uint64_t *ha, *hb;          /* each line's hash: most comparisons end there */
  unsigned char *adel, *bins; /* the script: old lines deleted, new lines inserted */
  ptrdiff_t *v1, *v2;         /* the bisection's furthest-reaching paths, forward and backward */
} S_ctx;

static uint64_t S_hash(const lit_line *l) {
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (size_t i = 0; i < l->len; i++)
    h = (h ^ (unsigned char)l->s[i]) * 1099511628211ULL;
  return h;
}

static int S_eq(const S_ctx *c, size_t i, size_t j) {
  return c->ha[i] == c->hb[j] && c->a[i].len == c->b[j].len && memcmp(c->a[i].s, c->b[j].s, c->a[i].len) == 0;
}

static void S_compare(S_ctx *c, size_t a0, size_t a1, size_t b0, size_t b1);

/* Finds the middle snake of a[a0..a1) against b[b0..b1) (both non-empty,
 * first and last lines differing) and diffs the two halves around it; or,
 * with nothing in common, deletes and inserts everything. This is Myers'
 * linear-space bisection as diff-match-patch writes it: a forward and a
 * backward search, d edits at a time, until their paths overlap. */
static void S_bisect(S_ctx *c, size_t a0, size_t a1, size_t b0, size_t b1) {
  const ptrdiff_t n = (ptrdiff_t)(a1 - a0), m = (ptrdiff_t)(b1 - b0);
  const ptrdiff_t max_d = (n + m + 1) / 2, off = max_d + 1, vlen = 2 * max_d + 3;
  ptrdiff_t *v1 = c->v1, *v2 = c->v2;
  for (ptrdiff_t i = 0; i < vlen; i++)
    v1[i] = v2[i] = -1;
  v1[off + 1] = v2[off + 1] = 0;
  const ptrdiff_t delta = n - m;
  const int front = (delta & 1) != 0; /* odd: the forward path meets the backward one */
  ptrdiff_t k1start = 0, k1end = 0, k2start = 0, k2end = 0, sx = -1, sy = -1;
  for (ptrdiff_t d = 0; d < max_d && sx < 0; d++) {
    for (ptrdiff_t k1 = -d + k1start; k1 <= d - k1end && sx < 0; k1 += 2) {
      const ptrdiff_t k1o = off + k1;
      ptrdiff_t x1 = (k1 == -d || (k1 != d && v1[k1o - 1] < v1[k1o + 1])) ? v1[k1o + 1] : v1[k1o - 1] + 1;
      ptrdiff_t y1 = x1 - k1;
      while (x1 < n && y1 < m && S_eq(c, a0 + (size_t)x1, b0 + (size_t)y1))
        x1++, y1++;
      v1[k1o] = x1;
      if (x1 > n) {
        k1end += 2; /* off the right edge */
      } else if (y1 > m) {
        k1start += 2; /* off the bottom */
      } else if (front) {
        const ptrdiff_t k2o = off + delta - k1;
        if (k2o >= 0 && k2o < vlen && v2[k2o] != -1 && x1 >= n - v2[k2o]) sx = x1, sy = y1;
      }
    }
    for (ptrdiff_t k2 = -d + k2start; k2 <= d - k2end && sx < 0; k2 += 2) {
      const ptrdiff_t k2o = off + k2;
      ptrdiff_t x2 = (k2 == -d || (k2 != d && v2[k2o - 1] < v2[k2o + 1])) ? v2[k2o + 1] : v2[k2o - 1] + 1;
      ptrdiff_t y2 = x2 - k2;
      while (x2 < n && y2 < m && S_eq(c, a1 - 1 - (size_t)x2, b1 - 1 - (size_t)y2))
        x2++, y2++;
      v2[k2o] = x2;
      if (x2 > n) {
        k2end += 2;
      } else if (y2 > m) {
        k2start += 2;
      } else if (!front) {
        const ptrdiff_t k1o = off + delta - k2;
        if (k1o >= 0 && k1o < vlen && v1[k1o] != -1) {
          const ptrdiff_t x1 = v1[k1o], y1 = off + x1 - k1o;
          if (x1 >= n - x2) sx = x1, sy = y1;
        }
      }
    }
  }
  /* A split at either corner would not shrink the problem; it does not
   * happen once the common ends are stripped, but a loop must not hang. */
  if (sx < 0 || (sx == 0 && sy == 0) || (sx == n && sy == m)) {
    memset(c->adel + a0, 1, a1 - a0);
    memset(c->bins + b0, 1, b1 - b0);
    return;
  }
  S_compare(c, a0, a0 + (size_t)sx, b0, b0 + (size_t)sy);
  S_compare(c, a0 + (size_t)sx, a1, b0 + (size_t)sy, b1);
}

static void S_compare(S_ctx *c, size_t a0, size_t a1, size_t b0, size_t b1) {
  while (a0 < a1 && b0 < b1 && S_eq(c, a0, b0))
    a0++, b0++;
  while (a0 < a1 && b0 < b1 && S_eq(c, a1 - 1, b1 - 1))
    a1--, b1--;
  if (a0 == a1 || b0 == b1) {
    memset(c->adel + a0, 1, a1 - a0);
    memset(c->bins + b0, 1, b1 - b0);
    return;
  }
  S_bisect(c, a0, a1, b0, b1);
}

static int S_same_line(const lit_line *x, const lit_line *y) {
  return x->len == y->len && memcmp(x->s, y->s, x->len) == 0;
}

lit_hunk *lit_diff(const lit_line *a, size_t na, const lit_line *b, size_t nb, size_t *n) {
  /* The lines both ends share are settled first by comparing them: an edit
   * of a large file touches a few lines in its middle, and hashing every
   * line of both sides would cost more than the whole diff of the rest. */
  size_t pre = 0, post = 0;
  while (pre < na && pre < nb && S_same_line(&a[pre], &b[pre]))
    pre++;
  while (post < na - pre && post < nb - pre && S_same_line(&a[na - 1 - post], &b[nb - 1 - post]))
    post++;
  S_ctx c = {a, b, NULL, NULL, NULL, NULL, NULL, NULL};
  c.ha = lit_xmalloc((na + 1) * sizeof *c.ha);
  c.hb = lit_xmalloc((nb + 1) * sizeof *c.hb);
  for (size_t i = pre; i < na - post; i++)
    c.ha[i] = S_hash(&a[i]);
  for (size_t j = pre; j < nb - post; j++)
    c.hb[j] = S_hash(&b[j]);
  c.adel = lit_xcalloc(na + 1, 1);
  c.bins = lit_xcalloc(nb + 1, 1);
  const size_t mid = (na - pre - post) + (nb - pre - post);
  c.v1 = lit_xmalloc((mid + 4) * sizeof *c.v1);
  c.v2 = lit_xmalloc((mid + 4) * sizeof *c.v2);
  S_compare(&c, pre, na - post, pre, nb - post);
  /* The script as hunks: unchanged lines pair up in order between them. */
  lit_hunk *hunks = NULL;
  size_t len = 0, cap = 0, i = 0, j = 0;
  while (i < na || j < nb) {
    if (i < na && j < nb && !c.adel[i] && !c.bins[j]) {
      i++, j++;
      continue;
    }
    size_t i0 = i, j0 = j;
    while (i < na && c.adel[i])
      i++;
    while (j < nb && c.bins[j])
      j++;
    if (i == i0 && j == j0) break; /* cannot happen: the script pairs every kept line */
    hunks = lit_grow(hunks, &cap, len + 1, sizeof *hunks);
    hunks[len++] = (lit_hunk){i0, i - i0, j0, j - j0};
  }
  free(c.ha);
  free(c.hb);
  free(c.adel);
  free(c.bins);
  free(c.v1);
  free(c.v2);
  *n = len;
  return hunks;
}

/* Whether a line of t starts at byte k: k is 0 or follows a newline. */
static int S_line_start(const char *t, size_t k) { return k == 0 || t[k - 1] == '\n'; }

/* How many bytes a[0..len) and b[0..len) share at their start, or, back
 * (a and b then point past their ends), at their end: memcmp a block at a
 * time, then byte by byte in the block that differs. */
enum { S_BLOCK = 4096 };
static size_t S_common(const char *a, const char *b, size_t len, int back) {
  size_t n = 0;
  while (n + S_BLOCK <= len && memcmp(back ? a - n - S_BLOCK : a + n, back ? b - n - S_BLOCK : b + n, S_BLOCK) == 0)
    n += S_BLOCK;
  while (n < len && (back ? a[-1 - (ptrdiff_t)n] == b[-1 - (ptrdiff_t)n] : a[n] == b[n]))
    n++;
  return n;
}

/* Where the line holding byte k of t[0..len) ends: past its newline, or len. */
static size_t S_line_end(const char *t, size_t len, size_t k) {
  const char *nl = k < len ? memchr(t + k, '\n', len - k) : NULL;
  return nl ? (size_t)(nl - t) + 1 : len;
}

void lit_diff_texts(const char *a, size_t alen, const char *b, size_t blen, lit_text_diff *out) {
  memset(out, 0, sizeof *out);
  /* The shared start: the lines that end before the first byte that differs. */
  size_t p = S_common(a, b, alen < blen ? alen : blen, 0);
  if (p == alen && p == blen) return; /* the same bytes */
  size_t start = p;
  while (start > 0 && a[start - 1] != '\n')
    start--;
  /* The shared end, from a line start of both texts, after the line that
   * holds the first difference (lit_diff's shared start may take that
   * line: "x" at the end of one text is the line "x\n" of the other). */
  size_t ra = S_line_end(a, alen, p), rb = S_line_end(b, blen, p);
  size_t s = S_common(a + alen, b + blen, alen - ra < blen - rb ? alen - ra : blen - rb, 1);
  size_t ea = alen - s, eb = blen - s;
  if (!S_line_start(a, ea) || !S_line_start(b, eb)) {
    size_t k = S_line_end(a, alen, ea);
    eb += k - ea;
    ea = k;
  }
  /* lit_diff of the lines between, which settles the rest of both ends. */
  size_t pre = lit_lines_count(a, start), na, nb; /* a[0..start) ends at a newline */
  lit_line *am = lit_lines_split(a + start, ea - start, &na);
  out->b_lines = lit_lines_split(b + start, eb - start, &nb);
  out->b_first = pre;
  out->nb_lines = nb;
  out->hunks = lit_diff(am, na, out->b_lines, nb, &out->nhunks);
  for (size_t i = 0; i < out->nhunks; i++) {
    out->hunks[i].a += pre;
    out->hunks[i].b += pre;
  }
  free(am);
}

void lit_text_diff_free(lit_text_diff *d) {
  free(d->hunks);
  free(d->b_lines);
  memset(d, 0, sizeof *d);
}

#include "docedit.h"

#include <stdlib.h>
#include <string.h>

/* One line of the document as on disk: its text, then its line ending. */
typedef struct {
  const char *s;
  size_t len, eol; /* eol: 0 (the last line), 1 (LF or CR) or 2 (CRLF) */
} S_raw;

/* Lines [lo, lo + n) of a document as on disk, as lit's reader counts
 * them (a line ends at LF, CRLF or a lone CR: source.c turns both into LF,
 * as cmark reads them); only the lines an edit reads are split. known is
 * the last line split: past it the document has ended (at_end), or no
 * edit looks. */
typedef struct {
  S_raw *l;
  size_t lo, n, known;
  size_t start; /* the byte where line lo starts */
  int at_end;
} S_lines;

/* Where the line after the one at s[p] (ending before `end`) starts, and
 * its ending's length in *eol. */
static size_t S_next(const char *s, size_t p, size_t len, int lf_only, size_t *q, size_t *eol) {
  size_t e;
  if (lf_only) {
    const char *nl = memchr(s + p, '\n', len - p);
    e = nl ? (size_t)(nl - s) : len;
  } else {
    e = p;
    while (e < len && s[e] != '\n' && s[e] != '\r')
      e++;
  }
  *q = e;
  *eol = e == len ? 0 : (s[e] == '\r' && e + 1 < len && s[e + 1] == '\n') ? 2 : 1;
  return e + *eol;
}

static void S_split(const char *s, size_t len, size_t lo, size_t hi, const lit_source *src, S_lines *w) {
  memset(w, 0, sizeof *w);
  w->lo = lo;
  int lf_only = memchr(s, '\r', len) == NULL; /* most documents: memchr finds each line's end */
  size_t p = 0, line = 1, cap = 0, q, eol;
  /* Where the bytes before line lo are those lit read (no CR, no front
   * matter blanked, nothing changed since), line lo starts where the
   * reader's index says: one comparison instead of a search per line. */
  if (lo >= 2 && lo - 1 < src->nlines) {
    size_t at = src->line_starts[lo - 1];
    if (at <= len && at <= src->len && memcmp(s, src->text, at) == 0) p = at, line = lo;
  }
  for (; line < lo && p < len; line++)
    p = S_next(s, p, len, lf_only, &q, &eol);
  w->start = p;
  for (; line <= hi && p < len; line++) {
    size_t at = p;
    p = S_next(s, p, len, lf_only, &q, &eol);
    w->l = lit_grow(w->l, &cap, w->n + 1, sizeof *w->l);
    w->l[w->n++] = (S_raw){s + at, q - at, eol};
  }
  w->at_end = p >= len;
  w->known = lo + w->n - 1;
}

/* Line ln (lo <= ln <= known). */
static const S_raw *S_at(const S_lines *w, size_t ln) { return &w->l[ln - w->lo]; }

/* The byte where line ln starts (lo <= ln <= known + 1). */
static size_t S_off(const S_lines *w, const char *s, size_t ln) {
  if (ln <= w->known) return (size_t)(S_at(w, ln)->s - s);
  if (w->n == 0) return w->start;
  const S_raw *r = S_at(w, w->known);
  return (size_t)(r->s - s) + r->len + r->eol;
}

static int S_blank(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (s[i] != ' ' && s[i] != '\t') return 0;
  return 1;
}

/* The container prefix of a document line holding code `code`: what comes
 * before the code on it. -1 if the line does not end with the code (cmark
 * split a tab, or the document changed). */
static long S_prefix_of(const S_raw *r, const lit_line *code) {
  if (r->len < code->len || memcmp(r->s + r->len - code->len, code->s, code->len) != 0) return -1;
  return (long)(r->len - code->len);
}

typedef struct {
  const lit_block *b;
  lit_line *code; /* the block's lines as cmark gives them */
  size_t ncode;
  const char *prefix; /* for new lines: the longest prefix of the block's non-blank lines */
  size_t prefix_len;
} S_block;

static int S_block_read(S_block *k, const lit_block *b, const S_lines *w, lit_diags *d) {
  memset(k, 0, sizeof *k);
  k->b = b;
  k->code = lit_lines_split(b->code, b->code_len, &k->ncode);
  int have = 0;
  for (size_t i = 0; i < k->ncode; i++) {
    size_t ln = (size_t)b->code_line + i; /* 1-based document line */
    if (ln > w->known) break;
    const S_raw *r = S_at(w, ln);
    long plen = S_prefix_of(r, &k->code[i]);
    if (plen < 0 || S_blank(k->code[i].s, k->code[i].len)) continue;
    if (!have || (size_t)plen > k->prefix_len) {
      k->prefix = r->s;
      k->prefix_len = (size_t)plen;
      have = 1;
    }
  }
  if (!have) {
    /* No line of code to copy it from: what stands before the closing fence. */
    size_t fence = (size_t)b->code_line + k->ncode;
    if (fence > w->known) {
      lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->col,
               "this block has no closing fence line to put new lines before");
      return -1;
    }
    const S_raw *r = S_at(w, fence);
    size_t i = 0;
    while (i < r->len && r->s[i] != '`' && r->s[i] != '~')
      i++;
    k->prefix = r->s;
    k->prefix_len = i;
  }
  return 0;
}

static void S_put_line(lit_buf *out, const char *prefix, size_t plen, const lit_line *code, const char *eol) {
  if (code->len == 0)
    while (plen > 0 && (prefix[plen - 1] == ' ' || prefix[plen - 1] == '\t'))
      plen--;
  lit_buf_put(out, prefix, plen);
  lit_buf_put(out, code->s, code->len);
  lit_buf_puts(out, eol);
}

static const char *S_eol(const S_raw *r) {
  if (r->eol == 0) return "\n"; /* the last line, without an ending: new lines get the usual one */
  return r->eol == 2 ? "\r\n" : r->s[r->len] == '\r' ? "\r" : "\n";
}

/* The edits made on raw[0..len), appended to out: the whole document, or
 * (whole 0) only what replaces raw[*from, *to), the bytes from the first
 * edit to the end of the last (the rest stays as it is). */
static int S_apply(const lit_doc *doc, const char *raw, size_t len, const lit_docedit *edits, size_t n, int whole,
                   lit_buf *out, size_t *from, size_t *to, lit_diags *d) {
  const char *path = doc->src.path;
  size_t bom = 0;
  *from = *to = 0;
  if (len >= 3 && memcmp(raw, "\xEF\xBB\xBF", 3) == 0) {
    if (whole) lit_buf_put(out, raw, 3);
    raw += 3;
    len -= 3;
    bom = 3;
  }
  /* The lines the edits read: from the line above the first edit or its
   * block's first line of code, to the last block's closing fence or the
   * last edit's last line. The rest is copied as it is. */
  size_t lo = (size_t)-1, hi = 0, extra = 0;
  for (size_t i = 0; i < n; i++) {
    const lit_block *b = edits[i].block;
    size_t first = (size_t)(edits[i].line < b->code_line ? edits[i].line : b->code_line);
    size_t fence = (size_t)b->code_line + lit_lines_count(b->code, b->code_len);
    size_t last = (size_t)edits[i].line + (size_t)edits[i].nold;
    if (last < fence) last = fence;
    if (first - 1 < lo) lo = first - 1;
    if (last > hi) hi = last;
    for (size_t k = 0; k < edits[i].nlines; k++)
      extra += edits[i].lines[k].len + 16;
  }
  if (lo < 1) lo = 1;
  S_lines w;
  S_split(raw, len, lo, hi, &doc->src, &w);
  lit_buf_reserve(out, (whole ? len : 0) + extra);
  int failed = 0;
  size_t next = 0, ln = 1, done = 0; /* the next edit to make, the next line to copy, the bytes copied */
  S_block k;
  memset(&k, 0, sizeof k);
  while (!failed && next < n) {
    const lit_docedit *e = &edits[next];
    /* The lines up to the edit, as they are. */
    if ((size_t)e->line < ln || (size_t)e->line > w.known + 1 || (size_t)e->line < w.lo) break;
    size_t at_edit = S_off(&w, raw, (size_t)e->line);
    if (whole || next > 0)
      lit_buf_put(out, raw + done, at_edit - done);
    else
      *from = bom + at_edit;
    done = at_edit;
    ln = (size_t)e->line;
    next++;
    if (k.b != e->block) {
      free(k.code);
      if ((failed = S_block_read(&k, e->block, &w, d) != 0)) break;
    }
    /* The lines replaced must still be the block's, as lit read them. */
    for (int i = 0; i < e->nold && !failed; i++) {
      size_t at = ln + (size_t)i, ci = at - (size_t)e->block->code_line;
      size_t slen;
      const char *s = lit_source_line(&doc->src, (int)at, &slen);
      if (at > w.known || ci >= k.ncode || !s || slen != S_at(&w, at)->len || memcmp(s, S_at(&w, at)->s, slen) != 0) {
        lit_diag(d, LIT_ERROR, path, (int)at, 1, "this line changed since lit read the document: run lit stitch again");
        failed = 1;
      } else if (S_prefix_of(S_at(&w, at), &k.code[ci]) < 0) {
        lit_diag(d, LIT_ERROR, path, (int)at, 1,
                 "lit cannot tell this line's container prefix from its code (a tab is split between them): "
                 "indent the block with spaces, or make this edit by hand");
        failed = 1;
      }
    }
    if (failed || len == 0) break;
    /* New lines end as the line they replace, or as the line above them. */
    const S_raw *like = e->nold > 0 && ln <= w.known ? S_at(&w, ln) : S_at(&w, ln > 1 ? ln - 1 : 1);
    const char *eol = S_eol(like);
    for (size_t i = 0; i < e->nlines; i++) {
      const char *prefix = k.prefix;
      size_t plen = k.prefix_len;
      if ((int)i < e->nold) { /* a replaced line keeps its own prefix, unless it was blank */
        const S_raw *r = S_at(&w, ln + i);
        const lit_line *c = &k.code[ln + i - (size_t)e->block->code_line];
        if (!S_blank(c->s, c->len)) {
          prefix = r->s;
          plen = (size_t)S_prefix_of(r, c);
        }
      }
      S_put_line(out, prefix, plen, &e->lines[i], eol);
    }
    ln += (size_t)e->nold;
    done = S_off(&w, raw, ln);
  }
  if (!failed && next < n) {
    lit_diag(d, LIT_ERROR, path, edits[next].line, 1, "this document has no line %d to edit: run lit stitch again",
             edits[next].line);
    failed = 1;
  }
  if (!failed && whole) lit_buf_put(out, raw + done, len - done); /* the lines after the last edit */
  *to = bom + done;
  free(k.code);
  free(w.l);
  return failed ? -1 : 0;
}

int lit_docedit_apply(const lit_doc *doc, const char *raw, size_t len, const lit_docedit *edits, size_t n, lit_buf *out,
                      lit_diags *d) {
  size_t from, to;
  return S_apply(doc, raw, len, edits, n, 1, out, &from, &to, d);
}

int lit_docedit_apply_in_place(const lit_doc *doc, lit_buf *text, const lit_docedit *edits, size_t n, lit_diags *d) {
  lit_buf mid = LIT_BUF_INIT;
  size_t from, to;
  int failed = S_apply(doc, text->data ? text->data : "", text->len, edits, n, 0, &mid, &from, &to, d);
  if (!failed) { /* text[from, to) becomes mid: the bytes after it move by the difference */
    size_t tail = text->len - to;
    lit_buf_reserve(text, mid.len > to - from ? mid.len - (to - from) : 0);
    memmove(text->data + from + mid.len, text->data + to, tail);
    if (mid.len) memcpy(text->data + from, mid.data, mid.len);
    text->len = from + mid.len + tail;
    text->data[text->len] = '\0';
  }
  lit_buf_free(&mid);
  return failed;
}

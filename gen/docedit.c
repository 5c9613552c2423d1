#include "docedit.h"

#include <stdlib.h>
#include <string.h>

/* One line of the document as on disk: its text, then its line ending. */
typedef struct {
  const char *s;
  size_t len, eol; /* eol: 0 (the last line), 1 (LF or CR) or 2 (CRLF) */
} S_raw;

/* The lines as lit's reader counts them: a line ends at LF, CRLF or a
 * lone CR (source.c turns both into LF, as cmark reads them). */
static S_raw *S_split(const char *s, size_t len, size_t *n) {
  size_t cap = 0, count = 0;
  S_raw *lines = NULL;
  const char *p = s, *end = s + len;
  while (p < end) {
    const char *q = p;
    while (q < end && *q != '\n' && *q != '\r')
      q++;
    size_t eol = q == end ? 0 : (*q == '\r' && q + 1 < end && q[1] == '\n') ? 2 : 1;
    lines = lit_grow(lines, &cap, count + 1, sizeof *lines);
    lines[count++] = (S_raw){p, (size_t)(q - p), eol};
    p = q + eol;
  }
  *n = count;
  return lines;
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

static int S_block_read(S_block *k, const lit_block *b, const S_raw *raw, size_t nraw, lit_diags *d) {
  memset(k, 0, sizeof *k);
  k->b = b;
  k->code = lit_lines_split(b->code, b->code_len, &k->ncode);
  int have = 0;
  for (size_t i = 0; i < k->ncode; i++) {
    size_t ln = (size_t)b->code_line + i; /* 1-based document line */
    if (ln > nraw) break;
    long plen = S_prefix_of(&raw[ln - 1], &k->code[i]);
    if (plen < 0 || S_blank(k->code[i].s, k->code[i].len)) continue;
    if (!have || (size_t)plen > k->prefix_len) {
      k->prefix = raw[ln - 1].s;
      k->prefix_len = (size_t)plen;
      have = 1;
    }
  }
  if (!have) {
    /* No line of code to copy it from: what stands before the closing fence. */
    size_t fence = (size_t)b->code_line + k->ncode;
    if (fence > nraw) {
      lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->col,
               "this block has no closing fence line to put new lines before");
      return -1;
    }
    const S_raw *r = &raw[fence - 1];
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

int lit_docedit_apply(const lit_doc *doc, const char *raw, size_t len, const lit_docedit *edits, size_t n, lit_buf *out,
                      lit_diags *d) {
  const char *path = doc->src.path;
  if (len >= 3 && memcmp(raw, "\xEF\xBB\xBF", 3) == 0) {
    lit_buf_put(out, raw, 3);
    raw += 3;
    len -= 3;
  }
  size_t nraw;
  S_raw *lines = S_split(raw, len, &nraw);
  int failed = 0;
  size_t next = 0, ln = 1; /* the next edit to make, the next line to copy */
  S_block k;
  memset(&k, 0, sizeof k);
  while (!failed) {
    if (next < n && (size_t)edits[next].line == ln) {
      const lit_docedit *e = &edits[next++];
      if (k.b != e->block) {
        free(k.code);
        if ((failed = S_block_read(&k, e->block, lines, nraw, d) != 0)) break;
      }
      /* The lines replaced must still be the block's, as lit read them. */
      for (int i = 0; i < e->nold && !failed; i++) {
        size_t at = ln + (size_t)i, ci = at - (size_t)e->block->code_line;
        size_t slen;
        const char *s = lit_source_line(&doc->src, (int)at, &slen);
        if (at > nraw || ci >= k.ncode || !s || slen != lines[at - 1].len || memcmp(s, lines[at - 1].s, slen) != 0) {
          lit_diag(d, LIT_ERROR, path, (int)at, 1,
                   "this line changed since lit read the document: run lit stitch again");
          failed = 1;
        } else if (S_prefix_of(&lines[at - 1], &k.code[ci]) < 0) {
          lit_diag(d, LIT_ERROR, path, (int)at, 1,
                   "lit cannot tell this line's container prefix from its code (a tab is split between them): "
                   "indent the block with spaces, or make this edit by hand");
          failed = 1;
        }
      }
      if (failed || nraw == 0) break;
      /* New lines end as the line they replace, or as the line above them. */
      const S_raw *like = e->nold > 0 && ln <= nraw ? &lines[ln - 1] : &lines[(ln > 1 ? ln - 2 : 0)];
      const char *eol = S_eol(like);
      for (size_t i = 0; i < e->nlines; i++) {
        const char *prefix = k.prefix;
        size_t plen = k.prefix_len;
        if ((int)i < e->nold) { /* a replaced line keeps its own prefix, unless it was blank */
          const S_raw *r = &lines[ln + i - 1];
          const lit_line *c = &k.code[ln + i - (size_t)e->block->code_line];
          if (!S_blank(c->s, c->len)) {
            prefix = r->s;
            plen = (size_t)S_prefix_of(r, c);
          }
        }
        S_put_line(out, prefix, plen, &e->lines[i], eol);
      }
      ln += (size_t)e->nold;
      continue;
    }
    if (ln > nraw) break;
    const S_raw *r = &lines[ln - 1];
    lit_buf_put(out, r->s, r->len + r->eol);
    ln++;
  }
  if (!failed && next < n) {
    lit_diag(d, LIT_ERROR, path, edits[next].line, 1, "this document has no line %d to edit: run lit stitch again",
             edits[next].line);
    failed = 1;
  }
  free(k.code);
  free(lines);
  return failed ? -1 : 0;
}

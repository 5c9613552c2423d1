#include "linemap.h"

#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util.h"

/* The map is kept as runs: lines that follow each other in the file and
 * in one expansion of one block, with one indentation (a 28 MB file of
 * 470,000 lines is some 20,000 runs), or lit's own lines of one kind. A
 * run's lines are made into lit_line_origin entries only when one of them
 * is asked for (lit_linemap_at), into an array whose untouched pages cost
 * nothing: lit stitch reads the lines around an edit, lit map all. */
typedef struct {
  lit_line_kind kind;
  int line; /* CODE: the first line's document line */
  const lit_block *block;
  const char *code, *end;          /* CODE: the first line's code; the end of the last's (the others follow the first,
                                      each after the previous one's newline) */
  size_t first, n;                 /* the file's lines [first, first + n) */
  size_t indent, depth, expansion; /* CODE: of every line of the run */
  int made;                        /* its entries are in lines[] */
} S_run;

struct lit_linemap {
  S_run *runs;
  size_t nruns, runs_cap;
  size_t len;             /* lines */
  lit_line_origin *lines; /* len entries, each made with its run; allocated by lit_linemap_fit */
  struct {
    size_t at; /* offset of the expansion's indentation in prefixes, plus one (0: not seen yet) */
    size_t len;
  } * exp; /* per expansion id */
  size_t nexp, exp_cap;
  lit_buf prefixes;
};

lit_linemap *lit_linemap_new(void) { return lit_xcalloc(1, sizeof(lit_linemap)); }

void lit_linemap_free(lit_linemap *m) {
  if (!m) return;
  free(m->runs);
  free(m->lines);
  free(m->exp);
  lit_buf_free(&m->prefixes);
  free(m);
}

static S_run *S_new_run(lit_linemap *m, lit_line_kind kind) {
  m->runs = lit_grow(m->runs, &m->runs_cap, m->nruns + 1, sizeof *m->runs);
  S_run *r = &m->runs[m->nruns++];
  memset(r, 0, sizeof *r);
  r->kind = kind;
  r->first = m->len;
  return r;
}

void lit_linemap_code(lit_linemap *m, const lit_block *b, int line, const char *code, size_t code_len,
                      const char *prefix, size_t prefix_len, int blank, size_t depth, size_t expansion) {
  size_t indent = blank ? 0 : prefix_len;
  S_run *r = m->nruns ? &m->runs[m->nruns - 1] : NULL;
  /* The next line of the last run: its block's next line, right after
   * the last one's newline, in the same expansion and indentation. */
  if (r && r->kind == LIT_LINE_CODE && r->block == b && r->expansion == expansion && r->depth == depth &&
      r->indent == indent && (size_t)line == (size_t)r->line + r->n && r->end[0] == '\n' && code == r->end + 1) {
    r->n++;
    r->end = code + code_len;
    m->len++;
    return;
  }
  if (expansion >= m->nexp) {
    /* Expansion ids only grow as blocks start, so each is new here once. */
    m->exp = lit_grow(m->exp, &m->exp_cap, expansion + 1, sizeof *m->exp);
    memset(&m->exp[m->nexp], 0, (expansion + 1 - m->nexp) * sizeof *m->exp);
    m->nexp = expansion + 1;
  }
  if (!m->exp[expansion].at) {
    m->exp[expansion].at = m->prefixes.len + 1;
    m->exp[expansion].len = prefix_len;
    lit_buf_put(&m->prefixes, prefix ? prefix : "", prefix_len);
  }
  r = S_new_run(m, LIT_LINE_CODE);
  r->block = b;
  r->line = line;
  r->code = code;
  r->end = code + code_len;
  r->n = 1;
  r->indent = indent;
  r->depth = depth;
  r->expansion = expansion;
  m->len++;
}

void lit_linemap_code_lines(lit_linemap *m, const lit_block *b, int line, const char *code, const char *code_end,
                            size_t n, const char *prefix, size_t prefix_len, int blank, size_t depth,
                            size_t expansion) {
  if (n == 0) return;
  const char *nl = n > 1 ? memchr(code, '\n', (size_t)(code_end - code)) : NULL;
  lit_linemap_code(m, b, line, code, nl ? (size_t)(nl - code) : (size_t)(code_end - code), prefix, prefix_len, blank,
                   depth, expansion);
  /* The first line ends the last run now; the others follow it in one block, one expansion, one indentation. */
  S_run *r = &m->runs[m->nruns - 1];
  r->n += n - 1;
  r->end = code_end;
  m->len += n - 1;
}

void lit_linemap_lines(lit_linemap *m, lit_line_kind kind, size_t n) {
  if (n == 0) return;
  S_run *r = m->nruns ? &m->runs[m->nruns - 1] : NULL;
  if (!r || r->kind != kind || kind == LIT_LINE_CODE) r = S_new_run(m, kind);
  r->n += n;
  m->len += n;
}

/* How many lines the finished file has: the tangler ends it with exactly
 * one newline, so it keeps every line up to the last one that is not
 * empty, and one line (the header's, or a lone newline) if none is. lit's
 * own lines are never empty; a run of code holds its lines one after the
 * other, each after the previous one's newline, so its empty lines at the
 * end are the newlines that end its text. */
static size_t S_kept_lines(const lit_linemap *m) {
  for (size_t i = m->nruns; i-- > 0;) {
    const S_run *r = &m->runs[i];
    if (r->n == 0) continue;
    if (r->kind != LIT_LINE_CODE) return r->first + r->n;
    size_t empty = 0;
    const char *p = r->end;
    while (p > r->code && p[-1] == '\n')
      p--, empty++;
    if (p > r->code) return r->first + r->n - empty; /* its first lines up to one with text */
  }
  return 1;
}

void lit_linemap_fit(lit_linemap *m, const char *text, size_t len) {
  (void)text; /* the map knows which lines the tangler dropped: no need to count the text's lines */
  (void)len;
  size_t lines = S_kept_lines(m);
  /* The lines the tangler dropped (trailing blank ones) come off the end. */
  while (m->len > lines) {
    S_run *r = &m->runs[m->nruns - 1];
    size_t cut = m->len - lines < r->n ? m->len - lines : r->n;
    r->n -= cut;
    m->len -= cut;
    if (r->n == 0) {
      m->nruns--;
    } else if (r->kind == LIT_LINE_CODE) {
      const char *p = r->code; /* the new last line's end */
      for (size_t k = 1; k < r->n; k++)
        p = (const char *)memchr(p, '\n', (size_t)(r->end - p)) + 1;
      const char *nl = memchr(p, '\n', (size_t)(r->end - p));
      r->end = nl ? nl : r->end;
    }
  }
  if (m->len < lines) /* the lone newline of an empty file without a header */
    lit_linemap_lines(m, LIT_LINE_NEWLINE, lines - m->len);
  free(m->lines);
  m->lines = lit_xcalloc(m->len + 1, sizeof *m->lines);
  for (size_t i = 0; i < m->nruns; i++)
    m->runs[i].made = 0;
}

size_t lit_linemap_len(const lit_linemap *m) { return m->len; }

/* Makes run r's entries. */
static void S_make(const lit_linemap *m, S_run *r) {
  const char *p = r->code;
  for (size_t k = 0; k < r->n; k++) {
    lit_line_origin *o = &m->lines[r->first + k];
    memset(o, 0, sizeof *o);
    o->kind = r->kind;
    if (r->kind != LIT_LINE_CODE) continue;
    const char *nl = memchr(p, '\n', (size_t)(r->end - p));
    o->block = r->block;
    o->line = r->line + (int)k;
    o->indent = r->indent;
    o->depth = r->depth;
    o->expansion = r->expansion;
    o->code = p;
    o->code_len = (size_t)((nl ? nl : r->end) - p);
    p = nl ? nl + 1 : r->end;
  }
  r->made = 1;
}

const lit_line_origin *lit_linemap_at(const lit_linemap *m, size_t i) {
  if (i >= m->len || !m->lines) return NULL;
  size_t lo = 0, hi = m->nruns; /* the last run that starts at or before i */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->runs[mid].first <= i)
      lo = mid;
    else
      hi = mid;
  }
  if (!m->runs[lo].made) S_make(m, &m->runs[lo]);
  return &m->lines[i];
}

const char *lit_linemap_prefix(const lit_linemap *m, size_t expansion, size_t *len) {
  if (expansion >= m->nexp || !m->exp[expansion].at || !m->prefixes.data) {
    *len = 0;
    return "";
  }
  *len = m->exp[expansion].len;
  return m->prefixes.data + m->exp[expansion].at - 1;
}

int lit_linemap_repeated(const lit_linemap *m, const lit_block *b) {
  size_t first = 0;
  for (size_t i = 0; i < m->nruns; i++) {
    const S_run *r = &m->runs[i];
    if (r->kind != LIT_LINE_CODE || r->block != b || r->n == 0) continue;
    if (!first) first = r->expansion;
    if (r->expansion != first) return 1;
  }
  return 0;
}

int lit_line_col(const lit_line_origin *o) {
  if (o->kind != LIT_LINE_CODE) return 0;
  size_t len;
  const char *s = lit_source_line(&o->block->doc->src, o->line, &len);
  if (s && len >= o->code_len && memcmp(s + len - o->code_len, o->code, o->code_len) == 0)
    return (int)(len - o->code_len) + 1;
  return o->block->col;
}

const char *lit_line_chunk(const lit_line_origin *o) {
  return o->kind == LIT_LINE_CODE && o->block->chunk ? o->block->chunk->name : NULL;
}

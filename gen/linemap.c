#include "linemap.h"

#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "util.h"

struct lit_linemap {
  lit_line_origin *lines;
  size_t len, cap;
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
  free(m->lines);
  free(m->exp);
  lit_buf_free(&m->prefixes);
  free(m);
}

static lit_line_origin *S_push(lit_linemap *m) {
  m->lines = lit_grow(m->lines, &m->cap, m->len + 1, sizeof *m->lines);
  lit_line_origin *o = &m->lines[m->len++];
  memset(o, 0, sizeof *o);
  return o;
}

void lit_linemap_code(lit_linemap *m, const lit_block *b, int line, const char *code, size_t code_len,
                      const char *prefix, size_t prefix_len, int blank, size_t depth, size_t expansion) {
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
  lit_line_origin *o = S_push(m);
  o->kind = LIT_LINE_CODE;
  o->block = b;
  o->line = line;
  o->indent = blank ? 0 : prefix_len;
  o->depth = depth;
  o->expansion = expansion;
  o->code = code;
  o->code_len = code_len;
}

void lit_linemap_lines(lit_linemap *m, lit_line_kind kind, size_t n) {
  for (size_t i = 0; i < n; i++)
    S_push(m)->kind = kind;
}

void lit_linemap_fit(lit_linemap *m, const char *text, size_t len) {
  size_t lines = 0;
  for (const char *p = text, *end = text + len; p < end; lines++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    p = nl ? nl + 1 : end;
  }
  if (m->len > lines) m->len = lines;
  while (m->len < lines) /* the lone newline of an empty file without a header */
    S_push(m)->kind = LIT_LINE_NEWLINE;
}

size_t lit_linemap_len(const lit_linemap *m) { return m->len; }

const lit_line_origin *lit_linemap_at(const lit_linemap *m, size_t i) { return i < m->len ? &m->lines[i] : NULL; }

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
  for (size_t i = 0; i < m->len; i++) {
    if (m->lines[i].kind != LIT_LINE_CODE || m->lines[i].block != b) continue;
    if (!first) first = m->lines[i].expansion;
    if (m->lines[i].expansion != first) return 1;
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

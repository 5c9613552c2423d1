#include "stats.h"

#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "lang.h"

static size_t S_lines(const lit_block *b) {
  size_t n = 0;
  for (size_t i = 0; i < b->code_len; i++)
    n += b->code[i] == '\n';
  if (b->code_len && b->code[b->code_len - 1] != '\n') n++;
  return n;
}

/* Marks, by chunk id, every chunk reachable from a file root (explicit
 * stack: chains are deep). */
static void S_mark_reachable(const lit_project *p, unsigned char *reach) {
  size_t cap = p->nfiles + 16, depth = 0;
  const lit_chunk **stack = lit_xmalloc(cap * sizeof(lit_chunk *));
  for (size_t i = 0; i < p->nfiles; i++)
    stack[depth++] = p->files[i].root;
  while (depth) {
    const lit_chunk *c = stack[--depth];
    if (reach[c->id]) continue;
    reach[c->id] = 1;
    for (size_t d = 0; d < c->ndefs; d++)
      for (size_t s = 0; s < c->defs[d]->nsegs; s++) {
        const lit_seg *seg = &c->defs[d]->segs[s];
        if (seg->kind != LIT_SEG_REF || !seg->target || reach[seg->target->id]) continue;
        stack = lit_grow(stack, &cap, depth + 1, sizeof(lit_chunk *));
        stack[depth++] = seg->target;
      }
  }
  free(stack);
}

void lit_stats_compute(const lit_project *p, lit_stats *st, lit_buf *out) {
  memset(st, 0, sizeof *st);
  unsigned char *reach = lit_xcalloc(lit_project_nchunk_ids(p) + 1, 1);
  S_mark_reachable(p, reach);
  for (size_t di = 0; di < p->ndocs; di++) {
    const lit_doc *doc = p->docs[di];
    size_t t = 0, e = 0, u = 0;
    for (size_t bi = 0; bi < doc->nblocks; bi++) {
      const lit_block *b = doc->blocks[bi];
      if (!lit_lang_needs_tag(b->lang) || (b->flags & (LIT_BLOCK_DATA | LIT_BLOCK_RENDER))) continue;
      size_t n = S_lines(b);
      if (b->flags & LIT_BLOCK_EXAMPLE) {
        e += n;
      } else {
        if (b->chunk && reach[b->chunk->id])
          t += n;
        else
          u += n;
      }
    }
    st->tangled_lines += t;
    st->example_lines += e;
    st->unreached_lines += u;
    if (out && (t || e || u))
      lit_buf_printf(out, "  %-48s %6zu tangled %6zu example %6zu unreached\n", doc->src.path, t, e, u);
  }
  free(reach);
}

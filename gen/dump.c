#include "dump.h"

static void S_where(const lit_block *b, lit_buf *out) {
  if (b->chunk && b->chunk->name)
    lit_buf_printf(out, "chunk %s", b->chunk->name);
  else
    lit_buf_printf(out, "file %s", b->file ? b->file : "?");
}

static void S_chunk(const lit_chunk *c, lit_buf *out) {
  lit_buf_printf(out, "%s %s\n", c->is_data ? "data" : "chunk", c->name);
  for (size_t i = 0; i < c->ndefs; i++) {
    const lit_block *b = c->defs[i];
    lit_buf_printf(out, "  defined %s:%d", b->doc->src.path, b->line);
    if (b->file) lit_buf_printf(out, " (writes %s)", b->file);
    lit_buf_putc(out, '\n');
  }
  for (size_t i = 0; i < c->nuses; i++) {
    const lit_block *b = c->uses[i].block;
    const lit_seg *s = &b->segs[c->uses[i].seg];
    lit_buf_printf(out, "  used %s:%d:%d in ", b->doc->src.path, s->line, s->col);
    S_where(b, out);
    lit_buf_putc(out, '\n');
  }
}

void lit_dump(const lit_project *p, lit_buf *out) {
  lit_buf_puts(out, "reading order\n");
  for (size_t i = 0; i < p->ndocs; i++)
    lit_buf_printf(out, "  %zu %s\n", i + 1, p->docs[i]->src.path);
  lit_buf_puts(out, "output folders\n");
  for (size_t i = 0; i < p->nroots; i++)
    lit_buf_printf(out, "  %s\n", p->tangle_roots[i]);
  for (size_t i = 0; i < p->nchunks; i++)
    S_chunk(p->chunks[i], out);
  for (size_t i = 0; i < p->nfiles; i++) {
    const lit_file *f = &p->files[i];
    lit_buf_printf(out, "file %s\n  from %s:%d", f->path, f->block->doc->src.path, f->block->line);
    if (f->root->name) lit_buf_printf(out, " (chunk %s, %zu definitions)", f->root->name, f->root->ndefs);
    lit_buf_putc(out, '\n');
  }
}

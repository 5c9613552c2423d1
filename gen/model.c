#define _DEFAULT_SOURCE
#include "model.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "doc.h"
#include "paths.h"
#include "util.h"

/* What only the loader touches: a project's other fields are the back
 * ends' read-only view. */
struct lit_model {
  lit_index chunk_index;  /* name -> position in p->chunks (empty when names is borrowed) */
  const lit_index *names; /* what lit_project_find reads: chunk_index, or that of the project whose chunk table
                             S_register_like copied (the same positions) */
  lit_index file_index;   /* path -> position in p->files */
  lit_chunk **anon;       /* anonymous file roots (a file= block without #name), owned here */
  size_t nanon;
  lit_use *uses;    /* every chunk's uses, in one array (S_resolve) */
  lit_chunk *pool;  /* S_register_like's chunks, in one array, their names borrowed; NULL: each chunk is
                       allocated on its own and owns its name and definitions */
  lit_block **defs; /* and their definitions, in one array */
  int in_memory;    /* loaded by lit_project_load_memory: no disk checks */
  int blocks_clean; /* registering the blocks reported no error */
  int bad_roots;    /* a tangle-roots entry was refused (reported at the front matter) */
  int acyclic;      /* no reference cycle */
};

/* Why no output may lie in a .git folder, spelled or reached by a link. */

lit_chunk *lit_project_find(const lit_project *p, const char *name, size_t len) {
  size_t i;
  return lit_index_get(p->own->names, name, len, &i) ? p->chunks[i] : NULL;
}

size_t lit_project_nchunk_ids(const lit_project *p) { return p->nchunks + p->own->nanon; }

/* ---- building the project ---- */

static lit_chunk *S_new_chunk(const char *name) {
  lit_chunk *c = lit_xcalloc(1, sizeof *c);
  c->name = name ? lit_xstrdup(name) : NULL;
  c->name_len = name ? strlen(name) : 0;
  return c;
}

static void S_chunk_add_def(lit_chunk *c, lit_block *b) {
  c->defs = lit_grow(c->defs, &c->defs_cap, c->ndefs + 1, sizeof(lit_block *));
  b->chunk = c;
  b->def_index = c->ndefs;
  c->defs[c->ndefs++] = b;
}

/* A named chunk roots at most one file: every definition of it goes into
 * the file, so two definitions naming two files would write each other's
 * code into both, and which file was meant cannot be told. 1 (reported) if
 * an earlier definition of b's chunk already writes another file. */
static int S_second_file(const lit_project *p, const lit_block *b, lit_diags *d) {
  const lit_chunk *c = b->chunk;
  for (size_t i = 0; c && i < c->ndefs && c->defs[i] != b; i++) {
    const lit_block *o = c->defs[i];
    size_t k;
    if (!o->file || !lit_index_get(&p->own->file_index, o->file, strlen(o->file), &k) || p->files[k].root != c)
      continue;
    lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
             "chunk '%s' already writes '%s', so this definition of it cannot write '%s' too: a chunk's "
             "definitions all go into the file it roots, and which file is meant here is unclear; give this block "
             "its own name",
             c->name, o->file, b->file);
    lit_diag(d, LIT_NOTE, o->doc->src.path, o->line, o->file_col, "'%s' is the root of '%s' here", c->name, o->file);
    return 1;
  }
  return 0;
}

static void S_register_block(lit_project *p, lit_block *b, lit_diags *d, size_t *chunk_cap, size_t *file_cap) {
  const char *path = b->doc->src.path;
  if (b->name) {
    lit_chunk *c = lit_project_find(p, b->name, strlen(b->name));
    if (c && c->is_data != !!(b->flags & LIT_BLOCK_DATA)) {
      lit_diag(d, LIT_ERROR, path, b->line, b->name_col,
               "'%s' names both a .data block and a code chunk; give one of them another name", b->name);
      return;
    }
    if (!c) {
      c = S_new_chunk(b->name);
      c->is_data = !!(b->flags & LIT_BLOCK_DATA);
      p->chunks = lit_grow(p->chunks, chunk_cap, p->nchunks + 1, sizeof(lit_chunk *));
      p->chunks[p->nchunks++] = c;
      lit_index_put(&p->own->chunk_index, c->name, p->nchunks - 1);
    }
    S_chunk_add_def(c, b);
  }
  if (b->file && (b->flags & LIT_BLOCK_TANGLED)) {
    const char *why = lit_path_check_syntax(b->file, p->tangle_roots, p->nroots);
    if (why) {
      lit_diag(d, LIT_ERROR, path, b->line, b->file_col, "cannot write '%s': %s", b->file, why);
      if (!p->nroots && p->own->bad_roots) {
        lit_diag(d, LIT_NOTE, path, b->line, b->file_col, "%s's tangle-roots entries were refused (reported there)",
                 p->docs[0]->src.path);
      } else if (!p->nroots) {
        lit_diag(d, LIT_NOTE, path, b->line, b->file_col,
                 "%s declares no output folders: add 'tangle-roots: <folder>' to its front matter",
                 p->docs[0]->src.path);
      } else {
        lit_buf roots = LIT_BUF_INIT;
        for (size_t i = 0; i < p->nroots; i++)
          lit_buf_printf(&roots, "%s%s", i ? ", " : "", p->tangle_roots[i]);
        lit_diag(d, LIT_NOTE, path, b->line, b->file_col, "output folders declared in the entry document: %s",
                 roots.data);
        lit_buf_free(&roots);
      }
      return;
    }
    if (lit_path_names_git(b->file)) {
      lit_diag(d, LIT_ERROR, path, b->line, b->file_col, "cannot write '%s': %s", b->file, lit_path_git_why);
      return;
    }
    why = lit_path_check_length(p->root, b->file);
    if (why) {
      lit_diag(d, LIT_ERROR, path, b->line, b->file_col, "cannot write '%s': %s", b->file, why);
      return;
    }
    const char *base = strrchr(b->file, '/') ? strrchr(b->file, '/') + 1 : b->file;
    if (strncmp(base, ".lit-tmp-", 9) == 0 || strncmp(base, ".lit-old-", 9) == 0) {
      lit_diag(d, LIT_ERROR, path, b->line, b->file_col,
               "cannot write '%s': names that start with .lit-tmp- or .lit-old- are lit's temporaries, which a later "
               "run removes",
               b->file);
      return;
    }
    if (strcmp(b->file, p->record_path) == 0 || strcmp(b->file, p->journal_path) == 0) {
      lit_diag(d, LIT_ERROR, path, b->line, b->file_col,
               "cannot write '%s': lit keeps its record of generated files there (tangle-record)", b->file);
      return;
    }
    size_t i;
    if (lit_index_get(&p->own->file_index, b->file, strlen(b->file), &i)) {
      lit_diag(d, LIT_ERROR, path, b->line, b->file_col, "'%s' is already written by another block", b->file);
      lit_diag(d, LIT_NOTE, p->files[i].block->doc->src.path, p->files[i].block->line, p->files[i].block->file_col,
               "first claimed here; a file has one root block (append with a #name instead)");
      return;
    }
    if (S_second_file(p, b, d)) return;
    why = p->own->in_memory ? NULL : lit_path_check_disk(p->root, b->file, p->tangle_roots, p->nroots);
    if (why) {
      lit_diag(d, LIT_ERROR, path, b->line, b->file_col, "cannot write '%s': %s", b->file, why);
      return;
    }
    lit_chunk *root = b->chunk;
    if (!root) {
      root = S_new_chunk(NULL);
      S_chunk_add_def(root, b);
      p->own->anon = lit_xrealloc(p->own->anon, (p->own->nanon + 1) * sizeof(lit_chunk *));
      p->own->anon[p->own->nanon++] = root;
    }
    p->files = lit_grow(p->files, file_cap, p->nfiles + 1, sizeof(lit_file));
    lit_file *f = &p->files[p->nfiles++];
    f->path = lit_xstrdup(b->file);
    lit_index_put(&p->own->file_index, f->path, p->nfiles - 1);
    f->block = b;
    f->root = root;
  }
}

/* Which of 64 classes of bytes a name holds: a byte one name has and the
 * other lacks costs at least one edit, so the classes bound the distance
 * from below without running the dynamic programme. */
static unsigned long long S_signature(const char *s, size_t len) {
  unsigned long long sig = 0;
  for (size_t i = 0; i < len; i++)
    sig |= 1ULL << ((unsigned char)s[i] & 63);
  return sig;
}

static size_t S_popcount(unsigned long long x) {
  size_t n = 0;
  for (; x; x &= x - 1)
    n++;
  return n;
}

typedef struct {
  unsigned long long *sigs; /* per chunk, computed on the first suggestion */
  char **names;             /* undefined names already looked up ... */
  const char **nearest;     /* ... and what was suggested for each (or NULL) */
  size_t len;
  int gave_up;
} S_suggester;

/* Suggestions compare a name with every chunk; past this many different
 * undefined names (a renamed chunk, a pasted document) the rest are reported
 * without one, so a run stays fast however many references are broken. */
enum { S_MAX_SUGGESTED = 100 };

static const char *S_nearest(const lit_project *p, S_suggester *sg, const char *name, size_t len) {
  for (size_t i = 0; i < sg->len; i++)
    if (strlen(sg->names[i]) == len && memcmp(sg->names[i], name, len) == 0) return sg->nearest[i];
  if (sg->len == S_MAX_SUGGESTED) {
    sg->gave_up = 1;
    return NULL;
  }
  if (!sg->sigs) {
    sg->sigs = lit_xmalloc((p->nchunks + 1) * sizeof(unsigned long long));
    for (size_t i = 0; i < p->nchunks; i++)
      sg->sigs[i] = S_signature(p->chunks[i]->name, strlen(p->chunks[i]->name));
    sg->names = lit_xmalloc(S_MAX_SUGGESTED * sizeof(char *));
    sg->nearest = lit_xmalloc(S_MAX_SUGGESTED * sizeof(char *));
  }
  size_t cap = len / 3 + 2, best = cap + 1;
  unsigned long long sig = S_signature(name, len);
  const char *found = NULL;
  for (size_t i = 0; i < p->nchunks; i++) {
    if (p->chunks[i]->is_data) continue;
    size_t limit = best < cap ? best : cap;
    size_t lower = S_popcount(sig & ~sg->sigs[i]), other = S_popcount(sg->sigs[i] & ~sig);
    if ((other > lower ? other : lower) > limit) continue;
    const char *c = p->chunks[i]->name;
    size_t dist = lit_edit_distance(name, len, c, strlen(c), limit);
    if (dist < best) {
      best = dist;
      found = c;
    }
  }
  sg->names[sg->len] = lit_xstrndup(name, len);
  sg->nearest[sg->len++] = found;
  return found;
}

static void S_suggester_free(S_suggester *sg) {
  for (size_t i = 0; i < sg->len; i++)
    free(sg->names[i]);
  free(sg->names);
  free(sg->nearest);
  free(sg->sigs);
}

/* Reports every reference cycle once, with the whole chain, by a depth-first
 * walk on an explicit stack (chains can be deeper than the C stack).
 * Returns how many it reported. */
static size_t S_check_cycles(lit_project *p, lit_diags *d) {
  typedef struct {
    lit_chunk *c;
    size_t def, seg;
    const lit_block *via_block;
    const lit_seg *via;
  } frame;
  enum { WHITE = 0, GREY = 1, BLACK = 2 };
  size_t cap = 64;
  frame *st = lit_xmalloc(cap * sizeof(frame));
  /* Per chunk id (only named chunks can be referenced): its colour, and
   * whether a cycle through it was reported. */
  unsigned char *color = lit_xcalloc(p->nchunks + 1, 1), *reported = lit_xcalloc(p->nchunks + 1, 1);
  size_t cycles = 0;
  for (size_t i = 0; i < p->nchunks; i++) {
    if (color[i] != WHITE || p->chunks[i]->is_data) continue;
    size_t depth = 0;
    st[depth++] = (frame){p->chunks[i], 0, 0, NULL, NULL};
    color[i] = GREY;
    while (depth) {
      frame *f = &st[depth - 1];
      if (f->def >= f->c->ndefs) {
        color[f->c->id] = BLACK;
        depth--;
        continue;
      }
      const lit_block *b = f->c->defs[f->def];
      if (f->seg >= b->nsegs) {
        f->def++;
        f->seg = 0;
        continue;
      }
      const lit_seg *s = &b->segs[f->seg++];
      if (s->kind != LIT_SEG_REF || !s->target) continue;
      lit_chunk *t = s->target;
      if (color[t->id] == GREY) {
        if (!reported[t->id]) {
          size_t first = 0;
          while (st[first].c != t)
            first++;
          lit_diag(d, LIT_ERROR, b->doc->src.path, s->line, s->col, "reference cycle: '%s' includes itself", t->name);
          for (size_t k = first + 1; k < depth; k++)
            lit_diag(d, LIT_NOTE, st[k].via_block->doc->src.path, st[k].via->line, st[k].via->col,
                     "'%s' is used in '%s' here", st[k].c->name, st[k - 1].c->name);
          lit_diag(d, LIT_NOTE, b->doc->src.path, s->line, s->col, "'%s' is used in '%s' here, closing the cycle",
                   t->name, f->c->name);
          reported[t->id] = 1;
          cycles++;
        }
        continue;
      }
      if (color[t->id] == BLACK) continue;
      if (depth == cap) {
        cap *= 2;
        st = lit_xrealloc(st, cap * sizeof(frame));
        f = &st[depth - 1];
      }
      st[depth++] = (frame){t, 0, 0, b, s};
      color[t->id] = GREY;
    }
  }
  free(color);
  free(reported);
  free(st);
  return cycles;
}

/* ---- the expanded size of each file ---- */

/* The default limit on one file's expanded text: far above any source file
 * a person writes, far below a disk. LIT_MAX_FILE_SIZE changes it. */
#define S_DEFAULT_MAX_FILE ((uint64_t)256 << 20)

/* Sizes saturate: a chunk included twice at each of 70 levels is 2^70
 * copies, which must still compare as more than the limit. */
static uint64_t S_sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t S_sat_mul(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

/* What a chunk expands to: its bytes as the tangler writes them (every line
 * with its newline, the indentation of the references inside it included),
 * and how many of its lines are not blank: an indentation around it adds
 * to each of those. The header comment and #line directives are not in it. */
typedef struct {
  uint64_t bytes, lines;
} S_extent;

/* What one segment adds to its chunk, the chunks it includes being known. */
static S_extent S_seg_extent(const lit_seg *s, const S_extent *ext) {
  if (s->kind == LIT_SEG_TEXT) {
    uint64_t open = s->len && s->text[s->len - 1] != '\n'; /* the tangler ends the last line */
    return (S_extent){s->len + open, s->nlines - s->nblank};
  }
  if (!s->target) return (S_extent){0, 0}; /* undefined: reported */
  const S_extent *t = &ext[s->target->id];
  return (S_extent){S_sat_add(t->bytes, S_sat_mul(s->indent_len, t->lines)), t->lines};
}

static S_extent S_chunk_extent(const lit_chunk *c, const S_extent *ext) {
  S_extent e = {0, 0};
  for (size_t i = 0; i < c->ndefs; i++)
    for (size_t k = 0; k < c->defs[i]->nsegs; k++) {
      S_extent x = S_seg_extent(&c->defs[i]->segs[k], ext);
      e.bytes = S_sat_add(e.bytes, x.bytes);
      e.lines = S_sat_add(e.lines, x.lines);
    }
  return e;
}

/* The extent of every chunk root reaches, each computed once after the
 * chunks it includes (on an explicit stack: chains can be 10,000 deep), so
 * a file that would expand to terabytes is refused in microseconds instead
 * of filling the disk. done[id]: 1 while on the stack, 2 once computed.
 * The project has no cycle. */
static void S_extents(const lit_chunk *root, S_extent *ext, unsigned char *done) {
  typedef struct {
    const lit_chunk *c;
    size_t def, seg;
  } frame;
  if (done[root->id]) return;
  size_t cap = 64, depth = 0;
  frame *st = lit_xmalloc(cap * sizeof(frame));
  st[depth++] = (frame){root, 0, 0};
  done[root->id] = 1;
  while (depth) {
    frame *f = &st[depth - 1];
    if (f->def >= f->c->ndefs) {
      ext[f->c->id] = S_chunk_extent(f->c, ext);
      done[f->c->id] = 2;
      depth--;
      continue;
    }
    const lit_block *b = f->c->defs[f->def];
    if (f->seg >= b->nsegs) {
      f->def++;
      f->seg = 0;
      continue;
    }
    const lit_seg *s = &b->segs[f->seg++];
    if (s->kind != LIT_SEG_REF || !s->target || done[s->target->id]) continue;
    st = lit_grow(st, &cap, depth + 1, sizeof(frame));
    st[depth++] = (frame){s->target, 0, 0};
    done[s->target->id] = 1;
  }
  free(st);
}

/* One step of the chain that makes a file too big: the chunk that weighs
 * most in `from`, how many times it is included there, and where first. */
typedef struct {
  const lit_chunk *from, *to;
  size_t times;
  const lit_block *block;
  const lit_seg *first;
} S_step;

/* The heaviest step out of c; 0 if c includes nothing. weight and times are
 * per chunk id, zero on entry and on return. */
static int S_heaviest(const lit_chunk *c, const S_extent *ext, uint64_t *weight, size_t *times, S_step *out) {
  const lit_chunk *best = NULL;
  for (size_t i = 0; i < c->ndefs; i++)
    for (size_t k = 0; k < c->defs[i]->nsegs; k++) {
      const lit_seg *s = &c->defs[i]->segs[k];
      if (s->kind != LIT_SEG_REF || !s->target) continue;
      size_t id = s->target->id;
      times[id]++;
      weight[id] = S_sat_add(weight[id], S_seg_extent(s, ext).bytes);
      if (!best || weight[id] > weight[best->id]) best = s->target;
    }
  if (!best) return 0;
  const lit_seg *want = NULL;
  const lit_block *in = NULL;
  size_t n = times[best->id];
  for (size_t i = 0; i < c->ndefs; i++) /* the first reference to best, and every entry back to zero */
    for (size_t k = 0; k < c->defs[i]->nsegs; k++) {
      const lit_seg *s = &c->defs[i]->segs[k];
      if (s->kind != LIT_SEG_REF || !s->target) continue;
      if (s->target == best && !want) {
        want = s;
        in = c->defs[i];
      }
      weight[s->target->id] = 0;
      times[s->target->id] = 0;
    }
  *out = (S_step){c, best, n, in, want};
  return 1;
}

/* n bytes for a person: "512 bytes", "256.0 MiB". */
static void S_human(uint64_t n, char out[48]) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (n == UINT64_MAX) {
    snprintf(out, 48, "more than 16 EiB");
    return;
  }
  if (n < 1024) {
    snprintf(out, 48, "%llu bytes", (unsigned long long)n);
    return;
  }
  double v = (double)n / 1024;
  size_t u = 0;
  for (; v >= 1024 && u + 1 < sizeof units / sizeof units[0]; u++)
    v /= 1024;
  snprintf(out, 48, "%.1f %s", v, units[u]);
}

/* A chain this long is shown whole; a longer one, its two ends. */
enum { S_CHAIN_SHOWN = 32 };

static void S_step_note(const lit_file *f, const S_step *st, const S_extent *ext, lit_diags *d) {
  char size[48];
  S_human(ext[st->to->id].bytes, size);
  const char *from = st->from->name ? st->from->name : f->path;
  const lit_block *b = st->block;
  if (st->times == 1)
    lit_diag(d, LIT_NOTE, b->doc->src.path, st->first->line, st->first->col, "'%s' includes '%s' here, which is %s",
             from, st->to->name, size);
  else
    lit_diag(d, LIT_NOTE, b->doc->src.path, st->first->line, st->first->col,
             "'%s' includes '%s' %zu times (the first here), which is %s each", from, st->to->name, st->times, size);
}

/* The error for a file past the limit, then the chain of references that
 * makes it so: from its root, the heaviest inclusion at each step, down to
 * the first chunk within the limit. */
static void S_report_size(const lit_project *p, const lit_file *f, const S_extent *ext, uint64_t limit, lit_diags *d) {
  char size[48], lim[48];
  uint64_t bytes = ext[f->root->id].bytes;
  S_human(bytes, size);
  S_human(limit, lim);
  if (strcmp(size, lim) == 0 && bytes != UINT64_MAX) { /* "34.0 KiB, more than 34.0 KiB": say the bytes */
    snprintf(size, sizeof size, "%llu bytes", (unsigned long long)bytes);
    snprintf(lim, sizeof lim, "%llu bytes", (unsigned long long)limit);
  }
  const lit_block *b = f->block;
  lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
           "'%s' would be %s once its chunks are expanded, more than the limit of %s a file (LIT_MAX_FILE_SIZE "
           "sets it): a chunk included several times repeats everything it includes",
           f->path, size, lim);
  size_t nids = lit_project_nchunk_ids(p), n = 0, cap = 16;
  uint64_t *weight = lit_xcalloc(nids + 1, sizeof(uint64_t));
  size_t *times = lit_xcalloc(nids + 1, sizeof(size_t));
  S_step *steps = lit_xmalloc(cap * sizeof(S_step));
  for (const lit_chunk *c = f->root; n < nids;) {
    steps = lit_grow(steps, &cap, n + 1, sizeof(S_step));
    if (!S_heaviest(c, ext, weight, times, &steps[n])) break;
    c = steps[n++].to;
    if (ext[c->id].bytes <= limit) break;
  }
  for (size_t i = 0; i < n; i++) {
    if (n > S_CHAIN_SHOWN && i == S_CHAIN_SHOWN / 2) {
      size_t skip = n - S_CHAIN_SHOWN;
      lit_diag(d, LIT_NOTE, steps[i].block->doc->src.path, steps[i].first->line, steps[i].first->col,
               "%zu more steps of the chain, from here on, are not shown", skip);
      i += skip - 1;
      continue;
    }
    S_step_note(f, &steps[i], ext, d);
  }
  free(steps);
  free(times);
  free(weight);
}

/* The limit: LIT_MAX_FILE_SIZE in bytes, or with K, M, G or T (powers of
 * 1024); the default without it; 0 when it is not a size (reported). */
static uint64_t S_max_file_size(lit_diags *d) {
  const char *v = getenv("LIT_MAX_FILE_SIZE");
  if (!v || !v[0]) return S_DEFAULT_MAX_FILE;
  char *end = (char *)v;
  errno = 0;
  unsigned long long n = isdigit((unsigned char)v[0]) ? strtoull(v, &end, 10) : 0;
  int shift = 0;
  if (n) {
    const char *units = "KMGT", *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    if (u) {
      shift = 10 * (int)(u - units + 1);
      end++;
    }
  }
  if (!n || errno || *end || n > (UINT64_MAX >> shift)) {
    lit_diag(d, LIT_ERROR, NULL, 0, 0,
             "LIT_MAX_FILE_SIZE='%s' is not a size: give a number of bytes above 0, or one followed by K, M, G or T",
             v);
    return 0;
  }
  return (uint64_t)n << shift;
}

/* Refuses every file whose expansion would pass the limit, before any back
 * end expands it: a few lines that include a chunk twice at each of 40
 * levels would otherwise write terabytes. */
static void S_check_sizes(const lit_project *p, lit_diags *d) {
  uint64_t limit = S_max_file_size(d);
  if (!limit) return;
  size_t nids = lit_project_nchunk_ids(p);
  S_extent *ext = lit_xcalloc(nids + 1, sizeof(S_extent));
  unsigned char *done = lit_xcalloc(nids + 1, 1);
  for (size_t i = 0; i < p->nfiles; i++) {
    const lit_file *f = &p->files[i];
    S_extents(f->root, ext, done);
    if (ext[f->root->id].bytes > limit) S_report_size(p, f, ext, limit, d);
  }
  free(done);
  free(ext);
}

/* The first "<<name>>" on line s[0..len) that lit leaves as text although
 * it is surely meant as a reference: the line starts with it, or it names
 * a chunk (code such as x<<24>>24 names none and passes; "<<<" and ">>>"
 * are CUDA launches). Its offset, or -1. */
static long S_inline_ref(const lit_project *p, const char *s, size_t len, size_t *name_len) {
  size_t lead = 0, tail = len;
  while (lead < len && (s[lead] == ' ' || s[lead] == '\t'))
    lead++;
  while (tail > lead && (s[tail - 1] == ' ' || s[tail - 1] == '\t'))
    tail--;
  if (tail - lead >= 4 && s[lead] == '<' && s[lead + 1] == '<' && s[tail - 1] == '>' && s[tail - 2] == '>')
    return -1; /* shaped like a reference: the reader has spoken ("<<a>><<b>>" names no chunk) */
  for (const char *lt = memchr(s, '<', len); lt; lt = memchr(lt + 1, '<', len - (size_t)(lt + 1 - s))) {
    size_t i = (size_t)(lt - s);
    if (i + 4 > len) break;
    if (s[i + 1] != '<' || (i > 0 && s[i - 1] == '<')) continue;
    size_t j = i + 2; /* over the name's characters only, so a line is read once, whatever it holds */
    while (j < len && lit_name_valid(s + j, 1))
      j++;
    if (j == i + 2 || j + 1 >= len || s[j] != '>' || s[j + 1] != '>' || (j + 2 < len && s[j + 2] == '>')) continue;
    if (i == lead || lit_project_find(p, s + i + 2, j - i - 2)) {
      *name_len = j - i - 2;
      return (long)i;
    }
  }
  return -1;
}

/* Whether "<<" occurs in s[0..len) (memmem is GNU's). */
static int S_has_double_lt(const char *s, size_t len) {
  const char *end = s + len;
  for (const char *lt = memchr(s, '<', len); lt && lt + 1 < end; lt = memchr(lt + 1, '<', (size_t)(end - lt - 1)))
    if (lt[1] == '<') return 1;
  return 0;
}

/* Lit includes a chunk only where "<<name>>" is alone on its line; with
 * other text beside it the line is copied as it is (notangle would include
 * the chunk there, keeping the text around it). Where that is surely a
 * slip, a warning at each such line of a text segment. */
static void S_check_inline_refs(const lit_project *p, const lit_block *b, lit_seg *s, lit_diags *d) {
  if (!s->double_lt) s->double_lt = S_has_double_lt(s->text, s->len) ? 2 : 1; /* once for a segment and its clones */
  if (s->double_lt == 1) return; /* most code has none: no line to look at */
  const char *t = s->text, *end = s->text + s->len;
  for (int line = s->line; t < end; line++) {
    const char *nl = memchr(t, '\n', (size_t)(end - t));
    size_t len = (size_t)((nl ? nl : end) - t), n;
    long at = S_inline_ref(p, t, len, &n);
    if (at >= 0)
      lit_diag(d, LIT_WARNING, b->doc->src.path, line, b->col + (int)at,
               "'<<%.*s>>' shares its line with other text, so lit copies the line as text and includes no chunk "
               "(notangle would include it there); put the reference on a line of its own",
               (int)n, t + at + 2);
    t = nl ? nl + 1 : end;
  }
}

/* The chunk that reference s (segment si of its block) names, when the
 * block `like` in the same place of the project p's chunk table was copied
 * from (S_register_like) has there a reference to a code chunk of the same
 * name: the chunk in its target's place, which is what a lookup would give
 * (the table and its index are the same). Else NULL: the caller looks the
 * name up. */
static lit_chunk *S_target_like(const lit_project *p, const lit_block *like, size_t si, const lit_seg *s) {
  if (!like || si >= like->nsegs || like->segs[si].kind != LIT_SEG_REF) return NULL;
  const lit_chunk *t = like->segs[si].target;
  if (!t || t->is_data || t->id >= p->nchunks || t->name_len != s->len || memcmp(t->name, s->text, s->len) != 0)
    return NULL;
  return p->chunks[t->id];
}

/* Resolves every reference and gives each chunk its uses (in reading
 * order, in one array: counted first, then filled). like: the project
 * whose chunk table p's was copied from (S_register_like), block for
 * block, or NULL; a reference its original block also makes there takes
 * the chunk in the same place, with no lookup. Returns how many references
 * were looked up by name (with like, 0 means every reference is one of
 * like's: p's references are some of like's). */
static size_t S_resolve(lit_project *p, const lit_project *like, lit_diags *d) {
  S_suggester sg;
  memset(&sg, 0, sizeof sg);
  size_t *count = lit_xcalloc(p->nchunks + 1, sizeof *count), nuses = 0, lookups = 0;
  for (size_t di = 0; di < p->ndocs; di++) {
    lit_doc *doc = p->docs[di];
    for (size_t bi = 0; bi < doc->nblocks; bi++) {
      lit_block *b = doc->blocks[bi];
      const lit_block *orig = like ? like->docs[di]->blocks[bi] : NULL;
      for (size_t si = 0; si < b->nsegs; si++) {
        lit_seg *s = &b->segs[si];
        if (s->kind != LIT_SEG_REF) {
          S_check_inline_refs(p, b, s, d);
          continue;
        }
        lit_chunk *c = S_target_like(p, orig, si, s);
        if (c) {
          s->target = c;
          count[c->id]++;
          nuses++;
          continue;
        }
        c = lit_project_find(p, s->text, s->len);
        lookups++;
        if (c && c->is_data) {
          lit_diag(d, LIT_ERROR, doc->src.path, s->line, s->col,
                   "'%.*s' is a .data block for the weaver, not a code chunk: it cannot be included", (int)s->len,
                   s->text);
          continue;
        }
        if (!c) {
          const char *near = S_nearest(p, &sg, s->text, s->len);
          if (near)
            lit_diag(d, LIT_ERROR, doc->src.path, s->line, s->col, "undefined chunk '%.*s'; did you mean '%s'?",
                     (int)s->len, s->text, near);
          else
            lit_diag(d, LIT_ERROR, doc->src.path, s->line, s->col, "undefined chunk '%.*s'", (int)s->len, s->text);
          continue;
        }
        s->target = c;
        count[c->id]++;
        nuses++;
      }
    }
  }
  p->own->uses = lit_xmalloc((nuses + 1) * sizeof *p->own->uses);
  for (size_t i = 0, at = 0; i < p->nchunks; i++) {
    p->chunks[i]->uses = p->own->uses + at;
    p->chunks[i]->nuses = 0;
    p->chunks[i]->uses_cap = count[i];
    at += count[i];
  }
  free(count);
  for (size_t di = 0; di < p->ndocs; di++)
    for (size_t bi = 0; bi < p->docs[di]->nblocks; bi++) {
      lit_block *b = p->docs[di]->blocks[bi];
      for (size_t si = 0; si < b->nsegs; si++)
        if (b->segs[si].kind == LIT_SEG_REF && b->segs[si].target) {
          lit_chunk *c = b->segs[si].target;
          c->uses[c->nuses++] = (lit_use){b, si};
        }
    }
  if (sg.gave_up)
    lit_diag(d, LIT_NOTE, NULL, 0, 0,
             "more than %d different undefined chunks: the later ones are reported without a suggestion",
             S_MAX_SUGGESTED);
  S_suggester_free(&sg);
  for (size_t i = 0; i < p->nchunks; i++) {
    lit_chunk *c = p->chunks[i];
    if (c->is_data || c->nuses) continue;
    int is_file = 0;
    for (size_t k = 0; k < c->ndefs && !is_file; k++)
      is_file = c->defs[k]->file != NULL;
    if (is_file) continue;
    lit_block *b = c->defs[0];
    lit_diag(d, LIT_WARNING, b->doc->src.path, b->line, b->name_col, "chunk '%s' is defined but never used", c->name);
  }
  return lookups;
}

/* A tangle-command fits in a header comment's `...`: printable, one line. */
static int S_command_ok(const char *cmd) {
  if (!cmd[0]) return 0;
  for (const unsigned char *c = (const unsigned char *)cmd; *c; c++)
    if (*c < 0x20 || *c == 0x7f || *c == '`') return 0;
  return 1;
}

/* Two output folders that are one folder, or one inside the other, through
 * a symbolic link would let two blocks write one file under two spellings,
 * each overwriting the other. Folders nested as spelled ("kernels" and
 * "kernels/sub") are fine: a file has one spelling under both. Each
 * root's real path is read once. */
static void S_check_root_aliases(lit_project *p, const char *entry, int line, lit_diags *d) {
  if (p->own->in_memory || p->nroots < 2) return;
  char **real = lit_xcalloc(p->nroots, sizeof *real);
  for (size_t i = 0; i < p->nroots; i++) {
    char *folder = lit_xstrndup(p->tangle_roots[i], strlen(p->tangle_roots[i]) - 1);
    real[i] = lit_path_real(p->root, folder);
    free(folder);
  }
  for (size_t j = 1; j < p->nroots; j++)
    for (size_t i = 0; i < j; i++) {
      const char *a = p->tangle_roots[i], *b = p->tangle_roots[j];
      if (!real[i] || !real[j] || strcmp(a, b) == 0) continue;
      size_t outer = lit_path_is_inside(real[i], real[j]) ? i : lit_path_is_inside(real[j], real[i]) ? j : p->nroots;
      if (outer == p->nroots) continue;
      size_t inner = outer == i ? j : i;
      const char *o = p->tangle_roots[outer], *in = p->tangle_roots[inner];
      size_t ol = strlen(o);
      /* Nested as spelled, and no link between the two: the inner real
       * path is the outer's with the rest of the spelling after it. */
      if (strncmp(o, in, ol) == 0) {
        char *want = lit_xasprintf("%s/%.*s", real[outer], (int)(strlen(in) - ol - 1), in + ol);
        int same = strcmp(want, real[inner]) == 0;
        free(want);
        if (same) continue;
      }
      lit_diag(d, LIT_ERROR, entry, line, 1,
               "tangle-roots entries '%.*s' and '%.*s' are %s through a symbolic link: two blocks could write one "
               "file under two names; keep one of them",
               (int)strlen(a) - 1, a, (int)strlen(b) - 1, b,
               strcmp(real[i], real[j]) == 0 ? "one folder" : "one inside the other");
    }
  for (size_t i = 0; i < p->nroots; i++)
    free(real[i]);
  free(real);
}

static void S_read_config(lit_project *p, const lit_source *entry, lit_diags *d) {
  int line = 0;
  const char *roots = lit_source_meta(entry, "tangle-roots", &line);
  if (roots) {
    char *copy = lit_xstrdup(roots), *save = NULL;
    for (char *t = strtok_r(copy, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
      size_t n = strlen(t);
      int bad = t[0] == '/' || strstr(t, "..") != NULL;
      if (bad) {
        lit_diag(d, LIT_ERROR, entry->path, line, 1, "tangle-roots entry '%s' must be a folder inside the project", t);
        p->own->bad_roots = 1;
        continue;
      }
      char *folder = lit_xstrndup(t, n && t[n - 1] == '/' ? n - 1 : n);
      const char *why = strcmp(folder, ".") == 0 || !folder[0]
                            ? "it is the project folder itself, where no file= path can be (none holds a '.' "
                              "component); name a folder below it"
                            : lit_path_check_plain(folder);
      if (!why && lit_path_names_git(folder)) why = lit_path_git_why;
      if (!why && !p->own->in_memory) why = lit_path_check_git(p->root, folder); /* through links too */
      if (why) {
        lit_diag(d, LIT_ERROR, entry->path, line, 1, "tangle-roots entry '%s' cannot be an output folder: %s", t, why);
        free(folder);
        p->own->bad_roots = 1;
        continue;
      }
      p->tangle_roots = lit_xrealloc(p->tangle_roots, (p->nroots + 1) * sizeof(char *));
      p->tangle_roots[p->nroots++] = lit_xasprintf("%s/", folder);
      free(folder);
    }
    free(copy);
    S_check_root_aliases(p, entry->path, line, d);
  }
  const char *ld = lit_source_meta(entry, "tangle-line-directives", &line);
  if (ld && (strcmp(ld, "true") == 0 || strcmp(ld, "false") == 0))
    p->line_directives = strcmp(ld, "true") == 0;
  else if (ld)
    lit_diag(d, LIT_ERROR, entry->path, line, 1, "tangle-line-directives must be true or false, not '%s'", ld);
  const char *cmd = lit_source_meta(entry, "tangle-command", &line);
  p->tangle_command = lit_xstrdup(cmd ? cmd : "lit tangle");
  if (cmd && !S_command_ok(cmd))
    lit_diag(d, LIT_ERROR, entry->path, line, 1,
             "tangle-command must be a command of one line, without a backquote (it is quoted in every generated "
             "file's header)");
  const char *rec = lit_source_meta(entry, "tangle-record", &line);
  p->record_path = lit_xstrdup(rec ? rec : ".lit-record");
  p->record_line = rec ? line : 0;
  p->journal_path = lit_xasprintf("%s-journal", p->record_path);
}

static void S_add_doc(lit_project *p, lit_doc *doc, size_t *cap) {
  p->docs = lit_grow(p->docs, cap, p->ndocs + 1, sizeof(lit_doc *));
  p->docs[p->ndocs++] = doc;
}

static int S_has_doc(const lit_project *p, const char *path) {
  for (size_t i = 0; i < p->ndocs; i++)
    if (strcmp(p->docs[i]->src.path, path) == 0) return 1;
  return 0;
}

/* Whether the entry document links path (a link S_load refused reading
 * is reported there, not again as missing from the contents). */
static int S_entry_links(const lit_project *p, const char *path) {
  const lit_doc *index = p->docs[0];
  int found = 0;
  for (size_t i = 0; i < index->nlinks && !found; i++) {
    const char *url = index->links[i].url, *hash = strchr(url, '#');
    char *to = lit_path_resolve_link(index->src.path, url, hash ? (size_t)(hash - url) : strlen(url));
    found = to && strcmp(to, path) == 0;
    free(to);
  }
  return found;
}

static int S_cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every .md beside a listed document must be listed too: a document left out
 * of the table of contents would silently not be tangled. The entry's own
 * folder counts when a listed document sits in it (its README.md included). */
static void S_check_unlisted(lit_project *p, lit_diags *d) {
  char **dirs = NULL;
  size_t nd = 0;
  for (size_t i = 1; i < p->ndocs; i++) {
    const char *path = p->docs[i]->src.path;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? lit_xstrndup(path, (size_t)(slash - path)) : lit_xstrdup("");
    int seen = 0;
    for (size_t k = 0; k < nd && !seen; k++)
      seen = strcmp(dirs[k], dir) == 0;
    if (seen) {
      free(dir);
      continue;
    }
    dirs = lit_xrealloc(dirs, (nd + 1) * sizeof(char *));
    dirs[nd++] = dir;
  }
  for (size_t k = 0; k < nd; k++) {
    char *full = dirs[k][0] ? lit_path_join(p->root, dirs[k]) : lit_xstrdup(p->root);
    DIR *dh = opendir(full);
    free(full);
    if (!dh) continue;
    char **names = NULL;
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(dh))) {
      size_t l = strlen(e->d_name);
      if (l > 3 && strcmp(e->d_name + l - 3, ".md") == 0) {
        names = lit_xrealloc(names, (nn + 1) * sizeof(char *));
        names[nn++] = dirs[k][0] ? lit_xasprintf("%s/%s", dirs[k], e->d_name) : lit_xstrdup(e->d_name);
      }
    }
    closedir(dh);
    if (nn > 1) qsort(names, nn, sizeof(char *), S_cmp_str); /* qsort wants a non-null array even for 0 */
    for (size_t i = 0; i < nn; i++) {
      if (!S_has_doc(p, names[i]) && !(lit_path_check_name(names[i]) && S_entry_links(p, names[i])))
        lit_diag(d, LIT_ERROR, names[i], 0, 0,
                 "this document is not in %s's table of contents, so nothing in it would be tangled or woven; link "
                 "it there",
                 p->docs[0]->src.path);
      free(names[i]);
    }
    free(names);
    free(dirs[k]);
  }
  free(dirs);
}

/* The record is written like an output, so it is held to the same rules:
 * relative, inside the project, no symbolic link leading out, no folder,
 * and not one of the documents (lit would overwrite it). */
static void S_check_record(lit_project *p, lit_diags *d) {
  const char *entry = p->docs[0]->src.path;
  const char *why =
      p->own->in_memory ? lit_path_check_plain(p->record_path) : lit_path_check_project(p->root, p->record_path);
  const char *base = strrchr(p->record_path, '/') ? strrchr(p->record_path, '/') + 1 : p->record_path;
  if (!why && (strncmp(base, ".lit-tmp-", 9) == 0 || strncmp(base, ".lit-old-", 9) == 0))
    why = "names that start with .lit-tmp- or .lit-old- are lit's temporaries";
  /* git's files are never lit's, as spelled or through a link */
  if (!why)
    why = p->own->in_memory ? (lit_path_names_git(p->record_path) ? lit_path_git_why : NULL)
                            : lit_path_check_git(p->root, p->record_path);
  if (why && p->record_line)
    lit_diag(d, LIT_ERROR, entry, p->record_line, 1,
             "tangle-record '%s' cannot be written: %s (the record must be a file inside the project)", p->record_path,
             why);
  else if (why)
    lit_diag(d, LIT_ERROR, p->record_path, 0, 0, "cannot keep the record of generated files here: %s", why);
  if (why) return;
  /* A document under any spelling (sub/a.md, with sub a link to the
   * project's own folder): compared as the outputs are. */
  char **docs = lit_xmalloc((p->ndocs + 1) * sizeof(char *));
  int doc = 0;
  for (size_t i = 0; i < p->ndocs; i++) {
    docs[i] = p->docs[i]->src.path;
    doc |= strcmp(docs[i], p->record_path) == 0 || strcmp(docs[i], p->journal_path) == 0;
  }
  if (!doc && !p->own->in_memory)
    doc = lit_path_same_as_any(p->root, p->record_path, docs, p->ndocs) ||
          lit_path_same_as_any(p->root, p->journal_path, docs, p->ndocs);
  free(docs);
  if (doc)
    lit_diag(d, LIT_ERROR, entry, p->record_line, 1,
             "tangle-record '%s' is a document of this project: lit would overwrite it with its record; pick "
             "another path",
             p->record_path);
}

/* 1 and *k if the first len bytes of path are a file some block writes. */
static int S_written(const lit_project *p, const char *path, size_t len, size_t *k) {
  return lit_index_get(&p->own->file_index, path, len, k) && strlen(p->files[*k].path) == len;
}

/* A block may not write a document of the project, not even with --force:
 * the next run would read the output as its source, and delete it once
 * the block is gone. */
static void S_check_files_not_docs(lit_project *p, lit_diags *d) {
  for (size_t i = 0; i < p->ndocs; i++) {
    size_t k;
    const char *doc = p->docs[i]->src.path;
    if (!S_written(p, doc, strlen(doc), &k)) continue;
    const lit_block *b = p->files[k].block;
    lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
             "cannot write '%s': it is a document of this project, which lit reads and never writes (--force does "
             "not change this)",
             doc);
  }
}

/* What spelling cannot show: a file= path reached through a symbolic link
 * inside the project may be a file another block writes (kernels/add.c
 * and k2/add.c, k2 a link to kernels), a document (kernels/sub2/add.md,
 * sub2 a link to sub), or lie in a .git folder. Each file's and each
 * document's real path is read once (lit_path_real); the same real path
 * is the same file. Links in the output folders' own paths are read when
 * the front matter is (S_check_root_aliases). */
static void S_check_real_paths(lit_project *p, lit_diags *d) {
  char proj_real[PATH_MAX];
  if (p->own->in_memory || !p->nfiles || !realpath(p->root, proj_real)) return;
  char **real = lit_xcalloc(p->nfiles, sizeof *real);
  lit_index seen = LIT_INDEX_INIT;
  for (size_t i = 0; i < p->nfiles; i++) {
    const lit_block *b = p->files[i].block;
    real[i] = lit_path_real(p->root, p->files[i].path);
    if (!real[i]) continue;
    size_t k;
    if (lit_path_real_names_git(proj_real, real[i])) {
      lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
               "cannot write '%s': %s, reached through a symbolic link", p->files[i].path, lit_path_git_why);
    } else if (lit_index_get(&seen, real[i], strlen(real[i]), &k)) {
      const lit_block *o = p->files[k].block;
      lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
               "'%s' is already written by another block, as '%s': a symbolic link makes the two one file",
               p->files[i].path, p->files[k].path);
      lit_diag(d, LIT_NOTE, o->doc->src.path, o->line, o->file_col,
               "first claimed here; a file has one root block (append with a #name instead)");
    } else {
      lit_index_put(&seen, real[i], i);
    }
  }
  for (size_t i = 0; i < p->ndocs; i++) {
    const char *doc = p->docs[i]->src.path;
    char *r = lit_path_real(p->root, doc);
    size_t k;
    /* The same spelling is S_check_files_not_docs's. */
    if (r && lit_index_get(&seen, r, strlen(r), &k) && strcmp(p->files[k].path, doc) != 0) {
      const lit_block *b = p->files[k].block;
      lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
               "cannot write '%s': it is the document '%s' (through a symbolic link), which lit reads and never "
               "writes (--force does not change this)",
               p->files[k].path, doc);
    }
    free(r);
  }
  /* The record and its journal too (the same spelling is S_register_block's):
   * a block that wrote either through a link would have its file renamed
   * over by the record, or deleted as the journal once the commit ends,
   * while the record said it was written. */
  const char *own[] = {p->record_path, p->journal_path};
  for (size_t i = 0; i < 2; i++) {
    char *r = lit_path_real(p->root, own[i]);
    size_t k;
    if (r && lit_index_get(&seen, r, strlen(r), &k) && strcmp(p->files[k].path, own[i]) != 0) {
      const lit_block *b = p->files[k].block;
      lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
               "cannot write '%s': it is '%s' (through a symbolic link), where lit keeps %s (tangle-record)",
               p->files[k].path, own[i],
               i ? "the journal of its record of generated files" : "its record of generated files");
    }
    free(r);
  }
  lit_index_free(&seen);
  for (size_t i = 0; i < p->nfiles; i++)
    free(real[i]);
  free(real);
}

/* Spellings that differ only in ASCII letter case are one file on a file
 * system that ignores case (the default on macOS and Windows): a clone
 * there would have the two blocks overwrite each other, and the record
 * would list two files where one exists. So they are refused wherever the
 * project is, for the files the blocks write and against the documents
 * and the record. Only ASCII letters are folded; other folding is the
 * file system's own and not predictable from here. */
static char *S_fold(const char *path) {
  char *f = lit_xstrdup(path);
  for (char *c = f; *c; c++)
    if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
  return f;
}

static void S_check_case_folding(lit_project *p, lit_diags *d) {
  lit_index seen = LIT_INDEX_INIT;
  char **folded = lit_xcalloc(p->nfiles, sizeof *folded);
  for (size_t i = 0; i < p->nfiles; i++) {
    const lit_block *b = p->files[i].block;
    folded[i] = S_fold(p->files[i].path);
    size_t k;
    if (lit_index_get(&seen, folded[i], strlen(folded[i]), &k)) {
      const lit_block *o = p->files[k].block;
      lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
               "cannot write '%s': it differs from '%s', which another block writes, only in letter case; where "
               "the file system ignores case (macOS, Windows) they are one file; rename one",
               p->files[i].path, p->files[k].path);
      lit_diag(d, LIT_NOTE, o->doc->src.path, o->line, o->file_col, "'%s' is written here", p->files[k].path);
    } else {
      lit_index_put(&seen, folded[i], i);
    }
  }
  /* A file whose folded path is another's folder, folded ("out/sub" and
   * "out/Sub/x.c"): the exact spelling is S_check_file_folders's. */
  for (size_t i = 0; i < p->nfiles; i++)
    for (const char *s = strchr(folded[i], '/'); s; s = strchr(s + 1, '/')) {
      size_t len = (size_t)(s - folded[i]), k;
      if (!lit_index_get(&seen, folded[i], len, &k) || S_written(p, p->files[i].path, len, &k)) continue;
      const lit_block *b = p->files[i].block, *o = p->files[k].block;
      lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
               "cannot write '%s': its folder '%.*s' differs from '%s', a file another block writes, only in "
               "letter case; where the file system ignores case (macOS, Windows) it cannot be both",
               p->files[i].path, (int)len, p->files[i].path, p->files[k].path);
      lit_diag(d, LIT_NOTE, o->doc->src.path, o->line, o->file_col, "'%s' is written here", p->files[k].path);
      break;
    }
  const char *others[] = {p->record_path, p->journal_path};
  size_t nothers = sizeof others / sizeof *others;
  for (size_t i = 0; i < p->ndocs + nothers; i++) {
    const char *path = i < p->ndocs ? p->docs[i]->src.path : others[i - p->ndocs];
    const char *what = i < p->ndocs    ? "the document"
                       : i == p->ndocs ? "the record of generated files"
                                       : "the record's journal";
    char *f = S_fold(path);
    size_t k;
    /* The same spelling is S_check_files_not_docs's and S_register_block's. */
    if (lit_index_get(&seen, f, strlen(f), &k) && strcmp(p->files[k].path, path) != 0) {
      const lit_block *b = p->files[k].block;
      lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
               "cannot write '%s': it differs from %s '%s' only in letter case; where the file system ignores case "
               "(macOS, Windows) lit would overwrite it; rename the file",
               p->files[k].path, what, path);
    }
    free(f);
  }
  lit_index_free(&seen);
  for (size_t i = 0; i < p->nfiles; i++)
    free(folded[i]);
  free(folded);
}

/* A path cannot be a file and a folder at once: "kernels/d.c" written by
 * one block and "kernels/d.c/e.c" by another would fail at the rename, after
 * the other files were staged. Reported here, with both blocks, instead. */
static void S_check_file_folders(lit_project *p, lit_diags *d) {
  for (size_t i = 0; i < p->nfiles; i++) {
    const lit_file *f = &p->files[i];
    const lit_block *b = f->block;
    for (const char *s = strchr(f->path, '/'); s; s = strchr(s + 1, '/')) {
      size_t len = (size_t)(s - f->path), k;
      if (S_written(p, f->path, len, &k)) {
        const lit_block *o = p->files[k].block;
        lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
                 "cannot write '%s': '%s' is a file another block writes, so it cannot also be a folder", f->path,
                 p->files[k].path);
        lit_diag(d, LIT_NOTE, o->doc->src.path, o->line, o->file_col, "'%s' is written here", p->files[k].path);
        break;
      }
      if (strlen(p->record_path) == len && strncmp(p->record_path, f->path, len) == 0) {
        lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
                 "cannot write '%s': '%s' is the record of generated files (tangle-record), so it cannot be a folder",
                 f->path, p->record_path);
        break;
      }
    }
  }
  for (const char *s = strchr(p->record_path, '/'); s; s = strchr(s + 1, '/')) {
    size_t k;
    if (S_written(p, p->record_path, (size_t)(s - p->record_path), &k)) {
      const lit_block *o = p->files[k].block;
      lit_diag(d, LIT_ERROR, p->docs[0]->src.path, p->record_line, 1,
               "tangle-record '%s' cannot be written: '%s' is a file a block writes, so it cannot be a folder",
               p->record_path, p->files[k].path);
      lit_diag(d, LIT_NOTE, o->doc->src.path, o->line, o->file_col, "'%s' is written here", p->files[k].path);
      break;
    }
  }
}

typedef struct {
  const char *const *names;
  const char *const *texts;
  const size_t *lens;
  size_t n;
  const lit_project *reuse;         /* documents whose text is unchanged are cloned from it, not parsed */
  const lit_doc_edit *const *edits; /* edits[i][0..nedits[i]): how reuse's document i was edited, or NULL */
  const size_t *nedits;
} S_memory;

/* The index of reuse's document of this path, or -1 (no such document, or
 * nothing to reuse). */
static long S_reuse_index(const S_memory *mem, const char *path) {
  for (size_t i = 0; mem && mem->reuse && i < mem->reuse->ndocs; i++)
    if (strcmp(mem->reuse->docs[i]->src.path, path) == 0) return (long)i;
  return -1;
}

/* src's document: reuse's of the same path, cloned when its text is the
 * same or when its edits allow (lit_doc_clone_edited), else parsed; NULL
 * when it has to be parsed and `parse` is 0 (the caller parses it later). */
static lit_doc *S_reused_or_parsed(const S_memory *mem, lit_source *src, size_t order, int parse, lit_diags *d) {
  const long i = S_reuse_index(mem, src->path);
  if (i >= 0) {
    const lit_doc *o = mem->reuse->docs[i];
    if (o->src.len == src->len && (o->src.text == src->text || memcmp(o->src.text, src->text, src->len) == 0))
      return lit_doc_clone_onto(o, src, order); /* the same text (borrowed: the same bytes) */
    lit_doc *doc =
        mem->edits && mem->nedits[i] ? lit_doc_clone_edited(o, src, order, mem->edits[i], mem->nedits[i], d) : NULL;
    if (doc) return doc;
  }
  return parse ? lit_doc_parse(src, order, d) : NULL;
}

/* A document that cannot be read is reported where it was asked for: at
 * its link in the table of contents (asked, in document toc), or, for the
 * entry document (asked NULL), at the document itself. */
static void S_unreadable(const char *path, const char *toc, const lit_link *asked, const char *why, lit_diags *d) {
  if (asked)
    lit_diag(d, LIT_ERROR, toc, asked->line, asked->col, "cannot read %s, the document this link names: %s", path, why);
  else
    lit_diag(d, LIT_ERROR, path, 0, 0, "cannot read this document: %s", why);
}

/* A document whose name lit cannot write where it writes names (the
 * generated files' header comments, #line directives, dump, map, stats):
 * reported at the link that names it, or at the entry document itself. */
static void S_misnamed(const char *path, const char *toc, const lit_link *asked, const char *what, lit_diags *d) {
  static const char why[] = "lit writes a document's name into the header comment of every file it generates and "
                            "into #line directives, where a newline would end the comment and the rest of the name "
                            "would be code";
  if (asked)
    lit_diag(d, LIT_ERROR, toc, asked->line, asked->col,
             "the document this link names, %s, has %s in its name: %s; rename the document and its link", path, what,
             why);
  else
    lit_diag(d, LIT_ERROR, path, 0, 0, "this document has %s in its name: %s; rename it", what, why);
}

static int S_load_source(lit_source *src, const char *root, const char *path, const S_memory *mem, const char *toc,
                         const lit_link *asked, lit_diags *d) {
  memset(src, 0, sizeof *src);
  const char *why = "no such file";
  if (mem) {
    for (size_t i = 0; i < mem->n; i++)
      if (strcmp(mem->names[i], path) == 0) {
        /* Bytes that are a reused document's own loaded text (lit stitch
         * lends them) need no second reading: borrow its source. */
        const long k = S_reuse_index(mem, path);
        const lit_source *o = k >= 0 ? &mem->reuse->docs[k]->src : NULL;
        if (o && o->text == mem->texts[i] && o->len == mem->lens[i])
          lit_source_borrow(src, o);
        else if (o && mem->edits && mem->nedits[k]) /* rewritten by the stitch: only what changed is read again */
          lit_source_from_edited(src, path, mem->texts[i], mem->lens[i], o, d);
        else
          lit_source_from_bytes(src, path, mem->texts[i], mem->lens[i], d);
        return 0;
      }
  } else {
    why = lit_path_check_read(root, path);
    /* the text's own messages count only for a document whose name passes */
    lit_diags *text = lit_diags_new();
    int err = why ? 0 : lit_source_read(src, root, path, text);
    const char *bad = why || err ? NULL : lit_path_check_name(path);
    if (!bad) lit_diags_append(d, text);
    lit_diags_free(text);
    if (!why && !err && !bad) return 0;
    if (bad) {
      S_misnamed(path, toc, asked, bad, d);
      why = NULL;
    } else if (!why) {
      why = lit_strerror(err);
    }
  }
  if (why) S_unreadable(path, toc, asked, why, d);
  lit_source_free(src);
  src->path = lit_xstrdup(path);
  return -1;
}

/* Whether p's documents are clones of those of mem's reuse, in its order,
 * under the same output folders and record, and reuse registered its
 * blocks without an error. p's blocks then register exactly as reuse's did:
 * a clone keeps its original's name, file and flags (the same strings), and
 * a load from memory checks no more (no disk; its root, ".", is the
 * shortest). The clones' edits are inside code, where registering does
 * not look. */
static int S_same_blocks(const lit_project *p, const S_memory *mem) {
  const lit_project *o = mem ? mem->reuse : NULL;
  if (!o || !o->own->blocks_clean || o->ndocs != p->ndocs || o->nroots != p->nroots ||
      strcmp(o->record_path, p->record_path) != 0 || strcmp(o->journal_path, p->journal_path) != 0)
    return 0;
  for (size_t i = 0; i < p->nroots; i++)
    if (strcmp(o->tangle_roots[i], p->tangle_roots[i]) != 0) return 0;
  for (size_t k = 0; k < p->ndocs; k++) {
    const lit_doc *a = p->docs[k], *b = o->docs[k];
    if (!a->clone_blocks || a->nblocks != b->nblocks || a->order != k || b->order != k ||
        strcmp(a->src.path, b->src.path) != 0)
      return 0;
    for (size_t i = 0; i < a->nblocks; i++) {
      const lit_block *x = a->blocks[i], *y = b->blocks[i];
      if (x->name != y->name || x->file != y->file || x->flags != y->flags || y->index != i) return 0;
    }
  }
  return 1;
}

/* p's block in the place of block b of the project p was cloned from. */
static lit_block *S_twin(const lit_project *p, const lit_block *b) { return p->docs[b->doc->order]->blocks[b->index]; }

/* What registering p's blocks one by one would make, copied from o (S_same_blocks
 * holds): o's chunks, ids and files, each block replaced by its clone; the
 * chunks in one array, their names and o's index of them borrowed (o
 * outlives p, as its clones need). */
static void S_register_like(lit_project *p, const lit_project *o) {
  size_t n = o->nchunks, na = o->own->nanon, ndefs = 0;
  for (size_t i = 0; i < n + na; i++)
    ndefs += (i < n ? o->chunks[i] : o->own->anon[i - n])->ndefs;
  lit_chunk *pool = lit_xcalloc(n + na + 1, sizeof *pool);
  lit_block **defs = lit_xmalloc((ndefs + 1) * sizeof *defs);
  p->chunks = lit_xmalloc((n + 1) * sizeof *p->chunks);
  p->nchunks = n;
  p->own->anon = lit_xmalloc((na + 1) * sizeof *p->own->anon);
  p->own->nanon = na;
  for (size_t i = 0, at = 0; i < n + na; i++) {
    const lit_chunk *oc = i < n ? o->chunks[i] : o->own->anon[i - n];
    lit_chunk *c = &pool[i];
    c->name = oc->name;
    c->name_len = oc->name_len;
    c->is_data = oc->is_data;
    c->id = i; /* o's: the named chunks in order, then the anonymous roots */
    c->defs = defs + at;
    c->ndefs = c->defs_cap = oc->ndefs;
    at += oc->ndefs;
    for (size_t k = 0; k < oc->ndefs; k++) {
      lit_block *b = S_twin(p, oc->defs[k]);
      b->chunk = c;
      b->def_index = k;
      c->defs[k] = b;
    }
    if (i < n)
      p->chunks[i] = c;
    else
      p->own->anon[i - n] = c;
  }
  p->files = lit_xmalloc((o->nfiles + 1) * sizeof *p->files);
  p->nfiles = o->nfiles;
  for (size_t i = 0; i < o->nfiles; i++) {
    const lit_file *of = &o->files[i];
    p->files[i] = (lit_file){lit_xstrdup(of->path), S_twin(p, of->block), &pool[of->root->id]};
    lit_index_put(&p->own->file_index, p->files[i].path, i);
  }
  p->own->pool = pool;
  p->own->defs = defs;
  p->own->names = o->own->names;
}

/* One file read as two documents: a link naming, through a symbolic
 * link inside the project (refs -> references/sub), a document the
 * reading order already has under another spelling. Every chunk in it
 * would be defined twice, and a stitch that edits both copies renames two
 * rewritten versions over the one file, the second dropping the first's
 * edits while the record calls the generated file stitched (the next
 * tangle then overwrites the hand edit). The earlier spelling, from the
 * real paths read so far (reals[i] of names[i], NULL where unknown), or
 * NULL. */
static const char *S_alias(char *const *reals, const char *const *names, size_t n, const char *real) {
  for (size_t i = 0; real && i < n; i++)
    if (reals[i] && strcmp(reals[i], real) == 0) return names[i];
  return NULL;
}

static lit_project *S_load(const char *root, const char *entry, const S_memory *mem, lit_diags *d) {
  lit_source src;
  if (S_load_source(&src, root, entry, mem, NULL, NULL, d) != 0) {
    lit_source_free(&src);
    return NULL;
  }
  lit_project *p = lit_xcalloc(1, sizeof *p);
  p->root = lit_xstrdup(root && root[0] ? root : ".");
  p->own = lit_xcalloc(1, sizeof *p->own);
  p->own->in_memory = mem != NULL;
  p->own->names = &p->own->chunk_index;
  size_t doc_cap = 0, chunk_cap = 0, file_cap = 0;
  S_read_config(p, &src, d);
  S_add_doc(p, S_reused_or_parsed(mem, &src, 0, 1, d), &doc_cap);
  lit_doc *index = p->docs[0];
  /* Read every linked document first, then parse them in parallel. */
  lit_source *srcs = NULL;
  size_t nsrcs = 0, srcs_cap = 0;
  /* Each document's real path, the entry's first (none from memory: no
   * disk, and the documents were loaded from it without this error). */
  char **reals = lit_xcalloc(index->nlinks + 1, sizeof *reals);
  /* the sources' own path strings, which stay put while srcs grows */
  const char **names = lit_xcalloc(index->nlinks + 1, sizeof *names);
  size_t nreals = 0;
  if (!mem) {
    reals[0] = lit_path_real(p->root, index->src.path);
    names[nreals++] = index->src.path;
  }
  for (size_t i = 0; i < index->nlinks; i++) {
    lit_link *l = &index->links[i];
    const char *hash = strchr(l->url, '#');
    char *path = lit_path_resolve_link(entry, l->url, hash ? (size_t)(hash - l->url) : strlen(l->url));
    if (path && !path[0]) { /* "x.md/..": names no document */
      free(path);
      path = NULL;
    }
    if (!path) {
      lit_diag(d, LIT_ERROR, index->src.path, l->line, l->col, "link '%s' leads outside the project", l->url);
      continue;
    }
    int dup = strcmp(path, index->src.path) == 0;
    for (size_t k = 0; k < nsrcs && !dup; k++)
      dup = strcmp(srcs[k].path, path) == 0;
    if (dup) {
      free(path);
      continue;
    }
    char *real = mem ? NULL : lit_path_real(p->root, path);
    const char *alias = S_alias(reals, names, nreals, real);
    if (alias) {
      lit_diag(d, LIT_ERROR, index->src.path, l->line, l->col,
               "link '%s' names the document '%s' again, under another name (a symbolic link makes the two one "
               "file), and lit would read it twice: link '%s' instead",
               l->url, alias, alias);
      free(real);
      free(path);
      continue;
    }
    srcs = lit_grow(srcs, &srcs_cap, nsrcs + 1, sizeof(lit_source));
    if (S_load_source(&srcs[nsrcs], p->root, path, mem, index->src.path, l, d) == 0) {
      if (real) {
        reals[nreals] = real;
        names[nreals++] = srcs[nsrcs].path;
        real = NULL;
      }
      nsrcs++;
    } else {
      lit_source_free(&srcs[nsrcs]);
    }
    free(real);
    free(path);
  }
  for (size_t i = 0; i < nreals; i++)
    free(reals[i]);
  free(reals);
  free(names);
  /* Documents unchanged from mem->reuse are cloned; the rest are parsed,
   * together, then put back in reading order. */
  lit_doc **parsed = lit_xcalloc(nsrcs + 1, sizeof(lit_doc *));
  size_t *slot = lit_xcalloc(nsrcs + 1, sizeof(size_t));
  size_t nparse = 0;
  for (size_t i = 0; i < nsrcs; i++) {
    parsed[i] = S_reused_or_parsed(mem, &srcs[i], i + 1, 0, d);
    if (!parsed[i]) {
      slot[nparse] = i;
      if (nparse != i) srcs[nparse] = srcs[i];
      nparse++;
    }
  }
  lit_doc **fresh = lit_xcalloc(nparse + 1, sizeof(lit_doc *));
  lit_doc_parse_many(srcs, nparse, 1, fresh, d);
  for (size_t k = 0; k < nparse; k++) {
    fresh[k]->order = slot[k] + 1;
    parsed[slot[k]] = fresh[k];
  }
  for (size_t i = 0; i < nsrcs; i++)
    S_add_doc(p, parsed[i], &doc_cap);
  free(fresh);
  free(slot);
  free(parsed);
  free(srcs);
  if (!mem) S_check_unlisted(p, d);
  const size_t errors = lit_diags_count(d, LIT_ERROR);
  const lit_project *like = S_same_blocks(p, mem) ? mem->reuse : NULL;
  if (like) { /* lit stitch's check: the documents differ only inside code */
    S_register_like(p, like);
  } else {
    for (size_t di = 0; di < p->ndocs; di++)
      for (size_t bi = 0; bi < p->docs[di]->nblocks; bi++) {
        lit_block *b = p->docs[di]->blocks[bi];
        if (b->flags & (LIT_BLOCK_TANGLED | LIT_BLOCK_DATA)) S_register_block(p, b, d, &chunk_cap, &file_cap);
      }
    /* Dense ids: the named chunks in order, then the anonymous roots. */
    for (size_t i = 0; i < p->nchunks; i++)
      p->chunks[i]->id = i;
    for (size_t i = 0; i < p->own->nanon; i++)
      p->own->anon[i]->id = p->nchunks + i;
  }
  p->own->blocks_clean = lit_diags_count(d, LIT_ERROR) == errors;
  S_check_record(p, d);
  S_check_file_folders(p, d);
  S_check_files_not_docs(p, d);
  S_check_real_paths(p, d);
  S_check_case_folding(p, d);
  size_t lookups = S_resolve(p, like, d);
  /* References that are some of an acyclic project's, chunk for chunk,
   * make no cycle: only a new one can. */
  p->own->acyclic = like && like->own->acyclic && lookups == 0 ? 1 : S_check_cycles(p, d) == 0;
  if (p->own->acyclic) S_check_sizes(p, d); /* a cycle has no size */
  return p;
}

lit_project *lit_project_load(const char *root, const char *entry, lit_diags *d) {
  return S_load(root, entry, NULL, d);
}

lit_project *lit_project_load_memory(const char *const *names, const char *const *texts, const size_t *lens, size_t n,
                                     lit_diags *d) {
  S_memory mem = {names, texts, lens, n, NULL, NULL, NULL};
  if (n == 0) return NULL;
  return S_load(".", names[0], &mem, d);
}

lit_project *lit_project_load_memory_reusing(const char *const *names, const char *const *texts, const size_t *lens,
                                             size_t n, const lit_project *reuse, const lit_doc_edit *const *edits,
                                             const size_t *nedits, lit_diags *d) {
  S_memory mem = {names, texts, lens, n, reuse, edits, nedits};
  if (n == 0) return NULL;
  return S_load(".", names[0], &mem, d);
}

static void S_chunk_free(lit_chunk *c) { /* its uses are in p->own->uses */
  free(c->name);
  free(c->defs);
  free(c);
}

void lit_project_free(lit_project *p) {
  if (!p) return;
  for (size_t i = 0; i < p->ndocs; i++)
    lit_doc_free(p->docs[i]);
  free(p->docs);
  if (p->own->pool) { /* S_register_like's */
    free(p->own->pool);
    free(p->own->defs);
  } else {
    for (size_t i = 0; i < p->nchunks; i++)
      S_chunk_free(p->chunks[i]);
    for (size_t i = 0; i < p->own->nanon; i++)
      S_chunk_free(p->own->anon[i]);
  }
  free(p->chunks);
  free(p->own->anon);
  free(p->own->uses);
  for (size_t i = 0; i < p->nfiles; i++)
    free(p->files[i].path);
  free(p->files);
  lit_index_free(&p->own->file_index);
  for (size_t i = 0; i < p->nroots; i++)
    free(p->tangle_roots[i]);
  free(p->tangle_roots);
  free(p->record_path);
  free(p->tangle_command);
  free(p->journal_path);
  lit_index_free(&p->own->chunk_index);
  free(p->own);
  free(p->root);
  free(p);
}

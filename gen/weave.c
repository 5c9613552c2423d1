#define _POSIX_C_SOURCE 200809L
#include "weave.h"

#include <cmark-gfm-core-extensions.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parallel.h"
#include "paths.h"
#include "tree.h"

/* The lookups only this file makes. */
struct lit_weave_tables {
  lit_index by_path;  /* document path -> position in docs */
  lit_index files;    /* file path -> position in p->files */
  lit_index *anchors; /* per page: heading anchor -> position in its heads */
};

/* ---- names ---- */

void lit_weave_slug(const char *text, size_t len, lit_buf *out) {
  size_t start = out->len;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c >= 'A' && c <= 'Z')
      lit_buf_putc(out, (char)(c - 'A' + 'a'));
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
      lit_buf_putc(out, (char)c);
    else if (c == ' ')
      lit_buf_putc(out, '-');
    else if (c == 0xE2 && i + 2 < len && ((unsigned char)text[i + 1] == 0x80 || (unsigned char)text[i + 1] == 0x81))
      i += 2; /* general punctuation (dashes, quotes): dropped, as GitHub does */
    else if (c >= 0x80)
      lit_buf_putc(out, (char)c);
  }
  if (out->len == start) lit_buf_puts(out, "section");
}

void lit_slugger_unique(lit_slugger *s, const lit_index *anchors, lit_buf *slug) {
  size_t base = slug->len, at;
  if (!lit_index_get(&s->index, slug->data, base, &at)) {
    s->items = lit_grow(s->items, &s->cap, s->n + 1, sizeof *s->items);
    s->items[s->n] = (lit_slug_next){lit_xstrndup(slug->data, base), 0};
    lit_index_put(&s->index, s->items[s->n].slug, s->n);
    at = s->n++;
  }
  for (size_t k = s->items[at].next;; k++) {
    lit_buf_truncate(slug, base);
    if (k) lit_buf_printf(slug, "-%zu", k);
    s->probes++;
    if (!lit_index_get(anchors, slug->data, slug->len, NULL)) {
      s->items[at].next = k + 1; /* the caller takes this one */
      return;
    }
  }
}

void lit_slugger_free(lit_slugger *s) {
  for (size_t i = 0; i < s->n; i++)
    free(s->items[i].slug);
  free(s->items);
  lit_index_free(&s->index);
  memset(s, 0, sizeof *s);
}

long lit_weave_marker(const char *info, size_t *lang_len) {
  const char *m = info ? strstr(info, " lit-block=") : NULL;
  if (!m) return -1;
  if (lang_len) *lang_len = (size_t)(m - info);
  return strtol(m + 11, NULL, 10);
}

char *lit_weave_block_id(const lit_block *b) {
  if (b->chunk && b->chunk->name) return lit_xasprintf("chunk-%s-%zu", b->chunk->name, b->def_index + 1);
  if (b->file) return lit_xasprintf("file-%s", b->file);
  return lit_xasprintf("block-%zu", b->index);
}

char *lit_weave_relative(const char *from, const char *to) {
  /* skip the folders both share, then climb out of the rest of from's */
  size_t common = 0;
  for (size_t i = 0; from[i] && from[i] == to[i]; i++)
    if (from[i] == '/') common = i + 1;
  lit_buf b = LIT_BUF_INIT;
  for (const char *s = from + common; *s; s++)
    if (*s == '/') lit_buf_puts(&b, "../");
  lit_path_escape(&b, to + common, strlen(to + common));
  return lit_buf_detach(&b);
}

/* ---- building ---- */

static cmark_parser *S_parser(cmark_llist *exts) {
  cmark_parser *ps = cmark_parser_new(CMARK_OPT_DEFAULT | CMARK_OPT_FOOTNOTES);
  for (cmark_llist *l = exts; l; l = l->next)
    cmark_parser_attach_syntax_extension(ps, l->data);
  return ps;
}

static void S_text_of(cmark_node *n, lit_buf *out) {
  cmark_iter *it = cmark_iter_new(n);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    if (ev != CMARK_EVENT_ENTER) continue;
    cmark_node *c = cmark_iter_get_node(it);
    cmark_node_type t = cmark_node_get_type(c);
    if (t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE)
      lit_buf_puts(out, cmark_node_get_literal(c));
    else if (t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK)
      lit_buf_putc(out, ' ');
  }
  cmark_iter_free(it);
}

/* Records headings, anchors and each block's section from the parse. */
static void S_index(lit_wdoc *pg, lit_index *anchors, cmark_node *root) {
  pg->section = lit_xcalloc(pg->doc->nblocks + 1, sizeof(lit_heading *));
  size_t cap = 0;
  long current = -1; /* index into heads: they move while the array grows */
  long *at = lit_xcalloc(pg->doc->nblocks + 1, sizeof(long));
  for (size_t i = 0; i < pg->doc->nblocks; i++)
    at[i] = -1;
  lit_slugger slugger = LIT_SLUGGER_INIT;
  cmark_iter *it = cmark_iter_new(root);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    if (ev != CMARK_EVENT_ENTER) continue;
    cmark_node *n = cmark_iter_get_node(it);
    cmark_node_type t = cmark_node_get_type(n);
    if (t == CMARK_NODE_HEADING) {
      lit_buf text = LIT_BUF_INIT, slug = LIT_BUF_INIT;
      S_text_of(n, &text);
      lit_weave_slug(text.data ? text.data : "", text.len, &slug);
      lit_slugger_unique(&slugger, anchors, &slug);
      pg->heads = lit_grow(pg->heads, &cap, pg->nheads + 1, sizeof(lit_heading));
      lit_heading *h = &pg->heads[pg->nheads++];
      h->slug = lit_buf_detach(&slug);
      lit_index_put(anchors, h->slug, pg->nheads - 1);
      h->text = lit_buf_detach(&text);
      h->level = cmark_node_get_heading_level(n);
      current = (long)pg->nheads - 1;
      if (!pg->title && h->level == 1) pg->title = lit_xstrdup(h->text);
    } else if (t == CMARK_NODE_CODE_BLOCK) {
      long k = lit_weave_marker(cmark_node_get_fence_info(n), NULL);
      if (k >= 0 && (size_t)k < pg->doc->nblocks) at[k] = current;
    }
  }
  cmark_iter_free(it);
  lit_slugger_free(&slugger);
  for (size_t i = 0; i < pg->doc->nblocks; i++)
    pg->section[i] = at[i] >= 0 ? &pg->heads[at[i]] : NULL;
  free(at);
  if (!pg->title) pg->title = lit_xstrdup(pg->nheads ? pg->heads[0].text : pg->doc->src.path);
}

/* Parses one woven page and indexes its anchors (runs on a worker thread). */
static void S_parse_page(void *ctx, size_t i) {
  lit_weave *w = ctx;
  lit_wdoc *pg = &w->docs[i];
  cmark_parser *ps = S_parser(w->exts);
  cmark_parser_feed(ps, pg->md, pg->len);
  cmark_node *root = cmark_parser_finish(ps);
  cmark_parser_free(ps);
  S_index(pg, &w->own->anchors[i], root);
  if (w->kind == LIT_WEAVE_BOOK)
    pg->tree = root;
  else
    cmark_node_free(root);
}

static char *S_out_path(const lit_doc *doc, lit_weave_kind kind) {
  const char *path = doc->src.path;
  if (doc->order == 0) return lit_xstrdup(kind == LIT_WEAVE_BOOK ? "index.html" : "SKILL.md");
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t n = strlen(base);
  if (n > 3 && strcmp(base + n - 3, ".md") == 0) n -= 3;
  return kind == LIT_WEAVE_BOOK ? lit_xasprintf("%.*s.html", (int)n, base)
                                : lit_xasprintf("references/%.*s.md", (int)n, base);
}

/* The link of the entry document's table of contents that names document
 * `path`, or NULL (the entry document itself). */
static const lit_link *S_toc_link(const lit_project *p, const char *path) {
  const lit_doc *toc = p->docs[0];
  for (size_t i = 0; i < toc->nlinks; i++) {
    const char *url = toc->links[i].url, *hash = strchr(url, '#');
    char *target = lit_path_resolve_link(toc->src.path, url, hash ? (size_t)(hash - url) : strlen(url));
    int same = target && strcmp(target, path) == 0;
    free(target);
    if (same) return &toc->links[i];
  }
  return NULL;
}

/* 0 if page i may be woven to its out_path: no page before it (in outs)
 * and nothing the back end writes (reserved) has that name. Else -1, with
 * an error at the link that lists the document, the line to edit when it
 * is renamed. */
static int S_check_out_path(const lit_weave *w, size_t i, const lit_index *outs, const char *const *reserved,
                            lit_diags *d) {
  const lit_wdoc *pg = &w->docs[i];
  size_t other;
  int taken = lit_index_get(outs, pg->out_path, strlen(pg->out_path), &other), kept = 0;
  for (size_t k = 0; reserved && reserved[k] && !kept; k++)
    kept = strcmp(pg->out_path, reserved[k]) == 0;
  if (!taken && !kept) return 0;
  const lit_link *l = S_toc_link(w->p, pg->doc->src.path);
  const char *at = l ? w->p->docs[0]->src.path : pg->doc->src.path;
  int line = l ? l->line : 0, col = l ? l->col : 0;
  if (kept)
    lit_diag(d, LIT_ERROR, at, line, col, "%s would be woven to %s, which the %s keeps for itself; rename the document",
             pg->doc->src.path, pg->out_path, w->kind == LIT_WEAVE_BOOK ? "book" : "skill");
  else
    lit_diag(d, LIT_ERROR, at, line, col, "%s and %s would both be woven to %s; rename one", pg->doc->src.path,
             w->docs[other].doc->src.path, pg->out_path);
  return -1;
}

lit_weave *lit_weave_new(const lit_project *p, lit_weave_kind kind, const lit_weave_opts *o, lit_diags *d) {
  lit_weave *w = lit_xcalloc(1, sizeof *w);
  w->p = p;
  w->kind = kind;
  w->ndocs = p->ndocs;
  w->docs = lit_xcalloc(p->ndocs + 1, sizeof(lit_wdoc));
  w->shipped = o ? o->shipped : NULL;
  w->own = lit_xcalloc(1, sizeof *w->own);
  w->own->anchors = lit_xcalloc(p->ndocs + 1, sizeof(lit_index));
  lit_index outs = LIT_INDEX_INIT; /* out_path -> page */
  for (size_t i = 0; i < p->nfiles; i++)
    lit_index_put(&w->own->files, p->files[i].path, i);
  lit_render *r = lit_render_new(p, kind == LIT_WEAVE_BOOK ? "book" : "skill", o ? o->limits : NULL, d);
  cmark_gfm_core_extensions_ensure_registered();
  /* GitHub's Markdown: tables, ~~strikethrough~~, bare links, - [x] task lists. */
  static const char *const exts[] = {"table", "strikethrough", "autolink", "tasklist", NULL};
  for (size_t i = 0; exts[i]; i++) {
    cmark_syntax_extension *e = cmark_find_syntax_extension(exts[i]);
    if (e) w->exts = cmark_llist_append(cmark_get_default_mem_allocator(), w->exts, e);
  }
  int status = lit_diags_count(d, LIT_ERROR) ? -1 : 0;
  for (size_t i = 0; i < p->ndocs; i++) {
    lit_wdoc *pg = &w->docs[i];
    pg->doc = p->docs[i];
    pg->out_path = S_out_path(pg->doc, kind);
    if (S_check_out_path(w, i, &outs, o ? o->reserved : NULL, d)) status = -1;
    lit_index_put(&outs, pg->out_path, i);
    lit_index_put(&w->own->by_path, pg->doc->src.path, i);
    lit_buf md = LIT_BUF_INIT;
    if (lit_render_doc(r, pg->doc, kind == LIT_WEAVE_SKILL, &md, &pg->map, d)) status = -1;
    pg->len = md.len;
    pg->md = lit_buf_detach(&md);
  }
  lit_parallel_for(w->ndocs, S_parse_page, w);
  lit_index_free(&outs);
  lit_render_free(r);
  if (status) {
    lit_weave_free(w);
    return NULL;
  }
  return w;
}

void lit_weave_free(lit_weave *w) {
  if (!w) return;
  for (size_t i = 0; i < w->ndocs; i++) {
    lit_wdoc *pg = &w->docs[i];
    free(pg->md);
    lit_line_map_free(&pg->map);
    if (pg->tree) cmark_node_free(pg->tree);
    free(pg->out_path);
    free(pg->title);
    for (size_t k = 0; k < pg->nheads; k++) {
      free(pg->heads[k].slug);
      free(pg->heads[k].text);
    }
    free(pg->heads);
    free(pg->section);
    lit_index_free(&w->own->anchors[i]);
  }
  free(w->docs);
  cmark_llist_free(cmark_get_default_mem_allocator(), w->exts);
  lit_index_free(&w->own->by_path);
  lit_index_free(&w->own->files);
  free(w->own->anchors);
  free(w->own);
  free(w);
}

const lit_wdoc *lit_weave_page(const lit_weave *w, const char *path) {
  size_t i;
  return lit_index_get(&w->own->by_path, path, strlen(path), &i) ? &w->docs[i] : NULL;
}

const lit_file *lit_weave_file(const lit_weave *w, const char *path) {
  size_t i;
  return lit_index_get(&w->own->files, path, strlen(path), &i) ? &w->p->files[i] : NULL;
}

/* 1 if page has a heading anchor `slug` (len bytes). */
static int S_has_anchor(const lit_weave *w, const lit_wdoc *page, const char *slug, size_t len) {
  return lit_index_get(&w->own->anchors[page - w->docs], slug, len, NULL);
}

static int S_external(const char *url) {
  if (url[0] == '/') return 1;
  size_t i = 0;
  while ((url[i] >= 'a' && url[i] <= 'z') || (url[i] >= 'A' && url[i] <= 'Z') ||
         (i && ((url[i] >= '0' && url[i] <= '9') || url[i] == '+' || url[i] == '.' || url[i] == '-')))
    i++;
  return i > 0 && url[i] == ':';
}

/* Book anchors of code blocks are not headings but are valid targets. */
static int S_block_anchor(const char *frag) {
  return strncmp(frag, "chunk-", 6) == 0 || strncmp(frag, "file-", 5) == 0;
}

/* 1 if page has the (possibly %-escaped) fragment as an anchor. */
static int S_has_fragment(const lit_weave *w, const lit_wdoc *page, const char *frag) {
  char *f = lit_path_unescape(frag, strlen(frag));
  int r = S_has_anchor(w, page, f, strlen(f)) || S_block_anchor(f);
  free(f);
  return r;
}

/* The column of url on its source line (cmark gives inline nodes no
 * position), else 1. */
static int S_column(const lit_wdoc *from, int line, const char *url) {
  size_t len, ul = strlen(url);
  const char *s = lit_source_line(&from->doc->src, line, &len);
  for (size_t i = 0; s && ul && i + ul <= len; i++)
    if (memcmp(s + i, url, ul) == 0) return (int)i + 1;
  return 1;
}

int lit_weave_link(const lit_weave *w, const lit_wdoc *from, const char *url, int line, char **out, lit_diags *d) {
  const char *path = from->doc->src.path;
  int src_line = lit_line_map_source(&from->map, line);
  int col = S_column(from, src_line, url);
  *out = NULL;
  if (!url[0] || S_external(url)) return 0;
  const char *hash = strchr(url, '#');
  size_t plen = hash ? (size_t)(hash - url) : strlen(url);
  const char *frag = hash ? hash + 1 : NULL;
  if (plen == 0) {
    if (frag && !S_has_fragment(w, from, frag)) {
      lit_diag(d, LIT_ERROR, path, src_line, col, "link '%s': this document has no heading with that anchor", url);
      return -1;
    }
    return 0;
  }
  char *target = lit_path_resolve_link(path, url, plen);
  if (!target) {
    lit_diag(d, LIT_ERROR, path, src_line, col, "link '%s' leads outside the project", url);
    return -1;
  }
  const lit_wdoc *to = lit_weave_page(w, target);
  if (to) {
    int r = 1;
    if (frag && !S_has_fragment(w, to, frag)) {
      lit_diag(d, LIT_ERROR, path, src_line, col, "link '%s': %s has no heading with the anchor '%s'", url, target,
               frag);
      r = -1;
    } else {
      char *rel = lit_weave_relative(from->out_path, to->out_path);
      *out = frag ? lit_xasprintf("%s#%s", rel, frag) : lit_xstrdup(rel);
      free(rel);
    }
    free(target);
    return r;
  }
  const lit_file *f = lit_weave_file(w, target);
  if (f) {
    size_t fi = (size_t)(f - w->p->files);
    if (w->shipped && w->shipped[fi]) {
      *out = lit_weave_relative(from->out_path, w->shipped[fi]);
    } else {
      const lit_wdoc *pg = lit_weave_page(w, f->block->doc->src.path);
      char *rel = lit_weave_relative(from->out_path, pg->out_path);
      if (w->kind == LIT_WEAVE_BOOK) {
        char *id = lit_weave_block_id(f->block);
        *out = lit_xasprintf("%s#%s", rel, id);
        free(id);
      } else {
        const lit_heading *sec = pg->section[f->block->index];
        *out = sec ? lit_xasprintf("%s#%s", rel, sec->slug) : lit_xstrdup(rel);
      }
      free(rel);
    }
    free(target);
    return 1;
  }
  char *full = lit_path_join(w->p->root, target);
  struct stat st;
  int exists = stat(full, &st) == 0;
  free(full);
  if (exists)
    lit_diag(
        d, LIT_WARNING, path, src_line, col,
        "link '%s': %s is neither a document nor a generated file, so the %s cannot carry it; the link becomes text",
        url, target, w->kind == LIT_WEAVE_BOOK ? "book" : "skill");
  else
    lit_diag(d, LIT_ERROR, path, src_line, col, "link '%s': no document or generated file %s", url, target);
  free(target);
  return -1;
}

/* The first of the project's own files (document, record, output folder)
 * whose real path lies in out_real (is out_real itself, with exact set),
 * or NULL; *what (if not NULL) says which of them it is. */
static const char *S_own(const lit_project *p, const char *out_real, int exact, const char **what) {
  const char *hit = NULL;
  for (size_t i = 0; i <= p->ndocs + p->nroots && !hit; i++) {
    const char *rel = i < p->ndocs    ? p->docs[i]->src.path
                      : i == p->ndocs ? p->record_path
                                      : p->tangle_roots[i - p->ndocs - 1];
    char *real = lit_path_real(p->root, rel);
    size_t n = real ? strlen(real) : 0;
    if (n > 1 && real[n - 1] == '/') real[n - 1] = '\0'; /* an output folder's trailing '/' */
    if (real && (exact ? strcmp(out_real, real) == 0 : lit_path_is_inside(out_real, real))) {
      hit = rel;
      if (what)
        *what = i < p->ndocs    ? "one of the project's documents"
                : i == p->ndocs ? "the project's record"
                                : "one of the project's output folders";
    }
    free(real);
  }
  return hit;
}

static const char *S_holds_own(const lit_project *p, const char *out_real) { return S_own(p, out_real, 0, NULL); }

int lit_weave_check_out_file(const lit_project *p, const char *dir, int any, const char *option, lit_diags *d) {
  struct stat st;
  /* a folder, a link (lit_tree_install and lit_tree_compare refuse one), or nothing yet */
  if (!dir[0] || lstat(dir, &st) != 0 || S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode)) return 0;
  char *out_real = lit_path_real(NULL, dir);
  const char *what = NULL;
  const char *own = out_real ? S_own(p, out_real, 1, &what) : NULL;
  free(out_real);
  if (own)
    lit_diag(d, LIT_ERROR, dir, 0, 0,
             "is a file, %s, not a folder: lit writes its output into a folder of its own, and never over the "
             "project's files; pick one with %s DIR",
             what, option);
  else if (any)
    lit_diag(d, LIT_ERROR, dir, 0, 0,
             "is a file, not a folder: lit writes its output into a folder; remove the file, or pick a folder with "
             "%s DIR",
             option);
  return own || any ? -1 : 0;
}

int lit_weave_check_out(const lit_project *p, const char *dir, const char *option, lit_diags *d) {
  if (lit_weave_check_out_file(p, dir, 0, option, d) != 0) return -1;
  char *out_real = lit_path_real(NULL, dir);
  const char *hit = out_real ? S_holds_own(p, out_real) : NULL;
  free(out_real);
  if (hit)
    lit_diag(d, LIT_ERROR, dir, 0, 0,
             "holds %s, which is the project's own: lit replaces this folder whole with its output, so it must not be "
             "the project's folder or one holding its documents, record or output folders; pick another with %s DIR",
             hit, option);
  /* What a killed run left beside it is removed, or moved into place and
   * then replaced, on the proof of a marker or a manifest that anyone can
   * write: never one that holds the project's own files. */
  size_t n;
  char **left = lit_tree_leftovers(dir, &n);
  for (size_t i = 0; i < n; i++) {
    char *real = lit_path_real(NULL, left[i]);
    const char *own = real ? S_holds_own(p, real) : NULL;
    free(real);
    if (own)
      lit_diag(d, LIT_ERROR, left[i], 0, 0,
               "is named like a leftover of a killed lit run, which lit removes or puts in place of %s, and holds %s, "
               "which is the project's own: rename this folder, or move the project's files out of it",
               dir, own);
    hit = hit ? hit : own;
    free(left[i]);
  }
  free(left);
  return hit ? -1 : 0;
}

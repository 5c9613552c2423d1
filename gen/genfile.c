#define _XOPEN_SOURCE 700 /* realpath */
#include "genfile.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "tangle.h"

static const lit_file *S_exact(const lit_project *p, const char *path) {
  for (size_t i = 0; i < p->nfiles; i++)
    if (strcmp(p->files[i].path, path) == 0) return &p->files[i];
  return NULL;
}

const lit_file *lit_genfile_find(const lit_project *p, const char *path) {
  const char *rel = path;
  while (rel[0] == '.' && rel[1] == '/')
    rel += 2;
  const lit_file *f = S_exact(p, rel);
  if (f) return f;
  /* From the current folder: the path's folder resolved, then made
   * relative to the resolved root. */
  const char *slash = strrchr(path, '/');
  char *dir = slash ? lit_xstrndup(path, (size_t)(slash - path) + (slash == path)) : lit_xstrdup(".");
  char dir_abs[PATH_MAX], root_abs[PATH_MAX];
  if (realpath(dir, dir_abs) && realpath(p->root, root_abs)) {
    size_t n = strlen(root_abs);
    char *full = lit_xasprintf("%s/%s", dir_abs, slash ? slash + 1 : path);
    if (strncmp(full, root_abs, n) == 0 && (full[n] == '/' || n == 1)) f = S_exact(p, full + (n == 1 ? 1 : n + 1));
    free(full);
  }
  free(dir);
  return f;
}

void lit_genfile_unknown(const lit_project *p, const char *path, lit_diags *d) {
  const char **paths = lit_xcalloc(p->nfiles + 1, sizeof *paths);
  for (size_t i = 0; i < p->nfiles; i++)
    paths[i] = p->files[i].path;
  const char *best = lit_nearest(path, paths, p->nfiles);
  free(paths);
  if (best)
    lit_diag(d, LIT_ERROR, NULL, 0, 0, "'%s' is not a file this project generates; did you mean '%s'?", path, best);
  else
    lit_diag(d, LIT_ERROR, NULL, 0, 0,
             "'%s' is not a file this project generates: no block names it with file= (lit dump lists the files)",
             path);
}

/* lit_genfile_tangle_as, its text written into *room when given (taken). */
static void S_tangle_as(const lit_project *p, const lit_file *f, int line_directives, size_t size_hint, lit_buf *room,
                        lit_genfile *g) {
  memset(g, 0, sizeof *g);
  g->file = f;
  if (room) {
    g->text = *room;
    g->text.len = 0;
    memset(room, 0, sizeof *room);
  }
  /* Room for the text at once: grown by doubling, a 28 MB file is copied
   * over and over and each new buffer faulted in page by page. */
  if (size_hint) lit_buf_reserve(&g->text, size_hint + size_hint / 16 + 4096);
  g->map = lit_linemap_new();
  g->line_directives = line_directives;
  lit_tangle_opts o = {line_directives, g->map};
  lit_tangle_file(p, f, &o, &g->text);
  lit_hash_hex(g->text.data ? g->text.data : "", g->text.len, g->hash);
}

void lit_genfile_tangle_as(const lit_project *p, const lit_file *f, int line_directives, size_t size_hint,
                           lit_genfile *g) {
  S_tangle_as(p, f, line_directives, size_hint, NULL, g);
}

static int S_wanted(const lit_genfile *g, const char *const *want, size_t nwant) {
  for (size_t i = 0; i < nwant; i++)
    if (want[i] && strcmp(want[i], g->hash) == 0) return 1;
  return 0;
}

/* The project's own mode first (tangle-line-directives): it is the one the
 * record most likely holds, and a file of the 50 MB benchmark takes a
 * tangle of its own for each mode tried. */
int lit_genfile_tangle(const lit_project *p, const lit_file *f, const char *const *want, size_t nwant, size_t size_hint,
                       lit_genfile *g) {
  return lit_genfile_tangle_room(p, f, want, nwant, size_hint, NULL, g);
}

int lit_genfile_tangle_room(const lit_project *p, const lit_file *f, const char *const *want, size_t nwant,
                            size_t size_hint, lit_buf *room, lit_genfile *g) {
  int c = lit_lang_comment(f->path) == LIT_COMMENT_C;
  int first = c && p->line_directives;
  S_tangle_as(p, f, first, size_hint, room, g);
  if (S_wanted(g, want, nwant)) return 1;
  if (!c) return 0;
  lit_genfile other;
  lit_genfile_tangle_as(p, f, !first, size_hint, &other);
  if (S_wanted(&other, want, nwant)) {
    lit_genfile_free(g);
    *g = other;
    return 1;
  }
  lit_genfile_free(&other);
  return 0;
}

void lit_genfile_free(lit_genfile *g) {
  lit_buf_free(&g->text);
  lit_linemap_free(g->map);
  memset(g, 0, sizeof *g);
}

#define _GNU_SOURCE /* strtok_r; glob's GLOB_ALTDIRFUNC */
/* skill_assets.c: the tangled package shipped in the skill (skill_assets.h). */
#include "skill_assets.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "paths.h"
#include "source.h"
#include "tangle.h"
#include "util.h"

/* The header's "Edit that document ... `COMMAND` rewrites it." line is for
 * the repository: an asset is a template to copy and edit. */
static void S_drop_tangle_note(lit_buf *b, const char *command) {
  char *note = lit_xasprintf("`%s` rewrites it", command);
  size_t nlen = strlen(note);
  size_t at = 0;
  for (int line = 0; line < 3 && at < b->len; line++) {
    const char *nl = memchr(b->data + at, '\n', b->len - at);
    size_t end = nl ? (size_t)(nl - b->data) + 1 : b->len;
    int hit = 0;
    for (size_t k = at; !hit && k + nlen <= end; k++)
      hit = memcmp(b->data + k, note, nlen) == 0;
    if (hit) {
      memmove(b->data + at, b->data + end, b->len - end);
      b->len -= end - at;
      break;
    }
    at = end;
  }
  free(note);
}

void (*lit_skill_assets_test_hook)(const char *path) = NULL;

/* The index of the tree's file at path, or -1. */
static long S_find(const lit_tree *tree, const char *path) {
  for (size_t i = 0; i < tree->n; i++)
    if (strcmp(tree->files[i].path, path) == 0) return (long)i;
  return -1;
}

/* glob reads folders through S_glob_opendir, which refuses a folder that
 * lies outside the project once its links are resolved: a pattern never
 * lists the names in a folder a link leads out to. glob's callbacks take
 * no context, hence the two statics (S_extra sets and reads them; lit
 * expands patterns on one thread). */
static const char *S_glob_root_real;
static int S_glob_refused;

static void *S_glob_opendir(const char *dir) {
  char *real = lit_path_real(NULL, dir);
  int inside = real && lit_path_is_inside(S_glob_root_real, real);
  free(real);
  if (!inside) {
    S_glob_refused = 1;
    errno = EACCES;
    return NULL;
  }
  return opendir(dir);
}
static struct dirent *S_glob_readdir(void *dh) { return readdir(dh); }
static void S_glob_closedir(void *dh) { closedir(dh); }

/* glob(3) over the project's folders only; *refused is set when the
 * pattern reached a folder outside it (nothing there is read). */
static int S_glob_inside(const char *root_real, const char *pattern, glob_t *g, int *refused) {
  memset(g, 0, sizeof *g);
  g->gl_opendir = S_glob_opendir;
  g->gl_readdir = S_glob_readdir;
  g->gl_closedir = S_glob_closedir;
  g->gl_lstat = lstat;
  g->gl_stat = stat;
  S_glob_root_real = root_real;
  S_glob_refused = 0;
  int rc = glob(pattern, GLOB_ALTDIRFUNC, NULL, g);
  *refused = S_glob_refused;
  S_glob_root_real = NULL;
  return rc;
}

/* skill-assets-files: DEST=PATTERN ... (project-relative glob patterns):
 * plain files that are not tangled, such as a test suite, copied to
 * assets/DEST/<file name>. DEST is a plain folder path; a match must be a
 * regular file that lies inside the project, and in no .git folder, once
 * its links are resolved; two files may not land on one name. */
static int S_extra(const lit_project *p, const lit_source *ix, lit_tree *tree, lit_diags *d) {
  int line = 0;
  const char *spec = lit_source_meta(ix, "skill-assets-files", &line);
  if (!spec) return 0;
  int status = 0;
  char *root_real = lit_path_real(NULL, p->root);
  char *text = lit_xstrdup(spec), *save = NULL;
  for (char *item = strtok_r(text, " \t", &save); item; item = strtok_r(NULL, " \t", &save)) {
    char *eq = strchr(item, '=');
    if (!eq || eq == item || !eq[1] || item[0] == '/' || eq[1] == '/' || strstr(item, "..")) {
      lit_diag(
          d, LIT_ERROR, ix->path, line, 1,
          "skill-assets-files takes DEST=PATTERN items inside the project (no '/' at the start, no '..'), not '%s'",
          item);
      status = -1;
      continue;
    }
    *eq = '\0';
    const char *why = lit_path_check_plain(item);
    if (why) {
      lit_diag(d, LIT_ERROR, ix->path, line, 1, "skill-assets-files: the folder '%s' cannot be used: %s", item, why);
      status = -1;
      continue;
    }
    char *pattern = lit_xasprintf("%s/%s", p->root, eq + 1);
    glob_t g = {0};
    int refused = 0;
    int rc = root_real ? S_glob_inside(root_real, pattern, &g, &refused) : GLOB_NOMATCH;
    if (refused) {
      lit_diag(d, LIT_ERROR, ix->path, line, 1,
               "skill-assets-files: '%s' reaches a folder outside the project through a symbolic link; lit reads "
               "nothing there",
               eq + 1);
      status = -1;
    }
    if (rc != 0) {
      if (!refused) lit_diag(d, LIT_ERROR, ix->path, line, 1, "skill-assets-files: '%s' matches no file", eq + 1);
      status = -1;
      globfree(&g);
    } else {
      size_t skip = strlen(pattern) - strlen(eq + 1); /* the root and its '/' */
      for (size_t k = 0; k < g.gl_pathc; k++) {
        const char *rel = g.gl_pathv[k] + skip;
        lit_buf b = LIT_BUF_INIT;
        /* git's files (a remote's URL in .git/config may hold a token) never ship, named or linked */
        if (!(why = lit_path_check_read(p->root, rel))) why = lit_path_check_git(p->root, rel);
        /* The name goes into the bundle's manifest, one line a file: a
         * newline there would split it into two lines that vouch for
         * neither, and the next weave would refuse its own folder. */
        const char *bad = why ? NULL : lit_path_check_name(rel);
        if (!why && !bad && lit_skill_assets_test_hook) lit_skill_assets_test_hook(g.gl_pathv[k]);
        int err = why || bad ? 0 : lit_path_read_beneath(root_real, rel, &b, NULL);
        if (err == EXDEV) why = "it is reached through a symbolic link that leads outside the project";
        if (bad) {
          lit_diag(d, LIT_ERROR, ix->path, line, 1,
                   "skill-assets-files: '%s' matches %s, whose name holds %s: lit ships no such name; rename the file",
                   eq + 1, rel, bad);
          lit_buf_free(&b);
          status = -1;
          continue;
        }
        if (why || err) {
          lit_diag(d, LIT_ERROR, ix->path, line, 1, "skill-assets-files: cannot read %s: %s", rel,
                   why ? why : lit_strerror(err));
          lit_buf_free(&b);
          status = -1;
          continue;
        }
        const char *base = strrchr(rel, '/');
        char *dest = lit_xasprintf("assets/%s/%s", item, base ? base + 1 : rel);
        long was = S_find(tree, dest);
        if (was >= 0) {
          lit_diag(d, LIT_ERROR, ix->path, line, 1,
                   "skill-assets-files: %s and another file both go to %s; give them different folders", rel, dest);
          lit_buf_free(&b);
          status = -1;
        } else {
          size_t len = b.len;
          lit_tree_add(tree, dest, lit_buf_detach(&b), len);
        }
        free(dest);
      }
      globfree(&g);
    }
    free(pattern);
  }
  free(text);
  free(root_real);
  return status;
}

char *lit_skill_asset_path(const lit_project *p, const char *path) {
  const char *folder = lit_source_meta(&p->docs[0]->src, "skill-assets", NULL);
  if (!folder) return NULL;
  size_t n = strlen(folder);
  while (n && folder[n - 1] == '/')
    n--;
  if (!n || strncmp(path, folder, n) != 0 || path[n] != '/') return NULL;
  return lit_xasprintf("assets/%s", path + n + 1);
}

int lit_skill_assets_add(const lit_project *p, lit_tree *tree, lit_diags *d) {
  const lit_source *ix = &p->docs[0]->src;
  int line = 0;
  const char *folder = lit_source_meta(ix, "skill-assets", &line);
  if (!folder) return S_extra(p, ix, tree, d);
  size_t n = strlen(folder);
  while (n && folder[n - 1] == '/')
    n--;
  int root = lit_path_is_root(folder, n, p->tangle_roots, p->nroots);
  int status = 0;
  if (!n || !root) {
    lit_diag(d, LIT_ERROR, ix->path, line, 1, "skill-assets must name one of the tangle-roots, not '%s'", folder);
    status = -1;
  }
  lit_tangle_opts topts = {0};
  for (size_t i = 0; i < p->nfiles && status == 0; i++) {
    const char *path = p->files[i].path;
    if (strncmp(path, folder, n) != 0 || path[n] != '/') continue;
    lit_buf b = LIT_BUF_INIT;
    lit_tangle_file(p, &p->files[i], &topts, &b);
    S_drop_tangle_note(&b, p->tangle_command);
    char *dest = lit_xasprintf("assets/%s", path + n + 1);
    size_t len = b.len;
    lit_tree_add(tree, dest, lit_buf_detach(&b), len);
    if (len > 2 && memcmp(tree->files[tree->n - 1].data, "#!", 2) == 0) tree->files[tree->n - 1].exec = 1;
    free(dest);
  }
  if (S_extra(p, ix, tree, d)) status = -1;
  return status;
}

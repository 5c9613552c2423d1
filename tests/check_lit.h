/* check_lit.h: what the unit test files share: each module's suite, and
 * small helpers to build a project from documents in memory or on disk.
 * Include it first: it sets the feature macros the helpers need. */
#ifndef CHECK_LIT_H
#define CHECK_LIT_H

#define _XOPEN_SOURCE 700
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "model.h"
#include "tangle.h"
#include "tree.h"
#include "util.h"

Suite *attrs_suite(void);
Suite *source_suite(void);
Suite *doc_suite(void);
Suite *lang_suite(void);
Suite *model_suite(void);
Suite *tangle_suite(void);
Suite *outputs_suite(void);
Suite *commit_suite(void);
Suite *record_suite(void);
Suite *paths_suite(void);
Suite *hash_suite(void);
Suite *diag_suite(void);
Suite *util_suite(void);
Suite *dump_suite(void);
Suite *stats_suite(void);
Suite *lua_host_suite(void); /* the weaver: tests/check_lua_host.c, check_weave.c */
Suite *render_suite(void);
Suite *weave_suite(void);
Suite *highlight_suite(void);
Suite *skill_suite(void);
Suite *book_suite(void);
Suite *book_search_suite(void);
Suite *tree_suite(void);
Suite *serve_suite(void);
Suite *diff_suite(void);
Suite *linemap_suite(void);
Suite *docedit_suite(void);

/* Everything d collected, as lit prints it; the caller frees the result. */
static inline char *ck_diags_text(const lit_diags *d) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  ck_assert_ptr_nonnull(f);
  lit_diags_print(d, f);
  fclose(f);
  return text;
}

/* Loads index.md (and a.md, b.md when given) from memory. */
static inline lit_project *ck_load(const char *index, const char *a, const char *b, lit_diags *d) {
  const char *names[3] = {"index.md", "a.md", "b.md"};
  const char *texts[3] = {index, a, b};
  size_t lens[3] = {strlen(index), a ? strlen(a) : 0, b ? strlen(b) : 0};
  return lit_project_load_memory(names, texts, lens, b ? 3 : a ? 2 : 1, d);
}

static inline const lit_file *ck_file(const lit_project *p, const char *path) {
  for (size_t i = 0; i < p->nfiles; i++)
    if (strcmp(p->files[i].path, path) == 0) return &p->files[i];
  return NULL;
}

/* The tangled content of path; the caller frees the result. */
static inline char *ck_tangle(const lit_project *p, const char *path, int directives, lit_diags *d) {
  const lit_file *f = ck_file(p, path);
  ck_assert_msg(f != NULL, "no file %s in the project", path);
  lit_tangle_opts o = {directives, NULL};
  lit_buf out = LIT_BUF_INIT;
  (void)d;
  lit_tangle_file(p, f, &o, &out);
  return lit_buf_detach(&out);
}

/* Writes text to dir/rel, creating folders. */
static inline void ck_write(const char *dir, const char *rel, const char *text) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  for (char *c = full + strlen(dir) + 1; *c; c++)
    if (*c == '/') {
      *c = '\0';
      mkdir(full, 0777);
      *c = '/';
    }
  FILE *f = fopen(full, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  free(full);
}

/* dir/rel moves to dir/aside and a symbolic link to target takes its
 * place: a folder swapped for a link while lit works. */
static inline void ck_swap_for_link(const char *dir, const char *rel, const char *aside, const char *target) {
  char *from = lit_xasprintf("%s/%s", dir, rel), *to = lit_xasprintf("%s/%s", dir, aside);
  ck_assert_int_eq(rename(from, to), 0);
  ck_assert_int_eq(symlink(target, from), 0);
  free(from);
  free(to);
}

/* Contents of dir/rel, or NULL if it cannot be read; the caller frees it. */
static inline char *ck_read(const char *dir, const char *rel) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  lit_buf b = LIT_BUF_INIT;
  int err = lit_read_file(full, &b);
  free(full);
  if (err) {
    lit_buf_free(&b);
    return NULL;
  }
  return lit_buf_detach(&b);
}

/* A fresh temporary folder; the caller removes it with ck_rmtree. */
static inline char *ck_tempdir(void) {
  char *t = lit_xstrdup("/tmp/lit-check.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(t));
  return t;
}

static inline void ck_rmtree(char *dir) {
  char *cmd = lit_xasprintf("rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
  free(cmd);
  free(dir);
}

/* The weaver's small project (check_weave, check_skill, check_book): an
 * entry document linking a.md, which writes kernels/k.cu, and b.md, which
 * defines the chunk it includes. */
#define CK_WEAVE_IX \
  "---\nskill-name: t\nskill-description: A test skill. Use in tests.\ntangle-roots: kernels\n---\n" \
  "# Home\n\n1. [A](a.md)\n2. [B](b.md)\n"
#define CK_WEAVE_A \
  "# A\n\nSee [home](index.md) and [the part](#the-part) and [b](b.md#b-part) and [b2](%62.md#b%2Dpart).\n\n" \
  "## The part\n\n```cuda {file=kernels/k.cu}\nint x;\n<<body>>\n```\n"
#define CK_WEAVE_B "# B\n\n## B part\n\n```cuda {#body}\nx = 1;\n```\n\n[k](kernels/k.cu)\n"

/* Documents whose names a URL must escape (' ', '(', '#', '?', '%'), for
 * check_book and check_skill: index.md links both, each links the other.
 * The entry's front matter names a skill, which the book ignores. */
#define CK_ODD_IX \
  "---\nskill-name: t\nskill-description: A test skill. Use in tests.\ntangle-roots: kernels\n---\n" \
  "# Home\n\n1. [Odd](<a b(1)%23x%3F.md>)\n2. [Pct](p%2541.md)\n"
#define CK_ODD_A "# Odd\n\nTo [pct](p%2541.md#pct).\n\n```c {file=kernels/k.c}\n<<body>>\n```\n"
#define CK_ODD_P "# Pct\n\nTo [odd](a%20b%281%29%23x%3F.md#odd).\n\n```c {#body}\nint x;\n```\n"

/* Loads the odd-names project; asserts it loads without an error. */
static inline lit_project *ck_odd_names_project(lit_diags *d) {
  const char *paths[3] = {"index.md", "a b(1)#x?.md", "p%41.md"};
  const char *texts[3] = {CK_ODD_IX, CK_ODD_A, CK_ODD_P};
  size_t lens[3] = {strlen(texts[0]), strlen(texts[1]), strlen(texts[2])};
  lit_project *p = lit_project_load_memory(paths, texts, lens, 3, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  return p;
}

/* The file of a built tree at path, or NULL. */
static inline lit_tree_file *ck_tree_find(lit_tree *t, const char *path) {
  for (size_t i = 0; i < t->n; i++)
    if (strcmp(t->files[i].path, path) == 0) return &t->files[i];
  return NULL;
}

#endif

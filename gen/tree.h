/* tree.h: a folder's worth of output files, built in memory and put on disk
 * all at once.
 *
 * The weaver builds every page before it writes any, so an error leaves the
 * old output as it was. lit_tree_install writes the files into a staging
 * folder beside the destination and swaps it into place (an atomic exchange
 * where the kernel has renameat2, else two renames), so a reader or an
 * interrupted run sees either the old folder or the new one, whole.
 *
 * Ownership: a tree owns its paths and bytes; lit_tree_free releases them. */
#ifndef LIT_TREE_H
#define LIT_TREE_H

#include <stddef.h>

#include "diag.h"

typedef struct {
  char *path; /* relative to the tree's root, '/'-separated */
  char *data;
  size_t len;
  int exec; /* mode 0755 instead of 0644 */
} lit_tree_file;

typedef struct {
  lit_tree_file *files;
  size_t n, cap;
} lit_tree;

#define LIT_TREE_INIT                                                                                                  \
  { NULL, 0, 0 }

/* Adds a file; the tree takes ownership of data (malloc'd, len bytes). */
void lit_tree_add(lit_tree *t, const char *path, char *data, size_t len);
void lit_tree_free(lit_tree *t);
/* Sorts the files by path (for manifests and stable comparisons). */
void lit_tree_sort(lit_tree *t);

/* Makes dir hold exactly the tree's files. An existing dir is replaced
 * only if it is empty or holds `guard` (a file every earlier output had,
 * such as chunks.html for the book): a mistyped --out never swallows a
 * folder of other work. Returns 0, or -1 after reporting through d, with dir
 * untouched. */
int lit_tree_install(const lit_tree *t, const char *dir, const char *guard, lit_diags *d);
/* Reports every difference between the tree and dir (missing, extra or
 * changed files) as an error; returns how many there are. */
size_t lit_tree_compare(const lit_tree *t, const char *dir, lit_diags *d);
/* Adds every regular file under dir (recursively) to t. 0, or -1 reported. */
int lit_tree_read(lit_tree *t, const char *dir, lit_diags *d);
/* rm -rf path; 0 or -1. */
int lit_tree_remove(const char *path);

#endif

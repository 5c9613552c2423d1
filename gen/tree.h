/* tree.h: a folder's worth of output files, built in memory and put on disk
 * all at once.
 *
 * The weaver builds every page before it writes any, so an error leaves the
 * old output as it was. lit_tree_install writes the files into a hidden
 * staging folder beside the destination (".NAME.lit-new-PID") and swaps it
 * into place (an atomic exchange where the kernel has renameat2, else two
 * renames), so a reader or an interrupted run sees either the old folder or
 * the new one, whole; the next run cleans up what a killed one left, where
 * it can prove it made it (see lit_tree_recover).
 *
 * Each installed folder holds a manifest, LIT_TREE_MANIFEST, naming every
 * file lit wrote there with the hash of the bytes it wrote. A folder is
 * replaced only if everything in it is named there and still holds those
 * bytes: lit never deletes a file it did not write, or one changed since.
 *
 * Ownership: a tree owns its paths and bytes; lit_tree_free releases them. */
#ifndef LIT_TREE_H
#define LIT_TREE_H

#include <stddef.h>

#include "diag.h"

/* The manifest of an installed folder: a line a file, its lit_hash_hex
 * digest, two spaces and its path (the layout of sha256sum's lists). */
#define LIT_TREE_MANIFEST ".lit-manifest"

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

/* Makes dir hold exactly the tree's files (and its manifest). An existing
 * dir is replaced only if it is empty or everything in it is named by its
 * manifest with the bytes it holds (a manifest of an earlier version,
 * names without digests, vouches only for the names the tree writes too,
 * and each only while it holds the bytes the tree writes there, or with
 * LIT_TREE_REPLACE_EDITS); a folder an earlier version wrote, without a
 * manifest, is recognised by `guard` (a file every such output had, such
 * as chunks.html for the book), and then only the names the tree writes
 * (with the guard and an old bundle's manifest.txt) may be lit's, on the
 * same terms; what that manifest.txt lists is not trusted. Anything else
 * in it is reported and stops the install: a mistyped --out never swallows
 * a folder of other work.
 * Returns 0, or -1 after reporting through d. On -1 dir is as it was, but
 * for one case: the new copy is in place and the old one could not be
 * removed (reported; the next run removes it). */
int lit_tree_install(const lit_tree *t, const char *dir, const char *guard, int flags, lit_diags *d);
/* lit_tree_install's flags. REPLACE_EDITS: a file lit wrote and someone
 * changed since is replaced too (lit skill install --force); a file lit
 * did not write still stops the install. BENEATH: dir, relative, is a
 * default place inside the current folder (checked by
 * lit_tree_check_inside): the folders above it are made and opened
 * beneath the current folder, so a link leading out, even one swapped in
 * after the check, stops the install rather than lead it (or a folder it
 * makes) elsewhere. */
enum { LIT_TREE_REPLACE_EDITS = 1, LIT_TREE_BENEATH = 2 };
/* For the tests only: called once in lit_tree_install, after the check of
 * what dir holds and before the first write (NULL, the default: nothing),
 * so that a test can change the folders on dir's path in between. */
extern void (*lit_tree_test_hook)(void);
/* 0 if dir is missing, empty, or a folder lit wrote: it holds a manifest
 * and nothing the manifest does not name. Else -1, with the reason (or each
 * foreign file) reported. A folder an earlier version wrote, without a
 * manifest, is not recognised: lit book --out DIR gives it one. For lit
 * serve, which sends what is in dir to a browser and must not send a
 * folder of other work (--out /etc). */
int lit_tree_check_owned(const char *dir, lit_diags *d);
/* Cleans up beside dir what killed installs left: an old copy whose dir is
 * missing (killed between two renames) is put back, the rest removed;
 * only leftovers lit can prove it made (a real folder holding its staging
 * marker, or nothing but what its own manifest lists with matching
 * digests): anything else of such a name is left as it is and reported
 * as a warning through d (NULL: quietly). lit_tree_install does it first;
 * a caller that looks at dir before installing calls it before looking. */
void lit_tree_recover(const char *dir, lit_diags *d);
/* The paths beside dir named like the leftovers of its killed installs
 * (".NAME.lit-new-PID", ".NAME.lit-old-PID", any process), which
 * lit_tree_recover and lit_tree_install may remove or move into place as
 * dir; *n of them. The caller frees each and the array. */
char **lit_tree_leftovers(const char *dir, size_t *n);
/* 0 if dir is missing, empty, or holds only output folders of lit (each
 * with a manifest) and the hidden leftovers of its runs; else -1, with each
 * other entry reported. For a folder that receives output folders by name
 * (lit skill --out DIR writes DIR/NAME). */
int lit_tree_check_parent(const char *dir, lit_diags *d);
/* 0 if dir (a path relative to the current folder) and every folder on
 * the way to it that exists resolve inside the current folder; else -1,
 * with the first that does not reported (a symbolic link that leads
 * nowhere counts as leading out: what lit made through it would land who
 * knows where). For the places lit reads and writes by default, which a
 * link shipped with a project must not send elsewhere: lit skill's
 * build/skill/NAME, lit skill install's bundle and ./.claude/skills/NAME.
 * Checked before anything is read or written there. */
int lit_tree_check_inside(const char *dir, lit_diags *d);
/* Reports every difference between the tree and dir (missing, extra or
 * changed files) as an error; returns how many there are. A dir that
 * exists and is not a folder (a symbolic link to one, say) is not read:
 * it is reported as one difference, as lit_tree_install refuses it; so is
 * the first entry of dir that lit_tree_read refuses (a FIFO, a file it
 * cannot read), and nothing is compared: the rest would all read as
 * missing. */
size_t lit_tree_compare(const lit_tree *t, const char *dir, lit_diags *d);
/* Adds every regular file under dir (recursively) to t, but dir's own
 * manifest. 0, or -1 reported: a file it cannot read, or anything that is
 * neither a regular file nor a folder (a symbolic link above all, which it
 * never follows: lit skill install copies a bundle whole or not at all). */
int lit_tree_read(lit_tree *t, const char *dir, lit_diags *d);
/* For the tests only: called by lit_tree_read with each entry's path
 * after it was looked at and before it is read (NULL, the default:
 * nothing), so that a test can swap it for a link in between. */
extern void (*lit_tree_read_hook)(const char *path);

#endif

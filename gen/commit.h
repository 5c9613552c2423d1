/* commit.h: an all-or-nothing change to files of a project, undone if the
 * run fails or dies midway.
 *
 * A commit collects new contents, each staged as a hidden temporary beside
 * its target (".lit-tmp-PID-N", in the target's folder so the rename into
 * place is atomic), and files to remove. The journal names each temporary
 * before it is made, under a name nothing holds, and right after making it
 * records its device and inode (a "made" line). lit_commit_run then
 *
 *   1. writes the plan into the journal, naming every step it is about to
 *      take, ended by "commit",
 *   2. keeps every file it replaces or removes as a hard link
 *      ".lit-old-PID-N" beside it (a name nothing held), and records that
 *      link's device, inode, size and modification time ("made"),
 *   3. renames every temporary into place and removes the files to remove,
 *   4. writes "done" into the journal (the commit point), then removes the
 *      old copies, then the journal.
 *
 * If a step fails before the commit point, the steps taken are undone from
 * the old copies and the tree is as it was. If the process dies before it,
 * the next lit_commit_recover finds the journal and undoes it the same way;
 * after it, the next lit_commit_recover removes the old copies the journal
 * names, then the journal. Nothing is ever removed for its name alone, nor
 * for a journal's word alone: a temporary or old copy is removed (or put
 * back) only while it is still the very file its "made" line records
 * (and, for a temporary the plan gives a hash, holds that content);
 * anything else under such a name stays, with a warning naming it and why.
 *
 * Paths are relative to the project root given to lit_commit_new. Ownership:
 * the caller frees a commit with lit_commit_free, which also removes the
 * temporaries and folders of a commit that was never run. */
#ifndef LIT_COMMIT_H
#define LIT_COMMIT_H

#include <stddef.h>

#include "diag.h"
#include "util.h"

typedef struct lit_commit lit_commit;

/* journal_rel: where the journal lives while a commit runs. */
lit_commit *lit_commit_new(const char *root, const char *journal_rel);
void lit_commit_free(lit_commit *c);

/* Opens a staged copy for rel, making its missing folders (removed again on
 * failure). Returns 0 and *fd, or an errno. */
int lit_commit_open(lit_commit *c, const char *rel, int *fd);
/* Finishes the copy opened last. write_err is the first error writing it
 * (0 if none). On success it joins the commit and 0 is returned; otherwise
 * it is removed and the errno returned. The copy keeps the mode of the
 * file it replaces (plus execute if exec); a new one gets 0777 if exec,
 * else 0666, less the umask. */
int lit_commit_close(lit_commit *c, int fd, int exec, int write_err);
/* Adds a file to remove. */
void lit_commit_remove(lit_commit *c, const char *rel);
/* The file a staged copy for rel replaces must still be the one `was`
 * describes when its old copy is kept (a document lit stitch read, or a
 * generated file lit tangle hashed, which an editor may have saved since);
 * so must a file lit_commit_remove removes: else the run stops, every file
 * left as it was. Call after the copy for rel has joined the commit; 0, or ENOENT
 * when it has not. */
int lit_commit_expect(lit_commit *c, const char *rel, const lit_file_id *was);
/* The staged copy for rel is a new file: its writer found none there. A
 * file there when the commit runs (saved meanwhile by someone else) stops
 * the run, every file left as it was, rather than be replaced. Call after
 * the copy has joined the commit; 0, or ENOENT when it has not. */
int lit_commit_expect_absent(lit_commit *c, const char *rel);
/* The errno that stopped the journal from being begun (the last open
 * failed because of it, not because of its own file), or 0. */
int lit_commit_journal_error(const lit_commit *c);
/* How many files the commit writes. */
size_t lit_commit_count(const lit_commit *c);

/* Puts everything into place. LIT_OK (if the old copies could not all be
 * removed after the commit point, a warning says so and the journal stays
 * for the next run to finish), or LIT_FAILED after reporting through d,
 * with the tree as it was before. *removed counts the files removed (may be
 * NULL). */
lit_status lit_commit_run(lit_commit *c, size_t *removed, lit_diags *d);

/* What a recovery may touch, and whether it may write anything. */
typedef struct {
  char *const *dirs; /* the output folders, relative to the root, each ending in '/' */
  size_t ndirs;
  const char *record; /* the record: the one file outside them a tangle writes; may be NULL */
  int check;          /* --check: report a journal, undo and remove nothing */
  char *const *docs;  /* the project's documents, which lit stitch rewrites; NULL: a journal naming one is refused */
  size_t ndocs;
} lit_recover_opts;

/* Before a run: undoes a commit that a dead process left half done (its
 * journal at journal_rel, without "done"), removing the temporaries it
 * names; or finishes one that died after its commit point (a journal ended
 * by "done"), removing the old copies it names. Nothing else is removed,
 * whatever its name, and a named copy only while the journal's "made"
 * line proves it the file the run made (else it stays, with a warning,
 * and the recovery goes on). A journal is trusted only after checks: it
 * is a regular file (no link, no FIFO), its run no longer holds its lock,
 * and it names only what such a run could have made (targets in the
 * output folders, the record or, for a stitch, one of o->docs exactly,
 * staged and old copies of its own process beside them, no path through a
 * link leading out, "made" lines only for names given out before them).
 * Returns 0; 1 when documents were put back (whoever read them before must
 * read them again); or -1 after reporting (another run is committing; the
 * journal is unreadable, not lit's, or names what lit would not write;
 * --check found one, other than one ended by "done", which is only
 * noted). */
int lit_commit_recover(const char *root, const char *journal_rel, const lit_recover_opts *o, lit_diags *d);

#endif

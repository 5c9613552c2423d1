/* outputs.h: putting a tangle on disk as one all-or-nothing transaction.
 *
 * Every file is tangled and compared with what is on disk first. A file is
 * written only when its bytes change (so make's timestamps stay meaningful),
 * staged as a temporary file in its own folder, and the whole set is put in
 * place by one journaled commit (commit.h). If anything fails (an error in
 * the documents, a hand edit in the way, a write or rename that fails),
 * every temporary file is removed and the tree is as it was; a run that was
 * killed is undone by the next one, before it reads anything. */
#ifndef LIT_OUTPUTS_H
#define LIT_OUTPUTS_H

#include "model.h"
#include "tangle.h"

typedef struct {
  int check; /* write nothing; report every difference as an error */
  int force; /* overwrite hand edits and files lit did not write */
  int line_directives;
  int quiet; /* don't list what was written */
} lit_outputs_opts;

typedef struct {
  size_t written, unchanged, removed;
} lit_outputs_stats;

/* Undoes a run that was killed while it put its files in place (a tangle's
 * outputs, or a stitch's documents), or finishes the clean-up of one killed
 * after its commit point, removing only what its journal names: 0;
 * 1 when documents were put back, so a project read before is stale; -1
 * after reporting. lit_outputs_run does it first too, and fails if that
 * puts documents back: the caller that can read them again does it first. */
int lit_outputs_recover(const lit_project *p, lit_diags *d);

/* Runs the transaction; reports through d. LIT_DIFFERS only under --check;
 * LIT_FAILED: nothing was written. */
lit_status lit_outputs_run(const lit_project *p, const lit_outputs_opts *o, lit_outputs_stats *stats, lit_diags *d);
/* For the tests only: called in lit_outputs_run after every file was
 * compared with the disk and staged, just before the commit (NULL, the
 * default: nothing), so that a test can save a file meanwhile. */
extern void (*lit_outputs_test_hook)(void);

/* Removes the folders that rel's removal left empty, from rel's own up to
 * but not including its output folder (one of roots), each through its
 * parent resolved beneath root: nothing outside root is removed. Reads
 * its arguments only. */
void lit_outputs_prune_dirs(const char *root, const char *rel, char *const *roots, size_t nroots);

#endif

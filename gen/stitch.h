/* stitch.h: lit stitch, a hand edit of a generated file carried back into
 * the code blocks it came from.
 *
 * For each generated file whose bytes differ from what the record says lit
 * wrote, the documents are tangled in memory with a line map, in the mode
 * (with or without #line) whose hash the record holds. If that tangle's
 * hash is not the record's either, the documents changed too: a three-way
 * conflict, refused. Otherwise the tangle is diffed against the file
 * (diff.h) and each hunk mapped back through the line map:
 *
 *   - replaced or deleted lines must be consecutive lines of one expansion
 *     of one block (never lit's header or a #line directive, never lines on
 *     both sides of a <<reference>>);
 *   - inserted lines go into a block when the lines above and below them
 *     are consecutive lines of one expansion of it; at the end of a block
 *     when the line below is a #line directive, or the end of the file and
 *     the block is the file's own (not included by a reference: there the
 *     lines could belong to either chunk); at the start of a block when the
 *     line above is a #line directive, or lit's header or the top of the
 *     file and the block is the file's own;
 *   - the indentation the including references added is taken off every
 *     new line (a line without it is refused; blank and white-space-only
 *     lines are kept as they are, since the tangler indents no blank line).
 *
 * The blocks are then rewritten in the documents' own bytes (docedit.h),
 * the new documents loaded and tangled in memory, and every stitched file
 * must come out byte for byte as it is on disk (a chunk included twice of
 * which one copy was edited does not: refused, saying so); under #line
 * directives only the directives' numbers may differ, and the file is
 * rewritten with them. The documents, those files and the record go to
 * disk in one journaled commit (commit.h): every document or none, undone
 * by the next run of lit if the process dies. Other generated files that
 * include a changed chunk are named: lit tangle rewrites them.
 *
 * Every refusal names the generated file's line and the document lines on
 * both sides of the edit, and writes nothing. */
#ifndef LIT_STITCH_H
#define LIT_STITCH_H

#include <stddef.h>

#include "diag.h"
#include "model.h"

typedef struct {
  const char *const *files; /* the generated files to stitch (relative to the root or the current folder); */
  size_t nfiles;            /* none: every file that differs from the record */
  int quiet;                /* errors and warnings only */
} lit_stitch_opts;

/* Runs the stitch on a project loaded without errors. LIT_OK (also when
 * there was nothing to stitch); LIT_FAILED, or LIT_USAGE for a file the
 * project does not generate, with no document changed. */
lit_status lit_stitch_run(const lit_project *p, const lit_stitch_opts *o, lit_diags *d);
/* For the tests only: called once the stitch is staged, just before its
 * commit (NULL, the default: nothing), so that a test can save a file
 * meanwhile. */
extern void (*lit_stitch_test_hook)(void);

/* The files named to lit stitch, read ahead on a thread of their own while
 * the project loads (which reads its documents on one core, leaving the
 * other idle): each read and hashed, and memory touched for its tangle, so
 * that the stitch after the load neither reads it nor faults in fresh pages
 * for it. Only a read that succeeded is used, and only for the path the
 * stitch would read (root joined to the file's path); anything else is read
 * as without it. A path that, its links resolved, leads outside root is not
 * read at all (the load has not yet said which files are the project's).
 * NULL when there is nothing to read ahead (or no thread). */
typedef struct lit_stitch_ahead lit_stitch_ahead;
lit_stitch_ahead *lit_stitch_ahead_start(const char *root, const char *const *files, size_t n);
/* lit_stitch_run, taking what it uses of a (which the caller still frees). */
lit_status lit_stitch_run_ahead(const lit_project *p, const lit_stitch_opts *o, lit_stitch_ahead *a, lit_diags *d);
/* Waits until a's thread has read its files (the stitch does, before it
 * looks at them). */
void lit_stitch_ahead_wait(lit_stitch_ahead *a);
/* Waits for a's thread and frees what the stitch did not take. */
void lit_stitch_ahead_free(lit_stitch_ahead *a);

#endif

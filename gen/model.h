/* model.h: the document model every back end reads.
 *
 * A project is the entry document (index.md) and the documents its links
 * name, in the order it names them (the reading order). Each document holds
 * its code blocks; each block is a list of segments (runs of text lines and
 * <<references>>), each carrying its document and line. Named blocks form
 * chunks (a name defined again appends, in reading order); blocks with file=
 * are the roots the tangler writes.
 *
 * Ownership: lit_project_load returns a project that owns every document,
 * block, chunk and string reachable from it; lit_project_free releases all of
 * it. The documents, blocks and segments are the reader's (doc.h); the
 * model fills in their chunk links (lit_block.chunk, lit_seg.target) and
 * owns the chunks and files below. Back ends (tangle, dump, stats, weave)
 * take a const lit_project: only doc.c and model.c write any of it. */
#ifndef LIT_MODEL_H
#define LIT_MODEL_H

#include <stddef.h>

#include "diag.h"
#include "doc.h"
#include "source.h"
#include "util.h"

typedef struct lit_chunk lit_chunk;

typedef struct {
  lit_block *block; /* the block holding the reference */
  size_t seg;       /* index of the REF segment in block->segs */
} lit_use;

struct lit_chunk {
  char *name; /* NULL for the anonymous root of an unnamed file block */
  size_t name_len;
  lit_block **defs; /* definitions in reading order */
  size_t ndefs, defs_cap;
  lit_use *uses;
  size_t nuses, uses_cap;
  int is_data; /* defined by .data blocks (weaver), not tangled */
  size_t id;   /* dense: a named chunk's position in p->chunks, then the anonymous file roots after them. Back
                  ends keep per-chunk state in arrays of lit_project_nchunk_ids entries. */
};

typedef struct {
  char *path;       /* repository-relative output path */
  lit_block *block; /* the block with file= */
  lit_chunk *root;  /* what the file contains */
} lit_file;

typedef struct lit_project {
  char *root;     /* folder holding the entry document; paths are relative to it */
  lit_doc **docs; /* reading order */
  size_t ndocs;
  lit_chunk **chunks; /* named chunks in order of first definition */
  size_t nchunks;
  lit_file *files; /* in reading order */
  size_t nfiles;
  char **tangle_roots; /* declared output folders, each ending in '/' */
  size_t nroots;
  char *record_path;     /* where the record of generated files lives */
  char *journal_path;    /* beside it, "RECORD-journal": the plan of a tangle's commit while it runs */
  int record_line;       /* the entry document's tangle-record line, 0 if none */
  int line_directives;   /* tangle-line-directives: every tangle writes #line directives */
  char *tangle_command;  /* what rewrites the generated files, as their headers and the messages name it
                            (tangle-command; default "lit tangle") */
  struct lit_model *own; /* model.c's alone: its name and path tables, the anonymous file roots */
} lit_project;

/* Loads root/entry and every document its links name; reports every problem
 * through d. Returns a project even when errors were reported (back ends must
 * check lit_diags_count(d, LIT_ERROR) first); NULL only if the entry document
 * could not be read. The caller frees the result with lit_project_free. */
lit_project *lit_project_load(const char *root, const char *entry, lit_diags *d);
/* Same, from documents already in memory (tests, fuzzing): names[i] is the
 * path of texts[i]; names[0] is the entry, the others are read in the order
 * the entry links them. Such a load never touches the disk: no unlisted-
 * document scan and no symlink check of file= paths (their syntax is still
 * checked). */
lit_project *lit_project_load_memory(const char *const *names, const char *const *texts, const size_t *lens, size_t n,
                                     lit_diags *d);
/* lit_project_load_memory, with every document whose text is exactly that
 * of reuse's document of the same path cloned from it rather than parsed
 * (lit stitch's check of the documents it is about to write, where one
 * document of many changed). An edited one, edits[i][0..nedits[i]) for
 * reuse's document i (edits NULL: none), is cloned with the edits where
 * lit_doc_clone_edited allows, else parsed. When every document is such
 * a clone, in reuse's order, and reuse registered its blocks without an
 * error, the chunks and files are copied from reuse's, block for block
 * (their names and reuse's index of them borrowed), and a reference that
 * the original block also makes takes its chunk without a lookup. reuse
 * is only read, and must outlive the result: a clone borrows its
 * document's strings, and a text that is reuse's own loaded text
 * (texts[i] == its src.text) is borrowed, not copied. The text of an
 * edited one is read by lit_source_from_edited and may be borrowed too: it
 * must then be NUL-terminated at lens[i], and texts must outlive the
 * result. */
lit_project *lit_project_load_memory_reusing(const char *const *names, const char *const *texts, const size_t *lens,
                                             size_t n, const lit_project *reuse, const lit_doc_edit *const *edits,
                                             const size_t *nedits, lit_diags *d);
void lit_project_free(lit_project *p);

lit_chunk *lit_project_find(const lit_project *p, const char *name, size_t len);
/* How many chunk ids there are: every lit_chunk's id is below it. */
size_t lit_project_nchunk_ids(const lit_project *p);

#endif

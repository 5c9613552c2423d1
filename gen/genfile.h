/* genfile.h: one generated file as lit would write it now, with its line
 * map, for the commands that read a file the user has: lit map and lit
 * stitch.
 *
 * The user names the file as they see it: relative to the project root, or
 * to the folder they stand in. Which tangle the file holds is read off its
 * hash: the record does not keep whether the last tangle put #line
 * directives in, so a C file is tangled both ways and the one whose hash
 * is wanted (the disk's, the record's) is kept. */
#ifndef LIT_GENFILE_H
#define LIT_GENFILE_H

#include "diag.h"
#include "hash.h"
#include "linemap.h"
#include "model.h"
#include "util.h"

/* The file of p that path names, relative to p's root or to the current
 * folder; NULL if the project writes no such file. */
const lit_file *lit_genfile_find(const lit_project *p, const char *path);
/* Reports that path names no file of p, with the nearest generated path
 * if it is near enough to be a typo. */
void lit_genfile_unknown(const lit_project *p, const char *path, lit_diags *d);

typedef struct {
  const lit_file *file;
  lit_buf text;                /* the fresh tangle */
  lit_linemap *map;            /* where each line of text came from */
  int line_directives;         /* whether text has #line directives */
  char hash[LIT_HASH_HEX + 1]; /* of text */
} lit_genfile;

/* Tangles f into g (which the caller frees with lit_genfile_free) with its
 * map, in the project's mode (tangle-line-directives) and, for a C file
 * whose tangle in that mode matches none of want[0..nwant) (NULL entries
 * skipped), in the other mode: the first tangle that matches one of want
 * is kept, else the one in the project's mode. Returns 1 if one matched.
 * size_hint: the text's likely size (0: unknown), reserved at once. */
int lit_genfile_tangle(const lit_project *p, const lit_file *f, const char *const *want, size_t nwant, size_t size_hint,
                       lit_genfile *g);
/* The same, the first tangle's text written into room (taken: *room is
 * emptied; its memory already touched, lit stitch's read ahead), or NULL. */
int lit_genfile_tangle_room(const lit_project *p, const lit_file *f, const char *const *want, size_t nwant,
                            size_t size_hint, lit_buf *room, lit_genfile *g);
/* Tangles f into g in the given mode, with its map. */
void lit_genfile_tangle_as(const lit_project *p, const lit_file *f, int line_directives, size_t size_hint,
                           lit_genfile *g);
void lit_genfile_free(lit_genfile *g);

#endif

/* doc.h: reading one document's code blocks and links with cmark-gfm.
 *
 * cmark finds every fenced block (backticks or tildes, any length, inside
 * lists and block quotes too), so nothing here matches fences with regular
 * expressions. Each block's info string goes through attrs.c; its content is
 * cut into text and <<reference>> segments. */
#ifndef LIT_DOC_H
#define LIT_DOC_H

#include <stddef.h>

#include "diag.h"
#include "source.h"

/* The model's chunk (model.h): a reader's block and segment only point at
 * one, once the model has resolved names. */
typedef struct lit_chunk lit_chunk;
typedef struct lit_block lit_block;
typedef struct lit_doc lit_doc;

typedef enum { LIT_SEG_TEXT, LIT_SEG_REF } lit_seg_kind;

typedef struct {
  lit_seg_kind kind;
  int line;           /* source line of the (first) line */
  int col;            /* REF: column of "<<" */
  const char *text;   /* TEXT: whole lines, each ending in '\n'; REF: the name */
  size_t len;         /* bytes of text, or of the name */
  size_t nlines;      /* TEXT: lines in text */
  size_t nblank;      /* TEXT: how many of them hold only spaces and tabs (the tangler indents the others) */
  const char *indent; /* REF: whitespace before "<<" */
  size_t indent_len;
  lit_chunk *target; /* REF: resolved chunk, NULL if undefined (the model sets it) */
  /* TEXT: whether "<<" occurs in text, as the model found it: 0 not looked
   * at yet, 1 no, 2 yes; a clone of the segment (the same bytes) keeps it. */
  unsigned char double_lt;
} lit_seg;

enum {
  LIT_BLOCK_EXAMPLE = 1 << 0, /* .example: shown, never tangled */
  LIT_BLOCK_DATA = 1 << 1,    /* .data: weaver data, not shown, not tangled */
  LIT_BLOCK_RENDER = 1 << 2,  /* .render: weaver renders its output in its place */
  LIT_BLOCK_TANGLED = 1 << 3  /* takes part in the tangle (has #name or file=) */
};

struct lit_block {
  lit_doc *doc;
  size_t index;  /* position among the document's code blocks */
  int line, col; /* the opening fence */
  int name_col, file_col;
  char *lang; /* NULL if none */
  char *name; /* #name, NULL if none */
  char *file; /* file=, NULL if none */
  char **classes;
  size_t nclasses;
  unsigned flags;
  const char *code; /* the block's content as cmark gives it */
  size_t code_len;
  int code_owned; /* code is a copy to free; else it points into doc->src.text */
  int code_line;  /* line of the first content line */
  lit_seg *segs;
  size_t nsegs;
  lit_chunk *chunk; /* chunk this block defines (named, or the anonymous root of a file); the model sets it */
  size_t def_index; /* 0-based position among the chunk's definitions (the model's too) */
};

typedef struct {
  char *url;
  int line, col;
} lit_link;

struct lit_doc {
  lit_source src;
  size_t order; /* position in the reading order, 0 = entry document */
  lit_block **blocks;
  size_t nblocks;
  lit_link *links;
  size_t nlinks;
  lit_block *clone_blocks; /* a clone's blocks, in one array; their strings and code and the links' URLs are
                              the document it was cloned from, which must outlive it. NULL: parsed, owns all */
  lit_doc *ahead;          /* a clone made ahead (lit_doc_clone_ahead) for the next lit_doc_clone_onto, or NULL */
};

/* Parses src (taken over by the result: the caller no longer frees it) into
 * a new document; reports every problem through d. The caller frees the
 * result with lit_doc_free. */
lit_doc *lit_doc_parse(lit_source *src, size_t order, lit_diags *d);
void lit_doc_free(lit_doc *doc);
/* The document old, parsed again without parsing: src (taken over) must
 * hold exactly old->src's text, and the result is what lit_doc_parse(src)
 * would give, but for the messages, which old's parse already gave, and the
 * model's links (chunk, target), which the caller's model sets. The clone
 * borrows old's strings (see clone_blocks): old must outlive it. */
lit_doc *lit_doc_clone_onto(const lit_doc *old, lit_source *src, size_t order);
/* Makes the clone that the next lit_doc_clone_onto(doc, src, ...) returns
 * when src borrows doc's own text (lit_source_borrow, as a load that
 * reuses doc does), so that a caller with a core to spare (lit stitch,
 * while it works out its edits) takes the copying off the load that
 * follows. Only reads doc, but for its `ahead`, which nothing else reads
 * meanwhile. lit_doc_drop_ahead frees a clone not taken (lit_doc_free
 * does too). */
void lit_doc_clone_ahead(lit_doc *doc);
void lit_doc_drop_ahead(lit_doc *doc);

/* One edit of a code block's content: document lines [line, line + nold)
 * of `block` replaced by nnew lines (an insertion, nold 0, goes before
 * line `line`). */
typedef struct {
  const lit_block *block;
  int line, nold, nnew;
} lit_doc_edit;

/* The document old, edited, parsed again without parsing where the edits
 * cannot change its structure: src (taken over) must hold old->src's text
 * with edits[0..n) made (sorted by line, none overlapping, each inside the
 * content of a block at the top level whose code is the source text
 * itself), and no new line may look like a fence. Every other line is
 * checked to be byte for byte old's. The result is what lit_doc_parse(src)
 * would give: the blocks and links after an edit moved, the edited blocks'
 * segments made again (their messages to d). NULL, with src untouched,
 * when any condition fails: the caller parses src. Like
 * lit_doc_clone_onto's, the result borrows old's strings. */
lit_doc *lit_doc_clone_edited(const lit_doc *old, lit_source *src, size_t order, const lit_doc_edit *edits, size_t n,
                              lit_diags *d);
/* Parses n sources (each taken over) into docs[0..n), numbering them from
 * first_order, on up to as many threads as there are processors; messages
 * reach d in document order, as if parsed one after another. */
void lit_doc_parse_many(lit_source *srcs, size_t n, size_t first_order, lit_doc **docs, lit_diags *d);

#endif

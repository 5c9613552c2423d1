/* linemap.h: where each line of a tangled file came from.
 *
 * The tangler fills a map as it writes (lit_tangle_opts.map), one entry per
 * line it emits, so the map and the bytes come from the one expander: a
 * line of code carries its block, its document line, the indentation the
 * references that include it added, how deep it sits and which expansion
 * of its block it belongs to (a chunk used twice has two); the header
 * comment and #line directives are lit's own lines. `lit map` prints it;
 * `lit stitch` reads a hand edit back into the documents through it.
 *
 * Ownership: a map owns its entries and its copies of the indentation
 * strings; the blocks it points at belong to the project, which must
 * outlive it. lit_linemap_free releases a map. */
#ifndef LIT_LINEMAP_H
#define LIT_LINEMAP_H

#include <stddef.h>

#include "doc.h"

typedef enum {
  LIT_LINE_CODE,      /* a line of a block */
  LIT_LINE_HEADER,    /* the header comment naming the documents */
  LIT_LINE_DIRECTIVE, /* a #line directive (--line-directives) */
  LIT_LINE_NEWLINE    /* the lone newline of a file with no line and no header */
} lit_line_kind;

typedef struct {
  lit_line_kind kind;
  const lit_block *block; /* CODE: the block the line is a line of; else NULL */
  int line;               /* CODE: its line in block->doc */
  size_t indent;          /* CODE: bytes of indentation the including references put before it (none on a blank line) */
  size_t depth;           /* CODE: 0 in the file's root chunk, 1 in a chunk it includes, ... */
  size_t expansion;       /* CODE: which expansion of the block, numbered from 1 in the order they start */
  const char *code;       /* CODE: the line as the block holds it, before indentation (code_len bytes, no newline) */
  size_t code_len;
} lit_line_origin;

typedef struct lit_linemap lit_linemap;

/* The caller frees the result with lit_linemap_free. */
lit_linemap *lit_linemap_new(void);
void lit_linemap_free(lit_linemap *m);

/* The tangler's side: one call per line emitted, in order. prefix is the
 * indentation of every open reference (copied the first time an expansion
 * is seen); the line itself got it unless blank. */
void lit_linemap_code(lit_linemap *m, const lit_block *b, int line, const char *code, size_t code_len,
                      const char *prefix, size_t prefix_len, int blank, size_t depth, size_t expansion);
/* Same as n calls of lit_linemap_code for n lines of b that follow each
 * other in the block and in the file, with one indentation (all blank or
 * none): their code is code[0..code_end), each line after the previous
 * one's newline, code_end the end of the last one's. */
void lit_linemap_code_lines(lit_linemap *m, const lit_block *b, int line, const char *code, const char *code_end,
                            size_t n, const char *prefix, size_t prefix_len, int blank, size_t depth, size_t expansion);
void lit_linemap_lines(lit_linemap *m, lit_line_kind kind, size_t n);
/* Cuts the map to the lines of the finished file text[0..len): the
 * tangler drops the empty lines at the end so a file ends in one newline.
 * Which lines those are, the map itself tells: text is not read. */
void lit_linemap_fit(lit_linemap *m, const char *text, size_t len);

/* How many lines the map holds, and line i (0-based). */
size_t lit_linemap_len(const lit_linemap *m);
const lit_line_origin *lit_linemap_at(const lit_linemap *m, size_t i);
/* The indentation the references put before the lines of an expansion
 * (*len bytes, not NUL-terminated; "" for one at the left margin). */
const char *lit_linemap_prefix(const lit_linemap *m, size_t expansion, size_t *len);
/* Whether the block's lines appear in more than one expansion here. */
int lit_linemap_repeated(const lit_linemap *m, const lit_block *b);

/* The document column (1-based) where a line of code starts: past any
 * list indentation or "> " its block sits in (the fence's column when the
 * document line does not end with the code, as after a tab cmark split). */
int lit_line_col(const lit_line_origin *o);
/* The chunk's name, or NULL for a file's unnamed root block. */
const char *lit_line_chunk(const lit_line_origin *o);

#endif

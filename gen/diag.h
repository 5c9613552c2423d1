/* diag.h: one shape for every message the generator prints.
 *
 *   file:line:col: error: message
 *
 * Messages are collected, not fatal at first sight, so one run reports every
 * problem; they are printed in the order they were raised (reading order),
 * and the worst level decides the exit status. The collection owns copies of
 * every string it is given.
 *
 * Every message is one line, whatever it quotes: a file name, a link or a
 * Lua error holding a newline, an escape sequence or bytes that are not
 * UTF-8 is written with escapes (lit_diag_escape), so no name can colour
 * the terminal or forge a second "file:line:col: error:" line. */
#ifndef LIT_DIAG_H
#define LIT_DIAG_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

typedef enum { LIT_NOTE, LIT_WARNING, LIT_ERROR } lit_level;

/* What a command's work came to, every *_run function's result. Only
 * main.c turns it into an exit status (0, 1, 1, 2). */
typedef enum {
  LIT_OK = 0,  /* done */
  LIT_DIFFERS, /* --check: the outputs differ from a fresh run (each difference reported) */
  LIT_FAILED,  /* errors, reported through the diags; nothing was written */
  LIT_USAGE    /* the command line asks for the impossible (reported) */
} lit_status;

typedef struct lit_diags lit_diags;

/* The caller frees the result with lit_diags_free. */
lit_diags *lit_diags_new(void);
void lit_diags_free(lit_diags *d);

/* line or col 0 means unknown and is left out of the location. The file
 * and the formatted message are escaped (lit_diag_escape); the message's
 * long words (past 300 bytes: a quoted link or path) and the message past
 * 4096 bytes are cut first, each cut saying how long the text was. */
void lit_diag(lit_diags *d, lit_level level, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Appends s[0..len) to out with what a terminal would act on written as an
 * escape: a newline, tab or carriage return as \n, \t, \r, any other
 * control byte (below 0x20, 0x7f) and every byte that is not UTF-8 as \xHH,
 * a C1 control character (U+0080 to U+009F) as \u00HH. Other UTF-8 is
 * copied as it is. For text printed outside lit_diag (the command line's
 * own messages). */
void lit_diag_escape(lit_buf *out, const char *s, size_t len);

size_t lit_diags_count(const lit_diags *d, lit_level level);
/* Moves every message of src to the end of d (src is left empty). */
void lit_diags_append(lit_diags *d, lit_diags *src);
void lit_diags_print(const lit_diags *d, FILE *out);
/* Stops collecting after this many errors (0: no limit); later ones are counted. */
void lit_diags_set_limit(lit_diags *d, size_t max_errors);

#endif

/* attrs.h: the attribute list in a code fence's info string.
 *
 * Two forms are accepted (Entangled's and Pandoc's GitHub-friendly one):
 *
 *   {.cuda #warp-reduce file=kernels/x.cu}
 *   cuda {#warp-reduce file=kernels/x.cu}
 *
 * and a bare word (`cuda`) names the language alone. The first class, or the
 * bare word, is the language. Parsing never stops at the first problem: every
 * malformed part is reported through the callback with its byte offset in
 * the info string, and the parts that did parse are kept. */
#ifndef LIT_ATTRS_H
#define LIT_ATTRS_H

#include <stddef.h>

typedef struct {
  char *lang;    /* first class or bare word; NULL if none */
  char *id;      /* #id; NULL if none */
  size_t id_off; /* offset of the '#' in the info string */
  char *file;    /* file=...; NULL if none */
  size_t file_off;
  char **classes; /* every class including the language, in order */
  size_t nclasses;
  int braced;      /* 1 if a {...} list was present */
  int extra_words; /* words after a bare language with no braces (Markdown allows them) */
} lit_attrs;

/* Called for each problem: offset in the info string and a message. */
typedef void (*lit_attrs_error_fn)(void *ctx, size_t offset, const char *message);

/* Parses `info` into *out (zeroed first). Strings in *out are owned by it
 * and released with lit_attrs_free. Returns the number of errors reported. */
int lit_attrs_parse(const char *info, lit_attrs *out, lit_attrs_error_fn on_error, void *ctx);
void lit_attrs_free(lit_attrs *a);
int lit_attrs_has_class(const lit_attrs *a, const char *cls);
/* 1 if `name` is a well-formed chunk name: letters (ASCII or any UTF-8
 * multibyte character), digits and _ : / . - */
int lit_name_valid(const char *name, size_t len);

#endif

/* highlight.h: code to HTML with <span> classes, at build time, in one pass.
 *
 * A small tokenizer per language family, enough to colour code for reading:
 * C, C++ and CUDA ("c", "cpp", "cuda", ...), Python, TOML and shell. Any
 * other language is only escaped. Classes: kw keyword, ty type, st string,
 * co comment, nu number, pp preprocessor or decorator, fn called function,
 * va shell variable, at TOML key or table. Linear in the input. */
#ifndef LIT_HIGHLIGHT_H
#define LIT_HIGHLIGHT_H

#include <stddef.h>

#include "util.h"

/* Appends s[0..len) highlighted as lang (may be NULL) to out. */
void lit_highlight(const char *lang, const char *s, size_t len, lit_buf *out);
/* Appends s[0..len) with & < > " escaped. */
void lit_html_escape(lit_buf *out, const char *s, size_t len);

#endif

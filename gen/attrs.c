#include "attrs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int S_is_space(char c) { return c == ' ' || c == '\t'; }

int lit_name_valid(const char *name, size_t len) {
  if (len == 0) return 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c >= 0x80) continue; /* part of a UTF-8 letter; cmark already validated the encoding */
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) continue;
    if (c == '_' || c == ':' || c == '/' || c == '.' || c == '-') continue;
    return 0;
  }
  return 1;
}

static int S_is_word_char(char c) {
  unsigned char u = (unsigned char)c;
  return u >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '+' || c == '.';
}

static void S_add_class(lit_attrs *a, const char *s, size_t len) {
  a->classes = lit_xrealloc(a->classes, (a->nclasses + 1) * sizeof(char *));
  a->classes[a->nclasses++] = lit_xstrndup(s, len);
  if (!a->lang) a->lang = lit_xstrndup(s, len);
}

typedef struct {
  lit_attrs_error_fn fn;
  void *ctx;
  int count;
} S_errors;

static void S_err(S_errors *e, size_t off, const char *msg) {
  e->count++;
  if (e->fn) e->fn(e->ctx, off, msg);
}

/* Parses the inside of {...} starting at info[i] just after '{'. Returns the
 * offset just past the closing '}' or the end of the string. */
static size_t S_parse_braced(const char *info, size_t i, lit_attrs *a, S_errors *e) {
  size_t n = strlen(info);
  for (;;) {
    while (i < n && S_is_space(info[i]))
      i++;
    if (i >= n) {
      S_err(e, i, "attribute list has no closing '}'");
      return n;
    }
    if (info[i] == '}') return i + 1;
    size_t start = i;
    while (i < n && !S_is_space(info[i]) && info[i] != '}' && info[i] != '"' && info[i] != '=')
      i++;
    /* start..i is the token head */
    if (info[start] == '.') {
      size_t len = i - start - 1;
      if (i < n && info[i] == '=') {
        S_err(e, start, "a class cannot take a value");
        while (i < n && !S_is_space(info[i]) && info[i] != '}')
          i++;
        continue;
      }
      if (len == 0) {
        S_err(e, start, "empty class name after '.'");
        continue;
      }
      S_add_class(a, info + start + 1, len);
    } else if (info[start] == '#') {
      size_t len = i - start - 1;
      if (i < n && info[i] == '=') {
        S_err(e, start, "an identifier cannot take a value");
        while (i < n && !S_is_space(info[i]) && info[i] != '}')
          i++;
        continue;
      }
      if (len == 0) {
        S_err(e, start, "empty chunk name after '#'");
        continue;
      }
      if (!lit_name_valid(info + start + 1, len)) {
        S_err(e, start, "chunk name may hold only letters, digits and _ : / . -");
        continue;
      }
      if (a->id) {
        S_err(e, start, "a block can have only one #name");
        continue;
      }
      a->id = lit_xstrndup(info + start + 1, len);
      a->id_off = start;
    } else {
      size_t klen = i - start;
      if (i >= n || info[i] != '=') {
        if (klen == 0) {
          S_err(e, start, "unexpected character in attribute list");
          i++;
        } else {
          S_err(e, start, "expected .class, #name or key=value in attribute list");
        }
        continue;
      }
      if (klen == 0) {
        S_err(e, start, "'=' with no attribute name before it");
      }
      i++; /* past '=' */
      lit_buf v = LIT_BUF_INIT;
      int bad = 0;
      if (i < n && info[i] == '"') {
        i++;
        while (i < n && info[i] != '"') {
          if (info[i] == '\\' && i + 1 < n) i++;
          lit_buf_putc(&v, info[i++]);
        }
        if (i >= n) {
          S_err(e, start, "unterminated quoted value");
          bad = 1;
        } else {
          i++;
        }
      } else {
        while (i < n && !S_is_space(info[i]) && info[i] != '}')
          lit_buf_putc(&v, info[i++]);
      }
      char *value = lit_buf_detach(&v);
      if (!bad && klen > 0) {
        if (klen == 4 && memcmp(info + start, "file", 4) == 0) {
          if (value[0] == '\0') {
            S_err(e, start, "file= needs a path");
          } else if (a->file) {
            S_err(e, start, "a block can write only one file");
          } else {
            a->file = value;
            a->file_off = start;
            value = NULL;
          }
        } else {
          char msg[160];
          snprintf(msg, sizeof msg, "unknown attribute '%.*s' (known: file)", (int)(klen > 40 ? 40 : klen),
                   info + start);
          S_err(e, start, msg);
        }
      }
      free(value);
    }
  }
}

int lit_attrs_parse(const char *info, lit_attrs *out, lit_attrs_error_fn on_error, void *ctx) {
  memset(out, 0, sizeof *out);
  S_errors e = {on_error, ctx, 0};
  size_t n = strlen(info);
  size_t i = 0;
  while (i < n && S_is_space(info[i]))
    i++;
  if (i < n && info[i] != '{') {
    size_t start = i;
    while (i < n && S_is_word_char(info[i]))
      i++;
    if (i > start) S_add_class(out, info + start, i - start);
    while (i < n && S_is_space(info[i]))
      i++;
    if (i < n && info[i] != '{') {
      out->extra_words = 1;
      return e.count; /* free text after the language, as plain Markdown allows */
    }
  }
  if (i < n && info[i] == '{') {
    out->braced = 1;
    i = S_parse_braced(info, i + 1, out, &e);
    while (i < n && S_is_space(info[i]))
      i++;
    if (i < n) S_err(&e, i, "text after the closing '}' of the attribute list");
  }
  return e.count;
}

void lit_attrs_free(lit_attrs *a) {
  free(a->lang);
  free(a->id);
  free(a->file);
  for (size_t i = 0; i < a->nclasses; i++)
    free(a->classes[i]);
  free(a->classes);
  memset(a, 0, sizeof *a);
}

int lit_attrs_has_class(const lit_attrs *a, const char *cls) {
  for (size_t i = 0; i < a->nclasses; i++)
    if (strcmp(a->classes[i], cls) == 0) return 1;
  return 0;
}

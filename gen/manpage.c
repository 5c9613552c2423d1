#include "manpage.h"

#include <cmark-gfm.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

/* A .TH argument: quoted, with the characters troff reads specially escaped. */
static void S_quoted(lit_buf *out, const char *s) {
  lit_buf_putc(out, '"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') lit_buf_putc(out, '\\');
    lit_buf_putc(out, *s);
  }
  lit_buf_puts(out, "\" ");
}

int lit_manpage(const char *path, lit_buf *out, lit_diags *d) {
  lit_source src;
  if (lit_source_load(&src, ".", path, d) != 0) {
    lit_source_free(&src);
    return -1;
  }
  const char *keys[] = {"man-name", "man-section", "man-manual"};
  const char *vals[3];
  for (int i = 0; i < 3; i++) {
    vals[i] = lit_source_meta(&src, keys[i], NULL);
    if (!vals[i]) lit_diag(d, LIT_ERROR, path, 1, 1, "a man page needs '%s:' in its front matter", keys[i]);
  }
  if (lit_diags_count(d, LIT_ERROR)) {
    lit_source_free(&src);
    return -1;
  }
  cmark_node *doc = cmark_parse_document(src.text, src.len, CMARK_OPT_DEFAULT);
  char *body = cmark_render_man(doc, CMARK_OPT_DEFAULT, 0);
  lit_buf_puts(out, ".TH ");
  S_quoted(out, vals[0]);
  S_quoted(out, vals[1]);
  S_quoted(out, ""); /* no date: the page is the same whenever it is built */
  S_quoted(out, "lit " LIT_VERSION);
  S_quoted(out, vals[2]);
  out->len--; /* the last argument's space */
  lit_buf_putc(out, '\n');
  lit_buf_puts(out, body);
  free(body);
  cmark_node_free(doc);
  lit_source_free(&src);
  return 0;
}

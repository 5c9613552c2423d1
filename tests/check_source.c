/* check_source.c: BOM, CRLF and CR, line index, front matter, encoding. */
#include "check_lit.h"

#include "source.h"

static const struct {
  const char *in;
  size_t in_len;
  const char *want; /* normalised text */
  size_t nlines;
} S_norm[] = {
    {"a\nb\n", 4, "a\nb\n", 2},
    {"a\r\nb\r\n", 6, "a\nb\n", 2},
    {"\xEF\xBB\xBFx\n", 5, "x\n", 1},
    {"\xEF\xBB\xBF", 3, "", 1},
    {"a\rb\n", 4, "a\nb\n", 2}, /* a lone CR ends a line, as cmark reads it */
    {"no newline", 10, "no newline", 1},
    {"a\n\n\nb", 5, "a\n\n\nb", 4},
    {"x\xEF\xBB\xBF\n", 5, "x\xEF\xBB\xBF\n", 1}, /* only a leading BOM is dropped */
    {"\r\n\r\n", 4, "\n\n", 2},
    {"a\r", 2, "a\n", 1},
    {"a\r\rb", 4, "a\n\nb", 3},
};

START_TEST(test_normalise) {
  lit_source src;
  lit_diags *d = lit_diags_new();
  lit_source_from_bytes(&src, "x.md", S_norm[_i].in, S_norm[_i].in_len, d);
  ck_assert_uint_eq(src.len, strlen(S_norm[_i].want));
  ck_assert_int_eq(memcmp(src.text, S_norm[_i].want, src.len), 0);
  ck_assert_int_eq(src.text[src.len], '\0');
  ck_assert_msg(src.nlines == S_norm[_i].nlines, "case %d: %zu lines", _i, src.nlines);
  ck_assert_str_eq(src.path, "x.md");
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_source_free(&src);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_lines) {
  lit_source src;
  lit_diags *d = lit_diags_new();
  const char *t = "first\r\n\r\nthird line\n";
  lit_source_from_bytes(&src, "x.md", t, strlen(t), d);
  size_t len;
  const char *l = lit_source_line(&src, 1, &len);
  ck_assert_uint_eq(len, 5);
  ck_assert_int_eq(memcmp(l, "first", 5), 0);
  l = lit_source_line(&src, 2, &len);
  ck_assert_ptr_nonnull(l);
  ck_assert_uint_eq(len, 0);
  l = lit_source_line(&src, 3, &len);
  ck_assert_uint_eq(len, 10);
  ck_assert_int_eq(memcmp(l, "third line", 10), 0);
  ck_assert_ptr_null(lit_source_line(&src, 4, &len));
  ck_assert_uint_eq(len, 0);
  ck_assert_ptr_null(lit_source_line(&src, 0, &len));
  ck_assert_ptr_null(lit_source_line(&src, -1, &len));
  lit_source_free(&src);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_front_matter) {
  const char *t = "---\ntangle-roots: kernels skill/scripts\n# a comment\n\ntitle: \"Quoted: yes\"  \n"
                  "description:\n---\n# Heading\n";
  lit_source src;
  lit_diags *d = lit_diags_new();
  lit_source_from_bytes(&src, "index.md", t, strlen(t), d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  ck_assert_int_eq(src.has_front_matter, 1);
  ck_assert_uint_eq(src.nmeta, 3);
  int line = 0;
  ck_assert_pstr_eq(lit_source_meta(&src, "tangle-roots", &line), "kernels skill/scripts");
  ck_assert_int_eq(line, 2);
  ck_assert_pstr_eq(lit_source_meta(&src, "title", &line), "Quoted: yes");
  ck_assert_int_eq(line, 5);
  ck_assert_pstr_eq(lit_source_meta(&src, "description", NULL), "");
  ck_assert_ptr_null(lit_source_meta(&src, "missing", &line));
  /* blanked in place: same length and lines, no text left for cmark */
  ck_assert_uint_eq(src.len, strlen(t));
  ck_assert_uint_eq(src.nlines, 8);
  size_t len;
  const char *l = lit_source_line(&src, 2, &len);
  ck_assert_uint_eq(len, strlen("tangle-roots: kernels skill/scripts"));
  ck_assert_uint_eq(strspn(l, " "), len);
  l = lit_source_line(&src, 7, &len);
  ck_assert_uint_eq(strspn(l, " "), 3); /* the closing --- too */
  l = lit_source_line(&src, 8, &len);
  ck_assert_int_eq(memcmp(l, "# Heading", 9), 0);
  lit_source_free(&src);
  lit_diags_free(d);
}
END_TEST

static const struct {
  const char *text;
  const char *want; /* diagnostics */
} S_fm_errors[] = {
    {"---\nkey: v\n", "x.md:1:1: error: front matter opened with '---' is never closed by a '---' line\n"},
    {"---\nnot a pair\n---\n", "x.md:2:4: error: front matter line must be 'key: value'\n"},
    {"---\nKey: v\n---\n", "x.md:2:1: error: front matter line must be 'key: value'\n"},
    {"---\n: v\n---\n", "x.md:2:1: error: front matter line must be 'key: value'\n"},
    {"text\n---\nk: v\n---\n", ""}, /* not at the top: not front matter */
    {"---\n---\n", ""},
    /* a key given twice: the first would win unseen */
    {"---\ntangle-roots: out\ntitle: T\n tangle-roots: other\n---\n",
     "x.md:4:2: error: front matter key 'tangle-roots' is given again (first at line 2): keep one\n"},
    /* a key lit does not read: a typo would be ignored */
    {"---\ntangle-root: out\n---\n", "x.md:2:1: error: unknown front matter key 'tangle-root'; did you mean "
                                      "'tangle-roots'?\n"},
    {"---\nauthor: me\n---\n", "x.md:2:1: error: unknown front matter key 'author' (lit reads none but its own: "
                                 "see lit(1), THE ENTRY DOCUMENT)\n"},
};

START_TEST(test_front_matter_errors) {
  lit_source src;
  lit_diags *d = lit_diags_new();
  lit_source_from_bytes(&src, "x.md", S_fm_errors[_i].text, strlen(S_fm_errors[_i].text), d);
  char *t = ck_diags_text(d);
  ck_assert_str_eq(t, S_fm_errors[_i].want);
  free(t);
  lit_source_free(&src);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_load) {
  char *dir = ck_tempdir();
  ck_write(dir, "sub/doc.md", "\xEF\xBB\xBFhello\r\n");
  lit_source src;
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_source_load(&src, dir, "sub/doc.md", d), 0);
  ck_assert_str_eq(src.path, "sub/doc.md"); /* messages name the relative path */
  ck_assert_str_eq(src.text, "hello\n");
  lit_source_free(&src);
  ck_assert_int_eq(lit_source_load(&src, dir, "nope.md", d), -1);
  ck_assert_str_eq(src.path, "nope.md");
  char *t = ck_diags_text(d);
  ck_assert_str_eq(t, "nope.md: error: cannot read this document: No such file or directory\n");
  free(t);
  lit_source_free(&src);
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

/* UTF-8 as RFC 3629 defines it: what cmark would turn into U+FFFD is an
 * error at its line and column, and is replaced so the rest reads on. */
static const struct {
  const char *in;
  size_t in_len;
  const char *errors; /* every message, or "" for valid text */
} S_enc[] = {
    {"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF\n", 20, ""},
    {"a\0b\n", 4, "x.md:1:2: error: a NUL byte: Markdown reads it as U+FFFD; remove it\n"},
    {"ok\nx\xFFy\n", 6,
     "x.md:2:2: error: byte 0xFF is not UTF-8: lit reads documents as UTF-8, and Markdown would turn it into U+FFFD; "
     "save the file as UTF-8\n"},
    {"\xC0\xAF\n", 3, /* an overlong '/' */
     "x.md:1:1: error: byte 0xC0 is not UTF-8: lit reads documents as UTF-8, and Markdown would turn it into U+FFFD; "
     "save the file as UTF-8\n"
     "x.md:1:2: error: byte 0xAF is not UTF-8: lit reads documents as UTF-8, and Markdown would turn it into U+FFFD; "
     "save the file as UTF-8\n"},
    {"\xED\xA0\x80\n", 4, /* a surrogate */
     "x.md:1:1: error: byte 0xED is not UTF-8: lit reads documents as UTF-8, and Markdown would turn it into U+FFFD; "
     "save the file as UTF-8\n"
     "x.md:1:2: error: byte 0xA0 is not UTF-8: lit reads documents as UTF-8, and Markdown would turn it into U+FFFD; "
     "save the file as UTF-8\n"
     "x.md:1:3: error: byte 0x80 is not UTF-8: lit reads documents as UTF-8, and Markdown would turn it into U+FFFD; "
     "save the file as UTF-8\n"},
    {"\xF4\x90\x80\x80", 4, /* past U+10FFFF, then the end of the text */
     "x.md:1:1: error: byte 0xF4 is not UTF-8: lit reads documents as UTF-8, and Markdown would turn it into U+FFFD; "
     "save the file as UTF-8\n"
     "x.md:1:2: error: byte 0x90 is not UTF-8: lit reads documents as UTF-8, and Markdown would turn it into U+FFFD; "
     "save the file as UTF-8\n"
     "x.md:1:3: error: byte 0x80 is not UTF-8: lit reads documents as UTF-8, and Markdown would turn it into U+FFFD; "
     "save the file as UTF-8\n"
     "x.md:1:4: error: byte 0x80 is not UTF-8: lit reads documents as UTF-8, and Markdown would turn it into U+FFFD; "
     "save the file as UTF-8\n"},
};

START_TEST(test_encoding) {
  lit_source src;
  lit_diags *d = lit_diags_new();
  lit_source_from_bytes(&src, "x.md", S_enc[_i].in, S_enc[_i].in_len, d);
  char *t = ck_diags_text(d);
  ck_assert_str_eq(t, S_enc[_i].errors);
  free(t);
  /* Whatever came in, the text handed on is valid UTF-8 with no NUL. */
  ck_assert_uint_eq(strlen(src.text), src.len);
  lit_diags *again = lit_diags_new();
  lit_source copy;
  lit_source_from_bytes(&copy, "x.md", src.text, src.len, again);
  ck_assert_uint_eq(lit_diags_count(again, LIT_ERROR), 0);
  lit_source_free(&copy);
  lit_diags_free(again);
  lit_source_free(&src);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_encoding_count) {
  char text[64];
  memset(text, '\xFF', sizeof text);
  lit_source src;
  lit_diags *d = lit_diags_new();
  lit_source_from_bytes(&src, "x.md", text, sizeof text, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 5); /* the first few, then a count */
  char *t = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(t, "x.md: note: 59 more NUL or non-UTF-8 bytes in this document\n"));
  free(t);
  lit_source_free(&src);
  lit_diags_free(d);
}
END_TEST

Suite *source_suite(void) {
  Suite *s = suite_create("source");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_normalise, 0, sizeof S_norm / sizeof S_norm[0]);
  tcase_add_test(tc, test_lines);
  tcase_add_test(tc, test_front_matter);
  tcase_add_loop_test(tc, test_front_matter_errors, 0, sizeof S_fm_errors / sizeof S_fm_errors[0]);
  tcase_add_test(tc, test_load);
  tcase_add_loop_test(tc, test_encoding, 0, sizeof S_enc / sizeof S_enc[0]);
  tcase_add_test(tc, test_encoding_count);
  suite_add_tcase(s, tc);
  return s;
}

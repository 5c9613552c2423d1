/* check_docedit.c: code block lines rewritten in a document's own bytes:
 * line ends (LF, CRLF), a byte-order mark, the prefixes of quotes and list
 * items, an empty block, several edits in one document, and the refusals
 * (a document changed since it was read, a tab split between a list's
 * indentation and the code); each both into a new buffer and in place. */
#include "check_lit.h"

#include "docedit.h"

#define FM "---\ntangle-roots: out\n---\n"

/* The lines of a NUL-separated list "a\0b\0" (n of them); the caller frees. */
static lit_line *S_lines(const char *const *texts, size_t n) {
  lit_line *l = lit_xcalloc(n + 1, sizeof *l);
  for (size_t i = 0; i < n; i++)
    l[i] = (lit_line){texts[i], strlen(texts[i])};
  return l;
}

/* Applies edits e[0..n) to a copy of raw, both ways: into a new buffer
 * (lit_docedit_apply) and in place (lit_docedit_apply_in_place), which
 * must agree in bytes and messages. The new bytes, or NULL when refused;
 * *msg gets the messages. The caller frees both. */
static char *S_apply_edits(const lit_project *p, const char *raw, const lit_docedit *e, size_t n, char **msg) {
  lit_diags *d = lit_diags_new(), *d2 = lit_diags_new();
  lit_buf out = LIT_BUF_INIT, in_place = LIT_BUF_INIT;
  lit_buf_puts(&in_place, raw);
  int r = lit_docedit_apply(p->docs[0], raw, strlen(raw), e, n, &out, d);
  int r2 = lit_docedit_apply_in_place(p->docs[0], &in_place, e, n, d2);
  *msg = ck_diags_text(d);
  char *msg2 = ck_diags_text(d2);
  ck_assert_int_eq(r, r2);
  ck_assert_str_eq(*msg, msg2);
  if (r == 0) {
    ck_assert_uint_eq(in_place.len, out.len);
    ck_assert_str_eq(in_place.data, out.data ? out.data : "");
  } else {
    ck_assert_str_eq(in_place.data, raw); /* refused: as it was */
  }
  free(msg2);
  lit_buf_free(&in_place);
  lit_diags_free(d);
  lit_diags_free(d2);
  if (r != 0) {
    lit_buf_free(&out);
    return NULL;
  }
  return lit_buf_detach(&out);
}

/* Applies one edit to the block at index `block` of index.md (text given
 * as raw bytes); returns the new bytes, or NULL when refused (*msg gets
 * the messages). The caller frees both. */
static char *S_apply(const char *raw, size_t block, int line, int nold, const char *const *texts, size_t n,
                     char **msg) {
  lit_diags *d = lit_diags_new();
  const char *names[1] = {"index.md"};
  size_t lens[1] = {strlen(raw)};
  lit_project *p = lit_project_load_memory(names, &raw, lens, 1, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_line *lines = S_lines(texts, n);
  lit_docedit e = {p->docs[0]->blocks[block], line, nold, lines, n};
  char *got = S_apply_edits(p, raw, &e, 1, msg);
  free(lines);
  lit_project_free(p);
  lit_diags_free(d);
  return got;
}

START_TEST(test_top_level) {
  const char *raw = FM "```{.c #a}\nx;\ny;\n```\ntext\n";
  const char *two[] = {"x2;", "x3;"};
  char *msg, *got = S_apply(raw, 0, 5, 1, two, 2, &msg);
  ck_assert_str_eq(got, FM "```{.c #a}\nx2;\nx3;\ny;\n```\ntext\n");
  free(got);
  free(msg);
  got = S_apply(raw, 0, 7, 0, two, 1, &msg); /* at the block's end: before its closing fence */
  ck_assert_str_eq(got, FM "```{.c #a}\nx;\ny;\nx2;\n```\ntext\n");
  free(got);
  free(msg);
  got = S_apply(raw, 0, 5, 2, NULL, 0, &msg);
  ck_assert_str_eq(got, FM "```{.c #a}\n```\ntext\n");
  free(got);
  free(msg);
}
END_TEST

START_TEST(test_crlf_and_bom) {
  const char *raw = "\xEF\xBB\xBF---\r\ntangle-roots: out\r\n---\r\n```{.c #a}\r\nx;\r\n```\r\n";
  const char *one[] = {"y;", ""};
  char *msg, *got = S_apply(raw, 0, 5, 1, one, 2, &msg);
  ck_assert_str_eq(got, "\xEF\xBB\xBF---\r\ntangle-roots: out\r\n---\r\n```{.c #a}\r\ny;\r\n\r\n```\r\n");
  free(got);
  free(msg);
}
END_TEST

START_TEST(test_quote_and_list) {
  const char *raw = FM "> ```{.c #q}\n> a;\n>\n> b;\n> ```\n\n- item\n\n  ```{.c #l}\n  c;\n  ```\n";
  const char *lines[] = {"a2;", "", "  a3;"};
  char *msg, *got = S_apply(raw, 0, 5, 1, lines, 3, &msg);
  ck_assert_str_eq(got, FM "> ```{.c #q}\n> a2;\n>\n>   a3;\n>\n> b;\n> ```\n\n- item\n\n  ```{.c #l}\n  c;\n  ```\n");
  free(got);
  free(msg);
  got = S_apply(raw, 1, 14, 0, lines, 3, &msg);
  ck_assert_str_eq(got,
                   FM "> ```{.c #q}\n> a;\n>\n> b;\n> ```\n\n- item\n\n  ```{.c #l}\n  c;\n  a2;\n\n    a3;\n  ```\n");
  free(got);
  free(msg);
}
END_TEST

START_TEST(test_several_edits) {
  /* Edits in two blocks, one growing the text and one shrinking it: made
   * in place, the bytes between them and after them move. */
  const char *raw = FM "```{.c #a}\nx;\ny;\n```\n\nprose\n\n```{.c #b}\nu;\nv;\nw;\n```\ntail\n";
  lit_diags *d = lit_diags_new();
  const char *names[1] = {"index.md"};
  size_t lens[1] = {strlen(raw)};
  lit_project *p = lit_project_load_memory(names, &raw, lens, 1, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  const char *grow[] = {"x = 1;", "x = 2;", "x = 3;"};
  lit_line *g = S_lines(grow, 3);
  const struct {
    int line0, nold0, nnew0, line1, nold1;
    const char *want;
  } cases[] = {
      {5, 1, 3, 12, 2, FM "```{.c #a}\nx = 1;\nx = 2;\nx = 3;\ny;\n```\n\nprose\n\n```{.c #b}\nw;\n```\ntail\n"},
      {5, 2, 0, 12, 0, FM "```{.c #a}\n```\n\nprose\n\n```{.c #b}\nx = 1;\nu;\nv;\nw;\n```\ntail\n"},
      {7, 0, 1, 15, 0, FM "```{.c #a}\nx;\ny;\nx = 1;\n```\n\nprose\n\n```{.c #b}\nu;\nv;\nw;\nx = 1;\n```\ntail\n"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lit_docedit e[2] = {{p->docs[0]->blocks[0], cases[i].line0, cases[i].nold0, g, (size_t)cases[i].nnew0},
                        {p->docs[0]->blocks[1], cases[i].line1, cases[i].nold1, g, cases[i].nold1 ? 0 : 1}};
    char *msg, *got = S_apply_edits(p, raw, e, 2, &msg);
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, cases[i].want);
    free(got);
    free(msg);
  }
  free(g);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_empty_block) {
  const char *raw = FM "- item\n\n  ```{.c #e}\n  ```\n";
  const char *one[] = {"x;"};
  char *msg, *got = S_apply(raw, 0, 7, 0, one, 1, &msg);
  ck_assert_str_eq(got, FM "- item\n\n  ```{.c #e}\n  x;\n  ```\n");
  free(got);
  free(msg);
}
END_TEST

START_TEST(test_refusals) {
  /* A tab of which cmark took half for the list item: the code does not
   * end the document line, so the line's prefix cannot be told. */
  const char *raw = FM "- item\n\n  ```{.c #t}\n\tx;\n  ```\n";
  const char *one[] = {"y;"};
  char *msg, *got = S_apply(raw, 0, 7, 1, one, 1, &msg);
  ck_assert_ptr_null(got);
  ck_assert_ptr_nonnull(strstr(msg, "index.md:7:1: error: lit cannot tell this line's container prefix"));
  free(msg);
  /* The document on disk no longer holds what lit read. */
  lit_diags *d = lit_diags_new();
  const char *text = FM "```{.c #a}\nx;\n```\n", *names[1] = {"index.md"};
  size_t lens[1] = {strlen(text)};
  lit_project *p = lit_project_load_memory(names, &text, lens, 1, d);
  lit_line l = {"y;", 2};
  lit_docedit e = {p->docs[0]->blocks[0], 5, 1, &l, 1};
  const char *changed = FM "```{.c #a}\nz;\n```\n";
  ck_assert_ptr_null(S_apply_edits(p, changed, &e, 1, &msg));
  ck_assert_ptr_nonnull(strstr(msg, "index.md:5:1: error: this line changed since lit read the document"));
  free(msg);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

Suite *docedit_suite(void) {
  Suite *s = suite_create("docedit");
  TCase *tc = tcase_create("docedit");
  tcase_add_test(tc, test_top_level);
  tcase_add_test(tc, test_crlf_and_bom);
  tcase_add_test(tc, test_quote_and_list);
  tcase_add_test(tc, test_several_edits);
  tcase_add_test(tc, test_empty_block);
  tcase_add_test(tc, test_refusals);
  suite_add_tcase(s, tc);
  return s;
}

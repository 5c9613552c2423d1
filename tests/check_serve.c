/* check_serve.c: the live preview's path rules (what `lit serve` may send). */
#include "check_lit.h"

#include "serve.h"

START_TEST(test_serve_paths) {
  static const struct {
    const char *url, *want; /* want NULL: refused */
  } cases[] = {
      {"/", "index.html"},
      {"/guide.html", "guide.html"},
      {"/style.css", "style.css"},
      {"/sub/", "sub/index.html"},
      {"/sub/page.html", "sub/page.html"},
      {"/..", NULL},
      {"/../index.md", NULL},
      {"/sub/../../etc/passwd", NULL},
      {"/./guide.html", NULL},
      {"//etc/passwd", NULL},
      {"/sub//x", NULL},
      {"/.lit-record", NULL},
      {"/sub/.git/config", NULL},
      {"/a\\..\\b", NULL},
      {"guide.html", NULL},
      {"", NULL},
  };
  char rel[64];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int r = lit_serve_path(cases[i].url, rel, sizeof rel);
    if (cases[i].want) {
      ck_assert_msg(r == 0, "case %zu (%s) refused", i, cases[i].url);
      ck_assert_str_eq(rel, cases[i].want);
    } else {
      ck_assert_msg(r != 0, "case %zu (%s) accepted as %s", i, cases[i].url, rel);
    }
  }
  ck_assert_int_ne(lit_serve_path("/a-name-too-long-for-the-buffer.html", rel, 8), 0);
  ck_assert_int_ne(lit_serve_path(NULL, rel, sizeof rel), 0);
}
END_TEST

Suite *serve_suite(void) {
  Suite *s = suite_create("serve");
  TCase *tc = tcase_create("serve");
  tcase_add_test(tc, test_serve_paths);
  suite_add_tcase(s, tc);
  return s;
}

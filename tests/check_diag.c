/* check_diag.c: the one message shape, collection order, counts, the limit. */
#include "check_lit.h"

static const struct {
  const char *file;
  int line, col;
  lit_level level;
  const char *want;
} S_cases[] = {
    {"a.md", 3, 7, LIT_ERROR, "a.md:3:7: error: msg 1\n"},
    {"a.md", 3, 0, LIT_WARNING, "a.md:3: warning: msg 1\n"},
    {"a.md", 0, 5, LIT_NOTE, "a.md: note: msg 1\n"}, /* a column without a line is left out */
    {NULL, 0, 0, LIT_ERROR, "lit: error: msg 1\n"},
    {"dir/x y.md", 12, 1, LIT_NOTE, "dir/x y.md:12:1: note: msg 1\n"},
};

START_TEST(test_location_shapes) {
  lit_diags *d = lit_diags_new();
  lit_diag(d, S_cases[_i].level, S_cases[_i].file, S_cases[_i].line, S_cases[_i].col, "msg %d", 1);
  char *t = ck_diags_text(d);
  ck_assert_str_eq(t, S_cases[_i].want);
  ck_assert_uint_eq(lit_diags_count(d, S_cases[_i].level), 1);
  free(t);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_order_and_counts) {
  lit_diags *d = lit_diags_new();
  lit_diag(d, LIT_WARNING, "b.md", 9, 1, "first");
  lit_diag(d, LIT_ERROR, "a.md", 1, 1, "second");
  lit_diag(d, LIT_ERROR, "a.md", 2, 1, "third");
  lit_diag(d, LIT_NOTE, "a.md", 2, 1, "fourth");
  char *t = ck_diags_text(d);
  ck_assert_str_eq(t, "b.md:9:1: warning: first\na.md:1:1: error: second\na.md:2:1: error: third\n"
                      "a.md:2:1: note: fourth\n");
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 2);
  ck_assert_uint_eq(lit_diags_count(d, LIT_WARNING), 1);
  ck_assert_uint_eq(lit_diags_count(d, LIT_NOTE), 1);
  free(t);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_long_message) {
  char big[3000];
  memset(big, 'q', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  lit_diags *d = lit_diags_new();
  lit_diag(d, LIT_ERROR, "f.md", 1, 2, "<%s>", big);
  char *t = ck_diags_text(d);
  ck_assert_uint_eq(strlen(t), strlen("f.md:1:2: error: <>\n") + sizeof big - 1);
  ck_assert_str_eq(t + strlen(t) - 3, "q>\n");
  free(t);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_limit) {
  lit_diags *d = lit_diags_new();
  lit_diags_set_limit(d, 2);
  for (int i = 0; i < 5; i++) lit_diag(d, LIT_ERROR, "f.md", i + 1, 1, "e%d", i);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 5); /* every error counts toward the exit status */
  char *t = ck_diags_text(d);
  ck_assert_str_eq(t, "f.md:1:1: error: e0\nf.md:2:1: error: e1\nlit: note: 3 further messages not shown\n");
  free(t);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_free_null) { lit_diags_free(NULL); }
END_TEST

Suite *diag_suite(void) {
  Suite *s = suite_create("diag");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_location_shapes, 0, sizeof S_cases / sizeof S_cases[0]);
  tcase_add_test(tc, test_order_and_counts);
  tcase_add_test(tc, test_long_message);
  tcase_add_test(tc, test_limit);
  tcase_add_test(tc, test_free_null);
  suite_add_tcase(s, tc);
  return s;
}

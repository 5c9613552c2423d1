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

/* A message past any fixed buffer comes out whole (its words are short:
 * long ones are capped, below). */
START_TEST(test_long_message) {
  char big[3000];
  for (size_t i = 0; i < sizeof big - 1; i++)
    big[i] = i % 10 == 9 ? ' ' : 'q';
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

/* Quoted text is capped in lit_diag, whoever calls it: a word past 300
 * bytes (a 180 KB link) keeps its first 200 and last 40, never cutting a
 * UTF-8 character, and says how long it was; a message past 4096 bytes (a
 * quote with spaces) is cut there; the rest of the message stays. */
START_TEST(test_quote_capped) {
  size_t n = 180 * 1024;
  char *link = lit_xmalloc(n + 1);
  memset(link, 'x', n);
  memcpy(link + 198, "\xc3\xa9", 2); /* 'é' across the cut, after the quote mark */
  memcpy(link + n - 40, "\xc3\xa9", 2);
  link[n] = '\0';
  lit_diags *d = lit_diags_new();
  lit_diag(d, LIT_ERROR, "a.md", 3, 4, "link '%s' leads outside the project", link);
  char *t = ck_diags_text(d);
  char *want = lit_xasprintf("a.md:3:4: error: link '%.198s\xe2\x80\xa6(%zu bytes)\xe2\x80\xa6%s' leads outside "
                             "the project\n",
                             link, n + 2, link + n - 38);
  ck_assert_str_eq(t, want);
  free(want);
  free(t);
  lit_diags_free(d);
  /* a name of 255 bytes, quoted, is whole */
  char name[256];
  memset(name, 'n', 255);
  name[255] = '\0';
  d = lit_diags_new();
  lit_diag(d, LIT_ERROR, "a.md", 3, 4, "cannot write 'out/%s.c': too long", name);
  t = ck_diags_text(d);
  want = lit_xasprintf("a.md:3:4: error: cannot write 'out/%s.c': too long\n", name);
  ck_assert_str_eq(t, want);
  free(want);
  free(t);
  lit_diags_free(d);
  for (size_t i = 0; i < n; i++)
    link[i] = i % 8 == 7 ? ' ' : 'w';
  d = lit_diags_new();
  lit_diag(d, LIT_ERROR, NULL, 0, 0, "%s", link);
  t = ck_diags_text(d);
  want = lit_xasprintf("lit: error: %.4096s\xe2\x80\xa6 (%zu bytes in all)\n", link, n);
  ck_assert_str_eq(t, want);
  free(want);
  free(t);
  lit_diags_free(d);
  free(link);
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

/* A file name or a quoted name that holds control bytes or bytes that are
 * not UTF-8 is escaped: no escape sequence reaches the terminal, and no
 * newline forges a second message. Valid UTF-8 is left as it is. */
static const struct {
  const char *file, *arg, *want;
} S_escapes[] = {
    {"a\x1b[31mred.md", "x", "a\\x1b[31mred.md:2:3: error: <x>\n"},
    {"a.md", "b.md\nb.md:1:1: error: forged", "a.md:2:3: error: <b.md\\nb.md:1:1: error: forged>\n"},
    {"tab\there\r.md", "del\x7f", "tab\\there\\r.md:2:3: error: <del\\x7f>\n"},
    {"\x01.md", "\xff\xfe", "\\x01.md:2:3: error: <\\xff\\xfe>\n"}, /* not UTF-8 */
    {"caf\xc3\xa9.md", "\xe2\x86\x92 \xf0\x9f\x98\x80", "caf\xc3\xa9.md:2:3: error: <\xe2\x86\x92 \xf0\x9f\x98\x80>\n"},
    {"x.md", "\xe2\x86", "x.md:2:3: error: <\\xe2\\x86>\n"},                /* a sequence cut short */
    {"x.md", "\xc0\xaf", "x.md:2:3: error: <\\xc0\\xaf>\n"},                /* overlong '/' */
    {"x.md", "\xed\xa0\x80", "x.md:2:3: error: <\\xed\\xa0\\x80>\n"},       /* a surrogate */
    {"c1\xc2\x9b.md", "\xc2\xa0", "c1\\u009b.md:2:3: error: <\xc2\xa0>\n"}, /* CSI escaped, NBSP kept */
};

START_TEST(test_escapes) {
  lit_diags *d = lit_diags_new();
  lit_diag(d, LIT_ERROR, S_escapes[_i].file, 2, 3, "<%s>", S_escapes[_i].arg);
  char *t = ck_diags_text(d);
  ck_assert_str_eq(t, S_escapes[_i].want);
  free(t);
  lit_diags_free(d);
}
END_TEST

/* Every message is one line, and only printable ASCII and UTF-8 text reach
 * the output, whatever bytes the names hold. */
START_TEST(test_one_line_each) {
  lit_diags *d = lit_diags_new();
  char name[3] = {0, 'x', 0};
  for (int c = 1; c < 256; c++) {
    name[0] = (char)c;
    lit_diag(d, LIT_WARNING, name, 1, 1, "'%s'", name);
  }
  char *t = ck_diags_text(d);
  size_t lines = 0;
  for (const unsigned char *s = (const unsigned char *)t; *s; s++) {
    lines += *s == '\n';
    ck_assert_msg(*s == '\n' || (*s >= 0x20 && *s != 0x7f), "byte 0x%02x reached the output", *s);
  }
  ck_assert_uint_eq(lines, 255);
  free(t);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_escape_buffer) {
  lit_buf b = LIT_BUF_INIT;
  lit_diag_escape(&b, "out/\x1b]0;x\x07\n", 11);
  ck_assert_str_eq(b.data, "out/\\x1b]0;x\\x07\\n");
  lit_buf_free(&b);
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
  tcase_add_test(tc, test_quote_capped);
  tcase_add_test(tc, test_limit);
  tcase_add_loop_test(tc, test_escapes, 0, sizeof S_escapes / sizeof S_escapes[0]);
  tcase_add_test(tc, test_one_line_each);
  tcase_add_test(tc, test_escape_buffer);
  tcase_add_test(tc, test_free_null);
  suite_add_tcase(s, tc);
  return s;
}

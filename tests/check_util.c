/* check_util.c: allocation helpers, the growable buffer, reading files. */
#include "check_lit.h"

#include <errno.h>

START_TEST(test_strndup_copies_exactly) {
  char *s = lit_xstrndup("abcdef", 3);
  ck_assert_str_eq(s, "abc");
  free(s);
  s = lit_xstrndup("a\0b", 3); /* embedded NUL: the copy holds all three bytes */
  ck_assert_int_eq(memcmp(s, "a\0b", 4), 0);
  free(s);
}
END_TEST

START_TEST(test_asprintf_long) {
  char big[2000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  char *s = lit_xasprintf("<%s|%d>", big, 42);
  ck_assert_uint_eq(strlen(s), sizeof big - 1 + 5);
  ck_assert_int_eq(s[0], '<');
  ck_assert_str_eq(s + strlen(s) - 4, "|42>");
  free(s);
}
END_TEST

START_TEST(test_grow) {
  size_t cap = 0;
  int *a = lit_grow(NULL, &cap, 3, sizeof(int));
  ck_assert_uint_ge(cap, 3);
  size_t first = cap;
  int *same = lit_grow(a, &cap, first, sizeof(int));
  ck_assert_ptr_eq(same, a); /* no growth needed: same block */
  ck_assert_uint_eq(cap, first);
  size_t bc = 0;
  int *b = lit_grow(NULL, &bc, 100, sizeof(int));
  size_t before = bc;
  b = lit_grow(b, &bc, before + 1, sizeof(int));
  ck_assert_uint_ge(bc, 2 * before); /* geometric growth: appends stay amortised O(1) */
  free(b);
  a = lit_grow(a, &cap, 1000, sizeof(int));
  ck_assert_uint_ge(cap, 1000);
  for (int i = 0; i < 1000; i++) a[i] = i; /* the whole capacity is usable */
  ck_assert_int_eq(a[999], 999);
  free(a);
}
END_TEST

static const struct {
  const char *fmt;
  int n;
  const char *want;
} S_printf_cases[] = {
    {"%d", 7, "7"},
    {"[%5d]", 42, "[   42]"},
    {"%x", 255, "ff"},
    {"%-3d|", 1, "1  |"},
    {"%d%%", 50, "50%"},
};

START_TEST(test_buf_printf_table) {
  lit_buf b = LIT_BUF_INIT;
  lit_buf_puts(&b, "pre:");
  lit_buf_printf(&b, S_printf_cases[_i].fmt, S_printf_cases[_i].n);
  char *want = lit_xasprintf("pre:%s", S_printf_cases[_i].want);
  ck_assert_str_eq(b.data, want);
  ck_assert_uint_eq(b.len, strlen(want));
  free(want);
  lit_buf_free(&b);
}
END_TEST

START_TEST(test_buf_ops) {
  lit_buf b = LIT_BUF_INIT;
  lit_buf_put(&b, "ab", 2);
  lit_buf_putc(&b, 'c');
  lit_buf_puts(&b, "def");
  ck_assert_str_eq(b.data, "abcdef");
  ck_assert_uint_eq(b.len, 6);
  lit_buf_truncate(&b, 10); /* longer than the content: no change */
  ck_assert_str_eq(b.data, "abcdef");
  lit_buf_truncate(&b, 2);
  ck_assert_str_eq(b.data, "ab");
  ck_assert_uint_eq(b.len, 2);
  for (int i = 0; i < 10000; i++) lit_buf_putc(&b, (char)('0' + i % 10));
  ck_assert_uint_eq(b.len, 10002);
  ck_assert_int_eq(b.data[10001], '9');
  ck_assert_int_eq(b.data[10002], '\0');
  char *p = lit_buf_detach(&b);
  ck_assert_ptr_null(b.data);
  ck_assert_uint_eq(b.len, 0);
  ck_assert_uint_eq(b.cap, 0);
  ck_assert_int_eq(p[0], 'a');
  free(p);
}
END_TEST

START_TEST(test_buf_detach_empty) {
  lit_buf b = LIT_BUF_INIT;
  char *p = lit_buf_detach(&b);
  ck_assert_ptr_nonnull(p);
  ck_assert_str_eq(p, "");
  free(p);
  lit_buf_put(&b, "", 0); /* an empty append still leaves a terminated string */
  ck_assert_ptr_nonnull(b.data);
  ck_assert_str_eq(b.data, "");
  lit_buf_free(&b);
}
END_TEST

START_TEST(test_read_file) {
  char *dir = ck_tempdir();
  char *path = lit_xasprintf("%s/f", dir);
  FILE *f = fopen(path, "wb");
  char data[100000];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (char)(i * 7);
  fwrite(data, 1, sizeof data, f);
  fclose(f);
  lit_buf b = LIT_BUF_INIT;
  ck_assert_int_eq(lit_read_file(path, &b), 0);
  ck_assert_uint_eq(b.len, sizeof data);
  ck_assert_int_eq(memcmp(b.data, data, sizeof data), 0);
  ck_assert_int_eq(b.data[b.len], '\0');
  lit_buf_free(&b);

  ck_write(dir, "empty", "");
  char *empty = lit_xasprintf("%s/empty", dir);
  ck_assert_int_eq(lit_read_file(empty, &b), 0);
  ck_assert_uint_eq(b.len, 0);
  ck_assert_ptr_nonnull(b.data);
  lit_buf_free(&b);

  char *missing = lit_xasprintf("%s/missing", dir);
  ck_assert_int_eq(lit_read_file(missing, &b), ENOENT);
  lit_buf_free(&b);
  ck_assert_int_eq(lit_read_file(dir, &b), EISDIR);
  lit_buf_free(&b);
  free(path);
  free(empty);
  free(missing);
  ck_rmtree(dir);
}
END_TEST

START_TEST(test_index) {
  lit_index x = LIT_INDEX_INIT;
  size_t v = 99;
  ck_assert_int_eq(lit_index_get(&x, "a", 1, &v), 0); /* empty map */
  enum { N = 5000 };
  char **keys = lit_xmalloc(N * sizeof(char *));
  for (size_t i = 0; i < N; i++) {
    keys[i] = lit_xasprintf("out/dir%zu/file%zu.c", i % 7, i);
    lit_index_put(&x, keys[i], i);
  }
  ck_assert_uint_eq(x.len, N);
  for (size_t i = 0; i < N; i++) {
    ck_assert_int_eq(lit_index_get(&x, keys[i], strlen(keys[i]), &v), 1);
    ck_assert_uint_eq(v, i);
  }
  lit_index_put(&x, keys[10], 12345); /* a new value for an existing key */
  ck_assert_uint_eq(x.len, N);
  ck_assert_int_eq(lit_index_get(&x, keys[10], strlen(keys[10]), &v), 1);
  ck_assert_uint_eq(v, 12345);
  /* only the first len bytes are the key: a prefix or an extension is another key */
  ck_assert_int_eq(lit_index_get(&x, "out/dir0/file0.cX", 16, &v), 1);
  ck_assert_uint_eq(v, 0);
  ck_assert_int_eq(lit_index_get(&x, "out/dir0/file0.", 15, NULL), 0);
  ck_assert_int_eq(lit_index_get(&x, "out/dir0/file0.cc", 17, NULL), 0);
  ck_assert_int_eq(lit_index_get(&x, "out/dir0/file0\0c", 16, NULL), 0);
  lit_index_free(&x);
  ck_assert_uint_eq(x.len, 0);
  ck_assert_int_eq(lit_index_get(&x, keys[0], strlen(keys[0]), &v), 0);
  for (size_t i = 0; i < N; i++) free(keys[i]);
  free(keys);
}
END_TEST

Suite *util_suite(void) {
  Suite *s = suite_create("util");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_strndup_copies_exactly);
  tcase_add_test(tc, test_asprintf_long);
  tcase_add_test(tc, test_grow);
  tcase_add_loop_test(tc, test_buf_printf_table, 0, sizeof S_printf_cases / sizeof S_printf_cases[0]);
  tcase_add_test(tc, test_buf_ops);
  tcase_add_test(tc, test_buf_detach_empty);
  tcase_add_test(tc, test_read_file);
  tcase_add_test(tc, test_index);
  suite_add_tcase(s, tc);
  return s;
}

/* check_record.c: the committed record of generated files. */
#include "check_lit.h"

#include "hash.h"
#include "record.h"

#define H1 "0123456789abcdef0123456789abcdef"
#define H2 "fedcba9876543210fedcba9876543210"
#define HEADER                                                                                                         \
  "# Files written by `lit tangle` and the XXH3-128 hash of the content it wrote.\n"                                   \
  "# Generated: do not edit. It lets lit spot hand edits and remove files whose block was deleted.\n"

START_TEST(test_parse) {
  const char *t = "# comment\n\n" H1 " out/b.c\r\n" H2 " out/a file.c\n" H1 " out/b.c\n";
  lit_record rec;
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_record_parse(&rec, ".lit-record", t, strlen(t), d), 0);
  ck_assert_uint_eq(rec.len, 2); /* a path listed twice is one entry */
  const lit_record_entry *e = lit_record_find(&rec, "out/a file.c");
  ck_assert_ptr_nonnull(e);
  ck_assert_str_eq(e->hash, H2);
  e = lit_record_find(&rec, "out/b.c"); /* the CR of a CRLF line is not part of the path */
  ck_assert_ptr_nonnull(e);
  ck_assert_str_eq(e->hash, H1);
  ck_assert_ptr_null(lit_record_find(&rec, "out/c.c"));
  ck_assert_ptr_null(lit_record_find(&rec, "out/b"));
  lit_record_free(&rec);
  ck_assert_uint_eq(rec.len, 0);
  lit_diags_free(d);
}
END_TEST

/* Each entry keeps its line in the file, so a message about it (an orphan
 * the record still lists) points there; an entry this run sets has none. */
START_TEST(test_parse_lines) {
  const char *t = HEADER "\n" H1 " out/b.c\r\n" H2 " out/a.c\n" H1 " out/b.c\n";
  lit_record rec;
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_record_parse(&rec, ".lit-record", t, strlen(t), d), 0);
  ck_assert_int_eq(lit_record_find(&rec, "out/a.c")->line, 5);
  ck_assert_int_eq(lit_record_find(&rec, "out/b.c")->line, 6); /* listed twice: the later line counts */
  lit_record_set(&rec, "out/a.c", H1);
  lit_record_set(&rec, "out/new.c", H1);
  ck_assert_int_eq(lit_record_find(&rec, "out/a.c")->line, 0);
  ck_assert_int_eq(lit_record_find(&rec, "out/new.c")->line, 0);
  lit_record_free(&rec);
  lit_diags_free(d);
}
END_TEST

static const struct {
  const char *line;
  int ok;
} S_lines[] = {
    {H1 " out/x.c", 1},
    {H1 "  out/x.c", 0},                           /* the path may not start with a space */
    {H1 " ", 0},                                   /* no path */
    {H1, 0},                                       /* no path */
    {"0123456789ABCDEF0123456789abcdef out/x", 0}, /* upper-case hex */
    {"0123456789abcdef0123456789abcde out/x", 0},  /* 31 digits */
    {"0123456789abcdefg123456789abcdef out/x", 0}, /* not hex */
    {H1 "\tout/x.c", 0},
    {H1 " /etc/passwd", 0}, /* lit never wrote an absolute path: removing it would be dangerous */
    {H1 " out/../../x", 0}, /* nor one that climbs out */
    {H1 " ../x", 0},
    {H1 " out//x", 0},
    {"garbage", 0},
};

START_TEST(test_line_shapes) {
  char *t = lit_xasprintf("# header\n%s\n", S_lines[_i].line);
  lit_record rec;
  lit_diags *d = lit_diags_new();
  int r = lit_record_parse(&rec, "rec", t, strlen(t), d);
  ck_assert_msg((r == 0) == S_lines[_i].ok, "'%s': returned %d", S_lines[_i].line, r);
  ck_assert_uint_eq(rec.len, (size_t)S_lines[_i].ok);
  if (!S_lines[_i].ok) {
    char *msg = ck_diags_text(d);
    ck_assert_msg(strncmp(msg, "rec:2:1: error: malformed record line", 37) == 0, "%s", msg);
    free(msg);
  }
  free(t);
  lit_record_free(&rec);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_set_remove_format) {
  lit_record rec;
  memset(&rec, 0, sizeof rec);
  lit_record_set(&rec, "out/z.c", H1);
  lit_record_set(&rec, "out/a.c", H1);
  lit_record_set(&rec, "out/m/b.c", H2);
  lit_record_set(&rec, "out/a.c", H2); /* replaces */
  ck_assert_uint_eq(rec.len, 3);
  ck_assert_str_eq(lit_record_find(&rec, "out/a.c")->hash, H2);
  lit_buf out = LIT_BUF_INIT;
  lit_record_format(&rec, &out);
  ck_assert_str_eq(out.data, HEADER H2 " out/a.c\n" H2 " out/m/b.c\n" H1 " out/z.c\n");
  /* the text parses back to the same record */
  lit_record back;
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_record_parse(&back, "r", out.data, out.len, d), 0);
  ck_assert_uint_eq(back.len, 3);
  for (size_t i = 0; i < rec.len; i++)
    ck_assert_str_eq(lit_record_find(&back, rec.items[i].path)->hash, rec.items[i].hash);
  lit_record_free(&back);
  lit_buf_free(&out);
  lit_record_free(&rec);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_format_empty) {
  lit_record rec;
  memset(&rec, 0, sizeof rec);
  lit_buf out = LIT_BUF_INIT;
  lit_record_format(&rec, &out);
  ck_assert_str_eq(out.data, HEADER);
  lit_buf_free(&out);
}
END_TEST

START_TEST(test_many_entries) {
  lit_record rec;
  memset(&rec, 0, sizeof rec);
  char path[32];
  for (int i = 0; i < 5000; i++) {
    snprintf(path, sizeof path, "out/f%d.c", i);
    lit_record_set(&rec, path, (i % 2) ? H1 : H2);
  }
  for (int i = 0; i < 5000; i += 3) {
    snprintf(path, sizeof path, "out/f%d.c", i);
    const lit_record_entry *e = lit_record_find(&rec, path);
    ck_assert_ptr_nonnull(e);
    ck_assert_str_eq(e->hash, (i % 2) ? H1 : H2);
  }
  ck_assert_uint_eq(rec.len, 5000);
  ck_assert_ptr_null(lit_record_find(&rec, "out/f5000.c"));
  lit_record_free(&rec);
}
END_TEST

START_TEST(test_read) {
  char *dir = ck_tempdir();
  lit_record rec;
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_record_read(&rec, dir, ".lit-record", d), 0); /* absent: empty */
  ck_assert_uint_eq(rec.len, 0);
  ck_write(dir, ".lit-record", H1 " out/x.c\n");
  ck_assert_int_eq(lit_record_read(&rec, dir, ".lit-record", d), 0);
  ck_assert_uint_eq(rec.len, 1);
  lit_record_free(&rec);
  ck_write(dir, "sub/bad", "not a record\n");
  ck_assert_int_eq(lit_record_read(&rec, dir, "sub/bad", d), -1);
  char *t = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(t, "sub/bad:1:1: error: malformed record line"));
  free(t);
  lit_record_free(&rec);
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

/* A file that lists nothing is the record only if it starts with lit's
 * header: an empty or comment-only file of someone else's is refused, not
 * overwritten. A FIFO is refused without waiting on it. */
START_TEST(test_not_a_record) {
  static const struct {
    const char *text;
    int ok;
  } cases[] = {{"", 0}, {"# my notes\n", 0}, {"\n\n", 0}, {HEADER, 1}, {H1 " out/x.c\n", 1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lit_record rec;
    lit_diags *d = lit_diags_new();
    int r = lit_record_parse(&rec, "rec", cases[i].text, strlen(cases[i].text), d);
    ck_assert_msg((r == 0) == cases[i].ok, "'%s': returned %d", cases[i].text, r);
    if (!cases[i].ok) {
      char *t = ck_diags_text(d);
      ck_assert_ptr_nonnull(strstr(t, "rec:1:1: error: this file is not a tangle record"));
      free(t);
    }
    lit_record_free(&rec);
    lit_diags_free(d);
  }
  char *dir = ck_tempdir();
  char *fifo = lit_xasprintf("%s/rec", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  lit_record rec;
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_record_read(&rec, dir, "rec", d), -1);
  char *t = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(t, "not a regular file"));
  free(t);
  free(fifo);
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

Suite *record_suite(void) {
  Suite *s = suite_create("record");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_parse);
  tcase_add_test(tc, test_parse_lines);
  tcase_add_loop_test(tc, test_line_shapes, 0, sizeof S_lines / sizeof S_lines[0]);
  tcase_add_test(tc, test_set_remove_format);
  tcase_add_test(tc, test_format_empty);
  tcase_add_test(tc, test_many_entries);
  tcase_add_test(tc, test_read);
  tcase_add_test(tc, test_not_a_record);
  suite_add_tcase(s, tc);
  return s;
}

/* check_attrs.c: the info string's attribute list, both forms, every error. */
#include "check_lit.h"

#include "attrs.h"

typedef struct {
  int count;
  size_t first_off;
  char first_msg[200];
} S_errs;

static void S_on_error(void *ctx, size_t off, const char *msg) {
  S_errs *e = ctx;
  if (e->count++ == 0) {
    e->first_off = off;
    snprintf(e->first_msg, sizeof e->first_msg, "%s", msg);
  }
}

static const struct {
  const char *info;
  const char *lang, *id, *file;
  size_t nclasses;
  int braced, extra_words, errors;
  size_t err_off;     /* offset of the first error */
  const char *err_in; /* a word the first error's message holds */
} S_cases[] = {
    {"{.cuda #warp-reduce}", "cuda", "warp-reduce", NULL, 1, 1, 0, 0, 0, NULL},
    {"{.cuda file=kernels/x.cu}", "cuda", NULL, "kernels/x.cu", 1, 1, 0, 0, 0, NULL},
    {"{.c #n file=out/a.c .extra}", "c", "n", "out/a.c", 2, 1, 0, 0, 0, NULL},
    {"cuda {#warp-reduce file=k/x.cu}", "cuda", "warp-reduce", "k/x.cu", 1, 1, 0, 0, 0, NULL},
    {"  python   {#main}  ", "python", "main", NULL, 1, 1, 0, 0, 0, NULL},
    {"cuda", "cuda", NULL, NULL, 1, 0, 0, 0, 0, NULL},
    {"c++", "c++", NULL, NULL, 1, 0, 0, 0, 0, NULL},
    {"cpp some words", "cpp", NULL, NULL, 1, 0, 1, 0, 0, NULL},
    {"", NULL, NULL, NULL, 0, 0, 0, 0, 0, NULL},
    {"{#only-name}", NULL, "only-name", NULL, 0, 1, 0, 0, 0, NULL},
    {"{.py .example}", "py", NULL, NULL, 2, 1, 0, 0, 0, NULL},
    {"{.c file=\"out/with space.c\"}", "c", NULL, "out/with space.c", 1, 1, 0, 0, 0, NULL},
    {"{.c file=\"out/q\\\"uote.c\"}", "c", NULL, "out/q\"uote.c", 1, 1, 0, 0, 0, NULL},
    {"{.c #π-σ}", "c", "π-σ", NULL, 1, 1, 0, 0, 0, NULL},
    {"{.c\t#tabbed}", "c", "tabbed", NULL, 1, 1, 0, 0, 0, NULL},
    /* errors: the offset points at the offending part */
    {"{.c #n", "c", "n", NULL, 1, 1, 0, 1, 6, "closing"},
    {"{.c ", "c", NULL, NULL, 1, 1, 0, 1, 4, "closing"},
    {"{.c lang=c}", "c", NULL, NULL, 1, 1, 0, 1, 4, "unknown attribute 'lang'"},
    {"{.c fille=x}", "c", NULL, NULL, 1, 1, 0, 1, 4, "fille"},
    {"{.c #}", "c", NULL, NULL, 1, 1, 0, 1, 4, "empty chunk name"},
    {"{. #x}", NULL, "x", NULL, 0, 1, 0, 1, 1, "empty class"},
    {"{.c file=}", "c", NULL, NULL, 1, 1, 0, 1, 4, "needs a path"},
    {"{.c =x}", "c", NULL, NULL, 1, 1, 0, 1, 4, "no attribute name"},
    {"{.c #a=b}", "c", NULL, NULL, 1, 1, 0, 1, 4, "identifier"},
    {"{.c=1}", NULL, NULL, NULL, 0, 1, 0, 1, 1, "class"},
    {"{.c #a #b}", "c", "a", NULL, 1, 1, 0, 1, 7, "only one #name"},
    {"{.c file=a file=b}", "c", NULL, "a", 1, 1, 0, 1, 11, "only one file"},
    {"{.c #bad!name}", "c", NULL, NULL, 1, 1, 0, 1, 4, "letters, digits"},
    {"{.c file=\"open}", "c", NULL, NULL, 1, 1, 0, 2, 4, "unterminated"},
    {"{.c} tail", "c", NULL, NULL, 1, 1, 0, 1, 5, "after the closing"},
    {"{.c word}", "c", NULL, NULL, 1, 1, 0, 1, 4, "expected .class"},
    {"{.c \"}", "c", NULL, NULL, 1, 1, 0, 1, 4, "unexpected character"},
};

START_TEST(test_parse_table) {
  lit_attrs a;
  S_errs e = {0, 0, ""};
  int n = lit_attrs_parse(S_cases[_i].info, &a, S_on_error, &e);
  const char *info = S_cases[_i].info;
  ck_assert_msg(n == S_cases[_i].errors, "%s: %d errors, want %d (%s)", info, n, S_cases[_i].errors, e.first_msg);
  ck_assert_int_eq(e.count, n);
  if (S_cases[_i].lang) ck_assert_pstr_eq(a.lang, S_cases[_i].lang);
  else ck_assert_ptr_null(a.lang);
  if (S_cases[_i].id) ck_assert_pstr_eq(a.id, S_cases[_i].id);
  else ck_assert_ptr_null(a.id);
  if (S_cases[_i].file) ck_assert_pstr_eq(a.file, S_cases[_i].file);
  else ck_assert_ptr_null(a.file);
  ck_assert_msg(a.nclasses == S_cases[_i].nclasses, "%s: %zu classes", info, a.nclasses);
  ck_assert_int_eq(a.braced, S_cases[_i].braced);
  ck_assert_int_eq(a.extra_words, S_cases[_i].extra_words);
  if (n) {
    ck_assert_msg(e.first_off == S_cases[_i].err_off, "%s: error at %zu, want %zu", info, e.first_off,
                  S_cases[_i].err_off);
    ck_assert_msg(strstr(e.first_msg, S_cases[_i].err_in) != NULL, "%s: message '%s'", info, e.first_msg);
  }
  if (a.id) ck_assert_int_eq(info[a.id_off], '#');
  if (a.file) ck_assert_int_eq(memcmp(info + a.file_off, "file", 4), 0);
  lit_attrs_free(&a);
  ck_assert_ptr_null(a.lang);
  ck_assert_uint_eq(a.nclasses, 0);
}
END_TEST

START_TEST(test_classes_and_has_class) {
  lit_attrs a;
  ck_assert_int_eq(lit_attrs_parse("{.lua .data #gpu-specs}", &a, NULL, NULL), 0);
  ck_assert_uint_eq(a.nclasses, 2);
  ck_assert_str_eq(a.classes[0], "lua");
  ck_assert_str_eq(a.classes[1], "data");
  ck_assert_int_eq(lit_attrs_has_class(&a, "data"), 1);
  ck_assert_int_eq(lit_attrs_has_class(&a, "dat"), 0);
  ck_assert_int_eq(lit_attrs_has_class(&a, "render"), 0);
  lit_attrs_free(&a);
}
END_TEST

static const struct {
  const char *name;
  int ok;
} S_names[] = {
    {"warp-reduce", 1}, {"a_b:c/d.e-f", 1}, {"X9", 1}, {"réduction", 1}, {"", 0},
    {"a b", 0},         {"a!", 0},          {"<x>", 0}, {"a\tb", 0},      {"a=b", 0},
};

START_TEST(test_name_valid) {
  ck_assert_msg(lit_name_valid(S_names[_i].name, strlen(S_names[_i].name)) == S_names[_i].ok, "'%s'",
                S_names[_i].name);
}
END_TEST

START_TEST(test_name_valid_uses_len) {
  ck_assert_int_eq(lit_name_valid("ab cd", 2), 1); /* only the first len bytes count */
  ck_assert_int_eq(lit_name_valid("ab", 0), 0);
}
END_TEST

Suite *attrs_suite(void) {
  Suite *s = suite_create("attrs");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_parse_table, 0, sizeof S_cases / sizeof S_cases[0]);
  tcase_add_test(tc, test_classes_and_has_class);
  tcase_add_loop_test(tc, test_name_valid, 0, sizeof S_names / sizeof S_names[0]);
  tcase_add_test(tc, test_name_valid_uses_len);
  suite_add_tcase(s, tc);
  return s;
}

/* check_stats.c: the share of code lines that is tangled (lit stats). */
#include "check_lit.h"

#include "stats.h"

/* A file root and what it reaches count as tangled; a chunk no file reaches
 * as unreached; .example blocks apart; shell, text, .data and .render
 * blocks not at all. */
START_TEST(test_counts) {
  const char *index = "---\ntangle-roots: out\n---\n1. [A](a.md)\n\n"
                      "```{.c file=out/x.c}\nint x;\n<<used>>\n```\n"
                      "```{.c #used}\nint u1;\nint u2;\n```\n"
                      "```{.py #orphan}\na = 1\nb = 2\nc = 3\n```\n"
                      "```{.cuda .example}\n__global__ void k();\n```\n"
                      "```sh\necho not counted\n```\n"
                      "```{.lua .data #d}\nreturn {}\n```\n";
  const char *a = "# A\n\n```{.toml file=out/b.toml}\n[x]\ny = 1\n```\n"
                  "```python {.example}\nprint(1)\nprint(2)\n```\n";
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(index, a, NULL, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_stats st;
  lit_buf out = LIT_BUF_INIT;
  lit_stats_compute(p, &st, &out);
  ck_assert_uint_eq(st.tangled_lines, 2 + 2 + 2); /* x.c's root, 'used', b.toml */
  ck_assert_uint_eq(st.unreached_lines, 3);       /* 'orphan' */
  ck_assert_uint_eq(st.example_lines, 1 + 2);
  /* one line per document, in reading order */
  ck_assert_ptr_nonnull(out.data);
  const char *ix = strstr(out.data, "index.md"), *ad = strstr(out.data, "a.md");
  ck_assert(ix && ad && ix < ad);
  ck_assert_ptr_nonnull(strstr(ix, "4 tangled      1 example      3 unreached\n"));
  ck_assert_ptr_nonnull(strstr(ad, "2 tangled      2 example      0 unreached\n"));
  lit_buf_free(&out);
  /* without a report, the same counts */
  lit_stats again;
  lit_stats_compute(p, &again, NULL);
  ck_assert_uint_eq(again.tangled_lines, st.tangled_lines);
  ck_assert_uint_eq(again.unreached_lines, st.unreached_lines);
  ck_assert_uint_eq(again.example_lines, st.example_lines);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* A document with no code has no report line; an empty project counts 0. */
START_TEST(test_empty) {
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load("# Nothing\n\nProse only.\n", NULL, NULL, d);
  lit_stats st;
  lit_buf out = LIT_BUF_INIT;
  lit_stats_compute(p, &st, &out);
  ck_assert_uint_eq(st.tangled_lines + st.example_lines + st.unreached_lines, 0);
  ck_assert_uint_eq(out.len, 0);
  lit_buf_free(&out);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* A chunk reached only through a long chain is still tangled. */
START_TEST(test_deep_chain) {
  enum { N = 5000 };
  lit_buf t = LIT_BUF_INIT;
  lit_buf_puts(&t, "---\ntangle-roots: out\n---\n```{.c file=out/x.c}\n<<c0>>\n```\n");
  for (int i = 0; i < N; i++) {
    lit_buf_printf(&t, "```{.c #c%d}\nint v%d;\n", i, i);
    if (i + 1 < N) lit_buf_printf(&t, "<<c%d>>\n", i + 1);
    lit_buf_puts(&t, "```\n");
  }
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(t.data, NULL, NULL, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_stats st;
  lit_stats_compute(p, &st, NULL);
  ck_assert_uint_eq(st.tangled_lines, 1 + (size_t)N * 2 - 1);
  ck_assert_uint_eq(st.unreached_lines, 0);
  lit_project_free(p);
  lit_diags_free(d);
  lit_buf_free(&t);
}
END_TEST

Suite *stats_suite(void) {
  Suite *s = suite_create("stats");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_counts);
  tcase_add_test(tc, test_empty);
  tcase_add_test(tc, test_deep_chain);
  suite_add_tcase(s, tc);
  return s;
}

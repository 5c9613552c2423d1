/* check_dump.c: the chunk model as stable text. */
#include "check_lit.h"

#include "dump.h"

START_TEST(test_dump) {
  const char *index = "---\ntangle-roots: out kernels\n---\n1. [A](a.md)\n\n"
                      "```{.c file=out/x.c}\n<<p>>\n```\n\n```{.lua .data #specs}\nreturn {}\n```\n\n"
                      "```{.c #named file=out/y.c}\ny;\n```\n";
  const char *a = "# A\n\n```{.c #p}\n  <<q>>\n```\n\n```{.c #q}\nq;\n```\n\n```{.c #p}\nmore;\n```\n";
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(index, a, NULL, d);
  lit_buf out = LIT_BUF_INIT;
  lit_dump(p, &out);
  ck_assert_str_eq(out.data, "reading order\n"
                             "  1 index.md\n"
                             "  2 a.md\n"
                             "output folders\n"
                             "  out/\n"
                             "  kernels/\n"
                             "data specs\n"
                             "  defined index.md:10\n"
                             "chunk named\n"
                             "  defined index.md:14 (writes out/y.c)\n"
                             "chunk p\n"
                             "  defined a.md:3\n"
                             "  defined a.md:11\n"
                             "  used index.md:7:1 in file out/x.c\n"
                             "chunk q\n"
                             "  defined a.md:7\n"
                             "  used a.md:4:3 in chunk p\n"
                             "file out/x.c\n"
                             "  from index.md:6\n"
                             "file out/y.c\n"
                             "  from index.md:14 (chunk named, 1 definitions)\n");
  /* stable: the same project dumps to the same text */
  lit_buf again = LIT_BUF_INIT;
  lit_dump(p, &again);
  ck_assert_str_eq(again.data, out.data);
  lit_buf_free(&again);
  lit_buf_free(&out);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

Suite *dump_suite(void) {
  Suite *s = suite_create("dump");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_dump);
  suite_add_tcase(s, tc);
  return s;
}

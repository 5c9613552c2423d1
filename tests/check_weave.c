/* check_weave.c: the woven project: anchors, relative paths, and every
 * link checked and rewritten (through both back ends). */
#include "check_lit.h"

#include "book.h"
#include "skill.h"
#include "weave.h"

START_TEST(test_slugs_and_paths) {
  static const struct {
    const char *text, *slug;
  } cases[] = {{"Shared memory", "shared-memory"},
               {"L2: 50 MB changes how you benchmark", "l2-50-mb-changes-how-you-benchmark"},
               {"sm_90 versus sm_90a", "sm_90-versus-sm_90a"},
               {"Bytes \xe2\x80\x94 in flight", "bytes--in-flight"},
               {"!!!", "section"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lit_buf b = LIT_BUF_INIT;
    lit_weave_slug(cases[i].text, strlen(cases[i].text), &b);
    ck_assert_str_eq(b.data, cases[i].slug);
    lit_buf_free(&b);
  }
  char *r = lit_weave_relative("references/a.md", "SKILL.md");
  ck_assert_str_eq(r, "../SKILL.md");
  free(r);
  r = lit_weave_relative("SKILL.md", "references/a.md");
  ck_assert_str_eq(r, "references/a.md");
  free(r);
  r = lit_weave_relative("references/a.md", "scripts/x.py");
  ck_assert_str_eq(r, "../scripts/x.py");
  free(r);
}
END_TEST

START_TEST(test_broken_links_fail) {
  static const struct {
    const char *a, *want;
  } cases[] = {
      {"# A\n\n[x](nowhere.md)\n", "a.md:3:5: error: link 'nowhere.md': no document or generated file nowhere.md"},
      {"# A\n\n[x](#nope)\n", "a.md:3:5: error: link '#nope': this document has no heading with that anchor"},
      {"# A\n\ntext\n\n[x](b.md#nope)\n",
       "a.md:5:5: error: link 'b.md#nope': b.md has no heading with the anchor 'nope'"},
      {"# A\n\n[x](../../etc/passwd)\n", "a.md:3:5: error: link '../../etc/passwd' leads outside the project"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    for (int book = 0; book < 2; book++) {
      lit_diags *d = lit_diags_new();
      lit_project *p = ck_load(CK_WEAVE_IX, cases[i].a, CK_WEAVE_B, d);
      lit_tree t = LIT_TREE_INIT;
      char *name = NULL;
      lit_status r = book ? lit_book_build(p, &t, d) : lit_skill_build(p, &t, &name, d);
      char *text = ck_diags_text(d);
      ck_assert_int_eq(r, LIT_FAILED);
      ck_assert_msg(strstr(text, cases[i].want) != NULL, "case %zu (%s): %s", i, book ? "book" : "skill", text);
      free(text);
      free(name);
      lit_tree_free(&t);
      lit_project_free(p);
      lit_diags_free(d);
    }
  }
}
END_TEST

/* [A](a%00b.md): the loader and the weaver read the link alike (one
 * resolver, paths.c), so the book finds the page the tangle read. */
START_TEST(test_link_with_percent_00) {
  const char *names[2] = {"index.md", "a%00b.md"};
  const char *texts[2] = {"---\ntangle-roots: kernels\n---\n# Home\n\n1. [A](a%00b.md)\n", "# A\n\nText.\n"};
  size_t lens[2] = {strlen(texts[0]), strlen(texts[1])};
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load_memory(names, texts, lens, 2, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  ck_assert_uint_eq(p->ndocs, 2);
  ck_assert_str_eq(p->docs[1]->src.path, "a%00b.md");
  lit_tree t = LIT_TREE_INIT;
  ck_assert_int_eq(lit_book_build(p, &t, d), LIT_OK);
  char *msgs = ck_diags_text(d);
  ck_assert_msg(lit_diags_count(d, LIT_ERROR) == 0, "%s", msgs);
  free(msgs);
  lit_tree_file *f = ck_tree_find(&t, "index.html");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "href=\"a%00b.html\""), "%s", f->data);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

Suite *weave_suite(void) {
  Suite *s = suite_create("weave");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_slugs_and_paths);
  tcase_add_test(tc, test_broken_links_fail);
  tcase_add_test(tc, test_link_with_percent_00);
  suite_add_tcase(s, tc);
  return s;
}

/* check_weave.c: the woven project: anchors, relative paths, and every
 * link checked and rewritten (through both back ends). */
#include "check_lit.h"

#include "book.h"
#include "hash.h"
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
 * resolver, paths.c), so the book finds the page the tangle read; the
 * page keeps the name, and the link to it escapes its '%'. */
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
  ck_assert_msg(strstr(f->data, "href=\"a%2500b.html\""), "%s", f->data);
  ck_assert_ptr_nonnull(ck_tree_find(&t, "a%00b.html"));
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* Runs slugs[0..n) through one page's slugger; each result is added to
 * the page's anchors, as the weaver does. out[i] gets a copy. */
static size_t S_unique_anchors(const char *const *slugs, size_t n, char **out) {
  lit_slugger sg = LIT_SLUGGER_INIT;
  lit_index anchors = LIT_INDEX_INIT;
  for (size_t i = 0; i < n; i++) {
    lit_buf b = LIT_BUF_INIT;
    lit_buf_puts(&b, slugs[i]);
    lit_slugger_unique(&sg, &anchors, &b);
    out[i] = lit_buf_detach(&b);
    lit_index_put(&anchors, out[i], i);
  }
  size_t probes = sg.probes;
  lit_slugger_free(&sg);
  lit_index_free(&anchors);
  return probes;
}

/* The anchors GitHub gives (and lit gave before it remembered suffixes):
 * the slug, else slug-1, slug-2, ..., probed from the start every time. */
static void S_probing_anchors(const char *const *slugs, size_t n, char **out) {
  lit_index anchors = LIT_INDEX_INIT;
  for (size_t i = 0; i < n; i++) {
    lit_buf b = LIT_BUF_INIT;
    lit_buf_puts(&b, slugs[i]);
    size_t base = b.len;
    for (int k = 1; lit_index_get(&anchors, b.data, b.len, NULL); k++) {
      lit_buf_truncate(&b, base);
      lit_buf_printf(&b, "-%d", k);
    }
    out[i] = lit_buf_detach(&b);
    lit_index_put(&anchors, out[i], i);
  }
  lit_index_free(&anchors);
}

/* Repeated headings get -1, -2, ...; a generated suffix never takes the
 * anchor of a heading that spells it ("a", "a-1", "a": the second "a" is
 * a-2), and a heading that spells a taken one gets its own suffix. */
START_TEST(test_anchor_sequences) {
  static const struct {
    const char *in[6], *want[6];
  } cases[] = {
      {{"a", "a", "a"}, {"a", "a-1", "a-2"}},
      {{"a", "a-1", "a"}, {"a", "a-1", "a-2"}},
      {{"a", "a", "a-1"}, {"a", "a-1", "a-1-1"}},
      {{"a-1", "a", "a", "a"}, {"a-1", "a", "a-2", "a-3"}},
      {{"a", "a-2", "a", "a", "a"}, {"a", "a-2", "a-1", "a-3", "a-4"}},
      {{"a", "a", "a-1", "a-1", "a"}, {"a", "a-1", "a-1-1", "a-1-2", "a-2"}},
      {{"b", "a", "b", "a", "section", "section"}, {"b", "a", "b-1", "a-1", "section", "section-1"}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    size_t n = 0;
    while (n < 6 && cases[c].in[n])
      n++;
    char *got[6];
    S_unique_anchors(cases[c].in, n, got);
    for (size_t i = 0; i < n; i++) {
      ck_assert_msg(strcmp(got[i], cases[c].want[i]) == 0, "case %zu, heading %zu: %s, not %s", c, i, got[i],
                    cases[c].want[i]);
      free(got[i]);
    }
  }
}
END_TEST

/* Random sequences over slugs that clash with each other's suffixes: the
 * same anchors as probing from the start. */
START_TEST(test_anchor_same_as_probing) {
  static const char *const words[] = {"a", "a-1", "a-2", "a-1-1", "a-10", "b", "b-1", "section"};
  enum { N = 400 };
  const char *in[N];
  char *fast[N], *slow[N];
  unsigned long seed = 12345;
  for (int round = 0; round < 50; round++) {
    for (size_t i = 0; i < N; i++) {
      seed = seed * 6364136223846793005UL + 1442695040888963407UL;
      in[i] = words[(seed >> 33) % (sizeof words / sizeof words[0])];
    }
    S_unique_anchors(in, N, fast);
    S_probing_anchors(in, N, slow);
    for (size_t i = 0; i < N; i++) {
      ck_assert_msg(strcmp(fast[i], slow[i]) == 0, "round %d, heading %zu (%s): %s, not %s", round, i, in[i], fast[i],
                    slow[i]);
      free(fast[i]);
      free(slow[i]);
    }
  }
}
END_TEST

/* 50,000 identical headings cost one lookup each, not one per heading
 * before them (1.25 billion): the test counts, so no clock can flake it. */
START_TEST(test_anchor_probes_linear) {
  enum { N = 50000 };
  const char **in = lit_xmalloc(N * sizeof *in);
  char **out = lit_xmalloc(N * sizeof *out);
  for (size_t i = 0; i < N; i++)
    in[i] = "notes"; /* one slug, many headings */
  size_t probes = S_unique_anchors(in, N, out);
  ck_assert_uint_eq(probes, N);
  ck_assert_str_eq(out[N - 1], "notes-49999");
  for (size_t i = 0; i < N; i++)
    free(out[i]);
  free(out);
  free(in);
  /* and where the literal suffixes are taken first, each is skipped once */
  static const char *const clash[] = {"x-1", "x-2", "x-3", "x", "x", "x", "x", "x"};
  char *got[8];
  ck_assert_uint_eq(S_unique_anchors(clash, 8, got), 3 + 1 + 4 + 3);
  ck_assert_str_eq(got[7], "x-7");
  for (size_t i = 0; i < 8; i++)
    free(got[i]);
}
END_TEST

/* Through the weave: a page's repeated headings and their anchors. */
START_TEST(test_weave_repeated_headings) {
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(CK_WEAVE_IX, "# A\n\n## Notes\n\n## Notes-1\n\n## Notes\n\n## Notes\n", CK_WEAVE_B, d);
  lit_weave *w = lit_weave_new(p, LIT_WEAVE_BOOK, NULL, d);
  ck_assert_ptr_nonnull(w);
  const lit_wdoc *pg = lit_weave_page(w, "a.md");
  static const char *const want[] = {"a", "notes", "notes-1", "notes-2", "notes-3"};
  ck_assert_uint_eq(pg->nheads, 5);
  for (size_t i = 0; i < 5; i++)
    ck_assert_str_eq(pg->heads[i].slug, want[i]);
  lit_weave_free(w);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* A weave's output folder is replaced whole. A manifest there, forged to
 * vouch for every file with its hash, must still not let the book or the
 * skill bundle replace the project's own folder (nor one holding its
 * documents, record or output folders): they are the sources. */
START_TEST(test_out_never_holds_project) {
  char *base = ck_tempdir();
  char *dir = lit_xasprintf("%s/t", base); /* the skill's name: skill --out BASE writes BASE/t */
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  const char *files[][2] = {{"index.md", CK_WEAVE_IX}, {"a.md", CK_WEAVE_A}, {"b.md", CK_WEAVE_B}};
  lit_buf man = LIT_BUF_INIT;
  char hex[LIT_HASH_HEX + 1];
  for (size_t i = 0; i < 3; i++) {
    ck_write(dir, files[i][0], files[i][1]);
    lit_hash_hex(files[i][1], strlen(files[i][1]), hex);
    lit_buf_printf(&man, "%s  %s\n", hex, files[i][0]);
  }
  ck_write(dir, LIT_TREE_MANIFEST, man.data);
  lit_buf_free(&man);
  char *sub = lit_xasprintf("%s/.", dir);
  for (int k = 0; k < 3; k++) {
    lit_diags *d = lit_diags_new();
    lit_project *p = lit_project_load(dir, "index.md", d);
    ck_assert_ptr_nonnull(p);
    lit_book_opts bo = {k == 0 ? dir : sub, 0};
    lit_skill_opts so = {base, 0};
    lit_status r = k < 2 ? lit_book_run(p, &bo, d) : lit_skill_run(p, &so, d);
    char *t = ck_diags_text(d);
    ck_assert_msg(r == LIT_FAILED && strstr(t, "the project's own") != NULL, "run %d: %s", k, t);
    free(t);
    for (size_t i = 0; i < 3; i++) {
      char *now = ck_read(dir, files[i][0]);
      ck_assert_msg(now && strcmp(now, files[i][1]) == 0, "run %d: %s was not kept", k, files[i][0]);
      free(now);
    }
    lit_project_free(p);
    lit_diags_free(d);
  }
  free(sub);
  free(dir);
  ck_rmtree(base);
}
END_TEST

Suite *weave_suite(void) {
  Suite *s = suite_create("weave");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_slugs_and_paths);
  tcase_add_test(tc, test_broken_links_fail);
  tcase_add_test(tc, test_link_with_percent_00);
  tcase_add_test(tc, test_anchor_sequences);
  tcase_add_test(tc, test_anchor_same_as_probing);
  tcase_add_test(tc, test_anchor_probes_linear);
  tcase_add_test(tc, test_weave_repeated_headings);
  tcase_add_test(tc, test_out_never_holds_project);
  suite_add_tcase(s, tc);
  return s;
}

/* check_book.c: the book's pages, tables, search index and print page. */
#include "check_lit.h"

#include "book.h"
#include "paths.h"

START_TEST(test_book_pages) {
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(CK_WEAVE_IX, CK_WEAVE_A, CK_WEAVE_B, d);
  lit_tree t = LIT_TREE_INIT;
  ck_assert_int_eq(lit_book_build(p, &t, d), LIT_OK);
  lit_tree_file *f = ck_tree_find(&t, "a.html");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "<h2 id=\"the-part\">") && strstr(f->data, "href=\"index.html\">home</a>") &&
                    strstr(f->data, "href=\"b.html#b-part\"") && strstr(f->data, "id=\"file-kernels/k.cu\"") &&
                    strstr(f->data, "<a href=\"b.html#chunk-body-1\" title=\"defined in B\">body</a>") &&
                    strstr(f->data, "<a href=\"a.html\" aria-current=\"page\">A</a>") &&
                    strstr(f->data, "rel=\"prev\" href=\"index.html\"") &&
                    strstr(f->data, "rel=\"next\" href=\"b.html\""),
                "%s", f->data);
  f = ck_tree_find(&t, "b.html");
  ck_assert_msg(strstr(f->data, "used in <a href=\"a.html#file-kernels/k.cu\"><code>kernels/k.cu</code></a>") &&
                    strstr(f->data, "<a href=\"a.html#file-kernels/k.cu\">k</a>"),
                "%s", f->data);
  f = ck_tree_find(&t, "chunks.html");
  ck_assert_msg(
      strstr(f->data,
             "<code>kernels/k.cu</code></a></td><td><a href=\"a.html#file-kernels/k.cu\" title=\"A\">a &#167;&#160;The "
             "part</a>") != NULL,
      "%s", f->data);
  ck_assert_ptr_nonnull(ck_tree_find(&t, "style.css"));
  ck_assert_ptr_nonnull(ck_tree_find(&t, "index.html"));
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_book_tables_search_print) {
  lit_diags *d = lit_diags_new();
  const char *a = "# A\n\n## Numbers\n\n| name | n | note |\n| --- | --- | --- |\n| x | 1.5 | y |\n| z | - | 2 "
                  "w |\n\nSee [b](b.md#b-part).\n\n```cuda {file=kernels/k.cu}\n<<body>>\n```\n";
  lit_project *p = ck_load(CK_WEAVE_IX, a, CK_WEAVE_B, d);
  lit_tree t = LIT_TREE_INIT;
  ck_assert_int_eq(lit_book_build(p, &t, d), LIT_OK);
  lit_tree_file *f = ck_tree_find(&t, "a.html");
  /* the numeric column is right-aligned, the others are not; the table scrolls in a named, focusable frame */
  ck_assert_msg(strstr(f->data, "<div class=\"table-wrap\" tabindex=\"0\" role=\"region\" aria-label=\"Table 1: "
                                "Numbers\">") &&
                    strstr(f->data, "<td align=\"right\">1.5</td>") && strstr(f->data, "<td>y</td>") &&
                    strstr(f->data, "<td>2 w</td>"),
                "%s", f->data);
  f = ck_tree_find(&t, "search-index.js");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "[1,\"numbers\",\"Numbers\",\"name n note\\nx 1.5 y\\nz - 2 w\\nSee b.\\n"
                                "\\u003c\\u003cbody>>\"]") &&
                    strstr(f->data, "[\"a.html\",\"A\"]") && strstr(f->data, "[2,\"b-part\",\"B part\",\"x = 1;"),
                "%s", f->data);
  f = ck_tree_find(&t, "print.html"); /* ids carry their page; links between pages stay inside print.html */
  ck_assert_msg(strstr(f->data, "<section class=\"print-page\" id=\"a\">") &&
                    strstr(f->data, "<h2 id=\"a--numbers\">") && strstr(f->data, "href=\"#b--b-part\"") &&
                    strstr(f->data, "href=\"#a--numbers\""),
                "%s", f->data);
  ck_assert_ptr_nonnull(ck_tree_find(&t, "404.html"));
  ck_assert_ptr_nonnull(ck_tree_find(&t, "book.js"));
  ck_assert_ptr_nonnull(ck_tree_find(&t, "favicon.svg"));
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* A link with an empty destination (href="") is copied into print.html as
 * it is: no page, no anchor to prefix (fuzz_weave found it read before the
 * destination's start). */
START_TEST(test_book_print_empty_link) {
  lit_diags *d = lit_diags_new();
  const char *a = "# A\n\nAn empty link: [nothing]().\n\n```cuda {file=kernels/k.cu}\n<<body>>\n```\n";
  lit_project *p = ck_load(CK_WEAVE_IX, a, CK_WEAVE_B, d);
  lit_tree t = LIT_TREE_INIT;
  ck_assert_int_eq(lit_book_build(p, &t, d), LIT_OK);
  lit_tree_file *f = ck_tree_find(&t, "print.html");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "<a href=\"\">nothing</a>"), "%s", f->data);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* The book's own files keep their names: a document that would be woven to
 * one of them (print.md, chunks.md) is an error naming it, at its link in
 * the table of contents (the line to edit when it is renamed). */
START_TEST(test_book_reserved_names) {
  static const char *const names[] = {"print", "chunks", "404"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char *ix = lit_xasprintf("# Home\n\n1. [X](%s.md)\n", names[i]);
    char *path = lit_xasprintf("%s.md", names[i]);
    const char *paths[2] = {"index.md", path};
    const char *texts[2] = {ix, "# X\n"};
    size_t lens[2] = {strlen(ix), strlen(texts[1])};
    lit_diags *d = lit_diags_new();
    lit_project *p = lit_project_load_memory(paths, texts, lens, 2, d);
    ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
    lit_tree t = LIT_TREE_INIT;
    ck_assert_int_eq(lit_book_build(p, &t, d), LIT_FAILED);
    char *msgs = ck_diags_text(d),
         *want = lit_xasprintf("index.md:3:4: error: %s.md would be woven to %s.html, which the book keeps for itself",
                               names[i], names[i]);
    ck_assert_msg(strstr(msgs, want) != NULL, "%s", msgs);
    free(want);
    free(msgs);
    lit_tree_free(&t);
    lit_project_free(p);
    lit_diags_free(d);
    free(path);
    free(ix);
  }
}
END_TEST

/* Two documents woven to one page: an error at the second one's link. */
START_TEST(test_book_same_page) {
  const char *paths[3] = {"index.md", "a.md", "sub/a.md"};
  const char *texts[3] = {"# Home\n\n1. [A](a.md)\n2. [Sub A](sub/a.md)\n", "# A\n", "# Sub A\n"};
  size_t lens[3] = {strlen(texts[0]), strlen(texts[1]), strlen(texts[2])};
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load_memory(paths, texts, lens, 3, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_tree t = LIT_TREE_INIT;
  ck_assert_int_eq(lit_book_build(p, &t, d), LIT_FAILED);
  char *msgs = ck_diags_text(d);
  ck_assert_msg(strstr(msgs, "index.md:4:4: error: sub/a.md and a.md would both be woven to a.html; rename one\n"), "%s",
                msgs);
  free(msgs);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* Every href in f that leads to another file of the book names one, once
 * its %XX are decoded (as a browser decodes them); the fragment aside. */
static void S_hrefs_resolve(lit_tree *t, const lit_tree_file *f) {
  for (const char *s = f->data; (s = strstr(s, " href=\"")) != NULL;) {
    s += 7;
    size_t len = strcspn(s, "\"#");
    if (len && !memchr(s, ':', len)) {
      char *name = lit_path_unescape(s, len);
      ck_assert_msg(ck_tree_find(t, name) != NULL, "%s: href to %s, which the book has not", f->path, name);
      free(name);
    }
  }
}

/* Documents whose names a URL must escape (' ', '(', '#', '?', '%'): the
 * pages keep those names, and every link to them is percent-encoded, so a
 * browser opens the page the link means. */
START_TEST(test_book_odd_names) {
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_odd_names_project(d);
  lit_tree t = LIT_TREE_INIT;
  ck_assert_int_eq(lit_book_build(p, &t, d), LIT_OK);
  ck_assert_ptr_nonnull(ck_tree_find(&t, "a b(1)#x?.html"));
  lit_tree_file *f = ck_tree_find(&t, "p%41.html");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "href=\"a%20b%281%29%23x%3F.html#odd\"") &&
                    strstr(f->data, "rel=\"prev\" href=\"a%20b%281%29%23x%3F.html\"") &&
                    strstr(f->data, "<a href=\"p%2541.html\" aria-current=\"page\">Pct</a>"),
                "%s", f->data);
  f = ck_tree_find(&t, "a b(1)#x?.html");
  ck_assert_msg(strstr(f->data, "href=\"p%2541.html#pct\"") && strstr(f->data, "href=\"p%2541.html#chunk-body-1\""),
                "%s", f->data);
  f = ck_tree_find(&t, "search-index.js");
  ck_assert_msg(strstr(f->data, "[\"a%20b%281%29%23x%3F.html\",\"Odd\"]") &&
                    strstr(f->data, "[\"p%2541.html\",\"Pct\"]"),
                "%s", f->data);
  f = ck_tree_find(&t, "print.html"); /* the id as named, the link to it encoded */
  ck_assert_msg(strstr(f->data, "id=\"p%41--pct\"") && strstr(f->data, "href=\"#p%2541--pct\"") &&
                    strstr(f->data, "href=\"#a%20b%281%29%23x%3F--odd\""),
                "%s", f->data);
  for (size_t i = 0; i < t.n; i++)
    if (strstr(t.files[i].path, ".html")) S_hrefs_resolve(&t, &t.files[i]);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

Suite *book_suite(void) {
  Suite *s = suite_create("book");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_book_pages);
  tcase_add_test(tc, test_book_tables_search_print);
  tcase_add_test(tc, test_book_print_empty_link);
  tcase_add_test(tc, test_book_reserved_names);
  tcase_add_test(tc, test_book_same_page);
  tcase_add_test(tc, test_book_odd_names);
  suite_add_tcase(s, tc);
  return s;
}

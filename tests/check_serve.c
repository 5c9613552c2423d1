/* check_serve.c: the live preview's rules: what `lit serve` may send, to whom, and from which folder. */
#include "check_lit.h"

#include "hash.h"
#include "serve.h"

START_TEST(test_serve_paths) {
  static const struct {
    const char *url, *want; /* want NULL: refused */
  } cases[] = {
      {"/", "index.html"},
      {"/guide.html", "guide.html"},
      {"/style.css", "style.css"},
      {"/sub/", "sub/index.html"},
      {"/sub/page.html", "sub/page.html"},
      {"/..", NULL},
      {"/../index.md", NULL},
      {"/sub/../../etc/passwd", NULL},
      {"/./guide.html", NULL},
      {"//etc/passwd", NULL},
      {"/sub//x", NULL},
      {"/.lit-record", NULL},
      {"/sub/.git/config", NULL},
      {"/a\\..\\b", NULL},
      {"guide.html", NULL},
      {"", NULL},
  };
  char rel[64];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int r = lit_serve_path(cases[i].url, rel, sizeof rel);
    if (cases[i].want) {
      ck_assert_msg(r == 0, "case %zu (%s) refused", i, cases[i].url);
      ck_assert_str_eq(rel, cases[i].want);
    } else {
      ck_assert_msg(r != 0, "case %zu (%s) accepted as %s", i, cases[i].url, rel);
    }
  }
  ck_assert_int_ne(lit_serve_path("/a-name-too-long-for-the-buffer.html", rel, 8), 0);
  ck_assert_int_ne(lit_serve_path(NULL, rel, sizeof rel), 0);
}
END_TEST

/* DNS rebinding: only the server's own names, with its port. */
START_TEST(test_serve_host) {
  static const struct {
    const char *host;
    int ok;
  } cases[] = {
      {"127.0.0.1:8000", 1},
      {"localhost:8000", 1},
      {"LOCALHOST:8000", 1},
      {"[::1]:8000", 1},
      {"127.0.0.1", 0}, /* port 80 only */
      {"localhost", 0},
      {"127.0.0.1:8001", 0},
      {"127.0.0.1:80000", 0},
      {"127.0.0.1:", 0},
      {"127.0.0.1:+8000", 0},
      {"127.0.0.1:8000x", 0},
      {"127.0.0.1:8000.evil.example", 0},
      {"localhost.evil.example:8000", 0},
      {"evil.example:8000", 0},
      {"127.0.0.2:8000", 0},
      {"[::1]", 0},
      {"::1:8000", 0},
      {"", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ck_assert_msg(lit_serve_host_ok(cases[i].host, 8000) == cases[i].ok, "case %zu (%s)", i, cases[i].host);
  ck_assert_int_eq(lit_serve_host_ok(NULL, 8000), 0);
  ck_assert_int_eq(lit_serve_host_ok("localhost", 80), 1);
  ck_assert_int_eq(lit_serve_host_ok("[::1]:80", 80), 1);
}
END_TEST

/* 1 if lit_serve_check_out accepts dir; the messages in *text (caller frees). */
static int S_out_ok(const char *dir, char **text) {
  lit_diags *d = lit_diags_new();
  int ok = lit_serve_check_out(dir, "serve", d) == 0;
  *text = ck_diags_text(d);
  lit_diags_free(d);
  return ok;
}

/* --out: a book lit wrote, an empty folder or a new one; nothing else. */
START_TEST(test_serve_out_folder) {
  char *tmp = ck_tempdir(), *text;
  char *missing = lit_xasprintf("%s/missing", tmp), *empty = lit_xasprintf("%s/empty", tmp);
  char *book = lit_xasprintf("%s/book", tmp), *notes = lit_xasprintf("%s/notes", tmp);
  char *legacy = lit_xasprintf("%s/legacy", tmp), *file = lit_xasprintf("%s/file", tmp);
  ck_assert_msg(S_out_ok(missing, &text), "%s", text);
  free(text);
  ck_assert_int_eq(mkdir(empty, 0755), 0);
  ck_assert_msg(S_out_ok(empty, &text), "%s", text);
  free(text);
  ck_write(tmp, "book/index.html", "<p>book</p>");
  ck_write(tmp, "book/sub/page.html", "<p>page</p>");
  /* a manifest of names alone vouches for nothing: a name says nothing of
   * the bytes there now */
  ck_write(tmp, "book/" LIT_TREE_MANIFEST, "index.html\nsub/page.html\n");
  ck_assert(!S_out_ok(book, &text));
  ck_assert_ptr_nonnull(strstr(text, "index.html: error: lit cannot tell that it wrote this file"));
  free(text);
  char h1[LIT_HASH_HEX + 1], h2[LIT_HASH_HEX + 1];
  lit_hash_hex("<p>book</p>", 11, h1);
  lit_hash_hex("<p>page</p>", 11, h2);
  char *man = lit_xasprintf("%s  index.html\n%s  sub/page.html\n", h1, h2);
  ck_write(tmp, "book/" LIT_TREE_MANIFEST, man);
  free(man);
  ck_assert_msg(S_out_ok(book, &text), "%s", text);
  free(text);
  ck_write(tmp, "book/sub/secret.txt", "not lit's");
  ck_assert(!S_out_ok(book, &text));
  ck_assert_ptr_nonnull(strstr(text, "sub/secret.txt"));
  free(text);
  ck_write(tmp, "notes/passwd", "root:x:0:0");
  ck_assert(!S_out_ok(notes, &text));
  ck_assert_ptr_nonnull(strstr(text, "lit did not write it"));
  ck_assert_ptr_nonnull(strstr(text, "lit serve writes the book into"));
  free(text);
  ck_write(tmp, "legacy/chunks.html", "<p>an older lit's book, no manifest</p>");
  ck_assert(!S_out_ok(legacy, &text));
  free(text);
  ck_write(tmp, "file", "a file, not a folder");
  ck_assert(!S_out_ok(file, &text));
  free(text);
  ck_assert(!S_out_ok("/etc", &text));
  free(text);
  free(missing), free(empty), free(book), free(notes), free(legacy), free(file);
  ck_rmtree(tmp);
}
END_TEST

/* A manifest anyone can forge, hashes and all, must not make lit serve
 * the project's own folder (nor one holding its documents) as the book:
 * lit_serve_check_out passes such a folder, lit_serve_check_project does
 * not, whether the project loads or not. */
START_TEST(test_serve_out_not_project) {
  char *base = ck_tempdir();
  char *dir = lit_xasprintf("%s/p", base), *dot = lit_xasprintf("%s/p/.", base);
  char *other = lit_xasprintf("%s/book", base);
  const char *files[][2] = {{"index.md", CK_WEAVE_IX}, {"a.md", CK_WEAVE_A}, {"b.md", CK_WEAVE_B}};
  lit_buf man = LIT_BUF_INIT;
  char hex[LIT_HASH_HEX + 1];
  for (size_t i = 0; i < 3; i++) {
    char *rel = lit_xasprintf("p/%s", files[i][0]);
    ck_write(base, rel, files[i][1]);
    free(rel);
    lit_hash_hex(files[i][1], strlen(files[i][1]), hex);
    lit_buf_printf(&man, "%s  %s\n", hex, files[i][0]);
  }
  ck_write(dir, LIT_TREE_MANIFEST, man.data);
  lit_buf_free(&man);
  char *text;
  ck_assert_msg(S_out_ok(dir, &text), "the forged manifest vouches for the folder: %s", text);
  free(text);
  const struct {
    const char *entry, *out;
    int ok;
  } cases[] = {{"index.md", dir, 0}, {"index.md", dot, 0}, {"index.md", other, 1}, {"missing.md", dir, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lit_serve_opts o = {dir, cases[i].entry, cases[i].out, 0, 1, 0};
    lit_diags *d = lit_diags_new();
    int r = lit_serve_check_project(&o, d);
    text = ck_diags_text(d);
    if (cases[i].ok)
      ck_assert_msg(r == 0 && !text[0], "case %zu: %s", i, text);
    else
      ck_assert_msg(r == -1 && strstr(text, "the project's own") && strstr(text, "lit serve"), "case %zu: %s", i, text);
    free(text);
    lit_diags_free(d);
  }
  free(dir), free(dot), free(other);
  ck_rmtree(base);
}
END_TEST

Suite *serve_suite(void) {
  Suite *s = suite_create("serve");
  TCase *tc = tcase_create("serve");
  tcase_add_test(tc, test_serve_paths);
  tcase_add_test(tc, test_serve_host);
  tcase_add_test(tc, test_serve_out_folder);
  tcase_add_test(tc, test_serve_out_not_project);
  suite_add_tcase(s, tc);
  return s;
}

/* check_paths.c: which output paths may be written. */
#include "check_lit.h"

#include <fcntl.h>

#include <errno.h>

#include "paths.h"

static char *S_roots[] = {"out/", "skill/scripts/"};

static const struct {
  const char *path;
  const char *why; /* a word of the reason, or NULL when accepted */
} S_syntax[] = {
    {"out/a.c", NULL},
    {"out/sub/dir/a.c", NULL},
    {"skill/scripts/x.py", NULL},
    {"out/.hidden", NULL},
    {"out/a..b", NULL}, /* dots inside a name are fine */
    {"", "empty"},
    {"/out/a.c", "absolute"},
    {"out/../a.c", "'..'"},
    {"out/x/..", "'..'"},
    {"../out/a.c", "'..'"},
    {"out/./a.c", "'.'"},
    {"out//a.c", "empty component"},
    {"out/a/", "ends in '/'"},
    {"out\\a.c", "backslash"},
    {"out/a\tb.c", "control character"}, /* the journal separates its fields with tabs */
    {"out/a\nb.c", "control character"},
    {"out/", "ends in '/'"},
    {"out", "outside"},
    {"outside/a.c", "outside"},
    {"skill/a.py", "outside"},
    {"src/a.c", "outside"},
};

START_TEST(test_syntax) {
  const char *why = lit_path_check_syntax(S_syntax[_i].path, S_roots, 2);
  if (!S_syntax[_i].why) {
    ck_assert_msg(why == NULL, "'%s' refused: %s", S_syntax[_i].path, why);
  } else {
    ck_assert_msg(why != NULL, "'%s' accepted", S_syntax[_i].path);
    ck_assert_msg(strstr(why, S_syntax[_i].why) != NULL, "'%s': %s", S_syntax[_i].path, why);
  }
}
END_TEST

/* Names and paths the system refuses: NAME_MAX a name, PATH_MAX the path
 * joined to the root, with room for the temporary beside it. */
/* A document's name: printable UTF-8 only (it goes into every generated
 * file's header comment). */
static const struct {
  const char *name;
  const char *why; /* the reason's words, or NULL when accepted */
} S_names[] = {
    {"references/a.md", NULL},
    {"docs/caf\xc3\xa9 \xe2\x80\x94 notes.md", NULL}, /* UTF-8, spaces */
    {"docs/\xc2\xa0.md", NULL},                       /* U+00A0, the first past C1 */
    {"docs/a\nint x;.md", "a control character"},
    {"docs/\x1b[31m.md", "a control character"},
    {"docs/a\tb.md", "a control character"},
    {"docs/a\x7f.md", "a control character"},
    {"docs/\xc2\x9b"
     "31m.md",
     "a control character"}, /* C1 CSI */
    {"docs/caf\xe9.md", "a byte that is not UTF-8"},
    {"docs/\xc2.md", "a byte that is not UTF-8"},
    {"docs/\xc0\xaf.md", "a byte that is not UTF-8"}, /* an overlong '/' */
};

START_TEST(test_name) {
  const char *why = lit_path_check_name(S_names[_i].name);
  if (!S_names[_i].why)
    ck_assert_msg(why == NULL, "'%s' refused: %s", S_names[_i].name, why);
  else
    ck_assert_msg(why && strcmp(why, S_names[_i].why) == 0, "'%s': %s", S_names[_i].name, why ? why : "accepted");
}
END_TEST

START_TEST(test_length) {
  char name[300], path[4200];
  memset(name, 'n', 255);
  name[255] = '\0';
  snprintf(path, sizeof path, "out/%s", name);
  ck_assert_ptr_null(lit_path_check_length(".", path));
  ck_assert_ptr_null(lit_path_check_length("some/root", path));
  strcat(path, "n");
  ck_assert_ptr_nonnull(strstr(lit_path_check_length(".", path), "NAME_MAX (255 bytes)"));
  char dirs[4001]; /* twenty folders of 199 bytes: 4000 bytes with their slashes */
  for (size_t n = 0; n < 4000; n += 200) {
    memset(dirs + n, 'd', 199);
    dirs[n + 199] = '/';
  }
  dirs[4000] = '\0';
  snprintf(path, sizeof path, "%s%.95s", dirs, name); /* 4095 bytes and the NUL: just fits */
  ck_assert_ptr_null(lit_path_check_length(".", path));
  ck_assert_ptr_null(lit_path_check_length("", path));
  ck_assert_ptr_nonnull(strstr(lit_path_check_length("r", path), "PATH_MAX (4096 bytes)"));
  snprintf(path, sizeof path, "%s%.40s", dirs, name); /* the temporary's name is the longer: still fits */
  ck_assert_ptr_null(lit_path_check_length(".", path));
  snprintf(path, sizeof path, "%s%.60s/x", dirs, name); /* 4063 bytes, but ".lit-tmp-PID-N" beside it would not fit */
  ck_assert_ptr_nonnull(lit_path_check_length(".", path));
}
END_TEST

START_TEST(test_no_roots) { ck_assert_ptr_nonnull(lit_path_check_syntax("out/a.c", NULL, 0)); }
END_TEST

START_TEST(test_join) {
  char *s = lit_path_join(".", "out/a.c");
  ck_assert_str_eq(s, "out/a.c");
  free(s);
  s = lit_path_join("", "out/a.c");
  ck_assert_str_eq(s, "out/a.c");
  free(s);
  s = lit_path_join("/p/q", "out/a.c");
  ck_assert_str_eq(s, "/p/q/out/a.c");
  free(s);
  s = lit_path_join(NULL, "x");
  ck_assert_str_eq(s, "x");
  free(s);
}
END_TEST

static int S_ln(const char *dir, const char *target, const char *rel) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  int r = symlink(target, full);
  free(full);
  return r;
}

/* The one link resolver, shared by the loader and the weaver. */
static const struct {
  const char *from, *url, *want; /* want NULL: climbs out of the project */
} S_links[] = {
    {"index.md", "a.md", "a.md"},
    {"index.md", "./sub/../a.md", "a.md"},
    {"index.md", "sub//a.md", "sub/a.md"},
    {"docs/index.md", "a.md", "docs/a.md"},
    {"docs/index.md", "../a.md", "a.md"},
    {"docs/x/index.md", "../../a.md", "a.md"},
    {"index.md", "../a.md", NULL},
    {"docs/index.md", "../../a.md", NULL},
    {"index.md", "my%20doc.md", "my doc.md"},
    {"index.md", "%62.md", "b.md"},
    {"index.md", "%2e%2e/a.md", NULL},    /* decoded first, as a browser does */
    {"index.md", "a%00b.md", "a%00b.md"}, /* a NUL cannot be in a file name: %00 stays */
    {"index.md", "a%0", "a%0"},
    {"index.md", "a%zz.md", "a%zz.md"},
    {"index.md", ".", ""},
};

START_TEST(test_resolve_link) {
  const char *from = S_links[_i].from, *url = S_links[_i].url, *want = S_links[_i].want;
  char *got = lit_path_resolve_link(from, url, strlen(url));
  if (want)
    ck_assert_msg(got && strcmp(got, want) == 0, "%s from %s: got %s, want %s", url, from, got ? got : "NULL", want);
  else
    ck_assert_msg(got == NULL, "%s from %s: got %s, want NULL", url, from, got);
  free(got);
  /* only the first len bytes are the link */
  got = lit_path_resolve_link("index.md", "a.md#x", 4);
  ck_assert_str_eq(got, "a.md");
  free(got);
}
END_TEST

/* A file name as a link: unreserved characters and '/' stay, every other
 * byte is %XX, and lit_path_unescape reads the name back. */
START_TEST(test_escape) {
  static const struct {
    const char *name, *want;
  } cases[] = {
      {"a-b_c.d~/E9.html", "a-b_c.d~/E9.html"},
      {"a b(1)#x?.html", "a%20b%281%29%23x%3F.html"},
      {"p%41.md", "p%2541.md"},
      {"\xc3\xa9&'\"<>:;=+,!*$@[]", "%C3%A9%26%27%22%3C%3E%3A%3B%3D%2B%2C%21%2A%24%40%5B%5D"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lit_buf b = LIT_BUF_INIT;
    lit_path_escape(&b, cases[i].name, strlen(cases[i].name));
    ck_assert_str_eq(b.data, cases[i].want);
    char *back = lit_path_unescape(b.data, b.len);
    ck_assert_str_eq(back, cases[i].name);
    free(back);
    lit_buf_free(&b);
  }
}
END_TEST

START_TEST(test_disk) {
  char *dir = ck_tempdir();
  ck_write(dir, "out/real/keep.c", "x\n");
  ck_write(dir, "elsewhere/f.c", "x\n");
  ck_assert_int_eq(S_ln(dir, "../elsewhere", "out/escape"), 0);
  ck_assert_int_eq(S_ln(dir, "real", "out/inside"), 0); /* a link that stays inside is fine */
  ck_assert_int_eq(S_ln(dir, "../elsewhere/f.c", "out/file-link.c"), 0);
  ck_assert_int_eq(S_ln(dir, "/", "out/root"), 0);
  char *roots[] = {"out/"};
  ck_assert_ptr_null(lit_path_check_disk(dir, "out/new.c", roots, 1));
  ck_assert_ptr_null(lit_path_check_disk(dir, "out/not/yet/made.c", roots, 1));
  ck_assert_ptr_null(lit_path_check_disk(dir, "out/real/keep.c", roots, 1));
  ck_assert_ptr_null(lit_path_check_disk(dir, "out/inside/new.c", roots, 1));
  const char *why = lit_path_check_disk(dir, "out/escape/f.c", roots, 1);
  ck_assert_ptr_nonnull(why);
  ck_assert_ptr_nonnull(strstr(why, "symbolic link"));
  why = lit_path_check_disk(dir, "out/root/etc/x", roots, 1);
  ck_assert_ptr_nonnull(why);
  why = lit_path_check_disk(dir, "out/file-link.c", roots, 1);
  ck_assert_ptr_nonnull(why);
  ck_assert_ptr_nonnull(strstr(why, "symbolic link"));
  why = lit_path_check_disk(dir, "out/real", roots, 1);
  ck_assert_ptr_nonnull(why);
  ck_assert_ptr_nonnull(strstr(why, "folder"));
  ck_assert_ptr_nonnull(lit_path_check_disk(dir, "src/x.c", roots, 1));
  /* a loop is named as one, where it is, not as a link leading out */
  ck_assert_int_eq(S_ln(dir, "a", "out/b"), 0);
  ck_assert_int_eq(S_ln(dir, "b", "out/a"), 0);
  why = lit_path_check_disk(dir, "out/a/x.c", roots, 1);
  ck_assert_str_eq(why, "a symbolic link loop at out/a (its links lead back to themselves)");
  ck_assert_int_eq(S_ln(dir, "loop", "loop"), 0);
  why = lit_path_check_project(dir, "loop/rec");
  ck_assert_str_eq(why, "a symbolic link loop at loop (its links lead back to themselves)");
  ck_rmtree(dir);
}
END_TEST

START_TEST(test_output_folder_link) {
  char *dir = ck_tempdir();
  char *outside = ck_tempdir();
  ck_assert_int_eq(S_ln(dir, outside, "out"), 0);
  char *roots[] = {"out/"};
  const char *why = lit_path_check_disk(dir, "out/x.c", roots, 1);
  ck_assert_ptr_nonnull(why);
  ck_assert_ptr_nonnull(strstr(why, "outside the project"));
  ck_rmtree(outside);
  ck_rmtree(dir);
}
END_TEST

/* The documents and git's files, under any spelling. */
START_TEST(test_same_file_and_git) {
  char *dir = ck_tempdir();
  ck_write(dir, "out/doc.md", "doc\n");
  ck_write(dir, "out/other.md", "doc\n");
  ck_write(dir, ".git/HEAD", "ref: refs/heads/main\n");
  ck_write(dir, "out/sub/.git/config", "x\n");
  ck_write(dir, "out/.github/ci.yml", "x\n");
  ck_assert_int_eq(S_ln(dir, ".", "out/alias"), 0);
  ck_assert_int_eq(S_ln(dir, "../.git", "out/g"), 0);
  char *docs[] = {"index.md", "out/doc.md"};
  ck_assert_int_eq(lit_path_same_as_any(dir, "out/doc.md", docs, 2), 1);
  ck_assert_int_eq(lit_path_same_as_any(dir, "out/alias/doc.md", docs, 2), 1);
  ck_assert_int_eq(lit_path_same_as_any(dir, "index.md", docs, 2), 1); /* spelled alike, though missing */
  ck_assert_int_eq(lit_path_same_as_any(dir, "out/other.md", docs, 2), 0);
  ck_assert_int_eq(lit_path_same_as_any(dir, "out/missing.md", docs, 2), 0);
  ck_assert_ptr_nonnull(lit_path_check_git(dir, ".git/HEAD"));
  ck_assert_ptr_nonnull(lit_path_check_git(dir, "out/sub/.git/config"));
  ck_assert_ptr_nonnull(lit_path_check_git(dir, "out/g/HEAD"));
  ck_assert_ptr_nonnull(lit_path_check_git(dir, "out/g/hooks/not-yet"));
  ck_assert_ptr_nonnull(lit_path_check_git(dir, "out/new/.git/x"));
  ck_assert_ptr_null(lit_path_check_git(dir, "out/.github/ci.yml"));
  ck_assert_ptr_null(lit_path_check_git(dir, "out/alias/doc.md"));
  ck_assert_ptr_null(lit_path_check_git(dir, "out/not/yet.c"));
  ck_rmtree(dir);
}
END_TEST

/* One file under two spellings has one real path, existing or not yet. */
START_TEST(test_real) {
  char *dir = ck_tempdir();
  ck_write(dir, "kernels/sub/a.c", "x\n");
  ck_assert_int_eq(S_ln(dir, "kernels", "k2"), 0);
  ck_assert_int_eq(S_ln(dir, "sub", "kernels/sub2"), 0);
  char *pairs[][2] = {{"kernels/sub/a.c", "k2/sub2/a.c"},
                      {"kernels/sub/new/b.c", "kernels/sub2/new/b.c"},
                      {"kernels", "k2"},
                      {"nowhere/c.c", "nowhere/c.c"}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    char *a = lit_path_real(dir, pairs[i][0]), *b = lit_path_real(dir, pairs[i][1]);
    ck_assert_ptr_nonnull(a);
    ck_assert_str_eq(a, b);
    ck_assert_int_eq(a[0], '/');
    free(a);
    free(b);
  }
  char *a = lit_path_real(dir, "kernels/sub/a.c"), *b = lit_path_real(dir, "kernels/a.c");
  ck_assert_str_ne(a, b);
  ck_assert_ptr_nonnull(strstr(b, "/kernels/a.c"));
  free(a);
  free(b);
  ck_assert_int_eq(lit_path_names_git(".git/hooks"), 1);
  ck_assert_int_eq(lit_path_names_git("out/.git"), 1);
  ck_assert_int_eq(lit_path_names_git("out/.github/x"), 0);
  ck_assert_int_eq(lit_path_names_git("out/x.git"), 0);
  /* where case is ignored (macOS's and Windows' file systems) .GIT is .git */
  ck_assert_int_eq(lit_path_names_git(".GIT/hooks"), 1);
  ck_assert_int_eq(lit_path_names_git("out/.Git"), 1);
  ck_assert_int_eq(lit_path_names_git("out/.gIT/config"), 1);
  ck_assert_int_eq(lit_path_names_git("out/.GITHUB/x"), 0);
  ck_rmtree(dir);
}
END_TEST

/* A document lit reads lies inside the project: a path that climbs out
 * of it is outside (no link involved, and the reason must not say one is),
 * a link that leads out is a link. */
START_TEST(test_read_outside) {
  char *base = ck_tempdir();
  char *dir = lit_xasprintf("%s/p", base);
  ck_write(base, "x.md", "# outside\n");
  ck_write(base, "p/index.md", "# inside\n");
  ck_assert_int_eq(S_ln(dir, "../x.md", "link.md"), 0);
  ck_assert_ptr_null(lit_path_check_read(dir, "index.md"));
  ck_assert_ptr_null(lit_path_check_read(dir, "sub/../index.md")); /* climbs, but stays inside */
  const char *why = lit_path_check_read(dir, "../x.md");
  ck_assert_ptr_nonnull(why);
  ck_assert_msg(strstr(why, "outside the project") && !strstr(why, "symbolic link"), "%s", why);
  why = lit_path_check_read(dir, "link.md");
  ck_assert_ptr_nonnull(why);
  ck_assert_ptr_nonnull(strstr(why, "symbolic link"));
  free(dir);
  ck_rmtree(base);
}
END_TEST

/* What may be opened beneath a folder (the book lit serve serves): files and links that stay
 * inside; never a link or a ".." that leads out, and a FIFO opens
 * without waiting for a writer (its type is the caller's to refuse). Both
 * the openat2 form and the older kernels' open-then-check form. */
START_TEST(test_path_open_beneath) {
  char *tmp = ck_tempdir();
  ck_write(tmp, "book/index.html", "<p>book</p>");
  ck_write(tmp, "book/sub/page.html", "<p>page</p>");
  ck_write(tmp, "secret.txt", "not the book's");
  char *book = lit_xasprintf("%s/book", tmp), *path;
  path = lit_xasprintf("%s/book/sub/link.html", tmp);
  ck_assert_int_eq(symlink("../index.html", path), 0);
  free(path);
  path = lit_xasprintf("%s/book/up.txt", tmp);
  ck_assert_int_eq(symlink("../secret.txt", path), 0);
  free(path);
  path = lit_xasprintf("%s/book/abs.txt", tmp);
  char *target = lit_xasprintf("%s/secret.txt", tmp);
  ck_assert_int_eq(symlink(target, path), 0);
  free(path), free(target);
  path = lit_xasprintf("%s/book/dirlink", tmp);
  ck_assert_int_eq(symlink("..", path), 0);
  free(path);
  path = lit_xasprintf("%s/book/fifo", tmp);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  free(path);
  static const struct {
    const char *rel;
    int ok;
  } cases[] = {
      {"index.html", 1},
      {"sub/page.html", 1},
      {"sub/link.html", 1},
      {"fifo", 1},
      {"up.txt", 0},
      {"abs.txt", 0},
      {"../secret.txt", 0},
      {"dirlink/secret.txt", 0},
      {"sub/../../secret.txt", 0},
      {"missing.html", 0},
  };
  int (*opens[])(const char *, const char *) = {lit_path_open_beneath, lit_path_open_checked};
  for (size_t k = 0; k < 2; k++) {
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      int fd = opens[k](book, cases[i].rel);
      if (fd >= 0) close(fd);
      ck_assert_msg((fd >= 0) == cases[i].ok, "form %zu, %s: %s", k, cases[i].rel, fd >= 0 ? "opened" : "refused");
    }
  }
  int fd = lit_path_open_beneath(book, "sub/link.html");
  char got[16] = {0};
  ck_assert_int_eq(read(fd, got, sizeof got - 1), 11);
  ck_assert_str_eq(got, "<p>book</p>");
  close(fd);
  free(book);
  ck_rmtree(tmp);
}
END_TEST

Suite *paths_suite(void) {
  Suite *s = suite_create("paths");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_syntax, 0, sizeof S_syntax / sizeof S_syntax[0]);
  tcase_add_loop_test(tc, test_name, 0, sizeof S_names / sizeof S_names[0]);
  tcase_add_test(tc, test_length);
  tcase_add_test(tc, test_no_roots);
  tcase_add_test(tc, test_join);
  tcase_add_test(tc, test_escape);
  tcase_add_loop_test(tc, test_resolve_link, 0, sizeof S_links / sizeof S_links[0]);
  tcase_add_test(tc, test_disk);
  tcase_add_test(tc, test_output_folder_link);
  tcase_add_test(tc, test_same_file_and_git);
  tcase_add_test(tc, test_real);
  tcase_add_test(tc, test_read_outside);
  tcase_add_test(tc, test_path_open_beneath);
  suite_add_tcase(s, tc);
  return s;
}

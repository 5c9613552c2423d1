/* check_tree.c: output folders built in memory, installed and compared. */
#include "check_lit.h"

#include "tree.h"

START_TEST(test_tree_install_and_compare) {
  char *dir = ck_tempdir();
  char *out = lit_xasprintf("%s/out/book", dir);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  lit_tree_add(&t, "a.html", lit_xstrdup("A"), 1);
  lit_tree_add(&t, "sub/b.css", lit_xstrdup("BB"), 2);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", d), 0);
  char *a = ck_read(out, "a.html"), *b = ck_read(out, "sub/b.css");
  ck_assert_str_eq(a, "A");
  ck_assert_str_eq(b, "BB");
  free(a);
  free(b);
  ck_assert_uint_eq(lit_tree_compare(&t, out, d), 0);
  ck_write(out, "extra.txt", "x");
  ck_write(out, "a.html", "changed");
  ck_assert_uint_eq(lit_tree_compare(&t, out, d), 2);
  /* lit never deletes a file it did not write: extra.txt stops the install */
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", d), -1);
  char *extra = ck_read(out, "extra.txt");
  ck_assert_str_eq(extra, "x");
  free(extra);
  char *msgs = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(msgs, "extra.txt: error: lit did not write this file"));
  free(msgs);
  /* without it, the folder (its manifest names every other file) is replaced */
  char *extra_path = lit_xasprintf("%s/extra.txt", out);
  ck_assert_int_eq(unlink(extra_path), 0);
  free(extra_path);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", d), 0);
  ck_assert_uint_eq(lit_tree_compare(&t, out, d), 0);
  char *man = ck_read(out, LIT_TREE_MANIFEST);
  ck_assert_str_eq(man, "a.html\nsub/b.css\n");
  free(man);
  /* a folder of other work is never replaced */
  char *other = lit_xasprintf("%s/other", dir);
  ck_write(dir, "other/precious.txt", "keep");
  ck_assert_int_eq(lit_tree_install(&t, other, "a.html", d), -1);
  char *kept = ck_read(other, "precious.txt");
  ck_assert_str_eq(kept, "keep");
  free(kept);
  free(other);
  char *cmd = lit_xasprintf("ls -a '%s/out' | grep -c lit- > '%s/n'", dir, dir);
  ck_assert_int_ne(system(cmd), -1);
  free(cmd);
  char *n = ck_read(dir, "n");
  ck_assert_str_eq(n, "0\n"); /* no staging folder left beside it */
  free(n);
  lit_tree_free(&t);
  lit_diags_free(d);
  free(out);
  ck_rmtree(dir);
}
END_TEST

/* A folder an earlier version wrote, without a manifest, is known by its
 * guard; what its old manifest.txt lists is not trusted (anyone can write
 * one), so a file only that list names stops the install and is kept. */
START_TEST(test_tree_legacy_manifest_not_trusted) {
  char *dir = ck_tempdir();
  char *out = lit_xasprintf("%s/skill", dir);
  ck_write(dir, "skill/SKILL.md", "old");
  ck_write(out, "manifest.txt", "SKILL.md\nnotes.txt\n");
  ck_write(out, "notes.txt", "a user's");
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  lit_tree_add(&t, "SKILL.md", lit_xstrdup("new"), 3);
  ck_assert_int_eq(lit_tree_install(&t, out, "SKILL.md", d), -1);
  char *kept = ck_read(out, "notes.txt"), *skill = ck_read(out, "SKILL.md");
  ck_assert_str_eq(kept, "a user's");
  ck_assert_str_eq(skill, "old");
  free(kept);
  free(skill);
  char *msgs = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(msgs, "notes.txt: error: lit did not write this file"));
  free(msgs);
  /* without it, the old folder (the guard, manifest.txt) is lit's */
  char *notes = lit_xasprintf("%s/notes.txt", out);
  ck_assert_int_eq(unlink(notes), 0);
  free(notes);
  ck_assert_int_eq(lit_tree_install(&t, out, "SKILL.md", d), 0);
  skill = ck_read(out, "SKILL.md");
  ck_assert_str_eq(skill, "new");
  free(skill);
  lit_tree_free(&t);
  lit_diags_free(d);
  free(out);
  ck_rmtree(dir);
}
END_TEST

Suite *tree_suite(void) {
  Suite *s = suite_create("tree");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_tree_install_and_compare);
  tcase_add_test(tc, test_tree_legacy_manifest_not_trusted);
  suite_add_tcase(s, tc);
  return s;
}

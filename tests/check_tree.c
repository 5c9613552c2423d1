/* check_tree.c: output folders built in memory, installed and compared. */
#include "check_lit.h"

#include <limits.h>

#include "hash.h"
#include "tree.h"

/* No staging folder of lit's (lit-*) is left in folder; scratch is a
 * writable folder for the count. */
static void S_assert_no_staging(const char *folder, const char *scratch) {
  char *cmd = lit_xasprintf("ls -a '%s' | grep -c lit- > '%s/n'", folder, scratch);
  ck_assert_int_ne(system(cmd), -1);
  free(cmd);
  char *n = ck_read(scratch, "n");
  ck_assert_str_eq(n, "0\n");
  free(n);
}

START_TEST(test_tree_install_and_compare) {
  char *dir = ck_tempdir();
  char *out = lit_xasprintf("%s/out/book", dir);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  lit_tree_add(&t, "a.html", lit_xstrdup("A"), 1);
  lit_tree_add(&t, "sub/b.css", lit_xstrdup("BB"), 2);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), 0);
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
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), -1);
  char *extra = ck_read(out, "extra.txt");
  ck_assert_str_eq(extra, "x");
  free(extra);
  char *msgs = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(msgs, "extra.txt: error: lit did not write this file"));
  free(msgs);
  /* without it, the changed a.html still stops it: lit did not write those bytes */
  char *extra_path = lit_xasprintf("%s/extra.txt", out);
  ck_assert_int_eq(unlink(extra_path), 0);
  free(extra_path);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), -1);
  char *changed = ck_read(out, "a.html");
  ck_assert_str_eq(changed, "changed");
  free(changed);
  msgs = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(msgs, "a.html: error: changed since lit wrote it"));
  free(msgs);
  /* with lit's bytes back, the folder (its manifest names every file) is replaced */
  ck_write(out, "a.html", "A");
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), 0);
  ck_assert_uint_eq(lit_tree_compare(&t, out, d), 0);
  char *man = ck_read(out, LIT_TREE_MANIFEST);
  char ha[LIT_HASH_HEX + 1], hb[LIT_HASH_HEX + 1];
  lit_hash_hex("A", 1, ha);
  lit_hash_hex("BB", 2, hb);
  char *want = lit_xasprintf("%s  a.html\n%s  sub/b.css\n", ha, hb);
  ck_assert_str_eq(man, want);
  free(want);
  free(man);
  /* a folder of other work is never replaced */
  char *other = lit_xasprintf("%s/other", dir);
  ck_write(dir, "other/precious.txt", "keep");
  ck_assert_int_eq(lit_tree_install(&t, other, "a.html", 0, d), -1);
  char *kept = ck_read(other, "precious.txt");
  ck_assert_str_eq(kept, "keep");
  free(kept);
  free(other);
  char *out_dir = lit_xasprintf("%s/out", dir);
  S_assert_no_staging(out_dir, dir);
  free(out_dir);
  lit_tree_free(&t);
  lit_diags_free(d);
  free(out);
  ck_rmtree(dir);
}
END_TEST

/* A folder of the output that cannot be listed stops the install: what it
 * holds is unknown, and replacing the output would delete it. (As root,
 * permission bits do not stop a read, so there is nothing to test.) */
START_TEST(test_tree_unreadable_folder) {
  if (geteuid() == 0) return;
  char *dir = ck_tempdir();
  char *out = lit_xasprintf("%s/out", dir), *sub = lit_xasprintf("%s/out/sub", dir);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  lit_tree_add(&t, "a.html", lit_xstrdup("A"), 1);
  lit_tree_add(&t, "sub/b.css", lit_xstrdup("BB"), 2);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), 0);
  ck_write(out, "sub/mine.txt", "keep");
  ck_assert_int_eq(chmod(sub, 0), 0);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), -1);
  ck_assert_int_eq(chmod(sub, 0755), 0);
  char *msgs = ck_diags_text(d), *want = lit_xasprintf("%s: error: cannot read this folder (", sub);
  ck_assert_msg(strstr(msgs, want) && strstr(msgs, "would delete whatever it holds"), "%s", msgs);
  free(want);
  free(msgs);
  char *kept = ck_read(out, "sub/mine.txt");
  ck_assert_str_eq(kept, "keep");
  free(kept);
  S_assert_no_staging(dir, dir);
  lit_tree_free(&t);
  lit_diags_free(d);
  free(sub);
  free(out);
  ck_rmtree(dir);
}
END_TEST

/* A folder an earlier version wrote, without a manifest, is known by its
 * guard; what its old manifest.txt lists is not trusted (anyone can write
 * one), so a file only that list names stops the install and is kept.
 * Nor does the guard vouch for bytes: a file the new tree writes is
 * replaced only while it holds exactly those bytes (nothing is lost), or
 * with LIT_TREE_REPLACE_EDITS (skill install --force); an edited one is
 * kept with a message. */
/* A FIFO in the folder compared is the one difference, reported by its
 * path: the files readdir had not reached are not listed as missing. */
START_TEST(test_tree_compare_fifo) {
  char *dir = ck_tempdir();
  char *out = lit_xasprintf("%s/book", dir);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  for (int i = 0; i < 20; i++) {
    char name[32];
    snprintf(name, sizeof name, "p%02d.html", i);
    lit_tree_add(&t, name, lit_xstrdup("P"), 1);
  }
  ck_assert_int_eq(lit_tree_install(&t, out, "p00.html", 0, d), 0);
  char *fifo = lit_xasprintf("%s/fifo", out);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  ck_assert_uint_eq(lit_tree_compare(&t, out, d), 1);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 1);
  char *msgs = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(msgs, "/book/fifo: error: is neither a regular file nor a folder"));
  ck_assert_ptr_null(strstr(msgs, "missing"));
  free(msgs);
  free(fifo);
  lit_tree_free(&t);
  lit_diags_free(d);
  free(out);
  ck_rmtree(dir);
}
END_TEST

START_TEST(test_tree_legacy_manifest_not_trusted) {
  char *dir = ck_tempdir();
  char *out = lit_xasprintf("%s/skill", dir);
  ck_write(dir, "skill/SKILL.md", "old");
  ck_write(out, "manifest.txt", "SKILL.md\nnotes.txt\n");
  ck_write(out, "notes.txt", "a user's");
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  lit_tree_add(&t, "SKILL.md", lit_xstrdup("new"), 3);
  lit_tree_add(&t, "manifest.txt", lit_xstrdup("SKILL.md\n"), 9);
  ck_assert_int_eq(lit_tree_install(&t, out, "manifest.txt", 0, d), -1);
  char *kept = ck_read(out, "notes.txt"), *skill = ck_read(out, "SKILL.md");
  ck_assert_str_eq(kept, "a user's");
  ck_assert_str_eq(skill, "old");
  free(kept);
  free(skill);
  char *msgs = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(msgs, "notes.txt: error: lit did not write this file"));
  free(msgs);
  /* without it, SKILL.md (old bytes, edited or not: no hash says) and the
   * old manifest.txt still stop it, each kept with a message */
  char *notes = lit_xasprintf("%s/notes.txt", out);
  ck_assert_int_eq(unlink(notes), 0);
  free(notes);
  lit_diags_free(d);
  d = lit_diags_new();
  ck_assert_int_eq(lit_tree_install(&t, out, "manifest.txt", 0, d), -1);
  skill = ck_read(out, "SKILL.md");
  ck_assert_str_eq(skill, "old");
  free(skill);
  msgs = ck_diags_text(d);
  ck_assert_ptr_nonnull(
      strstr(msgs, "SKILL.md: error: lit cannot tell whether this file was edited since lit wrote it"));
  ck_assert_ptr_nonnull(strstr(msgs, "manifest.txt: error: lit cannot tell whether this file was edited"));
  free(msgs);
  /* holding the bytes the new tree writes, they are replaced: nothing lost */
  ck_write(out, "SKILL.md", "new");
  ck_write(out, "manifest.txt", "SKILL.md\n");
  ck_assert_int_eq(lit_tree_install(&t, out, "manifest.txt", 0, d), 0);
  char *man = ck_read(out, LIT_TREE_MANIFEST);
  ck_assert_ptr_nonnull(strstr(man, "  SKILL.md\n"));
  free(man);
  /* and an install's (guard SKILL.md) old folder with edits goes only with --force */
  char *inst = lit_xasprintf("%s/inst", dir);
  ck_write(dir, "inst/SKILL.md", "old");
  ck_write(inst, "manifest.txt", "SKILL.md\n");
  lit_tree one = LIT_TREE_INIT;
  lit_tree_add(&one, "SKILL.md", lit_xstrdup("new"), 3);
  ck_assert_int_eq(lit_tree_install(&one, inst, "SKILL.md", 0, d), -1);
  ck_assert_int_eq(lit_tree_install(&one, inst, "SKILL.md", LIT_TREE_REPLACE_EDITS, d), 0);
  skill = ck_read(inst, "SKILL.md");
  ck_assert_str_eq(skill, "new");
  free(skill);
  lit_tree_free(&one);
  free(inst);
  lit_tree_free(&t);
  lit_diags_free(d);
  free(out);
  ck_rmtree(dir);
}
END_TEST

/* A manifest is checked, not believed: a name someone added to it, a
 * digest that does not match the file, or a link where lit wrote a file
 * stops the install, and each stays as it was. */
START_TEST(test_tree_manifest_checked) {
  char *dir = ck_tempdir();
  char *out = lit_xasprintf("%s/book", dir);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  lit_tree_add(&t, "a.html", lit_xstrdup("A"), 1);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), 0);
  char *lits = ck_read(out, LIT_TREE_MANIFEST);
  /* a name alone, for a file the new tree does not write */
  ck_write(out, "notes.txt", "a user's");
  char *text = lit_xasprintf("%snotes.txt\n", lits);
  ck_write(out, LIT_TREE_MANIFEST, text);
  free(text);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), -1);
  /* a digest of other bytes */
  text = lit_xasprintf("%s00000000000000000000000000000000  notes.txt\n", lits);
  ck_write(out, LIT_TREE_MANIFEST, text);
  free(text);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), -1);
  char *kept = ck_read(out, "notes.txt");
  ck_assert_str_eq(kept, "a user's");
  free(kept);
  char *msgs = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(msgs, "notes.txt: error: lit did not write this file"));
  ck_assert_ptr_nonnull(strstr(msgs, "notes.txt: error: changed since lit wrote it"));
  free(msgs);
  /* a link in place of a file lit wrote, to a file with the same bytes */
  char *notes = lit_xasprintf("%s/notes.txt", out), *a = lit_xasprintf("%s/a.html", out);
  ck_assert_int_eq(unlink(notes), 0);
  ck_write(out, LIT_TREE_MANIFEST, lits);
  ck_write(dir, "target.html", "A");
  char *target = lit_xasprintf("%s/target.html", dir);
  ck_assert_int_eq(unlink(a), 0);
  ck_assert_int_eq(symlink(target, a), 0);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), -1);
  char *still = ck_read(dir, "target.html");
  ck_assert_str_eq(still, "A");
  free(still);
  /* replacing edits (skill install --force) takes the changed file, never
   * one the manifest does not vouch for */
  ck_assert_int_eq(unlink(a), 0);
  ck_write(out, "a.html", "edited");
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), -1);
  ck_write(out, "stray.txt", "kept");
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", LIT_TREE_REPLACE_EDITS, d), -1);
  char *stray = lit_xasprintf("%s/stray.txt", out);
  ck_assert_int_eq(unlink(stray), 0);
  free(stray);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", LIT_TREE_REPLACE_EDITS, d), 0);
  char *fresh = ck_read(out, "a.html");
  ck_assert_str_eq(fresh, "A");
  free(fresh);
  /* a manifest that is a link is not read: the folder is not lit's */
  char *man_path = lit_xasprintf("%s/%s", out, LIT_TREE_MANIFEST), *elsewhere = lit_xasprintf("%s/m", dir);
  ck_write(dir, "m", lits);
  ck_assert_int_eq(unlink(man_path), 0);
  ck_assert_int_eq(symlink(elsewhere, man_path), 0);
  ck_assert_int_eq(lit_tree_check_owned(out, d), -1);
  ck_assert_int_eq(lit_tree_install(&t, out, "b.html", 0, d), -1);
  ck_assert_int_eq(unlink(man_path), 0);
  ck_write(out, LIT_TREE_MANIFEST, lits);
  free(man_path);
  free(elsewhere);
  /* a manifest of an earlier version (names alone) does not vouch for the
   * bytes: a hand-edited page is kept, with a message, and so is the folder
   * lit serve would send (no tree to compare with: a name is nothing) */
  ck_assert_int_eq(unlink(a), 0);
  ck_write(out, "a.html", "edited by hand");
  ck_write(out, LIT_TREE_MANIFEST, "a.html\n");
  lit_diags *d2 = lit_diags_new();
  ck_assert_int_eq(lit_tree_check_owned(out, d2), -1);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d2), -1);
  char *now = ck_read(out, "a.html");
  ck_assert_str_eq(now, "edited by hand");
  free(now);
  msgs = ck_diags_text(d2);
  ck_assert_ptr_nonnull(strstr(msgs, "a.html: error: lit cannot tell whether this file was edited since lit wrote it "
                                     "(an earlier version's manifest keeps no hash of it)"));
  free(msgs);
  lit_diags_free(d2);
  /* the bytes the new tree writes: replacing them loses nothing */
  ck_write(out, "a.html", "A");
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), 0);
  now = ck_read(out, "a.html");
  ck_assert_str_eq(now, "A");
  free(now);
  free(target);
  free(notes);
  free(a);
  free(lits);
  lit_tree_free(&t);
  lit_diags_free(d);
  free(out);
  ck_rmtree(dir);
}
END_TEST

/* Beside an output folder, a name like a killed run's leftover proves
 * nothing: a user's folder, a file, or a link (leading out of the project)
 * of that name is kept as it is, never deleted or renamed into place, with
 * a warning; one in the way of this run's own names stops the install.
 * What lit can vouch for goes: a half-written stage (its marker), an old
 * copy whose files all match its manifest (put back when the output is
 * missing). 4194304 is past any process number Linux gives. */
START_TEST(test_tree_leftovers_checked) {
  char *dir = ck_tempdir();
  char *out = lit_xasprintf("%s/out", dir);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  lit_tree_add(&t, "a.html", lit_xstrdup("A"), 1);
  ck_write(dir, ".out.lit-new-4194304/mine/x", "precious");
  ck_write(dir, ".out.lit-old-4194303", "a file");
  ck_write(dir, "away/secret", "outside");
  char *away = lit_xasprintf("%s/away", dir), *link = lit_xasprintf("%s/.out.lit-old-4194302", dir);
  ck_assert_int_eq(symlink(away, link), 0);
  /* a stage with the right marker but a user's file in it, and one with a
   * marker for another process: not vouched for */
  ck_write(dir, ".out.lit-new-4194301/.lit-stage", "lit staging folder of out, process 4194300\n");
  ck_write(dir, ".out.lit-new-4194301/page.html", "half");
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), 0);
  char *x = ck_read(dir, ".out.lit-new-4194304/mine/x"), *f = ck_read(dir, ".out.lit-old-4194303");
  ck_assert_str_eq(x, "precious");
  ck_assert_str_eq(f, "a file");
  free(x);
  free(f);
  struct stat st;
  ck_assert_int_eq(lstat(link, &st), 0);
  ck_assert(S_ISLNK(st.st_mode));
  ck_assert_int_eq(lstat(out, &st), 0);
  ck_assert(S_ISDIR(st.st_mode)); /* the output is lit's folder, not the link */
  char *a = ck_read(out, "a.html"), *secret = ck_read(away, "secret");
  ck_assert_str_eq(a, "A");
  ck_assert_str_eq(secret, "outside");
  free(a);
  free(secret);
  char *msgs = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(msgs, ".out.lit-new-4194304: warning: is named like a leftover of a lit run that was "
                                     "killed, but lit cannot tell that it made it (it holds files"));
  ck_assert_ptr_nonnull(strstr(msgs, ".out.lit-old-4194303: warning: is named like a leftover of a lit run that was "
                                     "killed, but lit cannot tell that it made it (it is not a folder)"));
  ck_assert_ptr_nonnull(strstr(msgs, ".out.lit-old-4194302: warning: is named like a leftover of a lit run that was "
                                     "killed, but lit cannot tell that it made it (it is a symbolic link)"));
  ck_assert_ptr_nonnull(strstr(msgs, ".out.lit-new-4194301: warning:"));
  free(msgs);
  /* the link, with the output missing, is still not put in its place */
  char *cmd = lit_xasprintf("rm -rf '%s'", out);
  ck_assert_int_eq(system(cmd), 0);
  free(cmd);
  lit_tree_recover(out, d);
  ck_assert_int_ne(lstat(out, &st), 0);
  ck_assert_int_eq(lstat(link, &st), 0);
  /* lit_tree_check_parent takes none of them for lit's */
  lit_diags *d2 = lit_diags_new();
  ck_assert_int_eq(lit_tree_check_parent(dir, d2), -1);
  msgs = ck_diags_text(d2);
  ck_assert_ptr_nonnull(strstr(msgs, ".out.lit-new-4194304: error: lit did not write this"));
  free(msgs);
  lit_diags_free(d2);
  cmd = lit_xasprintf("rm -rf '%s'/.out.* '%s/away'", dir, dir);
  ck_assert_int_eq(system(cmd), 0);
  free(cmd);
  /* what lit can vouch for: a half-written stage holding its marker goes;
   * an old copy matching its manifest, with the output missing, goes back */
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), 0);
  char *old = lit_xasprintf("%s/.out.lit-old-4194304", dir);
  ck_assert_int_eq(rename(out, old), 0);
  ck_write(dir, ".out.lit-new-4194304/.lit-stage", "lit staging folder of out, process 4194304\n");
  ck_write(dir, ".out.lit-new-4194304/half.html", "hal");
  lit_tree_recover(out, d);
  a = ck_read(out, "a.html");
  ck_assert_str_eq(a, "A");
  free(a);
  char *stage = lit_xasprintf("%s/.out.lit-new-4194304", dir);
  ck_assert_int_ne(lstat(stage, &st), 0);
  ck_assert_int_ne(lstat(old, &st), 0);
  /* a user's folder under this process's own staging name stops the
   * install, and is kept */
  char *own = lit_xasprintf(".out.lit-new-%ld/mine", (long)getpid());
  ck_write(dir, own, "mine");
  lit_diags_free(d);
  d = lit_diags_new();
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), -1);
  char *mine = ck_read(dir, own);
  ck_assert_str_eq(mine, "mine");
  free(mine);
  msgs = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(msgs, "is in the way of lit's own staging folder"));
  free(msgs);
  free(own);
  free(stage);
  free(old);
  free(away);
  free(link);
  lit_tree_free(&t);
  lit_diags_free(d);
  free(out);
  ck_rmtree(dir);
}
END_TEST

/* A bundle read for an install holds regular files and folders only: a
 * symbolic link in it (which may lead anywhere) is neither followed nor
 * skipped without a word, but refused, by name. */
START_TEST(test_tree_read_refuses_links) {
  char *dir = ck_tempdir();
  ck_write(dir, "bundle/SKILL.md", "---\nname: b\n---\n");
  ck_write(dir, "bundle/scripts/run.py", "print(1)\n");
  ck_write(dir, "secret", "outside the bundle");
  char *link = lit_xasprintf("%s/bundle/scripts/secret.txt", dir), *bundle = lit_xasprintf("%s/bundle", dir);
  ck_assert_int_eq(symlink("../../secret", link), 0);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  ck_assert_int_eq(lit_tree_read(&t, bundle, d), -1);
  char *msgs = ck_diags_text(d);
  ck_assert_msg(strstr(msgs, "scripts/secret.txt: error: is a symbolic link") != NULL, "%s", msgs);
  ck_assert_ptr_null(ck_tree_find(&t, "scripts/secret.txt"));
  free(msgs);
  lit_tree_free(&t);
  lit_diags_free(d);
  /* without the link, the same bundle reads whole */
  ck_assert_int_eq(unlink(link), 0);
  d = lit_diags_new();
  ck_assert_int_eq(lit_tree_read(&t, bundle, d), 0);
  ck_assert_ptr_nonnull(ck_tree_find(&t, "SKILL.md"));
  ck_assert_ptr_nonnull(ck_tree_find(&t, "scripts/run.py"));
  lit_tree_free(&t);
  lit_diags_free(d);
  free(link);
  free(bundle);
  ck_rmtree(dir);
}
END_TEST

/* The scratch folder the read hook below works in. */
static const char *S_read_dir_at;

/* After lit_tree_read looked at an entry and before it reads it: a
 * bundle's SKILL.md becomes a link to a secret file outside it, or the
 * scripts folder of bundle b2 a link to a folder outside it. */
static void S_swap_entry(const char *path) {
  const char *slash = strrchr(path, '/');
  if (strcmp(slash, "/SKILL.md") == 0) {
    ck_assert_int_eq(unlink(path), 0);
    char *secret = lit_xasprintf("%s/secret", S_read_dir_at);
    ck_assert_int_eq(symlink(secret, path), 0);
    free(secret);
  } else if (strcmp(slash, "/scripts") == 0) {
    ck_swap_for_link(S_read_dir_at, "b2/scripts", "scripts.real", "../outside");
  }
}

/* Reads dir/name with S_swap_entry as the hook: refused, and nothing
 * read from outside the bundle. */
static void S_read_swapped(const char *dir, const char *name) {
  char *bundle = lit_xasprintf("%s/%s", dir, name);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  S_read_dir_at = dir;
  lit_tree_read_hook = S_swap_entry;
  int r = lit_tree_read(&t, bundle, d);
  lit_tree_read_hook = NULL;
  ck_assert_int_eq(r, -1);
  ck_assert_uint_ge(lit_diags_count(d, LIT_ERROR), 1);
  for (size_t i = 0; i < t.n; i++)
    ck_assert_msg(strstr(t.files[i].data, "outside") == NULL, "%s was read from outside", t.files[i].path);
  lit_tree_free(&t);
  lit_diags_free(d);
  free(bundle);
}

/* What lit_tree_read looked at is what it reads: an entry swapped for a
 * link in between is refused, not followed (lit skill install would copy
 * a file or a folder from outside the bundle into the installed skill). */
START_TEST(test_tree_read_swapped_for_link) {
  char *dir = ck_tempdir();
  ck_write(dir, "b1/SKILL.md", "---\nname: b\n---\n");
  ck_write(dir, "b2/scripts/run.py", "print(1)\n");
  ck_write(dir, "secret", "outside the bundle");
  ck_write(dir, "outside/key.txt", "outside the bundle too");
  S_read_swapped(dir, "b1");
  S_read_swapped(dir, "b2");
  ck_rmtree(dir);
}
END_TEST

/* A default output place inside the current folder (lit skill's
 * build/skill/NAME, lit skill install's .claude/skills/NAME) is reached
 * beneath it: a link leading out, swapped in on its path after
 * lit_tree_check_inside looked (here: there from the start), stops the
 * install, and nothing is made or written where it leads; a link that
 * stays inside is followed. */
START_TEST(test_tree_install_no_links) {
  char *dir = ck_tempdir(), *away = ck_tempdir();
  char here[PATH_MAX];
  ck_assert_ptr_nonnull(getcwd(here, sizeof here));
  ck_assert_int_eq(chdir(dir), 0);
  ck_assert_int_eq(symlink(away, "build"), 0);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  lit_tree_add(&t, "a.html", lit_xstrdup("A"), 1);
  int r = lit_tree_install(&t, "build/skill/x", "a.html", LIT_TREE_BENEATH, d);
  int gone = unlink("build");
  ck_assert_int_eq(mkdir("real", 0755), 0);
  ck_assert_int_eq(symlink("real", "build"), 0);
  int fresh = lit_tree_install(&t, "build/skill/x", "a.html", LIT_TREE_BENEATH, d);
  ck_assert_int_eq(chdir(here), 0);
  ck_assert_int_eq(gone, 0);
  ck_assert_int_eq(r, -1);
  char *skill = lit_xasprintf("%s/skill", away);
  struct stat st;
  ck_assert_msg(lstat(skill, &st) != 0, "the install made a folder through the link");
  free(skill);
  ck_assert_int_eq(fresh, 0);
  char *a = ck_read(dir, "real/skill/x/a.html");
  ck_assert_str_eq(a, "A");
  free(a);
  lit_tree_free(&t);
  lit_diags_free(d);
  ck_rmtree(dir);
  ck_rmtree(away);
}
END_TEST

/* A name holding a newline cannot be a line of the manifest: written, it
 * split into two lines that vouched for neither, and the next install
 * refused the folder as not lit's. Refused before anything is made. */
START_TEST(test_tree_install_refuses_newline_names) {
  char *dir = ck_tempdir();
  char *out = lit_xasprintf("%s/out/skill", dir);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  lit_tree_add(&t, "SKILL.md", lit_xstrdup("S"), 1);
  lit_tree_add(&t, "assets/a\nb.py", lit_xstrdup("x"), 1);
  ck_assert_int_eq(lit_tree_install(&t, out, "SKILL.md", 0, d), -1);
  char *msgs = ck_diags_text(d);
  ck_assert_msg(strstr(msgs, "cannot hold 'assets/a\\nb.py': its name holds a newline") != NULL, "%s", msgs);
  free(msgs);
  char *parent = lit_xasprintf("%s/out", dir);
  struct stat st;
  ck_assert_int_ne(lstat(parent, &st), 0); /* nothing made, not even the folder above */
  free(parent);
  lit_tree_free(&t);
  lit_diags_free(d);
  free(out);
  ck_rmtree(dir);
}
END_TEST

/* The names beside an output that its clean-up may remove or move into
 * place, whatever made them (lit_weave_check_out checks each): with the
 * folder's path as given, and only that output's. */
START_TEST(test_tree_leftovers_listed) {
  char *dir = ck_tempdir();
  ck_write(dir, ".out.lit-new-4194304/a", "a");
  ck_write(dir, ".out.lit-old-17/b", "b");
  ck_write(dir, ".out.lit-new-x/c", "c");   /* no process number */
  ck_write(dir, ".outer.lit-new-5/d", "d"); /* another output's */
  ck_write(dir, "out/e", "e");
  char *out = lit_xasprintf("%s/out/", dir);
  size_t n;
  char **left = lit_tree_leftovers(out, &n);
  ck_assert_uint_eq(n, 2);
  char *want_new = lit_xasprintf("%s/.out.lit-new-4194304", dir), *want_old = lit_xasprintf("%s/.out.lit-old-17", dir);
  int saw_new = 0, saw_old = 0;
  for (size_t i = 0; i < n; i++) {
    saw_new |= strcmp(left[i], want_new) == 0;
    saw_old |= strcmp(left[i], want_old) == 0;
    free(left[i]);
  }
  ck_assert(saw_new && saw_old);
  free(left);
  free(want_new);
  free(want_old);
  free(out);
  ck_rmtree(dir);
}
END_TEST

/* The folder the hook of test_tree_install_swapped_parent works in. */
static const char *S_hook_dir;

/* After the install checked what a/out holds: a (the folder above out)
 * becomes a link to x, where out is someone else's folder. */
static void S_swap_parent(void) { ck_swap_for_link(S_hook_dir, "a", "a.real", "x"); }

/* The install goes through the parent it resolved before its check: a
 * folder on the path swapped for a link after the check leads neither the
 * stage, the swap nor the delete into the folder it now points to, where
 * an out lit never approved would be replaced and deleted. */
START_TEST(test_tree_install_swapped_parent) {
  char *dir = ck_tempdir();
  char *out = lit_xasprintf("%s/a/out", dir), *x = lit_xasprintf("%s/x", dir);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  lit_tree_add(&t, "a.html", lit_xstrdup("A"), 1);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), 0);
  ck_write(dir, "x/out/precious.txt", "keep");
  lit_tree t2 = LIT_TREE_INIT;
  lit_tree_add(&t2, "a.html", lit_xstrdup("A2"), 2);
  S_hook_dir = dir;
  lit_tree_test_hook = S_swap_parent;
  int r = lit_tree_install(&t2, out, "a.html", 0, d);
  lit_tree_test_hook = NULL;
  ck_assert_int_eq(r, 0);
  char *kept = ck_read(dir, "x/out/precious.txt");
  ck_assert_str_eq(kept, "keep");
  free(kept);
  char *a = ck_read(dir, "a.real/out/a.html");
  ck_assert_str_eq(a, "A2");
  free(a);
  S_assert_no_staging(x, dir);
  lit_tree_free(&t);
  lit_tree_free(&t2);
  lit_diags_free(d);
  free(out);
  free(x);
  ck_rmtree(dir);
}
END_TEST

/* After the install checked what out holds: someone saves a file there
 * (an editor, a second terminal), or puts a folder of other work in
 * out's place. */
static void S_add_file(void) { ck_write(S_hook_dir, "out/notes.txt", "mine"); }
static void S_replace_out(void) {
  char *out = lit_xasprintf("%s/out", S_hook_dir), *aside = lit_xasprintf("%s/out.lit", S_hook_dir);
  ck_assert_int_eq(rename(out, aside), 0);
  free(out);
  free(aside);
  ck_write(S_hook_dir, "out/precious.txt", "keep");
}

/* What the check approved is what the swap moves aside and deletes: a
 * file that appears in the folder between the two, or a folder of other
 * work put in its place, is not deleted with lit's old copy; the install
 * is undone and says why. */
static void S_check_race(void (*hook)(void), const char *rel, const char *text) {
  char *dir = ck_tempdir();
  char *out = lit_xasprintf("%s/out", dir);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  lit_tree_add(&t, "a.html", lit_xstrdup("A"), 1);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", 0, d), 0);
  lit_tree t2 = LIT_TREE_INIT;
  lit_tree_add(&t2, "a.html", lit_xstrdup("A2"), 2);
  S_hook_dir = dir;
  lit_tree_test_hook = hook;
  int r = lit_tree_install(&t2, out, "a.html", 0, d);
  lit_tree_test_hook = NULL;
  ck_assert_int_eq(r, -1);
  ck_assert_uint_ge(lit_diags_count(d, LIT_ERROR), 1);
  char *kept = ck_read(dir, rel);
  ck_assert_ptr_nonnull(kept);
  ck_assert_str_eq(kept, text);
  free(kept);
  S_assert_no_staging(dir, dir);
  lit_tree_free(&t);
  lit_tree_free(&t2);
  lit_diags_free(d);
  free(out);
  ck_rmtree(dir);
}

START_TEST(test_tree_install_file_added_meanwhile) { S_check_race(S_add_file, "out/notes.txt", "mine"); }
END_TEST

START_TEST(test_tree_install_folder_replaced_meanwhile) { S_check_race(S_replace_out, "out/precious.txt", "keep"); }
END_TEST

Suite *tree_suite(void) {
  Suite *s = suite_create("tree");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_tree_install_and_compare);
  tcase_add_test(tc, test_tree_compare_fifo);
  tcase_add_test(tc, test_tree_unreadable_folder);
  tcase_add_test(tc, test_tree_legacy_manifest_not_trusted);
  tcase_add_test(tc, test_tree_manifest_checked);
  tcase_add_test(tc, test_tree_leftovers_checked);
  tcase_add_test(tc, test_tree_leftovers_listed);
  tcase_add_test(tc, test_tree_read_refuses_links);
  tcase_add_test(tc, test_tree_read_swapped_for_link);
  tcase_add_test(tc, test_tree_install_refuses_newline_names);
  tcase_add_test(tc, test_tree_install_swapped_parent);
  tcase_add_test(tc, test_tree_install_no_links);
  tcase_add_test(tc, test_tree_install_file_added_meanwhile);
  tcase_add_test(tc, test_tree_install_folder_replaced_meanwhile);
  suite_add_tcase(s, tc);
  return s;
}

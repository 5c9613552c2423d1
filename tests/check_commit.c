/* check_commit.c: the journaled commit: a run, the undo of a run that died
 * (from a journal such a run leaves), the clean-up of one that died after
 * its commit point, and files that only look like lit's, which stay. */
#include "check_lit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>

#include "commit.h"
#include "hash.h"

static int S_exists(const char *dir, const char *rel) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  struct stat st;
  int r = lstat(full, &st) == 0;
  free(full);
  return r;
}

/* A hard link, as a run keeps an old copy. */
static void S_link(const char *dir, const char *from, const char *to) {
  char *a = lit_xasprintf("%s/%s", dir, from), *b = lit_xasprintf("%s/%s", dir, to);
  ck_assert_int_eq(link(a, b), 0);
  free(a);
  free(b);
}

/* The "made" line a run writes for the file it made at rel: its device
 * and inode, and for an old copy (old) its size and time, which prove it
 * lit's to a recovery. The caller frees it. */
static char *S_made(const char *dir, const char *rel, int old) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  struct stat st;
  ck_assert_int_eq(lstat(full, &st), 0);
  free(full);
  char *line = lit_xasprintf("made\t%s\t%llu\t%llu", rel, (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
  char *whole = old ? lit_xasprintf("%s\t%lld\t%lld\t%ld\n", line, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                                    (long)st.st_mtim.tv_nsec)
                    : lit_xasprintf("%s\n", line);
  free(line);
  return whole;
}

static void S_stage(lit_commit *c, const char *rel, const char *text) {
  int fd;
  ck_assert_int_eq(lit_commit_open(c, rel, &fd), 0);
  ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  ck_assert_int_eq(lit_commit_close(c, fd, 0, 0), 0);
}

START_TEST(test_run) {
  char *dir = ck_tempdir();
  ck_write(dir, "out/old.c", "old");
  ck_write(dir, "out/gone.c", "gone");
  lit_diags *d = lit_diags_new();
  lit_commit *c = lit_commit_new(dir, ".rec-journal");
  S_stage(c, "out/old.c", "new");
  S_stage(c, "out/sub/deeper/n.c", "n");
  lit_commit_remove(c, "out/gone.c");
  ck_assert_uint_eq(lit_commit_count(c), 2);
  ck_assert(S_exists(dir, ".rec-journal")); /* written ahead, from the first change */
  size_t removed;
  ck_assert_int_eq(lit_commit_run(c, &removed, d), LIT_OK);
  ck_assert_uint_eq(removed, 1);
  lit_commit_free(c);
  char *a = ck_read(dir, "out/old.c"), *n = ck_read(dir, "out/sub/deeper/n.c");
  ck_assert_str_eq(a, "new");
  ck_assert_str_eq(n, "n");
  free(a);
  free(n);
  ck_assert(!S_exists(dir, "out/gone.c"));
  ck_assert(!S_exists(dir, ".rec-journal"));
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

/* A file its writer read (a document lit stitch rewrites) and an editor
 * saved before the commit: in place (new bytes, same inode) or as a new
 * file renamed over it. The run refuses, every file as it was, the
 * editor's save kept and nothing of lit's left behind; the file unchanged
 * since it was read is replaced. */
START_TEST(test_expect_unchanged) {
  for (int how = 0; how < 3; how++) { /* 0 unchanged, 1 saved in place, 2 saved by rename */
    char *dir = ck_tempdir();
    ck_write(dir, "doc.md", "as read\n");
    ck_write(dir, "out/x.c", "x");
    char *full = lit_xasprintf("%s/doc.md", dir);
    lit_buf seen = LIT_BUF_INIT;
    lit_file_id id;
    ck_assert_int_eq(lit_read_file_id(full, &seen, &id), 0);
    ck_assert(id.known);
    lit_commit *c = lit_commit_new(dir, ".rec-journal");
    S_stage(c, "out/x.c", "y");
    S_stage(c, "doc.md", "stitched\n");
    ck_assert_int_eq(lit_commit_expect(c, "doc.md", &id), 0);
    ck_assert_int_eq(lit_commit_expect(c, "other.md", &id), ENOENT);
    if (how == 1) {
      struct timespec pause = {0, 20 * 1000 * 1000}; /* a later modification time, even on coarse clocks */
      nanosleep(&pause, NULL);
      ck_write(dir, "doc.md", "as saved\n"); /* the same size: only the time tells */
    } else if (how == 2) {
      ck_write(dir, "saved.tmp", "as read\n"); /* the same bytes, another file */
      char *tmp = lit_xasprintf("%s/saved.tmp", dir);
      ck_assert_int_eq(rename(tmp, full), 0);
      free(tmp);
    }
    lit_diags *d = lit_diags_new();
    lit_status st = lit_commit_run(c, NULL, d);
    lit_commit_free(c);
    char *text = ck_diags_text(d), *doc = ck_read(dir, "doc.md"), *x = ck_read(dir, "out/x.c");
    if (how == 0) {
      ck_assert_msg(st == LIT_OK, "%s", text);
      ck_assert_str_eq(doc, "stitched\n");
      ck_assert_str_eq(x, "y");
    } else {
      ck_assert_int_eq(st, LIT_FAILED);
      ck_assert_msg(strstr(text, "doc.md") && strstr(text, "changed on disk while lit ran"), "%s", text);
      ck_assert_str_eq(doc, how == 1 ? "as saved\n" : "as read\n");
      ck_assert_str_eq(x, "x");
    }
    DIR *dd = opendir(dir);
    for (struct dirent *e; (e = readdir(dd));)
      ck_assert_msg(strncmp(e->d_name, ".lit-", 5) != 0 && strcmp(e->d_name, ".rec-journal") != 0, "left: %s",
                    e->d_name);
    closedir(dd);
    free(text), free(doc), free(x), free(full);
    lit_buf_free(&seen);
    lit_diags_free(d);
    ck_rmtree(dir);
  }
}
END_TEST

static mode_t S_mode_of(const char *dir, const char *rel) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  struct stat st;
  ck_assert_int_eq(stat(full, &st), 0);
  free(full);
  return st.st_mode & 07777;
}

static void S_chmod(const char *dir, const char *rel, mode_t m) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  ck_assert_int_eq(chmod(full, m), 0);
  free(full);
}

/* A replaced file keeps the mode its owner gave it: read-only stays
 * read-only, and a block that asks for execute adds it where it can be
 * read. A new file gets the default less the umask. */
START_TEST(test_keeps_mode) {
  char *dir = ck_tempdir();
  ck_write(dir, "out/ro.c", "old");
  ck_write(dir, "out/run.sh", "old");
  S_chmod(dir, "out/ro.c", 0444);
  S_chmod(dir, "out/run.sh", 0640);
  mode_t mask = umask(022);
  lit_diags *d = lit_diags_new();
  lit_commit *c = lit_commit_new(dir, ".rec-journal");
  S_stage(c, "out/ro.c", "new");
  int fd;
  ck_assert_int_eq(lit_commit_open(c, "out/run.sh", &fd), 0);
  ck_assert_int_eq(lit_commit_close(c, fd, 1, 0), 0);
  S_stage(c, "out/fresh.c", "f");
  ck_assert_int_eq(lit_commit_run(c, NULL, d), LIT_OK);
  lit_commit_free(c);
  umask(mask);
  ck_assert_uint_eq(S_mode_of(dir, "out/ro.c"), 0444);
  ck_assert_uint_eq(S_mode_of(dir, "out/run.sh"), 0750);
  ck_assert_uint_eq(S_mode_of(dir, "out/fresh.c"), 0644);
  char *a = ck_read(dir, "out/ro.c");
  ck_assert_str_eq(a, "new");
  free(a);
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

/* A commit freed without running leaves nothing: no temporary, no folder it
 * made, no journal. */
START_TEST(test_abandon) {
  char *dir = ck_tempdir();
  lit_commit *c = lit_commit_new(dir, ".rec-journal");
  S_stage(c, "out/a/b.c", "b");
  lit_commit_free(c);
  ck_assert(!S_exists(dir, "out"));
  ck_assert(!S_exists(dir, ".rec-journal"));
  ck_rmtree(dir);
}
END_TEST

/* The journal's own folders, made before it could be written, go too. */
START_TEST(test_abandon_journal_folder) {
  char *dir = ck_tempdir();
  ck_write(dir, "st/keep", "there before");
  lit_commit *c = lit_commit_new(dir, "st/new/deeper/.rec-journal");
  S_stage(c, "out/b.c", "b");
  ck_assert(S_exists(dir, "st/new/deeper/.rec-journal"));
  lit_commit_free(c);
  ck_assert(!S_exists(dir, "st/new"));
  ck_assert(S_exists(dir, "st/keep"));
  ck_assert(!S_exists(dir, "out"));
  ck_rmtree(dir);
}
END_TEST

/* What a tangle killed between two renames leaves: out/a.c already new,
 * out/b.c not yet (its old copy a link to it), out/gone.c removed,
 * out/n/c.c new in a new folder. The next run's recovery puts the old
 * state back and removes what the journal names. */
START_TEST(test_recover_committed) {
  char *dir = ck_tempdir();
  ck_write(dir, "out/a.c", "a new");
  ck_write(dir, "out/.lit-old-4194304-0", "a old");
  ck_write(dir, "out/b.c", "b old");
  S_link(dir, "out/b.c", "out/.lit-old-4194304-1");
  ck_write(dir, "out/.lit-tmp-4194304-1", "b new");
  ck_write(dir, "out/.lit-old-4194304-2", "gone");
  ck_write(dir, "out/n/.lit-tmp-4194304-2", "c");
  /* made as a staged copy, then renamed into place: the same inode */
  char *t2 = S_made(dir, "out/n/.lit-tmp-4194304-2", 0);
  char *from = lit_xasprintf("%s/out/n/.lit-tmp-4194304-2", dir), *to = lit_xasprintf("%s/out/n/c.c", dir);
  ck_assert_int_eq(rename(from, to), 0);
  free(from);
  free(to);
  char ha[LIT_HASH_HEX + 1], hb[LIT_HASH_HEX + 1], hc[LIT_HASH_HEX + 1];
  lit_hash_hex("a new", 5, ha);
  lit_hash_hex("b new", 5, hb);
  lit_hash_hex("c", 1, hc);
  /* each copy's proof, as the run wrote it (those renamed into place since
   * with the numbers they had) */
  char *t1 = S_made(dir, "out/.lit-tmp-4194304-1", 0), *o0 = S_made(dir, "out/.lit-old-4194304-0", 1),
       *o1 = S_made(dir, "out/.lit-old-4194304-1", 1), *o2 = S_made(dir, "out/.lit-old-4194304-2", 1);
  char *journal = lit_xasprintf("lit-journal 4194304\n"
                                "dir\tout/n\n"
                                "temp\tout/.lit-tmp-4194304-0\n"
                                "made\tout/.lit-tmp-4194304-0\t1\t1\n"
                                "temp\tout/.lit-tmp-4194304-1\n"
                                "%s"
                                "temp\tout/n/.lit-tmp-4194304-2\n"
                                "%s"
                                "replace\tout/.lit-tmp-4194304-0\tout/a.c\tout/.lit-old-4194304-0\t%s\n"
                                "replace\tout/.lit-tmp-4194304-1\tout/b.c\tout/.lit-old-4194304-1\t%s\n"
                                "remove\tout/gone.c\tout/.lit-old-4194304-2\n"
                                "new\tout/n/.lit-tmp-4194304-2\tout/n/c.c\t%s\n"
                                "commit\n%s%s%s",
                                t1, t2, ha, hb, hc, o0, o1, o2);
  ck_write(dir, ".rec-journal", journal);
  free(journal);
  free(t1);
  free(t2);
  free(o0);
  free(o1);
  free(o2);
  char *roots[] = {"out/"};
  lit_recover_opts o = {roots, 1, ".rec", 0, NULL, 0};
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), 0);
  char *a = ck_read(dir, "out/a.c"), *b = ck_read(dir, "out/b.c"), *g = ck_read(dir, "out/gone.c");
  ck_assert_str_eq(a, "a old");
  ck_assert_str_eq(b, "b old");
  ck_assert_str_eq(g, "gone");
  free(a);
  free(b);
  free(g);
  ck_assert(!S_exists(dir, "out/n"));
  ck_assert(!S_exists(dir, ".rec-journal"));
  ck_assert(!S_exists(dir, "out/.lit-tmp-4194304-1"));
  ck_assert(!S_exists(dir, "out/.lit-old-4194304-1"));
  char *t = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(t, "was interrupted while it put its files in place"));
  free(t);
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

/* A journal says which content it put in place; what a recovery finds
 * there instead is not lit's and stays, whatever the journal names: a new
 * file whose content is not the journal's, a replaced one edited since,
 * and any target of a journal that gives no content (an older lit's, or
 * one written by hand). */
START_TEST(test_recover_takes_back_only_its_content) {
  const char *journals[] = {
      "lit-journal 4194304\nnew\tout/.lit-tmp-4194304-0\tout/user.c\t%s\ncommit\n",
      "lit-journal 4194304\nnew\tout/.lit-tmp-4194304-0\tout/user.c\ncommit\n",
      "lit-journal 4194304\nreplace\tout/.lit-tmp-4194304-0\tout/user.c\tout/.lit-old-4194304-0\t%s\ncommit\n",
      "lit-journal 4194304\nreplace\tout/.lit-tmp-4194304-0\tout/user.c\tout/.lit-old-4194304-0\ncommit\n",
      "lit-journal 4194304\nremove\tout/user.c\tout/.lit-old-4194304-0\ncommit\n",
  };
  char other[LIT_HASH_HEX + 1];
  lit_hash_hex("what lit wrote", 14, other);
  for (size_t k = 0; k < sizeof journals / sizeof journals[0]; k++) {
    char *dir = ck_tempdir();
    ck_write(dir, "out/user.c", "a user's");
    ck_write(dir, "out/.lit-old-4194304-0", "bait");
    char *journal = lit_xasprintf(journals[k], other);
    ck_write(dir, ".rec-journal", journal);
    free(journal);
    char *roots[] = {"out/"};
    lit_recover_opts o = {roots, 1, ".rec", 0, NULL, 0};
    lit_diags *d = lit_diags_new();
    lit_commit_recover(dir, ".rec-journal", &o, d);
    char *u = S_exists(dir, "out/user.c") ? ck_read(dir, "out/user.c") : lit_xstrdup("(deleted)");
    ck_assert_msg(strcmp(u, "a user's") == 0, "journal %zu: out/user.c holds %s", k, u);
    free(u);
    lit_diags_free(d);
    ck_rmtree(dir);
  }
}
END_TEST

/* An old copy is a hard link lit made to a regular file: a symbolic link
 * or a folder that a journal names as one is not lit's, and is never
 * renamed into place (it would plant a link to anywhere where lit writes),
 * whether the target is lit's new copy or missing; it stays, with a note. */
START_TEST(test_recover_old_copy_not_a_file) {
  char h[LIT_HASH_HEX + 1];
  lit_hash_hex("lit's new", 9, h);
  const char *journals[] = {
      "lit-journal 4194304\nreplace\tout/.lit-tmp-4194304-0\tout/x.c\tout/.lit-old-4194304-0\t%s\ncommit\n",
      "lit-journal 4194304\nremove\tout/gone.c\tout/.lit-old-4194304-0\ncommit\n",
  };
  for (size_t k = 0; k < sizeof journals / sizeof journals[0]; k++)
    for (int folder = 0; folder < 2; folder++) {
      char *dir = ck_tempdir(), *away = ck_tempdir();
      ck_write(away, "victim", "not lit's");
      ck_write(dir, "out/x.c", "lit's new");
      char *old = lit_xasprintf("%s/out/.lit-old-4194304-0", dir), *to = lit_xasprintf("%s/victim", away);
      ck_assert_int_eq(folder ? mkdir(old, 0755) : symlink(to, old), 0);
      char *journal = lit_xasprintf(journals[k], h);
      ck_write(dir, ".rec-journal", journal);
      free(journal);
      char *roots[] = {"out/"};
      lit_recover_opts o = {roots, 1, ".rec", 0, NULL, 0};
      lit_diags *d = lit_diags_new();
      lit_commit_recover(dir, ".rec-journal", &o, d);
      struct stat st;
      char *x = lit_xasprintf("%s/out/x.c", dir), *gone = lit_xasprintf("%s/out/gone.c", dir);
      ck_assert_msg(lstat(x, &st) == 0 && S_ISREG(st.st_mode), "journal %zu: out/x.c is not lit's file", k);
      ck_assert_msg(lstat(gone, &st) != 0, "journal %zu: the old copy was put back as out/gone.c", k);
      ck_assert_msg(lstat(old, &st) == 0, "journal %zu: the old copy that is not lit's was removed", k);
      char *v = ck_read(away, "victim"), *t = ck_diags_text(d);
      ck_assert_str_eq(v, "not lit's");
      ck_assert_msg(strstr(t, "not a file lit made") != NULL, "journal %zu: %s", k, t);
      free(v);
      free(t);
      free(x);
      free(gone);
      free(old);
      free(to);
      lit_diags_free(d);
      ck_rmtree(dir);
      ck_rmtree(away);
    }
}
END_TEST

/* What a stitch killed between two renames leaves: doc/a.md already new,
 * index.md not yet. The recovery, told the project's documents, puts both
 * back, says a stitch was interrupted and returns 1 (documents read before
 * it are stale); the dead run's copies beside the documents go, and a file
 * there that only looks like one (no journal names it) stays. */
START_TEST(test_recover_stitch) {
  char *dir = ck_tempdir();
  ck_write(dir, "index.md", "index old");
  S_link(dir, "index.md", ".lit-old-4194304-0");
  ck_write(dir, ".lit-tmp-4194304-0", "index new");
  ck_write(dir, "doc/a.md", "a new");
  ck_write(dir, "doc/.lit-old-4194304-1", "a old");
  ck_write(dir, "doc/.lit-tmp-4194304-9", "a dead run's");
  char hi[LIT_HASH_HEX + 1], ha[LIT_HASH_HEX + 1];
  lit_hash_hex("index new", 9, hi);
  lit_hash_hex("a new", 5, ha);
  char *t0 = S_made(dir, ".lit-tmp-4194304-0", 0), *o0 = S_made(dir, ".lit-old-4194304-0", 1),
       *o1 = S_made(dir, "doc/.lit-old-4194304-1", 1);
  char *journal = lit_xasprintf("lit-journal 4194304\n"
                                "temp\t.lit-tmp-4194304-0\n"
                                "%s"
                                "temp\tdoc/.lit-tmp-4194304-1\n"
                                "made\tdoc/.lit-tmp-4194304-1\t1\t1\n"
                                "replace\t.lit-tmp-4194304-0\tindex.md\t.lit-old-4194304-0\t%s\n"
                                "replace\tdoc/.lit-tmp-4194304-1\tdoc/a.md\tdoc/.lit-old-4194304-1\t%s\n"
                                "commit\n%s%s",
                                t0, hi, ha, o0, o1);
  ck_write(dir, ".rec-journal", journal);
  free(journal);
  free(t0);
  free(o0);
  free(o1);
  char *roots[] = {"out/"}, *docs[] = {"index.md", "doc/a.md"};
  lit_recover_opts o = {roots, 1, ".rec", 0, docs, 2};
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), 1);
  char *i = ck_read(dir, "index.md"), *a = ck_read(dir, "doc/a.md");
  ck_assert_str_eq(i, "index old");
  ck_assert_str_eq(a, "a old");
  free(i);
  free(a);
  ck_assert(!S_exists(dir, ".rec-journal"));
  ck_assert(!S_exists(dir, ".lit-tmp-4194304-0"));
  ck_assert(!S_exists(dir, "doc/.lit-old-4194304-1"));
  ck_assert(S_exists(dir, "doc/.lit-tmp-4194304-9"));
  char *t = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(t, "a stitch (process 4194304) was interrupted"));
  free(t);
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

/* Documents are targets only when the project names them, exactly, and
 * reached through no link leading out: any other Markdown file, or a
 * journal read without the documents' list (an older caller), is refused
 * and nothing is touched. */
START_TEST(test_recover_stitch_distrusts) {
  char *dir = ck_tempdir(), *away = ck_tempdir();
  ck_write(dir, "index.md", "index");
  ck_write(dir, "notes.md", "a user's");
  ck_write(dir, ".lit-old-4194304-0", "bait");
  ck_write(away, "far.md", "not lit's");
  ck_write(away, ".lit-old-4194304-0", "bait");
  char *link = lit_xasprintf("%s/linked", dir);
  ck_assert_int_eq(symlink(away, link), 0);
  free(link);
  char *roots[] = {"out/"}, *docs[] = {"index.md", "linked/far.md"};
  const char *journals[] = {
      "lit-journal 4194304\nremove\tnotes.md\t.lit-old-4194304-0\ncommit\n",
      "lit-journal 4194304\nremove\t./index.md\t.lit-old-4194304-0\ncommit\n",
      "lit-journal 4194304\nremove\tlinked/far.md\tlinked/.lit-old-4194304-0\ncommit\n",
      "lit-journal 4194304\ntemp\tother/.lit-tmp-4194304-0\n",
  };
  for (size_t k = 0; k < sizeof journals / sizeof journals[0]; k++) {
    lit_recover_opts o = {roots, 1, ".rec", 0, docs, 2};
    ck_write(dir, ".rec-journal", journals[k]);
    lit_diags *d = lit_diags_new();
    ck_assert_msg(lit_commit_recover(dir, ".rec-journal", &o, d) == -1, "journal %zu was trusted", k);
    ck_assert(S_exists(dir, ".rec-journal"));
    lit_diags_free(d);
  }
  /* Without the list, even the project's own document is refused. */
  lit_recover_opts bare = {roots, 1, ".rec", 0, NULL, 0};
  ck_write(dir, ".rec-journal", "lit-journal 4194304\nremove\tindex.md\t.lit-old-4194304-0\ncommit\n");
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &bare, d), -1);
  lit_diags_free(d);
  char *n = ck_read(dir, "notes.md"), *i = ck_read(dir, "index.md"), *f = ck_read(away, "far.md");
  ck_assert_str_eq(n, "a user's");
  ck_assert_str_eq(i, "index");
  ck_assert_str_eq(f, "not lit's");
  free(n);
  free(i);
  free(f);
  ck_rmtree(dir);
  ck_rmtree(away);
}
END_TEST

/* A stitch only replaces documents: a journal that makes or removes one,
 * or names one through a link to its folder, is refused (its undo would
 * delete the document) and nothing is touched. */
START_TEST(test_recover_refuses_document_targets) {
  char *dir = ck_tempdir();
  ck_write(dir, "index.md", "index");
  ck_write(dir, "out/doc.md", "doc");
  ck_write(dir, ".lit-old-4194304-0", "bait");
  char *link = lit_xasprintf("%s/out/sub", dir);
  ck_assert_int_eq(symlink(".", link), 0); /* out/sub/doc.md is out/doc.md */
  free(link);
  char hi[LIT_HASH_HEX + 1], hd[LIT_HASH_HEX + 1];
  lit_hash_hex("index", 5, hi);
  lit_hash_hex("doc", 3, hd);
  char *journals[] = {
      lit_xasprintf("lit-journal 4194304\nnew\t.lit-tmp-4194304-1\tindex.md\t%s\ncommit\n", hi),
      lit_xasprintf("lit-journal 4194304\nremove\tindex.md\t.lit-old-4194304-0\ncommit\n"),
      lit_xasprintf("lit-journal 4194304\nnew\tout/.lit-tmp-4194304-1\tout/doc.md\t%s\ncommit\n", hd),
      lit_xasprintf("lit-journal 4194304\nnew\tout/sub/.lit-tmp-4194304-1\tout/sub/doc.md\t%s\ncommit\n", hd),
      lit_xasprintf("lit-journal 4194304\nreplace\tout/sub/.lit-tmp-4194304-1\tout/sub/doc.md\t"
                    "out/sub/.lit-old-4194304-2\t%s\ncommit\n",
                    hd),
  };
  char *roots[] = {"out/"}, *docs[] = {"index.md", "out/doc.md"};
  for (size_t k = 0; k < sizeof journals / sizeof journals[0]; k++) {
    lit_recover_opts o = {roots, 1, ".rec", 0, docs, 2};
    ck_write(dir, ".rec-journal", journals[k]);
    lit_diags *d = lit_diags_new();
    ck_assert_msg(lit_commit_recover(dir, ".rec-journal", &o, d) == -1, "journal %zu was trusted", k);
    char *t = ck_diags_text(d);
    ck_assert_msg(strstr(t, "a document") != NULL, "journal %zu: %s", k, t);
    free(t);
    ck_assert(S_exists(dir, ".rec-journal"));
    lit_diags_free(d);
    free(journals[k]);
  }
  char *i = ck_read(dir, "index.md"), *doc = ck_read(dir, "out/doc.md");
  ck_assert_str_eq(i, "index");
  ck_assert_str_eq(doc, "doc");
  free(i);
  free(doc);
  ck_rmtree(dir);
}
END_TEST

/* Killed while staging (no "commit" line, the last line cut short): only
 * temporaries and folders to remove; the files were never touched. */
START_TEST(test_recover_staging) {
  char *dir = ck_tempdir();
  ck_write(dir, "out/a.c", "a old");
  ck_write(dir, "out/x/.lit-tmp-4194304-0", "partial");
  char *made = S_made(dir, "out/x/.lit-tmp-4194304-0", 0);
  char *journal =
      lit_xasprintf("lit-journal 4194304\ndir\tout/x\ntemp\tout/x/.lit-tmp-4194304-0\n%snew\tout/x/.lit-t", made);
  ck_write(dir, ".rec-journal", journal);
  free(journal);
  free(made);
  char *roots[] = {"out/"};
  lit_recover_opts o = {roots, 1, ".rec", 0, NULL, 0};
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), 0);
  ck_assert(!S_exists(dir, "out/x"));
  ck_assert(!S_exists(dir, ".rec-journal"));
  char *a = ck_read(dir, "out/a.c");
  ck_assert_str_eq(a, "a old");
  free(a);
  ck_assert_uint_eq(lit_diags_count(d, LIT_NOTE), 0); /* nothing was in place yet: nothing to say */
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

/* A journal of a process that still runs, or one this version did not
 * write, is left alone and stops the run. */
START_TEST(test_recover_refuses) {
  char *dir = ck_tempdir();
  char *live = lit_xasprintf("lit-journal %ld\ncommit\n", (long)getppid());
  ck_write(dir, ".rec-journal", live);
  free(live);
  lit_recover_opts o = {NULL, 0, ".rec", 0, NULL, 0};
  lit_diags *d = lit_diags_new();
  char *jpath = lit_xasprintf("%s/.rec-journal", dir);
  int fd = open(jpath, O_RDONLY); /* its run: holding the journal's lock */
  free(jpath);
  ck_assert_int_eq(flock(fd, LOCK_EX), 0);
  ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), -1);
  close(fd);
  ck_write(dir, ".rec-journal", "lit-journal 4194304\nreplace\t../etc/passwd\tx\ty\ncommit\n");
  ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), -1);
  ck_assert(S_exists(dir, ".rec-journal"));
  char *t = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(t, "holds this journal"));
  ck_assert_ptr_nonnull(strstr(t, "not a journal lit can undo"));
  free(t);
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

/* An empty journal is a run that has only just created it (it locks it
 * next) or one stopped before its first line: nothing is undone, and the
 * message does not tell the user to delete a live run's journal outright. */
START_TEST(test_recover_empty_journal) {
  char *dir = ck_tempdir();
  ck_write(dir, ".rec-journal", "");
  ck_write(dir, "out/a.c", "a");
  lit_recover_opts o = {NULL, 0, ".rec", 0, NULL, 0};
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), -1);
  ck_assert(S_exists(dir, ".rec-journal"));
  char *a = ck_read(dir, "out/a.c");
  ck_assert_str_eq(a, "a");
  free(a);
  char *t = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(t, "this journal is empty"));
  ck_assert_ptr_nonnull(strstr(t, "if no lit is running"));
  ck_assert_ptr_null(strstr(t, "not a journal lit can undo"));
  free(t);
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

/* A journal is trusted only as far as it names what a run of this project
 * could have made: anything else is refused and nothing is touched. */
static void S_refused(const char *dir, const char *journal, const char *expect) {
  char *roots[] = {"out/"};
  lit_recover_opts o = {roots, 1, ".rec", 0, NULL, 0};
  ck_write(dir, ".rec-journal", journal);
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), -1);
  ck_assert(S_exists(dir, ".rec-journal"));
  char *t = ck_diags_text(d);
  ck_assert_msg(strstr(t, expect) != NULL, "expected '%s' in: %s", expect, t);
  free(t);
  lit_diags_free(d);
}

START_TEST(test_recover_distrusts) {
  char *dir = ck_tempdir(), *away = ck_tempdir();
  ck_write(away, "victim", "not lit's");
  ck_write(away, ".lit-old-4194304-0", "bait");
  ck_write(dir, "out/a.c", "a");
  ck_write(dir, "other/f", "a user's");
  ck_write(dir, "other/.lit-old-4194304-0", "x");
  char *link = lit_xasprintf("%s/out/link", dir);
  ck_assert_int_eq(symlink(away, link), 0);
  free(link);
  /* a target outside the output folders */
  S_refused(dir, "lit-journal 4194304\nremove\tother/f\tother/.lit-old-4194304-0\ncommit\n", "no run of this project");
  /* through a link that leads out of the project */
  S_refused(dir, "lit-journal 4194304\nremove\tout/link/victim\tout/link/.lit-old-4194304-0\ncommit\n",
            "no run of this project");
  /* a staged copy that is not a name lit gives out */
  S_refused(dir, "lit-journal 4194304\nnew\tout/.bashrc\tout/a.c\ncommit\n", "not a staged copy");
  /* an old copy of another process, or in another folder */
  S_refused(dir, "lit-journal 4194304\nremove\tout/a.c\tout/.lit-old-99-0\ncommit\n", "not an old copy");
  S_refused(dir, "lit-journal 4194304\ntemp\tother/.lit-tmp-4194304-0\n", "outside the output folders");
  S_refused(dir, "lit-journal 4194304\ndir\tother\n", "not a folder of the output folders");
  /* a folder reached through the link */
  S_refused(dir, "lit-journal 4194304\ndir\tout/link\n", "not a folder of the output folders");
  char *v = ck_read(away, "victim"), *f = ck_read(dir, "other/f"), *a = ck_read(dir, "out/a.c");
  ck_assert_str_eq(v, "not lit's");
  ck_assert_str_eq(f, "a user's");
  ck_assert_str_eq(a, "a");
  free(v);
  free(f);
  free(a);
  ck_rmtree(dir);
  ck_rmtree(away);
}
END_TEST

/* The journal itself: a link or a FIFO is refused (and read without
 * hanging), never followed. */
START_TEST(test_recover_journal_file) {
  char *dir = ck_tempdir();
  char *roots[] = {"out/"};
  lit_recover_opts o = {roots, 1, ".rec", 0, NULL, 0};
  char *j = lit_xasprintf("%s/.rec-journal", dir);
  ck_assert_int_eq(symlink("/etc/hostname", j), 0);
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), -1);
  unlink(j);
  ck_assert_int_eq(mkfifo(j, 0600), 0);
  ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), -1);
  char *t = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(t, "symbolic link"));
  ck_assert_ptr_nonnull(strstr(t, "not a regular file"));
  free(t);
  lit_diags_free(d);
  free(j);
  ck_rmtree(dir);
}
END_TEST

/* --check: a journal is reported, nothing is undone or removed. */
START_TEST(test_recover_check_writes_nothing) {
  char *dir = ck_tempdir();
  ck_write(dir, "out/a.c", "a new");
  ck_write(dir, "out/.lit-old-4194304-0", "a old");
  ck_write(dir, "out/.lit-tmp-4194304-7", "a dead run's");
  ck_write(dir, ".rec-journal",
           "lit-journal 4194304\nreplace\tout/.lit-tmp-4194304-0\tout/a.c\tout/.lit-old-4194304-0\n"
           "commit\n");
  char *roots[] = {"out/"};
  lit_recover_opts o = {roots, 1, ".rec", 1, NULL, 0};
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), -1);
  char *a = ck_read(dir, "out/a.c");
  ck_assert_str_eq(a, "a new");
  free(a);
  ck_assert(S_exists(dir, ".rec-journal"));
  ck_assert(S_exists(dir, "out/.lit-old-4194304-0"));
  ck_assert(S_exists(dir, "out/.lit-tmp-4194304-7"));
  char *t = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(t, "--check writes nothing"));
  free(t);
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

/* A dead run's journal whose process id now belongs to a live process:
 * the lock, not the id, says the run is over. */
START_TEST(test_recover_reused_pid) {
  char *dir = ck_tempdir();
  ck_write(dir, "out/x/.lit-tmp-1-0", "partial");
  char *text =
      lit_xasprintf("lit-journal %ld\ndir\tout/x\ntemp\tout/x/.lit-tmp-%ld-0\n", (long)getppid(), (long)getppid());
  ck_write(dir, ".rec-journal", text);
  free(text);
  char *roots[] = {"out/"};
  lit_recover_opts o = {roots, 1, ".rec", 0, NULL, 0};
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), 0);
  ck_assert(!S_exists(dir, ".rec-journal"));
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

/* Nothing is removed by its name alone: files named like temporaries and
 * old copies of dead processes, of an older version, beside the journal,
 * in the output folders or beside a document, stay when no journal names
 * them, with or without a journal to recover. */
START_TEST(test_lookalikes_kept) {
  const char *names[] = {"out/deep/.lit-tmp-4194304-3", "out/.lit-old-4194304-1", "out/.lit-tmp-Ab12Cd",
                         "out/.lit-tmp-notes.txt",      ".lit-tmp-4194304-9",     "doc/.lit-tmp-4194304-0",
                         "other/.lit-tmp-4194304-0"};
  const size_t nn = sizeof names / sizeof names[0];
  for (int with_journal = 0; with_journal < 2; with_journal++) {
    char *dir = ck_tempdir();
    for (size_t i = 0; i < nn; i++)
      ck_write(dir, names[i], "a user's");
    ck_write(dir, "doc/a.md", "a");
    if (with_journal) ck_write(dir, ".rec-journal", "lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-5\n");
    char *roots[] = {"out/"}, *docs[] = {"doc/a.md"};
    lit_recover_opts o = {roots, 1, ".rec", 0, docs, 1};
    lit_diags *d = lit_diags_new();
    ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), 0);
    for (size_t i = 0; i < nn; i++)
      ck_assert_msg(S_exists(dir, names[i]), "%s was removed", names[i]);
    ck_assert(!S_exists(dir, ".rec-journal"));
    lit_diags_free(d);
    ck_rmtree(dir);
  }
}
END_TEST

/* A run gives out only names nothing holds: a user's files under this
 * process's own names stay as they are, and the run still goes through. */
START_TEST(test_run_skips_taken_names) {
  char *dir = ck_tempdir();
  long pid = (long)getpid();
  char *tmp = lit_xasprintf("out/.lit-tmp-%ld-0", pid), *old = lit_xasprintf("out/.lit-old-%ld-0", pid);
  ck_write(dir, tmp, "a user's temp");
  ck_write(dir, old, "a user's old");
  ck_write(dir, "out/a.c", "a old");
  lit_diags *d = lit_diags_new();
  lit_commit *c = lit_commit_new(dir, ".rec-journal");
  S_stage(c, "out/a.c", "a new");
  S_stage(c, "out/b.c", "b");
  ck_assert_int_eq(lit_commit_run(c, NULL, d), LIT_OK);
  lit_commit_free(c);
  char *t = ck_read(dir, tmp), *o = ck_read(dir, old), *a = ck_read(dir, "out/a.c");
  ck_assert_str_eq(t, "a user's temp");
  ck_assert_str_eq(o, "a user's old");
  ck_assert_str_eq(a, "a new");
  free(t);
  free(o);
  free(a);
  char *t1 = lit_xasprintf("out/.lit-tmp-%ld-1", pid), *o1 = lit_xasprintf("out/.lit-old-%ld-1", pid);
  ck_assert(!S_exists(dir, t1));
  ck_assert(!S_exists(dir, o1));
  ck_assert(!S_exists(dir, ".rec-journal"));
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR) + lit_diags_count(d, LIT_WARNING), 0);
  free(t1);
  free(o1);
  free(tmp);
  free(old);
  lit_diags_free(d);
  ck_rmtree(dir);
}
END_TEST

/* What a run killed after its commit point leaves: every file in place,
 * the journal ended by "done", and old copies still there (one already
 * removed). The next run removes the old copies the journal names, then
 * the journal; it undoes nothing, keeps the folders the run made and
 * leaves a look-alike no journal names. --check reports it and writes
 * nothing. */
START_TEST(test_recover_finished) {
  for (int check = 1; check >= 0; check--) {
    char *dir = ck_tempdir();
    ck_write(dir, "out/a.c", "a new");
    ck_write(dir, "out/.lit-old-4194304-0", "a old");
    ck_write(dir, "out/n/c.c", "c");
    ck_write(dir, "out/.lit-old-4194304-7", "a user's");
    char ha[LIT_HASH_HEX + 1], hc[LIT_HASH_HEX + 1];
    lit_hash_hex("a new", 5, ha);
    lit_hash_hex("c", 1, hc);
    char *o0 = S_made(dir, "out/.lit-old-4194304-0", 1);
    char *journal = lit_xasprintf("lit-journal 4194304\n"
                                  "dir\tout/n\n"
                                  "temp\tout/.lit-tmp-4194304-0\n"
                                  "made\tout/.lit-tmp-4194304-0\t1\t1\n"
                                  "temp\tout/n/.lit-tmp-4194304-1\n"
                                  "made\tout/n/.lit-tmp-4194304-1\t1\t2\n"
                                  "replace\tout/.lit-tmp-4194304-0\tout/a.c\tout/.lit-old-4194304-0\t%s\n"
                                  "remove\tout/gone.c\tout/.lit-old-4194304-1\n"
                                  "new\tout/n/.lit-tmp-4194304-1\tout/n/c.c\t%s\n"
                                  "commit\n"
                                  "%s"
                                  "made\tout/.lit-old-4194304-1\t1\t3\t4\t5\t6\n"
                                  "done\n",
                                  ha, hc, o0);
    ck_write(dir, ".rec-journal", journal);
    free(journal);
    free(o0);
    char *roots[] = {"out/"};
    lit_recover_opts o = {roots, 1, ".rec", check, NULL, 0};
    lit_diags *d = lit_diags_new();
    ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), 0);
    char *a = ck_read(dir, "out/a.c"), *c = ck_read(dir, "out/n/c.c");
    ck_assert_str_eq(a, "a new");
    ck_assert_str_eq(c, "c");
    free(a);
    free(c);
    ck_assert(!S_exists(dir, "out/gone.c"));
    ck_assert(S_exists(dir, "out/.lit-old-4194304-7"));
    ck_assert_int_eq(S_exists(dir, "out/.lit-old-4194304-0"), check);
    ck_assert_int_eq(S_exists(dir, ".rec-journal"), check);
    ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
    char *t = ck_diags_text(d);
    ck_assert_ptr_null(strstr(t, "was interrupted"));
    if (check) ck_assert_ptr_nonnull(strstr(t, "--check writes nothing"));
    free(t);
    lit_diags_free(d);
    ck_rmtree(dir);
  }
}
END_TEST

/* A "done" line proves nothing about the paths around it: a journal that
 * ends in one is validated like any other, and one that names an old copy
 * outside the allowed places, or that is not shaped as a run writes it, is
 * refused with nothing removed. */
START_TEST(test_recover_finished_distrusts) {
  char *dir = ck_tempdir(), *away = ck_tempdir();
  ck_write(away, ".lit-old-4194304-0", "bait");
  ck_write(dir, "out/a.c", "a");
  ck_write(dir, "other/f", "a user's");
  ck_write(dir, "other/.lit-old-4194304-0", "a user's");
  ck_write(dir, ".lit-old-4194304-0", "a user's");
  ck_write(dir, "out/.lit-old-4194304-0", "a user's");
  char *link = lit_xasprintf("%s/out/link", dir);
  ck_assert_int_eq(symlink(away, link), 0);
  free(link);
  char h[LIT_HASH_HEX + 1];
  lit_hash_hex("a", 1, h);
  /* a target outside the output folders */
  S_refused(dir, "lit-journal 4194304\nremove\tother/f\tother/.lit-old-4194304-0\ncommit\ndone\n",
            "no run of this project");
  /* an old copy away from its target, or beside the journal */
  char *j1 =
      lit_xasprintf("lit-journal 4194304\nreplace\tout/.lit-tmp-4194304-0\tout/a.c\tother/.lit-old-4194304-0\t%s\n"
                    "commit\ndone\n",
                    h);
  S_refused(dir, j1, "not an old copy that run kept beside its target");
  free(j1);
  S_refused(dir, "lit-journal 4194304\nremove\tout/a.c\t.lit-old-4194304-0\ncommit\ndone\n", "not an old copy");
  /* through a link that leads out of the project */
  S_refused(dir, "lit-journal 4194304\nremove\tout/link/x\tout/link/.lit-old-4194304-0\ncommit\ndone\n",
            "no run of this project");
  /* another process's name */
  S_refused(dir, "lit-journal 4194304\nremove\tout/a.c\tout/.lit-old-99-0\ncommit\ndone\n", "not an old copy");
  /* "done" without "commit", twice, or with a line after it */
  S_refused(dir, "lit-journal 4194304\nremove\tout/a.c\tout/.lit-old-4194304-0\ndone\n", "not a journal lit can undo");
  S_refused(dir, "lit-journal 4194304\nremove\tout/a.c\tout/.lit-old-4194304-0\ncommit\ndone\ndone\n",
            "not a journal lit can undo");
  S_refused(dir, "lit-journal 4194304\ncommit\ndone\nremove\tout/a.c\tout/.lit-old-4194304-0\n",
            "not a journal lit can undo");
  const char *kept[] = {"other/.lit-old-4194304-0", ".lit-old-4194304-0", "out/.lit-old-4194304-0", "other/f",
                        "out/a.c"};
  for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
    ck_assert_msg(S_exists(dir, kept[i]), "%s was removed", kept[i]);
  ck_assert(S_exists(away, ".lit-old-4194304-0"));
  ck_rmtree(dir);
  ck_rmtree(away);
}
END_TEST

/* A name proves nothing: what a dead run's journal names as its staged or
 * old copy is removed (or put back) only while it is the very file that
 * run recorded making. A user's file under such a name stays, with a
 * warning that names it and says why, and the recovery goes on: a journal
 * that names it with no proof, with the proof of another file, with a true
 * proof but content the plan does not give, or one changed after the run
 * kept it. */
START_TEST(test_recover_unproven_kept) {
  enum { TEMP, OLD };
  static const struct {
    int kind;         /* which of the user's files the journal names */
    const char *text; /* the journal: %s the "made" line the case gives (then the plan's hash) */
    int proof;        /* 0 none, 1 another file's, 2 its own, 3 its own, then changed */
    int missing;      /* out/gone.c is absent: an undo would put the old copy there */
    const char *why;
  } cases[] = {
      {TEMP, "lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-1\n%s", 0, 0, "no record of lit making it"},
      {TEMP, "lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-1\n%s", 1, 0, "not the file lit made"},
      {TEMP, "lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-1\n%snew\tout/.lit-tmp-4194304-1\tout/n.c\t%s\ncommit\n",
       2, 0, "content is not what lit staged"},
      {OLD, "lit-journal 4194304\nremove\tout/gone.c\tout/.lit-old-4194304-0\ncommit\n%sdone\n", 0, 0,
       "no record of lit making it"},
      {OLD, "lit-journal 4194304\nremove\tout/gone.c\tout/.lit-old-4194304-0\ncommit\n%sdone\n", 3, 0, "changed since"},
      {OLD, "lit-journal 4194304\nremove\tout/gone.c\tout/.lit-old-4194304-0\ncommit\n%s", 0, 1,
       "no record of lit making it"},
      {OLD, "lit-journal 4194304\nremove\tout/gone.c\tout/.lit-old-4194304-0\ncommit\n%s", 1, 1,
       "not the file lit made"},
  };
  const char *names[] = {"out/.lit-tmp-4194304-1", "out/.lit-old-4194304-0"};
  char h[LIT_HASH_HEX + 1];
  lit_hash_hex("lit's", 5, h);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char *dir = ck_tempdir();
    const char *name = names[cases[k].kind];
    ck_write(dir, "out/a.c", "a");
    if (!cases[k].missing) ck_write(dir, "out/gone.c", "gone");
    ck_write(dir, name, "a user's");
    char *made = cases[k].proof == 0   ? lit_xstrdup("")
                 : cases[k].proof == 1 ? S_made(dir, "out/a.c", cases[k].kind == OLD)
                                       : S_made(dir, name, cases[k].kind == OLD);
    if (cases[k].proof == 1) { /* out/a.c's proof, given for the user's file */
      char *fake = lit_xasprintf("made\t%s%s", name, made + strlen("made\tout/a.c"));
      free(made);
      made = fake;
    }
    if (cases[k].proof == 3) {
      struct timespec t[2] = {{0, UTIME_OMIT}, {12345, 0}};
      char *full = lit_xasprintf("%s/%s", dir, name);
      ck_assert_int_eq(utimensat(AT_FDCWD, full, t, 0), 0); /* edited since: another time */
      free(full);
    }
    char *journal = lit_xasprintf(cases[k].text, made, h);
    ck_write(dir, ".rec-journal", journal);
    char *roots[] = {"out/"};
    lit_recover_opts o = {roots, 1, ".rec", 0, NULL, 0};
    lit_diags *d = lit_diags_new();
    ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), 0);
    char *u = ck_read(dir, name), *a = ck_read(dir, "out/a.c");
    ck_assert_msg(u && strcmp(u, "a user's") == 0, "case %zu: %s was removed", k, name);
    ck_assert_str_eq(a, "a");
    ck_assert_msg(cases[k].missing ? !S_exists(dir, "out/gone.c") : S_exists(dir, "out/gone.c"),
                  "case %zu: out/gone.c was changed", k);
    char *t = ck_diags_text(d);
    ck_assert_msg(strstr(t, name) && strstr(t, "warning: kept") && strstr(t, cases[k].why), "case %zu: %s", k, t);
    ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
    ck_assert(!S_exists(dir, ".rec-journal"));
    free(t);
    free(u);
    free(a);
    free(journal);
    free(made);
    lit_diags_free(d);
    ck_rmtree(dir);
  }
}
END_TEST

/* A "made" line is read as strictly as the rest: one that proves a name
 * the journal did not give out before, an old copy before "commit", a
 * name twice, or numbers that are not lit's makes the journal refused,
 * with nothing touched. */
START_TEST(test_recover_made_refused) {
  char *dir = ck_tempdir();
  ck_write(dir, "out/a.c", "a");
  ck_write(dir, "out/.lit-tmp-4194304-1", "a user's");
  ck_write(dir, "out/.lit-old-4194304-0", "a user's");
  ck_write(dir, "other/.lit-tmp-4194304-0", "a user's");
  const char *journals[] = {
      "lit-journal 4194304\nmade\tout/.lit-tmp-4194304-1\t1\t2\n",
      "lit-journal 4194304\nmade\tout/.lit-tmp-4194304-1\t1\t2\ntemp\tout/.lit-tmp-4194304-1\n",
      "lit-journal 4194304\nmade\n",
      "lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-1\nmade\tout/.lit-tmp-4194304-1\t1\t2\t3\t4\t5\n",
      "lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-1\nmade\tout/.lit-tmp-4194304-1\t1\n",
      "lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-1\nmade\tout/.lit-tmp-4194304-1\t1\tx\n",
      "lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-1\nmade\tout/.lit-tmp-4194304-1\t-1\t2\n",
      "lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-1\nmade\tout/.lit-tmp-4194304-1\t\t2\n",
      "lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-1\nmade\tout/.lit-tmp-4194304-1\t1\t2\n"
      "made\tout/.lit-tmp-4194304-1\t1\t2\n",
      "lit-journal 4194304\nremove\tout/gone.c\tout/.lit-old-4194304-0\nmade\tout/.lit-old-4194304-0\t1\t2\t3\t4\t5\n"
      "commit\ndone\n",
      "lit-journal 4194304\nremove\tout/gone.c\tout/.lit-old-4194304-0\ncommit\nmade\tout/.lit-old-4194304-0\t1\t2\n"
      "done\n",
      "lit-journal 4194304\nremove\tout/gone.c\tout/.lit-old-4194304-0\ncommit\n"
      "made\tout/.lit-old-4194304-0\t1\t2\t-3\t4\t5\ndone\n",
      "lit-journal 4194304\ntemp\tout/../out/.lit-tmp-4194304-1\nmade\tout/../out/.lit-tmp-4194304-1\t1\t2\n",
  };
  for (size_t k = 0; k < sizeof journals / sizeof journals[0]; k++)
    S_refused(dir, journals[k], "not a journal lit can undo");
  /* a name outside the output folders, proof or not */
  S_refused(dir, "lit-journal 4194304\ntemp\tother/.lit-tmp-4194304-0\nmade\tother/.lit-tmp-4194304-0\t1\t2\n",
            "outside the output folders");
  const char *kept[] = {"out/a.c", "out/.lit-tmp-4194304-1", "out/.lit-old-4194304-0", "other/.lit-tmp-4194304-0"};
  for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
    ck_assert_msg(S_exists(dir, kept[i]), "%s was removed", kept[i]);
  ck_rmtree(dir);
}
END_TEST

/* A journal that gives a symbolic link's own device and inode as the
 * proof of a staged or old copy proves nothing: lit never makes a link,
 * and one is never removed, renamed into place or followed (the journal
 * is refused, or the link kept with a warning). */
START_TEST(test_recover_made_link) {
  const char *journals[] = {
      "lit-journal 4194304\ntemp\tout/.lit-tmp-4194304-1\n%s",
      "lit-journal 4194304\nremove\tout/gone.c\tout/.lit-old-4194304-1\ncommit\n%s",
      "lit-journal 4194304\nremove\tout/gone.c\tout/.lit-old-4194304-1\ncommit\n%sdone\n",
  };
  for (size_t k = 0; k < sizeof journals / sizeof journals[0]; k++) {
    char *dir = ck_tempdir(), *away = ck_tempdir();
    ck_write(away, "victim", "not lit's");
    const char *name = k == 0 ? "out/.lit-tmp-4194304-1" : "out/.lit-old-4194304-1";
    ck_write(dir, "out/a.c", "a");
    char *link = lit_xasprintf("%s/%s", dir, name), *victim = lit_xasprintf("%s/victim", away);
    ck_assert_int_eq(symlink(victim, link), 0);
    char *made = S_made(dir, name, k > 0), *journal = lit_xasprintf(journals[k], made);
    ck_write(dir, ".rec-journal", journal);
    char *roots[] = {"out/"};
    lit_recover_opts o = {roots, 1, ".rec", 0, NULL, 0};
    lit_diags *d = lit_diags_new();
    /* a staged copy's name is checked on disk with the journal, which is
     * refused outright; an old copy's, when the undo comes to it */
    ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), k == 0 ? -1 : 0);
    struct stat st;
    ck_assert_msg(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "journal %zu: the link was removed", k);
    ck_assert_msg(!S_exists(dir, "out/gone.c"), "journal %zu: the link was put into place", k);
    char *v = ck_read(away, "victim");
    ck_assert_str_eq(v, "not lit's");
    char *t = ck_diags_text(d);
    ck_assert_msg(strstr(t, k == 0 ? "is a symbolic link" : "symbolic link, not a file lit made") != NULL,
                  "journal %zu: %s", k, t);
    free(t);
    free(v);
    free(made);
    free(journal);
    free(link);
    free(victim);
    lit_diags_free(d);
    ck_rmtree(dir);
    ck_rmtree(away);
  }
}
END_TEST

/* Every file and folder under dir/rel, as sorted "path/" and
 * "path=content" lines. */
static void S_tree(const char *dir, const char *rel, lit_buf *out) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  DIR *dh = opendir(full);
  ck_assert_ptr_nonnull(dh);
  char **names = NULL;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(dh)))
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
      names = lit_xrealloc(names, (n + 1) * sizeof(char *));
      names[n++] = lit_xstrdup(e->d_name);
    }
  closedir(dh);
  for (size_t i = 0; i < n; i++) /* a few names: sorted by insertion */
    for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char *x = names[j];
      names[j] = names[j - 1];
      names[j - 1] = x;
    }
  for (size_t i = 0; i < n; i++) {
    char *sub = rel[0] ? lit_xasprintf("%s/%s", rel, names[i]) : lit_xstrdup(names[i]);
    char *path = lit_xasprintf("%s/%s", dir, sub);
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    lit_buf_puts(out, sub);
    if (S_ISDIR(st.st_mode)) {
      lit_buf_puts(out, "/\n");
      S_tree(dir, sub, out);
    } else {
      char *text = ck_read(dir, sub);
      lit_buf_putc(out, '=');
      lit_buf_puts(out, text);
      lit_buf_putc(out, '\n');
      free(text);
    }
    free(path);
    free(sub);
    free(names[i]);
  }
  free(names);
  free(full);
}

/* A real run (in a child) replacing out/a.c, adding out/n/b.c and removing
 * out/gone.c, killed at each of its steps in turn (LIT_TEST_CRASH_AT). Its
 * journal proves what it made: the next recovery leaves the tree exactly
 * as it was before the run or after it, with no staged or old copy, no
 * journal and no warning, and a user's look-alikes kept. */
static void S_child_run(const char *dir, long step) {
  char n[32];
  snprintf(n, sizeof n, "%ld", step);
  setenv("LIT_TEST_CRASH_AT", n, 1);
  lit_commit *c = lit_commit_new(dir, ".rec-journal");
  const char *files[][2] = {{"out/a.c", "a new"}, {"out/n/b.c", "b"}};
  for (size_t i = 0; i < 2; i++) {
    int fd;
    if (lit_commit_open(c, files[i][0], &fd) != 0) _exit(3);
    int err = lit_write_all(fd, files[i][1], strlen(files[i][1]));
    if (lit_commit_close(c, fd, 0, err) != 0) _exit(3);
  }
  lit_commit_remove(c, "out/gone.c");
  lit_diags *d = lit_diags_new();
  int ok = lit_commit_run(c, NULL, d) == LIT_OK;
  lit_commit_free(c);
  lit_diags_free(d);
  _exit(ok ? 0 : 4);
}

/* The test's strings, where a child that exits still reaches them (valgrind
 * follows it, and counts what only the parent's frame held as lost). */
static char *volatile S_kill_before, *volatile S_kill_after, *volatile S_kill_dir;

START_TEST(test_recover_real_kill) {
  const char *looks = "out/.lit-old-4194304-0=a user's\nout/.lit-tmp-4194304-0=a user's\n";
  char *before = S_kill_before = lit_xasprintf("out/\n%sout/a.c=a old\nout/gone.c=gone\n", looks);
  char *after = S_kill_after = lit_xasprintf("out/\n%sout/a.c=a new\nout/n/\nout/n/b.c=b\n", looks);
  int kills = 0;
  for (long step = 1; step < 100; step++) {
    char *dir = S_kill_dir = ck_tempdir();
    ck_write(dir, "out/a.c", "a old");
    ck_write(dir, "out/gone.c", "gone");
    ck_write(dir, "out/.lit-tmp-4194304-0", "a user's");
    ck_write(dir, "out/.lit-old-4194304-0", "a user's");
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) S_child_run(dir, step);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    int killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    ck_assert_msg(killed || (WIFEXITED(status) && WEXITSTATUS(status) == 0), "step %ld: status %d", step, status);
    kills += killed;
    char *roots[] = {"out/"};
    lit_recover_opts o = {roots, 1, ".rec", 0, NULL, 0};
    lit_diags *d = lit_diags_new();
    ck_assert_int_eq(lit_commit_recover(dir, ".rec-journal", &o, d), 0);
    lit_buf tree = LIT_BUF_INIT;
    S_tree(dir, "", &tree);
    lit_buf_putc(&tree, '\0');
    ck_assert_msg(strcmp(tree.data, before) == 0 || strcmp(tree.data, after) == 0, "killed at step %ld:\n%s", step,
                  tree.data);
    ck_assert_msg(lit_diags_count(d, LIT_WARNING) + lit_diags_count(d, LIT_ERROR) == 0, "killed at step %ld", step);
    lit_buf_free(&tree);
    lit_diags_free(d);
    ck_rmtree(dir);
    if (!killed) break;
  }
  /* Without a fork per test (CK_FORK=no), an earlier test has read the
   * fault settings already, and no step kills. */
  const char *fork_mode = getenv("CK_FORK");
  if (!fork_mode || strcmp(fork_mode, "no") != 0) ck_assert_int_ge(kills, 10);
  free(before);
  free(after);
}
END_TEST

/* How many names the folder full holds (besides . and ..). */
static int S_entries(const char *full) {
  DIR *dh = opendir(full);
  ck_assert_ptr_nonnull(dh);
  int n = 0;
  for (struct dirent *e; (e = readdir(dh));)
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(dh);
  return n;
}

/* proj/out/sub becomes a symbolic link to dir/outside (the folder that was
 * there moves to proj/out/real): a swap after the project was checked. */
static void S_swap_out(const char *dir) { ck_swap_for_link(dir, "proj/out/sub", "proj/out/real", "../../outside"); }

/* The run reaches every target through its folder resolved beneath the
 * root: a folder swapped for a link leading out, after the copy in it was
 * staged, leads nothing out (the steps go on in the folder resolved), and
 * one swapped before its first step stops the run, every file kept. */
START_TEST(test_run_swapped_folder_stays_inside) {
  char *dir = ck_tempdir();
  ck_write(dir, "outside/z", "keep");
  ck_write(dir, "proj/out/sub/z", "z");
  char *proj = lit_xasprintf("%s/proj", dir), *outside = lit_xasprintf("%s/outside", dir);
  lit_diags *d = lit_diags_new();
  lit_commit *c = lit_commit_new(proj, ".rec-journal");
  S_stage(c, "out/sub/x", "x");
  lit_commit_remove(c, "out/sub/z");
  S_swap_out(dir);
  ck_assert_int_eq(lit_commit_run(c, NULL, d), LIT_OK);
  lit_commit_free(c);
  char *x = ck_read(dir, "proj/out/real/x");
  ck_assert_str_eq(x, "x");
  free(x);
  ck_assert(!S_exists(dir, "proj/out/real/z"));
  char *z = ck_read(dir, "outside/z");
  ck_assert_str_eq(z, "keep");
  free(z);
  ck_assert_int_eq(S_entries(outside), 1);

  /* swapped before the run's first step in it: refused */
  ck_rmtree(lit_xstrdup(proj));
  ck_write(dir, "proj/out/sub/z", "z");
  c = lit_commit_new(proj, ".rec-journal");
  S_stage(c, "out/x", "x");
  lit_commit_remove(c, "out/sub/z");
  S_swap_out(dir);
  ck_assert_int_eq(lit_commit_run(c, NULL, d), LIT_FAILED);
  lit_commit_free(c);
  z = ck_read(dir, "outside/z");
  ck_assert_str_eq(z, "keep");
  free(z);
  ck_assert_int_eq(S_entries(outside), 1);
  ck_assert(S_exists(dir, "proj/out/real/z"));
  ck_assert(!S_exists(dir, "proj/out/x"));
  lit_diags_free(d);
  free(proj);
  free(outside);
  ck_rmtree(dir);
}
END_TEST

/* A folder swapped for a link leading out before the copy is staged: the
 * open is refused, and nothing is made outside. */
START_TEST(test_open_swapped_folder_refused) {
  char *dir = ck_tempdir();
  ck_write(dir, "outside/keep", "keep");
  ck_write(dir, "proj/out/sub/z", "z");
  char *proj = lit_xasprintf("%s/proj", dir), *outside = lit_xasprintf("%s/outside", dir);
  S_swap_out(dir);
  lit_commit *c = lit_commit_new(proj, ".rec-journal");
  int fd;
  ck_assert_int_ne(lit_commit_open(c, "out/sub/x", &fd), 0);
  ck_assert_int_eq(fd, -1);
  ck_assert_int_ne(lit_commit_open(c, "out/sub/new/x", &fd), 0); /* no folder made out there either */
  lit_commit_free(c);
  ck_assert_int_eq(S_entries(outside), 1);
  free(proj);
  free(outside);
  ck_rmtree(dir);
}
END_TEST

/* A run that fails takes back what it did through the folders it resolved
 * beneath the root: with out/sub swapped for a link leading out after the
 * copies were staged, the old copy is named, kept and removed again in the
 * folder inside, with the staged copy, and a look-alike outside (the same
 * name, a link to the file of the same name there) stays. By path, the run
 * would have looked for its copies out there and left them inside. */
START_TEST(test_undo_swapped_folder_stays_inside) {
  char *dir = ck_tempdir();
  ck_write(dir, "outside/z", "theirs");
  char *old = lit_xasprintf("outside/.lit-old-%ld-0", (long)getpid());
  S_link(dir, "outside/z", old);
  ck_write(dir, "proj/out/sub/z", "z");
  ck_write(dir, "proj/doc.md", "as read\n");
  char *proj = lit_xasprintf("%s/proj", dir), *outside = lit_xasprintf("%s/outside", dir);
  char *doc = lit_xasprintf("%s/doc.md", proj);
  lit_buf seen = LIT_BUF_INIT;
  lit_file_id id;
  ck_assert_int_eq(lit_read_file_id(doc, &seen, &id), 0);
  lit_commit *c = lit_commit_new(proj, ".rec-journal");
  S_stage(c, "out/sub/z", "new z");
  S_stage(c, "doc.md", "stitched\n");
  ck_assert_int_eq(lit_commit_expect(c, "doc.md", &id), 0);
  ck_write(dir, "proj/doc.md", "saved meanwhile\n"); /* the run stops at this document, and undoes */
  S_swap_out(dir);
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_commit_run(c, NULL, d), LIT_FAILED);
  lit_commit_free(c);
  char *z = ck_read(dir, "proj/out/real/z"), *theirs = ck_read(dir, "outside/z"), *look = ck_read(dir, old);
  ck_assert_str_eq(z, "z");
  ck_assert_str_eq(theirs, "theirs");
  ck_assert_str_eq(look, "theirs");
  ck_assert_int_eq(S_entries(outside), 2);
  char *real = lit_xasprintf("%s/out/real", proj);
  ck_assert_int_eq(S_entries(real), 1); /* z alone: the old copy and the staged one gone */
  free(z), free(theirs), free(look), free(real), free(doc), free(old);
  lit_buf_free(&seen);
  lit_diags_free(d);
  free(proj);
  free(outside);
  ck_rmtree(dir);
}
END_TEST

/* A journal is read only from inside the project: one whose folder is a
 * link leading out is refused, its plan never acted on. */
START_TEST(test_recover_journal_folder_outside) {
  char *dir = ck_tempdir(), *away = ck_tempdir();
  ck_write(dir, "out/a.c", "a");
  ck_write(away, ".rec-journal", "lit-journal 4194304\nremove\tout/a.c\tout/.lit-old-4194304-0\ncommit\n");
  char *link = lit_xasprintf("%s/state", dir);
  ck_assert_int_eq(symlink(away, link), 0);
  char *roots[] = {"out/"};
  lit_recover_opts o = {roots, 1, "state/.rec", 0, NULL, 0};
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_commit_recover(dir, "state/.rec-journal", &o, d), -1);
  char *t = ck_diags_text(d), *a = ck_read(dir, "out/a.c");
  ck_assert_msg(strstr(t, "leads outside the project"), "%s", t);
  ck_assert_str_eq(a, "a");
  ck_assert(S_exists(away, ".rec-journal"));
  free(t), free(a), free(link);
  lit_diags_free(d);
  ck_rmtree(dir);
  ck_rmtree(away);
}
END_TEST

/* The journal of a run is made in its folder resolved beneath the root:
 * a journal folder that is a link leading out stops the run before any
 * change, and nothing is written out there. */
START_TEST(test_journal_folder_outside_refused) {
  char *dir = ck_tempdir();
  ck_write(dir, "outside/keep", "keep");
  ck_write(dir, "proj/out/x", "x");
  char *proj = lit_xasprintf("%s/proj", dir), *outside = lit_xasprintf("%s/outside", dir);
  char *link = lit_xasprintf("%s/state", proj);
  ck_assert_int_eq(symlink("../outside", link), 0);
  lit_commit *c = lit_commit_new(proj, "state/.rec-journal");
  int fd;
  ck_assert_int_ne(lit_commit_open(c, "out/x", &fd), 0);
  ck_assert_int_eq(lit_commit_journal_error(c), EXDEV);
  lit_commit_free(c);
  ck_assert_int_eq(S_entries(outside), 1);
  char *x = ck_read(dir, "proj/out/x");
  ck_assert_str_eq(x, "x");
  free(x), free(link), free(proj), free(outside);
  ck_rmtree(dir);
}
END_TEST

Suite *commit_suite(void) {
  Suite *s = suite_create("commit");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_run);
  tcase_add_test(tc, test_expect_unchanged);
  tcase_add_test(tc, test_abandon);
  tcase_add_test(tc, test_abandon_journal_folder);
  tcase_add_test(tc, test_recover_committed);
  tcase_add_test(tc, test_recover_takes_back_only_its_content);
  tcase_add_test(tc, test_recover_old_copy_not_a_file);
  tcase_add_test(tc, test_recover_staging);
  tcase_add_test(tc, test_recover_stitch);
  tcase_add_test(tc, test_recover_stitch_distrusts);
  tcase_add_test(tc, test_recover_refuses_document_targets);
  tcase_add_test(tc, test_recover_refuses);
  tcase_add_test(tc, test_keeps_mode);
  tcase_add_test(tc, test_recover_distrusts);
  tcase_add_test(tc, test_recover_journal_file);
  tcase_add_test(tc, test_recover_check_writes_nothing);
  tcase_add_test(tc, test_recover_reused_pid);
  tcase_add_test(tc, test_recover_empty_journal);
  tcase_add_test(tc, test_lookalikes_kept);
  tcase_add_test(tc, test_run_skips_taken_names);
  tcase_add_test(tc, test_recover_finished);
  tcase_add_test(tc, test_recover_finished_distrusts);
  tcase_add_test(tc, test_recover_unproven_kept);
  tcase_add_test(tc, test_recover_made_refused);
  tcase_add_test(tc, test_recover_made_link);
  tcase_add_test(tc, test_recover_real_kill);
  tcase_add_test(tc, test_run_swapped_folder_stays_inside);
  tcase_add_test(tc, test_open_swapped_folder_refused);
  tcase_add_test(tc, test_undo_swapped_folder_stays_inside);
  tcase_add_test(tc, test_recover_journal_folder_outside);
  tcase_add_test(tc, test_journal_folder_outside_refused);
  suite_add_tcase(s, tc);
  return s;
}

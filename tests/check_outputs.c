/* check_outputs.c: the all-or-nothing write of a tangle, on disk: writes only
 * on change, the record, --check, hand edits, --force, orphans, failed writes. */
#include "check_lit.h"

#include <dirent.h>
#include <utime.h>

#include "hash.h"
#include "outputs.h"
#include "record.h"
#include "stitch.h"

#define INDEX_A "---\ntangle-roots: out\n---\n1. [A](a.md)\n\n```{.c file=out/a.c}\n<<a>>\n```\n\n"
#define INDEX_B "```{.c file=out/b.c}\nint b;\n```\n"
#define DOC_A "```{.c #a}\nint a;\n```\n"

typedef struct {
  lit_status result;
  lit_outputs_stats st;
  char *diags;
} S_outcome;

static S_outcome S_run(const char *dir, int check, int force) {
  S_outcome r;
  memset(&r, 0, sizeof r);
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(dir, "index.md", d);
  ck_assert_ptr_nonnull(p);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_outputs_opts o = {check, force, 0, 1};
  r.result = lit_outputs_run(p, &o, &r.st, d);
  r.diags = ck_diags_text(d);
  lit_project_free(p);
  lit_diags_free(d);
  return r;
}

static char *S_project(void) {
  char *dir = ck_tempdir();
  ck_write(dir, "index.md", INDEX_A INDEX_B);
  ck_write(dir, "a.md", DOC_A);
  return dir;
}

static time_t S_mtime(const char *dir, const char *rel) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  struct stat st;
  int r = stat(full, &st);
  free(full);
  return r == 0 ? st.st_mtime : (time_t)-1;
}

static void S_age(const char *dir, const char *rel) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  struct utimbuf t = {946684800, 946684800};
  ck_assert_int_eq(utime(full, &t), 0);
  free(full);
}

/* Files in dir/out whose name holds needle. */
static int S_count_named(const char *dir, const char *needle) {
  char *out = lit_xasprintf("%s/out", dir);
  DIR *dh = opendir(out);
  free(out);
  if (!dh) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dh)))
    if (strstr(e->d_name, needle)) n++;
  closedir(dh);
  return n;
}

START_TEST(test_write_then_unchanged) {
  char *dir = S_project();
  S_outcome r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  ck_assert_uint_eq(r.st.written, 2);
  ck_assert_uint_eq(r.st.unchanged, 0);
  ck_assert_str_eq(r.diags, "");
  free(r.diags);
  char *a = ck_read(dir, "out/a.c");
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(strstr(a, "\nint a;\n"));
  free(a);
  char *rec = ck_read(dir, ".lit-record");
  ck_assert_ptr_nonnull(rec);
  ck_assert_ptr_nonnull(strstr(rec, " out/a.c\n"));
  ck_assert_ptr_nonnull(strstr(rec, " out/b.c\n"));
  free(rec);
  S_age(dir, "out/a.c");
  S_age(dir, "out/b.c");
  S_age(dir, ".lit-record");
  r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  ck_assert_uint_eq(r.st.written, 0);
  ck_assert_uint_eq(r.st.unchanged, 2);
  free(r.diags);
  ck_assert_int_eq(S_mtime(dir, "out/a.c"), 946684800); /* make sees nothing new */
  ck_assert_int_eq(S_mtime(dir, "out/b.c"), 946684800);
  ck_assert_int_eq(S_mtime(dir, ".lit-record"), 946684800);
  /* change one document: only its file is rewritten */
  ck_write(dir, "a.md", "```{.c #a}\nint a = 1;\n```\n");
  r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  ck_assert_uint_eq(r.st.written, 1);
  ck_assert_uint_eq(r.st.unchanged, 1);
  free(r.diags);
  ck_assert_int_ne(S_mtime(dir, "out/a.c"), 946684800);
  ck_assert_int_eq(S_mtime(dir, "out/b.c"), 946684800);
  ck_assert_int_eq(S_count_named(dir, "lit-tmp"), 0);
  ck_rmtree(dir);
}
END_TEST

START_TEST(test_check) {
  char *dir = S_project();
  S_outcome r = S_run(dir, 1, 0); /* nothing written yet */
  ck_assert_int_eq(r.result, LIT_DIFFERS);
  ck_assert_ptr_nonnull(strstr(r.diags, "'out/a.c' is missing"));
  ck_assert_ptr_nonnull(strstr(r.diags, "'out/b.c' is missing"));
  free(r.diags);
  ck_assert_ptr_null(ck_read(dir, "out/a.c")); /* --check writes nothing */
  ck_assert_ptr_null(ck_read(dir, ".lit-record"));
  r = S_run(dir, 0, 0);
  free(r.diags);
  r = S_run(dir, 1, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  ck_assert_str_eq(r.diags, "");
  free(r.diags);
  ck_write(dir, "a.md", "```{.c #a}\nint a = 2;\n```\n");
  r = S_run(dir, 1, 0);
  ck_assert_int_eq(r.result, LIT_DIFFERS);
  ck_assert_ptr_nonnull(strstr(r.diags, "index.md:6:8: error: 'out/a.c' differs from a fresh tangle"));
  free(r.diags);
  char *a = ck_read(dir, "out/a.c");
  ck_assert_ptr_nonnull(strstr(a, "int a;"));
  free(a);
  ck_rmtree(dir);
}
END_TEST

START_TEST(test_hand_edit) {
  char *dir = S_project();
  S_outcome r = S_run(dir, 0, 0);
  free(r.diags);
  ck_write(dir, "out/a.c", "edited by hand\n");
  ck_write(dir, "index.md", INDEX_A "```{.c file=out/b.c}\nint b = 5;\n```\n");
  r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_FAILED);
  ck_assert_ptr_nonnull(strstr(r.diags, "index.md:6:8: error: 'out/a.c' was edited by hand since lit wrote it; "
                                        "refusing to overwrite it"));
  free(r.diags);
  char *a = ck_read(dir, "out/a.c");
  ck_assert_str_eq(a, "edited by hand\n");
  free(a);
  char *b = ck_read(dir, "out/b.c"); /* one refusal: nothing at all is written */
  ck_assert_ptr_null(strstr(b, "int b = 5;"));
  free(b);
  r = S_run(dir, 1, 0);
  ck_assert_int_eq(r.result, LIT_DIFFERS);
  ck_assert_ptr_nonnull(strstr(r.diags, "'out/a.c' was edited by hand"));
  free(r.diags);
  r = S_run(dir, 0, 1);
  ck_assert_int_eq(r.result, LIT_OK);
  ck_assert_uint_eq(r.st.written, 2);
  free(r.diags);
  a = ck_read(dir, "out/a.c");
  ck_assert_ptr_nonnull(strstr(a, "int a;"));
  free(a);
  ck_rmtree(dir);
}
END_TEST

START_TEST(test_foreign_file) {
  char *dir = S_project();
  ck_write(dir, "out/b.c", "mine\n");
  S_outcome r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_FAILED);
  ck_assert_ptr_nonnull(strstr(r.diags, "'out/b.c' exists but was not written by lit"));
  free(r.diags);
  ck_assert_ptr_null(ck_read(dir, "out/a.c"));
  ck_rmtree(dir);
}
END_TEST

/* 1 if dir/rel is a folder. */
static int S_is_dir(const char *dir, const char *rel) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  struct stat st;
  int r = stat(full, &st) == 0 && S_ISDIR(st.st_mode);
  free(full);
  return r;
}

/* A removed file's folders go when it leaves them empty, up to but not
 * including the output folder; a folder that holds anything else stays. */
START_TEST(test_orphans_leave_no_empty_folders) {
  char *dir = S_project();
  ck_write(dir, "index.md",
           INDEX_A "```{.c file=out/deep/er/c.c}\nint c;\n```\n\n```{.c file=out/keep/d.c}\nint d;\n```\n");
  S_outcome r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  free(r.diags);
  ck_write(dir, "out/keep/user.txt", "not lit's\n");
  ck_write(dir, "index.md", INDEX_A "```{.c file=out/deep/er/c.c}\nint c;\n```\n"); /* out/keep/d.c is gone */
  r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  ck_assert_uint_eq(r.st.removed, 1);
  free(r.diags);
  ck_assert(S_is_dir(dir, "out/keep")); /* it holds user.txt */
  ck_assert(S_is_dir(dir, "out"));
  ck_write(dir, "index.md", INDEX_A); /* now out/deep/er/c.c goes too */
  r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  free(r.diags);
  ck_assert(!S_is_dir(dir, "out/deep/er"));
  ck_assert(!S_is_dir(dir, "out/deep"));
  ck_assert(S_is_dir(dir, "out")); /* the output folder itself is never climbed past */
  char *user = ck_read(dir, "out/keep/user.txt");
  ck_assert_str_eq(user, "not lit's\n");
  free(user);
  ck_rmtree(dir);
}
END_TEST

/* The climb after a removal goes through folders resolved beneath the
 * root: with out/deep swapped for a link leading out after the commit, the
 * empty folder of the same name out there stays. By path, rmdir would have
 * followed the link and removed it. */
START_TEST(test_prune_swapped_folder_stays_inside) {
  char *dir = ck_tempdir();
  ck_write(dir, "outside/er/.x", "");
  ck_write(dir, "proj/out/deep/er/.x", "");
  char *x = lit_xasprintf("%s/outside/er/.x", dir), *y = lit_xasprintf("%s/proj/out/deep/er/.x", dir);
  ck_assert_int_eq(unlink(x), 0);
  ck_assert_int_eq(unlink(y), 0);
  char *deep = lit_xasprintf("%s/proj/out/deep", dir), *real = lit_xasprintf("%s/proj/out/real", dir);
  ck_assert_int_eq(rename(deep, real), 0);
  ck_assert_int_eq(symlink("../../outside", deep), 0);
  char *proj = lit_xasprintf("%s/proj", dir);
  char r0[] = "out/", *roots[] = {r0};
  lit_outputs_prune_dirs(proj, "out/deep/er/c.c", roots, 1);
  ck_assert(S_is_dir(dir, "outside/er"));
  ck_assert(S_is_dir(dir, "proj/out/real/er"));
  /* unswapped, the same climb takes the empty folders */
  ck_assert_int_eq(unlink(deep), 0);
  ck_assert_int_eq(rename(real, deep), 0);
  lit_outputs_prune_dirs(proj, "out/deep/er/c.c", roots, 1);
  ck_assert(!S_is_dir(dir, "proj/out/deep"));
  ck_assert(S_is_dir(dir, "proj/out"));
  free(x);
  free(y);
  free(deep);
  free(real);
  free(proj);
  ck_rmtree(dir);
}
END_TEST

START_TEST(test_orphans) {
  char *dir = S_project();
  S_outcome r = S_run(dir, 0, 0);
  free(r.diags);
  ck_write(dir, "index.md", INDEX_A); /* the block writing out/b.c is gone */
  r = S_run(dir, 1, 0);
  ck_assert_int_eq(r.result, LIT_DIFFERS);
  ck_assert_ptr_nonnull(strstr(r.diags, "out/b.c: error: orphan"));
  free(r.diags);
  r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  ck_assert_uint_eq(r.st.removed, 1);
  free(r.diags);
  ck_assert_ptr_null(ck_read(dir, "out/b.c"));
  char *rec = ck_read(dir, ".lit-record");
  ck_assert_ptr_null(strstr(rec, "out/b.c"));
  free(rec);
  /* an orphan edited by hand stays */
  ck_write(dir, "index.md", INDEX_A INDEX_B);
  r = S_run(dir, 0, 0);
  free(r.diags);
  ck_write(dir, "out/b.c", "kept\n");
  ck_write(dir, "index.md", INDEX_A);
  r = S_run(dir, 1, 0); /* --check lists it: the tree holds a file nothing writes */
  ck_assert_int_eq(r.result, LIT_DIFFERS);
  ck_assert_ptr_nonnull(strstr(r.diags, "out/b.c: error: no document writes this file any more"));
  free(r.diags);
  r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  ck_assert_uint_eq(r.st.removed, 0);
  ck_assert_ptr_nonnull(strstr(r.diags, "out/b.c: warning: no document writes this file any more"));
  free(r.diags);
  char *b = ck_read(dir, "out/b.c");
  ck_assert_str_eq(b, "kept\n");
  free(b);
  ck_rmtree(dir);
}
END_TEST

/* The project folder the hooks below work in, and what they write where. */
static const char *S_hook_dir, *S_hook_rel, *S_hook_text;

/* After the run compared each file with the disk, before its commit: a
 * file saved there meanwhile (an editor, a second terminal). */
static void S_save_meanwhile(void) { ck_write(S_hook_dir, S_hook_rel, S_hook_text); }

/* Runs lit tangle on dir with the hook writing text to rel: the run must
 * fail, say that the file changed, and leave it as saved. */
static void S_assert_saved_kept(char *dir, const char *rel, const char *text) {
  S_hook_dir = dir;
  S_hook_rel = rel;
  S_hook_text = text;
  lit_outputs_test_hook = S_save_meanwhile;
  S_outcome r = S_run(dir, 0, 0);
  lit_outputs_test_hook = NULL;
  ck_assert_int_eq(r.result, LIT_FAILED);
  ck_assert_msg(strstr(r.diags, rel) != NULL, "no message names %s: %s", rel, r.diags);
  free(r.diags);
  char *kept = ck_read(dir, rel);
  ck_assert_ptr_nonnull(kept);
  ck_assert_str_eq(kept, text);
  free(kept);
  ck_assert_int_eq(S_count_named(dir, ".lit-"), 0);
}

/* What the run compared is what the commit replaces or removes: a file
 * that appears where lit found none, or a file saved after lit hashed it
 * (one it replaces, or an orphan it removes), is someone else's work, and
 * the commit stops with every file as it was rather than take it. */
START_TEST(test_file_saved_during_run) {
  char *dir = S_project();
  S_assert_saved_kept(dir, "out/a.c", "mine\n"); /* a new file, made by someone else meanwhile */
  S_outcome r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_FAILED); /* and then refused as not lit's, as ever */
  free(r.diags);
  char *path = lit_xasprintf("%s/out/a.c", dir);
  ck_assert_int_eq(unlink(path), 0);
  free(path);
  r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  free(r.diags);
  ck_write(dir, "index.md", INDEX_A "```{.c file=out/b.c}\nint b = 5;\n```\n");
  S_assert_saved_kept(dir, "out/b.c", "edited meanwhile\n"); /* a stale file lit replaces */
  r = S_run(dir, 0, 1);
  ck_assert_int_eq(r.result, LIT_OK);
  free(r.diags);
  ck_write(dir, "index.md", INDEX_A); /* out/b.c is an orphan now */
  S_assert_saved_kept(dir, "out/b.c", "edited too\n");
  ck_rmtree(dir);
}
END_TEST

/* A stitch that must write the generated file again (its #line numbers
 * moved) writes it only as it read it: the file saved again while the
 * stitch ran is kept, and no document changes. */
#define STITCH_INDEX                                                                                                   \
  "---\ntangle-roots: out\ntangle-line-directives: true\n---\n```{.c file=out/s.c}\nint a;\n<<b>>\n```\n\n"           \
  "```{.c #b}\nint b;\n```\n"

START_TEST(test_stitch_file_saved_during_run) {
  char *dir = ck_tempdir();
  ck_write(dir, "index.md", STITCH_INDEX);
  S_outcome r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  free(r.diags);
  char *gen = ck_read(dir, "out/s.c");
  char *at = strstr(gen, "int a;\n");
  ck_assert_ptr_nonnull(at);
  lit_buf edited = LIT_BUF_INIT; /* a line added at the end of the file's own block */
  lit_buf_put(&edited, gen, (size_t)(at - gen) + 7);
  lit_buf_puts(&edited, "int a2;\n");
  lit_buf_puts(&edited, at + 7);
  ck_write(dir, "out/s.c", edited.data);
  lit_buf_free(&edited);
  free(gen);
  S_hook_dir = dir;
  S_hook_rel = "out/s.c";
  S_hook_text = "saved again\n";
  lit_stitch_test_hook = S_save_meanwhile;
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(dir, "index.md", d);
  ck_assert_ptr_nonnull(p);
  lit_stitch_opts o = {NULL, 0, 1};
  lit_status st = lit_stitch_run(p, &o, d);
  lit_stitch_test_hook = NULL;
  char *msgs = ck_diags_text(d);
  ck_assert_msg(st == LIT_FAILED, "the stitch went through: %s", msgs);
  ck_assert_msg(strstr(msgs, "out/s.c") != NULL, "%s", msgs);
  free(msgs);
  lit_project_free(p);
  lit_diags_free(d);
  char *kept = ck_read(dir, "out/s.c"), *index = ck_read(dir, "index.md");
  ck_assert_str_eq(kept, "saved again\n");
  ck_assert_str_eq(index, STITCH_INDEX);
  free(kept);
  free(index);
  ck_rmtree(dir);
}
END_TEST

/* A stitch reads each generated file beneath the project: the output
 * folder swapped for a link leading out after the project was loaded (and
 * its paths checked) does not make it read a file out there, and what
 * that file holds never goes into a document. */
START_TEST(test_stitch_reads_beneath) {
  char *dir = ck_tempdir(), *away = ck_tempdir();
  ck_write(dir, "index.md", "---\ntangle-roots: out\n---\n```{.c file=out/s.c}\nint a;\n```\n");
  S_outcome r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  free(r.diags);
  char *gen = ck_read(dir, "out/s.c");
  char *outside = lit_xasprintf("%sint SECRET;\n", gen);
  ck_write(away, "out/s.c", outside);
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(dir, "index.md", d);
  ck_assert_ptr_nonnull(p);
  char *target = lit_xasprintf("%s/out", away);
  ck_swap_for_link(dir, "out", "out.real", target);
  lit_stitch_opts o = {NULL, 0, 1};
  lit_status st = lit_stitch_run(p, &o, d);
  char *msgs = ck_diags_text(d);
  char *index = ck_read(dir, "index.md");
  ck_assert_msg(strstr(index, "SECRET") == NULL, "a file outside the project went into index.md: %s", msgs);
  ck_assert_msg(st == LIT_FAILED, "%s", msgs);
  ck_assert_msg(strstr(msgs, "out/s.c") != NULL, "%s", msgs);
  free(index);
  free(msgs);
  lit_project_free(p);
  lit_diags_free(d);
  free(target);
  free(outside);
  free(gen);
  ck_rmtree(dir);
  ck_rmtree(away);
}
END_TEST

/* The record is read beneath the project: swapped for a link to a record
 * outside it after the project was loaded (and its path checked), it is
 * refused, not read; the forged record there, which claims a user's file
 * as lit's with the file's own hash, would have it removed as an orphan. */
START_TEST(test_record_read_beneath) {
  char *dir = S_project(), *away = ck_tempdir();
  S_outcome r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  free(r.diags);
  ck_write(dir, "out/user.c", "mine\n");
  lit_record forged;
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_record_read(&forged, dir, ".lit-record", d), 0);
  char hex[LIT_HASH_HEX + 1];
  lit_hash_hex("mine\n", 5, hex);
  lit_record_set(&forged, "out/user.c", hex);
  lit_buf text = LIT_BUF_INIT;
  lit_record_format(&forged, &text);
  ck_write(away, "rec", text.data);
  lit_buf_free(&text);
  lit_record_free(&forged);
  lit_project *p = lit_project_load(dir, "index.md", d);
  ck_assert_ptr_nonnull(p);
  char *target = lit_xasprintf("%s/rec", away);
  ck_swap_for_link(dir, ".lit-record", ".lit-record.real", target);
  lit_outputs_opts o = {0, 0, 0, 1};
  lit_outputs_stats st;
  lit_status result = lit_outputs_run(p, &o, &st, d);
  char *msgs = ck_diags_text(d);
  char *kept = ck_read(dir, "out/user.c");
  ck_assert_msg(kept != NULL, "a user's file was removed on a record read from outside: %s", msgs);
  ck_assert_str_eq(kept, "mine\n");
  ck_assert_msg(result == LIT_FAILED, "%s", msgs);
  ck_assert_msg(strstr(msgs, ".lit-record") != NULL, "%s", msgs);
  free(kept);
  free(msgs);
  lit_project_free(p);
  lit_diags_free(d);
  free(target);
  ck_rmtree(dir);
  ck_rmtree(away);
}
END_TEST

START_TEST(test_failed_write) {
  char *dir = S_project();
  S_outcome r = S_run(dir, 0, 0);
  free(r.diags);
  char *a0 = ck_read(dir, "out/a.c");
  char *rec0 = ck_read(dir, ".lit-record");
  ck_write(dir, "a.md", "```{.c #a}\nint a = 3;\n```\n");
  ck_write(dir, "index.md", INDEX_A "```{.c file=out/b.c}\nint b = 3;\n```\n");
  setenv("LIT_TEST_FAIL_WRITE", "out/b.c", 1);
  r = S_run(dir, 0, 0);
  unsetenv("LIT_TEST_FAIL_WRITE");
  ck_assert_int_eq(r.result, LIT_FAILED);
  ck_assert_ptr_nonnull(strstr(r.diags, "cannot write 'out/b.c': No space left on device"));
  free(r.diags);
  char *a1 = ck_read(dir, "out/a.c"), *rec1 = ck_read(dir, ".lit-record");
  ck_assert_str_eq(a1, a0); /* the earlier file is as it was */
  ck_assert_str_eq(rec1, rec0);
  ck_assert_int_eq(S_count_named(dir, "lit-tmp"), 0);
  free(a0);
  free(a1);
  free(rec0);
  free(rec1);
  ck_rmtree(dir);
}
END_TEST

/* A failure after new folders were made removes them again. */
START_TEST(test_failed_write_new_folders) {
  char *dir = ck_tempdir();
  ck_write(dir, "index.md",
           "---\ntangle-roots: out\n---\n```{.c file=out/n/m/a.c}\nx\n```\n```{.c file=out/z.c}\ny\n```\n");
  setenv("LIT_TEST_FAIL_WRITE", "out/z.c", 1);
  S_outcome r = S_run(dir, 0, 0);
  unsetenv("LIT_TEST_FAIL_WRITE");
  ck_assert_int_eq(r.result, LIT_FAILED);
  free(r.diags);
  char *out = lit_xasprintf("%s/out", dir);
  struct stat st;
  ck_assert_int_ne(stat(out, &st), 0);
  free(out);
  ck_rmtree(dir);
}
END_TEST

START_TEST(test_executable_script) {
  char *dir = ck_tempdir();
  ck_write(dir, "index.md",
           "---\ntangle-roots: out\n---\n```{.sh file=out/r.sh}\n#!/bin/sh\necho\n```\n"
           "```{.sh file=out/s.sh}\necho\n```\n");
  S_outcome r = S_run(dir, 0, 0);
  ck_assert_int_eq(r.result, LIT_OK);
  free(r.diags);
  char *rs = lit_xasprintf("%s/out/r.sh", dir), *ss = lit_xasprintf("%s/out/s.sh", dir);
  ck_assert_int_eq(access(rs, X_OK), 0);
  struct stat st;
  ck_assert_int_eq(stat(ss, &st), 0);
  ck_assert_int_eq(st.st_mode & 0111, 0);
  free(rs);
  free(ss);
  ck_rmtree(dir);
}
END_TEST

Suite *outputs_suite(void) {
  Suite *s = suite_create("outputs");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_write_then_unchanged);
  tcase_add_test(tc, test_check);
  tcase_add_test(tc, test_hand_edit);
  tcase_add_test(tc, test_foreign_file);
  tcase_add_test(tc, test_orphans);
  tcase_add_test(tc, test_orphans_leave_no_empty_folders);
  tcase_add_test(tc, test_prune_swapped_folder_stays_inside);
  tcase_add_test(tc, test_failed_write);
  tcase_add_test(tc, test_failed_write_new_folders);
  tcase_add_test(tc, test_executable_script);
  tcase_add_test(tc, test_file_saved_during_run);
  tcase_add_test(tc, test_stitch_file_saved_during_run);
  tcase_add_test(tc, test_stitch_reads_beneath);
  tcase_add_test(tc, test_record_read_beneath);
  suite_add_tcase(s, tc);
  return s;
}

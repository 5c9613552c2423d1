#define _GNU_SOURCE /* renameat2, O_PATH */
#include "tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "hash.h"
#include "paths.h"
#include "util.h"

void lit_tree_add(lit_tree *t, const char *path, char *data, size_t len) {
  t->files = lit_grow(t->files, &t->cap, t->n + 1, sizeof(lit_tree_file));
  lit_tree_file *f = &t->files[t->n++];
  f->path = lit_xstrdup(path);
  f->data = data;
  f->len = len;
  f->exec = 0;
}

void lit_tree_free(lit_tree *t) {
  for (size_t i = 0; i < t->n; i++) {
    free(t->files[i].path);
    free(t->files[i].data);
  }
  free(t->files);
  memset(t, 0, sizeof *t);
}

static int S_cmp(const void *a, const void *b) {
  return strcmp(((const lit_tree_file *)a)->path, ((const lit_tree_file *)b)->path);
}

void lit_tree_sort(lit_tree *t) {
  if (t->n) qsort(t->files, t->n, sizeof(lit_tree_file), S_cmp);
}

/* Opens name in folder fd (AT_FDCWD: a path) for listing; the caller
 * closedirs it. Never through a link: a link there is refused (ELOOP or
 * ENOTDIR), not followed. NULL with errno set. */
static DIR *S_opendir_at(int fd, const char *name) {
  int sub = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (sub < 0) return NULL;
  DIR *dh = fdopendir(sub);
  if (!dh) {
    int e = errno;
    close(sub);
    errno = e;
  }
  return dh;
}

/* Opens name in folder fd for reading, a regular file only: a link is
 * never followed, a FIFO never waited on. The descriptor (the caller's), or
 * -1 with *err an errno or LIT_ENOTREG. */
static int S_open_reg_at(int fd, const char *name, int *err) {
  int f = openat(fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (f < 0) {
    *err = errno == ELOOP ? LIT_ENOTREG : errno;
    return -1;
  }
  int bad = fstat(f, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? LIT_ENOTREG : 0;
  if (bad) {
    *err = bad;
    close(f);
    return -1;
  }
  return f;
}

/* Reads the regular file name in folder fd whole into *out (the caller's).
 * 0, an errno, or LIT_ENOTREG. */
static int S_read_at(int fd, const char *name, lit_buf *out) {
  int err = 0, f = S_open_reg_at(fd, name, &err);
  if (f < 0) return err;
  err = lit_read_fd(f, out);
  close(f);
  return err;
}

/* rm -rf name in folder fd, by descriptors: every step goes through the
 * folder it removes from, and a link is removed, never followed, so a
 * folder swapped for a link meanwhile cannot lead the delete elsewhere.
 * 0, or -1 with errno set. */
static int S_remove_at(int fd, const char *name) {
  struct stat st;
  if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(st.st_mode)) return unlinkat(fd, name, 0);
  DIR *dh = S_opendir_at(fd, name);
  if (!dh) return -1;
  int err = 0;
  struct dirent *e;
  while ((errno = 0, e = readdir(dh)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (S_remove_at(dirfd(dh), e->d_name) != 0 && !err) err = errno;
  }
  if (errno && !err) err = errno;
  closedir(dh);
  if (!err && unlinkat(fd, name, AT_REMOVEDIR) != 0) err = errno;
  errno = err;
  return err ? -1 : 0;
}

/* Makes the folders above rel (a '/'-separated path) inside folder fd, by
 * descriptors, never through a link. The folder that holds rel's last
 * name (the caller closes it), or -1 with errno set. */
static int S_parents_at(int fd, const char *rel) {
  int cur = openat(fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  for (const char *p = rel, *slash; cur >= 0 && (slash = strchr(p, '/')) != NULL; p = slash + 1) {
    if (slash == p) continue;
    char *name = lit_xstrndup(p, (size_t)(slash - p));
    int next = mkdirat(cur, name, 0755) != 0 && errno != EEXIST
                   ? -1
                   : openat(cur, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    free(name);
    close(cur);
    cur = next;
    errno = e;
  }
  return cur;
}

/* Writes one new file, rel inside folder fd, whole. 0, or an errno. */
static int S_write_at(int fd, const char *rel, const char *data, size_t len, int exec) {
  int err = lit_fault_step();
  if (err) return err;
  int dir = S_parents_at(fd, rel);
  if (dir < 0) return errno;
  const char *leaf = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
  int f = openat(dir, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, exec ? 0755 : 0644);
  err = f < 0 ? errno : 0;
  close(dir);
  if (err) return err;
  err = lit_write_all(f, data, len);
  if (close(f) != 0 && !err) err = errno;
  return err;
}

/* 1 if name in folder fd holds nothing but "." and "..". */
static int S_empty_dir(int fd, const char *name) {
  DIR *dh = S_opendir_at(fd, name);
  if (!dh) return 0;
  struct dirent *e;
  int empty = 1;
  while (empty && (e = readdir(dh)))
    empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
  closedir(dh);
  return empty;
}

/* Opens name in folder fd as a folder (O_PATH: for the *at calls that
 * follow), only if it is still the folder *st describes (an lstat of it):
 * never a link put there since. The descriptor (the caller's), or -1. */
static int S_open_same(int fd, const char *name, const struct stat *st) {
  int f = openat(fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct stat now;
  if (f >= 0 && (fstat(f, &now) != 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino)) {
    close(f);
    errno = ENOENT;
    return -1;
  }
  return f;
}

static int S_alive(long pid) { return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM); }

/* ---- what lit wrote in a folder ---- */

/* How S_owned marks a path: a folder above a listed file; a file whose
 * name alone makes it lit's (what the new tree writes, in a folder of an
 * earlier version); and, from S_KIND_HASH on, a file that is lit's only
 * while its bytes hash to the digest at text + (kind - S_KIND_HASH). */
enum { S_KIND_FOLDER = 0, S_KIND_NAME = 1, S_KIND_HASH = 2 };

/* 1 if line opens with a digest and the two spaces before its path. */
static int S_hashed_line(const char *line) {
  for (int i = 0; i < LIT_HASH_HEX; i++)
    if (!((line[i] >= '0' && line[i] <= '9') || (line[i] >= 'a' && line[i] <= 'f'))) return 0;
  return line[LIT_HASH_HEX] == ' ' && line[LIT_HASH_HEX + 1] == ' ' && line[LIT_HASH_HEX + 2];
}

/* Marks path (a key the index borrows) as `kind`, and every folder above
 * it as lit's; folder keys are copied into keys. */
static void S_own(lit_index *owned, char *path, size_t kind, char ***keys, size_t *nkeys) {
  lit_index_put(owned, path, kind);
  for (const char *slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
    size_t len = (size_t)(slash - path), v;
    if (lit_index_get(owned, path, len, &v)) continue;
    *keys = lit_xrealloc(*keys, (*nkeys + 1) * sizeof(char *));
    (*keys)[*nkeys] = lit_xstrndup(path, len);
    lit_index_put(owned, (*keys)[(*nkeys)++], S_KIND_FOLDER);
  }
}

/* The paths lit may replace in target, read from its manifest. A manifest
 * line is a digest and a path: that file is lit's while its bytes still
 * hash to it, so neither a file changed since nor a name someone added to
 * the manifest is taken for lit's. A line of a path alone (the manifests
 * of earlier versions) proves nothing about the bytes there now: it counts
 * only for a name the new tree writes, and then (S_KIND_NAME) the file is
 * lit's only while it holds exactly the bytes the new tree writes there,
 * so replacing it loses nothing (or with replace_edits, as an edited file
 * is); with no tree (lit_tree_check_owned) it vouches for nothing. A
 * folder without a manifest that an earlier version wrote, known by its
 * guard, offers the same names (and the guard and an old bundle's
 * manifest.txt) on the same terms: what that manifest.txt lists is not
 * trusted, since anyone can write one. text holds the keys the index
 * borrows. 0, or -1 if neither marks the folder as lit's. */
static int S_owned(const lit_tree *t, int fd, const char *guard, lit_index *owned, lit_buf *text, char ***keys,
                   size_t *nkeys) {
  /* lit writes its manifest as a regular file: a link there (to a file
   * outside the folder, say) is neither read nor believed. */
  struct stat mst;
  int err = fstatat(fd, LIT_TREE_MANIFEST, &mst, AT_SYMLINK_NOFOLLOW) != 0 ? errno
            : !S_ISREG(mst.st_mode)                                        ? LIT_ENOTREG
                                                                           : S_read_at(fd, LIT_TREE_MANIFEST, text);
  int from_manifest = !err;
  if (!from_manifest) {
    struct stat st;
    int legacy = guard && fstatat(fd, guard, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!legacy) return -1;
    lit_buf_free(text);
    lit_buf_putc(text, '\n');
    for (size_t i = 0; i < t->n; i++)
      lit_buf_printf(text, "%s\n", t->files[i].path);
    lit_buf_printf(text, "%s\nmanifest.txt\n", guard);
  } else {
    lit_buf_putc(text, '\n');
  }
  lit_index writes = LIT_INDEX_INIT; /* borrows the tree's paths */
  for (size_t i = 0; i < t->n; i++)
    lit_index_put(&writes, t->files[i].path, 1);
  for (char *line = text->data, *nl; line && *line; line = nl + 1) {
    nl = strchr(line, '\n');
    if (!nl) break;
    *nl = '\0';
    if (!*line) continue;
    size_t v;
    if (!from_manifest) {
      S_own(owned, line, S_KIND_NAME, keys, nkeys);
    } else if (S_hashed_line(line)) {
      S_own(owned, line + LIT_HASH_HEX + 2, S_KIND_HASH + (size_t)(line - text->data), keys, nkeys);
    } else if (t->n == 0 || lit_index_get(&writes, line, strlen(line), &v)) {
      S_own(owned, line, S_KIND_NAME, keys, nkeys); /* with no tree, never still lit's: said so */
    } /* else a name alone for a file the new tree does not write: not lit's */
  }
  lit_index_free(&writes);
  return 0;
}

typedef struct {
  const lit_index *owned;
  const char *digests; /* the manifest's text, where S_KIND_HASH kinds point */
  const lit_tree *t;   /* the new tree, for S_KIND_NAME */
  lit_index *writes;   /* its paths, each to its index */
  int replace_edits;   /* a listed file changed since is lit's all the same */
  lit_diags *d;
  const char *target;
  size_t found;
} S_foreign_walk;

/* 1 if the file name in folder fd (rel in the target), listed as `kind`,
 * is still what lit wrote: a digest's bytes, or for a name alone, the
 * bytes the new tree writes there (nothing is lost by replacing them). */
static int S_still_lits(const S_foreign_walk *w, int fd, const char *name, const char *rel, const struct stat *st,
                        size_t kind) {
  if (kind == S_KIND_FOLDER) return 1;
  char hex[LIT_HASH_HEX + 1], want[LIT_HASH_HEX + 1];
  if (!S_ISREG(st->st_mode)) return 0;
  int err = 0, f = S_open_reg_at(fd, name, &err);
  if (f < 0) return 0;
  err = lit_hash_fd(f, hex);
  close(f);
  if (err) return 0;
  if (kind >= S_KIND_HASH) return memcmp(hex, w->digests + (kind - S_KIND_HASH), LIT_HASH_HEX) == 0;
  size_t i;
  if (!w->t || !lit_index_get(w->writes, rel, strlen(rel), &i)) return 0;
  lit_hash_hex(w->t->files[i].data, w->t->files[i].len, want);
  return memcmp(hex, want, LIT_HASH_HEX) == 0;
}

/* A folder of target that cannot be listed (no permission, an I/O
 * error) is counted as foreign: what it holds is unknown, and replacing
 * target would delete it. */
static void S_unlisted(S_foreign_walk *w, const char *dir, int err) {
  if (w->found++ < 5)
    lit_diag(w->d, LIT_ERROR, dir, 0, 0,
             "cannot read this folder (%s), so lit cannot tell that it holds only what lit wrote, and replacing %s "
             "would delete whatever it holds: make it readable, or pick another folder",
             strerror(err), w->target);
}

/* Reports every entry under target/rel, the folder name in folder fd, that
 * lit did not write; read through descriptors, never through a link. */
static void S_find_foreign(S_foreign_walk *w, int fd, const char *name, const char *rel) {
  char *dir = rel[0] ? lit_xasprintf("%s/%s", w->target, rel) : lit_xstrdup(w->target);
  DIR *dh = S_opendir_at(fd, name);
  if (!dh) {
    S_unlisted(w, dir, errno);
    free(dir);
    return;
  }
  struct dirent *e;
  while ((errno = 0, e = readdir(dh)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (!rel[0] && strcmp(e->d_name, LIT_TREE_MANIFEST) == 0) continue; /* bookkeeping, not content */
    char *sub = rel[0] ? lit_xasprintf("%s/%s", rel, e->d_name) : lit_xstrdup(e->d_name);
    char *full = lit_xasprintf("%s/%s", w->target, sub);
    struct stat st;
    size_t kind;
    int listed = lit_index_get(w->owned, sub, strlen(sub), &kind);
    int there = fstatat(dirfd(dh), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0, is_dir = there && S_ISDIR(st.st_mode);
    if (listed && is_dir && kind == S_KIND_FOLDER) {
      S_find_foreign(w, dirfd(dh), e->d_name, sub);
    } else if (!listed || is_dir || !there || kind == S_KIND_FOLDER) {
      /* A name the manifest lists only as the folder above a file is
       * lit's only while it is a folder: a file or a symbolic link there
       * (notes/x listed, notes now someone's file) is not what lit wrote. */
      if (w->found++ < 5)
        lit_diag(w->d, LIT_ERROR, full, 0, 0,
                 "lit did not write this %s, and replacing %s would delete it: move it out, or pick another folder",
                 is_dir                         ? "folder"
                 : there && S_ISLNK(st.st_mode) ? "symbolic link"
                                                : "file",
                 w->target);
    } else if (!w->replace_edits && !S_still_lits(w, dirfd(dh), e->d_name, sub, &st, kind)) {
      if (w->found++ >= 5) {
      } else if (kind == S_KIND_NAME && w->t->n == 0) {
        lit_diag(w->d, LIT_ERROR, full, 0, 0,
                 "lit cannot tell that it wrote this file, or that it was not edited since (an earlier version's "
                 "manifest keeps no hash of it): move it out, or pick another folder");
      } else if (kind == S_KIND_NAME) {
        lit_diag(w->d, LIT_ERROR, full, 0, 0,
                 "lit cannot tell whether this file was edited since lit wrote it (an earlier version's manifest "
                 "keeps no hash of it), and it differs from what lit writes now: replacing %s could lose an edit; "
                 "move it out, or pick another folder",
                 w->target);
      } else {
        lit_diag(w->d, LIT_ERROR, full, 0, 0,
                 "changed since lit wrote it, and replacing %s would lose the change: move it out, or pick another "
                 "folder",
                 w->target);
      }
    }
    free(full);
    free(sub);
  }
  if (errno) S_unlisted(w, dir, errno);
  free(dir);
  closedir(dh);
}

/* 0 if target, the entry name of folder pfd, may be replaced: it is
 * missing, empty, or holds only what lit wrote there. Else -1, each
 * foreign file reported. Read through pfd, never through a link: what is
 * approved is what the install that holds pfd replaces. */
static int S_check_owned(const lit_tree *t, int pfd, const char *name, const char *target, const char *guard,
                         int replace_edits, lit_diags *d) {
  struct stat st;
  if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
  if (!S_ISDIR(st.st_mode)) {
    lit_diag(d, LIT_ERROR, target, 0, 0, "exists and is not a folder; remove it first");
    return -1;
  }
  int fd = S_open_same(pfd, name, &st); /* -1: read as unreadable, so refused */
  if (fd >= 0 && S_empty_dir(fd, ".")) {
    close(fd);
    return 0;
  }
  lit_index owned = LIT_INDEX_INIT;
  lit_buf text = LIT_BUF_INIT;
  char **keys = NULL;
  size_t nkeys = 0;
  int r = 0;
  if (S_owned(t, fd, guard, &owned, &text, &keys, &nkeys) != 0) {
    lit_diag(d, LIT_ERROR, target, 0, 0,
             "is not empty, and lit did not write it (it holds no %s): refusing to replace it; pick an empty or new "
             "folder",
             LIT_TREE_MANIFEST);
    r = -1;
  } else {
    lit_index writes = LIT_INDEX_INIT; /* borrows the tree's paths */
    for (size_t i = 0; i < t->n; i++)
      lit_index_put(&writes, t->files[i].path, i);
    S_foreign_walk w = {&owned, text.data, t, &writes, replace_edits, d, target, 0};
    S_find_foreign(&w, fd, ".", "");
    lit_index_free(&writes);
    if (w.found > 5) lit_diag(d, LIT_NOTE, target, 0, 0, "and %zu more files lit did not write", w.found - 5);
    r = w.found ? -1 : 0;
  }
  lit_index_free(&owned);
  lit_buf_free(&text);
  for (size_t i = 0; i < nkeys; i++)
    free(keys[i]);
  free(keys);
  if (fd >= 0) close(fd);
  return r;
}

int lit_tree_check_owned(const char *dir, lit_diags *d) {
  const lit_tree none = LIT_TREE_INIT; /* no guard and no tree: only a manifest marks the folder as lit's */
  return S_check_owned(&none, AT_FDCWD, dir, dir, NULL, 0, d);
}

/* ---- installing ---- */

/* Staging and old copies are hidden (".NAME.lit-new-PID", ".NAME.lit-old-
 * PID"), so that nothing scanning the parent (an agent loading every
 * SKILL.md) takes one for a second output. A name proves nothing: anyone
 * can make a folder, a file or a symbolic link of that name, and the
 * process number of a dead run is someone else's later. So lit deletes or
 * renames a leftover only when it can vouch for it (S_vouched): a real
 * folder (never a link, never followed; never a file), owned by this user,
 * that is either
 *   - a staging folder being written: it holds S_STAGE_MARK, a regular
 *     file that lit writes first into each staging folder and removes just
 *     before the folder goes into place, holding exactly the text
 *     S_mark_text gives for the folder's own name and process; or
 *   - a folder of lit's output (a stage complete but for its rename, or
 *     the old copy a swap moved aside): empty, or every entry in it named
 *     by its own manifest with a digest its bytes still match (a name
 *     alone vouches for nothing; see S_owned), so deleting it loses
 *     nothing lit did not write there byte for byte.
 * Anything else of such a name is left as it is, with a warning naming it
 * and what to do: deleting it could lose a user's work, and renaming a
 * link or a file into place as the output would make lit write or serve
 * through it. Leaving it is safe: a run uses names of its own process
 * only, and those it checks the same way before using them (S_clear_own).
 * (Proof by file contents has a limit: a folder built to look like lit's
 * leftover, marker and all, is taken for one; what it holds is then a copy
 * of a lit output or a half-written one, never a folder of other work
 * that merely has the name; and never the project's own files, since
 * lit_weave_check_out refuses a leftover holding one before any of this
 * runs.) */
#define S_STAGE_MARK ".lit-stage"

/* The marker's text for the staging folder of base by process pid. */
static char *S_mark_text(const char *base, long pid) {
  return lit_xasprintf("lit staging folder of %s, process %ld\n", base, pid);
}

/* 1 if name in folder pfd, a leftover of base's run by process pid, is
 * one lit made (see above); read through pfd, never through a link. */
static int S_vouched(int pfd, const char *name, const char *base, long pid) {
  struct stat st;
  if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) return 0;
  int fd = S_open_same(pfd, name, &st);
  if (fd < 0) return 0;
  int ok = S_empty_dir(fd, ".");
  if (!ok && fstatat(fd, S_STAGE_MARK, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_size < 4096) {
    lit_buf text = LIT_BUF_INIT;
    char *want = S_mark_text(base, pid);
    ok = S_read_at(fd, S_STAGE_MARK, &text) == 0 && text.len == strlen(want) && memcmp(text.data, want, text.len) == 0;
    free(want);
    lit_buf_free(&text);
  }
  close(fd);
  if (ok) return 1;
  lit_diags *quiet = lit_diags_new();
  const lit_tree none = LIT_TREE_INIT; /* only digests vouch */
  ok = S_check_owned(&none, pfd, name, name, NULL, 0, quiet) == 0;
  lit_diags_free(quiet);
  return ok;
}

/* Reads n as ".BASE.lit-new-PID" or ".BASE.lit-old-PID": 1 with *pid and
 * *old set, else 0. */
static int S_leftover_name(const char *n, const char *base, long *pid, int *old) {
  size_t bl = strlen(base);
  if (n[0] != '.' || strncmp(n + 1, base, bl) != 0) return 0;
  const char *rest = n + 1 + bl;
  *old = strncmp(rest, ".lit-old-", 9) == 0;
  if (!*old && strncmp(rest, ".lit-new-", 9) != 0) return 0;
  if (rest[9] < '1' || rest[9] > '9') return 0;
  char *end;
  errno = 0;
  *pid = strtol(rest + 9, &end, 10);
  return !*end && errno == 0;
}

/* The leftovers beside target of processes that no longer run: an old
 * copy whose target is missing (killed between two renames) is put back,
 * the rest removed, each only if lit can vouch for it; the others are
 * reported (d may be NULL: quiet) and left alone. */
static void S_clean_leftovers(int pfd, const char *parent, const char *base, const char *target, lit_diags *d) {
  DIR *dh = S_opendir_at(pfd, ".");
  if (!dh) return;
  struct dirent *e;
  while ((e = readdir(dh))) {
    const char *n = e->d_name;
    long pid;
    int old;
    if (!S_leftover_name(n, base, &pid, &old) || pid == (long)getpid() || S_alive(pid)) continue;
    char *full = lit_xasprintf("%s/%s", parent, n);
    struct stat st;
    if (!S_vouched(pfd, n, base, pid)) {
      if (d)
        lit_diag(d, LIT_WARNING, full, 0, 0,
                 "is named like a leftover of a lit run that was killed, but lit cannot tell that it made it (%s): "
                 "left as it is; %s",
                 fstatat(pfd, n, &st, AT_SYMLINK_NOFOLLOW) != 0 ? "it cannot be read"
                 : S_ISLNK(st.st_mode)                          ? "it is a symbolic link"
                 : !S_ISDIR(st.st_mode)                         ? "it is not a folder"
                 : st.st_uid != geteuid()                       ? "another user owns it"
                                                                : "it holds files lit's manifest does not vouch for",
                 old ? "if it is the old copy of the output, move it back into place by hand, else remove it"
                     : "remove it or move it elsewhere");
    } else if (!old) {
      S_remove_at(pfd, n); /* a stage, or the old copy an exchange left: the output is in place */
    } else if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      /* killed between the two renames: the old copy goes back; if it
       * cannot, it stays (it may be the only copy of the output) */
      if (renameat(pfd, n, pfd, base) != 0 && d)
        lit_diag(d, LIT_WARNING, full, 0, 0, "the old copy of %s, which is missing, cannot be put back: %s", target,
                 strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
      S_remove_at(pfd, n); /* the new output is in place */
    } else if (d) {
      lit_diag(d, LIT_WARNING, full, 0, 0,
               "is the old copy of %s, which is now not a folder: left as it is; move it back into place by hand, or "
               "remove it",
               target);
    }
    free(full);
  }
  closedir(dh);
}

/* Clears the way for this process's own staging or old-copy name: one
 * there already (a dead run's, whose process number this one now has) is
 * removed if lit can vouch for it, else refused. 0 or -1 reported. */
static int S_clear_own(int pfd, const char *name, const char *path, const char *base, lit_diags *d) {
  struct stat st;
  if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
  if (S_vouched(pfd, name, base, (long)getpid()) && S_remove_at(pfd, name) == 0) return 0;
  lit_diag(d, LIT_ERROR, path, 0, 0,
           "is in the way of lit's own staging folder, and lit cannot tell that it made it: move it elsewhere and run "
           "lit again");
  return -1;
}

static char *S_manifest(const lit_tree *t) {
  lit_tree sorted = LIT_TREE_INIT;
  sorted.files = lit_xmalloc((t->n + 1) * sizeof(lit_tree_file));
  memcpy(sorted.files, t->files, t->n * sizeof(lit_tree_file));
  sorted.n = t->n;
  lit_tree_sort(&sorted);
  lit_buf b = LIT_BUF_INIT;
  char hex[LIT_HASH_HEX + 1];
  for (size_t i = 0; i < sorted.n; i++) {
    lit_hash_hex(sorted.files[i].data, sorted.files[i].len, hex);
    lit_buf_printf(&b, "%s  %s\n", hex, sorted.files[i].path);
  }
  free(sorted.files);
  return lit_buf_detach(&b);
}

/* Writes the tree and its manifest into a new folder, the entry sname of
 * folder pfd (stage is its path, for messages), through descriptors: the
 * marker that vouches for a half-written stage first (S_clean_leftovers);
 * the caller removes the marker (S_unmark) before the stage goes into
 * place. 0 or -1. */
static int S_write_stage(const lit_tree *t, int pfd, const char *sname, const char *stage, const char *base,
                         lit_diags *d) {
  int err = lit_fault_step();
  if (err || mkdirat(pfd, sname, 0755) != 0) {
    lit_diag(d, LIT_ERROR, stage, 0, 0, "cannot create the staging folder: %s", strerror(err ? err : errno));
    return -1;
  }
  /* just made, and this user's parent: what the stage's files go into */
  int sfd = openat(pfd, sname, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  char *mark = lit_xasprintf("%s/%s", stage, S_STAGE_MARK), *text = S_mark_text(base, (long)getpid());
  err = sfd < 0 ? errno : S_write_at(sfd, S_STAGE_MARK, text, strlen(text), 0);
  if (err) lit_diag(d, LIT_ERROR, mark, 0, 0, "cannot write: %s", strerror(err));
  free(mark);
  free(text);
  for (size_t i = 0; !err && i < t->n; i++) {
    err = S_write_at(sfd, t->files[i].path, t->files[i].data, t->files[i].len, t->files[i].exec);
    if (err) {
      char *full = lit_xasprintf("%s/%s", stage, t->files[i].path);
      lit_diag(d, LIT_ERROR, full, 0, 0, "cannot write: %s", strerror(err));
      free(full);
    }
  }
  if (!err) {
    char *man = S_manifest(t);
    err = S_write_at(sfd, LIT_TREE_MANIFEST, man, strlen(man), 0);
    if (err) {
      char *full = lit_xasprintf("%s/%s", stage, LIT_TREE_MANIFEST);
      lit_diag(d, LIT_ERROR, full, 0, 0, "cannot write: %s", strerror(err));
      free(full);
    }
    free(man);
  }
  if (sfd >= 0) close(sfd);
  return err ? -1 : 0;
}

/* Removes the marker of the stage sname in folder pfd (stage its path):
 * what goes into place holds only the tree and its manifest (a stage
 * killed after this is vouched for by them). 0 or -1 reported. */
static int S_unmark(int pfd, const char *sname, const char *stage, lit_diags *d) {
  int sfd = openat(pfd, sname, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  int err = sfd >= 0 && unlinkat(sfd, S_STAGE_MARK, 0) == 0 ? 0 : errno;
  if (sfd >= 0) close(sfd);
  if (err) {
    char *mark = lit_xasprintf("%s/%s", stage, S_STAGE_MARK);
    lit_diag(d, LIT_ERROR, mark, 0, 0, "cannot remove: %s", strerror(err));
    free(mark);
  }
  return err ? -1 : 0;
}

/* Swaps the stage and an existing target, entries sname and base of folder
 * pfd (target its path, for messages): afterwards sname holds the old
 * copy; oname is the name the old copy is moved aside to without an
 * atomic exchange. 0, or -1 reported with target as it was. */
static int S_swap(int pfd, const char *sname, const char *base, const char *oname, const char *target, lit_diags *d) {
  int err = lit_fault_step();
#if defined(RENAME_EXCHANGE) && !defined(LIT_NO_RENAME_EXCHANGE) /* the second for the tests of the other path */
  if (!err && renameat2(pfd, sname, pfd, base, RENAME_EXCHANGE) == 0) return 0;
  if (!err && errno != EINVAL && errno != ENOSYS) err = errno;
#endif
  /* No atomic exchange here: two renames, the old copy first moved aside
   * (a run killed between them is put back by the next one). */
  if (!err && renameat(pfd, base, pfd, oname) != 0) {
    err = errno;
  } else if (!err) {
    err = lit_fault_step();
    if (!err && renameat(pfd, sname, pfd, base) != 0) err = errno;
    if (err)
      renameat(pfd, oname, pfd, base); /* the old copy back in place */
    else if (renameat(pfd, oname, pfd, sname) != 0)
      S_remove_at(pfd, oname); /* else it stays hidden, for the next run to remove */
  }
  if (err) lit_diag(d, LIT_ERROR, target, 0, 0, "cannot swap the new folder into place: %s", strerror(err));
  return err ? -1 : 0;
}

/* dir without trailing slashes, and with "." or ".." resolved so that its
 * staging goes beside it; *parent and *base point into or beside it. The
 * caller frees the result and *parent. */
static char *S_target(const char *dir, char **parent, const char **base) {
  size_t dl = strlen(dir);
  while (dl > 1 && dir[dl - 1] == '/')
    dl--;
  char *target = lit_xstrndup(dir, dl);
  const char *last = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
  char real[PATH_MAX];
  if ((strcmp(last, ".") == 0 || strcmp(last, "..") == 0) && realpath(target, real)) {
    free(target);
    target = lit_xstrdup(real);
  }
  char *slash = strrchr(target, '/');
  *parent =
      slash ? (slash == target ? lit_xstrdup("/") : lit_xstrndup(target, (size_t)(slash - target))) : lit_xstrdup(".");
  *base = slash ? slash + 1 : target;
  return target;
}

void lit_tree_recover(const char *dir, lit_diags *d) {
  char *parent;
  const char *base;
  char *target = S_target(dir, &parent, &base);
  int pfd = base[0] ? open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
  if (pfd >= 0) {
    S_clean_leftovers(pfd, parent, base, target, d);
    close(pfd);
  }
  free(parent);
  free(target);
}

char **lit_tree_leftovers(const char *dir, size_t *n) {
  char *parent;
  const char *base;
  char *target = S_target(dir, &parent, &base);
  char **out = NULL;
  size_t cap = 0;
  *n = 0;
  DIR *dh = base[0] ? opendir(parent) : NULL;
  struct dirent *e;
  while (dh && (e = readdir(dh))) {
    long pid;
    int old;
    if (!S_leftover_name(e->d_name, base, &pid, &old)) continue;
    out = lit_grow(out, &cap, *n + 1, sizeof(char *));
    out[(*n)++] = strchr(target, '/') ? lit_xasprintf("%s/%s", parent, e->d_name) : lit_xstrdup(e->d_name);
  }
  if (dh) closedir(dh);
  free(parent);
  free(target);
  return out;
}

/* The folder's manifest is one line a file: a name holding a newline
 * would be written as two lines that vouch for neither, and the next run
 * would refuse the folder as not lit's. 0, or -1 with each such name
 * reported. */
static int S_check_names(const lit_tree *t, const char *target, lit_diags *d) {
  int r = 0;
  for (size_t i = 0; i < t->n; i++)
    if (strchr(t->files[i].path, '\n')) {
      lit_diag(d, LIT_ERROR, target, 0, 0,
               "cannot hold '%s': its name holds a newline, which the folder's %s (one line a file) cannot record; "
               "rename it",
               t->files[i].path, LIT_TREE_MANIFEST);
      r = -1;
    }
  return r;
}

void (*lit_tree_test_hook)(void) = NULL;

/* Makes the folders above rel (relative to the current folder) and opens
 * the one that holds its last name (O_PATH; the caller closes it), each
 * resolved beneath the current folder (lit_path_dir_beneath) and each
 * made inside the one resolved before it: a link inside the current
 * folder is followed, one leading out (EXDEV), even one swapped in after
 * lit_tree_check_inside looked, is not, and no folder is made out there.
 * -1 with errno set. */
static int S_parents_beneath(const char *rel) {
  char *p = lit_xstrdup(rel);
  int fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  for (char *c = p; fd >= 0 && (c = strchr(c, '/')) != NULL; c++) {
    if (c == p || c[-1] == '/') continue; /* an empty name: "a//b" */
    *c = '\0';
    int next = lit_path_dir_beneath(".", p);
    if (next < 0 && errno == ENOENT) {
      const char *name = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
      if (mkdirat(fd, name, 0755) == 0 || errno == EEXIST) next = lit_path_dir_beneath(".", p);
    }
    int e = errno;
    close(fd);
    fd = next;
    errno = e;
    *c = '/';
  }
  free(p);
  return fd;
}

/* The old copy, now the entry sname of folder pfd after the swap, checked
 * again before it is deleted whole: between the first check and the swap
 * a file may have been saved into the folder (an editor, another
 * terminal), or a folder of other work put in its place, and the check
 * approved neither. If it is no longer all lit's, the swap is undone (the
 * folder goes back under base, the new copy is removed) and the install
 * fails with what it found. Only a process already holding a descriptor
 * or a current folder inside the old copy can add to it after this, as
 * its name is now lit's hidden one. 0, or -1 reported. */
static int S_recheck_old(const lit_tree *t, int pfd, const char *sname, const char *base, const char *oname,
                         const char *target, const char *guard, int replace_edits, lit_diags *d) {
  lit_diags *found = lit_diags_new();
  int r = S_check_owned(t, pfd, sname, target, guard, replace_edits, found);
  if (r == 0) {
    lit_diags_free(found);
    return 0;
  }
  int back = S_swap(pfd, sname, base, oname, target, d) == 0;
  if (back) S_remove_at(pfd, sname); /* the new copy, this run's own */
  lit_diag(d, LIT_ERROR, target, 0, 0,
           "changed while lit was replacing it (what it holds is no longer all lit's): %s; run lit again once "
           "nothing else writes there",
           back ? "put back as it was, nothing replaced"
                : "it could not be put back, so lit's new copy is in its place and the folder is kept beside it");
  lit_diags_append(d, found);
  lit_diags_free(found);
  return -1;
}

int lit_tree_install(const lit_tree *t, const char *dir, const char *guard, int flags, lit_diags *d) {
  char *parent;
  const char *base;
  char *target = S_target(dir, &parent, &base);
  char *stage = lit_xasprintf("%s/.%s.lit-new-%ld", parent, base, (long)getpid());
  char *old = lit_xasprintf("%s/.%s.lit-old-%ld", parent, base, (long)getpid());
  /* the same names inside the parent, for the *at calls on pfd */
  const char *sname = stage + strlen(parent) + 1, *oname = old + strlen(parent) + 1;
  int status = -1, pfd = -1;
  struct stat st;
  if (!base[0]) {
    lit_diag(d, LIT_ERROR, target, 0, 0, "is the root folder: refusing to replace it; pick an empty or new folder");
    goto out;
  }
  if (S_check_names(t, target, d) != 0) goto out;
  /* The parent is resolved once, here, and every later step goes through
   * it by name: a folder on its path swapped for a link after the check
   * cannot move the stage, the swap or the delete to a folder lit never
   * looked at. */
  int made = 0;
  if ((flags & LIT_TREE_BENEATH) && target[0] != '/') {
    pfd = S_parents_beneath(target);
    if (pfd < 0) made = errno;
  } else {
    char *parents = lit_xasprintf("%s/", parent);
    made = lit_make_parents(parents);
    free(parents);
    if (!made) pfd = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (!made && pfd < 0) made = errno;
  }
  if (made != 0 && (flags & LIT_TREE_BENEATH) && (made == EXDEV || made == ELOOP)) {
    lit_diag(d, LIT_ERROR, target, 0, 0,
             "a folder above it is a symbolic link that leads outside the current folder (made since lit checked "
             "it?): lit writes its default output only inside it; remove the link, or name the place");
    goto out;
  }
  if (made != 0) {
    lit_diag(d, LIT_ERROR, target, 0, 0, "cannot create the folders above it: %s", strerror(made));
    goto out;
  }
  S_clean_leftovers(pfd, parent, base, target, d);
  if (S_check_owned(t, pfd, base, target, guard, flags & LIT_TREE_REPLACE_EDITS, d) != 0) goto out;
  if (lit_tree_test_hook) lit_tree_test_hook();
  if (S_clear_own(pfd, sname, stage, base, d) != 0 || S_clear_own(pfd, oname, old, base, d) != 0) goto out;
  if (S_write_stage(t, pfd, sname, stage, base, d) != 0 || S_unmark(pfd, sname, stage, d) != 0) {
    S_remove_at(pfd, sname); /* this run's own, made just now */
    goto out;
  }
  if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    /* The target appears whole, by one rename. */
    int err = lit_fault_step();
    if (err || renameat(pfd, sname, pfd, base) != 0) {
      lit_diag(d, LIT_ERROR, target, 0, 0, "cannot move the new folder into place: %s", strerror(err ? err : errno));
      S_remove_at(pfd, sname);
      goto out;
    }
    status = 0;
    goto out;
  }
  if (S_swap(pfd, sname, base, oname, target, d) != 0) {
    S_remove_at(pfd, sname);
    goto out;
  }
  /* stage now holds the old copy. */
  if (S_recheck_old(t, pfd, sname, base, oname, target, guard, flags & LIT_TREE_REPLACE_EDITS, d) != 0) goto out;
  int err = lit_fault_step();
  if (err || S_remove_at(pfd, sname) != 0) {
    lit_diag(d, LIT_ERROR, stage, 0, 0,
             "the new %s is in place, but its old copy cannot be removed from here: %s; remove it (the next run "
             "tries again)",
             base, strerror(err ? err : errno));
    goto out;
  }
  status = 0;
out:
  if (pfd >= 0) close(pfd);
  free(parent);
  free(target);
  free(stage);
  free(old);
  return status;
}

int lit_tree_check_parent(const char *dir, lit_diags *d) {
  DIR *dh = opendir(dir);
  if (!dh) return 0; /* missing: it will hold only what lit puts there */
  size_t found = 0;
  struct dirent *e;
  while ((e = readdir(dh))) {
    const char *n = e->d_name;
    if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0) continue;
    char *sub = lit_xasprintf("%s/%s", dir, n);
    /* a run's leftover, for NAME in ".NAME.lit-new-PID", if lit made it */
    const char *tag = n[0] == '.' ? strstr(n, ".lit-new-") : NULL;
    tag = tag ? tag : n[0] == '.' ? strstr(n, ".lit-old-") : NULL;
    long pid;
    int old;
    if (tag && tag > n + 1) {
      char *base = lit_xstrndup(n + 1, (size_t)(tag - n - 1));
      int vouched = S_leftover_name(n, base, &pid, &old) && S_vouched(AT_FDCWD, sub, base, pid);
      free(base);
      if (vouched) {
        free(sub);
        continue;
      }
    }
    char *man = lit_xasprintf("%s/%s", sub, LIT_TREE_MANIFEST);
    char *legacy = lit_xasprintf("%s/manifest.txt", sub);
    struct stat st;
    int ours = lstat(sub, &st) == 0 && S_ISDIR(st.st_mode) && (lstat(man, &st) == 0 || lstat(legacy, &st) == 0);
    if (!ours && found++ < 5)
      lit_diag(d, LIT_ERROR, sub, 0, 0,
               "lit did not write this, so %s is not an output folder of lit: pick an empty or new folder", dir);
    free(sub);
    free(man);
    free(legacy);
  }
  closedir(dh);
  if (found > 5) lit_diag(d, LIT_NOTE, dir, 0, 0, "and %zu more entries lit did not write", found - 5);
  return found ? -1 : 0;
}

/* An entry of a folder being read that is neither a folder nor a regular
 * file. A symbolic link may lead anywhere, out of the project too: it is
 * never followed, and nothing is left out without a word. Reported; -1. */
static int S_refuse_special(const char *path, const struct stat *st, lit_diags *d) {
  if (!S_ISLNK(st->st_mode)) {
    lit_diag(d, LIT_ERROR, path, 0, 0,
             "is neither a regular file nor a folder: lit reads only those, so it stops here; remove it");
    return -1;
  }
  char to[PATH_MAX];
  ssize_t n = readlink(path, to, sizeof to - 1);
  to[n > 0 ? n : 0] = '\0';
  lit_diag(d, LIT_ERROR, path, 0, 0,
           "is a symbolic link%s%s: lit copies only regular files and folders and never follows a link, so it "
           "stops here; put the file itself in its place, or remove the link",
           to[0] ? " to " : "", to);
  return -1;
}

void (*lit_tree_read_hook)(const char *path) = NULL;

/* Adds the files under rel (the folder fd holds open; root/rel its path,
 * for messages) to t. Every entry is looked at and opened through its
 * folder's descriptor, never through a link (O_NOFOLLOW): an entry swapped
 * for a link after it was looked at is refused, not followed to a file or
 * a folder outside what is read. Takes fd (closes it). 0, or -1 reported. */
static int S_read_dir(lit_tree *t, int fd, const char *root, const char *rel, lit_diags *d) {
  DIR *dh = fd >= 0 ? fdopendir(fd) : NULL;
  if (!dh) {
    int err = errno;
    if (fd >= 0) close(fd);
    char *full = rel[0] ? lit_xasprintf("%s/%s", root, rel) : lit_xstrdup(root);
    lit_diag(d, LIT_ERROR, full, 0, 0, "cannot read this folder: %s", strerror(err));
    free(full);
    return -1;
  }
  int status = 0;
  struct dirent *e;
  while ((e = readdir(dh)) && status == 0) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (!rel[0] && strcmp(e->d_name, LIT_TREE_MANIFEST) == 0) continue; /* bookkeeping, not content */
    char *sub = rel[0] ? lit_xasprintf("%s/%s", rel, e->d_name) : lit_xstrdup(e->d_name);
    char *path = lit_xasprintf("%s/%s", root, sub);
    struct stat st;
    if (fstatat(dirfd(dh), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      lit_diag(d, LIT_ERROR, path, 0, 0, "cannot stat: %s", strerror(errno));
      status = -1;
    } else if (lit_tree_read_hook) {
      lit_tree_read_hook(path);
    }
    if (status != 0) {
      /* reported above */
    } else if (S_ISDIR(st.st_mode)) {
      status =
          S_read_dir(t, openat(dirfd(dh), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), root, sub, d);
    } else if (S_ISREG(st.st_mode)) {
      lit_buf b = LIT_BUF_INIT;
      int err = S_read_at(dirfd(dh), e->d_name, &b);
      if (err) {
        lit_diag(d, LIT_ERROR, path, 0, 0, "cannot read: %s", lit_strerror(err));
        lit_buf_free(&b);
        status = -1;
      } else {
        size_t len = b.len;
        lit_tree_add(t, sub, lit_buf_detach(&b), len);
        t->files[t->n - 1].exec = (st.st_mode & 0100) != 0;
      }
    } else {
      status = S_refuse_special(path, &st, d);
    }
    free(sub);
    free(path);
  }
  closedir(dh);
  return status;
}

/* The folder itself is opened as named (a --from that is a link to a
 * bundle is the user's word); what is inside it never through a link. */
int lit_tree_read(lit_tree *t, const char *dir, lit_diags *d) {
  return S_read_dir(t, open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), dir, "", d);
}

int lit_tree_check_inside(const char *dir, lit_diags *d) {
  char here[PATH_MAX], real[PATH_MAX], to[PATH_MAX];
  if (!dir[0] || !realpath(".", here)) return 0; /* nothing to check, or no current folder to leave */
  char *p = lit_xstrdup(dir);
  int r = 0;
  for (char *c = p + 1;; c++) {
    if (*c && *c != '/') continue;
    char end = *c;
    *c = '\0';
    struct stat st;
    if (lstat(p, &st) != 0) break; /* the rest does not exist: lit makes it here */
    int resolves = realpath(p, real) != NULL, loop = !resolves && errno == ELOOP;
    if (!resolves || !lit_path_is_inside(here, real)) {
      /* what the link says, not where it lands: the message stays the same
       * wherever the project is */
      ssize_t n = S_ISLNK(st.st_mode) ? readlink(p, to, sizeof to - 1) : -1;
      to[n > 0 ? n : 0] = '\0';
      lit_diag(d, LIT_ERROR, p, 0, 0,
               "is a symbolic link%s%s that leads %s: lit neither reads nor writes through it unless told to; "
               "remove the link",
               to[0] ? " to " : "", to,
               resolves ? "outside the current folder"
               : loop   ? "back to itself (a symbolic link loop)"
                        : "nowhere");
      r = -1;
    }
    *c = end;
    if (r || !end) break;
  }
  free(p);
  return r;
}

size_t lit_tree_compare(const lit_tree *t, const char *dir, lit_diags *d) {
  lit_tree disk = LIT_TREE_INIT, want = LIT_TREE_INIT;
  struct stat st;
  size_t diffs = 0;
  /* Looked at as lit_tree_install looks (lstat, no trailing '/'): a link
   * here is refused, never followed (book -> /usr would read and list all
   * of /usr). */
  char *parent;
  const char *base;
  char *target = S_target(dir, &parent, &base);
  int there = lstat(target, &st) == 0, folder = there && S_ISDIR(st.st_mode);
  free(parent);
  free(target);
  if (there && !folder) {
    lit_diag(d, LIT_ERROR, dir, 0, 0, "exists and is not a folder; remove it first");
    return 1;
  }
  /* One entry it cannot read (a FIFO, say) is the difference: what was
   * read before it is only part of the folder, and every file after it
   * would be reported missing. */
  if (folder && lit_tree_read(&disk, dir, d) != 0) {
    lit_tree_free(&disk);
    return 1;
  }
  /* a sorted view of the wanted files, without copying their bytes */
  want.files = lit_xmalloc((t->n + 1) * sizeof(lit_tree_file));
  memcpy(want.files, t->files, t->n * sizeof(lit_tree_file));
  want.n = t->n;
  lit_tree_sort(&want);
  lit_tree_sort(&disk);
  size_t i = 0, k = 0;
  while (i < want.n || k < disk.n) {
    int c = i == want.n ? 1 : k == disk.n ? -1 : strcmp(want.files[i].path, disk.files[k].path);
    if (c < 0) {
      lit_diag(d, LIT_ERROR, dir, 0, 0, "%s is missing (a fresh weave writes it)", want.files[i].path);
      i++;
      diffs++;
    } else if (c > 0) {
      lit_diag(d, LIT_ERROR, dir, 0, 0, "%s is not part of a fresh weave", disk.files[k].path);
      k++;
      diffs++;
    } else {
      if (want.files[i].len != disk.files[k].len ||
          memcmp(want.files[i].data, disk.files[k].data, disk.files[k].len) != 0) {
        lit_diag(d, LIT_ERROR, dir, 0, 0, "%s differs from a fresh weave", want.files[i].path);
        diffs++;
      }
      i++;
      k++;
    }
  }
  free(want.files);
  lit_tree_free(&disk);
  return diffs;
}

#define _XOPEN_SOURCE 700 /* link, fchmod, fsync, kill, nftw */
#include "commit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "paths.h"
#include "util.h"

typedef enum { S_NEW, S_REPLACE, S_REMOVE } S_kind;

typedef struct {
  S_kind kind;
  char *final;  /* the target */
  char *temp;   /* the staged copy; NULL for S_REMOVE */
  char *backup; /* the old copy's link; NULL for S_NEW */
} S_item;

struct lit_commit {
  char *root;
  char *journal;
  S_item *items; /* every path relative to root */
  size_t n, cap;
  char **dirs; /* folders made for staged copies, parents first */
  size_t ndirs, dirs_cap;
  int done; /* run to the end: nothing left to clean up */
};

static char *S_full(const char *root, const char *rel) { return lit_path_join(root, rel); }

/* rel's folder with a trailing '/', or "" at the root; the caller frees it. */
static char *S_dir_of(const char *rel) {
  const char *slash = strrchr(rel, '/');
  return slash ? lit_xstrndup(rel, (size_t)(slash - rel) + 1) : lit_xstrdup("");
}

static int S_exists(const char *root, const char *rel) {
  char *full = S_full(root, rel);
  struct stat st;
  int r = lstat(full, &st) == 0;
  free(full);
  return r;
}

lit_commit *lit_commit_new(const char *root, const char *journal_rel) {
  lit_commit *c = lit_xcalloc(1, sizeof *c);
  c->root = lit_xstrdup(root && root[0] ? root : ".");
  c->journal = lit_xstrdup(journal_rel);
  return c;
}

/* Makes rel's missing parent folders, remembering each. 0 or an errno. */
static int S_make_parents(lit_commit *c, const char *rel) {
  char *p = lit_xstrdup(rel);
  int err = 0;
  for (char *s = p + 1; *s && !err; s++) {
    if (*s != '/') continue;
    *s = '\0';
    if (!S_exists(c->root, p)) {
      char *full = S_full(c->root, p);
      err = lit_fault_step();
      if (!err && mkdir(full, 0777) != 0) err = errno;
      free(full);
      if (!err) {
        c->dirs = lit_grow(c->dirs, &c->dirs_cap, c->ndirs + 1, sizeof(char *));
        c->dirs[c->ndirs++] = lit_xstrdup(p);
      }
    }
    *s = '/';
  }
  free(p);
  return err;
}

int lit_commit_open(lit_commit *c, const char *rel, int *fd) {
  *fd = -1;
  int err = S_make_parents(c, rel);
  if (err) return err;
  /* Named after the process, not the file: a name near NAME_MAX plus a
   * suffix would be too long, and the process id tells the next run
   * whether the owner still runs. */
  char *dir = S_dir_of(rel);
  char *temp = lit_xasprintf("%s.lit-tmp-%ld-XXXXXX", dir, (long)getpid());
  free(dir);
  char *full = S_full(c->root, temp);
  err = lit_fault_step();
  if (!err) {
    *fd = mkstemp(full);
    if (*fd < 0) err = errno;
  }
  if (err) {
    free(full);
    free(temp);
    return err;
  }
  /* mkstemp filled in the X's of the full path; the relative name ends the same. */
  memcpy(temp + strlen(temp) - 6, full + strlen(full) - 6, 6);
  free(full);
  c->items = lit_grow(c->items, &c->cap, c->n + 1, sizeof(S_item));
  c->items[c->n++] = (S_item){S_NEW, lit_xstrdup(rel), temp, NULL};
  return 0;
}

static void S_item_free(S_item *it) {
  free(it->final);
  free(it->temp);
  free(it->backup);
}

static void S_drop_last(lit_commit *c) {
  S_item *it = &c->items[--c->n];
  char *full = S_full(c->root, it->temp);
  unlink(full);
  free(full);
  S_item_free(it);
}

int lit_commit_close(lit_commit *c, int fd, int exec, int write_err) {
  int err = write_err;
  mode_t mask = umask(0);
  umask(mask);
  if (!err) err = lit_fault_step();
  if (!err && fchmod(fd, (exec ? 0777 : 0666) & ~mask) != 0) err = errno;
  if (!err && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  if (err) S_drop_last(c);
  return err;
}

void lit_commit_discard(lit_commit *c, int fd) {
  close(fd);
  S_drop_last(c);
}

void lit_commit_remove(lit_commit *c, const char *rel) {
  c->items = lit_grow(c->items, &c->cap, c->n + 1, sizeof(S_item));
  c->items[c->n++] = (S_item){S_REMOVE, lit_xstrdup(rel), NULL, NULL};
}

size_t lit_commit_count(const lit_commit *c) {
  size_t k = 0;
  for (size_t i = 0; i < c->n; i++)
    k += c->items[i].kind != S_REMOVE;
  return k;
}

/* ---- the journal ---- */

static const char S_magic[] = "lit-journal";

static void S_journal_text(const lit_commit *c, lit_buf *b) {
  lit_buf_printf(b, "%s %ld\n", S_magic, (long)getpid());
  for (size_t i = 0; i < c->ndirs; i++)
    lit_buf_printf(b, "dir\t%s\n", c->dirs[i]);
  for (size_t i = 0; i < c->n; i++) {
    const S_item *it = &c->items[i];
    if (it->kind == S_NEW) lit_buf_printf(b, "new\t%s\t%s\n", it->temp, it->final);
    if (it->kind == S_REPLACE) lit_buf_printf(b, "replace\t%s\t%s\t%s\n", it->temp, it->final, it->backup);
    if (it->kind == S_REMOVE) lit_buf_printf(b, "remove\t%s\t%s\n", it->final, it->backup);
  }
  lit_buf_puts(b, "end\n");
}

static int S_write_all(int fd, const char *data, size_t len) {
  while (len > 0) {
    ssize_t k = write(fd, data, len);
    if (k < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += k;
    len -= (size_t)k;
  }
  return 0;
}

/* Writes the journal whole, through a temporary renamed into place, so the
 * next run finds either all of it or none. 0 or an errno. */
static int S_journal_write(const lit_commit *c) {
  lit_buf text = LIT_BUF_INIT;
  S_journal_text(c, &text);
  char *dir = S_dir_of(c->journal);
  char *temp = lit_xasprintf("%s.lit-tmp-%ld-XXXXXX", dir, (long)getpid());
  char *full_temp = S_full(c->root, temp), *full = S_full(c->root, c->journal);
  int err = lit_fault_step();
  int fd = err ? -1 : mkstemp(full_temp);
  if (!err && fd < 0) err = errno;
  if (!err) {
    err = S_write_all(fd, text.data, text.len);
    if (!err && fsync(fd) != 0) err = errno;
    if (close(fd) != 0 && !err) err = errno;
    if (!err) err = lit_fault_step();
    if (!err && rename(full_temp, full) != 0) err = errno;
    if (err) unlink(full_temp);
  }
  free(full_temp);
  free(full);
  free(temp);
  free(dir);
  lit_buf_free(&text);
  return err;
}

/* ---- undoing ---- */

/* Puts back what the items changed, last first, and removes the folders the
 * commit made. Works from what is on disk, so it serves a failed step and a
 * dead process alike. 0, or the first errno met (it still does the rest). */
static int S_undo(const char *root, S_item *items, size_t n, char **dirs, size_t ndirs) {
  int first = 0;
  for (size_t i = n; i-- > 0;) {
    const S_item *it = &items[i];
    char *final = S_full(root, it->final);
    char *temp = it->temp ? S_full(root, it->temp) : NULL;
    char *backup = it->backup ? S_full(root, it->backup) : NULL;
    struct stat st;
    int err = 0;
    if (it->kind == S_NEW) {
      /* The staged copy still there: the rename never happened. */
      if (lstat(temp, &st) == 0) {
        if (unlink(temp) != 0) err = errno;
      } else if (lstat(final, &st) == 0 && unlink(final) != 0) {
        err = errno;
      }
    } else {
      if (lstat(backup, &st) == 0 && rename(backup, final) != 0) err = errno;
      if (temp && lstat(temp, &st) == 0 && unlink(temp) != 0 && !err) err = errno;
    }
    if (err && !first) first = err;
    free(final);
    free(temp);
    free(backup);
  }
  for (size_t i = ndirs; i-- > 0;) {
    char *full = S_full(root, dirs[i]);
    rmdir(full); /* not empty: something else was put there since; leave it */
    free(full);
  }
  return first;
}

/* ---- running ---- */

static void S_report(lit_diags *d, const char *rel, const char *what, int err) {
  lit_diag(d, LIT_ERROR, rel, 0, 0, "cannot %s: %s; every file is left as it was", what, strerror(err));
}

int lit_commit_run(lit_commit *c, size_t *removed, lit_diags *d) {
  if (removed) *removed = 0;
  if (c->n == 0) {
    c->done = 1;
    return 0;
  }
  long pid = (long)getpid();
  for (size_t i = 0; i < c->n; i++) {
    S_item *it = &c->items[i];
    char *full = S_full(c->root, it->final);
    struct stat st;
    int exists = lstat(full, &st) == 0;
    free(full);
    if (exists && !S_ISREG(st.st_mode)) {
      /* A folder (perhaps one made for another staged file) or a link:
       * renaming over it would fail or escape; nothing has changed yet. */
      lit_diag(d, LIT_ERROR, it->final, 0, 0, "cannot replace this %s with a file; every file is left as it was",
               S_ISDIR(st.st_mode) ? "folder" : "special file");
      return -1;
    }
    if (it->kind == S_NEW && exists) it->kind = S_REPLACE;
    if (it->kind != S_NEW) {
      char *dir = S_dir_of(it->final);
      it->backup = lit_xasprintf("%s.lit-old-%ld-%zu", dir, pid, i);
      free(dir);
    }
  }
  int err = S_journal_write(c);
  if (err) {
    S_report(d, c->journal, "write the journal of this run", err);
    return -1; /* lit_commit_free removes the staged copies */
  }
  size_t failed_at = c->n;
  const char *what = NULL;
  /* Keep every old copy first: until the journal is gone, it is what an
   * undo puts back. A file system without hard links gets a rename
   * instead (the file is briefly absent; the undo is the same). */
  for (size_t i = 0; i < c->n && !err; i++) {
    S_item *it = &c->items[i];
    if (!it->backup) continue;
    char *final = S_full(c->root, it->final), *backup = S_full(c->root, it->backup);
    unlink(backup); /* a dead process's, with this process's id */
    err = lit_fault_step();
    if (!err && link(final, backup) != 0) {
      err = errno;
      if ((err == EPERM || err == EOPNOTSUPP || err == ENOSYS || err == EMLINK) && rename(final, backup) == 0) err = 0;
    }
    if (err && err != ENOENT) {
      failed_at = i;
      what = "keep the old copy of this file";
    } else {
      err = 0;
    }
    free(final);
    free(backup);
  }
  for (size_t i = 0; i < c->n && !err; i++) {
    S_item *it = &c->items[i];
    char *final = S_full(c->root, it->final);
    err = lit_fault_step();
    if (it->kind != S_REMOVE) {
      char *temp = S_full(c->root, it->temp);
      if (!err && rename(temp, final) != 0) err = errno;
      free(temp);
      what = "move the new content into place";
    } else {
      if (!err && unlink(final) != 0 && errno != ENOENT) err = errno;
      what = "remove this file, whose block was deleted";
    }
    if (err) failed_at = i;
    free(final);
  }
  char *journal = S_full(c->root, c->journal);
  if (!err) {
    err = lit_fault_step(); /* the commit point */
    if (!err && unlink(journal) != 0) err = errno;
    if (err) {
      failed_at = c->n;
      what = "remove the journal of this run (the commit point)";
    }
  }
  if (err) {
    S_report(d, failed_at < c->n ? c->items[failed_at].final : c->journal, what, err);
    int undo = S_undo(c->root, c->items, c->n, c->dirs, c->ndirs);
    if (undo)
      lit_diag(d, LIT_ERROR, c->journal, 0, 0,
               "cannot undo the run: %s; the journal stays, and the next run tries again", strerror(undo));
    else
      unlink(journal);
    free(journal);
    c->done = 1;
    return -1;
  }
  free(journal);
  for (size_t i = 0; i < c->n; i++) {
    S_item *it = &c->items[i];
    if (removed && it->kind == S_REMOVE) (*removed)++;
    if (!it->backup) continue;
    char *backup = S_full(c->root, it->backup);
    if (lit_fault_step() == 0) unlink(backup); /* left over: the next run sweeps it */
    free(backup);
  }
  c->done = 1;
  return 0;
}

void lit_commit_free(lit_commit *c) {
  if (!c) return;
  if (!c->done) {
    for (size_t i = 0; i < c->n; i++) {
      if (!c->items[i].temp) continue;
      char *full = S_full(c->root, c->items[i].temp);
      unlink(full);
      free(full);
    }
    S_undo(c->root, NULL, 0, c->dirs, c->ndirs);
  }
  for (size_t i = 0; i < c->n; i++)
    S_item_free(&c->items[i]);
  free(c->items);
  for (size_t i = 0; i < c->ndirs; i++)
    free(c->dirs[i]);
  free(c->dirs);
  free(c->root);
  free(c->journal);
  free(c);
}

/* ---- recovery ---- */

static int S_alive(long pid) { return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM); }

/* Splits a journal line into at most 4 tab-separated fields, in place. */
static size_t S_fields(char *line, char **f) {
  size_t n = 0;
  for (char *s = line; n < 4;) {
    f[n++] = s;
    char *tab = strchr(s, '\t');
    if (!tab) break;
    *tab = '\0';
    s = tab + 1;
  }
  return n;
}

/* Parses a journal; 0, or -1 if it is not one this version wrote whole. */
static int S_journal_parse(char *text, long *pid, S_item **items, size_t *n, char ***dirs, size_t *ndirs) {
  size_t cap = 0, dcap = 0;
  int ended = 0;
  char *save = NULL;
  char *line = strtok_r(text, "\n", &save);
  if (!line || sscanf(line, "lit-journal %ld", pid) != 1) return -1;
  while ((line = strtok_r(NULL, "\n", &save))) {
    if (ended) return -1;
    char *f[4];
    size_t k = S_fields(line, f);
    for (size_t i = 1; i < k; i++)
      if (lit_path_check_plain(f[i])) return -1; /* undo renames and removes what it names */
    if (strcmp(f[0], "end") == 0 && k == 1) {
      ended = 1;
    } else if (strcmp(f[0], "dir") == 0 && k == 2) {
      *dirs = lit_grow(*dirs, &dcap, *ndirs + 1, sizeof(char *));
      (*dirs)[(*ndirs)++] = lit_xstrdup(f[1]);
    } else {
      S_item it = {S_NEW, NULL, NULL, NULL};
      if (strcmp(f[0], "new") == 0 && k == 3) {
        it = (S_item){S_NEW, lit_xstrdup(f[2]), lit_xstrdup(f[1]), NULL};
      } else if (strcmp(f[0], "replace") == 0 && k == 4) {
        it = (S_item){S_REPLACE, lit_xstrdup(f[2]), lit_xstrdup(f[1]), lit_xstrdup(f[3])};
      } else if (strcmp(f[0], "remove") == 0 && k == 3) {
        it = (S_item){S_REMOVE, lit_xstrdup(f[1]), NULL, lit_xstrdup(f[2])};
      } else {
        return -1;
      }
      *items = lit_grow(*items, &cap, *n + 1, sizeof(S_item));
      (*items)[(*n)++] = it;
    }
  }
  return ended ? 0 : -1;
}

/* "name" is ".lit-tmp-PID-XXXXXX" or ".lit-old-PID-N" of a process that no
 * longer runs, or ".lit-tmp-XXXXXX" of a version that did not name them. */
static int S_stale(const char *name) {
  const char *rest;
  if (strncmp(name, ".lit-tmp-", 9) == 0)
    rest = name + 9;
  else if (strncmp(name, ".lit-old-", 9) == 0)
    rest = name + 9;
  else
    return 0;
  char *end;
  long pid = strtol(rest, &end, 10);
  if (end != rest && *end == '-') return pid != (long)getpid() && !S_alive(pid);
  return strncmp(name, ".lit-tmp-", 9) == 0 && strlen(rest) == 6 && !strchr(rest, '-');
}

static int S_sweep_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  if (flag == FTW_F && S_stale(path + ftw->base)) unlink(path);
  return 0;
}

/* The journal's own folder (often the project root) is swept alone, not
 * walked: its subfolders are the whole project. */
static void S_sweep_flat(const char *dir) {
  DIR *dh = opendir(dir);
  if (!dh) return;
  struct dirent *e;
  while ((e = readdir(dh))) {
    if (!S_stale(e->d_name)) continue;
    char *full = lit_xasprintf("%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(full, &st) == 0 && S_ISREG(st.st_mode)) unlink(full);
    free(full);
  }
  closedir(dh);
}

int lit_commit_recover(const char *root, const char *journal_rel, char *const *dirs, size_t ndirs, lit_diags *d) {
  char *full = S_full(root, journal_rel);
  lit_buf b = LIT_BUF_INIT;
  int err = lit_read_file(full, &b);
  int status = 0;
  if (err && err != ENOENT) {
    lit_diag(d, LIT_ERROR, journal_rel, 0, 0, "cannot read the journal of an interrupted run: %s", strerror(err));
    status = -1;
  } else if (!err) {
    long pid = 0;
    S_item *items = NULL;
    size_t n = 0, nd = 0;
    char **made = NULL;
    if (S_journal_parse(b.data ? b.data : "", &pid, &items, &n, &made, &nd) != 0) {
      lit_diag(d, LIT_ERROR, journal_rel, 0, 0,
               "this is not a journal lit can undo; check the files it names, then delete it");
      status = -1;
    } else if (pid != (long)getpid() && S_alive(pid)) {
      lit_diag(d, LIT_ERROR, journal_rel, 0, 0,
               "another lit (process %ld) is writing this project; run again when it has finished", pid);
      status = -1;
    } else if ((err = S_undo(root, items, n, made, nd)) != 0) {
      lit_diag(d, LIT_ERROR, journal_rel, 0, 0, "cannot undo the interrupted run this journal describes: %s",
               strerror(err));
      status = -1;
    } else {
      unlink(full);
      lit_diag(d, LIT_NOTE, journal_rel, 0, 0,
               "a run (process %ld) was interrupted before it finished: its changes were undone", pid);
    }
    for (size_t i = 0; i < n; i++)
      S_item_free(&items[i]);
    free(items);
    for (size_t i = 0; i < nd; i++)
      free(made[i]);
    free(made);
  }
  lit_buf_free(&b);
  free(full);
  if (status == 0) {
    char *jdir = S_dir_of(journal_rel);
    char *jfull = jdir[0] ? S_full(root, jdir) : lit_xstrdup(root && root[0] ? root : ".");
    S_sweep_flat(jfull);
    free(jfull);
    free(jdir);
  }
  if (status == 0)
    for (size_t i = 0; i < ndirs; i++) {
      char *dir = dirs[i][0] ? S_full(root, dirs[i]) : lit_xstrdup(root && root[0] ? root : ".");
      nftw(dir, S_sweep_one, 16, FTW_PHYS);
      free(dir);
    }
  return status;
}

#define _GNU_SOURCE /* link, fchmod, fsync, kill, flock, O_NOFOLLOW, renameat2 */
#include "commit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "paths.h"
#include "hash.h"
#include "util.h"

#ifndef AT_SYMLINK_NOFOLLOW
#define AT_SYMLINK_NOFOLLOW 0x100
#endif

typedef enum { S_NEW, S_REPLACE, S_REMOVE } S_kind;

typedef struct {
  S_kind kind;
  char *final;  /* the target */
  char *temp;   /* the staged copy; NULL for S_REMOVE */
  char *backup; /* the old copy's link; NULL for S_NEW */
  /* XXH3 of the staged copy's content; "" when unknown (S_REMOVE, or a
   * journal of a version that wrote none). An undo takes back a target
   * only when it holds exactly this: what lit put there. */
  char hash[LIT_HASH_HEX + 1];
  lit_file_id was; /* the target as its writer read it (lit_commit_expect); unknown: not checked */
  int absent;      /* its writer found no file there (lit_commit_expect_absent): one now is not lit's */
} S_item;

/* A name proves nothing: anyone can make a file called ".lit-tmp-123-0",
 * and the system gives a dead run's process id to someone else. So right
 * after lit makes a file under a name of its own (a staged copy, an old
 * copy), it writes down in the journal what tells that file from any other
 * ("made" lines): its device and inode, which no other file has while it
 * exists, and, for an old copy, whose content no longer changes, its size
 * and modification time too. An undo or a clean-up removes or renames such
 * a name only while it still holds that very file (S_proven). */
typedef struct {
  char *path; /* relative to the root */
  char *id;   /* S_id_text of the file when lit made it */
  int old;    /* an old copy: the id holds its size and time too */
} S_made;

/* The files a run made, in the order made; owns its strings. */
typedef struct {
  S_made *v;
  size_t n, cap;
  lit_index at; /* path -> position in v */
} S_mades;

/* Folders of a project resolved beneath its root (lit_path_dir_beneath),
 * each once, keyed by the spelling a relative path gives it, and kept open:
 * every step on a file, the run's and an undo's and a recovery's alike, goes
 * through its folder's descriptor by base name, so a folder swapped for a
 * link leading out after the project was checked cannot lead a change, or
 * a read, out of it. Owns the descriptors (S_dirs_free closes them); a
 * folder that is missing is not remembered, since a step may make it. */
typedef struct {
  const char *root; /* borrowed */
  struct {
    char *dir; /* relative to the root, ending in '/'; "" for the root */
    int fd;
  } * v;
  size_t n, cap;
  lit_index at; /* dir -> position */
} S_dirs;

struct lit_commit {
  char *root;
  char *journal;
  int jfd;       /* the journal, open from the first change on; -1 before */
  S_item *items; /* every path relative to root */
  size_t n, cap;
  S_mades made; /* what proves each staged and old copy lit's */
  char **dirs;  /* folders made, parents first */
  size_t ndirs, dirs_cap;
  size_t ntemps;   /* names handed out: .lit-tmp-PID-N */
  size_t nolds;    /* and .lit-old-PID-N */
  int journaled;   /* the journal was created: an undo deletes it */
  int journal_err; /* why the journal could not be begun, or 0 */
  int done;        /* run to the end, or undone: nothing left to clean up */
  S_dirs fdirs;    /* every folder a step went through (S_parent_fd) */
};

/* rel's folder with a trailing '/', or "" at the root; the caller frees it. */
static char *S_dir_of(const char *rel) {
  const char *slash = strrchr(rel, '/');
  return slash ? lit_xstrndup(rel, (size_t)(slash - rel) + 1) : lit_xstrdup("");
}

/* rel's last component: the name a step uses on its folder's descriptor. */
static const char *S_base(const char *rel) {
  const char *s = strrchr(rel, '/');
  return s ? s + 1 : rel;
}

/* The descriptor of rel's folder, beneath the root, resolved on first use
 * and kept (ds owns it, the caller never closes it); -1 and errno (ENOENT:
 * no such folder; EXDEV: it now leads outside the project). */
static int S_dir_fd(S_dirs *ds, const char *rel) {
  const size_t len = (size_t)(S_base(rel) - rel); /* rel's folder, with its '/' */
  size_t at;
  if (lit_index_get(&ds->at, rel, len, &at)) return ds->v[at].fd;
  char *dir = lit_xstrndup(rel, len);
  if (len) dir[len - 1] = '\0'; /* opened without the trailing '/' */
  int fd = lit_path_dir_beneath(ds->root, dir);
  if (fd < 0) {
    free(dir);
    return -1;
  }
  if (len) dir[len - 1] = '/'; /* the key: rel's own spelling */
  ds->v = lit_grow(ds->v, &ds->cap, ds->n + 1, sizeof *ds->v);
  ds->v[ds->n].dir = dir;
  ds->v[ds->n].fd = fd;
  lit_index_put(&ds->at, dir, ds->n++);
  return fd;
}

static void S_dirs_free(S_dirs *ds) {
  for (size_t i = 0; i < ds->n; i++) {
    close(ds->v[i].fd);
    free(ds->v[i].dir);
  }
  free(ds->v);
  lit_index_free(&ds->at);
  memset(ds, 0, sizeof *ds);
}

static int S_parent_fd(lit_commit *c, const char *rel) { return S_dir_fd(&c->fdirs, rel); }

/* lstat of rel through its folder: 0, or -1 and errno (ENOENT or ENOTDIR
 * also where its folder is missing). */
static int S_lstat(S_dirs *ds, const char *rel, struct stat *st) {
  const int fd = S_dir_fd(ds, rel);
  return fd < 0 ? -1 : fstatat(fd, S_base(rel), st, AT_SYMLINK_NOFOLLOW);
}

static int S_exists(S_dirs *ds, const char *rel) {
  struct stat st;
  return S_lstat(ds, rel, &st) == 0;
}

/* unlinkat and renameat on paths relative to the root, through their
 * folders; 0 or -1 and errno. */
static int S_unlink(S_dirs *ds, const char *rel, int flags) {
  const int fd = S_dir_fd(ds, rel);
  return fd < 0 ? -1 : unlinkat(fd, S_base(rel), flags);
}
static int S_rename(S_dirs *ds, const char *from, const char *to) {
  const int ffd = S_dir_fd(ds, from);
  const int tfd = ffd < 0 ? -1 : S_dir_fd(ds, to);
  return tfd < 0 ? -1 : renameat(ffd, S_base(from), tfd, S_base(to));
}

/* The hash of the regular file at rel, read through its folder and never
 * through a link: 0 or an errno. */
static int S_hash_at(S_dirs *ds, const char *rel, char hex[LIT_HASH_HEX + 1]) {
  const int dfd = S_dir_fd(ds, rel);
  if (dfd < 0) return errno;
  const int fd = openat(dfd, S_base(rel), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return errno;
  struct stat st;
  int err = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : lit_hash_fd(fd, hex);
  close(fd);
  return err;
}

/* What tells the file st from every other: "DEV\tINO", and for an old copy
 * (old) "\tSIZE\tSEC\tNSEC" of its modification time. The caller frees it.
 * Compared as text, so that no number read back from a journal is ever
 * converted (or overflows). */
static char *S_id_text(const struct stat *st, int old) {
  char *id = lit_xasprintf("%llu\t%llu", (unsigned long long)st->st_dev, (unsigned long long)st->st_ino);
  if (!old) return id;
  char *whole = lit_xasprintf("%s\t%lld\t%lld\t%ld", id, (long long)st->st_size, (long long)st->st_mtim.tv_sec,
                              (long)st->st_mtim.tv_nsec);
  free(id);
  return whole;
}

/* Takes path and id. */
static void S_mades_add(S_mades *l, char *path, char *id, int old) {
  l->v = lit_grow(l->v, &l->cap, l->n + 1, sizeof(S_made));
  l->v[l->n] = (S_made){path, id, old};
  lit_index_put(&l->at, path, l->n++);
}

static const S_made *S_mades_find(const S_mades *l, const char *rel) {
  size_t i;
  return lit_index_get(&l->at, rel, strlen(rel), &i) ? &l->v[i] : NULL;
}

static void S_mades_free(S_mades *l) {
  for (size_t i = 0; i < l->n; i++) {
    free(l->v[i].path);
    free(l->v[i].id);
  }
  free(l->v);
  lit_index_free(&l->at);
}

/* Whether the content of the file at rel hashes to hash (never, for an
 * unknown hash ""). */
static int S_holds(S_dirs *ds, const char *rel, const char *hash) {
  char now[LIT_HASH_HEX + 1];
  return hash[0] && S_hash_at(ds, rel, now) == 0 && strcmp(now, hash) == 0;
}

/* Why st is not the file m records lit made (NULL: it is). */
static const char *S_not_made(const struct stat *st, const S_made *m) {
  if (S_ISLNK(st->st_mode)) return "it is a symbolic link, not a file lit made";
  if (S_ISDIR(st->st_mode)) return "it is a folder, not a file lit made";
  if (!S_ISREG(st->st_mode)) return "it is a special file, not a file lit made";
  if (!m) return "the journal has no record of lit making it, and a name alone proves nothing";
  char *now = S_id_text(st, m->old);
  int same = strcmp(now, m->id) == 0;
  free(now);
  return same ? NULL
              : "it is not the file lit made under this name, or it was changed since (its device, inode, size or "
                "time differ from the journal's record)";
}

/* Whether rel holds the file lit made as `as` (rel itself, or the staged
 * copy renamed to rel: a rename keeps the device and inode), as made
 * records it: 1 it does, 0 nothing is there, -1 something else is (*why:
 * what it is, for a message). Never follows a link. hash: the content a
 * staged copy was closed with, checked too; "" if unknown (an old copy, or
 * a staged copy still being written when its run died). A made line and a
 * hash alone prove nothing: anyone can write them into a journal. */
static int S_proven_as(S_dirs *ds, const char *rel, const char *as, const S_mades *made, const char *hash,
                       const char **why) {
  const S_made *m = S_mades_find(made, as);
  struct stat st;
  int r = -1;
  *why = NULL;
  if (S_lstat(ds, rel, &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR)
      r = 0;
    else if (errno == EXDEV)
      *why = "its folder now leads outside the project through a symbolic link";
    else
      *why = "lit cannot examine it";
  } else if ((*why = S_not_made(&st, m)) == NULL) {
    if (hash[0] && !S_holds(ds, rel, hash))
      *why = "its content is not what lit staged in it";
    else
      r = 1;
  }
  return r;
}

static int S_proven(S_dirs *ds, const char *rel, const S_mades *made, const char *hash, const char **why) {
  return S_proven_as(ds, rel, rel, made, hash, why);
}

/* The note for a file a journal names that S_proven cannot vouch for:
 * it stays where it is (d may be NULL: quiet). */
static void S_kept(lit_diags *d, const char *rel, const char *as, const char *why) {
  if (d)
    lit_diag(d, LIT_WARNING, rel, 0, 0,
             "kept: the journal of a lit run names it as %s, but %s; lit removes only a file it can prove it made, "
             "so this one stays as it is: delete it if it is not yours and you do not need it",
             as, why);
}

lit_commit *lit_commit_new(const char *root, const char *journal_rel) {
  lit_commit *c = lit_xcalloc(1, sizeof *c);
  c->root = lit_xstrdup(root && root[0] ? root : ".");
  c->journal = lit_xstrdup(journal_rel);
  c->jfd = -1;
  c->fdirs.root = c->root;
  return c;
}

/* ---- the journal: written ahead of every change ---- */

/* Appends one line; 0 or an errno. The kernel keeps what was written when
 * the process dies, which is the failure this guards against. */
static int S_log(lit_commit *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int S_log(lit_commit *c, const char *fmt, ...) {
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *line = lit_xmalloc((size_t)n + 1);
  vsnprintf(line, (size_t)n + 1, fmt, again);
  va_end(again);
  int err = lit_write_all(c->jfd, line, (size_t)n);
  free(line);
  return err;
}

/* Opens the journal before the first change. Its own missing folders are
 * the changes made before it can be written down: they are written down
 * first thing after, and removed again if it cannot be opened. 0 or an
 * errno. */
static int S_journal_begin(lit_commit *c) {
  if (c->jfd >= 0) return 0;
  char **made = NULL;
  size_t nmade = 0;
  int err = 0;
  char *p = lit_xstrdup(c->journal);
  for (char *s = p + 1; *s && !err; s++) {
    if (*s != '/') continue;
    *s = '\0';
    if (!S_exists(&c->fdirs, p)) {
      /* in the folder above, resolved beneath the root: never through a link */
      const int pfd = S_parent_fd(c, p);
      if (pfd < 0 || mkdirat(pfd, S_base(p), 0777) != 0) err = errno;
      if (!err) {
        made = lit_xrealloc(made, (nmade + 1) * sizeof(char *));
        made[nmade++] = lit_xstrdup(p);
      }
    }
    *s = '/';
  }
  free(p);
  if (!err) err = lit_fault_step();
  const int jdir = err ? -1 : S_parent_fd(c, c->journal);
  if (!err && jdir < 0) err = errno;
  if (!err) {
    /* Exclusive: the recovery before this run removed any journal of a
     * dead run, so one here belongs to a run going on now. */
    c->jfd = openat(jdir, S_base(c->journal), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (c->jfd < 0) err = errno == EEXIST ? EBUSY : errno;
  }
  /* Held for the run's life and released at its death, whatever becomes of
   * its process id: a recovery that gets the lock knows the run is over.
   * (A file system without locks leaves the process id to tell.) */
  if (!err) (void)flock(c->jfd, LOCK_EX | LOCK_NB);
  if (!err) {
    c->journaled = 1;
    err = S_log(c, "lit-journal %ld\n", (long)getpid());
  }
  for (size_t i = 0; i < nmade; i++) {
    if (c->jfd >= 0) {
      c->dirs = lit_grow(c->dirs, &c->dirs_cap, c->ndirs + 1, sizeof(char *));
      c->dirs[c->ndirs++] = made[i];
      if (!err) err = S_log(c, "dir\t%s\n", made[i]);
    } else {
      S_unlink(&c->fdirs, made[nmade - 1 - i], AT_REMOVEDIR);
    }
  }
  if (c->jfd < 0)
    for (size_t i = 0; i < nmade; i++)
      free(made[i]);
  free(made);
  return err;
}

static int S_mkdir_logged(lit_commit *c, const char *rel) {
  int err = S_log(c, "dir\t%s\n", rel);
  if (!err) err = lit_fault_step();
  /* in the folder above, resolved beneath the root: never through a link */
  const int pfd = err ? -1 : S_parent_fd(c, rel);
  if (!err && pfd < 0) err = errno;
  if (!err && mkdirat(pfd, S_base(rel), 0777) != 0) err = errno;
  if (!err) {
    c->dirs = lit_grow(c->dirs, &c->dirs_cap, c->ndirs + 1, sizeof(char *));
    c->dirs[c->ndirs++] = lit_xstrdup(rel);
  }
  return err;
}

/* Makes rel's missing parent folders. 0 or an errno. Not lit_make_parents:
 * each folder made is journaled first, so an undo can remove it. */
static int S_make_parents(lit_commit *c, const char *rel) {
  char *p = lit_xstrdup(rel);
  int err = 0;
  for (char *s = p + 1; *s && !err; s++) {
    if (*s != '/') continue;
    *s = '\0';
    if (!S_exists(&c->fdirs, p)) err = S_mkdir_logged(c, p);
    *s = '/';
  }
  free(p);
  return err;
}

/* A name ".lit-KIND-PID-N" beside rel that nothing holds now, N counted on
 * from *next. The journal names it before it is made: a recovery removes
 * only what a journal names, so the name must be free when it is written
 * down, or a file someone else put there would be taken for lit's. */
static char *S_free_name(lit_commit *c, const char *rel, const char *kind, size_t *next) {
  char *dir = S_dir_of(rel);
  char *name = NULL;
  for (;;) {
    name = lit_xasprintf("%s.lit-%s-%ld-%zu", dir, kind, (long)getpid(), (*next)++);
    if (!S_exists(&c->fdirs, name)) break;
    free(name);
  }
  free(dir);
  return name;
}

/* Writes down what proves the file just made at rel (st: its status)
 * lit's: in memory first, for an undo by this process, then in the
 * journal, for one by the next (see S_made). 0 or an errno. */
static int S_note_made(lit_commit *c, const char *rel, const struct stat *st, int old) {
  char *id = S_id_text(st, old);
  S_mades_add(&c->made, lit_xstrdup(rel), id, old);
  return S_log(c, "made\t%s\t%s\n", rel, id);
}

int lit_commit_open(lit_commit *c, const char *rel, int *fd) {
  *fd = -1;
  int err = S_journal_begin(c);
  if (err) {
    c->journal_err = err;
    return err;
  }
  err = S_make_parents(c, rel);
  if (err) return err;
  /* Named after the process, not the file: a name near NAME_MAX plus a
   * suffix would be too long, and the process id tells the next run
   * whether the owner still runs. */
  char *temp = S_free_name(c, rel, "tmp", &c->ntemps);
  err = S_log(c, "temp\t%s\n", temp);
  if (!err) err = lit_fault_step();
  const int pfd = err ? -1 : S_parent_fd(c, rel);
  if (!err && pfd < 0) err = errno;
  if (!err) {
    /* Exclusive: whatever is found under the name is not lit's, and stays. */
    *fd = openat(pfd, S_base(temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (*fd < 0) err = errno;
  }
  /* Noted at once, with no step between that a test could stop: a copy
   * the journal does not prove lit's is one the next run leaves. */
  struct stat st;
  if (!err && fstat(*fd, &st) != 0) err = errno;
  if (!err) err = S_note_made(c, temp, &st, 0);
  if (err && *fd >= 0) {
    close(*fd);
    *fd = -1;
    unlinkat(pfd, S_base(temp), 0); /* made by this call, exclusively: lit's */
  }
  if (err) {
    free(temp);
    return err;
  }
  c->items = lit_grow(c->items, &c->cap, c->n + 1, sizeof(S_item));
  c->items[c->n++] = (S_item){S_NEW, lit_xstrdup(rel), temp, NULL, "", {0}, 0};
  return 0;
}

static void S_item_free(S_item *it) {
  free(it->final);
  free(it->temp);
  free(it->backup);
}

static void S_drop_last(lit_commit *c) {
  S_item *it = &c->items[--c->n];
  /* in the folder lit_commit_open made it in, held open since */
  const int pfd = S_parent_fd(c, it->temp);
  if (pfd >= 0) unlinkat(pfd, S_base(it->temp), 0);
  S_item_free(it);
}

/* The mode a staged copy gets: a file being replaced keeps the mode its
 * owner gave it (a read-only file stays read-only), with execute added
 * where it can be read if the block asks for it; a new file gets 0777 or
 * 0666 less the umask. */
static mode_t S_mode(lit_commit *c, int exec) {
  struct stat st;
  int kept = S_lstat(&c->fdirs, c->items[c->n - 1].final, &st) == 0 && S_ISREG(st.st_mode);
  if (kept) {
    mode_t m = st.st_mode & 07777;
    return exec ? m | (m & 0444) >> 2 : m;
  }
  mode_t mask = umask(0);
  umask(mask);
  return (exec ? 0777 : 0666) & ~mask;
}

int lit_commit_close(lit_commit *c, int fd, int exec, int write_err) {
  int err = write_err;
  if (!err) err = lit_fault_step();
  if (!err && fchmod(fd, S_mode(c, exec)) != 0) err = errno;
  if (!err && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  if (!err) {
    S_item *it = &c->items[c->n - 1];
    err = S_hash_at(&c->fdirs, it->temp, it->hash);
  }
  if (err) S_drop_last(c);
  return err;
}

int lit_commit_expect(lit_commit *c, const char *rel, const lit_file_id *was) {
  for (size_t i = c->n; i-- > 0;)
    if (strcmp(c->items[i].final, rel) == 0) {
      c->items[i].was = *was;
      return 0;
    }
  return ENOENT;
}

int lit_commit_expect_absent(lit_commit *c, const char *rel) {
  for (size_t i = c->n; i-- > 0;)
    if (c->items[i].kind == S_NEW && strcmp(c->items[i].final, rel) == 0) {
      c->items[i].absent = 1;
      return 0;
    }
  return ENOENT;
}

void lit_commit_remove(lit_commit *c, const char *rel) {
  c->items = lit_grow(c->items, &c->cap, c->n + 1, sizeof(S_item));
  c->items[c->n++] = (S_item){S_REMOVE, lit_xstrdup(rel), NULL, NULL, "", {0}, 0};
}

int lit_commit_journal_error(const lit_commit *c) { return c->journal_err; }

size_t lit_commit_count(const lit_commit *c) {
  size_t k = 0;
  for (size_t i = 0; i < c->n; i++)
    k += c->items[i].kind != S_REMOVE;
  return k;
}

/* ---- undoing ---- */

/* What an undo works from, borrowed: a commit's own lists, or those read
 * back from a journal. */
typedef struct {
  S_dirs *dirs;        /* the root's folders, resolved beneath it */
  const S_item *items; /* the plan as far as it goes */
  size_t n;
  int committed;      /* the plan is whole ("commit"): targets may have changed */
  char *const *temps; /* every staged copy the run named */
  size_t ntemps;
  const S_mades *made; /* what proves each one lit's */
} S_view;

/* Takes back what a replace or remove did to its target, from its old
 * copy: a link to the target that is still the old file just goes (nothing
 * is lost with it); else the old copy goes back over the target, only
 * where the target is missing or is lit's new copy, and only if it is the
 * very file lit kept (S_proven); else it stays, with a note. 0 or an
 * errno. */
static int S_put_back(const S_view *v, const S_item *it, lit_diags *d) {
  struct stat st, fs;
  int err = 0;
  if (S_lstat(v->dirs, it->backup, &st) == 0) { /* none: the step that makes it never ran */
    int present = S_lstat(v->dirs, it->final, &fs) == 0;
    const char *why;
    char *as = lit_xasprintf("the old copy of '%s'", it->final);
    if (present && fs.st_dev == st.st_dev && fs.st_ino == st.st_ino && S_ISREG(st.st_mode))
      err = S_unlink(v->dirs, it->backup, 0) != 0 ? errno : 0;
    else if (S_proven(v->dirs, it->backup, v->made, "", &why) < 0)
      S_kept(d, it->backup, as, why); /* renaming it into place would plant it where lit writes */
    else if (!present || (it->kind != S_REMOVE && S_holds(v->dirs, it->final, it->hash)))
      err = S_rename(v->dirs, it->backup, it->final) != 0 ? errno : 0;
    else if (d)
      lit_diag(d, LIT_NOTE, it->backup, 0, 0,
               "kept: the old copy of '%s', which was changed since lit wrote it; delete it if you do not need it",
               it->final);
    free(as);
  }
  return err;
}

/* Puts back what the items changed, last first, then removes the staged
 * copies. Works from what is on disk, so it serves a failed step and a
 * dead process alike; a name the run gave out is removed or renamed only
 * while it holds the file the run made there (S_proven), and anything else
 * under it stays, with a note through d (may be NULL), as does an old copy
 * that cannot go back (its target was changed since). 0, or the first
 * errno met (it still does the rest). */
static int S_undo(const S_view *v, lit_diags *d) {
  int first = 0;
  for (size_t i = v->committed ? v->n : 0; i-- > 0;) {
    const S_item *it = &v->items[i];
    int err = 0;
    if (it->kind == S_NEW) {
      /* The staged copy still there, or never made: the rename never
       * happened. Made and gone: the target is lit's new file if it is the
       * very file made (a journal in a cloned repository would otherwise
       * have the undo delete any file whose content its author knows). */
      const char *why;
      if (S_mades_find(v->made, it->temp) && !S_exists(v->dirs, it->temp)) {
        const int p = S_proven_as(v->dirs, it->final, it->temp, v->made, it->hash, &why);
        if (p > 0 && S_unlink(v->dirs, it->final, 0) != 0) err = errno;
        if (p < 0) S_kept(d, it->final, "a file it made", why);
      }
    } else if (it->backup) { /* none yet: the step that names it failed */
      err = S_put_back(v, it, d);
    }
    if (err && !first) first = err;
  }
  lit_index plan = LIT_INDEX_INIT; /* a staged copy -> its item, whose hash its content must match */
  for (size_t i = 0; i < v->n; i++)
    if (v->items[i].temp) lit_index_put(&plan, v->items[i].temp, i);
  for (size_t i = 0; i < v->ntemps; i++) {
    const char *why, *temp = v->temps[i];
    size_t at;
    const char *hash = lit_index_get(&plan, temp, strlen(temp), &at) ? v->items[at].hash : "";
    int p = S_proven(v->dirs, temp, v->made, hash, &why);
    if (p < 0) S_kept(d, temp, "a staged copy", why);
    if (p <= 0) continue;
    if (S_unlink(v->dirs, temp, 0) != 0 && errno != ENOENT && !first) first = errno;
  }
  lit_index_free(&plan);
  return first;
}

/* Removes the folders a run made, last first: after the journal, which may
 * sit in one of them. */
static void S_rmdirs(S_dirs *ds, char **dirs, size_t ndirs) {
  for (size_t i = ndirs; i-- > 0;)
    S_unlink(ds, dirs[i], AT_REMOVEDIR); /* not empty: something else was put there since; leave it */
}

/* The staged copies of a commit, as the list S_undo takes. */
static char **S_temps(const lit_commit *c, size_t *n) {
  char **t = lit_xcalloc(c->n + 1, sizeof(char *));
  *n = 0;
  for (size_t i = 0; i < c->n; i++)
    if (c->items[i].temp) t[(*n)++] = c->items[i].temp;
  return t;
}

static int S_undo_commit(lit_commit *c, lit_diags *d) {
  size_t nt;
  char **temps = S_temps(c, &nt);
  const S_view v = {&c->fdirs, c->items, c->n, 1, temps, nt, &c->made};
  int err = S_undo(&v, d);
  free(temps);
  if (c->jfd >= 0) close(c->jfd);
  c->jfd = -1;
  if (!err && c->journaled) S_unlink(&c->fdirs, c->journal, 0);
  if (!err) S_rmdirs(&c->fdirs, c->dirs, c->ndirs);
  c->done = 1;
  return err;
}

/* ---- running ---- */

static void S_report(lit_diags *d, const char *rel, const char *what, int err) {
  lit_diag(d, LIT_ERROR, rel, 0, 0, "cannot %s: %s; every file is left as it was", what, strerror(err));
}

/* Renames the staged copy temp over final, both in folder fd; where
 * final must be new (its writer found none, and the plan too), never over
 * a file made there since: renameat2's RENAME_NOREPLACE fails with EEXIST
 * instead. A file system without it (EINVAL) gets a plain rename: the
 * plan's check just before still stands. 0, or -1 and errno. */
static int S_rename_into(int fd, const char *temp, const char *final, int must_be_new) {
#ifdef RENAME_NOREPLACE
  if (must_be_new) {
    if (renameat2(fd, temp, fd, final, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
  }
#else
  (void)must_be_new;
#endif
  return renameat(fd, temp, fd, final);
}

/* Decides what each item does and writes the plan into the journal, ended
 * by "commit": from then on an undo puts back the old copies. 0, or -1
 * reported with nothing changed yet. */
static int S_plan(lit_commit *c, lit_diags *d) {
  for (size_t i = 0; i < c->n; i++) {
    S_item *it = &c->items[i];
    struct stat st;
    int exists = S_lstat(&c->fdirs, it->final, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
      /* A folder (perhaps one made for another staged file) or a link:
       * renaming over it would fail or escape; nothing has changed yet.
       * Named as what it is: a document reached through a link (a
       * stitch's target) is no "special file" to its author. */
      lit_diag(d, LIT_ERROR, it->final, 0, 0, "cannot replace this %s with a file; every file is left as it was",
               S_ISDIR(st.st_mode)   ? "folder"
               : S_ISLNK(st.st_mode) ? "symbolic link"
                                     : "special file");
      return -1;
    }
    if (it->absent && exists) {
      /* Made since its writer looked: nothing vouches that it is lit's to
       * replace (the writer would have refused it), and the old copy the
       * commit would keep goes once the run is done. */
      lit_diag(d, LIT_ERROR, it->final, 0, 0,
               "this file appeared while lit ran (saved from an editor?), where lit found none; every file is "
               "left as it was: run again to compare it");
      return -1;
    }
    if (it->kind == S_NEW && exists) it->kind = S_REPLACE;
    if (it->kind != S_NEW) it->backup = S_free_name(c, it->final, "old", &c->nolds);
  }
  int err = S_journal_begin(c);
  for (size_t i = 0; i < c->n && !err; i++) {
    const S_item *it = &c->items[i];
    if (it->kind == S_NEW) err = S_log(c, "new\t%s\t%s\t%s\n", it->temp, it->final, it->hash);
    if (it->kind == S_REPLACE) err = S_log(c, "replace\t%s\t%s\t%s\t%s\n", it->temp, it->final, it->backup, it->hash);
    if (it->kind == S_REMOVE) err = S_log(c, "remove\t%s\t%s\n", it->final, it->backup);
  }
  if (!err) err = S_log(c, "commit\n");
  if (!err) err = lit_fault_step();
  if (!err && fsync(c->jfd) != 0) err = errno;
  if (err) {
    S_report(d, c->journal, "write the journal of this run", err);
    return -1;
  }
  return 0;
}

lit_status lit_commit_run(lit_commit *c, size_t *removed, lit_diags *d) {
  if (removed) *removed = 0;
  if (c->n == 0) {
    S_undo_commit(c, d); /* folders made for copies that were then dropped */
    return LIT_OK;
  }
  if (S_plan(c, d) != 0) {
    S_undo_commit(c, d);
    return LIT_FAILED;
  }
  int err = 0, changed = 0;
  size_t failed_at = c->n;
  const char *what = NULL;
  /* Keep every old copy first: until the journal is gone, it is what an
   * undo puts back. A file system without hard links gets a rename
   * instead (the file is briefly absent; the undo is the same). */
  for (size_t i = 0; i < c->n && !err; i++) {
    S_item *it = &c->items[i];
    if (!it->backup) continue;
    /* No unlink first: a file under the name is not lit's (the name was
     * free when the plan named it), and link fails rather than replace it.
     * A folder that is gone leaves nothing to keep either (ENOENT). */
    const char *final = S_base(it->final), *backup = S_base(it->backup);
    err = lit_fault_step();
    const int pfd = err ? -1 : S_parent_fd(c, it->final);
    if (!err && pfd < 0) err = errno;
    if (!err && linkat(pfd, final, pfd, backup, 0) != 0) {
      err = errno;
      if ((err == EPERM || err == EOPNOTSUPP || err == ENOSYS || err == EMLINK) &&
          renameat(pfd, final, pfd, backup) == 0)
        err = 0;
    }
    struct stat st;
    if (err == ENOENT) {
      err = 0;                                         /* the target is gone already: there is nothing to keep */
      changed = it->was.known && it->kind != S_REMOVE; /* a file to remove that is gone loses nothing */
    } else if (!err) {
      /* the old copy's proof, noted before anything else can stop the run */
      err = fstatat(pfd, backup, &st, AT_SYMLINK_NOFOLLOW) != 0 ? errno : S_note_made(c, it->backup, &st, 1);
      /* Its old copy pins the file as it is now: saved since its writer
       * read it, it would lose that save. (Not its ctime: the link just
       * made changed that.) */
      changed = !err && it->was.known && !lit_file_id_same(&it->was, &st);
    }
    if (changed) {
      failed_at = i;
      err = -1;
    } else if (err) {
      failed_at = i;
      what = "keep the old copy of this file";
    }
  }
  for (size_t i = 0; i < c->n && !err; i++) {
    S_item *it = &c->items[i];
    /* through the folder the target's old copy or staged copy was made in
     * (a staged copy and its target share it: the rename stays atomic) */
    const char *final = S_base(it->final);
    err = lit_fault_step();
    const int pfd = err ? -1 : S_parent_fd(c, it->final);
    if (it->kind != S_REMOVE) {
      if (!err && pfd < 0) err = errno;
      if (!err && S_rename_into(pfd, S_base(it->temp), final, it->kind == S_NEW && it->absent) != 0) err = errno;
      what = "move the new content into place";
    } else {
      if (!err && pfd < 0 && errno != ENOENT) err = errno; /* no folder: the file is gone already */
      if (!err && pfd >= 0 && unlinkat(pfd, final, 0) != 0 && errno != ENOENT) err = errno;
      what = "remove this file, whose block was deleted";
    }
    if (err) failed_at = i;
  }
  if (!err) {
    /* The commit point: once "done" is written, a recovery finishes the
     * run (removes the old copies the journal names) instead of undoing
     * it. */
    err = lit_fault_step();
    if (!err) err = S_log(c, "done\n");
    if (err) {
      failed_at = c->n;
      what = "write the end of this run into its journal (the commit point)";
    }
  }
  if (changed) {
    lit_diag(d, LIT_ERROR, c->items[failed_at].final, 0, 0,
             "this file changed on disk while lit ran (saved from an editor?); every file is left as it was: "
             "run again to take both changes");
  } else if (err) {
    S_report(d, failed_at < c->n ? c->items[failed_at].final : c->journal, what, err);
  }
  if (err) {
    int undo = S_undo_commit(c, d);
    if (undo)
      lit_diag(d, LIT_ERROR, c->journal, 0, 0,
               "cannot undo the run: %s; the journal stays, and the next run tries again", strerror(undo));
    return LIT_FAILED;
  }
  c->done = 1;
  /* Synced before the old copies go: a journal that lost its "done" line
   * would have the next run undo a commit whose old copies are gone. */
  int left = fsync(c->jfd) != 0 ? errno : 0;
  const char *left_at = c->journal;
  for (size_t i = 0; i < c->n; i++) {
    S_item *it = &c->items[i];
    if (removed && it->kind == S_REMOVE) (*removed)++;
    if (!it->backup || left) continue;
    /* in the folder it was made in, which the commit holds open */
    const int pfd = S_parent_fd(c, it->backup);
    struct stat st;
    if (pfd < 0 || fstatat(pfd, S_base(it->backup), &st, AT_SYMLINK_NOFOLLOW) != 0) continue; /* gone already */
    const char *why = S_not_made(&st, S_mades_find(&c->made, it->backup));
    if (why) {
      S_kept(d, it->backup, "an old copy", why); /* replaced since this run made it */
      continue;
    }
    left = lit_fault_step();
    if (!left && unlinkat(pfd, S_base(it->backup), 0) != 0 && errno != ENOENT) left = errno;
    if (left) left_at = it->backup;
  }
  if (!left) left = lit_fault_step();
  if (!left && S_unlink(&c->fdirs, c->journal, 0) != 0) left = errno;
  /* The lock goes only after the unlink: another run that opened the
   * journal before it finds, once it has the lock, a journal no longer at
   * its path (S_journal_open), never a finished run's plan to act on. */
  close(c->jfd);
  c->jfd = -1;
  if (left)
    lit_diag(d, LIT_WARNING, left_at, 0, 0,
             "every file is in place, but the clean-up stopped here: %s; the journal stays, and the next run "
             "removes the old copies it names",
             strerror(left));
  return LIT_OK;
}

void lit_commit_free(lit_commit *c) {
  if (!c) return;
  if (!c->done) S_undo_commit(c, NULL);
  if (c->jfd >= 0) close(c->jfd);
  for (size_t i = 0; i < c->n; i++)
    S_item_free(&c->items[i]);
  free(c->items);
  for (size_t i = 0; i < c->ndirs; i++)
    free(c->dirs[i]);
  free(c->dirs);
  S_mades_free(&c->made);
  S_dirs_free(&c->fdirs);
  free(c->root);
  free(c->journal);
  free(c);
}

/* ---- recovery ---- */

static int S_alive(long pid) { return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM); }

/* Splits a journal line into at most S_MAX_FIELDS tab-separated fields,
 * in place (the last one means too many for any line). */
#define S_MAX_FIELDS 8
static size_t S_fields(char *line, char **f) {
  size_t n = 0;
  for (char *s = line; n < S_MAX_FIELDS;) {
    f[n++] = s;
    char *tab = strchr(s, '\t');
    if (!tab) break;
    *tab = '\0';
    s = tab + 1;
  }
  return n;
}

/* 32 lowercase hex digits: what lit_hash_hex writes. */
static int S_is_hash(const char *s) {
  size_t n = 0;
  for (; s[n]; n++)
    if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f'))) return 0;
  return n == LIT_HASH_HEX;
}

typedef struct {
  long pid;
  int committed; /* the plan is whole: old copies may have to be put back */
  int finished;  /* "done": every file is in place; only old copies are left to remove */
  S_item *items;
  size_t n, cap;
  char **temps, **dirs;
  size_t ntemps, temps_cap, ndirs, dirs_cap;
  S_mades made;   /* what proves each staged and old copy the run's */
  lit_index gave; /* each name the run gave out: 0 a staged copy, 1 an old copy */
} S_journal;

static void S_journal_free(S_journal *j) {
  for (size_t i = 0; i < j->n; i++)
    S_item_free(&j->items[i]);
  free(j->items);
  for (size_t i = 0; i < j->ntemps; i++)
    free(j->temps[i]);
  free(j->temps);
  for (size_t i = 0; i < j->ndirs; i++)
    free(j->dirs[i]);
  free(j->dirs);
  S_mades_free(&j->made);
  lit_index_free(&j->gave);
}

/* s is a decimal number as S_id_text writes one (neg: it may have a '-'). */
static int S_is_number(const char *s, int neg) {
  if (neg && *s == '-') s++;
  if (!*s) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/* Reads a "made" line (f: its k fields), which proves a name the journal
 * gave out before lit's: a staged copy of a "temp" line (PATH DEV INO), or,
 * after "commit", an old copy of the plan (PATH DEV INO SIZE SEC NSEC);
 * once per name. 0, or -1 if this version did not write it. */
static int S_parse_made(S_journal *j, char **f, size_t k) {
  size_t old;
  if (k < 2 || !lit_index_get(&j->gave, f[1], strlen(f[1]), &old) || S_mades_find(&j->made, f[1])) return -1;
  if (old ? !j->committed || k != 7 : k != 4) return -1;
  lit_buf id = LIT_BUF_INIT;
  for (size_t i = 2; i < k; i++) {
    if (!S_is_number(f[i], i == 5)) { /* only the time may be before 1970 */
      lit_buf_free(&id);
      return -1;
    }
    if (i > 2) lit_buf_putc(&id, '\t');
    lit_buf_put(&id, f[i], strlen(f[i]));
  }
  S_mades_add(&j->made, lit_xstrdup(f[1]), lit_buf_detach(&id), old != 0);
  return 0;
}

/* Parses a journal; 0, or -1 if this version did not write it. A last line
 * without its newline was cut short by the process's death and is dropped;
 * so is a plan without its "commit" line (no old copy was touched yet).
 * "done" comes only after "commit", and is the last line. */
static int S_journal_parse(char *text, S_journal *j) {
  char *end = strrchr(text, '\n');
  if (!end) return -1;
  end[1] = '\0';
  char *save = NULL;
  char *line = strtok_r(text, "\n", &save);
  if (!line || sscanf(line, "lit-journal %ld", &j->pid) != 1) return -1;
  while ((line = strtok_r(NULL, "\n", &save))) {
    if (j->finished) return -1;
    char *f[S_MAX_FIELDS];
    size_t k = S_fields(line, f);
    if (strcmp(f[0], "made") == 0) {
      if (S_parse_made(j, f, k) != 0) return -1;
      continue;
    }
    /* new and replace end in the new copy's hash (none from a version that
     * wrote none); every other field is a path */
    const char *hash = "";
    if ((strcmp(f[0], "new") == 0 && k == 4) || (strcmp(f[0], "replace") == 0 && k == 5)) {
      hash = f[--k];
      if (!S_is_hash(hash)) return -1;
    }
    for (size_t i = 1; i < k; i++)
      if (lit_path_check_plain(f[i])) return -1; /* an undo renames and removes what it names */
    if (strcmp(f[0], "commit") == 0 && k == 1 && !j->committed) {
      j->committed = 1;
    } else if (strcmp(f[0], "done") == 0 && k == 1) {
      if (!j->committed) return -1;
      j->finished = 1;
    } else if ((strcmp(f[0], "dir") == 0 || strcmp(f[0], "temp") == 0) && k == 2) {
      int dir = f[0][0] == 'd';
      char ***list = dir ? &j->dirs : &j->temps;
      size_t *len = dir ? &j->ndirs : &j->ntemps;
      *list = lit_grow(*list, dir ? &j->dirs_cap : &j->temps_cap, *len + 1, sizeof(char *));
      (*list)[*len] = lit_xstrdup(f[1]);
      if (!dir) lit_index_put(&j->gave, (*list)[*len], 0);
      ++*len;
    } else {
      S_item it;
      if (strcmp(f[0], "new") == 0 && k == 3)
        it = (S_item){S_NEW, lit_xstrdup(f[2]), lit_xstrdup(f[1]), NULL, "", {0}, 0};
      else if (strcmp(f[0], "replace") == 0 && k == 4)
        it = (S_item){S_REPLACE, lit_xstrdup(f[2]), lit_xstrdup(f[1]), lit_xstrdup(f[3]), "", {0}, 0};
      else if (strcmp(f[0], "remove") == 0 && k == 3)
        it = (S_item){S_REMOVE, lit_xstrdup(f[1]), NULL, lit_xstrdup(f[2]), "", {0}, 0};
      else
        return -1;
      memcpy(it.hash, hash, strlen(hash) + 1);
      if (it.backup) lit_index_put(&j->gave, it.backup, 1);
      j->items = lit_grow(j->items, &j->cap, j->n + 1, sizeof(S_item));
      j->items[j->n++] = it;
    }
  }
  return 0;
}

/* name is "<prefix><pid>-<digits>": a name this journal's run gave out. */
static int S_named_by(const char *name, const char *prefix, long pid) {
  size_t n = strlen(prefix);
  if (strncmp(name, prefix, n) != 0) return 0;
  char *end;
  long p = strtol(name + n, &end, 10);
  if (end == name + n || p != pid || *end != '-' || !end[1]) return 0;
  for (const char *s = end + 1; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/* Whether a's folder is also b's. */
static int S_same_dir(const char *a, const char *b) {
  size_t la = (size_t)(S_base(a) - a), lb = (size_t)(S_base(b) - b);
  return la == lb && strncmp(a, b, la) == 0;
}

/* dir is a folder on the way to rel ("a/b" for "a/b/c" or "a/b/"). */
static int S_on_path(const char *dir, const char *rel) {
  size_t n = strlen(dir);
  return strncmp(rel, dir, n) == 0 && rel[n] == '/';
}

/* rel is one of the project's documents, named exactly as the project
 * names it and reached through no link leading out: a stitch rewrites
 * those, and nothing else outside the output folders but the record. */
static int S_is_doc(const char *root, const char *rel, const lit_recover_opts *o) {
  for (size_t i = 0; i < o->ndocs; i++)
    if (strcmp(rel, o->docs[i]) == 0) return lit_path_check_project(root, rel) == NULL;
  return 0;
}

static int S_beside_doc(const char *rel, const lit_recover_opts *o) {
  for (size_t i = 0; i < o->ndocs; i++)
    if (S_same_dir(rel, o->docs[i])) return 1;
  return 0;
}

/* Whether a journal's path names a file the commit may have written: one
 * inside an output folder that stays there on disk, the record, or a
 * document of the project. */
static const char *S_target_invalid(const char *root, const char *rel, const lit_recover_opts *o) {
  if (o->record && strcmp(rel, o->record) == 0) return NULL;
  if (S_is_doc(root, rel, o)) return NULL;
  const char *why = lit_path_check_syntax(rel, o->dirs, o->ndirs);
  return why ? why : lit_path_check_disk(root, rel, o->dirs, o->ndirs);
}

/* A journal on disk is trusted only as far as it names what a run of this
 * project could have made: every target in an output folder (or the
 * record), every staged copy and old copy a name of the journal's own
 * process beside its target, every folder inside an output folder or on
 * the journal's own path. NULL, or what is wrong (*path: where). */
static const char *S_journal_invalid(const char *root, const char *journal_rel, const S_journal *j,
                                     const lit_recover_opts *o, const char **path) {
  for (size_t i = 0; i < j->n; i++) {
    const S_item *it = &j->items[i];
    const char *why = S_target_invalid(root, it->final, o);
    *path = it->final;
    if (why) return why;
    /* A document under any spelling (through a link to it or to its
     * folder): a stitch only replaces one, named as the project names it. */
    if (lit_path_same_as_any(root, it->final, o->docs, o->ndocs)) {
      if (it->kind != S_REPLACE) return "a document, which a stitch replaces but never makes or removes";
      if (!S_is_doc(root, it->final, o)) return "a document under another name than the project's, which no run writes";
    }
    if (it->temp && (!S_named_by(S_base(it->temp), ".lit-tmp-", j->pid) || !S_same_dir(it->temp, it->final))) {
      *path = it->temp;
      return "not a staged copy that run made beside its target";
    }
    if (it->backup && (!S_named_by(S_base(it->backup), ".lit-old-", j->pid) || !S_same_dir(it->backup, it->final))) {
      *path = it->backup;
      return "not an old copy that run kept beside its target";
    }
  }
  for (size_t i = 0; i < j->ntemps; i++) {
    *path = j->temps[i];
    if (!S_named_by(S_base(j->temps[i]), ".lit-tmp-", j->pid)) return "not a staged copy that run made";
    const char *why = S_target_invalid(root, j->temps[i], o);
    if (why && !(o->record && S_same_dir(j->temps[i], o->record)) && !S_beside_doc(j->temps[i], o)) return why;
  }
  for (size_t i = 0; i < j->ndirs; i++) {
    *path = j->dirs[i];
    /* A folder is checked as the folder of a file in it, so that it may
     * exist but must not lead outside through a link. */
    char *inside = lit_xasprintf("%s/f", j->dirs[i]);
    const char *bad = S_target_invalid(root, inside, o);
    free(inside);
    if (!S_on_path(j->dirs[i], journal_rel) && bad) {
      int below_root = 0; /* an output folder itself, or a folder above one, made by the run */
      for (size_t r = 0; r < o->ndirs; r++)
        below_root |= S_on_path(j->dirs[i], o->dirs[r]);
      if (!below_root) return "not a folder of the output folders";
    }
  }
  return NULL;
}

/* Finishes a run stopped after its "done" line: every file is in place, and
 * what is left are the old copies its journal names. Removes each that is
 * still the very file the run kept there (S_proven); anything else under
 * such a name is someone else's, and stays with a note. The caller then
 * removes the journal. Nothing is undone and no folder goes. 0, or the
 * first errno met (it still does the rest). */
static int S_finish(S_dirs *ds, const S_journal *j, lit_diags *d) {
  int first = 0;
  for (size_t i = 0; i < j->n; i++) {
    const char *rel = j->items[i].backup, *why;
    int p = rel ? S_proven(ds, rel, &j->made, "", &why) : 0;
    if (p < 0) S_kept(d, rel, "an old copy", why);
    if (p <= 0) continue;
    if (S_unlink(ds, rel, 0) != 0 && errno != ENOENT && !first) first = errno;
  }
  return first;
}

/* Whether the journal open on fd is no longer the file at rel: its run
 * removed it (the commit point, or the end of an undo) after this process
 * opened it, and a new journal there, if any, is another run's. */
static int S_gone(S_dirs *ds, const char *rel, int fd) {
  struct stat open_st, path_st;
  if (fstat(fd, &open_st) != 0 || open_st.st_nlink == 0) return 1;
  if (S_lstat(ds, rel, &path_st) != 0) return 1;
  return open_st.st_dev != path_st.st_dev || open_st.st_ino != path_st.st_ino;
}

/* The journal's text, read through a descriptor that is neither a link
 * nor anything but a regular file, with the journal's lock taken: 0 (and
 * *fd open, the caller closes it; *locked 0 where the file system has no
 * locks), ENOENT (no journal), EBUSY (its run still holds the lock), or
 * another errno; *what says which check failed. */
static int S_journal_open(S_dirs *ds, const char *rel, int *fd, int *locked, lit_buf *text, const char **what) {
  *what = NULL;
  /* through its folder, beneath the root: a journal is never read from
   * outside the project */
  const int dfd = S_dir_fd(ds, rel);
  *fd = dfd < 0 ? -1 : openat(dfd, S_base(rel), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (*fd < 0) {
    if (errno == ELOOP) *what = "it is a symbolic link, which lit never writes";
    if (errno == EXDEV) *what = "its folder leads outside the project through a symbolic link";
    return errno == ENOTDIR ? ENOENT : errno;
  }
  struct stat st;
  int err = 0;
  if (fstat(*fd, &st) != 0) {
    err = errno;
  } else if (!S_ISREG(st.st_mode)) {
    *what = "it is not a regular file";
    err = EINVAL;
  } else if (!(*locked = flock(*fd, LOCK_EX | LOCK_NB) == 0) && (errno == EWOULDBLOCK || errno == EAGAIN)) {
    err = EBUSY;
  } else if (S_gone(ds, rel, *fd)) {
    err = ENOENT; /* its run committed (or undid) while this one opened it: nothing to recover */
  } else {
    err = lit_read_fd(*fd, text);
  }
  if (err) {
    close(*fd);
    *fd = -1;
  }
  return err;
}

int lit_commit_recover(const char *root, const char *journal_rel, const lit_recover_opts *o, lit_diags *d) {
  S_dirs ds = {.root = root && root[0] ? root : "."};
  lit_buf b = LIT_BUF_INIT;
  int fd = -1, locked = 0;
  const char *what = NULL;
  int err = S_journal_open(&ds, journal_rel, &fd, &locked, &b, &what);
  int status = 0, docs_back = 0;
  const size_t warned = lit_diags_count(d, LIT_WARNING);
  if (err == EBUSY) {
    lit_diag(d, LIT_ERROR, journal_rel, 0, 0,
             "another lit is writing this project (it holds this journal); run again when it has finished");
    status = -1;
  } else if (err && err != ENOENT) {
    lit_diag(d, LIT_ERROR, journal_rel, 0, 0, "cannot read the journal of an interrupted run: %s",
             what ? what : strerror(err));
    status = -1;
  } else if (!err) {
    S_journal j;
    memset(&j, 0, sizeof j);
    const char *bad = NULL, *why = NULL;
    const int empty = b.len == 0;
    lit_buf_putc(&b, '\0'); /* a C string for the parser */
    if (empty) {
      /* A run creates its journal, then locks it: one that has only just
       * begun, or one stopped before it wrote a line (nothing to undo). */
      lit_diag(d, LIT_ERROR, journal_rel, 0, 0,
               "this journal is empty: another lit has just started, or one stopped before it changed "
               "anything; run again, and if no lit is running, delete it");
      status = -1;
    } else if (S_journal_parse(b.data, &j) != 0) {
      lit_diag(d, LIT_ERROR, journal_rel, 0, 0,
               "this is not a journal lit can undo; check the files it names, then delete it");
      status = -1;
    } else if ((why = S_journal_invalid(root, journal_rel, &j, o, &bad)) != NULL) {
      lit_diag(d, LIT_ERROR, journal_rel, 0, 0,
               "this journal names '%s' (%s): no run of this project wrote it; check the files it names, "
               "then delete it",
               bad, why);
      status = -1;
    } else if (!locked && j.pid != (long)getpid() && S_alive(j.pid)) {
      lit_diag(d, LIT_ERROR, journal_rel, 0, 0,
               "another lit (process %ld) is writing this project; run again when it has finished", j.pid);
      status = -1;
    } else if (j.finished && o->check) {
      lit_diag(d, LIT_NOTE, journal_rel, 0, 0,
               "a run (process %ld) put every file in place but was stopped before it removed its old copies; "
               "the next run removes them (--check writes nothing)",
               j.pid);
    } else if (j.finished) {
      if ((err = S_finish(&ds, &j, d)) != 0) {
        lit_diag(d, LIT_ERROR, journal_rel, 0, 0,
                 "cannot remove the old copies this journal of a finished run names: %s; the journal stays, and the "
                 "next run tries again",
                 strerror(err));
        status = -1;
      } else {
        S_unlink(&ds, journal_rel, 0);
      }
    } else if (o->check) {
      lit_diag(d, LIT_ERROR, journal_rel, 0, 0,
               "a tangle (process %ld) was interrupted: run lit tangle, which puts its files back as they "
               "were; --check writes nothing",
               j.pid);
      status = -1;
    } else if ((err = S_undo(&(S_view){&ds, j.items, j.n, j.committed, j.temps, j.ntemps, &j.made}, d)) != 0) {
      lit_diag(d, LIT_ERROR, journal_rel, 0, 0, "cannot undo the interrupted run this journal describes: %s",
               strerror(err));
      status = -1;
    } else {
      S_unlink(&ds, journal_rel, 0);
      S_rmdirs(&ds, j.dirs, j.ndirs);
      for (size_t i = 0; j.committed && i < j.n; i++)
        docs_back |= S_is_doc(root, j.items[i].final, o);
      /* a copy it could not prove lit's was kept (warned about): the tree
       * may not be wholly as it was */
      const char *how = lit_diags_count(d, LIT_WARNING) > warned
                            ? "lit put back all it could prove its own, and left the files named above as they are"
                            : "they are as they were before it";
      if (docs_back)
        lit_diag(d, LIT_NOTE, journal_rel, 0, 0,
                 "a stitch (process %ld) was interrupted while it put the documents in place: %s", j.pid, how);
      else if (j.committed)
        lit_diag(d, LIT_NOTE, journal_rel, 0, 0,
                 "a tangle (process %ld) was interrupted while it put its files in place: %s", j.pid, how);
    }
    S_journal_free(&j);
  }
  if (fd >= 0) close(fd);
  lit_buf_free(&b);
  S_dirs_free(&ds);
  return status != 0 ? status : docs_back;
}

#define _GNU_SOURCE /* renameat2, nftw */
#include "tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static int S_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

int lit_tree_remove(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
  return nftw(path, S_rm, 16, FTW_DEPTH | FTW_PHYS);
}

static int S_mkdirs(char *path) {
  for (char *s = path + 1; *s; s++) {
    if (*s != '/') continue;
    *s = '\0';
    int r = mkdir(path, 0755);
    *s = '/';
    if (r != 0 && errno != EEXIST) return -1;
  }
  return 0;
}

static int S_write(const char *path, const char *data, size_t len, int exec) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, exec ? 0755 : 0644);
  if (fd < 0) return -1;
  size_t off = 0;
  while (off < len) {
    ssize_t n = write(fd, data + off, len - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      close(fd);
      return -1;
    }
    off += (size_t)n;
  }
  return close(fd);
}

/* 1 if dir holds nothing but "." and "..". */
static int S_empty_dir(const char *dir) {
  DIR *dh = opendir(dir);
  if (!dh) return 0;
  struct dirent *e;
  int empty = 1;
  while (empty && (e = readdir(dh)))
    empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
  closedir(dh);
  return empty;
}

int lit_tree_install(const lit_tree *t, const char *dir, const char *guard, lit_diags *d) {
  size_t dl = strlen(dir);
  while (dl > 1 && dir[dl - 1] == '/')
    dl--;
  char *target = lit_xstrndup(dir, dl);
  char *stage = lit_xasprintf("%s.lit-new-%ld", target, (long)getpid());
  char *old = lit_xasprintf("%s.lit-old-%ld", target, (long)getpid());
  int status = -1;
  struct stat st;
  if (guard && lstat(target, &st) == 0 && S_ISDIR(st.st_mode) && !S_empty_dir(target)) {
    char *g = lit_xasprintf("%s/%s", target, guard);
    int ok = lstat(g, &st) == 0;
    free(g);
    if (!ok) {
      lit_diag(d, LIT_ERROR, target, 0, 0,
               "is not empty and holds no %s, so it is not an earlier output of this command: refusing to replace it",
               guard);
      free(target);
      free(stage);
      free(old);
      return -1;
    }
  }
  lit_tree_remove(stage);
  char *parents = lit_xasprintf("%s/", target);
  if (S_mkdirs(parents) != 0 && errno != EEXIST) {
    lit_diag(d, LIT_ERROR, target, 0, 0, "cannot create the folders above it: %s", strerror(errno));
    goto out;
  }
  if (mkdir(stage, 0755) != 0) {
    lit_diag(d, LIT_ERROR, stage, 0, 0, "cannot create the staging folder: %s", strerror(errno));
    goto out;
  }
  for (size_t i = 0; i < t->n; i++) {
    char *full = lit_xasprintf("%s/%s", stage, t->files[i].path);
    int r = S_mkdirs(full) == 0 ? S_write(full, t->files[i].data, t->files[i].len, t->files[i].exec) : -1;
    if (r != 0) lit_diag(d, LIT_ERROR, full, 0, 0, "cannot write: %s", strerror(errno));
    free(full);
    if (r != 0) goto out;
  }
  if (lstat(target, &st) != 0) {
    if (rename(stage, target) != 0) {
      lit_diag(d, LIT_ERROR, target, 0, 0, "cannot move the new folder into place: %s", strerror(errno));
      goto out;
    }
  } else {
    if (!S_ISDIR(st.st_mode)) {
      lit_diag(d, LIT_ERROR, target, 0, 0, "exists and is not a folder; remove it first");
      goto out;
    }
#ifdef RENAME_EXCHANGE
    if (renameat2(AT_FDCWD, stage, AT_FDCWD, target, RENAME_EXCHANGE) == 0) {
      lit_tree_remove(stage); /* now the old content */
      status = 0;
      goto out;
    }
#endif
    if (rename(target, old) != 0 || rename(stage, target) != 0) {
      int e = errno;
      if (lstat(target, &st) != 0) rename(old, target); /* put the old one back */
      lit_diag(d, LIT_ERROR, target, 0, 0, "cannot swap the new folder into place: %s", strerror(e));
      goto out;
    }
    lit_tree_remove(old);
  }
  status = 0;
out:
  if (status) lit_tree_remove(stage);
  free(parents);
  free(target);
  free(stage);
  free(old);
  return status;
}

static int S_read_dir(lit_tree *t, const char *root, const char *rel, lit_diags *d) {
  char *full = rel[0] ? lit_xasprintf("%s/%s", root, rel) : lit_xstrdup(root);
  DIR *dh = opendir(full);
  if (!dh) {
    lit_diag(d, LIT_ERROR, full, 0, 0, "cannot read this folder: %s", strerror(errno));
    free(full);
    return -1;
  }
  int status = 0;
  struct dirent *e;
  while ((e = readdir(dh)) && status == 0) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char *sub = rel[0] ? lit_xasprintf("%s/%s", rel, e->d_name) : lit_xstrdup(e->d_name);
    char *path = lit_xasprintf("%s/%s", root, sub);
    struct stat st;
    if (lstat(path, &st) != 0) {
      lit_diag(d, LIT_ERROR, path, 0, 0, "cannot stat: %s", strerror(errno));
      status = -1;
    } else if (S_ISDIR(st.st_mode)) {
      status = S_read_dir(t, root, sub, d);
    } else if (S_ISREG(st.st_mode)) {
      lit_buf b = LIT_BUF_INIT;
      int err = lit_read_file(path, &b);
      if (err) {
        lit_diag(d, LIT_ERROR, path, 0, 0, "cannot read: %s", strerror(err));
        lit_buf_free(&b);
        status = -1;
      } else {
        size_t len = b.len;
        lit_tree_add(t, sub, lit_buf_detach(&b), len);
        t->files[t->n - 1].exec = (st.st_mode & 0100) != 0;
      }
    }
    free(sub);
    free(path);
  }
  closedir(dh);
  free(full);
  return status;
}

int lit_tree_read(lit_tree *t, const char *dir, lit_diags *d) { return S_read_dir(t, dir, "", d); }

size_t lit_tree_compare(const lit_tree *t, const char *dir, lit_diags *d) {
  lit_tree disk = LIT_TREE_INIT, want = LIT_TREE_INIT;
  struct stat st;
  size_t diffs = 0;
  if (stat(dir, &st) == 0) lit_tree_read(&disk, dir, d);
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

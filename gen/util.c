#define _POSIX_C_SOURCE 200809L
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void S_out_of_memory(void) {
  fputs("lit: out of memory\n", stderr);
  abort();
}

void *lit_xmalloc(size_t size) {
  void *p = malloc(size ? size : 1);
  if (!p) S_out_of_memory();
  return p;
}

void *lit_xcalloc(size_t count, size_t size) {
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (!p) S_out_of_memory();
  return p;
}

void *lit_xrealloc(void *ptr, size_t size) {
  void *p = realloc(ptr, size ? size : 1);
  if (!p) S_out_of_memory();
  return p;
}

char *lit_xstrdup(const char *s) { return lit_xstrndup(s, strlen(s)); }

char *lit_xstrndup(const char *s, size_t len) {
  char *p = lit_xmalloc(len + 1);
  memcpy(p, s, len);
  p[len] = '\0';
  return p;
}

char *lit_xasprintf(const char *fmt, ...) {
  lit_buf b = LIT_BUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) S_out_of_memory();
  lit_buf_reserve(&b, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(b.data, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b.len = (size_t)n;
  return lit_buf_detach(&b);
}

void *lit_grow(void *ptr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return ptr;
  size_t n = *cap ? *cap : 8;
  while (n < need) {
    if (n > ((size_t)-1) / 2 / elem) S_out_of_memory();
    n *= 2;
  }
  *cap = n;
  return lit_xrealloc(ptr, n * elem);
}

void lit_buf_reserve(lit_buf *b, size_t extra) {
  if (b->len + extra + 1 > b->cap) b->data = lit_grow(b->data, &b->cap, b->len + extra + 1, 1);
}

void lit_buf_put(lit_buf *b, const char *s, size_t len) {
  lit_buf_reserve(b, len);
  if (len) memcpy(b->data + b->len, s, len);
  b->len += len;
  b->data[b->len] = '\0';
}

void lit_buf_puts(lit_buf *b, const char *s) { lit_buf_put(b, s, strlen(s)); }

void lit_buf_putc(lit_buf *b, char c) { lit_buf_put(b, &c, 1); }

void lit_buf_printf(lit_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  lit_buf_reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void lit_buf_truncate(lit_buf *b, size_t len) {
  if (len < b->len) {
    b->len = len;
    b->data[len] = '\0';
  }
}

char *lit_buf_detach(lit_buf *b) {
  char *p = b->data ? b->data : lit_xstrdup("");
  b->data = NULL;
  b->len = b->cap = 0;
  return p;
}

void lit_buf_free(lit_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

size_t lit_utf8_len(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  size_t len;
  unsigned lo = 0x80, hi = 0xBF; /* the second byte's range */
  if (c >= 0xC2 && c <= 0xDF)
    len = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else
    return 0;
  if (n < len || s[1] < lo || s[1] > hi) return 0;
  for (size_t k = 2; k < len; k++)
    if ((s[k] & 0xC0) != 0x80) return 0;
  return len;
}

static size_t S_hash(const char *s, size_t len) {
  size_t h = (size_t)1469598103934665603ULL;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * (size_t)1099511628211ULL;
  return h;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t S_slot(const lit_index *x, const char *key, size_t len) {
  size_t mask = x->cap - 1;
  for (size_t i = S_hash(key, len) & mask;; i = (i + 1) & mask) {
    const char *k = x->keys[i];
    if (!k) return i;
    size_t j = 0;
    while (j < len && k[j] && k[j] == key[j])
      j++;
    if (j == len && k[len] == '\0') return i;
  }
}

void lit_index_put(lit_index *x, const char *key, size_t val) {
  if ((x->len + 1) * 2 > x->cap) {
    lit_index old = *x;
    x->cap = old.cap ? old.cap * 2 : 64;
    x->keys = lit_xcalloc(x->cap, sizeof(char *));
    x->vals = lit_xcalloc(x->cap, sizeof(size_t));
    for (size_t i = 0; i < old.cap; i++)
      if (old.keys[i]) {
        size_t j = S_slot(x, old.keys[i], strlen(old.keys[i]));
        x->keys[j] = old.keys[i];
        x->vals[j] = old.vals[i];
      }
    free(old.keys);
    free(old.vals);
  }
  size_t i = S_slot(x, key, strlen(key));
  if (!x->keys[i]) x->len++;
  x->keys[i] = key;
  x->vals[i] = val;
}

int lit_index_get(const lit_index *x, const char *key, size_t len, size_t *val) {
  if (!x->cap) return 0;
  size_t i = S_slot(x, key, len);
  if (!x->keys[i]) return 0;
  if (val) *val = x->vals[i];
  return 1;
}

void lit_index_free(lit_index *x) {
  free(x->keys);
  free(x->vals);
  memset(x, 0, sizeof *x);
}

size_t lit_edit_distance(const char *a, size_t la, const char *b, size_t lb, size_t cap) {
  if (la > lb + cap || lb > la + cap) return cap + 1;
  size_t small[128];
  size_t *row = lb < 128 ? small : lit_xmalloc((lb + 1) * sizeof(size_t));
  size_t r = cap + 1;
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0], best = row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t v = diag + (a[i - 1] != b[j - 1]);
      if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
      if (up + 1 < v) v = up + 1;
      row[j] = v;
      diag = up;
      if (v < best) best = v;
    }
    if (best > cap) goto done;
  }
  r = row[lb];
done:
  if (row != small) free(row);
  return r;
}

const char *lit_nearest(const char *word, const char *const *names, size_t n) {
  const char *best = NULL;
  size_t len = strlen(word), best_d = len / 3 + 2;
  for (size_t i = 0; i < n; i++) {
    if (!names[i]) continue;
    size_t dist = lit_edit_distance(word, len, names[i], strlen(names[i]), best_d);
    if (dist < best_d || (dist == best_d && !best && dist <= 2)) {
      best_d = dist;
      best = names[i];
    }
  }
  return best;
}

FILE *lit_open_regular(const char *path, struct stat *st, int *err) {
  /* Opened without blocking, then checked: a FIFO or a device in the
   * project would otherwise hang the open or the read, or never end it. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *err = errno;
    return NULL;
  }
  int bad = fstat(fd, st) != 0 ? errno : S_ISDIR(st->st_mode) ? EISDIR : !S_ISREG(st->st_mode) ? LIT_ENOTREG : 0;
  FILE *f = bad ? NULL : fdopen(fd, "rb");
  if (!f) {
    *err = bad ? bad : errno;
    close(fd);
  }
  return f;
}

void lit_file_id_of(const struct stat *st, lit_file_id *id) {
  id->dev = (unsigned long long)st->st_dev;
  id->ino = (unsigned long long)st->st_ino;
  id->size = (long long)st->st_size;
  id->mtime_sec = (long long)st->st_mtim.tv_sec;
  id->mtime_nsec = (long long)st->st_mtim.tv_nsec;
  id->known = 1;
}

int lit_file_id_same(const lit_file_id *id, const struct stat *st) {
  lit_file_id now;
  lit_file_id_of(st, &now);
  return id->known && now.dev == id->dev && now.ino == id->ino && now.size == id->size &&
         now.mtime_sec == id->mtime_sec && now.mtime_nsec == id->mtime_nsec;
}

int lit_read_file(const char *path, lit_buf *out) { return lit_read_file_id(path, out, NULL); }

int lit_read_fd(int fd, lit_buf *out) {
  char chunk[65536];
  for (;;) {
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n == 0) return 0;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    lit_buf_put(out, chunk, (size_t)n);
  }
}

int lit_read_file_id(const char *path, lit_buf *out, lit_file_id *id) {
  struct stat st;
  int bad = 0;
  if (id) memset(id, 0, sizeof *id);
  FILE *f = lit_open_regular(path, &st, &bad);
  if (!f) return bad;
  if (id) lit_file_id_of(&st, id);
  /* One allocation of the file's size, then one read: large documents are
   * read at memory speed without regrowing the buffer. */
  if (st.st_size > 0) {
    /* Exactly: the bytes, the NUL, and one spare byte so the read that
     * meets the end of the file needs no growth (lit_buf_reserve rounds up
     * to a power of two, up to twice the input). */
    size_t want = out->len + (size_t)st.st_size + 2;
    if (want > out->cap) {
      out->data = lit_xrealloc(out->data, want);
      out->cap = want;
    }
  }
  size_t n;
  for (;;) {
    if (out->cap - out->len < 2) lit_buf_reserve(out, 65536);
    n = fread(out->data + out->len, 1, out->cap - out->len - 1, f);
    if (n == 0) break;
    out->len += n;
  }
  int err = ferror(f) ? (errno ? errno : EIO) : 0;
  fclose(f);
  lit_buf_reserve(out, 0);
  out->data[out->len] = '\0';
  return err;
}

int lit_write_all(int fd, const char *data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

int lit_make_parents(const char *path) {
  char *p = lit_xstrdup(path);
  int err = 0;
  for (char *s = p + 1; *s && !err; s++) {
    if (*s != '/') continue;
    *s = '\0';
    if (mkdir(p, 0755) != 0 && errno != EEXIST) err = errno;
    *s = '/';
  }
  free(p);
  return err;
}

double lit_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *lit_strerror(int err) {
  return err == LIT_ENOTREG ? "it is not a regular file (a FIFO, a device or a socket), which lit never reads"
                            : strerror(err);
}

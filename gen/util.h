/* util.h: allocation that never returns NULL, and a growable byte buffer.
 *
 * Allocation failure aborts here, in one place, so no other module checks
 * for NULL (cmark does the same). Every lit_buf owns its bytes: the caller
 * that made it calls lit_buf_free, or takes the bytes with lit_buf_detach
 * and frees them with free(). */
#ifndef LIT_UTIL_H
#define LIT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

void *lit_xmalloc(size_t size);
void *lit_xcalloc(size_t count, size_t size);
void *lit_xrealloc(void *ptr, size_t size);
/* Copies; the caller frees the result. */
char *lit_xstrdup(const char *s);
char *lit_xstrndup(const char *s, size_t len);
/* printf into fresh memory; the caller frees the result. */
char *lit_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grows an array of `*cap` elements of `elem` bytes to hold `need`. */
void *lit_grow(void *ptr, size_t *cap, size_t need, size_t elem);

typedef struct {
  char *data; /* always NUL-terminated when len > 0 or after any append */
  size_t len;
  size_t cap;
} lit_buf;

#define LIT_BUF_INIT                                                                                                   \
  { NULL, 0, 0 }

void lit_buf_reserve(lit_buf *b, size_t extra);
void lit_buf_put(lit_buf *b, const char *s, size_t len);
void lit_buf_puts(lit_buf *b, const char *s);
void lit_buf_putc(lit_buf *b, char c);
void lit_buf_printf(lit_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lit_buf_truncate(lit_buf *b, size_t len);
/* Returns the bytes (NUL-terminated, never NULL); the caller frees them. */
char *lit_buf_detach(lit_buf *b);
void lit_buf_free(lit_buf *b);

/* Length of the valid UTF-8 sequence at s[0..n) (n > 0), or 0 if it is
 * not one (overlong forms, surrogates and code points past U+10FFFF
 * included): the reader's encoding check and the messages' escaping. */
size_t lit_utf8_len(const unsigned char *s, size_t n);

/* A string -> number map (open addressing, FNV-1a), the one hash table of
 * gen/: chunk names, file paths, record entries, pages, heading anchors,
 * highlighter keywords. The number is usually a position in the owner's
 * array. Keys are borrowed: the
 * caller keeps each key's string alive and unchanged while it is in the map.
 * Zero-initialise (LIT_INDEX_INIT); lit_index_free releases the table. */
typedef struct {
  const char **keys;
  size_t *vals;
  size_t cap, len;
} lit_index;

#define LIT_INDEX_INIT                                                                                                 \
  { NULL, NULL, 0, 0 }

/* Adds key, or gives an existing key a new value. */
void lit_index_put(lit_index *x, const char *key, size_t val);
/* 1 and *val if the first len bytes of key are in the map, else 0. */
int lit_index_get(const lit_index *x, const char *key, size_t len, size_t *val);
void lit_index_free(lit_index *x);

/* Levenshtein distance between a[0..la) and b[0..lb), or cap + 1 when it
 * is over cap (found without finishing the table): for suggestions. */
size_t lit_edit_distance(const char *a, size_t la, const char *b, size_t lb, size_t cap);
/* The nearest of names[0..n) to word (NULL entries skipped), if it is near
 * enough to be a typo of it; else NULL. Borrows from names. */
const char *lit_nearest(const char *word, const char *const *names, size_t n);

/* Reads a whole regular file into *out (owned by the caller). Returns 0,
 * an errno, or LIT_ENOTREG for a FIFO, device or socket (never waited on). */
int lit_read_file(const char *path, lit_buf *out);
/* Appends what is left to read from fd to *out (the caller closes fd).
 * 0, or an errno. */
int lit_read_fd(int fd, lit_buf *out);

/* Which file a text was read from, and as it was then: its device and
 * inode, size and modification time. A file saved since (in place, or
 * as a new file renamed over it) differs in one of them. known is 0 for a
 * text that was not read from a file. */
typedef struct {
  unsigned long long dev, ino;
  long long size, mtime_sec, mtime_nsec;
  int known;
} lit_file_id;
/* lit_read_file, and the file's identity when it was opened. */
int lit_read_file_id(const char *path, lit_buf *out, lit_file_id *id);
/* Whether st (an lstat or fstat) is the file id describes, unchanged. */
struct stat;
/* The identity of the file st (an lstat or fstat) describes, as it is now. */
void lit_file_id_of(const struct stat *st, lit_file_id *id);
int lit_file_id_same(const lit_file_id *id, const struct stat *st);
/* Opens a regular file for reading (the caller fcloses it), its status in
 * *st; NULL with *err an errno, EISDIR, or LIT_ENOTREG for a FIFO, device
 * or socket, which is never waited on. */
struct stat;
FILE *lit_open_regular(const char *path, struct stat *st, int *err);
enum { LIT_ENOTREG = 100000 }; /* beyond every errno */
/* strerror, and a sentence for LIT_ENOTREG. A static string. */
const char *lit_strerror(int err);
/* Seconds on the monotonic clock, for LIT_TIMINGS reports. */
double lit_now(void);
/* Writes all len bytes to fd, across short writes and EINTR. 0, or an errno. */
int lit_write_all(int fd, const char *data, size_t len);
/* mkdir -p for the folders above the last '/' of path (the file's parents;
 * a folder that exists is fine). 0, or an errno. */
int lit_make_parents(const char *path);

#endif

#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

static const char S_header[] =
    "# Files written by `lit tangle` and the XXH3-128 hash of the content it wrote.\n"
    "# Generated: do not edit. It lets lit spot hand edits and remove files whose block was deleted.\n";

static int S_hex(const char *s) {
  for (int i = 0; i < LIT_HASH_HEX; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return 0;
  return 1;
}

/* A recorded path is one lit could have written: relative, no '.', '..' or
 * empty parts. Anything else is refused, since orphan removal deletes what
 * the record names. */
static int S_path_ok(const char *p, size_t len) {
  if (len == 0 || p[0] == '/' || p[0] == ' ') return 0;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && p[i] != '/') {
      if (p[i] == '\0' || p[i] == '\\') return 0;
      continue;
    }
    size_t part = i - start;
    if (part == 0 || (part == 1 && p[start] == '.') || (part == 2 && p[start] == '.' && p[start + 1] == '.')) return 0;
    start = i + 1;
  }
  return 1;
}

/* The entry for path, added (hash and line unset) if it is new. */
static lit_record_entry *S_entry(lit_record *rec, const char *path) {
  size_t i;
  if (lit_index_get(&rec->index, path, strlen(path), &i)) return &rec->items[i];
  rec->items = lit_grow(rec->items, &rec->cap, rec->len + 1, sizeof(lit_record_entry));
  lit_record_entry *e = &rec->items[rec->len];
  e->path = lit_xstrdup(path);
  lit_index_put(&rec->index, e->path, rec->len++);
  return e;
}

int lit_record_parse(lit_record *rec, const char *name, const char *text, size_t len, lit_diags *d) {
  memset(rec, 0, sizeof *rec);
  int line = 0, bad = 0;
  const char *p = text, *end = text + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t l = (size_t)((nl ? nl : end) - p);
    line++;
    if (l > 0 && l >= 1 && p[l - 1] == '\r') l--;
    if (l == 0 || p[0] == '#') {
      p = nl ? nl + 1 : end;
      continue;
    }
    if (l < LIT_HASH_HEX + 2 || p[LIT_HASH_HEX] != ' ' || !S_hex(p) ||
        !S_path_ok(p + LIT_HASH_HEX + 1, l - LIT_HASH_HEX - 1)) {
      lit_diag(d, LIT_ERROR, name, line, 1,
               "malformed record line (expected '<hash> <path>'); restore the file from git or delete it");
      bad = 1;
    } else {
      char *path = lit_xstrndup(p + LIT_HASH_HEX + 1, l - LIT_HASH_HEX - 1);
      lit_record_entry *e = S_entry(rec, path);
      memcpy(e->hash, p, LIT_HASH_HEX);
      e->hash[LIT_HASH_HEX] = '\0';
      e->line = line; /* a message about this entry points here */
      free(path);
    }
    p = nl ? nl + 1 : end;
  }
  /* A file with no entry is lit's only if it starts as lit writes it: an
   * empty or comment-only file someone else owns would be overwritten. */
  size_t first = strcspn(S_header, "\n");
  if (!bad && rec->len == 0 && (len < first || memcmp(text, S_header, first) != 0)) {
    lit_diag(d, LIT_ERROR, name, 1, 1,
             "this file is not a tangle record (it lists no file and does not start with lit's header), "
             "and lit would overwrite it: set tangle-record to another file, or move this one away");
    bad = 1;
  }
  return bad ? -1 : 0;
}

int lit_record_read(lit_record *rec, const char *root, const char *relpath, lit_diags *d) {
  memset(rec, 0, sizeof *rec);
  char *full = lit_path_join(root, relpath);
  lit_buf b = LIT_BUF_INIT;
  int err = lit_read_file(full, &b);
  free(full);
  if (err == ENOENT) {
    lit_buf_free(&b);
    return 0;
  }
  if (err) {
    lit_diag(d, LIT_ERROR, relpath, 0, 0, "cannot read the tangle record: %s", lit_strerror(err));
    lit_buf_free(&b);
    return -1;
  }
  int r = lit_record_parse(rec, relpath, b.data ? b.data : "", b.len, d);
  lit_buf_free(&b);
  return r;
}

void lit_record_free(lit_record *rec) {
  for (size_t i = 0; i < rec->len; i++)
    free(rec->items[i].path);
  free(rec->items);
  lit_index_free(&rec->index);
  memset(rec, 0, sizeof *rec);
}

const lit_record_entry *lit_record_find(const lit_record *rec, const char *path) {
  size_t i;
  return lit_index_get(&rec->index, path, strlen(path), &i) ? &rec->items[i] : NULL;
}

void lit_record_set(lit_record *rec, const char *path, const char hash[LIT_HASH_HEX + 1]) {
  lit_record_entry *e = S_entry(rec, path);
  memcpy(e->hash, hash, LIT_HASH_HEX + 1);
  e->line = 0;
}

static int S_cmp(const void *a, const void *b) {
  return strcmp(((const lit_record_entry *)a)->path, ((const lit_record_entry *)b)->path);
}

void lit_record_format(const lit_record *rec, lit_buf *out) {
  lit_record_entry *sorted = lit_xmalloc((rec->len ? rec->len : 1) * sizeof *sorted);
  if (rec->len) memcpy(sorted, rec->items, rec->len * sizeof *sorted);
  qsort(sorted, rec->len, sizeof *sorted, S_cmp);
  lit_buf_puts(out, S_header);
  for (size_t i = 0; i < rec->len; i++)
    lit_buf_printf(out, "%s %s\n", sorted[i].hash, sorted[i].path);
  free(sorted);
}

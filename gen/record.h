/* record.h: the committed record of what the tangler generated.
 *
 * One line per generated file, sorted by path:
 *
 *   <XXH3-128 of the content, 32 hex digits> <path>
 *
 * With it the tangler can tell a file it wrote (hash matches) from one edited
 * by hand since (hash differs), and remove a file whose block was deleted
 * from the documents only when nobody has touched it. A record owns its
 * strings; lit_record_free releases them. */
#ifndef LIT_RECORD_H
#define LIT_RECORD_H

#include <stddef.h>

#include "diag.h"
#include "hash.h"
#include "util.h"

typedef struct {
  char *path;
  char hash[LIT_HASH_HEX + 1];
  int line; /* its line in the record file read, for messages; 0 if this run set it */
} lit_record_entry;

typedef struct {
  lit_record_entry *items;
  size_t len, cap;
  lit_index index; /* path -> position in items (private to record.c) */
} lit_record;

/* Reads root/relpath into rec (empty if the file does not exist). Returns 0,
 * or -1 after reporting a malformed or unreadable record through d. */
int lit_record_read(lit_record *rec, const char *root, const char *relpath, lit_diags *d);
/* Parses record text (for tests); same contract. */
int lit_record_parse(lit_record *rec, const char *name, const char *text, size_t len, lit_diags *d);
void lit_record_free(lit_record *rec);
const lit_record_entry *lit_record_find(const lit_record *rec, const char *path);
void lit_record_set(lit_record *rec, const char *path, const char hash[LIT_HASH_HEX + 1]);
/* Sorted text of the record. */
void lit_record_format(const lit_record *rec, lit_buf *out);

#endif

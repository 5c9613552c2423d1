/* hash.h: the content hash the tangle record stores for each file.
 *
 * XXH3-128 (Debian's libxxhash): the record only has to tell "the bytes lit
 * wrote" from "bytes someone changed", with no adversary, and it must not
 * dominate a 50 MB tangle; a 128-bit non-cryptographic hash does both at
 * memory speed, where SHA-256 took 70% of the run. */
#ifndef LIT_HASH_H
#define LIT_HASH_H

#include <stddef.h>

#include "util.h" /* lit_file_id */

#define LIT_HASH_HEX 32

/* Writes LIT_HASH_HEX lowercase hex digits and a NUL into hex. */
void lit_hash_hex(const void *data, size_t len, char hex[LIT_HASH_HEX + 1]);

/* Streaming form, for files too large to hold: new, update..., finish. */
typedef struct lit_hasher lit_hasher;
/* The caller frees the result with lit_hasher_finish. */
lit_hasher *lit_hasher_new(void);
void lit_hasher_update(lit_hasher *h, const void *data, size_t len);
/* Writes the digest like lit_hash_hex and frees h. */
void lit_hasher_finish(lit_hasher *h, char hex[LIT_HASH_HEX + 1]);
/* Hashes a whole file; returns 0, an errno, or LIT_ENOTREG for a FIFO, a
 * device or a socket (never waited on). */
int lit_hash_file(const char *path, char hex[LIT_HASH_HEX + 1]);
/* The same, and the file's identity when it was opened into *id (NULL:
 * not wanted; unknown when it cannot be opened): what lit_commit_expect
 * holds the file to when the commit replaces or removes it. */
int lit_hash_file_id(const char *path, char hex[LIT_HASH_HEX + 1], lit_file_id *id);
/* Hashes what is left to read on fd (the caller's: it stays open); returns 0
 * or an errno. */
int lit_hash_fd(int fd, char hex[LIT_HASH_HEX + 1]);

#endif

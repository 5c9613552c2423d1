#include "hash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "util.h"

struct lit_hasher {
  XXH3_state_t *state;
};

static void S_hex(XXH128_hash_t h, char hex[LIT_HASH_HEX + 1]) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, h);
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 16; i++) {
    hex[2 * i] = digits[c.digest[i] >> 4];
    hex[2 * i + 1] = digits[c.digest[i] & 15];
  }
  hex[LIT_HASH_HEX] = '\0';
}

void lit_hash_hex(const void *data, size_t len, char hex[LIT_HASH_HEX + 1]) { S_hex(XXH3_128bits(data, len), hex); }

lit_hasher *lit_hasher_new(void) {
  lit_hasher *h = lit_xmalloc(sizeof *h);
  h->state = XXH3_createState();
  if (!h->state) abort(); /* out of memory, as lit_xmalloc would */
  XXH3_128bits_reset(h->state);
  return h;
}

void lit_hasher_update(lit_hasher *h, const void *data, size_t len) { XXH3_128bits_update(h->state, data, len); }

void lit_hasher_finish(lit_hasher *h, char hex[LIT_HASH_HEX + 1]) {
  S_hex(XXH3_128bits_digest(h->state), hex);
  XXH3_freeState(h->state);
  free(h);
}

int lit_hash_fd(int fd, char hex[LIT_HASH_HEX + 1]) {
  lit_hasher *h = lit_hasher_new();
  char *chunk = lit_xmalloc(1 << 20);
  int err = 0;
  for (;;) {
    ssize_t n = read(fd, chunk, 1 << 20);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = errno;
    if (n <= 0) break;
    lit_hasher_update(h, chunk, (size_t)n);
  }
  free(chunk);
  lit_hasher_finish(h, hex);
  return err;
}

int lit_hash_file(const char *path, char hex[LIT_HASH_HEX + 1]) { return lit_hash_file_id(path, hex, NULL); }

int lit_hash_file_id(const char *path, char hex[LIT_HASH_HEX + 1], lit_file_id *id) {
  struct stat st;
  int open_err = 0;
  if (id) memset(id, 0, sizeof *id);
  FILE *f = lit_open_regular(path, &st, &open_err); /* a FIFO would wait for a writer */
  if (!f) return open_err;
  if (id) lit_file_id_of(&st, id);       /* as opened: a save while it is read changes the time */
  int err = lit_hash_fd(fileno(f), hex); /* nothing read through f yet: its buffer is empty */
  fclose(f);
  return err;
}

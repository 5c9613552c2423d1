#include "hash.h"

#include <xxhash.h>

void lit_hash_hex(const void *data, size_t len, char hex[LIT_HASH_HEX + 1]) {
  XXH128_canonical_t c;
  XXH128_canonicalFromHash(&c, XXH3_128bits(data, len));
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 16; i++) {
    hex[2 * i] = digits[c.digest[i] >> 4];
    hex[2 * i + 1] = digits[c.digest[i] & 15];
  }
  hex[LIT_HASH_HEX] = '\0';
}

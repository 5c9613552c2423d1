/* sha256.h: SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits.
 * The tangle record names each generated file's content by it. */
#ifndef LIT_SHA256_H
#define LIT_SHA256_H

#include <stddef.h>

/* Writes 64 hex digits and a NUL into hex[65]. */
void lit_sha256_hex(const void *data, size_t len, char hex[65]);

#endif

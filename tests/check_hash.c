/* check_hash.c: the record's content hash (XXH3-128, canonical hex). The
 * vectors come from libxxhash itself, called from Python through ctypes. */
#include "check_lit.h"

#include <errno.h>

#include "hash.h"

static char S_a1000[1001];
static unsigned char S_bytes1280[1280];

static void S_fill(void) {
  memset(S_a1000, 'a', 1000);
  for (int i = 0; i < 1280; i++) S_bytes1280[i] = (unsigned char)(i % 256);
}

static const struct {
  int which; /* 0: "", 1: "abc", 2: 1000 x 'a', 3: bytes 0..255 five times */
  const char *want;
} S_vectors[] = {
    {0, "99aa06d3014798d86001c324468d497f"},
    {1, "06b05ab6733a618578af5f94892f3950"},
    {2, "b01da365eddaa29cb3e7af627147db7c"},
    {3, "d92ab3a1cb0542a74844b009e164352e"},
};

static const void *S_data(int which, size_t *len) {
  S_fill();
  switch (which) {
  case 0: *len = 0; return "";
  case 1: *len = 3; return "abc";
  case 2: *len = 1000; return S_a1000;
  default: *len = 1280; return S_bytes1280;
  }
}

START_TEST(test_vectors) {
  size_t len;
  const void *data = S_data(S_vectors[_i].which, &len);
  char hex[LIT_HASH_HEX + 1];
  lit_hash_hex(data, len, hex);
  ck_assert_str_eq(hex, S_vectors[_i].want);
}
END_TEST

/* The streaming form gives the one-shot digest wherever the input is cut. */
START_TEST(test_streaming_matches) {
  size_t len;
  const unsigned char *data = S_data(3, &len);
  size_t cuts[] = {0, 1, 63, 64, 65, 240, 241, 1279, 1280};
  size_t cut = cuts[_i];
  lit_hasher *h = lit_hasher_new();
  lit_hasher_update(h, data, cut);
  lit_hasher_update(h, data + cut, len - cut);
  char hex[LIT_HASH_HEX + 1];
  lit_hasher_finish(h, hex);
  ck_assert_str_eq(hex, S_vectors[3].want);
}
END_TEST

START_TEST(test_hash_file) {
  char *dir = ck_tempdir();
  ck_write(dir, "f", "abc");
  char *path = lit_xasprintf("%s/f", dir);
  char hex[LIT_HASH_HEX + 1];
  ck_assert_int_eq(lit_hash_file(path, hex), 0);
  ck_assert_str_eq(hex, S_vectors[1].want);
  char *missing = lit_xasprintf("%s/none", dir);
  ck_assert_int_eq(lit_hash_file(missing, hex), ENOENT);
  free(path);
  free(missing);
  ck_rmtree(dir);
}
END_TEST

START_TEST(test_one_bit_changes_digest) {
  char a[LIT_HASH_HEX + 1], b[LIT_HASH_HEX + 1];
  lit_hash_hex("int a;\n", 7, a);
  lit_hash_hex("int b;\n", 7, b);
  ck_assert_str_ne(a, b);
  ck_assert_uint_eq(strlen(a), LIT_HASH_HEX);
  ck_assert_uint_eq(strspn(a, "0123456789abcdef"), LIT_HASH_HEX);
}
END_TEST

Suite *hash_suite(void) {
  Suite *s = suite_create("hash");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_vectors, 0, sizeof S_vectors / sizeof S_vectors[0]);
  tcase_add_loop_test(tc, test_streaming_matches, 0, 9);
  tcase_add_test(tc, test_hash_file);
  tcase_add_test(tc, test_one_bit_changes_digest);
  suite_add_tcase(s, tc);
  return s;
}

/* check_lang.c: the one language table: untagged-block rule, highlight
 * family, and a generated file's comment. */
#include "check_lit.h"

#include "lang.h"

static const struct {
  const char *lang;
  int needs;
  lit_lang family;
} S_langs[] = {{"cuda", 1, LIT_LANG_C},      {"c", 1, LIT_LANG_C},           {"cpp", 1, LIT_LANG_C},
               {"c++", 1, LIT_LANG_C},       {"python", 1, LIT_LANG_PYTHON}, {"py", 1, LIT_LANG_PYTHON},
               {"toml", 1, LIT_LANG_TOML},   {"h", 1, LIT_LANG_C},           {"sh", 0, LIT_LANG_SHELL},
               {"text", 0, LIT_LANG_OTHER},  {"console", 0, LIT_LANG_SHELL}, {"json", 0, LIT_LANG_OTHER},
               {"lua", 0, LIT_LANG_OTHER},   {"CUDA", 0, LIT_LANG_OTHER},    {"", 0, LIT_LANG_OTHER},
               {"cudax", 0, LIT_LANG_OTHER}, {NULL, 0, LIT_LANG_OTHER}};

START_TEST(test_lang) {
  const char *name = S_langs[_i].lang ? S_langs[_i].lang : "(null)";
  ck_assert_msg(lit_lang_needs_tag(S_langs[_i].lang) == S_langs[_i].needs, "%s: needs a tag", name);
  ck_assert_msg(lit_lang_of(S_langs[_i].lang) == S_langs[_i].family, "%s: family", name);
}
END_TEST

static const struct {
  const char *path;
  lit_comment comment;
} S_styles[] = {{"k/a.cu", LIT_COMMENT_C},        {"a.cuh", LIT_COMMENT_C},       {"a.c", LIT_COMMENT_C},
                {"a.h", LIT_COMMENT_C},           {"a.cpp", LIT_COMMENT_C},       {"a.py", LIT_COMMENT_HASH},
                {"a.toml", LIT_COMMENT_HASH},     {"run.sh", LIT_COMMENT_HASH},   {"a.lua", LIT_COMMENT_LUA},
                {"a.json", LIT_COMMENT_NONE},     {"a.md", LIT_COMMENT_NONE},     {"Makefile", LIT_COMMENT_NONE},
                {"dir.d/file", LIT_COMMENT_NONE}, {"a.tar.py", LIT_COMMENT_HASH}, {"a.", LIT_COMMENT_NONE}};

START_TEST(test_comment) {
  ck_assert_msg(lit_lang_comment(S_styles[_i].path) == S_styles[_i].comment, "%s", S_styles[_i].path);
}
END_TEST

Suite *lang_suite(void) {
  Suite *s = suite_create("lang");
  TCase *tc = tcase_create("core");
  tcase_add_loop_test(tc, test_lang, 0, sizeof S_langs / sizeof S_langs[0]);
  tcase_add_loop_test(tc, test_comment, 0, sizeof S_styles / sizeof S_styles[0]);
  suite_add_tcase(s, tc);
  return s;
}

#include "lang.h"

#include <stddef.h>
#include <string.h>

/* Code block language words. */
static const struct {
  const char *name;
  lit_lang lang;
} S_names[] = {
    {"c", LIT_LANG_C},
    {"h", LIT_LANG_C},
    {"cpp", LIT_LANG_C},
    {"c++", LIT_LANG_C},
    {"cxx", LIT_LANG_C},
    {"cc", LIT_LANG_C},
    {"hpp", LIT_LANG_C},
    {"cuda", LIT_LANG_C},
    {"cu", LIT_LANG_C},
    {"cuh", LIT_LANG_C},
    {"python", LIT_LANG_PYTHON},
    {"py", LIT_LANG_PYTHON},
    {"python3", LIT_LANG_PYTHON},
    {"toml", LIT_LANG_TOML},
    {"sh", LIT_LANG_SHELL},
    {"bash", LIT_LANG_SHELL},
    {"shell", LIT_LANG_SHELL},
    {"console", LIT_LANG_SHELL},
    {"zsh", LIT_LANG_SHELL},
};

/* Generated files' extensions. */
static const struct {
  const char *ext;
  lit_comment comment;
} S_exts[] = {
    {".c", LIT_COMMENT_C},      {".h", LIT_COMMENT_C},      {".cu", LIT_COMMENT_C},      {".cuh", LIT_COMMENT_C},
    {".cpp", LIT_COMMENT_C},    {".hpp", LIT_COMMENT_C},    {".cc", LIT_COMMENT_C},      {".cxx", LIT_COMMENT_C},
    {".hxx", LIT_COMMENT_C},    {".py", LIT_COMMENT_HASH},  {".toml", LIT_COMMENT_HASH}, {".sh", LIT_COMMENT_HASH},
    {".txt", LIT_COMMENT_HASH}, {".cfg", LIT_COMMENT_HASH}, {".yaml", LIT_COMMENT_HASH}, {".yml", LIT_COMMENT_HASH},
    {".ini", LIT_COMMENT_HASH}, {".lua", LIT_COMMENT_LUA},
};

#define S_N(a) (sizeof(a) / sizeof((a)[0]))

lit_lang lit_lang_of(const char *name) {
  if (!name) return LIT_LANG_OTHER;
  for (size_t i = 0; i < S_N(S_names); i++)
    if (strcmp(name, S_names[i].name) == 0) return S_names[i].lang;
  return LIT_LANG_OTHER;
}

int lit_lang_needs_tag(const char *name) {
  lit_lang l = lit_lang_of(name);
  return l == LIT_LANG_C || l == LIT_LANG_PYTHON || l == LIT_LANG_TOML;
}

lit_comment lit_lang_comment(const char *path) {
  const char *dot = strrchr(path, '.');
  const char *slash = strrchr(path, '/');
  if (!dot || (slash && dot < slash)) return LIT_COMMENT_NONE;
  for (size_t i = 0; i < S_N(S_exts); i++)
    if (strcmp(dot, S_exts[i].ext) == 0) return S_exts[i].comment;
  return LIT_COMMENT_NONE;
}

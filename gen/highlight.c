#include "highlight.h"

#include "lang.h"

#include <pthread.h>

#include <stdlib.h>
#include <string.h>

/* Word lists. */
static const char *S_c_kw[] = {"__constant__",
                               "__device__",
                               "__forceinline__",
                               "__global__",
                               "__host__",
                               "__launch_bounds__",
                               "__noinline__",
                               "__restrict__",
                               "__shared__",
                               "__syncthreads",
                               "__syncwarp",
                               "alignas",
                               "alignof",
                               "asm",
                               "break",
                               "case",
                               "catch",
                               "class",
                               "const",
                               "const_cast",
                               "constexpr",
                               "continue",
                               "decltype",
                               "default",
                               "delete",
                               "do",
                               "else",
                               "enum",
                               "explicit",
                               "extern",
                               "false",
                               "for",
                               "goto",
                               "if",
                               "inline",
                               "namespace",
                               "new",
                               "noexcept",
                               "nullptr",
                               "operator",
                               "private",
                               "protected",
                               "public",
                               "register",
                               "reinterpret_cast",
                               "return",
                               "sizeof",
                               "static",
                               "static_assert",
                               "static_cast",
                               "struct",
                               "switch",
                               "template",
                               "this",
                               "throw",
                               "true",
                               "try",
                               "typedef",
                               "typename",
                               "union",
                               "using",
                               "virtual",
                               "volatile",
                               "while"};
static const char *S_c_ty[] = {
    "__half", "__half2",  "__nv_bfloat16", "__nv_bfloat162", "auto",        "blockDim",     "blockIdx", "bool",
    "char",   "gridDim",  "threadIdx",     "warpSize",       "cudaError_t", "cudaStream_t", "dim3",     "double",
    "float",  "float2",   "float4",        "half",           "int",         "int16_t",      "int2",     "int32_t",
    "int4",   "int64_t",  "int8_t",        "long",           "short",       "signed",       "size_t",   "uint16_t",
    "uint2",  "uint32_t", "uint4",         "uint64_t",       "uint8_t",     "unsigned",     "void"};
static const char *S_py_kw[] = {"False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
                                "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
                                "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
                                "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
static const char *S_py_ty[] = {"bool", "bytes", "dict", "float", "int", "list", "object", "set", "str", "tuple"};
static const char *S_toml_kw[] = {"false", "inf", "nan", "true"};
static const char *S_sh_kw[] = {"case", "cd",    "do",     "done", "echo", "elif",     "else",
                                "esac", "exit",  "export", "fi",   "for",  "function", "if",
                                "in",   "local", "return", "set",  "then", "until",    "while"};

/* Each list becomes a lit_index on first use: the lookup runs once per
 * identifier, so it must cost a hash and one compare. The sets live as long
 * as the process. */
#define S_N(a) (sizeof(a) / sizeof((a)[0]))

static lit_index S_c_kw_set, S_c_ty_set, S_py_kw_set, S_py_ty_set, S_toml_kw_set, S_sh_kw_set;

static void S_fill(lit_index *set, const char **list, size_t n) {
  for (size_t i = 0; i < n; i++)
    lit_index_put(set, list[i], i);
}

static void S_fill_all(void) {
  S_fill(&S_c_kw_set, S_c_kw, S_N(S_c_kw));
  S_fill(&S_c_ty_set, S_c_ty, S_N(S_c_ty));
  S_fill(&S_py_kw_set, S_py_kw, S_N(S_py_kw));
  S_fill(&S_py_ty_set, S_py_ty, S_N(S_py_ty));
  S_fill(&S_toml_kw_set, S_toml_kw, S_N(S_toml_kw));
  S_fill(&S_sh_kw_set, S_sh_kw, S_N(S_sh_kw));
}

/* Book pages are highlighted on several threads: fill the sets once. */
static void S_sort_once(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, S_fill_all);
}

static int S_in(const lit_index *set, const char *w, size_t len) { return lit_index_get(set, w, len, NULL); }

/* Escapes s into dst (room for 6 bytes per input byte); returns the end. */
static char *S_escape_to(char *dst, const char *s, size_t len) {
  size_t run = 0;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (c != '&' && c != '<' && c != '>' && c != '"') continue;
    memcpy(dst, s + run, i - run);
    dst += i - run;
    const char *rep = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : "&quot;";
    size_t n = c == '"' ? 6 : c == '&' ? 5 : 4;
    memcpy(dst, rep, n);
    dst += n;
    run = i + 1;
  }
  memcpy(dst, s + run, len - run);
  return dst + (len - run);
}

/* One reserve per call, then plain copies: the book's code is mostly this. */
void lit_html_escape(lit_buf *out, const char *s, size_t len) {
  if (!len) return;
  lit_buf_reserve(out, 6 * len);
  char *end = S_escape_to(out->data + out->len, s, len);
  out->len = (size_t)(end - out->data);
  out->data[out->len] = '\0';
}

/* cls is always two letters, so every length here is known */
static void S_span(lit_buf *out, const char *cls, const char *s, size_t len) {
  lit_buf_reserve(out, 6 * len + 24);
  char *d = out->data + out->len;
  memcpy(d, "<span class=\"", 13);
  d[13] = cls[0];
  d[14] = cls[1];
  d[15] = '"';
  d[16] = '>';
  d = S_escape_to(d + 17, s, len);
  memcpy(d, "</span>", 7);
  out->len = (size_t)(d + 7 - out->data);
  out->data[out->len] = '\0';
}

static int S_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int S_ident(char c) { return S_ident_start(c) || (c >= '0' && c <= '9'); }
static int S_digit(char c) { return c >= '0' && c <= '9'; }

/* End of a quoted string starting at i (the quote); stops at end of line
 * unless the string may span lines (triple quotes). */
static size_t S_string_end(const char *s, size_t len, size_t i, int escapes) {
  char q = s[i];
  if (i + 2 < len && s[i + 1] == q && s[i + 2] == q && q != '`') { /* triple-quoted */
    size_t j = i + 3;
    while (j + 2 < len && !(s[j] == q && s[j + 1] == q && s[j + 2] == q))
      j += (escapes && s[j] == '\\') ? 2 : 1;
    return j + 2 < len ? j + 3 : len;
  }
  size_t j = i + 1;
  while (j < len && s[j] != q && s[j] != '\n')
    j += (escapes && s[j] == '\\' && j + 1 < len) ? 2 : 1;
  return j < len && s[j] == q ? j + 1 : j;
}

/* In shell, a run of digits is a number only as a word of its own ("-j 8",
 * "sm_90" is not, nor "c++17", nor a hash like 3a4929c0): digits only, not
 * glued to a word before or after. */
static int S_shell_number(const char *s, size_t len, size_t i, size_t end) {
  for (size_t k = i; k < end; k++)
    if (!S_digit(s[k]) && s[k] != '.') return 0;
  if (i > 0 && !strchr(" \t\n=:,;(|&<>[\"'", s[i - 1])) return 0;
  return end >= len || strchr(" \t\n,;)|&<>]\"'", s[end]) != NULL;
}

/* A Python string prefix (f, r, b, u, fr, rf, br, rb in either case) at i,
 * right before a quote, and not the end of a longer name. */
static int S_py_string_prefix(const char *s, size_t len, size_t i) {
  if (i > 0 && S_ident(s[i - 1])) return 0;
  size_t n = 0;
  while (i + n < len && n < 3 && strchr("fFrRbBuU", s[i + n]) && s[i + n])
    n++;
  if (n == 0 || n > 2 || i + n >= len || (s[i + n] != '"' && s[i + n] != '\'')) return 0;
  if (n == 2) {
    char a = (char)(s[i] | 0x20), b = (char)(s[i + 1] | 0x20);
    return (a == 'f' && b == 'r') || (a == 'r' && b == 'f') || (a == 'b' && b == 'r') || (a == 'r' && b == 'b');
  }
  return 1;
}

void lit_highlight(const char *lang, const char *s, size_t len, lit_buf *out) {
  lit_lang f = lit_lang_of(lang);
  if (f == LIT_LANG_OTHER) {
    lit_html_escape(out, s, len);
    return;
  }
  S_sort_once();
  size_t i = 0, plain = 0;
  int line_start = 1;
#define FLUSH() (lit_html_escape(out, s + plain, i - plain))
  while (i < len) {
    char c = s[i];
    size_t end = 0;
    const char *cls = NULL;
    if (c == '\n') {
      line_start = 1;
      i++;
      continue;
    }
    if (c == ' ' || c == '\t') {
      i++;
      continue;
    }
    int at_line_start = line_start;
    line_start = 0;
    if (f == LIT_LANG_C && c == '/' && i + 1 < len && s[i + 1] == '/') {
      end = i;
      while (end < len && s[end] != '\n')
        end++;
      cls = "co";
    } else if (f == LIT_LANG_C && c == '/' && i + 1 < len && s[i + 1] == '*') {
      const char *e = NULL;
      for (size_t j = i + 2; j + 1 < len; j++)
        if (s[j] == '*' && s[j + 1] == '/') {
          e = s + j + 2;
          break;
        }
      end = e ? (size_t)(e - s) : len;
      cls = "co";
    } else if (f != LIT_LANG_C && c == '#' &&
               (f != LIT_LANG_SHELL || i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == '\n')) {
      end = i;
      while (end < len && s[end] != '\n')
        end++;
      cls = "co";
    } else if (f == LIT_LANG_C && c == '#' && at_line_start) {
      end = i;
      while (end < len && s[end] != '\n')
        end += (s[end] == '\\' && end + 1 < len) ? 2 : 1;
      cls = "pp";
    } else if (c == '"' || c == '\'') {
      if (f == LIT_LANG_C && c == '\'' && i > 0 && S_ident(s[i - 1])) { /* 1'000 digit separators: rare, leave plain */
        i++;
        continue;
      }
      end = S_string_end(s, len, i, f != LIT_LANG_SHELL || c == '"');
      cls = "st";
    } else if (S_digit(c) || (c == '.' && i + 1 < len && S_digit(s[i + 1]))) {
      end = i + 1;
      while (end < len && (S_ident(s[end]) || s[end] == '.' ||
                           ((s[end] == '+' || s[end] == '-') && (s[end - 1] == 'e' || s[end - 1] == 'E'))))
        end++;
      if (f == LIT_LANG_SHELL && !S_shell_number(s, len, i, end)) { /* a hash, c++17, v1.2-rc: part of a word */
        i = end;
        continue;
      }
      cls = "nu";
    } else if (f == LIT_LANG_PYTHON && c == '@' && i + 1 < len && S_ident_start(s[i + 1])) {
      end = i + 1;
      while (end < len && (S_ident(s[end]) || s[end] == '.'))
        end++;
      cls = "pp";
    } else if (f == LIT_LANG_SHELL && c == '$' && i + 1 < len && (S_ident_start(s[i + 1]) || s[i + 1] == '{')) {
      end = i + 1;
      if (s[end] == '{') {
        while (end < len && s[end] != '}' && s[end] != '\n')
          end++;
        if (end < len && s[end] == '}') end++;
      } else {
        while (end < len && S_ident(s[end]))
          end++;
      }
      cls = "va";
    } else if (f == LIT_LANG_TOML && c == '[' && at_line_start) {
      end = i;
      while (end < len && s[end] != '\n' && s[end] != '#')
        end++;
      cls = "at";
    } else if (f == LIT_LANG_PYTHON &&
               S_py_string_prefix(s, len, i)) { /* f"...", rb'...': the prefix is the string's */
      size_t q = i;
      while (s[q] != '"' && s[q] != '\'')
        q++;
      end = S_string_end(s, len, q, 1);
      cls = "st";
    } else if (S_ident_start(c)) {
      end = i + 1;
      while (end < len && (S_ident(s[end]) || (f == LIT_LANG_TOML && s[end] == '-')))
        end++;
      size_t n = end - i;
      size_t k = end;
      while (k < len && (s[k] == ' ' || s[k] == '\t'))
        k++;
      switch (f) {
      case LIT_LANG_C:
        cls = S_in(&S_c_kw_set, s + i, n)   ? "kw"
              : S_in(&S_c_ty_set, s + i, n) ? "ty"
              : (k < len && s[k] == '(')    ? "fn"
                                            : NULL;
        break;
      case LIT_LANG_PYTHON:
        cls = S_in(&S_py_kw_set, s + i, n)   ? "kw"
              : S_in(&S_py_ty_set, s + i, n) ? "ty"
              : (k < len && s[k] == '(')     ? "fn"
                                             : NULL;
        break;
      case LIT_LANG_TOML:
        cls = S_in(&S_toml_kw_set, s + i, n)                               ? "kw"
              : (at_line_start && k < len && (s[k] == '=' || s[k] == '.')) ? "at"
                                                                           : NULL;
        break;
      case LIT_LANG_SHELL: cls = S_in(&S_sh_kw_set, s + i, n) ? "kw" : NULL; break;
      default: break;
      }
      if (!cls) { /* a plain word: skip it whole so its digits are not numbers */
        i = end;
        continue;
      }
    } else {
      i++;
      continue;
    }
    FLUSH();
    S_span(out, cls, s + i, end - i);
    i = plain = end;
  }
  FLUSH();
#undef FLUSH
}

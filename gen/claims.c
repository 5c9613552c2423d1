/* claims.c: guarded claims, ```{.lua .check} blocks (claims.h). */
#include "claims.h"

#include <lauxlib.h>
#include <string.h>

#include "source.h"
#include "util.h"

int lit_check_is(const lit_block *b) {
  for (size_t i = 0; i < b->nclasses; i++)
    if (strcmp(b->classes[i], "check") == 0) return 1;
  return 0;
}

static int S_blank(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '>') return 0;
  return 1;
}

static int S_is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '>'; }

/* A closing fence, or anything that is not paragraph text. */
static int S_fence(const char *s, size_t len) {
  size_t i = 0;
  while (i < len && (s[i] == ' ' || s[i] == '>'))
    i++;
  return len - i >= 3 && (memcmp(s + i, "```", 3) == 0 || memcmp(s + i, "~~~", 3) == 0);
}

/* The text after "-- claim:" on the code's first line, trimmed; NULL if the
 * first line is not such a comment. *len gets its length. */
static const char *S_claim(const char *code, size_t code_len, size_t *len) {
  const char *end = memchr(code, '\n', code_len);
  if (!end) end = code + code_len;
  const char *s = code;
  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  if (end - s < 2 || s[0] != '-' || s[1] != '-') return NULL;
  s += 2;
  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  if (end - s < 6 || memcmp(s, "claim:", 6) != 0) return NULL;
  s += 6;
  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  const char *e = end;
  while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
    e--;
  *len = (size_t)(e - s);
  return *len ? s : NULL;
}

/* Where claim occurs in text, a run of white space (line breaks and the
 * quote or list indentation after them included) matching any such run;
 * -1 if nowhere. */
static long S_find(const char *text, size_t tlen, const char *claim, size_t clen) {
  for (size_t start = 0; start < tlen; start++) {
    if (S_is_space(text[start])) continue;
    size_t t = start, c = 0;
    while (c < clen && t < tlen) {
      if (S_is_space(claim[c])) {
        if (!S_is_space(text[t])) break;
        while (c < clen && S_is_space(claim[c]))
          c++;
        while (t < tlen && S_is_space(text[t]))
          t++;
      } else if (claim[c] == text[t]) {
        c++;
        t++;
      } else {
        break;
      }
    }
    if (c == clen) return (long)start;
  }
  return -1;
}

int lit_check_run(lit_lua *h, const lit_block *b, lit_diags *d) {
  const lit_source *src = &b->doc->src;
  const char *path = src->path;
  if (!b->lang || strcmp(b->lang, "lua") != 0) {
    lit_diag(d, LIT_ERROR, path, b->line, b->col, "a .check block is Lua code: write ```{.lua .check}");
    return -1;
  }
  /* the paragraph just above the block: the claim it guards */
  int last = b->line - 1;
  size_t len = 0;
  const char *s = NULL;
  while (last >= 1 && (s = lit_source_line(src, last, &len)) && S_blank(s, len))
    last--;
  if (last < 1 || S_fence(s, len)) {
    lit_diag(d, LIT_ERROR, path, b->line, b->col,
             "a .check block must follow the paragraph that states its claim, with at most blank lines between");
    return -1;
  }
  int first = last;
  while (first > 1 && (s = lit_source_line(src, first - 1, &len)) && !S_blank(s, len) && !S_fence(s, len))
    first--;
  const char *ptext = src->text + src->line_starts[first - 1];
  const char *lastline = lit_source_line(src, last, &len);
  size_t plen = (size_t)(lastline + len - ptext);

  int cline = first, ccol = 1;
  size_t clen = 0;
  const char *claim = S_claim(b->code, b->code_len, &clen);
  if (claim) {
    long at = S_find(ptext, plen, claim, clen);
    if (at < 0) {
      lit_diag(d, LIT_ERROR, path, b->line, b->col,
               "the claim \"%.*s\" is not in the paragraph above this .check block (lines %d-%d)",
               (int)(clen > 200 ? 200 : clen), claim, first, last);
      return -1;
    }
    for (long i = 0; i < at; i++) {
      if (ptext[i] == '\n') {
        cline++;
        ccol = 1;
      } else {
        ccol++;
      }
    }
  } else {
    size_t l0;
    const char *f = lit_source_line(src, first, &l0);
    while (ccol <= (int)l0 && S_is_space(f[ccol - 1]))
      ccol++;
    if (ccol < (int)l0 && strchr("-*+", f[ccol - 1]) && f[ccol] == ' ') ccol += 2; /* a list item's text */
  }

  lua_State *L = lit_lua_state(h);
  if (lit_lua_load(h, path, b->code_line, b->code, b->code_len, d)) return -1;
  if (lit_lua_call(h, 0, 2, path, b->line, d)) return -1; /* ok, why */
  int status = 0;
  if (lua_type(L, -2) == LUA_TBOOLEAN && lua_toboolean(L, -2)) {
    status = 0;
  } else if (lua_isnil(L, -2) || lua_type(L, -2) == LUA_TBOOLEAN || lua_type(L, -2) == LUA_TSTRING) {
    const char *why = lua_type(L, -2) == LUA_TSTRING   ? lua_tostring(L, -2)
                      : lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                                       : "the check returned false";
    if (claim)
      lit_diag(d, LIT_ERROR, path, cline, ccol, "the results no longer support the claim \"%.*s\": %s",
               (int)(clen > 200 ? 200 : clen), claim, why);
    else
      lit_diag(d, LIT_ERROR, path, cline, ccol, "the results no longer support this paragraph's claim: %s", why);
    lit_diag(d, LIT_NOTE, path, b->line, b->col, "checked by this .check block");
    status = -1;
  } else {
    lit_diag(d, LIT_ERROR, path, b->line, b->col,
             "a .check block must return true, or false (or nil) and a reason, not a %s", luaL_typename(L, -2));
    status = -1;
  }
  lua_pop(L, 2);
  return status;
}

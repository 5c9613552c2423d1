#include "json.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  lua_State *L;
  const char *s, *end, *line_start;
  int line;
  int strict;
  const char *err;
  const char *err_at;
  int mt_index; /* stack index of the file name, shared by every metatable */
} S_parser;

enum { S_MAX_DEPTH = 200 };

static int S_fail(S_parser *p, const char *msg) {
  if (!p->err) {
    p->err = msg;
    p->err_at = p->s;
  }
  return -1;
}

static void S_ws(S_parser *p) {
  while (p->s < p->end) {
    char c = *p->s;
    if (c == '\n') {
      p->line++;
      p->line_start = p->s + 1;
    } else if (c != ' ' && c != '\t' && c != '\r') {
      break;
    }
    p->s++;
  }
}

static int S_hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static void S_utf8(luaL_Buffer *b, unsigned long cp) {
  char out[4];
  int n;
  if (cp < 0x80) {
    out[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  luaL_addlstring(b, out, (size_t)n);
}

static int S_u4(S_parser *p, unsigned long *cp) {
  if (p->end - p->s < 4) return S_fail(p, "truncated \\u escape");
  unsigned long v = 0;
  for (int i = 0; i < 4; i++) {
    int h = S_hex(p->s[i]);
    if (h < 0) return S_fail(p, "bad hex digit in \\u escape");
    v = v * 16 + (unsigned long)h;
  }
  p->s += 4;
  *cp = v;
  return 0;
}

/* Pushes the string at p->s (just past the opening quote). */
static int S_string(S_parser *p) {
  luaL_Buffer b;
  luaL_buffinit(p->L, &b); /* ... buffer */
  for (;;) {
    const char *run = p->s;
    while (p->s < p->end && *p->s != '"' && *p->s != '\\' && (unsigned char)*p->s >= 0x20)
      p->s++;
    luaL_addlstring(&b, run, (size_t)(p->s - run));
    if (p->s >= p->end) return S_fail(p, "unterminated string");
    char c = *p->s++;
    if (c == '"') break;
    if (c != '\\') {
      p->s--;
      return S_fail(p, "control character in string");
    }
    if (p->s >= p->end) return S_fail(p, "unterminated string");
    c = *p->s++;
    switch (c) {
    case '"': luaL_addchar(&b, '"'); break;
    case '\\': luaL_addchar(&b, '\\'); break;
    case '/': luaL_addchar(&b, '/'); break;
    case 'b': luaL_addchar(&b, '\b'); break;
    case 'f': luaL_addchar(&b, '\f'); break;
    case 'n': luaL_addchar(&b, '\n'); break;
    case 'r': luaL_addchar(&b, '\r'); break;
    case 't': luaL_addchar(&b, '\t'); break;
    case 'u': {
      unsigned long cp;
      if (S_u4(p, &cp)) return -1;
      if (cp >= 0xD800 && cp < 0xDC00) {
        unsigned long lo;
        if (p->end - p->s < 2 || p->s[0] != '\\' || p->s[1] != 'u') return S_fail(p, "lone surrogate in \\u escape");
        p->s += 2;
        if (S_u4(p, &lo)) return -1;
        if (lo < 0xDC00 || lo > 0xDFFF) return S_fail(p, "bad low surrogate in \\u escape");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      } else if (cp >= 0xDC00 && cp < 0xE000) {
        return S_fail(p, "lone surrogate in \\u escape");
      }
      S_utf8(&b, cp);
      break;
    }
    default: p->s -= 2; return S_fail(p, "bad escape in string");
    }
  }
  luaL_pushresult(&b); /* ... string */
  return 0;
}

static int S_number(S_parser *p) {
  const char *start = p->s;
  int is_float = 0;
  if (p->s < p->end && *p->s == '-') p->s++;
  if (p->s >= p->end || *p->s < '0' || *p->s > '9') return S_fail(p, "bad number");
  if (*p->s == '0')
    p->s++;
  else
    while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
      p->s++;
  if (p->s < p->end && *p->s == '.') {
    is_float = 1;
    p->s++;
    if (p->s >= p->end || *p->s < '0' || *p->s > '9') return S_fail(p, "bad number: digits must follow '.'");
    while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
      p->s++;
  }
  if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
    is_float = 1;
    p->s++;
    if (p->s < p->end && (*p->s == '+' || *p->s == '-')) p->s++;
    if (p->s >= p->end || *p->s < '0' || *p->s > '9') return S_fail(p, "bad number: digits must follow the exponent");
    while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
      p->s++;
  }
  char tmp[64];
  size_t n = (size_t)(p->s - start);
  if (n >= sizeof tmp) return S_fail(p, "number too long");
  memcpy(tmp, start, n);
  tmp[n] = '\0';
  if (!is_float) {
    char *e;
    long long v = strtoll(tmp, &e, 10);
    if (*e == '\0' && v > -(1LL << 53) && v < (1LL << 53)) {
      lua_pushinteger(p->L, (lua_Integer)v);
      return 0;
    }
  }
  lua_pushnumber(p->L, strtod(tmp, NULL));
  return 0;
}

static int S_literal(S_parser *p, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n) != 0) return S_fail(p, "unexpected character");
  p->s += n;
  return 0;
}

static int S_missing(lua_State *L);

/* Gives the table on top a metatable {__index = S_missing, file=, path=}. */
static void S_strict(S_parser *p, const char *path, size_t plen) {
  lua_State *L = p->L;
  lua_createtable(L, 0, 3);        /* t mt */
  lua_pushvalue(L, p->mt_index);   /* t mt file */
  lua_setfield(L, -2, "file");     /* t mt */
  lua_pushlstring(L, path, plen);  /* t mt path */
  lua_setfield(L, -2, "path");     /* t mt */
  lua_pushcfunction(L, S_missing); /* t mt f */
  lua_setfield(L, -2, "__index");  /* t mt */
  lua_setmetatable(L, -2);         /* t */
}

/* The field path of the value being read, for strict errors; a path too
 * long for it is cut short (the message still names the file). */
typedef struct {
  char text[1024];
  size_t len;
} S_path;

static void S_path_add(S_path *path, const char *s, size_t n) {
  if (path->len + n >= sizeof path->text) n = sizeof path->text - 1 - path->len;
  memcpy(path->text + path->len, s, n);
  path->len += n;
  path->text[path->len] = '\0';
}

static int S_value(S_parser *p, int depth, S_path *path) {
  lua_State *L = p->L;
  if (depth > S_MAX_DEPTH) return S_fail(p, "nested too deeply");
  luaL_checkstack(L, 4, "JSON nested too deeply");
  S_ws(p);
  if (p->s >= p->end) return S_fail(p, "unexpected end of input");
  switch (*p->s) {
  case '{': {
    p->s++;
    lua_newtable(L); /* ... t */
    S_ws(p);
    if (p->s < p->end && *p->s == '}') {
      p->s++;
    } else {
      for (;;) {
        S_ws(p);
        if (p->s >= p->end || *p->s != '"') return S_fail(p, "expected a string key");
        p->s++;
        if (S_string(p)) return -1; /* ... t key */
        S_ws(p);
        if (p->s >= p->end || *p->s != ':') return S_fail(p, "expected ':' after the key");
        p->s++;
        size_t keep = path->len, klen;
        const char *k = lua_tolstring(L, -1, &klen);
        if (keep) S_path_add(path, ".", 1);
        S_path_add(path, k, klen);
        if (S_value(p, depth + 1, path)) return -1; /* ... t key value */
        path->len = keep;
        path->text[keep] = '\0';
        lua_rawset(L, -3); /* ... t */
        S_ws(p);
        if (p->s < p->end && *p->s == ',') {
          p->s++;
          continue;
        }
        if (p->s < p->end && *p->s == '}') {
          p->s++;
          break;
        }
        return S_fail(p, "expected ',' or '}' in object");
      }
    }
    if (p->strict) S_strict(p, path->text, path->len);
    return 0;
  }
  case '[': {
    p->s++;
    lua_newtable(L); /* ... t */
    S_ws(p);
    lua_Integer i = 0;
    if (p->s < p->end && *p->s == ']') {
      p->s++;
    } else {
      for (;;) {
        size_t keep = path->len;
        char idx[32];
        int n = snprintf(idx, sizeof idx, "[%lld]", (long long)(i + 1));
        S_path_add(path, idx, (size_t)n);
        if (S_value(p, depth + 1, path)) return -1; /* ... t value */
        path->len = keep;
        path->text[keep] = '\0';
        lua_rawseti(L, -2, ++i); /* ... t */
        S_ws(p);
        if (p->s < p->end && *p->s == ',') {
          p->s++;
          continue;
        }
        if (p->s < p->end && *p->s == ']') {
          p->s++;
          break;
        }
        return S_fail(p, "expected ',' or ']' in array");
      }
    }
    if (p->strict) S_strict(p, path->text, path->len);
    return 0;
  }
  case '"': p->s++; return S_string(p);
  case 't':
    if (S_literal(p, "true")) return -1;
    lua_pushboolean(L, 1);
    return 0;
  case 'f':
    if (S_literal(p, "false")) return -1;
    lua_pushboolean(L, 0);
    return 0;
  case 'n':
    if (S_literal(p, "null")) return -1;
    lua_pushlightuserdata(L, NULL);
    return 0;
  default: return S_number(p);
  }
}

/* __index for strict tables: t[k] where k is not there. */
static int S_missing(lua_State *L) {
  if (lua_type(L, 2) != LUA_TSTRING) return 0; /* integer keys past the end: nil, so ipairs stops */
  lua_getmetatable(L, 1);                      /* t k mt */
  lua_getfield(L, 3, "file");                  /* t k mt file */
  lua_getfield(L, 3, "path");                  /* t k mt file path */
  const char *file = lua_tostring(L, 4);
  const char *path = lua_tostring(L, 5);
  lua_newtable(L); /* t k mt file path keys */
  int nk = 0;
  lua_pushnil(L);
  while (lua_next(L, 1)) { /* ... keys key value */
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING) {
      lua_pushvalue(L, -1);
      lua_rawseti(L, 6, ++nk);
    }
  }
  lua_getglobal(L, "table");
  lua_getfield(L, -1, "sort");
  lua_pushvalue(L, 6);
  lua_call(L, 1, 0);
  lua_pop(L, 1);
  lua_getglobal(L, "table");
  lua_getfield(L, -1, "concat");
  lua_pushvalue(L, 6);
  lua_pushliteral(L, ", ");
  lua_call(L, 2, 1); /* ... table joined */
  const char *joined = lua_tostring(L, -1);
  const char *key = lua_tostring(L, 2);
  if (path && path[0])
    return luaL_error(L, "%s has no field '%s.%s'%s%s", file, path, key, nk ? "; fields there: " : " (empty)",
                      nk ? joined : "");
  return luaL_error(L, "%s has no field '%s'%s%s", file, key, nk ? "; fields there: " : " (empty)", nk ? joined : "");
}

int lit_json_push(lua_State *L, const char *text, size_t len, const char *file, int strict, char *err, size_t errlen) {
  S_parser p;
  memset(&p, 0, sizeof p);
  p.L = L;
  p.s = p.line_start = text;
  p.end = text + len;
  p.line = 1;
  p.strict = strict;
  int top = lua_gettop(L);
  lua_pushstring(L, file ? file : "JSON"); /* file */
  p.mt_index = lua_gettop(L);
  S_path path;
  path.len = 0;
  path.text[0] = '\0';
  int r = S_value(&p, 0, &path); /* file value */
  if (r == 0) {
    S_ws(&p);
    if (p.s != p.end) r = S_fail(&p, "unexpected text after the value");
  }
  if (r) {
    snprintf(err, errlen, "%d:%d: %s", p.line, (int)(p.err_at - p.line_start) + 1, p.err);
    lua_settop(L, top);
    return -1;
  }
  lua_remove(L, top + 1); /* value */
  return 0;
}

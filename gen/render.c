/* render.c: the weaver's Lua API and the weaving of one document to Markdown. */
#define _XOPEN_SOURCE 700
#include "render.h"

#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assets.h"
#include "claims.h"
#include "json.h"
#include "paths.h"

struct lit_render {
  const lit_project *p;
  lit_lua *h;
  char *output;
  int nfilters;
  char rootreal[PATH_MAX];
};

/* ---- data(name) ---- */

/* Appends list items and copies other keys of the table at `from` into the
 * table at `to` (absolute indices). */
static void S_merge(lua_State *L, int to, int from) {
  lua_Integer n = (lua_Integer)lua_rawlen(L, to), m = (lua_Integer)lua_rawlen(L, from);
  for (lua_Integer i = 1; i <= m; i++) {
    lua_rawgeti(L, from, i);   /* ... v */
    lua_rawseti(L, to, n + i); /* ... */
  }
  lua_pushnil(L);
  while (lua_next(L, from)) { /* ... k v */
    if (lua_isinteger(L, -2) && lua_tointeger(L, -2) >= 1 && lua_tointeger(L, -2) <= m) {
      lua_pop(L, 1);
      continue;
    }
    lua_pushvalue(L, -2); /* ... k v k */
    lua_insert(L, -2);    /* ... k k v */
    lua_rawset(L, to);    /* ... k */
  }
}

static int S_data(lua_State *L) {
  size_t len;
  const char *name = luaL_checklstring(L, 1, &len);
  lit_render *r = lua_touserdata(L, lua_upvalueindex(1));
  lua_settop(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, "lit.data"); /* name cache */
  int t = lua_getfield(L, 2, name);               /* name cache value */
  if (t == LUA_TTABLE) return 1;
  if (t == LUA_TBOOLEAN) return luaL_error(L, "data('%s') is called while its own .data block runs", name);
  lua_pop(L, 1);
  const lit_chunk *c = lit_project_find(r->p, name, len);
  if (!c || !c->is_data) return luaL_error(L, "no .data block is named '%s'", name);
  lua_pushboolean(L, 0);
  lua_setfield(L, 2, name); /* in progress */
  for (size_t i = 0; i < c->ndefs; i++) {
    const lit_block *b = c->defs[i];
    if (lit_lua_load(r->h, b->doc->src.path, b->code_line, b->code, b->code_len, NULL)) return lua_error(L);
    lua_call(L, 0, 1); /* name cache result */
    if (!lua_istable(L, -1))
      return luaL_error(L, "%s:%d: the .data block '%s' must return a table, not a %s", b->doc->src.path, b->line, name,
                        luaL_typename(L, -1));
    if (i > 0) {
      S_merge(L, 3, 4);
      lua_pop(L, 1); /* name cache merged */
    }
  }
  lua_pushvalue(L, 3);
  lua_setfield(L, 2, name); /* name cache table */
  return 1;
}

/* ---- results(path) ---- */

/* Checks rel and resolves it inside the project; 0, or -1 with why set
   (-2 when the file does not exist). */
static int S_results_path(const lit_render *r, const char *rel, char *real, size_t *size, char *why, size_t whylen) {
  if (!rel[0] || rel[0] == '/') {
    snprintf(why, whylen, "results('%s'): give a path relative to the project root", rel);
    return -1;
  }
  for (const char *s = rel; *s;) {
    const char *e = strchr(s, '/');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n == 2 && s[0] == '.' && s[1] == '.') {
      snprintf(why, whylen, "results('%s'): the path may not contain '..'", rel);
      return -1;
    }
    s += n + (e ? 1 : 0);
  }
  /* git's files (hooks, config, objects) are never the project's results:
   * as spelled, or reached through a link, even where nothing exists yet
   * (optional_results would otherwise say nil about them). */
  const char *git = lit_path_check_git(r->p->root, rel);
  if (git) {
    snprintf(why, whylen, "results('%s'): %s", rel, git);
    return -1;
  }
  char full[PATH_MAX];
  snprintf(full, sizeof full, "%s/%s", r->p->root, rel);
  if (!realpath(full, real)) {
    const int missing = errno == ENOENT;
    snprintf(why, whylen, "cannot read results file '%s': %s (run its benchmark, or fix the path)", rel,
             strerror(errno));
    return missing ? -2 : -1;
  }
  size_t rl = strlen(r->rootreal);
  if (strncmp(real, r->rootreal, rl) != 0 || (real[rl] != '/' && r->rootreal[rl - 1] != '/')) {
    snprintf(why, whylen, "results('%s'): the file lies outside the project", rel);
    return -1;
  }
  struct stat st;
  if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(why, whylen, "results('%s'): not a regular file", rel);
    return -1;
  }
  *size = (size_t)st.st_size;
  return 0;
}

/* results(path) and optional_results(path): the JSON file as a table; the
   optional form gives nil where the file does not exist (a benchmark not yet
   run), and fails like the other on anything else. */
static int S_load_results(lua_State *L, int optional) {
  const char *rel = luaL_checkstring(L, 1);
  lit_render *r = lua_touserdata(L, lua_upvalueindex(1));
  lua_settop(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, "lit.results"); /* rel cache */
  if (lua_getfield(L, 2, rel) != LUA_TNIL) return 1; /* rel cache value */
  lua_pop(L, 1);
  char real[PATH_MAX], why[PATH_MAX + 200];
  size_t size = 0;
  const int found = S_results_path(r, rel, real, &size, why, sizeof why);
  if (found == -2 && optional) {
    lua_pushnil(L);
    return 1;
  }
  if (found) return luaL_error(L, "%s", why);
  char *bytes = lua_newuserdatauv(L, size + 1, 0); /* rel cache buffer: Lua owns it, so an error leaks nothing */
  /* Opened beneath the project in one step, not by the name just checked:
   * a link swapped in since could lead out of it. Without blocking: what
   * was a regular file when it was found may be a FIFO by now. */
  int fd = lit_path_open_beneath(r->rootreal, rel);
  struct stat st;
  lit_buf text = LIT_BUF_INIT;
  int whole = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && lit_read_fd(fd, &text) == 0 && text.len == size;
  if (whole) memcpy(bytes, text.data, size);
  lit_buf_free(&text);
  if (fd >= 0) close(fd);
  if (!whole) return luaL_error(L, "cannot read results file '%s' (it changed, or leads out of the project)", rel);
  char err[256];
  if (lit_json_push(L, bytes, size, rel, 1, err, sizeof err)) /* rel cache buffer value */
    return luaL_error(L, "results file '%s' is not valid JSON: %s:%s", rel, rel, err);
  lua_pushvalue(L, -1);
  lua_setfield(L, 2, rel);
  return 1;
}

static int S_results(lua_State *L) { return S_load_results(L, 0); }
static int S_optional_results(lua_State *L) { return S_load_results(L, 1); }

/* ---- the state ---- */

/* An error about block b as a whole, at its opening fence. */
static int S_blame(const lit_block *b, lit_diags *d, const char *msg) {
  lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->col, "%s", msg);
  return -1;
}

static int S_has_class(const lit_block *b, const char *cls) {
  for (size_t i = 0; i < b->nclasses; i++)
    if (strcmp(b->classes[i], cls) == 0) return 1;
  return 0;
}

static int S_is_filter(const lit_block *b) {
  return b->lang && strcmp(b->lang, "lua") == 0 && S_has_class(b, "filter");
}

/* Runs a filter block and appends the function it gives this output. */
static void S_load_filter(lit_render *r, const lit_block *b, lit_diags *d) {
  lua_State *L = lit_lua_state(r->h);
  const char *path = b->doc->src.path;
  if (lit_lua_load(r->h, path, b->code_line, b->code, b->code_len, d)) return;
  if (lit_lua_call(r->h, 0, 1, path, b->line, d)) return; /* result */
  if (lua_istable(L, -1))
    lua_getfield(L, -1, r->output); /* table f */
  else
    lua_pushvalue(L, -1); /* f f */
  if (lua_isfunction(L, -1)) {
    lua_getfield(L, LUA_REGISTRYINDEX, "lit.filters"); /* result f filters */
    lua_insert(L, -2);                                 /* result filters f */
    lua_rawseti(L, -2, ++r->nfilters);                 /* result filters */
  } else if (!lua_isnil(L, -1) || !lua_istable(L, -2)) {
    S_blame(b, d,
            "a .filter block must return a function(block), or a table of them keyed by output (book = f, skill = g)");
  }
  lua_pop(L, 2);
}

lit_render *lit_render_new(const lit_project *p, const char *output, const lit_lua_limits *limits, lit_diags *d) {
  lit_render *r = lit_xcalloc(1, sizeof *r);
  r->p = p;
  r->output = lit_xstrdup(output);
  if (!realpath(p->root, r->rootreal)) snprintf(r->rootreal, sizeof r->rootreal, "%s", p->root);
  r->h = lit_lua_new(limits);
  lua_State *L = lit_lua_state(r->h);
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, "lit.data");
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, "lit.results");
  lua_newtable(L);
  lua_setfield(L, LUA_REGISTRYINDEX, "lit.filters");
  static const luaL_Reg api[] = {
      {"data", S_data}, {"results", S_results}, {"optional_results", S_optional_results}, {NULL, NULL}};
  lua_pushglobaltable(L);      /* _G */
  lua_pushlightuserdata(L, r); /* _G r */
  luaL_setfuncs(L, api, 1);    /* _G */
  lua_pop(L, 1);
  const lit_asset *prelude = lit_asset_get("prelude.lua"); /* gen/assets/prelude.lua: md, fmt, lit */
  if (luaL_loadbufferx(L, (const char *)prelude->data, prelude->len, "=lit", "t") != LUA_OK) { /* prelude */
    fprintf(stderr, "lit: the weaver's Lua prelude does not compile: %s\n", lua_tostring(L, -1));
    abort();
  }
  lua_pushstring(L, output); /* prelude output */
  lua_call(L, 1, 0);
  const lit_asset *charts = lit_asset_get("chart.lua");
  if (luaL_loadbufferx(L, (const char *)charts->data, charts->len, "=chart.lua", "t") != LUA_OK) { /* chunk */
    fprintf(stderr, "lit: the chart library does not compile: %s\n", lua_tostring(L, -1));
    abort();
  }
  lua_call(L, 0, 1); /* chart */
  lua_setglobal(L, "chart");
  lua_getglobal(L, "lit");        /* lit */
  lua_pushlightuserdata(L, NULL); /* lit null: what JSON null decodes to */
  lua_setfield(L, -2, "null");
  lua_pop(L, 1);
  for (size_t i = 0; i < p->ndocs; i++)
    for (size_t k = 0; k < p->docs[i]->nblocks; k++)
      if (S_is_filter(p->docs[i]->blocks[k])) S_load_filter(r, p->docs[i]->blocks[k], d);
  return r;
}

void lit_render_free(lit_render *r) {
  if (!r) return;
  lit_lua_free(r->h);
  free(r->output);
  free(r);
}

/* ---- line maps ---- */

void lit_line_map_free(lit_line_map *m) {
  free(m->spans);
  memset(m, 0, sizeof *m);
}

static void S_map_add(lit_line_map *m, int out, int src, int generated) {
  m->spans = lit_grow(m->spans, &m->cap, m->n + 1, sizeof(lit_line_span));
  m->spans[m->n++] = (lit_line_span){out, src, generated};
}

int lit_line_map_source(const lit_line_map *m, int line) {
  size_t lo = 0, hi = m->n;
  while (hi - lo > 1) { /* last span with out <= line */
    size_t mid = (lo + hi) / 2;
    if (m->spans[mid].out <= line)
      lo = mid;
    else
      hi = mid;
  }
  if (m->n == 0) return line;
  const lit_line_span *s = &m->spans[lo];
  return s->generated ? s->src : s->src + (line - s->out);
}

/* ---- weaving a document ---- */

/* The line after a block's closing fence (its last line + 1). */
static int S_block_end_line(const lit_block *b) {
  int n = 0;
  for (const char *s = b->code, *end = b->code + b->code_len; (s = memchr(s, '\n', (size_t)(end - s))); s++)
    n++;
  return b->code_line + n + 1;
}

typedef struct {
  lit_buf *out;
  lit_line_map *map;
  int line;     /* woven lines written so far */
  int at_blank; /* the last line written is blank (or nothing yet) */
} S_writer;

static void S_put_line(S_writer *w, const char *prefix, size_t plen, const char *s, size_t len) {
  lit_buf_put(w->out, prefix, plen);
  lit_buf_put(w->out, s, len);
  lit_buf_putc(w->out, '\n');
  w->line++;
  int blank = 1;
  for (size_t i = 0; i < plen && blank; i++)
    blank = prefix[i] == ' ' || prefix[i] == '>';
  for (size_t i = 0; i < len && blank; i++)
    blank = s[i] == ' ' || s[i] == '\t';
  w->at_blank = blank;
}

/* Copies source lines [from, to) verbatim. */
static void S_copy(S_writer *w, const lit_source *src, const char *skip, int from, int to) {
  int mapped = 0;
  for (int l = from; l < to; l++) {
    if (skip[l]) {
      mapped = 0;
      continue;
    }
    size_t len;
    const char *s = lit_source_line(src, l, &len);
    if (!s) break;
    if (!mapped) S_map_add(w->map, w->line + 1, l, 0);
    mapped = 1;
    S_put_line(w, "", 0, s, len);
  }
}

/* Which source lines this output leaves out: the marker lines
 *   <!-- only: book -->   <!-- only: skill -->   <!-- end only -->
 * and, between an "only" marker for the other output and its end, every
 * line. Markers inside code blocks are code. Returns a flag per line
 * (index = line number; the caller frees it), or NULL after an error. */
static char *S_regions(const lit_render *r, const lit_doc *doc, lit_diags *d) {
  const lit_source *src = &doc->src;
  char *skip = lit_xcalloc(src->nlines + 2, 1);
  int open_line = 0, excluding = 0;
  size_t bi = 0;
  int bend = doc->nblocks ? S_block_end_line(doc->blocks[0]) : 0; /* end of block bi, computed once */
  for (int l = 1; l <= (int)src->nlines; l++) {
    while (bi < doc->nblocks && bend <= l)
      if (++bi < doc->nblocks) bend = S_block_end_line(doc->blocks[bi]);
    if (bi < doc->nblocks && doc->blocks[bi]->line <= l) { /* inside a code block */
      skip[l] = (char)excluding;
      continue;
    }
    size_t len;
    const char *t = lit_source_line(src, l, &len);
    while (len && (*t == ' ' || *t == '\t'))
      t++, len--;
    while (len && (t[len - 1] == ' ' || t[len - 1] == '\t'))
      len--;
    const char *only = "<!-- only: ", *end = "<!-- end only -->";
    if (len > 15 && memcmp(t, only, 11) == 0 && memcmp(t + len - 4, " -->", 4) == 0) {
      size_t wl = len - 15;
      if (open_line) {
        lit_diag(d, LIT_ERROR, src->path, l, 1, "'only' regions do not nest; close the one opened on line %d first",
                 open_line);
        free(skip);
        return NULL;
      }
      if (!((wl == 4 && memcmp(t + 11, "book", 4) == 0) || (wl == 5 && memcmp(t + 11, "skill", 5) == 0))) {
        lit_diag(d, LIT_ERROR, src->path, l, 1, "write <!-- only: book --> or <!-- only: skill -->");
        free(skip);
        return NULL;
      }
      open_line = l;
      excluding = !(wl == strlen(r->output) && memcmp(t + 11, r->output, wl) == 0);
      skip[l] = 1;
    } else if (len == strlen(end) && memcmp(t, end, len) == 0) {
      if (!open_line) {
        lit_diag(d, LIT_ERROR, src->path, l, 1, "<!-- end only --> without an <!-- only: ... --> before it");
        free(skip);
        return NULL;
      }
      open_line = excluding = 0;
      skip[l] = 1;
    } else {
      skip[l] = (char)excluding;
    }
  }
  if (open_line) {
    lit_diag(d, LIT_ERROR, src->path, open_line, 1, "this 'only' region is never closed with <!-- end only -->");
    free(skip);
    return NULL;
  }
  return skip;
}

/* Writes text line by line behind the container prefix; the first line gets
 * `first` (the fence line's own prefix), the others `rest`. Surrounded by
 * blank lines so it never joins a paragraph. */
static void S_put_text(S_writer *w, const char *first, const char *rest, size_t plen, const char *s, size_t len,
                       int src_line, int generated) {
  if (!w->at_blank) S_put_line(w, rest, plen, "", 0);
  S_map_add(w->map, w->line + 1, src_line, generated);
  const char *end = s + len;
  int n = 0;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
    S_put_line(w, n++ ? rest : first, plen, s, l);
    s += l + (nl ? 1 : 0);
  }
}

static size_t S_longest_run(const char *s, size_t len, char c) {
  size_t best = 0, run = 0;
  for (size_t i = 0; i < len; i++) {
    run = s[i] == c ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
}

/* Pushes the table a filter sees for block b. */
static void S_push_block(lua_State *L, const lit_block *b) {
  lua_createtable(L, 0, 8); /* t */
  if (b->lang)
    lua_pushstring(L, b->lang);
  else
    lua_pushliteral(L, "");
  lua_setfield(L, -2, "lang");
  if (b->name) {
    lua_pushstring(L, b->name);
    lua_setfield(L, -2, "name");
  }
  if (b->file) {
    lua_pushstring(L, b->file);
    lua_setfield(L, -2, "file");
  }
  lua_createtable(L, (int)b->nclasses, 0); /* t classes */
  for (size_t i = 0; i < b->nclasses; i++) {
    lua_pushstring(L, b->classes[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "classes");
  lua_pushlstring(L, b->code, b->code_len);
  lua_setfield(L, -2, "code");
  lua_pushstring(L, b->doc->src.path);
  lua_setfield(L, -2, "doc");
  lua_pushinteger(L, b->line);
  lua_setfield(L, -2, "line");
  lua_pushboolean(L, (b->flags & LIT_BLOCK_TANGLED) != 0);
  lua_setfield(L, -2, "tangled");
}

/* What becomes of a displayed block: a filter's verdict (nil, a string,
 * false, or an error), and the weaver's own for .data, .filter and .render
 * blocks. */
typedef enum {
  S_KEEP,    /* shown as code */
  S_REPLACE, /* Markdown (*md) stands in its place */
  S_DROP,    /* nothing is shown */
  S_FAILED   /* reported; the weave fails */
} S_verdict;

/* Runs the filters on b; with S_REPLACE, *md (the caller frees it). */
static S_verdict S_filter(lit_render *r, const lit_block *b, char **md, lit_diags *d) {
  lua_State *L = lit_lua_state(r->h);
  for (int i = 1; i <= r->nfilters; i++) {
    lua_getfield(L, LUA_REGISTRYINDEX, "lit.filters");                           /* filters */
    lua_rawgeti(L, -1, i);                                                       /* filters f */
    lua_remove(L, -2);                                                           /* f */
    S_push_block(L, b);                                                          /* f block */
    if (lit_lua_call(r->h, 1, 1, b->doc->src.path, b->line, d)) return S_FAILED; /* result */
    int t = lua_type(L, -1);
    if (t == LUA_TNIL) {
      lua_pop(L, 1);
      continue;
    }
    if (t == LUA_TBOOLEAN && !lua_toboolean(L, -1)) {
      lua_pop(L, 1);
      return S_DROP;
    }
    if (t == LUA_TSTRING) {
      size_t len;
      const char *s = lua_tolstring(L, -1, &len);
      *md = lit_xstrndup(s, len);
      lua_pop(L, 1);
      return S_REPLACE;
    }
    lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->col,
             "a filter returned a %s for this block; return nil (keep), false (drop) or a Markdown string",
             lua_typename(L, t));
    lua_pop(L, 1);
    return S_FAILED;
  }
  return S_KEEP;
}

static int S_render_block(lit_render *r, const lit_block *b, char **md, lit_diags *d) {
  lua_State *L = lit_lua_state(r->h);
  const char *path = b->doc->src.path;
  if (!b->lang || strcmp(b->lang, "lua") != 0)
    return S_blame(b, d, "a .render block is Lua code: write ```{.lua .render}");
  if (lit_lua_load(r->h, path, b->code_line, b->code, b->code_len, d)) return -1;
  if (lit_lua_call(r->h, 0, 1, path, b->line, d)) return -1; /* result */
  int ok = lua_type(L, -1) == LUA_TSTRING || lua_isnil(L, -1);
  if (!ok) {
    lit_diag(d, LIT_ERROR, path, b->line, b->col, "a .render block must return a Markdown string, not a %s",
             luaL_typename(L, -1));
  } else {
    size_t len = 0;
    const char *s = lua_isnil(L, -1) ? "" : lua_tolstring(L, -1, &len);
    *md = lit_xstrndup(s, len);
  }
  lua_pop(L, 1);
  return ok ? 0 : -1;
}

int lit_render_doc(lit_render *r, const lit_doc *doc, int bodies, lit_buf *out, lit_line_map *map, lit_diags *d) {
  S_writer w = {out, map, 0, 1};
  lua_State *L = lit_lua_state(r->h);
  lua_getglobal(L, "lit"); /* lit: lit.doc names the document being woven */
  if (lua_istable(L, -1)) {
    lua_pushstring(L, doc->src.path);
    lua_setfield(L, -2, "doc");
  }
  lua_pop(L, 1);
  const lit_source *src = &doc->src;
  int next = 1, status = 0;
  char *skip = S_regions(r, doc, d);
  if (!skip) return -1;
  for (size_t i = 0; i < doc->nblocks; i++) {
    const lit_block *b = doc->blocks[i];
    S_copy(&w, src, skip, next, b->line);
    next = S_block_end_line(b);
    if (skip[b->line]) continue; /* in a region for the other output: not even run */
    /* the container prefix: what precedes the fence on its line */
    size_t flen;
    const char *fl = lit_source_line(src, b->line, &flen);
    size_t plen = b->col > 1 && fl && (size_t)(b->col - 1) <= flen ? (size_t)(b->col - 1) : 0;
    char *first = lit_xstrndup(fl ? fl : "", plen), *rest = lit_xstrndup(first, plen);
    for (size_t k = 0; k < plen; k++)
      if (rest[k] != '>') rest[k] = ' ';
    char *md = NULL;
    S_verdict kind = S_KEEP;
    if (b->flags & LIT_BLOCK_DATA || S_is_filter(b)) {
      kind = S_DROP;
    } else if (lit_check_is(b)) { /* a guarded claim: fails the weave or vanishes */
      if (lit_check_run(r->h, b, d)) status = -1;
      kind = S_DROP;
    } else if (b->flags & LIT_BLOCK_RENDER) {
      if (S_render_block(r, b, &md, d)) status = -1;
      kind = md ? S_REPLACE : S_DROP;
    } else if (r->nfilters) {
      kind = S_filter(r, b, &md, d);
      if (kind == S_FAILED) {
        status = -1;
        kind = S_DROP;
      }
    }
    /* a blank line after replaced text, unless the source has one next */
    size_t nlen;
    const char *nx = lit_source_line(src, next, &nlen);
    int next_blank = !nx || skip[next] || nlen == strspn(nx, " \t>");
    if (kind == S_REPLACE) {
      S_put_text(&w, first, rest, plen, md, strlen(md), b->line, 1);
      if (!w.at_blank && !next_blank) S_put_line(&w, rest, plen, "", 0);
    } else if (kind == S_DROP) {
      if (!w.at_blank && !next_blank) S_put_line(&w, rest, plen, "", 0);
    } else {
      size_t run = bodies ? S_longest_run(b->code, b->code_len, '`') + 1 : 3;
      lit_buf fence = LIT_BUF_INIT;
      for (size_t k = 0; k < (run < 3 ? 3 : run); k++)
        lit_buf_putc(&fence, '`');
      size_t flen2 = fence.len;
      lit_buf_printf(&fence, "%s lit-block=%zu", b->lang ? b->lang : "text", b->index);
      S_map_add(w.map, w.line + 1, b->line, 0);
      S_put_line(&w, first, plen, fence.data, fence.len);
      const char *s = b->code, *end = bodies ? b->code + b->code_len : b->code;
      while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
        S_put_line(&w, rest, plen, s, l);
        s += l + (nl ? 1 : 0);
      }
      S_put_line(&w, rest, plen, fence.data, flen2);
      lit_buf_free(&fence);
    }
    free(md);
    free(first);
    free(rest);
  }
  S_copy(&w, src, skip, next, (int)src->nlines + 1);
  free(skip);
  return status;
}

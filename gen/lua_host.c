#define _POSIX_C_SOURCE 200809L
#include "lua_host.h"

#include <lauxlib.h>
#include <signal.h>
#include <unistd.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "util.h"

struct lit_lua {
  lua_State *L;
  unsigned seconds; /* wall-clock limit of one call */
  size_t used, mem_limit;
  unsigned long instr, instr_limit;
  int exhausted; /* this call spent its budget: every later hook raises again */
  char **paths;  /* every chunk path loaded, to undo Lua's "..." truncation */
  size_t npaths;
};

enum { S_HOOK_EVERY = 1000 };

/* Counts every byte the state holds and refuses to grow past the cap; Lua
 * turns the refusal into a "not enough memory" error. */
static void *S_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  lit_lua *h = ud;
  size_t old = ptr ? osize : 0;
  if (nsize == 0) {
    free(ptr);
    h->used -= old;
    return NULL;
  }
  if (nsize > old && h->used - old + nsize > h->mem_limit) return NULL;
  void *p = realloc(ptr, nsize);
  if (!p) return NULL;
  h->used = h->used - old + nsize;
  return p;
}

/* The budget's error is an ordinary one, which pcall can catch: once it is
 * spent, the hook runs after every instruction and raises again, so a block
 * that catches it cannot run on (to the wall-clock alarm) and the error
 * reaches lit_lua_call. The message handler there is C, which the count
 * hook never interrupts. */
static void S_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lit_lua *h;
  lua_getallocf(L, (void **)&h);
  h->instr += (unsigned long)lua_gethookcount(L); /* 1 once the budget is spent */
  if (h->exhausted || h->instr > h->instr_limit) {
    h->exhausted = 1;
    lua_sethook(L, S_hook, LUA_MASKCOUNT, 1);
    luaL_where(L, 0); /* where: in a hook, level 0 is the Lua function that was running */
    lua_pushfstring(L, "instruction budget of %I exceeded (an endless loop?)", (lua_Integer)h->instr_limit);
    lua_concat(L, 2); /* where..message */
    lua_error(L);
  }
}

/* load(chunk [, chunkname [, mode [, env]]]) with mode forced to "t":
 * bytecode never reaches the VM. Upvalue 1 is the base library's load. */
static int S_load_text(lua_State *L) {
  int n = lua_gettop(L);
  luaL_checkany(L, 1);
  if (n >= 3 && !lua_isnil(L, 3) && strcmp(luaL_checkstring(L, 3), "t") != 0)
    return luaL_error(L, "load: only text chunks may be loaded (mode \"t\")");
  lua_pushvalue(L, lua_upvalueindex(1)); /* ... load */
  lua_pushvalue(L, 1);                   /* ... load chunk */
  if (n >= 2)
    lua_pushvalue(L, 2);
  else
    lua_pushnil(L);                /* ... load chunk name */
  lua_pushliteral(L, "t");         /* ... load chunk name "t" */
  if (n >= 4) lua_pushvalue(L, 4); /* ... load chunk name "t" env */
  lua_call(L, n >= 4 ? 4 : 3, LUA_MULTRET);
  return lua_gettop(L) - n;
}

/* setmetatable without finalizers: Lua runs __gc with hooks off, so a
 * finalizer could loop past the instruction budget. Upvalue 1 is the base
 * library's setmetatable. */
static int S_setmetatable(lua_State *L) {
  if (lua_istable(L, 2)) {
    lua_pushliteral(L, "__gc"); /* t mt "__gc" */
    if (lua_rawget(L, 2) != LUA_TNIL) return luaL_error(L, "setmetatable: __gc finalizers are not allowed here");
    lua_pop(L, 1);
  }
  lua_settop(L, 2);
  lua_pushvalue(L, lua_upvalueindex(1)); /* t mt setmetatable */
  lua_insert(L, 1);                      /* setmetatable t mt */
  lua_call(L, 2, 1);                     /* t */
  return 1;
}

/* Appends s[0..len) to out as lit_diag would write it, but for its
 * newlines and tabs, which a print may mean. */
static void S_print_escaped(lit_buf *out, const char *s, size_t len) {
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && s[i] != '\n' && s[i] != '\t') continue;
    lit_diag_escape(out, s + start, i - start);
    if (i < len) lit_buf_putc(out, s[i]);
    start = i + 1;
  }
}

/* print goes to stderr: stdout may carry a command's real output. A
 * document of a project someone else wrote must not reach the terminal
 * (an escape sequence can set its title or the clipboard), so control
 * characters and bytes that are not UTF-8 are escaped. */
static int S_print(lua_State *L) {
  int n = lua_gettop(L);
  /* every value's text first: a __tostring may raise, which would jump
   * past the buffer's release */
  luaL_checkstack(L, n, "too many values to print");
  for (int i = 1; i <= n; i++)
    luaL_tolstring(L, i, NULL); /* values... texts... */
  lit_buf line = LIT_BUF_INIT;
  for (int i = 1; i <= n; i++) {
    size_t len;
    const char *s = lua_tolstring(L, n + i, &len);
    if (i > 1) lit_buf_putc(&line, '\t');
    S_print_escaped(&line, s, len);
  }
  lit_buf_putc(&line, '\n');
  fwrite(line.data, 1, line.len, stderr);
  lit_buf_free(&line);
  return 0;
}

static int S_open(lua_State *L) {
  static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},       {LUA_STRLIBNAME, luaopen_string},
                                  {LUA_TABLIBNAME, luaopen_table}, {LUA_MATHLIBNAME, luaopen_math},
                                  {LUA_UTF8LIBNAME, luaopen_utf8}, {NULL, NULL}};
  for (const luaL_Reg *l = libs; l->func; l++) {
    luaL_requiref(L, l->name, l->func, 1); /* lib */
    lua_pop(L, 1);
  }
  static const char *const gone[] = {"dofile", "loadfile", "collectgarbage", "require", NULL};
  for (size_t i = 0; gone[i]; i++) {
    lua_pushnil(L);
    lua_setglobal(L, gone[i]);
  }
  lua_getglobal(L, "string"); /* string */
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);
  lua_getglobal(L, "load");            /* load */
  lua_pushcclosure(L, S_load_text, 1); /* wrapped */
  lua_setglobal(L, "load");
  lua_pushcfunction(L, S_print);
  lua_setglobal(L, "print");
  lua_getglobal(L, "setmetatable");       /* setmetatable */
  lua_pushcclosure(L, S_setmetatable, 1); /* wrapped */
  lua_setglobal(L, "setmetatable");
  /* a fixed seed: the same documents weave to the same bytes */
  lua_getglobal(L, "math");          /* math */
  lua_getfield(L, -1, "randomseed"); /* math randomseed */
  lua_pushinteger(L, 0);             /* math randomseed 0 */
  lua_call(L, 1, 0);                 /* math */
  lua_pop(L, 1);
  return 0;
}

/* The instruction budget cannot stop a C function (a slow string pattern,
 * say), so each call also runs under an alarm. Its handler can only say
 * where and exit: nothing has been written yet, since outputs are written
 * after the whole weave. The message is formatted before the call. */
static char S_alarm_msg[700];
static size_t S_alarm_len;
static const char *S_alarm_note = "nothing was written";

void lit_lua_set_alarm_note(const char *note) { S_alarm_note = note; }

static void S_on_alarm(int sig) {
  (void)sig;
  ssize_t n = write(2, S_alarm_msg, S_alarm_len);
  (void)n;
  _exit(1);
}

/* The alarm's message, in lit_diag's shape (the path escaped as it
 * would escape it), cut to the buffer at a line's end. */
static void S_alarm_format(const char *path, int line, unsigned seconds) {
  lit_buf b = LIT_BUF_INIT;
  lit_diag_escape(&b, path, strlen(path));
  lit_buf_printf(&b, ":%d:1: error: this Lua block ran for more than %u s (a slow string pattern?)\n", line, seconds);
  if (S_alarm_note) lit_buf_printf(&b, "lit: note: %s\n", S_alarm_note);
  S_alarm_len = b.len < sizeof S_alarm_msg ? b.len : sizeof S_alarm_msg;
  memcpy(S_alarm_msg, b.data, S_alarm_len);
  S_alarm_msg[S_alarm_len - 1] = '\n';
  lit_buf_free(&b);
}

lit_lua *lit_lua_new(const lit_lua_limits *limits) {
  lit_lua *h = lit_xcalloc(1, sizeof *h);
  const char *env = getenv("LIT_LUA_SECONDS");
  h->seconds = env && atoi(env) > 0 ? (unsigned)atoi(env) : 60;
  h->mem_limit = limits && limits->mem_limit ? limits->mem_limit : (size_t)256 << 20;
  h->instr_limit = limits && limits->instr_limit ? limits->instr_limit : 20000000UL;
  h->L = lua_newstate(S_alloc, h);
  if (!h->L) {
    fputs("lit: cannot create a Lua state\n", stderr);
    abort();
  }
  lua_sethook(h->L, S_hook, LUA_MASKCOUNT, S_HOOK_EVERY); /* always on; each lit_lua_call resets the budget */
  lua_pushcfunction(h->L, S_open);
  if (lua_pcall(h->L, 0, 0, 0) != LUA_OK) {
    fprintf(stderr, "lit: cannot open the Lua libraries: %s\n", lua_tostring(h->L, -1));
    abort();
  }
  return h;
}

void lit_lua_free(lit_lua *h) {
  if (!h) return;
  lua_close(h->L);
  for (size_t i = 0; i < h->npaths; i++)
    free(h->paths[i]);
  free(h->paths);
  free(h);
}

lua_State *lit_lua_state(lit_lua *h) { return h->L; }

static void S_remember(lit_lua *h, const char *path) {
  for (size_t i = 0; i < h->npaths; i++)
    if (strcmp(h->paths[i], path) == 0) return;
  h->paths = lit_xrealloc(h->paths, (h->npaths + 1) * sizeof(char *));
  h->paths[h->npaths++] = lit_xstrdup(path);
}

static int S_digit(char c) { return c >= '0' && c <= '9'; }

static int S_path_end(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '<' || c == '\'' || c == '"' || c == '(';
}

/* Lua shortens long chunk names to "...tail"; finds the path with that tail. */
static const char *S_untruncate(const lit_lua *h, const char *tail, size_t len) {
  for (size_t i = 0; i < h->npaths; i++) {
    size_t pl = strlen(h->paths[i]);
    if (pl >= len && memcmp(h->paths[i] + pl - len, tail, len) == 0) return h->paths[i];
  }
  return NULL;
}

static char *S_map(const lit_lua *h, const char *msg) {
  lit_buf out = LIT_BUF_INIT;
  size_t n = strlen(msg), copied = 0;
  for (size_t i = 0; i < n; i++) {
    if (msg[i] != ':' || !S_digit(msg[i + 1])) continue;
    size_t j = i + 1;
    long base = 0, rel = 0;
    while (S_digit(msg[j]))
      base = base * 10 + (msg[j++] - '0');
    if (msg[j] != ':' || !S_digit(msg[j + 1])) continue;
    j++;
    while (S_digit(msg[j]))
      rel = rel * 10 + (msg[j++] - '0');
    if (msg[j] != ':' && msg[j] != '>') continue;
    size_t start = i;
    while (start > copied && !S_path_end(msg[start - 1]))
      start--;
    if (start == i) continue;
    const char *path = msg + start;
    size_t plen = i - start;
    if (plen > 3 && memcmp(path, "...", 3) == 0) {
      const char *full = S_untruncate(h, path + 3, plen - 3);
      if (full) {
        path = full;
        plen = strlen(full);
      }
    }
    if (h->npaths) { /* only chunk names this host made: "file.json:1:13:" in a message stays */
      int known = 0;
      for (size_t k = 0; k < h->npaths && !known; k++)
        known = strlen(h->paths[k]) == plen && memcmp(h->paths[k], path, plen) == 0;
      if (!known) continue;
    }
    lit_buf_put(&out, msg + copied, start - copied);
    lit_buf_put(&out, path, plen);
    lit_buf_printf(&out, ":%ld", base + rel - 1);
    copied = j;
    i = j - 1;
  }
  lit_buf_put(&out, msg + copied, n - copied);
  return lit_buf_detach(&out);
}

char *lit_lua_map_locations(const char *msg) {
  lit_lua none = {0};
  return S_map(&none, msg);
}

/* Reports a mapped Lua message: its location, if it names a Markdown file,
 * becomes the diagnostic's; frames of the traceback in Markdown files
 * become notes. */
static void S_report(lit_lua *h, const char *raw, const char *path, int line, lit_diags *d) {
  char *msg = S_map(h, raw);
  char *tb = strstr(msg, "\nstack traceback:");
  if (tb) *tb++ = '\0';
  const char *text = msg;
  char *file = NULL;
  int at = line;
  for (size_t i = 0; i < h->npaths; i++) {
    size_t pl = strlen(h->paths[i]);
    if (strncmp(msg, h->paths[i], pl) == 0 && msg[pl] == ':' && S_digit(msg[pl + 1])) {
      char *end;
      at = (int)strtol(msg + pl + 1, &end, 10);
      if (*end == ':') {
        file = h->paths[i];
        text = end + 1;
        while (*text == ' ')
          text++;
      }
      break;
    }
  }
  lit_diag(d, LIT_ERROR, file ? file : path, file ? at : line, 1, "%s", text);
  if (tb) {
    size_t frames = 0;
    for (char *l = strtok(tb, "\n"); l; l = strtok(NULL, "\n")) {
      while (*l == '\t' || *l == ' ')
        l++;
      for (size_t i = 0; i < h->npaths; i++) {
        size_t pl = strlen(h->paths[i]);
        if (strncmp(l, h->paths[i], pl) == 0 && l[pl] == ':' && S_digit(l[pl + 1])) {
          char *end;
          int fl = (int)strtol(l + pl + 1, &end, 10);
          if (frames++ > 0 && *end == ':') lit_diag(d, LIT_NOTE, h->paths[i], fl, 1, "called from here%s", end + 1);
          break;
        }
      }
    }
  }
  free(msg);
}

int lit_lua_load(lit_lua *h, const char *path, int line, const char *code, size_t len, lit_diags *d) {
  S_remember(h, path);
  char name[512];
  snprintf(name, sizeof name, "@%s:%d", path, line);
  int r = luaL_loadbufferx(h->L, code, len, name, "t"); /* f | msg */
  if (r == LUA_OK) return 0;
  if (!d) return -1;
  S_report(h, r == LUA_ERRMEM ? "not enough memory" : lua_tostring(h->L, -1), path, line, d);
  lua_pop(h->L, 1);
  return -1;
}

static int S_msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1); /* msg traceback */
  return 1;
}

int lit_lua_call(lit_lua *h, int nargs, int nresults, const char *path, int line, lit_diags *d) {
  lua_State *L = h->L;
  int base = lua_gettop(L) - nargs;   /* the function's index */
  lua_pushcfunction(L, S_msghandler); /* f args handler */
  lua_insert(L, base);                /* handler f args */
  h->instr = 0;
  h->exhausted = 0;
  lua_sethook(L, S_hook, LUA_MASKCOUNT, S_HOOK_EVERY); /* a fresh budget, counted every S_HOOK_EVERY again */
  S_alarm_format(path, line, h->seconds);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = S_on_alarm;
  sigaction(SIGALRM, &sa, NULL);
  alarm(h->seconds);
  int r = lua_pcall(L, nargs, nresults, base);
  alarm(0);
  if (r != LUA_OK) { /* handler msg */
    if (r == LUA_ERRMEM) {
      char msg[128];
      snprintf(msg, sizeof msg, "memory cap of %zu bytes exceeded", h->mem_limit);
      S_report(h, msg, path, line, d);
    } else {
      const char *m = lua_tostring(L, -1);
      S_report(h, m ? m : "error in the error handler", path, line, d);
    }
    lua_settop(L, base - 1);
    return -1;
  }
  lua_remove(L, base); /* results */
  return 0;
}

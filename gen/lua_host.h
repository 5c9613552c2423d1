/* lua_host.h: a sandboxed Lua 5.4 state for the weaver.
 *
 * The state opens only the base, string, table, math and utf8 libraries.
 * dofile, loadfile, require, collectgarbage and string.dump are gone, and
 * load accepts text chunks only, so no bytecode ever reaches the VM;
 * setmetatable refuses __gc (Lua runs finalizers with hooks off, out of
 * the budget's reach). Every
 * call runs under an instruction budget (a count hook) and the whole state
 * under a memory cap (a counting allocator); both end the call with an
 * ordinary Lua error. A C function the budget cannot interrupt (a slow
 * string pattern) meets a wall-clock alarm instead (60 s a call, or
 * LIT_LUA_SECONDS), which reports the block and exits with status 1: a C
 * function cannot be left safely from a signal handler. A program that
 * must outlive a runaway block (lit serve) runs the weave in a child
 * process.
 *
 * Chunks are named "@path:LINE" where LINE is the Markdown line of the
 * chunk's first line; lit_lua_call rewrites "path:LINE:n:" in messages and
 * tracebacks to "path:(LINE+n-1):", so an error names the Markdown file and
 * line the user must edit, and reports it through the diagnostics.
 *
 * Ownership: lit_lua_new returns a host the caller frees with lit_lua_free
 * (which closes the state). The lua_State stays owned by the host. */
#ifndef LIT_LUA_HOST_H
#define LIT_LUA_HOST_H

#include <lua.h>
#include <stddef.h>

#include "diag.h"

typedef struct lit_lua lit_lua;

typedef struct {
  size_t mem_limit;          /* bytes the whole state may hold; 0: 256 MiB */
  unsigned long instr_limit; /* VM instructions per top-level call; 0: 20 million */
} lit_lua_limits;

/* limits may be NULL for the defaults. */
lit_lua *lit_lua_new(const lit_lua_limits *limits);
void lit_lua_free(lit_lua *h);
lua_State *lit_lua_state(lit_lua *h);

/* Compiles code (text only) as a function named "@path:line" and pushes it.
 * Returns 0, or -1 after reporting the syntax error through d (at path and
 * the mapped line); with d NULL the error message is left pushed instead,
 * for a C function that raises it as a Lua error. */
int lit_lua_load(lit_lua *h, const char *path, int line, const char *code, size_t len, lit_diags *d);

/* Calls the function below nargs arguments on the stack, like lua_pcall,
 * with a traceback handler and a fresh instruction budget. On error reports
 * it through d (located where the Lua error points; path/line are the
 * fallback) and returns -1 with nothing pushed; else 0 with nresults pushed. */
int lit_lua_call(lit_lua *h, int nargs, int nresults, const char *path, int line, lit_diags *d);

/* The note the alarm prints after its error before it exits: "nothing was
 * written" unless set; NULL for none (lit serve's build, in a child process,
 * whose parent says what stays in place). The string must outlive every call. */
void lit_lua_set_alarm_note(const char *note);

/* Rewrites every "@?path:BASE:n:" chunk location in msg to "path:(BASE+n-1):".
 * The caller frees the result. Exposed for the tests. */
char *lit_lua_map_locations(const char *msg);

#endif

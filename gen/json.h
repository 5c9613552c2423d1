/* json.h: JSON text straight into Lua values, for the weaver's results().
 *
 * Objects become tables with string keys, arrays tables with keys 1..n,
 * null becomes a light userdata sentinel (json.null) so a present-but-null
 * field is not mistaken for a missing one. With `strict`, every object and
 * array gets a metatable whose __index raises an error naming the file and
 * the field path ("runs[2].median_us") for a missing string key, so a
 * document that names a field the benchmark did not write fails the weave.
 * Integer keys past the end of an array stay nil (ipairs must stop).
 *
 * Nothing is allocated outside Lua, so a Lua error during decoding leaks
 * nothing. */
#ifndef LIT_JSON_H
#define LIT_JSON_H

#include <lua.h>
#include <stddef.h>

/* Pushes the decoded value and returns 0; or returns -1, pushes nothing and
 * writes "line:col: message" into err. `file` names the file in strict
 * errors (it is copied into Lua). */
int lit_json_push(lua_State *L, const char *text, size_t len, const char *file, int strict, char *err, size_t errlen);

#endif

/* claims.h: guarded claims. A ```{.lua .check} block follows the paragraph
 * that states a measured claim and holds a Lua assertion over the results:
 *
 *   From 16 MB up, the wide rows keep their lead on the H200.
 *
 *   ```{.lua .check}
 *   -- claim: From 16 MB up
 *   local r = results("references/results/rmsnorm_h200.json")
 *   ...
 *   return ok, "why not"
 *   ```
 *
 * The block runs in the renderer's Lua state (results, data, fmt, lit) and
 * vanishes from every output. It passes when it returns true. Returning
 * false or nil (with an optional second value, the reason), or a string
 * (the reason), fails the weave with an error at the claim: the line and
 * column, in the paragraph just above the block, where the text after
 * "-- claim:" on the block's first line begins, or the paragraph's first
 * line when there is no such comment. A claim text that is not in that
 * paragraph is an error at the block. A Lua error is reported where it
 * happens, as in a .render block. */
#ifndef LIT_CLAIMS_H
#define LIT_CLAIMS_H

#include "lua_host.h"
#include "model.h"

/* Whether b is a check block (a block with the class "check"). */
int lit_check_is(const lit_block *b);

/* Runs check block b in h's state. Returns 0 when the claim holds, or -1
 * after reporting through d. */
int lit_check_run(lit_lua *h, const lit_block *b, lit_diags *d);

#endif

/* check_specs.c: every hardware figure of the repository's GPU
 * specification data names an NVIDIA document.
 *
 * Loads the real project (the tests run in tests/, so the root is ..), runs
 * its `.data #gpu-specs` block in the weaver's sandbox, and walks the table:
 * each figure must be {v = value, src = key} with key naming an entry of
 * `sources` that has a title and an https address. Every figure is printed
 * beside its source, so the test's log is the list a reviewer checks the
 * numbers against. */
#include "check_lit.h"

#include <lauxlib.h>

#include "lua_host.h"

/* Walks the data table (argument 1); returns the number of problems and a
 * report of every figure beside its source. */
static const char S_checker[] =
    "local d = ...\n"
    "local out, bad = {}, 0\n"
    "local descriptive = { id = true, name = true, cc = true, target = true }\n"
    "local function problem(msg) bad = bad + 1; out[#out + 1] = 'PROBLEM ' .. msg end\n"
    "if type(d) ~= 'table' or type(d.sources) ~= 'table' then return 1, 'no sources table' end\n"
    "for key, s in pairs(d.sources) do\n"
    "  if type(s.title) ~= 'string' or s.title == '' then problem(key .. ': source without a title') end\n"
    "  if type(s.url) ~= 'string' or not s.url:match('^https://') then problem(key .. ': source without an https address') end\n"
    "end\n"
    "local function value(v)\n"
    "  if type(v) == 'table' then local t = {} for i, x in ipairs(v) do t[i] = tostring(x) end return '{' .. table.concat(t, ', ') .. '}' end\n"
    "  return tostring(v)\n"
    "end\n"
    "local function walk(owner, entry)\n"
    "  local keys = {}\n"
    "  for k in pairs(entry) do keys[#keys + 1] = k end\n"
    "  table.sort(keys)\n"
    "  for _, k in ipairs(keys) do\n"
    "    local f = entry[k]\n"
    "    if not descriptive[k] then\n"
    "      if type(f) ~= 'table' or f.v == nil then problem(owner .. '.' .. k .. ': a figure without {v = ..., src = ...}')\n"
    "      elseif d.sources[f.src] == nil then problem(owner .. '.' .. k .. ': source ' .. tostring(f.src) .. ' is not in sources')\n"
    "      else out[#out + 1] = string.format('%-14s %-24s %-28s %s', owner, k, value(f.v), d.sources[f.src].title) end\n"
    "    end\n"
    "  end\n"
    "end\n"
    "local n = 0\n"
    "local archs = {}\n"
    "for cc in pairs(d.archs or {}) do archs[#archs + 1] = cc end\n"
    "table.sort(archs)\n"
    "for _, cc in ipairs(archs) do walk('cc ' .. cc, d.archs[cc]); n = n + 1 end\n"
    "for _, g in ipairs(d.gpus or {}) do walk(g.id or '?', g); n = n + 1 end\n"
    "if n == 0 then problem('no architectures or products') end\n"
    "return bad, table.concat(out, '\\n')\n";

START_TEST(test_every_figure_names_its_source) {
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load("..", "index.md", d);
  ck_assert_ptr_nonnull(p);
  lit_chunk *c = lit_project_find(p, "gpu-specs", strlen("gpu-specs"));
  ck_assert_msg(c != NULL && c->is_data, "references must define the .data block #gpu-specs");
  ck_assert_uint_eq(c->ndefs, 1);
  const lit_block *b = c->defs[0];
  lit_lua *h = lit_lua_new(NULL);
  lua_State *L = lit_lua_state(h);
  ck_assert_int_eq(lit_lua_load(h, b->doc->src.path, b->code_line, b->code, b->code_len, d), 0);
  ck_assert_int_eq(lit_lua_call(h, 0, 1, b->doc->src.path, b->code_line, d), 0); /* data table */
  ck_assert_int_eq(lit_lua_load(h, "tests/check_specs.c", 1, S_checker, strlen(S_checker), d), 0);
  lua_insert(L, -2); /* checker, data */
  ck_assert_int_eq(lit_lua_call(h, 1, 2, "tests/check_specs.c", 1, d), 0);
  lua_Integer problems = lua_tointeger(L, -2);
  const char *report = lua_tostring(L, -1);
  ck_assert_ptr_nonnull(report);
  printf("GPU specification figures and their sources (%s):\n%s\n", b->doc->src.path, report);
  ck_assert_msg(problems == 0, "%lld problems in the specification data:\n%s", (long long)problems, report);
  ck_assert_ptr_nonnull(strstr(report, "NVIDIA")); /* the figures were listed, with NVIDIA documents */
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_lua_free(h);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

Suite *specs_suite(void) {
  Suite *s = suite_create("specs");
  TCase *tc = tcase_create("gpu-specs");
  tcase_add_test(tc, test_every_figure_names_its_source);
  suite_add_tcase(s, tc);
  return s;
}

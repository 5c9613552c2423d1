/* check_specs.c: the repository's GPU specification data keeps its rules.
 *
 * An integration test: it loads the repository's own documents (the suite
 * runs in tests/integration/, so the root is ../..), runs the
 * `.data #gpu-specs` block in the weaver's sandbox, and hands the table to
 * tests/integration/check_specs.lua: every figure names an NVIDIA document of
 * `sources` (title and https address); a derived figure says how it was
 * derived; a dense Tensor Core figure printed beside its sparse one is half
 * of it; every product has a boost clock (or a none marker naming the
 * documents checked) and a dense figure for each data type its Tensor Cores
 * take. Every figure is printed beside its source, so the test's log is the
 * list a reviewer checks the numbers against.
 *
 * A second test plants one fault at a time in a small valid table and
 * expects the checker to name it, so the rules cannot pass vacuously. */
#include "check_lit.h"

#include <lauxlib.h>

#include "lua_host.h"

#define S_CHECKER "check_specs.lua"

/* Runs the checker on the table at the top of h's stack (popped). Returns the
 * number of problems; *report is the checker's report, which the caller
 * frees. */
static long S_run_checker(lit_lua *h, char **report) {
  lua_State *L = lit_lua_state(h);
  lit_buf code = LIT_BUF_INIT;
  ck_assert_msg(lit_read_file(S_CHECKER, &code) == 0, "cannot read tests/integration/" S_CHECKER);
  lit_diags *d = lit_diags_new();
  ck_assert_int_eq(lit_lua_load(h, "tests/integration/" S_CHECKER, 1, code.data, code.len, d), 0); /* data checker */
  lua_insert(L, -2);                                                                   /* checker data */
  ck_assert_int_eq(lit_lua_call(h, 1, 2, "tests/integration/" S_CHECKER, 1, d), 0);                /* count report */
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  ck_assert(lua_isinteger(L, -2));
  long problems = (long)lua_tointeger(L, -2);
  const char *text = lua_tostring(L, -1);
  ck_assert_ptr_nonnull(text);
  *report = lit_xstrdup(text);
  lua_pop(L, 2);
  lit_buf_free(&code);
  lit_diags_free(d);
  return problems;
}

START_TEST(test_every_figure_names_its_source) {
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load("../..", "index.md", d);
  ck_assert_ptr_nonnull(p);
  lit_chunk *c = lit_project_find(p, "gpu-specs", strlen("gpu-specs"));
  ck_assert_msg(c != NULL && c->is_data, "references must define the .data block #gpu-specs");
  ck_assert_uint_eq(c->ndefs, 1);
  const lit_block *b = c->defs[0];
  lit_lua *h = lit_lua_new(NULL);
  ck_assert_int_eq(lit_lua_load(h, b->doc->src.path, b->code_line, b->code, b->code_len, d), 0);
  ck_assert_int_eq(lit_lua_call(h, 0, 1, b->doc->src.path, b->code_line, d), 0); /* data table */
  char *report = NULL;
  long problems = S_run_checker(h, &report);
  printf("GPU specification figures and their sources (%s):\n%s\n", b->doc->src.path, report);
  /* Check's messages have a size limit: the problems only, they come last */
  const char *first = strstr(report, "PROBLEM");
  ck_assert_msg(problems == 0, "%ld problems in the specification data:\n%.4000s", problems, first ? first : "");
  /* the figures were listed, with NVIDIA documents and the derivations */
  ck_assert_ptr_nonnull(strstr(report, "NVIDIA"));
  ck_assert_ptr_nonnull(strstr(report, "derived: "));
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  free(report);
  lit_lua_free(h);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* A small table that keeps every rule; each case below breaks one. */
static const char S_valid[] =
    "local s = { title = 'NVIDIA X datasheet', url = 'https://nvidia.example/x.pdf' }\n"
    "local d = { sources = { x = s }, archs = {}, gpus = {} }\n"
    "d.archs['9.0'] = { name = 'Hopper', target = 'sm_90', warp_size = { v = 32, src = 'x' },\n"
    "  max_cluster_portable = { v = 8, src = 'x' }, max_cluster_nonportable = { v = 16, src = 'x' } }\n"
    "local g = { id = 'g', name = 'G', cc = '9.0',\n"
    "  sms = { none = 'the X datasheet gives none' },\n"
    "  memory = { v = '80 GB', src = 'x' }, dram_gbs = { v = 3000, src = 'x' },\n"
    "  l2_mb = { v = 50, src = 'x' }, tensor_types = { v = { 'FP16', 'BF16', 'INT4' }, src = 'x' },\n"
    "  boost_clock_mhz = { v = 1800, src = 'x' }, base_clock_mhz = { v = 1000, src = 'x' },\n"
    "  tc_clock_mhz = { v = 1700, src = 'x' },\n"
    "  tc_fp16_tflops = { v = 989.4, sparse = 1978.9, src = 'x' },\n"
    "  tc_bf16_tflops = { v = 835.5, sparse = 1671, src = 'x', derived = 'half of 1671' } }\n"
    "d.gpus[1] = g\n";

static const struct {
  const char *plant;  /* Lua run after S_valid: breaks one rule */
  const char *reason; /* what the checker must say; NULL: nothing */
} S_faults[] = {
    {"", NULL},
    {"g.sms = { v = 132 }", "g.sms: a figure that names no source"},
    {"g.sms = { v = 132, src = 'y' }", "g.sms: source y is not in sources"},
    {"g.tc_bf16_tflops.derived = ''", "g.tc_bf16_tflops: a derived figure must say how"},
    {"g.tc_bf16_tflops.derived = true", "g.tc_bf16_tflops: a derived figure must say how"},
    {"g.tc_bf16_tflops.derivation = 'half'", "unknown key 'derivation'"},
    {"g.tc_fp16_tflops.v = 1978.9", "dense 1978.9 is not below the sparse 1978.9"},
    {"g.tc_fp16_tflops.v = 900", "dense 900 is not half the sparse 1978.9"},
    {"g.tc_bf16_tflops = nil", "g: its Tensor Cores take BF16 but it has no dense tc_bf16_tflops figure"},
    {"g.tc_bf16_tflops = nil; g.tc_fp16_tflops = nil; g.tensor_types.v = { 'INT4' }",
     "g: no dense BF16 figure (or FP16"},
    {"g.tc_fp8_tflops = { v = 1978.9, src = 'x' }", "tc_fp8_tflops, but FP8 is not among its Tensor Core types"},
    {"g.boost_clock_mhz = nil", "g: no boost_clock_mhz"},
    {"g.boost_clock_mhz = { none = '' }", "g.boost_clock_mhz: a none marker must say which documents"},
    {"g.dram_gbs = { none = 'not in the X datasheet' }", "g: dram_gbs must be a figure"},
    {"g.base_clock_mhz.v = 1900", "g: the base clock is not below the boost clock"},
    {"g.tc_clock_mhz.v = 1900", "g: the Tensor Core clock is above the boost clock"},
    {"g.tc_bf16_flops = { v = 1, src = 'x' }", "g.tc_bf16_flops: not a product field"},
    {"g.cc = '9.9'", "g: cc 9.9 is not in archs"},
    {"g.l2_mb.v = -50", "g.l2_mb: -50 is not a positive number"},
    {"d.archs['9.0'].max_cluster_nonportable = nil", "cc 9.0: a portable cluster size without the opt-in one"},
    {"d.archs['9.0'].max_cluster_nonportable.v = 4", "the opt-in cluster size 4 is below the portable 8"},
    {"d.sources.x.url = 'http://nvidia.example/x.pdf'", "x: source without an https address"},
    {"d.gpus[2] = g", "g: the id is used twice"},
};

START_TEST(test_planted_faults) {
  lit_lua *h = lit_lua_new(NULL);
  lit_diags *d = lit_diags_new();
  char *code = lit_xasprintf("%s%s\nreturn d\n", S_valid, S_faults[_i].plant);
  ck_assert_int_eq(lit_lua_load(h, "planted", 1, code, strlen(code), d), 0);
  ck_assert_int_eq(lit_lua_call(h, 0, 1, "planted", 1, d), 0); /* data table */
  char *report = NULL;
  long problems = S_run_checker(h, &report);
  if (S_faults[_i].reason == NULL) {
    ck_assert_msg(problems == 0, "the valid table was refused:\n%.4000s", report);
  } else {
    ck_assert_msg(problems > 0, "planted `%s`, but the checker found nothing:\n%.4000s", S_faults[_i].plant, report);
    ck_assert_msg(strstr(report, S_faults[_i].reason) != NULL, "planted `%s`, expected \"%s\" in:\n%.4000s",
                  S_faults[_i].plant, S_faults[_i].reason, report);
  }
  free(report);
  free(code);
  lit_diags_free(d);
  lit_lua_free(h);
}
END_TEST

Suite *specs_suite(void) {
  Suite *s = suite_create("specs");
  TCase *tc = tcase_create("gpu-specs");
  tcase_add_test(tc, test_every_figure_names_its_source);
  tcase_add_loop_test(tc, test_planted_faults, 0, (int)(sizeof S_faults / sizeof S_faults[0]));
  suite_add_tcase(s, tc);
  return s;
}

/* check_lua_host.c: the weaver's Lua sandbox and its error locations. */
#include "check_lit.h"

#include <lauxlib.h>

#include "lua_host.h"

/* Runs code as the chunk of a block whose first line is `line` of x.md;
 * returns 0 or -1, with the messages in *diags (caller frees). */
static int S_run(lit_lua *h, const char *code, int line, char **diags) {
  lit_diags *d = lit_diags_new();
  int r = lit_lua_load(h, "x.md", line, code, strlen(code), d);
  if (r == 0) r = lit_lua_call(h, 0, 1, "x.md", line, d);
  if (r == 0) lua_pop(lit_lua_state(h), 1);
  *diags = ck_diags_text(d);
  lit_diags_free(d);
  return r;
}

/* The value code returns, as a string (caller frees), or NULL on error. */
static char *S_eval(lit_lua *h, const char *code) {
  lit_diags *d = lit_diags_new();
  char *out = NULL;
  if (lit_lua_load(h, "x.md", 1, code, strlen(code), d) == 0 && lit_lua_call(h, 0, 1, "x.md", 1, d) == 0) {
    out = lit_xstrdup(luaL_tolstring(lit_lua_state(h), -1, NULL));
    lua_pop(lit_lua_state(h), 2);
  }
  lit_diags_free(d);
  return out;
}

START_TEST(test_only_safe_libraries) {
  lit_lua *h = lit_lua_new(NULL);
  static const char *const gone[] = {"io",     "os",       "package",        "debug",       "require",
                                     "dofile", "loadfile", "collectgarbage", "string.dump", NULL};
  for (size_t i = 0; gone[i]; i++) {
    char *code = lit_xasprintf("return type(%s)", gone[i]);
    char *v = S_eval(h, code);
    ck_assert_msg(v && strcmp(v, "nil") == 0, "%s is reachable: %s", gone[i], v ? v : "(error)");
    free(v);
    free(code);
  }
  static const char *const kept[] = {"string.format", "table.concat", "math.floor", "utf8.char", "pairs", "load", NULL};
  for (size_t i = 0; kept[i]; i++) {
    char *code = lit_xasprintf("return type(%s)", kept[i]);
    char *v = S_eval(h, code);
    ck_assert_msg(v && strcmp(v, "function") == 0, "%s is missing", kept[i]);
    free(v);
    free(code);
  }
  lit_lua_free(h);
}
END_TEST

START_TEST(test_load_refuses_bytecode) {
  lit_lua *h = lit_lua_new(NULL);
  /* a binary chunk header: load must refuse it, whatever mode is asked for */
  char *v = S_eval(h, "local f, e = load('\\27Lua\\84\\0', 'b', 'b') return e");
  ck_assert_ptr_null(v); /* asking for mode "b" is itself an error */
  v = S_eval(h, "local f, e = load('\\27Lua\\84\\0') return tostring(f) .. ' ' .. e");
  ck_assert_ptr_nonnull(v);
  ck_assert_msg(strstr(v, "nil") == v && strstr(v, "binary"), "binary chunk was not refused: %s", v);
  free(v);
  v = S_eval(h, "return load('return 1 + 1')()"); /* text chunks still load */
  ck_assert_str_eq(v, "2");
  free(v);
  v = S_eval(h, "local env = { x = 5 } return load('return x', 'c', 't', env)()");
  ck_assert_str_eq(v, "5");
  free(v);
  lit_lua_free(h);
}
END_TEST

START_TEST(test_instruction_budget) {
  lit_lua_limits lim = {0, 100000};
  lit_lua *h = lit_lua_new(&lim);
  char *diags;
  ck_assert_int_eq(S_run(h, "local n = 0\nwhile true do n = n + 1 end\n", 10, &diags), -1);
  ck_assert_msg(strstr(diags, "x.md:11:1: error:") && strstr(diags, "instruction budget"), "%s", diags);
  free(diags);
  /* the budget is per call: a later, short call runs */
  ck_assert_int_eq(S_run(h, "return 1", 1, &diags), 0);
  free(diags);
  lit_lua_free(h);
}
END_TEST

/* pcall catches the budget's error, but cannot run on: once spent, the
 * budget raises again at the next instruction, and the block fails. */
START_TEST(test_instruction_budget_not_caught) {
  lit_lua_limits lim = {0, 100000};
  lit_lua *h = lit_lua_new(&lim);
  char *diags;
  ck_assert_int_eq(S_run(h, "for i = 1, 1000 do pcall(function() while true do end end) end\nreturn ''\n", 20, &diags),
                   -1);
  ck_assert_msg(strstr(diags, "x.md:20:1: error:") && strstr(diags, "instruction budget"), "%s", diags);
  free(diags);
  ck_assert_int_eq(S_run(h, "while true do pcall(function() while true do end end) end\n", 5, &diags), -1);
  ck_assert_msg(strstr(diags, "instruction budget"), "%s", diags);
  free(diags);
  /* nor is xpcall, whose handler is Lua code */
  ck_assert_int_eq(
      S_run(h, "while true do xpcall(function() while true do end end, function(e) return e end) end\n", 7, &diags),
      -1);
  ck_assert_msg(strstr(diags, "instruction budget"), "%s", diags);
  free(diags);
  /* and the next call has its whole budget again */
  char *v = S_eval(h, "local n = 0 for i = 1, 10000 do n = n + i end return n");
  ck_assert_str_eq(v, "50005000");
  free(v);
  lit_lua_free(h);
}
END_TEST

START_TEST(test_no_finalizers) {
  lit_lua *h = lit_lua_new(NULL);
  char *diags;
  /* Lua runs __gc with hooks off, so a looping finalizer would escape the budget: none may be set */
  ck_assert_int_eq(S_run(h, "setmetatable({}, { __gc = function() while true do end end })", 3, &diags), -1);
  ck_assert_msg(strstr(diags, "x.md:3:1: error: setmetatable: __gc finalizers are not allowed") != NULL, "%s", diags);
  free(diags);
  char *v = S_eval(h, "return getmetatable(setmetatable({}, { __index = { a = 7 } })).__index.a");
  ck_assert_str_eq(v, "7");
  free(v);
  lit_lua_free(h);
}
END_TEST

START_TEST(test_memory_cap) {
  lit_lua_limits lim = {4u << 20, 0};
  lit_lua *h = lit_lua_new(&lim);
  char *diags;
  ck_assert_int_eq(S_run(h, "local t = {}\nfor i = 1, 1e9 do t[i] = string.rep('x', 100) .. i end\n", 5, &diags), -1);
  ck_assert_msg(strstr(diags, "memory") != NULL, "%s", diags);
  free(diags);
  ck_assert_int_eq(S_run(h, "return string.rep('x', 64 << 20)", 5, &diags), -1);
  ck_assert_msg(strstr(diags, "memory") != NULL, "%s", diags);
  free(diags);
  ck_assert_int_eq(S_run(h, "return 1", 1, &diags), 0); /* the state survives */
  free(diags);
  lit_lua_free(h);
}
END_TEST

START_TEST(test_error_names_markdown_line) {
  lit_lua *h = lit_lua_new(NULL);
  char *diags;
  /* the block's first line is line 40 of x.md; the error is on its third */
  ck_assert_int_eq(S_run(h, "local a = 1\nlocal b = 2\nerror('boom')\n", 40, &diags), -1);
  ck_assert_msg(strstr(diags, "x.md:42:1: error: boom") != NULL, "%s", diags);
  free(diags);
  /* a syntax error too */
  ck_assert_int_eq(S_run(h, "local a = \n\nreturn )\n", 7, &diags), -1);
  ck_assert_msg(strstr(diags, "x.md:9:1: error:") != NULL, "%s", diags);
  free(diags);
  /* an error inside a function defined earlier: located there, with a note for the caller */
  ck_assert_int_eq(S_run(h, "function boom()\n  error('deep')\nend\n", 100, &diags), 0);
  free(diags);
  ck_assert_int_eq(S_run(h, "\n\nboom()\n", 200, &diags), -1);
  ck_assert_msg(strstr(diags, "x.md:101:1: error: deep") != NULL, "%s", diags);
  ck_assert_msg(strstr(diags, "x.md:202:1: note: called from here") != NULL, "%s", diags);
  free(diags);
  lit_lua_free(h);
}
END_TEST

START_TEST(test_map_locations) {
  char *m = lit_lua_map_locations("a/b.md:10:3: bad\n\ta/b.md:10:1: in main chunk\n\t[C]: in ?");
  ck_assert_str_eq(m, "a/b.md:12: bad\n\ta/b.md:10: in main chunk\n\t[C]: in ?");
  free(m);
  m = lit_lua_map_locations("no location here: 1:2");
  ck_assert_str_eq(m, "no location here: 1:2");
  free(m);
}
END_TEST

/* print writes to stderr: stdout may carry a command's output (lit dump).
 * Both file descriptors are captured, so a print to stdout fails here. */
static char *S_slurp_fd(int fd) {
  lit_buf b = LIT_BUF_INIT;
  char chunk[256];
  ssize_t n;
  lseek(fd, 0, SEEK_SET);
  while ((n = read(fd, chunk, sizeof chunk)) > 0)
    lit_buf_put(&b, chunk, (size_t)n);
  return lit_buf_detach(&b);
}

/* Runs code with stdout and stderr captured: what each got (caller frees
 * both), and the value returned in *value (caller frees). */
static void S_capture(const char *code, char **value, char **got_out, char **got_err) {
  lit_lua *h = lit_lua_new(NULL);
  char out_name[] = "/tmp/lit-print-out-XXXXXX", err_name[] = "/tmp/lit-print-err-XXXXXX";
  int out = mkstemp(out_name), err = mkstemp(err_name);
  ck_assert(out >= 0 && err >= 0);
  unlink(out_name);
  unlink(err_name);
  fflush(stdout);
  fflush(stderr);
  int saved_out = dup(1), saved_err = dup(2);
  dup2(out, 1);
  dup2(err, 2);
  *value = S_eval(h, code);
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  *got_out = S_slurp_fd(out);
  *got_err = S_slurp_fd(err);
  close(out);
  close(err);
  lit_lua_free(h);
}

START_TEST(test_print_is_not_stdout) {
  char *v, *got_out, *got_err;
  S_capture("print('from-print', 42) return 'done'", &v, &got_out, &got_err);
  ck_assert_str_eq(v, "done");
  ck_assert_str_eq(got_out, "");
  ck_assert_msg(strstr(got_err, "from-print\t42\n") != NULL, "stderr: %s", got_err);
  free(v);
  free(got_out);
  free(got_err);
}
END_TEST

/* A document of a cloned project must not reach the terminal through
 * print: an escape sequence (here OSC 52, which sets the clipboard), a
 * carriage return, a C1 control or a byte that is not UTF-8 is written as
 * lit_diag writes it; the lines and the tabs between the values stay. */
START_TEST(test_print_escapes_terminal_controls) {
  char *v, *got_out, *got_err;
  S_capture("print('a\\27]52;c;ZXZpbA==\\7b', 'two\\nlines\\r', '\\194\\155x\\255') return 'done'", &v, &got_out,
            &got_err);
  ck_assert_str_eq(v, "done");
  ck_assert_str_eq(got_out, "");
  ck_assert_str_eq(got_err, "a\\x1b]52;c;ZXZpbA==\\x07b\ttwo\nlines\\r\t\\u009bx\\xff\n");
  free(v);
  free(got_out);
  free(got_err);
}
END_TEST

Suite *lua_host_suite(void) {
  Suite *s = suite_create("lua_host");
  TCase *tc = tcase_create("sandbox");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_only_safe_libraries);
  tcase_add_test(tc, test_load_refuses_bytecode);
  tcase_add_test(tc, test_instruction_budget);
  tcase_add_test(tc, test_instruction_budget_not_caught);
  tcase_add_test(tc, test_memory_cap);
  tcase_add_test(tc, test_no_finalizers);
  tcase_add_test(tc, test_error_names_markdown_line);
  tcase_add_test(tc, test_map_locations);
  tcase_add_test(tc, test_print_is_not_stdout);
  tcase_add_test(tc, test_print_escapes_terminal_controls);
  suite_add_tcase(s, tc);
  return s;
}

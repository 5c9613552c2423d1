/* main.c: the command line. Parses arguments and hands off; nothing else. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "dump.h"
#include "model.h"
#include "html_book.h"
#include "install.h"
#include "outputs.h"
#include "serve.h"
#include "skill.h"
#include "stats.h"

static const char S_usage[] =
    "usage: lit tangle [--check] [--force] [--line-directives] [-q] [--root DIR] [--entry FILE]\n"
    "       lit dump   [--root DIR] [--entry FILE]     (also: lit --list)\n"
    "       lit stats  [--min-tangled PERCENT]         share of code lines that is tangled\n"
    "       lit skill  [--out DIR] [--root DIR] [--check]  the agent skill bundle (build/skill/NAME)\n"
    "       lit book   [--out DIR] [--root DIR] [--check]  the HTML book\n"
    "       lit skill install (--claude|--codex|--opencode|--global|--dest DIR) [--force] [--from DIR]\n"
    "       lit serve  [--out DIR] [--root DIR] [--port N]  the book on 127.0.0.1, rebuilt and reloaded on save\n"
    "       lit watch  [--out DIR] [--root DIR]          tangle and weave the book again on every save\n"
    "\n"
    "The project is the entry document (default index.md) in DIR (default .) and\n"
    "the documents its links name, read in that order.\n";

typedef struct {
  const char *root, *entry, *out, *from, *dest;
  const char *min_tangled, *port;
  int check, force, line_directives, quiet;
  int claude, codex, opencode, global;
} S_args;

static int S_usage_error(const char *msg, const char *arg) {
  fprintf(stderr, "lit: %s%s%s\n%s", msg, arg ? " " : "", arg ? arg : "", S_usage);
  return 2;
}

/* Returns 0, or 2 after printing a usage error. */
static int S_parse(int argc, char **argv, int start, S_args *a) {
  for (int i = start; i < argc; i++) {
    const char *s = argv[i];
    const char **value = NULL;
    if (strcmp(s, "--check") == 0)
      a->check = 1;
    else if (strcmp(s, "--force") == 0)
      a->force = 1;
    else if (strcmp(s, "--line-directives") == 0)
      a->line_directives = 1;
    else if (strcmp(s, "-q") == 0 || strcmp(s, "--quiet") == 0)
      a->quiet = 1;
    else if (strcmp(s, "--claude") == 0)
      a->claude = 1;
    else if (strcmp(s, "--codex") == 0)
      a->codex = 1;
    else if (strcmp(s, "--opencode") == 0)
      a->opencode = 1;
    else if (strcmp(s, "--global") == 0)
      a->global = 1;
    else if (strcmp(s, "--root") == 0)
      value = &a->root;
    else if (strcmp(s, "--entry") == 0)
      value = &a->entry;
    else if (strcmp(s, "--out") == 0)
      value = &a->out;
    else if (strcmp(s, "--from") == 0)
      value = &a->from;
    else if (strcmp(s, "--dest") == 0)
      value = &a->dest;
    else if (strcmp(s, "--min-tangled") == 0)
      value = &a->min_tangled;
    else if (strcmp(s, "--port") == 0)
      value = &a->port;
    else
      return S_usage_error("unknown option", s);
    if (value) {
      if (i + 1 >= argc) return S_usage_error("missing value after", s);
      *value = argv[++i];
    }
  }
  return 0;
}

static int S_finish(lit_diags *d, int status) {
  lit_diags_print(d, stderr);
  lit_diags_free(d);
  return status;
}

static double S_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int S_tangle(const S_args *a) {
  lit_diags *d = lit_diags_new();
  double t0 = S_now();
  lit_project *p = lit_project_load(a->root, a->entry, d);
  double t1 = S_now();
  if (!p) return S_finish(d, 1);
  int status = 1;
  if (lit_diags_count(d, LIT_ERROR) == 0) {
    lit_outputs_opts o = {a->check, a->force, a->line_directives, a->quiet};
    lit_outputs_stats st;
    int r = lit_outputs_run(p, &o, &st, d);
    if (getenv("LIT_TIMINGS")) /* where the time goes, for the speed report */
      fprintf(stderr, "lit: read and model %.1f ms, tangle and write %.1f ms\n", (t1 - t0) * 1e3, (S_now() - t1) * 1e3);
    status = r == 0 ? 0 : 1;
    if (r == 0 && !a->quiet && !a->check)
      fprintf(stderr, "lit: %zu files: %zu written, %zu unchanged, %zu removed\n", p->nfiles, st.written, st.unchanged,
              st.removed);
  } else {
    lit_diag(d, LIT_NOTE, NULL, 0, 0, "nothing was written");
  }
  lit_project_free(p);
  return S_finish(d, status);
}

static int S_dump(const S_args *a) {
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(a->root, a->entry, d);
  if (p) {
    lit_buf out = LIT_BUF_INIT;
    lit_dump(p, &out);
    fwrite(out.data, 1, out.len, stdout);
    lit_buf_free(&out);
  }
  int status = p && lit_diags_count(d, LIT_ERROR) == 0 ? 0 : 1;
  lit_project_free(p);
  return S_finish(d, status);
}

/* Prints the share of reference code lines that is tangled; fails under --min-tangled. */
static int S_stats(const S_args *a) {
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(a->root, a->entry, d);
  if (!p) return S_finish(d, 1);
  lit_stats st;
  lit_buf out = LIT_BUF_INIT;
  lit_stats_compute(p, &st, &out);
  size_t total = st.tangled_lines + st.example_lines + st.unreached_lines;
  double share = total ? 100.0 * (double)st.tangled_lines / (double)total : 100.0;
  printf("code lines in CUDA, C, C++, Python and TOML blocks, by document:\n%s", out.data ? out.data : "");
  printf("tangled: %zu of %zu code lines (%.1f%%); %zu in .example blocks, %zu in chunks no file uses\n",
         st.tangled_lines, total, share, st.example_lines, st.unreached_lines);
  lit_buf_free(&out);
  int status = lit_diags_count(d, LIT_ERROR) ? 1 : 0;
  if (a->min_tangled && share + 1e-9 < atof(a->min_tangled)) {
    fprintf(stderr, "lit: the tangled share %.1f%% is under the required %s%%\n", share, a->min_tangled);
    status = 1;
  }
  lit_project_free(p);
  return S_finish(d, status);
}

/* The weaves: load, then hand the project to the skill or the book. */
static int S_weave(const S_args *a, int book) {
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(a->root, a->entry, d);
  if (!p) return S_finish(d, 1);
  int r = -1;
  if (lit_diags_count(d, LIT_ERROR) == 0) {
    if (book) {
      lit_book_opts o = {a->out, a->check};
      r = lit_book_run(p, &o, d);
    } else {
      lit_skill_opts o = {a->out, a->check};
      r = lit_skill_run(p, &o, d);
    }
  }
  if (r < 0) lit_diag(d, LIT_NOTE, NULL, 0, 0, "nothing was written");
  lit_project_free(p);
  return S_finish(d, r == 0 ? 0 : 1);
}

static int S_install(const S_args *a) {
  lit_diags *d = lit_diags_new();
  lit_install_opts o = {a->from, a->dest, a->claude, a->codex, a->opencode, a->global, a->force};
  int r = lit_install_run(&o, stdout, d);
  return S_finish(d, r == 0 ? 0 : r == 2 ? 2 : 1);
}

/* lit serve and lit watch: the live preview (serve.h). */
static int S_serve(const S_args *a, int serve) {
  char *end = NULL;
  long port = a->port ? strtol(a->port, &end, 10) : 8000;
  if (a->port && (*end || port < 0 || port > 65535)) return S_usage_error("--port takes 0 to 65535, not", a->port);
  lit_serve_opts o = {a->root, a->entry, a->out, (int)port, serve};
  return lit_serve_run(&o);
}

int main(int argc, char **argv) {
  S_args a;
  memset(&a, 0, sizeof a);
  a.root = ".";
  a.entry = "index.md";
  if (argc < 2) return S_usage_error("no command given", NULL);
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    fputs(S_usage, stdout);
    return 0;
  }
  if (strcmp(cmd, "--list") == 0) cmd = "dump";
  int install = strcmp(cmd, "skill") == 0 && argc > 2 && strcmp(argv[2], "install") == 0;
  if (S_parse(argc, argv, install ? 3 : 2, &a)) return 2;
  if (strcmp(cmd, "tangle") == 0) return S_tangle(&a);
  if (strcmp(cmd, "dump") == 0) return S_dump(&a);
  if (strcmp(cmd, "stats") == 0) return S_stats(&a);
  if (install) return S_install(&a);
  if (strcmp(cmd, "skill") == 0) return S_weave(&a, 0);
  if (strcmp(cmd, "book") == 0) return S_weave(&a, 1);
  if (strcmp(cmd, "serve") == 0 || strcmp(cmd, "watch") == 0) return S_serve(&a, strcmp(cmd, "serve") == 0);
  return S_usage_error("unknown command", cmd);
}

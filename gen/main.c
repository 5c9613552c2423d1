/* main.c: the command line. Parses arguments and hands off; nothing else.
 *
 * Every command is a row of S_commands, every option a row of S_options;
 * the parser, `lit help`, `lit COMMAND --help` and the suggestions for a
 * mistyped name are all driven by the two tables. Exit status: 0 success,
 * 1 errors in the documents (or differences under --check), 2 usage. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "book.h"
#include "diag.h"
#include "dump.h"
#include "install.h"
#include "manpage.h"
#include "map.h"
#include "model.h"
#include "outputs.h"
#include "paths.h"
#include "serve.h"
#include "skill.h"
#include "stats.h"
#include "stitch.h"

typedef struct {
  const char *root, *entry, *out, *from, *dest;
  double min_tangled;
  int has_min_tangled;
  int port; /* serve; -1: the default */
  int check, force, line_directives, quiet, json, stitch;
  int claude, codex, opencode, global;
  const char *operand;   /* lit man FILE, lit help COMMAND, lit map FILE[:LINE] */
  const char **operands; /* a command taking several (FILE...): every one, operand the first */
  size_t noperands;
} S_args;

enum {
  O_CHECK = 1 << 0,
  O_FORCE = 1 << 1,
  O_LINE_DIRECTIVES = 1 << 2,
  O_QUIET = 1 << 3,
  O_ROOT = 1 << 4,
  O_ENTRY = 1 << 5,
  O_OUT = 1 << 6,
  O_MIN_TANGLED = 1 << 7,
  O_CLAUDE = 1 << 8,
  O_CODEX = 1 << 9,
  O_OPENCODE = 1 << 10,
  O_GLOBAL = 1 << 11,
  O_DEST = 1 << 12,
  O_FROM = 1 << 13,
  O_HELP = 1 << 14,
  O_REPLACE = 1 << 15, /* --force of skill install */
  O_PORT = 1 << 16,
  O_JSON = 1 << 17,
  O_STITCH = 1 << 18,
};

typedef struct {
  const char *name, *alias;
  unsigned bit;
  const char *value; /* NULL for a flag, else the value's name in help */
  const char *help;  /* one line per command that takes it; %s: none */
} S_option;

static const S_option S_options[] = {
    {"--check", NULL, O_CHECK, NULL, "write nothing; report every difference from a fresh run (exit 1 if any)"},
    {"--force", NULL, O_FORCE, NULL, "overwrite hand edits, and files lit did not write, with the tangle"},
    {"--force", NULL, O_REPLACE, NULL, "replace an existing install (never a file lit did not write in it)"},
    {"--line-directives", NULL, O_LINE_DIRECTIVES, NULL,
     "put #line \"doc.md\" directives in C, C++ and CUDA files, so compiler errors name the Markdown"},
    {"-q", "--quiet", O_QUIET, NULL, "print errors and warnings only, not what was written"},
    {"--root", NULL, O_ROOT, "DIR", "the project's folder, holding the entry document (default: .)"},
    {"--entry", NULL, O_ENTRY, "FILE", "the entry document, relative to the root (default: index.md)"},
    {"--out", NULL, O_OUT, "DIR", "the output folder (book: book; skill: build/skill, which receives NAME/)"},
    {"--min-tangled", NULL, O_MIN_TANGLED, "PERCENT", "exit 1 if less than PERCENT (0 to 100) of the code is tangled"},
    {"--claude", NULL, O_CLAUDE, NULL, "install into .claude/skills (with --global: ~/.claude/skills)"},
    {"--codex", NULL, O_CODEX, NULL, "install into .codex/skills (with --global: ~/.codex/skills)"},
    {"--opencode", NULL, O_OPENCODE, NULL,
     "install into .opencode/skills (with --global: $XDG_CONFIG_HOME/opencode/skills, or ~/.config/...)"},
    {"--global", NULL, O_GLOBAL, NULL, "install under your home folder; alone, for all three agents"},
    {"--dest", NULL, O_DEST, "DIR", "install into DIR/NAME"},
    {"--from", NULL, O_FROM, "DIR", "the bundle to install (default: build/skill/NAME, NAME from index.md)"},
    {"--port", NULL, O_PORT, "N", "the port on 127.0.0.1 (default: 8000; 0: any free port)"},
    {"--json", NULL, O_JSON, NULL, "print one JSON object instead of a line per generated line"},
    {"--stitch", NULL, O_STITCH, NULL,
     "also watch the generated files, and carry a hand edit of one back into the documents (lit stitch)"},
    {"--help", "-h", O_HELP, NULL, "describe the command and its options"},
};
enum { S_NOPTIONS = sizeof S_options / sizeof S_options[0] };

typedef struct {
  const char *name; /* "skill install" for a two-word command */
  unsigned opts;
  const char *operand; /* the name of its positional argument ("...": any number), or NULL */
  const char *summary;
  int (*run)(const S_args *a);
} S_command;

static const S_command *S_find(const char *name);
static int S_tangle(const S_args *a);
static int S_map(const S_args *a);
static int S_stitch(const S_args *a);
static int S_dump(const S_args *a);
static int S_stats(const S_args *a);
static int S_skill(const S_args *a);
static int S_book(const S_args *a);
static int S_install(const S_args *a);
static int S_serve(const S_args *a);
static int S_watch(const S_args *a);
static int S_man(const S_args *a);
static int S_help(const S_args *a);
static int S_version(const S_args *a);

#define S_PROJECT (O_ROOT | O_ENTRY | O_HELP)
static const S_command S_commands[] = {
    {"tangle", O_CHECK | O_FORCE | O_LINE_DIRECTIVES | O_QUIET | S_PROJECT, NULL,
     "write the code files the documents' blocks name (file=), and the record of what was written", S_tangle},
    {"map", O_JSON | S_PROJECT, "FILE[:LINE]",
     "print the document, line and chunk each line of a generated file comes from", S_map},
    {"stitch", O_QUIET | S_PROJECT, "[FILE...]",
     "bring hand edits of generated files back into the documents' code blocks (all edited files by default)",
     S_stitch},
    {"dump", S_PROJECT, NULL, "print the chunk model: documents, chunks, their uses, files (also: lit --list)", S_dump},
    {"stats", O_MIN_TANGLED | S_PROJECT, NULL, "print the share of code lines that is tangled, by document", S_stats},
    {"skill", O_OUT | O_CHECK | S_PROJECT, NULL, "weave the agent skill bundle into OUT/NAME", S_skill},
    {"skill install", O_CLAUDE | O_CODEX | O_OPENCODE | O_GLOBAL | O_DEST | O_FROM | O_REPLACE | O_HELP, NULL,
     "copy a built skill bundle where agents look for skills", S_install},
    {"book", O_OUT | O_CHECK | S_PROJECT, NULL, "weave the HTML book into OUT", S_book},
    {"serve", O_OUT | O_PORT | O_STITCH | S_PROJECT, NULL,
     "serve the book on 127.0.0.1, tangled and woven again and reloaded whenever a document changes", S_serve},
    {"watch", O_OUT | O_STITCH | S_PROJECT, NULL, "tangle and weave the book again whenever a document changes",
     S_watch},
    {"man", O_HELP, "FILE.md", "render a Markdown document as a man page on stdout (how lit(1) is made)", S_man},
    {"help", O_HELP, "[COMMAND]", "describe every command, or one command and its options", S_help},
    {"version", O_HELP, NULL, "print lit's version (also: lit --version)", S_version},
};
enum { S_NCOMMANDS = sizeof S_commands / sizeof S_commands[0] };

static const char S_footer[] = "\nThe project is the entry document (default index.md) in the root folder (default .)\n"
                               "and the documents its links name, read in that order.\n"
                               "Exit status: 0 success; 1 errors in the documents, or differences under --check;\n"
                               "2 a usage error (unknown command or option, bad value, no project found).\n"
                               "`lit help COMMAND` describes a command; lit(1) describes them all:\n"
                               "`man gen/build/lit.1` in lit's source tree, `man lit` once installed\n"
                               "(`make install`; another tool named lit may own that name otherwise).\n";

/* ---- help ---- */

static void S_synopsis(const S_command *c, FILE *f) {
  fprintf(f, "lit %s", c->name);
  for (size_t i = 0; i < S_NOPTIONS; i++) {
    const S_option *o = &S_options[i];
    if (!(c->opts & o->bit) || o->bit == O_HELP) continue;
    if (o->value)
      fprintf(f, " [%s %s]", o->name, o->value);
    else
      fprintf(f, " [%s]", o->name);
  }
  if (c->operand) fprintf(f, " %s", c->operand);
  fputc('\n', f);
}

static void S_describe(const S_command *c, FILE *f) {
  fputs("usage: ", f);
  S_synopsis(c, f);
  fprintf(f, "\n%s.\n", c->summary);
  int any = 0;
  for (size_t i = 0; i < S_NOPTIONS; i++) {
    const S_option *o = &S_options[i];
    if (!(c->opts & o->bit)) continue;
    if (!any++) fputs("\noptions:\n", f);
    char head[64];
    snprintf(head, sizeof head, "%s%s%s%s%s", o->name, o->alias ? ", " : "", o->alias ? o->alias : "",
             o->value ? " " : "", o->value ? o->value : "");
    fprintf(f, "  %-22s %s\n", head, o->help);
  }
  fputs(S_footer, f);
}

static void S_overview(FILE *f) {
  fputs("usage: lit COMMAND [OPTIONS]\n\ncommands:\n", f);
  for (size_t i = 0; i < S_NCOMMANDS; i++)
    fprintf(f, "  %-14s %s\n", S_commands[i].name, S_commands[i].summary);
  fputs(S_footer, f);
}

/* ---- usage errors, with a suggestion ---- */

/* Prints one message at once, through diag: what it quotes comes from the
 * command line or the file system, and diag escapes it. */
static void S_say(lit_level level, const char *text) {
  lit_diags *d = lit_diags_new();
  lit_diag(d, level, NULL, 0, 0, "%s", text);
  lit_diags_print(d, stderr);
  lit_diags_free(d);
}

static int S_usage_error(const S_command *c, const char *fmt, const char *arg, const char *hint) {
  lit_buf msg = LIT_BUF_INIT;
  lit_buf_printf(&msg, fmt, arg);
  if (hint) lit_buf_printf(&msg, "; did you mean '%s'?", hint);
  S_say(LIT_ERROR, msg.data);
  lit_buf_free(&msg);
  if (c)
    fprintf(stderr, "usage: "), S_synopsis(c, stderr), fprintf(stderr, "`lit help %s` says more.\n", c->name);
  else
    fputs("`lit help` lists the commands.\n", stderr);
  return 2;
}

static int S_unknown_option(const S_command *c, const char *s) {
  const char *names[2 * S_NOPTIONS];
  size_t n = 0;
  for (size_t i = 0; i < S_NOPTIONS; i++)
    if (c->opts & S_options[i].bit) {
      names[n++] = S_options[i].name;
      names[n++] = S_options[i].alias;
    }
  /* An option of other commands: say which. */
  char msg[512];
  unsigned bits = 0;
  for (size_t i = 0; i < S_NOPTIONS; i++)
    if (strcmp(s, S_options[i].name) == 0 || (S_options[i].alias && strcmp(s, S_options[i].alias) == 0))
      bits |= S_options[i].bit;
  if (bits) {
    int len = snprintf(msg, sizeof msg, "lit %s takes no %%s option (it is one of", c->name);
    for (size_t i = 0; i < S_NCOMMANDS && len > 0 && (size_t)len < sizeof msg; i++)
      if (S_commands[i].opts & bits)
        len += snprintf(msg + len, sizeof msg - (size_t)len, " lit %s,", S_commands[i].name);
    if (len > 0 && (size_t)len < sizeof msg) msg[len - 1] = ')';
    return S_usage_error(c, msg, s, NULL);
  }
  const char *near = lit_nearest(s, names, n);
  snprintf(msg, sizeof msg, "unknown option '%%s' for lit %s", c->name);
  return S_usage_error(c, msg, s, near);
}

/* A percentage: a finite number from 0 to 100, nothing after it. */
static int S_percent(const char *s, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end || errno || !isfinite(v) || v < 0 || v > 100) return -1;
  *out = v;
  return 0;
}

/* Returns 0, or 2 after printing a usage error. */
static int S_parse(const S_command *c, int argc, char **argv, int start, S_args *a) {
  for (int i = start; i < argc; i++) {
    const char *s = argv[i];
    const S_option *o = NULL;
    for (size_t k = 0; k < S_NOPTIONS && !o; k++)
      if ((c->opts & S_options[k].bit) &&
          (strcmp(s, S_options[k].name) == 0 || (S_options[k].alias && strcmp(s, S_options[k].alias) == 0)))
        o = &S_options[k];
    if (!o && s[0] == '-' && s[1]) return S_unknown_option(c, s);
    if (!o) {
      if (c->run == S_help && a->operand && strcmp(a->operand, "skill") == 0 && strcmp(s, "install") == 0) {
        a->operand = "skill install"; /* lit help skill install */
        continue;
      }
      int many = c->operand && strstr(c->operand, "...") != NULL;
      if (!c->operand || (a->operand && !many)) return S_usage_error(c, "unexpected argument '%s'", s, NULL);
      if (!a->operand) a->operand = s;
      a->operands = lit_xrealloc(a->operands, (a->noperands + 1) * sizeof(char *));
      a->operands[a->noperands++] = s;
      continue;
    }
    const char *value = NULL;
    if (o->value) {
      if (i + 1 >= argc) return S_usage_error(c, "%s needs a value", o->name, NULL);
      value = argv[++i];
    }
    switch (o->bit) {
    case O_CHECK: a->check = 1; break;
    case O_FORCE:
    case O_REPLACE: a->force = 1; break;
    case O_LINE_DIRECTIVES: a->line_directives = 1; break;
    case O_QUIET: a->quiet = 1; break;
    case O_JSON: a->json = 1; break;
    case O_STITCH: a->stitch = 1; break;
    case O_ROOT: a->root = value; break;
    case O_ENTRY: a->entry = value; break;
    case O_OUT: a->out = value; break;
    case O_DEST: a->dest = value; break;
    case O_FROM: a->from = value; break;
    case O_CLAUDE: a->claude = 1; break;
    case O_CODEX: a->codex = 1; break;
    case O_OPENCODE: a->opencode = 1; break;
    case O_GLOBAL: a->global = 1; break;
    case O_HELP: a->operand = c->name; return 1;
    case O_MIN_TANGLED:
      if (S_percent(value, &a->min_tangled) != 0)
        return S_usage_error(c, "--min-tangled takes a percentage from 0 to 100, not '%s'", value, NULL);
      a->has_min_tangled = 1;
      break;
    case O_PORT: {
      char *end = NULL;
      const long port = strtol(value, &end, 10);
      if (end == value || *end || port < 0 || port > 65535)
        return S_usage_error(c, "--port takes a port number from 0 to 65535, not '%s'", value, NULL);
      a->port = (int)port;
      break;
    }
    default: break;
    }
  }
  return 0;
}

/* ---- the commands ---- */

/* The exit status of a command's result: the one place they meet. */
static int S_exit_code(lit_status s) {
  switch (s) {
  case LIT_OK: return 0;
  case LIT_DIFFERS:
  case LIT_FAILED: return 1;
  case LIT_USAGE: return 2;
  }
  return 1;
}

static int S_finish(lit_diags *d, lit_status status) {
  lit_diags_print(d, stderr);
  lit_diags_free(d);
  return S_exit_code(status);
}

/* An --entry that climbs out of the root ('..', an absolute path) to a
 * document outside the project: said at the argument, which has no line of
 * a document to point at. 1 if so (reported), else 0; a link inside the
 * project that leads out is the loader's to report, at the document. */
static int S_entry_outside(const S_args *a) {
  struct stat st;
  if (!lit_path_climbs(a->entry) || stat(a->root, &st) != 0) return 0;
  char *root = lit_path_real(NULL, a->root), *entry = lit_path_real(a->root, a->entry);
  int outside = root && entry && !lit_path_is_inside(root, entry);
  if (outside) {
    lit_buf msg = LIT_BUF_INIT;
    lit_buf_printf(&msg,
                   "--entry %s: the entry document is outside the project (the folder %s): lit reads only "
                   "documents inside it",
                   a->entry, root);
    S_say(LIT_ERROR, msg.data);
    lit_buf_free(&msg);
    S_say(LIT_NOTE, "name the folder that holds the document with --root DIR, and the document with --entry FILE, "
                    "relative to that folder");
  }
  free(root);
  free(entry);
  return outside;
}

/* A command that reads a project run where there is none (or with an
 * entry document outside it): say where lit looked and how to point it
 * elsewhere. 0 if the entry document exists. */
static int S_find_project(const S_args *a) {
  if (S_entry_outside(a)) return 2;
  char *entry = lit_path_join(a->root, a->entry);
  struct stat st;
  int found = stat(entry, &st) == 0 || errno != ENOENT;
  free(entry);
  if (found) return 0;
  char where[4096], cwd[2048];
  if (!realpath(a->root, where)) {
    if (a->root[0] != '/' && getcwd(cwd, sizeof cwd))
      snprintf(where, sizeof where, "%s/%s", cwd, a->root);
    else
      snprintf(where, sizeof where, "%s", a->root);
  }
  lit_buf msg = LIT_BUF_INIT;
  if (stat(a->root, &st) != 0)
    lit_buf_printf(&msg, "the project folder %s does not exist", where);
  else
    lit_buf_printf(&msg, "no %s in %s, so this is not a lit project", a->entry, where);
  S_say(LIT_ERROR, msg.data);
  lit_buf_free(&msg);
  S_say(LIT_NOTE, "run lit in the folder that holds the entry document, or name that folder with --root DIR (and "
                  "the document with --entry FILE)");
  return 2;
}

/* Loads the project for a command that writes. A run killed while it put
 * files in place is undone first (lit_outputs_recover); if that put back
 * documents (a stitch), they are read again. --check undoes nothing: the
 * tangle reports the journal instead. */
static lit_project *S_load_for_write(const S_args *a, int check, lit_diags *d) {
  lit_project *p = lit_project_load(a->root, a->entry, d);
  if (!p || check || lit_diags_count(d, LIT_ERROR) != 0) return p;
  int r = lit_outputs_recover(p, d);
  if (r > 0) {
    lit_project_free(p);
    lit_diags *again = lit_diags_new(); /* the messages of the first reading stand */
    p = lit_project_load(a->root, a->entry, again);
    lit_diags_append(d, again);
    lit_diags_free(again);
  }
  return p;
}

static int S_tangle(const S_args *a) {
  if (S_find_project(a)) return S_exit_code(LIT_USAGE);
  lit_diags *d = lit_diags_new();
  double t0 = lit_now();
  lit_project *p = S_load_for_write(a, a->check, d);
  double t1 = lit_now();
  if (!p) return S_finish(d, LIT_FAILED);
  lit_status status = LIT_FAILED;
  if (lit_diags_count(d, LIT_ERROR) == 0) {
    lit_outputs_opts o = {a->check, a->force, a->line_directives, a->quiet};
    lit_outputs_stats st;
    status = lit_outputs_run(p, &o, &st, d);
    if (getenv("LIT_TIMINGS")) /* where the time goes, for the speed report */
      fprintf(stderr, "lit: read and model %.1f ms, tangle and write %.1f ms\n", (t1 - t0) * 1e3,
              (lit_now() - t1) * 1e3);
    if (status == LIT_OK && !a->quiet && !a->check)
      fprintf(stderr, "lit: %zu files: %zu written, %zu unchanged, %zu removed\n", p->nfiles, st.written, st.unchanged,
              st.removed);
  } else {
    lit_diag(d, LIT_NOTE, NULL, 0, 0, "nothing was written");
  }
  lit_project_free(p);
  return S_finish(d, status);
}

static int S_map(const S_args *a) {
  if (!a->operand)
    return S_usage_error(S_find("map"), "%s needs the generated file (FILE or FILE:LINE)", "lit map", NULL);
  if (S_find_project(a)) return S_exit_code(LIT_USAGE);
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(a->root, a->entry, d);
  lit_status status = LIT_FAILED;
  if (p && lit_diags_count(d, LIT_ERROR) == 0) {
    lit_map_opts o = {a->operand, a->json};
    status = lit_map_run(p, &o, stdout, d);
  }
  lit_project_free(p);
  return S_finish(d, status);
}

static int S_stitch(const S_args *a) {
  if (S_find_project(a)) return S_exit_code(LIT_USAGE);
  lit_diags *d = lit_diags_new();
  double t0 = lit_now();
  /* The files named are read on a second core while the load reads the
   * documents on the first. */
  lit_stitch_ahead *ahead = lit_stitch_ahead_start(a->root, a->operands, a->noperands);
  lit_project *p = S_load_for_write(a, 0, d);
  double t1 = lit_now();
  lit_status status = LIT_FAILED;
  if (p && lit_diags_count(d, LIT_ERROR) == 0) {
    lit_stitch_opts o = {a->operands, a->noperands, a->quiet};
    status = lit_stitch_run_ahead(p, &o, ahead, d);
    if (getenv("LIT_TIMINGS")) /* where the time goes, for the speed report */
      fprintf(stderr, "lit: read and model %.1f ms, stitch %.1f ms\n", (t1 - t0) * 1e3, (lit_now() - t1) * 1e3);
  }
  if (p && status == LIT_FAILED) lit_diag(d, LIT_NOTE, NULL, 0, 0, "no document was changed");
  lit_stitch_ahead_free(ahead);
  lit_project_free(p);
  return S_finish(d, status);
}

static int S_dump(const S_args *a) {
  if (S_find_project(a)) return S_exit_code(LIT_USAGE);
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(a->root, a->entry, d);
  if (p) {
    lit_buf out = LIT_BUF_INIT;
    lit_dump(p, &out);
    fwrite(out.data, 1, out.len, stdout);
    lit_buf_free(&out);
  }
  lit_status status = p && lit_diags_count(d, LIT_ERROR) == 0 ? LIT_OK : LIT_FAILED;
  lit_project_free(p);
  return S_finish(d, status);
}

/* Prints the share of reference code lines that is tangled; fails under --min-tangled. */
static int S_stats(const S_args *a) {
  if (S_find_project(a)) return S_exit_code(LIT_USAGE);
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(a->root, a->entry, d);
  if (!p) return S_finish(d, LIT_FAILED);
  lit_stats st;
  lit_buf out = LIT_BUF_INIT;
  lit_stats_compute(p, &st, &out);
  size_t total = st.tangled_lines + st.example_lines + st.unreached_lines;
  double share = total ? 100.0 * (double)st.tangled_lines / (double)total : 100.0;
  printf("code lines in CUDA, C, C++, Python and TOML blocks, by document:\n%s", out.data ? out.data : "");
  printf("tangled: %zu of %zu code lines (%.1f%%); %zu in .example blocks, %zu in chunks no file uses\n",
         st.tangled_lines, total, share, st.example_lines, st.unreached_lines);
  lit_buf_free(&out);
  lit_status status = lit_diags_count(d, LIT_ERROR) ? LIT_FAILED : LIT_OK;
  if (a->has_min_tangled && share + 1e-9 < a->min_tangled) {
    fprintf(stderr, "lit: the tangled share %.1f%% is under the required %g%%\n", share, a->min_tangled);
    status = LIT_FAILED;
  }
  lit_project_free(p);
  return S_finish(d, status);
}

/* The weaves: load, then hand the project to the skill or the book. */
static int S_weave(const S_args *a, int book) {
  if (S_find_project(a)) return S_exit_code(LIT_USAGE);
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(a->root, a->entry, d);
  if (!p) return S_finish(d, LIT_FAILED);
  lit_status r = LIT_FAILED;
  if (lit_diags_count(d, LIT_ERROR) == 0) {
    if (book) {
      lit_book_opts o = {a->out, a->check};
      r = lit_book_run(p, &o, d);
    } else {
      lit_skill_opts o = {a->out, a->check};
      r = lit_skill_run(p, &o, d);
    }
  }
  if (r == LIT_FAILED) lit_diag(d, LIT_NOTE, NULL, 0, 0, "nothing was written");
  lit_project_free(p);
  return S_finish(d, r);
}

static int S_skill(const S_args *a) { return S_weave(a, 0); }
static int S_book(const S_args *a) { return S_weave(a, 1); }

/* lit serve and lit watch: the live preview (serve.h). */
static int S_preview(const S_args *a, int serve) {
  if (S_find_project(a)) return S_exit_code(LIT_USAGE);
  lit_serve_opts o = {a->root, a->entry, a->out, a->port >= 0 ? a->port : 8000, serve, a->stitch};
  return S_exit_code(lit_serve_run(&o));
}

static int S_serve(const S_args *a) { return S_preview(a, 1); }
static int S_watch(const S_args *a) { return S_preview(a, 0); }

static int S_install(const S_args *a) {
  lit_diags *d = lit_diags_new();
  lit_install_opts o = {a->from, a->dest, a->claude, a->codex, a->opencode, a->global, a->force};
  return S_finish(d, lit_install_run(&o, stdout, d));
}

static int S_man(const S_args *a) {
  if (!a->operand) return S_usage_error(S_find("man"), "%s needs the Markdown document to render", "lit man", NULL);
  lit_diags *d = lit_diags_new();
  lit_buf out = LIT_BUF_INIT;
  int r = lit_manpage(a->operand, &out, d);
  if (r == 0) fwrite(out.data, 1, out.len, stdout);
  lit_buf_free(&out);
  return S_finish(d, r == 0 ? LIT_OK : LIT_FAILED);
}

static const S_command *S_find(const char *name) {
  for (size_t i = 0; i < S_NCOMMANDS; i++)
    if (strcmp(S_commands[i].name, name) == 0) return &S_commands[i];
  return NULL;
}

static int S_unknown_command(const char *name) {
  const char *names[S_NCOMMANDS];
  for (size_t i = 0; i < S_NCOMMANDS; i++)
    names[i] = strchr(S_commands[i].name, ' ') ? NULL : S_commands[i].name;
  return S_usage_error(NULL, "unknown command '%s'", name, lit_nearest(name, names, S_NCOMMANDS));
}

static int S_help(const S_args *a) {
  if (!a->operand) {
    S_overview(stdout);
    return 0;
  }
  const S_command *c = S_find(a->operand);
  if (!c) return S_unknown_command(a->operand);
  S_describe(c, stdout);
  return 0;
}

static int S_version(const S_args *a) {
  (void)a;
  printf("lit %s\n", LIT_VERSION);
  return 0;
}

int main(int argc, char **argv) {
  /* Past a file size limit a write fails with EFBIG, which every writer
   * handles by undoing its work, instead of a signal that kills lit midway. */
  signal(SIGXFSZ, SIG_IGN);
  S_args a;
  memset(&a, 0, sizeof a);
  a.root = ".";
  a.port = -1;
  a.entry = "index.md";
  if (argc < 2) {
    S_overview(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) cmd = "help";
  if (strcmp(cmd, "--version") == 0) cmd = "version";
  if (strcmp(cmd, "--list") == 0) cmd = "dump";
  int words = 1;
  if (strcmp(cmd, "skill") == 0 && argc > 2 && strcmp(argv[2], "install") == 0) {
    cmd = "skill install";
    words = 2;
  }
  const S_command *c = S_find(cmd);
  if (!c)
    return cmd[0] == '-' ? S_usage_error(NULL, "'%s' is an option: put a command first", cmd, NULL)
                         : S_unknown_command(cmd);
  int r = S_parse(c, argc, argv, 1 + words, &a);
  if (r == 2) {
    free(a.operands);
    return 2;
  }
  if (r == 1) { /* COMMAND --help */
    S_describe(c, stdout);
    free(a.operands);
    return 0;
  }
  r = c->run(&a);
  free(a.operands);
  return r;
}

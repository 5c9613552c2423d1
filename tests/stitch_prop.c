/* stitch_prop.c: the property test of lit stitch (make check-stitch).
 *
 *   stitch_prop [CASES [SEED]]   (default: 3000 cases, seed 1; make check-stitch runs 10,000)
 *
 * Each case is a random small project: one to three documents, chunks
 * defined in one or two blocks (appended), including later chunks at
 * random indentation (spaces or a tab), some included twice, blocks at the
 * top level, in a quote or in a list item; one or two files, C (sometimes
 * tangled with #line directives) or Python. It is tangled, then one of its
 * files gets one to three random line edits (a line replaced, inserted or
 * deleted, mostly indented like its neighbours), and lit stitch runs: on
 * every file, or (every other case) on the file named, read ahead while
 * the project loads as lit stitch FILE does (every fourth case reads it
 * ahead before the edit, which then replaces the file: the stitch must
 * read it again). Then either
 *
 *   - the stitch succeeded: a tangle writes the file back exactly as
 *     edited, and a tangle --check after it finds nothing to do; or
 *   - it failed with an error located at a line of a file, and changed no
 *     document (and not the edited file).
 *
 * Anything else prints the case (seed, number, the documents, the edit, the
 * messages) and fails. Under #line directives, a file comes back with the
 * directives after a moved line renumbered, and only those may differ. It
 * runs lit in-process (liblit.a) in a scratch folder under TMPDIR (else
 * /dev/shm), so thousands of cases take seconds. Ends with "N passed, N
 * failed" and the counts of stitched and refused edits. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "model.h"
#include "outputs.h"
#include "stitch.h"
#include "util.h"

static uint64_t S_state;

static uint64_t S_next(void) { /* xorshift64* */
  S_state ^= S_state >> 12;
  S_state ^= S_state << 25;
  S_state ^= S_state >> 27;
  return S_state * 2685821657736338717ULL;
}

static unsigned S_rand(unsigned n) { return n ? (unsigned)(S_next() % n) : 0; }

/* ---- the random project ---- */

enum { S_MAXCHUNKS = 6, S_MAXDOCS = 3 };

static const char *const S_indents[] = {"", "  ", "    ", "\t", "  "};

/* A random line of code (never a reference, never a fence). */
static void S_code_line(lit_buf *b, int python) {
  static const char *const words[] = {"x", "y", "total", "n", "count", "v"};
  switch (S_rand(8)) {
  case 0: lit_buf_puts(b, ""); break; /* blank */
  case 1: lit_buf_printf(b, "%s%s = %u", S_indents[S_rand(3)], words[S_rand(6)], S_rand(100)); break;
  case 2: lit_buf_printf(b, python ? "if %s:" : "if (%s) {", words[S_rand(6)]); break;
  case 3: lit_buf_printf(b, python ? "# note %u" : "// note %u", S_rand(1000)); break;
  default: lit_buf_printf(b, python ? "%s += %u" : "%s += %u;", words[S_rand(6)], S_rand(100)); break;
  }
}

typedef struct {
  lit_buf docs[S_MAXDOCS];
  int ndocs;
  char files[2][32];
  int nfiles;
  int python;
  int directives;
} S_project;

/* A fenced block of `lines` (each ending in '\n'), in a container. */
static void S_block(lit_buf *doc, const char *info, const char *lines) {
  unsigned where = S_rand(10);
  const char *prefix = where < 7 ? "" : where < 9 ? "> " : "  ";
  if (where == 9) lit_buf_puts(doc, "- an item\n\n");
  lit_buf_printf(doc, "%s```%s\n", prefix, info);
  for (const char *p = lines; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = (size_t)(nl - p);
    if (len == 0 && prefix[0] == '>')
      lit_buf_puts(doc, ">\n");
    else if (len == 0)
      lit_buf_puts(doc, "\n");
    else
      lit_buf_printf(doc, "%s%.*s\n", prefix, (int)len, p);
    p = nl + 1;
  }
  lit_buf_printf(doc, "%s```\n\n", prefix);
}

/* The body of a block: code lines and references to chunks after `from`. */
static void S_body(lit_buf *b, int from, int nchunks, int python, int *used) {
  unsigned n = 1 + S_rand(4);
  for (unsigned i = 0; i < n; i++) {
    if (from + 1 < nchunks && S_rand(3) == 0) {
      int target = from + 1 + (int)S_rand((unsigned)(nchunks - from - 1));
      lit_buf_printf(b, "%s<<c%d>>\n", S_indents[S_rand(5)], target);
      used[target]++;
      if (S_rand(6) == 0) { /* the same chunk again */
        lit_buf_printf(b, "%s<<c%d>>\n", S_indents[S_rand(5)], target);
        used[target]++;
      }
      continue;
    }
    S_code_line(b, python);
    lit_buf_putc(b, '\n');
  }
}

static void S_make(S_project *pr) {
  memset(pr, 0, sizeof *pr);
  pr->ndocs = 1 + (int)S_rand(S_MAXDOCS);
  pr->python = S_rand(3) == 0;
  pr->directives = !pr->python && S_rand(4) == 0;
  int nchunks = 1 + (int)S_rand(S_MAXCHUNKS), used[S_MAXCHUNKS + 1] = {0};
  pr->nfiles = 1 + (int)S_rand(2);
  lit_buf_puts(&pr->docs[0], "---\ntangle-roots: out\n---\n# Project\n\n");
  for (int i = 1; i < pr->ndocs; i++)
    lit_buf_printf(&pr->docs[0], "%d. [Part %d](d%d.md)\n", i, i, i);
  lit_buf_puts(&pr->docs[0], "\n");
  for (int i = 1; i < pr->ndocs; i++)
    lit_buf_printf(&pr->docs[i], "# Part %d\n\n", i);
  const char *lang = pr->python ? "python" : "c";
  /* The files' blocks reach chunk 0 and, at random, others. */
  for (int f = 0; f < pr->nfiles; f++) {
    snprintf(pr->files[f], sizeof pr->files[f], "out/f%d.%s", f, pr->python ? "py" : "c");
    lit_buf body = LIT_BUF_INIT;
    lit_buf_puts(&body, "");
    S_body(&body, -1, nchunks, pr->python, used);
    if (f == 0 && !used[0]) {
      lit_buf_printf(&body, "%s<<c0>>\n", S_indents[S_rand(5)]);
      used[0]++;
    }
    char info[64];
    snprintf(info, sizeof info, "{.%s file=%s}", lang, pr->files[f]);
    S_block(&pr->docs[S_rand((unsigned)pr->ndocs)], info, body.data);
    lit_buf_free(&body);
  }
  for (int c = 0; c < nchunks; c++) {
    int defs = 1 + (S_rand(4) == 0);
    for (int k = 0; k < defs; k++) {
      lit_buf body = LIT_BUF_INIT;
      lit_buf_puts(&body, "");
      S_body(&body, c, nchunks, pr->python, used);
      char info[64];
      snprintf(info, sizeof info, "{.%s #c%d}", lang, c);
      S_block(&pr->docs[S_rand((unsigned)pr->ndocs)], info, body.data);
      lit_buf_free(&body);
    }
  }
}

static void S_project_free(S_project *pr) {
  for (int i = 0; i < S_MAXDOCS; i++)
    lit_buf_free(&pr->docs[i]);
}

static const char *S_doc_name(int i) {
  static char name[16];
  if (i == 0) return "index.md";
  snprintf(name, sizeof name, "d%d.md", i);
  return name;
}

/* ---- files ---- */

static void S_write(const char *dir, const char *rel, const char *data, size_t len) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  FILE *f = fopen(full, "wb");
  if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
    fprintf(stderr, "stitch_prop: cannot write %s\n", full);
    exit(2);
  }
  free(full);
}

static char *S_read(const char *dir, const char *rel, size_t *len) {
  char *full = lit_xasprintf("%s/%s", dir, rel);
  lit_buf b = LIT_BUF_INIT;
  int err = lit_read_file(full, &b);
  free(full);
  *len = b.len;
  if (err) {
    lit_buf_free(&b);
    return NULL;
  }
  return lit_buf_detach(&b);
}

static int S_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static void S_rmtree(const char *dir) { nftw(dir, S_rm_one, 16, FTW_DEPTH | FTW_PHYS); }

/* ---- the edit ---- */

/* One to three random line edits of text; the result ends in a newline. */
static char *S_edit(const char *text, size_t len, int python, lit_buf *log) {
  size_t n = 0, cap = 16;
  char **lines = lit_xmalloc(cap * sizeof(char *));
  for (const char *p = text, *end = text + len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (n == cap) lines = lit_xrealloc(lines, (cap *= 2) * sizeof(char *));
    lines[n++] = lit_xstrndup(p, (size_t)((nl ? nl : end) - p));
    p = nl ? nl + 1 : end;
  }
  unsigned edits = 1 + S_rand(3);
  for (unsigned k = 0; k < edits; k++) {
    unsigned kind = S_rand(3);
    if (n == 0) kind = 1;
    /* lit's two header lines take an edit once in ten, as often as a
     * line of code; else the edits would mostly be refused there. */
    size_t top = n > 2 && S_rand(10) != 0 ? 2 : 0;
    if (kind != 1 && top >= n) top = 0;
    size_t at = top + S_rand((unsigned)((kind == 1 ? n + 1 : n) - top));
    /* Mostly indented like the line it replaces, or the one above. */
    const char *like = kind == 1 ? (at > 0 ? lines[at - 1] : "") : lines[at];
    size_t ind = 0;
    while (like[ind] == ' ' || like[ind] == '\t')
      ind++;
    lit_buf nl = LIT_BUF_INIT;
    if (S_rand(5) != 0) lit_buf_put(&nl, like, ind);
    S_code_line(&nl, python);
    char *new_line = lit_buf_detach(&nl);
    if (kind == 0) {
      lit_buf_printf(log, "  line %zu replaced by '%s'\n", at + 1, new_line);
      free(lines[at]);
      lines[at] = new_line;
    } else if (kind == 1) {
      lit_buf_printf(log, "  '%s' inserted before line %zu\n", new_line, at + 1);
      if (n == cap) lines = lit_xrealloc(lines, (cap *= 2) * sizeof(char *));
      memmove(lines + at + 1, lines + at, (n - at) * sizeof(char *));
      lines[at] = new_line;
      n++;
    } else {
      lit_buf_printf(log, "  line %zu deleted\n", at + 1);
      free(lines[at]);
      memmove(lines + at, lines + at + 1, (n - at - 1) * sizeof(char *));
      n--;
      free(new_line);
    }
  }
  lit_buf out = LIT_BUF_INIT;
  lit_buf_puts(&out, "");
  for (size_t i = 0; i < n; i++) {
    lit_buf_printf(&out, "%s\n", lines[i]);
    free(lines[i]);
  }
  free(lines);
  return lit_buf_detach(&out);
}

/* Whether a line is a #line directive: indentation, "#line N ". */
static int S_directive(const char *s, size_t len, size_t *num_at, size_t *num_end) {
  size_t i = 0;
  while (i < len && (s[i] == ' ' || s[i] == '\t'))
    i++;
  if (len - i < 8 || memcmp(s + i, "#line ", 6) != 0) return 0;
  *num_at = i + 6;
  size_t k = *num_at;
  while (k < len && s[k] >= '0' && s[k] <= '9')
    k++;
  *num_end = k;
  return k > *num_at;
}

/* a equals b, except that under #line directives (which a stitch
 * renumbers when lines move) a directive's number may differ. */
static int S_same(const char *a, const char *b, int directives) {
  if (strcmp(a, b) == 0) return 1;
  if (!directives) return 0;
  while (*a && *b) {
    const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
    if (!ea || !eb) return 0;
    size_t la = (size_t)(ea - a), lb = (size_t)(eb - b), na, ma, nb, mb;
    int same = la == lb && memcmp(a, b, la) == 0;
    if (!same && S_directive(a, la, &na, &ma) && S_directive(b, lb, &nb, &mb))
      same = na == nb && memcmp(a, b, na) == 0 && la - ma == lb - mb && memcmp(a + ma, b + mb, la - ma) == 0;
    if (!same) return 0;
    a = ea + 1;
    b = eb + 1;
  }
  return !*a && !*b;
}

/* ---- one case ---- */

static lit_status S_tangle(const char *dir, int check, int directives, lit_diags *d) {
  lit_project *p = lit_project_load(dir, "index.md", d);
  lit_status s = LIT_FAILED;
  if (p && lit_diags_count(d, LIT_ERROR) == 0) {
    lit_outputs_opts o = {check, 0, directives, 1};
    s = lit_outputs_run(p, &o, NULL, d);
  }
  lit_project_free(p);
  return s;
}

/* Not inlined: GCC 12 then takes the memstream's pointer for a local's. */
__attribute__((noinline)) static char *S_diags(const lit_diags *d) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  lit_diags_print(d, f);
  fclose(f);
  return text;
}

/* Why stitches are refused, by a phrase of the first error. */
static const char *const S_kinds[] = {
    "cannot tell which block",  "lacks the indentation", "spans two blocks",      "spans two copies",
    "spans the reference",      "#line directive",       "header comment",        "more than once",
    "would not give this file", "would not load",        "change the same lines", "not next to each other",
    "ends with a blank line",   "the file is empty",
};
enum { S_KINDS = sizeof S_kinds / sizeof S_kinds[0] };

typedef struct {
  unsigned stitched, refused, unchanged;
  unsigned nkind[S_KINDS + 1]; /* the last: anything else */
} S_counts;

/* Tallies a refusal; 1 if STITCH_PROP_SHOW asks to see cases like it
 * (a phrase of the message, or "other"). */
static int S_tally(S_counts *c, const char *messages) {
  const char *e = strstr(messages, ": error: "), *nl = e ? strchr(e, '\n') : NULL;
  size_t len = e ? (nl ? (size_t)(nl - e) : strlen(e)) : 0;
  char *first = lit_xstrndup(e ? e : "", len);
  int k = 0;
  while (k < (int)S_KINDS && !strstr(first, S_kinds[k]))
    k++;
  c->nkind[k]++;
  const char *show = getenv("STITCH_PROP_SHOW");
  int shown = show && (k == (int)S_KINDS ? strcmp(show, "other") == 0 : strstr(first, show) != NULL);
  free(first);
  return shown;
}

/* 0 if the property holds for this case; else prints why and returns 1. */
static int S_case(const char *base, unsigned number, S_counts *counts, const regex_t *located) {
  char *dir = lit_xasprintf("%s/case", base);
  S_rmtree(dir);
  mkdir(dir, 0777);
  char *out = lit_xasprintf("%s/out", dir);
  mkdir(out, 0777);
  free(out);
  S_project pr;
  S_make(&pr);
  for (int i = 0; i < pr.ndocs; i++)
    S_write(dir, S_doc_name(i), pr.docs[i].data, pr.docs[i].len);
  lit_buf why = LIT_BUF_INIT, log = LIT_BUF_INIT;
  char *before[S_MAXDOCS] = {NULL}, *edited = NULL, *text = NULL, *messages = NULL;
  size_t before_len[S_MAXDOCS] = {0};
  int shown = 0;
  lit_diags *d = lit_diags_new();
  if (S_tangle(dir, 0, pr.directives, d) != LIT_OK) {
    lit_buf_puts(&why, "the random project does not tangle");
    goto done;
  }
  const char *file = pr.files[S_rand((unsigned)pr.nfiles)];
  size_t len;
  text = S_read(dir, file, &len);
  edited = S_edit(text, len, pr.python, &log);
  if (strcmp(edited, text) == 0) {
    counts->unchanged++;
    goto done;
  }
  /* Every other case names the file, read ahead while the project loads
   * as lit stitch FILE does; every fourth reads it ahead before the edit,
   * which then replaces it (a new file, as the recovery of an interrupted
   * run puts a copy back): the stitch must read the edit, not what it
   * read ahead. */
  lit_stitch_ahead *ahead = NULL;
  if (number % 4 == 1) {
    ahead = lit_stitch_ahead_start(dir, &file, 1);
    lit_stitch_ahead_wait(ahead);
    S_write(dir, "out/.edited", edited, strlen(edited));
    char *from = lit_xasprintf("%s/out/.edited", dir), *to = lit_xasprintf("%s/%s", dir, file);
    if (rename(from, to) != 0) lit_buf_printf(&why, "cannot rename %s", from);
    free(from);
    free(to);
  } else {
    S_write(dir, file, edited, strlen(edited));
    if (number % 2) ahead = lit_stitch_ahead_start(dir, &file, 1);
  }
  for (int i = 0; i < pr.ndocs; i++)
    before[i] = S_read(dir, S_doc_name(i), &before_len[i]);
  lit_diags_free(d);
  d = lit_diags_new();
  lit_project *p = lit_project_load(dir, "index.md", d);
  lit_stitch_opts so = {number % 2 ? &file : NULL, number % 2 ? 1 : 0, 1};
  lit_status s = p && lit_diags_count(d, LIT_ERROR) == 0 ? lit_stitch_run_ahead(p, &so, ahead, d) : LIT_USAGE;
  lit_stitch_ahead_free(ahead);
  lit_project_free(p);
  messages = S_diags(d);
  if (s == LIT_OK) {
    counts->stitched++;
    lit_diags *t = lit_diags_new();
    if (S_tangle(dir, 0, pr.directives, t) != LIT_OK) lit_buf_puts(&why, "after the stitch, lit tangle fails");
    size_t now_len;
    char *now = S_read(dir, file, &now_len);
    if (!why.len && (!now || !S_same(now, edited, pr.directives)))
      lit_buf_printf(&why, "after the stitch and a tangle, %s is not as edited:\n%s", file, now ? now : "(missing)");
    free(now);
    if (!why.len && S_tangle(dir, 1, pr.directives, t) != LIT_OK)
      lit_buf_puts(&why, "after the stitch and a tangle, lit tangle --check finds differences");
    if (why.len) {
      char *tm = S_diags(t);
      lit_buf_printf(&why, "\ntangle's messages:\n%s", tm);
      free(tm);
    }
    lit_diags_free(t);
  } else if (s == LIT_FAILED) {
    counts->refused++;
    shown = S_tally(counts, messages);
    if (regexec(located, messages, 0, NULL, 0) != 0) lit_buf_puts(&why, "the stitch failed without a located error");
    for (int i = 0; i < pr.ndocs && !why.len; i++) {
      size_t now_len;
      char *now = S_read(dir, S_doc_name(i), &now_len);
      if (!now || now_len != before_len[i] || memcmp(now, before[i], now_len) != 0)
        lit_buf_printf(&why, "the stitch failed but changed %s", S_doc_name(i));
      free(now);
    }
    size_t now_len;
    char *now = S_read(dir, file, &now_len);
    if (!why.len && (!now || strcmp(now, edited) != 0)) lit_buf_printf(&why, "the stitch failed but changed %s", file);
    free(now);
  } else {
    lit_buf_printf(&why, "the stitch returned status %d", (int)s);
  }
done:
  if (why.len || shown) {
    printf("%s case %u: %s\n", why.len ? "FAIL" : "SHOW", number, why.len ? why.data : "refused");
    for (int i = 0; i < pr.ndocs; i++)
      printf("--- %s\n%s", S_doc_name(i), pr.docs[i].data);
    printf("--- tangled\n%s--- edits\n%s--- stitch's messages\n%s", text ? text : "", log.data ? log.data : "",
           messages ? messages : "");
  }
  int failed = why.len > 0;
  for (int i = 0; i < S_MAXDOCS; i++)
    free(before[i]);
  free(edited);
  free(text);
  free(messages);
  lit_buf_free(&why);
  lit_buf_free(&log);
  lit_diags_free(d);
  S_project_free(&pr);
  free(dir);
  return failed;
}

int main(int argc, char **argv) {
  unsigned cases = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 3000;
  unsigned long seed = argc > 2 ? strtoul(argv[2], NULL, 10) : 1;
  S_state = seed * 0x9E3779B97F4A7C15ULL + 1;
  /* A stitch syncs what it commits: on a disk, thousands of cases wait
   * on it, so the scratch folder is in memory where there is one. */
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !tmp[0]) tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  char *base = lit_xasprintf("%s/lit-stitch-prop.XXXXXX", tmp);
  if (!mkdtemp(base)) {
    perror("stitch_prop: mkdtemp");
    return 2;
  }
  regex_t located; /* "path:LINE: error:" or "path:LINE:COL: error:" */
  regcomp(&located, "^[^ :]+:[0-9]+(:[0-9]+)?: error: ", REG_EXTENDED | REG_NEWLINE);
  S_counts counts;
  memset(&counts, 0, sizeof counts);
  unsigned passed = 0, failed = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (unsigned i = 1; i <= cases; i++) {
    if (S_case(base, i, &counts, &located))
      failed++;
    else
      passed++;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  regfree(&located);
  S_rmtree(base);
  free(base);
  printf("stitch_prop: seed %lu, %u cases in %.1f s: %u stitched, %u refused, %u edits that changed nothing\n", seed,
         cases, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, counts.stitched,
         counts.refused, counts.unchanged);
  for (size_t i = 0; i <= S_KINDS; i++)
    if (counts.nkind[i]) printf("  refused %5u: %s\n", counts.nkind[i], i < S_KINDS ? S_kinds[i] : "(other)");
  printf("%u passed, %u failed\n", passed, failed);
  return failed ? 1 : 0;
}

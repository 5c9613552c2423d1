/* fuzz_write.c: libFuzzer target over the write path: the tangle's
 * all-or-nothing commit of outputs and the record, on a scratch folder.
 *
 * The input is split as in fuzz_input.h into up to six parts. Parts named
 * *.md are documents (index.md first), loaded from memory; every other
 * part is a file that exists before the run (an output, an edited output,
 * a .lit-record, a stray file), written into an empty scratch folder first.
 * Then lit_outputs_run tangles there, and the target aborts when:
 *
 *   - a failed run changed anything (the tree must be exactly as before);
 *   - a successful run left a file unlike a fresh tangle, or a second run
 *     would write or remove anything, or --check would find a difference;
 *   - any run left a temporary, an old copy or a journal behind;
 *   - with a journal in the input (a killed run's, or a crafted one), a
 *     run changed anything outside the output folders but the record, the
 *     journal and stale copies beside them: recovery may put files back,
 *     but only where a tangle of this project writes. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../gen/diag.h"
#include "../../gen/hash.h"
#include "../../gen/model.h"
#include "../../gen/outputs.h"
#include "../../gen/paths.h"
#include "../../gen/tangle.h"
#include "../../gen/util.h"
#include "fuzz_input.h"
#include "fuzz_scratch.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Everything lit writes goes under the scratch folder, the current folder
 * of the whole run: a memory-loaded project's root is ".". */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_enter_scratch("write");
  setenv("LIT_MAX_FILE_SIZE", "4M", 0); /* a file expanding past it is refused, not written for seconds */
  return 0;
}

static int S_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)flag;
  if (ftw->level > 0) remove(path);
  return 0;
}

/* The scratch folder as text: every path with its kind and content hash. */
static lit_buf S_snapshot_text;

static int S_snap(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)ftw;
  if (strcmp(path, ".") == 0) return 0;
  if (flag == FTW_F) {
    char h[LIT_HASH_HEX + 1] = "";
    lit_hash_file(path, h);
    lit_buf_printf(&S_snapshot_text, "f %s %s %o\n", path, h, (unsigned)(st->st_mode & 0777));
  } else {
    lit_buf_printf(&S_snapshot_text, "d %s\n", path);
  }
  return 0;
}

/* The caller frees the result. The order of nftw is the order of readdir,
 * which may differ between two listings of the same folder: sort lines. */
static int S_cmp_lines(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char *S_snapshot(void) {
  S_snapshot_text = (lit_buf)LIT_BUF_INIT;
  nftw(".", S_snap, 16, FTW_PHYS);
  char *text = lit_buf_detach(&S_snapshot_text);
  size_t n = 0;
  for (char *c = text; *c; c++)
    n += *c == '\n';
  char **lines = lit_xmalloc((n + 1) * sizeof(char *));
  size_t k = 0;
  for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
    lines[k++] = l;
  qsort(lines, k, sizeof(char *), S_cmp_lines);
  lit_buf out = LIT_BUF_INIT;
  for (size_t i = 0; i < k; i++)
    lit_buf_printf(&out, "%s\n", lines[i]);
  free(lines);
  free(text);
  return lit_buf_detach(&out);
}

static int S_is_doc(const char *name) {
  size_t n = strlen(name);
  return n > 3 && strcmp(name + n - 3, ".md") == 0;
}

/* Writes an existing file of the input (a plain relative path only). */
static void S_put(const char *rel, const char *text, size_t len) {
  if (lit_path_check_plain(rel)) return;
  /* lit's own temporaries and old copies: one with this process's id
   * would stay, rightly. The record and the journal are put, to be read. */
  const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
  if (strncmp(base, ".lit-tmp-", 9) == 0 || strncmp(base, ".lit-old-", 9) == 0) return;
  char *p = lit_xstrdup(rel);
  for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
    *s = '\0';
    mkdir(p, 0777);
    *s = '/';
  }
  FILE *f = fopen(p, "wb");
  if (f) {
    fwrite(text, 1, len, f);
    fclose(f);
  }
  free(p);
}

static int S_leftover(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  const char *name = path + ftw->base;
  return flag == FTW_F && (strncmp(name, ".lit-tmp-", 9) == 0 || strncmp(name, ".lit-old-", 9) == 0);
}

static int S_had_journal; /* the input put a file where the journal goes */

/* The snapshot's lines for paths outside the output folders, less the
 * record, the journal and stale copies (which recovery may change). The
 * caller frees the result. */
static char *S_outside(const lit_project *p, const char *snapshot) {
  lit_buf out = LIT_BUF_INIT;
  char *text = lit_xstrdup(snapshot);
  for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
    const char *path = strchr(l, ' ') + 1; /* "./rel ..." */
    char *rel = lit_xstrndup(path + 2, strcspn(path + 2, " "));
    const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
    int skip = strcmp(rel, p->record_path) == 0 || strcmp(rel, p->journal_path) == 0 ||
               strncmp(base, ".lit-tmp-", 9) == 0 || strncmp(base, ".lit-old-", 9) == 0;
    for (size_t i = 0; i < p->nroots && !skip; i++) {
      size_t n = strlen(p->tangle_roots[i]);
      skip = strncmp(rel, p->tangle_roots[i], n) == 0 ||
             (strncmp(p->tangle_roots[i], rel, strlen(rel)) == 0 && p->tangle_roots[i][strlen(rel)] == '/');
    }
    if (!skip) lit_buf_printf(&out, "%s\n", l);
    free(rel);
  }
  free(text);
  return lit_buf_detach(&out);
}

/* One run; *warnings (may be NULL) counts its warnings. */
static lit_status S_run(const lit_project *p, int check, lit_outputs_stats *st, size_t *warnings) {
  lit_diags *d = lit_diags_new();
  lit_diags_set_limit(d, 200);
  lit_outputs_opts o = {check, 0, 0, 1};
  lit_status r = lit_outputs_run(p, &o, st, d);
  if (warnings) *warnings = lit_diags_count(d, LIT_WARNING);
  FILE *null = fopen("/dev/null", "w");
  if (null) {
    lit_diags_print(d, null);
    fclose(null);
  }
  lit_diags_free(d);
  if (nftw(".", S_leftover, 16, FTW_PHYS) != 0) abort(); /* a temporary or old copy left behind */
  struct stat js;
  if (!S_had_journal && stat(p->journal_path, &js) == 0) abort(); /* a journal left behind */
  return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_parts parts;
  fuzz_split(data, size, FUZZ_MAX_PARTS, &parts);
  nftw(".", S_rm, 16, FTW_DEPTH | FTW_PHYS);
  const char *names[FUZZ_MAX_PARTS], *texts[FUZZ_MAX_PARTS];
  size_t lens[FUZZ_MAX_PARTS], ndocs = 0;
  for (size_t i = 0; i < parts.n; i++) {
    if (i == 0 || S_is_doc(parts.names[i])) {
      names[ndocs] = i == 0 ? "index.md" : parts.names[i];
      texts[ndocs] = parts.texts[i];
      lens[ndocs++] = parts.lens[i];
    } else {
      S_put(parts.names[i], parts.texts[i], parts.lens[i]);
    }
  }
  lit_diags *d = lit_diags_new();
  lit_diags_set_limit(d, 200);
  lit_project *p = lit_project_load_memory(names, texts, lens, ndocs, d);
  if (p && lit_diags_count(d, LIT_ERROR) == 0) {
    struct stat js;
    S_had_journal = stat(p->journal_path, &js) == 0;
    char *before = S_snapshot();
    lit_outputs_stats st;
    size_t warnings;
    lit_status r = S_run(p, 0, &st, &warnings);
    char *after = S_snapshot();
    if (S_had_journal) {
      char *b = S_outside(p, before), *a = S_outside(p, after);
      if (strcmp(b, a) != 0) abort(); /* recovery changed something no tangle writes */
      free(b);
      free(a);
    } else if (r != LIT_OK && strcmp(before, after) != 0) {
      abort(); /* a failed run changed the tree */
    }
    if (r == LIT_OK) {
      /* what a tangle writes: with #line directives where the project asks */
      lit_tangle_opts topts = {p->line_directives, NULL};
      for (size_t i = 0; i < p->nfiles; i++) {
        lit_buf want = LIT_BUF_INIT, got = LIT_BUF_INIT;
        lit_tangle_file(p, &p->files[i], &topts, &want);
        if (lit_read_file(p->files[i].path, &got) != 0) abort();                       /* an output is missing */
        if (got.len != want.len || memcmp(got.data, want.data, got.len) != 0) abort(); /* not a fresh tangle */
        lit_buf_free(&want);
        lit_buf_free(&got);
      }
      lit_outputs_stats again;
      if (S_run(p, 0, &again, NULL) != LIT_OK || again.written || again.removed) abort(); /* a second run writes */
      /* --check agrees, unless the run warned of a file it left (an edited orphan) */
      if (S_run(p, 1, &again, NULL) != LIT_OK && warnings == 0) abort();
      char *final = S_snapshot();
      if (strcmp(after, final) != 0) abort(); /* the second run changed the tree */
      free(final);
    }
    free(before);
    free(after);
  }
  lit_project_free(p);
  lit_diags_free(d);
  fuzz_parts_free(&parts);
  return 0;
}

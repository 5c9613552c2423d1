#define _XOPEN_SOURCE 700
#include "outputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commit.h"
#include "hash.h"
#include "paths.h"
#include "record.h"

static void S_block_loc(const lit_file *f, const char **doc, int *line, int *col) {
  *doc = f->block->doc->src.path;
  *line = f->block->line;
  *col = f->block->file_col;
}

/* A staged file being written: the sink of a streamed tangle. */
typedef struct {
  int fd;
  int err;          /* first write error, or 0 */
  lit_hasher *hash; /* NULL when only writing */
  char first[2];    /* the first two bytes, to spot a shebang */
  size_t written;
  const char *fail_at; /* fault injection: LIT_TEST_FAIL_WRITE names this file */
} S_file_sink;

static void S_sink_write(void *ctx, const char *data, size_t len) {
  S_file_sink *s = ctx;
  if (s->hash) lit_hasher_update(s->hash, data, len);
  for (size_t i = 0; i < len && s->written + i < 2; i++)
    s->first[s->written + i] = data[i];
  s->written += len;
  if (s->fd < 0 || s->err) return;
  if (s->fail_at) {
    s->err = ENOSPC;
    return;
  }
  s->err = lit_write_all(s->fd, data, len);
}

/* Opens a staged copy of rel in the commit; 0 or an errno. */
static int S_stage_begin(lit_commit *c, const char *rel, S_file_sink *s) {
  memset(s, 0, sizeof *s);
  int err = lit_commit_open(c, rel, &s->fd);
  if (err) return err;
  const char *fail = getenv("LIT_TEST_FAIL_WRITE"); /* fault injection for the test suite */
  if (fail && strcmp(fail, rel) == 0) s->fail_at = fail;
  return 0;
}

/* Finishes a staged copy: it joins the commit, or is removed. 0 or an errno. */
static int S_stage_end(lit_commit *c, S_file_sink *s) {
  int exec = s->written >= 2 && s->first[0] == '#' && s->first[1] == '!';
  return lit_commit_close(c, s->fd, exec, s->err);
}

static int S_stage(lit_commit *c, const char *rel, const lit_buf *content) {
  S_file_sink s;
  int err = S_stage_begin(c, rel, &s);
  if (err) return err;
  S_sink_write(&s, content->data ? content->data : "", content->len);
  return S_stage_end(c, &s);
}

/* A staged copy that could not be made: its own fault, or the journal's
 * (a tangle-record whose folder cannot be made, say). */
static void S_write_error(const lit_project *p, const lit_commit *t, const char *doc, int line, int col,
                          const char *path, int err, lit_diags *d) {
  if (lit_commit_journal_error(t))
    lit_diag(d, LIT_ERROR, p->docs[0]->src.path, p->record_line, p->record_line ? 1 : 0,
             "cannot write the journal '%s' beside the record (tangle-record): %s; nothing was written",
             p->journal_path, strerror(err));
  else
    lit_diag(d, LIT_ERROR, doc, line, col, "cannot write '%s': %s; nothing was written", path, strerror(err));
}

/* Tangles f into a hash only: nothing is kept but the digest. */
static void S_hash_sink(void *ctx, const char *data, size_t len) { lit_hasher_update(ctx, data, len); }

/* Undoes a run that died midway and sweeps the temporaries of dead runs
 * from the output folders; 0, or -1 reported. */
static int S_recover(const lit_project *p, lit_diags *d) {
  char **dirs = lit_xcalloc(p->nroots + 1, sizeof(char *));
  for (size_t i = 0; i < p->nroots; i++) {
    size_t n = strlen(p->tangle_roots[i]);
    dirs[i] = lit_xstrndup(p->tangle_roots[i], n && p->tangle_roots[i][n - 1] == '/' ? n - 1 : n);
  }
  int r = lit_commit_recover(p->root, p->journal_path, dirs, p->nroots, d);
  for (size_t i = 0; i < p->nroots; i++)
    free(dirs[i]);
  free(dirs);
  return r;
}

lit_status lit_outputs_run(const lit_project *p, const lit_outputs_opts *o, lit_outputs_stats *stats, lit_diags *d) {
  lit_outputs_stats st = {0, 0, 0};
  if (stats) *stats = st;
  if (S_recover(p, d) != 0) return LIT_FAILED;
  lit_record rec;
  int failed = lit_record_read(&rec, p->root, p->record_path, d) != 0;
  lit_record next;
  memset(&next, 0, sizeof next);
  lit_commit *t = lit_commit_new(p->root, p->journal_path);
  int differs = 0;
  lit_tangle_opts topts = {o->line_directives};

  for (size_t i = 0; i < p->nfiles; i++) {
    const lit_file *f = &p->files[i];
    const char *doc;
    int line, col;
    S_block_loc(f, &doc, &line, &col);
    char new_hash[LIT_HASH_HEX + 1] = "", disk_hash[LIT_HASH_HEX + 1] = ""; /* set on every path, even a failed stage */
    char *full = lit_path_join(p->root, f->path);
    int read_err = lit_hash_file(full, disk_hash);
    free(full);
    int exists = read_err == 0;
    if (read_err == ENOENT) read_err = 0;
    int staged = 0;
    if (read_err) {
      lit_diag(d, LIT_ERROR, doc, line, col, "cannot read '%s' to compare it: %s", f->path, strerror(read_err));
      failed = 1;
      continue;
    }
    if (!exists && !o->check && !failed) {
      /* A new file: stream the tangle straight into its staged copy. */
      S_file_sink s;
      int err = S_stage_begin(t, f->path, &s);
      if (!err) {
        s.hash = lit_hasher_new();
        lit_tangle_stream(p, f, &topts, S_sink_write, &s);
        lit_hasher_finish(s.hash, new_hash);
        s.hash = NULL;
        err = S_stage_end(t, &s);
      }
      if (err) {
        S_write_error(p, t, doc, line, col, f->path, err, d);
        failed = 1;
      }
      staged = !err && !failed;
    } else {
      lit_hasher *h = lit_hasher_new();
      lit_tangle_stream(p, f, &topts, S_hash_sink, h);
      lit_hasher_finish(h, new_hash);
    }
    if (staged) {
      st.written++;
      lit_record_set(&next, f->path, new_hash);
      continue;
    }
    const lit_record_entry *e = lit_record_find(&rec, f->path);
    int write = 0;
    if (!exists) {
      if (o->check) {
        lit_diag(d, LIT_ERROR, doc, line, col, "'%s' is missing: a fresh tangle writes it", f->path);
        differs = 1;
      }
    } else if (strcmp(disk_hash, new_hash) == 0) {
      st.unchanged++;
      if (o->check && (!e || strcmp(e->hash, new_hash) != 0)) {
        lit_diag(d, LIT_ERROR, doc, line, col, "'%s' is up to date but missing from the record %s (run make tangle)",
                 f->path, p->record_path);
        differs = 1;
      }
    } else if (e && strcmp(e->hash, disk_hash) == 0) {
      if (o->check) {
        lit_diag(d, LIT_ERROR, doc, line, col, "'%s' differs from a fresh tangle of this document (run make tangle)",
                 f->path);
        differs = 1;
      }
      write = 1;
    } else {
      const char *what = e ? "was edited by hand since lit wrote it" : "exists but was not written by lit";
      if (o->check) {
        lit_diag(d, LIT_ERROR, doc, line, col, "'%s' %s; move the change into this block", f->path, what);
        differs = 1;
      } else if (!o->force) {
        lit_diag(
            d, LIT_ERROR, doc, line, col,
            "'%s' %s; refusing to overwrite it: move the change into this block, or run with --force to discard it",
            f->path, what);
        failed = 1;
      }
      write = o->force;
    }
    if (write && !o->check && !failed) {
      /* A changed file: tangle again, this time into its staged copy. */
      S_file_sink s;
      int err = S_stage_begin(t, f->path, &s);
      if (!err) {
        lit_tangle_stream(p, f, &topts, S_sink_write, &s);
        err = S_stage_end(t, &s);
      }
      if (err) {
        S_write_error(p, t, doc, line, col, f->path, err, d);
        failed = 1;
      } else {
        st.written++;
      }
    }
    lit_record_set(&next, f->path, new_hash);
  }

  /* Orphans: recorded files no block writes any more. */
  char **remove = NULL;
  size_t nremove = 0;
  for (size_t i = 0; i < rec.len; i++) {
    const lit_record_entry *e = &rec.items[i];
    if (lit_record_find(&next, e->path)) continue;
    /* Only files inside the declared output folders are lit's to remove. */
    const char *why = lit_path_check_syntax(e->path, p->tangle_roots, p->nroots);
    if (!why) why = lit_path_check_disk(p->root, e->path, p->tangle_roots, p->nroots);
    if (why) {
      lit_diag(d, LIT_WARNING, p->record_path, 0, 0,
               "'%s' is in the record but no document writes it, and %s: left in place", e->path, why);
      continue;
    }
    char *full = lit_path_join(p->root, e->path);
    char h[LIT_HASH_HEX + 1];
    int err = lit_hash_file(full, h);
    free(full);
    if (err == ENOENT) {
      if (o->check) {
        lit_diag(d, LIT_ERROR, p->record_path, 0, 0,
                 "'%s' is in the record but no document writes it (run make tangle)", e->path);
        differs = 1;
      }
    } else if (!err) {
      if (strcmp(h, e->hash) != 0) {
        /* --check lists it: the tree holds a file no document writes. */
        lit_diag(d, o->check ? LIT_ERROR : LIT_WARNING, e->path, 0, 0,
                 "no document writes this file any more, but it was edited by hand since lit wrote it: %s",
                 o->check ? "delete it or give it a block again" : "left in place");
        if (o->check) differs = 1;
      } else if (o->check) {
        lit_diag(d, LIT_ERROR, e->path, 0, 0, "orphan: no document writes this file any more (make tangle removes it)");
        differs = 1;
      } else {
        lit_commit_remove(t, e->path);
        remove = lit_xrealloc(remove, (nremove + 1) * sizeof(char *));
        remove[nremove++] = lit_path_join(p->root, e->path);
      }
    }
  }

  /* The record itself, staged like any file. */
  lit_buf old_text = LIT_BUF_INIT, new_text = LIT_BUF_INIT;
  lit_record_format(&rec, &old_text);
  lit_record_format(&next, &new_text);
  int record_changes = old_text.len != new_text.len || memcmp(old_text.data, new_text.data, old_text.len) != 0;
  if (o->check && record_changes && !differs) {
    lit_diag(d, LIT_ERROR, p->record_path, 0, 0, "the record is out of date (run make tangle)");
    differs = 1;
  }
  if (!o->check && !failed && record_changes) {
    int err = S_stage(t, p->record_path, &new_text);
    if (err && lit_commit_journal_error(t))
      S_write_error(p, t, NULL, 0, 0, NULL, err, d);
    else if (err)
      lit_diag(d, LIT_ERROR, p->record_path, 0, 0, "cannot write the tangle record: %s; nothing was written",
               strerror(err));
    if (err) failed = 1;
  }
  lit_buf_free(&old_text);
  lit_buf_free(&new_text);

  lit_status result;
  if (o->check) {
    result = failed && !differs ? LIT_FAILED : differs ? LIT_DIFFERS : LIT_OK;
  } else if (failed) {
    result = LIT_FAILED;
  } else {
    result = lit_commit_run(t, &st.removed, d);
    if (result == LIT_OK && !o->quiet)
      for (size_t i = 0; i < nremove; i++)
        fprintf(stderr, "lit: removed %s (its block was deleted)\n", remove[i]);
    if (result != LIT_OK) st.written = 0;
  }
  for (size_t i = 0; i < nremove; i++)
    free(remove[i]);
  free(remove);
  lit_commit_free(t);
  lit_record_free(&rec);
  lit_record_free(&next);
  if (stats) *stats = st;
  return result;
}

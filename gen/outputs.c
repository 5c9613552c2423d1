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

/* 0, or the write's errno: the tangle stops at the first failed write
 * (ENOSPC, EIO), so a full disk is not followed by hours of expansion. */
static int S_sink_write(void *ctx, const char *data, size_t len) {
  S_file_sink *s = ctx;
  if (s->hash) lit_hasher_update(s->hash, data, len);
  for (size_t i = 0; i < len && s->written + i < 2; i++)
    s->first[s->written + i] = data[i];
  s->written += len;
  if (s->fd < 0 || s->err) return s->err;
  s->err = s->fail_at ? ENOSPC : lit_write_all(s->fd, data, len);
  return s->err;
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
  (void)S_sink_write(&s, content->data ? content->data : "", content->len); /* its error is s.err */
  return S_stage_end(c, &s);
}

/* A staged copy that could not be made: its own fault, or the journal's
 * (a tangle-record whose folder cannot be made, say). */
static void S_write_error(const lit_project *p, const lit_commit *t, const char *doc, int line, int col,
                          const char *path, int err, lit_diags *d) {
  if (lit_commit_journal_error(t) && err == EBUSY)
    lit_diag(d, LIT_ERROR, p->journal_path, 0, 0,
             "another lit is writing this project (its journal is here); run again when it has finished; "
             "nothing was written");
  else if (lit_commit_journal_error(t))
    lit_diag(d, LIT_ERROR, p->docs[0]->src.path, p->record_line, p->record_line ? 1 : 0,
             "cannot write the journal '%s' beside the record (tangle-record): %s; nothing was written",
             p->journal_path, strerror(err));
  else
    lit_diag(d, LIT_ERROR, doc, line, col, "cannot write '%s': %s; nothing was written", path, strerror(err));
}

/* Undoes a run that died midway, or finishes the clean-up of one that died
 * after its commit point, from its journal (under --check: reports such a
 * run, changes nothing); 0, 1 (documents put back), or -1 reported. */
static int S_recover(const lit_project *p, int check, lit_diags *d) {
  char **docs = lit_xmalloc((p->ndocs + 1) * sizeof(char *));
  for (size_t i = 0; i < p->ndocs; i++)
    docs[i] = p->docs[i]->src.path;
  lit_recover_opts o = {p->tangle_roots, p->nroots, p->record_path, check, docs, p->ndocs};
  int r = lit_commit_recover(p->root, p->journal_path, &o, d);
  free(docs);
  return r;
}

int lit_outputs_recover(const lit_project *p, lit_diags *d) { return S_recover(p, 0, d); }

/* One run of the transaction. */
typedef struct {
  const lit_project *p;
  const lit_outputs_opts *o;
  lit_diags *d;
  lit_commit *t;
  lit_tangle_opts topts;
  lit_record rec;  /* what lit wrote last time */
  lit_record next; /* what this run leaves */
  lit_outputs_stats st;
  int failed;     /* an error: nothing will be written */
  int stopped;    /* a staged copy could not be written: the disk is full or failing, so the run ends there */
  int differs;    /* --check: a difference was reported */
  char **removed; /* relative to the project root */
  size_t nremoved;
} S_run;

/* What a file on disk needs, from its hash, the fresh tangle's and the
 * record's (e, NULL when lit has no record of it). */
typedef enum {
  S_MISSING,   /* not on disk: written */
  S_UNCHANGED, /* the disk holds the fresh tangle */
  S_STALE,     /* lit wrote it, and the documents changed since: rewritten */
  S_FOREIGN    /* edited by hand since lit wrote it, or never lit's: refused without --force */
} S_action;

static S_action S_plan(int exists, const char *disk, const char *fresh, const lit_record_entry *e) {
  if (!exists) return S_MISSING;
  if (strcmp(disk, fresh) == 0) return S_UNCHANGED;
  if (e && strcmp(e->hash, disk) == 0) return S_STALE;
  return S_FOREIGN;
}

/* Tangles f straight into its staged copy; fresh (may be NULL) gets the
 * hash of what was written. 0, or an errno. */
static int S_stage_tangle(S_run *r, const lit_file *f, char fresh[LIT_HASH_HEX + 1]) {
  S_file_sink s;
  int err = S_stage_begin(r->t, f->path, &s);
  if (err) return err;
  if (fresh) s.hash = lit_hasher_new();
  (void)lit_tangle_stream(r->p, f, &r->topts, S_sink_write, &s); /* a failed write stops it; s.err says why */
  if (fresh) lit_hasher_finish(s.hash, fresh);
  s.hash = NULL;
  return S_stage_end(r->t, &s);
}

/* Compares one file with the disk and the record, and stages it if it must
 * be written. */
static void S_file(S_run *r, const lit_file *f) {
  const lit_outputs_opts *o = r->o;
  lit_diags *d = r->d;
  const char *doc;
  int line, col;
  S_block_loc(f, &doc, &line, &col);
  char fresh[LIT_HASH_HEX + 1] = "", disk[LIT_HASH_HEX + 1] = ""; /* set on every path, even a failed stage */
  char *full = lit_path_join(r->p->root, f->path);
  lit_file_id was; /* the file compared: the commit replaces only that one */
  int read_err = lit_hash_file_id(full, disk, &was);
  free(full);
  int exists = read_err == 0;
  if (read_err && read_err != ENOENT) {
    lit_diag(d, LIT_ERROR, doc, line, col, "cannot read '%s' to compare it: %s", f->path, lit_strerror(read_err));
    r->failed = 1;
    return;
  }
  if (!exists && !o->check && !r->failed) {
    /* A new file: one tangle, straight into its staged copy. */
    int err = S_stage_tangle(r, f, fresh);
    if (err) {
      S_write_error(r->p, r->t, doc, line, col, f->path, err, d);
      r->failed = r->stopped = 1;
    } else {
      lit_commit_expect_absent(r->t, f->path); /* a file saved there meanwhile is not lit's */
      r->st.written++;
    }
    lit_record_set(&r->next, f->path, fresh);
    return;
  }
  /* An existing file: tangled into its hash alone, so an unchanged file is
   * not touched (make's timestamps stay right). */
  lit_tangle_hash(r->p, f, &r->topts, fresh);
  const lit_record_entry *e = lit_record_find(&r->rec, f->path);
  int write = 0;
  switch (S_plan(exists, disk, fresh, e)) {
  case S_MISSING: /* --check, or a run that already failed */
    if (o->check) {
      lit_diag(d, LIT_ERROR, doc, line, col, "'%s' is missing: a fresh tangle writes it", f->path);
      r->differs = 1;
    }
    break;
  case S_UNCHANGED:
    r->st.unchanged++;
    if (o->check && (!e || strcmp(e->hash, fresh) != 0)) {
      lit_diag(d, LIT_ERROR, doc, line, col, "'%s' is up to date but missing from the record %s (run %s)", f->path,
               r->p->record_path, r->p->tangle_command);
      r->differs = 1;
    }
    break;
  case S_STALE:
    if (o->check) {
      lit_diag(d, LIT_ERROR, doc, line, col, "'%s' differs from a fresh tangle of this document (run %s)", f->path,
               r->p->tangle_command);
      r->differs = 1;
    }
    write = 1;
    break;
  case S_FOREIGN: {
    const char *what = e ? "was edited by hand since lit wrote it" : "exists but was not written by lit";
    /* A hand edit of a file lit wrote, to documents unchanged since, can
     * go back into the blocks by itself: lit stitch. (With the documents
     * changed too, or a file lit never wrote, it cannot.) */
    int stitchable = e && strcmp(e->hash, fresh) == 0;
    if (o->check && stitchable) {
      lit_diag(d, LIT_ERROR, doc, line, col, "'%s' %s; run lit stitch %s to move the edit into the documents", f->path,
               what, f->path);
      r->differs = 1;
    } else if (o->check) {
      lit_diag(d, LIT_ERROR, doc, line, col, "'%s' %s; move the change into this block", f->path, what);
      r->differs = 1;
    } else if (!o->force && stitchable) {
      lit_diag(d, LIT_ERROR, doc, line, col,
               "'%s' %s; refusing to overwrite it: run lit stitch %s to move the edit into the documents, or run "
               "with --force to discard it",
               f->path, what, f->path);
      r->failed = 1;
    } else if (!o->force) {
      lit_diag(d, LIT_ERROR, doc, line, col,
               "'%s' %s; refusing to overwrite it: move the change into this block, or run with --force to discard it",
               f->path, what);
      r->failed = 1;
    }
    write = o->force;
    break;
  }
  }
  if (write && !o->check && !r->failed) {
    /* A changed file: tangled again, this time into its staged copy. */
    int err = S_stage_tangle(r, f, NULL);
    if (err) {
      S_write_error(r->p, r->t, doc, line, col, f->path, err, d);
      r->failed = r->stopped = 1;
    } else {
      lit_commit_expect(r->t, f->path, &was); /* a save since it was compared is not lit's to replace */
      r->st.written++;
    }
  }
  lit_record_set(&r->next, f->path, fresh);
}

/* Why an orphan that lies in an output folder is still never lit's to
 * remove, or NULL: one of the documents (a generated Markdown file kept as
 * a document once its block was dropped, or a record that says so), the
 * record or its journal, or a file a block writes now, under any spelling
 * (a link, a hard link), or a file of git's. */
static const char *S_not_removable(const lit_project *p, const char *path) {
  char **docs = lit_xmalloc((p->ndocs + 1) * sizeof(char *));
  for (size_t i = 0; i < p->ndocs; i++)
    docs[i] = p->docs[i]->src.path;
  int doc = lit_path_same_as_any(p->root, path, docs, p->ndocs);
  free(docs);
  if (doc) return "it is one of the project's documents";
  char *own[] = {p->record_path, p->journal_path};
  if (lit_path_same_as_any(p->root, path, own, 2)) return "it is the record of generated files or its journal";
  /* A file a block writes now, under another spelling (out/l/x.c, with
   * out/l a link to out): removing the orphan would delete it. */
  char **files = lit_xmalloc((p->nfiles + 1) * sizeof(char *));
  for (size_t i = 0; i < p->nfiles; i++)
    files[i] = p->files[i].path;
  int written = lit_path_same_as_any(p->root, path, files, p->nfiles);
  free(files);
  if (written) return "it is a file a block writes now, reached through a symbolic link";
  return lit_path_check_git(p->root, path);
}

/* Recorded files no block writes any more: removed if unchanged since lit
 * wrote them, kept with a warning if edited. */
static void S_orphans(S_run *r) {
  const lit_project *p = r->p;
  const lit_outputs_opts *o = r->o;
  lit_diags *d = r->d;
  for (size_t i = 0; i < r->rec.len; i++) {
    const lit_record_entry *e = &r->rec.items[i];
    if (lit_record_find(&r->next, e->path)) continue;
    /* Only files inside the declared output folders are lit's to remove. */
    const char *why = lit_path_check_syntax(e->path, p->tangle_roots, p->nroots);
    if (!why) why = lit_path_check_disk(p->root, e->path, p->tangle_roots, p->nroots);
    if (!why) why = S_not_removable(p, e->path);
    if (why) {
      lit_diag(d, LIT_WARNING, p->record_path, e->line, 1,
               "'%s' is in the record but no document writes it, and %s: left in place", e->path, why);
      continue;
    }
    char *full = lit_path_join(p->root, e->path);
    char h[LIT_HASH_HEX + 1];
    lit_file_id was;
    int err = lit_hash_file_id(full, h, &was);
    if (err == ENOENT) {
      if (o->check) {
        lit_diag(d, LIT_ERROR, p->record_path, e->line, 1, "'%s' is in the record but no document writes it (run %s)",
                 e->path, p->tangle_command);
        r->differs = 1;
      }
    } else if (!err) {
      if (strcmp(h, e->hash) != 0) {
        /* --check lists it: the tree holds a file no document writes. */
        lit_diag(d, o->check ? LIT_ERROR : LIT_WARNING, e->path, 0, 0,
                 "no document writes this file any more, but it was edited by hand since lit wrote it: %s",
                 o->check ? "delete it or give it a block again" : "left in place");
        if (o->check) r->differs = 1;
      } else if (o->check) {
        lit_diag(d, LIT_ERROR, e->path, 0, 0, "orphan: no document writes this file any more (%s removes it)",
                 p->tangle_command);
        r->differs = 1;
      } else {
        lit_commit_remove(r->t, e->path);
        lit_commit_expect(r->t, e->path, &was); /* removed only as compared: not an edit saved since */
        r->removed = lit_xrealloc(r->removed, (r->nremoved + 1) * sizeof(char *));
        r->removed[r->nremoved++] = lit_xstrdup(e->path);
      }
    } else {
      /* a FIFO, a device or a file it may not read: not lit's to judge */
      lit_diag(d, LIT_WARNING, p->record_path, e->line, 1,
               "'%s' is in the record but no document writes it, and lit cannot read it to compare it: %s; left in "
               "place",
               e->path, lit_strerror(err));
    }
    free(full);
  }
}

/* The record, staged like any file when it changes. */
static void S_record(S_run *r) {
  const lit_project *p = r->p;
  lit_buf old_text = LIT_BUF_INIT, new_text = LIT_BUF_INIT;
  lit_record_format(&r->rec, &old_text);
  lit_record_format(&r->next, &new_text);
  int changes = old_text.len != new_text.len || memcmp(old_text.data, new_text.data, old_text.len) != 0;
  if (r->o->check && changes && !r->differs) {
    lit_diag(r->d, LIT_ERROR, p->record_path, 0, 0, "the record is out of date (run %s)", p->tangle_command);
    r->differs = 1;
  }
  if (!r->o->check && !r->failed && changes) {
    int err = S_stage(r->t, p->record_path, &new_text);
    if (err && lit_commit_journal_error(r->t))
      S_write_error(p, r->t, NULL, 0, 0, NULL, err, r->d);
    else if (err)
      lit_diag(r->d, LIT_ERROR, p->record_path, 0, 0, "cannot write the tangle record: %s; nothing was written",
               strerror(err));
    if (err) r->failed = 1;
  }
  lit_buf_free(&old_text);
  lit_buf_free(&new_text);
}

/* The folders below its output folder that a removed file leaves empty:
 * lit made them to hold what it wrote, and an empty one is only a trace of
 * that. rmdir takes a folder only when it is empty, so the climb stops at
 * the first that still holds anything, and at an output folder, which it
 * never removes (rel was checked to lie inside one). Each folder goes by
 * its base name in its parent resolved beneath the root (unlinkat), so a
 * folder swapped for a link leading out after the commit stops the climb
 * rather than take an empty folder outside the project. */
void lit_outputs_prune_dirs(const char *root, const char *rel, char *const *roots, size_t nroots) {
  char *dir = lit_xstrdup(rel);
  for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
    *slash = '\0';
    if (lit_path_is_root(dir, (size_t)(slash - dir), roots, nroots)) break;
    char *base = strrchr(dir, '/');
    int fd;
    if (base) {
      *base = '\0';
      fd = lit_path_dir_beneath(root, dir);
      *base = '/';
      base++;
    } else {
      fd = lit_path_dir_beneath(root, "");
      base = dir;
    }
    if (fd < 0) break;
    int gone = unlinkat(fd, base, AT_REMOVEDIR) == 0;
    close(fd);
    if (!gone) break;
  }
  free(dir);
}

void (*lit_outputs_test_hook)(void) = NULL;

/* What the run comes to: under --check, the differences; else the commit. */
static lit_status S_commit(S_run *r) {
  if (r->o->check) return r->failed && !r->differs ? LIT_FAILED : r->differs ? LIT_DIFFERS : LIT_OK;
  if (r->failed) return LIT_FAILED;
  if (lit_outputs_test_hook) lit_outputs_test_hook();
  lit_status result = lit_commit_run(r->t, &r->st.removed, r->d);
  if (result != LIT_OK) {
    r->st.written = 0;
    return result;
  }
  for (size_t i = 0; i < r->nremoved; i++)
    lit_outputs_prune_dirs(r->p->root, r->removed[i], r->p->tangle_roots, r->p->nroots);
  if (!r->o->quiet)
    for (size_t i = 0; i < r->nremoved; i++) {
      char *full = lit_path_join(r->p->root, r->removed[i]);
      lit_diag(r->d, LIT_NOTE, NULL, 0, 0, "removed %s (its block was deleted)", full);
      free(full);
    }
  return result;
}

lit_status lit_outputs_run(const lit_project *p, const lit_outputs_opts *o, lit_outputs_stats *stats, lit_diags *d) {
  if (stats) memset(stats, 0, sizeof *stats);
  int recovered = S_recover(p, o->check, d);
  if (recovered > 0)
    lit_diag(d, LIT_ERROR, NULL, 0, 0,
             "the documents were read before an interrupted stitch was undone: run lit tangle again to tangle them");
  if (recovered != 0) return LIT_FAILED;
  S_run r;
  memset(&r, 0, sizeof r);
  r.p = p;
  r.o = o;
  r.d = d;
  /* the option, or the project's choice (tangle-line-directives), which
   * every command that tangles honours: --check, serve and watch too */
  r.topts.line_directives = o->line_directives || p->line_directives;
  r.failed = lit_record_read(&r.rec, p->root, p->record_path, d) != 0;
  r.t = lit_commit_new(p->root, p->journal_path);
  /* After a failed write nothing more is tangled: the run cannot succeed,
   * and the next file may be as big as the one the disk refused. */
  for (size_t i = 0; i < p->nfiles && !r.stopped; i++)
    S_file(&r, &p->files[i]);
  if (!r.stopped) {
    S_orphans(&r);
    S_record(&r);
  }
  lit_status result = S_commit(&r);
  for (size_t i = 0; i < r.nremoved; i++)
    free(r.removed[i]);
  free(r.removed);
  lit_commit_free(r.t);
  lit_record_free(&r.rec);
  lit_record_free(&r.next);
  if (stats) *stats = r.st;
  return result;
}

#define _DEFAULT_SOURCE /* struct stat's st_mtim and st_ctim, madvise */
#include "stitch.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commit.h"
#include "diff.h"
#include "docedit.h"
#include "genfile.h"
#include "parallel.h"
#include "paths.h"
#include "record.h"
#include "tangle.h"

/* A generated file being stitched. */
typedef struct {
  const lit_file *f;
  lit_buf disk; /* the file as the user left it */
  char disk_hash[LIT_HASH_HEX + 1];
  lit_file_id disk_id; /* the file disk was read from, as it was: all a rewrite may replace */
  lit_genfile g;       /* the tangle whose hash the record holds */
  size_t ntl;          /* the lines of g.text */
  lit_text_diff diff;  /* from g.text to disk; its lines of disk hold every hunk's new lines */
  lit_genfile after;   /* the stitched documents' tangle */
  int rewrite;         /* only its #line numbers differ from disk: the stitch writes it too */
} S_target;

/* One change to one block, from one hunk. */
typedef struct {
  const lit_block *block;
  int line, nold;  /* as lit_docedit */
  lit_line *lines; /* spans in the target's disk text, the references' indentation taken off */
  size_t nlines;
  size_t target;             /* which S_target it came from */
  size_t gen_first, gen_end; /* its lines in the edited file: [gen_first, gen_end), 1-based */
  int col;                   /* the document column of the block's code, for messages */
  int dup;                   /* the same as an earlier edit (a chunk included twice, edited alike) */
} S_edit;

typedef struct {
  const lit_project *p;
  const lit_stitch_opts *o;
  lit_diags *d;
  lit_record rec;
  S_target *t;
  size_t nt, tcap;
  S_edit *e;
  size_t ne, ecap;
  lit_buf spare;           /* a tangle's text, diffed: memory already in use, for reading a document into */
  lit_stitch_ahead *ahead; /* the named files, read ahead, or NULL */
  int failed;
} S_run;

/* ---- messages ---- */

/* Where a line of the tangle comes from, for a message: "a.md:12:5
 * (<<name>>)", or what lit's own line is; NULL is the file's edge. */
static void S_where(lit_buf *b, const lit_file *f, const lit_line_origin *l, int top) {
  if (!l) {
    lit_buf_puts(b, top ? "the top of the file" : "the end of the file");
    return;
  }
  switch (l->kind) {
  case LIT_LINE_CODE: {
    const char *chunk = lit_line_chunk(l);
    lit_buf_printf(b, "%s:%d:%d (", l->block->doc->src.path, l->line, lit_line_col(l));
    if (chunk)
      lit_buf_printf(b, "<<%s>>)", chunk);
    else
      lit_buf_printf(b, "the block of file=%s)", f->path);
    return;
  }
  case LIT_LINE_HEADER: lit_buf_puts(b, "lit's header comment"); return;
  case LIT_LINE_DIRECTIVE: lit_buf_puts(b, "a #line directive lit writes"); return;
  case LIT_LINE_NEWLINE: lit_buf_puts(b, "the newline lit writes for a file with no code"); return;
  }
}

static const char *S_chunk_name(const lit_block *b) { return b->chunk && b->chunk->name ? b->chunk->name : NULL; }

/* An error at line `line` of a generated file; the message is built in
 * pieces (fmt, then the caller's lit_buf). */
static void S_refuse(S_run *r, const char *path, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void S_refuse(S_run *r, const char *path, size_t line, const char *fmt, ...) {
  lit_buf b = LIT_BUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  lit_buf_reserve(&b, (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(b.data, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b.len = (size_t)n;
  lit_diag(r->d, LIT_ERROR, path, (int)line, 0, "%s", b.data);
  lit_buf_free(&b);
  r->failed = 1;
}

/* The indentation a message shows: "4 spaces", "1 tab", or quoted. */
static void S_show_indent(lit_buf *b, const char *s, size_t len) {
  size_t spaces = 0, tabs = 0;
  for (size_t i = 0; i < len; i++)
    spaces += s[i] == ' ', tabs += s[i] == '\t';
  if (spaces == len)
    lit_buf_printf(b, "%zu space%s", len, len == 1 ? "" : "s");
  else if (tabs == len)
    lit_buf_printf(b, "%zu tab%s", len, len == 1 ? "" : "s");
  else {
    lit_buf_putc(b, '\'');
    for (size_t i = 0; i < len; i++)
      lit_buf_puts(b, s[i] == '\t' ? "\\t" : s[i] == ' ' ? " " : "?");
    lit_buf_putc(b, '\'');
  }
}

/* The reference of block b on a line strictly between two of its lines. */
static const lit_seg *S_ref_between(const lit_block *b, int after, int before) {
  for (size_t i = 0; i < b->nsegs; i++)
    if (b->segs[i].kind == LIT_SEG_REF && b->segs[i].line > after && b->segs[i].line < before) return &b->segs[i];
  return NULL;
}

/* ---- reading each hunk back into a block ---- */

static const lit_line_origin *S_at(const S_target *t, size_t i) {
  return i < t->ntl ? lit_linemap_at(t->g.map, i) : NULL;
}

/* The nearest lines of code of the tangle around [a, end), for a message
 * about lit's own lines. */
static void S_code_around(lit_buf *b, const S_target *t, size_t a, size_t end) {
  const lit_line_origin *up = NULL, *down = NULL;
  for (size_t i = a; i-- > 0 && !up;)
    if (S_at(t, i)->kind == LIT_LINE_CODE) up = S_at(t, i);
  for (size_t i = end; i < t->ntl && !down; i++)
    if (S_at(t, i)->kind == LIT_LINE_CODE) down = S_at(t, i);
  lit_buf_puts(b, "the code around it comes from ");
  S_where(b, t->f, up, 1);
  lit_buf_puts(b, " and ");
  S_where(b, t->f, down, 0);
}

/* Replaced or deleted lines: one expansion of one block, consecutive.
 * Returns the first line's origin, or NULL after refusing. */
static const lit_line_origin *S_replaced(S_run *r, const S_target *t, const lit_hunk *h, size_t gl) {
  const char *path = t->f->path;
  for (size_t i = h->a; i < h->a + h->alen; i++) {
    const lit_line_origin *l = S_at(t, i), *prev = i > h->a ? S_at(t, i - 1) : NULL;
    lit_buf b = LIT_BUF_INIT;
    lit_buf_puts(&b, "");
    if (l->kind != LIT_LINE_CODE) {
      S_code_around(&b, t, h->a, h->a + h->alen);
      if (l->kind == LIT_LINE_DIRECTIVE)
        S_refuse(r, path, gl,
                 "this edit changes a #line directive (line %zu of the file as lit wrote it), which lit writes and no "
                 "block holds; %s: leave the #line lines as they were and edit only the code (lit stitch renumbers "
                 "them)",
                 i + 1, b.data);
      else if (l->kind == LIT_LINE_HEADER)
        S_refuse(r, path, gl,
                 "this edit changes lit's header comment (line %zu of the file as lit wrote it), which no block "
                 "holds; %s: put the header back as it was",
                 i + 1, b.data);
      else
        S_refuse(r, path, gl,
                 "this edit replaces the newline lit writes for a file with no code, which no block holds: write the "
                 "code into the file's block in the Markdown");
      lit_buf_free(&b);
      return NULL;
    }
    if (!prev || (l->block == prev->block && l->expansion == prev->expansion && l->line == prev->line + 1)) {
      lit_buf_free(&b);
      continue;
    }
    lit_buf w = LIT_BUF_INIT;
    S_where(&b, t->f, prev, 1);
    S_where(&w, t->f, l, 0);
    const lit_seg *ref = l->block == prev->block ? S_ref_between(l->block, prev->line, l->line) : NULL;
    if (l->block != prev->block)
      S_refuse(r, path, gl,
               "this edit spans two blocks, %s and %s: lit stitch carries an edit into one block; edit each block's "
               "lines apart (with an unchanged line between them), or make the change in the Markdown by hand",
               b.data, w.data);
    else if (l->expansion != prev->expansion)
      S_refuse(r, path, gl,
               "this edit spans two copies of one chunk, %s and %s: make the change in the Markdown by hand", b.data,
               w.data);
    else if (ref)
      S_refuse(r, path, gl,
               "this edit spans the reference <<%.*s>> at %s:%d:%d, which adds no line here (lines %s and %s are on "
               "each side of it): edit the lines on each side apart, or make the change in the Markdown by hand",
               (int)ref->len, ref->text, l->block->doc->src.path, ref->line, ref->col, b.data, w.data);
    else
      S_refuse(r, path, gl,
               "this edit spans lines %s and %s, which are not next to each other in their block: "
               "make the change in the Markdown by hand",
               b.data, w.data);
    lit_buf_free(&b);
    lit_buf_free(&w);
    return NULL;
  }
  return S_at(t, h->a);
}

/* Inserted lines: the block they go into, by the rule in stitch.h; *line
 * gets the document line they go before. NULL after refusing. */
static const lit_line_origin *S_inserted(S_run *r, const S_target *t, const lit_hunk *h, size_t gl, int *line) {
  const lit_line_origin *above = h->a > 0 ? S_at(t, h->a - 1) : NULL, *below = S_at(t, h->a);
  int code_a = above && above->kind == LIT_LINE_CODE, code_b = below && below->kind == LIT_LINE_CODE;
  if (code_a && code_b && above->block == below->block && above->expansion == below->expansion &&
      below->line == above->line + 1) {
    *line = below->line;
    return below;
  }
  if (code_a && (below ? below->kind == LIT_LINE_DIRECTIVE : above->depth == 0)) {
    *line = above->line + 1; /* the end of the block: a jump follows, or the file ends */
    return above;
  }
  if (code_b && (above ? above->kind == LIT_LINE_DIRECTIVE || (above->kind == LIT_LINE_HEADER && below->depth == 0)
                       : below->depth == 0)) {
    *line = below->line; /* the start of the block */
    return below;
  }
  lit_buf a = LIT_BUF_INIT, b = LIT_BUF_INIT, why = LIT_BUF_INIT;
  S_where(&a, t->f, above, 1);
  S_where(&b, t->f, below, 0);
  const lit_seg *ref = NULL;
  if (code_a && code_b && above->block != below->block)
    lit_buf_puts(&why, "they are lines of two different blocks");
  else if (code_a && code_b && above->expansion != below->expansion)
    lit_buf_puts(&why, "they are two copies of one chunk");
  else if (code_a && code_b && (ref = S_ref_between(above->block, above->line, below->line)) != NULL)
    lit_buf_printf(&why, "the reference <<%.*s>> at %s:%d:%d lies between them, adding no line here", (int)ref->len,
                   ref->text, above->block->doc->src.path, ref->line, ref->col);
  else if (code_a && !below)
    lit_buf_puts(&why, "a reference includes that block, so the lines could end it or follow the reference");
  else if (code_b && (!above || above->kind == LIT_LINE_HEADER))
    lit_buf_puts(&why, "a reference includes that block, so the lines could start it or come before the reference");
  else
    lit_buf_puts(&why, "lit writes its own line there");
  S_refuse(r, t->f->path, gl,
           "lit cannot tell which block the lines inserted here belong to: the line above is %s and the line below "
           "is %s, and %s; add them to a block in the Markdown by hand",
           a.data, b.data, why.data);
  lit_buf_free(&a);
  lit_buf_free(&b);
  lit_buf_free(&why);
  return NULL;
}

static int S_blank(const lit_line *l) {
  for (size_t i = 0; i < l->len; i++)
    if (l->s[i] != ' ' && l->s[i] != '\t') return 0;
  return 1;
}

static void S_hunk(S_run *r, size_t ti, const lit_hunk *h) {
  const S_target *t = &r->t[ti];
  size_t gl = h->blen ? h->b + 1 : h->b ? h->b : 1; /* where it shows in the edited file */
  int line = 0;
  const lit_line_origin *o = h->alen ? S_replaced(r, t, h, gl) : S_inserted(r, t, h, gl, &line);
  if (!o) return;
  if (h->alen) line = o->line;
  /* The new lines as the block holds them: the indentation of the
   * references that include it taken off (blank lines never had it). */
  size_t plen;
  const char *prefix = lit_linemap_prefix(t->g.map, o->expansion, &plen);
  lit_line *lines = lit_xmalloc((h->blen + 1) * sizeof *lines);
  for (size_t k = 0; k < h->blen; k++) {
    lit_line s = t->diff.b_lines[h->b - t->diff.b_first + k];
    if (plen && !S_blank(&s)) {
      if (s.len < plen || memcmp(s.s, prefix, plen) != 0) {
        lit_buf ind = LIT_BUF_INIT, w = LIT_BUF_INIT;
        S_show_indent(&ind, prefix, plen);
        S_where(&w, t->f, o, 0);
        S_refuse(r, t->f->path, h->b + k + 1,
                 "this line lacks the indentation (%s) that lit puts before every line of %s where a reference "
                 "includes it: indent it like the lines around it",
                 ind.data, w.data);
        lit_buf_free(&ind);
        lit_buf_free(&w);
        free(lines);
        return;
      }
      s.s += plen;
      s.len -= plen;
    }
    lines[k] = s;
  }
  r->e = lit_grow(r->e, &r->ecap, r->ne + 1, sizeof *r->e);
  r->e[r->ne++] =
      (S_edit){o->block, line, (int)h->alen, lines, h->blen, ti, gl, h->b + h->blen + 1, lit_line_col(o), 0};
}

/* ---- the named files, read ahead ---- */

typedef struct {
  char *full;      /* the root joined to the path named */
  const char *rel; /* the path named, from the root: the tail of full */
  struct stat st;  /* the file as opened to be read */
  lit_buf disk;    /* its bytes */
  int err;         /* of the read; also when taken */
  char hash[LIT_HASH_HEX + 1];
  lit_buf room; /* memory for its tangle, touched */
} S_ahead_file;

struct lit_stitch_ahead {
  pthread_t thread;
  int running; /* started, not yet joined */
  char *root;  /* the project's folder, as given */
  S_ahead_file *f;
  size_t n;
};

enum { S_AHEAD_MAX = 256 << 20 }; /* model.c's default LIT_MAX_FILE_SIZE */

/* Gives p[0..n) its pages now: the kernel fills them in one call where it
 * can (no fault, no write of ours per page), else they are written. */
static void S_touch(char *p, size_t n) {
#ifdef MADV_POPULATE_WRITE
  const long size = sysconf(_SC_PAGESIZE);
  const uintptr_t page = size > 0 ? (uintptr_t)size : 4096;
  const uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), e = ((uintptr_t)p + n) & ~(page - 1);
  if (e > a && madvise((void *)a, e - a, MADV_POPULATE_WRITE) == 0) {
    memset(p, 0, a - (uintptr_t)p); /* the partial pages at each end */
    memset((char *)e, 0, (uintptr_t)p + n - e);
    return;
  }
#endif
  memset(p, 0, n);
}

static void *S_ahead_work(void *arg) {
  lit_stitch_ahead *a = arg;
  size_t total = 0;
  for (size_t i = 0; i < a->n; i++) {
    S_ahead_file *f = &a->f[i];
    /* The paths named are read before the project says which files it
     * generates: `lit stitch ../x`, `/etc/x` or a link leading out must
     * not make lit read a byte outside the project, even one it would then
     * throw away. So each is opened beneath the root, which refuses them
     * all, a link swapped in at any moment too. Files past the default
     * limit on a generated file's size, one by one or in all, are left to
     * the stitch to read when it comes to them (a typo naming a large file
     * is then not read before it is refused). */
    int fd = lit_path_open_beneath(a->root, f->rel);
    if (fd < 0) continue;
    if (fstat(fd, &f->st) != 0 || !S_ISREG(f->st.st_mode) || f->st.st_size > S_AHEAD_MAX ||
        total + (size_t)f->st.st_size > S_AHEAD_MAX) {
      close(fd);
      continue;
    }
    total += (size_t)f->st.st_size;
    f->err = lit_read_fd(fd, &f->disk);
    close(fd);
    if (f->err) continue;
    lit_hash_hex(f->disk.data ? f->disk.data : "", f->disk.len, f->hash);
    size_t want = f->disk.len + f->disk.len / 16 + 4096; /* what lit_genfile_tangle_room reserves */
    lit_buf_reserve(&f->room, want);
    S_touch(f->room.data, want);
  }
  return NULL;
}

lit_stitch_ahead *lit_stitch_ahead_start(const char *root, const char *const *files, size_t n) {
  if (n == 0) return NULL;
  lit_stitch_ahead *a = lit_xcalloc(1, sizeof *a);
  a->f = lit_xcalloc(n, sizeof *a->f);
  a->n = n;
  a->root = lit_xstrdup(root && root[0] ? root : ".");
  for (size_t i = 0; i < n; i++) {
    const char *rel = files[i];
    while (rel[0] == '.' && rel[1] == '/') /* as lit_genfile_find reads a path from the root */
      rel += 2;
    a->f[i].full = lit_path_join(a->root, rel);
    a->f[i].rel = a->f[i].full + strlen(a->f[i].full) - strlen(rel);
    a->f[i].err = ENOENT; /* until read */
  }
  if (pthread_create(&a->thread, NULL, S_ahead_work, a) != 0) {
    lit_stitch_ahead_free(a);
    return NULL;
  }
  a->running = 1;
  return a;
}

void lit_stitch_ahead_wait(lit_stitch_ahead *a) {
  if (!a || !a->running) return;
  pthread_join(a->thread, NULL);
  a->running = 0;
}

void lit_stitch_ahead_free(lit_stitch_ahead *a) {
  if (!a) return;
  lit_stitch_ahead_wait(a);
  for (size_t i = 0; i < a->n; i++) {
    free(a->f[i].full);
    lit_buf_free(&a->f[i].disk);
    lit_buf_free(&a->f[i].room);
  }
  free(a->f);
  free(a->root);
  free(a);
}

/* The file at `full` as read ahead, if it was, and is still the same file
 * unchanged (the recovery of an interrupted run may have put an old copy
 * back since, or the user saved it again): the same inode, size and
 * times as before it was read. Else NULL: it is read now. */
static S_ahead_file *S_ahead_take(lit_stitch_ahead *a, const char *full, const struct stat *now) {
  if (!a) return NULL;
  lit_stitch_ahead_wait(a);
  for (size_t i = 0; i < a->n; i++) {
    S_ahead_file *f = &a->f[i];
    if (f->err || strcmp(f->full, full) != 0) continue;
    const struct stat *was = &f->st;
    if (now->st_dev != was->st_dev || now->st_ino != was->st_ino || now->st_size != was->st_size ||
        (size_t)now->st_size != f->disk.len || now->st_mtim.tv_sec != was->st_mtim.tv_sec ||
        now->st_mtim.tv_nsec != was->st_mtim.tv_nsec || now->st_ctim.tv_sec != was->st_ctim.tv_sec ||
        now->st_ctim.tv_nsec != was->st_ctim.tv_nsec) {
      lit_buf_free(&f->disk); /* stale: not kept while the stitch runs */
      lit_buf_free(&f->room);
      f->err = ENOENT;
      return NULL;
    }
    f->err = ENOENT; /* taken */
    return f;
  }
  return NULL;
}

/* ---- which files, and their hunks ---- */

/* One generated file read and hashed, and, at the same time on another
 * core, tangled with its map in the mode the record's hash asks for. */
typedef struct {
  const lit_project *p;
  const lit_file *f;
  char *full; /* the file's path */
  lit_buf disk;
  lit_file_id id; /* the file read, as it was then */
  int err;        /* of the read */
  char hash[LIT_HASH_HEX + 1];
  const char *want; /* the record's hash of it, or NULL */
  int tangle;       /* 1: tangle it too */
  size_t size_hint;
  lit_genfile g;
  int matched;  /* g has the hash wanted */
  lit_buf room; /* memory for g's text, touched (read ahead), or none */
} S_read_job;

static void S_read_work(void *ctx, size_t i) {
  S_read_job *j = ctx;
  if (i == 0) {
    /* beneath the project: the folders were checked when it loaded, and a
     * link swapped in since must not lead the read (and the documents the
     * stitch rewrites from it) to a file outside it */
    struct stat st;
    j->err = lit_path_read_beneath(j->p->root, j->f->path, &j->disk, &st);
    if (!j->err) lit_file_id_of(&st, &j->id);
    if (!j->err) lit_hash_hex(j->disk.data ? j->disk.data : "", j->disk.len, j->hash);
  } else {
    const char *want[1] = {j->want};
    j->matched = lit_genfile_tangle_room(j->p, j->f, want, 1, j->size_hint, j->room.data ? &j->room : NULL, &j->g);
  }
}

/* Adds f as a target if it was edited since lit wrote it (explicit: named
 * on the command line, so each reason to skip it is said). A file named
 * is most likely edited: its tangle (most of the time a stitch of a large
 * file takes) runs beside the reading and hashing of it, and is dropped if
 * the file turns out as lit wrote it; the files of a stitch of every file
 * are read first, and only those that changed are tangled. */
static void S_consider(S_run *r, const lit_file *f, int explicit) {
  for (size_t i = 0; i < r->nt; i++)
    if (r->t[i].f == f) return;
  lit_diags *d = r->d;
  const lit_block *blk = f->block;
  const char *doc = blk->doc->src.path;
  const lit_record_entry *e = lit_record_find(&r->rec, f->path);
  S_read_job j;
  memset(&j, 0, sizeof j);
  j.p = r->p;
  j.f = f;
  j.full = lit_path_join(r->p->root, f->path);
  j.want = e ? e->hash : NULL;
  j.tangle = explicit;
  struct stat st;
  int known = stat(j.full, &st) == 0;
  j.size_hint = known && st.st_size > 0 ? (size_t)st.st_size : 0;
  S_ahead_file *ah = explicit && known ? S_ahead_take(r->ahead, j.full, &st) : NULL;
  if (ah) { /* read and hashed while the project loaded: only the tangle is left */
    j.disk = ah->disk;
    j.room = ah->room;
    memcpy(j.hash, ah->hash, sizeof j.hash);
    lit_file_id_of(&st, &j.id); /* the same file as read ahead (S_ahead_take compared them) */
    memset(&ah->disk, 0, sizeof ah->disk);
    memset(&ah->room, 0, sizeof ah->room);
    S_read_work(&j, 1);
  } else {
    lit_parallel_for(j.tangle ? 2 : 1, S_read_work, &j);
  }
  lit_buf_free(&j.room); /* unused if the tangle took none */
  free(j.full);
  lit_buf disk = j.disk;
  int err = j.err;
  if (err) {
    if (err == EXDEV)
      S_refuse(r, f->path, 0,
               "cannot read this file: it is reached through a symbolic link that leads outside the "
               "project");
    else if (err != ENOENT)
      S_refuse(r, f->path, 0, "cannot read this file: %s", lit_strerror(err));
    else if (explicit)
      S_refuse(r, f->path, 0, "this file does not exist, so there is no edit of it to stitch (lit tangle writes it)");
    lit_buf_free(&disk);
    if (j.tangle) lit_genfile_free(&j.g);
    return;
  }
  char hash[LIT_HASH_HEX + 1];
  memcpy(hash, j.hash, sizeof hash);
  if (e && strcmp(e->hash, hash) == 0) {
    if (explicit && !r->o->quiet)
      lit_diag(d, LIT_NOTE, f->path, 0, 0, "this file is as lit wrote it: nothing to stitch");
    lit_buf_free(&disk);
    if (j.tangle) lit_genfile_free(&j.g);
    return;
  }
  if (!j.tangle) {
    j.size_hint = disk.len;
    S_read_work(&j, 1);
  }
  S_target t;
  memset(&t, 0, sizeof t);
  t.f = f;
  t.g = j.g;
  int matched = j.matched;
  if (!matched) {
    lit_genfile now;
    const char *disk_want[1] = {hash};
    int same = lit_genfile_tangle(r->p, f, disk_want, 1, disk.len, &now);
    lit_genfile_free(&now);
    if (same) {
      if (explicit && !r->o->quiet)
        lit_diag(d, LIT_NOTE, f->path, 0, 0,
                 "this file already holds what the documents write: nothing to stitch (lit tangle records it)");
    } else if (!e) {
      S_refuse(r, f->path, 0,
               "lit has no record of writing this file (it is not in %s), so it cannot tell an edit of it from a "
               "change to the documents: move the change into the Markdown by hand, or run lit tangle --force to "
               "replace the file",
               r->p->record_path);
    } else {
      S_refuse(r, f->path, 0,
               "both this file and the documents it is tangled from changed since lit last wrote it, so lit cannot "
               "tell which to keep: save a copy of the file, run lit tangle --force and make the edit again; or undo "
               "one of the two changes and run lit stitch again");
      lit_diag(d, LIT_NOTE, doc, blk->line, blk->file_col, "'%s' is written by this block", f->path);
    }
    lit_genfile_free(&t.g);
    lit_buf_free(&disk);
    return;
  }
  t.disk = disk;
  t.disk_id = j.id;
  memcpy(t.disk_hash, hash, sizeof hash);
  r->t = lit_grow(r->t, &r->tcap, r->nt + 1, sizeof *r->t);
  r->t[r->nt++] = t;
}

/* Diffs a target against its tangle and reads each hunk back. */
static void S_diff(S_run *r, size_t ti) {
  S_target *t = &r->t[ti];
  const char *text = t->disk.data ? t->disk.data : "";
  size_t len = t->disk.len;
  t->ntl = lit_linemap_len(t->g.map);
  /* What lit never writes, said as what it is before the diff, which would
   * see every line changed and blame the first, lit's header comment: an
   * emptied file (lit writes at least its header), a byte-order mark, and
   * carriage returns (the reader turns a document's CRLF and CR into LF, so
   * no tangle holds one). */
  if (len == 0) { /* at line 1, where lit's header was: every refusal names a line */
    S_refuse(r, t->f->path, 1,
             "the file is empty: lit stitch cannot carry the deletion of a whole file back into the documents; "
             "delete its blocks in the Markdown by hand, or run lit tangle --force to write the file again");
    return;
  }
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
    S_refuse(r, t->f->path, 1,
             "the file starts with a UTF-8 byte-order mark, which lit never writes (an editor added it): save the file "
             "without it and run lit stitch again");
    return;
  }
  const char *cr = memchr(text, '\r', len);
  if (cr) {
    size_t at = lit_lines_count(text, (size_t)(cr - text) + 1);
    if ((size_t)(cr - text) + 1 < len && cr[1] == '\n' && at == 1)
      S_refuse(r, t->f->path, at,
               "the file uses CRLF line endings, and lit writes LF: convert the file back to LF line endings "
               "(dos2unix, or the editor's setting) and run lit stitch again");
    else if ((size_t)(cr - text) + 1 < len && cr[1] == '\n')
      S_refuse(r, t->f->path, at,
               "this line ends with CRLF, and lit writes LF: convert the file back to LF line endings (dos2unix, or "
               "the editor's setting) and run lit stitch again");
    else
      S_refuse(r, t->f->path, at,
               "this line holds a carriage return, which lit never writes (the documents' CRs end their lines): "
               "remove it and run lit stitch again");
    return;
  }
  /* lit ends every file with exactly one newline: no block holds another. */
  if (len > 0 && text[len - 1] != '\n') {
    S_refuse(r, t->f->path, lit_lines_count(text, len),
             "the file does not end with a newline, and lit ends every file with one: add it and run lit stitch again");
    return;
  }
  if (len > 1 && text[len - 2] == '\n') {
    S_refuse(r, t->f->path, lit_lines_count(text, len),
             "the file ends with a blank line, and lit ends every file with a single newline (no block can hold a "
             "line after it): remove the blank lines at the end and run lit stitch again");
    return;
  }
  lit_diff_texts(t->g.text.data ? t->g.text.data : "", t->g.text.len, text, len, &t->diff);
  /* Nothing reads the tangle's text after the diff (the hunks hold line
   * numbers, their new lines point into disk, the map into the project):
   * its buffer, every page of it already touched, is kept for the largest
   * document the stitch reads, which would otherwise fault in fresh ones. */
  if (t->g.text.cap > r->spare.cap) {
    lit_buf_free(&r->spare);
    r->spare = t->g.text;
    memset(&t->g.text, 0, sizeof t->g.text);
  }
  for (size_t i = 0; i < t->diff.nhunks; i++)
    S_hunk(r, ti, &t->diff.hunks[i]);
}

/* ---- the edits, checked against each other ---- */

static int S_cmp_edit(const void *x, const void *y) {
  const S_edit *a = x, *b = y;
  if (a->block->doc->order != b->block->doc->order) return a->block->doc->order < b->block->doc->order ? -1 : 1;
  if (a->line != b->line) return a->line < b->line ? -1 : 1;
  if (a->nold != b->nold) return a->nold < b->nold ? -1 : 1;
  if (a->target != b->target) return a->target < b->target ? -1 : 1;
  return a->gen_first < b->gen_first ? -1 : a->gen_first > b->gen_first;
}

static int S_same_edit(const S_edit *a, const S_edit *b) {
  if (a->block != b->block || a->line != b->line || a->nold != b->nold || a->nlines != b->nlines) return 0;
  for (size_t i = 0; i < a->nlines; i++)
    if (a->lines[i].len != b->lines[i].len || memcmp(a->lines[i].s, b->lines[i].s, a->lines[i].len) != 0) return 0;
  return 1;
}

/* Sorts the edits by document and line; an edit made twice alike (in two
 * copies of a chunk) is kept once; two that touch the same lines
 * differently are refused. */
static void S_check_edits(S_run *r) {
  qsort(r->e, r->ne, sizeof *r->e, S_cmp_edit);
  const S_edit *kept = NULL;
  for (size_t i = 0; i < r->ne; i++) {
    S_edit *e = &r->e[i];
    if (!kept || kept->block->doc != e->block->doc) {
      kept = e;
      continue;
    }
    if (S_same_edit(kept, e)) {
      e->dup = 1;
      continue;
    }
    int overlap = e->line < kept->line + kept->nold || (kept->nold == 0 && e->line == kept->line);
    if (overlap) {
      const char *chunk = S_chunk_name(e->block);
      S_refuse(r, r->t[e->target].f->path, e->gen_first,
               "this edit and the one at %s:%zu change the same lines of %s%s%s (%s:%d) in different ways, since the "
               "chunk is included more than once: make the same edit in every copy, or make it in the Markdown by "
               "hand",
               r->t[kept->target].f->path, kept->gen_first,
               chunk ? "<<" : "the block of file=", chunk ? chunk : r->t[e->target].f->path, chunk ? ">>" : "",
               e->block->doc->src.path, e->line);
      continue;
    }
    kept = e;
  }
}

/* ---- the stitched documents, verified ---- */

/* Whether l is a #line directive ("#line N ..." after indentation): 1,
 * with where its number starts and ends. */
static int S_directive(const lit_line *l, size_t *num, size_t *end) {
  size_t i = 0;
  while (i < l->len && (l->s[i] == ' ' || l->s[i] == '\t'))
    i++;
  if (l->len - i < 7 || memcmp(l->s + i, "#line ", 6) != 0) return 0;
  *num = *end = i + 6;
  while (*end < l->len && l->s[*end] >= '0' && l->s[*end] <= '9')
    (*end)++;
  return *end > *num;
}

/* Whether the tangle of the stitched documents differs from the file on
 * disk only in the numbers of its #line directives. */
static int S_only_directives(const S_target *t) {
  if (!t->after.line_directives) return 0;
  size_t n, ndl;
  lit_line *al = lit_lines_split(t->after.text.data ? t->after.text.data : "", t->after.text.len, &n);
  lit_line *dl = lit_lines_split(t->disk.data ? t->disk.data : "", t->disk.len, &ndl);
  int same = n == ndl;
  for (size_t i = 0; i < n && same; i++) {
    const lit_line *a = &al[i], *b = &dl[i];
    if (lit_linemap_at(t->after.map, i)->kind == LIT_LINE_DIRECTIVE) {
      size_t na, ea, nb, eb; /* where each number starts and ends */
      same = S_directive(a, &na, &ea) && S_directive(b, &nb, &eb) && na == nb && memcmp(a->s, b->s, na) == 0 &&
             a->len - ea == b->len - eb && memcmp(a->s + ea, b->s + eb, a->len - ea) == 0;
    } else {
      same = a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
    }
  }
  free(al);
  free(dl);
  return same;
}

/* A stitched file that the new documents do not give back: say where,
 * and why if lit can tell (a chunk included twice, one copy edited). */
static void S_not_reproduced(S_run *r, const S_target *t) {
  size_t n, ndl;
  lit_line *al = lit_lines_split(t->after.text.data ? t->after.text.data : "", t->after.text.len, &n);
  lit_line *dl = lit_lines_split(t->disk.data ? t->disk.data : "", t->disk.len, &ndl);
  size_t k = 0;
  while (k < n && k < ndl && al[k].len == dl[k].len && memcmp(al[k].s, dl[k].s, al[k].len) == 0)
    k++;
  free(dl);
  for (size_t i = 0; i < r->ne; i++) {
    const S_edit *e = &r->e[i];
    if (&r->t[e->target] != t || !lit_linemap_repeated(t->g.map, e->block)) continue;
    size_t first = 0, second = 0, exp = 0;
    for (size_t j = 0; j < t->ntl && !second; j++) {
      const lit_line_origin *l = S_at(t, j);
      if (l->kind != LIT_LINE_CODE || l->block != e->block) continue;
      if (!first)
        first = j + 1, exp = l->expansion;
      else if (l->expansion != exp)
        second = j + 1;
    }
    const char *chunk = S_chunk_name(e->block);
    S_refuse(r, t->f->path, k + 1,
             "%s%s%s (%s:%d:%d) is included in this file more than once (its copies start at lines %zu and %zu), "
             "and not every copy was edited alike: stitching the edit into the block changes every copy. Make the "
             "same edit in every copy and run lit stitch again, or edit the block in the Markdown and run lit "
             "tangle --force after saving a copy of this file",
             chunk ? "<<" : "the block of file=", chunk ? chunk : t->f->path, chunk ? ">>" : "",
             e->block->doc->src.path, e->line, e->col, first, second);
    free(al);
    return;
  }
  lit_buf w = LIT_BUF_INIT;
  if (k < n) {
    lit_buf_printf(&w, "'%.*s'%s, from ", (int)(al[k].len > 60 ? 60 : al[k].len), al[k].s, al[k].len > 60 ? "..." : "");
    S_where(&w, t->f, lit_linemap_at(t->after.map, k), 0);
  } else {
    lit_buf_puts(&w, "nothing (the file would end)");
  }
  S_refuse(r, t->f->path, k + 1,
           "the documents, stitched, would not give this file back: a fresh tangle of them writes %s here; lit stitch "
           "keeps an edit only when the tangle reproduces the file exactly, so make this change in the Markdown by "
           "hand",
           w.data);
  lit_buf_free(&w);
  free(al);
}

/* A tangle compared with the bytes it must give, as it streams: at counts
 * the bytes that matched; the first that differs stops the tangle. */
typedef struct {
  const char *want;
  size_t len, at;
} S_same;

static int S_same_sink(void *ctx, const char *data, size_t len) {
  S_same *s = ctx;
  if (len > s->len - s->at || memcmp(s->want + s->at, data, len) != 0)
    return -1; /* not an errno: the tangle stops here, and the caller tangles again for the text */
  s->at += len;
  return 0;
}

/* The new documents, loaded from memory and tangled: every stitched file
 * must come back byte for byte (or with new #line numbers). Returns the
 * project (the caller frees it), or NULL after refusing. */
static lit_project *S_verify(S_run *r, const lit_buf *texts, lit_doc_edit *const *edits, const size_t *nedits) {
  const lit_project *p = r->p;
  const char **names = lit_xmalloc((p->ndocs + 1) * sizeof(char *));
  const char **bytes = lit_xmalloc((p->ndocs + 1) * sizeof(char *));
  size_t *lens = lit_xmalloc((p->ndocs + 1) * sizeof(size_t));
  for (size_t i = 0; i < p->ndocs; i++) {
    names[i] = p->docs[i]->src.path;
    bytes[i] = texts[i].data ? texts[i].data : "";
    lens[i] = texts[i].len;
  }
  lit_diags *vd = lit_diags_new();
  lit_project *q =
      lit_project_load_memory_reusing(names, bytes, lens, p->ndocs, p, (const lit_doc_edit *const *)edits, nedits, vd);
  free(names);
  free(bytes);
  free(lens);
  if (!q || lit_diags_count(vd, LIT_ERROR)) {
    const S_edit *e = r->ne ? &r->e[0] : NULL;
    S_refuse(r, r->t[e ? e->target : 0].f->path, e ? e->gen_first : 0,
             "the documents, stitched, would not load (the messages below are about them as the stitch would write "
             "them): make this change in the Markdown by hand");
    lit_diags_append(r->d, vd);
    lit_diags_free(vd);
    lit_project_free(q);
    return NULL;
  }
  lit_diags_free(vd);
  for (size_t i = 0; i < r->nt; i++) {
    S_target *t = &r->t[i];
    const lit_file *f = lit_genfile_find(q, t->f->path);
    if (!f) {
      S_refuse(r, t->f->path, 0, "the documents, stitched, would no longer write this file");
      continue;
    }
    /* The usual case, the file reproduced, is settled by comparing the
     * tangle with the file's bytes as it streams (no hash to compute: the
     * record gets the disk's, of the same bytes); only a difference needs
     * the text and its line map. */
    memset(&t->after, 0, sizeof t->after);
    lit_tangle_opts o = {t->g.line_directives, NULL};
    S_same same = {t->disk.data ? t->disk.data : "", t->disk.len, 0};
    if (lit_tangle_stream(q, f, &o, S_same_sink, &same) == 0 && same.at == t->disk.len) {
      memcpy(t->after.hash, t->disk_hash, sizeof t->after.hash); /* the same bytes */
      t->after.file = f;
      t->after.line_directives = t->g.line_directives;
      continue;
    }
    lit_genfile_tangle_as(q, f, t->g.line_directives, t->disk.len, &t->after);
    if (t->after.text.len == t->disk.len &&
        memcmp(t->after.text.data, t->disk.data ? t->disk.data : "", t->disk.len) == 0)
      continue;
    if (S_only_directives(t))
      t->rewrite = 1;
    else
      S_not_reproduced(r, t);
  }
  if (r->failed) {
    lit_project_free(q);
    return NULL;
  }
  return q;
}

/* ---- the commit ---- */

static int S_stage(lit_commit *c, const char *rel, const lit_buf *content) {
  int fd;
  int err = lit_commit_open(c, rel, &fd);
  if (err) return err;
  return lit_commit_close(c, fd, 0, lit_write_all(fd, content->data ? content->data : "", content->len));
}

static void S_write_error(S_run *r, lit_commit *c, const char *rel, int err) {
  if (lit_commit_journal_error(c) && err == EBUSY)
    lit_diag(r->d, LIT_ERROR, r->p->journal_path, 0, 0,
             "another lit is writing this project (its journal is here); run again when it has finished");
  else if (lit_commit_journal_error(c))
    lit_diag(r->d, LIT_ERROR, r->p->docs[0]->src.path, r->p->record_line, r->p->record_line ? 1 : 0,
             "cannot write the journal '%s' beside the record (tangle-record): %s", r->p->journal_path, strerror(err));
  else
    lit_diag(r->d, LIT_ERROR, rel, 0, 0, "cannot write this file: %s", strerror(err));
  r->failed = 1;
}

/* The verification and the staging of the stitched documents, side by
 * side on two cores: staging writes only hidden temporaries, which
 * lit_commit_free removes if the verification refuses. The staging job
 * touches nothing but c and its own fields (diagnostics are reported after
 * the join); both only read texts. */
typedef struct {
  S_run *r;
  const lit_buf *texts;
  const int *changed;
  lit_doc_edit *const *edits;
  const size_t *nedits;
  lit_project *q; /* the verification's model, or NULL */
  lit_commit *c;
  int err;        /* the errno that stopped the staging, or 0 */
  size_t err_doc; /* and the document it was staging */
} S_overlap;

static void S_overlap_job(void *ctx, size_t i) {
  S_overlap *o = ctx;
  if (i == 0) {
    o->q = S_verify(o->r, o->texts, o->edits, o->nedits);
    return;
  }
  const lit_project *p = o->r->p;
  for (size_t k = 0; k < p->ndocs && !o->err; k++)
    if (o->changed[k]) {
      /* written over only if no editor has saved it since it was read */
      o->err = S_stage(o->c, p->docs[k]->src.path, &o->texts[k]);
      if (!o->err) o->err = lit_commit_expect(o->c, p->docs[k]->src.path, &p->docs[k]->src.id);
      o->err_doc = k;
    }
}

void (*lit_stitch_test_hook)(void) = NULL;

/* With the changed documents staged in c (or err from staging them),
 * stages the files whose #line numbers moved and the record, and commits
 * them: all, or none. */
static void S_commit(S_run *r, lit_commit *c, int err, size_t err_doc) {
  const lit_project *p = r->p;
  if (err) S_write_error(r, c, p->docs[err_doc]->src.path, err);
  for (size_t i = 0; i < r->nt && !r->failed; i++) {
    int err = r->t[i].rewrite ? S_stage(c, r->t[i].f->path, &r->t[i].after.text) : 0;
    /* written again only as it was read: a save since is the user's */
    if (!err && r->t[i].rewrite) err = lit_commit_expect(c, r->t[i].f->path, &r->t[i].disk_id);
    if (err) S_write_error(r, c, r->t[i].f->path, err);
  }
  lit_buf old_text = LIT_BUF_INIT, new_text = LIT_BUF_INIT;
  lit_record_format(&r->rec, &old_text);
  for (size_t i = 0; i < r->nt; i++)
    lit_record_set(&r->rec, r->t[i].f->path, r->t[i].after.hash);
  lit_record_format(&r->rec, &new_text);
  if (!r->failed && (old_text.len != new_text.len || memcmp(old_text.data, new_text.data, old_text.len) != 0)) {
    int err = S_stage(c, p->record_path, &new_text);
    if (err) S_write_error(r, c, p->record_path, err);
  }
  lit_buf_free(&old_text);
  lit_buf_free(&new_text);
  if (!r->failed && lit_stitch_test_hook) lit_stitch_test_hook();
  if (!r->failed && lit_commit_run(c, NULL, r->d) != LIT_OK) r->failed = 1;
}

/* ---- the run ---- */

/* Marks, in reach (indexed by chunk id), every chunk whose tangle holds a
 * block the stitch changed: the changed blocks' own chunks and, upward
 * through their uses, every chunk that includes a marked one. No other
 * chunk's tangle can differ: the stitch rewrites only those blocks. */
static void S_reaching(const S_run *r, unsigned char *reach) {
  size_t n = 0, cap = r->ne + 16;
  const lit_chunk **stack = lit_xmalloc(cap * sizeof *stack);
  for (size_t i = 0; i < r->ne; i++) {
    const lit_chunk *c = r->e[i].block->chunk;
    if (c && !reach[c->id]) {
      reach[c->id] = 1;
      stack[n++] = c;
    }
  }
  while (n) {
    const lit_chunk *c = stack[--n];
    for (size_t k = 0; k < c->nuses; k++) {
      const lit_chunk *u = c->uses[k].block->chunk;
      if (!u || reach[u->id]) continue;
      reach[u->id] = 1;
      stack = lit_grow(stack, &cap, n + 1, sizeof *stack);
      stack[n++] = u;
    }
  }
  free(stack);
}

static void S_report(const S_run *r, const lit_project *q, const int *changed, lit_diags *d) {
  const lit_project *p = r->p;
  for (size_t i = 0; i < r->ne; i++) {
    const S_edit *e = &r->e[i];
    if (e->dup) continue;
    const char *chunk = S_chunk_name(e->block);
    lit_buf what = LIT_BUF_INIT;
    if (e->nold && (size_t)e->nold == e->nlines)
      lit_buf_printf(&what, "%d line%s changed", e->nold, e->nold == 1 ? "" : "s");
    else if (e->nold && e->nlines)
      lit_buf_printf(&what, "%d line%s replaced by %zu", e->nold, e->nold == 1 ? "" : "s", e->nlines);
    else if (e->nold)
      lit_buf_printf(&what, "%d line%s deleted", e->nold, e->nold == 1 ? "" : "s");
    else
      lit_buf_printf(&what, "%zu line%s inserted", e->nlines, e->nlines == 1 ? "" : "s");
    const char *path = r->t[e->target].f->path;
    if (e->nlines > 1)
      lit_diag(d, LIT_NOTE, e->block->doc->src.path, e->line, e->col, "stitched %s:%zu-%zu into %s%s%s here: %s", path,
               e->gen_first, e->gen_end - 1, chunk ? "<<" : "the block of file=", chunk ? chunk : path,
               chunk ? ">>" : "", what.data);
    else
      lit_diag(d, LIT_NOTE, e->block->doc->src.path, e->line, e->col, "stitched %s:%zu into %s%s%s here: %s", path,
               e->gen_first, chunk ? "<<" : "the block of file=", chunk ? chunk : path, chunk ? ">>" : "", what.data);
    lit_buf_free(&what);
  }
  for (size_t i = 0; i < r->nt; i++)
    if (r->t[i].rewrite) lit_diag(d, LIT_NOTE, r->t[i].f->path, 0, 0, "rewritten with its #line directives renumbered");
  /* The other files a changed chunk reaches (only those can differ). */
  unsigned char *reach = lit_xcalloc(lit_project_nchunk_ids(p) + 1, 1);
  S_reaching(r, reach);
  for (size_t i = 0; i < p->nfiles; i++) {
    const lit_file *f = &p->files[i], *g = lit_genfile_find(q, f->path);
    int target = 0;
    for (size_t k = 0; k < r->nt && !target; k++)
      target = r->t[k].f == f;
    if (target || !g || !f->root || !reach[f->root->id]) continue;
    lit_buf before = LIT_BUF_INIT, after = LIT_BUF_INIT;
    lit_tangle_opts o = {0};
    lit_tangle_file(p, f, &o, &before);
    lit_tangle_file(q, g, &o, &after);
    if (before.len != after.len || memcmp(before.data, after.data, before.len) != 0)
      lit_diag(d, LIT_NOTE, f->block->doc->src.path, f->block->line, f->block->file_col,
               "'%s' changes too, since it includes a block the stitch changed: lit tangle rewrites it", f->path);
    lit_buf_free(&before);
    lit_buf_free(&after);
  }
  free(reach);
  size_t ndocs = 0;
  for (size_t i = 0; i < p->ndocs; i++)
    ndocs += changed[i] != 0;
  lit_diag(d, LIT_NOTE, NULL, 0, 0, "stitched %zu file%s into %zu document%s", r->nt, r->nt == 1 ? "" : "s", ndocs,
           ndocs == 1 ? "" : "s");
}

/* The commit, and beside it on a second core the report (into diagnostics
 * of its own, kept only if the commit went through) and the freeing of
 * the verification's model: both only read what the commit does not
 * write, and neither is needed before the documents are on disk. */
typedef struct {
  S_run *r;
  lit_commit *c;
  int err;
  size_t err_doc;
  lit_project *q;
  const int *changed;
  lit_diags *notes; /* the report's, or NULL under --quiet */
} S_finish;

static void S_finish_job(void *ctx, size_t i) {
  S_finish *f = ctx;
  if (i == 0) {
    S_commit(f->r, f->c, f->err, f->err_doc);
    return;
  }
  if (f->notes) S_report(f->r, f->q, f->changed, f->notes);
  lit_project_free(f->q);
  f->q = NULL;
}

/* The documents of a stitch, as the verification loads them. */
typedef struct {
  lit_buf *texts;
  int *changed;
  int *owned; /* texts[i] is ours to free */
  /* The edits of each document again, as the verification's load takes
   * them: an edited document it can clone rather than parse. */
  lit_doc_edit **dedits;
  size_t *ndedits;
} S_docs;

static void S_rewrite(S_run *r, S_docs *x) {
  const lit_project *p = r->p;
  /* The edited documents, read from disk and rewritten; the others as
   * loaded (their text, borrowed: the verification clones them), but for
   * one with front matter, whose loaded text has it blanked out. */
  for (size_t i = 0; i < p->ndocs && !r->failed; i++) {
    lit_docedit *edits = lit_xmalloc((r->ne + 1) * sizeof *edits);
    size_t n = 0;
    for (size_t k = 0; k < r->ne; k++)
      if (!r->e[k].dup && r->e[k].block->doc == p->docs[i])
        edits[n++] = (lit_docedit){r->e[k].block, r->e[k].line, r->e[k].nold, r->e[k].lines, r->e[k].nlines};
    x->owned[i] = n || p->docs[i]->src.has_front_matter;
    if (x->owned[i]) {
      char *full = lit_path_join(p->root, p->docs[i]->src.path);
      lit_buf raw = LIT_BUF_INIT;
      if (n) { /* read into the diffed tangle's buffer (lit_read_file keeps a buffer large enough) */
        raw = r->spare;
        raw.len = 0;
        memset(&r->spare, 0, sizeof r->spare);
      }
      int err = lit_read_file(full, &raw);
      free(full);
      if (err) S_refuse(r, p->docs[i]->src.path, 0, "cannot read this document: %s", lit_strerror(err));
      if (n) { /* edited where it was read: no second copy of the document */
        x->changed[i] = 1;
        x->dedits[i] = lit_xmalloc(n * sizeof **x->dedits);
        x->ndedits[i] = n;
        for (size_t k = 0; k < n; k++)
          x->dedits[i][k] = (lit_doc_edit){edits[k].block, edits[k].line, edits[k].nold, (int)edits[k].nlines};
        if (!r->failed && lit_docedit_apply_in_place(p->docs[i], &raw, edits, n, r->d) != 0) r->failed = 1;
      }
      x->texts[i] = raw;
    } else {
      x->texts[i].data = p->docs[i]->src.text;
      x->texts[i].len = p->docs[i]->src.len;
    }
    free(edits);
  }
}

/* The edits worked out and the documents rewritten; beside it, on a
 * second core, the clones of the documents the verification's load will
 * reuse (lit_doc_clone_ahead): the ones without front matter, whose
 * loaded text is the text it borrows (an edited one's goes unused). */
typedef struct {
  S_run *r;
  S_docs *x;
} S_edits_job;

static void S_edits_work(void *ctx, size_t i) {
  S_edits_job *j = ctx;
  S_run *r = j->r;
  if (i == 1) {
    for (size_t k = 0; k < r->p->ndocs; k++)
      if (!r->p->docs[k]->src.has_front_matter) lit_doc_clone_ahead(r->p->docs[k]);
    return;
  }
  for (size_t k = 0; k < r->nt; k++)
    S_diff(r, k);
  if (!r->failed) S_check_edits(r);
  if (!r->failed) S_rewrite(r, j->x);
}

lit_status lit_stitch_run(const lit_project *p, const lit_stitch_opts *o, lit_diags *d) {
  return lit_stitch_run_ahead(p, o, NULL, d);
}

lit_status lit_stitch_run_ahead(const lit_project *p, const lit_stitch_opts *o, lit_stitch_ahead *a, lit_diags *d) {
  S_run r;
  memset(&r, 0, sizeof r);
  r.p = p;
  r.o = o;
  r.d = d;
  r.ahead = a;
  if (lit_record_read(&r.rec, p->root, p->record_path, d) != 0) {
    lit_record_free(&r.rec);
    return LIT_FAILED;
  }
  int unknown = 0;
  for (size_t i = 0; i < o->nfiles; i++) {
    const lit_file *f = lit_genfile_find(p, o->files[i]);
    if (f)
      S_consider(&r, f, 1);
    else {
      lit_genfile_unknown(p, o->files[i], d);
      unknown = 1;
    }
  }
  for (size_t i = 0; i < p->nfiles && !o->nfiles; i++)
    S_consider(&r, &p->files[i], 0);
  lit_buf *texts = lit_xcalloc(p->ndocs + 1, sizeof(lit_buf));
  int *changed = lit_xcalloc(p->ndocs + 1, sizeof(int));
  int *owned = lit_xcalloc(p->ndocs + 1, sizeof(int));
  lit_doc_edit **dedits = lit_xcalloc(p->ndocs + 1, sizeof *dedits);
  size_t *ndedits = lit_xcalloc(p->ndocs + 1, sizeof *ndedits);
  S_docs x = {texts, changed, owned, dedits, ndedits};
  if (!unknown && r.nt > 0) { /* every target's hunks are read, to report every refusal */
    S_edits_job ej = {&r, &x};
    lit_parallel_for(r.failed ? 1 : 2, S_edits_work, &ej);
  }
  lit_project *q = NULL;
  if (!unknown && !r.failed && r.nt == 0 && !o->nfiles && !o->quiet)
    lit_diag(d, LIT_NOTE, NULL, 0, 0, "nothing to stitch: every generated file is as lit wrote it");
  if (!unknown && !r.failed && r.nt > 0) {
    double t0 = lit_now();
    S_overlap ov = {&r, texts, changed, dedits, ndedits, NULL, lit_commit_new(p->root, p->journal_path), 0, 0};
    if (!r.failed) lit_parallel_for(2, S_overlap_job, &ov);
    q = ov.q;
    double t1 = lit_now();
    if (q && !r.failed) {
      S_finish fin = {&r, ov.c, ov.err, ov.err_doc, q, changed, o->quiet ? NULL : lit_diags_new()};
      lit_parallel_for(2, S_finish_job, &fin);
      q = fin.q; /* freed */
      if (fin.notes && !r.failed) lit_diags_append(d, fin.notes);
      lit_diags_free(fin.notes);
    }
    lit_commit_free(ov.c);
    if (getenv("LIT_TIMINGS")) /* where the time goes, for the speed report */
      fprintf(stderr, "lit: stitch: verify and stage %.1f ms, commit %.1f ms\n", (t1 - t0) * 1e3,
              (lit_now() - t1) * 1e3);
  }
  lit_project_free(q);
  for (size_t i = 0; i < p->ndocs; i++)
    lit_doc_drop_ahead(p->docs[i]); /* the clones made ahead that the verification did not take */
  for (size_t i = 0; i < p->ndocs; i++)
    if (owned[i]) lit_buf_free(&texts[i]);
  free(texts);
  free(changed);
  free(owned);
  for (size_t i = 0; i < p->ndocs; i++)
    free(dedits[i]);
  free(dedits);
  free(ndedits);
  for (size_t i = 0; i < r.nt; i++) {
    lit_buf_free(&r.t[i].disk);
    lit_genfile_free(&r.t[i].g);
    lit_genfile_free(&r.t[i].after);
    lit_text_diff_free(&r.t[i].diff);
  }
  free(r.t);
  lit_buf_free(&r.spare);
  for (size_t i = 0; i < r.ne; i++)
    free(r.e[i].lines);
  free(r.e);
  lit_record_free(&r.rec);
  return unknown ? LIT_USAGE : r.failed ? LIT_FAILED : LIT_OK;
}

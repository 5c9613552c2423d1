#include "map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "genfile.h"
#include "paths.h"
#include "record.h"

/* FILE, or FILE:LINE when FILE alone names no generated file. When the
 * part before the last colon names one but what follows is not a line
 * number (FILE:0, FILE:-1, FILE:abc, FILE:), *bad is set: the argument is
 * a bad line number, not an unknown file. */
static const lit_file *S_parse(const lit_project *p, const char *arg, long *line, int *bad) {
  *line = 0;
  *bad = 0;
  const lit_file *f = lit_genfile_find(p, arg);
  if (f) return f;
  const char *colon = strrchr(arg, ':');
  if (!colon || colon == arg) return NULL;
  char *path = lit_xstrndup(arg, (size_t)(colon - arg));
  f = lit_genfile_find(p, path);
  free(path);
  if (!f) return NULL;
  const char *s = colon + 1;
  size_t digits = strspn(s, "0123456789");
  errno = 0;
  long n = digits ? strtol(s, NULL, 10) : 0;
  if (!digits || s[digits] || errno == ERANGE || n <= 0) {
    *bad = 1;
    return NULL;
  }
  *line = n;
  return f;
}

static void S_json_str(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c < 0x20)
      fprintf(out, "\\u%04x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

static const char *S_kind(lit_line_kind k) {
  switch (k) {
  case LIT_LINE_CODE: return "code";
  case LIT_LINE_HEADER: return "header";
  case LIT_LINE_DIRECTIVE: return "directive";
  case LIT_LINE_NEWLINE: return "newline";
  }
  return "code";
}

static void S_text_line(FILE *out, const lit_file *f, size_t n, const lit_line_origin *l) {
  fprintf(out, "%s:%zu: ", f->path, n);
  switch (l->kind) {
  case LIT_LINE_HEADER: fputs("lit's header comment\n", out); return;
  case LIT_LINE_DIRECTIVE: fputs("lit's #line directive\n", out); return;
  case LIT_LINE_NEWLINE: fputs("lit's newline (no block writes a line)\n", out); return;
  case LIT_LINE_CODE: break;
  }
  const char *chunk = lit_line_chunk(l);
  fprintf(out, "%s:%d:%d: ", l->block->doc->src.path, l->line, lit_line_col(l));
  if (chunk)
    fprintf(out, "<<%s>>", chunk);
  else
    fprintf(out, "file=%s", f->path);
  if (l->indent) fprintf(out, ", indented %zu", l->indent);
  fputc('\n', out);
}

static void S_json_line(FILE *out, size_t n, const lit_line_origin *l) {
  fprintf(out, "{\"line\": %zu, \"kind\": \"%s\"", n, S_kind(l->kind));
  if (l->kind == LIT_LINE_CODE) {
    const char *chunk = lit_line_chunk(l);
    fputs(", \"doc\": ", out);
    S_json_str(out, l->block->doc->src.path);
    fprintf(out, ", \"doc_line\": %d, \"col\": %d, \"chunk\": ", l->line, lit_line_col(l));
    if (chunk)
      S_json_str(out, chunk);
    else
      fputs("null", out);
    fprintf(out, ", \"indent\": %zu, \"depth\": %zu", l->indent, l->depth);
  }
  fputc('}', out);
}

lit_status lit_map_run(const lit_project *p, const lit_map_opts *o, FILE *out, lit_diags *d) {
  long want = 0;
  int bad = 0;
  const lit_file *f = S_parse(p, o->arg, &want, &bad);
  if (bad) {
    const char *colon = strrchr(o->arg, ':');
    int digits = colon[1] && !colon[1 + strspn(colon + 1, "0123456789")] && strspn(colon + 1, "0") < strlen(colon + 1);
    lit_diag(d, LIT_ERROR, NULL, 0, 0, "'%s': invalid line number '%s': %s (FILE:LINE, the first line is 1)", o->arg,
             colon + 1, digits ? "too large" : "a line number is a positive integer");
    return LIT_USAGE;
  }
  if (!f) {
    lit_genfile_unknown(p, o->arg, d);
    return LIT_USAGE;
  }
  /* The mode the file on disk was tangled in: its own hash first, then
   * the record's. */
  char *full = lit_path_join(p->root, f->path);
  lit_buf disk = LIT_BUF_INIT;
  int err = lit_read_file(full, &disk);
  free(full);
  char disk_hash[LIT_HASH_HEX + 1] = "";
  if (!err) lit_hash_hex(disk.data ? disk.data : "", disk.len, disk_hash);
  lit_record rec;
  lit_diags *quiet = lit_diags_new(); /* a bad record only loses a hint here; tangle reports it */
  const lit_record_entry *e =
      lit_record_read(&rec, p->root, p->record_path, quiet) == 0 ? lit_record_find(&rec, f->path) : NULL;
  lit_diags_free(quiet);
  const char *wants[2] = {err ? NULL : disk_hash, e ? e->hash : NULL};
  lit_genfile g;
  lit_genfile_tangle(p, f, wants, 2, 0, &g);
  const lit_block *b = f->block;
  if (!err && strcmp(disk_hash, g.hash) != 0)
    lit_diag(d, LIT_WARNING, b->doc->src.path, b->line, b->file_col,
             "'%s' differs from what lit writes from the documents now: the map is of a fresh tangle, so its lines "
             "may not be the file's (lit tangle brings the file up to date; lit stitch first, if it was edited by "
             "hand)",
             f->path);
  else if (err && err != ENOENT)
    lit_diag(d, LIT_WARNING, b->doc->src.path, b->line, b->file_col,
             "cannot read '%s': %s; the map is of a fresh tangle", f->path, lit_strerror(err));
  lit_buf_free(&disk);
  lit_record_free(&rec);
  size_t n = lit_linemap_len(g.map);
  lit_status status = LIT_OK;
  if (want && (size_t)want > n) {
    lit_diag(d, LIT_ERROR, NULL, 0, 0, "'%s' has %zu lines: there is no line %ld", f->path, n, want);
    status = LIT_USAGE;
  } else if (o->json) {
    fputs("{\"file\": ", out);
    S_json_str(out, f->path);
    fprintf(out, ", \"line_directives\": %s, \"lines\": [", g.line_directives ? "true" : "false");
    for (size_t i = want ? (size_t)want - 1 : 0; i < (want ? (size_t)want : n); i++) {
      fputs(i > (want ? (size_t)want - 1 : 0) ? ",\n  " : "\n  ", out);
      S_json_line(out, i + 1, lit_linemap_at(g.map, i));
    }
    fputs("\n]}\n", out);
  } else {
    for (size_t i = want ? (size_t)want - 1 : 0; i < (want ? (size_t)want : n); i++)
      S_text_line(out, f, i + 1, lit_linemap_at(g.map, i));
  }
  lit_genfile_free(&g);
  return status;
}

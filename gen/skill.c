#include "skill.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "skill_assets.h"
#include "tangle.h"
#include "util.h"
#include "weave.h"

const char *lit_skill_check_name(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > 64) return "must be 1 to 64 characters";
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
      return "may hold only lowercase letters, digits and '-'";
    if (c == '-' && i + 1 < n && name[i + 1] == '-') return "may not hold '--'";
  }
  if (name[0] == '-' || name[n - 1] == '-') return "may not start or end with '-'";
  return NULL;
}

const char *lit_skill_check_description(const char *desc) {
  size_t n = strlen(desc);
  if (n == 0 || n > 1024) return "must be 1 to 1024 characters";
  if (strchr(desc, '<') || strchr(desc, '>')) return "may not contain '<' or '>'";
  return NULL;
}

/* ---- pass two: a woven page as the bundle shows it ---- */

typedef struct {
  const lit_weave *w;
  const lit_wdoc *pg;
  lit_buf *out;
  lit_diags *d;
} S_ctx;

static int S_fence(const char *s, size_t len, size_t *prefix, char *fc, size_t *flen) {
  size_t i = 0;
  while (i < len && (s[i] == ' ' || s[i] == '>'))
    i++;
  size_t r = i;
  while (r < len && (s[r] == '`' || s[r] == '~') && s[r] == s[i])
    r++;
  if (r - i < 3) return 0;
  *prefix = i;
  *fc = s[i];
  *flen = r - i;
  return 1;
}

/* A link to block b's section: "[Section](#slug)" on this page, else
 * "[Page title](page.md#slug)". */
static void S_where(const S_ctx *x, const lit_block *b, lit_buf *out) {
  const lit_wdoc *to = lit_weave_page(x->w, b->doc->src.path);
  const lit_heading *sec = to->section[b->index];
  if (to == x->pg && sec) {
    lit_buf_printf(out, "[%s](#%s)", sec->text, sec->slug);
    return;
  }
  char *rel = lit_weave_relative(x->pg->out_path, to->out_path);
  lit_buf_printf(out, "[%s](%s%s%s)", to->title, rel, sec ? "#" : "", sec ? sec->slug : "");
  free(rel);
}

static void S_label(const S_ctx *x, const lit_block *b, lit_buf *out) {
  int any = 0;
  if (b->chunk && b->chunk->name) {
    const lit_chunk *c = b->chunk;
    lit_buf_printf(out, "Chunk `%s`", c->name);
    if (b->def_index > 0) {
      lit_buf_printf(out, " (part %zu of %zu; part 1 is in ", b->def_index + 1, c->ndefs);
      S_where(x, c->defs[0], out);
      lit_buf_putc(out, ')');
    } else if (c->ndefs > 1) {
      lit_buf_printf(out, " (part 1 of %zu)", c->ndefs);
    }
    any = 1;
  }
  if (b->file) {
    lit_buf_printf(out, "%sile `%s`", any ? ", f" : "F", b->file);
    const lit_file *f = lit_weave_file(x->w, b->file);
    size_t fi = f ? (size_t)(f - x->w->p->files) : 0;
    if (f && x->w->shipped[fi]) {
      char *rel = lit_weave_relative(x->pg->out_path, x->w->shipped[fi]);
      lit_buf_printf(out, " (shipped as [%s](%s))", x->w->shipped[fi], rel);
      free(rel);
    }
    char *asset = lit_skill_asset_path(x->w->p, b->file); /* the whole tangled file, when the bundle has it */
    if (asset) {
      char *rel = lit_weave_relative(x->pg->out_path, asset);
      lit_buf_printf(out, " (whole file: [%s](%s))", asset, rel);
      free(rel);
      free(asset);
    }
  }
  lit_buf_puts(out, ":");
}

/* After a block that includes chunks: where each one is defined. */
static void S_refs(const S_ctx *x, const lit_block *b, lit_buf *out) {
  const lit_chunk *seen[32];
  size_t nseen = 0, n = 0;
  for (size_t i = 0; i < b->nsegs; i++) {
    const lit_seg *s = &b->segs[i];
    if (s->kind != LIT_SEG_REF || !s->target) continue;
    int dup = 0;
    for (size_t k = 0; k < nseen && !dup; k++)
      dup = seen[k] == s->target;
    if (dup) continue;
    if (nseen < 32) seen[nseen++] = s->target;
    lit_buf_puts(out, n++ ? "; " : "Included here: ");
    lit_buf_printf(out, "`<<%s>>` is defined in ", s->target->name);
    S_where(x, s->target->defs[0], out);
    if (s->target->ndefs > 1) lit_buf_printf(out, " (%zu parts, in reading order)", s->target->ndefs);
  }
  if (n) lit_buf_puts(out, ".");
}

/* Why the skill scans text rather than the parsed tree (as the book and
 * weave.c do): the bundle keeps the authors' Markdown byte for byte, and
 * cmark-gfm gives inline nodes no source position, so a link found in the
 * tree could not be rewritten in place (rendering the tree back to
 * CommonMark would rewrite every line). Each link is still checked by
 * lit_weave_link, the book's resolver. The scan works on a run of prose
 * lines (a paragraph, a table), not one line, so a link wrapped across
 * lines is found. */

/* The woven line of position pos in a run that starts at line `first`;
 * *at and *nl (the position and line reached so far) only move forward. */
static int S_line_at(const char *s, size_t pos, size_t *at, int *nl) {
  for (; *at < pos; (*at)++)
    *nl += s[*at] == '\n';
  return *nl;
}

/* At a line start i: a reference definition "[label]: url"? Then the
 * position just after its ':', else 0. "[^label]: text" is a footnote. */
static size_t S_refdef(const char *s, size_t len, size_t i) {
  size_t k = i;
  while (k < len && s[k] == ' ')
    k++;
  if (k >= len || s[k] != '[' || (k + 1 < len && s[k + 1] == '^')) return 0;
  size_t e = k + 1;
  while (e < len && s[e] != ']' && s[e] != '\n')
    e++;
  return e + 1 < len && s[e] == ']' && s[e + 1] == ':' ? e + 2 : 0;
}

/* Past a code span opening at s[i] (a run of backticks). */
static size_t S_skip_code_span(const char *s, size_t len, size_t i) {
  size_t run = 0;
  while (i + run < len && s[i + run] == '`')
    run++;
  size_t j = i + run;
  for (; j < len; j++) {
    size_t r2 = 0;
    while (j + r2 < len && s[j + r2] == '`')
      r2++;
    if (r2 == run) break;
    if (r2) j += r2 - 1;
  }
  return j < len ? j + run : i + run;
}

/* Rewrites the links of a run of prose lines, s[0..len) (inner lines end
 * in '\n'), the first at woven line `line`. */
static void S_links(const S_ctx *x, const char *s, size_t len, int line) {
  size_t copied = 0, i = 0, at = 0;
  int nl = line;
  while (i < len) {
    size_t start, def = i == 0 || s[i - 1] == '\n' ? S_refdef(s, len, i) : 0;
    int is_def = def != 0;
    if (is_def) {
      start = def;
      while (start < len && s[start] == ' ')
        start++;
      i = def;
    } else if (s[i] == '`') {
      i = S_skip_code_span(s, len, i);
      continue;
    } else if (!(s[i] == ']' && i + 1 < len && s[i + 1] == '(')) {
      i++;
      continue;
    } else {
      start = i + 2;
      /* the destination may follow on the next line */
      size_t w = start;
      while (w < len && (s[w] == ' ' || s[w] == '\t'))
        w++;
      if (w < len && s[w] == '\n') {
        w++;
        while (w < len && (s[w] == ' ' || s[w] == '\t'))
          w++;
        start = w;
      }
    }
    size_t end = start;
    int angle = start < len && s[start] == '<';
    if (angle) {
      while (end < len && s[end] != '>' && s[end] != '\n')
        end++;
      start++;
    } else {
      int depth = 0;
      while (end < len && s[end] != ' ' && s[end] != '\n' && !(s[end] == ')' && depth == 0)) {
        if (s[end] == '(') depth++;
        if (s[end] == ')') depth--;
        end++;
      }
    }
    char *url = lit_xstrndup(s + start, end - start);
    char *to = NULL;
    int r = lit_weave_link(x->w, x->pg, url, S_line_at(s, start, &at, &nl), &to, x->d);
    if (r == 1) {
      lit_buf_put(x->out, s + copied, start - copied);
      lit_buf_puts(x->out, to);
      copied = end;
    } else if (r < 0 && !is_def) {
      /* becomes text: drop "[" ... "](url)" around it */
      size_t close = end;
      while (close < len && s[close] != ')')
        close++;
      size_t open = i, depth = 0;
      while (open > copied) {
        open--;
        if (s[open] == ']')
          depth++;
        else if (s[open] == '[' && depth-- == 0)
          break;
      }
      if (s[open] == '[' && close < len) {
        size_t bang = open > copied && s[open - 1] == '!' ? 1 : 0;
        lit_buf_put(x->out, s + copied, open - bang - copied);
        lit_buf_put(x->out, s + open + 1, i - open - 1);
        copied = close + 1;
        end = close;
      }
    }
    free(url);
    free(to);
    i = end + 1;
  }
  lit_buf_put(x->out, s + copied, len - copied);
}

/* An opening fence: a block of the document gets the line naming its
 * chunk and file before it, and its fence loses the lit-block marker.
 * Returns the block, or NULL for a fence of the page's own. */
static const lit_block *S_fence_open(const S_ctx *x, const char *s, size_t len, size_t pre, size_t fl) {
  size_t lang_len;
  char *info = lit_xstrndup(s + pre + fl, len - pre - fl);
  long k = lit_weave_marker(info, &lang_len);
  free(info);
  if (k < 0 || (size_t)k >= x->pg->doc->nblocks) {
    lit_buf_put(x->out, s, len);
    lit_buf_putc(x->out, '\n');
    return NULL;
  }
  const lit_block *blk = x->pg->doc->blocks[k];
  lit_buf_put(x->out, s, pre);
  if (blk->flags & LIT_BLOCK_TANGLED) {
    S_label(x, blk, x->out);
    lit_buf_putc(x->out, '\n');
    for (size_t q = 0; q < pre; q++)
      lit_buf_putc(x->out, s[q] == '>' ? '>' : ' ');
  }
  lit_buf_put(x->out, s + pre, fl + lang_len);
  lit_buf_putc(x->out, '\n');
  return blk;
}

/* A line inside a fence, copied. 1 if it closes the fence (a run of at
 * least flen fc characters): then a tangled block gets the line saying
 * where the chunks it includes are defined. */
static int S_fence_line(const S_ctx *x, const char *s, size_t len, char fc, size_t flen, const lit_block *blk) {
  lit_buf_put(x->out, s, len);
  lit_buf_putc(x->out, '\n');
  size_t q = 0;
  while (q < len && (s[q] == ' ' || s[q] == '>'))
    q++;
  size_t r = q;
  while (r < len && s[r] == fc)
    r++;
  size_t t = r;
  while (t < len && s[t] == ' ')
    t++;
  if (r - q < flen || t != len) return 0;
  if (blk && (blk->flags & LIT_BLOCK_TANGLED)) {
    lit_buf refs = LIT_BUF_INIT;
    S_refs(x, blk, &refs);
    if (refs.len) {
      for (size_t z = 0; z < q; z++)
        lit_buf_putc(x->out, s[z] == '>' ? '>' : ' ');
      lit_buf_put(x->out, refs.data, refs.len);
      lit_buf_putc(x->out, '\n');
    }
    lit_buf_free(&refs);
  }
  return 1;
}

/* One woven page as the bundle shows it: prose with its links rewritten,
 * code blocks labelled, HTML comments (notes to the authors) left out. */
static void S_page(const S_ctx *x) {
  const char *s = x->pg->md, *end = s + x->pg->len;
  int line = 0, in_fence = 0, in_comment = 0;
  char fc = 0;
  size_t flen = 0;
  const lit_block *blk = NULL;
  const char *run = NULL, *run_end = NULL; /* prose lines not yet written, from woven line run_line */
  int run_line = 0;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
    line++;
    size_t pre = 0, fl = 0, ind = 0;
    char c = 0;
    while (ind < len && ind < 3 && s[ind] == ' ')
      ind++;
    int comment = !in_fence && (in_comment || (len - ind >= 4 && memcmp(s + ind, "<!--", 4) == 0));
    int fence = !in_fence && !comment && S_fence(s, len, &pre, &c, &fl);
    int prose = !in_fence && !comment && !fence;
    int blank = strspn(s, " \t>") >= len;
    if (run && (!prose || blank)) { /* the run ends before this line */
      S_links(x, run, (size_t)(run_end - run), run_line);
      lit_buf_putc(x->out, '\n');
      run = NULL;
    }
    if (comment) { /* an HTML comment block is a note to the authors: agents need not read it */
      int closes = 0;
      for (size_t q = 0; q + 3 <= len && !closes; q++)
        closes = memcmp(s + q, "-->", 3) == 0;
      in_comment = !closes;
    } else if (fence) {
      in_fence = 1;
      fc = c;
      flen = fl;
      blk = S_fence_open(x, s, len, pre, fl);
    } else if (in_fence) {
      if (S_fence_line(x, s, len, fc, flen, blk)) {
        in_fence = 0;
        blk = NULL;
      }
    } else if (blank) {
      lit_buf_put(x->out, s, len);
      lit_buf_putc(x->out, '\n');
    } else {
      if (!run) {
        run = s;
        run_line = line;
      }
      run_end = s + len;
    }
    s += len + 1;
  }
  if (run) {
    S_links(x, run, (size_t)(run_end - run), run_line);
    lit_buf_putc(x->out, '\n');
  }
}

/* ---- SKILL.md front matter ---- */

static const char *S_meta(const lit_source *src, const char *a, const char *b, int *line) {
  const char *v = lit_source_meta(src, a, line);
  return v ? v : b ? lit_source_meta(src, b, line) : NULL;
}

const char *lit_skill_name(const lit_source *entry, int *line) { return S_meta(entry, "skill-name", "name", line); }

static int S_under(const char *path, const char *root) {
  size_t n = strlen(root);
  while (n && root[n - 1] == '/')
    n--;
  return strncmp(path, root, n) == 0 && path[n] == '/';
}

/* The bundle's scripts/: per file of p->files, "scripts/BASE" when it lies
 * under one of roots, else NULL. Two files of one base name are an error.
 * The caller frees the array and its strings (S_shipped_free). */
static char **S_shipped(const lit_project *p, const char *const *roots, size_t nroots, lit_diags *d) {
  char **shipped = lit_xcalloc(p->nfiles + 1, sizeof(char *));
  lit_index names = LIT_INDEX_INIT; /* base name under scripts/ -> file */
  for (size_t i = 0; i < p->nfiles; i++) {
    int ship = 0;
    for (size_t k = 0; k < nroots && !ship; k++)
      ship = S_under(p->files[i].path, roots[k]);
    if (!ship) continue;
    const char *base = strrchr(p->files[i].path, '/');
    base = base ? base + 1 : p->files[i].path;
    size_t other;
    if (lit_index_get(&names, base, strlen(base), &other)) {
      const lit_block *b = p->files[i].block;
      lit_diag(d, LIT_ERROR, b->doc->src.path, b->line, b->file_col,
               "the skill ships '%s' as scripts/%s, but '%s' has that name too", p->files[i].path, base,
               p->files[other].path);
      continue;
    }
    lit_index_put(&names, base, i);
    shipped[i] = lit_xasprintf("scripts/%s", base);
  }
  lit_index_free(&names);
  return shipped;
}

static void S_shipped_free(const lit_project *p, char **shipped) {
  for (size_t i = 0; i < p->nfiles; i++)
    free(shipped[i]);
  free(shipped);
}

/* Whether v, written plain, is a string to every YAML reader: no
 * indicator first, no ": " or " #", no ':' at the end, no control
 * character (a tab ends a plain scalar for PyYAML, an escape is no YAML
 * at all), and not what YAML 1.1 or 1.2 reads as a boolean, null or
 * number (yes, Off, null, ~, 2.0, 0x1f, .inf, +1). */
static int S_yaml_plain(const char *v) {
  static const char *const words[] = {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"};
  const size_t n = strlen(v);
  if (!n || strchr("!&*{}[]|>'\"%@`#,?:-+.~", v[0]) || (v[0] >= '0' && v[0] <= '9')) return 0;
  if (strstr(v, ": ") || strstr(v, " #") || v[n - 1] == ':') return 0;
  for (size_t i = 0; i < n; i++) {
    const unsigned char c = (unsigned char)v[i];
    if (c < 0x20 || c == 0x7f ||
        (c == 0xc2 && i + 1 < n && (unsigned char)v[i + 1] >= 0x80 && (unsigned char)v[i + 1] < 0xa0))
      return 0;
  }
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strcasecmp(v, words[i]) == 0) return 0;
  return 1;
}

/* YAML: plain when safe, else double-quoted, with '"', '\\' and control
 * characters escaped (a tab as \\t, the rest as \\xHH, a C1 as \\u00HH). */
static void S_yaml(lit_buf *out, const char *key, const char *v) {
  lit_buf_printf(out, "%s: ", key);
  if (S_yaml_plain(v)) {
    lit_buf_puts(out, v);
  } else {
    lit_buf_putc(out, '"');
    for (const unsigned char *c = (const unsigned char *)v; *c; c++) {
      if (*c == '"' || *c == '\\') {
        lit_buf_putc(out, '\\');
        lit_buf_putc(out, (char)*c);
      } else if (*c == '\t') {
        lit_buf_puts(out, "\\t");
      } else if (*c < 0x20 || *c == 0x7f) {
        lit_buf_printf(out, "\\x%02x", *c);
      } else if (*c == 0xc2 && c[1] >= 0x80 && c[1] < 0xa0) {
        lit_buf_printf(out, "\\u%04x", *++c);
      } else {
        lit_buf_putc(out, (char)*c);
      }
    }
    lit_buf_putc(out, '"');
  }
  lit_buf_putc(out, '\n');
}

/* The skill's front matter, from the entry document's. */
typedef struct {
  const char *name, *desc, *compat;
} S_front;

/* Reads and checks the front matter against the Agent Skills rules: 0, 1
 * when a value breaks a rule, -1 when name or description is missing
 * (each reported). */
static int S_read_front(const lit_source *ix, S_front *fm, lit_diags *d) {
  int line = 0, status = 0;
  const char *why;
  fm->name = lit_skill_name(ix, &line);
  if (!fm->name) {
    lit_diag(d, LIT_ERROR, ix->path, 1, 1, "the front matter needs 'skill-name:' (or 'name:') for the skill bundle");
    return -1;
  }
  if ((why = lit_skill_check_name(fm->name))) {
    lit_diag(d, LIT_ERROR, ix->path, line, 1, "skill name '%s' %s (Agent Skills specification)", fm->name, why);
    status = 1;
  }
  fm->desc = S_meta(ix, "skill-description", "description", &line);
  if (!fm->desc) {
    lit_diag(d, LIT_ERROR, ix->path, 1, 1,
             "the front matter needs 'skill-description:' (or 'description:'): what the skill does and when to use it");
    return -1;
  }
  if ((why = lit_skill_check_description(fm->desc))) {
    lit_diag(d, LIT_ERROR, ix->path, line, 1, "skill description %s (Agent Skills specification)", why);
    status = 1;
  }
  fm->compat = S_meta(ix, "skill-compatibility", "compatibility", &line);
  if (fm->compat && strlen(fm->compat) > 500) {
    lit_diag(d, LIT_ERROR, ix->path, line, 1, "skill compatibility must be at most 500 characters");
    status = 1;
  }
  return status;
}

/* Whether some tangled file lies under folder root. */
static int S_holds_files(const lit_project *p, const char *root) {
  for (size_t i = 0; i < p->nfiles; i++)
    if (S_under(p->files[i].path, root)) return 1;
  return 0;
}

/* The folders named by skill-scripts, shipped under scripts/. A folder
 * the key names must be a project path that holds tangled files: the key
 * only picks among them, so '..', a leading '/' or a misspelt folder
 * would otherwise ship nothing without a word. */
static char **S_ship(const lit_project *p, const lit_source *ix, lit_diags *d) {
  enum { S_MAX_ROOTS = 16 };
  int line = 0;
  const char *scripts = S_meta(ix, "skill-scripts", NULL, &line);
  char *roots_text = lit_xstrdup(scripts ? scripts : "kernels/scripts kernels/benchmarks");
  const char *roots[S_MAX_ROOTS];
  size_t nroots = 0;
  char *save = NULL;
  for (char *t = strtok_r(roots_text, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
    if (!scripts) {
      roots[nroots++] = t;
    } else if (t[0] == '/' || strstr(t, "..")) {
      lit_diag(d, LIT_ERROR, ix->path, line, 1,
               "skill-scripts takes folders inside the project (no '/' at the start, no '..'), not '%s'", t);
    } else if (!S_holds_files(p, t)) {
      lit_diag(d, LIT_ERROR, ix->path, line, 1, "skill-scripts: no tangled file lies under '%s'", t);
    } else if (nroots == S_MAX_ROOTS) {
      lit_diag(d, LIT_ERROR, ix->path, line, 1, "skill-scripts names more than %d folders", S_MAX_ROOTS);
      break;
    } else {
      roots[nroots++] = t;
    }
  }
  char **shipped = S_shipped(p, roots, nroots, d);
  free(roots_text);
  return shipped;
}

/* SKILL.md's front matter, and the Agent Skills limits on its body. */
static void S_skill_md_head(const lit_source *ix, const S_front *fm, const char *body, size_t len, lit_buf *page,
                            lit_diags *d) {
  lit_buf_puts(page, "---\n");
  S_yaml(page, "name", fm->name);
  S_yaml(page, "description", fm->desc);
  const char *v;
  if ((v = S_meta(ix, "skill-license", "license", NULL))) S_yaml(page, "license", v);
  if (fm->compat) S_yaml(page, "compatibility", fm->compat);
  if ((v = S_meta(ix, "skill-allowed-tools", "allowed-tools", NULL))) S_yaml(page, "allowed-tools", v);
  lit_buf_puts(page, "---\n");
  size_t lines = 0;
  for (size_t k = 0; k < len; k++)
    lines += body[k] == '\n';
  size_t tokens = len / 4; /* the usual estimate: four characters a token */
  if (lines >= 500 || tokens >= 5000)
    lit_diag(d, LIT_ERROR, ix->path, 0, 0,
             "SKILL.md's body is %zu lines and about %zu tokens (characters / 4); the Agent Skills limit is under 500 "
             "lines and 5,000 tokens: move detail into a reference",
             lines, tokens);
}

/* SKILL.md and references/, one woven page each. */
static void S_add_pages(const lit_weave *w, const lit_source *ix, const S_front *fm, lit_tree *tree, lit_diags *d) {
  for (size_t i = 0; i < w->ndocs; i++) {
    lit_buf body = LIT_BUF_INIT, page = LIT_BUF_INIT;
    S_ctx x = {w, &w->docs[i], &body, d};
    S_page(&x);
    size_t skip = 0; /* front matter lines were blanked: drop leading blank lines */
    while (skip < body.len && (body.data[skip] == '\n' || body.data[skip] == ' '))
      skip++;
    while (skip > 0 && body.data[skip - 1] != '\n')
      skip--;
    if (i == 0) S_skill_md_head(ix, fm, body.data + skip, body.len - skip, &page, d);
    lit_buf_put(&page, body.data + skip, body.len - skip);
    size_t n = page.len;
    lit_tree_add(tree, w->docs[i].out_path, lit_buf_detach(&page), n);
    lit_buf_free(&body);
  }
}

/* scripts/: the shipped files, tangled (executable when they start with #!). */
static void S_add_scripts(const lit_project *p, const lit_weave *w, lit_tree *tree) {
  lit_tangle_opts topts = {0};
  for (size_t i = 0; i < p->nfiles; i++) {
    if (!w->shipped[i]) continue;
    lit_buf b = LIT_BUF_INIT;
    lit_tangle_file(p, &p->files[i], &topts, &b);
    size_t n = b.len;
    lit_tree_add(tree, w->shipped[i], lit_buf_detach(&b), n);
    if (n > 2 && memcmp(tree->files[tree->n - 1].data, "#!", 2) == 0) tree->files[tree->n - 1].exec = 1;
  }
}

lit_status lit_skill_build(const lit_project *p, lit_tree *tree, char **name_out, lit_diags *d) {
  const lit_source *ix = &p->docs[0]->src;
  S_front fm;
  int front = S_read_front(ix, &fm, d);
  if (front) return LIT_FAILED;
  char **shipped = S_ship(p, ix, d);
  lit_weave_opts wo = {(const char *const *)shipped, NULL, NULL};
  lit_weave *w = lit_weave_new(p, LIT_WEAVE_SKILL, &wo, d);
  if (!w) {
    S_shipped_free(p, shipped);
    return LIT_FAILED;
  }
  S_add_pages(w, ix, &fm, tree, d);
  S_add_scripts(p, w, tree);
  lit_skill_assets_add(p, tree, d); /* errors are counted below */
  /* No listing of its own: the installed folder's .lit-manifest (tree.h)
   * names every file already, and two lists of the same files only drift. */
  lit_tree_sort(tree);
  *name_out = lit_xstrdup(fm.name);
  lit_weave_free(w);
  S_shipped_free(p, shipped);
  return lit_diags_count(d, LIT_ERROR) ? LIT_FAILED : LIT_OK;
}

lit_status lit_skill_run(const lit_project *p, const lit_skill_opts *o, lit_diags *d) {
  lit_tree t = LIT_TREE_INIT;
  char *name = NULL;
  lit_status r = lit_skill_build(p, &t, &name, d);
  if (r == LIT_OK) {
    int given = o->out && o->out[0];
    const char *out = given ? o->out : "build/skill";
    char *dir = lit_xasprintf("%s/%s", out, name);
    if (!given && lit_tree_check_inside(dir, d) != 0) {
      /* a project that ships build -> ../elsewhere must not get the default
       * output written (or read, under --check) there; --out says where */
      lit_diag(d, LIT_NOTE, NULL, 0, 0, "to weave the skill there all the same, name the folder: --out %s", out);
      r = LIT_FAILED;
    } else if (lit_weave_check_out_file(p, out, 1, "--out", d) != 0) /* it would hold the bundle's folder */
      r = LIT_FAILED;
    else if (o->check)
      r = lit_tree_compare(&t, dir, d) ? LIT_DIFFERS : LIT_OK;
    else if (lit_tree_check_parent(out, d) != 0) /* `--out /` would write /NAME */
      r = LIT_FAILED;
    else if (lit_weave_check_out(p, dir, "--out", d) != 0)
      r = LIT_FAILED;
    else
      /* manifest.txt: what a bundle of an earlier version, without a
       * .lit-manifest, is known by */
      r = lit_tree_install(&t, dir, "manifest.txt", given ? 0 : LIT_TREE_BENEATH, d) == 0 ? LIT_OK : LIT_FAILED;
    free(dir);
  }
  free(name);
  lit_tree_free(&t);
  return r;
}

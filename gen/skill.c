#include "skill.h"

#include <stdlib.h>
#include <string.h>

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

/* Rewrites the links of one prose line. */
static void S_links(const S_ctx *x, const char *s, size_t len, int line) {
  size_t copied = 0, i = 0;
  /* a reference definition: [label]: url */
  size_t k = 0;
  while (k < len && s[k] == ' ')
    k++;
  int refdef = 0;
  if (k < len && s[k] == '[') {
    size_t e = k + 1;
    while (e < len && s[e] != ']')
      e++;
    if (e + 1 < len && s[e + 1] == ':') {
      refdef = 1;
      i = e + 2;
    }
  }
  while (i < len) {
    size_t start;
    if (refdef) {
      start = i;
      while (start < len && s[start] == ' ')
        start++;
      refdef = 0;
    } else {
      if (s[i] == '`') { /* skip a code span */
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
        i = j < len ? j + run : i + run;
        continue;
      }
      if (!(s[i] == ']' && i + 1 < len && s[i + 1] == '(')) {
        i++;
        continue;
      }
      start = i + 2;
    }
    size_t end = start;
    int angle = start < len && s[start] == '<';
    if (angle) {
      while (end < len && s[end] != '>')
        end++;
      start++;
    } else {
      int depth = 0;
      while (end < len && s[end] != ' ' && !(s[end] == ')' && depth == 0)) {
        if (s[end] == '(') depth++;
        if (s[end] == ')') depth--;
        end++;
      }
    }
    char *url = lit_xstrndup(s + start, end - start);
    char *to = NULL;
    int r = lit_weave_link(x->w, x->pg, url, line, &to, x->d);
    if (r == 1) {
      lit_buf_put(x->out, s + copied, start - copied);
      lit_buf_puts(x->out, to);
      copied = end;
    } else if (r < 0 && s[i] == ']') {
      /* becomes text: drop "[" ... "](url)" around it, when both are on this line */
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

static void S_page(const S_ctx *x) {
  const char *s = x->pg->md, *end = s + x->pg->len;
  int line = 0;
  int in_fence = 0;
  char fc = 0;
  size_t flen = 0;
  const lit_block *blk = NULL;
  int in_comment = 0;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
    line++;
    size_t pre, fl;
    char c;
    size_t ind = 0;
    while (ind < len && ind < 3 && s[ind] == ' ')
      ind++;
    if (!in_fence && (in_comment || (len - ind >= 4 && memcmp(s + ind, "<!--", 4) == 0))) {
      /* an HTML comment block is a note to the authors: agents need not read it */
      int closes = 0;
      for (size_t q = 0; q + 3 <= len && !closes; q++)
        closes = memcmp(s + q, "-->", 3) == 0;
      in_comment = !closes;
    } else if (!in_fence && S_fence(s, len, &pre, &c, &fl)) {
      in_fence = 1;
      fc = c;
      flen = fl;
      blk = NULL;
      size_t lang_len;
      char *info = lit_xstrndup(s + pre + fl, len - pre - fl);
      long k = lit_weave_marker(info, &lang_len);
      free(info);
      if (k >= 0 && (size_t)k < x->pg->doc->nblocks) {
        blk = x->pg->doc->blocks[k];
        if (blk->flags & LIT_BLOCK_TANGLED) {
          lit_buf_put(x->out, s, pre);
          S_label(x, blk, x->out);
          lit_buf_putc(x->out, '\n');
          for (size_t q = 0; q < pre; q++)
            lit_buf_putc(x->out, s[q] == '>' ? '>' : ' ');
        } else {
          lit_buf_put(x->out, s, pre);
        }
        lit_buf_put(x->out, s + pre, fl + lang_len);
        lit_buf_putc(x->out, '\n');
      } else {
        lit_buf_put(x->out, s, len);
        lit_buf_putc(x->out, '\n');
      }
    } else if (in_fence) {
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
      if (r - q >= flen && t == len) {
        in_fence = 0;
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
        blk = NULL;
      }
    } else {
      S_links(x, s, len, line);
      lit_buf_putc(x->out, '\n');
    }
    s += len + 1;
  }
}

/* ---- SKILL.md front matter ---- */

static const char *S_meta(const lit_source *src, const char *a, const char *b, int *line) {
  const char *v = lit_source_meta(src, a, line);
  return v ? v : b ? lit_source_meta(src, b, line) : NULL;
}

/* YAML: plain when safe, else double-quoted. */
static void S_yaml(lit_buf *out, const char *key, const char *v) {
  int plain = v[0] && !strchr("!&*{}[]|>'\"%@`#,?:-", v[0]) && !strstr(v, ": ") && !strstr(v, " #");
  lit_buf_printf(out, "%s: ", key);
  if (plain) {
    lit_buf_puts(out, v);
  } else {
    lit_buf_putc(out, '"');
    for (const char *c = v; *c; c++) {
      if (*c == '"' || *c == '\\') lit_buf_putc(out, '\\');
      lit_buf_putc(out, *c);
    }
    lit_buf_putc(out, '"');
  }
  lit_buf_putc(out, '\n');
}

int lit_skill_build(lit_project *p, lit_tree *tree, char **name_out, lit_diags *d) {
  const lit_source *ix = &p->docs[0]->src;
  int line = 0, status = 0;
  const char *name = S_meta(ix, "skill-name", "name", &line);
  const char *why;
  if (!name) {
    lit_diag(d, LIT_ERROR, ix->path, 1, 1, "the front matter needs 'skill-name:' (or 'name:') for the skill bundle");
    return -1;
  }
  if ((why = lit_skill_check_name(name))) {
    lit_diag(d, LIT_ERROR, ix->path, line, 1, "skill name '%s' %s (Agent Skills specification)", name, why);
    status = -1;
  }
  const char *desc = S_meta(ix, "skill-description", "description", &line);
  if (!desc) {
    lit_diag(d, LIT_ERROR, ix->path, 1, 1,
             "the front matter needs 'skill-description:' (or 'description:'): what the skill does and when to use it");
    return -1;
  }
  if ((why = lit_skill_check_description(desc))) {
    lit_diag(d, LIT_ERROR, ix->path, line, 1, "skill description %s (Agent Skills specification)", why);
    status = -1;
  }
  const char *compat = S_meta(ix, "skill-compatibility", "compatibility", &line);
  if (compat && strlen(compat) > 500) {
    lit_diag(d, LIT_ERROR, ix->path, line, 1, "skill compatibility must be at most 500 characters");
    status = -1;
  }
  const char *scripts = S_meta(ix, "skill-scripts", NULL, &line);
  char *roots_text = lit_xstrdup(scripts ? scripts : "kernels/scripts kernels/benchmarks");
  const char *roots[16];
  size_t nroots = 0;
  char *save = NULL;
  for (char *t = strtok_r(roots_text, " \t,", &save); t && nroots < 16; t = strtok_r(NULL, " \t,", &save))
    roots[nroots++] = t;
  lit_weave *w = status ? NULL : lit_weave_new(p, LIT_WEAVE_SKILL, roots, nroots, NULL, d);
  free(roots_text);
  if (!w) return -1;

  for (size_t i = 0; i < w->ndocs; i++) {
    lit_buf body = LIT_BUF_INIT, page = LIT_BUF_INIT;
    S_ctx x = {w, &w->docs[i], &body, d};
    S_page(&x);
    size_t skip = 0; /* front matter lines were blanked: drop leading blank lines */
    while (skip < body.len && (body.data[skip] == '\n' || body.data[skip] == ' '))
      skip++;
    while (skip > 0 && body.data[skip - 1] != '\n')
      skip--;
    if (i == 0) {
      lit_buf_puts(&page, "---\n");
      S_yaml(&page, "name", name);
      S_yaml(&page, "description", desc);
      const char *v;
      if ((v = S_meta(ix, "skill-license", "license", NULL))) S_yaml(&page, "license", v);
      if (compat) S_yaml(&page, "compatibility", compat);
      if ((v = S_meta(ix, "skill-allowed-tools", "allowed-tools", NULL))) S_yaml(&page, "allowed-tools", v);
      lit_buf_puts(&page, "---\n");
      size_t lines = 0;
      for (size_t k = skip; k < body.len; k++)
        lines += body.data[k] == '\n';
      size_t tokens = (body.len - skip) / 4; /* the usual estimate: four characters a token */
      if (lines >= 500 || tokens >= 5000)
        lit_diag(
            d, LIT_ERROR, ix->path, 0, 0,
            "SKILL.md's body is %zu lines and about %zu tokens (characters / 4); the Agent Skills limit is under 500 "
            "lines and 5,000 tokens: move detail into a reference",
            lines, tokens);
    }
    lit_buf_put(&page, body.data + skip, body.len - skip);
    size_t n = page.len;
    lit_tree_add(tree, w->docs[i].out_path, lit_buf_detach(&page), n);
    lit_buf_free(&body);
  }
  lit_tangle_opts topts = {0};
  for (size_t i = 0; i < p->nfiles; i++) {
    if (!w->shipped[i]) continue;
    lit_buf b = LIT_BUF_INIT;
    if (lit_tangle_file(p, &p->files[i], &topts, &b, d) == 0) {
      size_t n = b.len;
      lit_tree_add(tree, w->shipped[i], lit_buf_detach(&b), n);
      if (n > 2 && memcmp(tree->files[tree->n - 1].data, "#!", 2) == 0) tree->files[tree->n - 1].exec = 1;
    } else {
      lit_buf_free(&b);
    }
  }
  lit_skill_assets_add(p, tree, d); /* errors are counted below */
  lit_tree_sort(tree);
  lit_buf man = LIT_BUF_INIT;
  for (size_t i = 0; i < tree->n; i++)
    lit_buf_printf(&man, "%s\n", tree->files[i].path);
  size_t n = man.len;
  lit_tree_add(tree, "manifest.txt", lit_buf_detach(&man), n);
  lit_tree_sort(tree);
  *name_out = lit_xstrdup(name);
  lit_weave_free(w);
  return lit_diags_count(d, LIT_ERROR) ? -1 : 0;
}

int lit_skill_run(lit_project *p, const lit_skill_opts *o, lit_diags *d) {
  lit_tree t = LIT_TREE_INIT;
  char *name = NULL;
  int r = lit_skill_build(p, &t, &name, d);
  if (r == 0) {
    const char *out = o->out && o->out[0] ? o->out : "build/skill";
    char *dir = lit_xasprintf("%s/%s", out, name);
    if (o->check)
      r = lit_tree_compare(&t, dir, d) ? 1 : 0;
    else if (lit_tree_check_parent(out, d) != 0) /* `--out /` would write /NAME */
      r = -1;
    else
      r = lit_tree_install(&t, dir, "manifest.txt", d);
    free(dir);
  }
  free(name);
  lit_tree_free(&t);
  return r;
}

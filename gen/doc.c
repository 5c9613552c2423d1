#include "doc.h"

#include <cmark-gfm.h>
#include <stdlib.h>
#include <string.h>

#include "attrs.h"
#include "diff.h"
#include "lang.h"
#include "parallel.h"
#include "util.h"

typedef struct {
  lit_diags *d;
  const char *path;
  int line, col;
} S_attr_ctx;

static void S_attr_error(void *ctx, size_t offset, const char *message) {
  S_attr_ctx *c = ctx;
  lit_diag(c->d, LIT_ERROR, c->path, c->line, c->col + (int)offset, "%s", message);
}

/* Column (1-based) where the info string starts on the fence line. */
static int S_info_col(const lit_source *src, int line, int fence_col, char fence_char) {
  size_t len;
  const char *s = lit_source_line(src, line, &len);
  if (!s) return fence_col;
  size_t i = fence_col > 0 ? (size_t)fence_col - 1 : 0;
  while (i < len && s[i] != fence_char)
    i++;
  while (i < len && s[i] == fence_char)
    i++;
  while (i < len && (s[i] == ' ' || s[i] == '\t'))
    i++;
  return (int)i + 1;
}

/* 1 if the fenced block ending at end_line was closed by a fence there. */
static int S_fence_closed(const lit_source *src, int start_line, int end_line, char fence_char, int fence_len) {
  if (end_line <= start_line) return 0;
  size_t len;
  const char *s = lit_source_line(src, end_line, &len);
  if (!s) return 0;
  while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
    len--;
  size_t run = 0;
  while (run < len && s[len - 1 - run] == fence_char)
    run++;
  if ((int)run < fence_len) return 0;
  for (size_t i = 0; i < len - run; i++) /* only container markers and indentation before it */
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '>') return 0;
  return 1;
}

/* 1 if the block ends inside every list item and quote that holds it. A
 * closing fence indented less than the item's content is not part of the
 * item: the item ends above it, the block with it (unclosed), and cmark
 * reports the block's end at the fence line all the same. */
static int S_within_containers(cmark_node *node) {
  int end = cmark_node_get_end_line(node);
  for (cmark_node *c = cmark_node_parent(node); c && cmark_node_get_type(c) != CMARK_NODE_DOCUMENT;
       c = cmark_node_parent(c))
    if (cmark_node_get_end_line(c) < end) return 0;
  return 1;
}

static int S_space(char c) { return c == ' ' || c == '\t'; }

/* A line the tangler leaves unindented: spaces and tabs only. */
static int S_blank_line(const char *s, size_t len) {
  size_t i = 0;
  while (i < len && S_space(s[i]))
    i++;
  return i == len;
}

/* If s[0..len) opens a fenced block whose info string tags it for lit
 * ({#name} or file=), returns the column (0-based) of its fence, else -1.
 * With fence_char, only fences of that character at least fence_len long. */
static int S_tagged_fence(const char *s, size_t len, char fence_char, int fence_len) {
  size_t i = 0;
  while (i < len && S_space(s[i]))
    i++;
  size_t at = i;
  char ch = i < len ? s[i] : 0;
  if (ch != '`' && ch != '~') return -1;
  if (fence_char && ch != fence_char) return -1;
  while (i < len && s[i] == ch)
    i++;
  if (i - at < 3 || (int)(i - at) < fence_len) return -1;
  char *info = lit_xstrndup(s + i, len - i);
  lit_attrs a;
  lit_attrs_parse(info, &a, NULL, NULL);
  int tagged = a.id || a.file;
  lit_attrs_free(&a);
  free(info);
  return tagged ? (int)at : -1;
}

/* A block whose content holds a line that opens a tagged block most likely
 * lost its own closing fence: the tagged block's closing line closed it
 * instead, and the tagged block is read as its text. Returns that line's
 * number, or 0. */
static int S_swallowed_tagged(const char *code, size_t code_len, int code_line, char fence_char, int fence_len) {
  const char *p = code, *end = code + code_len;
  for (int line = code_line; p < end; line++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = (size_t)((nl ? nl : end) - p);
    if (S_tagged_fence(p, len, fence_char, fence_len) >= 0) return line;
    p = nl ? nl + 1 : end;
  }
  return 0;
}

/* If line s[0..len) is a reference, sets name/indent and returns 1. */
static int S_match_ref(const char *s, size_t len, size_t *ind, size_t *name_start, size_t *name_len) {
  size_t i = 0;
  while (i < len && S_space(s[i]))
    i++;
  if (len - i < 4 || s[i] != '<' || s[i + 1] != '<') return 0;
  size_t end = len;
  while (end > i && S_space(s[end - 1]))
    end--;
  if (end - i < 4 || s[end - 1] != '>' || s[end - 2] != '>') return 0;
  *ind = i;
  *name_start = i + 2;
  *name_len = end - 2 - (i + 2);
  return 1;
}

static void S_segment(lit_block *b, lit_diags *d) {
  const char *p = b->code, *end = b->code + b->code_len;
  size_t cap = 0;
  int line = b->code_line;
  lit_seg *cur = NULL;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *next = nl ? nl + 1 : end;
    size_t len = (size_t)((nl ? nl : end) - p);
    size_t ind, ns, nlen;
    if (S_match_ref(p, len, &ind, &ns, &nlen) && lit_name_valid(p + ns, nlen)) {
      b->segs = lit_grow(b->segs, &cap, b->nsegs + 1, sizeof(lit_seg));
      lit_seg *s = &b->segs[b->nsegs++];
      memset(s, 0, sizeof *s);
      s->kind = LIT_SEG_REF;
      s->line = line;
      s->col = b->col + (int)ind;
      s->text = p + ns;
      s->len = nlen;
      s->indent = p;
      s->indent_len = ind;
      cur = NULL;
    } else {
      if (S_match_ref(p, len, &ind, &ns, &nlen) && nlen == 0)
        lit_diag(d, LIT_ERROR, b->doc->src.path, line, b->col + (int)ind, "empty chunk name in reference '<<>>'");
      else if (S_match_ref(p, len, &ind, &ns, &nlen) && p[ns] != '<' && p[ns + nlen - 1] != '>')
        /* Not "<<<grid, block>>>": a CUDA launch on a line of its own is code. */
        lit_diag(d, LIT_WARNING, b->doc->src.path, line, b->col + (int)ind,
                 "'<<%.*s>>' is not a chunk reference, since a name holds only letters, digits and _ : / . -; the "
                 "line is copied as text",
                 (int)nlen, p + ns);
      if (!cur) {
        b->segs = lit_grow(b->segs, &cap, b->nsegs + 1, sizeof(lit_seg));
        cur = &b->segs[b->nsegs++];
        memset(cur, 0, sizeof *cur);
        cur->kind = LIT_SEG_TEXT;
        cur->line = line;
        cur->text = p;
      }
      cur->len = (size_t)(next - cur->text);
      cur->nlines++;
      cur->nblank += S_blank_line(p, len);
    }
    p = next;
    line++;
  }
}

/* A link to a Markdown file by an absolute path ("/x.md"; not "//host/x.md",
 * which names another host): lit cannot follow it inside the project, and
 * the book would link to the reader's own file system. */
static int S_is_absolute_md(const char *url) {
  if (!url || url[0] != '/' || url[1] == '/') return 0;
  const char *hash = strchr(url, '#');
  size_t len = hash ? (size_t)(hash - url) : strlen(url);
  return len > 4 && memcmp(url + len - 3, ".md", 3) == 0;
}

static int S_is_local_md(const char *url) {
  if (!url || !url[0] || url[0] == '#' || url[0] == '/') return 0;
  for (const char *c = url; *c && *c != '/' && *c != '#'; c++)
    if (*c == ':') return 0; /* a scheme: http:, mailto: */
  const char *hash = strchr(url, '#');
  size_t len = hash ? (size_t)(hash - url) : strlen(url);
  return len > 3 && memcmp(url + len - 3, ".md", 3) == 0;
}

/* Column (1-based) of the first fence character on a source line, for a
 * fence cmark reads as text: after any quote markers and indentation. */
static int S_fence_col(const lit_source *src, int line) {
  size_t len, col = 0;
  const char *s = lit_source_line(src, line, &len);
  while (s && col < len && s[col] != '`' && s[col] != '~')
    col++;
  return (int)col + 1;
}

/* An indented code block (four spaces or more past the text it belongs to)
 * is never tangled, so a tagged fence inside one, most often a fence
 * indented one step too far in a list item or quote, would silently write
 * nothing: warned at each such line. Its lines are the source's, from its
 * first. */
static void S_check_indented(const lit_doc *doc, cmark_node *node, lit_diags *d) {
  const char *code = cmark_node_get_literal(node);
  if (!code) return;
  const char *p = code, *end = code + strlen(code);
  for (int line = cmark_node_get_start_line(node); p < end; line++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (S_tagged_fence(p, (size_t)((nl ? nl : end) - p), 0, 0) >= 0)
      lit_diag(d, LIT_WARNING, doc->src.path, line, S_fence_col(&doc->src, line),
               "this looks like a tagged code block, but it is indented four or more spaces past the text it belongs "
               "to, so Markdown reads it as an indented code block and lit does not tangle it: indent it like that "
               "text (to show a tagged block as an example, put it in a longer fence, such as ````markdown)");
    p = nl ? nl + 1 : end;
  }
}

static void S_add_block(lit_doc *doc, cmark_node *node, size_t *cap, lit_diags *d) {
  const lit_source *src = &doc->src;
  int fence_len = 0, fence_off = 0;
  char fence_char = 0;
  if (!cmark_node_get_fenced(node, &fence_len, &fence_off, &fence_char)) { /* indented code: never tangled */
    S_check_indented(doc, node, d);
    return;
  }
  int line = cmark_node_get_start_line(node);
  int col = cmark_node_get_start_column(node);
  int end_line = cmark_node_get_end_line(node);
  const char *lit = cmark_node_get_literal(node);
  int swallowed = lit ? S_swallowed_tagged(lit, strlen(lit), line + 1, fence_char, fence_len) : 0;
  if (!S_fence_closed(src, line, end_line, fence_char, fence_len))
    lit_diag(d, LIT_ERROR, src->path, line, col,
             "code fence is never closed: add a closing '%c%c%c' line (the block runs to the end of its container)",
             fence_char, fence_char, fence_char);
  else if (!S_within_containers(node))
    lit_diag(d, LIT_ERROR, src->path, line, col,
             "code fence is never closed inside its list item or quote: the closing fence on line %d is indented "
             "less than the item's text, so the item ends first; indent it like the opening fence",
             end_line);
  else if (swallowed)
    lit_diag(d, LIT_ERROR, src->path, line, col,
             "this code block runs on to line %d, past line %d where a tagged block opens: is its closing '%c%c%c' "
             "line missing?",
             end_line, swallowed, fence_char, fence_char, fence_char);
  const char *info = cmark_node_get_fence_info(node);
  int info_col = S_info_col(src, line, col, fence_char);
  lit_attrs a;
  S_attr_ctx ctx = {d, src->path, line, info_col};
  int attr_errors = lit_attrs_parse(info ? info : "", &a, S_attr_error, &ctx);

  lit_block *b = lit_xcalloc(1, sizeof *b);
  b->doc = doc;
  b->index = doc->nblocks;
  b->line = line;
  b->col = col;
  b->lang = a.lang;
  b->name = a.id;
  b->file = a.file;
  b->name_col = info_col + (int)a.id_off;
  b->file_col = info_col + (int)a.file_off;
  b->classes = a.classes;
  b->nclasses = a.nclasses;
  a.lang = a.id = a.file = NULL;
  a.classes = NULL;
  a.nclasses = 0;
  for (size_t i = 0; i < b->nclasses; i++) {
    if (strcmp(b->classes[i], "example") == 0) b->flags |= LIT_BLOCK_EXAMPLE;
    if (strcmp(b->classes[i], "data") == 0) b->flags |= LIT_BLOCK_DATA;
    if (strcmp(b->classes[i], "render") == 0) b->flags |= LIT_BLOCK_RENDER;
  }
  lit_attrs_free(&a);
  b->code_len = lit ? strlen(lit) : 0;
  b->code_line = line + 1;
  /* Most blocks sit at the top level, where their content is the source text
   * itself: point into it rather than copy (a 50 MB corpus is mostly code). */
  size_t off = (size_t)b->code_line <= src->nlines ? src->line_starts[b->code_line - 1] : src->len;
  if (lit && off + b->code_len <= src->len && memcmp(src->text + off, lit, b->code_len) == 0) {
    b->code = src->text + off;
  } else {
    b->code = lit_xstrndup(lit ? lit : "", b->code_len);
    b->code_owned = 1;
  }

  int weaver_only = (b->flags & (LIT_BLOCK_DATA | LIT_BLOCK_RENDER)) != 0;
  if (b->flags & LIT_BLOCK_EXAMPLE) {
    if (b->name || b->file)
      lit_diag(d, LIT_ERROR, src->path, line, info_col,
               "an .example block is never tangled, so it cannot have #name or file=");
  } else if (weaver_only) {
    if (b->file)
      lit_diag(d, LIT_ERROR, src->path, line, b->file_col, ".data and .render blocks are for the weaver; drop file=");
    if ((b->flags & LIT_BLOCK_DATA) && !b->name)
      lit_diag(d, LIT_ERROR, src->path, line, info_col, "a .data block needs a #name to be found by");
  } else if (b->name || b->file) {
    b->flags |= LIT_BLOCK_TANGLED;
  } else if (lit_lang_needs_tag(b->lang) && !attr_errors) {
    lit_diag(d, LIT_ERROR, src->path, line, col,
             "untagged %s block: give it a #name or file= to tangle it, or mark it {.%s .example} if it is only an "
             "illustration",
             b->lang, b->lang);
  }
  if (b->flags & LIT_BLOCK_TANGLED) S_segment(b, d);
  doc->blocks = lit_grow(doc->blocks, cap, doc->nblocks + 1, sizeof(lit_block *));
  doc->blocks[doc->nblocks++] = b;
}

/* Markdown is not read inside an HTML block: a fence there (say, under a
 * <details> line with no blank line after it) is HTML text, and cmark is
 * right to skip it. A tagged one was meant for lit, so it is an error. */
static void S_check_html(const lit_doc *doc, cmark_node *node, lit_diags *d) {
  const char *html = cmark_node_get_literal(node);
  int start = cmark_node_get_start_line(node);
  if (!html) return;
  const char *p = html, *end = html + strlen(html);
  for (int line = start; p < end; line++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = (size_t)((nl ? nl : end) - p);
    if (S_tagged_fence(p, len, 0, 0) >= 0) {
      size_t slen;
      const char *s = lit_source_line(&doc->src, line, &slen);
      size_t col = 0;
      while (s && col < slen && s[col] != '`' && s[col] != '~')
        col++;
      size_t tag_len;
      const char *tag = lit_source_line(&doc->src, start, &tag_len);
      while (tag && tag_len && S_space(*tag)) {
        tag++;
        tag_len--;
      }
      lit_diag(d, LIT_ERROR, doc->src.path, line, (int)col + 1,
               "this tagged code block sits inside an HTML block (from line %d, '%.*s'), where Markdown is not read, "
               "so lit never sees it: leave a blank line between the HTML and the fence",
               start, (int)(tag_len > 40 ? 40 : tag_len), tag ? tag : "");
    }
    p = nl ? nl + 1 : end;
  }
}

lit_doc *lit_doc_parse(lit_source *src, size_t order, lit_diags *d) {
  lit_doc *doc = lit_xcalloc(1, sizeof *doc);
  doc->src = *src;
  memset(src, 0, sizeof *src);
  doc->order = order;
  cmark_node *root = cmark_parse_document(doc->src.text, doc->src.len, CMARK_OPT_DEFAULT);
  cmark_iter *it = cmark_iter_new(root);
  cmark_event_type ev;
  size_t bcap = 0, lcap = 0;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    if (ev != CMARK_EVENT_ENTER) continue;
    cmark_node *n = cmark_iter_get_node(it);
    switch (cmark_node_get_type(n)) {
    case CMARK_NODE_CODE_BLOCK: S_add_block(doc, n, &bcap, d); break;
    case CMARK_NODE_HTML_BLOCK: S_check_html(doc, n, d); break;
    case CMARK_NODE_LINK: {
      const char *url = cmark_node_get_url(n);
      if (S_is_absolute_md(url)) {
        cmark_node *blk = n;
        while (blk && cmark_node_get_start_line(blk) == 0)
          blk = cmark_node_parent(blk);
        lit_diag(d, LIT_ERROR, doc->src.path, blk ? cmark_node_get_start_line(blk) : 0,
                 blk ? cmark_node_get_start_column(blk) : 0,
                 "the link to '%s' is an absolute path: lit follows a document only by a path relative to the "
                 "one that links it, and the book would point into the reader's own file system; write it "
                 "relative to this document",
                 url);
      }
      if (S_is_local_md(url)) {
        doc->links = lit_grow(doc->links, &lcap, doc->nlinks + 1, sizeof(lit_link));
        lit_link *l = &doc->links[doc->nlinks++];
        l->url = lit_xstrdup(url);
        /* inline nodes carry no position in cmark-gfm 0.29; use the enclosing block's */
        cmark_node *blk = n;
        while (blk && cmark_node_get_start_line(blk) == 0)
          blk = cmark_node_parent(blk);
        l->line = blk ? cmark_node_get_start_line(blk) : 0;
        l->col = blk ? cmark_node_get_start_column(blk) : 0;
      }
      break;
    }
    default: break;
    }
  }
  cmark_iter_free(it);
  cmark_node_free(root);
  return doc;
}

/* Block o copied into b for doc: its strings borrowed, its code at
 * `code` (o's own copy when o owns its code), its lines `shift` further
 * down, its segments pointing into the new code, or none when the caller
 * segments it again. */
static void S_clone_block(lit_block *b, const lit_block *o, lit_doc *doc, const char *code, int shift, int resegment) {
  *b = *o;
  b->doc = doc;
  b->line += shift;
  b->code_line += shift;
  b->code = o->code_owned ? o->code : code;
  if (resegment) {
    b->segs = NULL;
    b->nsegs = 0;
  } else {
    b->segs = lit_xmalloc((o->nsegs + 1) * sizeof *b->segs);
    for (size_t k = 0; k < o->nsegs; k++) {
      b->segs[k] = o->segs[k];
      b->segs[k].line += shift;
      b->segs[k].text = b->code + (o->segs[k].text - o->code);
      if (o->segs[k].indent) b->segs[k].indent = b->code + (o->segs[k].indent - o->code);
      b->segs[k].target = NULL;
    }
  }
  b->chunk = NULL;
  b->def_index = 0;
}

/* A clone of old for src (taken over): its blocks in one array, not yet
 * filled, and old's links (their URLs borrowed). */
static lit_doc *S_clone_doc(const lit_doc *old, lit_source *src, size_t order) {
  lit_doc *doc = lit_xcalloc(1, sizeof *doc);
  doc->src = *src;
  memset(src, 0, sizeof *src);
  doc->order = order;
  doc->nblocks = old->nblocks;
  doc->blocks = lit_xcalloc(old->nblocks + 1, sizeof *doc->blocks);
  doc->clone_blocks = lit_xcalloc(old->nblocks + 1, sizeof *doc->clone_blocks);
  for (size_t i = 0; i < old->nblocks; i++)
    doc->blocks[i] = &doc->clone_blocks[i];
  doc->nlinks = old->nlinks;
  doc->links = lit_xcalloc(old->nlinks + 1, sizeof *doc->links);
  if (old->nlinks) memcpy(doc->links, old->links, old->nlinks * sizeof *doc->links);
  return doc;
}

lit_doc *lit_doc_clone_onto(const lit_doc *old, lit_source *src, size_t order) {
  lit_doc *ready = old->ahead;
  if (ready && src->text == old->src.text) {
    /* Made ahead on the same bytes: its blocks already point where these
     * would. Taken, it is no longer old's to free (old is const here only
     * as the loader sees it: every document is allocated, and `ahead` is
     * the one field lit_doc_clone_ahead's caller lets change). */
    ((lit_doc *)old)->ahead = NULL;
    lit_source_free(&ready->src);
    ready->src = *src;
    memset(src, 0, sizeof *src);
    ready->order = order;
    return ready;
  }
  lit_doc *doc = S_clone_doc(old, src, order);
  for (size_t i = 0; i < old->nblocks; i++) {
    const lit_block *o = old->blocks[i];
    S_clone_block(doc->blocks[i], o, doc, o->code_owned ? NULL : doc->src.text + (o->code - old->src.text), 0, 0);
  }
  return doc;
}

void lit_doc_clone_ahead(lit_doc *doc) {
  if (doc->ahead) return;
  lit_source src;
  lit_source_borrow(&src, &doc->src);
  lit_doc *ready = lit_doc_clone_onto(doc, &src, doc->order);
  doc->ahead = ready;
}

void lit_doc_drop_ahead(lit_doc *doc) {
  lit_doc_free(doc->ahead);
  doc->ahead = NULL;
}

/* ---- a clone of an edited document ---- */

/* The byte offset where line `line` starts (one past the last line: the end). */
static size_t S_line_off(const lit_source *src, int line) {
  return line >= 1 && (size_t)line <= src->nlines ? src->line_starts[line - 1] : src->len;
}

/* Whether lines [a, a + count) of x hold the same bytes as [b, b + count) of y. */
static int S_same_lines(const lit_source *x, int a, const lit_source *y, int b, int count) {
  if (count <= 0) return 1;
  size_t x0 = S_line_off(x, a), x1 = S_line_off(x, a + count);
  size_t y0 = S_line_off(y, b), y1 = S_line_off(y, b + count);
  return x1 - x0 == y1 - y0 && memcmp(x->text + x0, y->text + y0, x1 - x0) == 0;
}

/* A line that could open or close a fence: three backticks or tildes after
 * its indentation. */
static int S_fence_like(const char *s, size_t len) {
  size_t i = 0;
  while (i < len && S_space(s[i]))
    i++;
  return len - i >= 3 && (s[i] == '`' || s[i] == '~') && s[i + 1] == s[i] && s[i + 2] == s[i];
}

/* Lines of a block's content. */
static int S_content_lines(const lit_block *b) { return (int)lit_lines_count(b->code, b->code_len); }

/* Whether the edits keep old's structure, src being old's text with them
 * made: each inside a top-level block's content, in order, no new line
 * fence-like, every other line the same. */
static int S_edits_fit(const lit_doc *old, const lit_source *src, const lit_doc_edit *e, size_t n) {
  const lit_source *os = &old->src;
  long delta = 0;
  for (size_t i = 0; i < n; i++) {
    const lit_block *b = e[i].block;
    if (b->doc != old || b->code_owned || b->col != 1 || e[i].nold < 0 || e[i].nnew < 0) return 0;
    const int first = b->code_line, end = first + S_content_lines(b);
    if (e[i].line < first || e[i].line + e[i].nold > end) return 0;
    if (i > 0 && (e[i].line < e[i - 1].line + e[i - 1].nold || (e[i].line == e[i - 1].line && e[i - 1].nold == 0) ||
                  b->index < e[i - 1].block->index))
      return 0;
    delta += e[i].nnew - e[i].nold;
  }
  if ((long)src->nlines != (long)os->nlines + delta) return 0;
  int oline = 1, nline = 1;
  for (size_t i = 0; i < n; i++) {
    if (!S_same_lines(os, oline, src, nline, e[i].line - oline)) return 0;
    nline += e[i].line - oline;
    oline = e[i].line;
    for (int k = 0; k < e[i].nnew; k++) {
      size_t len;
      const char *s = lit_source_line(src, nline + k, &len);
      if (!s || S_fence_like(s, len)) return 0;
    }
    oline += e[i].nold;
    nline += e[i].nnew;
  }
  return S_same_lines(os, oline, src, nline, (int)os->nlines - oline + 1);
}

lit_doc *lit_doc_clone_edited(const lit_doc *old, lit_source *src, size_t order, const lit_doc_edit *edits, size_t n,
                              lit_diags *d) {
  if (n == 0 || !S_edits_fit(old, src, edits, n)) return NULL;
  lit_doc *doc = S_clone_doc(old, src, order);
  size_t k = 0;  /* the next edit */
  int shift = 0; /* lines the edits above the current block added */
  for (size_t i = 0; i < old->nblocks; i++) {
    const lit_block *o = old->blocks[i];
    int grow = 0, edited = 0; /* the block's own edits */
    for (; k < n && edits[k].block == o; k++, edited = 1)
      grow += edits[k].nnew - edits[k].nold;
    const char *code = doc->src.text + S_line_off(&doc->src, o->code_line + shift);
    lit_block *b = doc->blocks[i];
    S_clone_block(b, o, doc, code, shift, edited);
    if (edited) {
      b->code_len =
          S_line_off(&doc->src, b->code_line + S_content_lines(o) + grow) - S_line_off(&doc->src, b->code_line);
      if (b->flags & LIT_BLOCK_TANGLED) S_segment(b, d);
    }
    shift += grow;
  }
  /* A link lies outside every block: the edits above it moved it. */
  for (size_t i = 0; i < doc->nlinks; i++)
    for (size_t j = 0; j < n; j++)
      if (edits[j].line < doc->links[i].line) doc->links[i].line += edits[j].nnew - edits[j].nold;
  return doc;
}

void lit_doc_free(lit_doc *doc) {
  if (!doc) return;
  lit_doc_drop_ahead(doc);
  if (doc->clone_blocks) { /* the strings are the original's */
    for (size_t i = 0; i < doc->nblocks; i++)
      free(doc->blocks[i]->segs);
    free(doc->clone_blocks);
    free(doc->blocks);
    free(doc->links);
    lit_source_free(&doc->src);
    free(doc);
    return;
  }
  for (size_t i = 0; i < doc->nblocks; i++) {
    lit_block *b = doc->blocks[i];
    free(b->lang);
    free(b->name);
    free(b->file);
    for (size_t k = 0; k < b->nclasses; k++)
      free(b->classes[k]);
    free(b->classes);
    if (b->code_owned) free((char *)b->code);
    free(b->segs);
    free(b);
  }
  free(doc->blocks);
  for (size_t i = 0; i < doc->nlinks; i++)
    free(doc->links[i].url);
  free(doc->links);
  lit_source_free(&doc->src);
  free(doc);
}

typedef struct {
  lit_source *srcs;
  lit_doc **docs;
  lit_diags **diags;
  size_t first_order;
} S_parse_job;

static void S_parse_one(void *ctx, size_t i) {
  S_parse_job *job = ctx;
  job->docs[i] = lit_doc_parse(&job->srcs[i], job->first_order + i, job->diags[i]);
}

void lit_doc_parse_many(lit_source *srcs, size_t n, size_t first_order, lit_doc **docs, lit_diags *d) {
  S_parse_job job = {srcs, docs, lit_xcalloc(n + 1, sizeof(lit_diags *)), first_order};
  for (size_t i = 0; i < n; i++)
    job.diags[i] = lit_diags_new();
  lit_parallel_for(n, S_parse_one, &job);
  for (size_t i = 0; i < n; i++) {
    lit_diags_append(d, job.diags[i]);
    lit_diags_free(job.diags[i]);
  }
  free(job.diags);
}

#define _POSIX_C_SOURCE 200809L
#include "book.h"

#include <cmark-gfm-core-extensions.h>
#include <stdint.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h> /* strncasecmp */

#include "assets.h"
#include "book_search.h"
#include "highlight.h"
#include "parallel.h"
#include "paths.h"
#include "util.h"
#include "weave.h"

typedef struct {
  const lit_weave *w;
  const lit_wdoc *pg;
  lit_diags *d;
} S_ctx;

static void S_esc(lit_buf *out, const char *s) { lit_html_escape(out, s, strlen(s)); }
/* A page's name as a link's path: percent-encoded, which leaves nothing
 * for HTML to escape. */
static void S_url(lit_buf *out, const char *page) { lit_path_escape(out, page, strlen(page)); }

/* href of block b seen from page `from`. */
static void S_href(const S_ctx *x, const lit_block *b, lit_buf *out) {
  const lit_wdoc *to = lit_weave_page(x->w, b->doc->src.path);
  char *id = lit_weave_block_id(b);
  if (to != x->pg) S_url(out, to->out_path);
  lit_buf_putc(out, '#');
  S_esc(out, id);
  free(id);
}

/* "⟨name⟩" or the file path of block b, for link text. */
static void S_block_name(const lit_block *b, lit_buf *out) {
  if (b->chunk && b->chunk->name) {
    lit_buf_puts(out, "&#10216;");
    S_esc(out, b->chunk->name);
    lit_buf_puts(out, "&#10217;");
  } else if (b->file) {
    lit_buf_puts(out, "<code>");
    S_esc(out, b->file);
    lit_buf_puts(out, "</code>");
  }
}

/* A link to block b named by where it is: "§ Section" on this page, the
 * page's title elsewhere. */
static void S_page_link(const S_ctx *x, const lit_block *b, lit_buf *out) {
  const lit_wdoc *to = lit_weave_page(x->w, b->doc->src.path);
  const lit_heading *sec = to->section[b->index];
  lit_buf_puts(out, "<a href=\"");
  S_href(x, b, out);
  lit_buf_puts(out, "\">");
  if (to == x->pg && sec) {
    lit_buf_puts(out, "&#167;&#160;");
    S_esc(out, sec->text);
  } else {
    S_esc(out, to->title);
  }
  lit_buf_puts(out, "</a>");
}

/* The caption's label: the chunk (and its part) and the file it writes. */
static void S_caption_label(const lit_block *b, const char *id, lit_buf *out) {
  const lit_chunk *c = b->chunk;
  if (c && c->name) {
    lit_buf_puts(out, "<a class=\"label\" href=\"#");
    S_esc(out, id);
    lit_buf_puts(out, "\">");
    S_block_name(b, out);
    lit_buf_puts(out, "</a>");
    if (c->ndefs > 1) lit_buf_printf(out, " <span class=\"part\">part %zu of %zu</span>", b->def_index + 1, c->ndefs);
  }
  if (b->file) {
    if (c && c->name) {
      lit_buf_puts(out, "<span id=\"file-");
      S_esc(out, b->file);
      lit_buf_puts(out, "\"></span>");
    }
    lit_buf_puts(out, c && c->name ? " <span class=\"file\">&#8594; <code>" : "<span class=\"label file\"><code>");
    S_esc(out, b->file);
    lit_buf_puts(out, "</code></span>");
  }
}

/* The caption's cross-references, each written once: "continued from",
 * "continued in", and "used in" on a chunk's first part. */
static void S_caption_xref(const S_ctx *x, const lit_block *b, lit_buf *out) {
  const lit_chunk *c = b->chunk;
  if (!c || !c->name) return;
  lit_buf xref = LIT_BUF_INIT;
  if (b->def_index > 0) {
    lit_buf_puts(&xref, "continued from ");
    S_page_link(x, c->defs[b->def_index - 1], &xref);
  }
  if (b->def_index + 1 < c->ndefs) {
    lit_buf_puts(&xref, xref.len ? " &#183; continued in " : "continued in ");
    S_page_link(x, c->defs[b->def_index + 1], &xref);
  }
  if (b->def_index == 0 && c->nuses) {
    lit_buf_puts(&xref, xref.len ? " &#183; used in " : "used in ");
    const lit_block *last = NULL;
    for (size_t i = 0; i < c->nuses; i++) {
      const lit_block *ub = c->uses[i].block;
      if (ub == last) continue;
      if (last) lit_buf_puts(&xref, ", ");
      last = ub;
      lit_buf_puts(&xref, "<a href=\"");
      S_href(x, ub, &xref);
      lit_buf_puts(&xref, "\">");
      S_block_name(ub, &xref);
      lit_buf_puts(&xref, "</a>");
    }
  }
  if (xref.len) {
    lit_buf_puts(out, "<span class=\"xref\">");
    lit_buf_put(out, xref.data, xref.len);
    lit_buf_puts(out, "</span>");
  }
  lit_buf_free(&xref);
}

/* A tangled block's code, each <<reference>> linked to its definition,
 * then where each included chunk is defined. */
static void S_tangled_code(const S_ctx *x, const lit_block *b, const char *lang, lit_buf *out) {
  lit_buf_puts(out, "<pre tabindex=\"0\"><code class=\"language-");
  S_esc(out, lang);
  lit_buf_puts(out, "\">");
  lit_buf defs = LIT_BUF_INIT;
  const lit_chunk *seen[16];
  size_t nseen = 0;
  for (size_t i = 0; i < b->nsegs; i++) {
    const lit_seg *s = &b->segs[i];
    if (s->kind == LIT_SEG_TEXT) {
      lit_highlight(lang, s->text, s->len, out);
      continue;
    }
    lit_html_escape(out, s->indent, s->indent_len);
    lit_buf_puts(out, "<span class=\"ref\">&#10216;");
    if (s->target) {
      lit_buf_puts(out, "<a href=\"");
      S_href(x, s->target->defs[0], out);
      lit_buf_puts(out, "\" title=\"defined in ");
      S_esc(out, lit_weave_page(x->w, s->target->defs[0]->doc->src.path)->title);
      lit_buf_puts(out, "\">");
    }
    lit_html_escape(out, s->text, s->len);
    if (s->target) lit_buf_puts(out, "</a>");
    lit_buf_puts(out, "&#10217;</span>\n");
    int dup = 0;
    for (size_t k = 0; k < nseen && !dup; k++)
      dup = seen[k] == s->target;
    if (!s->target || dup) continue;
    if (nseen < 16) seen[nseen++] = s->target;
    lit_buf_puts(&defs, defs.len ? "; " : "");
    S_block_name(s->target->defs[0], &defs);
    lit_buf_puts(&defs, " defined in ");
    S_page_link(x, s->target->defs[0], &defs);
  }
  lit_buf_puts(out, "</code></pre>\n");
  if (defs.len) {
    lit_buf_puts(out, "<p class=\"defs\">");
    lit_buf_put(out, defs.data, defs.len);
    lit_buf_puts(out, "</p>\n");
  }
  lit_buf_free(&defs);
}

/* A code block: a tangled one as a captioned, cross-referenced figure; an
 * example captioned as such; any other plain. */
static void S_figure(const S_ctx *x, const lit_block *b, lit_buf *out) {
  const char *lang = b->lang ? b->lang : "text";
  if (b->flags & LIT_BLOCK_TANGLED) {
    char *id = lit_weave_block_id(b);
    lit_buf_puts(out, "<figure class=\"code\" id=\"");
    S_esc(out, id);
    lit_buf_puts(out, "\">\n<figcaption>");
    S_caption_label(b, id, out);
    S_caption_xref(x, b, out);
    lit_buf_puts(out, "</figcaption>\n");
    S_tangled_code(x, b, lang, out);
    lit_buf_puts(out, "</figure>\n");
    free(id);
    return;
  }
  int example = (b->flags & LIT_BLOCK_EXAMPLE) != 0;
  if (example) {
    lit_buf_printf(out,
                   "<figure class=\"code example\" id=\"block-%zu\">\n<figcaption><span class=\"label\">example</span>",
                   b->index);
    lit_buf_puts(out, "</figcaption>\n");
  }
  lit_buf_puts(out, "<pre tabindex=\"0\"><code class=\"language-");
  S_esc(out, lang);
  lit_buf_puts(out, "\">");
  lit_highlight(lang, b->code, b->code_len, out);
  lit_buf_puts(out, "</code></pre>\n");
  if (example) lit_buf_puts(out, "</figure>\n");
}

static int S_line_of(cmark_node *n) {
  while (n && cmark_node_get_start_line(n) == 0)
    n = cmark_node_parent(n);
  return n ? cmark_node_get_start_line(n) : 0;
}

static void S_replace(cmark_node *old, const char *html) {
  cmark_node *n = cmark_node_new(CMARK_NODE_HTML_BLOCK);
  cmark_node_set_literal(n, html);
  cmark_node_replace(old, n);
  cmark_node_free(old);
}

/* A body cell that reads as a number: an optional sign or "~", then a digit
 * ("3.35", "-12%", "1.02x", "80 GB"). */
static int S_numeric_text(const char *t) {
  while (*t == ' ')
    t++;
  if (*t == '~' || *t == '-' || *t == '+' || *t == '<' || *t == '>') t++;
  if (strncmp(t, "\xe2\x89\x88", 3) == 0) t += 3; /* ≈ */
  return *t >= '0' && *t <= '9';
}

/* 1 if the cell is empty or a dash (no value), 0 if numeric, -1 otherwise. */
static int S_cell_kind(cmark_node *cell) {
  lit_buf text = LIT_BUF_INIT;
  for (cmark_node *c = cmark_node_first_child(cell); c; c = cmark_node_next(c)) {
    cmark_node_type t = cmark_node_get_type(c);
    if (t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE)
      lit_buf_puts(&text, cmark_node_get_literal(c));
    else if (t == CMARK_NODE_STRONG || t == CMARK_NODE_EMPH) /* **1.02x** */
      for (cmark_node *g = cmark_node_first_child(c); g; g = cmark_node_next(g))
        if (cmark_node_get_type(g) == CMARK_NODE_TEXT) lit_buf_puts(&text, cmark_node_get_literal(g));
  }
  const char *t = text.data ? text.data : "";
  size_t lead = strspn(t, " ");
  int kind =
      !t[lead] || strcmp(t + lead, "-") == 0 || strcmp(t + lead, "\xe2\x80\x94") == 0 || strcmp(t + lead, "n/a") == 0
          ? 1
      : S_numeric_text(t) ? 0
                          : -1;
  lit_buf_free(&text);
  return kind;
}

/* Right-aligns each column the author left unaligned whose body cells are
 * all numbers (empty cells and dashes aside), so digits line up. */
static void S_align_numbers(cmark_node *table) {
  uint16_t ncols = cmark_gfm_extensions_get_table_columns(table);
  uint8_t *cur = cmark_gfm_extensions_get_table_alignments(table);
  if (!ncols || !cur || ncols > 64) return;
  int numeric[64], seen[64];
  for (int i = 0; i < ncols; i++)
    numeric[i] = !cur[i], seen[i] = 0;
  for (cmark_node *row = cmark_node_first_child(table); row; row = cmark_node_next(row)) {
    if (cmark_gfm_extensions_get_table_row_is_header(row)) continue;
    int col = 0;
    for (cmark_node *cell = cmark_node_first_child(row); cell && col < ncols; cell = cmark_node_next(cell), col++) {
      if (!numeric[col]) continue;
      int k = S_cell_kind(cell);
      if (k < 0) numeric[col] = 0;
      if (k == 0) seen[col] = 1;
    }
  }
  /* in place: the setter copies into a new array and leaks the old one (cmark-gfm 0.29) */
  for (int i = 0; i < ncols; i++)
    if (numeric[i] && seen[i]) cur[i] = 'r';
}

/* A table is as wide as its longest unbroken pieces of text, so a long
 * identifier ("gated_residual_norm_modulate_layer", "torch.nn.RMSNorm") or a
 * number cell held on one line ("3050 (102%)") pushes it past the column.
 * The book marks where such text may break, as one would hyphenate by hand;
 * the browser breaks there only where the table would not fit otherwise. */
enum { S_LONG_WORD = 12 }; /* shorter words fit any column; left whole */

static int S_is_word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* Whether w[i], in a word of len bytes, may start a new line: after "_",
 * "/" or ",", before a "." that starts a name (not a decimal point) or a "("
 * that follows one, and where lowercase turns to uppercase
 * ("LTXVideo|Rotary"). Never within two bytes of either end, so no line
 * holds a lone letter or bracket. */
static int S_break_before(const char *w, size_t i, size_t len) {
  if (i < 2 || i + 2 > len) return 0;
  char a = w[i - 1], b = w[i];
  int name_before = S_is_word_char(a) || a == ']' || a == ')';
  if ((a == '_' || a == '/' || a == ',') && S_is_word_char(b)) return 1;
  if (b == '.' && name_before && ((w[i + 1] >= 'a' && w[i + 1] <= 'z') || (w[i + 1] >= 'A' && w[i + 1] <= 'Z')))
    return 1;
  if (b == '(' && (S_is_word_char(a) || a == '_')) return 1;
  return a >= 'a' && a <= 'z' && b >= 'A' && b <= 'Z';
}

/* Appends s escaped for HTML with its break points; 1 if it marked one. In
 * a cell of a right-aligned column, which keeps its number on one line
 * (style.css), only a space before "(" or after "," may break, and it is
 * marked as a space that wraps; elsewhere a long word gets <wbr>. */
static int S_mark_breaks(lit_buf *out, const char *s, int numeric) {
  int marked = 0;
  size_t n = strlen(s), i = 0;
  while (i < n) {
    if (numeric) {
      size_t j = i;
      while (j < n && !(s[j] == ' ' && ((j > 0 && s[j - 1] == ',') || s[j + 1] == '(')))
        j++;
      lit_html_escape(out, s + i, j - i);
      if (j < n) {
        lit_buf_puts(out, "<span class=\"brk\"> </span>");
        marked = 1;
        j++;
      }
      i = j;
      continue;
    }
    size_t len = strcspn(s + i, " ");
    size_t from = 0;
    if (len >= S_LONG_WORD)
      for (size_t k = 1; k < len; k++)
        if (S_break_before(s + i, k, len)) {
          lit_html_escape(out, s + i + from, k - from);
          lit_buf_puts(out, "<wbr>");
          from = k, marked = 1;
        }
    lit_html_escape(out, s + i + from, len - from);
    i += len;
    size_t sp = strspn(s + i, " ");
    lit_html_escape(out, s + i, sp);
    i += sp;
  }
  return marked;
}

/* Marks the break points of every text and code span in table's cells (see
 * S_mark_breaks): each span that gets one becomes the same HTML with them. */
static void S_table_breaks(cmark_node *table) {
  uint16_t ncols = cmark_gfm_extensions_get_table_columns(table);
  uint8_t *align = cmark_gfm_extensions_get_table_alignments(table);
  cmark_consolidate_text_nodes(table); /* "a_b" is parsed as three texts */
  cmark_node **spans = NULL;
  int *numeric = NULL;
  size_t ns = 0, cs = 0, cn = 0;
  for (cmark_node *row = cmark_node_first_child(table); row; row = cmark_node_next(row)) {
    int header = cmark_gfm_extensions_get_table_row_is_header(row);
    uint16_t col = 0;
    for (cmark_node *cell = cmark_node_first_child(row); cell; cell = cmark_node_next(cell), col++) {
      int num = !header && align && col < ncols && align[col] == 'r';
      cmark_iter *it = cmark_iter_new(cell); /* the cell's spans may sit in links and emphasis */
      cmark_event_type ev;
      while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *n = cmark_iter_get_node(it);
        cmark_node_type t = cmark_node_get_type(n);
        if (ev != CMARK_EVENT_ENTER || (t != CMARK_NODE_TEXT && t != CMARK_NODE_CODE)) continue;
        spans = lit_grow(spans, &cs, ns + 1, sizeof *spans);
        numeric = lit_grow(numeric, &cn, ns + 1, sizeof *numeric);
        spans[ns] = n, numeric[ns++] = num;
      }
      cmark_iter_free(it);
    }
  }
  lit_buf b = LIT_BUF_INIT;
  for (size_t i = 0; i < ns; i++) { /* replaced after the walk, which they would derail */
    int code = cmark_node_get_type(spans[i]) == CMARK_NODE_CODE;
    lit_buf_truncate(&b, 0);
    if (code) lit_buf_puts(&b, "<code>");
    if (!S_mark_breaks(&b, cmark_node_get_literal(spans[i]), numeric[i])) continue;
    if (code) lit_buf_puts(&b, "</code>");
    cmark_node *h = cmark_node_new(CMARK_NODE_HTML_INLINE);
    cmark_node_set_literal(h, b.data);
    cmark_node_replace(spans[i], h);
    cmark_node_free(spans[i]);
  }
  lit_buf_free(&b);
  free(spans);
  free(numeric);
}

/* Renders a table inside a frame that scrolls sideways when the table is
 * wider than the text, even with its text broken where S_table_breaks marks
 * (on a phone; at 1400 px every table of the book fits): focusable, so the
 * keyboard scrolls it too, and named after its section for screen readers. */
static void S_wrap_table(const S_ctx *x, cmark_node *table, const lit_heading *sec, int number) {
  S_align_numbers(table);
  S_table_breaks(table);
  char *html = cmark_render_html(table, CMARK_OPT_UNSAFE, x->w->exts);
  lit_buf b = LIT_BUF_INIT;
  lit_buf_printf(&b, "<div class=\"table-wrap\" tabindex=\"0\" role=\"region\" aria-label=\"Table %d", number);
  if (sec) {
    lit_buf_puts(&b, ": ");
    S_esc(&b, sec->text);
  }
  lit_buf_puts(&b, "\">\n");
  lit_buf_puts(&b, html);
  lit_buf_puts(&b, "</div>\n");
  free(html);
  S_replace(table, b.data);
  lit_buf_free(&b);
}

/* Rewrites links, then anchors headings and renders code blocks, then the
 * rest through cmark. Appends the article's HTML to out. */
/* The nodes of a page's tree that the book rewrites, gathered in one walk
 * before any is changed. */
typedef struct {
  cmark_node **links, **heads, **codes, **tables;
  size_t nl, nh, nc, nt, cl, ch, cc, ct;
  const lit_heading **table_sec; /* the section each table sits in */
  size_t cts;
  cmark_node **quotes; /* block quotes, which may be GitHub alerts */
  size_t nq, cq;
} S_nodes;

/* GitHub's alerts: a block quote whose first line is [!NOTE], [!TIP],
 * [!IMPORTANT], [!WARNING] or [!CAUTION] (any case) becomes a titled box;
 * any other quote stays a quote. */
static void S_alert(cmark_node *quote) {
  static const char *const kinds[][3] = {{"NOTE", "Note", "note"},
                                         {"TIP", "Tip", "tip"},
                                         {"IMPORTANT", "Important", "important"},
                                         {"WARNING", "Warning", "warning"},
                                         {"CAUTION", "Caution", "caution"}};
  cmark_node *para = cmark_node_first_child(quote);
  cmark_node *text = para && cmark_node_get_type(para) == CMARK_NODE_PARAGRAPH ? cmark_node_first_child(para) : NULL;
  const char *lit = text && cmark_node_get_type(text) == CMARK_NODE_TEXT ? cmark_node_get_literal(text) : NULL;
  cmark_node *after = text ? cmark_node_next(text) : NULL;
  if (!lit || (after && cmark_node_get_type(after) != CMARK_NODE_SOFTBREAK &&
               cmark_node_get_type(after) != CMARK_NODE_LINEBREAK))
    return; /* the marker must be the whole first line */
  size_t k = 0, nk = sizeof kinds / sizeof kinds[0];
  while (k < nk && !(lit[0] == '[' && lit[1] == '!' && strncasecmp(lit + 2, kinds[k][0], strlen(kinds[k][0])) == 0 &&
                     strcmp(lit + 2 + strlen(kinds[k][0]), "]") == 0))
    k++;
  if (k == nk) return;
  lit_buf open = LIT_BUF_INIT;
  lit_buf_printf(&open, "<div class=\"alert alert-%s\" role=\"note\">\n<p class=\"alert-title\">%s</p>\n", kinds[k][2],
                 kinds[k][1]);
  cmark_node *box = cmark_node_new(CMARK_NODE_CUSTOM_BLOCK);
  cmark_node_set_on_enter(box, open.data);
  cmark_node_set_on_exit(box, "</div>\n");
  lit_buf_free(&open);
  /* The marker line goes; a paragraph left empty goes too. */
  if (after) cmark_node_free(after);
  cmark_node_free(text);
  if (!cmark_node_first_child(para)) cmark_node_free(para);
  cmark_node *c;
  while ((c = cmark_node_first_child(quote)))
    cmark_node_append_child(box, c);
  cmark_node_replace(quote, box);
  cmark_node_free(quote);
}

static void S_gather(const S_ctx *x, cmark_node *root, S_nodes *g) {
  memset(g, 0, sizeof *g);
  cmark_iter *it = cmark_iter_new(root);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    if (ev != CMARK_EVENT_ENTER) continue;
    cmark_node *n = cmark_iter_get_node(it);
    switch (cmark_node_get_type(n)) {
    case CMARK_NODE_LINK:
    case CMARK_NODE_IMAGE:
      g->links = lit_grow(g->links, &g->cl, g->nl + 1, sizeof *g->links);
      g->links[g->nl++] = n;
      break;
    case CMARK_NODE_HEADING:
      g->heads = lit_grow(g->heads, &g->ch, g->nh + 1, sizeof *g->heads);
      g->heads[g->nh++] = n;
      break;
    case CMARK_NODE_CODE_BLOCK:
      g->codes = lit_grow(g->codes, &g->cc, g->nc + 1, sizeof *g->codes);
      g->codes[g->nc++] = n;
      break;
    case CMARK_NODE_BLOCK_QUOTE:
      g->quotes = lit_grow(g->quotes, &g->cq, g->nq + 1, sizeof *g->quotes);
      g->quotes[g->nq++] = n;
      break;
    default:
      if (strcmp(cmark_node_get_type_string(n), "table") == 0) {
        g->tables = lit_grow(g->tables, &g->ct, g->nt + 1, sizeof *g->tables);
        g->table_sec = lit_grow(g->table_sec, &g->cts, g->nt + 1, sizeof *g->table_sec);
        g->table_sec[g->nt] = g->nh && g->nh <= x->pg->nheads ? &x->pg->heads[g->nh - 1] : NULL;
        g->tables[g->nt++] = n;
      }
      break;
    }
  }
  cmark_iter_free(it);
}

static void S_nodes_free(S_nodes *g) {
  free(g->quotes);
  free(g->links);
  free(g->heads);
  free(g->codes);
  free(g->tables);
  free(g->table_sec);
}

/* Every link checked and rewritten for the book; one that cannot be
 * followed becomes its text. */
static void S_rewrite_links(const S_ctx *x, const S_nodes *g) {
  for (size_t i = 0; i < g->nl; i++) {
    cmark_node *link = g->links[i];
    char *to = NULL;
    int r = lit_weave_link(x->w, x->pg, cmark_node_get_url(link), S_line_of(link), &to, x->d);
    if (r == 1) cmark_node_set_url(link, to);
    if (r < 0) {
      cmark_node *c;
      while ((c = cmark_node_first_child(link)))
        cmark_node_insert_before(link, c);
      cmark_node_free(link);
    }
    free(to);
  }
}

/* Each heading gets its anchor and a link to itself; the page's contents
 * go under its title. 1 if they were placed. */
static int S_anchor_headings(const S_ctx *x, const S_nodes *g, const char *toc) {
  int toc_done = 0;
  for (size_t i = 0; i < g->nh && i < x->pg->nheads; i++) {
    const lit_heading *h = &x->pg->heads[i];
    char *html = cmark_render_html(g->heads[i], CMARK_OPT_UNSAFE, x->w->exts);
    size_t len = strlen(html);
    while (len && html[len - 1] == '\n')
      len--;
    lit_buf b = LIT_BUF_INIT;
    lit_buf_put(&b, html, 3); /* "<h2" */
    lit_buf_puts(&b, " id=\"");
    S_esc(&b, h->slug);
    lit_buf_puts(&b, "\"");
    lit_buf_put(&b, html + 3, len - 3 - 5);
    lit_buf_puts(&b, "<a class=\"anchor\" href=\"#");
    S_esc(&b, h->slug);
    lit_buf_puts(&b, "\" aria-label=\"Link to this section\">#</a>");
    lit_buf_put(&b, html + len - 5, 5);
    lit_buf_putc(&b, '\n');
    if (!toc_done && h->level == 1) { /* the page's own contents, under its title */
      lit_buf_puts(&b, toc);
      toc_done = 1;
    }
    free(html);
    S_replace(g->heads[i], b.data);
    lit_buf_free(&b);
  }
  return toc_done;
}

/* A document's block becomes a placeholder: its figure is written straight
 * into the page (S_fill_figures), so its HTML is neither copied into nor
 * out of cmark. A fence the page's own HTML holds is highlighted here. */
static void S_code_blocks(const S_ctx *x, const S_nodes *g) {
  for (size_t i = 0; i < g->nc; i++) {
    const char *info = cmark_node_get_fence_info(g->codes[i]);
    long k = lit_weave_marker(info, NULL);
    lit_buf b = LIT_BUF_INIT;
    if (k >= 0 && (size_t)k < x->pg->doc->nblocks) {
      lit_buf_printf(&b, "\x02%ld\x03\n", k);
    } else {
      char lang[32] = "text";
      if (info && info[0]) {
        size_t n = strcspn(info, " \t{");
        if (n && n < sizeof lang) {
          memcpy(lang, info, n);
          lang[n] = '\0';
        }
      }
      const char *code = cmark_node_get_literal(g->codes[i]);
      lit_buf_puts(&b, "<pre tabindex=\"0\"><code class=\"language-");
      S_esc(&b, lang);
      lit_buf_puts(&b, "\">");
      lit_highlight(lang, code ? code : "", code ? strlen(code) : 0, &b);
      lit_buf_puts(&b, "</code></pre>\n");
    }
    S_replace(g->codes[i], b.data ? b.data : "");
    lit_buf_free(&b);
  }
}

/* Copies html to out with each block placeholder replaced by its figure. */
static void S_fill_figures(const S_ctx *x, const char *html, lit_buf *out) {
  const char *s = html;
  for (const char *ph; (ph = strchr(s, '\x02'));) {
    lit_buf_put(out, s, (size_t)(ph - s));
    char *end;
    long k = strtol(ph + 1, &end, 10);
    if (*end == '\x03' && k >= 0 && (size_t)k < x->pg->doc->nblocks) {
      S_figure(x, x->pg->doc->blocks[k], out);
      s = end + 1 + (end[1] == '\n');
    } else { /* a \x02 of the author's own: keep it */
      lit_buf_putc(out, *ph);
      s = ph + 1;
    }
  }
  lit_buf_puts(out, s);
}

/* A page's article: its tree with links rewritten, tables framed, headings
 * anchored and code blocks as figures. */
static void S_body(const S_ctx *x, const char *toc, lit_buf *out) {
  cmark_node *root = x->pg->tree;
  S_nodes g;
  S_gather(x, root, &g);
  S_rewrite_links(x, &g);
  for (size_t i = 0; i < g.nq; i++)
    S_alert(g.quotes[i]);
  for (size_t i = 0; i < g.nt; i++) /* after the links inside them are rewritten */
    S_wrap_table(x, g.tables[i], g.table_sec[i], (int)i + 1);
  int toc_done = S_anchor_headings(x, &g, toc);
  S_code_blocks(x, &g);
  S_nodes_free(&g);
  char *html = cmark_render_html(root, CMARK_OPT_UNSAFE, x->w->exts);
  if (!toc_done) lit_buf_puts(out, toc);
  S_fill_figures(x, html, out);
  free(html);
}

/* The page's table of contents: its level 2 and 3 headings. */
static void S_toc(const lit_wdoc *pg, lit_buf *out) {
  size_t n = 0;
  for (size_t i = 0; i < pg->nheads; i++)
    n += pg->heads[i].level == 2 || pg->heads[i].level == 3;
  if (n < 2) return;
  lit_buf_puts(out, "<details class=\"toc\">\n<summary>On this page</summary>\n<ul>\n");
  for (size_t i = 0; i < pg->nheads; i++) {
    const lit_heading *h = &pg->heads[i];
    if (h->level != 2 && h->level != 3) continue;
    lit_buf_printf(out, "<li class=\"l%d\"><a href=\"#", h->level);
    S_esc(out, h->slug);
    lit_buf_puts(out, "\">");
    S_esc(out, h->text);
    lit_buf_puts(out, "</a></li>\n");
  }
  lit_buf_puts(out, "</ul>\n</details>\n");
}

typedef struct {
  const char *path, *title;
} S_nav;

/* The page around the article: S_page_head, the article's HTML, S_page_tail.
 * cur is the page's place in nav (none is marked when it is nnav); source
 * is the document it comes from, NULL for a page of lit's own (404.html). */
static void S_page_head(const char *book_title, const char *page_title, const S_nav *nav, size_t nnav, size_t cur,
                        const char *source, lit_buf *out) {
  lit_buf_puts(out, "<!DOCTYPE html>\n<!-- Generated by lit");
  if (source) {
    lit_buf_puts(out, " from ");
    S_esc(out, source);
    lit_buf_puts(out, ": edit that document, not this file");
  }
  lit_buf_puts(out, ". -->\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
  S_esc(out, page_title);
  if (strcmp(page_title, book_title) != 0) {
    lit_buf_puts(out, " &#8212; ");
    S_esc(out, book_title);
  }
  lit_buf_puts(out, "</title>\n<link rel=\"icon\" href=\"favicon.svg\" type=\"image/svg+xml\">\n"
                    "<link rel=\"stylesheet\" href=\"style.css\">\n<script src=\"book.js\"></script>\n</head>\n"
                    "<body>\n<a class=\"skip\" href=\"#content\">Skip to the text</a>\n"
                    "<header class=\"side\">\n<a class=\"book-title\" href=\"index.html\">");
  S_esc(out, book_title);
  lit_buf_puts(out,
               "</a>\n<button class=\"theme-toggle\" type=\"button\" hidden>Theme</button>\n"
               "<details class=\"menu\">\n<summary>Menu</summary>\n<nav class=\"pages\" aria-label=\"Pages\">\n"
               "<div class=\"search\" role=\"search\" hidden>\n<input id=\"search\" type=\"search\" "
               "placeholder=\"Search (press /)\" aria-label=\"Search the book\" autocomplete=\"off\" "
               "aria-describedby=\"search-status\">\n<p id=\"search-status\" class=\"sr-only\" aria-live=\"polite\">"
               "</p>\n<ul id=\"search-results\" class=\"search-results\" hidden></ul>\n</div>\n<ol>\n");
  for (size_t i = 1; i + 1 < nnav; i++) {
    lit_buf_puts(out, "<li><a href=\"");
    S_url(out, nav[i].path);
    lit_buf_puts(out, i == cur ? "\" aria-current=\"page\">" : "\">");
    S_esc(out, nav[i].title);
    lit_buf_puts(out, "</a></li>\n");
  }
  lit_buf_puts(out, "</ol>\n<p class=\"extra\"><a href=\"");
  S_url(out, nav[nnav - 1].path);
  lit_buf_puts(out, cur == nnav - 1 ? "\" aria-current=\"page\">" : "\">");
  S_esc(out, nav[nnav - 1].title);
  lit_buf_puts(out, "</a><br><a href=\"print.html\">The whole book on one page</a></p>\n</nav>\n</details>\n"
                    "</header>\n<main id=\"content\">\n<article>\n");
}

static void S_page_tail(const S_nav *nav, size_t nnav, size_t cur, const char *source, lit_buf *out) {
  lit_buf_puts(out, "</article>\n");
  if (cur < nnav) {
    lit_buf_puts(out, "<nav class=\"pager\" aria-label=\"Previous and next\">\n");
    if (cur > 0) {
      lit_buf_puts(out, "<a class=\"prev\" rel=\"prev\" href=\"");
      S_url(out, nav[cur - 1].path);
      lit_buf_puts(out, "\">&#8592; ");
      S_esc(out, nav[cur - 1].title);
      lit_buf_puts(out, "</a>\n");
    }
    if (cur + 1 < nnav) {
      lit_buf_puts(out, "<a class=\"next\" rel=\"next\" href=\"");
      S_url(out, nav[cur + 1].path);
      lit_buf_puts(out, "\">");
      S_esc(out, nav[cur + 1].title);
      lit_buf_puts(out, " &#8594;</a>\n");
    }
    lit_buf_puts(out, "</nav>\n");
  }
  if (source) {
    lit_buf_puts(out, "<footer>Woven by lit from <code>");
    S_esc(out, source);
    lit_buf_puts(out, "</code>.</footer>\n");
  } else {
    lit_buf_puts(out, "<footer>Woven by lit.</footer>\n");
  }
  lit_buf_puts(out, "</main>\n</body>\n</html>\n");
}

/* ---- print.html: every page in reading order, on one page ---- */

/* The id a page's own id takes in print.html: "h100-optimization-guide--shared-memory";
 * in a link (`link`), the page's name percent-encoded, as in every href. */
static void S_print_id(const char *page, int link, const char *id, size_t idlen, lit_buf *out) {
  size_t n = strlen(page);
  if (n > 5 && strcmp(page + n - 5, ".html") == 0) n -= 5;
  if (link)
    lit_path_escape(out, page, n);
  else
    lit_html_escape(out, page, n);
  if (idlen) {
    lit_buf_puts(out, "--");
    lit_buf_put(out, id, idlen);
  }
}

/* The book's page that the link path href[0..len) (percent-encoded, as
 * lit writes it) names, or NULL. */
static const char *S_page_of(const S_nav *nav, size_t nnav, const char *href, size_t len) {
  if (memchr(href, '/', len)) return NULL;
  char *name = lit_path_unescape(href, len);
  const char *page = NULL;
  for (size_t i = 0; i + 1 < nnav && !page; i++)
    if (strcmp(nav[i].path, name) == 0) page = nav[i].path;
  free(name);
  return page;
}

/* The next attribute print.html rewrites, ` id="` or ` href="`, at or
 * after s, or NULL; *is_id says which. The article is read once, from
 * start to end: searching for each pattern from s at every step rescanned
 * the rest of a long run of the other (the contents list is all hrefs),
 * n²/2 bytes for n headings, and strstr is quadratic under ASan anyway
 * (its check measures the whole rest of the string). */
static const char *S_next_attr(const char *s, int *is_id) {
  for (; (s = strchr(s, ' ')) != NULL; s++) {
    *is_id = strncmp(s, " id=\"", 5) == 0;
    if (*is_id || strncmp(s, " href=\"", 7) == 0) return s;
  }
  return NULL;
}

/* Copies page `page`'s article into print.html's, giving every id the
 * page's prefix and pointing links to the book's pages at their copies
 * here. The article is lit's own HTML: every attribute is double-quoted and
 * a quote inside text is escaped, so ` id="` and ` href="` only start
 * attributes. */
static void S_print_article(const char *page, const char *html, const S_nav *nav, size_t nnav, lit_buf *out) {
  const char *s = html, *at;
  int is_id;
  while ((at = S_next_attr(s, &is_id)) != NULL) {
    const char *v = at + (is_id ? 5 : 7), *end = strchr(v, '"');
    if (!end) break;
    lit_buf_put(out, s, (size_t)(v - s));
    size_t len = (size_t)(end - v);
    const char *hash = memchr(v, '#', len);
    size_t plen = hash ? (size_t)(hash - v) : len;
    const char *target;
    if (is_id) {
      S_print_id(page, 0, v, len, out);
    } else if (plen == 0 && len > 0) { /* "#x" on this page (len 0: href="", kept as it is) */
      lit_buf_putc(out, '#');
      S_print_id(page, 1, v + 1, len - 1, out);
    } else if ((target = S_page_of(nav, nnav, v, plen)) != NULL) { /* "other.html#x" */
      lit_buf_putc(out, '#');
      S_print_id(target, 1, hash ? hash + 1 : "", hash ? (size_t)(end - hash - 1) : 0, out);
    } else {
      lit_buf_put(out, v, len);
    }
    s = end;
  }
  lit_buf_puts(out, s);
}

static char *S_print_page(const char *title, const S_nav *nav, size_t nnav, lit_buf *articles, size_t *len) {
  lit_buf out = LIT_BUF_INIT;
  S_page_head(title, "The whole book", nav, nnav, nnav, "every document, in reading order", &out);
  for (size_t i = 0; i + 1 < nnav; i++) {
    lit_buf_puts(&out, "<section class=\"print-page\" id=\"");
    S_print_id(nav[i].path, 0, "", 0, &out);
    lit_buf_puts(&out, "\">\n");
    S_print_article(nav[i].path, articles[i].data ? articles[i].data : "", nav, nnav, &out);
    lit_buf_puts(&out, "</section>\n");
  }
  S_page_tail(nav, nnav, nnav, "every document, in reading order", &out);
  *len = out.len;
  return lit_buf_detach(&out);
}

static char *S_not_found_page(const char *title, const S_nav *nav, size_t nnav, size_t *len) {
  lit_buf out = LIT_BUF_INIT;
  S_page_head(title, "Page not found", nav, nnav, nnav, NULL, &out);
  lit_buf_puts(&out, "<h1 id=\"not-found\">Page not found</h1>\n<p>There is no page at this address. Start from "
                     "<a href=\"index.html\">the front page</a>, pick a chapter from the list of pages, or search "
                     "the book.</p>\n");
  S_page_tail(nav, nnav, nnav, NULL, &out);
  *len = out.len;
  return lit_buf_detach(&out);
}

static int S_cmp_file(const void *a, const void *b) {
  return strcmp((*(const lit_file *const *)a)->path, (*(const lit_file *const *)b)->path);
}

/* The index of generated files and of chunks. */
/* "page § Section" for the index: the page by its file name, which stays
 * short where titles do not. */
static void S_where_link(const S_ctx *x, const lit_block *b, lit_buf *out) {
  const lit_wdoc *to = lit_weave_page(x->w, b->doc->src.path);
  const lit_heading *sec = to->section[b->index];
  size_t n = strlen(to->out_path);
  lit_buf_puts(out, "<a href=\"");
  S_href(x, b, out);
  lit_buf_puts(out, "\" title=\"");
  S_esc(out, to->title);
  lit_buf_puts(out, "\">");
  lit_html_escape(out, to->out_path, n > 5 ? n - 5 : n); /* without ".html" */
  if (sec) {
    lit_buf_puts(out, " &#167;&#160;");
    S_esc(out, sec->text);
  }
  lit_buf_puts(out, "</a>");
}

static void S_index_page(const lit_weave *w, lit_buf *out) {
  const lit_project *p = w->p;
  S_ctx x = {w, NULL, NULL};
  lit_buf_puts(out, "<h1 id=\"index\">Index of chunks and files</h1>\n");
  lit_buf_puts(
      out,
      "<h2 id=\"files\">Generated files</h2>\n<p>Every file the tangler writes, and the section "
      "that writes it.</p>\n<div class=\"table-wrap\" tabindex=\"0\" role=\"region\" "
      "aria-label=\"Generated files\">\n<table>\n<thead><tr><th>file</th><th>written by</th></tr></thead>\n<tbody>\n");
  const lit_file **files = lit_xmalloc((p->nfiles + 1) * sizeof *files);
  for (size_t i = 0; i < p->nfiles; i++)
    files[i] = &p->files[i];
  if (p->nfiles) qsort(files, p->nfiles, sizeof *files, S_cmp_file);
  for (size_t i = 0; i < p->nfiles; i++) {
    const lit_file *f = files[i];
    lit_buf_puts(out, "<tr><td><a href=\"");
    S_href(&x, f->block, out);
    lit_buf_puts(out, "\"><code>");
    S_esc(out, f->path);
    lit_buf_puts(out, "</code></a></td><td>");
    S_where_link(&x, f->block, out);
    if (f->root->name) {
      lit_buf_puts(out, " (");
      S_block_name(f->block, out);
      lit_buf_puts(out, ")");
    }
    lit_buf_puts(out, "</td></tr>\n");
  }
  free(files);
  lit_buf_puts(out,
               "</tbody>\n</table>\n</div>\n<h2 id=\"chunks\">Chunks</h2>\n<p>Every named chunk in order of its first "
               "definition: where each part is defined and where the chunk is used.</p>\n<div class=\"table-wrap\" "
               "tabindex=\"0\" role=\"region\" aria-label=\"Chunks\">\n<table>\n"
               "<thead><tr><th>chunk</th><th>defined in</th><th>used in</th></tr></thead>\n<tbody>\n");
  for (size_t i = 0; i < p->nchunks; i++) {
    const lit_chunk *c = p->chunks[i];
    if (c->is_data) continue;
    lit_buf_puts(out, "<tr><td><a href=\"");
    S_href(&x, c->defs[0], out);
    lit_buf_puts(out, "\">");
    S_block_name(c->defs[0], out);
    lit_buf_puts(out, "</a></td><td>");
    for (size_t k = 0; k < c->ndefs; k++) {
      if (k) lit_buf_puts(out, "<br>");
      S_where_link(&x, c->defs[k], out);
    }
    lit_buf_puts(out, "</td><td>");
    const lit_block *last = NULL;
    for (size_t k = 0; k < c->nuses; k++) {
      const lit_block *ub = c->uses[k].block;
      if (ub == last) continue;
      if (last) lit_buf_puts(out, "<br>");
      last = ub;
      lit_buf_puts(out, "<a href=\"");
      S_href(&x, ub, out);
      lit_buf_puts(out, "\">");
      S_block_name(ub, out);
      lit_buf_puts(out, "</a>");
    }
    lit_buf_puts(out, "</td></tr>\n");
  }
  lit_buf_puts(out, "</tbody>\n</table>\n</div>\n");
}

typedef struct {
  const lit_weave *w;
  const char *title;
  const S_nav *nav;
  size_t nnav;
  lit_buf *pages, *articles, *sections;
  lit_diags **diags;
} S_job;

/* Renders page i (on a worker thread: it writes only pages[i], articles[i],
 * sections[i] and diags[i]). */
static void S_render_page(void *ctx, size_t i) {
  S_job *j = ctx;
  const lit_wdoc *pg = &j->w->docs[i];
  S_ctx x = {j->w, pg, j->diags[i]};
  lit_search_sections(pg, &j->sections[i]); /* before S_body replaces nodes of the tree */
  lit_buf toc = LIT_BUF_INIT;
  S_toc(pg, &toc);
  lit_buf_reserve(&j->articles[i], pg->doc->src.len * 3 + 65536); /* highlighted code is about 3x: grow once */
  S_body(&x, toc.data ? toc.data : "", &j->articles[i]);
  lit_buf_reserve(&j->pages[i], j->articles[i].len + 8192);
  S_page_head(j->title, pg->title, j->nav, j->nnav, i, pg->doc->src.path, &j->pages[i]);
  lit_buf_put(&j->pages[i], j->articles[i].data, j->articles[i].len);
  S_page_tail(j->nav, j->nnav, i, pg->doc->src.path, &j->pages[i]);
  lit_buf_free(&toc);
}

/* Adds an embedded asset to the tree under its own name. */
static void S_add_asset(lit_tree *tree, const char *name) {
  const lit_asset *a = lit_asset_get(name);
  lit_tree_add(tree, name, lit_xstrndup((const char *)a->data, a->len), a->len);
}

lit_status lit_book_build(const lit_project *p, lit_tree *tree, lit_diags *d) {
  double t0 = lit_now();
  /* The files the book writes besides the pages: no document may take their names. */
  static const char *const reserved[] = {"chunks.html", "print.html", "404.html",    "search-index.js",
                                         "style.css",   "book.js",    "favicon.svg", NULL};
  lit_weave_opts wo = {NULL, reserved, NULL};
  lit_weave *w = lit_weave_new(p, LIT_WEAVE_BOOK, &wo, d);
  double t1 = lit_now();
  if (!w) return LIT_FAILED;
  const char *title = lit_source_meta(&p->docs[0]->src, "title", NULL);
  if (!title) title = w->docs[0].title;
  size_t nnav = w->ndocs + 1;
  S_nav *nav = lit_xcalloc(nnav, sizeof *nav);
  for (size_t i = 0; i < w->ndocs; i++)
    nav[i] = (S_nav){w->docs[i].out_path, w->docs[i].title};
  nav[w->ndocs] = (S_nav){"chunks.html", "Index of chunks and files"};
  size_t np = w->ndocs + 1;
  S_job job = {w,
               title,
               nav,
               nnav,
               lit_xcalloc(np, sizeof(lit_buf)),
               lit_xcalloc(np, sizeof(lit_buf)),
               lit_xcalloc(np, sizeof(lit_buf)),
               lit_xcalloc(np, sizeof(lit_diags *))};
  for (size_t i = 0; i < w->ndocs; i++)
    job.diags[i] = lit_diags_new();
  lit_parallel_for(w->ndocs, S_render_page, &job);
  for (size_t i = 0; i < w->ndocs; i++) { /* messages in reading order, as if rendered one by one */
    lit_diags_append(d, job.diags[i]);
    lit_diags_free(job.diags[i]);
    size_t n = job.pages[i].len;
    lit_tree_add(tree, w->docs[i].out_path, lit_buf_detach(&job.pages[i]), n);
  }
  size_t n;
  char *print = S_print_page(title, nav, nnav, job.articles, &n);
  lit_tree_add(tree, "print.html", print, n);
  char *missing = S_not_found_page(title, nav, nnav, &n);
  lit_tree_add(tree, "404.html", missing, n);
  lit_buf index = LIT_BUF_INIT;
  lit_search_index(w, job.sections, &index);
  n = index.len;
  lit_tree_add(tree, "search-index.js", lit_buf_detach(&index), n);
  for (size_t i = 0; i < w->ndocs; i++) {
    lit_buf_free(&job.articles[i]);
    lit_buf_free(&job.sections[i]);
  }
  free(job.pages);
  free(job.articles);
  free(job.sections);
  free(job.diags);
  lit_buf page = LIT_BUF_INIT;
  const char *src = "the chunk model of every document";
  S_page_head(title, nav[w->ndocs].title, nav, nnav, w->ndocs, src, &page);
  S_index_page(w, &page);
  S_page_tail(nav, nnav, w->ndocs, src, &page);
  n = page.len;
  lit_tree_add(tree, "chunks.html", lit_buf_detach(&page), n);
  S_add_asset(tree, "style.css");
  S_add_asset(tree, "book.js");
  S_add_asset(tree, "favicon.svg");
  lit_tree_sort(tree);
  free(nav);
  double t2 = lit_now();
  lit_weave_free(w);
  if (getenv("LIT_TIMINGS")) /* where the time goes, for the speed report */
    fprintf(stderr, "lit: book: render and parse %.1f ms, pages %.1f ms, free %.1f ms\n", (t1 - t0) * 1e3,
            (t2 - t1) * 1e3, (lit_now() - t2) * 1e3);
  return lit_diags_count(d, LIT_ERROR) ? LIT_FAILED : LIT_OK;
}

lit_status lit_book_run(const lit_project *p, const lit_book_opts *o, lit_diags *d) {
  lit_tree t = LIT_TREE_INIT;
  lit_status r = lit_book_build(p, &t, d);
  const char *dir = o->out && o->out[0] ? o->out : "book";
  if (r == LIT_OK) {
    if (o->check && lit_weave_check_out_file(p, dir, 0, "--out", d) != 0) {
      r = LIT_FAILED; /* the project's own file: nothing to compare, and `lit book` would refuse it */
    } else if (o->check) {
      size_t n = lit_tree_compare(&t, dir, d);
      if (n)
        lit_diag(d, LIT_NOTE, NULL, 0, 0, "%zu difference%s: run `lit book%s%s` and commit %s/", n, n == 1 ? "" : "s",
                 strcmp(dir, "book") ? " --out " : "", strcmp(dir, "book") ? dir : "", dir);
      r = n ? LIT_DIFFERS : LIT_OK;
    } else {
      double t0 = lit_now();
      int ok = lit_weave_check_out(p, dir, "--out", d) == 0 && lit_tree_install(&t, dir, "chunks.html", 0, d) == 0;
      r = ok ? LIT_OK : LIT_FAILED;
      if (getenv("LIT_TIMINGS")) fprintf(stderr, "lit: book: write %.1f ms\n", (lit_now() - t0) * 1e3);
    }
  }
  lit_tree_free(&t);
  return r;
}

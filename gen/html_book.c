#define _POSIX_C_SOURCE 200809L
#include "html_book.h"

#include <stdio.h>
#include <time.h>

#include <stdlib.h>
#include <string.h>

#include "highlight.h"
#include "parallel.h"
#include "util.h"
#include "weave.h"

static const char *const S_css[] = {
    "/* style.css: the book's only stylesheet (lit writes it; edit gen/html_book.c). */\n",
    ":root{--fg:#1f2328;--muted:#59636e;--bg:#fff;--side:#f6f8fa;--line:#d1d9e0;--code:#f6f8fa;--link:#0959c2;"
    "--kw:#8250df;--ty:#0a7a83;--st:#0a3069;--co:#6e7781;--nu:#0550ae;--pp:#953800;--fn:#6639ba;--va:#953800;--at:#"
    "116329;}\n",
    "@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--bg:#0d1117;--side:#151b23;--line:#3d444d;"
    "--code:#151b23;--link:#4493f8;--kw:#d2a8ff;--ty:#76e3ea;--st:#a5d6ff;--co:#9198a1;--nu:#79c0ff;--pp:#ffa657;"
    "--fn:#d2a8ff;--va:#ffa657;--at:#7ee787;}}\n",
    "*{box-sizing:border-box}\n",
    "html{font-size:16px}\n",
    "body{margin:0;color:var(--fg);background:var(--bg);font:1rem/1.6 system-ui,-apple-system,\"Segoe UI\",Roboto,"
    "\"Helvetica Neue\",Arial,sans-serif}\n",
    "a{color:var(--link);text-decoration:none}a:hover{text-decoration:underline}\n",
    ".skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.5rem}\n",
    ".sidebar{background:var(--side);border-bottom:1px solid var(--line);padding:1rem 1.25rem;font-size:.92rem}\n",
    ".sidebar .book-title{font-weight:600;margin:0 0 .5rem}.sidebar .book-title a{color:var(--fg)}\n",
    ".sidebar ol{margin:0;padding-left:1.4rem}.sidebar li{margin:.15rem 0}\n",
    ".sidebar a[aria-current]{font-weight:600;color:var(--fg);background:var(--bg);border-radius:4px;"
    "box-shadow:inset 3px 0 0 var(--link);padding:.1rem .4rem;margin-left:-.4rem;display:block}\n",
    ".sidebar .extra{margin:.75rem 0 0}\n",
    "main{max-width:52rem;margin:0 auto;padding:1rem 1.25rem 3rem}\n",
    "@media (min-width:64rem){.sidebar{position:fixed;top:0;bottom:0;left:0;width:17rem;overflow-y:auto;"
    "border-bottom:0;border-right:1px solid var(--line)}main{margin-left:17rem;padding:1.5rem 2.5rem 4rem}}\n",
    ".toc{border:1px solid var(--line);border-radius:6px;padding:.6rem 1rem;margin:0 0 1.5rem;font-size:.9rem}\n",
    ".toc summary{font-weight:600;cursor:pointer}.toc ul{margin:.3rem 0 0;padding-left:1.1rem}"
    ".toc .l3{margin-left:1rem;list-style:circle}\n",
    "@media (min-width:96rem){.toc{position:fixed;top:1.5rem;right:1.5rem;width:18rem;max-height:calc(100vh - 3rem);"
    "overflow-y:auto;margin:0}main{margin-left:max(17rem,calc(50vw - 26rem))}}\n",
    "h1,h2,h3,h4{line-height:1.25;margin:1.8rem 0 .8rem}h1{font-size:2rem;margin-top:.5rem}"
    "h2{font-size:1.5rem;border-bottom:1px solid var(--line);padding-bottom:.3rem}h3{font-size:1.2rem}\n",
    ".anchor{margin-left:.4rem;color:var(--muted);visibility:hidden;font-weight:400}"
    "h1:hover .anchor,h2:hover .anchor,h3:hover .anchor,h4:hover .anchor,.anchor:focus{visibility:visible}\n",
    "code{font:.875rem/1.5 ui-monospace,SFMono-Regular,\"SF Mono\",Menlo,Consolas,\"Liberation Mono\",monospace}\n",
    ":not(pre)>code{background:var(--code);padding:.1rem .3rem;border-radius:4px}\n",
    "pre{background:var(--code);border:1px solid var(--line);border-radius:6px;padding:.8rem 1rem;overflow-x:auto;"
    "margin:0 0 1rem}\n",
    "pre code{line-height:1.45}\n"
    "figure.code{margin:1.2rem 0}figure.code pre{margin:0;border-top-left-radius:0;border-top-right-radius:0}\n",
    "figcaption{border:1px solid var(--line);border-bottom:0;border-radius:6px 6px 0 0;padding:.35rem .8rem;"
    "font-size:.85rem;background:var(--side)}\n",
    "figcaption .label{font-weight:600}figcaption .file code{background:none;padding:0}\n",
    "figcaption .xref,.defs{display:block;color:var(--muted);font-size:.82rem}\n",
    ".defs{margin:.3rem 0 0}\n",
    ".ref{font-style:italic}\n",
    ".kw{color:var(--kw)}.ty{color:var(--ty)}.st{color:var(--st)}.co{color:var(--co);font-style:italic}"
    ".nu{color:var(--nu)}.pp{color:var(--pp)}.fn{color:var(--fn)}.va{color:var(--va)}.at{color:var(--at)}\n",
    "table{border-collapse:collapse;margin:0 0 1rem;display:block;overflow-x:auto;font-size:.92rem}\n",
    "th,td{border:1px solid var(--line);padding:.3rem .6rem;text-align:left;vertical-align:top}"
    "th{background:var(--side)}\n",
    "blockquote{margin:0 0 1rem;padding:0 1rem;color:var(--muted);border-left:4px solid var(--line)}\n",
    ".pager{display:flex;justify-content:space-between;gap:1rem;border-top:1px solid var(--line);margin-top:2.5rem;"
    "padding-top:1rem}.pager .next{margin-left:auto;text-align:right}\n",
    "footer{color:var(--muted);font-size:.82rem;margin-top:1.5rem}\n",
    "@media print{.sidebar,.toc,.pager,.anchor,.skip{display:none}main{margin:0;max-width:none;padding:0}"
    "body{font-size:11pt;color:#000;background:#fff}a{color:#000}pre,figure.code,table,img{break-inside:avoid}"
    "h1,h2,h3{break-after:avoid}pre{white-space:pre-wrap;border-color:#999}"
    "pre,figcaption,th,:not(pre)>code{background:#fff}footer{display:none}"
    "table{display:table;width:100%;font-size:9pt}td,th{overflow-wrap:anywhere}@page{margin:1.8cm}}\n",
    NULL};

typedef struct {
  const lit_weave *w;
  const lit_wdoc *pg;
  lit_diags *d;
} S_ctx;

static void S_esc(lit_buf *out, const char *s) { lit_html_escape(out, s, strlen(s)); }

/* href of block b seen from page `from`. */
static void S_href(const S_ctx *x, const lit_block *b, lit_buf *out) {
  const lit_wdoc *to = lit_weave_page(x->w, b->doc->src.path);
  char *id = lit_weave_block_id(b);
  if (to != x->pg) S_esc(out, to->out_path);
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

static void S_figure(const S_ctx *x, const lit_block *b, lit_buf *out) {
  const char *lang = b->lang ? b->lang : "text";
  if (b->flags & LIT_BLOCK_TANGLED) {
    const lit_chunk *c = b->chunk;
    char *id = lit_weave_block_id(b);
    lit_buf_puts(out, "<figure class=\"code\" id=\"");
    S_esc(out, id);
    lit_buf_puts(out, "\">\n<figcaption>");
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
    lit_buf xref = LIT_BUF_INIT;
    if (c && c->name && b->def_index > 0) {
      lit_buf_puts(&xref, "continued from ");
      S_page_link(x, c->defs[b->def_index - 1], &xref);
    }
    if (c && c->name && b->def_index + 1 < c->ndefs) {
      lit_buf_puts(&xref, xref.len ? " &#183; continued in " : "continued in ");
      S_page_link(x, c->defs[b->def_index + 1], &xref);
    }
    if (c && c->name && b->def_index == 0 && c->nuses) {
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
    lit_buf_puts(out, "</figcaption>\n<pre><code class=\"language-");
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
  lit_buf_puts(out, "<pre><code class=\"language-");
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

/* Rewrites links, then anchors headings and renders code blocks, then the
 * rest through cmark. Appends the article's HTML to out. */
static void S_body(const S_ctx *x, const char *toc, lit_buf *out) {
  int toc_done = 0;
  cmark_node *root = x->pg->tree;
  cmark_node **links = NULL, **heads = NULL, **codes = NULL;
  size_t nl = 0, nh = 0, nc = 0, cl = 0, ch = 0, cc = 0;
  cmark_iter *it = cmark_iter_new(root);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    if (ev != CMARK_EVENT_ENTER) continue;
    cmark_node *n = cmark_iter_get_node(it);
    switch (cmark_node_get_type(n)) {
    case CMARK_NODE_LINK:
    case CMARK_NODE_IMAGE:
      links = lit_grow(links, &cl, nl + 1, sizeof *links);
      links[nl++] = n;
      break;
    case CMARK_NODE_HEADING:
      heads = lit_grow(heads, &ch, nh + 1, sizeof *heads);
      heads[nh++] = n;
      break;
    case CMARK_NODE_CODE_BLOCK:
      codes = lit_grow(codes, &cc, nc + 1, sizeof *codes);
      codes[nc++] = n;
      break;
    default: break;
    }
  }
  cmark_iter_free(it);
  for (size_t i = 0; i < nl; i++) {
    char *to = NULL;
    int r = lit_weave_link(x->w, x->pg, cmark_node_get_url(links[i]), S_line_of(links[i]), &to, x->d);
    if (r == 1) cmark_node_set_url(links[i], to);
    if (r < 0) { /* the link becomes its text */
      cmark_node *c;
      while ((c = cmark_node_first_child(links[i])))
        cmark_node_insert_before(links[i], c);
      cmark_node_free(links[i]);
    }
    free(to);
  }
  for (size_t i = 0; i < nh && i < x->pg->nheads; i++) {
    const lit_heading *h = &x->pg->heads[i];
    char *html = cmark_render_html(heads[i], CMARK_OPT_UNSAFE, x->w->exts);
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
    S_replace(heads[i], b.data);
    lit_buf_free(&b);
  }
  for (size_t i = 0; i < nc; i++) {
    const char *info = cmark_node_get_fence_info(codes[i]);
    long k = lit_weave_marker(info, NULL);
    lit_buf b = LIT_BUF_INIT;
    if (k >= 0 && (size_t)k < x->pg->doc->nblocks) {
      /* a placeholder: the figure is written straight into the page below,
       * so its HTML is neither copied into nor out of cmark */
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
      const char *code = cmark_node_get_literal(codes[i]);
      lit_buf_puts(&b, "<pre><code class=\"language-");
      S_esc(&b, lang);
      lit_buf_puts(&b, "\">");
      lit_highlight(lang, code ? code : "", code ? strlen(code) : 0, &b);
      lit_buf_puts(&b, "</code></pre>\n");
    }
    S_replace(codes[i], b.data ? b.data : "");
    lit_buf_free(&b);
  }
  free(links);
  free(heads);
  free(codes);
  char *html = cmark_render_html(root, CMARK_OPT_UNSAFE, x->w->exts);
  if (!toc_done) lit_buf_puts(out, toc);
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
  free(html);
}

/* The page's table of contents: its level 2 and 3 headings. */
static void S_toc(const lit_wdoc *pg, lit_buf *out) {
  size_t n = 0;
  for (size_t i = 0; i < pg->nheads; i++)
    n += pg->heads[i].level == 2 || pg->heads[i].level == 3;
  if (n < 2) return;
  lit_buf_puts(out, "<details class=\"toc\" open>\n<summary>On this page</summary>\n<ul>\n");
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

/* The page around the article: S_page_head, the article's HTML, S_page_tail. */
static void S_page_head(const char *book_title, const S_nav *nav, size_t nnav, size_t cur, const char *source,
                        lit_buf *out) {
  lit_buf_puts(out, "<!DOCTYPE html>\n<!-- Generated by lit from ");
  S_esc(out, source);
  lit_buf_puts(out, ": edit that document, not this file. -->\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
  S_esc(out, nav[cur].title);
  if (cur != 0) {
    lit_buf_puts(out, " &#8212; ");
    S_esc(out, book_title);
  }
  lit_buf_puts(out, "</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n"
                    "<a class=\"skip\" href=\"#content\">Skip to the text</a>\n"
                    "<nav class=\"sidebar\" aria-label=\"Pages\">\n<p class=\"book-title\"><a href=\"index.html\">");
  S_esc(out, book_title);
  lit_buf_puts(out, "</a></p>\n<ol>\n");
  for (size_t i = 1; i + 1 < nnav; i++) {
    lit_buf_puts(out, "<li><a href=\"");
    S_esc(out, nav[i].path);
    lit_buf_puts(out, i == cur ? "\" aria-current=\"page\">" : "\">");
    S_esc(out, nav[i].title);
    lit_buf_puts(out, "</a></li>\n");
  }
  lit_buf_puts(out, "</ol>\n<p class=\"extra\"><a href=\"");
  S_esc(out, nav[nnav - 1].path);
  lit_buf_puts(out, cur == nnav - 1 ? "\" aria-current=\"page\">" : "\">");
  S_esc(out, nav[nnav - 1].title);
  lit_buf_puts(out, "</a></p>\n</nav>\n<main id=\"content\">\n");
  lit_buf_puts(out, "<article>\n");
}

static void S_page_tail(const S_nav *nav, size_t nnav, size_t cur, const char *source, lit_buf *out) {
  lit_buf_puts(out, "</article>\n<nav class=\"pager\" aria-label=\"Previous and next\">\n");
  if (cur > 0) {
    lit_buf_puts(out, "<a class=\"prev\" rel=\"prev\" href=\"");
    S_esc(out, nav[cur - 1].path);
    lit_buf_puts(out, "\">&#8592; ");
    S_esc(out, nav[cur - 1].title);
    lit_buf_puts(out, "</a>\n");
  }
  if (cur + 1 < nnav) {
    lit_buf_puts(out, "<a class=\"next\" rel=\"next\" href=\"");
    S_esc(out, nav[cur + 1].path);
    lit_buf_puts(out, "\">");
    S_esc(out, nav[cur + 1].title);
    lit_buf_puts(out, " &#8594;</a>\n");
  }
  lit_buf_puts(out, "</nav>\n<footer>Woven by lit from <code>");
  S_esc(out, source);
  lit_buf_puts(out, "</code>.</footer>\n</main>\n</body>\n</html>\n");
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
  lit_buf_puts(out,
               "<h2 id=\"files\">Generated files</h2>\n<p>Every file the tangler writes, and the section "
               "that writes it.</p>\n<table>\n<thead><tr><th>file</th><th>written by</th></tr></thead>\n<tbody>\n");
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
  lit_buf_puts(out, "</tbody>\n</table>\n<h2 id=\"chunks\">Chunks</h2>\n<p>Every named chunk in order of its first "
                    "definition: where each part is defined and where the chunk is used.</p>\n<table>\n"
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
  lit_buf_puts(out, "</tbody>\n</table>\n");
}

typedef struct {
  const lit_weave *w;
  const char *title;
  const S_nav *nav;
  size_t nnav;
  lit_buf *pages;
  lit_diags **diags;
} S_job;

/* Renders page i (on a worker thread: it writes only pages[i], diags[i]). */
static void S_render_page(void *ctx, size_t i) {
  S_job *j = ctx;
  const lit_wdoc *pg = &j->w->docs[i];
  S_ctx x = {j->w, pg, j->diags[i]};
  lit_buf toc = LIT_BUF_INIT;
  S_toc(pg, &toc);
  lit_buf_reserve(&j->pages[i], pg->doc->src.len * 3 + 65536); /* highlighted code is about 3x: grow once */
  S_page_head(j->title, j->nav, j->nnav, i, pg->doc->src.path, &j->pages[i]);
  S_body(&x, toc.data ? toc.data : "", &j->pages[i]);
  S_page_tail(j->nav, j->nnav, i, pg->doc->src.path, &j->pages[i]);
  lit_buf_free(&toc);
}

static double S_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int lit_book_build(lit_project *p, lit_tree *tree, lit_diags *d) {
  double t0 = S_now();
  lit_weave *w = lit_weave_new(p, LIT_WEAVE_BOOK, NULL, 0, NULL, d);
  double t1 = S_now();
  if (!w) return -1;
  const char *title = lit_source_meta(&p->docs[0]->src, "title", NULL);
  if (!title) title = w->docs[0].title;
  size_t nnav = w->ndocs + 1;
  S_nav *nav = lit_xcalloc(nnav, sizeof *nav);
  for (size_t i = 0; i < w->ndocs; i++)
    nav[i] = (S_nav){w->docs[i].out_path, w->docs[i].title};
  nav[w->ndocs] = (S_nav){"chunks.html", "Index of chunks and files"};
  S_job job = {
      w, title, nav, nnav, lit_xcalloc(w->ndocs + 1, sizeof(lit_buf)), lit_xcalloc(w->ndocs + 1, sizeof(lit_diags *))};
  for (size_t i = 0; i < w->ndocs; i++)
    job.diags[i] = lit_diags_new();
  lit_parallel_for(w->ndocs, S_render_page, &job);
  for (size_t i = 0; i < w->ndocs; i++) { /* messages in reading order, as if rendered one by one */
    lit_diags_append(d, job.diags[i]);
    lit_diags_free(job.diags[i]);
    size_t n = job.pages[i].len;
    lit_tree_add(tree, w->docs[i].out_path, lit_buf_detach(&job.pages[i]), n);
  }
  free(job.pages);
  free(job.diags);
  lit_buf page = LIT_BUF_INIT;
  const char *src = "the chunk model of every document";
  S_page_head(title, nav, nnav, w->ndocs, src, &page);
  S_index_page(w, &page);
  S_page_tail(nav, nnav, w->ndocs, src, &page);
  size_t n = page.len;
  lit_tree_add(tree, "chunks.html", lit_buf_detach(&page), n);
  lit_buf css = LIT_BUF_INIT;
  for (size_t i = 0; S_css[i]; i++)
    lit_buf_puts(&css, S_css[i]);
  n = css.len;
  lit_tree_add(tree, "style.css", lit_buf_detach(&css), n);
  lit_tree_sort(tree);
  free(nav);
  double t2 = S_now();
  lit_weave_free(w);
  if (getenv("LIT_TIMINGS")) /* where the time goes, for the speed report */
    fprintf(stderr, "lit: book: render and parse %.1f ms, pages %.1f ms, free %.1f ms\n", (t1 - t0) * 1e3,
            (t2 - t1) * 1e3, (S_now() - t2) * 1e3);
  return lit_diags_count(d, LIT_ERROR) ? -1 : 0;
}

int lit_book_run(lit_project *p, const lit_book_opts *o, lit_diags *d) {
  lit_tree t = LIT_TREE_INIT;
  int r = lit_book_build(p, &t, d);
  const char *dir = o->out && o->out[0] ? o->out : "book";
  if (r == 0) {
    if (o->check) {
      size_t n = lit_tree_compare(&t, dir, d);
      if (n)
        lit_diag(d, LIT_NOTE, NULL, 0, 0, "%zu difference%s: run `make book` and commit %s/", n, n == 1 ? "" : "s",
                 dir);
      r = n ? 1 : 0;
    } else {
      double t0 = S_now();
      r = lit_tree_install(&t, dir, "chunks.html", d);
      if (getenv("LIT_TIMINGS")) fprintf(stderr, "lit: book: write %.1f ms\n", (S_now() - t0) * 1e3);
    }
  }
  lit_tree_free(&t);
  return r;
}

/* book_search.c: the text of each section, as the book's search index. */
#include "book_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lit_json_string(lit_buf *out, const char *s, size_t len) {
  lit_buf_putc(out, '"');
  size_t run = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\' && c != '<') continue;
    lit_buf_put(out, s + run, i - run);
    run = i + 1;
    if (c == '"' || c == '\\')
      lit_buf_printf(out, "\\%c", c);
    else if (c == '\n' || c == '\t' || c == '\r')
      lit_buf_putc(out, ' ');
    else
      lit_buf_printf(out, "\\u%04x", c);
  }
  lit_buf_put(out, s + run, len - run);
  lit_buf_putc(out, '"');
}

/* Appends s to text with runs of white space folded into one space. */
static void S_put_words(lit_buf *text, const char *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      if (text->len && text->data[text->len - 1] != ' ') lit_buf_putc(text, ' ');
    } else {
      lit_buf_putc(text, c);
    }
  }
}

static void S_flush(const lit_wdoc *pg, size_t page, const lit_heading *h, lit_buf *text, lit_buf *out) {
  while (text->len && text->data[text->len - 1] == ' ')
    lit_buf_truncate(text, text->len - 1);
  if (h || text->len) {
    lit_buf_printf(out, "[%zu,", page);
    if (h && h->level > 1) /* a page's title leads to the page itself */
      lit_json_string(out, h->slug, strlen(h->slug));
    else
      lit_buf_puts(out, "\"\"");
    lit_buf_putc(out, ',');
    const char *head = h ? h->text : pg->title;
    lit_json_string(out, head, strlen(head));
    lit_buf_putc(out, ',');
    lit_json_string(out, text->data ? text->data : "", text->len);
    lit_buf_puts(out, "],\n");
  }
  lit_buf_truncate(text, 0);
}

void lit_search_sections(const lit_wdoc *pg, size_t page, lit_buf *out) {
  lit_buf text = LIT_BUF_INIT;
  const lit_heading *cur = NULL;
  size_t nh = 0;
  int in_heading = 0;
  cmark_iter *it = cmark_iter_new(pg->tree);
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
    cmark_node *n = cmark_iter_get_node(it);
    cmark_node_type t = cmark_node_get_type(n);
    if (t == CMARK_NODE_HEADING) {
      if (ev == CMARK_EVENT_ENTER) {
        S_flush(pg, page, cur, &text, out);
        cur = nh < pg->nheads ? &pg->heads[nh] : cur;
        nh++;
      }
      in_heading = ev == CMARK_EVENT_ENTER;
      continue;
    }
    if (in_heading) continue; /* the heading's text is the section's title */
    if (ev == CMARK_EVENT_EXIT) {
      if ((t & CMARK_NODE_TYPE_MASK) == CMARK_NODE_TYPE_BLOCK)
        S_put_words(&text, " ", 1); /* blocks and cells end words */
      continue;
    }
    const char *lit = NULL;
    size_t len = 0;
    if (t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE) {
      lit = cmark_node_get_literal(n);
    } else if (t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK) {
      lit = " ";
    } else if (t == CMARK_NODE_CODE_BLOCK) {
      long k = lit_weave_marker(cmark_node_get_fence_info(n), NULL);
      if (k >= 0 && (size_t)k < pg->doc->nblocks) { /* the woven fence may hold no body: take the block's */
        const lit_block *b = pg->doc->blocks[k];
        S_put_words(&text, b->code, b->code_len);
        S_put_words(&text, " ", 1);
        continue;
      }
      lit = cmark_node_get_literal(n);
    }
    if (lit) {
      len = strlen(lit);
      S_put_words(&text, lit, len);
    }
  }
  cmark_iter_free(it);
  S_flush(pg, page, cur, &text, out);
  lit_buf_free(&text);
}

void lit_search_index(const lit_weave *w, const lit_buf *sections, lit_buf *out) {
  lit_buf_puts(out, "/* search-index.js: the book's search index (lit writes it from the documents). */\n"
                    "litSearchIndex({\"pages\":[\n");
  for (size_t i = 0; i < w->ndocs; i++) {
    lit_buf_putc(out, '[');
    lit_json_string(out, w->docs[i].out_path, strlen(w->docs[i].out_path));
    lit_buf_putc(out, ',');
    lit_json_string(out, w->docs[i].title, strlen(w->docs[i].title));
    lit_buf_puts(out, i + 1 < w->ndocs ? "],\n" : "]\n");
  }
  lit_buf_puts(out, "],\"sections\":[\n");
  size_t start = out->len;
  for (size_t i = 0; i < w->ndocs; i++)
    if (sections[i].len) lit_buf_put(out, sections[i].data, sections[i].len);
  if (out->len > start) lit_buf_truncate(out, out->len - 2); /* the last ",\n" */
  lit_buf_puts(out, "\n]});\n");
}

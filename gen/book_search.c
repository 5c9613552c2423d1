/* book_search.c: the book's search index: each section's text, and the
 * dictionary of stemmed terms that finds it (book_search.h says how words
 * are cut and stemmed; book.js reads the index and applies the same rules to
 * the query). */
#include "book_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

/* s[0..len) as a JSON string, "<" escaped so it is safe in HTML too; a line
 * break stays one ("\n") when lines is set, else it becomes a space, like a
 * tab and a carriage return. */
static void S_json(lit_buf *out, const char *s, size_t len, int lines) {
  lit_buf_putc(out, '"');
  size_t run = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\' && c != '<') continue;
    lit_buf_put(out, s + run, i - run);
    run = i + 1;
    if (c == '"' || c == '\\')
      lit_buf_printf(out, "\\%c", c);
    else if (c == '\n' && lines)
      lit_buf_puts(out, "\\n");
    else if (c == '\n' || c == '\t' || c == '\r')
      lit_buf_putc(out, ' ');
    else
      lit_buf_printf(out, "\\u%04x", c);
  }
  lit_buf_put(out, s + run, len - run);
  lit_buf_putc(out, '"');
}

void lit_json_string(lit_buf *out, const char *s, size_t len) { S_json(out, s, len, 0); }

/* ---- the stemmer ---- */

/* A rule replaces a word's suffix. The rules come in three steps, applied in
 * order; in each step the first rule whose suffix ends the word and whose
 * conditions hold is applied, and ends the step (a rule whose replacement is
 * its suffix keeps the word as it is). Conditions: the stem (the word without
 * the suffix) has at least `min` letters; S_VOWEL: the stem holds a vowel (a
 * e i o u y); S_UNDOUBLE: after the replacement, a doubled final consonant
 * other than l, s or z is made single when the word keeps four letters or
 * more ("padding" -> pad). No replacement is longer than its suffix.
 *
 * So "tile", "tiles", "tiled", "tiling" are all "til"; "use", "used",
 * "using" "us"; "quantize", "quantized", "quantization" "quantiz";
 * "conflicts" "conflict"; "GPUs" "gpu" but "status" stays. Known misses:
 * irregular forms (index/indices, hang/hung), -ation nouns of verbs not in
 * -ate (computation/compute), and roots that end in -ed ("embed" -> emb,
 * "embedded" -> embed). */
enum { S_VOWEL = 1, S_UNDOUBLE = 2 };

typedef struct {
  int step;
  const char *suffix, *repl;
  int min, flags;
} S_rule;

static const S_rule S_rules[] = {
    /* step 1: plurals and verb endings */
    {1, "sses", "ss", 0, 0},                 /* classes -> class */
    {1, "ies", "y", 2, 0},                   /* entries -> entry */
    {1, "ied", "y", 2, 0},                   /* copied -> copy */
    {1, "ss", "ss", 0, 0},                   /* class stays */
    {1, "us", "us", 3, 0},                   /* status stays; GPUs (stem "gp") goes on to "s" */
    {1, "is", "is", 2, 0},                   /* this, axis stay */
    {1, "ias", "ias", 1, 0},                 /* bias, alias stay; CTAs goes on to "s" */
    {1, "eed", "eed", 1, 0},                 /* speed, need stay */
    {1, "s", "", 2, 0},                      /* tiles -> tile, ops -> op */
    {1, "ing", "", 2, S_VOWEL | S_UNDOUBLE}, /* tiling -> til, padding -> pad; string stays */
    {1, "ed", "", 2, S_VOWEL | S_UNDOUBLE},  /* tiled -> til, used -> us; shed stays */
    /* step 2: -ation nouns to their verb */
    {2, "ization", "ize", 1, 0}, /* quantization -> quantize */
    {2, "isation", "ize", 1, 0}, /* specialisation -> specialize */
    {2, "ation", "ate", 2, 0},   /* activation -> activate */
    /* step 3: a final e, so that "tile" meets "tiling" */
    {3, "e", "", 2, 0},
};

static int S_vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y'; }

size_t lit_search_stem(char *w, size_t len) {
  size_t nrules = sizeof S_rules / sizeof S_rules[0];
  for (int step = 1; step <= 3; step++) {
    for (size_t r = 0; r < nrules; r++) {
      const S_rule *rule = &S_rules[r];
      size_t sl = strlen(rule->suffix);
      if (rule->step != step || sl > len || memcmp(w + len - sl, rule->suffix, sl) != 0) continue;
      size_t stem = len - sl;
      if (stem < (size_t)rule->min) continue;
      if (rule->flags & S_VOWEL) {
        size_t v = 0;
        while (v < stem && !S_vowel(w[v]))
          v++;
        if (v == stem) continue;
      }
      size_t rl = strlen(rule->repl);
      memcpy(w + stem, rule->repl, rl);
      len = stem + rl;
      if ((rule->flags & S_UNDOUBLE) && len >= 4 && w[len - 1] == w[len - 2] && !S_vowel(w[len - 1]) &&
          w[len - 1] != 'l' && w[len - 1] != 's' && w[len - 1] != 'z')
        len--;
      break;
    }
  }
  return len;
}

/* ---- words and terms ---- */

static int S_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static int S_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
static int S_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
static int S_alpha(unsigned char c) { return S_upper(c) || S_lower(c); }
static int S_alnum(unsigned char c) { return S_digit(c) || S_alpha(c); }

/* The end of the word that starts at t[i], a letter or digit. */
static size_t S_word_end(const char *t, size_t len, size_t i) {
  const unsigned char *u = (const unsigned char *)t;
  while (i < len) {
    if (S_alnum(u[i])) {
      i++;
    } else if (i + 1 < len && S_alnum(u[i + 1]) &&
               (u[i] == '-' || u[i] == '_' || (u[i] == '.' && S_alpha(u[i - 1]) && S_alpha(u[i + 1])))) {
      i++; /* a join; t[i - 1] is a letter or digit, since the word started with one */
    } else {
      break;
    }
  }
  return i;
}

/* Whether a word's part ends before t[k] (t[k - 1] and t[k] letters or
 * digits, the word ending at end): a lower case letter or a digit before a
 * capital ("splitK", "FP8Linear": a digit only when the capital starts a
 * lower case run), or the last capital of a run that starts a lower case
 * word of two letters or more ("RMSNorm", not "GPUs"). */
static int S_case_cut(const char *t, size_t k, size_t end) {
  const unsigned char *u = (const unsigned char *)t;
  if (!S_upper(u[k])) return 0;
  if (S_lower(u[k - 1])) return 1;
  if (S_digit(u[k - 1])) return k + 1 < end && S_lower(u[k + 1]);
  return S_upper(u[k - 1]) && k + 2 < end && S_lower(u[k + 1]) && S_lower(u[k + 2]);
}

typedef struct {
  lit_buf raw, stem;
} S_scratch;

static void S_term(S_scratch *s, const char *raw, size_t len, size_t start, size_t end, int joined,
                   void (*fn)(void *, const lit_search_term *), void *ctx) {
  lit_buf_truncate(&s->stem, 0);
  lit_buf_put(&s->stem, raw, len);
  size_t n = lit_search_stem(s->stem.data, len);
  lit_search_term t = {s->stem.data, raw, n, len, start, end, joined};
  fn(ctx, &t);
}

void lit_search_terms(const char *text, size_t len, void (*fn)(void *ctx, const lit_search_term *t), void *ctx) {
  S_scratch s = {LIT_BUF_INIT, LIT_BUF_INIT};
  size_t i = 0;
  while (i < len) {
    if (!S_alnum((unsigned char)text[i])) {
      i++;
      continue;
    }
    size_t end = S_word_end(text, len, i), from = i, parts = 0;
    lit_buf_truncate(&s.raw, 0);
    for (size_t k = i + 1;; k++) {
      int join = k < end && !S_alnum((unsigned char)text[k]);
      if (k < end && !join && !S_case_cut(text, k, end)) continue;
      size_t at = s.raw.len;
      for (size_t c = from; c < k; c++) /* lowercased, after the parts before it */
        lit_buf_putc(&s.raw, (char)(S_upper((unsigned char)text[c]) ? text[c] + ('a' - 'A') : text[c]));
      S_term(&s, s.raw.data + at, k - from, from, k, 0, fn, ctx);
      parts++;
      if (k == end) break;
      from = join ? k + 1 : k;
    }
    if (parts > 1) S_term(&s, s.raw.data, s.raw.len, i, end, 1, fn, ctx);
    i = end;
  }
  lit_buf_free(&s.raw);
  lit_buf_free(&s.stem);
}

/* ---- each page's sections ---- */

static int S_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

/* Ends the text's current line: trailing spaces go, one '\n' stays. */
static void S_line_end(lit_buf *text) {
  while (text->len && text->data[text->len - 1] == ' ')
    lit_buf_truncate(text, text->len - 1);
  if (text->len && text->data[text->len - 1] != '\n') lit_buf_putc(text, '\n');
}

/* Appends s to text with runs of white space folded into one space (none at
 * a line's start); in code (lines), a line break ends the line. */
static void S_put_words(lit_buf *text, const char *s, size_t len, int lines) {
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (lines && c == '\n') {
      S_line_end(text);
    } else if (S_space(c)) {
      if (text->len && text->data[text->len - 1] != ' ' && text->data[text->len - 1] != '\n') lit_buf_putc(text, ' ');
    } else {
      lit_buf_putc(text, c);
    }
  }
}

/* A section, as lit_search_index reads it back: a line "ANCHOR_LEN
 * HEADING_LEN TEXT_LEN", then the three strings. */
static void S_flush(const lit_wdoc *pg, const lit_heading *h, lit_buf *text, lit_buf *out) {
  while (text->len && S_space(text->data[text->len - 1]))
    lit_buf_truncate(text, text->len - 1);
  if (h || text->len) {
    const char *anchor = h && h->level > 1 ? h->slug : ""; /* a page's title leads to the page itself */
    const char *head = h ? h->text : pg->title;
    lit_buf_printf(out, "%zu %zu %zu\n", strlen(anchor), strlen(head), text->len);
    lit_buf_puts(out, anchor);
    lit_buf_puts(out, head);
    lit_buf_put(out, text->data ? text->data : "", text->len);
  }
  lit_buf_truncate(text, 0);
}

void lit_search_sections(const lit_wdoc *pg, lit_buf *out) {
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
        S_flush(pg, cur, &text, out);
        cur = nh < pg->nheads ? &pg->heads[nh] : cur;
        nh++;
      }
      in_heading = ev == CMARK_EVENT_ENTER;
      continue;
    }
    if (in_heading) continue; /* the heading's text is the section's title */
    if (ev == CMARK_EVENT_EXIT) {
      if ((t & CMARK_NODE_TYPE_MASK) == CMARK_NODE_TYPE_BLOCK) { /* a block ends a line; a table cell a word */
        if (strcmp(cmark_node_get_type_string(n), "table_cell") == 0)
          S_put_words(&text, " ", 1, 0);
        else
          S_line_end(&text);
      }
      continue;
    }
    const char *lit = NULL;
    if (t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE) {
      lit = cmark_node_get_literal(n);
    } else if (t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK) {
      lit = " ";
    } else if (t == CMARK_NODE_CODE_BLOCK) {
      long k = lit_weave_marker(cmark_node_get_fence_info(n), NULL);
      if (k >= 0 && (size_t)k < pg->doc->nblocks) { /* the woven fence may hold no body: take the block's */
        const lit_block *b = pg->doc->blocks[k];
        S_put_words(&text, b->code, b->code_len, 1);
        S_line_end(&text);
        continue;
      }
      lit = cmark_node_get_literal(n);
      if (lit) S_put_words(&text, lit, strlen(lit), 1);
      continue;
    }
    if (lit) S_put_words(&text, lit, strlen(lit), 0);
  }
  cmark_iter_free(it);
  S_flush(pg, cur, &text, out);
  lit_buf_free(&text);
}

/* ---- the dictionary ---- */

typedef struct {
  size_t section, count; /* count: in the text */
  unsigned fields;       /* S_IN_* */
} S_post;

typedef struct {
  char *term;
  S_post *post;
  size_t npost, cap;
} S_entry;

enum { S_IN_TEXT = 1, S_IN_HEADING = 2, S_IN_TITLE = 4 };

typedef struct {
  lit_index ids; /* term -> place in terms */
  S_entry *terms;
  size_t nterms, cap;
  lit_index words; /* a word whose stem differs from it -> its term's place */
  char **wordv;
  size_t nwords, wcap;
  size_t section; /* being read */
  unsigned field;
} S_dict;

static void S_add(void *ctx, const lit_search_term *t) {
  S_dict *d = ctx;
  size_t id;
  if (!lit_index_get(&d->ids, t->stem, t->stem_len, &id)) {
    d->terms = lit_grow(d->terms, &d->cap, d->nterms + 1, sizeof *d->terms);
    id = d->nterms++;
    d->terms[id] = (S_entry){lit_xstrndup(t->stem, t->stem_len), NULL, 0, 0};
    lit_index_put(&d->ids, d->terms[id].term, id);
  }
  S_entry *e = &d->terms[id];
  if (!e->npost || e->post[e->npost - 1].section != d->section) {
    e->post = lit_grow(e->post, &e->cap, e->npost + 1, sizeof *e->post);
    e->post[e->npost++] = (S_post){d->section, 0, 0};
  }
  S_post *p = &e->post[e->npost - 1];
  p->fields |= d->field;
  if (d->field == S_IN_TEXT) p->count++;
  size_t w;
  if ((t->raw_len != t->stem_len || memcmp(t->raw, t->stem, t->raw_len) != 0) &&
      !lit_index_get(&d->words, t->raw, t->raw_len, &w)) {
    d->wordv = lit_grow(d->wordv, &d->wcap, d->nwords + 1, sizeof *d->wordv);
    d->wordv[d->nwords] = lit_xstrndup(t->raw, t->raw_len);
    lit_index_put(&d->words, d->wordv[d->nwords], id);
    d->nwords++;
  }
}

static void S_b36(lit_buf *out, size_t n) {
  char digits[32];
  size_t k = 0;
  do {
    digits[k++] = "0123456789abcdefghijklmnopqrstuvwxyz"[n % 36];
    n /= 36;
  } while (n);
  while (k)
    lit_buf_putc(out, digits[--k]);
}

static int S_by_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A term's sections, as book.js reads them: entries joined by ',', each the
 * section's distance from the one before (base 36; the first its number),
 * then ".F" when the fields F are not the text alone (1 text, 2 heading, 4
 * the page's title), then ":N" when the text holds the term N > 1 times. */
static void S_postings(const S_entry *e, lit_buf *out) {
  lit_buf_putc(out, '"');
  size_t prev = 0;
  for (size_t i = 0; i < e->npost; i++) {
    const S_post *p = &e->post[i];
    if (i) lit_buf_putc(out, ',');
    S_b36(out, p->section - prev);
    prev = p->section;
    if (p->fields != S_IN_TEXT) lit_buf_printf(out, ".%u", p->fields);
    if (p->count > 1) {
      lit_buf_putc(out, ':');
      S_b36(out, p->count);
    }
  }
  lit_buf_putc(out, '"');
}

typedef struct {
  size_t page;
  const char *anchor, *heading, *text;
  size_t alen, hlen, tlen;
} S_section;

/* Reads back the sections S_flush wrote. */
static S_section *S_read_sections(const lit_weave *w, const lit_buf *sections, size_t *count) {
  S_section *v = NULL;
  size_t n = 0, cap = 0;
  for (size_t i = 0; i < w->ndocs; i++) {
    const char *s = sections[i].data;
    if (!s) continue; /* a document with no section: no buffer at all */
    const char *end = s + sections[i].len;
    while (s < end) {
      char *p;
      S_section x = {i, NULL, NULL, NULL, 0, 0, 0};
      x.alen = strtoul(s, &p, 10);
      x.hlen = strtoul(p, &p, 10);
      x.tlen = strtoul(p, &p, 10);
      x.anchor = p + 1; /* past the '\n' */
      x.heading = x.anchor + x.alen;
      x.text = x.heading + x.hlen;
      s = x.text + x.tlen;
      v = lit_grow(v, &cap, n + 1, sizeof *v);
      v[n++] = x;
    }
  }
  *count = n;
  return v;
}

static void S_rules_json(lit_buf *out) {
  lit_buf_puts(out, "\"stem\":[");
  for (size_t r = 0; r < sizeof S_rules / sizeof S_rules[0]; r++) {
    const S_rule *x = &S_rules[r];
    lit_buf_printf(out, "%s[%d,\"%s\",\"%s\",%d,%d]", r ? "," : "", x->step, x->suffix, x->repl, x->min, x->flags);
  }
  lit_buf_puts(out, "],\n");
}

void lit_search_index(const lit_weave *w, const lit_buf *sections, lit_buf *out) {
  size_t nsec;
  S_section *sec = S_read_sections(w, sections, &nsec);
  lit_buf_puts(out, "/* search-index.js: the book's search index (lit writes it from the documents). */\n"
                    "litSearchIndex({\"version\":2,\n");
  S_rules_json(out);
  lit_buf_puts(out, "\"pages\":[\n");
  for (size_t i = 0; i < w->ndocs; i++) {
    lit_buf_putc(out, '[');
    lit_buf url = LIT_BUF_INIT; /* book.js makes it an href */
    lit_path_escape(&url, w->docs[i].out_path, strlen(w->docs[i].out_path));
    lit_json_string(out, url.data, url.len);
    lit_buf_free(&url);
    lit_buf_putc(out, ',');
    lit_json_string(out, w->docs[i].title, strlen(w->docs[i].title));
    lit_buf_puts(out, i + 1 < w->ndocs ? "],\n" : "]\n");
  }
  lit_buf_puts(out, "],\n\"sections\":[\n");
  for (size_t k = 0; k < nsec; k++) {
    lit_buf_printf(out, "[%zu,", sec[k].page);
    lit_json_string(out, sec[k].anchor, sec[k].alen);
    lit_buf_putc(out, ',');
    lit_json_string(out, sec[k].heading, sec[k].hlen);
    lit_buf_putc(out, ',');
    S_json(out, sec[k].text, sec[k].tlen, 1); /* its lines: the snippets' sentences end there */
    lit_buf_puts(out, k + 1 < nsec ? "],\n" : "]\n");
  }

  S_dict d = {LIT_INDEX_INIT, NULL, 0, 0, LIT_INDEX_INIT, NULL, 0, 0, 0, 0};
  for (size_t k = 0; k < nsec; k++) {
    const char *title = w->docs[sec[k].page].title;
    d.section = k;
    d.field = S_IN_TITLE;
    lit_search_terms(title, strlen(title), S_add, &d);
    d.field = S_IN_HEADING;
    lit_search_terms(sec[k].heading, sec[k].hlen, S_add, &d);
    d.field = S_IN_TEXT;
    lit_search_terms(sec[k].text, sec[k].tlen, S_add, &d);
  }
  /* the terms in byte order (book.js finds a prefix by bisection), and each one's place in that order */
  char **order = lit_xcalloc(d.nterms + 1, sizeof *order);
  for (size_t i = 0; i < d.nterms; i++)
    order[i] = d.terms[i].term;
  qsort(order, d.nterms, sizeof *order, S_by_text);
  lit_index rank = LIT_INDEX_INIT;
  for (size_t i = 0; i < d.nterms; i++)
    lit_index_put(&rank, order[i], i);
  lit_buf_puts(out, "],\n\"terms\":\"");
  for (size_t i = 0; i < d.nterms; i++) {
    if (i) lit_buf_putc(out, ' ');
    lit_buf_puts(out, order[i]);
  }
  lit_buf_puts(out, "\",\n\"post\":[\n");
  for (size_t i = 0; i < d.nterms; i++) {
    size_t id;
    lit_index_get(&d.ids, order[i], strlen(order[i]), &id);
    S_postings(&d.terms[id], out);
    lit_buf_puts(out, i + 1 < d.nterms ? ",\n" : "\n");
  }
  /* the words whose stem differs from them, for the prefix of a word being typed ("conflicti") */
  if (d.nwords) qsort(d.wordv, d.nwords, sizeof *d.wordv, S_by_text); /* wordv is NULL when there are none */
  lit_buf_puts(out, "],\n\"words\":\"");
  for (size_t i = 0; i < d.nwords; i++) {
    if (i) lit_buf_putc(out, ' ');
    lit_buf_puts(out, d.wordv[i]);
  }
  lit_buf_puts(out, "\",\n\"wordTerms\":\"");
  for (size_t i = 0; i < d.nwords; i++) {
    size_t id, r = 0;
    lit_index_get(&d.words, d.wordv[i], strlen(d.wordv[i]), &id);
    lit_index_get(&rank, d.terms[id].term, strlen(d.terms[id].term), &r);
    if (i) lit_buf_putc(out, ',');
    S_b36(out, r);
  }
  lit_buf_puts(out, "\"});\n");

  lit_index_free(&rank);
  free(order);
  for (size_t i = 0; i < d.nterms; i++) {
    free(d.terms[i].term);
    free(d.terms[i].post);
  }
  free(d.terms);
  lit_index_free(&d.ids);
  for (size_t i = 0; i < d.nwords; i++)
    free(d.wordv[i]);
  free(d.wordv);
  lit_index_free(&d.words);
  free(sec);
}

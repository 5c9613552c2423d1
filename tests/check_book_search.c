/* check_book_search.c: the book search's words (tokenizer, stemmer) and its
 * index (search-index.js): sections, their text, the dictionary. */
#include "check_lit.h"

#include "book.h"
#include "book_search.h"

/* The stem of a word, as a fresh string. */
static char *S_stem(const char *word) {
  char *w = lit_xstrdup(word);
  w[lit_search_stem(w, strlen(w))] = '\0';
  return w;
}

static void S_collect(void *ctx, const lit_search_term *t) {
  lit_buf *out = ctx;
  if (out->len) lit_buf_putc(out, ' ');
  if (t->joined) lit_buf_putc(out, '+');
  lit_buf_put(out, t->stem, t->stem_len);
}

/* The terms of text as search_words.txt writes them: "split k +splitk". */
static char *S_terms(const char *text, size_t len) {
  lit_buf out = LIT_BUF_INIT;
  lit_search_terms(text, len, S_collect, &out);
  return lit_buf_detach(&out);
}

/* Every line of tests/search_words.txt: the list book.js is held to as well. */
START_TEST(test_search_words_file) {
  lit_buf f = LIT_BUF_INIT;
  ck_assert_int_eq(lit_read_file("search_words.txt", &f), 0);
  size_t checked = 0;
  char *save = NULL;
  for (char *line = strtok_r(f.data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if (line[0] == '#' || line[0] == '\0') continue;
    if (strncmp(line, "stem ", 5) == 0) {
      char word[64], want[64];
      ck_assert_int_eq(sscanf(line + 5, "%63s %63s", word, want), 2);
      char *got = S_stem(word);
      ck_assert_msg(strcmp(got, want) == 0, "stem %s: %s, want %s", word, got, want);
      free(got);
    } else if (strncmp(line, "terms ", 6) == 0) {
      char *arrow = strstr(line, " => ");
      ck_assert_msg(arrow != NULL, "%s", line);
      char *got = S_terms(line + 6, (size_t)(arrow - line - 6));
      ck_assert_msg(strcmp(got, arrow + 4) == 0, "terms of \"%.*s\": \"%s\", want \"%s\"", (int)(arrow - line - 6),
                    line + 6, got, arrow + 4);
      free(got);
    } else if (strncmp(line, "same ", 5) == 0) {
      char *words = lit_xstrdup(line + 5), *ws = NULL, *first = NULL;
      for (char *w = strtok_r(words, " ", &ws); w; w = strtok_r(NULL, " ", &ws)) {
        char *s = S_stem(w);
        if (!first)
          first = s;
        else {
          ck_assert_msg(strcmp(s, first) == 0, "%s: %s stems to %s, the first word to %s", line, w, s, first);
          free(s);
        }
      }
      free(first);
      free(words);
    } else {
      ck_abort_msg("search_words.txt: a line this test does not know: %s", line);
    }
    checked++;
  }
  ck_assert_uint_gt(checked, 100);
  lit_buf_free(&f);
}
END_TEST

typedef struct {
  size_t start[8], end[8];
  int joined[8];
  size_t n;
} S_spans;

static void S_span(void *ctx, const lit_search_term *t) {
  S_spans *s = ctx;
  ck_assert_uint_lt(s->n, 8);
  s->start[s->n] = t->start;
  s->end[s->n] = t->end;
  s->joined[s->n++] = t->joined;
}

/* Where each term starts and ends (book.js marks them in the snippets), and
 * texts with no word, or one huge word. */
START_TEST(test_search_terms_edges) {
  const char *text = "use split-K.";
  static const size_t want[][3] = {{0, 3, 0}, {4, 9, 0}, {10, 11, 0}, {4, 11, 1}}; /* start, end, joined */
  S_spans spans = {{0}, {0}, {0}, 0};
  lit_search_terms(text, strlen(text), S_span, &spans);
  ck_assert_uint_eq(spans.n, 4);
  for (size_t i = 0; i < spans.n; i++) {
    ck_assert_uint_eq(spans.start[i], want[i][0]);
    ck_assert_uint_eq(spans.end[i], want[i][1]);
    ck_assert_int_eq(spans.joined[i], (int)want[i][2]);
  }
  char *t = S_terms(" -_. \xc3\x97 \n", 9); /* separators only, a multiplication sign among them */
  ck_assert_str_eq(t, "");
  free(t);
  t = S_terms("", 0);
  ck_assert_str_eq(t, "");
  free(t);
  /* a word of 100,001 bytes, "a-a-...-a", is one word: 50,001 parts, then the joined term */
  size_t big = 100001, parts = big / 2 + 1;
  char *huge = lit_xmalloc(big);
  for (size_t i = 0; i < big; i++)
    huge[i] = i % 2 ? '-' : 'a';
  t = S_terms(huge, big);
  ck_assert_uint_eq(strlen(t), (2 * parts - 1) + 2 + parts);
  ck_assert_msg(strncmp(t, "a a ", 4) == 0 && strncmp(t + 2 * parts - 1, " +aaa", 5) == 0, "%.40s", t);
  free(t);
  free(huge);
}
END_TEST

/* The section texts keep their lines (a block, a table row, a code line
 * ends one), and the dictionary lists each term's sections with where the
 * term is and how often. */
START_TEST(test_search_index) {
  const char *a = "# A\n\nThe swizzle avoids bank conflicts, and more bank reads.\n\n"
                  "## Split-K\n\n| name | n |\n| --- | --- |\n| x | 1.5 |\n\n"
                  "```cuda {file=kernels/k.cu}\n  int splitK;\n\n  <<body>>\n```\n\nConflicting tiles.\n";
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(CK_WEAVE_IX, a, CK_WEAVE_B, d);
  lit_tree tr = LIT_TREE_INIT;
  ck_assert_int_eq(lit_book_build(p, &tr, d), LIT_OK);
  lit_tree_file *f = ck_tree_find(&tr, "search-index.js");
  ck_assert_ptr_nonnull(f);
  const char *js = f->data;
  /* the rules travel with the index, for book.js; none lengthens a word (lit_search_stem works in place) */
  const char *rule = strstr(js, "\"stem\":[[1,\"sses\",\"ss\",0,0],");
  ck_assert_msg(rule != NULL, "%s", js);
  size_t nrules = 0;
  for (rule = strchr(rule, '[') + 1; *rule == '['; nrules++) { /* [step,"suffix","replacement",min,flags] */
    const char *suffix = strchr(rule, '"') + 1, *suffix_end = strchr(suffix, '"');
    const char *repl = strchr(suffix_end + 1, '"') + 1, *repl_end = strchr(repl, '"');
    ck_assert_msg(repl_end - repl <= suffix_end - suffix, "this rule lengthens a word: %.40s", rule);
    rule = strchr(repl_end, ']') + 1;
    if (*rule == ',') rule++;
  }
  ck_assert_uint_ge(nrules, 10);
  /* sections: page 1 (a.html) has its opening and "Split-K"; lines end at blocks, rows and code lines */
  ck_assert_msg(strstr(js, "[1,\"\",\"A\",\"The swizzle avoids bank conflicts, and more bank reads.\"]") != NULL, "%s",
                js);
  ck_assert_msg(strstr(js, "[1,\"split-k\",\"Split-K\",\"name n\\nx 1.5\\nint splitK;\\n\\u003c\\u003cbody>>\\n"
                           "Conflicting tiles.\"]") != NULL,
                "%s", js);
  ck_assert_msg(strstr(js, "[\"a.html\",\"A\"]") != NULL, "%s", js);
  /* sections are numbered in reading order: 0 Home, 1 A, 2 Split-K, 3 B, 4 B part */
  char *terms = strstr(js, "\"terms\":\"");
  ck_assert_ptr_nonnull(terms);
  /* each term's postings follow the sorted terms, in their order: find them by place */
  terms += strlen("\"terms\":\"");
  char *end = strchr(terms, '"');
  char *list = lit_xstrndup(terms, (size_t)(end - terms)), *save = NULL;
  const char *post = strstr(js, "\"post\":[\n");
  ck_assert_ptr_nonnull(post);
  post += strlen("\"post\":[\n");
  size_t checked = 0;
  for (char *w = strtok_r(list, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
    const char *q = post + 1; /* past the opening quote */
    const char *qe = strchr(q, '"');
    static const char *const want[][2] = {
        {"bank", "1:2"},     /* section 1, in the text, twice */
        {"conflict", "1,1"}, /* sections 1 and 2 ("Conflicting") */
        {"split", "2.3"},    /* section 2: its heading and its text ("splitK") */
        {"splitk", "2.3"},   /* the joined term of both */
        {"k", "2.3,2"},      /* a part of both; and the link text "k" of section 4 */
        {"til", "2"},        /* "tiles" */
        {"a", "0,1.6,1.4"},  /* Home's list; A's title and heading; the title over "Split-K" */
        {"b", "0,3.6,1.6"},  /* Home's list; B's title and heading; B's title and "B part" */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
      if (strcmp(w, want[i][0]) != 0) continue;
      ck_assert_msg(strlen(want[i][1]) == (size_t)(qe - q) && strncmp(q, want[i][1], (size_t)(qe - q)) == 0,
                    "postings of %s: %.*s, want %s", w, (int)(qe - q), q, want[i][1]);
      checked++;
    }
    post = strchr(qe + 1, '\n') + 1;
  }
  ck_assert_uint_eq(checked, 8);
  free(list);
  /* a word whose stem differs from it is listed for the prefix of a word being typed */
  ck_assert_msg(strstr(js, "\"words\":\"") && strstr(js, " conflicting ") && strstr(js, " tiles"), "%s", js);
  lit_tree_free(&tr);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

Suite *book_search_suite(void) {
  Suite *s = suite_create("book_search");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_search_words_file);
  tcase_add_test(tc, test_search_terms_edges);
  tcase_add_test(tc, test_search_index);
  suite_add_tcase(s, tc);
  return s;
}

/* check_diff.c: the line diff: splitting, hunks for each kind of edit, and
 * on random texts a script that turns a into b and is a shortest one. */
#include "check_lit.h"

#include "diff.h"

START_TEST(test_split) {
  size_t n;
  lit_line *l = lit_lines_split("a\n\nb", 4, &n);
  ck_assert_uint_eq(n, 3);
  ck_assert_uint_eq(l[0].len, 1);
  ck_assert_uint_eq(l[1].len, 0);
  ck_assert(l[2].len == 1 && l[2].s[0] == 'b');
  free(l);
  l = lit_lines_split("a\n", 2, &n);
  ck_assert_uint_eq(n, 1);
  free(l);
  ck_assert_ptr_null(lit_lines_split("", 0, &n));
  ck_assert_uint_eq(n, 0);
  l = lit_lines_split("\n", 1, &n);
  ck_assert(n == 1 && l[0].len == 0);
  free(l);
}
END_TEST

/* The hunks of a against b (texts of one-letter lines) as "a,alen,b,blen;". */
static char *S_script(const char *a, const char *b) {
  size_t na, nb, nh;
  lit_line *la = lit_lines_split(a, strlen(a), &na), *lb = lit_lines_split(b, strlen(b), &nb);
  lit_hunk *h = lit_diff(la, na, lb, nb, &nh);
  lit_buf out = LIT_BUF_INIT;
  lit_buf_puts(&out, "");
  for (size_t i = 0; i < nh; i++)
    lit_buf_printf(&out, "%zu,%zu,%zu,%zu;", h[i].a, h[i].alen, h[i].b, h[i].blen);
  free(la);
  free(lb);
  free(h);
  return lit_buf_detach(&out);
}

static const struct {
  const char *a, *b, *want;
} S_cases[] = {
    {"x\ny\n", "x\ny\n", ""},
    {"", "", ""},
    {"", "x\n", "0,0,0,1;"},
    {"x\n", "", "0,1,0,0;"},
    {"x\ny\n", "n\nx\ny\n", "0,0,0,1;"},
    {"x\ny\n", "x\nn\ny\n", "1,0,1,1;"},
    {"x\ny\n", "x\ny\nn\n", "2,0,2,1;"},
    {"x\ny\nz\n", "x\nz\n", "1,1,1,0;"},
    {"x\ny\nz\n", "x\nY\nz\n", "1,1,1,1;"},
    {"x\ny\nz\n", "x\nY\nW\nz\n", "1,1,1,2;"},
    {"a\nb\nc\nd\ne\n", "A\nb\nc\nd\nE\n", "0,1,0,1;4,1,4,1;"},
    {"a\nb\n", "c\nd\n", "0,2,0,2;"},
    {"x\n", "x", ""}, /* the last newline is not a line of its own */
};

START_TEST(test_table) {
  char *got = S_script(S_cases[_i].a, S_cases[_i].b);
  ck_assert_msg(strcmp(got, S_cases[_i].want) == 0, "case %d: got %s, want %s", _i, got, S_cases[_i].want);
  free(got);
}
END_TEST

/* The length of a longest common subsequence, by the quadratic table. */
static size_t S_lcs(const lit_line *a, size_t na, const lit_line *b, size_t nb) {
  size_t *t = lit_xcalloc((na + 1) * (nb + 1), sizeof *t);
  for (size_t i = na; i-- > 0;)
    for (size_t j = nb; j-- > 0;) {
      size_t *here = &t[i * (nb + 1) + j];
      if (a[i].len == b[j].len && memcmp(a[i].s, b[j].s, a[i].len) == 0)
        *here = 1 + t[(i + 1) * (nb + 1) + j + 1];
      else
        *here =
            t[(i + 1) * (nb + 1) + j] > t[i * (nb + 1) + j + 1] ? t[(i + 1) * (nb + 1) + j] : t[i * (nb + 1) + j + 1];
    }
  size_t r = t[0];
  free(t);
  return r;
}

static unsigned S_rand(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (*s >> 16) & 0x7fff;
}

START_TEST(test_random_shortest) {
  static const char *const words[] = {"a", "b", "c", "dd", ""};
  unsigned seed = 12345;
  for (int round = 0; round < 3000; round++) {
    lit_buf ta = LIT_BUF_INIT, tb = LIT_BUF_INIT;
    size_t na0 = S_rand(&seed) % 25;
    for (size_t i = 0; i < na0; i++)
      lit_buf_printf(&ta, "%s\n", words[S_rand(&seed) % 5]);
    /* b: a with random edits, or unrelated text */
    size_t na, nb, nh;
    lit_line *la = lit_lines_split(ta.data ? ta.data : "", ta.len, &na);
    for (size_t i = 0; i <= na; i++) {
      unsigned r = S_rand(&seed) % 10;
      if (r == 0)
        while (S_rand(&seed) % 2)
          lit_buf_printf(&tb, "%s\n", words[S_rand(&seed) % 5]);
      if (i == na) break;
      if (r == 1) continue; /* deleted */
      if (r == 2)
        lit_buf_printf(&tb, "%s\n", words[S_rand(&seed) % 5]);
      else
        lit_buf_printf(&tb, "%.*s\n", (int)la[i].len, la[i].s);
    }
    lit_line *lb = lit_lines_split(tb.data ? tb.data : "", tb.len, &nb);
    lit_hunk *h = lit_diff(la, na, lb, nb, &nh);
    /* Applying the hunks to a gives b; hunks are ordered and apart. */
    size_t i = 0, j = 0, cost = 0;
    for (size_t k = 0; k < nh; k++) {
      ck_assert(h[k].alen + h[k].blen > 0);
      ck_assert(h[k].a >= i && h[k].b >= j && h[k].a - i == h[k].b - j);
      if (k > 0) ck_assert_msg(h[k].a > i, "round %d: hunks %zu and %zu touch", round, k - 1, k);
      for (; i < h[k].a; i++, j++)
        ck_assert(la[i].len == lb[j].len && memcmp(la[i].s, lb[j].s, la[i].len) == 0);
      i += h[k].alen;
      j += h[k].blen;
      cost += h[k].alen + h[k].blen;
    }
    ck_assert(na - i == nb - j);
    for (; i < na; i++, j++)
      ck_assert(la[i].len == lb[j].len && memcmp(la[i].s, lb[j].s, la[i].len) == 0);
    ck_assert_msg(cost == na + nb - 2 * S_lcs(la, na, lb, nb), "round %d: %zu edits, not the fewest", round, cost);
    free(la);
    free(lb);
    free(h);
    lit_buf_free(&ta);
    lit_buf_free(&tb);
  }
}
END_TEST

START_TEST(test_long_file_one_edit) {
  lit_buf ta = LIT_BUF_INIT, tb = LIT_BUF_INIT;
  for (int i = 0; i < 200000; i++) {
    lit_buf_printf(&ta, "line %d\n", i);
    lit_buf_printf(&tb, i == 100000 ? "changed %d\n" : "line %d\n", i);
  }
  size_t na, nb, nh;
  lit_line *la = lit_lines_split(ta.data, ta.len, &na), *lb = lit_lines_split(tb.data, tb.len, &nb);
  lit_hunk *h = lit_diff(la, na, lb, nb, &nh);
  ck_assert_uint_eq(nh, 1);
  ck_assert(h[0].a == 100000 && h[0].alen == 1 && h[0].blen == 1);
  free(la);
  free(lb);
  free(h);
  lit_buf_free(&ta);
  lit_buf_free(&tb);
}
END_TEST

/* lit_diff_texts gives lit_diff's hunks on the split texts, and the new
 * lines of each among its lines of b: random texts of few distinct lines,
 * with and without a last newline. */
START_TEST(test_texts_as_lines) {
  static const char *const words[] = {"a", "b", "ab", ""};
  unsigned seed = 777;
  for (int round = 0; round < 3000; round++) {
    lit_buf ta = LIT_BUF_INIT, tb = LIT_BUF_INIT;
    /* Some texts share long runs of lines at both ends (the byte
     * comparison goes a block at a time there). */
    size_t head = S_rand(&seed) % 16 == 0 ? S_rand(&seed) % 2000 : 0,
           tail = S_rand(&seed) % 16 == 0 ? S_rand(&seed) % 2000 : 0;
    for (size_t i = 0; i < head; i++) {
      lit_buf_printf(&ta, "h%zu\n", i);
      lit_buf_printf(&tb, "h%zu\n", i);
    }
    size_t n0 = S_rand(&seed) % 12;
    for (size_t i = 0; i < n0; i++) {
      const char *w = words[S_rand(&seed) % 4];
      lit_buf_printf(&ta, "%s\n", w);
      unsigned r = S_rand(&seed) % 6;
      if (r == 0) continue;
      lit_buf_printf(&tb, "%s\n", r == 1 ? words[S_rand(&seed) % 4] : w);
      if (r == 2) lit_buf_printf(&tb, "%s\n", words[S_rand(&seed) % 4]);
    }
    for (size_t i = 0; i < tail; i++) {
      lit_buf_printf(&ta, "t%zu\n", i);
      lit_buf_printf(&tb, "t%zu\n", i);
    }
    if (S_rand(&seed) % 3 == 0) lit_buf_puts(&ta, words[S_rand(&seed) % 3]);
    if (S_rand(&seed) % 3 == 0) lit_buf_puts(&tb, words[S_rand(&seed) % 3]);
    const char *a = ta.data ? ta.data : "", *b = tb.data ? tb.data : "";
    size_t na, nb, nh;
    lit_line *la = lit_lines_split(a, ta.len, &na), *lb = lit_lines_split(b, tb.len, &nb);
    lit_hunk *h = lit_diff(la, na, lb, nb, &nh);
    lit_text_diff td;
    lit_diff_texts(a, ta.len, b, tb.len, &td);
    ck_assert_msg(td.nhunks == nh, "round %d: %zu hunks, want %zu", round, td.nhunks, nh);
    for (size_t k = 0; k < nh; k++) {
      ck_assert_msg(memcmp(&td.hunks[k], &h[k], sizeof h[k]) == 0, "round %d: hunk %zu differs", round, k);
      ck_assert(h[k].b >= td.b_first && h[k].b + h[k].blen <= td.b_first + td.nb_lines);
      for (size_t j = h[k].b; j < h[k].b + h[k].blen; j++) {
        const lit_line *x = &td.b_lines[j - td.b_first];
        ck_assert(x->s == lb[j].s && x->len == lb[j].len);
      }
    }
    lit_text_diff_free(&td);
    free(la);
    free(lb);
    free(h);
    lit_buf_free(&ta);
    lit_buf_free(&tb);
  }
}
END_TEST

Suite *diff_suite(void) {
  Suite *s = suite_create("diff");
  TCase *tc = tcase_create("diff");
  tcase_add_test(tc, test_split);
  tcase_add_loop_test(tc, test_table, 0, sizeof S_cases / sizeof S_cases[0]);
  tcase_add_test(tc, test_random_shortest);
  tcase_add_test(tc, test_long_file_one_edit);
  tcase_add_test(tc, test_texts_as_lines);
  suite_add_tcase(s, tc);
  return s;
}

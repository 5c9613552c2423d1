/* check_render.c: one document woven to Markdown: the Lua API (md, fmt,
 * data, results, charts), filters, per-output regions, marked fences. */
#include "check_lit.h"

#include "render.h"

static const char S_index[] = "---\nskill-name: t\nskill-description: A test skill. Use in tests.\n---\n"
                              "# Home\n\n1. [A](a.md)\n";

/* Weaves doc 1 (a.md) of a memory project for output `out`; returns the
 * Markdown (caller frees) and the messages in *diags. */
static char *S_weave(const char *a, const char *out, char **diags) {
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(S_index, a, NULL, d);
  char *md = NULL;
  if (lit_diags_count(d, LIT_ERROR) == 0) {
    lit_render *r = lit_render_new(p, out, NULL, d);
    lit_buf b = LIT_BUF_INIT;
    lit_line_map m = {0};
    lit_render_doc(r, p->docs[1], 1, &b, &m, d);
    md = lit_buf_detach(&b);
    lit_line_map_free(&m);
    lit_render_free(r);
  }
  *diags = ck_diags_text(d);
  lit_diags_free(d);
  lit_project_free(p);
  return md;
}

/* A project on disk with a results file. */
static char *S_results_project(const char *render, char **diags) {
  char *dir = ck_tempdir();
  ck_write(dir, "index.md", "# Home\n\n1. [A](r/a.md)\n");
  ck_write(dir, "r/results/x.json",
           "{\"gpu\": \"H100\", \"add\": {\"gbs\": 2712.5, \"runs\": [1, 2]}, \"none\": null}\n");
  ck_write(dir, "r/bad.json", "{\"a\": [1, 2,, 3]}\n");
  char *link = lit_xasprintf("%s/r/results/escape.json", dir);
  ck_assert_int_eq(symlink("/etc/hostname", link), 0); /* a link out of the project */
  free(link);
  ck_write(dir, ".git/x.json", "{\"x\": 1}\n"); /* git's, valid JSON all the same */
  link = lit_xasprintf("%s/gitdir", dir);
  ck_assert_int_eq(symlink(".git", link), 0); /* git's folder under another name */
  free(link);
  char *doc = lit_xasprintf("# A\n\n```{.lua .render}\n%s\n```\n", render);
  ck_write(dir, "r/a.md", doc);
  free(doc);
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(dir, "index.md", d);
  lit_render *r = lit_render_new(p, "book", NULL, d);
  lit_buf b = LIT_BUF_INIT;
  lit_line_map m = {0};
  lit_render_doc(r, p->docs[1], 1, &b, &m, d);
  lit_line_map_free(&m);
  lit_render_free(r);
  lit_project_free(p);
  *diags = ck_diags_text(d);
  lit_diags_free(d);
  ck_rmtree(dir);
  return lit_buf_detach(&b);
}

START_TEST(test_render_table_and_formats) {
  char *diags;
  char *md = S_weave("# A\n\nBefore.\n```{.lua .render}\n"
                     "return md.table({'x', 'y'}, {{1, fmt.num(2.345, 2)}, {'a|b', fmt.pct(0.5)}}, {'l', 'r'})\n"
                     "```\nAfter.\n",
                     "book", &diags);
  ck_assert_str_eq(diags, "");
  ck_assert_str_eq(md, "# A\n\nBefore.\n\n| x | y |\n| --- | ---: |\n| 1 | 2.35 |\n| a\\|b | 50.0% |\n\nAfter.\n");
  free(md);
  free(diags);
}
END_TEST

START_TEST(test_render_data_and_output) {
  char *diags;
  const char *doc =
      "# A\n\n```{.lua .data #d}\nreturn { 1, 2, k = 'v' }\n```\n\n```{.lua .data #d}\nreturn { 3 }\n```\n\n"
      "```{.lua .render}\nlocal t = data('d')\nreturn lit.output .. #t .. t.k\n```\n";
  char *md = S_weave(doc, "skill", &diags);
  ck_assert_str_eq(diags, "");
  ck_assert_ptr_nonnull(strstr(md, "skill3v"));
  ck_assert_ptr_null(strstr(md, "return"));
  free(md);
  free(diags);
  md = S_weave("# A\n\n```{.lua .render}\nreturn data('nope')\n```\n", "book", &diags);
  ck_assert_msg(strstr(diags, "a.md:4:1: error: no .data block is named 'nope'") != NULL, "%s", diags);
  free(md);
  free(diags);
  md = S_weave("# A\n\n```{.lua .render}\nreturn {}\n```\n", "book", &diags);
  ck_assert_msg(strstr(diags, "a.md:3:1: error: a .render block must return a Markdown string") != NULL, "%s", diags);
  free(md);
  free(diags);
}
END_TEST

START_TEST(test_filters_per_output) {
  const char *doc = "# A\n\n```sh\nmake\n```\n\n```python {#c}\nx = 1\n```\n\n"
                    "```{.lua .filter}\nreturn { skill = function(b) if b.lang == 'sh' then return false end end,\n"
                    "  book = function(b) if b.name == 'c' then return '*replaced*' end end }\n```\n";
  char *diags;
  char *md = S_weave(doc, "skill", &diags);
  ck_assert_msg(strstr(md, "make") == NULL && strstr(md, "x = 1") && !strstr(md, "filter"), "%s", md);
  free(md);
  free(diags);
  md = S_weave(doc, "book", &diags);
  ck_assert_msg(strstr(md, "make") && strstr(md, "*replaced*") && !strstr(md, "x = 1"), "%s", md);
  free(md);
  free(diags);
}
END_TEST

START_TEST(test_only_regions) {
  const char *doc = "# A\n\nBoth.\n\n<!-- only: book -->\nBook prose.\n\n```{.lua .render}\nreturn 'book render'\n```\n"
                    "<!-- end only -->\n\n  <!-- only: skill -->\nSkill prose.\n<!-- end only -->\n\nEnd.\n";
  char *diags;
  char *md = S_weave(doc, "book", &diags);
  ck_assert_str_eq(diags, "");
  ck_assert_msg(strstr(md, "Both.") && strstr(md, "Book prose.") && strstr(md, "book render") && strstr(md, "End.") &&
                    !strstr(md, "Skill prose.") && !strstr(md, "<!--"),
                "%s", md);
  free(md);
  free(diags);
  md = S_weave(doc, "skill", &diags);
  ck_assert_msg(strstr(md, "Both.") && strstr(md, "Skill prose.") && strstr(md, "End.") && !strstr(md, "Book prose.") &&
                    !strstr(md, "book render") && !strstr(md, "<!--"),
                "%s", md);
  free(md);
  free(diags);
  static const struct {
    const char *doc, *want;
  } bad[] = {
      {"# A\n\n<!-- only: book -->\nx\n", "a.md:3:1: error: this 'only' region is never closed"},
      {"# A\n\n<!-- end only -->\n", "a.md:3:1: error: <!-- end only --> without"},
      {"# A\n\n<!-- only: pdf -->\n<!-- end only -->\n", "a.md:3:1: error: write <!-- only: book -->"},
      {"# A\n\n<!-- only: book -->\n<!-- only: skill -->\n", "a.md:4:1: error: 'only' regions do not nest"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    md = S_weave(bad[i].doc, "book", &diags);
    ck_assert_msg(strstr(diags, bad[i].want) != NULL, "case %zu: %s", i, diags);
    free(md);
    free(diags);
  }
  /* a marker inside a code block is code */
  md = S_weave("# A\n\n```text\n<!-- only: skill -->\n```\n", "book", &diags);
  ck_assert_msg(strstr(md, "<!-- only: skill -->") != NULL && diags[0] == '\0', "%s %s", md, diags);
  free(md);
  free(diags);
}
END_TEST

START_TEST(test_fences_marked_and_prefixed) {
  char *diags;
  char *md = S_weave("# A\n\n- item\n\n  ```cuda {#k}\n  int x;\n  ```\n", "book", &diags);
  ck_assert_str_eq(md, "# A\n\n- item\n\n  ```cuda lit-block=0\n  int x;\n  ```\n");
  free(md);
  free(diags);
  md = S_weave("# A\n\n```text\n``` inside\n```\n", "book", &diags);
  ck_assert_str_eq(md, "# A\n\n````text lit-block=0\n``` inside\n````\n");
  free(md);
  free(diags);
}
END_TEST

START_TEST(test_results) {
  static const struct {
    const char *render, *want_md, *want_diag;
  } cases[] = {
      {"local r = results('r/results/x.json')\nreturn r.gpu .. ' ' .. fmt.num(r.add.gbs, 1) .. ' ' .. #r.add.runs",
       "H100 2712.5 2", ""},
      {"local n = 0\nfor _, v in ipairs(results('r/results/x.json').add.runs) do n = n + v end\nreturn tostring(n)",
       "3", ""},
      {"return results('r/results/x.json').add.median", NULL,
       "r/a.md:4:1: error: r/results/x.json has no field 'add.median'; fields there: gbs, runs"},
      {"local r = results('r/results/x.json')\nreturn r.missing", NULL,
       "r/a.md:5:1: error: r/results/x.json has no field 'missing'; fields there: add, gpu, none"},
      {"return results('r/results/nope.json').x", NULL,
       "r/a.md:4:1: error: cannot read results file 'r/results/nope.json'"},
      {"return results('../etc/passwd').x", NULL, "may not contain '..'"},
      {"return results('/etc/passwd').x", NULL, "relative to the project root"},
      {"return results('r/results/escape.json').x", NULL, "the file lies outside the project"},
      {"return results('r/bad.json').a", NULL, "r/bad.json:1:13: bad number"},
      {"return fmt.num(results('r/results/x.json').none)", NULL, "fmt.num: expected a number, got JSON null"},
      {"return tostring(results('r/results/x.json').none == lit.null)", "true", ""},
      /* optional_results: nil only where the file does not exist */
      {"return tostring(optional_results('r/results/nope.json'))", "nil", ""},
      {"return optional_results('r/results/x.json').gpu", "H100", ""},
      {"return optional_results('r/results/escape.json').x", NULL, "the file lies outside the project"},
      {"return optional_results('../etc/passwd').x", NULL, "may not contain '..'"},
      {"return optional_results('r/bad.json').a", NULL, "r/bad.json:1:13: bad number"},
      /* git's files, as spelled or through a link, there or not */
      {"return results('.git/x.json').x", NULL,
       "r/a.md:4:1: error: results('.git/x.json'): it lies inside a .git folder"},
      {"return results('gitdir/x.json').x", NULL, "r/a.md:4:1: error: results('gitdir/x.json'): it lies inside a .git"},
      {"return optional_results('r/.git/none.json')", NULL, "r/a.md:4:1: error: results('r/.git/none.json'): it lies"},
      {"return optional_results('gitdir/none.json')", NULL, "r/a.md:4:1: error: results('gitdir/none.json'): it lies"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *diags;
    char *md = S_results_project(cases[i].render, &diags);
    if (cases[i].want_md) ck_assert_msg(strstr(md, cases[i].want_md) != NULL, "case %zu: %s", i, md);
    if (cases[i].want_diag[0])
      ck_assert_msg(strstr(diags, cases[i].want_diag) != NULL, "case %zu: %s", i, diags);
    else
      ck_assert_msg(diags[0] == '\0', "case %zu: %s", i, diags);
    free(md);
    free(diags);
  }
}
END_TEST

START_TEST(test_charts) {
  char *diags;
  const char *doc = "# A\n\n```{.lua .render}\nreturn chart.bar{title = 'T <1>', categories = {'a', 'b'},\n"
                    "  series = {{name = 'ours', values = {50, 99.5}}, {name = 'peer', values = {40, 60}}},\n"
                    "  unit = '%', xlabel = 'share (%)', ylabel = 'shape'}\n"
                    "```\n";
  char *md = S_weave(doc, "book", &diags);
  ck_assert_str_eq(diags, "");
  /* the title and the legend are HTML (they wrap); both layouts, wide and phone, are there */
  ck_assert_msg(strstr(md, "<figure class=\"chart\">") && strstr(md, "role=\"img\" aria-label=\"T &lt;1&gt;\"") &&
                    strstr(md, "<title>T &lt;1&gt;</title>") &&
                    strstr(md, "<p class=\"chart-title\">T &lt;1&gt;</p>") &&
                    strstr(md, "</span>ours</li>") && strstr(md, "</span>peer</li>") && strstr(md, ">a</text>") &&
                    strstr(md, ">99.5</text>") && strstr(md, ">100%</text>") && strstr(md, ">share (%)</text>") &&
                    strstr(md, ">shape</text>") && strstr(md, "<div class=\"plot wide\">\n<svg viewBox=\"0 0 720 ") &&
                    strstr(md, "<div class=\"plot narrow\">\n<svg viewBox=\"0 0 330 ") &&
                    !strstr(strstr(md, "<figure"), "\n\n<"),
                "%s", md);
  free(md);
  free(diags);
  md = S_weave(doc, "skill", &diags); /* agents read the tables: no picture in the skill */
  ck_assert_str_eq(diags, "");
  ck_assert_ptr_null(strstr(md, "svg"));
  free(md);
  free(diags);
  md = S_weave("# A\n\n```{.lua .render}\nreturn chart.roofline{title = 'R', peak = 989, bandwidth = 3.35,\n"
               "  points = {{name = 'norm', intensity = 1, perf = 3}}}\n```\n",
               "book", &diags);
  ck_assert_str_eq(diags, "");
  ck_assert_msg(strstr(md, "peak 989 TFLOP/s") && strstr(md, ">norm</text>") && strstr(md, "3.35 TB/s"), "%s", md);
  free(md);
  free(diags);
  md = S_weave("# A\n\n```{.lua .render}\nreturn chart.line{title = 'L', x = {1, 2, 4}, logx = true,\n"
               "  series = {{name = 's', values = {1, 2, 3}}}, xlabel = 'MB', ylabel = 'GB/s'}\n```\n",
               "book", &diags);
  ck_assert_str_eq(diags, "");
  ck_assert_msg(strstr(md, "<polyline class=\"line s1\"") != NULL, "%s", md);
  free(md);
  free(diags);
  md = S_weave("# A\n\n```{.lua .render}\nreturn chart.dots{title = 'D', categories = {'a'},\n"
               "  series = {{name = 's', values = {}}}, xlabel = 'x', ylabel = 'y'}\n```\n",
               "book", &diags);
  ck_assert_msg(strstr(diags, "a.md:") && strstr(diags, "series[1].values must hold 1 numbers"), "%s", diags);
  free(md);
  free(diags);
}
END_TEST

/* Weaves one .render block for the book; returns its diagnostics (caller frees). */
static char *S_render_diags(const char *code, char **md) {
  char *doc = lit_xasprintf("# A\n\n```{.lua .render}\n%s\n```\n", code);
  char *diags;
  *md = S_weave(doc, "book", &diags);
  free(doc);
  return diags;
}

/* The chart library's layout: the defects a reader found in the book (rows
 * with one label, a line that doubled back, a tick twice, clipped labels,
 * overlapping text), each refused or laid out right. Lua asserts over the
 * figure's text where that is simplest; "ok" is what such a block returns. */
START_TEST(test_chart_layout) {
  static const struct {
    const char *code;
    const char *want_md;   /* in the Markdown, or NULL */
    const char *want_diag; /* in the diagnostics; "" for none */
  } cases[] = {
      /* two rows with one label (the GEMM chart's two "4096 x 4096 x 4096") */
      {"return chart.bar{title = 'G', categories = {'4096 x 4096 x 4096', '8192', '4096 x 4096 x 4096'},\n"
       "  series = {{name = 's', values = {1, 2, 3}}}, xlabel = 'TFLOP/s', ylabel = 'shape'}",
       NULL, "a.md:3:1: error: chart: categories[1] and categories[3] are both \"4096 x 4096 x 4096\""},
      /* two series with one name: the legend could not tell them apart */
      {"return chart.dots{title = 'N', categories = {'a'}, series = {{name = 's', values = {1}},\n"
       "  {name = 's', values = {2}}}, xlabel = 'x', ylabel = 'y'}",
       NULL, "error: chart: series[1] and series[2] are both named \"s\""},
      /* units on both axes: a chart without an axis title is refused */
      {"return chart.bar{title = 'U', categories = {'a'}, series = {{name = 's', values = {1}}}, ylabel = 'y'}", NULL,
       "error: chart: \"U\": xlabel must name the value axis, with its unit"},
      {"return chart.line{title = 'V', x = {1, 2}, series = {{name = 's', values = {1, 2}}}, xlabel = 'MB'}", NULL,
       "error: chart: \"V\": ylabel must name the values"},
      /* a line doubles back when two of its points share an x */
      {"return chart.line{title = 'Z', x = {8, 33.6, 16, 33.6}, series = {{name = 's', values = {1, 2, 3, 4}}},\n"
       "  xlabel = 'MB', ylabel = '%'}",
       NULL, "error: chart: \"Z\": x[2] and x[4] are both 33.6: a line takes one value per x"},
      /* x given out of order is drawn in increasing x, in both layouts; the
         ticks are the axis's (powers of two), so no label comes twice even
         where two points' x round alike (33.5585 and 33.5626 MB) */
      {"local s = chart.line{title = 'O', x = {67.1, 33.5585, 2.1, 33.5626, 8.4}, logx = true,\n"
       "  series = {{name = 'a', values = {90, 77, 13, 75, 43}}}, xlabel = 'MB', ylabel = '%', unit = '%'}\n"
       "local n = 0\n"
       "for pts in s:gmatch('<polyline class=\"line s1\" points=\"([^\"]*)\"') do\n"
       "  n = n + 1\n"
       "  local last = -1\n"
       "  for x in pts:gmatch('([%d.]+),') do assert(tonumber(x) >= last, 'not in increasing x: ' .. pts); "
       "last = tonumber(x) end\n"
       "end\n"
       "assert(n == 2, n .. ' polylines')\n"
       "for svg in s:gmatch('<svg.-</svg>') do\n"
       "  local seen = {}\n"
       "  for t in svg:gmatch('class=\"tick\">([^<]*)</text>') do assert(not seen[t], 'tick ' .. t .. ' twice'); "
       "seen[t] = true end\n"
       "  assert(seen['8'] or seen['32'], 'no power-of-two tick')\n"
       "end\n"
       "return 'ok'",
       "ok", ""},
      /* a label too long for its column is cut at a break and wrapped, or
         ends in an ellipsis with the whole of it in a tooltip, never clipped */
      {"local long = string.rep('fused_gated_residual_norm_modulate_', 4) .. 'rms 2x3072x2048'\n"
       "local s = chart.dots{title = 'L', categories = {long, 'b'}, series = {{name = 'ours', values = {80, 90}}},\n"
       "  xlabel = '%', ylabel = 'op'}\n"
       "assert(s:find('<title>' .. long .. '</title>', 1, true), 'no tooltip with the whole label')\n"
       "assert(s:find('…</tspan>', 1, true), 'no ellipsis')\n"
       "assert(not s:find(long .. '</text>', 1, true) and not s:find(long .. '</tspan>', 1, true),\n"
       "  'the whole label drawn on one line: it is clipped')\n"
       "return 'ok'",
       "ok", ""},
      /* a roofline's point labels keep off each other and the roof's label:
         points close together get labels beside them or led off by a line */
      {"local s = chart.roofline{title = 'R', peak = 989, peak_name = 'BF16 tensor cores (dense)', bandwidth = 3.35,\n"
       "  points = {{name = '4096 x 4096 x 4096', intensity = 1365, perf = 690},\n"
       "    {name = '512 x 12288 x 4096', intensity = 390, perf = 513},\n"
       "    {name = '128 x 12288 x 4096', intensity = 124, perf = 224},\n"
       "    {name = '128 x 4096 x 4096', intensity = 120, perf = 92}}}\n"
       "local _, n = s:gsub('>128 x 4096 x 4096</text>', '')\n"
       "assert(n == 2, 'the label in ' .. n .. ' layouts')\n"
       "return 'ok'",
       "ok", ""},
      /* where no place is left, the weave stops and names the chart and both texts */
      {"local p = {}\n"
       "for i = 1, 16 do p[i] = {name = 'the fused epilogue kernel, variant ' .. i, intensity = 8, perf = 20} end\n"
       "local s = chart.roofline{title = 'Crowded', peak = 989, bandwidth = 3.35, points = p}\n"
       "return s",
       NULL,
       "a.md:6:1: error: chart: \"Crowded\" (phone layout, 330 units wide): no room for the text \"the fused epilogue "
       "kernel, variant 2\": it would overlap \"the fused epilogue kernel, variant 1\""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *md;
    char *diags = S_render_diags(cases[i].code, &md);
    if (cases[i].want_md) ck_assert_msg(md && strstr(md, cases[i].want_md) != NULL, "case %zu: %s", i, diags);
    if (cases[i].want_diag[0])
      ck_assert_msg(strstr(diags, cases[i].want_diag) != NULL, "case %zu: %s", i, diags);
    else
      ck_assert_msg(diags[0] == '\0', "case %zu: %s", i, diags);
    free(md);
    free(diags);
  }
}
END_TEST

Suite *render_suite(void) {
  Suite *s = suite_create("render");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_render_table_and_formats);
  tcase_add_test(tc, test_render_data_and_output);
  tcase_add_test(tc, test_filters_per_output);
  tcase_add_test(tc, test_only_regions);
  tcase_add_test(tc, test_fences_marked_and_prefixed);
  tcase_add_test(tc, test_results);
  tcase_add_test(tc, test_charts);
  tcase_add_test(tc, test_chart_layout);
  suite_add_tcase(s, tc);
  return s;
}

/* check_weave.c: rendering (data, results, md, fmt, filters), the weave's
 * anchors and links, the highlighter, and the skill and book back ends. */
#include "check_lit.h"

#include "highlight.h"
#include "html_book.h"
#include "render.h"
#include "skill.h"
#include "tree.h"
#include "weave.h"

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

START_TEST(test_slugs_and_paths) {
  static const struct {
    const char *text, *slug;
  } cases[] = {{"Shared memory", "shared-memory"},
               {"L2: 50 MB changes how you benchmark", "l2-50-mb-changes-how-you-benchmark"},
               {"sm_90 versus sm_90a", "sm_90-versus-sm_90a"},
               {"Bytes \xe2\x80\x94 in flight", "bytes--in-flight"},
               {"!!!", "section"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lit_buf b = LIT_BUF_INIT;
    lit_weave_slug(cases[i].text, strlen(cases[i].text), &b);
    ck_assert_str_eq(b.data, cases[i].slug);
    lit_buf_free(&b);
  }
  char *r = lit_weave_relative("references/a.md", "SKILL.md");
  ck_assert_str_eq(r, "../SKILL.md");
  free(r);
  r = lit_weave_relative("SKILL.md", "references/a.md");
  ck_assert_str_eq(r, "references/a.md");
  free(r);
  r = lit_weave_relative("references/a.md", "scripts/x.py");
  ck_assert_str_eq(r, "../scripts/x.py");
  free(r);
}
END_TEST

START_TEST(test_highlight) {
  static const struct {
    const char *lang, *code, *want;
  } cases[] = {
      {"cuda", "__global__ void k() {}",
       "<span class=\"kw\">__global__</span> <span class=\"ty\">void</span> "
       "<span class=\"fn\">k</span>() {}"},
      {"c", "#include <x.h>\nint a = 1; // c",
       "<span class=\"pp\">#include &lt;x.h&gt;</span>\n<span class=\"ty\">"
       "int</span> a = <span class=\"nu\">1</span>; <span class=\"co\">// c</span>"},
      {"python", "def f(): return 'x'  # y",
       "<span class=\"kw\">def</span> <span class=\"fn\">f</span>(): "
       "<span class=\"kw\">return</span> <span class=\"st\">'x'</span>  "
       "<span class=\"co\"># y</span>"},
      {"toml", "[general]\nname = \"x\"",
       "<span class=\"at\">[general]</span>\n<span class=\"at\">name</span> = "
       "<span class=\"st\">&quot;x&quot;</span>"},
      {"sh", "echo $HOME # c",
       "<span class=\"kw\">echo</span> <span class=\"va\">$HOME</span> "
       "<span class=\"co\"># c</span>"},
      {"text", "<b> & \"q\"", "&lt;b&gt; &amp; &quot;q&quot;"},
      {"python", "s = \"\"\"a\nb\"\"\"", "s = <span class=\"st\">&quot;&quot;&quot;a\nb&quot;&quot;&quot;</span>"},
      {"c", "x1 = y2;", "x1 = y2;"},
      /* a git hash, c++17 and sm_90 are words, not numbers; a lone count is a number */
      {"sh", "git checkout 3a4929c0 -std=c++17 sm_90 -j 8",
       "git checkout 3a4929c0 -std=c++17 sm_90 -j <span class=\"nu\">8</span>"},
      /* a Python string's prefix belongs to the string; a name that ends in f does not */
      {"python", "f\"{x}\" + rb'y' + elf(1)",
       "<span class=\"st\">f&quot;{x}&quot;</span> + <span class=\"st\">rb'y'</span> + <span "
       "class=\"fn\">elf</span>(<span class=\"nu\">1</span>)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lit_buf b = LIT_BUF_INIT;
    lit_highlight(cases[i].lang, cases[i].code, strlen(cases[i].code), &b);
    ck_assert_msg(strcmp(b.data, cases[i].want) == 0, "case %zu: %s", i, b.data);
    lit_buf_free(&b);
  }
}
END_TEST

START_TEST(test_skill_name_rules) {
  static const struct {
    const char *name;
    int ok;
  } cases[] = {{"cuda-kernels", 1}, {"a", 1},    {"a1-b2", 1}, {"", 0},    {"-a", 0},
               {"a-", 0},           {"a--b", 0}, {"Cuda", 0},  {"a_b", 0}, {"a b", 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ck_assert_msg((lit_skill_check_name(cases[i].name) == NULL) == cases[i].ok, "name '%s'", cases[i].name);
  char long_name[70];
  memset(long_name, 'a', 65);
  long_name[65] = '\0';
  ck_assert_ptr_nonnull(lit_skill_check_name(long_name));
  long_name[64] = '\0';
  ck_assert_ptr_null(lit_skill_check_name(long_name));
  ck_assert_ptr_null(lit_skill_check_description("Does X. Use when Y."));
  ck_assert_ptr_nonnull(lit_skill_check_description(""));
  ck_assert_ptr_nonnull(lit_skill_check_description("a <tag>"));
  char *big = lit_xcalloc(1026, 1);
  memset(big, 'd', 1025);
  ck_assert_ptr_nonnull(lit_skill_check_description(big));
  big[1024] = '\0';
  ck_assert_ptr_null(lit_skill_check_description(big));
  free(big);
}
END_TEST

static const char S_a[] =
    "# A\n\nSee [home](index.md) and [the part](#the-part) and [b](b.md#b-part) and [b2](%62.md#b%2Dpart).\n\n"
    "## The part\n\n```cuda {file=kernels/k.cu}\nint x;\n<<body>>\n```\n";
static const char S_b[] = "# B\n\n## B part\n\n```cuda {#body}\nx = 1;\n```\n\n[k](kernels/k.cu)\n";
static const char S_ix[] =
    "---\nskill-name: t\nskill-description: A test skill. Use in tests.\ntangle-roots: kernels\n---\n"
    "# Home\n\n1. [A](a.md)\n2. [B](b.md)\n";

static lit_tree_file *S_find(lit_tree *t, const char *path) {
  for (size_t i = 0; i < t->n; i++)
    if (strcmp(t->files[i].path, path) == 0) return &t->files[i];
  return NULL;
}

START_TEST(test_skill_bundle) {
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(S_ix, S_a, S_b, d);
  lit_tree t = LIT_TREE_INIT;
  char *name = NULL;
  ck_assert_int_eq(lit_skill_build(p, &t, &name, d), LIT_OK);
  ck_assert_str_eq(name, "t");
  lit_tree_file *f = S_find(&t, "references/a.md");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "[home](../SKILL.md)") && strstr(f->data, "[b](b.md#b-part)") &&
                    strstr(f->data, "[b2](b.md#b%2Dpart)") && strstr(f->data, "File `kernels/k.cu`:\n```cuda\n") &&
                    strstr(f->data, "`<<body>>` is defined in [B](b.md#b-part)"),
                "%s", f->data);
  f = S_find(&t, "references/b.md");
  ck_assert_msg(strstr(f->data, "[k](a.md#the-part)") != NULL, "%s", f->data);
  f = S_find(&t, "SKILL.md");
  ck_assert_msg(strncmp(f->data, "---\nname: t\ndescription: A test skill. Use in tests.\n---\n# Home\n", 62) == 0,
                "%s", f->data);
  f = S_find(&t, "manifest.txt");
  ck_assert_str_eq(f->data, "SKILL.md\nreferences/a.md\nreferences/b.md\n");
  free(name);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_charts) {
  char *diags;
  const char *doc = "# A\n\n```{.lua .render}\nreturn chart.bar{title = 'T <1>', categories = {'a', 'b'},\n"
                    "  series = {{name = 'ours', values = {50, 99.5}}, {name = 'peer', values = {40, 60}}}, unit = '%'}\n"
                    "```\n";
  char *md = S_weave(doc, "book", &diags);
  ck_assert_str_eq(diags, "");
  ck_assert_msg(strstr(md, "<figure class=\"chart\">") && strstr(md, "role=\"img\" aria-label=\"T &lt;1&gt;\"") &&
                    strstr(md, "<title>T &lt;1&gt;</title>") && strstr(md, ">ours</text>") &&
                    strstr(md, ">peer</text>") && strstr(md, ">a</text>") && strstr(md, ">99.5</text>") &&
                    strstr(md, ">100%</text>") && !strstr(strstr(md, "<figure"), "\n\n<"),
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
               "  series = {{name = 's', values = {1, 2, 3}}}}\n```\n",
               "book", &diags);
  ck_assert_str_eq(diags, "");
  ck_assert_msg(strstr(md, "<polyline class=\"line s1\"") != NULL, "%s", md);
  free(md);
  free(diags);
  md = S_weave("# A\n\n```{.lua .render}\nreturn chart.dots{title = 'D', categories = {'a'},\n"
               "  series = {{name = 's', values = {}}}}\n```\n",
               "book", &diags);
  ck_assert_msg(strstr(diags, "a.md:") && strstr(diags, "series[1].values must hold 1 numbers"), "%s", diags);
  free(md);
  free(diags);
}
END_TEST

START_TEST(test_book_tables_search_print) {
  lit_diags *d = lit_diags_new();
  const char *a = "# A\n\n## Numbers\n\n| name | n | note |\n| --- | --- | --- |\n| x | 1.5 | y |\n| z | - | 2 "
                  "w |\n\nSee [b](b.md#b-part).\n\n```cuda {file=kernels/k.cu}\n<<body>>\n```\n";
  lit_project *p = ck_load(S_ix, a, S_b, d);
  lit_tree t = LIT_TREE_INIT;
  ck_assert_int_eq(lit_book_build(p, &t, d), LIT_OK);
  lit_tree_file *f = S_find(&t, "a.html");
  /* the numeric column is right-aligned, the others are not; the table scrolls in a named, focusable frame */
  ck_assert_msg(strstr(f->data, "<div class=\"table-wrap\" tabindex=\"0\" role=\"region\" aria-label=\"Table 1: "
                                "Numbers\">") &&
                    strstr(f->data, "<td align=\"right\">1.5</td>") && strstr(f->data, "<td>y</td>") &&
                    strstr(f->data, "<td>2 w</td>"),
                "%s", f->data);
  f = S_find(&t, "search-index.js");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "[1,\"numbers\",\"Numbers\",\"name n note x 1.5 y z - 2 w See b. \\u003c\\u003cbody>>\"]") &&
                    strstr(f->data, "[\"a.html\",\"A\"]") && strstr(f->data, "[2,\"b-part\",\"B part\",\"x = 1;"),
                "%s", f->data);
  f = S_find(&t, "print.html"); /* ids carry their page; links between pages stay inside print.html */
  ck_assert_msg(strstr(f->data, "<section class=\"print-page\" id=\"a\">") &&
                    strstr(f->data, "<h2 id=\"a--numbers\">") && strstr(f->data, "href=\"#b--b-part\"") &&
                    strstr(f->data, "href=\"#a--numbers\""),
                "%s", f->data);
  ck_assert_ptr_nonnull(S_find(&t, "404.html"));
  ck_assert_ptr_nonnull(S_find(&t, "book.js"));
  ck_assert_ptr_nonnull(S_find(&t, "favicon.svg"));
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* A link with an empty destination (href="") is copied into print.html as
 * it is: no page, no anchor to prefix (fuzz_weave found it read before the
 * destination's start). */
START_TEST(test_book_print_empty_link) {
  lit_diags *d = lit_diags_new();
  const char *a = "# A\n\nAn empty link: [nothing]().\n\n```cuda {file=kernels/k.cu}\n<<body>>\n```\n";
  lit_project *p = ck_load(S_ix, a, S_b, d);
  lit_tree t = LIT_TREE_INIT;
  ck_assert_int_eq(lit_book_build(p, &t, d), LIT_OK);
  lit_tree_file *f = S_find(&t, "print.html");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "<a href=\"\">nothing</a>"), "%s", f->data);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* [A](a%00b.md): the loader and the weaver read the link alike (one
 * resolver, paths.c), so the book finds the page the tangle read. */
START_TEST(test_link_with_percent_00) {
  const char *names[2] = {"index.md", "a%00b.md"};
  const char *texts[2] = {"---\ntangle-roots: kernels\n---\n# Home\n\n1. [A](a%00b.md)\n", "# A\n\nText.\n"};
  size_t lens[2] = {strlen(texts[0]), strlen(texts[1])};
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load_memory(names, texts, lens, 2, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  ck_assert_uint_eq(p->ndocs, 2);
  ck_assert_str_eq(p->docs[1]->src.path, "a%00b.md");
  lit_tree t = LIT_TREE_INIT;
  ck_assert_int_eq(lit_book_build(p, &t, d), LIT_OK);
  char *msgs = ck_diags_text(d);
  ck_assert_msg(lit_diags_count(d, LIT_ERROR) == 0, "%s", msgs);
  free(msgs);
  lit_tree_file *f = S_find(&t, "index.html");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "href=\"a%00b.html\""), "%s", f->data);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_book_pages) {
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(S_ix, S_a, S_b, d);
  lit_tree t = LIT_TREE_INIT;
  ck_assert_int_eq(lit_book_build(p, &t, d), LIT_OK);
  lit_tree_file *f = S_find(&t, "a.html");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "<h2 id=\"the-part\">") && strstr(f->data, "href=\"index.html\">home</a>") &&
                    strstr(f->data, "href=\"b.html#b-part\"") && strstr(f->data, "id=\"file-kernels/k.cu\"") &&
                    strstr(f->data, "<a href=\"b.html#chunk-body-1\" title=\"defined in B\">body</a>") &&
                    strstr(f->data, "<a href=\"a.html\" aria-current=\"page\">A</a>") &&
                    strstr(f->data, "rel=\"prev\" href=\"index.html\"") &&
                    strstr(f->data, "rel=\"next\" href=\"b.html\""),
                "%s", f->data);
  f = S_find(&t, "b.html");
  ck_assert_msg(strstr(f->data, "used in <a href=\"a.html#file-kernels/k.cu\"><code>kernels/k.cu</code></a>") &&
                    strstr(f->data, "<a href=\"a.html#file-kernels/k.cu\">k</a>"),
                "%s", f->data);
  f = S_find(&t, "chunks.html");
  ck_assert_msg(
      strstr(f->data,
             "<code>kernels/k.cu</code></a></td><td><a href=\"a.html#file-kernels/k.cu\" title=\"A\">a &#167;&#160;The "
             "part</a>") != NULL,
      "%s", f->data);
  ck_assert_ptr_nonnull(S_find(&t, "style.css"));
  ck_assert_ptr_nonnull(S_find(&t, "index.html"));
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_broken_links_fail) {
  static const struct {
    const char *a, *want;
  } cases[] = {
      {"# A\n\n[x](nowhere.md)\n", "a.md:3:5: error: link 'nowhere.md': no document or generated file nowhere.md"},
      {"# A\n\n[x](#nope)\n", "a.md:3:5: error: link '#nope': this document has no heading with that anchor"},
      {"# A\n\ntext\n\n[x](b.md#nope)\n",
       "a.md:5:5: error: link 'b.md#nope': b.md has no heading with the anchor 'nope'"},
      {"# A\n\n[x](../../etc/passwd)\n", "a.md:3:5: error: link '../../etc/passwd' leads outside the project"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    for (int book = 0; book < 2; book++) {
      lit_diags *d = lit_diags_new();
      lit_project *p = ck_load(S_ix, cases[i].a, S_b, d);
      lit_tree t = LIT_TREE_INIT;
      char *name = NULL;
      lit_status r = book ? lit_book_build(p, &t, d) : lit_skill_build(p, &t, &name, d);
      char *text = ck_diags_text(d);
      ck_assert_int_eq(r, LIT_FAILED);
      ck_assert_msg(strstr(text, cases[i].want) != NULL, "case %zu (%s): %s", i, book ? "book" : "skill", text);
      free(text);
      free(name);
      lit_tree_free(&t);
      lit_project_free(p);
      lit_diags_free(d);
    }
  }
}
END_TEST

START_TEST(test_tree_install_and_compare) {
  char *dir = ck_tempdir();
  char *out = lit_xasprintf("%s/out/book", dir);
  lit_diags *d = lit_diags_new();
  lit_tree t = LIT_TREE_INIT;
  lit_tree_add(&t, "a.html", lit_xstrdup("A"), 1);
  lit_tree_add(&t, "sub/b.css", lit_xstrdup("BB"), 2);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", d), 0);
  char *a = ck_read(out, "a.html"), *b = ck_read(out, "sub/b.css");
  ck_assert_str_eq(a, "A");
  ck_assert_str_eq(b, "BB");
  free(a);
  free(b);
  ck_assert_uint_eq(lit_tree_compare(&t, out, d), 0);
  ck_write(out, "extra.txt", "x");
  ck_write(out, "a.html", "changed");
  ck_assert_uint_eq(lit_tree_compare(&t, out, d), 2);
  /* lit never deletes a file it did not write: extra.txt stops the install */
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", d), -1);
  char *extra = ck_read(out, "extra.txt");
  ck_assert_str_eq(extra, "x");
  free(extra);
  char *msgs = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(msgs, "extra.txt: error: lit did not write this file"));
  free(msgs);
  /* without it, the folder (its manifest names every other file) is replaced */
  char *extra_path = lit_xasprintf("%s/extra.txt", out);
  ck_assert_int_eq(unlink(extra_path), 0);
  free(extra_path);
  ck_assert_int_eq(lit_tree_install(&t, out, "a.html", d), 0);
  ck_assert_uint_eq(lit_tree_compare(&t, out, d), 0);
  char *man = ck_read(out, LIT_TREE_MANIFEST);
  ck_assert_str_eq(man, "a.html\nsub/b.css\n");
  free(man);
  /* a folder of other work is never replaced */
  char *other = lit_xasprintf("%s/other", dir);
  ck_write(dir, "other/precious.txt", "keep");
  ck_assert_int_eq(lit_tree_install(&t, other, "a.html", d), -1);
  char *kept = ck_read(other, "precious.txt");
  ck_assert_str_eq(kept, "keep");
  free(kept);
  free(other);
  char *cmd = lit_xasprintf("ls -a '%s/out' | grep -c lit- > '%s/n'", dir, dir);
  ck_assert_int_ne(system(cmd), -1);
  free(cmd);
  char *n = ck_read(dir, "n");
  ck_assert_str_eq(n, "0\n"); /* no staging folder left beside it */
  free(n);
  lit_tree_free(&t);
  lit_diags_free(d);
  free(out);
  ck_rmtree(dir);
}
END_TEST

Suite *weave_suite(void) {
  Suite *s = suite_create("weave");
  TCase *tc = tcase_create("weave");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_render_table_and_formats);
  tcase_add_test(tc, test_render_data_and_output);
  tcase_add_test(tc, test_filters_per_output);
  tcase_add_test(tc, test_fences_marked_and_prefixed);
  tcase_add_test(tc, test_only_regions);
  tcase_add_test(tc, test_results);
  tcase_add_test(tc, test_slugs_and_paths);
  tcase_add_test(tc, test_highlight);
  tcase_add_test(tc, test_skill_name_rules);
  tcase_add_test(tc, test_skill_bundle);
  tcase_add_test(tc, test_book_pages);
  tcase_add_test(tc, test_link_with_percent_00);
  tcase_add_test(tc, test_charts);
  tcase_add_test(tc, test_book_tables_search_print);
  tcase_add_test(tc, test_book_print_empty_link);
  tcase_add_test(tc, test_broken_links_fail);
  tcase_add_test(tc, test_tree_install_and_compare);
  suite_add_tcase(s, tc);
  return s;
}

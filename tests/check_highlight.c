/* check_highlight.c: code to HTML spans, per language family. */
#include "check_lit.h"

#include "highlight.h"

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

Suite *highlight_suite(void) {
  Suite *s = suite_create("highlight");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_highlight);
  suite_add_tcase(s, tc);
  return s;
}

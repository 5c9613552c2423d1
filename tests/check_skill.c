/* check_skill.c: the Agent Skills rules and the bundle lit skill builds. */
#include "check_lit.h"

#include "skill_assets.h"

#include "skill.h"

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

START_TEST(test_skill_bundle) {
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(CK_WEAVE_IX, CK_WEAVE_A, CK_WEAVE_B, d);
  lit_tree t = LIT_TREE_INIT;
  char *name = NULL;
  ck_assert_int_eq(lit_skill_build(p, &t, &name, d), LIT_OK);
  ck_assert_str_eq(name, "t");
  lit_tree_file *f = ck_tree_find(&t, "references/a.md");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "[home](../SKILL.md)") && strstr(f->data, "[b](b.md#b-part)") &&
                    strstr(f->data, "[b2](b.md#b%2Dpart)") && strstr(f->data, "File `kernels/k.cu`:\n```cuda\n") &&
                    strstr(f->data, "`<<body>>` is defined in [B](b.md#b-part)"),
                "%s", f->data);
  f = ck_tree_find(&t, "references/b.md");
  ck_assert_msg(strstr(f->data, "[k](a.md#the-part)") != NULL, "%s", f->data);
  f = ck_tree_find(&t, "SKILL.md");
  ck_assert_msg(strncmp(f->data, "---\nname: t\ndescription: A test skill. Use in tests.\n---\n# Home\n", 62) == 0,
                "%s", f->data);
  /* the bundle lists its files once, in the .lit-manifest its install
   * writes, not again in a manifest.txt of its own */
  ck_assert_ptr_null(ck_tree_find(&t, "manifest.txt"));
  ck_assert_uint_eq(t.n, 3);
  free(name);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* SKILL.md's front matter is YAML that every reader takes as the
 * strings the author wrote: a value YAML would read as something else (a
 * boolean, null, a number), or not at all (a tab, an escape, a ':' at the
 * end), is double-quoted, its control characters escaped. */
static const struct {
  const char *license; /* skill-license, copied as license */
  const char *line;    /* the line SKILL.md gets */
} S_yaml_values[] = {
    {"MIT", "license: MIT\n"},
    {"Apache-2.0 (see LICENSE)", "license: Apache-2.0 (see LICENSE)\n"},
    {"a \"b\" c", "license: a \"b\" c\n"},
    {"see: LICENSE", "license: \"see: LICENSE\"\n"},
    {"C:\\x", "license: C:\\x\n"},
    {"{x}", "license: \"{x}\"\n"},
    {"two\tcolumns", "license: \"two\\tcolumns\"\n"},
    {"red \x1b[31m", "license: \"red \\x1b[31m\"\n"},
    {"c1 \xc2\x9b", "license: \"c1 \\u009b\"\n"},
    {"del \x7f", "license: \"del \\x7f\"\n"},
    {"see below:", "license: \"see below:\"\n"},
    {"yes", "license: \"yes\"\n"},
    {"Off", "license: \"Off\"\n"},
    {"null", "license: \"null\"\n"},
    {"~", "license: \"~\"\n"},
    {"2.0", "license: \"2.0\"\n"},
    {"0x1f", "license: \"0x1f\"\n"},
    {".inf", "license: \".inf\"\n"},
    {"+1", "license: \"+1\"\n"},
};

START_TEST(test_front_matter_yaml) {
  char *ix = lit_xasprintf("---\nskill-name: t\nskill-description: A test skill. Use in tests.\nskill-license: %s\n---\n"
                           "# Home\n",
                           S_yaml_values[_i].license);
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(ix, NULL, NULL, d);
  lit_tree t = LIT_TREE_INIT;
  char *name = NULL;
  ck_assert_int_eq(lit_skill_build(p, &t, &name, d), LIT_OK);
  lit_tree_file *f = ck_tree_find(&t, "SKILL.md");
  ck_assert_msg(strstr(f->data, S_yaml_values[_i].line) != NULL, "%s", f->data);
  free(name);
  free(ix);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* Files under the skill-scripts folders ship as scripts/BASE: two of one
 * base name cannot both ship. */
START_TEST(test_skill_scripts_clash) {
  const char *ix = "---\nskill-name: t\nskill-description: A test skill. Use in tests.\ntangle-roots: kernels\n"
                   "skill-scripts: kernels/a kernels/b\n---\n# Home\n\n"
                   "```python {file=kernels/a/run.py}\nprint(1)\n```\n\n```python {file=kernels/b/run.py}\nprint(2)\n```\n"
                   "\n```python {file=kernels/c/run.py}\nprint(3)\n```\n";
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(ix, NULL, NULL, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_tree t = LIT_TREE_INIT;
  char *name = NULL;
  ck_assert_int_eq(lit_skill_build(p, &t, &name, d), LIT_FAILED);
  char *msgs = ck_diags_text(d);
  ck_assert_msg(strstr(msgs, "index.md:13:") &&
                    strstr(msgs, "the skill ships 'kernels/b/run.py' as scripts/run.py, but 'kernels/a/run.py' has "
                                 "that name too"),
                "%s", msgs);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 1); /* kernels/c is not shipped */
  free(msgs);
  free(name);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* A link wrapped across lines is found like any other: rewritten for the
 * bundle's layout, or reported when it leads nowhere. */
START_TEST(test_skill_wrapped_links) {
  const char *ix = "---\nskill-name: t\nskill-description: A test skill. Use in tests.\n---\n# Home\n\n"
                   "Read [the first\ndocument](a.md) and [again](\n  a.md#a).\n";
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(ix, "# A\n\nText.\n", NULL, d);
  lit_tree t = LIT_TREE_INIT;
  char *name = NULL;
  ck_assert_int_eq(lit_skill_build(p, &t, &name, d), LIT_OK);
  lit_tree_file *f = ck_tree_find(&t, "SKILL.md");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "Read [the first\ndocument](references/a.md) and [again](\n  references/a.md#a).\n"),
                "%s", f->data);
  free(name);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
  /* a wrapped destination that leads nowhere is an error at its line */
  d = lit_diags_new();
  p = ck_load(ix, "# A\n\nSee [it](\nnowhere.md).\n", NULL, d);
  t = (lit_tree)LIT_TREE_INIT;
  name = NULL;
  ck_assert_int_eq(lit_skill_build(p, &t, &name, d), LIT_FAILED);
  char *msgs = ck_diags_text(d);
  ck_assert_msg(strstr(msgs, "a.md:4:1: error: link 'nowhere.md': no document or generated file nowhere.md"), "%s",
                msgs);
  free(msgs);
  free(name);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* Documents whose names a URL must escape (' ', '(', '#', '?', '%'): the
 * references keep those names, and every Markdown link to them (the
 * authors' and lit's own) is percent-encoded, so that it reads as one link
 * and opens that file. */
START_TEST(test_skill_odd_names) {
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_odd_names_project(d);
  lit_tree t = LIT_TREE_INIT;
  char *name = NULL;
  ck_assert_int_eq(lit_skill_build(p, &t, &name, d), LIT_OK);
  ck_assert_ptr_nonnull(ck_tree_find(&t, "references/a b(1)#x?.md"));
  lit_tree_file *f = ck_tree_find(&t, "SKILL.md");
  ck_assert_msg(strstr(f->data, "[Odd](<references/a%20b%281%29%23x%3F.md>)") &&
                    strstr(f->data, "[Pct](references/p%2541.md)"),
                "%s", f->data);
  f = ck_tree_find(&t, "references/p%41.md");
  ck_assert_ptr_nonnull(f);
  ck_assert_msg(strstr(f->data, "[odd](a%20b%281%29%23x%3F.md#odd)"), "%s", f->data);
  f = ck_tree_find(&t, "references/a b(1)#x?.md"); /* lit's own link to where a chunk is defined */
  ck_assert_msg(strstr(f->data, "is defined in [Pct](p%2541.md#pct)"), "%s", f->data);
  free(name);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* The secret the hook below links to: outside the project. */
static const char *S_secret;

/* After the file a skill-assets-files pattern matched was checked and
 * before it is read: it becomes a link to a file outside the project. */
static void S_link_out(const char *path) {
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(symlink(S_secret, path), 0);
}

/* What skill-assets-files checked is what it reads: a match swapped for a
 * link leading out in between is not read (it would ship a file from
 * outside the project in the bundle); it is opened beneath the project. */
START_TEST(test_skill_assets_files_swapped_for_link) {
  char *dir = ck_tempdir(), *out = ck_tempdir();
  ck_write(dir, "index.md",
           "---\ntangle-roots: kernels\nskill-assets-files: tests=gpu/*.py\nskill-name: t\n"
           "skill-description: Test. Use in tests.\n---\n# T\n");
  ck_write(dir, "gpu/t.py", "print(1)\n");
  ck_write(out, "secret", "outside the project");
  char *secret = lit_xasprintf("%s/secret", out);
  S_secret = secret;
  lit_diags *d = lit_diags_new();
  lit_project *p = lit_project_load(dir, "index.md", d);
  ck_assert_ptr_nonnull(p);
  lit_tree t = LIT_TREE_INIT;
  lit_skill_assets_test_hook = S_link_out;
  int r = lit_skill_assets_add(p, &t, d);
  lit_skill_assets_test_hook = NULL;
  char *msgs = ck_diags_text(d);
  ck_assert_msg(r == -1, "the swapped file was read: %s", msgs);
  ck_assert_msg(strstr(msgs, "gpu/t.py") != NULL, "%s", msgs);
  for (size_t i = 0; i < t.n; i++)
    ck_assert_msg(strstr(t.files[i].data, "outside") == NULL, "%s was read from outside", t.files[i].path);
  free(msgs);
  lit_tree_free(&t);
  lit_project_free(p);
  lit_diags_free(d);
  free(secret);
  ck_rmtree(dir);
  ck_rmtree(out);
}
END_TEST

Suite *skill_suite(void) {
  Suite *s = suite_create("skill");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_skill_name_rules);
  tcase_add_test(tc, test_skill_bundle);
  tcase_add_loop_test(tc, test_front_matter_yaml, 0, sizeof S_yaml_values / sizeof S_yaml_values[0]);
  tcase_add_test(tc, test_skill_scripts_clash);
  tcase_add_test(tc, test_skill_wrapped_links);
  tcase_add_test(tc, test_skill_odd_names);
  tcase_add_test(tc, test_skill_assets_files_swapped_for_link);
  suite_add_tcase(s, tc);
  return s;
}

/* check_model.c: the project: reading order, chunks, appends, resolution,
 * suggestions, unused chunks, cycles, file roots, configuration. */
#include "check_lit.h"

#include "dump.h"

#define FM "---\ntangle-roots: out\n---\n"

START_TEST(test_reading_order_and_appends) {
  const char *index = FM "1. [B](b.md)\n2. [A](a.md)\n3. [B again](b.md)\n\n"
                         "```{.c file=out/x.c}\n<<p>>\n```\n\n```{.c #p}\nint i;\n```\n";
  const char *a = "```{.c #p}\nint a;\n```\n";
  const char *b = "```{.c #p}\nint b;\n```\n";
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(index, a, b, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  ck_assert_uint_eq(p->ndocs, 3);
  ck_assert_str_eq(p->docs[0]->src.path, "index.md");
  ck_assert_str_eq(p->docs[1]->src.path, "b.md"); /* link order, each document once */
  ck_assert_str_eq(p->docs[2]->src.path, "a.md");
  for (size_t i = 0; i < p->ndocs; i++) ck_assert_uint_eq(p->docs[i]->order, i);
  lit_chunk *c = lit_project_find(p, "p", 1);
  ck_assert_ptr_nonnull(c);
  ck_assert_uint_eq(c->ndefs, 3);
  ck_assert_str_eq(c->defs[0]->doc->src.path, "index.md");
  ck_assert_str_eq(c->defs[1]->doc->src.path, "b.md");
  ck_assert_str_eq(c->defs[2]->doc->src.path, "a.md");
  for (size_t i = 0; i < c->ndefs; i++) {
    ck_assert_uint_eq(c->defs[i]->def_index, i);
    ck_assert_ptr_eq(c->defs[i]->chunk, c);
  }
  ck_assert_uint_eq(c->nuses, 1);
  ck_assert_uint_eq(p->nfiles, 1);
  ck_assert_str_eq(p->files[0].path, "out/x.c");
  ck_assert_ptr_null(p->files[0].root->name); /* an unnamed file block is an anonymous root */
  ck_assert_ptr_eq(p->files[0].block->segs[0].target, c);
  ck_assert_ptr_null(lit_project_find(p, "q", 1));
  ck_assert_ptr_eq(lit_project_find(p, "pq", 1), c); /* the length counts, not the NUL */
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* Many chunks: the name table grows and still finds every one. */
START_TEST(test_many_chunks) {
  lit_buf t = LIT_BUF_INIT;
  lit_buf_puts(&t, FM "```{.c file=out/x.c}\n");
  for (int i = 0; i < 3000; i++) lit_buf_printf(&t, "<<c%d>>\n", i);
  lit_buf_puts(&t, "```\n");
  for (int i = 0; i < 3000; i++) lit_buf_printf(&t, "```{.c #c%d}\nint v%d;\n```\n", i, i);
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(t.data, NULL, NULL, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR) + lit_diags_count(d, LIT_WARNING), 0);
  ck_assert_uint_eq(p->nchunks, 3000);
  for (int i = 0; i < 3000; i += 7) {
    char name[16];
    snprintf(name, sizeof name, "c%d", i);
    lit_chunk *c = lit_project_find(p, name, strlen(name));
    ck_assert_ptr_nonnull(c);
    ck_assert_str_eq(c->name, name);
    ck_assert_ptr_eq(p->chunks[i], c); /* chunks are kept in order of first definition */
  }
  lit_project_free(p);
  lit_diags_free(d);
  lit_buf_free(&t);
}
END_TEST

static const struct {
  const char *index;
  const char *want;
} S_diag_cases[] = {
    {FM "```{.c file=out/x.c}\n<<warp-reduce>>\n```\n```{.c #warp_reduce}\nx\n```\n",
     "index.md:5:1: error: undefined chunk 'warp-reduce'; did you mean 'warp_reduce'?\n"
     "index.md:7:8: warning: chunk 'warp_reduce' is defined but never used\n"},
    {FM "```{.c file=out/x.c}\n<<zzzzzzzz>>\n```\n```{.c #warp_reduce}\nx\n```\n",
     "index.md:5:1: error: undefined chunk 'zzzzzzzz'\n"
     "index.md:7:8: warning: chunk 'warp_reduce' is defined but never used\n"},
    /* the nearest of several names */
    {FM "```{.c file=out/x.c}\n<<abcd>>\n<<abcx>>\n<<abxx>>\n```\n```{.c #abcx}\nx\n```\n```{.c #abxx}\ny\n```\n",
     "index.md:5:1: error: undefined chunk 'abcd'; did you mean 'abcx'?\n"},
    {FM "```{.c #unused}\nx\n```\n", "index.md:4:8: warning: chunk 'unused' is defined but never used\n"},
    {FM "```{.c file=out/x.c}\nx\n```\n```{.c file=out/x.c}\ny\n```\n",
     "index.md:7:8: error: 'out/x.c' is already written by another block\n"
     "index.md:4:8: note: first claimed here; a file has one root block (append with a #name instead)\n"},
    {FM "```{.c file=/abs.c}\nx\n```\n",
     "index.md:4:8: error: cannot write '/abs.c': the path is absolute; give it relative to the repository root\n"
     "index.md:4:8: note: output folders declared in the entry document: out/\n"},
    {"# no roots\n```{.c file=out/x.c}\nx\n```\n",
     "index.md:2:8: error: cannot write 'out/x.c': the path is outside the output folders this project declares\n"
     "index.md:2:8: note: index.md declares no output folders: add 'tangle-roots: <folder>' to its front matter\n"},
    {FM "```{.c #a}\n<<b>>\n```\n```{.c #b}\n<<a>>\n```\n```{.c file=out/x.c}\n<<a>>\n```\n",
     "index.md:8:1: error: reference cycle: 'a' includes itself\n"
     "index.md:5:1: note: 'b' is used in 'a' here\n"
     "index.md:8:1: note: 'a' is used in 'b' here, closing the cycle\n"},
    /* a file entering the same cycle at 'b' does not report it again */
    {FM "```{.c #a}\n<<b>>\n```\n```{.c #b}\n<<a>>\n```\n```{.c file=out/x.c}\n<<b>>\n```\n",
     "index.md:8:1: error: reference cycle: 'a' includes itself\n"
     "index.md:5:1: note: 'b' is used in 'a' here\n"
     "index.md:8:1: note: 'a' is used in 'b' here, closing the cycle\n"},
    {FM "```{.lua .data #s}\nreturn 1\n```\n```{.c file=out/x.c}\n<<s>>\n```\n",
     "index.md:8:1: error: 's' is a .data block for the weaver, not a code chunk: it cannot be included\n"},
    {"---\ntangle-roots: ../up /abs ok\n---\n",
     "index.md:2:1: error: tangle-roots entry '../up' must be a folder inside the project\n"
     "index.md:2:1: error: tangle-roots entry '/abs' must be a folder inside the project\n"},
    /* the project folder itself, and git's, are no output folders */
    {"---\ntangle-roots: . .git/hooks ok\n---\n",
     "index.md:2:1: error: tangle-roots entry '.' cannot be an output folder: it is the project folder itself, where "
     "no file= path can be (none holds a '.' component); name a folder below it\n"
     "index.md:2:1: error: tangle-roots entry '.git/hooks' cannot be an output folder: it lies inside a .git folder "
     "(git's own files, never the project's)\n"},
    /* on a file system that ignores case, .Git/hooks is git's hooks folder: a hook written there runs */
    {"---\ntangle-roots: .Git/hooks out\ntangle-record: out/.GIT/rec\n---\n```{.sh file=out/.gIt/hooks/x}\nx\n```\n",
     "index.md:2:1: error: tangle-roots entry '.Git/hooks' cannot be an output folder: it lies inside a .git folder "
     "(git's own files, never the project's)\n"
     "index.md:5:9: error: cannot write 'out/.gIt/hooks/x': it lies inside a .git folder (git's own files, never the "
     "project's)\n"
     "index.md:3:1: error: tangle-record 'out/.GIT/rec' cannot be written: it lies inside a .git folder (git's own "
     "files, never the project's) (the record must be a file inside the project)\n"},
    {FM "1. [up](../x.md)\n", "index.md:4:4: error: link '../x.md' leads outside the project\n"},
    /* one path cannot be a file and a folder: both blocks are named */
    {FM "```{.c file=out/d.c/e.c}\ne\n```\n```{.c file=out/d.c}\nd\n```\n",
     "index.md:4:8: error: cannot write 'out/d.c/e.c': 'out/d.c' is a file another block writes, so it cannot also "
     "be a folder\n"
     "index.md:7:8: note: 'out/d.c' is written here\n"},
    {FM "```{.c file=out/.lit-old-x.c}\nx\n```\n",
     "index.md:4:8: error: cannot write 'out/.lit-old-x.c': names that start with .lit-tmp- or .lit-old- are lit's "
     "temporaries, which a later run removes\n"},
    /* the record is held to the rules of an output inside the project */
    {"---\ntangle-roots: out\ntangle-record: ../rec\n---\n",
     "index.md:3:1: error: tangle-record '../rec' cannot be written: the path holds '..' (the record must be a file "
     "inside the project)\n"},
    {"---\ntangle-roots: out\ntangle-record: /tmp/rec\n---\n",
     "index.md:3:1: error: tangle-record '/tmp/rec' cannot be written: the path is absolute; give it relative to the "
     "repository root (the record must be a file inside the project)\n"},
    {"---\ntangle-roots: out\ntangle-record: out/.lit-old-rec\n---\n",
     "index.md:3:1: error: tangle-record 'out/.lit-old-rec' cannot be written: names that start with .lit-tmp- or "
     ".lit-old- are lit's temporaries (the record must be a file inside the project)\n"},
    {"---\ntangle-roots: out\ntangle-record: index.md\n---\n",
     "index.md:3:1: error: tangle-record 'index.md' is a document of this project: lit would overwrite it with its "
     "record; pick another path\n"},
    /* git's files are never lit's: the record is not kept among them */
    {"---\ntangle-roots: out\ntangle-record: .git/rec\n---\n",
     "index.md:3:1: error: tangle-record '.git/rec' cannot be written: it lies inside a .git folder (git's own files, "
     "never the project's) (the record must be a file inside the project)\n"},
    {"---\ntangle-roots: out\ntangle-record: out/x.c/rec\n---\n```{.c file=out/x.c}\nx\n```\n",
     "index.md:3:1: error: tangle-record 'out/x.c/rec' cannot be written: 'out/x.c' is a file a block writes, so it "
     "cannot be a folder\n"
     "index.md:5:8: note: 'out/x.c' is written here\n"},
    /* at the link: that is the line to edit */
    {"---\ntangle-roots: out\ntangle-line-directives: yes\n---\n# I\n",
     "index.md:3:1: error: tangle-line-directives must be true or false, not 'yes'\n"},
    /* quoted in every header: one line, no backquote */
    {"---\ntangle-roots: out\ntangle-command: make `tangle`\n---\n# I\n",
     "index.md:3:1: error: tangle-command must be a command of one line, without a backquote (it is quoted in every "
     "generated file's header)\n"},
    {FM "1. [gone](gone.md)\n",
     "index.md:4:4: error: cannot read gone.md, the document this link names: no such file\n"},
    /* one chunk cannot root two files: each would get every definition */
    {FM "```{.c #io file=out/r.c}\nr\n```\n```{.c #io}\nboth\n```\n```{.c #io file=out/w.c}\nw\n```\n",
     "index.md:10:12: error: chunk 'io' already writes 'out/r.c', so this definition of it cannot write 'out/w.c' "
     "too: a chunk's definitions all go into the file it roots, and which file is meant here is unclear; give this "
     "block its own name\n"
     "index.md:4:12: note: 'io' is the root of 'out/r.c' here\n"},
    /* a reference beside other text is copied as text: warned where surely a slip */
    {FM "```{.c file=out/x.c}\n<<a>> tail\nf(<<a>>);\n  <<nothing>>;\nx<<24>>24;\nk<<<a>>>();\n<<a>><<a>>\n<<a>>\n```\n"
        "```{.c #a}\nA\n```\n",
     /* a line shaped like a reference is the reader's to report, once */
     "index.md:10:1: warning: '<<a>><<a>>' is not a chunk reference, since a name holds only letters, digits and _ : "
     "/ . -; the line is copied as text\n"
     "index.md:5:1: warning: '<<a>>' shares its line with other text, so lit copies the line as text and includes "
     "no chunk (notangle would include it there); put the reference on a line of its own\n"
     "index.md:6:3: warning: '<<a>>' shares its line with other text, so lit copies the line as text and includes "
     "no chunk (notangle would include it there); put the reference on a line of its own\n"
     "index.md:7:3: warning: '<<nothing>>' shares its line with other text, so lit copies the line as text and "
     "includes no chunk (notangle would include it there); put the reference on a line of its own\n"},
};

START_TEST(test_diagnostics) {
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(S_diag_cases[_i].index, NULL, NULL, d);
  ck_assert_ptr_nonnull(p);
  char *t = ck_diags_text(d);
  ck_assert_str_eq(t, S_diag_cases[_i].want);
  free(t);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

static const struct {
  const char *defined; /* the one chunk defined */
  const char *used;    /* the reference */
  const char *near;    /* suggested, or NULL */
} S_suggest[] = {
    {"ab", "ba", "ab"},                   /* two edits, allowed for a short name */
    {"abcdef", "x", NULL},                /* too far */
    {"reduction", "réduction", "reduction"}, /* é is two bytes: two edits */
    {"warp-reduce", "warp-reduce-all", "warp-reduce"},  /* 4 edits: within len / 3 + 2 */
    {"warp-reduce", "warp-reduce-across-the-lanes", NULL},
    {"warp-reduce", "warp-reduc", "warp-reduce"},
    {"load_tile", "load-tile", "load_tile"},
    {"aaaa", "bbbb", NULL},
};

START_TEST(test_suggestions) {
  char *index = lit_xasprintf(FM "```{.c file=out/x.c}\n<<%s>>\n```\n```{.c #%s}\nx\n```\n", S_suggest[_i].used,
                              S_suggest[_i].defined);
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(index, NULL, NULL, d);
  char *t = ck_diags_text(d);
  char *want = S_suggest[_i].near
                   ? lit_xasprintf("index.md:5:1: error: undefined chunk '%s'; did you mean '%s'?\n", S_suggest[_i].used,
                                   S_suggest[_i].near)
                   : lit_xasprintf("index.md:5:1: error: undefined chunk '%s'\n", S_suggest[_i].used);
  ck_assert_msg(strncmp(t, want, strlen(want)) == 0, "got %s", t);
  free(want);
  free(t);
  free(index);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* Suggestions stop after 100 different undefined names; the same name again
 * gets the same suggestion without a new search. */
START_TEST(test_suggestion_cap) {
  lit_buf t = LIT_BUF_INIT;
  lit_buf_puts(&t, FM "```{.c file=out/x.c}\n");
  for (int i = 0; i < 150; i++) lit_buf_printf(&t, "<<name-%03dx>>\n", i);
  lit_buf_puts(&t, "<<name-000x>>\n```\n");
  for (int i = 0; i < 150; i++) lit_buf_printf(&t, "```{.c #name-%03d}\nx\n```\n", i);
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(t.data, NULL, NULL, d);
  char *text = ck_diags_text(d);
  size_t suggested = 0;
  for (const char *c = text; (c = strstr(c, "did you mean")) != NULL; c++) suggested++;
  ck_assert_uint_eq(suggested, 101);
  ck_assert_ptr_nonnull(strstr(text, "undefined chunk 'name-099x'; did you mean 'name-099'?"));
  ck_assert_ptr_nonnull(strstr(text, "undefined chunk 'name-100x'\n"));
  ck_assert_ptr_nonnull(strstr(text, "index.md:155:1: error: undefined chunk 'name-000x'; did you mean 'name-000'?"));
  ck_assert_ptr_nonnull(strstr(text, "lit: note: more than 100 different undefined chunks"));
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 151);
  free(text);
  lit_project_free(p);
  lit_diags_free(d);
  lit_buf_free(&t);
}
END_TEST

START_TEST(test_config) {
  const char *index = "---\ntangle-roots: kernels, skill/scripts/  extra\ntangle-record: build/rec\n---\n";
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(index, NULL, NULL, d);
  ck_assert_uint_eq(p->nroots, 3);
  ck_assert_str_eq(p->tangle_roots[0], "kernels/");
  ck_assert_str_eq(p->tangle_roots[1], "skill/scripts/");
  ck_assert_str_eq(p->tangle_roots[2], "extra/");
  ck_assert_str_eq(p->record_path, "build/rec");
  lit_project_free(p);
  p = ck_load("# none\n", NULL, NULL, d);
  ck_assert_uint_eq(p->nroots, 0);
  ck_assert_str_eq(p->record_path, ".lit-record");
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* A 10,000-deep chain loads and passes the cycle check without recursion. */
START_TEST(test_deep_chain) {
  enum { N = 10000 };
  lit_buf t = LIT_BUF_INIT;
  lit_buf_puts(&t, FM "```{.c file=out/deep.c}\n<<c0>>\n```\n");
  for (int i = 0; i < N; i++) lit_buf_printf(&t, "```{.c #c%d}\n <<c%d>>\n```\n", i, i + 1);
  lit_buf_printf(&t, "```{.c #c%d}\nend;\n```\n", N);
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(t.data, NULL, NULL, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR) + lit_diags_count(d, LIT_WARNING), 0);
  ck_assert_uint_eq(p->nchunks, N + 1);
  lit_project_free(p);
  lit_diags_free(d);
  /* closing the chain into a loop is reported once, with the whole chain */
  lit_buf_truncate(&t, t.len - strlen("end;\n```\n"));
  lit_buf_puts(&t, "<<c0>>\n```\n");
  d = lit_diags_new();
  p = ck_load(t.data, NULL, NULL, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 1);
  ck_assert_uint_eq(lit_diags_count(d, LIT_NOTE), N + 1);
  lit_project_free(p);
  lit_diags_free(d);
  lit_buf_free(&t);
}
END_TEST

/* Paths the system would refuse are refused at their block, not when the
 * write fails (or never, under --check). */
START_TEST(test_path_length) {
  char name[300], deep[4400];
  memset(name, 'n', 256);
  name[256] = '\0';
  size_t n = 0;
  while (n < 4100) {
    memset(deep + n, 'd', 200);
    deep[n + 200] = '/';
    n += 201;
  }
  deep[n] = '\0';
  char *index = lit_xasprintf(FM "```{.c file=out/%.253s.c}\nfits\n```\n```{.c file=out/%s.c}\nname\n```\n"
                                 "```{.c file=out/%sa.c}\npath\n```\n",
                              name, name, deep);
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(index, NULL, NULL, d);
  char *t = ck_diags_text(d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 2);
  ck_assert_ptr_nonnull(strstr(t, ".c': a name in the path is longer than NAME_MAX (255 bytes)"));
  ck_assert_ptr_nonnull(strstr(t, "index.md:7:8: error: cannot write 'out/nnn"));
  ck_assert_ptr_nonnull(strstr(t, "index.md:10:8: error: cannot write 'out/ddd"));
  ck_assert_ptr_nonnull(strstr(t, "a.c': the path is too long"));
  ck_assert_uint_eq(p->nfiles, 1); /* the 255-byte name */
  free(t);
  free(index);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* levels chunks, each including the next twice (the second indented by
 * two spaces, with a blank line between), down to "int x;" and a blank
 * line and a tabbed line. */
static char *S_doubling(int levels) {
  lit_buf t = LIT_BUF_INIT;
  lit_buf_puts(&t, FM "```{.c file=out/big.c}\n<<c0>>\n```\n");
  for (int i = 0; i < levels; i++) lit_buf_printf(&t, "```{.c #c%d}\n<<c%d>>\n\n  <<c%d>>\n```\n", i, i + 1, i + 1);
  lit_buf_printf(&t, "```{.c #c%d}\nint x;\n \n\ty;\n```\n", levels);
  return lit_buf_detach(&t);
}

/* The size the model computes is the tangler's to the byte: a limit of
 * exactly the body passes, one byte less is refused. */
START_TEST(test_size_limit_exact) {
  char *index = S_doubling(8);
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(index, NULL, NULL, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  char *got = ck_tangle(p, "out/big.c", 0, d);
  const char *body = strstr(got, "rewrites it.\n") + strlen("rewrites it.\n");
  char limit[32];
  snprintf(limit, sizeof limit, "%zu", strlen(body));
  lit_project_free(p);
  setenv("LIT_MAX_FILE_SIZE", limit, 1);
  p = ck_load(index, NULL, NULL, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_project_free(p);
  snprintf(limit, sizeof limit, "%zu", strlen(body) - 1);
  setenv("LIT_MAX_FILE_SIZE", limit, 1);
  p = ck_load(index, NULL, NULL, d);
  char *t = ck_diags_text(d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 1);
  char *want = lit_xasprintf("index.md:4:8: error: 'out/big.c' would be %zu bytes once its chunks are expanded, more "
                             "than the limit of %s bytes a file",
                             strlen(body), limit);
  ck_assert_msg(strncmp(t, want, strlen(want)) == 0, "got %s", t);
  ck_assert_ptr_nonnull(strstr(t, "index.md:5:1: note: 'out/big.c' includes 'c0' here, which is "));
  ck_assert_ptr_nonnull(strstr(t, "index.md:8:1: note: 'c0' includes 'c1' 2 times (the first here), which is "));
  unsetenv("LIT_MAX_FILE_SIZE");
  free(want);
  free(t);
  free(got);
  free(index);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* 2^70 copies: refused at once, the size saturating rather than wrapping
 * round to something small; the chain's middle is left out. */
START_TEST(test_size_limit_saturates) {
  char *index = S_doubling(70);
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(index, NULL, NULL, d);
  char *t = ck_diags_text(d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 1);
  ck_assert_ptr_nonnull(strstr(t, "error: 'out/big.c' would be more than 16 EiB once its chunks are expanded, more "
                                  "than the limit of 256.0 MiB a file (LIT_MAX_FILE_SIZE sets it)"));
  ck_assert_uint_eq(lit_diags_count(d, LIT_NOTE), 33); /* 16 steps, the gap, 16 steps */
  ck_assert_ptr_nonnull(strstr(t, "more steps of the chain, from here on, are not shown"));
  ck_assert_ptr_nonnull(strstr(t, "note: 'c47' includes 'c48' 2 times (the first here), which is 232.0 MiB each\n"));
  free(t);
  free(index);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_size_limit_env) {
  static const char *const bad[] = {"0", "abc", "12Q", "-5", " 5", "99999999999999999999", "17179869184T"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    setenv("LIT_MAX_FILE_SIZE", bad[i], 1);
    lit_diags *d = lit_diags_new();
    lit_project *p = ck_load(FM "```{.c file=out/x.c}\nx\n```\n", NULL, NULL, d);
    char *t = ck_diags_text(d);
    char *want = lit_xasprintf("lit: error: LIT_MAX_FILE_SIZE='%s' is not a size", bad[i]);
    ck_assert_msg(strncmp(t, want, strlen(want)) == 0, "%s: got %s", bad[i], t);
    free(want);
    free(t);
    lit_project_free(p);
    lit_diags_free(d);
  }
  setenv("LIT_MAX_FILE_SIZE", "1k", 1); /* K, M, G, T: powers of 1024 */
  lit_diags *d = lit_diags_new();
  char *index = S_doubling(6);
  lit_project *p = ck_load(index, NULL, NULL, d);
  char *t = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(t, "more than the limit of 1.0 KiB a file"));
  unsetenv("LIT_MAX_FILE_SIZE");
  free(t);
  free(index);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* ---- a load that reuses a loaded project (lit stitch's check) ---- */

static const char *S_reuse_index = FM "1. [A](a.md)\n\n```{.c file=out/x.c}\n<<p>>\n<<q>>\n```\n";
/* Lines 2 (in #p), 6 (in #q), 10 (in out/y.c's block) and 14 (in #r) are
 * the lines of code the cases edit. */
static const char *S_reuse_a = "```{.c #p}\nint p;\n```\n\n```{.c #q}\nint q;\n```\n\n"
                               "```{.c file=out/y.c}\n<<p>>\n```\n\n```{.c #r}\nint r;\n```\n";

/* Edits of a.md: up to two, each lines [line, line + nold) of block `block`
 * replaced by the lines of `with` (separated by '|'). */
static const struct {
  struct {
    size_t block;
    int line, nold;
    const char *with;
  } e[2];
  size_t n;
  int like; /* the chunk table is copied from the loaded project */
} S_reuse_cases[] = {
    {{{0, 2, 1, "int p2;"}}, 1, 1},                           /* code only */
    {{{0, 2, 0, "<<r>>"}}, 1, 1},                             /* a new reference: r is used now */
    {{{0, 2, 1, "<<nothere>>"}}, 1, 1},                       /* an undefined chunk */
    {{{0, 2, 1, "<<q>>"}, {1, 6, 1, "<<p>>"}}, 2, 1},         /* a cycle */
    {{{2, 10, 1, ""}}, 1, 1},                                 /* a reference removed: p still used by x.c */
    {{{1, 6, 1, "int q1;|int q2;"}, {3, 14, 1, "<<q>>"}}, 2, 1}, /* two blocks, lines added above the second */
    {{{0, 2, 1, "```"}}, 1, 0},                               /* a fence: a.md is parsed again */
};

/* a.md with case i's edits made, and the edits as the load takes them. */
static char *S_reuse_edit(size_t i, const lit_project *p, lit_doc_edit *edits) {
  lit_buf out = LIT_BUF_INIT;
  const char *t = S_reuse_a;
  int line = 1;
  for (size_t k = 0; k < S_reuse_cases[i].n; k++) {
    const char *w = S_reuse_cases[i].e[k].with;
    for (; line < S_reuse_cases[i].e[k].line; line++) {
      const char *nl = strchr(t, '\n');
      lit_buf_put(&out, t, (size_t)(nl + 1 - t));
      t = nl + 1;
    }
    int nnew = 0;
    for (const char *c = w; *c || c == w; c++) {
      const char *bar = strchr(c, '|');
      size_t len = bar ? (size_t)(bar - c) : strlen(c);
      lit_buf_put(&out, c, len);
      lit_buf_putc(&out, '\n');
      nnew++;
      c += len;
      if (!*c) break;
    }
    for (int j = 0; j < S_reuse_cases[i].e[k].nold; j++, line++)
      t = strchr(t, '\n') + 1;
    edits[k] = (lit_doc_edit){p->docs[1]->blocks[S_reuse_cases[i].e[k].block], S_reuse_cases[i].e[k].line,
                              S_reuse_cases[i].e[k].nold, nnew};
  }
  lit_buf_puts(&out, t);
  return lit_buf_detach(&out);
}

/* q (reusing) and f (loaded afresh) hold the same model, block for block. */
static void S_same_model(const lit_project *q, const lit_project *f) {
  lit_buf a = LIT_BUF_INIT, b = LIT_BUF_INIT;
  lit_dump(q, &a);
  lit_dump(f, &b);
  ck_assert_str_eq(a.data, b.data);
  lit_buf_free(&a);
  lit_buf_free(&b);
  ck_assert_uint_eq(q->nchunks, f->nchunks);
  ck_assert_uint_eq(lit_project_nchunk_ids(q), lit_project_nchunk_ids(f));
  ck_assert_uint_eq(q->ndocs, f->ndocs);
  for (size_t i = 0; i < q->ndocs; i++) {
    ck_assert_uint_eq(q->docs[i]->nblocks, f->docs[i]->nblocks);
    for (size_t k = 0; k < q->docs[i]->nblocks; k++) {
      const lit_block *x = q->docs[i]->blocks[k], *y = f->docs[i]->blocks[k];
      ck_assert_int_eq(!x->chunk, !y->chunk);
      if (x->chunk) {
        ck_assert_uint_eq(x->chunk->id, y->chunk->id);
        ck_assert_uint_eq(x->def_index, y->def_index);
        ck_assert_uint_eq(x->chunk->nuses, y->chunk->nuses);
        ck_assert_ptr_eq(x->chunk->defs[x->def_index], x);
        ck_assert_ptr_eq(lit_project_find(q, x->name ? x->name : "", x->name ? strlen(x->name) : 0),
                         x->name ? x->chunk : NULL);
      }
      ck_assert_uint_eq(x->nsegs, y->nsegs);
      for (size_t j = 0; j < x->nsegs; j++) {
        const lit_chunk *u = x->segs[j].target, *v = y->segs[j].target;
        ck_assert_int_eq(!u, !v);
        if (u) {
          ck_assert_uint_eq(u->id, v->id);
          ck_assert_ptr_eq(q->chunks[u->id], u); /* q's own chunks, not the loaded project's */
        }
      }
    }
  }
  for (size_t i = 0; i < q->nfiles; i++) {
    ck_assert_ptr_eq(q->files[i].block->doc, q->docs[q->files[i].block->doc->order]);
    ck_assert_uint_eq(q->files[i].root->id, f->files[i].root->id);
  }
}

START_TEST(test_load_reusing) {
  const char *names[2] = {"index.md", "a.md"};
  lit_diags *d = lit_diags_new();
  lit_project *p = ck_load(S_reuse_index, S_reuse_a, NULL, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_doc_edit edits[2];
  char *a = S_reuse_edit((size_t)_i, p, edits);
  const char *texts[2] = {S_reuse_index, a};
  size_t lens[2] = {strlen(S_reuse_index), strlen(a)};
  const lit_doc_edit *by_doc[2] = {NULL, edits};
  size_t nedits[2] = {0, S_reuse_cases[_i].n};
  lit_diags *dq = lit_diags_new(), *df = lit_diags_new();
  lit_project *q = lit_project_load_memory_reusing(names, texts, lens, 2, p, by_doc, nedits, dq);
  lit_project *f = lit_project_load_memory(names, texts, lens, 2, df);
  char *mq = ck_diags_text(dq), *mf = ck_diags_text(df);
  ck_assert_str_eq(mq, mf);
  S_same_model(q, f);
  /* Whether the chunk table was copied: its names are then the loaded ones. */
  ck_assert_int_eq(q->chunks[0]->name == p->chunks[0]->name, S_reuse_cases[_i].like);
  free(mq);
  free(mf);
  lit_project_free(q);
  lit_project_free(f);
  lit_diags_free(dq);
  lit_diags_free(df);
  free(a);
  lit_project_free(p);
  lit_diags_free(d);
}
END_TEST

/* A loaded project whose blocks did not register cleanly (two write one
 * file) lends no chunk table: the same errors come again. */
START_TEST(test_load_reusing_after_errors) {
  const char *index = FM "```{.c file=out/x.c}\n<<p>>\n```\n\n```{.c file=out/x.c}\nint y;\n```\n\n"
                         "```{.c #p}\nint p;\n```\n";
  const char *names[1] = {"index.md"};
  size_t lens[1] = {strlen(index)};
  lit_diags *d = lit_diags_new(), *dq = lit_diags_new(), *df = lit_diags_new();
  lit_project *p = lit_project_load_memory(names, &index, lens, 1, d);
  ck_assert_uint_gt(lit_diags_count(d, LIT_ERROR), 0);
  lit_project *q = lit_project_load_memory_reusing(names, &index, lens, 1, p, NULL, NULL, dq);
  lit_project *f = lit_project_load_memory(names, &index, lens, 1, df);
  char *mq = ck_diags_text(dq), *mf = ck_diags_text(df);
  ck_assert_str_eq(mq, mf);
  ck_assert_ptr_nonnull(strstr(mq, "already written by another block"));
  S_same_model(q, f);
  ck_assert_ptr_ne(q->chunks[0]->name, p->chunks[0]->name);
  free(mq);
  free(mf);
  lit_project_free(q);
  lit_project_free(f);
  lit_project_free(p);
  lit_diags_free(d);
  lit_diags_free(dq);
  lit_diags_free(df);
}
END_TEST

/* A loaded project with a reference cycle: a copy of its chunk table that
 * makes no new reference is checked for cycles again (only an acyclic
 * project's references are known to make none), and says the same. */
START_TEST(test_load_reusing_cycle) {
  const char *index = FM "```{.c file=out/x.c}\n<<p>>\n```\n\n```{.c #p}\nint p;\n<<q>>\n```\n\n"
                         "```{.c #q}\n<<p>>\n```\n";
  const char *edited = FM "```{.c file=out/x.c}\n<<p>>\n```\n\n```{.c #p}\nint p2;\n<<q>>\n```\n\n"
                          "```{.c #q}\n<<p>>\n```\n";
  const char *names[1] = {"index.md"};
  size_t lens[1] = {strlen(index)}, elens[1] = {strlen(edited)};
  lit_diags *d = lit_diags_new(), *dq = lit_diags_new(), *df = lit_diags_new();
  lit_project *p = lit_project_load_memory(names, &index, lens, 1, d);
  char *m = ck_diags_text(d);
  ck_assert_ptr_nonnull(strstr(m, "reference cycle"));
  lit_doc_edit e = {p->docs[0]->blocks[1], 9, 1, 1};
  const lit_doc_edit *by_doc[1] = {&e};
  size_t nedits[1] = {1};
  lit_project *q = lit_project_load_memory_reusing(names, &edited, elens, 1, p, by_doc, nedits, dq);
  lit_project *f = lit_project_load_memory(names, &edited, elens, 1, df);
  char *mq = ck_diags_text(dq), *mf = ck_diags_text(df);
  ck_assert_str_eq(mq, mf);
  ck_assert_ptr_nonnull(strstr(mq, "reference cycle"));
  S_same_model(q, f);
  ck_assert_ptr_eq(q->chunks[0]->name, p->chunks[0]->name); /* the table was copied */
  free(m);
  free(mq);
  free(mf);
  lit_project_free(q);
  lit_project_free(f);
  lit_project_free(p);
  lit_diags_free(d);
  lit_diags_free(dq);
  lit_diags_free(df);
}
END_TEST

Suite *model_suite(void) {
  Suite *s = suite_create("model");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_reading_order_and_appends);
  tcase_add_test(tc, test_many_chunks);
  tcase_add_loop_test(tc, test_diagnostics, 0, sizeof S_diag_cases / sizeof S_diag_cases[0]);
  tcase_add_loop_test(tc, test_suggestions, 0, sizeof S_suggest / sizeof S_suggest[0]);
  tcase_add_test(tc, test_suggestion_cap);
  tcase_add_test(tc, test_config);
  tcase_add_test(tc, test_path_length);
  tcase_add_test(tc, test_size_limit_exact);
  tcase_add_test(tc, test_size_limit_saturates);
  tcase_add_test(tc, test_size_limit_env);
  tcase_add_test(tc, test_deep_chain);
  tcase_add_loop_test(tc, test_load_reusing, 0, sizeof S_reuse_cases / sizeof S_reuse_cases[0]);
  tcase_add_test(tc, test_load_reusing_after_errors);
  tcase_add_test(tc, test_load_reusing_cycle);
  suite_add_tcase(s, tc);
  return s;
}

/* check_doc.c: reading one document's code blocks and links with cmark. */
#include "check_lit.h"

#include "doc.h"

static lit_doc *S_parse(const char *text, lit_diags *d) {
  lit_source src;
  lit_source_from_bytes(&src, "d.md", text, strlen(text), d);
  return lit_doc_parse(&src, 0, d);
}

START_TEST(test_blocks_and_flags) {
  const char *t = "# T\n\n"
                  "```{.c #name file=out/x.c}\nint x;\n```\n\n" /* 3 */
                  "```{.c .example}\nint y;\n```\n\n"           /* 7 */
                  "```{.lua .data #specs}\nreturn {}\n```\n\n"  /* 11 */
                  "```{.lua .render}\nreturn ''\n```\n\n"       /* 15 */
                  "```sh\nls\n```\n\n"                          /* 19 */
                  "    indented\n";
  lit_diags *d = lit_diags_new();
  lit_doc *doc = S_parse(t, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  ck_assert_uint_eq(doc->nblocks, 5); /* indented code is not a fenced block */
  const lit_block *b = doc->blocks[0];
  ck_assert_int_eq(b->line, 3);
  ck_assert_int_eq(b->col, 1);
  ck_assert_int_eq(b->code_line, 4);
  ck_assert_pstr_eq(b->lang, "c");
  ck_assert_pstr_eq(b->name, "name");
  ck_assert_pstr_eq(b->file, "out/x.c");
  ck_assert_int_eq(b->name_col, 8);
  ck_assert_int_eq(b->file_col, 14);
  ck_assert_uint_eq(b->flags, LIT_BLOCK_TANGLED);
  ck_assert_uint_eq(b->code_len, 7);
  ck_assert_int_eq(memcmp(b->code, "int x;\n", 7), 0);
  ck_assert_uint_eq(doc->blocks[1]->flags, LIT_BLOCK_EXAMPLE);
  ck_assert_uint_eq(doc->blocks[1]->nsegs, 0); /* examples are not cut into segments */
  ck_assert_uint_eq(doc->blocks[2]->flags, LIT_BLOCK_DATA);
  ck_assert_uint_eq(doc->blocks[3]->flags, LIT_BLOCK_RENDER);
  ck_assert_uint_eq(doc->blocks[4]->flags, 0);
  ck_assert_pstr_eq(doc->blocks[4]->lang, "sh");
  for (size_t i = 0; i < doc->nblocks; i++) ck_assert_uint_eq(doc->blocks[i]->index, i);
  lit_doc_free(doc);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_segments) {
  const char *t = "```{.c #s}\n"
                  "int a;\n"
                  "int b;\n"
                  "  <<inner>>  \n"
                  "\t<<tabbed>>\n"
                  "<<not a name>>\n"
                  "x <<mid>>\n"
                  "<<last>>\n"
                  "```\n";
  lit_diags *d = lit_diags_new();
  lit_doc *doc = S_parse(t, d);
  const lit_block *b = doc->blocks[0];
  ck_assert_uint_eq(b->nsegs, 5);
  const lit_seg *s = b->segs;
  ck_assert_int_eq(s[0].kind, LIT_SEG_TEXT);
  ck_assert_int_eq(s[0].line, 2);
  ck_assert_uint_eq(s[0].nlines, 2);
  ck_assert_int_eq(memcmp(s[0].text, "int a;\nint b;\n", s[0].len), 0);
  ck_assert_uint_eq(s[0].len, 14);
  ck_assert_int_eq(s[1].kind, LIT_SEG_REF);
  ck_assert_int_eq(s[1].line, 4);
  ck_assert_int_eq(s[1].col, 3);
  ck_assert_uint_eq(s[1].len, 5);
  ck_assert_int_eq(memcmp(s[1].text, "inner", 5), 0);
  ck_assert_uint_eq(s[1].indent_len, 2);
  ck_assert_int_eq(memcmp(s[1].indent, "  ", 2), 0);
  ck_assert_int_eq(s[2].kind, LIT_SEG_REF);
  ck_assert_uint_eq(s[2].indent_len, 1);
  ck_assert_int_eq(s[2].indent[0], '\t');
  ck_assert_int_eq(s[3].kind, LIT_SEG_TEXT); /* an invalid name and a mid-line << are text */
  ck_assert_int_eq(s[3].line, 6);
  ck_assert_uint_eq(s[3].nlines, 2);
  ck_assert_int_eq(s[4].kind, LIT_SEG_REF);
  ck_assert_int_eq(s[4].line, 8);
  ck_assert_int_eq(memcmp(s[4].text, "last", 4), 0);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_doc_free(doc);
  lit_diags_free(d);
}
END_TEST

/* Blocks inside containers: columns of references count from the line start. */
START_TEST(test_containers) {
  const char *t = "> ```{.c #q}\n> <<r>>\n> ```\n\n- item\n\n  ~~~{.c #l}\n  x\n  ~~~\n";
  lit_diags *d = lit_diags_new();
  lit_doc *doc = S_parse(t, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  ck_assert_uint_eq(doc->nblocks, 2);
  ck_assert_pstr_eq(doc->blocks[0]->name, "q");
  ck_assert_int_eq(doc->blocks[0]->col, 3);
  ck_assert_int_eq(doc->blocks[0]->segs[0].kind, LIT_SEG_REF);
  ck_assert_int_eq(doc->blocks[0]->segs[0].col, 3);
  ck_assert_pstr_eq(doc->blocks[1]->name, "l");
  ck_assert_int_eq(doc->blocks[1]->line, 7);
  ck_assert_uint_eq(doc->blocks[1]->code_len, 2);
  ck_assert_int_eq(memcmp(doc->blocks[1]->code, "x\n", 2), 0);
  lit_doc_free(doc);
  lit_diags_free(d);
}
END_TEST

static const struct {
  const char *text;
  const char *want;
} S_errors[] = {
    {"```c\nint x;\n```\n", "d.md:1:1: error: untagged c block: give it a #name or file= to tangle it, or mark it "
                            "{.c .example} if it is only an illustration\n"},
    {"```{.c #open}\nint x;\n", "d.md:1:1: error: code fence is never closed: add a closing '```' line (the block "
                                "runs to the end of its container)\n"},
    {"~~~~{.c #open}\nx\n~~~\n", "d.md:1:1: error: code fence is never closed: add a closing '~~~' line (the block "
                                 "runs to the end of its container)\n"},
    {"```{.c #x}\n<<>>\n```\n", "d.md:2:1: error: empty chunk name in reference '<<>>'\n"},
    {"```{.c #x bad=1}\nx\n```\n", "d.md:1:11: error: unknown attribute 'bad' (known: file)\n"},
    {"```{.c .example #x}\nx\n```\n",
     "d.md:1:4: error: an .example block is never tangled, so it cannot have #name or file=\n"},
    {"```{.lua .data}\nx\n```\n", "d.md:1:4: error: a .data block needs a #name to be found by\n"},
    {"```{.lua .render file=out/x}\nx\n```\n",
     "d.md:1:18: error: .data and .render blocks are for the weaver; drop file=\n"},
    {"```python\nx\n```\n```sh\nx\n```\n```\nx\n```\n```text\nx\n```\n",
     "d.md:1:1: error: untagged python block: give it a #name or file= to tangle it, or mark it {.python .example} "
     "if it is only an illustration\n"},
    {"```c {.c #x\nx\n```\n", "d.md:1:12: error: attribute list has no closing '}'\n"},
    {"````{.c #x}\n```\n````\n", ""}, /* a shorter fence inside is content */
    /* a last line that merely ends in backticks does not close the block */
    {"```{.c #open}\nint x; ```\n", "d.md:1:1: error: code fence is never closed: add a closing '```' line (the "
                                     "block runs to the end of its container)\n"},
    {"> ```{.c #q}\n> x\n> ```\n", ""}, /* closed inside a block quote */
    {"```{.c #x}\nx\n```   \n", ""},  /* trailing spaces after the closing fence */
    /* a closing fence indented less than the item's text ends the item, and the block with it */
    {"- item\n\n  ```{.c #x}\n  x\n ```\n  lost\n  ```\n",
     "d.md:3:3: error: code fence is never closed inside its list item or quote: the closing fence on line 5 is "
     "indented less than the item's text, so the item ends first; indent it like the opening fence\n"},
    {"> ```{.c #q}\n> q\n```\nlost\n```\n",
     "d.md:1:3: error: code fence is never closed inside its list item or quote: the closing fence on line 3 is "
     "indented less than the item's text, so the item ends first; indent it like the opening fence\n"},
    {"- item\n\n  ```{.c #x}\n  x\n  ```\n", ""}, /* closed inside the item */
    /* an unclosed block swallows a tagged one: named at its own fence */
    {"```text\nout\n\n```{.c #x}\nx\n```\n",
     "d.md:1:1: error: this code block runs on to line 6, past line 4 where a tagged block opens: is its closing "
     "'```' line missing?\n"},
    {"````markdown\n```{.c #x}\nx\n```\n````\n", ""}, /* a longer fence shows a tagged block on purpose */
    /* Markdown is not read inside an HTML block */
    {"<details>\n```{.c #x}\nx\n```\n</details>\n",
     "d.md:2:1: error: this tagged code block sits inside an HTML block (from line 1, '<details>'), where Markdown "
     "is not read, so lit never sees it: leave a blank line between the HTML and the fence\n"},
    {"<details>\n```c\nx\n```\n</details>\n", ""}, /* untagged: only shown, as the author may mean */
    {"<details>\n\n```{.c #x}\nx\n```\n\n</details>\n", ""},
    /* a reference-shaped line with a name no chunk can have */
    {"```{.c #x}\n<<a b>>\n  <<<grid, block>>>\n```\n",
     "d.md:2:1: warning: '<<a b>>' is not a chunk reference, since a name holds only letters, digits and _ : / . -; "
     "the line is copied as text\n"},
    /* a tagged fence indented four spaces past its text is an indented code block, never tangled */
    {"1. item\n\n       ```{.c #x}\n       x\n       ```\n",
     "d.md:3:8: warning: this looks like a tagged code block, but it is indented four or more spaces past the text it "
     "belongs to, so Markdown reads it as an indented code block and lit does not tangle it: indent it like that "
     "text (to show a tagged block as an example, put it in a longer fence, such as ````markdown)\n"},
    {"> x\n>\n>     ~~~{.c file=out/q.c}\n>     q\n>     ~~~\n",
     "d.md:3:7: warning: this looks like a tagged code block, but it is indented four or more spaces past the text it "
     "belongs to, so Markdown reads it as an indented code block and lit does not tangle it: indent it like that "
     "text (to show a tagged block as an example, put it in a longer fence, such as ````markdown)\n"},
    {"text\n\n    x\n\n    ```{.c #x}\n", /* the block's lines are the source's, blank ones too */
     "d.md:5:5: warning: this looks like a tagged code block, but it is indented four or more spaces past the text it "
     "belongs to, so Markdown reads it as an indented code block and lit does not tangle it: indent it like that "
     "text (to show a tagged block as an example, put it in a longer fence, such as ````markdown)\n"},
    {"    ```c\n    int shown;\n    ```\n", ""}, /* untagged: an illustration */
    {"- item\n\n  ```{.c #x}\n  x\n  ```\n\n> ```{.c #y}\n> y\n> ```\n", ""}, /* in items and quotes: tangled */
};

START_TEST(test_errors) {
  lit_diags *d = lit_diags_new();
  lit_doc *doc = S_parse(S_errors[_i].text, d);
  char *t = ck_diags_text(d);
  ck_assert_str_eq(t, S_errors[_i].want);
  free(t);
  lit_doc_free(doc);
  lit_diags_free(d);
}
END_TEST

START_TEST(test_links) {
  const char *t = "1. [A](a.md)\n2. [B](sub/b.md#part)\n3. [web](https://x.org/c.md)\n4. [abs](/root.md)\n"
                  "5. [anchor](#top)\n6. [mail](mailto:x@y.md)\n7. [txt](notes.txt)\n\nSee [A again](a.md).\n";
  lit_diags *d = lit_diags_new();
  lit_doc *doc = S_parse(t, d);
  ck_assert_uint_eq(doc->nlinks, 3);
  ck_assert_str_eq(doc->links[0].url, "a.md");
  ck_assert_int_eq(doc->links[0].line, 1);
  ck_assert_str_eq(doc->links[1].url, "sub/b.md#part");
  ck_assert_int_eq(doc->links[1].line, 2);
  ck_assert_str_eq(doc->links[2].url, "a.md");
  ck_assert_int_eq(doc->links[2].line, 9);
  lit_doc_free(doc);
  lit_diags_free(d);
}
END_TEST

/* Two documents alike in everything the model reads from them. */
static void S_same_doc(const lit_doc *a, const lit_doc *b) {
  ck_assert_uint_eq(a->nblocks, b->nblocks);
  for (size_t i = 0; i < a->nblocks; i++) {
    const lit_block *x = a->blocks[i], *y = b->blocks[i];
    ck_assert_int_eq(x->line, y->line);
    ck_assert_int_eq(x->col, y->col);
    ck_assert_int_eq(x->code_line, y->code_line);
    ck_assert_uint_eq(x->flags, y->flags);
    ck_assert_pstr_eq(x->name, y->name);
    ck_assert_pstr_eq(x->file, y->file);
    ck_assert_uint_eq(x->code_len, y->code_len);
    ck_assert_int_eq(memcmp(x->code, y->code, x->code_len), 0);
    ck_assert_uint_eq(x->nsegs, y->nsegs);
    for (size_t k = 0; k < x->nsegs; k++) {
      const lit_seg *u = &x->segs[k], *v = &y->segs[k];
      ck_assert_int_eq(u->kind, v->kind);
      ck_assert_int_eq(u->line, v->line);
      ck_assert_int_eq(u->col, v->col);
      ck_assert_uint_eq(u->len, v->len);
      ck_assert_int_eq(memcmp(u->text, v->text, u->len), 0);
      ck_assert_uint_eq(u->nlines, v->nlines);
      ck_assert_uint_eq(u->nblank, v->nblank);
      ck_assert_uint_eq(u->indent_len, v->indent_len);
    }
  }
  ck_assert_uint_eq(a->nlinks, b->nlinks);
  for (size_t i = 0; i < a->nlinks; i++) {
    ck_assert_str_eq(a->links[i].url, b->links[i].url);
    ck_assert_int_eq(a->links[i].line, b->links[i].line);
  }
}

static const char *S_before = "# T\n\n"                            /* 1 */
                              "```{.c #a}\none\ntwo\nthree\n```\n\n" /* 3: content 4-6 */
                              "[A](a.md)\n\n"                        /* 9 */
                              "```{.c file=out/x.c}\n<<a>>\nend\n```\n\n" /* 11: content 12-13 */
                              "```{.c #b}\n```\n\n"                  /* 16: empty */
                              "See [B](b.md).\n";                    /* 19 */

/* edits of S_before and the text they make; block indices into it */
static const struct {
  const char *after;
  size_t n;
  struct { size_t block; int line, nold, nnew; } e[3];
} S_edit_cases[] = {
    /* one line of the first block for three, one a reference */
    {"# T\n\n```{.c #a}\none\nTWO\n  <<b>>\nx\nthree\n```\n\n[A](a.md)\n\n"
     "```{.c file=out/x.c}\n<<a>>\nend\n```\n\n```{.c #b}\n```\n\nSee [B](b.md).\n",
     1, {{0, 5, 1, 3}}},
    /* a deletion in the first block, an insertion before the closing fence of the second */
    {"# T\n\n```{.c #a}\none\nthree\n```\n\n[A](a.md)\n\n"
     "```{.c file=out/x.c}\n<<a>>\nend\nmore\n```\n\n```{.c #b}\n```\n\nSee [B](b.md).\n",
     2, {{0, 5, 1, 0}, {1, 14, 0, 1}}},
    /* the empty block filled, the others untouched */
    {"# T\n\n```{.c #a}\none\ntwo\nthree\n```\n\n[A](a.md)\n\n"
     "```{.c file=out/x.c}\n<<a>>\nend\n```\n\n```{.c #b}\nint b;\n<<>>\n```\n\nSee [B](b.md).\n",
     1, {{2, 17, 0, 2}}},
};

START_TEST(test_clone_edited) {
  lit_diags *d = lit_diags_new();
  lit_doc *old = S_parse(S_before, d);
  ck_assert_uint_eq(lit_diags_count(d, LIT_ERROR), 0);
  lit_doc_edit e[3];
  for (size_t i = 0; i < S_edit_cases[_i].n; i++)
    e[i] = (lit_doc_edit){old->blocks[S_edit_cases[_i].e[i].block], S_edit_cases[_i].e[i].line,
                          S_edit_cases[_i].e[i].nold, S_edit_cases[_i].e[i].nnew};
  const char *after = S_edit_cases[_i].after;
  lit_diags *d1 = lit_diags_new(), *d2 = lit_diags_new();
  lit_source src;
  lit_source_from_bytes(&src, "d.md", after, strlen(after), d1);
  lit_doc *fast = lit_doc_clone_edited(old, &src, 0, e, S_edit_cases[_i].n, d1);
  ck_assert_ptr_nonnull(fast);
  ck_assert_ptr_null(src.text); /* taken over */
  lit_doc *slow = S_parse(after, d2);
  S_same_doc(fast, slow);
  /* the edited blocks' messages (the empty reference of case 2) as a parse gives them */
  ck_assert_uint_eq(lit_diags_count(d1, LIT_ERROR), lit_diags_count(d2, LIT_ERROR));
  lit_doc_free(fast);
  lit_doc_free(slow);
  lit_doc_free(old);
  lit_diags_free(d1);
  lit_diags_free(d2);
  lit_diags_free(d);
}
END_TEST

/* Edits the clone must leave to a parse: it returns NULL, src untouched. */
START_TEST(test_clone_edited_refuses) {
  lit_diags *d = lit_diags_new();
  lit_doc *old = S_parse(S_before, d);
  const struct {
    const char *after;
    int line, nold, nnew;
  } cases[] = {
      /* a new line that closes the fence */
      {"# T\n\n```{.c #a}\none\n```\nthree\n```\n\n[A](a.md)\n\n```{.c file=out/x.c}\n<<a>>\nend\n```\n\n"
       "```{.c #b}\n```\n\nSee [B](b.md).\n", 5, 1, 1},
      /* a line outside the edit changed too */
      {"# U\n\n```{.c #a}\none\nTWO\nthree\n```\n\n[A](a.md)\n\n```{.c file=out/x.c}\n<<a>>\nend\n```\n\n"
       "```{.c #b}\n```\n\nSee [B](b.md).\n", 5, 1, 1},
      /* an edit past the block's content (its closing fence) */
      {S_before, 7, 1, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    lit_doc_edit e = {old->blocks[0], cases[i].line, cases[i].nold, cases[i].nnew};
    lit_source src;
    lit_source_from_bytes(&src, "d.md", cases[i].after, strlen(cases[i].after), d);
    ck_assert_ptr_null(lit_doc_clone_edited(old, &src, 0, &e, 1, d));
    ck_assert_ptr_nonnull(src.text);
    lit_source_free(&src);
  }
  /* a block inside a list item: its content is not the source text */
  const char *listed = "1. item\n\n   ```{.c #a}\n   one\n   ```\n";
  lit_doc *l = S_parse(listed, d);
  lit_doc_edit e = {l->blocks[0], 4, 1, 1};
  lit_source src;
  const char *listed_after = "1. item\n\n   ```{.c #a}\n   ONE\n   ```\n";
  lit_source_from_bytes(&src, "d.md", listed_after, strlen(listed_after), d);
  ck_assert_ptr_null(lit_doc_clone_edited(l, &src, 0, &e, 1, d));
  lit_source_free(&src);
  lit_doc_free(l);
  lit_doc_free(old);
  lit_diags_free(d);
}
END_TEST

Suite *doc_suite(void) {
  Suite *s = suite_create("doc");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_blocks_and_flags);
  tcase_add_test(tc, test_segments);
  tcase_add_test(tc, test_containers);
  tcase_add_loop_test(tc, test_errors, 0, sizeof S_errors / sizeof S_errors[0]);
  tcase_add_test(tc, test_links);
  tcase_add_loop_test(tc, test_clone_edited, 0, sizeof S_edit_cases / sizeof S_edit_cases[0]);
  tcase_add_test(tc, test_clone_edited_refuses);
  suite_add_tcase(s, tc);
  return s;
}

/* fuzz_weave.c: libFuzzer target over the weaver: `lit book` and
 * `lit skill` on projects loaded from memory, built into trees in memory.
 *
 * The input is split as in fuzz_input.h into up to three documents. A
 * project that loads without errors is woven into the book and the skill
 * bundle (Lua blocks included, under the sandbox's budgets). The target
 * aborts when a weave that reported no error produced an output path that
 * is not a plain relative path, the same path twice, or a skill without a
 * valid name, or when either weave reported no error but produced nothing. */
#define _XOPEN_SOURCE 700
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../gen/diag.h"
#include "../../gen/book.h"
#include "../../gen/model.h"
#include "../../gen/paths.h"
#include "../../gen/skill.h"
#include "../../gen/tree.h"
#include "../../gen/util.h"
#include "fuzz_input.h"
#include "fuzz_scratch.h"

enum { S_MAX_DOCS = 3 };

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* results(path) reads project files: an empty scratch folder holds none.
 * A Lua call that outlives its wall-clock alarm exits; under the fuzzer's
 * own time limit. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_enter_scratch("weave");
  setenv("LIT_LUA_SECONDS", "5", 0);
  setenv("LIT_MAX_FILE_SIZE", "4M", 0); /* a file expanding past it is refused, not woven for seconds */
  return 0;
}

/* Every path plain, none twice (the tree is sorted by the weave). */
static void S_check_tree(lit_tree *t) {
  lit_tree_sort(t);
  for (size_t i = 0; i < t->n; i++) {
    if (lit_path_check_plain(t->files[i].path)) abort();
    if (i > 0 && strcmp(t->files[i - 1].path, t->files[i].path) == 0) abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_parts parts;
  fuzz_split(data, size, S_MAX_DOCS, &parts);
  lit_diags *d = lit_diags_new();
  lit_diags_set_limit(d, 200);
  lit_project *p = lit_project_load_memory(parts.names, parts.texts, parts.lens, parts.n, d);
  if (p && lit_diags_count(d, LIT_ERROR) == 0) {
    lit_diags *bd = lit_diags_new();
    lit_diags_set_limit(bd, 200);
    lit_tree book = LIT_TREE_INIT;
    if (lit_book_build(p, &book, bd) == LIT_OK) {
      if (book.n == 0) abort();
      S_check_tree(&book);
    }
    lit_tree_free(&book);
    lit_diags_free(bd);

    lit_diags *sd = lit_diags_new();
    lit_diags_set_limit(sd, 200);
    lit_tree skill = LIT_TREE_INIT;
    char *name = NULL;
    if (lit_skill_build(p, &skill, &name, sd) == LIT_OK) {
      if (skill.n == 0 || !name || lit_skill_check_name(name)) abort();
      S_check_tree(&skill);
    }
    free(name);
    lit_tree_free(&skill);
    lit_diags_free(sd);
  }
  lit_project_free(p);
  lit_diags_free(d);
  fuzz_parts_free(&parts);
  return 0;
}

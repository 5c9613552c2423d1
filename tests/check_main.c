/* check_main.c: runs every module's suite and prints Check's summary. */
#include "check_lit.h"

int main(void) {
  SRunner *sr = srunner_create(util_suite());
  srunner_add_suite(sr, diag_suite());
  srunner_add_suite(sr, hash_suite());
  srunner_add_suite(sr, attrs_suite());
  srunner_add_suite(sr, source_suite());
  srunner_add_suite(sr, lang_suite());
  srunner_add_suite(sr, doc_suite());
  srunner_add_suite(sr, model_suite());
  srunner_add_suite(sr, tangle_suite());
  srunner_add_suite(sr, record_suite());
  srunner_add_suite(sr, paths_suite());
  srunner_add_suite(sr, outputs_suite());
  srunner_add_suite(sr, commit_suite());
  srunner_add_suite(sr, dump_suite());
  srunner_add_suite(sr, stats_suite());
  srunner_add_suite(sr, lua_host_suite());
  srunner_add_suite(sr, render_suite());
  srunner_add_suite(sr, weave_suite());
  srunner_add_suite(sr, highlight_suite());
  srunner_add_suite(sr, skill_suite());
  srunner_add_suite(sr, book_suite());
  srunner_add_suite(sr, book_search_suite());
  srunner_add_suite(sr, tree_suite());
  srunner_add_suite(sr, serve_suite());
  srunner_add_suite(sr, diff_suite());
  srunner_add_suite(sr, linemap_suite());
  srunner_add_suite(sr, docedit_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

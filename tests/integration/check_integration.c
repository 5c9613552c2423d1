/* check_integration.c: the suites that read the repository's own documents
 * rather than a project of their own (make check-integration). They run in
 * tests/integration/, so the repository is ../.. */
#include "check_lit.h"

Suite *specs_suite(void); /* the repository's GPU data: every figure names its source */

int main(void) {
  SRunner *sr = srunner_create(specs_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

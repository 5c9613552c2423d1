/* fault.h: test hooks at every step that changes the disk.
 *
 * The tangle's commit and the weaver's folder install call lit_fault_step
 * before each step (a folder made, a file created, written or renamed, a
 * journal written, an old copy removed). Steps are counted from 1 in the
 * order a run takes them, so a test can stop a run at any one of them:
 *
 *   LIT_TEST_CRASH_AT=N   the Nth step kills the process (SIGKILL): the
 *                         crash-consistency test's interrupted run
 *   LIT_TEST_FAIL_AT=N    the Nth step fails with ENOSPC: the rollback test
 *
 * Without either variable a step costs one counter increment. */
#ifndef LIT_FAULT_H
#define LIT_FAULT_H

/* Returns 0, or the errno the step must fail with. May not return. */
int lit_fault_step(void);

#endif

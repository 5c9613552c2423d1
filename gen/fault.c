#define _POSIX_C_SOURCE 200809L
#include "fault.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>

static long S_read_env(const char *name) {
  const char *v = getenv(name);
  return v && v[0] ? strtol(v, NULL, 10) : 0;
}

int lit_fault_step(void) {
  static long steps, crash_at = -1, fail_at = -1;
  if (crash_at < 0) {
    crash_at = S_read_env("LIT_TEST_CRASH_AT");
    fail_at = S_read_env("LIT_TEST_FAIL_AT");
  }
  steps++;
  if (steps == crash_at) raise(SIGKILL);
  return steps == fail_at ? ENOSPC : 0;
}

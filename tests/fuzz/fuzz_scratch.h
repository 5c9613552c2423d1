/* fuzz_scratch.h: the scratch folder of the targets that write files
 * (fuzz_write, fuzz_weave). Include after defining _XOPEN_SOURCE 700. */
#ifndef FUZZ_SCRATCH_H
#define FUZZ_SCRATCH_H

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../gen/util.h"

/* Makes a fresh folder lit-fuzz-<name>.XXXXXX (in /dev/shm when there is
 * one) the current folder for the whole run, so that what a target writes
 * stays there; aborts if it cannot. */
static inline void fuzz_enter_scratch(const char *name) {
  struct stat st;
  const char *base = stat("/dev/shm", &st) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char *dir = lit_xasprintf("%s/lit-fuzz-%s.XXXXXX", base, name);
  if (!mkdtemp(dir) || chdir(dir) != 0) abort();
  free(dir);
}

#endif

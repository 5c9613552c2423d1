/* parallel.h: running independent jobs on every core.
 *
 * The reader parses documents with it and the weaver parses and renders
 * pages with it. Jobs are numbered 0..n-1 and handed out one at a time, so
 * uneven jobs balance; the calling thread works too, so with one core (or
 * if no thread can be started) everything runs on it. Nothing is allocated
 * that outlives the call. */
#ifndef LIT_PARALLEL_H
#define LIT_PARALLEL_H

#include <stddef.h>

/* Calls fn(ctx, i) once for each i in [0, n), on up to 8 threads, and
 * returns when all calls have returned. fn must be safe to run
 * concurrently for different i. */
void lit_parallel_for(size_t n, void (*fn)(void *ctx, size_t i), void *ctx);

#endif

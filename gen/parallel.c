#include "parallel.h"

#include <pthread.h>
#include <unistd.h>

typedef struct {
  void (*fn)(void *, size_t);
  void *ctx;
  size_t n, next;
  pthread_mutex_t lock;
} S_pool;

static void *S_worker(void *arg) {
  S_pool *pool = arg;
  for (;;) {
    pthread_mutex_lock(&pool->lock);
    size_t i = pool->next++;
    pthread_mutex_unlock(&pool->lock);
    if (i >= pool->n) return NULL;
    pool->fn(pool->ctx, i);
  }
}

void lit_parallel_for(size_t n, void (*fn)(void *ctx, size_t i), void *ctx) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t nt = cpus > 1 ? (size_t)cpus : 1;
  if (nt > 8) nt = 8;
  if (nt > n) nt = n;
  S_pool pool = {fn, ctx, n, 0, PTHREAD_MUTEX_INITIALIZER};
  pthread_t threads[8];
  size_t started = 0;
  for (size_t t = 1; t < nt; t++)
    if (pthread_create(&threads[started], NULL, S_worker, &pool) == 0) started++;
  S_worker(&pool); /* this thread works too; with no threads it does it all */
  for (size_t t = 0; t < started; t++)
    pthread_join(threads[t], NULL);
  pthread_mutex_destroy(&pool.lock);
}

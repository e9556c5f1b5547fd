/*
 * gate.h -- a barrier for rank threads that can be opened: every rank waits
 * until all `n` have arrived, unless the gate was opened (gate_open: a rank
 * failed, or the waiting took too long), after which every wait returns at
 * once. pthread_barrier_wait cannot be left: a rank whose call failed
 * would leave the others asleep in it forever, and the runtime cannot see
 * them (its deadlock detection counts ranks blocked in its own calls).
 *
 * Used by `tutti run` (cli_run.c) to start every call of a checked run
 * together, so each rank's time in the call leaves out the other ranks'
 * checking, and by `tutti bench coll` (bench_coll.c) between its timed
 * batches. Any thread may call any function; gate_init before, gate_destroy
 * after every rank is done.
 */
#ifndef TUTTI_BENCH_GATE_H
#define TUTTI_BENCH_GATE_H

#include <errno.h>
#include <pthread.h>
#include <time.h>

struct gate {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int n, count; /* ranks, and how many of them wait now */
  unsigned gen; /* passages so far */
  int open;     /* gate_open was called: waits return at once */
};

static inline int gate_init(struct gate *g, int n) {
  pthread_condattr_t ca;
  if (pthread_condattr_init(&ca)) return -1;
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* timed waits by the monotonic clock */
  int bad = pthread_mutex_init(&g->mu, NULL) != 0;
  if (!bad && pthread_cond_init(&g->cv, &ca)) {
    pthread_mutex_destroy(&g->mu);
    bad = 1;
  }
  pthread_condattr_destroy(&ca);
  g->n = n, g->count = 0, g->gen = 0, g->open = 0;
  return bad ? -1 : 0;
}

static inline void gate_destroy(struct gate *g) {
  pthread_cond_destroy(&g->cv);
  pthread_mutex_destroy(&g->mu);
}

/* Open the gate for good: every waiter returns -1, and so does every later
 * wait. */
static inline void gate_open(struct gate *g) {
  pthread_mutex_lock(&g->mu);
  g->open = 1;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
}

/* Wait until all n ranks have arrived: 0. -1 when the gate is open (or
 * opens while this rank waits). `stuck` (may be NULL) is asked every
 * second of waiting with the seconds waited and the number of ranks still
 * missing; when it says 1, the gate opens (and this returns -1). */
static inline int gate_wait(struct gate *g, int (*stuck)(void *arg, double waited, int missing),
                            void *arg) {
  pthread_mutex_lock(&g->mu);
  if (g->open) {
    pthread_mutex_unlock(&g->mu);
    return -1;
  }
  unsigned gen = g->gen;
  if (++g->count == g->n) {
    g->count = 0;
    g->gen++;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    return 0;
  }
  struct timespec t0, dl;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  dl = t0;
  while (gen == g->gen && !g->open) {
    if (!stuck) {
      pthread_cond_wait(&g->cv, &g->mu);
      continue;
    }
    dl.tv_sec += 1;
    if (pthread_cond_timedwait(&g->cv, &g->mu, &dl) != ETIMEDOUT) continue;
    double waited = (double)(dl.tv_sec - t0.tv_sec);
    if (gen == g->gen && !g->open && stuck(arg, waited, g->n - g->count)) {
      g->open = 1;
      pthread_cond_broadcast(&g->cv);
    }
  }
  int rc = gen == g->gen ? -1 : 0; /* passed, unless it opened first */
  pthread_mutex_unlock(&g->mu);
  return rc;
}

#endif

/*
 * gate.h -- a barrier for rank threads that can be opened: every rank waits
 * until all `n` have arrived, unless the gate was opened (gate_open: a rank
 * failed, or the waiting took too long), after which every wait returns at
 * once. pthread_barrier_wait cannot be left: a rank whose call failed
 * would leave the others asleep in it forever, and the runtime cannot see
 * them (its deadlock detection counts ranks blocked in its own calls).
 *
 * Used by cli_exec.c to start every call of a checked run together (the
 * job of `tutti run` and the other commands), so each rank's time in the
 * call leaves out the other ranks' checking; fibers wait in it by yielding
 * (gate_wait_yielding), never by sleeping.
 *
 * How: the last to arrive bumps the generation word and wakes every
 * sleeper on it with one FUTEX_WAKE; a woken rank returns without taking a
 * lock, so thousands of ranks leave as fast as the cores let them (a
 * condition variable would hand its mutex from one to the next). Memory
 * order: arrivals are acq_rel read-modify-writes of `count` and the bump is
 * a release, read with acquire by the waiters, so whatever a rank wrote
 * before it arrived is visible to every rank after it passed. Any thread
 * may call any function; no caller exclusion.
 */
#ifndef TUTTI_BENCH_GATE_H
#define TUTTI_BENCH_GATE_H

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct gate {
  int n;             /* ranks */
  int spin;          /* polls of the word before sleeping: with a core per rank, the
                        last arrival is microseconds away and a futex round trip is not */
  atomic_int count;  /* ranks waiting in this generation */
  atomic_uint gen;   /* passages so far (the futex word) */
  atomic_int opened; /* gate_open was called: waits return at once */
};

static inline void gate_init(struct gate *g, int n) {
  g->n = n;
  g->spin = n <= sysconf(_SC_NPROCESSORS_ONLN) ? 256 : 0;
  atomic_init(&g->count, 0);
  atomic_init(&g->gen, 0);
  atomic_init(&g->opened, 0);
}

static inline void gate_wake_all(struct gate *g) {
  syscall(SYS_futex, (unsigned *)&g->gen, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Open the gate for good: every waiter returns -1, and so does every later
 * wait. */
static inline void gate_open(struct gate *g) {
  atomic_store(&g->opened, 1);
  atomic_fetch_add(&g->gen, 1); /* sleepers compare the word: change it, then wake */
  gate_wake_all(g);
}

static inline int gate_is_open(struct gate *g) {
  return atomic_load(&g->opened);
}

/* A rank arrives in the current generation (read into *gen): -1 when the
 * gate is open, 1 when it was the last and has let everyone through, 0
 * when it must wait for the generation to change. */
static inline int gate_arrive(struct gate *g, unsigned *gen) {
  *gen = atomic_load_explicit(&g->gen, memory_order_acquire);
  /* after the load: an opening that bumped gen before it is seen here, a
   * later one changes the word this rank sleeps on */
  if (atomic_load(&g->opened)) return -1;
  if (atomic_fetch_add_explicit(&g->count, 1, memory_order_acq_rel) + 1 == g->n) {
    /* everyone is here and waits for this generation: nobody arrives for
     * the next until the bump below */
    atomic_store_explicit(&g->count, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&g->gen, 1, memory_order_release);
    gate_wake_all(g);
    return atomic_load(&g->opened) ? -1 : 1;
  }
  return 0;
}

/* Whether generation gen has passed. */
static inline int gate_passed(struct gate *g, unsigned gen) {
  return atomic_load_explicit(&g->gen, memory_order_acquire) != gen;
}

/* Wait until all n ranks have arrived: 0. -1 when the gate is open (or
 * opens while this rank waits). `stuck` (may be NULL) is asked every
 * second of waiting with the seconds waited and the number of ranks still
 * missing; when it says 1, the gate opens (and this returns -1). */
static inline int gate_wait(struct gate *g, int (*stuck)(void *arg, double waited, int missing),
                            void *arg) {
  unsigned gen;
  int in = gate_arrive(g, &gen);
  if (in) return in < 0 ? -1 : 0;
  for (int i = 0; i < g->spin; i++) {
    if (gate_passed(g, gen)) return atomic_load(&g->opened) ? -1 : 0;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  double waited = 0;
  while (!gate_passed(g, gen)) {
    struct timespec second = {1, 0};
    long rc = syscall(SYS_futex, (unsigned *)&g->gen, FUTEX_WAIT_PRIVATE, gen,
                      stuck ? &second : NULL, NULL, 0);
    if (rc && errno == ETIMEDOUT) {
      waited += 1;
      if (!gate_passed(g, gen) && stuck(arg, waited, g->n - atomic_load(&g->count))) gate_open(g);
    }
  }
  return atomic_load(&g->opened) ? -1 : 0;
}

/* gate_wait for a rank that must not sleep outside its runtime's calls (a
 * fiber: the ranks it waits for may run on its own worker thread): it
 * calls yield(yarg) between polls instead, and asks `stuck` after each
 * second of waiting by the clock. */
static inline int gate_wait_yielding(struct gate *g,
                                     int (*stuck)(void *arg, double waited, int missing), void *arg,
                                     void (*yield)(void *yarg), void *yarg) {
  unsigned gen;
  int in = gate_arrive(g, &gen);
  if (in) return in < 0 ? -1 : 0;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  double waited = 0;
  for (unsigned i = 1; !gate_passed(g, gen); i++) {
    yield(yarg);
    if (!stuck || i % 1024) continue;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double s = (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec);
    if (s < waited + 1) continue;
    waited += 1;
    if (!gate_passed(g, gen) && stuck(arg, waited, g->n - atomic_load(&g->count))) gate_open(g);
  }
  return atomic_load(&g->opened) ? -1 : 0;
}

#endif

/*
 * test_e2e_world.c -- the world: creating it (bad configs refused), running
 * every rank and running again, rank stacks kept and guarded, the futex
 * hash, a run from inside a rank refused; how a run fails -- deadlock
 * reports, aborts and a rank's error naming the rank, thread-creation
 * failure at any point; and scale (a ring and a deadlock among thousands
 * of ranks). Messaging itself: test_e2e_p2p.c.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "tutti/tutti.h"

#include "p2p_helpers.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif
/* The scale tests' world: 4096 ranks; under TSan, whose shadow state per
 * thread makes thousands of threads crawl, 1024. */
#ifdef __SANITIZE_THREAD__
#define SCALE_RANKS 1024
#else
#define SCALE_RANKS 4096
#endif

/* ------------------------------------------------------------- world setup */

Test(world, create_rejects_bad_config) {
  tutti_world_t *w;
  tutti_config_t c = tutti_config_default(0);
  cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_ERANK));
  c.nranks = -3;
  cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_ERANK));
  cr_assert(eq(int, tutti_world_create(NULL, &c), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_world_create(&w, NULL), TUTTI_EINVAL));
  c = tutti_config_default(2);
  c.stack_size = 100;
  cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_EINVAL));
  tutti_model_t m = hockney();
  m.latency.a = -1;
  c = tutti_config_default(2);
  c.model = &m;
  cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_world_run(NULL, NULL, NULL), TUTTI_EINVAL));
  cr_assert(eq(str, (char *)tutti_world_error(NULL), "no world"));
}

static int count_fn(tutti_rank_t *r, void *arg) {
  __atomic_fetch_add((int *)arg, 1 + tutti_rank(r), __ATOMIC_RELAXED);
  return tutti_size(r) == 5 ? 0 : -1;
}

Test(world, runs_every_rank_and_reruns, .timeout = 20) {
  tutti_world_t *w = world(5, 64, 0, -1);
  for (int k = 0; k < 3; k++) {
    int sum = 0;
    cr_assert(eq(int, tutti_world_run(w, count_fn, &sum), 0));
    cr_assert(eq(int, sum, 1 + 2 + 3 + 4 + 5));
    cr_assert(eq(str, (char *)tutti_world_error(w), ""));
  }
  cr_assert(eq(int, tutti_world_size(w), 5));
  tutti_world_destroy(w);
}

/* Each rank's stack as its thread sees it. */
struct stack {
  uintptr_t base;
  size_t size;
};

static int stack_fn(tutti_rank_t *r, void *arg) {
  pthread_attr_t a;
  void *base;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &a)) return -1;
  pthread_attr_getstack(&a, &base, &size);
  pthread_attr_destroy(&a);
  ((struct stack *)arg)[tutti_rank(r)] = (struct stack){(uintptr_t)base, size};
  return 0;
}

static int by_base(const void *a, const void *b) {
  uintptr_t x = ((const struct stack *)a)->base, y = ((const struct stack *)b)->base;
  return (x > y) - (x < y);
}

/* The stacks of rank threads are carved from one region kept by the world
 * (world.c): each as large as asked, kept across runs, apart from the next
 * by a guard. */
Test(world, rank_stacks_are_kept_and_guarded, .timeout = 30) {
  enum { N = 67 };
  const size_t want = (size_t)256 << 10;
  tutti_config_t c = tutti_config_default(N);
  c.ranks_as = TUTTI_RANKS_AS_THREADS;
  c.stack_size = want;
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  struct stack a[N], b[N];
  cr_assert(eq(int, tutti_world_run(w, stack_fn, a), 0), "%s", tutti_world_error(w));
  cr_assert(eq(int, tutti_world_run(w, stack_fn, b), 0), "%s", tutti_world_error(w));
  for (int i = 0; i < N; i++) {
    cr_assert(ge(sz, a[i].size, want), "rank %d: a stack of %zu bytes", i, a[i].size);
#ifndef __SANITIZE_THREAD__ /* under TSan the world uses glibc's stacks (world.c) */
    cr_assert(eq(u64, a[i].base, b[i].base), "rank %d's stack moved between runs", i);
#endif
  }
  qsort(a, N, sizeof *a, by_base);
  for (int i = 0; i + 1 < N; i++)
    cr_assert(gt(u64, a[i + 1].base, a[i].base + a[i].size), "stacks without a guard between");
  tutti_world_destroy(w);
}

#ifndef PR_FUTEX_HASH
#define PR_FUTEX_HASH 78
#define PR_FUTEX_HASH_GET_SLOTS 2
#endif

/* Linux 6.16+ hashes a process's private futexes into 4 x min(threads,
 * CPUs) slots unless told otherwise; a world grows the table to two slots
 * per rank, or every wake-up walks a chain of P/16 sleepers on 2 cores. */
Test(world, futex_hash_grows_with_the_ranks, .timeout = 60) {
  if (prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0) < 0)
    cr_skip_test("this kernel has no private futex hash (PR_FUTEX_HASH, Linux 6.16)");
  tutti_world_t *w = world(SCALE_RANKS, 64, 0, -1);
  struct stack *s = calloc(SCALE_RANKS, sizeof *s);
  cr_assert(eq(int, tutti_world_run(w, stack_fn, s), 0), "%s", tutti_world_error(w));
  long slots = prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0);
  cr_assert(ge(i64, (int64_t)slots, 2 * SCALE_RANKS), "%ld futex hash slots", slots);
  free(s);
  tutti_world_destroy(w);
}

static int nested_run(tutti_rank_t *r, void *arg) {
  return tutti_world_run(tutti_rank_world(r), count_fn, arg) == TUTTI_EBUSY ? 0 : -1;
}

Test(world, run_from_a_rank_is_refused, .timeout = 20) {
  tutti_world_t *w = world(2, 64, 0, -1);
  int sum = 0;
  cr_assert(eq(int, tutti_world_run(w, nested_run, &sum), 0));
  tutti_world_destroy(w);
}

/* -------------------------------------------------------------- failures */

static int recv_cycle_fn(tutti_rank_t *r, void *arg) {
  int x, p = tutti_size(r);
  int rc = tutti_recv(r, &x, 1, TUTTI_INT32, (tutti_rank(r) + 1) % p, 7, NULL);
  return rc;
}

Test(failure, deadlock_of_a_receive_cycle_is_reported, .timeout = 30) {
  tutti_world_t *w = world(3, 64, 0, -1);
  cr_assert(eq(int, tutti_world_run(w, recv_cycle_fn, NULL), TUTTI_EDEADLOCK));
  const char *e = tutti_world_error(w);
  cr_assert(not(eq(ptr, strstr(e, "rank 0 waits in recv from 1 (tag 7)"), NULL)), "%s", e);
  cr_assert(not(eq(ptr, strstr(e, "rank 2 waits in recv from 0 (tag 7)"), NULL)), "%s", e);
  tutti_waitinfo_t wi;
  cr_assert(eq(int, tutti_world_waitinfo(w, 1, &wi), 0));
  cr_assert(eq(int, wi.blocked, 1));
  cr_assert(eq(int, wi.peer, 2));
  cr_assert(eq(int, wi.tag, 7));
  cr_assert(eq(str, (char *)wi.op, "recv"));
  cr_assert(eq(int, tutti_world_waitinfo(w, 3, &wi), TUTTI_ERANK));
  /* The world is usable again after a deadlock. */
  int sum = 0;
  cr_assert(eq(int, tutti_world_run(w, count_fn, &sum), -1)); /* count_fn wants 5 ranks */
  tutti_world_destroy(w);
}

static int send_send_fn(tutti_rank_t *r, void *arg) {
  static char big[2][1 << 16];
  int me = tutti_rank(r);
  int rc = tutti_send(r, big[me], sizeof big[me], TUTTI_BYTE, 1 - me, 1);
  if (!rc) rc = tutti_recv(r, big[me], sizeof big[me], TUTTI_BYTE, 1 - me, 1, NULL);
  return rc;
}

Test(failure, deadlock_of_two_rendezvous_sends, .timeout = 30) {
  tutti_world_t *w = world(2, 1024, 0, -1);
  cr_assert(eq(int, tutti_world_run(w, send_send_fn, NULL), TUTTI_EDEADLOCK));
  const char *e = tutti_world_error(w);
  cr_assert(not(eq(ptr, strstr(e, "rank 0 waits in send with 1 (tag 1)"), NULL)), "%s", e);
  cr_assert(not(eq(ptr, strstr(e, "rank 1 waits in send with 0 (tag 1)"), NULL)), "%s", e);
  tutti_world_destroy(w);
}

static int wait_for_finished_fn(tutti_rank_t *r, void *arg) {
  int x;
  if (tutti_rank(r) == 0) return 0; /* leaves at once */
  return tutti_recv(r, &x, 1, TUTTI_INT32, 0, 0, NULL);
}

Test(failure, deadlock_on_a_finished_peer, .timeout = 30) {
  for (int n = 2; n <= 64; n *= 4) {
    tutti_world_t *w = world(n, 64, 0, -1);
    cr_assert(eq(int, tutti_world_run(w, wait_for_finished_fn, NULL), TUTTI_EDEADLOCK));
    cr_assert(not(eq(ptr, strstr(tutti_world_error(w), "rank 1 waits in recv from 0"), NULL)));
    tutti_world_destroy(w);
  }
}

static int abort_fn(tutti_rank_t *r, void *arg) {
  int x;
  if (tutti_rank(r) == 2) tutti_abort(r, TUTTI_EINVAL);
  int rc = tutti_recv(r, &x, 1, TUTTI_INT32, 2, 0, NULL);
  int *seen = arg;
  if (rc == TUTTI_EABORTED) __atomic_fetch_add(seen, 1, __ATOMIC_RELAXED);
  return rc;
}

Test(failure, abort_ends_the_world_and_names_the_rank, .timeout = 30) {
  tutti_world_t *w = world(6, 64, 0, -1);
  int seen = 0;
  cr_assert(eq(int, tutti_world_run(w, abort_fn, &seen), TUTTI_EINVAL));
  cr_assert(not(eq(ptr, strstr(tutti_world_error(w), "rank 2 called tutti_abort"), NULL)), "%s",
            tutti_world_error(w));
  cr_assert(eq(int, seen, 5));
  tutti_world_destroy(w);
}

static int failing_fn(tutti_rank_t *r, void *arg) {
  int x;
  if (tutti_rank(r) == 1) return *(int *)arg;
  return tutti_recv(r, &x, 1, TUTTI_INT32, 1, 0, NULL);
}

Test(failure, a_rank_error_ends_the_world, .timeout = 30) {
  tutti_world_t *w = world(4, 64, 0, -1);
  int code = TUTTI_ETAG;
  cr_assert(eq(int, tutti_world_run(w, failing_fn, &code), TUTTI_ETAG));
  cr_assert(not(eq(ptr, strstr(tutti_world_error(w), "rank 1 failed: TUTTI_ETAG"), NULL)), "%s",
            tutti_world_error(w));
  code = 7;
  cr_assert(eq(int, tutti_world_run(w, failing_fn, &code), TUTTI_ERANKFAIL));
  cr_assert(not(eq(ptr, strstr(tutti_world_error(w), "rank 1 returned 7"), NULL)));
  tutti_world_destroy(w);
}

#if !SANITIZED /* sanitizers reserve terabytes of address space up front */
Test(failure, refused_thread_is_a_clean_error, .timeout = 60) {
  /* The largest stack (TUTTI_MAX_STACK; past it the config is refused)
   * under an address space that cannot hold one: the very first thread
   * is refused. */
  struct rlimit rl, was;
  getrlimit(RLIMIT_AS, &was);
  rl = was;
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  cr_assert(eq(int, fscanf(f, "%lu", &pages), 1));
  fclose(f);
  rl.rlim_cur = pages * 4096 + TUTTI_MAX_STACK / 2;
  cr_assert(eq(int, setrlimit(RLIMIT_AS, &rl), 0));
  tutti_config_t c = tutti_config_default(4);
  c.ranks_as = TUTTI_RANKS_AS_THREADS;
  c.stack_size = TUTTI_MAX_STACK;
  c.max_memory = UINT64_MAX; /* the memory budget out of the way: the OS refuses */
  tutti_world_t *w;
  int created = tutti_world_create(&w, &c);
  setrlimit(RLIMIT_AS, &was);
  cr_assert(eq(int, created, 0));
  cr_assert(eq(int, setrlimit(RLIMIT_AS, &rl), 0));
  int sum = 0, ran = tutti_world_run(w, count_fn, &sum);
  setrlimit(RLIMIT_AS, &was);
  cr_assert(eq(int, ran, TUTTI_ETHREADS), "%s", tutti_world_error(w));
  cr_assert(eq(int, sum, 0), "no rank function may start");
  cr_assert(not(eq(ptr, strstr(tutti_world_error(w), "could not create rank thread 0 of 4"), NULL)),
            "%s", tutti_world_error(w));
  cr_assert(not(eq(ptr, strstr(tutti_world_error(w), "pid_max"), NULL)));
  tutti_world_destroy(w);
}
#endif

#if !SANITIZED /* sanitizers reserve terabytes of address space up front */
Test(failure, refused_thread_half_way, .timeout = 60) {
  /* Limit the address space so that the OS refuses a thread half-way
   * through; the threads already created must all be joined. */
  struct rlimit rl;
  getrlimit(RLIMIT_AS, &rl);
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  cr_assert(eq(int, fscanf(f, "%lu", &pages), 1));
  fclose(f);
  size_t stack = (size_t)1 << 20;
  rl.rlim_cur = pages * 4096 + 200 * stack;
  cr_assert(eq(int, setrlimit(RLIMIT_AS, &rl), 0));
  tutti_config_t c = tutti_config_default(1000);
  c.ranks_as = TUTTI_RANKS_AS_THREADS;
  c.stack_size = stack;
  /* past the memory budget, whose automatic limit would refuse these
   * stacks before the OS does (test_e2e_budget.c): the OS's refusal */
  c.max_memory = (uint64_t)1 << 50;
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  int sum = 0;
  cr_assert(eq(int, tutti_world_run(w, count_fn, &sum), TUTTI_ETHREADS));
  cr_assert(eq(int, sum, 0));
  cr_assert(eq(ptr, strstr(tutti_world_error(w), "thread 0 of"), NULL), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
}
#endif

/* ------------------------------------------------------------------ scale */

static int ring_fn(tutti_rank_t *r, void *arg) {
  int me = tutti_rank(r), p = tutti_size(r);
  int64_t x = me * 3 + 1, y = -1;
  int rc = tutti_sendrecv(r, &x, 1, TUTTI_INT64, (me + 1) % p, 0, &y, 1, TUTTI_INT64,
                          (me + p - 1) % p, 0, NULL);
  if (!rc && y != ((me + p - 1) % p) * 3 + 1) rc = -100;
  return rc;
}

Test(scale, ring_of_4096_ranks, .timeout = 240) {
  size_t limits[] = {0, 1024};
  for (int i = 0; i < 2; i++) {
    tutti_world_t *w = world(SCALE_RANKS, limits[i], 0, -1);
    cr_assert(eq(int, tutti_world_run(w, ring_fn, NULL), 0), "%s", tutti_world_error(w));
    tutti_world_destroy(w);
  }
}

Test(scale, deadlock_among_4096_ranks, .timeout = 240) {
  tutti_world_t *w = world(SCALE_RANKS, 64, 0, -1);
  cr_assert(eq(int, tutti_world_run(w, recv_cycle_fn, NULL), TUTTI_EDEADLOCK));
  char more[32];
  snprintf(more, sizeof more, "and %d more", SCALE_RANKS - 16);
  cr_assert(not(eq(ptr, strstr(tutti_world_error(w), more), NULL)), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
}

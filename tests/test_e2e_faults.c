/*
 * test_e2e_faults.c -- runs that fail, and how they end.
 *
 * A rank that fails at its k-th message: for every registered algorithm
 * (enumerated with tutti_algo_desc_at, so a new algorithm is covered by
 * being registered), on P = 2, 3, 5 and 8 (2 and 5 under the sanitizers),
 * a first and a last root, every
 * rank and every k up to the number of messages that rank posts, the
 * runtime's test hook (tutti__world_inject, runtime/internal.h) makes that
 * send or receive fail. The run must end with that rank's error, the
 * world's text naming the rank; the algorithm must return that error on
 * that rank (and 0 or TUTTI_EABORTED on the others); no hang (the
 * .timeout), no use of freed memory (an algorithm frees its scratch space
 * on the way out while its rendezvous sends are pending: the runtime
 * cancels them) and nothing leaked (ASan and LeakSanitizer run this file);
 * the same world then runs cleanly again. Native runs (eager messages)
 * and hockney runs (every message rendezvous, recorded).
 *
 * Also: an event log that cannot grow (the hook's simulated allocation
 * failure), one that reaches max_events, logs that spend the automatic
 * limit's shared budget, a user op that aborts its
 * rank, and the OS refusing threads (RLIMIT_NPROC is not honoured for
 * root, so the refusal is forced with a stack no mmap can give, as in
 * test_e2e_p2p.c, here with a recorded run: nothing leaks either way).
 *
 * TUTTI_TSAN_TEST: also built and run under ThreadSanitizer (tests/CMakeLists.txt).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* the test hooks: tutti__world_inject, tutti__world_posts */
#include "tutti/tutti.h"

#define COUNT 4         /* int64 elements a rank contributes: 32 bytes */
#define FAULT TUTTI_EIO /* a code no collective returns of its own */

struct job {
  int coll, root, P;
  const tutti_algo_t *algo;
  int64_t **sbuf, **rbuf; /* per rank, owned by the test: valid until the run is joined */
  int *rc;                /* per rank: what the collective returned */
};

static int call1(tutti_rank_t *r, const struct job *j) {
  int me = tutti_rank(r);
  int64_t *s = j->sbuf[me], *d = j->rbuf[me];
  switch (j->coll) {
  case TUTTI_COLL_BCAST:
    return tutti_bcast(r, s, COUNT, TUTTI_INT64, j->root, j->algo);
  case TUTTI_COLL_REDUCE:
    return tutti_reduce(r, s, d, COUNT, TUTTI_INT64, TUTTI_SUM, j->root, j->algo);
  case TUTTI_COLL_ALLREDUCE:
    return tutti_allreduce(r, s, d, COUNT, TUTTI_INT64, TUTTI_SUM, j->algo);
  case TUTTI_COLL_GATHER:
    return tutti_gather(r, s, COUNT, TUTTI_INT64, d, COUNT, TUTTI_INT64, j->root, j->algo);
  case TUTTI_COLL_SCATTER:
    return tutti_scatter(r, s, COUNT, TUTTI_INT64, d, COUNT, TUTTI_INT64, j->root, j->algo);
  case TUTTI_COLL_BARRIER:
    return tutti_barrier(r, j->algo);
  case TUTTI_COLL_ALLGATHER:
    return tutti_allgather(r, s, d, COUNT, TUTTI_INT64, j->algo);
  case TUTTI_COLL_REDUCE_SCATTER:
    return tutti_reduce_scatter(r, s, d, COUNT, TUTTI_INT64, TUTTI_SUM, j->algo);
  case TUTTI_COLL_ALLTOALL: /* both buffers hold P blocks (bufs) */
    return tutti_alltoall(r, s, d, COUNT, TUTTI_INT64, j->algo);
  case TUTTI_COLL_SCAN:
    return tutti_scan(r, s, d, COUNT, TUTTI_INT64, TUTTI_SUM, j->algo);
  case TUTTI_COLL_EXSCAN:
    return tutti_exscan(r, s, d, COUNT, TUTTI_INT64, TUTTI_SUM, j->algo);
  }
  return TUTTI_ENOTSUP; /* a collective this test has no call for: it fails below */
}

static int call(tutti_rank_t *r, void *arg) {
  const struct job *j = arg;
  return j->rc[tutti_rank(r)] = call1(r, j);
}

static int64_t **bufs(int P) {
  int64_t **b = calloc((size_t)P, sizeof *b);
  for (int i = 0; i < P; i++) {
    b[i] = calloc((size_t)P * COUNT, sizeof **b);
    for (int e = 0; e < P * COUNT; e++) b[i][e] = i * 1000 + e;
  }
  return b;
}

static void free_bufs(int64_t **b, int P) {
  for (int i = 0; i < P; i++) free(b[i]);
  free(b);
}

static long runs; /* world runs made by a test, for its message */

/* Every rank, every k, for one algorithm, P and root. */
static void fail_every_message(tutti_world_t *w, struct job *j, const char *what) {
  int P = j->P;
  cr_assert(eq(int, tutti_world_run(w, call, j), 0), "%s: clean run: %s", what,
            tutti_world_error(w));
  runs++;
  uint64_t *posts = calloc((size_t)P, sizeof *posts);
  uint64_t total = 0;
  for (int f = 0; f < P; f++) total += posts[f] = tutti__world_posts(w, f);
  if (P > 1 && j->coll != TUTTI_COLL_BARRIER)
    cr_assert(gt(u64, total, 0), "%s: no message posted", what);
  char want[64];
  for (int f = 0; f < P; f++) {
    snprintf(want, sizeof want, "rank %d failed: TUTTI_EIO", f);
    for (uint64_t k = 1; k <= posts[f]; k++) {
      cr_assert(eq(int, tutti__world_inject(w, TUTTI__FAULT_MSG, f, k, FAULT), 0));
      int rc = tutti_world_run(w, call, j);
      runs++;
      cr_assert(eq(int, rc, FAULT), "%s: rank %d failing at message %llu of %llu: %s (%s)", what, f,
                (unsigned long long)k, (unsigned long long)posts[f], tutti_err_name(rc),
                tutti_world_error(w));
      cr_assert(not(eq(ptr, strstr(tutti_world_error(w), want), NULL)),
                "%s: rank %d at message %llu: the error does not name the rank: %s", what, f,
                (unsigned long long)k, tutti_world_error(w));
      /* The algorithm hands its failed call's error back; the others
       * finished, or saw the abort. */
      for (int i = 0; i < P; i++)
        cr_assert(j->rc[i] == (i == f ? FAULT : 0) || (i != f && j->rc[i] == TUTTI_EABORTED),
                  "%s: rank %d failing at message %llu: rank %d returned %s", what, f,
                  (unsigned long long)k, i, tutti_err_name(j->rc[i]));
    }
  }
  cr_assert(eq(int, tutti__world_inject(w, TUTTI__FAULT_MSG, -1, 0, 0), 0));
  cr_assert(eq(int, tutti_world_run(w, call, j), 0), "%s: the run after the faults: %s", what,
            tutti_world_error(w));
  runs++;
  free(posts);
}

static void every_algorithm(int coll, const tutti_model_t *model) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  /* Slower, above all TSan's thread starts, and these are thousands of
   * worlds: fewer. P = 3 drives no line or branch of the library that
   * P = 2 and 5 do not (gcov over this file's faults/ tests). */
  static const int Ps[] = {2, 5};
#else
  static const int Ps[] = {2, 3, 5, 8};
#endif
  int nalgos = 0;
  runs = 0;
  for (int i = 0; tutti_algo_desc_at(i); i++) {
    const tutti_algo_desc_t *d = tutti_algo_desc_at(i);
    if (d->coll != coll) continue;
    nalgos++;
    /* Defaults, and segmented when the algorithm pipelines: more messages. */
    bool seg = false;
    for (int p = 0; p < d->nparams; p++) seg |= strcmp(d->params[p].name, "segment") == 0;
    for (int variant = 0; variant <= (seg ? 1 : 0); variant++) {
      const tutti_algo_t *a;
      char err[512];
      cr_assert(
          eq(int,
             tutti_algo_select(coll, d->name, variant ? "segment=8" : NULL, &a, err, sizeof err),
             0),
          "%s", err);
      for (size_t pi = 0; pi < sizeof Ps / sizeof *Ps; pi++) {
        int P = Ps[pi];
        tutti_op_t op = tutti_coll_traits(coll) & TUTTI_COLL_REDUCES ? TUTTI_SUM : NULL;
        if (tutti_algo_check(a, P, op, NULL, 0)) continue; /* e.g. powers of two */
        tutti_config_t c = tutti_config_default(P);
        c.model = model;
        tutti_world_t *w = NULL;
        cr_assert(eq(int, tutti_world_create(&w, &c), 0));
        struct job j = {coll, 0, P, a, bufs(P), bufs(P), calloc((size_t)P, sizeof(int))};
        int nroots = tutti_coll_traits(coll) & TUTTI_COLL_ROOTED ? 2 : 1;
        for (int ri = 0; ri < nroots; ri++) {
          j.root = ri ? P - 1 : 0;
          char what[128];
          snprintf(what, sizeof what, "%s %s%s P=%d root %d", tutti_coll_name(coll), d->name,
                   variant ? ":segment=8" : "", P, j.root);
          fail_every_message(w, &j, what);
        }
        free_bufs(j.sbuf, P);
        free_bufs(j.rbuf, P);
        free(j.rc);
        tutti_world_destroy(w);
      }
    }
  }
  cr_assert(gt(int, nalgos, 0), "no %s algorithm registered", tutti_coll_name(coll));
  cr_log_info("%s: %d algorithms, %ld runs", tutti_coll_name(coll), nalgos, runs);
}

/* Every collective of the registry has its call above. */
Test(faults, every_collective_has_a_call, .timeout = 30) {
  for (int i = 0; tutti_algo_desc_at(i); i++) {
    int coll = tutti_algo_desc_at(i)->coll;
    cr_assert(coll >= TUTTI_COLL_BCAST && coll <= TUTTI_COLL_EXSCAN,
              "collective %s (%d) is new: add its call to call() in this file",
              tutti_coll_name(coll), coll);
  }
}

/* One test per collective and model (not ParameterizedTest: the TSan
 * stand-in runs plain Tests). */
#define FAULT_TESTS(C, c)                                                                          \
  Test(faults, c##_native, .timeout = 240) {                                                       \
    every_algorithm(TUTTI_COLL_##C, NULL);                                                         \
  }                                                                                                \
  Test(faults, c##_hockney, .timeout = 240) {                                                      \
    tutti_model_t m;                                                                               \
    cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));                                    \
    every_algorithm(TUTTI_COLL_##C, &m);                                                           \
  }
FAULT_TESTS(BCAST, bcast)
FAULT_TESTS(REDUCE, reduce)
FAULT_TESTS(ALLREDUCE, allreduce)
FAULT_TESTS(GATHER, gather)
FAULT_TESTS(SCATTER, scatter)
FAULT_TESTS(BARRIER, barrier)
FAULT_TESTS(ALLGATHER, allgather)
FAULT_TESTS(REDUCE_SCATTER, reduce_scatter)
FAULT_TESTS(ALLTOALL, alltoall)
FAULT_TESTS(SCAN, scan)
FAULT_TESTS(EXSCAN, exscan)

/* ---------------------------------------------------------- the event logs */

#define ITERS 200

static int barriers(tutti_rank_t *r, void *arg) {
  for (int i = 0; i < ITERS; i++) {
    int rc = tutti_barrier(r, NULL);
    if (rc) return rc;
  }
  return 0;
}

static tutti_world_t *ranks_world(int P, uint32_t max_events, int ranks_as) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  tutti_config_t c = tutti_config_default(P);
  c.model = &m; /* copied by tutti_world_create */
  c.max_events = max_events;
  c.ranks_as = ranks_as;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  return w;
}

static tutti_world_t *hockney_world(int P, uint32_t max_events) {
  return ranks_world(P, max_events, TUTTI_RANKS_AS_DEFAULT);
}

Test(evlog, allocation_failure_is_a_clear_error, .timeout = 60) {
  tutti_world_t *w = hockney_world(5, 0);
  /* 200 barriers record hundreds of events a rank: the log must grow past
   * its first 64 and 128 events. */
  cr_assert(eq(int, tutti__world_inject(w, TUTTI__FAULT_EVLOG, 3, 100, 0), 0));
  int rc = tutti_world_run(w, barriers, NULL);
  cr_assert(eq(int, rc, TUTTI_ENOMEM), "%s: %s", tutti_err_name(rc), tutti_world_error(w));
  cr_assert(
      not(eq(ptr,
             strstr(tutti_world_error(w), "rank 3: out of memory for its event log (64 events"),
             NULL)),
      "%s", tutti_world_error(w));
  cr_assert(eq(int, tutti_world_report(w, &(tutti_report_t){0}), TUTTI_ENOTSUP),
            "a failed run has no report");
  cr_assert(eq(int, tutti__world_inject(w, TUTTI__FAULT_EVLOG, -1, 0, 0), 0));
  cr_assert(eq(int, tutti_world_run(w, barriers, NULL), 0), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
}

/* max_events: a run needing exactly the limit passes, one event more fails
 * naming a rank whose log is full, before any memory is asked for. */
Test(evlog, max_events_bounds_every_log, .timeout = 60) {
  const int P = 6;
  tutti_world_t *w = hockney_world(P, 0);
  cr_assert(eq(int, tutti_world_run(w, barriers, NULL), 0), "%s", tutti_world_error(w));
  uint32_t most = 0;
  for (int i = 0; i < P; i++)
    if (w->ranks[i]->log.n > most) most = w->ranks[i]->log.n;
  cr_assert(gt(u32, most, 2 * ITERS), "a barrier records events on every rank");
  tutti_world_destroy(w);

  w = hockney_world(P, most);
  cr_assert(eq(int, tutti_world_run(w, barriers, NULL), 0), "%s", tutti_world_error(w));
  for (int i = 0; i < P; i++) cr_assert(le(u32, w->ranks[i]->log.cap, most));
  tutti_world_destroy(w);

  w = hockney_world(P, most - 1);
  int rc = tutti_world_run(w, barriers, NULL);
  cr_assert(eq(int, rc, TUTTI_ENOMEM), "%s: %s", tutti_err_name(rc), tutti_world_error(w));
  char want[64];
  snprintf(want, sizeof want, ": event log full at %u events", most - 1);
  const char *e = tutti_world_error(w), *at = strstr(e, want);
  cr_assert(not(eq(ptr, (void *)at, NULL)), "%s", e);
  int rank = -1;
  cr_assert(eq(int, sscanf(e, "rank %d", &rank), 1), "%s", e);
  cr_assert(eq(u32, w->ranks[rank]->log.n, most - 1), "%s", e);
  for (int i = 0; i < P; i++) cr_assert(le(u32, w->ranks[i]->log.cap, most - 1));
  tutti_world_destroy(w);
}

/* The automatic limit is one budget of events for all ranks' logs
 * together, not a share each: a flat broadcast's root records 2P events a
 * call while its leaves record 4, and at 262144 ranks an even share (a
 * quarter of 24 GiB / 24 B / P = 1024 events) would stop the root. With
 * the budget set to exactly the capacity the run takes, the root holds
 * far more than an even share; one event fewer than the run records fails
 * the run naming a rank and the budget. */
#define FLAT_CALLS 40
static int flat_bcasts(tutti_rank_t *r, void *arg) {
  const tutti_algo_t *a = arg;
  int64_t x = 1;
  for (int i = 0; i < FLAT_CALLS; i++) {
    int rc = tutti_bcast(r, &x, 1, TUTTI_INT64, 0, a);
    if (rc) return rc;
  }
  return 0;
}

Test(evlog, automatic_limit_is_one_budget_for_all_ranks, .timeout = 60) {
  const int P = 32;
  const tutti_algo_t *flat;
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "flat", NULL, &flat, NULL, 0), 0));
  tutti_world_t *w = hockney_world(P, 0);
  cr_assert(eq(int, tutti_world_run(w, flat_bcasts, (void *)flat), 0), "%s", tutti_world_error(w));
  uint64_t caps = 0, events = 0;
  for (int i = 0; i < P; i++) caps += w->ranks[i]->log.cap, events += w->ranks[i]->log.n;
  uint32_t root = w->ranks[0]->log.n;
  cr_assert(gt(u32, root, 2 * (P - 1) * FLAT_CALLS), "the root records a send and a wait a leaf");
  cr_assert(gt(u64, (uint64_t)root * P, caps), "the root needs more than an even share");
  tutti_world_destroy(w);

  w = hockney_world(P, 0);
  cr_assert(eq(int, tutti__world_inject(w, TUTTI__FAULT_BUDGET, -1, caps, 0), 0));
  cr_assert(eq(int, tutti_world_run(w, flat_bcasts, (void *)flat), 0), "%s", tutti_world_error(w));
  cr_assert(eq(u32, w->ranks[0]->log.n, root));
  tutti_world_destroy(w);

  w = hockney_world(P, 0);
  cr_assert(eq(int, tutti__world_inject(w, TUTTI__FAULT_BUDGET, -1, events - 1, 0), 0));
  int rc = tutti_world_run(w, flat_bcasts, (void *)flat);
  cr_assert(eq(int, rc, TUTTI_ENOMEM), "%s: %s", tutti_err_name(rc), tutti_world_error(w));
  char want[96];
  snprintf(want, sizeof want, ": event logs full: all ranks' logs hold %llu events",
           (unsigned long long)(events - 1));
  const char *e = tutti_world_error(w);
  int rank = -1;
  cr_assert(not(eq(ptr, strstr(e, want), NULL)), "%s", e);
  cr_assert(eq(int, sscanf(e, "rank %d", &rank), 1), "%s", e);
  cr_assert(ge(int, rank, 0), "%s", e);
  tutti_world_destroy(w);

  w = hockney_world(P, 1000); /* an explicit max_events is a limit per rank, no budget */
  cr_assert(eq(int, tutti__world_inject(w, TUTTI__FAULT_BUDGET, -1, caps, 0), TUTTI_EINVAL));
  tutti_world_destroy(w);
}

/* --------------------------------------------------------------- user ops */

/* A user op cannot return an error (tutti_user_fn returns void, as
 * MPI_User_function does): it reports through its ctx, and the rank
 * returns the error after the call. The run then ends with that rank's
 * error. Here the op refuses negative inputs; each rank makes its own,
 * whose ctx is the rank's flag (fibers share a thread: not thread-local). */
static void checked_sum(const void *in, void *inout, size_t count, tutti_datatype_t type,
                        void *ctx) {
  const int64_t *a = in;
  int64_t *b = inout;
  for (size_t i = 0; i < count; i++) {
    if (a[i] < 0 || b[i] < 0) *(int *)ctx = 1;
    b[i] += a[i];
  }
}

struct opjob {
  const tutti_algo_t *algo;
};

static int op_fn(tutti_rank_t *r, void *arg) {
  const struct opjob *j = arg;
  int64_t x = tutti_rank(r) == 3 ? -1 : 1, y = 0;
  int refused = 0;
  tutti_op_t op;
  int rc = tutti_op_create(checked_sum, 1, &refused, &op);
  if (rc) return rc;
  rc = tutti_reduce(r, &x, &y, 1, TUTTI_INT64, op, 0, j->algo);
  tutti_op_free(&op);
  if (rc) return rc;
  return refused ? TUTTI_EVERIFY : 0;
}

Test(userop, an_op_error_ends_the_run_with_that_rank, .timeout = 30) {
  struct opjob j;
  char err[256];
  /* flat: the root combines every input, so the root is the rank that sees -1. */
  cr_assert(
      eq(int, tutti_algo_select(TUTTI_COLL_REDUCE, "flat", NULL, &j.algo, err, sizeof err), 0));
  tutti_config_t c = tutti_config_default(5);
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_assert(eq(int, tutti_world_run(w, op_fn, &j), TUTTI_EVERIFY), "%s", tutti_world_error(w));
  cr_assert(not(eq(ptr, strstr(tutti_world_error(w), "rank 0 failed: TUTTI_EVERIFY"), NULL)), "%s",
            tutti_world_error(w));
  tutti_world_destroy(w);
}

/* ----------------------------------------------------------------- threads */

static int recording_fn(tutti_rank_t *r, void *arg) {
  __atomic_fetch_add((int *)arg, 1, __ATOMIC_SEQ_CST);
  return tutti_barrier(r, NULL);
}

/* World w of P ranks refusing rank k's thread: a clear error naming the
 * thread and the limits, no rank function started. */
static void refused(tutti_world_t *w, int P, int k) {
  cr_assert(eq(int, tutti__world_inject(w, TUTTI__FAULT_THREAD, k, 0, 0), 0));
  int started = 0;
  cr_assert(eq(int, tutti_world_run(w, recording_fn, &started), TUTTI_ETHREADS));
  cr_assert(eq(int, started, 0), "no rank function may start");
  char want[64];
  snprintf(want, sizeof want, "could not create rank thread %d of %d", k, P);
  cr_assert(not(eq(ptr, strstr(tutti_world_error(w), want), NULL)), "%s", tutti_world_error(w));
  cr_assert(not(eq(ptr, strstr(tutti_world_error(w), "threads-max"), NULL)));
}

/* ... and then usable again: every rank runs. */
static void usable_again(tutti_world_t *w, int P) {
  cr_assert(eq(int, tutti__world_inject(w, TUTTI__FAULT_THREAD, -1, 0, 0), 0));
  int started = 0;
  cr_assert(eq(int, tutti_world_run(w, recording_fn, &started), 0), "%s", tutti_world_error(w));
  cr_assert(eq(int, started, P));
}

/* The OS refusing the k-th thread (the hook stands for EAGAIN from
 * pthread_create: RLIMIT_NPROC does not bind root, and RLIMIT_AS cannot
 * be used under the sanitizers): a clear error, every created thread
 * joined, nothing leaked, and the world usable again. */
Test(threads, refused_thread_anywhere_is_a_clean_error, .timeout = 60) {
  const int P = 9;
  tutti_world_t *w = ranks_world(P, 0, TUTTI_RANKS_AS_THREADS);
  for (int k = 0; k < P; k++) refused(w, P, k);
  usable_again(w, P);
  tutti_world_destroy(w);
}

/* Past 4096 ranks the threads are created by one spawner per CPU, each a
 * slice (world.c): a refusal in a later slice is as clean and names that
 * rank, though the other slices' threads are all up. */
Test(threads, refused_thread_in_a_later_slice_is_a_clean_error, .timeout = 120) {
#ifdef __SANITIZE_THREAD__
  cr_skip_test("4100 threads: ThreadSanitizer's state per thread (the other builds run it)");
#endif
  const int P = 4100;
  tutti_world_t *w = ranks_world(P, 0, TUTTI_RANKS_AS_THREADS);
  refused(w, P, 3001);
  usable_again(w, P);
  tutti_world_destroy(w);
}

/*
 * test_e2e_fibers.c -- ranks as fibers (runtime/fiber.c): every registered
 * algorithm gives the modeled times of thread mode to the bit; worlds far
 * past the thread limits run and match the registered cost; the ranks
 * really share a few worker threads; failure in fiber mode (deadlock,
 * abort, a rank's error, a stack overflow into the guard page or over the
 * canary) ends the run with an error naming the rank; polling with
 * tutti_test gives the worker away; bad configurations are refused;
 * `tutti bench fibers` runs both modes and, with Open MPI installed, puts
 * Open MPI's time and its ratios to both modes in the same rows (and says
 * why not when --no-mpi is given or P is above 64).
 * (The registry-wide correctness sweep, test_e2e_coll, runs again in fiber
 * mode as test_e2e_coll_fibers: tests/CMakeLists.txt.)
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "pool.h" /* RUN_AHEAD */
#include "tutti/tutti.h"

#include "cli_helpers.h"
#include "coll_helpers.h"

#ifdef __SANITIZE_THREAD__
#define TSAN 1
#else
#define TSAN 0
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static tutti_world_t *fworld(int n, int ranks_as, int workers, const tutti_model_t *m) {
  tutti_config_t c = tutti_config_default(n);
  c.ranks_as = ranks_as;
  c.workers = workers;
  c.model = m;
  tutti_world_t *w = NULL;
  int rc = tutti_world_create(&w, &c);
  cr_assert(eq(int, rc, 0), "create %d ranks: %s", n, tutti_strerror(rc));
  return w;
}

/* ------------------------------------------------------------ determinism */

struct outcome {
  double modeled;
  double *end;
  tutti_stats_t st;
};

/* depth: fibers run depth first (fiber.c "Starting"), as from 8192 ranks
 * a worker, else breadth first */
static struct outcome run_one(int P, int ranks_as, const tutti_model_t *m, struct one *o,
                              bool depth) {
  /* two workers, not the default (one up to 1024 ranks): the hand-offs
   * between workers must not change a modeled time either */
  tutti_world_t *w = fworld(P, ranks_as, ranks_as == TUTTI_RANKS_AS_FIBERS ? 2 : 0, m);
  if (depth) cr_assert(eq(int, tutti__world_inject(w, TUTTI__DEPTH_FIRST, -1, 1, 0), 0));
  char spec[128] = "";
  tutti_algo_format(o->algo, spec, sizeof spec);
  cr_assert(eq(int, tutti_world_run(w, one_call, o), 0), "%s %s P=%d (%s): %s",
            tutti_coll_name(o->coll), spec, P,
            ranks_as == TUTTI_RANKS_AS_FIBERS ? "fibers" : "threads", tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  struct outcome x = {.modeled = rep.modeled_time, .end = malloc((size_t)P * sizeof(double))};
  cr_assert(ne(ptr, x.end, NULL));
  memcpy(x.end, rep.rank_end, (size_t)P * sizeof(double));
  cr_assert(eq(int, tutti_world_stats(w, &x.st), 0));
  tutti_world_destroy(w);
  return x;
}

/* Every registered algorithm, threads against fibers: the modeled time,
 * every rank's end and the message and event counts, to the bit; the
 * fibers breadth first and depth first, every other point. BIG:
 * a power of two (restricted algorithms run there), 16 under the
 * sanitizers, whose thread starts make most of this test's time. */
#define BIG (SANITIZED ? 16 : 64)
Test(determinism, every_algorithm_same_times_as_threads, .timeout = 600) {
  tutti_model_t hk = hockney(1e-6, 1e-9), lg;
  cr_assert(eq(int, tutti_model_loggp(&lg, 5e-6, 1e-6, 2e-6, 1e-9), 0));
  lg.eager_limit = 2048; /* both protocols */
  const tutti_model_t *models[] = {&hk, &lg};
  const struct {
    int P;
    size_t m;
  } pts[] = {{1, 8}, {7, 4000}, {BIG, 8}, {BIG, 4000}, {SANITIZED ? 33 : 300, 8}};
  int compared = 0, fibered = 0;
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
    const tutti_algo_t *a = pick(d->coll, d->name, NULL);
    int data = (tutti_coll_traits(d->coll) & TUTTI_COLL_DATA) != 0;
    for (size_t p = 0; p < sizeof pts / sizeof *pts; p++) {
      int P = pts[p].P;
      if (!data && p > 0 && pts[p].P == pts[p - 1].P) continue; /* no size to vary */
      const tutti_model_t *m = models[p % 2];
      struct one o = {d->coll, a, data ? (long)(pts[p].m / 4) : 0, TUTTI_INT32, P / 2};
      if (tutti_algo_check_call(a, P, o.root, (size_t)o.count * 4, TUTTI_SUM, NULL, 0))
        continue; /* a restriction (a power of two only, say) */
      struct outcome t = run_one(P, TUTTI_RANKS_AS_THREADS, m, &o, false);
      struct outcome f = run_one(P, TUTTI_RANKS_AS_FIBERS, m, &o, p % 2);
      cr_assert(eq(int, memcmp(&t.modeled, &f.modeled, sizeof t.modeled), 0),
                "%s %s P=%d: %.17g s with threads, %.17g with fibers", tutti_coll_name(d->coll),
                d->name, P, t.modeled, f.modeled);
      cr_assert(eq(int, memcmp(t.end, f.end, (size_t)P * sizeof(double)), 0), "%s %s P=%d",
                tutti_coll_name(d->coll), d->name, P);
      cr_assert(eq(u64, t.st.messages, f.st.messages));
      cr_assert(eq(u64, t.st.events, f.st.events));
      cr_assert(eq(int, t.st.workers, 0));
      cr_assert(gt(int, f.st.workers, 0));
      free(t.end), free(f.end);
      compared++;
      fibered += P > 1;
    }
  }
  int n = 0;
  while (tutti_algo_desc_at(n)) n++;
  cr_assert(ge(int, fibered, 3 * n), "%d comparisons with P > 1 for %d algorithms", fibered, n);
  cr_assert(ge(int, compared, fibered));
}

/* ------------------------------------------------------------------ scale */

/* Past the thread limits (and past the ranks that get a guard page each):
 * a binomial broadcast's modeled time is its registered Hockney cost. */
Test(scale, forty_thousand_fiber_ranks_match_the_registered_cost, .timeout = 300) {
  int P = SANITIZED ? 3000 : 40000;
  tutti_model_t m = hockney(1e-6, 1e-9);
  tutti_world_t *w = fworld(P, TUTTI_RANKS_AS_FIBERS, 0, &m);
  struct one o = {TUTTI_COLL_BCAST, pick(TUTTI_COLL_BCAST, "binomial", NULL), 2, TUTTI_INT32, 0};
  cr_assert(eq(int, tutti_world_run(w, one_call, &o), 0), "%s", tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  tutti_hockney_t h = {1e-6, 1e-9, 0};
  int bound = 1;
  double want = tutti_algo_cost(o.algo, P, 0, 8, &h, &bound);
  cr_assert(eq(int, bound, 0));
  cr_assert(ieee_ulp_eq(dbl, rep.calls[0].time, want, 64), "%.17g against %.17g", rep.calls[0].time,
            want);
  tutti_stats_t st;
  cr_assert(eq(int, tutti_world_stats(w, &st), 0));
  cr_assert(eq(u64, st.messages, (uint64_t)P - 1));
  cr_assert(le(int, st.workers, P));
  tutti_world_destroy(w);
}

/* Fibers share the stacks of ranks that ended (fiber.c "Starting"): a
 * worker of 8192 ranks or more runs them depth first, so a binomial
 * broadcast on one worker holds the stacks of one path of its tree,
 * whatever the root, where threads hold one a rank. That is with
 * rendezvous sends; an eager sender out of buffers waits until its worker
 * has run every rank it woke (pool.h pool_throttle), so more ranks are
 * alive at once, still a small share of them. One worker: the schedule,
 * so the count, is the same in every run. (On two, a worker with nothing
 * to run starts its ranks in order while the other works, so the count
 * depends on how the two run: no bound here; the determinism sweep checks
 * their results depth first.) Fewer ranks a worker run breadth first,
 * every rank started. A world's second run counts anew. */
Test(stack, a_tree_holds_the_stacks_of_one_path, .timeout = 300) {
  /* the sanitizers' fibers are slow to make: fewer, depth first all the same */
  const int P = SANITIZED ? 1 << 9 : 1 << 14, LOG = SANITIZED ? 9 : 14;
  tutti_model_t rdv = hockney(1e-6, 1e-9), eager = rdv;
  eager.eager_limit = 1 << 20;
  const tutti_model_t *models[] = {&rdv, &eager};
  for (int k = 0; k < 2; k++) {
    tutti_world_t *w = fworld(P, TUTTI_RANKS_AS_FIBERS, 1, models[k]);
    if (SANITIZED) cr_assert(eq(int, tutti__world_inject(w, TUTTI__DEPTH_FIRST, -1, P, 0), 0));
    for (int root = 0; root < P; root += P / (SANITIZED ? 2 : 3) + 1) {
      struct one o = {TUTTI_COLL_BCAST, pick(TUTTI_COLL_BCAST, "binomial", NULL), 2, TUTTI_INT32,
                      root};
      cr_assert(eq(int, tutti_world_run(w, one_call, &o), 0), "%s", tutti_world_error(w));
      tutti_stats_t st;
      cr_assert(eq(int, tutti_world_stats(w, &st), 0));
      uint64_t most = k ? (uint64_t)P / 16 : (uint64_t)(2 * (LOG + 1));
      cr_assert(le(u64, st.stacks, most), "%d ranks, root %d, %s: %llu stacks", P, root,
                k ? "eager" : "rendezvous", (unsigned long long)st.stacks);
    }
    tutti_world_destroy(w);
  }
  /* breadth first: every fiber holds a stack */
  tutti_world_t *b = fworld(64, TUTTI_RANKS_AS_FIBERS, 1, &rdv);
  struct one o = {TUTTI_COLL_BCAST, pick(TUTTI_COLL_BCAST, "binomial", NULL), 2, TUTTI_INT32, 0};
  cr_assert(eq(int, tutti_world_run(b, one_call, &o), 0), "%s", tutti_world_error(b));
  tutti_stats_t st;
  cr_assert(eq(int, tutti_world_stats(b, &st), 0));
  cr_assert(eq(u64, st.stacks, 64));
  tutti_world_destroy(b);
  tutti_world_t *w = fworld(64, TUTTI_RANKS_AS_THREADS, 0, NULL);
  cr_assert(eq(int, tutti_world_run(w, one_call, &o), 0), "%s", tutti_world_error(w));
  cr_assert(eq(int, tutti_world_stats(w, &st), 0));
  cr_assert(eq(u64, st.stacks, 64));
  tutti_world_destroy(w);
}

/* ---------------------------------------------------- M ranks on N threads */

struct seen {
  pthread_mutex_t lock;
  pthread_t who[64];
  int n;
};

static int note_thread(tutti_rank_t *r, void *arg) {
  struct seen *s = arg;
  pthread_t me = pthread_self();
  pthread_mutex_lock(&s->lock); /* held without waiting in tutti: allowed */
  int known = 0;
  for (int i = 0; i < s->n; i++) known |= pthread_equal(s->who[i], me);
  if (!known && s->n < 64) s->who[s->n++] = me;
  pthread_mutex_unlock(&s->lock);
  return tutti_barrier(r, NULL);
}

Test(workers, ranks_share_the_worker_threads, .timeout = 60) {
  const int W[] = {1, 2, 3};
  for (int k = 0; k < 3; k++) {
    struct seen s = {.lock = PTHREAD_MUTEX_INITIALIZER};
    tutti_world_t *w = fworld(100, TUTTI_RANKS_AS_FIBERS, W[k], NULL);
    for (int run = 0; run < 2; run++) { /* a world runs again */
      s.n = 0;
      cr_assert(eq(int, tutti_world_run(w, note_thread, &s), 0), "%s", tutti_world_error(w));
      cr_assert(eq(int, s.n, W[k]), "%d ranks ran on %d threads, not %d", 100, s.n, W[k]);
    }
    tutti_stats_t st;
    cr_assert(eq(int, tutti_world_stats(w, &st), 0));
    cr_assert(eq(int, st.workers, W[k]));
    tutti_world_destroy(w);
  }
}

static int just_barrier(tutti_rank_t *r, void *arg) {
  (void)arg;
  return tutti_barrier(r, NULL);
}

/* By default one worker per 1024 ranks, up to one per CPU the process may
 * use; $TUTTI_WORKERS when the config leaves it at 0 (anything but a
 * positive number: the world is refused). */
Test(workers, the_default_grows_with_the_ranks, .timeout = 60) {
  cpu_set_t cpus;
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > 0)
    ncpu = CPU_COUNT(&cpus);
  const int P[] = {1, 16, 1024, 1025, 2500};
  for (int k = 0; k < 5; k++) {
    tutti_world_t *w = fworld(P[k], TUTTI_RANKS_AS_FIBERS, 0, NULL);
    long want = (P[k] + 1023) / 1024;
    cr_assert(eq(int, tutti_world_workers(w), (int)(want < ncpu ? want : ncpu)), "P=%d", P[k]);
    tutti_world_destroy(w);
  }
  setenv("TUTTI_WORKERS", "3", 1);
  tutti_world_t *w = fworld(16, TUTTI_RANKS_AS_FIBERS, 0, NULL);
  cr_assert(eq(int, tutti_world_workers(w), 3));
  cr_assert(eq(int, tutti_world_run(w, just_barrier, NULL), 0), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
  w = fworld(16, TUTTI_RANKS_AS_FIBERS, 2, NULL); /* the config wins */
  cr_assert(eq(int, tutti_world_workers(w), 2));
  tutti_world_destroy(w);
  const char *bad[] = {"0", "-1", "x", "2x"};
  tutti_config_t c = tutti_config_default(16);
  c.ranks_as = TUTTI_RANKS_AS_FIBERS;
  for (int k = 0; k < 4; k++) {
    setenv("TUTTI_WORKERS", bad[k], 1);
    w = NULL;
    cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_EINVAL), "TUTTI_WORKERS=%s", bad[k]);
    cr_assert(eq(ptr, w, NULL));
  }
  unsetenv("TUTTI_WORKERS");
}

/* Back-to-back 8 B broadcasts; the root sends call k's value k. */
struct ahead {
  const tutti_algo_t *algo;
  int calls;
};
static int bcasts(tutti_rank_t *r, void *arg) {
  const struct ahead *x = arg;
  for (int64_t k = 0; k < x->calls; k++) {
    int64_t v = tutti_rank(r) == 0 ? k : -1;
    int rc = tutti_bcast(r, &v, 1, TUTTI_INT64, 0, x->algo);
    if (rc) return rc;
    if (v != k) return TUTTI_EVERIFY;
  }
  return 0;
}

/* An eager sender runs ahead of the receivers of its own worker until it
 * has made world->run_ahead bytes of buffers of the size, and only then
 * yields when it has none (pool.h pool_throttle): the receivers then take
 * many calls' messages per turn. Yielding as soon as its pool was empty,
 * the binomial root kept two or three buffers, and the ranks slept 0.42
 * times per call. One worker: the schedule, so every count here, is
 * deterministic. The run-ahead is bounded: the root's buffers stay near
 * its share, RUN_AHEAD at 16 ranks and a 1024th of RUN_AHEAD_WORKER at
 * 1024, not one per message (4000 calls' messages at 16 ranks). Under
 * ThreadSanitizer 16 ranks only: the counts are the one worker's
 * schedule, the same in every build, and 1024 instrumented ranks take
 * minutes. */
Test(workers, a_sender_runs_ahead_of_its_receivers, .timeout = 120) {
  const char *trees[] = {"binomial", "binary", "flat"};
  for (int t = 0; t < 3; t++)
    for (int P = 16; P <= (TSAN ? 16 : 1024); P *= 64) {
      tutti_world_t *w = fworld(P, TUTTI_RANKS_AS_FIBERS, 1, NULL);
      uint32_t share = w->run_ahead;
      cr_assert(eq(u32, share, P == 16 ? RUN_AHEAD : RUN_AHEAD_WORKER / 1024));
      struct ahead x = {pick(TUTTI_COLL_BCAST, trees[t], NULL), P == 16 ? 4000 : 200};
      cr_assert(eq(int, tutti_world_run(w, bcasts, &x), 0), "%s: %s", trees[t],
                tutti_world_error(w));
      tutti_stats_t st;
      cr_assert(eq(int, tutti_world_stats(w, &st), 0));
      double per = (double)st.sleeps / ((double)P * x.calls);
      if (P == 16) cr_expect(lt(dbl, per, 0.1), "%s: %.3f sleeps per call and rank", trees[t], per);
      uint32_t made = w->ranks[0]->pool[0].made;
      cr_expect(ge(u32, made, share / 64), "%s P=%d: the root made %u buffers", trees[t], P, made);
      /* and a buffer for each fastbox it offers, one per peer (fastbox.c) */
      cr_expect(le(u32, made, 2 * share / 64 + (uint32_t)P - 1),
                "%s P=%d: the root made %u buffers", trees[t], P, made);
      tutti_world_destroy(w);
    }
}

/* Rank 0 sends rank 1 more eager messages than its run-ahead makes
 * buffers for, so a send yields (pool.h pool_throttle); every other rank
 * then sends rank 0 a message from a source new to it. In a direct world
 * (p2p.c "Direct delivery") those land in rank 0's channel table, which
 * grows under the suspended send: the send takes its own channel only
 * after the yield (ASan sees a stale one). */
#define FLOOD 1000
static int flood(tutti_rank_t *r, void *arg) {
  (void)arg;
  int me = tutti_rank(r), P = tutti_size(r), rc = 0;
  int64_t v = me;
  if (me == 0) {
    for (int64_t k = 0; k < FLOOD && !rc; k++) rc = tutti_send(r, &k, 1, TUTTI_INT64, 1, 7);
    for (int s = 2; s < P && !rc; s++)
      if (!(rc = tutti_recv(r, &v, 1, TUTTI_INT64, s, 8, NULL)) && v != s) rc = TUTTI_EVERIFY;
  } else if (me == 1) {
    for (int64_t k = 0; k < FLOOD && !rc; k++)
      if (!(rc = tutti_recv(r, &v, 1, TUTTI_INT64, 0, 7, NULL)) && v != k) rc = TUTTI_EVERIFY;
  } else {
    rc = tutti_send(r, &v, 1, TUTTI_INT64, 0, 8);
  }
  return rc;
}

Test(workers, a_direct_send_yields_before_it_takes_its_channel, .timeout = 60) {
  for (int record = 0; record < 2; record++) {
    tutti_config_t c = tutti_config_default(200);
    c.ranks_as = TUTTI_RANKS_AS_FIBERS;
    c.workers = 1;
    c.flags = record ? TUTTI_RECORD : 0; /* recorded: through the inbox */
    tutti_world_t *w = NULL;
    cr_assert(eq(int, tutti_world_create(&w, &c), 0));
    cr_assert(eq(int, tutti__direct(w), !record));
    cr_assert(eq(int, tutti_world_run(w, flood, NULL), 0), "%s", tutti_world_error(w));
    /* it did yield: the run-ahead is a fraction of the messages */
    uint32_t made = w->ranks[0]->pool[0].made;
    cr_assert(gt(u32, made, 0));
    cr_assert(lt(u32, made, FLOOD / 2));
    /* direct: no fastbox; through the inbox, the pair that keeps talking gets one */
    cr_expect(eq(int, w->ranks[1]->nboxes, record), "record %d", record);
    tutti_world_destroy(w);
  }
}

/* A rank that polls with tutti_test while the rank it waits for shares its
 * only worker: the poll must give the worker away. */
static int poll_fn(tutti_rank_t *r, void *arg) {
  int me = tutti_rank(r), x = 0, flag = 0, rc;
  if (me == 1) return tutti_send(r, &me, 1, TUTTI_INT32, 0, 5);
  tutti_request_t q;
  if ((rc = tutti_irecv(r, &x, 1, TUTTI_INT32, 1, 5, &q))) return rc;
  long polls = 0;
  while (!flag) {
    if ((rc = tutti_test(r, &q, &flag, NULL))) return rc;
    polls++;
  }
  *(long *)arg = polls;
  return x == 1 ? 0 : TUTTI_EVERIFY;
}

Test(workers, polling_gives_the_worker_away, .timeout = 30) {
  tutti_world_t *w = fworld(2, TUTTI_RANKS_AS_FIBERS, 1, NULL);
  long polls = 0;
  cr_assert(eq(int, tutti_world_run(w, poll_fn, &polls), 0), "%s", tutti_world_error(w));
  cr_assert(ge(long, polls, 1));
  tutti_world_destroy(w);
}

static int create_inside(tutti_rank_t *r, void *arg) {
  tutti_config_t c = tutti_config_default(2);
  tutti_world_t *w2 = NULL;
  int rc = tutti_world_create(&w2, &c);
  tutti_world_destroy(w2);
  return rc == TUTTI_EBUSY ? tutti_barrier(r, NULL) : TUTTI_EVERIFY;
}

Test(workers, a_world_from_a_fiber_is_refused, .timeout = 30) {
  tutti_world_t *w = fworld(5, TUTTI_RANKS_AS_FIBERS, 2, NULL);
  cr_assert(eq(int, tutti_world_run(w, create_inside, NULL), 0), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
}

/* --------------------------------------------------------------- failure */

static int ring_recv_first(tutti_rank_t *r, void *arg) {
  int me = tutti_rank(r), p = tutti_size(r), x;
  int rc = tutti_recv(r, &x, 1, TUTTI_INT32, (me + p - 1) % p, 0, NULL);
  if (rc) return rc;
  return tutti_send(r, &me, 1, TUTTI_INT32, (me + 1) % p, 0);
}

Test(failure, deadlock_is_detected_and_named, .timeout = 60) {
  const int Ps[] = {2, 5, SANITIZED ? 500 : 5000};
  for (int k = 0; k < 3; k++) {
    tutti_world_t *w = fworld(Ps[k], TUTTI_RANKS_AS_FIBERS, 0, NULL);
    cr_assert(eq(int, tutti_world_run(w, ring_recv_first, NULL), TUTTI_EDEADLOCK));
    const char *e = tutti_world_error(w);
    cr_assert(ne(ptr, strstr(e, "deadlock:"), NULL), "%s", e);
    cr_assert(ne(ptr, strstr(e, "rank 1 waits in recv from 0 (tag 0)"), NULL), "%s", e);
    tutti_waitinfo_t wi;
    cr_assert(eq(int, tutti_world_waitinfo(w, 1, &wi), 0));
    cr_assert(eq(int, wi.blocked, 1));
    cr_assert(eq(int, wi.peer, 0));
    cr_assert(eq(str, (char *)wi.op, "recv"));
    tutti_world_destroy(w);
  }
}

static int abort_at_3(tutti_rank_t *r, void *arg) {
  int x;
  if (tutti_rank(r) == 3) tutti_abort(r, TUTTI_EINVAL);
  return tutti_recv(r, &x, 1, TUTTI_INT32, 3, 0, NULL);
}

static int fail_at_2(tutti_rank_t *r, void *arg) {
  int x;
  if (tutti_rank(r) == 2) return TUTTI_ETYPE;
  return tutti_recv(r, &x, 1, TUTTI_INT32, 2, 0, NULL);
}

Test(failure, abort_and_a_rank_error_name_the_rank, .timeout = 60) {
  tutti_world_t *w = fworld(9, TUTTI_RANKS_AS_FIBERS, 2, NULL);
  int rc = tutti_world_run(w, abort_at_3, NULL);
  cr_assert(eq(int, rc, TUTTI_EINVAL), "%d: %s", rc, tutti_world_error(w));
  cr_assert(ne(ptr, strstr(tutti_world_error(w), "rank 3 called tutti_abort"), NULL), "%s",
            tutti_world_error(w));
  rc = tutti_world_run(w, fail_at_2, NULL);
  cr_assert(eq(int, rc, TUTTI_ETYPE), "%d: %s", rc, tutti_world_error(w));
  cr_assert(ne(ptr, strstr(tutti_world_error(w), "rank 2 failed: TUTTI_ETYPE"), NULL), "%s",
            tutti_world_error(w));
  cr_assert(eq(int, tutti_world_run(w, ring_recv_first, NULL), TUTTI_EDEADLOCK)); /* and again */
  tutti_world_destroy(w);
}

/* ------------------------------------------------------------------ stacks */

static long deep(int n) {
  volatile char pad[512];
  pad[0] = (char)n;
  pad[511] = (char)(n >> 8);
  return n == 0 ? pad[0] : deep(n - 1) + pad[511] + pad[0];
}

static int recurse_at_2(tutti_rank_t *r, void *arg) {
  if (tutti_rank(r) == 2) {
    volatile long sink = deep(1 << 20); /* 512 MiB of frames: far past any stack */
    (void)sink;
  }
  return tutti_barrier(r, NULL);
}

Test(stack, overflow_into_the_guard_page_names_the_rank, .timeout = 60) {
#ifdef __SANITIZE_THREAD__
  /* ThreadSanitizer cannot follow the way out of the SIGSEGV handler (a
   * siglongjmp to the worker): it reports the worker's next calls as made
   * inside a signal handler. The normal and ASan builds run this. */
  cr_skip("the guard page's handler is not followed by ThreadSanitizer");
#endif
  tutti_world_t *w = fworld(6, TUTTI_RANKS_AS_FIBERS, 2, NULL);
  int rc = tutti_world_run(w, recurse_at_2, NULL);
  cr_assert(eq(int, rc, TUTTI_ESTACK), "%d: %s", rc, tutti_world_error(w));
  const char *e = tutti_world_error(w);
  cr_assert(ne(ptr, strstr(e, "rank 2 overflowed its stack of"), NULL), "%s", e);
  cr_assert(ne(ptr, strstr(e, "guard page"), NULL), "%s", e);
  cr_assert(ne(ptr, strstr(e, "--stack"), NULL), "%s", e);
  /* the world is usable again, and a larger stack is accepted */
  cr_assert(eq(int, tutti_world_run(w, ring_recv_first, NULL), TUTTI_EDEADLOCK));
  tutti_world_destroy(w);
}

/* Rank 4 writes over the canary below its frames, as a deep frame would
 * where no guard page is affordable: with guard pages (the bottom of its
 * own stack) and without (the top of rank 3's slot, as past some 32000
 * fibers). */
static int smash_canary_at_4(tutti_rank_t *r, void *arg) {
  if (r->rank == 4) memset(tutti__fiber_canary(r), 0x55, 16);
  return tutti_barrier(r, NULL);
}

static void smash_canary(bool guards) {
  tutti_world_t *w = fworld(8, TUTTI_RANKS_AS_FIBERS, 2, NULL);
  if (!guards) cr_assert(eq(int, tutti__world_inject(w, TUTTI__NO_GUARDS, -1, 0, 0), 0));
  int rc = tutti_world_run(w, smash_canary_at_4, NULL);
  cr_assert(eq(int, rc, TUTTI_ESTACK), "%d: %s", rc, tutti_world_error(w));
  cr_assert(eq(int, w->stack_guard != 0, guards));
  cr_assert(ne(ptr, strstr(tutti_world_error(w), "rank 4 overflowed its stack"), NULL), "%s",
            tutti_world_error(w));
  cr_assert(ne(ptr, strstr(tutti_world_error(w), "canary"), NULL), "%s", tutti_world_error(w));
  /* the next run writes the canaries afresh */
  cr_assert(eq(int, tutti_world_run(w, ring_recv_first, NULL), TUTTI_EDEADLOCK));
  tutti_world_destroy(w);
}

Test(stack, a_smashed_canary_names_the_rank, .timeout = 60) {
  smash_canary(true);
}

Test(stack, a_smashed_canary_names_the_rank_without_guard_pages, .timeout = 60) {
  smash_canary(false);
}

/* -------------------------------------------------------------- bad input */

Test(config, bad_choices_are_refused, .timeout = 30) {
  tutti_world_t *w = NULL;
  tutti_config_t c = tutti_config_default(4);
  c.ranks_as = 7;
  cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_EINVAL));
  c.ranks_as = TUTTI_RANKS_AS_FIBERS;
  c.workers = -1;
  cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_EINVAL));
  c.workers = 0;
  c.flags = TUTTI_WALLCLOCK; /* pacing would hold a worker's other fibers */
  cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_ENOTSUP));
  c.flags = 0;
  c.stack_size = 4096;
  cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_EINVAL));
  cr_assert(eq(ptr, w, NULL));

  /* $TUTTI_RANKS_AS decides when the config does not */
  tutti_config_t e = tutti_config_default(3);
  setenv("TUTTI_RANKS_AS", "fibres", 1);
  cr_assert(eq(int, tutti_world_create(&w, &e), TUTTI_EINVAL));
  setenv("TUTTI_RANKS_AS", "fibers", 1);
  cr_assert(eq(int, tutti_world_create(&w, &e), 0));
  cr_assert(eq(int, tutti_world_run(w, ring_recv_first, NULL), TUTTI_EDEADLOCK));
  tutti_stats_t st;
  cr_assert(eq(int, tutti_world_stats(w, &st), 0));
  cr_assert(gt(int, st.workers, 0));
  tutti_world_destroy(w);
  e.ranks_as = TUTTI_RANKS_AS_THREADS; /* the config wins over the environment */
  cr_assert(eq(int, tutti_world_create(&w, &e), 0));
  cr_assert(eq(int, tutti_world_run(w, ring_recv_first, NULL), TUTTI_EDEADLOCK));
  cr_assert(eq(int, tutti_world_stats(w, &st), 0));
  cr_assert(eq(int, st.workers, 0));
  tutti_world_destroy(w);
  unsetenv("TUTTI_RANKS_AS");
}

/* ------------------------------------------------------------ the command */

/* A timing-only run runs fibers unless --ranks-as or $TUTTI_RANKS_AS says
 * otherwise (tutti's choice for no bytes copied), with the modeled time of
 * a data run on threads. */
Test(cli, no_data_runs_fibers_by_default, .timeout = 120) {
  unsetenv("TUTTI_RANKS_AS"); /* the children inherit this process's environment */
#define RUN_ARGS "run", "allreduce", "ring", "-n", "40", "-m", "1KiB", "--json"
  struct cli v[] = {CLI(RUN_ARGS, "--no-data"), CLI(RUN_ARGS, "--no-data", "--ranks-as", "threads"),
                    CLI_ENV("TUTTI_RANKS_AS=threads", RUN_ARGS, "--no-data"),
                    CLI(RUN_ARGS, "--ranks-as", "threads")};
#undef RUN_ARGS
  const char *t0 = NULL;
  for (int i = 0; i < 4; i++) {
    cr_assert(eq(int, v[i].status, 0), "%d: %s", i, v[i].err);
    int threads = strstr(v[i].out, "\"workers\":0,") != NULL;
    cr_expect(eq(int, threads, i > 0), "run %d: %s", i, v[i].out);
    const char *t = strstr(v[i].out, "\"modeled_time\":");
    cr_assert(ne(ptr, (void *)t, NULL));
    if (!t0) t0 = t;
    size_t n = strcspn(t0, ",}");
    cr_expect(eq(int, strncmp(t, t0, n + 1), 0), "%.*s against %.*s", (int)n, t, (int)n, t0);
  }
  for (int i = 0; i < 4; i++) cli_free(&v[i]);
}

Test(cli, ranks_as_and_stack, .timeout = 120) {
  struct cli t =
      CLI("run", "reduce", "binomial", "-n", "33", "-m", "64", "--json", "--ranks-as", "threads");
  struct cli f =
      CLI("run", "reduce", "binomial", "-n", "33", "-m", "64", "--json", "--ranks-as", "fibers");
  cr_assert(eq(int, t.status, 0), "%s", t.err);
  cr_assert(eq(int, f.status, 0), "%s", f.err);
  HAS(t.out, "\"workers\":0,");
  cr_assert(eq(ptr, strstr(f.out, "\"workers\":0,"), NULL), "%s", f.out);
  /* the same modeled result, verified both ways */
  const char *keys[] = {"\"modeled_time\":", "\"verified\":true", "\"messages\":"};
  for (int k = 0; k < 3; k++) {
    const char *a = strstr(t.out, keys[k]), *b = strstr(f.out, keys[k]);
    cr_assert(a && b, "%s", keys[k]);
    size_t n = strcspn(a, ",}");
    cr_assert(eq(int, strncmp(a, b, n + 1), 0), "%.*s against %.*s", (int)n, a, (int)n, b);
  }
  cli_free(&t), cli_free(&f);

  f = CLI_ENV("TUTTI_RANKS_AS=fibers", "run", "bcast", "flat", "-n", "5");
  cr_assert(eq(int, f.status, 0), "%s", f.err);
  HAS(f.out, "fibers on");
  cli_free(&f);
  f = CLI("run", "bcast", "flat", "-n", "5", "--ranks-as", "fibers", "--stack", "1MiB");
  cr_assert(eq(int, f.status, 0), "%s", f.err);
  cli_free(&f);
  /* --realtime runs threads whatever the environment says */
  f = CLI_ENV("TUTTI_RANKS_AS=fibers", "run", "bcast", "flat", "-n", "3", "--realtime", "1e3");
  cr_assert(eq(int, f.status, 0), "%s", f.err);
  cr_assert(eq(ptr, strstr(f.out, "fibers on"), NULL), "%s", f.out);
  cli_free(&f);

  fails_with(CLI("run", "bcast", "flat", "--ranks-as", "fiber"), 2, "accepted: threads, fibers");
  fails_with(CLI("suite", "--ranks-as", "green"), 2, "--ranks-as");
  fails_with(CLI("run", "bcast", "flat", "--stack", "8KiB"), 2,
             "--stack: '8KiB' is out of range; accepted: a size from 16 KiB to 1 GiB");
  fails_with(CLI("sweep", "bcast", "--stack", "lots"), 2, "--stack");
  fails_with(CLI("run", "bcast", "flat", "--ranks-as", "fibers", "--realtime", "1"), 2,
             "not with --ranks-as fibers");
  fails_with(CLI_ENV("TUTTI_RANKS_AS=fibres", "run", "bcast", "flat"), 2,
             "TUTTI_RANKS_AS='fibres' is not a kind; accepted: threads, fibers");
  fails_with(CLI_ENV("TUTTI_WORKERS=two", "run", "bcast", "flat"), 2,
             "TUTTI_WORKERS='two' is not a worker count; accepted: 1 to 1048576");
}

Test(cli, bench_fibers_runs_both_modes, .timeout = 120) {
  struct cli c = CLI("bench", "fibers", "-n", "3", "--rounds", "1", "--modeled-ranks", "8");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "barrier");
  HAS(c.out, "allreduce 8 B");
  HAS(c.out, "threads  bcast      scatter-allgather");
  HAS(c.out, "fibers   bcast      scatter-allgather");
  cli_free(&c);
  c = CLI("bench", "fibers", "-n", "3", "--rounds", "1", "--modeled-ranks", "2", "--workers", "1",
          "--no-mpi");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "fibers: 1 worker thread at P=3 (--workers)");
  cli_free(&c);
  /* run's report counts its workers in the singular too */
  c = CLI_ENV("TUTTI_WORKERS=1", "run", "bcast", "binomial", "-n", "4", "--ranks-as", "fibers");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "; fibers on 1 worker thread, ");
  cli_free(&c);
  fails_with(CLI("bench", "fibers", "--workers", "0"), 2, "--workers");
  fails_with(CLI("bench", "fibers", "--rounds", "0"), 2, "--rounds");
  fails_with(CLI("bench", "fibers", "-n", "1"), 2, "-n");
  fails_with(CLI("bench", "fibers", "--modeled-ranks", "x"), 2, "--modeled-ranks");
  fails_with(CLI("bench", "fibers", "--bogus"), 2, "unknown option");
}

/* ------------------------------------------------- bench fibers: Open MPI */

/* One native row: "P  WHAT  THREADS U  FIBERS U  R1x  MPI U|-  R2x|-  R3x|-  ...". */
struct frow {
  double thr, fib, thr_fib, mpi, mpi_fib, mpi_thr; /* mpi: 0 when "-" */
};

static struct frow native_row(const char *out, int P, const char *what, const char *algo) {
  char head[64];
  snprintf(head, sizeof head, "%6d  %-14s %-18s ", P, what, algo);
  const char *line = strstr(out, head);
  cr_assert(ne(ptr, (void *)line, NULL), "no row '%s' in:\n%s", head, out);
  line += strlen(head);
  struct frow r = {0};
  char u1[8], u2[8], mpi[32], u3[8], c1[32], c2[32];
  int n = sscanf(line, "%lf %7s %lf %7s %lfx %31s", &r.thr, u1, &r.fib, u2, &r.thr_fib, mpi);
  cr_assert(eq(int, n, 6), "row '%s' does not parse: %.120s", head, line);
  r.thr *= unit_scale(u1), r.fib *= unit_scale(u2);
  if (strcmp(mpi, "-")) {
    n = sscanf(line, "%*f %*s %*f %*s %*fx %lf %7s %31s %31s", &r.mpi, u3, c1, c2);
    cr_assert(eq(int, n, 4), "row '%s': Open MPI cells do not parse: %.120s", head, line);
    r.mpi *= unit_scale(u3);
    r.mpi_fib = strtod(c1, NULL), r.mpi_thr = strtod(c2, NULL);
  }
  return r;
}

/* One round: each ratio is the one round's ratio of the printed times, to
 * the printed precision (times 6 digits, ratios 2 decimals). */
static void ratio_of(double printed, double num, double den, const char *what) {
  double want = num / den;
  cr_assert(le(dbl, fabs(printed - want), 0.006 + 1e-4 * want), "%s: %.2f printed, %g / %g = %g",
            what, printed, num, den, want);
}

Test(cli, bench_fibers_open_mpi_column, .timeout = 600) {
  if (!on_path("mpirun") || !on_path("mpicc"))
    cr_skip_test("Open MPI is not installed (no mpirun and mpicc on the PATH)");
  struct cli c = CLI("bench", "fibers", "-n", "3", "--rounds", "1", "--modeled-ranks", "8");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cr_assert(eq(ptr, strstr(c.out, "Open MPI: not run"), NULL), "%s", c.out);
  HAS(c.out, "Open MPI column: ");
  const char *what[] = {"barrier", "bcast 8 B", "bcast 8 B", "allreduce 8 B"};
  const char *algo[] = {"dissemination", "binomial", "binary", "recursive-doubling"};
  for (int i = 0; i < 4; i++) {
    struct frow r = native_row(c.out, 3, what[i], algo[i]);
    cr_assert(gt(dbl, r.thr, 0));
    cr_assert(gt(dbl, r.fib, 0));
    cr_assert(gt(dbl, r.mpi, 0), "%s: no Open MPI time", what[i]);
    cr_assert(gt(dbl, r.mpi_fib, 0));
    cr_assert(gt(dbl, r.mpi_thr, 0));
    ratio_of(r.thr_fib, r.thr, r.fib, "thr/fib");
    ratio_of(r.mpi_fib, r.mpi, r.fib, "MPI/fib");
    ratio_of(r.mpi_thr, r.mpi, r.thr, "MPI/thr");
  }
  cli_free(&c);
}

Test(cli, bench_fibers_says_why_open_mpi_is_not_run, .timeout = 120) {
  struct cli c =
      CLI("bench", "fibers", "-n", "3", "--rounds", "1", "--modeled-ranks", "8", "--no-mpi");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "Open MPI: not run at P=3 (--no-mpi)");
  cr_assert(eq(ptr, strstr(c.out, "Open MPI column: "), NULL));
  struct frow r = native_row(c.out, 3, "barrier", "dissemination");
  cr_assert(gt(dbl, r.fib, 0));
  cr_assert(eq(dbl, r.mpi, 0), "an Open MPI time with --no-mpi");
  cli_free(&c);
  /* above the MPI limit: no job is started, whether Open MPI is installed or not */
  c = CLI("bench", "fibers", "-n", "65", "--rounds", "1", "--modeled-ranks", "8");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "Open MPI: not run at P=65 (above 64 processes");
  r = native_row(c.out, 65, "allreduce 8 B", "recursive-doubling");
  cr_assert(gt(dbl, r.thr, 0));
  cr_assert(eq(dbl, r.mpi, 0));
  cli_free(&c);
}

/*
 * test_e2e_modeled.c -- modeled time of whole runs (runtime/MODEL.md): programs run
 * on real rank threads, their logs replayed, the times checked against
 * runtime/MODEL.md's worked examples and closed forms: small p2p programs; the
 * same patterns inside spans, per call (tutti_world_report); the
 * collectives of the registry against runtime/MODEL.md's and collectives/REFERENCE.md's
 * numbers (Hockney, segments, postal vectors, f_L(P), every tree's postal
 * time). Determinism: 50 runs under perturbed scheduling (random yields
 * and sleeps in the runtime) give bit-identical modeled times. Wall-clock
 * mode never delivers earlier than modeled. The integer time base: exact
 * sums, its resolution and its range.
 * Under the sanitizers, whose thread starts are slow, the sweeps over P
 * take every P to 16 and then every eighth (24, 32, ..., 64, ..., 128),
 * and the determinism check 10 perturbed runs a program, not 50.
 * The replay engine's rules on hand-built logs: test_unit_replay.c; on
 * links: test_unit_contention.c and test_e2e_contention.c.
 *
 * TUTTI_TSAN_TEST: also built and run under ThreadSanitizer.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#include "coll_helpers.h"

#define US 1e-6

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

/* The next rank count of a sweep: every one, or under the sanitizers
 * every one to 16 and then every eighth (the header comment). */
static int next_P(int P) {
  return SANITIZED && P >= 16 ? P + 8 : P + 1;
}

/* ------------------------------------------------------------ programs */

struct prog {
  const char *name;
  size_t bytes;
  int root;
  unsigned seed;
};

static int bcast_flat(tutti_rank_t *r, void *arg) {
  const struct prog *p = arg;
  int me = tutti_rank(r), n = tutti_size(r), rc = 0;
  char *buf = calloc(p->bytes + 1, 1);
  if (me == p->root) {
    for (int v = 1; v < n && !rc; v++)
      rc = tutti_send(r, buf, (long)p->bytes, TUTTI_BYTE, (p->root + v) % n, 0);
  } else {
    rc = tutti_recv(r, buf, (long)p->bytes, TUTTI_BYTE, p->root, 0, NULL);
  }
  free(buf);
  return rc;
}

/* Binomial, largest subtree first: relative rank v receives from
 * v - lowbit(v), then sends to v + 2^j for 2^j < lowbit(v), j decreasing. */
static int bcast_binomial(tutti_rank_t *r, void *arg) {
  const struct prog *p = arg;
  int me = tutti_rank(r), n = tutti_size(r), rc = 0;
  int v = (me - p->root + n) % n;
  char *buf = calloc(p->bytes + 1, 1);
  int top = 1;
  while (top < n) top <<= 1;
  int low = v ? (v & -v) : top;
  if (v) rc = tutti_recv(r, buf, (long)p->bytes, TUTTI_BYTE, (v - low + p->root) % n, 0, NULL);
  for (int mask = low >> 1; mask >= 1 && !rc; mask >>= 1)
    if (v + mask < n)
      rc = tutti_send(r, buf, (long)p->bytes, TUTTI_BYTE, (v + mask + p->root) % n, 0);
  free(buf);
  return rc;
}

static int gather_flat(tutti_rank_t *r, void *arg) {
  const struct prog *p = arg;
  int me = tutti_rank(r), n = tutti_size(r), rc = 0;
  char *buf = calloc(p->bytes + 1, 1);
  if (me == p->root) {
    for (int v = 1; v < n && !rc; v++)
      rc = tutti_recv(r, buf, (long)p->bytes, TUTTI_BYTE, (p->root + v) % n, 0, NULL);
  } else {
    rc = tutti_send(r, buf, (long)p->bytes, TUTTI_BYTE, p->root, 0);
  }
  free(buf);
  return rc;
}

static int exchange(tutti_rank_t *r, void *arg) {
  const struct prog *p = arg;
  int me = tutti_rank(r);
  char *a = calloc(p->bytes + 1, 1), *b = calloc(p->bytes + 1, 1);
  int rc = tutti_sendrecv(r, a, (long)p->bytes, TUTTI_BYTE, 1 - me, 0, b, (long)p->bytes,
                          TUTTI_BYTE, 1 - me, 0, NULL);
  free(a), free(b);
  return rc;
}

/* A busy mix for determinism: rounds of random-peer exchanges with mixed
 * sizes (eager and rendezvous), nonblocking posts in scrambled order, local
 * work and reductions, inside spans. */
static int mixed(tutti_rank_t *r, void *arg) {
  const struct prog *p = arg;
  int me = tutti_rank(r), n = tutti_size(r), rc = 0;
  enum { ROUNDS = 6, MAXB = 3000 };
  int *perm = malloc(sizeof(int) * (size_t)n), *inv = malloc(sizeof(int) * (size_t)n);
  char *out = calloc(3 * MAXB, 1), *in = calloc(3 * MAXB, 1);
  uint64_t x = 0x2545f4914f6cdd1dull ^ p->seed;
  for (int k = 0; k < ROUNDS && !rc; k++) {
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      int j = (int)(x % (uint64_t)(i + 1)), t = perm[i];
      perm[i] = perm[j], perm[j] = t;
    }
    for (int i = 0; i < n; i++) inv[perm[i]] = i;
    rc = tutti_span_begin(r, "round");
    long sz[3] = {8, 700 + 100 * k, MAXB}; /* the middle one crosses the eager limit */
    tutti_request_t q[6];
    for (int j = 2; j >= 0 && !rc; j--) /* receives posted in reverse order */
      rc = tutti_irecv(r, in + j * MAXB, sz[j], TUTTI_BYTE, inv[me], 10 + j, &q[3 + j]);
    if (!rc) rc = tutti_compute(r, (me % 3) * 0.5 * US);
    for (int j = 0; j < 3 && !rc; j++)
      rc = tutti_isend(r, out + j * MAXB, sz[j], TUTTI_BYTE, perm[me], 10 + j, &q[j]);
    if (!rc) rc = tutti_waitall(r, 6, q, NULL);
    int64_t a[16] = {0}, b[16] = {0};
    if (!rc) rc = tutti_reduce_local_r(r, a, b, 16, TUTTI_INT64, TUTTI_SUM);
    if (!rc) rc = tutti_span_end(r);
  }
  free(perm), free(inv), free(out), free(in);
  return rc;
}

/* --------------------------------------------------------------- helpers */

/* Run fn on n ranks under m; return the modeled time (latest rank end) and
 * optionally copy every rank's end time. */
static double run_modeled(const tutti_model_t *m, int n, tutti_rank_fn *fn, struct prog *p,
                          unsigned flags, int spin, double *ends) {
  tutti_config_t c = tutti_config_default(n);
  c.model = m;
  c.flags = flags;
  c.seed = p->seed;
  c.spin = spin;
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  int rc = tutti_world_run(w, fn, p);
  cr_assert(eq(int, rc, 0), "%s: %s", p->name, tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  if (ends) memcpy(ends, rep.rank_end, sizeof(double) * (size_t)n);
  double t = rep.modeled_time;
  tutti_world_destroy(w);
  return t;
}

static void expect_time(double got, double want, const char *what, int n) {
  cr_assert(le(dbl, fabs(got - want), 1e-12 * fmax(1.0, fabs(want))),
            "%s, P=%d: got %.17g, want %.17g", what, n, got, want);
}

static int ceil_log2(int n) {
  int k = 0;
  while ((1 << k) < n) k++;
  return k;
}

/* ------------------------------------------------- runtime/MODEL.md's examples */

Test(model_examples, hockney_broadcasts_gather_exchange, .timeout = 60) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct prog p = {"bcast", 1000, 0, 1};
  expect_time(run_modeled(&m, 8, bcast_binomial, &p, 0, -1, NULL), 6 * US, "binomial bcast", 8);
  expect_time(run_modeled(&m, 5, bcast_binomial, &p, 0, -1, NULL), 6 * US, "binomial bcast", 5);
  expect_time(run_modeled(&m, 8, bcast_flat, &p, 0, -1, NULL), 14 * US, "flat bcast", 8);
  expect_time(run_modeled(&m, 8, gather_flat, &p, 0, -1, NULL), 14 * US, "flat gather", 8);
  double ends[2];
  expect_time(run_modeled(&m, 2, exchange, &p, 0, -1, ends), 2 * US, "sendrecv", 2);
  expect_time(ends[0], 2 * US, "sendrecv rank 0", 2);
  expect_time(ends[1], 2 * US, "sendrecv rank 1", 2);
}

Test(model_examples, hockney_with_a_step, .timeout = 60) {
  tutti_model_t m;
  char err[256] = "";
  const char *c = "1us + 1ns*m | from 4KiB: 3us + 0.5ns*m";
  char spec[512];
  snprintf(spec, sizeof spec,
           "hockney:alpha=1us,beta=1ns,send_cpu=%s,send_port=%s,latency=%s,recv_port=%s", c, c, c,
           c);
  cr_assert(eq(int, tutti_model_parse(spec, &m, err, sizeof err), 0), "%s", err);
  struct prog small = {"bcast", 1000, 0, 1}, big = {"bcast", 8000, 0, 1};
  expect_time(run_modeled(&m, 8, bcast_binomial, &small, 0, -1, NULL), 6 * US, "binomial 1000 B",
              8);
  expect_time(run_modeled(&m, 8, bcast_binomial, &big, 0, -1, NULL), 21 * US, "binomial 8000 B", 8);
  expect_time(run_modeled(&m, 8, bcast_flat, &big, 0, -1, NULL), 49 * US, "flat 8000 B", 8);
  /* a third piece with a negative constant, >= 0 from its size on */
  c = "1us + 1ns*m | from 4KiB: 3us + 0.5ns*m | from 16000: -5us + 1ns*m";
  snprintf(spec, sizeof spec,
           "hockney:alpha=1us,beta=1ns,send_cpu=%s,send_port=%s,latency=%s,recv_port=%s", c, c, c,
           c);
  cr_assert(eq(int, tutti_model_parse(spec, &m, err, sizeof err), 0), "%s", err);
  struct prog steep = {"bcast", 16000, 0, 1};
  expect_time(run_modeled(&m, 8, bcast_binomial, &steep, 0, -1, NULL), 33 * US, "binomial 16000 B",
              8);
  expect_time(run_modeled(&m, 8, bcast_flat, &steep, 0, -1, NULL), 77 * US, "flat 16000 B", 8);
}

Test(model_examples, postal_L2, .timeout = 60) {
  tutti_model_t m = postal(2);
  struct prog p = {"postal", 0, 0, 1};
  expect_time(run_modeled(&m, 4, bcast_flat, &p, 0, -1, NULL), 4, "postal flat bcast", 4);
  expect_time(run_modeled(&m, 8, bcast_binomial, &p, 0, -1, NULL), 6, "postal binomial bcast", 8);
}

/* ------------------------------------------------------ closed forms */

Test(closed_forms, hockney_P_1_to_64, .timeout = 240) {
  size_t sizes[] = {0, 1000, 65536};
  for (size_t s = 0; s < 3; s++) {
    tutti_model_t m = hockney(1 * US, 1e-9);
    double step = 1 * US + 1e-9 * (double)sizes[s];
    for (int n = 1; n <= 64; n = next_P(n)) {
      struct prog p = {"closed", sizes[s], n > 3 ? n / 3 : 0, 1}; /* a nonzero root too */
      expect_time(run_modeled(&m, n, bcast_flat, &p, 0, -1, NULL), (n - 1) * step, "flat bcast", n);
      expect_time(run_modeled(&m, n, bcast_binomial, &p, 0, -1, NULL), ceil_log2(n) * step,
                  "binomial bcast", n);
      expect_time(run_modeled(&m, n, gather_flat, &p, 0, -1, NULL), (n - 1) * step, "flat gather",
                  n);
    }
  }
}

Test(closed_forms, postal_flat_broadcast, .timeout = 120) {
  for (int L = 1; L <= 4; L++) {
    tutti_model_t m = postal(L);
    for (int n = 2; n <= 64; n = next_P(n)) {
      struct prog p = {"postal flat", 0, 0, 1};
      expect_time(run_modeled(&m, n, bcast_flat, &p, 0, -1, NULL), (n - 2) + L, "postal flat", n);
    }
  }
}

/* ------------------------------------------------------- determinism */

static void check_deterministic(const tutti_model_t *m, int n, tutti_rank_fn *fn, const char *name,
                                int runs) {
  double *ref = calloc((size_t)n, sizeof *ref), *got = calloc((size_t)n, sizeof *got);
  struct prog p = {name, 2000, n / 2, 7};
  run_modeled(m, n, fn, &p, 0, -1, ref);
  for (int k = 0; k < runs; k++) {
    p.seed = 1000 + (unsigned)k; /* the perturbation seed; the program's own random
                                    choices use it too, so keep them apart: */
    struct prog q = p;
    q.seed = 7;
    tutti_config_t c = tutti_config_default(n);
    c.model = m;
    c.flags = TUTTI_PERTURB;
    c.seed = p.seed;
    c.spin = k % 3 == 0 ? 0 : -1; /* sometimes sleep at every wait */
    tutti_world_t *w;
    cr_assert(eq(int, tutti_world_create(&w, &c), 0));
    cr_assert(eq(int, tutti_world_run(w, fn, &q), 0), "%s: %s", name, tutti_world_error(w));
    tutti_report_t rep;
    cr_assert(eq(int, tutti_world_report(w, &rep), 0));
    memcpy(got, rep.rank_end, sizeof(double) * (size_t)n);
    tutti_world_destroy(w);
    cr_assert(eq(int, memcmp(ref, got, sizeof(double) * (size_t)n), 0),
              "%s: perturbed run %d differs from the reference (rank 0: %.17g vs %.17g)", name, k,
              got[0], ref[0]);
  }
  free(ref), free(got);
}

Test(determinism, fifty_perturbed_runs_are_bit_identical, .timeout = 600) {
  tutti_model_t h = hockney(1 * US, 1e-9);
  h.eager_limit = 1024; /* both protocols in one run */
  h.recv_cpu = (tutti_cost_t){.floor = 0, .a = 0.2 * US, .b = 0};
  h.gamma = 1e-10;
  tutti_model_t lg;
  cr_assert(eq(int, tutti_model_loggp(&lg, 5 * US, 1 * US, 2 * US, 1e-9), 0));
  const int runs = SANITIZED ? 10 : 50; /* the header comment */
  check_deterministic(&h, 16, mixed, "mixed/hockney", runs);
  check_deterministic(&lg, 13, mixed, "mixed/loggp", runs);
  check_deterministic(&h, 24, gather_flat, "gather/hockney", runs);
  check_deterministic(&lg, 24, gather_flat, "gather/loggp", runs);
  check_deterministic(&lg, 33, bcast_binomial, "binomial/loggp", runs);
}

/* ------------------------------------------------------ wall-clock mode */

static int pingpong5(tutti_rank_t *r, void *arg) {
  int me = tutti_rank(r), rc = 0;
  char b[16] = {0};
  for (int k = 0; k < 5 && !rc; k++) {
    if (me == 0) {
      rc = tutti_send(r, b, 16, TUTTI_BYTE, 1, 0);
      if (!rc) rc = tutti_recv(r, b, 16, TUTTI_BYTE, 1, 0, NULL);
    } else {
      rc = tutti_recv(r, b, 16, TUTTI_BYTE, 0, 0, NULL);
      if (!rc) rc = tutti_send(r, b, 16, TUTTI_BYTE, 0, 0);
    }
  }
  return rc;
}

/* Delivery is never earlier than modeled: the run cannot take less wall
 * time than its modeled time (times the scale). Only this lower bound is
 * guaranteed; a loaded machine may make it longer. */
static void check_paced(const tutti_model_t *m, double scale, double modeled) {
  tutti_config_t c = tutti_config_default(2);
  c.model = m;
  c.flags = TUTTI_WALLCLOCK;
  c.time_scale = scale;
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_assert(eq(int, tutti_world_run(w, pingpong5, NULL), 0), "%s", tutti_world_error(w));
  tutti_report_t rep;
  tutti_stats_t st;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  cr_assert(eq(int, tutti_world_stats(w, &st), 0));
  expect_time(rep.modeled_time, modeled, "paced ping-pong", 2);
  cr_assert(ge(dbl, st.wall_time, modeled * scale), "wall %g < modeled %g x %g", st.wall_time,
            modeled, scale);
  tutti_world_destroy(w);
}

Test(wallclock, delivery_is_never_earlier_than_modeled, .timeout = 60) {
  tutti_model_t h = hockney(2e-3, 0); /* rendezvous: 10 hops of 2 ms */
  check_paced(&h, 1.0, 20e-3);
  tutti_model_t p = postal(2); /* eager: 10 hops of 2 steps, 2 ms a step */
  check_paced(&p, 2e-3, 20);
  tutti_config_t c = tutti_config_default(2);
  c.time_scale = -1;
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_EINVAL));
}

/* ------------------------------------- the runtime's logs, replayed */

/* The patterns test_unit_replay.c builds by hand, written against the
 * public p2p API inside spans and run on rank threads: the runtime's logs
 * must replay to runtime/MODEL.md's numbers per call, and to the same bits
 * whatever the threads' interleaving (TUTTI_PERTURB). */

#define NEAR(got, want)                                                                            \
  cr_assert(epsilon_eq(dbl, (got), (want), 1e-12 * fabs((double)(want)) + 1e-20),                  \
            "%s = %.17g, want %.17g", #got, (double)(got), (double)(want))

enum { PAT_FLAT_BCAST, PAT_BINOMIAL, PAT_FLAT_GATHER, PAT_MIXED };

struct pat {
  int kind, iters;
};

static int rank_fn(tutti_rank_t *r, void *arg) {
  const struct pat *p = arg;
  int me = tutti_rank(r), P = tutti_size(r), top = 1 << ceil_log2(P);
  char buf[4096] = {0}, in[4096];
  int rc = 0;
  for (int k = 0; k < p->iters && !rc; k++) {
    if ((rc = tutti_span_begin(r, "call"))) break;
    switch (p->kind) {
    case PAT_FLAT_BCAST:
      if (me == 0)
        for (int d = 1; d < P && !rc; d++) rc = tutti_send(r, buf, 1000, TUTTI_BYTE, d, k);
      else
        rc = tutti_recv(r, buf, 1000, TUTTI_BYTE, 0, k, TUTTI_STATUS_IGNORE);
      break;
    case PAT_BINOMIAL: {
      int low = me ? (me & -me) : top;
      if (me) rc = tutti_recv(r, buf, 1000, TUTTI_BYTE, me - low, k, TUTTI_STATUS_IGNORE);
      for (int mask = low / 2; mask >= 1 && !rc; mask /= 2)
        if (me + mask < P) rc = tutti_send(r, buf, 1000, TUTTI_BYTE, me + mask, k);
      break;
    }
    case PAT_FLAT_GATHER:
      if (me == 0)
        for (int s = 1; s < P && !rc; s++)
          rc = tutti_recv(r, buf, 1000, TUTTI_BYTE, s, k, TUTTI_STATUS_IGNORE);
      else
        rc = tutti_send(r, buf, 1000, TUTTI_BYTE, 0, k);
      break;
    case PAT_MIXED: { /* a ring exchange of varied sizes, reductions, work */
      int right = (me + 1) % P, left = (me + P - 1) % P;
      long n = 64 + 997 * ((me + k) % 4);
      long m = 64 + 997 * ((left + k) % 4);
      rc = tutti_sendrecv(r, buf, n, TUTTI_BYTE, right, k, in, m, TUTTI_BYTE, left, k,
                          TUTTI_STATUS_IGNORE);
      if (!rc) rc = tutti_reduce_local_r(r, in, buf, m, TUTTI_BYTE, TUTTI_BXOR);
      if (!rc && me % 3 == 0) rc = tutti_compute(r, 1e-6 * (me % 5));
      break;
    }
    }
    if (!rc) rc = tutti_span_end(r);
  }
  return rc;
}

static tutti_world_t *run_world(const tutti_model_t *m, int P, struct pat *p, unsigned flags,
                                unsigned seed) {
  tutti_config_t cfg = tutti_config_default(P);
  cfg.model = m;
  cfg.flags = flags;
  cfg.seed = seed;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &cfg), 0));
  int rc = tutti_world_run(w, rank_fn, p);
  cr_assert(eq(int, rc, 0), "run: %s", tutti_world_error(w));
  return w;
}

Test(runtime, worked_examples, .timeout = 60) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  static const struct {
    int kind, P;
    double want;
  } cases[] = {
      {PAT_FLAT_BCAST, 8, 14 * US},
      {PAT_BINOMIAL, 8, 6 * US},
      {PAT_BINOMIAL, 5, 6 * US},
      {PAT_FLAT_GATHER, 8, 14 * US},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct pat p = {cases[i].kind, 2};
    tutti_world_t *w = run_world(&m, cases[i].P, &p, 0, 0);
    tutti_report_t rep;
    cr_assert(eq(int, tutti_world_report(w, &rep), 0));
    cr_assert(eq(int, rep.ncalls, 2));
    NEAR(rep.calls[0].time, cases[i].want);
    cr_assert(eq(u64, rep.messages, 2 * (uint64_t)(cases[i].P - 1)));
    tutti_world_destroy(w);
  }
}

Test(runtime, independent_of_scheduling, .timeout = 120) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_loggp(&m, 5e-6, 1e-6, 2e-6, 1e-9), 0));
  m.eager_limit = 1000; /* both eager and rendezvous */
  m.gamma = 0.5e-9;
  struct pat p = {PAT_MIXED, 6};
  double first[12], calls[6];
  for (unsigned seed = 0; seed < 4; seed++) {
    tutti_world_t *w = run_world(&m, 12, &p, seed ? TUTTI_PERTURB : 0, seed);
    tutti_report_t rep;
    cr_assert(eq(int, tutti_world_report(w, &rep), 0));
    cr_assert(rep.eager > 0 && rep.rendezvous > 0);
    if (!seed) {
      memcpy(first, rep.rank_end, sizeof first);
      for (int k = 0; k < 6; k++) calls[k] = rep.calls[k].time;
    } else {
      cr_assert(memcmp(first, rep.rank_end, sizeof first) == 0, "seed %u differs", seed);
      for (int k = 0; k < 6; k++) cr_assert(eq(dbl, rep.calls[k].time, calls[k]));
    }
    FILE *f = tmpfile();
    cr_assert(eq(int, tutti_world_trace(w, f), 0));
    fclose(f);
    tutti_world_destroy(w);
  }
}

/* ------------------------------------------------------ collectives */

/* runtime/MODEL.md's worked examples and collectives/REFERENCE.md's postal vectors, measured
 * on the registry's collectives through tutti_world_report. */

static int rel_eq(double got, double want) {
  return fabs(got - want) <= 1e-12 * fabs(want);
}
#define REL_EQ rel_eq

Test(modeled, hockney_binomial_and_flat_bcast, .timeout = 60) {
  tutti_model_t m = hockney(1e-6, 1e-9);
  const tutti_algo_t *bin = pick(TUTTI_COLL_BCAST, "binomial", NULL);
  const tutti_algo_t *flat = pick(TUTTI_COLL_BCAST, "flat", NULL);
  for (int P = 1; P <= 64; P = next_P(P)) {
    double tb = timed(P, &m, TUTTI_COLL_BCAST, bin, 1000, TUTTI_BYTE, 0);
    double tf = timed(P, &m, TUTTI_COLL_BCAST, flat, 1000, TUTTI_BYTE, P / 2);
    cr_expect(REL_EQ(tb, ceil_log2(P) * 2e-6), "binomial P=%d: %.17g", P, tb);
    cr_expect(REL_EQ(tf, (P - 1) * 2e-6), "flat P=%d: %.17g", P, tf);
  }
}

Test(modeled, hockney_reduce_gather_scatter, .timeout = 30) {
  tutti_model_t m = hockney(1e-6, 1e-9);
  const tutti_algo_t *a;
  a = pick(TUTTI_COLL_GATHER, "flat", NULL);
  cr_expect(REL_EQ(timed(8, &m, TUTTI_COLL_GATHER, a, 1000, TUTTI_BYTE, 0), 14e-6));
  cr_expect(REL_EQ(timed(8, &m, TUTTI_COLL_GATHER, a, 1000, TUTTI_BYTE, 5), 14e-6));
  a = pick(TUTTI_COLL_SCATTER, "flat", NULL);
  cr_expect(REL_EQ(timed(8, &m, TUTTI_COLL_SCATTER, a, 1000, TUTTI_BYTE, 3), 14e-6));
  /* binomial reduce is the broadcast reversed: 3 rounds of 2 us (gamma 0) */
  a = pick(TUTTI_COLL_REDUCE, "binomial", NULL);
  cr_expect(REL_EQ(timed(8, &m, TUTTI_COLL_REDUCE, a, 1000, TUTTI_BYTE, 0), 6e-6));
  cr_expect(REL_EQ(timed(5, &m, TUTTI_COLL_REDUCE, a, 1000, TUTTI_BYTE, 2), 6e-6));
  a = pick(TUTTI_COLL_REDUCE, "flat", NULL);
  cr_expect(REL_EQ(timed(8, &m, TUTTI_COLL_REDUCE, a, 1000, TUTTI_BYTE, 0), 14e-6));
  /* binomial gather, P = 8, 1000-byte blocks: the root's children send 1, 2
   * and 4 blocks, received one after another (alpha + 1 us, + 2 us, + 4 us). */
  a = pick(TUTTI_COLL_GATHER, "binomial", NULL);
  cr_expect(REL_EQ(timed(8, &m, TUTTI_COLL_GATHER, a, 1000, TUTTI_BYTE, 0), 10e-6));
}

/* Chain-like pipelining: a segmented binomial bcast on 2 ranks is one
 * edge: S segments of m/S bytes cost S (alpha + beta m / S). */
Test(modeled, hockney_segments, .timeout = 30) {
  tutti_model_t m = hockney(1e-6, 1e-9);
  const tutti_algo_t *a = pick(TUTTI_COLL_BCAST, "binomial", "segment=250");
  cr_expect(REL_EQ(timed(2, &m, TUTTI_COLL_BCAST, a, 1000, TUTTI_BYTE, 0), 4 * 1.25e-6));
  /* 3 ranks of the binary tree: the root feeds two children per segment */
  a = pick(TUTTI_COLL_BCAST, "binary", "segment=500");
  cr_expect(REL_EQ(timed(3, &m, TUTTI_COLL_BCAST, a, 1000, TUTTI_BYTE, 0), 4 * 1.5e-6));
}

static double postal_bcast(int P, double L, const char *name, const char *params) {
  tutti_model_t m = postal(L);
  const tutti_algo_t *a = pick(TUTTI_COLL_BCAST, name, params);
  return timed(P, &m, TUTTI_COLL_BCAST, a, 0, TUTTI_BYTE, 0);
}

Test(modeled, postal_vectors, .timeout = 60) {
  cr_expect(eq(dbl, postal_bcast(8, 2, "binomial", NULL), 6));
  cr_expect(eq(dbl, postal_bcast(8, 2, "lambda-tree", "lambda=0.6"), 5));
  cr_expect(eq(dbl, postal_bcast(8, 2, "lambda-tree", "lambda=auto"), 5));
  cr_expect(eq(dbl, postal_bcast(4, 2, "flat", NULL), 4));
  cr_expect(eq(dbl, postal_bcast(10, 1, "lambda-tree", "lambda=0.6"), 4));
  cr_expect(eq(dbl, postal_bcast(10, 2, "lambda-tree", "lambda=0.6"), 6));
  cr_expect(eq(dbl, postal_bcast(10, 3, "lambda-tree", "lambda=0.6"), 9));
  cr_expect(eq(dbl, postal_bcast(10, 2, "lambda-tree", "lambda=0.5"), 6));
  cr_expect(eq(dbl, postal_bcast(10, 3, "postal-optimal", NULL), 8)); /* f_3(10) */
  cr_expect(eq(dbl, postal_bcast(10, 2, "postal-optimal", "L=2"), 6));
  /* a root other than 0 changes nothing but the labels */
  tutti_model_t m = postal(2);
  const tutti_algo_t *a = pick(TUTTI_COLL_BCAST, "lambda-tree", NULL);
  cr_expect(eq(dbl, timed(10, &m, TUTTI_COLL_BCAST, a, 0, TUTTI_BYTE, 7), 6));
}

Test(modeled, postal_optimal_is_f, .timeout = 60) {
  for (int P = 2; P <= 128; P = next_P(P)) {
    double t = postal_bcast(P, 2, "postal-optimal", NULL);
    cr_expect(eq(dbl, t, (double)tutti_postal_f(2, P)), "P=%d", P);
  }
}

/* Every tree's modeled postal broadcast is the builder's postal time. */
Test(modeled, postal_matches_tree_postal_time, .timeout = 60) {
  static const struct {
    const char *name, *params;
    int kind;
    double lambda;
  } algos[] = {{"flat", NULL, TUTTI_TREE_FLAT, 0},
               {"binary", NULL, TUTTI_TREE_BINARY, 0},
               {"binomial", NULL, TUTTI_TREE_BINOMIAL, 0},
               {"lambda-tree", "lambda=0.75", TUTTI_TREE_LAMBDA, 0.75}};
  int sizes[] = {3, 6, 11, 23, 40};
  for (size_t i = 0; i < sizeof algos / sizeof *algos; i++)
    for (size_t j = 0; j < sizeof sizes / sizeof *sizes; j++)
      for (int L = 1; L <= 3; L++) {
        tutti_treespec_t s = tutti_treespec_default(algos[i].kind);
        if (algos[i].lambda) s.lambda = algos[i].lambda;
        long want;
        cr_assert(eq(int, tutti_tree_postal_time(&s, sizes[j], L, &want), 0));
        double got = postal_bcast(sizes[j], L, algos[i].name, algos[i].params);
        cr_expect(eq(dbl, got, (double)want), "%s P=%d L=%d", algos[i].name, sizes[j], L);
      }
}

Test(modeled, barrier_postal, .timeout = 30) {
  /* up the lambda-tree and back down: twice the broadcast, 2 x 5 for P = 8, L = 2 */
  tutti_model_t m = postal(2);
  const tutti_algo_t *a = pick(TUTTI_COLL_BARRIER, "lambda-tree", "lambda=auto");
  cr_expect(eq(dbl, timed(8, &m, TUTTI_COLL_BARRIER, a, 0, TUTTI_BYTE, 0), 10));
}

/* ------------------------------------------------------------ time base */

/* runtime/MODEL.md "Time base": whole picoseconds, converted once. */

static int run_flat(const tutti_model_t *m, int P, size_t bytes, tutti_report_t *rep, char *err,
                    size_t n) {
  struct prog p = {"flat", bytes, 0, 0};
  tutti_config_t cfg = tutti_config_default(P);
  cfg.model = m;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &cfg), 0));
  int rc = tutti_world_run(w, bcast_flat, &p);
  if (!rc) cr_assert(eq(int, tutti_world_report(w, rep), 0));
  snprintf(err, n, "%s", tutti_world_error(w));
  rep->rank_end = NULL; /* the world's, gone below */
  rep->rank_last_call = NULL;
  rep->calls = NULL;
  tutti_world_destroy(w);
  return rc;
}

Test(time_base, exact_sums_resolution_and_range, .timeout = 60) {
  tutti_model_t m;
  tutti_report_t rep;
  char err[512];
  /* the flat broadcast of the worked examples: exactly 14 us, not a sum of
   * 7 rounded doubles */
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  cr_assert(eq(int, run_flat(&m, 8, 1000, &rep, err, sizeof err), 0), "%s", err);
  cr_assert(eq(int, rep.modeled_time == 14e-6, 1), "%.17g", rep.modeled_time);
  /* 35 MB/s is 28571.43 ps/B: each message's m*b rounds to whole ps
   * (1000 B: 28571428.57 ps, so 28571429 ps), after 40 us */
  cr_assert(eq(int, tutti_model_hockney(&m, 40e-6, 1 / 35e6), 0));
  cr_assert(eq(int, run_flat(&m, 2, 1000, &rep, err, sizeof err), 0), "%s", err);
  cr_assert(eq(int, rep.modeled_time == 68.571429e-6, 1), "%.17g", rep.modeled_time);
  /* the range, 2^62 ps (about 4.6e6 s): the constructors refuse a time
   * above 1e6 s up front, and so does tutti_config_check (and world
   * creation) for a hand-built model's constant, naming the field; a run
   * that would pass the range is refused by the replay (7 sends of 1e6 s) */
  cr_assert(eq(int, tutti_model_hockney(&m, 1e7, 0), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_model_hockney(&m, 1e6, 0), 0));
  m.latency.a = 1e7;
  tutti_config_t cfg = tutti_config_default(2);
  cfg.model = &m;
  cr_assert(eq(int, tutti_config_check(&cfg, err, sizeof err), TUTTI_EINVAL));
  cr_assert(ne(ptr, strstr(err, "config.model->latency.a"), NULL), "%s", err);
  cr_assert(eq(int, tutti_model_hockney(&m, 1e6, 0), 0));
  cr_assert(eq(int, run_flat(&m, 2, 0, &rep, err, sizeof err), 0), "%s", err);
  cr_assert(eq(int, rep.modeled_time == 1e6, 1), "%.17g", rep.modeled_time);
  cr_assert(eq(int, run_flat(&m, 8, 0, &rep, err, sizeof err), TUTTI_EINVAL));
  cr_assert(ne(ptr, strstr(err, "time base's range"), NULL), "%s", err);
}

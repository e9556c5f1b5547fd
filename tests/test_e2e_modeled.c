/*
 * test_e2e_modeled.c -- modeled time end to end: small p2p programs run on real
 * rank threads, their logs replayed, the times checked against MODEL.md's
 * worked examples and closed forms; and determinism: 50 runs under
 * perturbed scheduling (random yields and sleeps in the runtime) give
 * bit-identical modeled times.
 *
 * TUTTI_TSAN_TEST: also built and run under ThreadSanitizer.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#define US 1e-6

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

static tutti_model_t hockney(double alpha, double beta) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_hockney(&m, alpha, beta), 0));
  return m;
}

static tutti_model_t postal(double L) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_postal(&m, L), 0));
  return m;
}

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

/* ------------------------------------------------- MODEL.md's examples */

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
    for (int n = 1; n <= 64; n++) {
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
    for (int n = 2; n <= 64; n++) {
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
  h.recv_cpu = (tutti_cost_t){0, 0.2 * US, 0};
  h.gamma = 1e-10;
  tutti_model_t lg;
  cr_assert(eq(int, tutti_model_loggp(&lg, 5 * US, 1 * US, 2 * US, 1e-9), 0));
  check_deterministic(&h, 16, mixed, "mixed/hockney", 50);
  check_deterministic(&lg, 13, mixed, "mixed/loggp", 50);
  check_deterministic(&h, 24, gather_flat, "gather/hockney", 50);
  check_deterministic(&lg, 24, gather_flat, "gather/loggp", 50);
  check_deterministic(&lg, 33, bcast_binomial, "binomial/loggp", 50);
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

/*
 * test_e2e_cost.c -- every registered algorithm's Hockney cost function
 * (tutti_algo_cost, the registry's cost_fn) against the modeled time the
 * engine gives the same call: equal where the registry says the cost is
 * exact, never below it where it says it is an upper bound; and its
 * message count (tutti_algo_messages, msgs_fn) equal to the engine's. Driven by the
 * registry, so a new algorithm is checked by being registered; over many
 * rank counts (1, 2, 3, primes, non-powers of two, 64; up to 13 under
 * ASan), roots, sizes and every registered parameter's values (including
 * auto, and segments that pipeline). TUTTI_TSAN_SKIP: not built under TSan -- it checks values
 * (600 s of them would exceed CI's budget there), and the threaded paths it
 * runs are covered under TSan by the correctness tests.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

static const tutti_hockney_t H = {1e-6, 1e-9, 2e-10};

struct call {
  const tutti_algo_t *a;
  int root;
  size_t m; /* bytes per rank; a multiple of 4 (int32 elements) */
};

/* One collective call, on buffers sized for it; the result is checked by
 * the correctness tests, here only the time matters. */
static int run_call(tutti_rank_t *r, void *arg) {
  const struct call *c = arg;
  int P = tutti_size(r), rc = 0;
  long n = (long)(c->m / 4);
  /* P blocks only where a collective needs them: the root's of gather and
   * scatter, every rank's of allgather, reduce_scatter and alltoall */
  unsigned tr = tutti_coll_traits(tutti_algo_desc(c->a)->coll);
  int whole = (tr & TUTTI_COLL_BLOCKS) && (tutti_rank(r) == c->root || !(tr & TUTTI_COLL_ROOTED));
  size_t len = (size_t)n * (size_t)(whole ? P : 1) + 1;
  int32_t *in = calloc(len, 4), *out = calloc(len, 4);
  if (!in || !out) {
    rc = TUTTI_ENOMEM;
  } else {
    switch (tutti_algo_desc(c->a)->coll) {
    case TUTTI_COLL_BCAST:
      rc = tutti_bcast(r, in, n, TUTTI_INT32, c->root, c->a);
      break;
    case TUTTI_COLL_REDUCE:
      rc = tutti_reduce(r, in, out, n, TUTTI_INT32, TUTTI_SUM, c->root, c->a);
      break;
    case TUTTI_COLL_ALLREDUCE:
      rc = tutti_allreduce(r, in, out, n, TUTTI_INT32, TUTTI_SUM, c->a);
      break;
    case TUTTI_COLL_GATHER:
      rc = tutti_gather(r, in, n, TUTTI_INT32, out, n, TUTTI_INT32, c->root, c->a);
      break;
    case TUTTI_COLL_SCATTER:
      rc = tutti_scatter(r, in, n, TUTTI_INT32, out, n, TUTTI_INT32, c->root, c->a);
      break;
    case TUTTI_COLL_BARRIER:
      rc = tutti_barrier(r, c->a);
      break;
    case TUTTI_COLL_ALLGATHER:
      rc = tutti_allgather(r, in, out, n, TUTTI_INT32, c->a);
      break;
    case TUTTI_COLL_REDUCE_SCATTER:
      rc = tutti_reduce_scatter(r, in, out, n, TUTTI_INT32, TUTTI_SUM, c->a);
      break;
    case TUTTI_COLL_ALLTOALL:
      rc = tutti_alltoall(r, in, out, n, TUTTI_INT32, c->a);
      break;
    case TUTTI_COLL_SCAN:
      rc = tutti_scan(r, in, out, n, TUTTI_INT32, TUTTI_SUM, c->a);
      break;
    case TUTTI_COLL_EXSCAN:
      rc = tutti_exscan(r, in, out, n, TUTTI_INT32, TUTTI_SUM, c->a);
      break;
    default:
      rc = TUTTI_EINVAL;
    }
  }
  free(in);
  free(out);
  return rc;
}

/* The values each parameter is tried with: its default, its bounds, a
 * middle value, auto where accepted; segments that cut the largest size
 * into 10 and 3 pieces; every word of a choice (explicit rank lists are
 * timed in test_e2e_bcast_large.c). */
static int param_values(const tutti_param_desc_t *p, char v[][32]) {
  int n = 0;
  if (p->type == TUTTI_PARAM_CHOICE) { /* every word; a rank list depends on P and the root */
    for (int w = 0; p->choices[w] && n < 8; w++)
      if (p->choices[w][strlen(p->choices[w]) - 1] != ':')
        snprintf(v[n++], 32, "%s", p->choices[w]);
    return n;
  }
  if (p->type == TUTTI_PARAM_SIZE) {
    snprintf(v[n++], 32, "0");
    snprintf(v[n++], 32, "1000");
    snprintf(v[n++], 32, "4096");
    return n;
  }
  snprintf(v[n++], 32, "%.17g", p->min);
  if (p->type == TUTTI_PARAM_REAL) {
    snprintf(v[n++], 32, "%.17g", isfinite(p->max) ? (p->min + p->max) / 2 : p->min * 2);
    snprintf(v[n++], 32, "%.17g", isfinite(p->max) ? p->max : p->min * 4);
  } else {
    snprintf(v[n++], 32, "%.17g", p->min + 1);
    snprintf(v[n++], 32, "%.17g", p->min + 2);
  }
  if (p->flags & TUTTI_PARAM_AUTO_OK) snprintf(v[n++], 32, "auto");
  return n;
}

/* Under ASan (this file is not built under TSan) the values are those of
 * the plain build, which checks 24 and 64 too; the sanitizer's checks of
 * large worlds are test_e2e_coll.c's (every algorithm up to P = 100). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
static const int ranks[] = {1, 2, 3, 5, 8, 13};
#else
static const int ranks[] = {1, 2, 3, 5, 8, 13, 24, 64};
#endif
static const size_t sizes[] = {0, 1000, 10000};

/* Check one algorithm setting on every P, root and size; returns the
 * number of calls checked and counts the exact ones. */
static int check_setting(const tutti_algo_t *a, int *exact) {
  tutti_model_t model;
  cr_assert(eq(int, tutti_model_hockney(&model, H.alpha, H.beta), 0));
  model.gamma = H.gamma;
  char name[128];
  tutti_algo_format(a, name, sizeof name);
  unsigned traits = tutti_coll_traits(tutti_algo_desc(a)->coll);
  int rooted = (traits & TUTTI_COLL_ROOTED) != 0, data = (traits & TUTTI_COLL_DATA) != 0;
  int checked = 0;
  for (size_t pi = 0; pi < sizeof ranks / sizeof *ranks; pi++) {
    int P = ranks[pi];
    if (tutti_algo_check(a, P, TUTTI_SUM, NULL, 0)) continue; /* a restriction */
    tutti_config_t cfg = tutti_config_default(P);
    cfg.model = &model;
    tutti_world_t *w;
    cr_assert(eq(int, tutti_world_create(&w, &cfg), 0));
    int roots[3] = {0, P - 1, P / 2}, nroots = rooted ? (P > 2 ? 3 : P) : 1;
    for (int ri = 0; ri < nroots; ri++)
      for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t m = data ? sizes[si] : 0;
        if (!data && si) break;
        struct call c = {a, roots[ri], m};
        cr_assert(eq(int, tutti_world_run(w, run_call, &c), 0), "%s P=%d: %s", name, P,
                  tutti_world_error(w));
        tutti_report_t rep;
        cr_assert(eq(int, tutti_world_report(w, &rep), 0));
        cr_assert(eq(int, rep.ncalls, 1));
        int bound = -1;
        double want = tutti_algo_cost(a, P, c.root, m, &H, &bound), got = rep.calls[0].time;
        cr_assert(isfinite(want) && want >= 0, "%s P=%d m=%zu: no cost (%g)", name, P, m, want);
        cr_assert(bound == 0 || bound == 1);
        double tol = 1e-9 * (want > got ? want : got) + 1e-15;
        if (bound)
          cr_expect(got <= want + tol,
                    "%s P=%d root=%d m=%zu: modeled %.9g us above its bound %.9g us", name, P,
                    c.root, m, got * 1e6, want * 1e6);
        else
          cr_expect(fabs(got - want) <= tol, "%s P=%d root=%d m=%zu: modeled %.9g us, cost %.9g us",
                    name, P, c.root, m, got * 1e6, want * 1e6);
        double msgs = tutti_algo_messages(a, P, c.root, m, &H);
        cr_expect(msgs == (double)rep.messages, "%s P=%d root=%d m=%zu: %llu messages, counted %g",
                  name, P, c.root, m, (unsigned long long)rep.messages, msgs);
        *exact += !bound;
        checked++;
      }
    tutti_world_destroy(w);
  }
  return checked;
}

/* Each registered algorithm, with each parameter at each of its values
 * (the others at their defaults). */
static void check_algorithm(const tutti_algo_desc_t *d) {
  int checked = 0, exact = 0;
  char values[8][32], setting[320];
  const tutti_algo_t *a;
  char err[256];
  cr_assert(eq(int, tutti_algo_select(d->coll, d->name, NULL, &a, err, sizeof err), 0), "%s", err);
  checked += check_setting(a, &exact);
  for (int i = 0; i < d->nparams; i++) {
    int nv = param_values(&d->params[i], values);
    for (int j = 0; j < nv; j++) {
      snprintf(setting, sizeof setting, "%s=%s", d->params[i].name, values[j]);
      cr_assert(eq(int, tutti_algo_select(d->coll, d->name, setting, &a, err, sizeof err), 0), "%s",
                err);
      checked += check_setting(a, &exact);
    }
  }
  cr_assert(gt(int, checked, 0), "%s %s: no case ran", tutti_coll_name(d->coll), d->name);
  /* Unsegmented costs are exact for every tree: at least those. */
  cr_assert(gt(int, exact, 0), "%s %s: no exact case", tutti_coll_name(d->coll), d->name);
}

Test(cost, every_algorithm_has_a_cost_function) {
  int n = 0;
  for (const tutti_algo_desc_t *d; (d = tutti_algo_desc_at(n)); n++) {
    cr_expect(d->cost_fn && d->cost && *d->cost, "%s %s: no cost", tutti_coll_name(d->coll),
              d->name);
    cr_expect(d->msgs_fn != NULL, "%s %s: no message count", tutti_coll_name(d->coll), d->name);
  }
  cr_assert(gt(int, n, 10));
}

/* One Criterion test per collective keeps each under its timeout. */
#define COST_TEST(c)                                                                               \
  Test(cost, c##_matches_engine, .timeout = 600) {                                                 \
    int n = 0;                                                                                     \
    for (const tutti_algo_desc_t *d; (d = tutti_algo_desc_at(n)); n++)                             \
      if (d->coll == TUTTI_COLL_##c) check_algorithm(d);                                           \
  }
COST_TEST(BCAST)
COST_TEST(REDUCE)
COST_TEST(ALLREDUCE)
COST_TEST(GATHER)
COST_TEST(SCATTER)
COST_TEST(BARRIER)
COST_TEST(ALLGATHER)
COST_TEST(REDUCE_SCATTER)
COST_TEST(ALLTOALL)
COST_TEST(SCAN)
COST_TEST(EXSCAN)

/* runtime/MODEL.md's worked examples through the cost functions (alpha = 1 us,
 * beta = 1 ns/B, m = 1000 B): binomial bcast P = 8 and 5: 6 us; flat
 * bcast and flat gather P = 8: 14 us. */
Test(cost, model_md_examples) {
  const tutti_hockney_t h = {1e-6, 1e-9, 0};
  struct {
    int coll;
    const char *algo;
    int P;
    double us;
  } ex[] = {{TUTTI_COLL_BCAST, "binomial", 8, 6},
            {TUTTI_COLL_BCAST, "binomial", 5, 6},
            {TUTTI_COLL_BCAST, "flat", 8, 14},
            {TUTTI_COLL_GATHER, "flat", 8, 14}};
  for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
    const tutti_algo_t *a;
    cr_assert(eq(int, tutti_algo_select(ex[i].coll, ex[i].algo, NULL, &a, NULL, 0), 0));
    int bound = -1;
    double t = tutti_algo_cost(a, ex[i].P, 0, 1000, &h, &bound);
    cr_expect(fabs(t * 1e6 - ex[i].us) < 1e-9, "%s P=%d: %g us", ex[i].algo, ex[i].P, t * 1e6);
    cr_expect(eq(int, bound, 0));
  }
}

/* collectives/REFERENCE.md's alltoall and scan vectors, through the
 * engine: alpha = beta = gamma = 1 (seconds, seconds per byte), m = 100
 * bytes per block or rank; each derived there from the algorithm's steps. */
Test(cost, alltoall_scan_reference_vectors, .timeout = 60) {
  tutti_model_t model;
  cr_assert(eq(int, tutti_model_hockney(&model, 1, 1), 0));
  model.gamma = 1;
  const struct {
    const char *coll, *algo;
    int P;
    double t;
  } v[] = {
      {"alltoall", "pairwise", 7, 606},
      {"alltoall", "ring", 7, 606},
      {"alltoall", "linear", 7, 1818},
      {"alltoall", "bruck", 7, 903},
      {"alltoall", "pairwise", 8, 707},
      {"alltoall", "ring", 8, 707},
      {"alltoall", "linear", 8, 2121},
      {"alltoall", "bruck", 8, 1203},
      {"scan", "linear", 4, 603},
      {"scan", "recursive-doubling", 4, 402},
      {"scan", "binomial", 4, 503},
      {"exscan", "linear", 4, 503},
      {"exscan", "recursive-doubling", 4, 402},
      {"exscan", "binomial", 4, 403},
      {"scan", "linear", 7, 1206},
      {"scan", "recursive-doubling", 7, 603},
      {"scan", "binomial", 7, 804},
      {"exscan", "linear", 7, 1106},
      {"exscan", "recursive-doubling", 7, 703},
      {"exscan", "binomial", 7, 904},
  };
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    int coll;
    const tutti_algo_t *a;
    cr_assert(eq(int, tutti_coll_find(v[i].coll, &coll), 0));
    cr_assert(eq(int, tutti_algo_select(coll, v[i].algo, NULL, &a, NULL, 0), 0));
    tutti_config_t cfg = tutti_config_default(v[i].P);
    cfg.model = &model;
    tutti_world_t *w;
    cr_assert(eq(int, tutti_world_create(&w, &cfg), 0));
    struct call c = {a, 0, 100};
    cr_assert(eq(int, tutti_world_run(w, run_call, &c), 0), "%s", tutti_world_error(w));
    tutti_report_t rep;
    cr_assert(eq(int, tutti_world_report(w, &rep), 0));
    cr_expect(fabs(rep.calls[0].time - v[i].t) <= 1e-9 * v[i].t, "%s %s P=%d: %.9g, want %g",
              v[i].coll, v[i].algo, v[i].P, rep.calls[0].time, v[i].t);
    tutti_world_destroy(w);
  }
}

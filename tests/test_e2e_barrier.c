/*
 * test_e2e_barrier.c -- the barrier algorithms on rank threads, driven from
 * the registry (every registered barrier, every parameter at several
 * values), so a new barrier is tested by being registered.
 *
 * - Native correctness: a barrier is correct when no rank leaves before
 *   every rank has entered. Each rank, after a random delay (a busy loop of
 *   random length, sometimes a yield), writes its entry into a shared
 *   array, enters the barrier and, once out, checks that every rank's entry
 *   of this round is there; many rounds back to back, P = 1..65 and 1000+.
 * - Modeled correctness: under perturbed scheduling, with random modeled
 *   work before the call, no rank's exit time precedes the latest entry.
 * - Modeled time: collectives/REFERENCE.md's postal vectors and the
 *   fibonacci barrier's f_L(P) against an independent recursion; the
 *   Hockney closed forms of the algorithms' header comments, derived
 *   again here; tournament against the binomial tree barrier.
 * - Bad input to the registry (names, k, L). The CLI's is test_e2e_cli.c's.
 *
 * TUTTI_TSAN_TEST: also built and run under ThreadSanitizer (tests/CMakeLists.txt).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#include "coll_helpers.h"

/* Sanitizers (CI runs this file under ASan and TSan) slow threads down
 * many times: fewer rounds there, sparser rank counts in the modeled-time
 * sweeps (every P to 12 or 17 instead of 20 or 34, then the same steps;
 * k-way dissemination every sixth P, not every third), and one 1000+
 * world. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif
#ifdef __SANITIZE_THREAD__ /* its shadow state per thread makes 1000 threads crawl */
#define TSAN 1
#else
#define TSAN 0
#endif

/* ------------------------------------------------------------ settings */

/* Every registered barrier with each parameter at the values given here
 * (the others at their defaults); `names` receives "dissemination:k=3". */
#define MAX_SETTINGS 64
static int settings(const tutti_algo_t **out, char names[][64]) {
  static const char *const kvals[] = {"2", "3", "4", "5", "8", "64"};
  static const char *const Lvals[] = {"1", "2", "3", "5", "auto"};
  static const char *const lvals[] = {"0.5", "0.6", "0.9", "auto"};
  int n = 0;
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
    if (d->coll != TUTTI_COLL_BARRIER) continue;
    out[n] = pick(TUTTI_COLL_BARRIER, d->name, NULL);
    tutti_algo_format(out[n], names[n], 64);
    n++;
    for (int p = 0; p < d->nparams; p++) {
      const char *const *vals = NULL;
      int nv = 0;
      if (!strcmp(d->params[p].name, "k")) vals = kvals, nv = 6;
      if (!strcmp(d->params[p].name, "L")) vals = Lvals, nv = 5;
      if (!strcmp(d->params[p].name, "lambda")) vals = lvals, nv = 4;
      if (d->params[p].type == TUTTI_PARAM_CHOICE) /* hierarchical's levels: every word */
        for (vals = d->params[p].choices; vals[nv];) nv++;
      cr_assert(ne(ptr, (void *)vals, NULL), "barrier %s: parameter %s has no test values", d->name,
                d->params[p].name);
      for (int v = 0; v < nv; v++) {
        char kv[64];
        snprintf(kv, sizeof kv, "%s=%s", d->params[p].name, vals[v]);
        cr_assert(lt(int, n, MAX_SETTINGS));
        out[n] = pick(TUTTI_COLL_BARRIER, d->name, kv);
        tutti_algo_format(out[n], names[n], 64);
        n++;
      }
    }
  }
  cr_assert(ge(int, n, 8), "fewer barriers registered than the issue lists");
  return n;
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 31, x *= 0x7fb5d329728ea185ull, x ^= x >> 27, x *= 0x81dadef4bc2dd44dull;
  return x ^ x >> 33;
}

/* ------------------------------------------------------- native correctness */

struct native {
  const tutti_algo_t *const *a; /* the settings, run one after the other */
  int nsettings, rounds;
  unsigned spin;      /* the longest busy loop before entering */
  _Atomic int *entry; /* P: the last round each rank entered (counted over settings) */
  atomic_int bad;     /* rounds in which a rank left too early */
  atomic_int bad_rank, bad_round, bad_missing;
};

/* One world run per P serves every setting: a thread start per setting
 * would cost more than the barriers. */
static int native_fn(tutti_rank_t *r, void *arg) {
  struct native *x = arg;
  int me = tutti_rank(r), P = tutti_size(r), k = 0;
  for (int s = 0; s < x->nsettings; s++)
    for (int round = 0; round < x->rounds; round++) {
      k++;
      uint64_t h = mix((uint64_t)me * 7919u + (uint64_t)k * 104729u + 17);
      unsigned n = x->spin ? (unsigned)(h % x->spin) : 0;
      if (h >> 60 == 0) sched_yield(); /* one entry in 16 comes after a yield */
      for (volatile unsigned i = 0; i < n; i++) {
      }
      atomic_store_explicit(&x->entry[me], k, memory_order_release);
      int rc = tutti_barrier(r, x->a[s]);
      if (rc) return rc;
      for (int j = 0; j < P; j++)
        if (atomic_load_explicit(&x->entry[j], memory_order_acquire) < k) {
          if (atomic_fetch_add(&x->bad, 1) == 0) {
            atomic_store(&x->bad_rank, me);
            atomic_store(&x->bad_round, k);
            atomic_store(&x->bad_missing, j);
          }
          break;
        }
    }
  return 0;
}

/* Every setting on P ranks, `rounds` each, back to back, in one native run. */
static void native_check(int P, int rounds, unsigned spin) {
  const tutti_algo_t *a[MAX_SETTINGS];
  char names[MAX_SETTINGS][64];
  int ns = settings(a, names);
  tutti_world_t *w = mkworld(P, NULL);
  _Atomic int *entry = calloc((size_t)P, sizeof *entry);
  cr_assert(ne(ptr, (void *)entry, NULL));
  for (int i = 0; i < P; i++) atomic_init(&entry[i], 0);
  struct native x = {.a = a, .nsettings = ns, .rounds = rounds, .spin = spin, .entry = entry};
  atomic_init(&x.bad, 0);
  cr_assert(eq(int, tutti_world_run(w, native_fn, &x), 0), "P=%d: %s", P, tutti_world_error(w));
  int k = atomic_load(&x.bad_round) - 1;
  cr_assert(eq(int, atomic_load(&x.bad), 0),
            "%s P=%d: rank %d left round %d before rank %d entered it (%d early exits)",
            names[k >= 0 ? k / rounds : 0], P, atomic_load(&x.bad_rank), k % rounds + 1,
            atomic_load(&x.bad_missing), atomic_load(&x.bad));
  free((void *)entry);
  tutti_world_destroy(w);
}

Test(native, every_barrier_P_1_to_65, .timeout = 240) {
  for (int P = 1; P <= 65; P++)
    native_check(P, P <= 9 ? (SANITIZED ? 10 : 60) : SANITIZED ? 1 : 3, 2000);
}

Test(native, every_barrier_1000_and_1025_ranks, .timeout = 240) {
  if (TSAN) return; /* 1000+ rank threads crawl under TSan; the other builds run it */
  if (!SANITIZED) native_check(1000, 1, 200);
  native_check(1025, 1, 200);
}

/* ------------------------------------------------------- modeled correctness */

struct modeled {
  const tutti_algo_t *a;
  double unit; /* the modeled work before the call: 0..7 units, random per rank */
};

static int modeled_fn(tutti_rank_t *r, void *arg) {
  const struct modeled *x = arg;
  uint64_t h = mix((uint64_t)tutti_rank(r) * 31337u + 5);
  int rc = tutti_compute(r, (double)(h % 8) * x->unit);
  return rc ? rc : tutti_barrier(r, x->a);
}

/* No rank leaves before the latest entry, for every setting on several P
 * and models, each run under perturbed scheduling. */
Test(modeled, no_exit_before_the_latest_entry, .timeout = 240) {
  const tutti_algo_t *a[MAX_SETTINGS];
  char names[MAX_SETTINGS][64];
  int ns = settings(a, names);
  tutti_model_t models[3] = {hockney(1e-6, 1e-9), postal(2), postal(3)};
  double units[3] = {0.7e-6, 1, 1};
  cr_assert(eq(int, tutti_model_loggp(&models[2], 5e-6, 1e-6, 2e-6, 1e-9), 0));
  units[2] = 3e-6;
  static const int sizes[] = {1, 2, 3, 7, 16, 33};
  unsigned seed = 1;
  for (size_t pi = 0; pi < sizeof sizes / sizeof *sizes; pi++)
    for (int mi = 0; mi < 3; mi++) {
      int P = sizes[pi];
      tutti_config_t c = tutti_config_default(P);
      c.model = &models[mi];
      c.flags = TUTTI_PERTURB;
      c.seed = seed++;
      tutti_world_t *w;
      cr_assert(eq(int, tutti_world_create(&w, &c), 0));
      for (int s = 0; s < ns; s++) {
        struct modeled x = {a[s], units[mi]};
        cr_assert(eq(int, tutti_world_run(w, modeled_fn, &x), 0), "%s P=%d: %s", names[s], P,
                  tutti_world_error(w));
        tutti_report_t rep;
        cr_assert(eq(int, tutti_world_report(w, &rep), 0));
        cr_assert(eq(int, rep.ncalls, 1));
        double last_in = rep.calls[0].entry_max;
        /* the entries really differ: rank work is 0..7 units */
        if (P >= 7) cr_assert(gt(dbl, last_in, rep.calls[0].entry_min));
        for (int i = 0; i < P; i++)
          cr_assert(ge(dbl, rep.rank_last_call[i], last_in),
                    "%s P=%d model %d: rank %d left at %g, the last entry was at %g", names[s], P,
                    mi, i, rep.rank_last_call[i], last_in);
      }
      tutti_world_destroy(w);
    }
}

/* ------------------------------------------------------------ modeled time */

/* The postal numbers and f_L(n), computed here independently of tree_build.c. */
static int postal_f(int L, long n) {
  long F[512];
  for (int t = 0; t < 512; t++) {
    F[t] = t < L ? 1 : F[t - 1] + F[t - L];
    if (F[t] >= n) return t;
  }
  cr_assert(0, "f_%d(%ld) is past the table", L, n);
  return -1;
}

static int ceil_log(long P, long k) {
  int r = 0;
  for (long d = 1; d < P; d *= k) r++;
  return r;
}

/* REFERENCE.md "Barriers": postal L = 2: P = 8: fibonacci 5 steps,
 * dissemination 6; P = 100: 11 and 14; L = 3, P = 64: 13 and 18. A step
 * is the postal model's unit send time: modeled time / 1 step. */
Test(modeled_time, reference_md_postal_vectors, .timeout = 60) {
  struct {
    int L, P, fib, dis;
  } v[] = {{2, 8, 5, 6}, {2, 100, 11, 14}, {3, 64, 13, 18}};
  const tutti_algo_t *fib = pick(TUTTI_COLL_BARRIER, "fibonacci", NULL);
  const tutti_algo_t *dis = pick(TUTTI_COLL_BARRIER, "dissemination", NULL);
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    tutti_model_t m = postal(v[i].L);
    double step = 1; /* postal: O_s = S = R = 1 */
    cr_expect(
        eq(dbl, timed(v[i].P, &m, TUTTI_COLL_BARRIER, fib, 0, TUTTI_BYTE, 0) / step, v[i].fib),
        "fibonacci L=%d P=%d", v[i].L, v[i].P);
    cr_expect(
        eq(dbl, timed(v[i].P, &m, TUTTI_COLL_BARRIER, dis, 0, TUTTI_BYTE, 0) / step, v[i].dis),
        "dissemination L=%d P=%d", v[i].L, v[i].P);
  }
}

/* The fibonacci barrier takes f_L(P) steps for every P (its L = auto being
 * the model's), dissemination ceil(log2 P) L; at L = 1 they are equal. An
 * explicit L = 2 under postal 3 is slower than the matched one. */
Test(modeled_time, fibonacci_is_f_L_and_dissemination_log_L, .timeout = 120) {
  const tutti_algo_t *fib = pick(TUTTI_COLL_BARRIER, "fibonacci", NULL);
  const tutti_algo_t *dis = pick(TUTTI_COLL_BARRIER, "dissemination", NULL);
  for (int L = 1; L <= 4; L++) {
    tutti_model_t m = postal(L);
    for (int P = 1; P <= 70; P += (P < (SANITIZED ? 12 : 20) ? 1 : 7)) {
      double tf = timed(P, &m, TUTTI_COLL_BARRIER, fib, 0, TUTTI_BYTE, 0);
      double td = timed(P, &m, TUTTI_COLL_BARRIER, dis, 0, TUTTI_BYTE, 0);
      cr_expect(eq(dbl, tf, postal_f(L, P)), "fibonacci L=%d P=%d: %g", L, P, tf);
      cr_expect(eq(dbl, td, (double)ceil_log(P, 2) * L), "dissemination L=%d P=%d: %g", L, P, td);
      if (L == 1) cr_expect(eq(dbl, tf, td), "L=1 P=%d", P);
    }
  }
  tutti_model_t m3 = postal(3);
  const tutti_algo_t *fib2 = pick(TUTTI_COLL_BARRIER, "fibonacci", "L=2");
  cr_expect(gt(dbl, timed(64, &m3, TUTTI_COLL_BARRIER, fib2, 0, TUTTI_BYTE, 0), 13));
}

/* k-way dissemination in the postal model: round r sends n_r =
 * min(k-1, ceil(P/k^r) - 1) messages one step apart, the last arriving
 * L steps after it left: sum over rounds of (n_r - 1 + L). */
Test(modeled_time, dissemination_k_postal, .timeout = 120) {
  for (int k = 2; k <= 5; k++) {
    char kv[16];
    snprintf(kv, sizeof kv, "k=%d", k);
    const tutti_algo_t *a = pick(TUTTI_COLL_BARRIER, "dissemination", kv);
    for (int L = 1; L <= 3; L++) {
      tutti_model_t m = postal(L);
      for (int P = 2; P <= 40; P += SANITIZED ? 6 : 3) {
        double want = 0;
        for (long d = 1; d < P; d *= k) {
          long n = (P + d - 1) / d - 1;
          want += (double)((n < k - 1 ? n : k - 1) - 1 + L);
        }
        cr_expect(eq(dbl, timed(P, &m, TUTTI_COLL_BARRIER, a, 0, TUTTI_BYTE, 0), want),
                  "k=%d L=%d P=%d", k, L, P);
      }
    }
  }
}

/* Hockney (all rendezvous, an empty message costs alpha), the header
 * comments' closed forms: dissemination ceil(log2 P) alpha, flat 2(P-1)
 * alpha, recursive-doubling log2 P alpha or (floor(log2 P) + 2) alpha,
 * tournament 2 ceil(log2 P) alpha and equal to the binomial barrier,
 * fibonacci (L = auto is 1 here) as dissemination. */
Test(modeled_time, hockney_closed_forms, .timeout = 120) {
  const double alpha = 3e-6;
  tutti_model_t m = hockney(alpha, 1e-9);
  const tutti_algo_t *dis = pick(TUTTI_COLL_BARRIER, "dissemination", NULL);
  const tutti_algo_t *flat = pick(TUTTI_COLL_BARRIER, "flat", NULL);
  const tutti_algo_t *rd = pick(TUTTI_COLL_BARRIER, "recursive-doubling", NULL);
  const tutti_algo_t *tour = pick(TUTTI_COLL_BARRIER, "tournament", NULL);
  const tutti_algo_t *bin = pick(TUTTI_COLL_BARRIER, "binomial", NULL);
  const tutti_algo_t *fib = pick(TUTTI_COLL_BARRIER, "fibonacci", NULL);
  for (int P = 1; P <= 70; P += (P < (SANITIZED ? 17 : 34) ? 1 : 9)) {
    int lg = ceil_log(P, 2), fl = P > 1 ? ceil_log(P + 1, 2) - 1 : 0; /* floor(log2 P) */
    int pow2 = (P & (P - 1)) == 0;
    double tol = 1e-12;
#define T(a) timed(P, &m, TUTTI_COLL_BARRIER, (a), 0, TUTTI_BYTE, 0)
    cr_expect(epsilon_eq(dbl, T(dis), lg * alpha, tol), "dissemination P=%d", P);
    cr_expect(epsilon_eq(dbl, T(flat), 2.0 * (P - 1) * alpha, tol), "flat P=%d", P);
    cr_expect(epsilon_eq(dbl, T(rd), (pow2 ? lg : fl + 2) * alpha, tol), "rd P=%d", P);
    double tt = T(tour);
    cr_expect(epsilon_eq(dbl, tt, 2.0 * lg * alpha, tol), "tournament P=%d", P);
    cr_expect(epsilon_eq(dbl, tt, T(bin), tol), "tournament vs binomial P=%d", P);
    cr_expect(epsilon_eq(dbl, T(fib), lg * alpha, tol), "fibonacci P=%d", P);
#undef T
  }
}

/* k-way dissemination under Hockney: (k-1) alpha a full round. */
Test(modeled_time, dissemination_k_hockney, .timeout = 60) {
  const double alpha = 1e-6;
  tutti_model_t m = hockney(alpha, 0);
  const tutti_algo_t *a3 = pick(TUTTI_COLL_BARRIER, "dissemination", "k=3");
  const tutti_algo_t *a4 = pick(TUTTI_COLL_BARRIER, "dissemination", "k=4");
  cr_expect(
      epsilon_eq(dbl, timed(27, &m, TUTTI_COLL_BARRIER, a3, 0, TUTTI_BYTE, 0), 6 * alpha, 1e-12));
  cr_expect(
      epsilon_eq(dbl, timed(64, &m, TUTTI_COLL_BARRIER, a4, 0, TUTTI_BYTE, 0), 9 * alpha, 1e-12));
  /* P = 10, k = 3: rounds send 2, 2, 1: 5 alpha */
  cr_expect(
      epsilon_eq(dbl, timed(10, &m, TUTTI_COLL_BARRIER, a3, 0, TUTTI_BYTE, 0), 5 * alpha, 1e-12));
}

/* ------------------------------------------------------------ bad input */

Test(bad_input, names_k_and_L, .timeout = 10) {
  const tutti_algo_t *a;
  char err[512];
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BARRIER, "nope", NULL, &a, err, sizeof err),
               TUTTI_ENOTFOUND));
  cr_expect(ne(ptr, strstr(err, "dissemination"), NULL), "%s", err);
  cr_expect(ne(ptr, strstr(err, "fibonacci"), NULL), "%s", err);
  static const char *const bad[][2] = {
      {"dissemination", "k=1"},   {"dissemination", "k=0"},    {"dissemination", "k=x"},
      {"dissemination", "k=2.5"}, {"dissemination", "k=auto"}, {"dissemination", "k=1025"},
      {"fibonacci", "L=0"},       {"fibonacci", "L=-1"},       {"fibonacci", "L=4097"},
      {"fibonacci", "L=two"},     {"tournament", "k=2"},       {"flat", "L=2"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    err[0] = '\0';
    cr_expect(eq(int,
                 tutti_algo_select(TUTTI_COLL_BARRIER, bad[i][0], bad[i][1], &a, err, sizeof err),
                 TUTTI_EINVAL),
              "%s %s", bad[i][0], bad[i][1]);
    cr_expect(ne(ptr, strstr(err, "accepted"), NULL), "%s %s: '%s'", bad[i][0], bad[i][1], err);
  }
}

/* ------------------------------------------------------------ auto */

/* auto runs a barrier of least modeled time among the registered ones at
 * their defaults -- the engine's times, not auto's own estimates -- where
 * its closed forms are exact: Hockney (rendezvous), postal, and Hockney
 * costs with empty messages eager (gige-like). Its explanation names every
 * candidate. */
Test(auto_choice, least_modeled_time_of_the_candidates, .timeout = 120) {
  tutti_model_t models[4] = {hockney(1e-6, 1e-9), postal(2), postal(4), hockney(50e-6, 9e-9)};
  models[3].eager_limit = 65536;
  const tutti_algo_t *autoa = pick(TUTTI_COLL_BARRIER, "auto", NULL);
  static const int sizes[] = {1, 2, 5, 8, 13, 33, 64, 100};
  for (int mi = 0; mi < 4; mi++)
    for (size_t pi = 0; pi < sizeof sizes / sizeof *sizes - (TSAN ? 2 : 0); pi++) {
      int P = sizes[pi];
      double best = INFINITY;
      const tutti_algo_desc_t *d;
      char why[1024];
      const tutti_algo_t *chosen;
      cr_assert(eq(int, tutti_barrier_auto_choose(&models[mi], P, &chosen, why, sizeof why), 0));
      for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
        /* not hierarchical: without hosts it is its inter barrier, which
         * auto weighs already (collectives/engine.h) */
        if (d->coll != TUTTI_COLL_BARRIER || !strcmp(d->name, "auto") ||
            !strcmp(d->name, "hierarchical"))
          continue;
        cr_expect(ne(ptr, strstr(why, d->name), NULL), "'%s' lacks %s", why, d->name);
        const tutti_algo_t *a = pick(TUTTI_COLL_BARRIER, d->name, NULL);
        double t = timed(P, &models[mi], TUTTI_COLL_BARRIER, a, 0, TUTTI_BYTE, 0);
        best = t < best ? t : best;
      }
      double ta = timed(P, &models[mi], TUTTI_COLL_BARRIER, autoa, 0, TUTTI_BYTE, 0);
      double tc = timed(P, &models[mi], TUTTI_COLL_BARRIER, chosen, 0, TUTTI_BYTE, 0);
      cr_expect(epsilon_eq(dbl, ta, best, 1e-12 + 1e-9 * best),
                "model %d P=%d: auto (%s) took %g, the best candidate %g; %s", mi, P,
                tutti_algo_desc(chosen)->name, ta, best, why);
      cr_expect(eq(dbl, ta, tc), "model %d P=%d: auto did not run its choice", mi, P);
    }
}

Test(auto_choice, bad_arguments, .timeout = 10) {
  tutti_model_t m = postal(2);
  const tutti_algo_t *c;
  cr_expect(eq(int, tutti_barrier_auto_choose(NULL, 4, &c, NULL, 0), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_barrier_auto_choose(&m, 0, &c, NULL, 0), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_barrier_auto_choose(&m, 4, NULL, NULL, 0), TUTTI_EINVAL));
}

/*
 * test_e2e_allreduce.c -- the pipelined allreduce algorithms (dual-root,
 * single-tree) on whole worlds: collectives/REFERENCE.md's step counts and
 * its Hockney example (T = 528), blocks=auto against every fixed block
 * count, and results against a sequential reference for P = 1..65 and
 * larger P, counts 0, 1, below P, below the block count, and larger,
 * several block counts, int64 sum, a double sum whose every partial sum is
 * exact (so the rank-ordered sequential sum is the one right answer), and
 * the non-commutative matmul2 (dual-root, single-tree, binary-reduce-bcast
 * and two-tree; ring, which
 * reorders operands, refuses it) (x_0 op x_1 op ... op x_{P-1}, folded here
 * one rank at a time with tutti_reduce_local). Every rank's double result
 * is also checked bitwise equal to every other's.
 *
 * TUTTI_TSAN_TEST: also built and run under ThreadSanitizer.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#include "coll_helpers.h"
#include "engine.h" /* tutti__two_tree_colour */

/* ------------------------------------------------------- modeled time */

struct arcall {
  const tutti_algo_t *a;
  long count;
};

static int ar_call(tutti_rank_t *r, void *arg) {
  const struct arcall *c = arg;
  int64_t *x = calloc((size_t)c->count + 1, 8), *y = calloc((size_t)c->count + 1, 8);
  int rc = x && y ? tutti_allreduce(r, x, y, c->count, TUTTI_INT64, TUTTI_SUM, c->a) : TUTTI_ENOMEM;
  free(x);
  free(y);
  return rc;
}

/* Modeled time of one allreduce of count int64 under Hockney(alpha, beta
 * per element). */
static double ar_time(int P, const char *algo, const char *params, long count, double alpha,
                      double beta_elem) {
  tutti_model_t m = hockney(alpha, beta_elem / 8);
  tutti_world_t *w = mkworld(P, &m);
  struct arcall c = {pick(TUTTI_COLL_ALLREDUCE, algo, params), count};
  cr_assert(eq(int, tutti_world_run(w, ar_call, &c), 0), "%s", tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  cr_assert(eq(int, rep.ncalls, 1));
  double t = rep.calls[0].time;
  tutti_world_destroy(w);
  return t;
}

/* REFERENCE.md: steps(b) for p = 6 are 5, 8, 14, 26 at b = 1, 2, 4, 8; each
 * step costs alpha + beta m/b (m = 840 elements divides evenly). */
Test(allreduce_steps, dual_root_p6, .timeout = 60) {
  const int b[] = {1, 2, 4, 8}, steps[] = {5, 8, 14, 26};
  for (int i = 0; i < 4; i++) {
    char par[32];
    snprintf(par, sizeof par, "blocks=%d", b[i]);
    double t = ar_time(6, "dual-root", par, 840, 1, 0.01);
    double want = steps[i] * (1 + 0.01 * 840 / b[i]);
    cr_expect(fabs(t - want) < 1e-9 * want, "b=%d: %.12g, want %.12g", b[i], t, want);
  }
}

/* p = 14: 9 + 3(b-1) steps; p = 10: 7 + 3(b-1). */
Test(allreduce_steps, dual_root_p14_p10, .timeout = 60) {
  const int P[] = {14, 10}, first[] = {9, 7};
  for (int k = 0; k < 2; k++)
    for (int b = 1; b <= 7; b++) {
      char par[32];
      snprintf(par, sizeof par, "blocks=%d", b);
      double t = ar_time(P[k], "dual-root", par, 420, 1, 0.01);
      double want = (first[k] + 3 * (b - 1)) * (1 + 0.01 * 420 / b);
      cr_expect(fabs(t - want) < 1e-9 * want, "P=%d b=%d: %.12g, want %.12g", P[k], b, t, want);
    }
}

/* p = 14, alpha = 1, beta = 0.01 per element, m = 14000, b = 14: T = 528. */
Test(allreduce_steps, dual_root_528, .timeout = 60) {
  double t = ar_time(14, "dual-root", "blocks=14", 14000, 1, 0.01);
  cr_expect(fabs(t - 528) < 1e-9, "%.12g", t);
}

/* One tree of height H (P = 2^(H+1) - 1), one block: the block climbs 2H
 * steps (two children per level), turns at the root and descends 2H: 4H,
 * the dual-root count without the roots' exchange. With more blocks the
 * root's two exchanges per round meet its children's three once, so a
 * block count b takes at least 4H + 3(b-1) steps (P > 3) and at most one
 * more than that. */
Test(allreduce_steps, single_tree, .timeout = 60) {
  const int P[] = {7, 15, 31};
  for (int k = 0; k < 3; k++) {
    int H = k + 2;
    for (int b = 1; b <= 4; b++) {
      char par[32];
      snprintf(par, sizeof par, "blocks=%d", b);
      double step = 1 + 0.01 * 420 / b, t = ar_time(P[k], "single-tree", par, 420, 1, 0.01);
      double lo = (4 * H + 3 * (b - 1)) * step, hi = b == 1 ? lo : lo + step;
      cr_expect(t >= lo * (1 - 1e-12) && t <= hi * (1 + 1e-12), "P=%d b=%d: %.12g not in [%g, %g]",
                P[k], b, t, lo, hi);
    }
  }
}

/* binary-reduce-bcast on the same tree: two exchanges per level and per
 * block in each phase, so the first block climbs in 2H steps and the last
 * 2(b-1) later; the broadcast likewise: 4H + 4(b-1) -- the 4 beta m of the
 * paper against the doubly-pipelined 3 beta m. */
Test(allreduce_steps, binary_reduce_bcast, .timeout = 60) {
  const int P[] = {7, 15, 31};
  for (int k = 0; k < 3; k++) {
    int H = k + 2;
    for (int b = 1; b <= 5; b++) {
      char par[32];
      snprintf(par, sizeof par, "blocks=%d", b);
      double t = ar_time(P[k], "binary-reduce-bcast", par, 420, 1, 0.01);
      double want = (4 * H + 4 * (b - 1)) * (1 + 0.01 * 420 / b);
      cr_expect(fabs(t - want) < 1e-9 * want, "P=%d b=%d: %.12g, want %.12g", P[k], b, t, want);
    }
  }
}

/* two-tree: every step of its schedule is one sendrecv of m/(2b) bytes per
 * rank, and an operation at step s waits only for operations at earlier
 * steps, so the run ends within its 4L + 4b - 2 steps (L = ceil(log2 P));
 * a rank with two children receives 2b blocks in each phase through one
 * receive port: at least 4b steps' worth. For large b that is the 2 beta m
 * of the paper, half dual-root's 3 and binary-reduce-bcast's 4. With m a
 * multiple of 32 b bytes the registered cost (the schedule's replay) is
 * exact: equal to the engine's time. */
Test(allreduce_steps, two_tree, .timeout = 60) {
  const int P[] = {3, 8, 14, 17, 33, 64};
  for (int k = 0; k < 6; k++) {
    int L = 0;
    while ((1 << L) < P[k]) L++;
    const int bs[] = {1, 2, 3, 5, 7};
    for (int i = 0; i < 5; i++) {
      int b = bs[i];
      char par[32];
      snprintf(par, sizeof par, "blocks=%d", b);
      double t = ar_time(P[k], "two-tree", par, 840, 1, 0.01);
      double step = 1 + 0.01 * 840 / (2.0 * b);
      cr_expect(t >= 4 * b * step * (1 - 1e-12) && t <= (4 * L + 4 * b - 2) * step * (1 + 1e-12),
                "P=%d b=%d: %.12g not in [%g, %g]", P[k], b, t, 4 * b * step,
                (4 * L + 4 * b - 2) * step);
      const tutti_algo_t *a = pick(TUTTI_COLL_ALLREDUCE, "two-tree", par);
      tutti_hockney_t h = {1, 0.01 / 8, 0};
      int bound = -1;
      double c = tutti_algo_cost(a, P[k], 0, 840 * 8, &h, &bound);
      cr_expect(eq(int, bound, 0), "P=%d b=%d", P[k], b);
      cr_expect(fabs(c - t) <= 1e-9 * t, "P=%d b=%d: cost %.12g, modeled %.12g", P[k], b, c, t);
    }
  }
  /* many blocks: near 2 beta m (beta m = 8400 here), below dual-root's */
  double t2 = ar_time(14, "two-tree", "blocks=100", 84000, 1, 0.01);
  double t3 = ar_time(14, "dual-root", "blocks=100", 84000, 1, 0.01);
  cr_expect(t2 >= 2 * 840 && t2 <= 2 * 840 * 1.3, "%g", t2);
  cr_expect(lt(dbl, t2, t3));
}

/* The colours of two-tree's parent edges, walked one rank at a time (each
 * walk O(P): one path runs through nearly every edge) or computed for the
 * whole world at once (what a call uses from 1024 ranks, and the cost),
 * agree: every edge up to P = 160, and around the cache's threshold and
 * powers of two at a sample of ranks. */
Test(allreduce_steps, two_tree_colours_whole_equal_walked, .timeout = 120) {
  for (int P = 2; P <= 160; P++)
    for (int v = 0; v < P; v++)
      for (int t = 0; t < 2; t++)
        cr_assert(eq(int, tutti__two_tree_colour(P, v, t, 1), tutti__two_tree_colour(P, v, t, 0)),
                  "P=%d v=%d t=%d", P, v, t);
  const int big[] = {1023, 1024, 1025, 2048, 3001, 4097};
  int nonempty = 0;
  for (int k = 0; k < 6; k++)
    for (int v = 0; v < big[k]; v += 1 + v % 37)
      for (int t = 0; t < 2; t++) {
        int whole = tutti__two_tree_colour(big[k], v, t, 1);
        cr_assert(eq(int, whole, tutti__two_tree_colour(big[k], v, t, 0)), "P=%d v=%d t=%d", big[k],
                  v, t);
        nonempty += whole >= 0;
      }
  cr_assert(gt(int, nonempty, 100), "the sample has %d edges", nonempty);
}

/* From 1024 ranks a call takes the whole world's colouring: at P = 1030
 * the modeled time still lies in the pipeline's bounds and equals the
 * registered cost, and the results are right (larger_ranks' sweep checks
 * them against the sequential reference with a non-commutative op). */
Test(allreduce_steps, two_tree_from_1024_ranks, .timeout = 300) {
  const int P = 1030, L = 11, b = 3;
  double t = ar_time(P, "two-tree", "blocks=3", 840, 1, 0.01);
  double step = 1 + 0.01 * 840 / (2.0 * b);
  cr_expect(t >= 4 * b * step * (1 - 1e-12) && t <= (4 * L + 4 * b - 2) * step * (1 + 1e-12),
            "%.12g not in [%g, %g]", t, 4 * b * step, (4 * L + 4 * b - 2) * step);
  const tutti_algo_t *a = pick(TUTTI_COLL_ALLREDUCE, "two-tree", "blocks=3");
  tutti_hockney_t h = {1, 0.01 / 8, 0};
  int bound = -1;
  double c = tutti_algo_cost(a, P, 0, 840 * 8, &h, &bound);
  cr_expect(eq(int, bound, 0));
  cr_expect(fabs(c - t) <= 1e-9 * t, "cost %.12g, modeled %.12g", c, t);
}

/* blocks=auto is never slower than the best fixed block count (within
 * the rounding of uneven blocks), and blocks beyond the count run as one
 * block per element. */
Test(allreduce_steps, auto_is_best, .timeout = 120) {
  const int P[] = {14, 30};
  for (int k = 0; k < 2; k++) {
    double tauto = ar_time(P[k], "dual-root", "blocks=auto", 14000, 1, 0.01), best = INFINITY;
    for (int b = 1; b <= 40; b++) {
      char par[32];
      snprintf(par, sizeof par, "blocks=%d", b);
      best = fmin(best, ar_time(P[k], "dual-root", par, 14000, 1, 0.01));
    }
    cr_expect(tauto <= best * 1.002, "P=%d: auto %.9g, best fixed %.9g", P[k], tauto, best);
  }
  double many = ar_time(6, "dual-root", "blocks=1000", 7, 1, 0.01);
  double seven = ar_time(6, "dual-root", "blocks=7", 7, 1, 0.01);
  cr_expect(eq(dbl, many, seven));
}

/* ------------------------------------------------------- correctness */

enum kind { K_I64_SUM, K_DBL_SUM, K_I64_MATMUL, NKINDS };

static uint64_t mix(uint64_t x) { /* splitmix64's finalizer */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Element idx of rank's input in call `call`. Doubles are multiples of
 * 1/8 below 2^10 in magnitude, so every partial sum of up to 2^30 of them
 * is exact and every order of summation gives the same bits; matmul2
 * elements hold four entries below 65521. */
static void input(int kind, int rank, long idx, int call, void *out) {
  uint64_t h = mix(((uint64_t)rank << 40) ^ ((uint64_t)idx << 8) ^ (uint64_t)call ^ 0x5bd1e995);
  switch (kind) {
  case K_I64_SUM:
    *(int64_t *)out = (int64_t)(h >> 20) - (INT64_C(1) << 43);
    break;
  case K_DBL_SUM:
    *(double *)out = ((double)(h % 16384) - 8192) / 8;
    break;
  default: {
    uint64_t v = 0;
    for (int e = 0; e < 4; e++) v |= (mix(h + (uint64_t)e) % 65521) << (16 * e);
    *(int64_t *)out = (int64_t)v;
  }
  }
}

static tutti_datatype_t ktype(int k) {
  return k == K_DBL_SUM ? TUTTI_DOUBLE : TUTTI_INT64;
}
static tutti_op_t kop(int k) {
  return k == K_I64_MATMUL ? TUTTI_MATMUL2 : TUTTI_SUM;
}

struct ccase {
  const tutti_algo_t *a;
  int kind, inplace;
  long count;
  int64_t *ref; /* count elements (8 bytes each): the sequential result */
};

struct sweep {
  int ncases, P;
  struct ccase *c;
  int64_t **dbl_out; /* per rank, the K_DBL_SUM results of every case, concatenated */
  long dbl_len;
  int failed;
  char msg[256];
};

/* x_0 op x_1 op ... op x_{P-1}, folded from the right one rank at a time. */
static void reference(int P, struct ccase *c, int call) {
  size_t n = (size_t)c->count;
  int64_t *acc = calloc(n + 1, 8), *x = calloc(n + 1, 8);
  for (long i = 0; i < c->count; i++) input(c->kind, P - 1, i, call, &acc[i]);
  for (int q = P - 2; q >= 0; q--) {
    for (long i = 0; i < c->count; i++) input(c->kind, q, i, call, &x[i]);
    cr_assert(eq(int, tutti_reduce_local(x, acc, c->count, ktype(c->kind), kop(c->kind)), 0));
  }
  free(x);
  c->ref = acc;
}

static int run_cases(tutti_rank_t *r, void *arg) {
  struct sweep *s = arg;
  int me = tutti_rank(r);
  long dpos = 0;
  for (int k = 0; k < s->ncases; k++) {
    const struct ccase *c = &s->c[k];
    size_t n = (size_t)c->count;
    int64_t *x = calloc(n + 1, 8), *y = calloc(n + 1, 8);
    if (!x || !y) return TUTTI_ENOMEM;
    for (long i = 0; i < c->count; i++) input(c->kind, me, i, k, c->inplace ? &y[i] : &x[i]);
    int rc = tutti_allreduce(r, c->inplace ? TUTTI_IN_PLACE : x, y, c->count, ktype(c->kind),
                             kop(c->kind), c->a);
    if (rc) {
      free(x);
      free(y);
      return rc;
    }
    if (memcmp(y, c->ref, n * 8) && !__atomic_exchange_n(&s->failed, 1, __ATOMIC_ACQ_REL)) {
      char name[96];
      tutti_algo_format(c->a, name, sizeof name);
      long i = 0;
      while (y[i] == c->ref[i]) i++;
      snprintf(s->msg, sizeof s->msg, "%s P=%d rank %d kind %d count %ld%s: element %ld wrong",
               name, s->P, me, c->kind, c->count, c->inplace ? " in place" : "", i);
    }
    if (c->kind == K_DBL_SUM) {
      memcpy(s->dbl_out[me] + dpos, y, n * 8);
      dpos += c->count;
    }
    free(x);
    free(y);
  }
  return 0;
}

/* Every algorithm x block setting x kind x count on one world of P ranks;
 * the commutative-only ones (ring, recursive-doubling,
 * rabenseifner) once, without matmul2. */
static void sweep(int P, const char *const *blocks, int nblocks, int heavy,
                  const tutti_model_t *model) {
  static const char *algos[] = {"dual-root",   "single-tree", "binary-reduce-bcast",
                                "two-tree",    "ring",        "recursive-doubling",
                                "rabenseifner"};
  enum { NBLOCKED = 4, NALGOS = 7 }; /* the first NBLOCKED take blocks= and keep order */
  long counts[] = {0, 1, P > 2 ? P / 2 + 1 : 2, 5, heavy ? 203 : 41};
  int nc = (int)(sizeof counts / sizeof *counts);
  struct sweep s = {.P = P};
  s.c = calloc((size_t)(NALGOS * nblocks * nc * NKINDS), sizeof *s.c);
  for (int ai = 0; ai < NALGOS; ai++)
    for (int bi = 0; bi < (ai >= NBLOCKED ? 1 : nblocks); bi++)
      for (int ci = 0; ci < nc; ci++)
        for (int k = 0; k < NKINDS; k++) {
          if (ai >= NBLOCKED && k == K_I64_MATMUL) continue;
          struct ccase *c = &s.c[s.ncases];
          c->a = pick(TUTTI_COLL_ALLREDUCE, algos[ai], ai >= NBLOCKED ? "" : blocks[bi]);
          c->kind = k;
          c->count = counts[ci];
          c->inplace = s.ncases % 2;
          reference(P, c, s.ncases);
          if (k == K_DBL_SUM) s.dbl_len += c->count;
          s.ncases++;
        }
  s.dbl_out = calloc((size_t)P, sizeof *s.dbl_out);
  for (int q = 0; q < P; q++) s.dbl_out[q] = calloc((size_t)s.dbl_len + 1, 8);
  tutti_world_t *w = mkworld(P, model);
  cr_assert(eq(int, tutti_world_run(w, run_cases, &s), 0), "P=%d: %s", P, tutti_world_error(w));
  tutti_world_destroy(w);
  cr_expect(eq(int, s.failed, 0), "%s", s.msg);
  for (int q = 1; q < P; q++)
    cr_expect(eq(int, memcmp(s.dbl_out[q], s.dbl_out[0], (size_t)s.dbl_len * 8), 0),
              "P=%d: rank %d's double results differ from rank 0's", P, q);
  for (int q = 0; q < P; q++) free(s.dbl_out[q]);
  free(s.dbl_out);
  for (int k = 0; k < s.ncases; k++) free(s.c[k].ref);
  free(s.c);
}

/* Under ThreadSanitizer races show on small worlds; the big ones take minutes. */
#ifdef __SANITIZE_THREAD__
#define TSAN_LIGHT 1
#else
#define TSAN_LIGHT 0
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static const char *const many_blocks[] = {"blocks=1", "blocks=2",    "blocks=3",
                                          "blocks=7", "blocks=auto", "blocks=100000"};

/* Under the sanitizers P = 17..33 (three quarters of the messages) take
 * three of the six block settings; every setting still runs to P = 16. */
Test(allreduce_correct, ranks_1_to_33, .timeout = 300) {
  static const char *const few[] = {"blocks=1", "blocks=7", "blocks=auto"};
  for (int P = 1; P <= 33; P++)
    if (SANITIZED && P > 16)
      sweep(P, few, 3, 0, NULL);
    else
      sweep(P, many_blocks, 6, P <= 16, NULL);
}

Test(allreduce_correct, ranks_34_to_65, .timeout = 300) {
  static const char *const few[] = {"blocks=1", "blocks=4", "blocks=auto"};
  for (int P = 34; P <= 65; P += TSAN_LIGHT ? 31 : 1) sweep(P, few, 3, 0, NULL);
}

Test(allreduce_correct, larger_ranks, .timeout = 300) {
  static const char *const few[] = {"blocks=1", "blocks=5", "blocks=auto"};
  const int P[] = {100, 127, 254, 1030}; /* 1030: two-tree's colours of the whole world */
  for (int i = 0; i < (TSAN_LIGHT ? 1 : SANITIZED ? 3 : 4); i++) sweep(P[i], few, 3, 0, NULL);
}

/* A modeled world runs the same schedule (zero-element blocks included)
 * through the replay: results still right. */
Test(allreduce_correct, modeled, .timeout = 120) {
  static const char *const few[] = {"blocks=2", "blocks=auto"};
  tutti_model_t m = hockney(1e-6, 1e-9);
  for (int P = 5; P <= 14; P += 9) sweep(P, few, 2, 1, &m);
}

/* Algorithms that reorder operands refuse a non-commutative op, on every
 * rank, before any message moves. */
static int refuse(tutti_rank_t *r, void *arg) {
  const tutti_algo_t *a = arg;
  int64_t x[4] = {0}, y[4];
  int rc = tutti_allreduce(r, x, y, 4, TUTTI_INT64, TUTTI_MATMUL2, a);
  return rc == TUTTI_ENOTSUP ? 0 : TUTTI_EVERIFY;
}

Test(allreduce_correct, commutative_only_refuses_matmul2, .timeout = 60) {
  int n = 0;
  for (const tutti_algo_desc_t *d; (d = tutti_algo_desc_at(n)); n++) {
    if (d->coll != TUTTI_COLL_ALLREDUCE || !(d->restrictions & TUTTI_ALGO_COMMUTATIVE)) continue;
    const tutti_algo_t *a = pick(TUTTI_COLL_ALLREDUCE, d->name, NULL);
    char err[256] = "";
    cr_expect(eq(int, tutti_algo_check(a, 4, TUTTI_MATMUL2, err, sizeof err), TUTTI_ENOTSUP));
    cr_expect(strstr(err, "commutative") != NULL, "%s: '%s'", d->name, err);
    tutti_world_t *w = mkworld(4, NULL);
    cr_expect(eq(int, tutti_world_run(w, refuse, (void *)a), 0), "%s: %s", d->name,
              tutti_world_error(w));
    tutti_world_destroy(w);
  }
  const tutti_algo_t *ring = pick(TUTTI_COLL_ALLREDUCE, "ring", NULL);
  cr_expect(tutti_algo_desc(ring)->restrictions & TUTTI_ALGO_COMMUTATIVE);
}

/* A bad block count is refused at selection, naming the parameter and
 * what is accepted. */
Test(allreduce_correct, bad_blocks_refused) {
  const char *bad[] = {"blocks=0", "blocks=-3", "blocks=2.5", "blocks=many", "blocks=1073741825"};
  const char *algos[] = {"dual-root", "single-tree", "binary-reduce-bcast", "two-tree"};
  for (int ai = 0; ai < 4; ai++)
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
      const tutti_algo_t *a;
      char err[256] = "";
      cr_expect(eq(int,
                   tutti_algo_select(TUTTI_COLL_ALLREDUCE, algos[ai], bad[i], &a, err, sizeof err),
                   TUTTI_EINVAL),
                "%s %s", algos[ai], bad[i]);
      cr_expect(strstr(err, "'blocks'") && strstr(err, "[1, 1073741824] or auto"), "%s %s: '%s'",
                algos[ai], bad[i], err);
    }
}

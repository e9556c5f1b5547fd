/*
 * test_unit_cost_limits.c -- tutti_algo_cost at the edges (coll.h): a P
 * outside 1..TUTTI_COST_MAX_RANKS (the rank limit) or a root outside
 * 0..P-1 is NAN before any cost function runs (INT_MAX once built a
 * P-node tree); every built-in's cost at P = 16384 and m = 1 TiB is
 * finite, >= 0 and comes back within the test's timeout (the pipelined
 * allreduces once replayed 10^9 rank-blocks); past the replay's work
 * budget their cost is the stated extrapolation (pipetree.h), an upper
 * bound of the exact replay wherever that can be checked. The message
 * count (tutti_algo_messages) has the same limits and is finite at the
 * rank limit; tutti_algo_hockney_view gives the model's Hockney view.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "tutti/tutti.h"

static const tutti_hockney_t H = {1e-6, 1e-9, 1e-10};

static const tutti_algo_t *defaults(const tutti_algo_desc_t *d, const char *params) {
  const tutti_algo_t *a = NULL;
  char err[256];
  cr_assert(eq(int, tutti_algo_select(d->coll, d->name, params, &a, err, sizeof err), 0), "%s: %s",
            d->name, err);
  return a;
}

Test(cost_limits, ranks_beyond_the_limit_are_refused, .timeout = 60) {
  const int bad_P[] = {0, -1, INT_MIN, TUTTI_COST_MAX_RANKS + 1, INT_MAX};
  for (int i = 0; tutti_algo_desc_at(i); i++) {
    const tutti_algo_desc_t *d = tutti_algo_desc_at(i);
    const tutti_algo_t *a = defaults(d, NULL);
    for (size_t k = 0; k < sizeof bad_P / sizeof *bad_P; k++) {
      int bound = -1;
      double t = tutti_algo_cost(a, bad_P[k], 0, 1000, &H, &bound);
      cr_expect(eq(int, isnan(t) != 0, 1), "%s %s P=%d: %g", tutti_coll_name(d->coll), d->name,
                bad_P[k], t);
      cr_expect(eq(int, bound, 0));
    }
    cr_expect(eq(int, isnan(tutti_algo_cost(a, 8, 8, 1000, &H, NULL)) != 0, 1), "root 8 of 8");
    cr_expect(eq(int, isnan(tutti_algo_cost(a, 8, -1, 1000, &H, NULL)) != 0, 1), "root -1");
    /* the message count has the same limits */
    for (size_t k = 0; k < sizeof bad_P / sizeof *bad_P; k++)
      cr_expect(eq(int, isnan(tutti_algo_messages(a, bad_P[k], 0, 1000, &H)) != 0, 1), "%s P=%d",
                d->name, bad_P[k]);
    cr_expect(eq(int, isnan(tutti_algo_messages(a, 8, 8, 1000, &H)) != 0, 1), "root 8 of 8");
    cr_expect(eq(int, isnan(tutti_algo_messages(a, 8, 0, 1000, NULL)) != 0, 1), "no view");
    cr_expect(eq(int, isnan(tutti_algo_messages(NULL, 8, 0, 1000, &H)) != 0, 1), "no algorithm");
    cr_expect(eq(int, isnan(tutti_algo_messages(a, 8, 0, (size_t)LONG_MAX + 1, &H)) != 0, 1),
              "%s: m past LONG_MAX", d->name);
  }
}

/* Every built-in's count at 2^20 ranks and 1 TiB: finite, at least the
 * P - 1 messages it takes to reach every rank. */
Test(cost_limits, every_message_count_at_the_rank_limit, .timeout = 120) {
  for (int i = 0; tutti_algo_desc_at(i); i++) {
    const tutti_algo_desc_t *d = tutti_algo_desc_at(i);
    const tutti_algo_t *a = defaults(d, NULL);
    if (tutti_algo_check(a, TUTTI_COST_MAX_RANKS, TUTTI_SUM, NULL, 0)) continue;
    double n = tutti_algo_messages(a, TUTTI_COST_MAX_RANKS, 0, (size_t)1 << 40, &H);
    cr_expect(isfinite(n) && n >= TUTTI_COST_MAX_RANKS - 1, "%s %s: %g", tutti_coll_name(d->coll),
              d->name, n);
  }
}

/* The view `auto` weighs: the Hockney preset's own constants, the none
 * model's rounds; a NULL argument is refused. */
Test(cost_limits, hockney_view, .timeout = 10) {
  tutti_model_t m;
  tutti_hockney_t h;
  cr_assert(eq(int, tutti_model_hockney(&m, 2e-6, 3e-9), 0));
  m.gamma = 1e-10;
  cr_assert(eq(int, tutti_algo_hockney_view(&m, 4096, &h), 0));
  cr_expect(ieee_ulp_eq(dbl, h.alpha, 2e-6, 4));
  cr_expect(ieee_ulp_eq(dbl, h.beta, 3e-9, 64));
  cr_expect(ieee_ulp_eq(dbl, h.gamma, 1e-10, 4));
  tutti_model_t none = {.preset = TUTTI_MODEL_NONE};
  cr_assert(eq(int, tutti_algo_hockney_view(&none, 4096, &h), 0));
  cr_expect(h.alpha == 1 && h.beta == 0 && h.gamma == 0);
  cr_expect(eq(int, tutti_algo_hockney_view(NULL, 8, &h), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_algo_hockney_view(&m, 8, NULL), TUTTI_EINVAL));
}

Test(cost_limits, every_cost_at_16384_ranks_and_one_tib, .timeout = 300) {
  for (int i = 0; tutti_algo_desc_at(i); i++) {
    const tutti_algo_desc_t *d = tutti_algo_desc_at(i);
    if (!d->cost_fn) continue;
    const tutti_algo_t *a = defaults(d, NULL);
    int bound = -1;
    double t = tutti_algo_cost(a, 16384, 0, (size_t)1 << 40, &H, &bound);
    cr_expect(eq(int, isfinite(t) && t >= 0, 1), "%s %s: %g", tutti_coll_name(d->coll), d->name, t);
  }
}

/* The pipelined allreduces' block counts with blocks of blk bytes each:
 * b1 and b2 replayed exactly (P b2 within the budget), b past the budget
 * extrapolated from them; and, where all three replay exactly, the
 * extrapolation is never below the exact time. */
static double cost_blocks(const char *name, long b, size_t bytes, int P, int *bound) {
  char params[64];
  snprintf(params, sizeof params, "blocks=%ld", b);
  const tutti_algo_t *a = NULL;
  char err[256];
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_ALLREDUCE, name, params, &a, err, sizeof err), 0),
            "%s", err);
  return tutti_algo_cost(a, P, 0, bytes, &H, bound);
}

Test(cost_limits, past_the_budget_an_upper_bound, .timeout = 300) {
  const char *names[] = {"dual-root", "single-tree", "binary-reduce-bcast", "two-tree"};
  for (int i = 0; i < 4; i++) {
    /* blocks of 32000 bytes (two-tree: each half's), every element size exact */
    size_t per = i == 3 ? 64000 : 32000;
    const int P = 1024;
    long b2 = (1L << 20) / P, b1 = b2 / 2, b = 4 * b2;
    int bd1, bd2, bd;
    double T1 = cost_blocks(names[i], b1, (size_t)b1 * per, P, &bd1);
    double T2 = cost_blocks(names[i], b2, (size_t)b2 * per, P, &bd2);
    double T = cost_blocks(names[i], b, (size_t)b * per, P, &bd);
    cr_expect(eq(int, bd1 || bd2, 0), "%s: within the budget, exact", names[i]);
    cr_expect(eq(int, bd, 1), "%s: past the budget, a bound", names[i]);
    cr_expect(eq(dbl, T, T2 + (double)(b - b2) * (T2 - T1) / (double)(b2 - b1)), "%s", names[i]);
    /* the extrapolation against exact replays, small enough to run */
    const int Ps[] = {2, 3, 7, 16, 33, 100};
    for (size_t k = 0; k < sizeof Ps / sizeof *Ps; k++)
      for (long c1 = 1; c1 <= 8; c1 *= 2)
        for (long c = 2 * c1 + 1; c <= 300; c = c * 3 / 2 + 1) {
          double E1 = cost_blocks(names[i], c1, (size_t)c1 * per, Ps[k], &bd1);
          double E2 = cost_blocks(names[i], 2 * c1, (size_t)(2 * c1) * per, Ps[k], &bd2);
          double E = cost_blocks(names[i], c, (size_t)c * per, Ps[k], &bd);
          double X = E2 + (double)(c - 2 * c1) * (E2 - E1) / (double)c1;
          cr_expect(X >= E * (1 - 1e-12), "%s P=%d from %ld, %ld: %.17g below %.17g", names[i],
                    Ps[k], c1, c, X, E);
        }
  }
}

/*
 * test_e2e_explain_cost.c -- what `tutti explain` predicts against what
 * the engine measures (bench/cli_explain_cost.c, cli_explain_forms.c),
 * and the other outputs that name a run's model and states:
 *   - postal: lab 1's lambda-tree reads F_2 = 1, 1, 2, 3, 5, 8 and
 *     f_2(8) = 5 (runtime/MODEL.md's worked example), T_1(8) = 4 (the
 *     root's four children), and predicts the 5 steps measured; over every
 *     registered algorithm, L = 1..3 and several P, every closed form
 *     given equals the engine's time, and the others say there is none;
 *   - LogP and LogGP: the broadcasts and scatters down a tree, the same;
 *   - Hockney: the ring allreduce of 4000 B of int32 on 4 ranks is 12 us
 *     exactly (blocks of whole elements: tutti_algo_cost_elem), and every
 *     prediction not marked a bound equals the engine's time;
 *   - compare under postal names its model and its unit, steps;
 *   - the trace (--trace) has a lane of states per rank: the flat tree's
 *     root queued, then sending; the leaves blocked, then done.
 * Under the sanitizers, where each `tutti` process starts slowly, fewer
 * rank counts.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_helpers.h"
#include "sanitized.h"
#include "tutti/tutti.h"

/* The number after `key` at the start of a line ("measured   14 us"), or
 * NaN (also for "-"). */
static double line_value(const char *out, const char *key) {
  const char *p = out;
  size_t k = strlen(key);
  while (p && *p) {
    if (!strncmp(p, key, k)) {
      char *end;
      double v = strtod(p + k, &end);
      return end == p + k ? NAN : v;
    }
    p = strchr(p, '\n');
    if (p) p++;
  }
  return NAN;
}

/* ------------------------------------------------------------ postal */

/* Lab 1's run: the lambda-tree (lambda = 0.6) on 8 ranks under postal
 * L = 2. MODEL.md: F_2 = 1, 1, 2, 3, 5, 8, so 8 ranks take f_2(8) = 5
 * steps; the tree's root has 4 children (T_1 = 4 rounds at L = 1). */
Test(explain_cost, postal_lambda_tree_of_lab1, .timeout = 30) {
  struct cli c =
      CLI("explain", "bcast", "lambda-tree:lambda=0.6", "-n", "8", "--model", "postal:L=2");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(dbl, line_value(c.out, "measured   "), 5));
  cr_assert(eq(dbl, line_value(c.out, "predicts   "), 5), "%s", c.out);
  HAS(c.out, "F_2 = 1, 1, 2, 3, 5, 8");
  HAS(c.out, "f_L(P) = min{t : F_L(t) >= P} = 5 steps");
  HAS(c.out, "this tree's T_1(8) = 4");
  HAS(c.out, "\npostal     T_L(P): down the tree");
  cli_free(&c);
}

/* Every postal closed form explain gives is the engine's time; where it
 * gives none it says so. Most algorithms have one. */
Test(explain_cost, every_postal_form_is_exact, .timeout = 900) {
#if SANITIZED
  static const int ranks[] = {5, 8};
  static const char *const models[] = {"postal:L=2"};
#else
  static const int ranks[] = {2, 5, 8, 13};
  static const char *const models[] = {"postal:L=1", "postal:L=2", "postal:L=3"};
#endif
  const tutti_algo_desc_t *d;
  int with = 0, checked = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
    int any = 0;
    const char *coll = tutti_coll_name(d->coll);
    for (size_t k = 0; k < sizeof ranks / sizeof *ranks; k++)
      for (size_t mi = 0; mi < sizeof models / sizeof *models; mi++) {
        const tutti_algo_t *a;
        cr_assert(eq(int, tutti_algo_select(d->coll, d->name, NULL, &a, NULL, 0), 0));
        if (tutti_algo_check(a, ranks[k], TUTTI_SUM, NULL, 0)) continue;
        char n[16];
        snprintf(n, sizeof n, "%d", ranks[k]);
        struct cli c =
            d->coll == TUTTI_COLL_BARRIER
                ? CLI("explain", coll, d->name, "-n", n, "--model", models[mi])
                : CLI("explain", coll, d->name, "-n", n, "-m", "96", "--model", models[mi]);
        cr_assert(eq(int, c.status, 0), "%s %s: %s", coll, d->name, c.err);
        double p = line_value(c.out, "predicts   "), t = line_value(c.out, "measured   ");
        cr_assert(isfinite(t));
        if (isnan(p)) {
          HAS(c.out, "\npostal     none here for ");
        } else {
          cr_assert(eq(dbl, p, t), "%s %s P=%d %s: predicts %g, measured %g", coll, d->name,
                    ranks[k], models[mi], p, t);
          any = 1;
        }
        checked++;
        cli_free(&c);
      }
    with += any;
  }
  cr_assert(ge(int, checked, SANITIZED ? 60 : 200), "%d runs checked", checked);
  cr_assert(ge(int, with, SANITIZED ? 20 : 30), "only %d algorithms with a postal closed form",
            with);
}

/* LogP and LogGP: a broadcast or scatter down a tree, every message's
 * start max(g, o + G m) after the one before from its sender, o + G m + L
 * + o to the child. */
Test(explain_cost, logp_tree_broadcasts_are_exact, .timeout = 120) {
  static const char *const models[] = {"logp:L=5us,o=1us,g=2us", "loggp:L=3us,o=1us,g=1us,G=1ns",
                                       "logp:L=1us,o=2us,g=3us"};
  static const char *const algos[][2] = {{"bcast", "flat"},        {"bcast", "binomial"},
                                         {"bcast", "lambda-tree"}, {"bcast", "binary"},
                                         {"scatter", "binomial"},  {"scatter", "flat"}};
  for (size_t mi = 0; mi < 3; mi++)
    for (size_t ai = 0; ai < sizeof algos / sizeof *algos; ai++) {
      struct cli c = CLI("explain", algos[ai][0], algos[ai][1], "-n", "11", "-m", "1000", "--model",
                         models[mi]);
      cr_assert(eq(int, c.status, 0), "%s", c.err);
      double p = line_value(c.out, "predicts   "), t = line_value(c.out, "measured   ");
      cr_assert(eq(dbl, p, t), "%s %s %s: predicts %g, measured %g", algos[ai][0], algos[ai][1],
                models[mi], p, t);
      cli_free(&c);
    }
  struct cli c =
      CLI("explain", "allreduce", "ring", "-n", "4", "--model", "logp:L=5us,o=1us,g=2us");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "\nlogp       none here for allreduce ring: ");
  HAS(c.out, "\npredicts   - (no logp closed form for it)");
  cli_free(&c);
}

/* ------------------------------------------------------------ Hockney */

/* The ring allreduce cuts 1000 int32 into 4 blocks of 250: 6 steps of
 * alpha + 1000 B beta = 12 us with alpha = 1 us, beta = 1 ns/B, exactly. */
Test(explain_cost, ring_allreduce_of_whole_elements, .timeout = 30) {
  struct cli c = CLI("explain", "allreduce", "ring", "-n", "4", "-m", "4000");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(dbl, line_value(c.out, "predicts   "), 12), "%s", c.out);
  cr_assert(eq(dbl, line_value(c.out, "measured   "), 12));
  cr_assert(eq(ptr, strstr(c.out, "upper bound"), NULL), "%s", c.out);
  cli_free(&c);
  const tutti_algo_t *a;
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_ALLREDUCE, "ring", NULL, &a, NULL, 0), 0));
  tutti_hockney_t h = {1e-6, 1e-9, 0};
  int bound = -1;
  double t = tutti_algo_cost_elem(a, 4, 0, 4000, 4, &h, &bound);
  cr_assert(eq(int, bound, 0));
  cr_assert(epsilon_eq(dbl, t, 6 * (1e-6 + 1000 * 1e-9), 1e-15), "%g", t);
  /* any element size up to 16 bytes: 4000 B are not 16 equal blocks of 4 */
  t = tutti_algo_cost(a, 4, 0, 4000, &h, &bound);
  cr_assert(eq(int, bound, 1));
  cr_assert(gt(dbl, t, 12e-6));
  /* an element size that does not divide m, or 0: as tutti_algo_cost */
  cr_assert(eq(dbl, tutti_algo_cost_elem(a, 4, 0, 4000, 3, &h, &bound), t));
  cr_assert(eq(dbl, tutti_algo_cost_elem(a, 4, 0, 4000, 0, &h, &bound), t));
}

/* Whatever explain calls exact under Hockney is the engine's time, for
 * every registered algorithm moving data, over datatypes and sizes. */
Test(explain_cost, hockney_predictions_not_bounds_are_exact, .timeout = 900) {
#if SANITIZED
  static const int ranks[] = {5, 8};
#else
  static const int ranks[] = {3, 4, 5, 8, 12};
#endif
  static const char *const sizes[][2] = {{"4000", "int32"}, {"4000", "double"}, {"960", "int64"}};
  const tutti_algo_desc_t *d;
  int exact = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
    if (d->coll == TUTTI_COLL_BARRIER) continue;
    const tutti_algo_t *a;
    cr_assert(eq(int, tutti_algo_select(d->coll, d->name, NULL, &a, NULL, 0), 0));
    for (size_t k = 0; k < sizeof ranks / sizeof *ranks; k++) {
      if (tutti_algo_check(a, ranks[k], TUTTI_SUM, NULL, 0)) continue;
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        char n[16];
        snprintf(n, sizeof n, "%d", ranks[k]);
        struct cli c = CLI("explain", tutti_coll_name(d->coll), d->name, "-n", n, "-m", sizes[s][0],
                           "--dtype", sizes[s][1]);
        cr_assert(eq(int, c.status, 0), "%s: %s", d->name, c.err);
        double p = line_value(c.out, "predicts   "), t = line_value(c.out, "measured   ");
        const char *line = strstr(c.out, "\npredicts   "),
                   *nl = line ? strchr(line + 1, '\n') : NULL;
        const char *ub = line ? strstr(line, "upper bound") : NULL;
        int bound = ub && (!nl || ub < nl);
        if (!isnan(p) && !bound) {
          cr_assert(epsilon_eq(dbl, p, t, 1e-9 * t), "%s %s P=%d %s %s: predicts %g, measured %g",
                    tutti_coll_name(d->coll), d->name, ranks[k], sizes[s][0], sizes[s][1], p, t);
          exact++;
        } else if (!isnan(p)) {
          cr_assert(ge(dbl, p, t * (1 - 1e-9)), "%s: a bound below the time", d->name);
        }
        cli_free(&c);
      }
    }
  }
  cr_assert(gt(int, exact, 100));
}

/* ------------------------------------------------------------ compare */

/* Postal times are steps: the table says so, and names the model. */
Test(explain_cost, compare_names_model_and_unit, .timeout = 30) {
  struct cli c = CLI("compare", "bcast", "binomial", "flat", "-n", "8", "--model", "postal:L=2");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(int, strncmp(c.out, "model: postal L=2 steps, all eager\n", 35), 0), "%s", c.out);
  /* binomial: 3 rounds of L = 2; flat (MODEL.md): sends at 0..6 arrive by 8 */
  HAS(c.out, "         6 steps");
  HAS(c.out, "         8 steps");
  cli_free(&c);
  c = CLI("compare", "bcast", "binomial", "flat", "-n", "8");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(ptr, strstr(c.out, "model:"), NULL), "the default model is not named: %s", c.out);
  HAS(c.out, " us ");
  cli_free(&c);
}

/* ------------------------------------------------------------ trace */

/* The value of "key":NUMBER in text from p on. */
static double json_after(const char *p, const char *key) {
  const char *q = strstr(p, key);
  cr_assert(ne(ptr, (void *)q, NULL), "no %s in %.200s", key, p);
  return strtod(q + strlen(key), NULL);
}

/* The state slice `name` of lane tid starting at ts (microseconds): its
 * duration, or -1. */
static double state_slice(const char *trace, const char *name, int tid, double ts) {
  char key[96];
  snprintf(key, sizeof key, "{\"name\":\"%s\",\"cat\":\"state\"", name);
  for (const char *p = trace; (p = strstr(p, key)); p++)
    if ((int)json_after(p, "\"tid\":") == tid && fabs(json_after(p, "\"ts\":") - ts) < 1e-6)
      return json_after(p, "\"dur\":");
  return -1;
}

/* Flat broadcast, P = 4, 1000 B, alpha = 1 us, beta = 1 ns/B: the root's
 * three sends take 2 us each from 0 (MODEL.md), two of them waiting behind
 * the first: queued 0..4, sending 4..6; rank 1 blocked 0..2, then done. */
Test(explain_cost, trace_has_the_four_states, .timeout = 30) {
  char path[] = "/tmp/tutti_test_states_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(ge(int, fd, 0));
  close(fd);
  struct cli c = CLI("run", "bcast", "flat", "-n", "4", "-m", "1000", "--trace", path);
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cli_free(&c);
  fd = open(path, O_RDONLY);
  cr_assert(ge(int, fd, 0));
  char *trace = slurp(fd);
  close(fd);
  unlink(path);
  HAS(trace, "\"rank 0 state\"");
  /* the states' lanes: tid 4 + r */
  cr_assert(eq(dbl, state_slice(trace, "queued", 4, 0), 4), "%s", trace);
  cr_assert(eq(dbl, state_slice(trace, "sending", 4, 4), 2));
  cr_assert(eq(dbl, state_slice(trace, "blocked", 5, 0), 2));
  cr_assert(eq(dbl, state_slice(trace, "done", 5, 2), 4));
  cr_assert(eq(dbl, state_slice(trace, "blocked", 7, 0), 6));
  cr_assert(eq(ptr, strstr(trace, ", tag 1073"), NULL), "a reserved tag in a name");
  free(trace);
}

/* ------------------------------------------------------------ header */

/* With a header (runtime/MODEL.md "The envelope") explain predicts with
 * alpha + beta header under Hockney and takes m + header in the LogGP
 * forms, exactly; under the handshake it predicts nothing. */
Test(explain_cost, the_header_in_the_forms, .timeout = 60) {
  static const char *const models[] = {"hockney:alpha=1us,beta=1ns,header=16B",
                                       "loggp:L=3us,o=1us,g=1us,G=1ns,header=16B"};
  static const char *const algos[] = {"flat", "binomial"};
  for (size_t mi = 0; mi < 2; mi++)
    for (size_t ai = 0; ai < 2; ai++) {
      struct cli c =
          CLI("explain", "bcast", algos[ai], "-n", "11", "-m", "1000", "--model", models[mi]);
      cr_assert(eq(int, c.status, 0), "%s", c.err);
      double p = line_value(c.out, "predicts   "), t = line_value(c.out, "measured   ");
      cr_assert(eq(dbl, p, t), "%s %s: predicts %g, measured %g", algos[ai], models[mi], p, t);
      if (mi == 0) HAS(c.out, "(alpha + beta header = 1.016 us, beta = 1 ns/B");
      cli_free(&c);
    }
  struct cli c = CLI("explain", "bcast", "flat", "-n", "4", "-m", "1000", "--model",
                     "hockney:alpha=1us,beta=1ns,rendezvous=handshake");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(isnan(line_value(c.out, "predicts   ")), "%s", c.out);
  cli_free(&c);
}

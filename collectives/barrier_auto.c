/*
 * barrier_auto.c -- the barrier `auto`: the registered barrier (every
 * other barrier line, at its default parameters) of least estimated time
 * for the run's model and P, computed per call from closed forms; ties go
 * to the first registered. tutti_barrier_auto_choose (coll.h) gives the
 * choice and the candidates' times, for `tutti run barrier auto`.
 *
 * The estimates, by how an empty message travels under the model:
 * - rendezvous (the eager limit is 0: Hockney presets, sp2-hps): every
 *   candidate's registered Hockney cost function with alpha = the time of
 *   one empty transfer, L(0) + O_r(0). Exact for the Hockney preset (the
 *   cost functions are checked against the engine by test_e2e_cost.c).
 * - eager (postal, LogP, gige's small messages): the postal view of the
 *   model, latency Lp = round(L(0)/S(0)) send times (coll.h
 *   tutti_algo_postal_L, the same as L = auto), in steps of S(0):
 *     tree barriers: the empty reduce's postal time on the tree (a rank's
 *       receive port takes one message a step, in arrival order) plus the
 *       tree's broadcast time (tutti_tree_postal_time);
 *     tournament: the binomial tree's (same messages);
 *     dissemination: sum over rounds of (n_r - 1 + Lp);
 *     fibonacci: f_Lp(P), the optimal broadcast time, which no barrier can
 *       beat (the last rank to enter must reach every other);
 *     recursive-doubling: a lower bound only, log2 P' Lp (+ 2 Lp with a
 *       fold); it never beats fibonacci's f_Lp(P) <= ceil(log2 P) Lp.
 *   Exact step counts for the postal preset; for LogP/LogGP and custom
 *   eager models an approximation (o and g fold into S(0)).
 * A rule of the world's rules (tutti_rank_rules) overrides all this
 * (tutti_auto_choose, auto.c).
 * A topology's links are not looked at: with contention the estimates are
 * those of the model alone.
 * The none model (native runs) is eager with no costs: the postal view
 * with L = 2 (the tree builders' default); its choice is a convention, not
 * a measurement (`tutti bench barrier --native` measures).
 *
 * Source: the candidates' own files; the lower bound is Bar-Noy & Kipnis's
 * optimal postal broadcast (SPAA 1992).
 *
 * Cost under Hockney: that of the candidate it chooses there, the least
 * of their Hockney costs (e.g. ceil(log2 P) alpha: dissemination).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "tutti/coll.h"
#include "tutti/units.h"

tutti_barrier_fn tutti__barrier_auto; /* its ALGO line declares it in registry.c */

/* ------------------------------------------------------ postal estimates */

/* When relative rank v of a tree rooted at 0 has heard from its whole
 * subtree, in postal steps: a child's message arrives L after it is done,
 * the port serves one a step in arrival order. -1 on an error. */
static double reduce_done(const tutti_treespec_t *spec, int P, int L, int v) {
  int nc = 0, small[64], *kids = small;
  if (tutti_tree_node(spec, v, P, 0, NULL, NULL, 0, &nc)) return -1;
  if (nc > 64 && !(kids = malloc((size_t)nc * sizeof *kids))) return -1;
  double t = 0, *at = malloc((size_t)(nc ? nc : 1) * sizeof *at);
  if (!at || tutti_tree_node(spec, v, P, 0, NULL, kids, nc, &nc)) t = -1;
  for (int i = 0; i < nc && t >= 0; i++) {
    double d = reduce_done(spec, P, L, kids[i]);
    if (d < 0) t = -1;
    double x = d + L;
    int j = i;
    while (j > 0 && at[j - 1] > x) at[j] = at[j - 1], j--;
    at[j] = x;
  }
  for (int i = 0; i < nc && t >= 0; i++) t = at[i] > t + (i ? 1 : 0) ? at[i] : t + (i ? 1 : 0);
  free(at);
  if (kids != small) free(kids);
  return t;
}

static double tree_postal(const tutti_treespec_t *spec, int P, int L) {
  long down;
  if (tutti_tree_postal_time(spec, P, L, &down)) return NAN;
  double up = reduce_done(spec, P, L, 0);
  return up < 0 ? NAN : up + (double)down;
}

/* Postal steps of a candidate, with *bound set when it is a lower bound. */
static double postal_steps(const tutti_algo_t *a, int P, int L, int *bound) {
  const char *n = tutti_algo_builtin(tutti_algo_desc(a)) ? tutti_algo_desc(a)->name : "";
  const tutti_params_t *p = tutti__params(a);
  *bound = 0;
  if (P <= 1) return 0;
  if (a->e->tree >= 0) {
    tutti_treespec_t spec;
    return tutti_algo_treespec(a, L, &spec) ? NAN : tree_postal(&spec, P, L);
  }
  if (!strcmp(n, "tournament")) {
    tutti_treespec_t spec = tutti_treespec_default(TUTTI_TREE_BINOMIAL);
    return tree_postal(&spec, P, L);
  }
  if (!strcmp(n, "dissemination")) {
    double t = 0;
    for (long d = 1; d < P; d *= p->k) {
      long m = (P + d - 1) / d - 1;
      t += (double)((m < p->k - 1 ? m : p->k - 1) - 1 + L);
    }
    return t;
  }
  if (!strcmp(n, "fibonacci")) {
    int f = tutti_postal_f(p->L == TUTTI_PARAM_AUTO ? L : (int)p->L, P);
    if (f < 0) return NAN;
    if (p->L == TUTTI_PARAM_AUTO || p->L == L) return f;
    *bound = 1; /* another L: at least the optimum */
    return tutti_postal_f(L, P);
  }
  if (!strcmp(n, "recursive-doubling")) {
    int lg = 0;
    while ((2L << lg) <= P) lg++;
    *bound = 1;
    return (double)(lg + ((P & (P - 1)) ? 2 : 0)) * L;
  }
  return NAN; /* not estimated: not a candidate */
}

/* ------------------------------------------------------------ the choice */

/* auto itself, and hierarchical, whose cost is a level's (engine.h) */
static int is_self(const tutti_algo_desc_t *d) {
  return d->fn.barrier == tutti__barrier_auto || tutti_algo_is_two_level(d);
}

int tutti_barrier_auto_choose(const tutti_model_t *m, int P, const tutti_algo_t **chosen, char *why,
                              size_t whylen) {
  if (!m || P < 1 || !chosen) return TUTTI_EINVAL;
  int rendezvous = m->eager_limit == 0;
  double H = (double)m->header; /* an empty message still carries its envelope */
  double alpha = tutti_cost_eval(&m->latency, H) + tutti_cost_eval(&m->recv_cpu, H);
  double step = tutti_cost_eval(&m->send_port, H);
  int L = tutti_algo_postal_L(m, 0);
  int plain = m->preset == TUTTI_MODEL_POSTAL || !(step > 0); /* times in steps */
  if (!(step > 0)) step = 1;
  tutti_hockney_t h = {alpha, 0, 0};
  size_t used = 0;
  char buf[64];
  if (why && whylen) {
    if (rendezvous)
      used += (size_t)snprintf(why, whylen, "rendezvous, Hockney costs with alpha = %s:",
                               tutti_format_time(alpha, buf, sizeof buf));
    else
      used += (size_t)snprintf(why, whylen, "eager, postal view L = %d, a step %s:", L,
                               plain ? "1" : tutti_format_time(step, buf, sizeof buf));
  }
  const tutti_algo_desc_t *d;
  double best = INFINITY;
  int found = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
    if (d->coll != TUTTI_COLL_BARRIER || is_self(d)) continue;
    const tutti_algo_t *a;
    if (tutti_algo_select(TUTTI_COLL_BARRIER, d->name, NULL, &a, NULL, 0)) continue;
    int bound = 0;
    double t =
        rendezvous ? tutti_algo_cost(a, P, 0, 0, &h, &bound) : postal_steps(a, P, L, &bound) * step;
    if (isnan(t)) continue;
    if (why && used < whylen) {
      char tb[64];
      if (plain)
        snprintf(tb, sizeof tb, "%g", t);
      else
        tutti_format_time(t, tb, sizeof tb);
      used += (size_t)snprintf(why + used, whylen - used, "%s %s %s%s", found ? "," : "", d->name,
                               bound ? ">= " : "", tb);
    }
    /* a lower bound never wins: a candidate must be known to reach it */
    if (!bound && t < best * (1 - 1e-12)) best = t, *chosen = a;
    found = 1;
  }
  return found && isfinite(best) ? 0 : TUTTI_ENOTFOUND;
}

/* ------------------------------------------------------------ the algorithm */

int tutti__barrier_auto(tutti_rank_t *r, const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" (the chosen
                                  barrier takes its own) */
  if (tag < 0) return tag;
  /* the world's rule if one applies, else tutti_barrier_auto_choose; kept
   * by the call's plan */
  const tutti_algo_t **kept = tutti__plan_choice(r, a), *c = kept ? *kept : NULL;
  int rc = 0;
  if (!c) rc = tutti__auto_choose_r(r, TUTTI_COLL_BARRIER, 0, -1, NULL, &c);
  if (!rc && kept) *kept = c;
  return rc ? rc : c->e->d.fn.barrier(r, c);
}

/* Hockney: the least of the candidates' exact costs (what it chooses);
 * *chosen (may be NULL) gets that candidate. */
static double least_exact(int P, int root, const tutti_hockney_t *h, const tutti_algo_t **chosen) {
  const tutti_algo_desc_t *d;
  double best = INFINITY;
  for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
    if (d->coll != TUTTI_COLL_BARRIER || is_self(d)) continue;
    const tutti_algo_t *c;
    int b = 0;
    if (tutti_algo_select(TUTTI_COLL_BARRIER, d->name, NULL, &c, NULL, 0)) continue;
    double t = tutti_algo_cost(c, P, root, 0, h, &b);
    if (!b && t < best * (1 - 1e-12)) {
      best = t;
      if (chosen) *chosen = c;
    }
  }
  return isfinite(best) ? best : NAN;
}

double tutti__barrier_auto_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                const tutti_hockney_t *h, int *bound) {
  (void)a, (void)m;
  *bound = 0;
  return least_exact(P, root, h, NULL);
}

/* Hockney: the messages of the candidate it chooses. */
double tutti__barrier_auto_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                const tutti_hockney_t *h) {
  (void)a, (void)m;
  const tutti_algo_t *c = NULL;
  return isnan(least_exact(P, root, h, &c)) ? NAN : tutti_algo_messages(c, P, root, 0, h);
}

/*
 * tree_cost.c -- the Hockney cost of every tree algorithm, computed from
 * its tree: what the registry's TREE lines name as their cost function.
 *
 * Under Hockney every field of runtime/MODEL.md's preset is c(m) = alpha + beta m
 * and every message is rendezvous, so a transfer starts when both sides
 * are ready and both ports are free, and ends c(m) later. Following the
 * movers of engine.c step by step over the tree (from tree.h's builders,
 * relative to the root, which the shapes do not depend on) gives the
 * modeled time in closed recursion:
 *
 *   bcast:   a rank that has the message at t serves its children one
 *            after the other: T_1(P) c(m), T_1 the tree's postal time for
 *            L = 1 (binomial: ceil(log2 P); flat: P-1).
 *   reduce:  a rank receives its children one at a time in increasing
 *            relative rank, each when both are ready, then combines
 *            (gamma m): t = max(t, done(child)) + c(m) + gamma m.
 *   gather:  a rank posts every receive at once; its port serves the
 *            children as they become ready (earliest first, lower rank on
 *            a tie), each carrying its subtree's n blocks: c(n b).
 *   scatter: a rank sends its children their subtrees in send order, its
 *            port busy c(n b) per child; a child forwards on arrival.
 *   barrier: an empty reduce to rank 0, then an empty bcast: c(0) = alpha.
 *
 * These are exact for a commutative op (a non-commutative op with root != 0
 * doubles the messages on one path: engine.c). With segments (S > 1) the
 * pipeline's interleaving is not followed here; the cost is then an upper
 * bound: the first segment's time, plus (S-1) times the busiest rank's
 * per-segment work, D c(s) (+ D gamma s for reduce), D its most children.
 * tests/ check both against the engine for every registered tree algorithm.
 */
#include <math.h>
#include <stdlib.h>

#include "engine.h"
#include "tutti/coll.h"

/* The whole tree, relative to root 0: children in send order. */
struct tree {
  int P, contiguous, *first, *kids; /* kids[first[v] .. first[v+1]) */
  long *n;                          /* subtree sizes */
};

static void tree_free(struct tree *t) {
  free(t->first);
  free(t->kids);
  free(t->n);
}

static int tree_build(const tutti_treespec_t *spec, int P, struct tree *t) {
  t->P = P;
  t->contiguous = tutti_tree_contiguous(spec->kind) == 1;
  t->first = calloc((size_t)P + 1, sizeof *t->first);
  t->kids = malloc((size_t)P * sizeof *t->kids);
  t->n = malloc((size_t)P * sizeof *t->n);
  if (!t->first || !t->kids || !t->n) return tree_free(t), TUTTI_ENOMEM;
  int used = 0;
  for (int v = 0; v < P; v++) {
    int nc = 0, rc = tutti_tree_node(spec, v, P, 0, NULL, t->kids + used, P - used, &nc);
    int cnt = 0;
    if (!rc) rc = tutti_tree_subtree_size(spec, v, P, 0, &cnt);
    if (rc) return tree_free(t), rc;
    t->first[v] = used;
    t->n[v] = cnt;
    used += nc;
  }
  t->first[P] = used;
  return 0;
}

static int degree(const struct tree *t, int v) {
  return t->first[v + 1] - t->first[v];
}

static int max_degree(const struct tree *t) {
  int d = 0;
  for (int v = 0; v < t->P; v++) d = degree(t, v) > d ? degree(t, v) : d;
  return d;
}

static double hockney(const tutti_hockney_t *h, double bytes) {
  return h->alpha + h->beta * bytes;
}

/* When v has combined its subtree (receiving in increasing relative rank). */
static double reduce_done(const struct tree *t, int v, double per_child) {
  int lo = t->first[v], hi = t->first[v + 1];
  /* Increasing relative rank on contiguous trees (insertion sort: few
   * children), reverse send order on the others: as engine.c receives. */
  int tmp[64], *ord = hi - lo <= 64 ? tmp : malloc((size_t)(hi - lo) * sizeof *ord);
  if (!ord) return NAN;
  for (int i = lo; i < hi; i++) {
    int j = i - lo;
    while (j > 0 && (t->contiguous ? ord[j - 1] > t->kids[i] : 1)) ord[j] = ord[j - 1], j--;
    ord[j] = t->kids[i];
  }
  double clock = 0;
  for (int i = 0; i < hi - lo; i++) {
    double d = reduce_done(t, ord[i], per_child);
    clock = (d > clock ? d : clock) + per_child;
  }
  if (ord != tmp) free(ord);
  return clock;
}

/* When v has gathered its subtree's blocks. */
static double gather_done(const struct tree *t, int v, double b, const tutti_hockney_t *h) {
  int lo = t->first[v], nc = t->first[v + 1] - lo;
  if (!nc) return 0;
  struct ready {
    double at;
    int rank;
  } tmp[64], *q = nc <= 64 ? tmp : malloc((size_t)nc * sizeof *q);
  if (!q) return NAN;
  for (int i = 0; i < nc; i++) {
    struct ready x = {gather_done(t, t->kids[lo + i], b, h), t->kids[lo + i]};
    int j = i;
    while (j > 0 && (q[j - 1].at > x.at || (q[j - 1].at == x.at && q[j - 1].rank > x.rank)))
      q[j] = q[j - 1], j--;
    q[j] = x;
  }
  double port = 0;
  for (int i = 0; i < nc; i++)
    port = (q[i].at > port ? q[i].at : port) + hockney(h, (double)t->n[q[i].rank] * b);
  if (q != tmp) free(q);
  return port;
}

/* When the last rank of v's subtree has its block, v having its subtree at t0. */
static double scatter_at(const struct tree *t, int v, double t0, double b,
                         const tutti_hockney_t *h) {
  double port = t0, last = t0;
  for (int i = t->first[v]; i < t->first[v + 1]; i++) {
    port += hockney(h, (double)t->n[t->kids[i]] * b);
    double end = scatter_at(t, t->kids[i], port, b, h);
    last = end > last ? end : last;
  }
  return last;
}

/* The number of segments of m bytes in pieces of `segment` (0: one). */
double tutti__tree_nsegs(size_t m, size_t segment) {
  return segment && segment < m ? ceil((double)m / (double)segment) : 1;
}

double tutti__tree_bcast_time(const tutti_treespec_t *spec, int P, size_t m, size_t segment,
                              const tutti_hockney_t *h, int *bound) {
  struct tree t;
  if (tree_build(spec, P, &t)) return NAN;
  double S = tutti__tree_nsegs(m, segment), s = S > 1 ? (double)segment : (double)m;
  double c = hockney(h, s);
  long steps; /* a rank serves its children one after the other: postal L = 1 */
  if (tutti_tree_postal_time(spec, P, 1, &steps)) return tree_free(&t), NAN;
  double T = (double)steps * c + (S - 1) * max_degree(&t) * c;
  *bound = S > 1;
  tree_free(&t);
  return T;
}

double tutti__tree_reduce_time(const tutti_treespec_t *spec, int P, size_t m, size_t segment,
                               const tutti_hockney_t *h, int *bound) {
  struct tree t;
  if (tree_build(spec, P, &t)) return NAN;
  double S = tutti__tree_nsegs(m, segment), s = S > 1 ? (double)segment : (double)m;
  double per_child = hockney(h, s) + h->gamma * s;
  double T = reduce_done(&t, 0, per_child) + (S - 1) * max_degree(&t) * per_child;
  *bound = S > 1;
  tree_free(&t);
  return T;
}

/* ---------------------------------------- the registry's cost functions */

/* The tree of a TREE line under Hockney (postal L = 1 for "auto"). */
static int spec_of(const tutti_algo_t *a, tutti_treespec_t *spec) {
  return tutti_algo_treespec(a, 1, spec);
}

double tutti__bcast_tree_cost(const tutti_algo_t *a, int P, int root, size_t m,
                              const tutti_hockney_t *h, int *bound) {
  tutti_treespec_t spec;
  return spec_of(a, &spec) ? NAN
                           : tutti__tree_bcast_time(&spec, P, m, tutti__tree_segment(a), h, bound);
}

double tutti__reduce_tree_cost(const tutti_algo_t *a, int P, int root, size_t m,
                               const tutti_hockney_t *h, int *bound) {
  tutti_treespec_t spec;
  return spec_of(a, &spec) ? NAN
                           : tutti__tree_reduce_time(&spec, P, m, tutti__tree_segment(a), h, bound);
}

double tutti__gather_tree_cost(const tutti_algo_t *a, int P, int root, size_t m,
                               const tutti_hockney_t *h, int *bound) {
  tutti_treespec_t spec;
  struct tree t;
  if (spec_of(a, &spec) || tree_build(&spec, P, &t)) return NAN;
  double T = gather_done(&t, 0, (double)m, h);
  tree_free(&t);
  *bound = 0;
  return T;
}

double tutti__scatter_tree_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                const tutti_hockney_t *h, int *bound) {
  tutti_treespec_t spec;
  struct tree t;
  if (spec_of(a, &spec) || tree_build(&spec, P, &t)) return NAN;
  double T = scatter_at(&t, 0, 0, (double)m, h);
  tree_free(&t);
  *bound = 0;
  return T;
}

double tutti__barrier_tree_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                const tutti_hockney_t *h, int *bound) {
  tutti_treespec_t spec;
  int b1 = 0, b2 = 0;
  if (spec_of(a, &spec)) return NAN;
  double T = tutti__tree_reduce_time(&spec, P, 0, 0, h, &b1) +
             tutti__tree_bcast_time(&spec, P, 0, 0, h, &b2);
  *bound = b1 || b2;
  return T;
}

/* Every TREE line's message count: a message an edge, P - 1 edges (a
 * barrier's twice, up and down), each cut into its segments (bcast and
 * reduce). */
double tutti__tree_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                        const tutti_hockney_t *h) {
  (void)root, (void)h;
  switch (a->e->d.coll) {
  case TUTTI_COLL_BCAST:
  case TUTTI_COLL_REDUCE:
    return (P - 1) * tutti__tree_nsegs(m, tutti__tree_segment(a));
  case TUTTI_COLL_BARRIER:
    return 2.0 * (P - 1);
  default: /* gather, scatter: a subtree's blocks in one message */
    return P - 1;
  }
}

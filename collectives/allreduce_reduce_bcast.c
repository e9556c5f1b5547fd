/*
 * allreduce_reduce_bcast.c -- allreduce as a reduce to rank 0 followed by a
 * broadcast from rank 0, both on the binomial tree (the textbook
 * composition; MPICH's fallback for non-commutative ops). Rank 0 as the
 * root keeps every subtree in absolute order, so non-commutative ops need
 * no wrap-around path (reduce_tree.c), and every rank ends with the same
 * bits. With `segment`, both phases pipeline (engine.c). One tag serves
 * both phases: along every edge the reduce's messages go up and the
 * broadcast's down, so they never match each other.
 *
 * Source: the composition is folklore (e.g. R. Thakur, R. Rabenseifner,
 * W. Gropp, "Optimization of collective communication operations in
 * MPICH", IJHPCA 19(1), 2005, section 4.4, for short messages).
 *
 * Cost under Hockney: 2 ceil(log2 P)(alpha + beta m) + ceil(log2 P) gamma m.
 */
#include "engine.h"
#include "tutti/coll.h"

int tutti__allreduce_reduce_bcast(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                  tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  size_t seg = tutti__params(a)->segment;
  tutti_treespec_t spec = tutti_treespec_default(TUTTI_TREE_BINOMIAL);
  if (sbuf == TUTTI_IN_PLACE) sbuf = rbuf;
  int rc = tutti__tree_reduce(r, &spec, sbuf, rbuf, count, type, op, 0, seg, 1, tag);
  if (rc) return rc;
  return tutti__tree_bcast(r, &spec, rbuf, count, type, 0, seg, tag);
}

/* Hockney: the binomial reduce's time, then the binomial bcast's, both
 * computed on the tree (tree_cost.c); exact unsegmented, a bound with
 * segments. */
double tutti__allreduce_reduce_bcast_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                          const tutti_hockney_t *h, int *bound) {
  tutti_treespec_t spec = tutti_treespec_default(TUTTI_TREE_BINOMIAL);
  int b1 = 0, b2 = 0;
  double t = tutti__tree_reduce_time(&spec, P, m, tutti__params(a)->segment, h, &b1) +
             tutti__tree_bcast_time(&spec, P, m, tutti__params(a)->segment, h, &b2);
  *bound = b1 || b2;
  return t;
}

/* A message a tree edge a segment, up and down. */
double tutti__allreduce_reduce_bcast_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                          const tutti_hockney_t *h) {
  (void)root, (void)h;
  return 2.0 * (P - 1) * tutti__tree_nsegs(m, tutti__params(a)->segment);
}

/*
 * allreduce_dual_root.c -- Traff's doubly-pipelined, dual-root allreduce:
 * the ranks form two post-order binary trees, [0, ceil(P/2)) and the rest,
 * whose roots are dual. The vector is cut into b blocks; in every round a
 * rank exchanges with each child (its earlier result block down, the
 * child's partial block up) and with its parent (its partial block up, an
 * earlier result block down), at most three bidirectional sendrecvs, and
 * the roots exchange their trees' partial blocks. Reduction and broadcast
 * run at once, so the beta term is 3 beta m instead of reduce+bcast's
 * 4 beta m. Order is kept: a non-commutative op gives x_0 (op) ... (op)
 * x_{P-1} at every rank. The rounds, the buffers and blocks=auto are in
 * pipetree.c; conventions and step counts in collectives/REFERENCE.md.
 *
 * Source: J. L. Traff, "A doubly-pipelined, dual-root reduction-to-all
 * algorithm and implementation", 2021, Algorithm 1 and its analysis.
 *
 * Cost under Hockney, P = 2^k - 2 (H = k - 2 the trees' height), b blocks
 * dividing m: (4H + 1 + 3(b-1))(alpha + beta m/b), plus the roots' three
 * reductions per round, 3 gamma m/b, on the critical path. The registered
 * cost follows every exchange (pipetree.c), for any P. Messages:
 * 2 sum_v (b + min(d_v, b)) over the P - 2 non-roots v (d_v: depth) + 2b.
 */
#include "algo.h"
#include "pipetree.h"

int tutti__allreduce_dual_root(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                               tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  return tutti__pipetree_allreduce(r, sbuf, rbuf, count, type, op, tutti__params(a)->blocks, 2);
}

double tutti__allreduce_dual_root_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                       const tutti_hockney_t *h, int *bound) {
  (void)root;
  return tutti__pipetree_cost(tutti__params(a)->blocks, 2, P, m, h, bound);
}

/* Two messages (a sendrecv) per tree edge per round it carries a block, and the roots' 2b. */
double tutti__allreduce_dual_root_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                       const tutti_hockney_t *h) {
  (void)root;
  return tutti__pipetree_msgs(tutti__params(a)->blocks, 2, P, m, h);
}

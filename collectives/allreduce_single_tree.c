/*
 * allreduce_single_tree.c -- the doubly-pipelined allreduce of
 * allreduce_dual_root.c on ONE post-order binary tree over all P ranks
 * (root P-1): the comparison of Traff's paper. Every rank, the root
 * included, makes at most three exchanges per round and at most two
 * reductions; the result turns at the root instead of crossing to a dual,
 * so the first block reaches the last leaf a few steps later than with
 * two trees of half the size. Order is kept (non-commutative ops allowed).
 *
 * Source: J. L. Traff, "A doubly-pipelined, dual-root reduction-to-all
 * algorithm and implementation", 2021, the single-tree variant discussed
 * after Algorithm 1.
 *
 * Cost under Hockney, P = 2^h - 1 (H = h - 1 the height), b blocks dividing
 * m: (4H + 3(b-1))(alpha + beta m/b) + reductions; the registered cost
 * follows every exchange (pipetree.c), for any P. Messages:
 * 2 sum_v (b + min(d_v, b)) over the P - 1 non-roots v (d_v: depth).
 */
#include "algo.h"
#include "pipetree.h"

int tutti__allreduce_single_tree(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                 tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  return tutti__pipetree_allreduce(r, sbuf, rbuf, count, type, op, tutti__params(a)->blocks, 1);
}

double tutti__allreduce_single_tree_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                         const tutti_hockney_t *h, int *bound) {
  (void)root;
  return tutti__pipetree_cost(tutti__params(a)->blocks, 1, P, m, h, bound);
}

/* Two messages (a sendrecv) per tree edge per round it carries a block up or down. */
double tutti__allreduce_single_tree_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                         const tutti_hockney_t *h) {
  (void)root;
  return tutti__pipetree_msgs(tutti__params(a)->blocks, 1, P, m, h);
}

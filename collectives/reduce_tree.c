/*
 * reduce_tree.c -- reduce up a tree: flat, binary, binomial, lambda-tree,
 * postal-optimal; the broadcast trees of bcast_tree.c run backwards by the
 * generic mover tutti__tree_reduce (engine.c).
 *
 * Bernaschi & Iannello (section 3) describe the lambda-tree reduce in three
 * phases: each rank determines its parent and its children by repeating
 * the partition from the top, then receives from all children, reduces
 * locally and sends to its parent. Here every rank receives its children
 * one by one in increasing relative rank -- for binomial, lambda and postal
 * trees the reverse of the broadcast's send order, so the child with the
 * deepest subtree, which finishes last, is waited for last -- combining
 * each with tutti_reduce_local_r, which charges gamma per byte.
 *
 * Rank order for non-commutative ops (MPI_Reduce's x_0 op x_1 op ... op
 * x_{P-1}): every subtree of these trees except binary's is a contiguous
 * range of relative ranks, so combining in increasing relative rank gives
 * the relative-order product. For root != 0 that order is rotated; the
 * subtrees on the path from the root to relative rank P-root (absolute 0)
 * wrap around, and those ranks send their two partial results -- before
 * and after the wrap -- in one message of twice the size, the root
 * combining the two at the end (engine.c). Message count and tree shape are
 * the broadcast's; only that one path carries 2m bytes. A commutative op,
 * or root 0, never needs it. The binary tree's subtrees are not ranges: it
 * is commutative-only (TUTTI_ALGO_COMMUTATIVE).
 *
 * Costs under Hockney, c = alpha + beta m + gamma m (one receive and one
 * combine per child, serialized at each rank), with T_1 the tree's postal
 * time for L = 1 as in bcast_tree.c:
 *   flat:           (P-1)(alpha + beta m + gamma m)
 *   binary:         <= 2 floor(log2 P) c
 *   binomial:       ceil(log2 P) c
 *   lambda-tree:    T_1(P) c, ceil(log2 P) c at lambda = 0.5
 *   postal-optimal: T_1(P) c
 * plus, for a non-commutative op with root != 0, beta m on each edge of the
 * wrap-around path and one more gamma m at the root. Segmented (S
 * segments): ~ (d + D(S-1))(alpha + (beta + gamma) m/S), d the depth and D
 * the largest degree.
 */
#include "engine.h"
#include "tutti/coll.h"

/* Every reduce line TREE(reduce, ...) of the registry runs this, on its tree. */
int tutti__reduce_tree(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                       tutti_datatype_t type, tutti_op_t op, int root, const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  size_t seg = tutti__tree_segment(a);
  tutti_treespec_t spec;
  int rc = tutti__algo_tree(r, a, tutti__segment_bytes(count, type, seg), &spec);
  if (rc) return rc;
  if (sbuf == TUTTI_IN_PLACE) sbuf = rbuf; /* MPI: the root's input is in rbuf */
  return tutti__tree_reduce(r, &spec, sbuf, rbuf, count, type, op, root, seg, 0, tag);
}

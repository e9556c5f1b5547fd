/*
 * scatter_tree.c -- scatter along a tree: flat, binomial, lambda-tree; the
 * reverse of gather_tree.c. The root sends each child its whole subtree's
 * blocks in one message (packing only the one subtree that wraps past rank
 * P-1); an inner rank keeps its own block and forwards the rest, children
 * in send order. The tree must have contiguous subtrees; the generic mover
 * is tutti__tree_scatter (engine.c).
 *
 * Source: Bernaschi & Iannello, "Efficient collective communication
 * operations in PVMe" (1995), section 3 (lambda-trees for short blocks, the
 * flat tree for large ones); MPICH's MPIR_Scatter_intra_binomial.
 *
 * Costs under Hockney, b bytes per block:
 *   flat:        (P-1)(alpha + beta b)
 *   binomial:    ceil(log2 P) alpha + (P-1) beta b  (P a power of two;
 *                the root sends P/2, P/4, ..., 1 blocks in a row)
 *   lambda-tree: T_1(P) alpha + about (P-1) beta b, the root sending its
 *                children's subtrees, largest first
 */
#include "engine.h"
#include "tutti/coll.h"

/* Every scatter line TREE(scatter, ...) of the registry runs this, on its tree. */
int tutti__scatter_tree(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype,
                        void *rbuf, long rcount, tutti_datatype_t rtype, int root,
                        const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int isroot = tutti_rank(r) == root;
  size_t blk =
      isroot ? (size_t)scount * tutti_type_size(stype) : (size_t)rcount * tutti_type_size(rtype);
  tutti_treespec_t spec;
  int rc = tutti__algo_tree(r, a, blk, &spec);
  if (rc) return rc;
  if (rbuf == TUTTI_IN_PLACE) rbuf = NULL; /* the root's block stays in sbuf */
  return tutti__tree_scatter(r, &spec, sbuf, blk, rbuf, root, tag);
}

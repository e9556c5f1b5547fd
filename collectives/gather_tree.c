/*
 * gather_tree.c -- gather along a tree: flat, binomial, lambda-tree. Every
 * rank sends its whole subtree's blocks to its parent in one message, so
 * the tree must have contiguous subtrees (tutti_tree_contiguous); the
 * generic mover is tutti__tree_gather (engine.c). The root receives
 * straight into the receive buffer, except for the one subtree that wraps
 * past rank P-1; a rank posts all its children's receives at once, so its
 * port serves whichever child is ready first.
 *
 * Bernaschi & Iannello, "Efficient collective communication operations in
 * PVMe" (1995), section 3: for large blocks the flat tree is optimal (every
 * block must cross the root's port anyway); for short blocks a lambda-tree
 * (or binomial) saves start-ups at the root.
 *
 * Costs under Hockney, b bytes per block:
 *   flat:        (P-1)(alpha + beta b)  -- the root's port serves P-1
 *                messages in a row (runtime/MODEL.md: P = 8, b = 1000: 14 us)
 *   binomial:    ceil(log2 P) alpha + (P-1) beta b
 *   lambda-tree: T_1(P) alpha + about (P-1) beta b; the root receives
 *                its children's subtrees, largest last
 * (binomial and lambda: the root's children send 1, 2, 4, ... blocks; the
 * root's port carries all P-1 blocks, which bounds the beta term below.)
 */
#include "engine.h"
#include "tutti/coll.h"

/* Every gather line TREE(gather, ...) of the registry runs this, on its tree. */
int tutti__gather_tree(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype,
                       void *rbuf, long rcount, tutti_datatype_t rtype, int root,
                       const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int isroot = tutti_rank(r) == root;
  size_t blk =
      isroot ? (size_t)rcount * tutti_type_size(rtype) : (size_t)scount * tutti_type_size(stype);
  tutti_treespec_t spec;
  int rc = tutti__algo_tree(r, a, blk, &spec);
  if (rc) return rc;
  if (sbuf == TUTTI_IN_PLACE) sbuf = NULL; /* the root's block is already in rbuf */
  return tutti__tree_gather(r, &spec, sbuf, blk, rbuf, root, tag);
}

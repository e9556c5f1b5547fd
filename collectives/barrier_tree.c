/*
 * barrier_tree.c -- a barrier on a tree (the lambda-tree's, or any
 * TREE(barrier, ...) line of the registry): an empty reduce to rank 0 up
 * the tree, then an empty broadcast down it. No rank leaves before
 * every rank has entered: the root's broadcast starts only once every
 * subtree has reported.
 *
 * Source: Bernaschi & Iannello, "Efficient collective communication
 * operations in PVMe" (1995), section 3 ("the simpler one is to implement
 * the barrier by performing an empty reduce followed by an empty
 * broadcast"); collectives/REFERENCE.md "Barriers". One tag for both phases, as in
 * allreduce_tree.c.
 *
 * Cost under Hockney (m = 0): 2 T_1(P) alpha, T_1 the tree's postal time
 * for L = 1 (ceil(log2 P) at lambda = 0.5); in the postal model of
 * latency L, twice the tree's broadcast time at best (lambda = auto).
 */
#include "engine.h"
#include "tutti/coll.h"

/* Every barrier line TREE(barrier, ...) of the registry runs this, on its tree. */
int tutti__barrier_tree(tutti_rank_t *r, const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  tutti_treespec_t spec;
  int rc = tutti__algo_tree(r, a, 0, &spec);
  if (rc) return rc;
  rc = tutti__tree_reduce(r, &spec, NULL, NULL, 0, TUTTI_BYTE, TUTTI_SUM, 0, 0, 0, tag);
  if (rc) return rc;
  return tutti__tree_bcast(r, &spec, NULL, 0, TUTTI_BYTE, 0, 0, tag);
}

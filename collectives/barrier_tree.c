/*
 * barrier_tree.c -- a barrier on a tree (the lambda-tree's, or any
 * TREE(barrier, ...) line of the registry): an empty reduce to rank 0 up
 * the tree, then an empty broadcast down it. No rank leaves before
 * every rank has entered: the root's broadcast starts only once every
 * subtree has reported. Going up there is nothing to combine: the flat
 * and binary trees post the receives from all their children at once, as
 * Open MPI's linear barrier does (basic_linear: an irecv from every rank,
 * then waitall), and the trees whose broadcast serves children in turn
 * (engine.h, tutti__tree_in_turn) take their reports in turn too, as its
 * tree barrier does (a blocking recv per partner). It matters where a
 * transfer starts only when its receive is posted (rendezvous,
 * runtime/MODEL.md rule 3): reports posted together travel together.
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
#include <stdlib.h>

#include "engine.h"
#include "tutti/coll.h"

/* An empty message from every child of nd, their receives posted at once. */
static int recv_all(tutti_rank_t *r, const tutti__node_t *nd, int tag) {
  const int nc = nd->nchildren;
  tutti_request_t small[16], *q = nc <= 16 ? small : malloc((size_t)nc * sizeof *q);
  if (!q) return TUTTI_ENOMEM;
  int rc = 0, posted = 0;
  for (; posted < nc; posted++)
    if ((rc = tutti_irecv(r, NULL, 0, TUTTI_BYTE, nd->child[posted].rank, tag, &q[posted]))) break;
  if (posted) KEEP_FIRST_ERROR(rc, tutti_waitall(r, posted, q, NULL));
  if (q != small) free(q);
  return rc;
}

/* Up: an empty message from every child, then one to the parent. The
 * children's come in turn where the bcast serves them in turn (binomial,
 * lambda, postal: tutti__tree_in_turn), nearest subtree first, as Open
 * MPI's tree barrier receives them; else all are posted at once. */
static int report_up(tutti_rank_t *r, const tutti_treespec_t *spec, int tag) {
  tutti__node_t own;
  const tutti__node_t *nd;
  int rc = tutti__node_get(spec, r, 0, &own, &nd);
  if (rc) return rc;
  if (nd->in_turn) /* reverse send order */
    for (int k = nd->nchildren - 1; k >= 0 && !rc; k--)
      rc = tutti_recv(r, NULL, 0, TUTTI_BYTE, nd->child[k].rank, tag, TUTTI_STATUS_IGNORE);
  else
    rc = recv_all(r, nd, tag);
  if (!rc && nd->parent >= 0) rc = tutti_send(r, NULL, 0, TUTTI_BYTE, nd->parent, tag);
  tutti__node_free(&own);
  return rc;
}

/* Every barrier line TREE(barrier, ...) of the registry runs this, on its tree. */
int tutti__barrier_tree(tutti_rank_t *r, const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  tutti_treespec_t spec;
  int rc = tutti__algo_tree(r, a, 0, &spec);
  if (rc) return rc;
  if ((rc = report_up(r, &spec, tag))) return rc;
  return tutti__tree_bcast(r, &spec, NULL, 0, TUTTI_BYTE, 0, 0, tag);
}

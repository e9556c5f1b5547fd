/*
 * bcast_tree.c -- broadcast down a tree: flat, binary, binomial,
 * lambda-tree, postal-optimal. Each is the generic mover
 * tutti__tree_bcast (engine.c) on one tree of tree.h; all but flat take a
 * `segment` size and then pipeline the message down the tree.
 *
 * Costs under Hockney, c = alpha + beta*m for the whole m-byte message
 * (runtime/MODEL.md's worked examples: P = 8, c = 2 us gives flat 14 us, binomial
 * 6 us). A rank that received at time t serves its children one after the
 * other, so a tree's time is its postal time with L = 1 (tutti_tree_postal_time)
 * in units of c:
 *
 * flat: the root sends P-1 times in a row. PVM's only algorithm at the
 *   time of the paper. Cost = (P-1)(alpha + beta m).
 *
 * binary: heap-ordered binary tree; each inner rank sends twice.
 *   Cost <= 2 floor(log2 P)(alpha + beta m).
 *
 * binomial: MPICH's MPIR_Bcast_intra_binomial; optimal when latency and
 *   sending cost are the same (postal L = 1, i.e. Hockney).
 *   Cost = ceil(log2 P)(alpha + beta m).
 *
 * lambda-tree: M. Bernaschi and G. Iannello, "Efficient collective
 *   communication operations in PVMe" (1995), section 3, after the
 *   partition rule of Bruck et al. (SPDP 1994): a source owning n ranks
 *   keeps round(lambda n) and hands the rest to one leader; both recurse.
 *   lambda = 0.6 (the paper's) approximates the postal-optimal tree for
 *   latency L = 2; "auto" fits lambda to the run's model
 *   (tutti_lambda_auto_postal of its effective L = L(m)/S(m)). Postal time
 *   T(n) = max(1 + T(n1), L + T(n - n1)); under Hockney (L = 1) that is
 *   Cost = T_1(P)(alpha + beta m), ceil(log2 P) at lambda = 0.5 and up to
 *   P-1 as lambda -> 1.
 *
 * postal-optimal: A. Bar-Noy and S. Kipnis, "Designing broadcasting
 *   algorithms in the postal model for message-passing systems", SPAA
 *   1992: the tree that reaches F(t) ranks by time t; f_L(P) steps in the
 *   postal model of latency L, the optimum. L = auto: the run's (effective)
 *   L. Under Hockney with L = 1 it is the binomial tree:
 *   Cost = T_1(P)(alpha + beta m), ceil(log2 P) for L = 1.
 *
 * Segmented (segment = s bytes, S = ceil(m/s) segments): each rank forwards
 * segment k while it receives k+1; with d the depth and D the largest
 * number of children of a rank, Cost ~ (d + D(S-1))(alpha + beta m/S) --
 * for a chain (D = 1) exactly (S + P - 2)(alpha + beta m/S).
 */
#include "engine.h"
#include "tutti/coll.h"

/* Every bcast line TREE(bcast, ...) of the registry runs this, on its tree. */
int tutti__bcast_tree(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                      const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  size_t seg = tutti__tree_segment(a), segbytes = tutti__segment_bytes(count, type, seg);
  tutti_treespec_t spec;
  int rc = tutti__algo_tree(r, a, segbytes, &spec);
  if (rc) return rc;
  rc = tutti__tree_bcast(r, &spec, buf, count, type, root, seg, tag);
  /* one message: the same call again may go straight down the node (coll.c) */
  if (!rc && segbytes == (size_t)count * tutti_type_size(type))
    tutti__plan_direct(r, a, &spec, root);
  return rc;
}

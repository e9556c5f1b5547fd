/*
 * pipetree.h -- the doubly-pipelined allreduce on post-order binary trees
 * (Traff's Algorithm 1, collectives/REFERENCE.md "Doubly-pipelined
 * dual-root allreduce"): the shared core of allreduce_dual_root.c (two
 * trees, dual roots) and allreduce_single_tree.c (one tree), its block
 * count choice (blocks=auto, on the pipelining lemma that the other
 * pipelined allreduces use too) and its Hockney cost. Internal to
 * collectives/.
 *
 * Threads: called from rank threads only; no global state. The tree and
 * cost functions are pure, callable from any thread.
 */
#ifndef TUTTI_COLL_PIPETREE_H
#define TUTTI_COLL_PIPETREE_H

#include <stddef.h>

#include "tutti/coll.h"

/* A rank's place in the post-order binary tree on ranks [lo, hi]: the root
 * is hi; its first child hi-1 roots the high part of the other ranks, its
 * second child the low part, which gets floor((n-1)/2) of them. -1 for a
 * missing parent or child; depth in edges from the root. Pure. */
typedef struct tutti__ponode {
  int parent, c1, c2, depth;
} tutti__ponode_t;
void tutti__postorder_node(int lo, int hi, int rank, tutti__ponode_t *nd);

/* The tree a rank is in: ntrees 2 (dual-root: [0, ceil(P/2)-1] and
 * [ceil(P/2), P-1]) or 1 (single tree [0, P-1]). */
void tutti__pipetree_range(int P, int ntrees, int rank, int *lo, int *hi);

/* Algorithm 1 over ntrees (1 or 2) post-order trees with `blocks` blocks
 * (a->p.blocks; TUTTI_PARAM_AUTO: tutti__pipetree_auto_blocks for the
 * run's model). Takes the call's tag itself (engine.h "Tags"). */
int tutti__pipetree_allreduce(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                              tutti_datatype_t type, tutti_op_t op, long blocks, int ntrees);

/* blocks=auto of every pipelined allreduce (dual-root, single-tree,
 * binary-reduce-bcast, two-tree): the pipelining lemma. A pipeline of b
 * blocks of bytes/b bytes each, whose first block is done after depth +
 * per_block exchanges and every further block per_block exchanges later,
 * takes under Hockney
 *   T(b) = (depth + per_block b)(alpha + beta bytes/b),
 * which is convex in b > 0 and least where dT/db = per_block alpha -
 * depth beta bytes / b^2 vanishes:
 *   b* = sqrt(depth beta bytes / (per_block alpha)).
 * Returns b* rounded to the nearest integer within [1, most], most at
 * most TUTTI__BLOCKS_MAX. Without a latency (alpha <= 0: the none model's
 * latency(0)) one block per 64 KiB of bytes, so that a native run wakes a
 * rank once per large block. The algorithms differ only in depth,
 * per_block and bytes (the bytes cut into b blocks: two-tree cuts each
 * half of the vector); each states its own at its call. Pure. */
long tutti__pipeline_blocks(double depth, double per_block, double bytes, double alpha, double beta,
                            long most);
#define TUTTI__BLOCKS_MAX 1000000000L /* block indices stay ints */

/* The block count auto chooses for dual-root and single-tree: P ranks,
 * count elements of esz bytes and a Hockney alpha, beta (per byte): from
 * tutti__pipeline_blocks with depth 4H - 2 (at least 1) and 3 exchanges a
 * block, the neighbour with the smallest steps(b)(alpha + beta m/b),
 * steps(b) = steps(1) + 3(b-1), within [1, min(count, TUTTI__BLOCKS_MAX)];
 * alpha <= 0 takes the most blocks (every further block shortens T). */
long tutti__pipetree_auto_blocks(int P, int ntrees, long count, size_t esz, double alpha,
                                 double beta);

/* The Hockney time of the algorithm with b blocks (a->p.blocks, auto
 * resolved as above) on m bytes, followed exchange by exchange (a
 * tutti_cost_fn; exact when every element size cuts m into b equal blocks,
 * else a bound: pipetree.c). */
double tutti__pipetree_cost(long blocks, int ntrees, int P, size_t m, const tutti_hockney_t *h,
                            int *bound);

/* How many messages the algorithm sends, all ranks together, for the same
 * arguments (blocks resolved as the cost resolves them), as tutti_msgs_fn:
 * 2 (b + min(d, b)) for each non-root rank at depth d in its tree, and
 * 2b between dual roots. O(log P). */
double tutti__pipetree_msgs(long blocks, int ntrees, int P, size_t m, const tutti_hockney_t *h);

/* The Hockney time of a pipelined allreduce's b equal blocks, replayed by
 * time(ctx, b') for any b' blocks of the same size, within a bounded work:
 * exact (time(ctx, b)) while P b is at most TUTTI__COST_WORK; beyond, an
 * upper bound (*bound set) extrapolated from the replays of b1 = w/2 and
 * b2 = w blocks, w = TUTTI__COST_WORK / P: T(b2) + (b - b2)(T(b2) -
 * T(b1)) / (b2 - b1) (b2 at least 2). It bounds: once the pipeline is full, each round
 * applies the same monotone max-plus map, under which a round's largest
 * advance of any rank's clock never grows, so T is concave in b past b1
 * and the secant's slope bounds every later block's. So a cost function
 * runs at most two replays of about TUTTI__COST_WORK rank-blocks, whatever
 * P (at most the rank limit, 2^20) and m. NAN from time() is passed on. */
#define TUTTI__COST_WORK (1L << 20)
typedef double tutti__blocks_time_fn(void *ctx, long b);
double tutti__pipeline_cost_bounded(int P, long b, tutti__blocks_time_fn *time, void *ctx,
                                    int *bound);

#endif /* TUTTI_COLL_PIPETREE_H */

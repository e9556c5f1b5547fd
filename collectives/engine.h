/*
 * engine.h -- the shared machinery of the tree-based collectives; internal
 * to collectives/ (written only against the public API, like the
 * algorithms themselves).
 *
 * Four movers over any tree of tree.h; the block partition and in-place
 * allgathers of the block-based algorithms (blocks.c); the helpers that
 * turn a chosen algorithm (tutti_algo_t) into a tree spec and a segment
 * size. An
 * algorithm is then a few lines: pick a tree, take the call's tag, call a
 * mover (see bcast_tree.c).
 *
 * Tags: every algorithm function takes exactly one tag per call by calling
 * tutti_coll_tag(r) once at its start, unconditionally, before any early
 * return; coll.c does not take one. So an algorithm run through the public
 * wrappers and one called through desc->fn directly (a composed algorithm
 * calling another) behave the same, and every rank takes the same tags in
 * the same order. The movers below take that tag as an argument; a
 * composed algorithm (reduce then bcast) may use one tag for both phases
 * because their messages go in opposite directions along each edge.
 *
 * Threads: called from rank threads only, like p2p calls; no global state.
 */
#ifndef TUTTI_COLL_ENGINE_H
#define TUTTI_COLL_ENGINE_H

#include <stddef.h>

#include "algo.h"
#include "tutti/coll.h"

/* Keep the first error in rc but go on with the cleanup steps after it. */
#define KEEP_FIRST_ERROR(rc, expr)                                                                 \
  do {                                                                                             \
    int e_ = (expr);                                                                               \
    if (!(rc)) (rc) = e_;                                                                          \
  } while (0)

/* ---------------------------------------------------------- a rank's node */

/* One rank's place in a tree: what it needs to send and receive. Children
 * are kept in send order (child[i]) and with their relative subtree ranges
 * (sub[i]); memory is O(degree), never O(size). */
typedef struct tutti__child {
  int rank;      /* absolute */
  int lo, count; /* subtree as relative range [lo, lo+count); contiguous kinds only */
} tutti__child_t;

typedef struct tutti__node {
  int size, root;
  int rank, vrank; /* absolute and relative (rank - root) mod size */
  int parent;      /* absolute, -1 at the root */
  int lo, count;   /* own subtree [lo, lo+count) relative (count for every kind) */
  int contiguous;  /* subtrees are contiguous relative ranges */
  int in_turn;     /* a bcast serves its children one send after the other (below) */
  int nchildren;
  tutti__child_t *child; /* send order */
} tutti__node_t;

/* ------------------------------------------------------- the call plan */

/* A rank's plan of a collective call (plan.c): what the call's
 * (collective, algorithm as passed, root, count, datatype, op) decide --
 * the algorithm to run (algo NULL: the variable's), its validation, the
 * tree node its movers use, `auto`'s choice -- made at the first such
 * call and kept for the next. The rule: a rank keeps one plan per depth
 * of nesting (a collective an algorithm calls is one deeper); a call with
 * the key of its depth's plan runs that plan, any other call builds a new
 * one in its place; a rank's plans go when its run ends. */

/* Begin a collective call of rank r: find or build its plan (validating
 * the algorithm for the call: tutti_algo_check_call), open the call's
 * span (a call nested in another's runs in that one's span). *run: the algorithm to run. *direct:
 * non-NULL when the call is a one-message tree bcast whose node the plan holds (the tree bcast
 * marked it): then run tutti__bcast_direct on it instead. 0, or the
 * error (nothing opened). */
int tutti__call_begin(tutti_rank_t *r, int coll, const tutti_algo_t *algo, int root, long count,
                      tutti_datatype_t type, tutti_op_t op, size_t bytes, const tutti_algo_t **run,
                      const struct tutti__node **direct);
/* End the call begun: rc is the algorithm's; a parameter the algorithm
 * read without declaring it makes it TUTTI_ENOTFOUND. Closes the span;
 * an error keeps, for the rank's failure message, what the call ran
 * (tutti_rank_doing). */
int tutti__call_end(tutti_rank_t *r, int rc);

/* The slot in which the plan of the call under way keeps the choice of
 * `auto` algorithm a (auto.c), or NULL when a does not run as that plan's
 * algorithm. */
const tutti_algo_t **tutti__plan_choice(tutti_rank_t *r, const tutti_algo_t *a);

/* A tree bcast of one message by algorithm a on `spec` rooted at root is
 * done: if a runs the call's plan and the plan holds that node, the same
 * call again goes straight down it (tutti__call_begin's *direct). */
void tutti__plan_direct(tutti_rank_t *r, const tutti_algo_t *a, const tutti_treespec_t *spec,
                        int root);
/* One message down the tree from nd: the same tag, messages and order as
 * tutti__tree_bcast (engine.c). */
int tutti__bcast_direct(tutti_rank_t *r, const struct tutti__node *nd, void *buf, long count,
                        tutti_datatype_t type);

/* tutti_auto_choose for a call of rank r (its world's model, rules and
 * size), made once per world and (coll, bytes, root, whether op commutes):
 * the ranks of a world share it (auto.c). */
/* hierarchical.c's algorithms (coll.h, tutti_algo_is_two_level): their
 * Hockney cost is their one-level fallback's, a level's algorithm's, so
 * `auto` does not weigh them (its choice would be that algorithm). */
/* Whether op suits the algorithms a two-level a names (tutti_algo_check
 * of each, with its sentence): checked with a's own, before a call. */
int tutti__levels_check(const tutti_algo_t *a, tutti_op_t op, char *err, size_t errlen);
int tutti__auto_choose_r(tutti_rank_t *r, int coll, size_t bytes, int root, tutti_op_t op,
                         const tutti_algo_t **chosen);

/* An algorithm read parameter `name` of a, which it does not declare
 * (select.c): the call under way on the calling rank fails
 * (tutti__call_end). */
void tutti__param_fault(const tutti_algo_t *a, const char *name);

/* *nd: r's node in the tree `spec` rooted at root. 0, or a tree.h error,
 * or TUTTI_ENOMEM. The plan of the call under way keeps the first node
 * its call asks for, so the same call again only compares: *nd then
 * points into the plan and stays valid until the call ends. Any other
 * node (another tree, no plan, more than 16 children) is built in *own;
 * release *own with tutti__node_free either way. */
int tutti__node_get(const tutti_treespec_t *spec, tutti_rank_t *r, int root, tutti__node_t *own,
                    const tutti__node_t **nd);
void tutti__node_free(tutti__node_t *own);
/* Whether a bcast on trees of `kind` serves a rank's children in turn,
 * each send done before the next starts, as MPICH's binomial broadcast
 * (MPIR_Bcast_intra_binomial: MPIC_Send in a loop) and the postal model
 * behind lambda and postal trees do: binomial, lambda, postal. The other
 * kinds post the sends to all children at once and wait for them all, as
 * Open MPI's linear and generic tree broadcasts do. Under fifo sharing
 * the two give the same times (a port serves one message at a time in
 * send order, and a send returns no later than its port is free, S >=
 * O_s); under fair sharing the sends at once share the sender's
 * bandwidth, and the farthest child no longer gets its data first. */
int tutti__tree_in_turn(int kind);
/* qsort's order of children by increasing lo. */
int tutti__child_cmp_lo(const void *a, const void *b);

/* ---------------------------------------------------------------- movers */

/* Push buf (count elements) from root down the tree, in segments of
 * `segment` bytes (whole elements, at least one; 0: one message). Each
 * rank forwards segment s to its children in send order (in turn or at
 * once: tutti__tree_in_turn) while the receive of segment s+1 is already
 * posted, so segments pipeline down the tree.
 * count 0 still sends one empty message per edge (the postal-model
 * broadcast, barriers). */
int tutti__tree_bcast(tutti_rank_t *r, const tutti_treespec_t *spec, void *buf, long count,
                      tutti_datatype_t type, int root, size_t segment, int tag);

/* Combine up the tree: the root gets x_0 (op) x_1 (op) ... (op) x_{P-1} in
 * absolute rank order (MPI_Reduce). Per segment, a rank receives its
 * children's partial results one by one, combines each with
 * tutti_reduce_local_r (charging gamma), and sends its own to its parent.
 * sbuf may be rbuf (in place; at the root: the caller maps TUTTI_IN_PLACE
 * to rbuf); rbuf matters only at the root, unless `everywhere` (an
 * allreduce's: every rank's rbuf is its own, overwritten later), when a
 * rank may receive and combine there instead of in scratch. Memory: with
 * a commutative op or root 0, a rank with one child writes one segment
 * besides rbuf (none where rbuf serves), one with more two; else a receive
 * buffer and an accumulator, with twice those on the wrap-around path.
 * Order (see reduce_tree.c): on a
 * contiguous tree, children are combined in increasing relative rank; a
 * non-commutative op with root != 0 carries two partial results along the
 * one path whose subtrees wrap past rank P-1 to 0. Non-contiguous trees
 * need a commutative op (TUTTI_ENOTSUP otherwise) and combine in reverse
 * send order. */
int tutti__tree_reduce(tutti_rank_t *r, const tutti_treespec_t *spec, const void *sbuf, void *rbuf,
                       long count, tutti_datatype_t type, tutti_op_t op, int root, size_t segment,
                       int everywhere, int tag);

/* Gather blocks of `blk` bytes up a contiguous tree: every rank sends its
 * whole subtree's blocks to its parent in one message. sbuf NULL at the
 * root means its block is already in place in rbuf. rbuf (P blocks in
 * absolute order) matters only at the root. */
int tutti__tree_gather(tutti_rank_t *r, const tutti_treespec_t *spec, const void *sbuf, size_t blk,
                       void *rbuf, int root, int tag);

/* Scatter: the reverse of gather. sbuf (P blocks) matters only at the
 * root; rbuf NULL at the root means its block stays in place in sbuf. */
int tutti__tree_scatter(tutti_rank_t *r, const tutti_treespec_t *spec, const void *sbuf, size_t blk,
                        void *rbuf, int root, int tag);

/* ------------------------------------------------- blocks (blocks.c) */

/* Block i of `count` elements cut into P blocks: *n = count/P elements,
 * one more for the first count%P blocks, starting at *start; the blocks
 * tile [0, count) in order. */
void tutti__block_range(long count, int P, int i, long *start, long *n);

/* Allgather in place over those blocks: on entry relative rank
 * v = (rank - root) mod P holds block v of buf; on return every rank holds
 * every block. Ring: P-1 sendrecv steps, right neighbour out, left in.
 * Recursive doubling: log2 P steps with partner v XOR 2^k, P a power of
 * two (TUTTI_ENOTSUP otherwise). Both send empty blocks as empty messages.
 * The header of blocks.c gives their Hockney costs. */
int tutti__blocks_allgather_ring(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type,
                                 int root, int tag);
int tutti__blocks_allgather_recdbl(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type,
                                   int root, int tag);

/* The allgather collective's start: a rank's own `count` elements (sbuf)
 * to block `rank` of rbuf (a local copy); nothing when sbuf is
 * TUTTI_IN_PLACE. 0 or the copy's error. */
int tutti__blocks_own(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                      tutti_datatype_t type);

/* Reduce-scatter in place over the same blocks, commutative ops only.
 * Ring: P-1 sendrecv steps, right out, left in; on return relative rank
 * v = (rank - root) mod P holds block v of the reduction (the ring
 * allgather's starting layout with the same root).
 * Halving: recursive halving with a fold for P not a power of two (p'
 * the largest power of two <= P, rem = P - p'), of the input `in` (count
 * elements, never written) into buf, or with in NULL of buf in place;
 * buf need not hold a copy of in, and only the ranges the rank keeps or
 * receives into are written: the even ranks below
 * 2 rem send their whole input to the odd rank above and drop out
 * (*v = -1); the others get group rank *v (rank/2 below 2 rem,
 * rank - rem above; group rank g is world rank g < rem ? 2g+1 : g+rem)
 * and end holding, complete, the elements of group rank *v: with
 * per == 0 block *v of count cut into p' blocks (tutti__block_range);
 * with per > 0 the blocks of `per` elements of the world ranks it
 * stands for (2v and 2v+1 below rem, v + rem above; count = P per).
 * Each returns 0 or the first error. */
int tutti__blocks_reduce_scatter_ring(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type,
                                      tutti_op_t op, int root, int tag);
int tutti__blocks_reduce_scatter_halving(tutti_rank_t *r, const void *in, void *buf, long count,
                                         tutti_datatype_t type, tutti_op_t op, long per, int tag,
                                         int *v);

/* ------------------------------------------------- alltoall (blocks.c) */

/* An alltoall's start: *src is the P send blocks of `bytes` bytes each --
 * sbuf, or with TUTTI_IN_PLACE a scratch copy of rbuf (*copy, for
 * tutti_scratch_free; NULL otherwise) -- and the rank's own block is
 * copied to block `rank` of rbuf. 0, TUTTI_ENOMEM or the copy's error. */
int tutti__alltoall_begin(tutti_rank_t *r, const void *sbuf, void *rbuf, size_t bytes,
                          const unsigned char **src, void **copy);
/* The P-1 steps of the pairwise exchanges: in step s = 1..P-1 a rank
 * sends block `to` of src to rank `to` and receives block `from` of rbuf
 * from rank `from`, one sendrecv, where to = from = rank XOR s when `xor`
 * (P a power of two), else to = rank + s, from = rank - s (mod P). */
int tutti__alltoall_steps(tutti_rank_t *r, const unsigned char *src, void *rbuf, long count,
                          tutti_datatype_t type, int xor, int tag);

/* --------------------------------------------------- algorithm parameters */

/* The environment variable that selects coll's algorithm (TUTTI_BCAST),
 * or NULL for no collective (registry.c). */
const char *tutti__coll_env(int coll);

/* What tutti_algo_select(coll, NULL, NULL, ...) gives for the present
 * value of coll's variable, made once per process and value: 0 and in
 * *idx its index for tutti__env_algo (valid for the process's life),
 * or -1 when the process keeps no more (the caller selects itself); or
 * the selection's error (the variable names no algorithm of coll). */
int tutti__env_algo_index(int coll, int *idx);
const tutti_algo_t *tutti__env_algo(int idx);

/* tutti_algo_register's checks of d on its own (not against the names
 * registered): 0, or TUTTI_EINVAL with the sentence (register_check.c). */
int tutti__desc_check(const tutti_algo_desc_t *d, char *err, size_t errlen);
/* A deep copy of a description (register_check.c): 0 or TUTTI_ENOMEM.
 * tutti__register_all takes copies: once registered, free the copy
 * itself (free(), its strings are the entry's), else tutti__desc_free. */
int tutti__desc_dup(const tutti_algo_desc_t *d, tutti_algo_desc_t **out);
void tutti__desc_free(tutti_algo_desc_t *d);
/* Register n descriptions from origin (a plugin's file), all or none
 * (registry.c). 0, or tutti_algo_register's errors. */
int tutti__register_all(const tutti_algo_desc_t *const *d, int n, const char *origin, char *err,
                        size_t errlen);
/* The one algorithm of coll that the plugin at path registers, loading
 * it first if needed (plugin.c). 0, or an error with its sentence. */
int tutti__plugin_algo(int coll, const char *path, const tutti_algo_desc_t **d, char *err,
                       size_t errlen);

/* The per-call checks of parameters the registry's table names
 * (select.c): 0, or TUTTI_EINVAL with the reason in err. check_allgather
 * only notes a fallback in err and returns 0. */
int tutti__check_segments(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes,
                          char *err, size_t errlen);
int tutti__check_order(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes, char *err,
                       size_t errlen);
int tutti__check_allgather(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes,
                           char *err, size_t errlen);

/* A rank list of a choice parameter ("0,2-5,9-7", select.c): its ranks
 * in order into out[0..cap), returning how many it has (also past cap),
 * or -1 if the text is not such a list. */
long tutti__rank_list(const char *list, int *out, long cap);

/* The tree of a tree algorithm (a->desc->tree with its parameters), "auto"
 * resolved for `bytes`-byte messages under the run's model
 * (tutti_algo_treespec with tutti_algo_postal_L, coll.h). */
int tutti__algo_tree(const tutti_rank_t *r, const tutti_algo_t *a, size_t bytes,
                     tutti_treespec_t *spec);

/* A tree algorithm's segment parameter in bytes, 0 when it has none. */
static inline size_t tutti__tree_segment(const tutti_algo_t *a) {
  int i = a->e->tp[TUTTI__TP_SEGMENT];
  return i < 0 ? 0 : (size_t)a->value[i];
}

/* The bytes of one message of a segmented transfer: the segment rounded to
 * whole elements (at least one), or the whole buffer if smaller or 0. */
size_t tutti__segment_bytes(long count, tutti_datatype_t type, size_t segment);

/* ------------------------------------------------ the tree algorithms */

/* What every TREE(coll, ...) line of the registry runs: the collective on
 * a->desc->tree (bcast_tree.c, reduce_tree.c, gather_tree.c,
 * scatter_tree.c, barrier_tree.c), and its Hockney cost and message count
 * (tree_cost.c).
 * One per collective, never one per algorithm. */
tutti_bcast_fn tutti__bcast_tree;
tutti_reduce_fn tutti__reduce_tree;
tutti_gather_fn tutti__gather_tree;
tutti_scatter_fn tutti__scatter_tree;
tutti_barrier_fn tutti__barrier_tree;
tutti_cost_fn tutti__bcast_tree_cost, tutti__reduce_tree_cost, tutti__gather_tree_cost,
    tutti__scatter_tree_cost, tutti__barrier_tree_cost;
tutti_msgs_fn tutti__tree_msgs;

/* The segments of m bytes cut into `segment`-byte pieces (0: one): a
 * segmented tree's messages an edge (tree_cost.c). */
double tutti__tree_nsegs(size_t m, size_t segment);
/* Hockney time of a bcast / reduce of m bytes on `spec` (tree_cost.c),
 * for composed algorithms' cost functions; *bound as tutti_cost_fn. */
double tutti__tree_bcast_time(const tutti_treespec_t *spec, int P, size_t m, size_t segment,
                              const tutti_hockney_t *h, int *bound);
double tutti__tree_reduce_time(const tutti_treespec_t *spec, int P, size_t m, size_t segment,
                               const tutti_hockney_t *h, int *bound);

/* Blocks of whole elements, for the cost functions that cut m bytes into
 * b blocks as their runs cut elements (select.c): with the element size
 * known (tutti_algo_cost_elem, coll.h), 1 with *blk the bytes of the
 * largest block (ceil(count/b) elements) and *even whether all are equal;
 * 0 when it is not known -- the function then allows every element size
 * up to 16 bytes. *count (may be NULL): m in elements. */
int tutti__cost_blocks(size_t m, long b, double *blk, int *even, long *count);
/* The elements of m bytes as tutti__cost_blocks counts them: m when the
 * element size is not known. */
long tutti__cost_count(size_t m);

/* Two-tree allreduce (allreduce_two_tree.c): the colour (0 or 1) of rank
 * v's parent edge in tree t for P ranks, by walking its path (whole 0) or
 * from the colouring of the whole world, which calls use from 1024 ranks
 * and the cost always (whole 1); -1 where there is no such edge. The two
 * must agree (tests/test_e2e_allreduce.c). */
int tutti__two_tree_colour(int P, int v, int t, int whole);

#endif /* TUTTI_COLL_ENGINE_H */

/*
 * template_algo.c -- a reduce_scatter written outside tutti: pairwise
 * exchange, then each rank combines its own block in rank order.
 * (Written by `tutti new reduce_scatter template_algo`; tutti runs it as
 * it is.)
 *
 * Idea: every rank holds P blocks; block j is for rank j. In step
 * s = 1 .. P-1 rank i sends its block for rank i + s to that rank and
 * receives rank i - s's block for itself (mod P). Then it combines the P
 * blocks it has for itself in rank order, x_0 (op) x_1 (op) ... (op)
 * x_{P-1}: right for an op that does not commute.
 *
 * Source: the pairwise exchange of Thakur, Rabenseifner, Gropp, IJHPCA
 * 19(1), 2005, sec. 4.5 (MPICH's reduce_scatter for long messages).
 *
 * Cost under Hockney (b bytes a block, gamma b to combine two):
 * (P-1)(alpha + beta b + gamma b).
 *
 * Try it:
 *   tutti run reduce_scatter template_algo.c -n 16 -m 4KiB --op matmul2 --dtype int64
 *   tutti check reduce_scatter template_algo.c
 *   tutti compare reduce_scatter ring template_algo.c -n 16 --html page.html
 *
 * What to change: the partners of step s; the order of combining is
 * tutti_reduce_local_r's, inout = in (op) inout -- fold from the right to
 * keep rank order, or mark the algorithm TUTTI_ALGO_COMMUTATIVE; keep
 * template_algo_cost and _msgs in step (tutti check compares them with the engine).
 */
#include <stdlib.h>
#include <tutti/plugin.h>

static int template_algo_reduce_scatter(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                        tutti_datatype_t type, tutti_op_t op,
                                        const tutti_algo_t *a) {
  (void)a;                     /* no parameters */
  int tag = tutti_coll_tag(r); /* every collective call takes one tag, first */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0;
  size_t blk = (size_t)count * tutti_type_size(type);
  /* sbuf TUTTI_IN_PLACE: the P blocks are in rbuf, my block goes to its start */
  const char *in = sbuf == TUTTI_IN_PLACE ? rbuf : sbuf;
  char *mine = malloc((size_t)P * blk + 1); /* mine[j]: rank j's block for me */
  if (!mine) return TUTTI_ENOMEM;
  for (int s = 1; s < P && !rc; s++) {
    int to = (me + s) % P, from = (me - s + P) % P;
    rc = tutti_sendrecv(r, in + (size_t)to * blk, count, type, to, tag, mine + (size_t)from * blk,
                        count, type, from, tag, TUTTI_STATUS_IGNORE);
  }
  /* not memcpy: a --no-data run moves nothing */
  if (!rc) rc = tutti_local_copy(r, mine + (size_t)me * blk, in + (size_t)me * blk, blk);
  /* from the right: acc = x_j (op) acc for j = P-2 .. 0 */
  for (int j = P - 2; j >= 0 && !rc; j--)
    rc = tutti_reduce_local_r(r, mine + (size_t)j * blk, mine + (size_t)(P - 1) * blk, count, type,
                              op);
  if (!rc) rc = tutti_local_copy(r, rbuf, mine + (size_t)(P - 1) * blk, blk);
  free(mine);
  return rc;
}

/* The Hockney time for P ranks and b bytes a block. *bound = 0: exact, as
 * tutti's engine times it. */
static double template_algo_cost(const tutti_algo_t *a, int P, int root, size_t b,
                                 const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  return (P - 1) * (h->alpha + (h->beta + h->gamma) * (double)b);
}

/* The messages one call sends, all ranks together: a message an ordered pair of ranks. tutti check
 * compares it with the engine; tutti's estimates of time and memory count
 * it. */
static double template_algo_msgs(const tutti_algo_t *a, int P, int root, size_t b,
                                 const tutti_hockney_t *h) {
  (void)a, (void)root, (void)b, (void)h;
  return (double)P * (P - 1);
}

static const tutti_algo_desc_t template_algo = {
    .abi = TUTTI_ALGO_ABI,
    .coll = TUTTI_COLL_REDUCE_SCATTER,
    .name = "template_algo",
    .fn.reduce_scatter = template_algo_reduce_scatter,
    .summary = "pairwise exchange of blocks, then each rank combines its own in rank order",
    .source = "Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005, sec. 4.5",
    .cost = "(P-1)(alpha + beta b + gamma b)",
    .cost_fn = template_algo_cost,
    .msgs_fn = template_algo_msgs,
};

/* The plugin's entry point: tutti calls it when it loads the file. */
TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &template_algo);
}

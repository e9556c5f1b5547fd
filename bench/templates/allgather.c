/*
 * template_algo.c -- an allgather written outside tutti: a ring.
 * (Written by `tutti new allgather template_algo`; tutti runs it as it is.)
 *
 * Idea: rank i puts its own block at place i of the result; then in step
 * s = 0 .. P-2 it passes the block it got last (block i - s) to its right
 * neighbour i + 1 and receives block i - s - 1 from its left neighbour
 * (mod P). After P-1 steps every rank holds every block. Each link carries
 * one block per step: bandwidth-optimal.
 *
 * Source: Patarasuk, Yuan, "Bandwidth optimal all-reduce algorithms for
 * clusters of workstations", JPDC 69(2), 2009 (tutti's allgather 'ring').
 *
 * Cost under Hockney (b bytes a block): (P-1)(alpha + beta b).
 *
 * Try it:
 *   tutti run allgather template_algo.c -n 16 -m 4KiB
 *   tutti check allgather template_algo.c
 *   tutti compare allgather bruck template_algo.c -n 16 --html page.html
 *
 * What to change: the neighbours and which block moves in step s; keep
 * template_algo_cost and _msgs in step (tutti check compares them with the engine).
 */
#include <tutti/plugin.h>

static int template_algo_allgather(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                   tutti_datatype_t type, const tutti_algo_t *a) {
  (void)a;                     /* no parameters */
  int tag = tutti_coll_tag(r); /* every collective call takes one tag, first */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0;
  size_t blk = (size_t)count * tutti_type_size(type);
  char *out = rbuf;
  /* sbuf TUTTI_IN_PLACE: my block is at its place already; not memcpy: a
   * --no-data run moves nothing */
  if (sbuf != TUTTI_IN_PLACE) rc = tutti_local_copy(r, out + (size_t)me * blk, sbuf, blk);
  int right = (me + 1) % P, left = (me - 1 + P) % P;
  for (int s = 0; s < P - 1 && !rc; s++) {
    int give = (me - s + P) % P, get = (me - s - 1 + P) % P;
    rc = tutti_sendrecv(r, out + (size_t)give * blk, count, type, right, tag,
                        out + (size_t)get * blk, count, type, left, tag, TUTTI_STATUS_IGNORE);
  }
  return rc;
}

/* The Hockney time for P ranks and b bytes a block. *bound = 0: exact, as
 * tutti's engine times it. */
static double template_algo_cost(const tutti_algo_t *a, int P, int root, size_t b,
                                 const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  return (P - 1) * (h->alpha + h->beta * (double)b);
}

/* The messages one call sends, all ranks together: every rank sends once a step. tutti check
 * compares it with the engine; tutti's estimates of time and memory count
 * it. */
static double template_algo_msgs(const tutti_algo_t *a, int P, int root, size_t b,
                                 const tutti_hockney_t *h) {
  (void)a, (void)root, (void)b, (void)h;
  return (double)P * (P - 1);
}

static const tutti_algo_desc_t template_algo = {
    .abi = TUTTI_ALGO_ABI,
    .coll = TUTTI_COLL_ALLGATHER,
    .name = "template_algo",
    .fn.allgather = template_algo_allgather,
    .summary = "ring: P-1 steps, each passing the block received last to the right",
    .source = "Patarasuk, Yuan, JPDC 69(2), 2009",
    .cost = "(P-1)(alpha + beta b)",
    .cost_fn = template_algo_cost,
    .msgs_fn = template_algo_msgs,
};

/* The plugin's entry point: tutti calls it when it loads the file. */
TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &template_algo);
}

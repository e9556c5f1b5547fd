/*
 * template_algo.c -- a scatter written outside tutti: the root sends every
 * rank its block.
 * (Written by `tutti new scatter template_algo`; tutti runs it as it is.)
 *
 * Idea: the root sends block i of its buffer to rank i, in rank order,
 * and keeps its own; every other rank receives its block.
 *
 * Source: PVM 3.3 and MPICH's linear scatter (tutti's scatter 'flat').
 *
 * Cost under Hockney (b bytes a block): the root's port sends one block at
 * a time, (P-1)(alpha + beta b).
 *
 * Try it:
 *   tutti run scatter template_algo.c -n 16 -m 4KiB --root 3
 *   tutti check scatter template_algo.c
 *   tutti compare scatter binomial template_algo.c -n 16 --html page.html
 *
 * What to change: the messages are the loop at the root and the receive
 * of the others; keep template_algo_cost and _msgs in step (tutti check compares them
 * with the engine).
 */
#include <stdlib.h>
#include <tutti/plugin.h>

static int template_algo_scatter(tutti_rank_t *r, const void *sbuf, long scount,
                                 tutti_datatype_t stype, void *rbuf, long rcount,
                                 tutti_datatype_t rtype, int root, const tutti_algo_t *a) {
  (void)a;                     /* no parameters */
  int tag = tutti_coll_tag(r); /* every collective call takes one tag, first */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0, n = 0;
  if (me != root) return tutti_recv(r, rbuf, rcount, rtype, root, tag, TUTTI_STATUS_IGNORE);
  size_t blk = (size_t)scount * tutti_type_size(stype);
  const char *in = sbuf;
  tutti_request_t *req = malloc((size_t)P * sizeof *req);
  if (!req) return TUTTI_ENOMEM;
  for (int i = 0; i < P && !rc; i++)
    if (i != root) rc = tutti_isend(r, in + (size_t)i * blk, scount, stype, i, tag, &req[n++]);
  /* rbuf TUTTI_IN_PLACE: the root's block stays where it is; not memcpy: a
   * --no-data run moves nothing */
  if (!rc && rbuf != TUTTI_IN_PLACE) rc = tutti_local_copy(r, rbuf, in + (size_t)root * blk, blk);
  int rc2 = n ? tutti_waitall(r, n, req, NULL) : 0;
  free(req);
  return rc ? rc : rc2;
}

/* The Hockney time for P ranks and b bytes a block. *bound = 0: exact, as
 * tutti's engine times it. */
static double template_algo_cost(const tutti_algo_t *a, int P, int root, size_t b,
                                 const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  return (P - 1) * (h->alpha + h->beta * (double)b);
}

/* The messages one call sends, all ranks together: a block to every rank but the root. tutti check
 * compares it with the engine; tutti's estimates of time and memory count
 * it. */
static double template_algo_msgs(const tutti_algo_t *a, int P, int root, size_t b,
                                 const tutti_hockney_t *h) {
  (void)a, (void)root, (void)b, (void)h;
  return P - 1;
}

static const tutti_algo_desc_t template_algo = {
    .abi = TUTTI_ALGO_ABI,
    .coll = TUTTI_COLL_SCATTER,
    .name = "template_algo",
    .fn.scatter = template_algo_scatter,
    .summary = "the root sends every rank its block, in rank order",
    .source = "PVM 3.3; MPICH's linear scatter",
    .cost = "(P-1)(alpha + beta b)",
    .cost_fn = template_algo_cost,
    .msgs_fn = template_algo_msgs,
};

/* The plugin's entry point: tutti calls it when it loads the file. */
TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &template_algo);
}

/*
 * template_algo.c -- a gather written outside tutti: every rank sends its
 * block straight to the root.
 * (Written by `tutti new gather template_algo`; tutti runs it as it is.)
 *
 * Idea: the root posts a receive for every other rank's block, at its
 * place in the result (block i from rank i), copies its own, and waits;
 * every other rank sends its block.
 *
 * Source: PVM 3.3 and MPICH's linear gather (tutti's gather 'flat').
 *
 * Cost under Hockney (b bytes a block): the root's port takes one block at
 * a time, (P-1)(alpha + beta b).
 *
 * Try it:
 *   tutti run gather template_algo.c -n 16 -m 4KiB --root 3
 *   tutti check gather template_algo.c
 *   tutti compare gather binomial template_algo.c -n 16 --html page.html
 *
 * What to change: the messages are the loop at the root and the send of
 * the others; keep template_algo_cost and _msgs in step (tutti check compares them
 * with the engine).
 */
#include <stdlib.h>
#include <tutti/plugin.h>

static int template_algo_gather(tutti_rank_t *r, const void *sbuf, long scount,
                                tutti_datatype_t stype, void *rbuf, long rcount,
                                tutti_datatype_t rtype, int root, const tutti_algo_t *a) {
  (void)a;                     /* no parameters */
  int tag = tutti_coll_tag(r); /* every collective call takes one tag, first */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0, n = 0;
  if (me != root) return tutti_send(r, sbuf, scount, stype, root, tag);
  size_t blk = (size_t)rcount * tutti_type_size(rtype);
  char *out = rbuf;
  tutti_request_t *req = malloc((size_t)P * sizeof *req);
  if (!req) return TUTTI_ENOMEM;
  for (int i = 0; i < P && !rc; i++)
    if (i != root) rc = tutti_irecv(r, out + (size_t)i * blk, rcount, rtype, i, tag, &req[n++]);
  /* sbuf TUTTI_IN_PLACE: the root's block is at its place already; not
   * memcpy: a --no-data run moves nothing */
  if (!rc && sbuf != TUTTI_IN_PLACE) rc = tutti_local_copy(r, out + (size_t)root * blk, sbuf, blk);
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

/* The messages one call sends, all ranks together: a block from every rank but the root. tutti
 * check compares it with the engine; tutti's estimates of time and memory count it. */
static double template_algo_msgs(const tutti_algo_t *a, int P, int root, size_t b,
                                 const tutti_hockney_t *h) {
  (void)a, (void)root, (void)b, (void)h;
  return P - 1;
}

static const tutti_algo_desc_t template_algo = {
    .abi = TUTTI_ALGO_ABI,
    .coll = TUTTI_COLL_GATHER,
    .name = "template_algo",
    .fn.gather = template_algo_gather,
    .summary = "every rank sends its block straight to the root",
    .source = "PVM 3.3; MPICH's linear gather",
    .cost = "(P-1)(alpha + beta b)",
    .cost_fn = template_algo_cost,
    .msgs_fn = template_algo_msgs,
};

/* The plugin's entry point: tutti calls it when it loads the file. */
TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &template_algo);
}

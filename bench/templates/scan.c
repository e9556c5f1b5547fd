/*
 * template_algo.c -- a scan written outside tutti: a chain in rank order.
 * (Written by `tutti new scan template_algo`; tutti runs it as it is.)
 *
 * Idea: rank 0's result is its own x_0, which it sends to rank 1. Rank
 * i > 0 receives the prefix x_0 (op) ... (op) x_{i-1} from rank i - 1,
 * puts its own x_i on the right of it -- its result -- and sends that on
 * to rank i + 1. The lower ranks are always on the left: right for an op
 * that does not commute.
 *
 * Source: the definition of MPI_Scan, MPI-1 (1994) sec. 4.9, run as
 * written (Open MPI's coll/basic scan).
 *
 * Cost under Hockney (b bytes a rank, gamma b to combine two):
 * (P-1)(alpha + beta b + gamma b): the ranks wait for each other in a
 * line.
 *
 * Try it:
 *   tutti run scan template_algo.c -n 16 -m 4KiB --op matmul2 --dtype int64
 *   tutti check scan template_algo.c
 *   tutti compare scan binomial template_algo.c -n 16 --html page.html
 *
 * What to change: who sends to whom (a tree halves the line); the order
 * of combining is tutti_reduce_local_r's, inout = in (op) inout; keep
 * template_algo_cost and _msgs in step (tutti check compares them with the engine).
 */
#include <tutti/plugin.h>

static int template_algo_scan(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                              tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;                     /* no parameters */
  int tag = tutti_coll_tag(r); /* every collective call takes one tag, first */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0;
  size_t bytes = (size_t)count * tutti_type_size(type);
  /* sbuf TUTTI_IN_PLACE: x_i is in rbuf already; not memcpy: a --no-data
   * run moves nothing */
  if (sbuf != TUTTI_IN_PLACE) rc = tutti_local_copy(r, rbuf, sbuf, bytes);
  if (!rc && me > 0) {
    /* scratch, not malloc: a --no-data run holds none of it */
    void *prefix = tutti_scratch_alloc(r, bytes + 1);
    if (!prefix) return TUTTI_ENOMEM;
    rc = tutti_recv(r, prefix, count, type, me - 1, tag, TUTTI_STATUS_IGNORE);
    if (!rc) rc = tutti_reduce_local_r(r, prefix, rbuf, count, type, op); /* prefix (op) x_i */
    tutti_scratch_free(r, prefix);
  }
  if (!rc && me < P - 1) rc = tutti_send(r, rbuf, count, type, me + 1, tag);
  return rc;
}

/* The Hockney time for P ranks and b bytes a rank. *bound = 0: exact, as
 * tutti's engine times it. */
static double template_algo_cost(const tutti_algo_t *a, int P, int root, size_t b,
                                 const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  return (P - 1) * (h->alpha + (h->beta + h->gamma) * (double)b);
}

/* The messages one call sends, all ranks together: a message a link of the chain. tutti check
 * compares it with the engine; tutti's estimates of time and memory count
 * it. */
static double template_algo_msgs(const tutti_algo_t *a, int P, int root, size_t b,
                                 const tutti_hockney_t *h) {
  (void)a, (void)root, (void)b, (void)h;
  return P - 1;
}

static const tutti_algo_desc_t template_algo = {
    .abi = TUTTI_ALGO_ABI,
    .coll = TUTTI_COLL_SCAN,
    .name = "template_algo",
    .fn.scan = template_algo_scan,
    .summary = "a chain in rank order: receive the prefix, add x_i on its right, pass it on",
    .source = "MPI-1 (1994) sec. 4.9, MPI_Scan as defined",
    .cost = "(P-1)(alpha + beta b + gamma b)",
    .cost_fn = template_algo_cost,
    .msgs_fn = template_algo_msgs,
};

/* The plugin's entry point: tutti calls it when it loads the file. */
TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &template_algo);
}

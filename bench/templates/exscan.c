/*
 * template_algo.c -- an exscan written outside tutti: a chain in rank
 * order. (Written by `tutti new exscan template_algo`; tutti runs it as
 * it is.)
 *
 * Idea: rank 0 sends its x_0 to rank 1 and leaves its own result alone
 * (MPI_Exscan defines none there). Rank i > 0 receives the prefix x_0
 * (op) ... (op) x_{i-1} from rank i - 1 -- its result -- and, unless it
 * is the last, puts its own x_i on the right of it and sends that on to
 * rank i + 1. The lower ranks are always on the left: right for an op
 * that does not commute.
 *
 * Source: the definition of MPI_Exscan, MPI-2 (1997) sec. 7.3.5, run as
 * written (Open MPI's coll/basic exscan).
 *
 * Cost under Hockney (b bytes a rank, gamma b to combine two):
 * (P-1)(alpha + beta b) + (P-2) gamma b for P > 1 (the last rank does
 * not combine), 0 for one rank.
 *
 * Try it:
 *   tutti run exscan template_algo.c -n 16 -m 4KiB --op matmul2 --dtype int64
 *   tutti check exscan template_algo.c
 *   tutti compare exscan binomial template_algo.c -n 16 --html page.html
 *
 * What to change: who sends to whom (a tree halves the line); the order
 * of combining is tutti_reduce_local_r's, inout = in (op) inout; keep
 * template_algo_cost and _msgs in step (tutti check compares them with the engine).
 */
#include <tutti/plugin.h>

static int template_algo_exscan(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;                     /* no parameters */
  int tag = tutti_coll_tag(r); /* every collective call takes one tag, first */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0;
  size_t bytes = (size_t)count * tutti_type_size(type);
  const void *x = sbuf == TUTTI_IN_PLACE ? rbuf : sbuf; /* in place: x_i is in rbuf */
  if (me == 0) return P > 1 ? tutti_send(r, x, count, type, 1, tag) : 0;
  /* scratch, not malloc: a --no-data run holds none of it */
  void *next = tutti_scratch_alloc(r, bytes + 1);
  if (!next) return TUTTI_ENOMEM;
  /* x_i first, not memcpy (a --no-data run moves nothing): in place, the
   * receive is about to overwrite it */
  rc = tutti_local_copy(r, next, x, bytes);
  if (!rc) rc = tutti_recv(r, rbuf, count, type, me - 1, tag, TUTTI_STATUS_IGNORE);
  if (!rc && me < P - 1) rc = tutti_reduce_local_r(r, rbuf, next, count, type, op); /* (op) x_i */
  if (!rc && me < P - 1) rc = tutti_send(r, next, count, type, me + 1, tag);
  tutti_scratch_free(r, next);
  return rc;
}

/* The Hockney time for P ranks and b bytes a rank. *bound = 0: exact, as
 * tutti's engine times it. */
static double template_algo_cost(const tutti_algo_t *a, int P, int root, size_t b,
                                 const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  if (P == 1) return 0;
  return (P - 1) * (h->alpha + h->beta * (double)b) + (P - 2) * h->gamma * (double)b;
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
    .coll = TUTTI_COLL_EXSCAN,
    .name = "template_algo",
    .fn.exscan = template_algo_exscan,
    .summary = "a chain in rank order: receive the prefix (the result), add x_i, pass it on",
    .source = "MPI-2 (1997) sec. 7.3.5, MPI_Exscan as defined",
    .cost = "(P-1)(alpha + beta b) + (P-2) gamma b",
    .cost_fn = template_algo_cost,
    .msgs_fn = template_algo_msgs,
};

/* The plugin's entry point: tutti calls it when it loads the file. */
TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &template_algo);
}

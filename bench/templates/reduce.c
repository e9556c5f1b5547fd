/*
 * template_algo.c -- a reduce written outside tutti: a binomial tree to
 * rank 0, in rank order, then the result to the root.
 * (Written by `tutti new reduce template_algo`; tutti runs it as it is.)
 *
 * Idea: rank v holds x_v; for mask = 1, 2, 4, ... it either sends what it
 * holds to its parent v - mask (v has that bit set: it is done), or
 * receives from v + mask the combination of ranks v+mask .. v+2mask-1 and
 * appends it on the right: acc = acc (op) received. So rank 0 ends with
 * x_0 (op) x_1 (op) ... (op) x_{P-1} in rank order, right for an op that
 * does not commute (MPI_Reduce's order); it then sends it to the root.
 *
 * Source: MPICH's binomial reduce (src/mpi/coll/reduce), rooted at 0.
 *
 * Cost under Hockney (alpha + beta m a message of m bytes, gamma m a
 * reduction of m bytes): ceil(log2 P)(alpha + beta m + gamma m), plus
 * alpha + beta m when the root is not rank 0.
 *
 * Try it:
 *   tutti run reduce template_algo.c -n 16 -m 64KiB --op matmul2 --dtype int64 --root 5
 *   tutti check reduce template_algo.c
 *   tutti compare reduce binomial template_algo.c -n 16 --html page.html
 *
 * What to change: the tree is the mask loop; the order of combining is
 * tutti_reduce_local_r's, in = in (op) inout -- keep a rank's own part on
 * the left of what comes from higher ranks, or mark the algorithm
 * TUTTI_ALGO_COMMUTATIVE; keep template_algo_cost and _msgs in step (tutti check
 * compares them with the engine).
 */
#include <stdlib.h>
#include <tutti/plugin.h>

static int template_algo_reduce(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                tutti_datatype_t type, tutti_op_t op, int root,
                                const tutti_algo_t *a) {
  (void)a;                     /* no parameters */
  int tag = tutti_coll_tag(r); /* every collective call takes one tag, first */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0;
  size_t bytes = (size_t)count * tutti_type_size(type);
  if (sbuf == TUTTI_IN_PLACE) sbuf = rbuf; /* the root's input is in its result buffer */
  char *acc = malloc(bytes + 1), *in = malloc(bytes + 1);
  if (!acc || !in) rc = TUTTI_ENOMEM;
  if (!rc) rc = tutti_local_copy(r, acc, sbuf, bytes); /* not memcpy: --no-data moves nothing */
  for (int mask = 1; mask < P && !rc; mask <<= 1) {
    if (me & mask) { /* done: what I hold goes to my parent */
      rc = tutti_send(r, acc, count, type, me - mask, tag);
      break;
    }
    if (me + mask < P) { /* ranks me+mask .. me+2mask-1, appended on the right */
      rc = tutti_recv(r, in, count, type, me + mask, tag, TUTTI_STATUS_IGNORE);
      if (!rc) rc = tutti_reduce_local_r(r, acc, in, count, type, op); /* in = acc (op) in */
      char *t = acc;
      acc = in, in = t;
    }
  }
  if (!rc && me == 0 && root == 0) rc = tutti_local_copy(r, rbuf, acc, bytes);
  if (!rc && me == 0 && root != 0) rc = tutti_send(r, acc, count, type, root, tag);
  if (!rc && me == root && root != 0)
    rc = tutti_recv(r, rbuf, count, type, 0, tag, TUTTI_STATUS_IGNORE);
  free(acc);
  free(in);
  return rc;
}

static int ceil_log2(int P) {
  int k = 0;
  while ((1L << k) < P) k++;
  return k;
}

/* The Hockney time for P ranks and m bytes. *bound = 0: exact, as tutti's
 * engine times it. */
static double template_algo_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h, int *bound) {
  (void)a;
  double c = h->alpha + h->beta * (double)m;
  *bound = 0;
  return ceil_log2(P) * (c + h->gamma * (double)m) + (root != 0 ? c : 0);
}

/* The messages one call sends, all ranks together: a message a tree edge, and the result to a root
 * other than 0. tutti check compares it with the engine; tutti's estimates of time and memory count
 * it. */
static double template_algo_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h) {
  (void)a, (void)m, (void)h;
  return P - 1 + (root != 0);
}

static const tutti_algo_desc_t template_algo = {
    .abi = TUTTI_ALGO_ABI,
    .coll = TUTTI_COLL_REDUCE,
    .name = "template_algo",
    .fn.reduce = template_algo_reduce,
    .summary = "binomial tree to rank 0 in rank order (any op), then the result to the root",
    .source = "MPICH's binomial reduce, rooted at 0",
    .cost = "ceil(log2 P)(alpha + beta m + gamma m) [+ alpha + beta m if the root is not 0]",
    .cost_fn = template_algo_cost,
    .msgs_fn = template_algo_msgs,
};

/* The plugin's entry point: tutti calls it when it loads the file. */
TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &template_algo);
}

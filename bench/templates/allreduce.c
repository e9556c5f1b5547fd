/*
 * template_algo.c -- an allreduce written outside tutti: a binomial reduce
 * to rank 0 in rank order, then a binomial broadcast of the result.
 * (Written by `tutti new allreduce template_algo`; tutti runs it as it is.)
 *
 * Idea: the reduce: for mask = 1, 2, 4, ... rank v either sends what it
 * holds to v - mask (v has that bit set) or receives from v + mask the
 * combination of ranks v+mask .. v+2mask-1 and appends it on the right, so
 * rank 0 ends with x_0 (op) ... (op) x_{P-1} in rank order (right for an
 * op that does not commute). The broadcast: the same tree downwards, each
 * rank sending to its farthest child first. Both phases use the call's one
 * tag: on every edge their messages go opposite ways.
 *
 * Source: Thakur, Rabenseifner, Gropp, "Optimization of collective
 * communication operations in MPICH", IJHPCA 19(1), 2005 (reduce then
 * broadcast; tutti's allreduce 'reduce-bcast').
 *
 * Cost under Hockney: 2 ceil(log2 P)(alpha + beta m) + ceil(log2 P) gamma m.
 *
 * Try it:
 *   tutti run allreduce template_algo.c -n 16 -m 64KiB --op matmul2 --dtype int64
 *   tutti check allreduce template_algo.c
 *   tutti compare allreduce ring template_algo.c -n 16 --html page.html
 *
 * What to change: the two mask loops are the trees; keep a rank's own
 * part on the left when combining (tutti_reduce_local_r: in = in (op)
 * inout), or mark the algorithm TUTTI_ALGO_COMMUTATIVE; keep
 * template_algo_cost and _msgs in step (tutti check compares them with the engine).
 */
#include <stdlib.h>
#include <tutti/plugin.h>

static int template_algo_allreduce(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                   tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;                     /* no parameters */
  int tag = tutti_coll_tag(r); /* every collective call takes one tag, first */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0, mask = 1;
  size_t bytes = (size_t)count * tutti_type_size(type);
  if (sbuf == TUTTI_IN_PLACE) sbuf = rbuf; /* the input is in the result buffer */
  char *acc = malloc(bytes + 1), *in = malloc(bytes + 1);
  if (!acc || !in) rc = TUTTI_ENOMEM;
  if (!rc) rc = tutti_local_copy(r, acc, sbuf, bytes); /* not memcpy: --no-data moves nothing */
  /* up: to rank 0 */
  for (; mask < P && !rc; mask <<= 1) {
    if (me & mask) {
      rc = tutti_send(r, acc, count, type, me - mask, tag);
      break;
    }
    if (me + mask < P) {
      rc = tutti_recv(r, in, count, type, me + mask, tag, TUTTI_STATUS_IGNORE);
      if (!rc) rc = tutti_reduce_local_r(r, acc, in, count, type, op); /* in = acc (op) in */
      char *t = acc;
      acc = in, in = t;
    }
  }
  /* down: from my parent (rank 0 has none), then to my children, farthest first */
  if (!rc && me == 0) rc = tutti_local_copy(r, rbuf, acc, bytes);
  if (!rc && me != 0) rc = tutti_recv(r, rbuf, count, type, me - mask, tag, TUTTI_STATUS_IGNORE);
  for (mask >>= 1; mask > 0 && !rc; mask >>= 1)
    if (me + mask < P) rc = tutti_send(r, rbuf, count, type, me + mask, tag);
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
  (void)a, (void)root;
  int k = ceil_log2(P);
  *bound = 0;
  return 2 * k * (h->alpha + h->beta * (double)m) + k * h->gamma * (double)m;
}

/* The messages one call sends, all ranks together: a message a tree edge, up and down. tutti check
 * compares it with the engine; tutti's estimates of time and memory count
 * it. */
static double template_algo_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return 2.0 * (P - 1);
}

static const tutti_algo_desc_t template_algo = {
    .abi = TUTTI_ALGO_ABI,
    .coll = TUTTI_COLL_ALLREDUCE,
    .name = "template_algo",
    .fn.allreduce = template_algo_allreduce,
    .summary = "binomial reduce to rank 0 in rank order (any op), then binomial broadcast",
    .source = "Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005",
    .cost = "2 ceil(log2 P)(alpha + beta m) + ceil(log2 P) gamma m",
    .cost_fn = template_algo_cost,
    .msgs_fn = template_algo_msgs,
};

/* The plugin's entry point: tutti calls it when it loads the file. */
TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &template_algo);
}

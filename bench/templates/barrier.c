/*
 * template_algo.c -- a barrier written outside tutti: dissemination.
 * (Written by `tutti new barrier template_algo`; tutti runs it as it is.)
 *
 * Idea: in round j = 0, 1, ... rank i sends an empty message to
 * i + 2^j and waits for one from i - 2^j (mod P). After ceil(log2 P)
 * rounds every rank has heard, through some chain, from every rank: none
 * leaves before all have entered. A round's send waits for the previous
 * round's receive, which is what carries the news along.
 *
 * Source: D. Hensgen, R. Finkel, U. Manber, "Two algorithms for barrier
 * synchronization", IJPP 17(1), 1988 (tutti's barrier 'dissemination').
 *
 * Cost under Hockney: ceil(log2 P) alpha.
 *
 * Try it:
 *   tutti run barrier template_algo.c -n 16
 *   tutti check barrier template_algo.c
 *   tutti compare barrier binomial template_algo.c -n 16 --html page.html
 *
 * What to change: the partners of round j (to, from); keep
 * template_algo_cost and _msgs in step (tutti check compares them with the engine).
 */
#include <tutti/plugin.h>

static int template_algo_barrier(tutti_rank_t *r, const tutti_algo_t *a) {
  (void)a;                     /* no parameters */
  int tag = tutti_coll_tag(r); /* every collective call takes one tag, first */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0;
  for (int d = 1; d < P && !rc; d *= 2) {
    int to = (me + d) % P, from = (me - d + P) % P;
    rc = tutti_sendrecv(r, NULL, 0, TUTTI_BYTE, to, tag, NULL, 0, TUTTI_BYTE, from, tag,
                        TUTTI_STATUS_IGNORE);
  }
  return rc;
}

/* The Hockney time for P ranks. *bound = 0: exact, as tutti's engine times
 * it. */
static double template_algo_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root, (void)m;
  int rounds = 0;
  while ((1L << rounds) < P) rounds++;
  *bound = 0;
  return rounds * h->alpha;
}

/* The messages one call sends, all ranks together: every rank sends once a round. tutti check
 * compares it with the engine; tutti's estimates of time and memory count
 * it. */
static double template_algo_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  int rounds = 0;
  while ((1L << rounds) < P) rounds++;
  return (double)P * rounds;
}

static const tutti_algo_desc_t template_algo = {
    .abi = TUTTI_ALGO_ABI,
    .coll = TUTTI_COLL_BARRIER,
    .name = "template_algo",
    .fn.barrier = template_algo_barrier,
    .summary = "dissemination: round j sends to i + 2^j, receives from i - 2^j",
    .source = "Hensgen, Finkel, Manber, IJPP 17(1), 1988",
    .cost = "ceil(log2 P) alpha",
    .cost_fn = template_algo_cost,
    .msgs_fn = template_algo_msgs,
};

/* The plugin's entry point: tutti calls it when it loads the file. */
TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &template_algo);
}

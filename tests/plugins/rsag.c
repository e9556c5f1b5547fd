/*
 * rsag.c -- a test plugin: reduce 'rsag', Rabenseifner's reduce as a
 * reduce_scatter followed by a gather, both through the public
 * collectives (so its calls nest: plan.c's depth 1). Commutative ops only
 * (the ring reduce_scatter's); a count that P does not divide runs the
 * binomial reduce instead.
 *
 * Source: R. Rabenseifner, "Optimization of collective reduction
 * operations", ICCS 2004 (reduce-scatter + gather); MPICH's
 * reduce_scatter_gather.
 *
 * Cost under Hockney, m bytes, b = m/P, P dividing the count: (P-1)(alpha
 * + beta b + gamma b) (the ring reduce_scatter) + ceil(log2 P) alpha +
 * (P-1) beta b (the binomial gather); below the binomial reduce's
 * ceil(log2 P)(alpha + beta m + gamma m) for large m, which is what `tutti
 * tune` finds. Registered as an upper bound, the larger of the two: the
 * cost function does not know whether P divides the count.
 */
#include <stdlib.h>
#include <tutti/plugin.h>

static int rsag(tutti_rank_t *r, const void *sbuf, void *rbuf, long count, tutti_datatype_t type,
                tutti_op_t op, int root, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r);
  if (tag < 0) return tag;
  const tutti_algo_t *ring, *bin;
  int P = tutti_size(r), me = tutti_rank(r), rc;
  if ((rc = tutti_algo_select(TUTTI_COLL_REDUCE_SCATTER, "ring", NULL, &ring, NULL, 0)) ||
      (rc = tutti_algo_select(TUTTI_COLL_GATHER, "binomial", NULL, &bin, NULL, 0)))
    return rc;
  if (count % P) {
    const tutti_algo_t *red;
    rc = tutti_algo_select(TUTTI_COLL_REDUCE, "binomial", NULL, &red, NULL, 0);
    return rc ? rc : tutti_reduce(r, sbuf, rbuf, count, type, op, root, red);
  }
  long b = count / P;
  size_t esz = tutti_type_size(type);
  const void *in = sbuf == TUTTI_IN_PLACE ? rbuf : sbuf;
  char *part = malloc((size_t)b * esz + 1);
  if (!part) return TUTTI_ENOMEM;
  rc = tutti_reduce_scatter(r, in, part, b, type, op, ring);
  if (!rc) rc = tutti_gather(r, part, b, type, me == root ? rbuf : NULL, b, type, root, bin);
  free(part);
  return rc;
}

static int ceil_log2(int P) {
  int k = 0;
  while ((1L << k) < P) k++;
  return k;
}

static double rsag_cost(const tutti_algo_t *a, int P, int root, size_t m, const tutti_hockney_t *h,
                        int *bound) {
  (void)a, (void)root;
  double b = (double)m / P;
  *bound = 1;
  double rs = (P - 1) * (h->alpha + h->beta * b + h->gamma * b);
  double ga = ceil_log2(P) * h->alpha + (P - 1) * h->beta * b;
  double binomial = ceil_log2(P) * (h->alpha + (h->beta + h->gamma) * (double)m);
  return rs + ga > binomial ? rs + ga : binomial;
}

static const tutti_algo_desc_t desc = {
    .abi = TUTTI_ALGO_ABI,
    .coll = TUTTI_COLL_REDUCE,
    .name = "rsag",
    .fn.reduce = rsag,
    .restrictions = TUTTI_ALGO_COMMUTATIVE,
    .summary = "reduce_scatter (ring) then gather (binomial): Rabenseifner's reduce",
    .source = "R. Rabenseifner, ICCS 2004",
    .cost = "(P-1)(alpha + beta b + gamma b) + ceil(log2 P) alpha + (P-1) beta b, b = m/P",
    .cost_fn = rsag_cost,
};

TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &desc);
}

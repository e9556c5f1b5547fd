/*
 * allgather_ring.c -- allgather `ring`: every rank puts its own block in
 * place (block `rank` of the result), then blocks.c's in-place ring
 * allgather: in step s = 0..P-2 rank v sends block (v - s) mod P to its
 * right neighbour and receives block (v - s - 1) mod P from its left one.
 * Every rank sends and receives (P-1) m bytes, the least an allgather
 * can: bandwidth-optimal, at the price of P-1 start-ups.
 *
 * Source: P. Patarasuk, X. Yuan, "Bandwidth optimal all-reduce algorithms
 * for clusters of workstations", JPDC 69(2), 2009 (its allgather phase);
 * MPICH's MPIR_Allgather_intra_ring (R. Thakur, R. Rabenseifner, W. Gropp,
 * "Optimization of collective communication operations in MPICH", IJHPCA
 * 19(1), 2005, sec. 4.1).
 *
 * Cost under Hockney, m bytes per rank: (P-1)(alpha + beta m). Exact: the
 * blocks are equal and every step is the same for every rank.
 */
#include "engine.h"
#include "tutti/coll.h"

int tutti__allgather_ring(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                          tutti_datatype_t type, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r);
  int rc = tutti__blocks_own(r, sbuf, rbuf, count, type);
  if (rc || count == 0 || P == 1) return rc;
  return tutti__blocks_allgather_ring(r, rbuf, (long)P * count, type, 0, tag);
}

double tutti__allgather_ring_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                  const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  if (m == 0 || P == 1) return 0;
  return (P - 1) * (h->alpha + h->beta * (double)m);
}

/* Every rank sends once a step. */
double tutti__allgather_ring_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                  const tutti_hockney_t *h) {
  (void)a, (void)root, (void)h;
  return m == 0 || P == 1 ? 0 : (double)P * (P - 1);
}

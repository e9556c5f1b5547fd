/*
 * allreduce_ring.c -- the ring allreduce: a ring reduce-scatter, then the
 * ring allgather (both in blocks.c). The vector is cut into P blocks; in step
 * s = 0..P-2 rank v sends its partial block (v - s) mod P to its right
 * neighbour and receives block (v - s - 1) mod P from its left one, which
 * it combines into its own; after P-1 steps rank v holds block (v + 1)
 * mod P complete, which is the allgather's layout with root P-1. Every
 * rank sends and receives 2 (P-1)/P m: bandwidth-optimal. The operands of
 * a block are combined in ring order, starting at a different rank per
 * block: commutative ops only.
 *
 * Source: P. Patarasuk, X. Yuan, "Bandwidth optimal all-reduce algorithms
 * for clusters of workstations", JPDC 69(2), 2009.
 *
 * Cost under Hockney, P | m: 2(P-1)(alpha + beta m/P) + (P-1) gamma m/P
 * (uneven blocks: at most that with blocks of ceil(m/P) + 16 bytes; with
 * the element size known, tutti_algo_cost_elem, exact when P divides the
 * count, else at most that with blocks of ceil(count/P) elements).
 */
#include <stdlib.h>

#include "engine.h"
#include "tutti/coll.h"

int tutti__allreduce_ring(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                          tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r);
  size_t esz = tutti_type_size(type);
  char *Y = rbuf;
  int rc = sbuf != TUTTI_IN_PLACE ? tutti_local_copy(r, Y, sbuf, (size_t)count * esz) : 0;
  if (rc || count == 0 || P == 1) return rc;
  /* root P-1: rank v ends with block v+1, the ring allgather's layout */
  rc = tutti__blocks_reduce_scatter_ring(r, Y, count, type, op, P - 1, tag);
  return rc ? rc : tutti__blocks_allgather_ring(r, Y, count, type, P - 1, tag);
}

double tutti__allreduce_ring_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                  const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  if (m == 0 || P == 1) return 0;
  double blk;
  int even;
  if (tutti__cost_blocks(m, P, &blk, &even, NULL)) {
    *bound = !even; /* the element size known: blocks of whole elements */
  } else {          /* equal blocks for every element size up to 16 when 16 P divides m */
    blk = (double)m / P;
    if (m % (16 * (size_t)P)) *bound = 1, blk = (double)(m / (size_t)P + 1) + 16;
  }
  return (P - 1) * (2 * (h->alpha + h->beta * blk) + h->gamma * blk);
}

/* Every rank sends once a step, in both phases. */
double tutti__allreduce_ring_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                  const tutti_hockney_t *h) {
  (void)a, (void)root, (void)h;
  return m == 0 || P == 1 ? 0 : 2.0 * P * (P - 1);
}

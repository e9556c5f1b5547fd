/*
 * reduce_scatter_ring.c -- reduce_scatter `ring` (MPI_Reduce_scatter_block
 * semantics): the P blocks of every rank's input travel round a ring.
 * blocks.c's ring reduce-scatter runs on a copy of the input (the input
 * itself in place): in step s = 0..P-2 rank v sends its partial block
 * (v - s - 1) mod P to the right and combines block (v - s - 2) mod P from
 * the left into its own, so after P-1 steps it holds block v complete,
 * which it copies out. Every rank sends and receives (P-1) m bytes:
 * bandwidth-optimal, P-1 start-ups. The operands of block i are combined
 * in ring order starting at rank i+1: commutative ops only.
 *
 * Source: P. Patarasuk, X. Yuan, "Bandwidth optimal all-reduce algorithms
 * for clusters of workstations", JPDC 69(2), 2009 (the reduce-scatter
 * phase of the ring allreduce, which shares the code).
 *
 * Cost under Hockney, m bytes per block: (P-1)(alpha + beta m + gamma m).
 * Exact: equal blocks, every step the same for every rank.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "tutti/coll.h"

int tutti__reduce_scatter_ring(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                               tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), in_place = sbuf == TUTTI_IN_PLACE;
  size_t bytes = (size_t)count * tutti_type_size(type);
  if (count == 0) return 0;
  if (P == 1) {
    return in_place ? 0 : tutti_local_copy(r, rbuf, sbuf, bytes);
  }
  char *W = in_place ? rbuf : tutti_scratch_alloc(r, (size_t)P * bytes);
  if (!W) return TUTTI_ENOMEM;
  int rc = in_place ? 0 : tutti_local_copy(r, W, sbuf, (size_t)P * bytes);
  if (!rc) rc = tutti__blocks_reduce_scatter_ring(r, W, (long)P * count, type, op, 0, tag);
  if (!rc) rc = tutti_local_copy(r, rbuf, W + (size_t)me * bytes, bytes); /* disjoint or equal */
  if (!in_place) tutti_scratch_free(r, W);
  return rc;
}

double tutti__reduce_scatter_ring_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                       const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  if (m == 0 || P == 1) return 0;
  return (P - 1) * (h->alpha + (h->beta + h->gamma) * (double)m);
}

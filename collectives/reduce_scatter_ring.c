/*
 * reduce_scatter_ring.c -- reduce_scatter `ring` (MPI_Reduce_scatter_block
 * semantics): the P blocks of every rank's input travel round a ring.
 * In step s = 0..P-2 rank v sends its partial block (v - s - 1) mod P to
 * the right and combines block (v - s - 2) mod P from the left into its
 * own, so after P-1 steps it holds block v complete. In place, blocks.c's
 * ring reduce-scatter runs on the input and block v is copied out; else
 * the partial block a step makes is the one the next step sends, so one
 * block, the receive buffer, holds it: step s sends it (step 0 the input's
 * block), then refills it with its own input block and combines the
 * received one into it, and no copy of the P blocks is made (as much
 * memory again as the input). Every rank sends and receives (P-1) m bytes:
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
  if (in_place) {
    int rc = tutti__blocks_reduce_scatter_ring(r, rbuf, (long)P * count, type, op, 0, tag);
    if (!rc) rc = tutti_local_copy(r, rbuf, (char *)rbuf + (size_t)me * bytes, bytes);
    return rc;
  }
  const char *in = sbuf;
  char *acc = rbuf, *t = tutti_scratch_alloc(r, bytes);
  if (!t) return TUTTI_ENOMEM;
  int rc = 0, right = (me + 1) % P, left = (me - 1 + P) % P;
  for (int s = 0; !rc && s < P - 1; s++) {
    size_t send = (size_t)((me - s - 1 + 2 * P) % P), keep = (size_t)((me - s - 2 + 2 * P) % P);
    rc = tutti_sendrecv(r, s ? acc : in + send * bytes, count, type, right, tag, t, count, type,
                        left, tag, TUTTI_STATUS_IGNORE);
    if (!rc) rc = tutti_local_copy(r, acc, in + keep * bytes, bytes);
    if (!rc) rc = tutti_reduce_local_r(r, t, acc, count, type, op);
  }
  tutti_scratch_free(r, t);
  return rc;
}

double tutti__reduce_scatter_ring_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                       const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  if (m == 0 || P == 1) return 0;
  return (P - 1) * (h->alpha + (h->beta + h->gamma) * (double)m);
}

/* Every rank sends once a step. */
double tutti__reduce_scatter_ring_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                       const tutti_hockney_t *h) {
  (void)a, (void)root, (void)h;
  return m == 0 || P == 1 ? 0 : (double)P * (P - 1);
}

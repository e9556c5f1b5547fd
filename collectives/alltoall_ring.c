/*
 * alltoall_ring.c -- alltoall `ring`: P-1 steps; in step s rank v sends
 * its block for v + s and receives the block from v - s (mod P), one
 * sendrecv, on every P (the shifts of a ring of distance s; `pairwise`
 * pairs v XOR s instead on powers of two). SimGrid SMPI's alltoall
 * `ring`, so the two can be compared case by case.
 *
 * Source: SimGrid, src/smpi/colls/alltoall/alltoall-ring.cpp (after
 * A. Faraj, X. Yuan's alltoall implementations for Ethernet clusters);
 * Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005, sec. 4.7 (the shifts
 * of the pairwise exchange for P not a power of two).
 *
 * Cost under Hockney, m bytes per block: (P-1)(alpha + beta m). Exact:
 * every step is a permutation, one sendrecv of one block on every rank.
 */
#include "engine.h"
#include "tutti/coll.h"

int tutti__alltoall_ring(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                         tutti_datatype_t type, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  const unsigned char *src;
  void *copy;
  int rc = tutti__alltoall_begin(r, sbuf, rbuf, (size_t)count * tutti_type_size(type), &src, &copy);
  if (!rc) rc = tutti__alltoall_steps(r, src, rbuf, count, type, 0, tag);
  tutti_scratch_free(r, copy);
  return rc;
}

double tutti__alltoall_ring_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  return (P - 1) * (h->alpha + h->beta * (double)m);
}

/* A message an ordered pair of ranks. */
double tutti__alltoall_ring_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return (double)P * (P - 1);
}

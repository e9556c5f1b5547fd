/*
 * alltoall_linear.c -- alltoall `linear`: every rank posts all its P-1
 * receives and P-1 sends at once, then waits for them all: the network,
 * not the algorithm, orders the messages. Receives are posted from
 * v - i and sends to v + i (mod P), i = 1..P-1, so that the i-th message
 * of every rank forms a permutation and no receiver is sought by two
 * senders at a time when the network serves them in order.
 *
 * Source: Open MPI, ompi/mca/coll/base/coll_base_alltoall.c,
 * ompi_coll_base_alltoall_intra_basic_linear (the default of coll/basic);
 * MPICH's MPIR_Alltoall_intra_scattered with every request in flight.
 *
 * Cost under Hockney, m bytes per block, T = alpha + beta m: 3(P-1) T for
 * P > 2 (T for P = 2). All messages are posted at time 0, and
 * runtime/MODEL.md's ports take them in that order, lower source rank
 * first (rule 8), each port free again only after its last transfer:
 * rank 0's message to j holds j's port over [j-1, j] T, rank k's message
 * to j > k then starts at (j + k - 1) T and its wrapped ones, to
 * 0..k-1, queue behind rank k-1's, the last ending at (P + 2k - 1) T:
 * 3(P-1) T for k = P-1.
 * The pairwise exchange, whose steps are permutations, takes (P-1) T:
 * with every request in flight the order of service, not the network's
 * capacity, decides.
 */
#include <stdlib.h>

#include "engine.h"
#include "tutti/coll.h"

int tutti__alltoall_linear(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                           tutti_datatype_t type, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r);
  size_t bytes = (size_t)count * tutti_type_size(type);
  const unsigned char *src;
  void *copy;
  int rc = tutti__alltoall_begin(r, sbuf, rbuf, bytes, &src, &copy);
  if (rc || P == 1) {
    tutti_scratch_free(r, copy);
    return rc;
  }
  tutti_request_t *req = calloc(2 * (size_t)(P - 1), sizeof *req); /* TUTTI_REQUEST_NULL */
  if (!req) rc = TUTTI_ENOMEM;
  for (int i = 1; !rc && i < P; i++) {
    int from = (me - i + P) % P;
    rc = tutti_irecv(r, (char *)rbuf + (size_t)from * bytes, count, type, from, tag, &req[i - 1]);
  }
  for (int i = 1; !rc && i < P; i++) {
    int to = (me + i) % P;
    rc = tutti_isend(r, src + (size_t)to * bytes, count, type, to, tag, &req[P - 2 + i]);
  }
  /* every request posted is completed, also after an error */
  int rw = req ? tutti_waitall(r, 2 * (P - 1), req, NULL) : 0;
  free(req);
  tutti_scratch_free(r, copy);
  return rc ? rc : rw;
}

double tutti__alltoall_linear_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                   const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  return (P > 2 ? 3 : 1) * (P - 1) * (h->alpha + h->beta * (double)m);
}

/* A message an ordered pair of ranks. */
double tutti__alltoall_linear_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                   const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return (double)P * (P - 1);
}

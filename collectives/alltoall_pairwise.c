/*
 * alltoall_pairwise.c -- alltoall `pairwise`: P-1 steps of one exchange
 * each. On a power of two, step s pairs rank v with v XOR s, both ways at
 * once (a perfect matching every step: no rank receives from two); on
 * other P, rank v sends to v + s and receives from v - s (mod P). Every
 * rank sends and receives (P-1) m bytes, the least an alltoall can, in
 * the fewest messages that do so.
 *
 * Source: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of
 * collective communication operations in MPICH", IJHPCA 19(1), 2005,
 * sec. 4.7 (MPICH's MPIR_Alltoall_intra_pairwise; Open MPI's
 * ompi_coll_base_alltoall_intra_pairwise uses the shifts on every P).
 *
 * Cost under Hockney, m bytes per block: (P-1)(alpha + beta m). Exact:
 * every step is one sendrecv of one block on every rank.
 */
#include "engine.h"
#include "tutti/coll.h"

int tutti__alltoall_pairwise(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                             tutti_datatype_t type, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r);
  const unsigned char *src;
  void *copy;
  int rc = tutti__alltoall_begin(r, sbuf, rbuf, (size_t)count * tutti_type_size(type), &src, &copy);
  if (!rc) rc = tutti__alltoall_steps(r, src, rbuf, count, type, (P & (P - 1)) == 0, tag);
  tutti_scratch_free(r, copy);
  return rc;
}

double tutti__alltoall_pairwise_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                     const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  return (P - 1) * (h->alpha + h->beta * (double)m);
}

/* A message an ordered pair of ranks. */
double tutti__alltoall_pairwise_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                     const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return (double)P * (P - 1);
}

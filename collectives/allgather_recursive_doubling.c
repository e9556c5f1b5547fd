/*
 * allgather_recursive_doubling.c -- allgather `recursive-doubling`: every
 * rank puts its own block in place, then blocks.c's in-place recursive
 * doubling: in step k = 0..log2(P)-1 rank v exchanges the 2^k blocks its
 * group of 2^k ranks holds with partner v XOR 2^k, so the group doubles.
 * log2 P start-ups and the least bytes, but only for P a power of two:
 * the registry marks it TUTTI_ALGO_POW2, and other P are refused with
 * that error (bruck takes ceil(log2 P) steps on any P, ring P-1).
 *
 * Source: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of
 * collective communication operations in MPICH", IJHPCA 19(1), 2005,
 * sec. 4.1 (MPIR_Allgather_intra_recursive_doubling).
 *
 * Cost under Hockney, m bytes per rank, P a power of two:
 * log2(P) alpha + (P-1) beta m (step k moves 2^k m bytes each way). Exact.
 */
#include <math.h>

#include "engine.h"
#include "tutti/coll.h"

int tutti__allgather_recursive_doubling(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                        tutti_datatype_t type, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r);
  int rc = tutti__blocks_own(r, sbuf, rbuf, count, type);
  if (rc || count == 0 || P == 1) return rc;
  return tutti__blocks_allgather_recdbl(r, rbuf, (long)P * count, type, 0, tag);
}

double tutti__allgather_recursive_doubling_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                                const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  if (P & (P - 1)) return NAN; /* refused by the registry */
  if (m == 0 || P == 1) return 0;
  int lg = 0;
  while ((1 << lg) < P) lg++;
  return lg * h->alpha + (P - 1) * h->beta * (double)m;
}

/* Every rank sends once a round. */
double tutti__allgather_recursive_doubling_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                                const tutti_hockney_t *h) {
  (void)a, (void)root, (void)h;
  if (P & (P - 1)) return NAN; /* refused by the registry */
  if (m == 0 || P == 1) return 0;
  int lg = 0;
  while ((1 << lg) < P) lg++;
  return (double)P * lg;
}

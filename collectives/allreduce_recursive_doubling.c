/*
 * allreduce_recursive_doubling.c -- recursive doubling: in step k rank v
 * exchanges its whole partial vector with v XOR 2^k and combines, so after
 * log2 P steps every rank holds the result. For P not a power of two, with
 * p' the largest power of two below P and r = P - p', the first 2r ranks
 * fold first: each even one sends its vector to the odd one above it and
 * sits out; the p' remaining ranks (new rank v/2 below 2r, v - r above)
 * double; the odd ranks finally send the result back. Operands are
 * combined in partner order: commutative ops only. Latency-optimal, but
 * every step moves the whole vector.
 *
 * Source: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective
 * communication operations in MPICH", IJHPCA 19(1), 2005, sec. 4.4.
 *
 * Cost under Hockney: log2(p')(alpha + beta m + gamma m), plus, when P is
 * not a power of two, 2(alpha + beta m) + gamma m for the fold.
 */
#include <stdlib.h>

#include "engine.h"
#include "tutti/coll.h"

int tutti__allreduce_recursive_doubling(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                        tutti_datatype_t type, tutti_op_t op,
                                        const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r);
  size_t esz = tutti_type_size(type), bytes = (size_t)count * esz;
  int rc = sbuf != TUTTI_IN_PLACE ? tutti_local_copy(r, rbuf, sbuf, bytes) : 0;
  if (rc || count == 0 || P == 1) return rc;
  int pof2 = 1;
  while (pof2 * 2 <= P) pof2 *= 2;
  int rem = P - pof2, v;
  char *t = tutti_scratch_alloc(r, bytes);
  if (!t) return TUTTI_ENOMEM;
  if (me < 2 * rem && me % 2 == 0) { /* folded out: hand over, wait for the result */
    rc = tutti_send(r, rbuf, count, type, me + 1, tag);
    if (!rc) rc = tutti_recv(r, rbuf, count, type, me + 1, tag, TUTTI_STATUS_IGNORE);
    tutti_scratch_free(r, t);
    return rc;
  }
  if (me < 2 * rem) {
    rc = tutti_recv(r, t, count, type, me - 1, tag, TUTTI_STATUS_IGNORE);
    if (!rc) rc = tutti_reduce_local_r(r, t, rbuf, count, type, op);
    v = me / 2;
  } else {
    v = me - rem;
  }
  for (int mask = 1; !rc && mask < pof2; mask <<= 1) {
    int pv = v ^ mask, partner = pv < rem ? 2 * pv + 1 : pv + rem;
    rc = tutti_sendrecv(r, rbuf, count, type, partner, tag, t, count, type, partner, tag,
                        TUTTI_STATUS_IGNORE);
    if (!rc) rc = tutti_reduce_local_r(r, t, rbuf, count, type, op);
  }
  if (!rc && me < 2 * rem) rc = tutti_send(r, rbuf, count, type, me - 1, tag);
  tutti_scratch_free(r, t);
  return rc;
}

double tutti__allreduce_recursive_doubling_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                                const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  if (m == 0 || P == 1) return 0;
  int pof2 = 1, lg = 0;
  while (pof2 * 2 <= P) pof2 *= 2, lg++;
  double c = h->alpha + h->beta * (double)m, g = h->gamma * (double)m;
  return lg * (c + g) + (pof2 < P ? 2 * c + g : 0);
}

/* pof2 ranks exchange every round; each extra rank sends in and gets back. */
double tutti__allreduce_recursive_doubling_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                                const tutti_hockney_t *h) {
  (void)a, (void)root, (void)h;
  if (m == 0 || P == 1) return 0;
  int pof2 = 1, lg = 0;
  while (pof2 * 2 <= P) pof2 *= 2, lg++;
  return (double)pof2 * lg + 2.0 * (P - pof2);
}

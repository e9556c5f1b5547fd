/*
 * allreduce_rabenseifner.c -- Rabenseifner's allreduce: a reduce-scatter
 * by recursive halving (blocks.c's, shared with the reduce_scatter
 * collective), then an allgather by recursive doubling. With p'
 * the largest power of two not above P, the vector is cut into p' blocks
 * (tutti__block_range). Halving: for mask = p'/2 .. 1, rank v exchanges
 * with v XOR mask, sends the half of its current range that the partner
 * keeps, receives the half it keeps and combines it, so it ends with block
 * v. Doubling reverses the exchanges. For P not a power of two the first
 * 2r ranks (r = P - p') fold in pairs first and the odd ones send the
 * result back at the end, as in recursive doubling. The world allgather of
 * blocks.c serves when P is a power of two; with a fold the group is a
 * subset of the ranks and the doubling runs here on it. Operands are
 * combined in partner order: commutative ops only. Memory: none but the
 * two buffers (not in place): the halving reads the input where it is
 * and receives into the parts of the result buffer not yet final
 * (blocks.c), which the doubling then fills; in place, scratch of half
 * the vector for the first exchange.
 *
 * Source: R. Rabenseifner, "Optimization of collective reduction
 * operations", ICCS 2004; Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005,
 * sec. 4.4.
 *
 * Cost under Hockney, p' | m: 2 log2(p') alpha + 2 (p'-1)/p' beta m +
 * (p'-1)/p' gamma m, plus 2(alpha + beta m) + gamma m for a fold (uneven
 * blocks: a bound with blocks of ceil(m/p') + 16 bytes).
 */
#include <stdlib.h>

#include "engine.h"
#include "tutti/coll.h"

/* The elements of blocks [b0, b0 + nb) of count cut into n. */
static void span(long count, int n, int b0, int nb, long *start, long *len) {
  long s0, n0, s1, n1;
  tutti__block_range(count, n, b0, &s0, &n0);
  tutti__block_range(count, n, b0 + nb - 1, &s1, &n1);
  *start = s0, *len = s1 + n1 - s0;
}

int tutti__allreduce_rabenseifner(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                  tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r);
  size_t esz = tutti_type_size(type), bytes = (size_t)count * esz;
  char *Y = rbuf;
  if (count == 0 || P == 1) return sbuf != TUTTI_IN_PLACE ? tutti_local_copy(r, Y, sbuf, bytes) : 0;
  int pof2 = 1;
  while (pof2 * 2 <= P) pof2 *= 2;
  int rem = P - pof2, v;
  /* the input is read where it is: Y takes only partial results */
  const void *in = sbuf != TUTTI_IN_PLACE ? sbuf : NULL;
  int rc = tutti__blocks_reduce_scatter_halving(r, in, Y, count, type, op, 0, tag, &v);
  if (v < 0) /* folded out: the result comes back from the odd neighbour */
    return rc ? rc : tutti_recv(r, Y, count, type, me + 1, tag, TUTTI_STATUS_IGNORE);
#define WORLD(pv) ((pv) < rem ? 2 * (pv) + 1 : (pv) + rem)
  if (!rc && !rem) {
    rc = tutti__blocks_allgather_recdbl(r, Y, count, type, 0, tag);
  } else {
    for (int mask = 1; !rc && mask < pof2; mask <<= 1) { /* the group's doubling */
      int pv = v ^ mask;
      long ss, sn, rs, rn;
      span(count, pof2, v & ~(mask - 1), mask, &ss, &sn);
      span(count, pof2, pv & ~(mask - 1), mask, &rs, &rn);
      rc = tutti_sendrecv(r, Y + (size_t)ss * esz, sn, type, WORLD(pv), tag, Y + (size_t)rs * esz,
                          rn, type, WORLD(pv), tag, TUTTI_STATUS_IGNORE);
    }
  }
#undef WORLD
  if (!rc && me < 2 * rem) rc = tutti_send(r, Y, count, type, me - 1, tag);
  return rc;
}

double tutti__allreduce_rabenseifner_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                          const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  if (m == 0 || P == 1) return 0;
  int pof2 = 1, lg = 0;
  while (pof2 * 2 <= P) pof2 *= 2, lg++;
  double blk;
  int even;
  if (tutti__cost_blocks(m, pof2, &blk, &even, NULL)) {
    *bound = !even;
  } else {
    blk = (double)m / pof2;
    if (m % (16 * (size_t)pof2)) *bound = 1, blk = (double)(m / (size_t)pof2 + 1) + 16;
  }
  double t = 2 * lg * h->alpha + (pof2 - 1) * blk * (2 * h->beta + h->gamma);
  if (pof2 < P) t += 2 * (h->alpha + h->beta * (double)m) + h->gamma * (double)m;
  return t;
}

/* pof2 ranks exchange every round of both halvings; each extra rank sends in and gets back. */
double tutti__allreduce_rabenseifner_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                          const tutti_hockney_t *h) {
  (void)a, (void)root, (void)h;
  if (m == 0 || P == 1) return 0;
  int pof2 = 1, lg = 0;
  while (pof2 * 2 <= P) pof2 *= 2, lg++;
  return 2.0 * pof2 * lg + 2.0 * (P - pof2);
}

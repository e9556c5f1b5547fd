/*
 * reduce_scatter_recursive_halving.c -- reduce_scatter `recursive-halving`
 * (MPI_Reduce_scatter_block semantics): blocks.c's recursive halving of
 * the input (in place, of the input itself). For P a power of two, in
 * step mask = P/2, ..., 1 rank v sends the mask blocks its partner
 * v XOR mask keeps and receives and combines the mask blocks it keeps, so
 * it ends with block v. For other P, with p' the largest power of two
 * below P and r = P - p', the first 2r ranks fold first: each even one
 * sends all P blocks to the odd one above it, which combines them and
 * then halves for both; group rank g (world rank 2g+1 for g < r, g + r
 * above) keeps the blocks of the world ranks it stands for, and at the end
 * an odd rank sends its even neighbour's block back. Operands are combined
 * in partner order: commutative ops only.
 *
 * Memory: the halving reads the input where it is and keeps the partial
 * results at the input's offsets in scratch of P blocks, of which it
 * writes only the half kept in the first exchange and, for the later
 * ones, a quarter received into: 3P/4 blocks a rank (a copy of the P
 * blocks and a receive buffer of P/2 were 3P/2). Not less with these
 * messages: the first exchange's P/2 kept blocks, own input combined
 * with the partner's, must be written somewhere (the input is read-only,
 * the result one block), and while the second sends half of them it
 * receives a quarter more. A rank that folds holds all P blocks and a
 * receive buffer of P/2.
 *
 * Source: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective
 * communication operations in MPICH", IJHPCA 19(1), 2005, sec. 4.5
 * (MPIR_Reduce_scatter_block_intra_recursive_halving; the halving phase of
 * Rabenseifner's allreduce, which shares the code).
 *
 * Cost under Hockney, m bytes per block, P a power of two:
 * log2(P) alpha + (P-1)(beta + gamma) m. Otherwise the fold adds
 * alpha + P (beta + gamma) m before and alpha + beta m after, and the
 * halving steps move unequal halves (a group rank holds one or two
 * blocks): the cost function replays that schedule (schedule.h), exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "schedule.h"
#include "tutti/coll.h"

int tutti__reduce_scatter_recursive_halving(tutti_rank_t *r, const void *sbuf, void *rbuf,
                                            long count, tutti_datatype_t type, tutti_op_t op,
                                            const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), in_place = sbuf == TUTTI_IN_PLACE;
  size_t bytes = (size_t)count * tutti_type_size(type);
  if (count == 0) return 0;
  if (P == 1) {
    return in_place ? 0 : tutti_local_copy(r, rbuf, sbuf, bytes);
  }
  /* W: the partial results at the input's offsets; only the ranges kept
   * or received into are written (blocks.c), the input read in place */
  char *W = in_place ? rbuf : tutti_scratch_alloc(r, (size_t)P * bytes);
  if (!W) return TUTTI_ENOMEM;
  int v = 0, rc = tutti__blocks_reduce_scatter_halving(r, in_place ? NULL : sbuf, W,
                                                       (long)P * count, type, op, count, tag, &v);
  if (!rc && v < 0) { /* folded out: my block comes back from the odd neighbour */
    rc = tutti_recv(r, rbuf, count, type, me + 1, tag, TUTTI_STATUS_IGNORE);
  } else if (!rc) {
    int pof2 = 1;
    while (pof2 * 2 <= P) pof2 *= 2;
    if (v < P - pof2) /* odd, standing for me - 1 too */
      rc = tutti_send(r, W + (size_t)(me - 1) * bytes, count, type, me - 1, tag);
    if (!rc) rc = tutti_local_copy(r, rbuf, W + (size_t)me * bytes, bytes); /* disjoint or equal */
  }
  if (!in_place) tutti_scratch_free(r, W);
  return rc;
}

/* The schedule for the replay: op k of world rank u (schedule.h). */
struct sched {
  int P, pof2, rem, lg;
  double m;
};

static double units_at(const struct sched *s, int g) { /* blocks before group rank g */
  return g < s->rem ? 2.0 * g : (double)(g + s->rem);
}

static int halving_op(const void *ctx, int u, long k, tutti__bop_t *o) {
  const struct sched *s = ctx;
  int folded = u < 2 * s->rem, even = folded && u % 2 == 0;
  *o = (tutti__bop_t){.speer = -1, .rpeer = -1};
  if (even) {
    if (k == 0)
      o->speer = u + 1, o->sbytes = s->P * s->m;
    else if (k == 1)
      o->rpeer = u + 1, o->rbytes = s->m;
    else
      return 0;
    return 1;
  }
  if (k == 0) {
    if (!folded) return 2;
    o->rpeer = u - 1, o->rbytes = s->P * s->m, o->reduce = 1;
    return 1;
  }
  if (k <= s->lg) {
    int v = folded ? u / 2 : u - s->rem, mask = s->pof2 >> k, lo = v & ~(2 * mask - 1);
    int keep = (v & mask) ? lo + mask : lo, give = (v & mask) ? lo : lo + mask;
    int pv = v ^ mask;
    o->speer = o->rpeer = pv < s->rem ? 2 * pv + 1 : pv + s->rem;
    o->sbytes = (units_at(s, give + mask) - units_at(s, give)) * s->m;
    o->rbytes = (units_at(s, keep + mask) - units_at(s, keep)) * s->m;
    o->reduce = 1;
    return 1;
  }
  if (k == s->lg + 1 && folded) {
    o->speer = u - 1, o->sbytes = s->m;
    return 1;
  }
  return 0;
}

double tutti__reduce_scatter_recursive_halving_cost(const tutti_algo_t *a, int P, int root,
                                                    size_t m, const tutti_hockney_t *h,
                                                    int *bound) {
  (void)a, (void)root;
  *bound = 0;
  if (m == 0 || P == 1) return 0;
  struct sched s = {.P = P, .pof2 = 1, .m = (double)m};
  while (s.pof2 * 2 <= P) s.pof2 *= 2, s.lg++;
  s.rem = P - s.pof2;
  if (!s.rem) return s.lg * h->alpha + (P - 1) * (h->beta + h->gamma) * (double)m;
  return tutti__schedule_hockney(P, halving_op, &s, h);
}

/* The schedule's sends. */
double tutti__reduce_scatter_recursive_halving_msgs(const tutti_algo_t *a, int P, int root,
                                                    size_t m, const tutti_hockney_t *h) {
  (void)a, (void)root, (void)h;
  if (m == 0 || P == 1) return 0;
  struct sched s = {.P = P, .pof2 = 1, .m = (double)m};
  while (s.pof2 * 2 <= P) s.pof2 *= 2, s.lg++;
  s.rem = P - s.pof2;
  return tutti__schedule_sends(P, halving_op, &s);
}

/*
 * allgather_bruck.c -- allgather `bruck`: the concatenation algorithm of
 * Bruck et al. for any P in ceil(log2 P) rounds. Rank v keeps its blocks
 * in a rotated order: slot i holds the block of rank (v + i) mod P, its
 * own in slot 0. In round k = 0, 1, ... it sends slots [0, n_k) to rank
 * (v - 2^k) mod P and receives slots [2^k, 2^k + n_k) from rank
 * (v + 2^k) mod P, n_k = min(2^k, P - 2^k): after round k it holds
 * min(2^(k+1), P) consecutive blocks. A final local rotation by v blocks
 * puts block j at position j. Here the slots are the result buffer itself,
 * and both rotations (own block to slot 0, then back) are done in place
 * (the three-reversal rotation), so no scratch space is needed.
 *
 * Source: J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal, D. Weathersby,
 * "Efficient algorithms for all-to-all communications in multiport
 * message-passing systems", IEEE TPDS 8(11), 1997, sec. 3 (the
 * concatenation / index-free allgather, k = 1 port); MPICH's
 * MPIR_Allgather_intra_brucks.
 *
 * Cost under Hockney, m bytes per rank: ceil(log2 P) alpha + (P-1) beta m
 * (the rounds move sum n_k = P-1 blocks). Exact: every rank's round k is
 * the same size. The local rotation is a memory copy, which the model does
 * not charge.
 */
#include <stddef.h>

#include "engine.h"
#include "tutti/coll.h"

static void reverse(unsigned char *p, size_t n) {
  for (size_t i = 0, j = n; i + 1 < j; i++, j--) {
    unsigned char t = p[i];
    p[i] = p[j - 1], p[j - 1] = t;
  }
}

/* Rotate n bytes left by k: byte k comes first. */
static void rotate_left(unsigned char *p, size_t n, size_t k) {
  if (!n || !(k %= n)) return;
  reverse(p, k);
  reverse(p + k, n - k);
  reverse(p, n);
}

int tutti__allgather_bruck(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                           tutti_datatype_t type, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r);
  size_t bytes = (size_t)count * tutti_type_size(type), all = (size_t)P * bytes;
  unsigned char *buf = rbuf;
  tutti__blocks_own(r, sbuf, rbuf, count, type);
  if (count == 0 || P == 1) return 0;
  rotate_left(buf, all, (size_t)me * bytes); /* own block to slot 0 */
  int rc = 0;
  for (int d = 1; !rc && d < P; d <<= 1) {
    int n = d < P - d ? d : P - d;
    rc = tutti_sendrecv(r, buf, (long)n * count, type, (me - d + P) % P, tag,
                        buf + (size_t)d * bytes, (long)n * count, type, (me + d) % P, tag,
                        TUTTI_STATUS_IGNORE);
  }
  rotate_left(buf, all, all - (size_t)me * bytes); /* slot i, rank me + i, to block me + i */
  return rc;
}

double tutti__allgather_bruck_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                   const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  if (m == 0 || P == 1) return 0;
  int rounds = 0;
  while ((1 << rounds) < P) rounds++;
  return rounds * h->alpha + (P - 1) * h->beta * (double)m;
}

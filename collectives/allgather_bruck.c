/*
 * allgather_bruck.c -- allgather `bruck`: the concatenation algorithm of
 * Bruck et al. for any P in ceil(log2 P) rounds. Rank v keeps its blocks
 * in a rotated order: slot i holds the block of rank (v + i) mod P, its
 * own in slot 0. In round k = 0, 1, ... it sends slots [0, n_k) to rank
 * (v - 2^k) mod P and receives slots [2^k, 2^k + n_k) from rank
 * (v + 2^k) mod P, n_k = min(2^k, P - 2^k): after round k it holds
 * min(2^(k+1), P) consecutive blocks. A final local rotation by v blocks
 * puts block j at position j. The slots are the receive buffer itself
 * (MPICH's are a scratch buffer of P blocks: as much memory again as the
 * result), rotated in place through one block of scratch, along the
 * gcd(P, v) cycles of the rotation; the copies are local copies, so a
 * timing-only run (TUTTI_NO_DATA) touches no payload.
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

int tutti__allgather_bruck(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                           tutti_datatype_t type, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r);
  size_t bytes = (size_t)count * tutti_type_size(type);
  unsigned char *out = rbuf;
  int rc = tutti__blocks_own(r, sbuf, rbuf, count, type);
  if (rc || count == 0 || P == 1) return rc;
  /* slot i (at position i) holds rank me + i's block: own block first */
  if (me) rc = tutti_local_copy(r, out, out + (size_t)me * bytes, bytes);
  for (int d = 1; !rc && d < P; d <<= 1) {
    int n = d < P - d ? d : P - d;
    rc = tutti_sendrecv(r, out, (long)n * count, type, (me - d + P) % P, tag,
                        out + (size_t)d * bytes, (long)n * count, type, (me + d) % P, tag,
                        TUTTI_STATUS_IGNORE);
  }
  if (rc || !me) return rc;
  /* position j takes slot j - me: each cycle of the rotation saves its
   * first slot, moves the others one by one and puts it last */
  unsigned char *tmp = tutti_scratch_alloc(r, bytes);
  if (!tmp) return TUTTI_ENOMEM;
  int g = P, h = me;
  while (h) { /* gcd(P, me): the number of cycles */
    int t = g % h;
    g = h, h = t;
  }
  for (int c = 0; !rc && c < g; c++) {
    rc = tutti_local_copy(r, tmp, out + (size_t)c * bytes, bytes);
    for (int i = c; !rc;) {
      int src = (i - me + P) % P;
      if (src == c) {
        rc = tutti_local_copy(r, out + (size_t)i * bytes, tmp, bytes);
        break;
      }
      rc = tutti_local_copy(r, out + (size_t)i * bytes, out + (size_t)src * bytes, bytes);
      i = src;
    }
  }
  tutti_scratch_free(r, tmp);
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

/* Every rank sends once a round. */
double tutti__allgather_bruck_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                   const tutti_hockney_t *h) {
  (void)a, (void)root, (void)h;
  if (m == 0 || P == 1) return 0;
  int rounds = 0;
  while ((1 << rounds) < P) rounds++;
  return (double)P * rounds;
}

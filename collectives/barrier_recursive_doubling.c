/*
 * barrier_recursive_doubling.c -- the butterfly barrier: in round r rank
 * v exchanges an empty message with v XOR 2^r, for log2 P' rounds, P' the
 * largest power of two <= P; after round r each rank has heard from the
 * 2^(r+1) ranks of its aligned block, after the last from all P'.
 *
 * The fold for P not a power of two (the standard one: Thakur, Rabenseifner
 * & Gropp's recursive-doubling allreduce, with the extra ranks on top): the
 * e = P - P' extra ranks P' + j (j < e) first send to rank j and then wait;
 * rank j receives from P' + j before its first round and, after its last,
 * releases P' + j. (REFERENCE.md "Barriers" fixes this convention.)
 *
 * Source: E. D. Brooks III, "The butterfly barrier", Int. J. Parallel
 * Programming 15(4), 1986; the fold: R. Thakur, R. Rabenseifner, W. Gropp,
 * "Optimization of collective communication operations in MPICH", IJHPCA
 * 19(1), 2005, sec. 4.4.
 *
 * Cost under Hockney (rendezvous, an empty message costs alpha): an
 * exchange ends alpha after the later of the two partners is ready, so
 * after round r every rank of a block stands at the block's latest start +
 * (r+1) alpha. With no fold that is log2 P alpha. With a fold the ranks
 * j < e start the butterfly at alpha, everyone ends it at (1 + log2 P')
 * alpha, and the release adds alpha:
 *   T = log2 P alpha                    for P a power of two,
 *   T = (floor(log2 P) + 2) alpha       otherwise (P = 1: 0).
 */
#include "engine.h"
#include "tutti/coll.h"

static int pow2_floor(int P) {
  int p = 1;
  while (p <= P / 2) p *= 2;
  return p;
}

int tutti__barrier_recursive_doubling(tutti_rank_t *r, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  const int P = tutti_size(r), me = tutti_rank(r), p2 = pow2_floor(P), extra = P - p2;
  if (me >= p2) { /* an extra rank: report to me - p2, wait for its release */
    int rc = tutti_send(r, NULL, 0, TUTTI_BYTE, me - p2, tag);
    return rc ? rc : tutti_recv(r, NULL, 0, TUTTI_BYTE, me - p2, tag, TUTTI_STATUS_IGNORE);
  }
  int rc = 0;
  if (me < extra) rc = tutti_recv(r, NULL, 0, TUTTI_BYTE, me + p2, tag, TUTTI_STATUS_IGNORE);
  for (int d = 1; d < p2 && !rc; d *= 2)
    rc = tutti_sendrecv(r, NULL, 0, TUTTI_BYTE, me ^ d, tag, NULL, 0, TUTTI_BYTE, me ^ d, tag,
                        TUTTI_STATUS_IGNORE);
  if (!rc && me < extra) rc = tutti_send(r, NULL, 0, TUTTI_BYTE, me + p2, tag);
  return rc;
}

/* Hockney: the closed form above, exact. */
double tutti__barrier_recursive_doubling_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                              const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root, (void)m;
  int p2 = pow2_floor(P), lg = 0;
  while ((1 << lg) < p2) lg++;
  *bound = 0;
  return (double)(lg + (P > p2 ? 2 : 0)) * h->alpha;
}

/* p2 ranks exchange every round; each extra rank sends in and is released. */
double tutti__barrier_recursive_doubling_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                              const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  int p2 = pow2_floor(P), lg = 0;
  while ((1 << lg) < p2) lg++;
  return (double)p2 * lg + 2.0 * (P - p2);
}

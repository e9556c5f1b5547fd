/*
 * barrier_tournament.c -- the tournament barrier with statically assigned
 * winners. In round r (d = 2^r) the ranks still playing are the multiples
 * of d; rank v with v mod 2d = 0 is the winner of its match and waits for
 * the loser v + d (a bye if v + d >= P), which reports and drops out to
 * wait for its release. Rank 0 wins the tournament; then the release tree:
 * every rank, once released (rank 0 at once), releases the losers it beat,
 * the last round's first (v + d for d from its last won round down to 1).
 *
 * Its messages are exactly those of the binomial tree barrier (an empty
 * binomial reduce to rank 0, then an empty binomial broadcast): the
 * matches are the binomial tree's edges, received in increasing rank, the
 * release its broadcast, farthest child first. It is kept as its own
 * algorithm because that is how the barrier literature states it, and
 * tests check the two give the same modeled times. (REFERENCE.md
 * "Barriers" fixes the pairing.)
 *
 * Source: D. Hensgen, R. Finkel, U. Manber, "Two algorithms for barrier
 * synchronization", Int. J. Parallel Programming 17(1), 1988, sec. 3;
 * J. Mellor-Crummey, M. Scott, "Algorithms for scalable synchronization
 * on shared-memory multiprocessors", ACM TOCS 9(1), 1991, sec. 3.3
 * (statically determined winners, a wake-up tree).
 *
 * Cost under Hockney (rendezvous, an empty message costs alpha): rank 0
 * plays ceil(log2 P) matches; the loser of its round-r match has finished
 * its own r matches by r alpha, so each match ends alpha after the last:
 * ceil(log2 P) alpha; the release is a binomial broadcast, ceil(log2 P)
 * alpha more:
 *   T = 2 ceil(log2 P) alpha.
 */
#include "engine.h"
#include "tutti/coll.h"

int tutti__barrier_tournament(tutti_rank_t *r, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  const int P = tutti_size(r), me = tutti_rank(r);
  int rc = 0;
  long d = 1;
  for (; d < P && !rc; d *= 2) {
    if (me & d) { /* lost in this round: report, wait for the release */
      rc = tutti_send(r, NULL, 0, TUTTI_BYTE, (int)(me - d), tag);
      if (!rc) rc = tutti_recv(r, NULL, 0, TUTTI_BYTE, (int)(me - d), tag, TUTTI_STATUS_IGNORE);
      break;
    }
    if (me + d < P)
      rc = tutti_recv(r, NULL, 0, TUTTI_BYTE, (int)(me + d), tag, TUTTI_STATUS_IGNORE);
  }
  /* d is the round this rank lost (its rank's lowest set bit), or past the
   * last round for rank 0: release the losers of the rounds before it */
  for (d /= 2; d >= 1 && !rc; d /= 2)
    if (me + d < P) rc = tutti_send(r, NULL, 0, TUTTI_BYTE, (int)(me + d), tag);
  return rc;
}

/* Hockney: 2 ceil(log2 P) alpha, exact. */
double tutti__barrier_tournament_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                      const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root, (void)m;
  int lg = 0;
  while ((1L << lg) < P) lg++;
  *bound = 0;
  return 2.0 * lg * h->alpha;
}

/* Every loser reports once and is released once. */
double tutti__barrier_tournament_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                      const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return 2.0 * (P - 1);
}

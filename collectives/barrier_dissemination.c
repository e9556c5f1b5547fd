/*
 * barrier_dissemination.c -- the dissemination barrier (a circulant graph),
 * with its k-way generalization. In round r (d = k^r) rank i sends an empty
 * message to i + j d and receives one from i - j d (mod P) for j = 1, ...,
 * k-1 (only those with j d < P); after round r it has heard, directly or
 * not, from the k^(r+1) ranks i - k^(r+1) + 1 .. i, so after
 * ceil(log_k P) rounds from every rank. k = 2 is the classic barrier.
 *
 * Source: D. Hensgen, R. Finkel, U. Manber, "Two algorithms for barrier
 * synchronization", Int. J. Parallel Programming 17(1), 1988, sec. 2
 * (dissemination); the k-way form: T. Hoefler et al., "Fast barrier
 * synchronization for InfiniBand", IPDPS 2006 (n-way dissemination);
 * collectives/REFERENCE.md "Barriers".
 *
 * A round posts its receives first and then sends one message at a time:
 * under rendezvous a send posted early would reserve its receiver's port
 * ahead of sends that could go first (runtime/MODEL.md rule 3).
 *
 * Cost under Hockney (m = 0, rendezvous, an empty message costs alpha): a
 * round's n_r = min(k-1, ceil(P/k^r) - 1) sends leave one port one after
 * the other, and every rank does the same at the same time, so
 *   T = sum over rounds r of n_r alpha;  k = 2: ceil(log2 P) alpha;
 *   P = k^R: R (k-1) alpha.
 * Postal latency L (eager, unit gap): sum over rounds of (n_r - 1 + L);
 * k = 2: ceil(log2 P) L.
 */
#include <stdlib.h>

#include "engine.h"
#include "tutti/coll.h"

#define SMALL 16 /* requests on the stack up to k = 17 */

int tutti__barrier_dissemination(tutti_rank_t *r, const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  const long P = tutti_size(r), me = tutti_rank(r), k = tutti__params(a)->k;
  if (k < 2) return TUTTI_EINVAL;
  /* A round posts its receives, then sends one after the other: a
   * rendezvous send left pending would hold a port it does not use yet
   * (runtime/MODEL.md rule 3), an eager one costs its gap either way. */
  long most = k - 1 < P - 1 ? k - 1 : P - 1;
  tutti_request_t small[SMALL], *q = small;
  if (most > SMALL && !(q = malloc((size_t)most * sizeof *q))) return TUTTI_ENOMEM;
  int rc = 0;
  for (long d = 1; d < P && !rc; d *= k) {
    int n = 0;
    for (long j = 1; j < k && j * d < P && !rc; j++) {
      long from = me - j * d < 0 ? me - j * d + P : me - j * d; /* j d < P: no division */
      rc = tutti_irecv(r, NULL, 0, TUTTI_BYTE, (int)from, tag, &q[n]);
      if (!rc) n++;
    }
    for (long j = 1; j < k && j * d < P && !rc; j++)
      rc = tutti_send(r, NULL, 0, TUTTI_BYTE, (int)(me + j * d >= P ? me + j * d - P : me + j * d),
                      tag);
    int rc2 = tutti_waitall(r, n, q, NULL);
    if (!rc) rc = rc2;
  }
  if (q != small) free(q);
  return rc;
}

/* Hockney: the sum above, exact for every P and k. */
double tutti__barrier_dissemination_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                         const tutti_hockney_t *h, int *bound) {
  (void)root, (void)m;
  double sends = 0;
  for (long d = 1; d < P; d *= tutti__params(a)->k) {
    long n = (P + d - 1) / d - 1;
    sends += (double)(n < tutti__params(a)->k - 1 ? n : tutti__params(a)->k - 1);
  }
  *bound = 0;
  return sends * h->alpha;
}

/* Every rank sends the same: the cost's sends. */
double tutti__barrier_dissemination_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                         const tutti_hockney_t *h) {
  (void)root, (void)m, (void)h;
  double sends = 0;
  for (long d = 1; d < P; d *= tutti__params(a)->k) {
    long n = (P + d - 1) / d - 1;
    sends += (double)(n < tutti__params(a)->k - 1 ? n : tutti__params(a)->k - 1);
  }
  return P * sends;
}

/*
 * barrier_fibonacci.c -- the generalized Fibonacci barrier for the postal
 * model of latency L (collectives/REFERENCE.md "Barriers"). With F the
 * postal numbers of latency L (F(t) = 1 for t < L, F(t) = F(t-1) +
 * F(t-L)) and f(P) = min{t : F(t) >= P}, at step t = 0, ..., K-1, K =
 * f(P) - L + 1, rank i sends an empty message to i + F(t+L-1) and will
 * receive one from i - F(t+L-1) (mod P); before sending at step t >= L it
 * waits for the message of step t - L. By time t rank i has heard from the
 * F(t) ranks i-F(t)+1 .. i (the message of step t-L brings the sender's
 * F(t-L) ranks, adjacent to its own F(t-1)), so the barrier ends at f(P):
 * as fast as the optimal broadcast alone, which no barrier can beat (the
 * last rank to enter must reach every other). For L = 1 it is the
 * dissemination barrier. L = auto: the run's postal latency for an empty
 * message, round(L(0)/S(0)) (coll.h tutti_algo_postal_L; the postal
 * preset's own L).
 *
 * Source: A. Bar-Noy, J. Bruck, C.-T. Ho, S. Kipnis, B. Schieber,
 * "Computing global combine operations in the multiport postal model",
 * IEEE TPDS 6(8), 1995 (the generalized Fibonacci numbers); the barrier as
 * in collectives/REFERENCE.md "Barriers"; left open by Bernaschi &
 * Iannello (1995), sec. 5.
 *
 * Cost under Hockney (rendezvous, an empty message costs alpha): every
 * rank sends one message per step, back to back on its port (step t's
 * wait, for step t-L, ends at (t-L+1) alpha, before the port is free):
 *   T = K alpha = (f_L(P) - L + 1) alpha, 0 for P = 1;
 * L = auto is 1 under Hockney: ceil(log2 P) alpha, as dissemination.
 * Postal model of latency L (its own L): f_L(P) steps.
 */
#include <math.h>
#include <stdlib.h>

#include "engine.h"
#include "tutti/coll.h"

/* F(0..n-1) of latency L, saturated at cap (a distance past P is never
 * used). */
static void postal_numbers(int L, long *F, int n, long cap) {
  for (int t = 0; t < n; t++) {
    long x = t < L ? 1 : F[t - 1] + F[t - L];
    F[t] = x > cap ? cap : x;
  }
}

/* The latency the barrier runs for: its L, or the model's for auto. */
static int latency_of(const tutti_rank_t *r, const tutti_algo_t *a) {
  return tutti__params(a)->L == TUTTI_PARAM_AUTO ? tutti_algo_postal_L(tutti_rank_model(r), 0)
                                                 : (int)tutti__params(a)->L;
}

int tutti__barrier_fibonacci(tutti_rank_t *r, const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  const int P = tutti_size(r), me = tutti_rank(r), L = latency_of(r, a);
  if (L < 1) return TUTTI_EINVAL;
  if (P == 1) return 0;
  int f = tutti_postal_f(L, P);
  if (f < 0) return f;
  int K = f - L + 1; /* >= 1 for P >= 2: f(P) >= L when P >= 2 */
  long *F = malloc((size_t)(f + 1) * sizeof *F);
  /* Blocking sends: under rendezvous a pending send would reserve its
   * receiver's port ahead of others (runtime/MODEL.md rule 3); in the
   * postal model a send returns after its unit gap, which is the step. */
  tutti_request_t *rq = malloc((size_t)K * sizeof *rq);
  int rc = F && rq ? 0 : TUTTI_ENOMEM, nr = 0;
  if (!rc) postal_numbers(L, F, f + 1, P);
  for (int t = 0; t < K && !rc; t++) {
    if (t >= L) rc = tutti_wait(r, &rq[t - L], NULL); /* leaves it TUTTI_REQUEST_NULL */
    long d = F[t + L - 1];                            /* < P: F(f-1) < P */
    if (!rc) rc = tutti_irecv(r, NULL, 0, TUTTI_BYTE, (int)((me - d + P) % P), tag, &rq[nr]);
    if (!rc) nr++, rc = tutti_send(r, NULL, 0, TUTTI_BYTE, (int)((me + d) % P), tag);
  }
  /* the receives not waited for yet: the last L steps' (the others are
   * null requests now) */
  int rc2 = nr ? tutti_waitall(r, nr, rq, NULL) : 0;
  if (!rc) rc = rc2;
  free(F), free(rq);
  return rc;
}

/* Hockney: K alpha, L = auto being 1 (the preset's L(0)/S(0)). Exact. */
double tutti__barrier_fibonacci_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                     const tutti_hockney_t *h, int *bound) {
  (void)root, (void)m;
  int L = tutti__params(a)->L == TUTTI_PARAM_AUTO ? 1 : (int)tutti__params(a)->L;
  *bound = 0;
  if (P <= 1) return 0;
  int f = tutti_postal_f(L, P);
  return f < 0 ? NAN : (double)(f - L + 1) * h->alpha;
}

/* Every rank sends once a step (L = auto is 1 under Hockney, as the cost's). */
double tutti__barrier_fibonacci_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                     const tutti_hockney_t *h) {
  (void)root, (void)m, (void)h;
  int L = tutti__params(a)->L == TUTTI_PARAM_AUTO ? 1 : (int)tutti__params(a)->L;
  if (P <= 1) return 0;
  int f = tutti_postal_f(L, P);
  return f < 0 ? NAN : (double)P * (f - L + 1);
}

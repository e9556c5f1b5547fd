/*
 * bcast_pipelined_chain.c -- the linear pipelined broadcast: the ranks
 * form a chain from the root, the message is cut into S segments, and
 * every rank forwards segment k to its successor while it receives
 * segment k+1 from its predecessor. Once the pipeline is full every link
 * of the chain is busy at once, so for large messages the time tends to
 * beta m, the bandwidth lower bound, whatever P.
 *
 * Source: X. Yuan's lecture on MPI_Bcast ("linear tree pipelined
 * broadcast", bcast-linear.c, and the contention-free mapping on a tree of
 * switches); P. Patarasuk, A. Faraj and X. Yuan, "Pipelined broadcast on
 * Ethernet switched clusters", JPDC 68(6), 2008, sections 3-4.
 *
 * Segments are whole bytes, cut as blocks (tutti__block_range): the first
 * m mod S segments are one byte longer, so any datatype works and sizes
 * differ by at most one byte (a broadcast only copies; it moves bytes).
 * segments=S gives S (1 <= S <= m; an empty message is one empty message);
 * segment=SIZE gives S = ceil(m / SIZE) such blocks (none larger than
 * SIZE); segments=auto (the default) S* = sqrt((P-2) beta m / alpha) with
 * alpha, beta of the run's model (the latency and receive overhead of a
 * message: alpha + beta b per hop under Hockney), the better of floor and
 * ceiling by the cost below, within [1, m].
 *
 * The chain (order=): rank order from the root; the run's contention-free
 * chain (tutti_rank_chain: a DFS over the topology's switches from the
 * root's switch, at most one chain hop per directed link; rank order
 * without a topology); or an explicit list, a permutation of the ranks
 * starting at the root (the registry checks it before any message moves).
 *
 * The pipeline: with window=W (default 1) a rank keeps at most W sends
 * in flight and W+1 receives posted (segments k+1 .. k+W+1 while it
 * forwards k; window=0: every segment), so no posting waits on the rank's
 * own progress: under Hockney (all rendezvous) link i starts segment k at
 * max(end of k on link i-1, end of k-1 on link i), whatever W, since a
 * port or link serves one message at a time. W = 1 is the paper's pipeline; W = 0
 * posts every segment at once, as SMPI's NTSL does (bcast-NTSL.cpp:
 * every irecv first, an isend as each segment arrives, the root's isends
 * all at once). They differ where messages share bandwidth (runtime/
 * MODEL.md "Sharing", fair): segments in flight together arrive together,
 * and the chain then does not pipeline.
 *
 * Cost under Hockney with b_0 = ceil(m/S), the largest segment: the last
 * rank's finish is the heaviest monotone path through the (link, segment)
 * grid, every segment once plus P-2 repeats of the largest, so
 *   T = (S + P - 2) alpha + beta (m + (P-2) ceil(m/S)),
 * which is (S + P - 2)(alpha + beta m/S) when S divides m (REFERENCE.md
 * "Linear pipelined broadcast"; the lecture's S+P-1 counts one step more).
 * P = 5, alpha = 1 us, beta = 1 us/B, m = 100: T(1) = 404 us, T(10) =
 * 143 us, T(20) = 138 us. Minimum near S* = sqrt((P-2) beta m / alpha).
 */
#include <math.h>
#include <stdlib.h>

#include "engine.h"
#include "tutti/coll.h"

/* The Hockney time above; P <= 1 moves nothing. */
static double chain_time(int P, size_t m, long S, double alpha, double beta) {
  if (P <= 1) return 0;
  double big = (double)((m + (size_t)S - 1) / (size_t)S);
  return (double)(S + P - 2) * alpha + beta * ((double)m + (double)(P - 2) * big);
}

/* The number of segments for P ranks and m bytes: the parameters, or auto
 * from alpha and beta (engine.h's rule above). */
static long chain_segments(const tutti_algo_t *a, int P, size_t m, double alpha, double beta) {
  if (m == 0) return 1;
  if (tutti__params(a)->segment) return (long)((m - 1) / tutti__params(a)->segment + 1);
  if (tutti__params(a)->segments != TUTTI_PARAM_AUTO) return tutti__params(a)->segments;
  if (!(alpha > 0) || !(beta > 0) || P <= 2) return 1; /* no gain from segments */
  double s = sqrt((double)(P - 2) * beta * (double)m / alpha);
  long lo = s < 1 ? 1 : s > (double)m ? (long)m : (long)floor(s);
  long hi = lo < (long)m && (double)lo < s ? lo + 1 : lo;
  return chain_time(P, m, hi, alpha, beta) < chain_time(P, m, lo, alpha, beta) ? hi : lo;
}

/* This rank's neighbours in the chain of order=. */
static int chain_neighbours(tutti_rank_t *r, const tutti_algo_t *a, int root, int *prev,
                            int *next) {
  const int P = tutti_size(r), me = tutti_rank(r);
  if (tutti__params(a)->order == TUTTI_ORDER_DFS) return tutti_rank_chain(r, root, prev, next);
  if (tutti__params(a)->order != TUTTI_ORDER_LIST) {
    int v = (me - root + P) % P;
    *prev = v ? (me - 1 + P) % P : -1;
    *next = v < P - 1 ? (me + 1) % P : -1;
    return 0;
  }
  int *order = malloc((size_t)P * sizeof *order);
  if (!order) return TUTTI_ENOMEM;
  int rc = TUTTI_EINVAL; /* not in the list: the registry refuses that before the call */
  long n = tutti__rank_list(tutti_param_list(a, "order"), order, P);
  for (int i = 0; n == P && i < P; i++)
    if (order[i] == me) {
      *prev = i ? order[i - 1] : -1;
      *next = i + 1 < P ? order[i + 1] : -1;
      rc = 0;
      break;
    }
  free(order);
  return rc;
}

/* Segment k of S of the m bytes at buf (NULL stays NULL: m = 0). */
struct seg {
  char *p;
  long n;
};
static struct seg seg(void *buf, long m, long S, long k) {
  long off, n;
  tutti__block_range(m, (int)S, (int)k, &off, &n);
  return (struct seg){buf ? (char *)buf + off : NULL, n};
}

int tutti__bcast_pipelined_chain(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type,
                                 int root, const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  const int P = tutti_size(r);
  if (P == 1) return 0;
  int prev, next, rc = chain_neighbours(r, a, root, &prev, &next);
  if (rc) return rc;
  const long m = (long)((size_t)count * tutti_type_size(type));
  const tutti_model_t *mod = tutti_rank_model(r);
  /* the pieces of a piecewise model that apply to the whole message */
  const tutti_cost_t lat = tutti_cost_at(&mod->latency, (double)m),
                     rcpu = tutti_cost_at(&mod->recv_cpu, (double)m);
  const double alpha = lat.a + rcpu.a, beta = lat.b + rcpu.b;
  const long S = chain_segments(a, P, (size_t)m, alpha, beta);
  /* W sends in flight (sq[k % W]) and W+1 receives posted (rq[k % (W+1)]) */
  const long w = tutti__params(a)->window, W = w && w < S ? w : S; /* window=0: all */
  tutti_request_t small[8], *q = 2 * W + 1 <= 8 ? small : malloc((size_t)(2 * W + 1) * sizeof *q);
  if (!q) return TUTTI_ENOMEM;
  for (long i = 0; i < 2 * W + 1; i++) q[i] = TUTTI_REQUEST_NULL;
  tutti_request_t *rq = q, *sq = q + W + 1;
  struct seg sg;
  for (long k = 0; prev >= 0 && k <= W && k < S && !rc; k++)
    sg = seg(buf, m, S, k), rc = tutti_irecv(r, sg.p, sg.n, TUTTI_BYTE, prev, tag, &rq[k]);
  for (long k = 0; k < S && !rc; k++) {
    if (prev >= 0 && (rc = tutti_wait(r, &rq[k % (W + 1)], TUTTI_STATUS_IGNORE))) break;
    if (next >= 0) {
      if ((rc = tutti_wait(r, &sq[k % W], TUTTI_STATUS_IGNORE))) break;
      sg = seg(buf, m, S, k);
      if ((rc = tutti_isend(r, sg.p, sg.n, TUTTI_BYTE, next, tag, &sq[k % W]))) break;
    }
    if (prev >= 0 && k + W + 1 < S)
      sg = seg(buf, m, S, k + W + 1),
      rc = tutti_irecv(r, sg.p, sg.n, TUTTI_BYTE, prev, tag, &rq[k % (W + 1)]);
  }
  KEEP_FIRST_ERROR(rc, tutti_waitall(r, (int)W, sq, NULL));
  KEEP_FIRST_ERROR(rc, tutti_waitall(r, (int)W + 1, rq, NULL));
  if (q != small) free(q);
  return rc;
}

/* Hockney: exact, from the closed form above. */
double tutti__bcast_pipelined_chain_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                         const tutti_hockney_t *h, int *bound) {
  (void)root;
  *bound = 0;
  long S = chain_segments(a, P, m, h->alpha, h->beta);
  if (m && (size_t)S > m) return NAN; /* the call is refused */
  return chain_time(P, m, S, h->alpha, h->beta);
}

/* A segment a link of the chain. */
double tutti__bcast_pipelined_chain_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                         const tutti_hockney_t *h) {
  (void)root;
  if (P <= 1) return 0;
  long S = chain_segments(a, P, m, h->alpha, h->beta);
  return m && (size_t)S > m ? NAN : (double)(P - 1) * (double)S;
}

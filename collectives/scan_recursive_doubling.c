/*
 * scan_recursive_doubling.c -- scan and exscan `recursive-doubling`: Hillis
 * and Steele's data-parallel prefix. Rank i keeps the combination of a
 * window of ranks ending at i, one rank wide at first. In round k, with
 * d = 2^k, it sends its window to rank i + d (if any) and receives rank
 * i - d's (if any), which ends just below its own: it combines it on the
 * left, and the window doubles. After ceil(log2 P) rounds the window
 * reaches rank 0. exscan keeps a second combination, the windows received
 * so far without x_i (the first one received is rank i-1's x_(i-1)), and
 * skips combining its window once no rank above will read it.
 *
 * Source: W. D. Hillis, G. L. Steele Jr., "Data parallel algorithms",
 * CACM 29(12), 1986 (the prefix sum in log n steps); MPICH's
 * MPIR_Scan_intra_recursive_doubling and MPIR_Exscan_intra_recursive_doubling
 * (the same rounds by XOR partners).
 *
 * Cost under Hockney, m bytes per rank: ceil(log2 P)(alpha + beta m +
 * gamma m) for scan; exscan combines twice in the rounds after the first
 * where its window still has a reader, up to ceil(log2 P)(alpha + beta m)
 * + (2 ceil(log2 P) - 1) gamma m. Exact: the cost replays the rounds
 * (schedule.h), ranks near 0 receiving in fewer of them.
 */
#include "engine.h"
#include "schedule.h"
#include "tutti/coll.h"

/* Round k of rank me: its partners (-1: none) and how many combinations
 * follow (the window always for scan; for exscan the result from the
 * second window received on, the window while someone above reads it). */
static void round_of(int P, int me, int d, int exclusive, int *to, int *from, int *combine) {
  *to = me + d < P ? me + d : -1;
  *from = me - d >= 0 ? me - d : -1;
  *combine = 0;
  if (*from < 0) return;
  if (!exclusive) {
    *combine = 1;
    return;
  }
  *combine = (d > 1) + (me + 2 * d < P);
}

static int rounds(tutti_rank_t *r, const void *sbuf, void *rbuf, long count, tutti_datatype_t type,
                  tutti_op_t op, int exclusive) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0;
  size_t bytes = (size_t)count * tutti_type_size(type);
  const void *x = sbuf == TUTTI_IN_PLACE ? rbuf : sbuf;
  /* the window: rbuf for scan, scratch for exscan (rbuf is its result) */
  unsigned char *t = tutti_scratch_alloc(r, (exclusive ? 2 : 1) * (bytes ? bytes : 1));
  if (!t) return TUTTI_ENOMEM;
  void *win = exclusive ? t + bytes : rbuf;
  if (win != x) rc = tutti_local_copy(r, win, x, bytes);
  for (int d = 1; !rc && d < P; d <<= 1) {
    int to, from, combine;
    round_of(P, me, d, exclusive, &to, &from, &combine);
    /* exscan's first window received is its result as it stands */
    void *in = exclusive && d == 1 ? rbuf : t;
    if (to >= 0 && from >= 0)
      rc = tutti_sendrecv(r, win, count, type, to, tag, in, count, type, from, tag,
                          TUTTI_STATUS_IGNORE);
    else if (to >= 0)
      rc = tutti_send(r, win, count, type, to, tag);
    else if (from >= 0)
      rc = tutti_recv(r, in, count, type, from, tag, TUTTI_STATUS_IGNORE);
    if (rc || from < 0) continue;
    if (exclusive && d > 1) rc = tutti_reduce_local_r(r, t, rbuf, count, type, op);
    if (!rc && (!exclusive || me + 2 * d < P))
      rc = tutti_reduce_local_r(r, in, win, count, type, op);
  }
  tutti_scratch_free(r, t);
  return rc;
}

int tutti__scan_recursive_doubling(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                   tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;
  return rounds(r, sbuf, rbuf, count, type, op, 0);
}

int tutti__exscan_recursive_doubling(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                     tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;
  return rounds(r, sbuf, rbuf, count, type, op, 1);
}

struct sched {
  int P, exclusive;
  double m;
};

static int op_at(const void *ctx, int rank, long k, tutti__bop_t *o) {
  const struct sched *s = ctx;
  if (k >= 31 || (1L << k) >= s->P) return 0;
  *o = (tutti__bop_t){0};
  round_of(s->P, rank, 1 << k, s->exclusive, &o->speer, &o->rpeer, &o->reduce);
  o->sbytes = o->rbytes = s->m;
  return o->speer < 0 && o->rpeer < 0 ? 2 : 1;
}

static double cost(int P, size_t m, const tutti_hockney_t *h, int exclusive, int *bound) {
  *bound = 0;
  struct sched s = {P, exclusive, (double)m};
  return tutti__schedule_hockney(P, op_at, &s, h);
}

/* The schedule's sends. */
static double msgs(int P, int exclusive) {
  struct sched s = {P, exclusive, 0};
  return tutti__schedule_sends(P, op_at, &s);
}

double tutti__scan_recursive_doubling_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                           const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  return cost(P, m, h, 0, bound);
}

double tutti__exscan_recursive_doubling_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                             const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  return cost(P, m, h, 1, bound);
}

double tutti__scan_recursive_doubling_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                           const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return msgs(P, 0);
}

double tutti__exscan_recursive_doubling_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                             const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return msgs(P, 1);
}

/*
 * scan_binomial.c -- scan and exscan `binomial`: the up-sweep and
 * down-sweep of a work-efficient prefix on the binomial tree in rank
 * order. Up: in round d = 1, 2, 4, ... rank i with (i+1) mod 2d = 0
 * receives the combination of ranks [i-2d+1, i-d] from rank i-d and puts
 * it on the left of its own [i-d+1, i]; after the up-sweep rank 2^j - 1
 * holds the prefix up to itself. Down: in rounds d = 2^(ceil(log2 P)-1),
 * ..., 1 rank i with (i+1) mod 2d = 0 sends its prefix to rank i+d (if
 * any), which puts it on the left of what it holds: its prefix. Every
 * combination has the lower ranks on the left, so a non-commutative op is
 * right. 2 log2 P rounds, but only P-1 combinations up and fewer than P
 * down in all (Hillis-Steele's recursive doubling: P log2 P). exscan also
 * keeps what a rank received without its own x_i: its result.
 *
 * Source: G. E. Blelloch, "Prefix sums and their applications", CMU-CS-
 * 90-190, 1990 (the up-sweep and down-sweep); R. P. Brent, H. T. Kung,
 * "A regular layout for parallel adders", IEEE TC 31(3), 1982 (the
 * inclusive form used here, which needs no identity element).
 *
 * Cost under Hockney, m bytes per rank: at most (2 ceil(log2 P) - 1)
 * (alpha + beta m + gamma m) for scan (exscan: up to gamma m more a round);
 * exact: the cost replays the rounds (schedule.h).
 *
 * Memory: a block received to be combined comes into scratch held for
 * that step only; exscan's prefix is x itself (sent from the input) until
 * it first grows, and only then a copy (in place, from the start), given
 * back after its last send. So a rank holds scratch only while it
 * combines, and exscan's prefix only between a receive and its last send
 * (all held it for the whole call, and every rank that received its
 * receive buffer too).
 */
#include "engine.h"
#include "schedule.h"
#include "tutti/coll.h"

/* Step k of rank me, rounds up d = 1, 2, ..., then down from the top:
 * its partners (-1: none; never both). 0 past the last step. */
static int step_of(int P, int me, long k, int *to, int *from) {
  int up = 0;
  while ((1L << up) < P) up++; /* rounds each way: ceil(log2 P) */
  if (k >= 2L * up) return 0;
  *to = *from = -1;
  int d = 1 << (k < up ? k : 2 * up - 1 - k), at = (me + 1) % (2 * d);
  if (k < up) { /* up: me - d's part to me */
    if (at == 0) *from = me - d;
    if (at == d && me + d < P) *to = me + d;
  } else { /* down: me's prefix to me + d */
    if (at == 0 && me + d < P) *to = me + d;
    if (at == d && me - d >= 0) *from = me - d;
  }
  return 1;
}

/* Rank me sends after step k: exscan's prefix, which is not its result,
 * need not grow otherwise. */
static int sends_after(int P, int me, long k) {
  int to, from;
  for (long j = k + 1; step_of(P, me, j, &to, &from); j++)
    if (to >= 0) return 1;
  return 0;
}

/* How many combinations follow rank me's receive at step k: scan, one
 * (its prefix is its result); exscan, one into its result unless this is
 * the first block it receives, and one into its prefix if it sends later. */
static int combines(int P, int me, long k, int exclusive) {
  if (!exclusive) return 1;
  int to, from, before = 0;
  for (long j = 0; j < k && step_of(P, me, j, &to, &from); j++) before |= from >= 0;
  return before + sends_after(P, me, k);
}

static int sweep(tutti_rank_t *r, const void *sbuf, void *rbuf, long count, tutti_datatype_t type,
                 tutti_op_t op, int exclusive) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0, have = 0, to, from;
  size_t bytes = (size_t)count * tutti_type_size(type), size = bytes ? bytes : 1;
  const void *x = sbuf == TUTTI_IN_PLACE ? rbuf : sbuf;
  /* the prefix: rbuf for scan; for exscan (rbuf is its result) x itself
   * until it first grows, then a copy in scratch (in place, a copy from
   * the start: the first block received overwrites x) */
  const void *pre = exclusive ? x : rbuf;
  char *grown = NULL, *t = NULL;
  if (exclusive && x == rbuf && !(pre = grown = tutti_scratch_alloc(r, size))) return TUTTI_ENOMEM;
  if (pre != x) rc = tutti_local_copy(r, (void *)pre, x, bytes);
  for (long k = 0; !rc && step_of(P, me, k, &to, &from); k++) {
    if (to >= 0) rc = tutti_send(r, pre, count, type, to, tag);
    if (grown && !rc && to >= 0 && !sends_after(P, me, k)) { /* its last send: done with it */
      tutti_scratch_free(r, grown);
      pre = grown = NULL;
    }
    if (from < 0 || rc) continue;
    /* exscan: the first block received is its result as it stands; the
     * others come into scratch held for this step only */
    void *in = rbuf;
    if ((!exclusive || have) && !(in = t = tutti_scratch_alloc(r, size))) {
      rc = TUTTI_ENOMEM;
      break;
    }
    rc = tutti_recv(r, in, count, type, from, tag, TUTTI_STATUS_IGNORE);
    if (!rc && exclusive && have) rc = tutti_reduce_local_r(r, t, rbuf, count, type, op);
    if (!rc && (!exclusive || sends_after(P, me, k))) {
      if (pre == x && exclusive) { /* exscan's prefix grows: a copy of x first */
        if (!(grown = tutti_scratch_alloc(r, size))) rc = TUTTI_ENOMEM;
        if (!rc) rc = tutti_local_copy(r, grown, x, bytes);
        pre = grown;
      }
      if (!rc) rc = tutti_reduce_local_r(r, in, (void *)pre, count, type, op);
    }
    tutti_scratch_free(r, t);
    t = NULL;
    have = 1;
  }
  tutti_scratch_free(r, grown);
  return rc;
}

int tutti__scan_binomial(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                         tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;
  return sweep(r, sbuf, rbuf, count, type, op, 0);
}

int tutti__exscan_binomial(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                           tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;
  return sweep(r, sbuf, rbuf, count, type, op, 1);
}

struct sched {
  int P, exclusive;
  double m;
};

static int op_at(const void *ctx, int rank, long k, tutti__bop_t *o) {
  const struct sched *s = ctx;
  *o = (tutti__bop_t){0};
  if (!step_of(s->P, rank, k, &o->speer, &o->rpeer)) return 0;
  if (o->speer < 0 && o->rpeer < 0) return 2;
  o->sbytes = o->rbytes = s->m;
  if (o->rpeer >= 0) o->reduce = combines(s->P, rank, k, s->exclusive);
  return 1;
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

double tutti__scan_binomial_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  return cost(P, m, h, 0, bound);
}

double tutti__exscan_binomial_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                   const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  return cost(P, m, h, 1, bound);
}

double tutti__scan_binomial_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return msgs(P, 0);
}

double tutti__exscan_binomial_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                   const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return msgs(P, 1);
}

/*
 * allreduce_binary_reduce_bcast.c -- allreduce as a pipelined reduce to
 * the root of a post-order binary tree (rank P-1) followed by a pipelined
 * broadcast down the same tree, b blocks: Traff's 4 beta m baseline.
 *
 * Reduce, round j: a rank receives its first child's block j while it
 * sends its own block j-1 (complete) to its parent, in one sendrecv, then
 * receives its second child's block j; each arrives in a temporary and is
 * combined on the left, in place. Broadcast, round j: a rank receives
 * block j from its parent while it sends block j-1 to its second child,
 * then sends block j to its first child. So every rank makes at most two
 * exchanges per block in each phase: 2 beta m + 2 beta m. The post-order
 * tree keeps rank order: non-commutative ops are fine. (The existing
 * `reduce-bcast` keeps its binomial trees and its modeled times.)
 *
 * Source: J. L. Traff, "A doubly-pipelined, dual-root reduction-to-all
 * algorithm and implementation", 2021 (the reduce-then-broadcast
 * comparison); the tree is pipetree.h's.
 *
 * Cost under Hockney, P = 2^(H+1) - 1, b blocks dividing m: about
 * (4H + 4(b-1))(alpha + beta m/b) + reductions. The registered cost runs
 * the schedule below through schedule.h's Hockney replay of blocking
 * exchanges
 * (exact when every element size cuts m into b equal blocks, else a bound
 * with blocks of ceil(m/b) + 16 bytes, pipetree.h's convention).
 * Messages: 2 (P - 1) b.
 */
#include <math.h>
#include <stdlib.h>

#include "engine.h"
#include "pipetree.h"
#include "schedule.h"

/* The k-th operation of a rank (0, 1, ...); 0 when there is none left. */
static int op_at(const tutti__ponode_t *nd, long b, long k, tutti__bop_t *o) {
  int c1 = nd->c1, c2 = nd->c2, par = nd->parent;
  /* reduce: per round two slots (first child || parent, second child),
   * then one closing send to the parent */
  long rk = 2 * b + 1;
  if (k < rk) {
    long j = k / 2;
    *o = (tutti__bop_t){-1, -1, -1, -1, 0, 0, 1};
    if (k == 2 * b) { /* closing send of the last block */
      if (par < 0) return 2;
      o->speer = par, o->sblk = c1 >= 0 ? b - 1 : -1;
      if (o->sblk < 0) return 2; /* a leaf sent every block in its rounds */
      return 1;
    }
    if (k % 2 == 0) {
      if (c1 >= 0) {
        o->rpeer = c1, o->rblk = j;
        if (par >= 0 && j >= 1) o->speer = par, o->sblk = j - 1;
      } else if (par >= 0) {
        o->speer = par, o->sblk = j; /* a leaf */
      }
    } else if (c2 >= 0) {
      o->rpeer = c2, o->rblk = j;
    }
    return o->speer >= 0 || o->rpeer >= 0 ? 1 : 2;
  }
  k -= rk;
  long bk = 2 * b + 1;
  if (k >= bk) return 0;
  long j = k / 2;
  *o = (tutti__bop_t){-1, -1, -1, -1, 0, 0, 0};
  if (k == 2 * b) { /* closing send to the second child */
    if (c2 >= 0) o->speer = c2, o->sblk = b - 1;
  } else if (k % 2 == 0) {
    if (par >= 0) o->rpeer = par, o->rblk = j;
    if (c2 >= 0 && j >= 1) o->speer = c2, o->sblk = j - 1;
  } else if (c1 >= 0) {
    o->speer = c1, o->sblk = j;
  }
  return o->speer >= 0 || o->rpeer >= 0 ? 1 : 2;
}

/* blocks=auto: the pipelining lemma (pipetree.h tutti__pipeline_blocks)
 * for (4H + 4(b-1))(alpha + beta m/b), H = ceil(log2(P+1)) - 1: depth
 * 4H - 4 (at least 4, as for H = 2), 4 exchanges a block, m bytes, at
 * most `most` blocks; the run's latency cost at 0 bytes and its slope
 * stand for alpha and beta. */
static long auto_blocks(int P, double m, double alpha, double beta, long most) {
  int H = 0;
  while ((1L << (H + 1)) - 1 < P) H++;
  return tutti__pipeline_blocks(4 * fmax(H - 1, 1), 4, m, alpha, beta, most);
}

static long clamp_blocks(long blocks, long count) {
  long b = blocks == TUTTI_PARAM_AUTO ? 1 : blocks;
  if (b > count) b = count;
  return b < 1 ? 1 : b;
}

int tutti__allreduce_binary_reduce_bcast(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                         tutti_datatype_t type, tutti_op_t op,
                                         const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r);
  size_t esz = tutti_type_size(type);
  char *Y = rbuf;
  int rc = sbuf != TUTTI_IN_PLACE ? tutti_local_copy(r, Y, sbuf, (size_t)count * esz) : 0;
  if (rc || count == 0 || P == 1) return rc;
  long b = tutti__params(a)->blocks;
  if (b == TUTTI_PARAM_AUTO) {
    const double m = (double)count * (double)esz;
    const tutti_cost_t lat = tutti_cost_at(&tutti_rank_model(r)->latency, m); /* m's piece */
    b = auto_blocks(P, m, tutti_cost_eval(&lat, 0), lat.b, count);
  }
  b = clamp_blocks(b, count);
  tutti__ponode_t nd;
  tutti__postorder_node(0, P - 1, me, &nd);
  long cap = (count + b - 1) / b;
  char *t = tutti_scratch_alloc(r, (size_t)cap * esz);
  if (!t) return TUTTI_ENOMEM;
  int more;
  tutti__bop_t o;
  for (long k = 0; !rc && (more = op_at(&nd, b, k, &o)); k++) {
    if (more == 2) continue;
    long ss = 0, sn = 0, rs = 0, rn = 0;
    if (o.speer >= 0) tutti__block_range(count, (int)b, (int)o.sblk, &ss, &sn);
    if (o.rpeer >= 0) tutti__block_range(count, (int)b, (int)o.rblk, &rs, &rn);
    char *rp = o.reduce ? t : Y + (size_t)rs * esz;
    if (o.speer >= 0 && o.rpeer >= 0)
      rc = tutti_sendrecv(r, Y + (size_t)ss * esz, sn, type, o.speer, tag, rp, rn, type, o.rpeer,
                          tag, TUTTI_STATUS_IGNORE);
    else if (o.speer >= 0)
      rc = tutti_send(r, Y + (size_t)ss * esz, sn, type, o.speer, tag);
    else
      rc = tutti_recv(r, rp, rn, type, o.rpeer, tag, TUTTI_STATUS_IGNORE);
    if (!rc && o.reduce && o.rpeer >= 0 && rn)
      rc = tutti_reduce_local_r(r, t, Y + (size_t)rs * esz, rn, type, op);
  }
  tutti_scratch_free(r, t);
  return rc;
}

/* ------------------------------------------------------------ the cost */

struct sctx {
  int P;
  long b;
  double blk;
};

static int sched_op(const void *ctx, int rank, long k, tutti__bop_t *o) {
  const struct sctx *c = ctx;
  tutti__ponode_t nd;
  tutti__postorder_node(0, c->P - 1, rank, &nd);
  int more = op_at(&nd, c->b, k, o);
  o->sbytes = o->rbytes = c->blk;
  return more;
}

struct bctx {
  int P;
  double blk;
  const tutti_hockney_t *h;
};

/* b blocks of blk bytes, replayed (tutti__pipeline_cost_bounded) */
static double brb_time(void *ctx, long b) {
  const struct bctx *c = ctx;
  struct sctx s = {c->P, b, c->blk};
  return tutti__schedule_hockney(c->P, sched_op, &s, c->h);
}

/* The run's blocks for m > 0 bytes under h, as the cost and the message
 * count take them: *count elements, bytes if the element size is not
 * known (tutti__cost_count). */
static long cost_blocks_of(const tutti_algo_t *a, int P, size_t m, const tutti_hockney_t *h,
                           long *count) {
  long b = tutti__params(a)->blocks;
  *count = tutti__cost_count(m);
  return clamp_blocks(
      b == TUTTI_PARAM_AUTO ? auto_blocks(P, (double)m, h->alpha, h->beta, *count) : b, *count);
}

double tutti__allreduce_binary_reduce_bcast_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                                 const tutti_hockney_t *h, int *bound) {
  (void)root;
  *bound = 0;
  if (m == 0 || P == 1) return 0;
  long count, b = cost_blocks_of(a, P, m, h, &count);
  double blk;
  int exact;
  if (!tutti__cost_blocks(m, b, &blk, &exact, NULL)) {
    exact = b == 1 || m % (16 * (size_t)b) == 0;
    blk = exact ? (double)m / (double)b : ceil((double)m / (double)b) + 16;
  }
  *bound = !exact;
  struct bctx ctx = {P, blk, h};
  double T = tutti__pipeline_cost_bounded(P, b, brb_time, &ctx, bound);
  if (!exact) *bound = 1;
  return T;
}

/* A message per tree edge per block, up in the reduce and down in the broadcast. */
double tutti__allreduce_binary_reduce_bcast_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                                 const tutti_hockney_t *h) {
  (void)root;
  if (m == 0 || P == 1) return 0;
  long count;
  return 2.0 * (double)(P - 1) * (double)cost_blocks_of(a, P, m, h, &count);
}

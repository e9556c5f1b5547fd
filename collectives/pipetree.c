/*
 * pipetree.c -- Traff's doubly-pipelined allreduce on post-order binary
 * trees (Algorithm 1; collectives/REFERENCE.md "Doubly-pipelined dual-root
 * allreduce"), for one tree (single-tree) or two with dual roots
 * (dual-root): the rounds, the block count auto chooses (and the
 * pipelining lemma behind every pipelined allreduce's blocks=auto), and
 * the Hockney cost followed exchange by exchange.
 *
 * A round of a rank at depth d (blocks Y[j] empty outside [0, b)):
 *   each child c (first, then second): send Y[j-d-1] || recv t = c's Y[j];
 *                                      Y[j] = t (op) Y[j]
 *   a non-root:                        send Y[j] to the parent || recv Y[j-d]
 *   a root with a dual:                send Y[j] || recv t; A: Y[j] (op) t,
 *                                      B: t (op) Y[j]
 * Children are combined on the left because post-order puts a subtree's
 * ranks below its root, the second child's below the first's, and tree A
 * below tree B: the result is x_0 (op) ... (op) x_{P-1} for any
 * associative op. One schedule (round_ops) drives both the messages and
 * the cost, so the two cannot drift apart. An exchange whose both
 * directions are empty is skipped on both sides (each side knows b, j and
 * the depths); one empty direction travels as a zero-element message, and
 * the received size is taken from the status (MPI_Get_elements in the
 * paper) and checked against the expected block.
 *
 * Buffers: reduce_local computes inout = in (op) inout, so every rank but
 * tree A's root reduces in place in rbuf with no copy (a child's block
 * arrives in a temporary t and goes on the left). Tree A's root needs its
 * own partial on the LEFT of the dual's: it builds the partial in a second
 * temporary t0, starting from its own block (the copy every rank makes
 * from sbuf to rbuf anyway), and receives the dual's partial straight into
 * rbuf, so Y[j] = t0 (op) Y[j] is again in place.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "engine.h"
#include "pipetree.h"

/* ------------------------------------------------------------- the trees */

void tutti__postorder_node(int lo, int hi, int rank, tutti__ponode_t *nd) {
  nd->parent = -1;
  nd->depth = 0;
  while (hi != rank) {      /* descend from the root toward rank */
    int n2 = (hi - lo) / 2; /* the second (low) child's share of the n-1 others */
    nd->parent = hi;
    nd->depth++;
    if (rank >= lo + n2) {
      hi = hi - 1; /* the first child's part [lo+n2, hi-1] */
      lo = lo + n2;
    } else {
      hi = lo + n2 - 1;
    }
  }
  int n2 = (hi - lo) / 2;
  nd->c1 = hi > lo ? hi - 1 : -1;
  nd->c2 = n2 > 0 ? lo + n2 - 1 : -1;
}

void tutti__pipetree_range(int P, int ntrees, int rank, int *lo, int *hi) {
  int half = ntrees == 2 ? (P + 1) / 2 : P;
  if (rank < half)
    *lo = 0, *hi = half - 1;
  else
    *lo = half, *hi = P - 1;
}

/* ------------------------------------------------------- the schedule */

enum { CHILD, PARENT, DUAL };

struct xop {
  int role, peer;
  long sblk, rblk; /* block sent / received, -1 for an empty message */
};

static long in_range(long j, long b) {
  return j >= 0 && j < b ? j : -1;
}

/* The exchanges of one rank in round j, in order; returns how many. */
static int round_ops(const tutti__ponode_t *nd, int dual, long b, long j, struct xop ops[3]) {
  int n = 0;
  int kids[2] = {nd->c1, nd->c2};
  for (int k = 0; k < 2; k++) {
    if (kids[k] < 0) continue;
    struct xop o = {CHILD, kids[k], in_range(j - nd->depth - 1, b), in_range(j, b)};
    if (o.sblk >= 0 || o.rblk >= 0) ops[n++] = o;
  }
  if (nd->parent >= 0) {
    struct xop o = {PARENT, nd->parent, in_range(j, b), in_range(j - nd->depth, b)};
    if (o.sblk >= 0 || o.rblk >= 0) ops[n++] = o;
  } else if (dual >= 0 && j < b) {
    ops[n++] = (struct xop){DUAL, dual, j, j};
  }
  return n;
}

/* Block j of the b blocks (engine.h; b <= count <= LONG_MAX, b < 2^31). */
static void block_of(long count, long b, long j, long *start, long *n) {
  tutti__block_range(count, (int)b, (int)j, start, n);
}

static int dual_of(int P, int ntrees, int rank, const tutti__ponode_t *nd) {
  if (ntrees != 2 || P < 2 || nd->parent >= 0) return -1;
  int rootA = (P + 1) / 2 - 1;
  return rank == rootA ? P - 1 : rootA;
}

/* ------------------------------------------------------------ the cost */

struct hk {
  double alpha, beta, gamma;
};

/* The Hockney time of b blocks of blk(j) bytes, following round_ops for
 * every rank: an exchange starts when both sides reach it and lasts
 * alpha + beta * (its larger direction); a received block is combined
 * (gamma per byte) by the receiver. Within a round, ranks are taken in
 * increasing order per tree (post-order: children before parents), the
 * dual exchange last. */
static double simulate(int P, int ntrees, long b, double blk, const struct hk *h) {
  double *C = calloc((size_t)P, sizeof *C);
  tutti__ponode_t *nd = malloc((size_t)P * sizeof *nd);
  if (!C || !nd) {
    free(C);
    free(nd);
    return NAN;
  }
  int maxd = 0;
  for (int i = 0; i < P; i++) {
    int lo, hi;
    tutti__pipetree_range(P, ntrees, i, &lo, &hi);
    tutti__postorder_node(lo, hi, i, &nd[i]);
    if (nd[i].depth > maxd) maxd = nd[i].depth;
  }
  for (long j = 0; j < b + maxd + 1; j++) {
    int droot = -1;
    for (int i = 0; i < P; i++) {
      struct xop ops[3];
      int n = round_ops(&nd[i], dual_of(P, ntrees, i, &nd[i]), b, j, ops);
      for (int k = 0; k < n; k++) {
        if (ops[k].role == DUAL) droot = i;
        if (ops[k].role != CHILD) continue;
        int c = ops[k].peer;
        double s = ops[k].sblk >= 0 ? blk : 0, rv = ops[k].rblk >= 0 ? blk : 0;
        double t = fmax(C[i], C[c]) + h->alpha + h->beta * fmax(s, rv);
        C[c] = t;
        C[i] = t + h->gamma * rv;
      }
    }
    if (droot >= 0) { /* both roots exchange block j, each combines it */
      int a = (P + 1) / 2 - 1, bb = P - 1;
      double t = fmax(C[a], C[bb]) + h->alpha + h->beta * blk + h->gamma * blk;
      C[a] = C[bb] = t;
    }
  }
  double T = 0;
  for (int i = 0; i < P; i++) T = fmax(T, C[i]);
  free(C);
  free(nd);
  return T;
}

/* steps(1): the rounds' critical path with one block and unit exchanges. */
static double steps1(int P, int ntrees) {
  struct hk unit = {1, 0, 0};
  return simulate(P, ntrees, 1, 1, &unit);
}

static double auto_objective(double s1, long b, double m, double alpha, double beta) {
  return (s1 + 3.0 * (double)(b - 1)) * (alpha + beta * m / (double)b);
}

long tutti__pipeline_blocks(double depth, double per_block, double bytes, double alpha, double beta,
                            long most) {
  if (most > TUTTI__BLOCKS_MAX) most = TUTTI__BLOCKS_MAX;
  double b = alpha > 0 ? sqrt(depth * beta * bytes / (per_block * alpha)) : bytes / 65536;
  if (!(b >= 1)) return 1;
  return b >= (double)most ? most : (long)llround(b);
}

long tutti__pipetree_auto_blocks(int P, int ntrees, long count, size_t esz, double alpha,
                                 double beta) {
  if (count <= 1) return 1;
  long most = count < TUTTI__BLOCKS_MAX ? count : TUTTI__BLOCKS_MAX;
  double m = (double)count * (double)esz, s1 = steps1(P, ntrees);
  /* H: the trees' height in edges; steps(1) is about 4H + 1, so the
   * lemma's depth is steps(1) - 3 = 4H - 2 */
  tutti__ponode_t nd;
  int lo, hi;
  tutti__pipetree_range(P, ntrees, 0, &lo, &hi);
  tutti__postorder_node(lo, hi, lo, &nd); /* rank lo is a deepest leaf */
  double H = nd.depth;
  long b = alpha > 0 ? tutti__pipeline_blocks(fmax(4 * H - 2, 1), 3, m, alpha, beta, most) : most;
  /* walk to the neighbour that lowers the objective until neither does */
  for (;;) {
    double f = auto_objective(s1, b, m, alpha, beta);
    if (b > 1 && auto_objective(s1, b - 1, m, alpha, beta) < f)
      b--;
    else if (b < most && auto_objective(s1, b + 1, m, alpha, beta) < f)
      b++;
    else
      break;
  }
  return b;
}

/* The run's model as Hockney constants: a message's cost at 0 bytes and its
 * slope up to 1 MiB, taking the later of the sender's port and the
 * receiver's completion. A model without costs (native runs) gets 1 us and
 * 0.1 ns/B, so blocks stay large enough to amortize a wakeup. */
static void model_hockney(const tutti_model_t *md, double *alpha, double *beta) {
  const double M = 1 << 20;
  double c0 = fmax(tutti_cost_eval(&md->send_port, 0),
                   tutti_cost_eval(&md->latency, 0) + tutti_cost_eval(&md->recv_cpu, 0));
  double c1 = fmax(tutti_cost_eval(&md->send_port, M),
                   tutti_cost_eval(&md->latency, M) + tutti_cost_eval(&md->recv_cpu, M));
  if (md->preset == TUTTI_MODEL_NONE || c1 <= 0) {
    *alpha = 1e-6, *beta = 1e-10;
    return;
  }
  *alpha = c0, *beta = (c1 - c0) / M;
}

double tutti__pipeline_cost_bounded(int P, long b, tutti__blocks_time_fn *time, void *ctx,
                                    int *bound) {
  if ((double)P * (double)b <= (double)TUTTI__COST_WORK) return time(ctx, b);
  long b2 = TUTTI__COST_WORK / P > 2 ? TUTTI__COST_WORK / P : 2, b1 = b2 / 2;
  double T1 = time(ctx, b1), T2 = time(ctx, b2);
  *bound = 1;
  return T2 + (double)(b - b2) * (T2 - T1) / (double)(b2 - b1);
}

struct pctx {
  int P, ntrees;
  double blk;
  struct hk hk;
};

static double pipetree_time(void *ctx, long b) {
  const struct pctx *c = ctx;
  return simulate(c->P, c->ntrees, b, c->blk, &c->hk);
}

/* The blocks the run cuts count elements of esz bytes into: `blocks`, or
 * for auto tutti__pipetree_auto_blocks with alpha and beta; within
 * [1, count]. The run, the cost and the message count all take it. */
static long run_blocks(long blocks, int ntrees, int P, long count, size_t esz, double alpha,
                       double beta) {
  long b = blocks == TUTTI_PARAM_AUTO
               ? tutti__pipetree_auto_blocks(P, ntrees, count, esz, alpha, beta)
               : blocks;
  if (b > count) b = count;
  return b < 1 ? 1 : b;
}

/* run_blocks for m > 0 bytes under h: count elements of the call's size,
 * bytes when the element size is not known (tutti__cost_count). */
static long cost_blocks_of(long blocks, int ntrees, int P, size_t m, const tutti_hockney_t *h,
                           long *count) {
  *count = tutti__cost_count(m);
  return run_blocks(blocks, ntrees, P, *count, m / (size_t)*count, h->alpha, h->beta);
}

double tutti__pipetree_cost(long blocks, int ntrees, int P, size_t m, const tutti_hockney_t *h,
                            int *bound) {
  *bound = 0;
  if (m == 0) return 0; /* nothing moves */
  long count, b = cost_blocks_of(blocks, ntrees, P, m, h, &count);
  double blk;
  int exact;
  /* The run cuts elements, not bytes: with the element size known, blocks
   * of whole elements (equal when b divides the count); otherwise every
   * element size up to 16 cuts m into b equal blocks when 16 b divides m
   * (exact), else every block is taken 16 bytes larger than m/b, which no
   * element size exceeds, and the time only grows with message sizes (a
   * bound). */
  if (!tutti__cost_blocks(m, b, &blk, &exact, NULL)) {
    exact = b == 1 || m % (16 * (size_t)b) == 0;
    blk = exact ? (double)m / (double)b : ceil((double)m / (double)b) + 16;
  }
  struct pctx c = {P, ntrees, blk, {h->alpha, h->beta, h->gamma}};
  double T = tutti__pipeline_cost_bounded(P, b, pipetree_time, &c, bound);
  if (!exact) *bound = 1;
  return T;
}

/* One tree's messages over its n ranks: a child at depth d exchanges with
 * its parent (a sendrecv, two messages) in its rounds j with j in [0, b)
 * (its block up) or j - d in [0, b) (a result block down), b + min(d, b)
 * rounds. Level by level: the subtrees at a depth have at most two sizes,
 * s and s + 1, so the sum takes O(log n). */
static double tree_msgs(long n, long b) {
  long sz[2] = {n, n + 1}, cnt[2] = {1, 0}; /* cnt[i] subtrees of sz[i] ranks at depth d */
  double x = 0;
  for (long d = 0;; d++) {
    long nodes = 0, csz[4], ccnt[4], lo = LONG_MAX;
    int k = 0;
    for (int i = 0; i < 2; i++) {
      if (sz[i] < 1 || cnt[i] == 0) continue;
      nodes += cnt[i];
      /* the first child roots ceil((s-1)/2) ranks, the second floor((s-1)/2) */
      csz[k] = sz[i] / 2, ccnt[k++] = cnt[i];
      csz[k] = (sz[i] - 1) / 2, ccnt[k++] = cnt[i];
    }
    if (nodes == 0) break;
    if (d > 0) x += (double)nodes * (double)(b + (d < b ? d : b));
    for (int i = 0; i < k; i++)
      if (csz[i] > 0 && csz[i] < lo) lo = csz[i];
    if (lo == LONG_MAX) break; /* leaves only: no deeper level */
    sz[0] = lo, sz[1] = lo + 1, cnt[0] = cnt[1] = 0;
    for (int i = 0; i < k; i++)
      if (csz[i] > 0) cnt[csz[i] - lo] += ccnt[i];
  }
  return 2 * x;
}

double tutti__pipetree_msgs(long blocks, int ntrees, int P, size_t m, const tutti_hockney_t *h) {
  if (m == 0) return 0; /* the run returns before its rounds */
  long count, b = cost_blocks_of(blocks, ntrees, P, m, h, &count);
  if (ntrees != 2) return tree_msgs(P, b);
  long half = (P + 1) / 2; /* tutti__pipetree_range's trees, their roots exchanging b blocks */
  return tree_msgs(half, b) + tree_msgs(P - half, b) + (P >= 2 ? 2.0 * (double)b : 0);
}

/* ------------------------------------------------------------ the rounds */

int tutti__pipetree_allreduce(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                              tutti_datatype_t type, tutti_op_t op, long blocks, int ntrees) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  if (count == 0) return 0;
  int P = tutti_size(r), me = tutti_rank(r);
  size_t esz = tutti_type_size(type);
  if (sbuf == TUTTI_IN_PLACE) sbuf = rbuf;
  double alpha = 0, beta = 0;
  if (blocks == TUTTI_PARAM_AUTO) model_hockney(tutti_rank_model(r), &alpha, &beta);
  long b = run_blocks(blocks, ntrees, P, count, esz, alpha, beta);

  int lo, hi;
  tutti__ponode_t nd;
  tutti__pipetree_range(P, ntrees, me, &lo, &hi);
  tutti__postorder_node(lo, hi, me, &nd);
  int dual = dual_of(P, ntrees, me, &nd);
  int left = dual >= 0 && me < dual; /* tree A's root: its partial goes on the left */

  long cap = (count + b - 1) / b;
  char *Y = rbuf, *t = tutti_scratch_alloc(r, (size_t)cap * esz),
       *t0 = left ? tutti_scratch_alloc(r, (size_t)cap * esz) : NULL;
  const char *x = sbuf;
  int rc = 0;
  if (!t || (left && !t0)) rc = TUTTI_ENOMEM;
  for (long j = 0; !rc && j < b + nd.depth + 1; j++) {
    long st, n;
    if (j < b) { /* bring in the own block: into t0 for tree A's root */
      block_of(count, b, j, &st, &n);
      if (left)
        rc = tutti_local_copy(r, t0, x + st * esz, (size_t)n * esz);
      else if (x != Y)
        rc = tutti_local_copy(r, Y + st * esz, x + st * esz, (size_t)n * esz);
    }
    struct xop ops[3];
    int nops = round_ops(&nd, dual, b, j, ops);
    for (int k = 0; !rc && k < nops; k++) {
      const struct xop *o = &ops[k];
      long sst = 0, sn = 0, rst = 0, rn = 0;
      if (o->sblk >= 0) block_of(count, b, o->sblk, &sst, &sn);
      if (o->rblk >= 0) block_of(count, b, o->rblk, &rst, &rn);
      const char *sp = o->role == DUAL && left ? t0 : Y + sst * esz;
      /* a child's or B's dual's block lands in t (any size up to cap, read
       * from the status); the parent's result block and A's dual block
       * land in place */
      int into_t = o->role == CHILD || (o->role == DUAL && !left);
      char *rp = into_t ? t : Y + rst * esz;
      long rcap = into_t ? cap : rn;
      tutti_status_t stt;
      rc = tutti_sendrecv(r, sp, sn, type, o->peer, tag, rp, rcap, type, o->peer, tag, &stt);
      long got = 0; /* ranks that disagree on count or type fail here, not later */
      if (!rc && (tutti_status_count(&stt, type, &got) || got != rn)) rc = TUTTI_ECOUNT;
      if (rc || got == 0) continue;
      if (o->role == CHILD)
        rc = tutti_reduce_local_r(r, t, left ? t0 : Y + rst * esz, got, type, op);
      else if (o->role == DUAL)
        rc = tutti_reduce_local_r(r, left ? t0 : t, Y + rst * esz, got, type, op);
    }
  }
  tutti_scratch_free(r, t);
  tutti_scratch_free(r, t0);
  return rc;
}

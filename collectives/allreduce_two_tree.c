/*
 * allreduce_two_tree.c -- Sanders, Speck & Traff's two-tree allreduce: two
 * in-order binary trees over all P ranks in which every rank is an
 * interior node of exactly one (P >= 2); the first half of the vector is
 * reduced up tree 0 and then broadcast down it, the second half tree 1,
 * each half cut into b blocks and pipelined. A rank receives only in its
 * interior tree (two children) and sends one block per block to each
 * parent, so each phase moves about beta m per rank: the 2 beta m "best
 * known" reference of Traff's dual-root paper.
 *
 * Trees. Tree 0 is NCCL's btree: rank v with lowest set bit 2^k has the
 * children v - 2^(k-1) and v + 2^(k-1) (the upper one moved down to the
 * largest v + 2^i < P), rank 0 is the root with the one child
 * 2^(ceil(log2 P)-1); even ranks are interior, odd ranks leaves. Tree 1:
 * for even P the mirror v -> P-1-v (NCCL's dtree), for odd P tree 0's
 * shape on ranks 1..P-1 (rank = position + 1) with rank 0 added as the
 * lower child of its root, rank 1 (NCCL shifts by one instead, which puts
 * rank 0 last in the in-order sequence and makes it interior twice). Both
 * are in-order (a subtree is a rank range) with odd ranks interior in tree
 * 1, so a rank combines lower child, own, upper child: x_0 (op) ... (op)
 * x_{P-1} for any associative op.
 *
 * Schedule. A global step s carries, per rank, at most one send and one
 * receive (a blocking sendrecv), every message at the same step on both
 * sides: then the minimal pending step can always complete, so there is no
 * cycle of blocking operations (the earlier attempt paired one tree's sends
 * with the other's receives without such a clock and deadlocked). Edges to
 * parents get a colour c in {0, 1}: a rank's two parent edges differ, and
 * so do two siblings' (the graph of these constraints is a union of
 * alternating paths and even cycles, SST's edge colouring; a rank finds
 * its colour by walking its path to the end with the smaller id, O(P) time,
 * no memory; from 1024 ranks, where one path covers nearly every edge, a
 * process colours every edge once, O(P), and keeps it: cached_colours).
 * With l_t(v) the level of v in tree t (the lowest set bit's position of
 * its tree position; the root above its child), v sends block j up tree t
 * at step 2 l_t(v) + c_t(v) + 2j and, S0 = 2L + 2b - 2 steps later the
 * broadcast receives it at S0 + 2(L - l_t(v)) + c_t(v) + 2j
 * (L = ceil(log2 P)). Steps of one parity use one colour: one send and
 * one receive per step and rank, children's blocks before the parent's.
 *
 * Buffers: a lower child's block arrives in a temporary t and goes on the
 * left of Y (in place); an upper child's block arrives in a temporary u,
 * u = Y (op) u, and u goes back into Y at once (a local copy), so the
 * partial sent up is always Y's and every block's result is in Y. Memory:
 * the two buffers and a block each, t and u, whatever the vector's size
 * (a buffer of the interior tree's half for u held half the vector more a
 * rank).
 *
 * Source: P. Sanders, J. Speck, J. L. Traff, "Two-tree algorithms for full
 * bandwidth broadcast, reduction and scan", Parallel Computing 35(12),
 * 2009, sec. 2-4; NCCL src/graph/trees.cc (ncclGetBtree, ncclGetDtree);
 * the comparison of J. L. Traff, "A doubly-pipelined, dual-root
 * reduction-to-all algorithm and implementation", 2021.
 *
 * Cost under Hockney, L = ceil(log2 P), blocks of m/(2b) bytes: about
 * (4L + 4(b-1))(alpha + beta m/(2b)) + the reductions, i.e. 2 beta m for
 * large b. The registered cost replays the steps (schedule.h): exact when
 * 32 b divides m (every element size cuts both halves into b equal
 * blocks), else a bound with blocks of ceil(m/2b) + 32 bytes.
 * Messages: 4 (P - 1) b.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "pipetree.h"
#include "schedule.h"

/* ------------------------------------------------------------- the trees */

struct tnode {
  int parent, lo, hi, lvl; /* -1: none; lo, hi: the lower and upper child */
};

static int ceil_log2(int n) {
  int k = 0;
  while ((1L << k) < n) k++;
  return k;
}

/* NCCL's btree on positions 0..n-1 (n >= 1). */
static void btree(int n, int v, struct tnode *t) {
  t->parent = t->lo = t->hi = -1;
  if (v == 0) {
    t->lvl = ceil_log2(n);
    if (n > 1) t->hi = 1 << (ceil_log2(n) - 1);
    return;
  }
  int k = 0;
  while (!(v >> k & 1)) k++;
  t->lvl = k;
  long bit = 1L << k, u = (v ^ bit) | (bit << 1);
  t->parent = (int)(u >= n ? v ^ bit : u);
  long low = bit >> 1;
  if (low) t->lo = (int)(v - low);
  while (low && v + low >= n) low >>= 1;
  if (low) t->hi = (int)(v + low);
}

/* Rank v's place in tree t (0 or 1) for P >= 2 ranks. */
static void tree_node(int P, int t, int v, struct tnode *n) {
  if (t == 0) {
    btree(P, v, n);
    return;
  }
  if (P % 2 == 0) { /* the mirror: lower and upper swap */
    struct tnode m;
    btree(P, P - 1 - v, &m);
    n->parent = m.parent < 0 ? -1 : P - 1 - m.parent;
    n->lo = m.hi < 0 ? -1 : P - 1 - m.hi;
    n->hi = m.lo < 0 ? -1 : P - 1 - m.lo;
    n->lvl = m.lvl;
    return;
  }
  if (v == 0) { /* odd P: rank 0 is the lower leaf of rank 1 */
    *n = (struct tnode){1, -1, -1, 0};
    return;
  }
  struct tnode m;
  btree(P - 1, v - 1, &m);
  n->parent = m.parent < 0 ? -1 : m.parent + 1;
  n->lo = v == 1 ? 0 : m.lo < 0 ? -1 : m.lo + 1;
  n->hi = m.hi < 0 ? -1 : m.hi + 1;
  n->lvl = m.lvl;
}

/* ---------------------------------------------------------- the colours */

/* The constraint graph's vertices are parent edges (v, t), id 2v + t;
 * links: (v, 0) - (v, 1) ("same") and (v, t) - (v's sibling, t) ("sib"). */
static int has_parent(int P, int v, int t) {
  struct tnode n;
  tree_node(P, t, v, &n);
  return n.parent >= 0;
}

/* Follow the link of type `sib` from (v, t); 0 if there is none. */
static int step_link(int P, int *v, int *t, int sib) {
  if (!sib) {
    if (!has_parent(P, *v, 1 - *t)) return 0;
    *t = 1 - *t;
    return 1;
  }
  struct tnode n, p;
  tree_node(P, *t, *v, &n);
  tree_node(P, *t, n.parent, &p);
  int s = p.lo == *v ? p.hi : p.lo;
  if (s < 0) return 0;
  *v = s;
  return 1;
}

/* Walk from (v, t), links alternating starting with `sib`: the id of the
 * end and the distance to it, or, on a cycle, the smallest id and its
 * distance (*cycle = 1). */
static void walk(int P, int v, int t, int sib, long *end, long *dist, int *cycle) {
  long id0 = 2L * v + t, best = id0, bestd = 0, d = 0;
  *cycle = 0;
  while (step_link(P, &v, &t, sib)) {
    d++;
    sib = !sib;
    long id = 2L * v + t;
    if (id == id0) {
      *cycle = 1;
      break;
    }
    if (id < best) best = id, bestd = d;
  }
  if (*cycle) {
    *end = best, *dist = bestd;
  } else {
    *end = 2L * v + t, *dist = d;
  }
}

/* The colour of parent edge (v, t): the parity of its distance to the
 * end of its path with the smaller id (to the smallest id on a cycle). */
static int colour(int P, int v, int t) {
  long e1, d1, e2, d2;
  int cyc;
  walk(P, v, t, 1, &e1, &d1, &cyc);
  if (cyc) return (int)(d1 & 1);
  walk(P, v, t, 0, &e2, &d2, &cyc);
  return (int)((e1 < e2 ? d1 : d2) & 1);
}

/* Every parent edge's colour at once, col[2v + t] (-1: no parent), for
 * whoever needs all P ranks' (the cost function, cached_colours): colour()
 * walks a rank's path, O(P) each and O(P^2) for all (minutes at 262144
 * ranks); here each path or cycle is walked a bounded number of times
 * from its end with the smaller id (on a cycle, its smallest id), which
 * colour() measures the parity of the distance to. */
static void colour_all(int P, signed char *col) {
  for (long id = 0; id < 2L * P; id++)
    col[id] = has_parent(P, (int)(id / 2), (int)(id % 2)) ? -2 : -1;
  for (long id = 0; id < 2L * P; id++) {
    if (col[id] != -2) continue;
    long e1, d1, e2 = 0, d2;
    int cyc, v, t, sib;
    walk(P, (int)(id / 2), (int)(id % 2), 1, &e1, &d1, &cyc);
    if (!cyc) walk(P, (int)(id / 2), (int)(id % 2), 0, &e2, &d2, &cyc);
    long start = cyc || e1 < e2 ? e1 : e2;
    v = (int)(start / 2), t = (int)(start % 2);
    /* from an end only one kind of link leaves; on a cycle either will do */
    int vv = v, tt = t;
    sib = step_link(P, &vv, &tt, 1) ? 1 : 0;
    for (long d = 0;; d++) {
      col[2L * v + t] = (signed char)(d & 1);
      if (!step_link(P, &v, &t, sib) || col[2L * v + t] != -2) break;
      sib = !sib;
    }
  }
}

/* The colours of a world of P ranks, computed once per process: on these
 * trees one path runs through nearly every parent edge, so colour() walks
 * O(P) for each rank, O(P^2) for a call over a world of threads or fibers
 * (seconds at 16384 ranks, hours at a million). The first rank of a size
 * computes colour_all under the lock (no tutti call inside: a fiber
 * holding it never yields) and publishes it; the others read without the
 * lock. Kept for the process's life, 2P bytes, for up to CACHE_SLOTS sizes
 * from CACHE_MIN ranks (below, a walk is cheap); NULL: walk. */
#define CACHE_SLOTS 8
#define CACHE_MIN 1024
static struct {
  int P;
  const signed char *cols;
} cache[CACHE_SLOTS];
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static const signed char *cached_colours(int P) {
  if (P < CACHE_MIN) return NULL;
  for (int i = 0; i < CACHE_SLOTS; i++) {
    int p = __atomic_load_n(&cache[i].P, __ATOMIC_ACQUIRE);
    if (p == P) return cache[i].cols;
    if (!p) break;
  }
  const signed char *found = NULL;
  pthread_mutex_lock(&cache_lock);
  int i = 0;
  while (i < CACHE_SLOTS && cache[i].P && cache[i].P != P) i++;
  if (i < CACHE_SLOTS && cache[i].P == P) {
    found = cache[i].cols;
  } else if (i < CACHE_SLOTS) {
    signed char *c = malloc(2 * (size_t)P);
    if (c) {
      colour_all(P, c);
      cache[i].cols = found = c;
      __atomic_store_n(&cache[i].P, P, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&cache_lock);
  return found;
}

int tutti__two_tree_colour(int P, int v, int t, int whole) {
  if (P < 2 || v < 0 || v >= P || t < 0 || t > 1 || !has_parent(P, v, t)) return -1;
  if (!whole) return colour(P, v, t);
  const signed char *kept = cached_colours(P);
  if (kept) return kept[2L * v + t];
  signed char *c = malloc(2 * (size_t)P);
  if (!c) return -1;
  colour_all(P, c);
  int col = c[2L * v + t];
  free(c);
  return col;
}

/* ------------------------------------------------------- the schedule */

struct sched {
  long b, S0, end;
  int L, A;                     /* A: the tree where the rank has children */
  struct tnode n[2];            /* the rank in both trees */
  int col[2];                   /* its parent edges' colours */
  int kid[2], klvl[2], kcol[2]; /* tree A's lower, upper child */
};

/* cols: colour_all's, or NULL to walk (one rank's own schedule). */
static void sched_init(struct sched *s, int P, long b, int v, const signed char *cols) {
  s->b = b;
  s->L = ceil_log2(P);
  s->S0 = 2L * s->L + 2 * b - 2;
  s->end = s->S0 + 2L * s->L + 2 * b;
  for (int t = 0; t < 2; t++) tree_node(P, t, v, &s->n[t]);
  /* two walks at most: a rank's two parent edges differ, and so do siblings' */
  for (int t = 0; t < 2; t++)
    s->col[t] = s->n[t].parent < 0    ? -1
                : cols                ? cols[2L * v + t]
                : t && s->col[0] >= 0 ? 1 - s->col[0]
                                      : colour(P, v, t);
  s->A = s->n[0].lo < 0 && s->n[0].hi < 0;
  int kids[2] = {s->n[s->A].lo, s->n[s->A].hi};
  for (int i = 0; i < 2; i++) {
    s->kid[i] = kids[i], s->klvl[i] = s->kcol[i] = -1;
    if (kids[i] < 0) continue;
    struct tnode c;
    tree_node(P, s->A, kids[i], &c);
    s->klvl[i] = c.lvl;
    s->kcol[i] = cols                   ? cols[2L * kids[i] + s->A]
                 : i && s->kcol[0] >= 0 ? 1 - s->kcol[0]
                                        : colour(P, kids[i], s->A);
  }
}

/* The block of an edge of level l and colour c at step k of a phase
 * whose first block crosses at 2 l + c; -1 outside [0, b). */
static long blk_at(long k, long l, int c, long b) {
  long q = k - 2 * l - c;
  return q >= 0 && q % 2 == 0 && q / 2 < b ? q / 2 : -1;
}

/* The operation of step k (schedule.h's convention; block ids t b + j). */
static int op_at(const struct sched *s, long k, tutti__bop_t *o) {
  *o = (tutti__bop_t){-1, -1, -1, -1, 0, 0, k < s->S0};
  if (k >= s->end) return 0;
  int p = (int)(k & 1), A = s->A;
  long b = s->b, j;
  if (k < s->S0) { /* reduce: up to the parent of colour p, from the kid of colour p */
    for (int t = 0; t < 2; t++)
      if (s->col[t] == p && (j = blk_at(k, s->n[t].lvl, p, b)) >= 0)
        o->speer = s->n[t].parent, o->sblk = t * b + j;
    for (int i = 0; i < 2; i++)
      if (s->kcol[i] == p && (j = blk_at(k, s->klvl[i], p, b)) >= 0)
        o->rpeer = s->kid[i], o->rblk = A * b + j;
  } else { /* broadcast: the same edges, levels counted from the top */
    k -= s->S0;
    for (int t = 0; t < 2; t++)
      if (s->col[t] == p && (j = blk_at(k, s->L - s->n[t].lvl, p, b)) >= 0)
        o->rpeer = s->n[t].parent, o->rblk = t * b + j;
    for (int i = 0; i < 2; i++)
      if (s->kcol[i] == p && (j = blk_at(k, s->L - s->klvl[i], p, b)) >= 0)
        o->speer = s->kid[i], o->sblk = A * b + j;
  }
  return o->speer >= 0 || o->rpeer >= 0 ? 1 : 2;
}

/* Block id (t b + j): tree t's half (the first ceil(count/2) elements for
 * tree 0) cut into b blocks. */
static void block_of(long count, long b, long id, long *start, long *n) {
  long half0 = (count + 1) / 2, t = id / b;
  tutti__block_range(t ? count - half0 : half0, (int)b, (int)(id % b), start, n);
  if (t) *start += half0;
}

static long clamp_blocks(long b, long count) {
  long most = (count + 1) / 2;
  if (b > most) b = most;
  return b < 1 ? 1 : b;
}

/* blocks=auto: the pipelining lemma (pipetree.h tutti__pipeline_blocks)
 * on each half of the vector, m/2 bytes in b blocks, 4 exchanges a block
 * and depth 4L (L = ceil(log2 P), at least 1): one block's 4 exchanges
 * more than the 4L - 4 of the cost (4L + 4(b-1))(alpha + beta m/(2b)),
 * so sqrt(L/(L-1)) times the blocks that minimize it; at most `most`. */
static long auto_blocks(int P, double m, double alpha, double beta, long most) {
  return tutti__pipeline_blocks(4 * fmax(ceil_log2(P), 1), 4, m / 2, alpha, beta, most);
}

int tutti__allreduce_two_tree(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                              tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
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
    b = auto_blocks(P, m, tutti_cost_eval(&lat, 0), lat.b, (count + 1) / 2);
  }
  b = clamp_blocks(b, count);
  struct sched s;
  sched_init(&s, P, b, me, cached_colours(P));
  int hi = s.kid[1];
  long cap = ((count + 1) / 2 + b - 1) / b; /* the largest block */
  char *t = tutti_scratch_alloc(r, (size_t)cap * esz),
       *u = hi >= 0 ? tutti_scratch_alloc(r, (size_t)cap * esz) : NULL;
  int more;
  rc = t && (hi < 0 || u) ? 0 : TUTTI_ENOMEM;
  tutti__bop_t o;
  for (long k = 0; !rc && (more = op_at(&s, k, &o)); k++) {
    if (more == 2) continue;
    long ss = 0, sn = 0, rs = 0, rn = 0;
    if (o.speer >= 0) block_of(count, b, o.sblk, &ss, &sn);
    if (o.rpeer >= 0) block_of(count, b, o.rblk, &rs, &rn);
    const char *sp = Y + (size_t)ss * esz;
    char *rp = Y + (size_t)rs * esz;
    if (o.reduce && o.rpeer >= 0) rp = o.rpeer == hi ? u : t;
    if (o.speer >= 0 && o.rpeer >= 0)
      rc = tutti_sendrecv(r, sp, sn, type, o.speer, tag, rp, rn, type, o.rpeer, tag,
                          TUTTI_STATUS_IGNORE);
    else if (o.speer >= 0)
      rc = tutti_send(r, sp, sn, type, o.speer, tag);
    else
      rc = tutti_recv(r, rp, rn, type, o.rpeer, tag, TUTTI_STATUS_IGNORE);
    if (rc || !o.reduce || o.rpeer < 0 || rn == 0) continue;
    char *y = Y + (size_t)rs * esz;
    if (o.rpeer == hi) { /* u = Y (op) u: own (and lower) on the left; back into Y */
      rc = tutti_reduce_local_r(r, y, u, rn, type, op);
      if (!rc) rc = tutti_local_copy(r, y, u, (size_t)rn * esz);
    } else { /* the lower child on the left of the partial (and the upper's, if first) */
      rc = tutti_reduce_local_r(r, t, y, rn, type, op);
    }
  }
  tutti_scratch_free(r, t);
  tutti_scratch_free(r, u);
  return rc;
}

/* ------------------------------------------------------------ the cost */

struct cctx {
  struct sched *s; /* every rank's, made once */
  double blk;
};

static int cost_op(const void *ctx, int rank, long k, tutti__bop_t *o) {
  const struct cctx *c = ctx;
  int more = op_at(&c->s[rank], k, o);
  o->sbytes = o->rbytes = c->blk;
  return more;
}

struct tctx {
  int P;
  double blk;
  const tutti_hockney_t *h;
};

/* b blocks a half of blk bytes each, replayed (tutti__pipeline_cost_bounded) */
static double two_tree_time(void *ctx, long b) {
  const struct tctx *t = ctx;
  int P = t->P;
  struct cctx c = {malloc((size_t)P * sizeof *c.s), t->blk};
  const signed char *kept = cached_colours(P);
  signed char *cols = kept ? NULL : malloc(2 * (size_t)P);
  if (!c.s || (!kept && !cols)) {
    free(c.s);
    free(cols);
    return NAN;
  }
  if (!kept) colour_all(P, cols);
  for (int v = 0; v < P; v++) sched_init(&c.s[v], P, b, v, kept ? kept : cols);
  free(cols);
  double T = tutti__schedule_hockney(P, cost_op, &c, t->h);
  free(c.s);
  return T;
}

/* The run's blocks for m > 0 bytes under h, as the cost and the message
 * count take them: *count elements, bytes if the element size is not
 * known (tutti__cost_count). */
static long cost_blocks_of(const tutti_algo_t *a, int P, size_t m, const tutti_hockney_t *h,
                           long *count) {
  long b = tutti__params(a)->blocks;
  *count = tutti__cost_count(m);
  return clamp_blocks(
      b == TUTTI_PARAM_AUTO ? auto_blocks(P, (double)m, h->alpha, h->beta, (*count + 1) / 2) : b,
      *count);
}

double tutti__allreduce_two_tree_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                      const tutti_hockney_t *h, int *bound) {
  (void)root;
  *bound = 0;
  if (m == 0 || P == 1) return 0;
  long count, b = cost_blocks_of(a, P, m, h, &count);
  double blk;
  int exact;
  /* two halves of ceil and floor count/2 elements, each in b blocks: the
   * element size known, 2b blocks of whole elements (equal when 2b divides
   * count); else equal for every element size up to 16 when 32 b divides m */
  if (!tutti__cost_blocks(m, 2 * b, &blk, &exact, NULL)) {
    exact = m % (32 * (size_t)b) == 0;
    blk = exact ? (double)m / (2.0 * (double)b) : ceil((double)m / (2.0 * (double)b)) + 32;
  }
  struct tctx c = {P, blk, h};
  double T = tutti__pipeline_cost_bounded(P, b, two_tree_time, &c, bound);
  if (!exact) *bound = 1;
  return T;
}

/* A message per block per parent edge, up then down, on both trees' P - 1 edges. */
double tutti__allreduce_two_tree_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                      const tutti_hockney_t *h) {
  (void)root;
  if (m == 0 || P == 1) return 0;
  long count;
  return 4.0 * (double)(P - 1) * (double)cost_blocks_of(a, P, m, h, &count);
}

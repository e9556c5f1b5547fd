/*
 * tree_build.c -- the pure tree builders, one per kind: (relative rank,
 * size, parameters) -> parent, children in send order and subtree, for the
 * tree-based collectives (bcast, reduce, gather, scatter, the lambda-tree
 * barrier); and the generalized Fibonacci numbers of the postal tree
 * (tutti_postal_F, tutti_postal_f, tutti_lambda_auto_postal). The API of
 * include/tutti/tree.h over them -- kinds, argument checks, absolute
 * ranks, whole trees and their drawing -- is tree.c's, apart so that each
 * kind's construction reads on its own; tree_build.h is between them.
 *
 * A rank computes only its own neighbours, by repeating the construction
 * from the top down to itself: O(depth) work and no table of the whole tree,
 * so memory stays proportional to the peers a rank talks to (DESIGN.md). All
 * builders work on relative ranks v = (rank - root) mod n; in every kind a
 * parent's v is below its children's. Sample trees, n = 10, root 0, children
 * drawn in send order (the first child is sent to first):
 *
 * flat: 0 -> 1, 2, ..., n-1 in turn: n-1 sends at the root. PVM's only
 * tree when the paper was written; optimal for scatter and gather of large
 * blocks, where every block must leave the root anyway.
 *
 * chain: v -> v+1. n-1 hops; the shape of the pipelined broadcast (Yuan).
 *
 * binary: heap layout, v -> 2v+1 then 2v+2 (the left subtree is never the
 * smaller one). Subtrees are not contiguous ranges.
 *      0
 *      ├── 1
 *      │   ├── 3
 *      │   │   ├── 7
 *      │   │   └── 8
 *      │   └── 4
 *      │       └── 9
 *      └── 2
 *          ├── 5
 *          └── 6
 *
 * binomial (MPICH's MPIR_Bcast_intra_binomial): v -> v + 2^j for every 2^j
 * below v's lowest set bit (below n for the root), j decreasing: the
 * farthest child first, whose subtree is the largest unless n cuts it (8
 * below). The subtree of v is [v, v + lowbit(v)) cut at n. ceil(log2 n)
 * rounds; it is also the postal tree for L = 1.
 *      0
 *      ├── 8
 *      │   └── 9
 *      ├── 4
 *      │   ├── 6
 *      │   │   └── 7
 *      │   └── 5
 *      ├── 2
 *      │   └── 3
 *      └── 1
 *
 * knomial, radix k (MPICH's k-nomial order): with k^p the weight of v's
 * lowest nonzero base-k digit (unbounded for the root), v -> v + d k^j for
 * j < p, j decreasing, and d = 1..k-1 within a level. The subtree of v is
 * [v, v + k^p) cut at n. k = 2 is binomial. A cut subtree of a high level
 * can be smaller than a full one of the next level (9 below), and is still
 * served first: the order depends on v and k only. n = 10, k = 3:
 *      0
 *      ├── 9
 *      ├── 3
 *      │   ├── 4
 *      │   └── 5
 *      ├── 6
 *      │   ├── 7
 *      │   └── 8
 *      ├── 1
 *      └── 2
 *
 * lambda (Bernaschi & Iannello, "Efficient collective communication
 * operations in PVMe", 1995, after the partition rule of Bruck et al.): a
 * source owning the relative range [lo, lo+m) keeps
 * n1 = min(max(floor(lambda m + 1/2), 1), m-1) ranks, sends to the leader
 * lo + n1 of the rest, and both recurse (collectives/REFERENCE.md). A rank's children
 * are the leaders of its successive splits, largest part first; every
 * subtree is a contiguous range. lambda = 0.5 halves, ceil(m/2) | floor(m/2)
 * (the binomial tree when n is a power of two, otherwise a different tree
 * of the same height and L = 1 time); lambda -> 1 tends to flat. Postal
 * time T(m) = max(1 + T(n1), L + T(m - n1)). n = 10, lambda = 0.6 (splits
 * 10 -> 6+4, 6 -> 4+2, 4 -> 2+2, 2 -> 1+1):
 *      0
 *      ├── 6
 *      │   ├── 8
 *      │   │   └── 9
 *      │   └── 7
 *      ├── 4
 *      │   └── 5
 *      ├── 2
 *      │   └── 3
 *      └── 1
 *
 * postal (Bar-Noy & Kipnis, "Designing broadcasting algorithms in the
 * postal model for message-passing systems", SPAA 1992): the same partition
 * with n1 = F(f(m) - 1), the generalized Fibonacci numbers of latency L.
 * The source, free again after one time unit, keeps the F(t-1) ranks it can
 * still reach by t; its first child, reached at time L, gets the other
 * m - F(t-1) <= F(t-L). The broadcast takes exactly f(n) steps, the
 * optimum. L = 1 gives the binomial tree; for L >= n-1 it is flat with the
 * sends in decreasing rank order. n = 10, L = 2 (f = 6; splits 10 -> 8+2,
 * 8 -> 5+3, 5 -> 3+2, 3 -> 2+1, 2 -> 1+1):
 *      0
 *      ├── 8
 *      │   └── 9
 *      ├── 5
 *      │   ├── 7
 *      │   └── 6
 *      ├── 3
 *      │   └── 4
 *      ├── 2
 *      └── 1
 */
#include <tutti/tutti.h>
#include <tutti/tree.h>

#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "tree_build.h"

/* ------------------------------------------- generalized Fibonacci numbers */

/* A window on F(s-L+1) .. F(s), kept in a ring of L slots (F(j) in slot
 * j mod L; `pos` is the slot of F(s), tracked without a division), that
 * slides both ways: forward by the recurrence, backward by
 * F(s-L) = F(s) - F(s-1). The partition descent only needs F near f(m) for
 * a shrinking range m, so one window walked down serves a whole descent in
 * O(f(n)) steps. */
#define FIB_STACK 64
struct fib {
  int L, pos;
  long s;
  long long *w;
  long long buf[FIB_STACK];
};

static int fib_init(struct fib *f, int L) {
  f->L = L;
  f->w = L <= FIB_STACK ? f->buf : malloc((size_t)L * sizeof *f->w);
  if (!f->w) return TUTTI_ENOMEM;
  for (int i = 0; i < L; i++) f->w[i] = 1;
  f->s = L - 1;
  f->pos = L - 1;
  return 0;
}

static void fib_free(struct fib *f) {
  if (f->w != f->buf) free(f->w);
}

static long long fib_cur(const struct fib *f) {
  return f->w[f->pos];
}

/* The slot after pos, which holds F(s+1-L) until F(s+1) replaces it. */
static int fib_up(const struct fib *f) {
  return f->pos + 1 == f->L ? 0 : f->pos + 1;
}

/* F(s+1), saturated at LLONG_MAX. */
static long long fib_next(const struct fib *f) {
  long long a = f->w[f->pos], b = f->w[fib_up(f)];
  return a > LLONG_MAX - b ? LLONG_MAX : a + b;
}

static void fib_fwd(struct fib *f) {
  long long x = fib_next(f);
  f->pos = fib_up(f);
  f->w[f->pos] = x;
  f->s++;
}

/* Needs s >= L and unsaturated values. */
static void fib_back(struct fib *f) {
  int down = f->pos == 0 ? f->L - 1 : f->pos - 1;
  if (f->L == 1)
    f->w[0] /= 2; /* F(s) = 2 F(s-1): the window holds F(s) only */
  else
    f->w[f->pos] -= f->w[down]; /* F(s-L) takes the slot of F(s) */
  f->pos = down;
  f->s--;
}

/* Position the window at s = f(m) - 1, i.e. F(s) < m <= F(s+1) (m >= 2). */
static void fib_sync(struct fib *f, long long m) {
  while (fib_next(f) < m) fib_fwd(f);
  while (fib_cur(f) >= m) fib_back(f);
}

long tutti_postal_F(int L, int t) {
  if (L < 1 || t < 0) return TUTTI_EINVAL;
  if (t < L) return 1;
  if (t < 2 * (long)L) return t - L + 2; /* F(t-L) is still 1: no window needed */
  struct fib f;
  if (fib_init(&f, L)) return TUTTI_ENOMEM;
  while (f.s < t && fib_cur(&f) < LONG_MAX) fib_fwd(&f);
  long long x = fib_cur(&f);
  fib_free(&f);
  return x >= LONG_MAX ? LONG_MAX : (long)x;
}

int tutti_postal_f(int L, long n) {
  if (L < 1 || n < 1) return TUTTI_EINVAL;
  if (n == 1) return 0;
  /* F(j) = j - L + 2 on [L-1, 2L): the answer is n + L - 2 while n <= L + 1. */
  if (n <= (long)L + 1) return n + L - 2 > INT_MAX ? TUTTI_EINVAL : (int)(n + L - 2);
  struct fib f;
  if (fib_init(&f, L)) return TUTTI_ENOMEM;
  fib_sync(&f, n);
  long t = f.s + 1;
  fib_free(&f);
  return t > INT_MAX ? TUTTI_EINVAL : (int)t;
}

double tutti_lambda_auto_postal(int L) {
  if (L < 1) return TUTTI_EINVAL;
  /* g(x) = x^(L-1) (x - 1) - 1 rises from -1 at x = 1 to >= 0 at x = 2. */
  double lo = 1.0, hi = 2.0;
  for (int i = 0; i < 200 && hi - lo > 0; i++) {
    double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    if (pow(mid, L - 1) * (mid - 1.0) < 1.0)
      lo = mid;
    else
      hi = mid;
  }
  return 1.0 / hi;
}

/* ------------------------------------------------------------ the builders */

static void emit(struct node *nd, long long c) {
  if (nd->n < nd->max) nd->children[nd->n] = (int)c;
  nd->n++;
}

static void flat_node(int v, int n, struct node *nd) {
  nd->parent = v ? 0 : -1;
  nd->lo = v;
  nd->count = v ? 1 : n;
  if (v == 0 && nd->max == 0)
    nd->n = n - 1; /* counted, not listed */
  else if (v == 0)
    for (int c = 1; c < n; c++) emit(nd, c);
}

static void chain_node(int v, int n, struct node *nd) {
  nd->parent = v - 1;
  nd->lo = v;
  nd->count = n - v;
  if (v + 1 < n) emit(nd, v + 1);
}

static void binary_node(int v, int n, struct node *nd) {
  nd->parent = v ? (v - 1) / 2 : -1;
  nd->lo = v;
  if (2LL * v + 1 < n) emit(nd, 2LL * v + 1);
  if (2LL * v + 2 < n) emit(nd, 2LL * v + 2);
  /* The heap subtree takes a widening run of each level below v. */
  long long count = 0;
  for (long long a = v, b = v; a < n; a = 2 * a + 1, b = 2 * b + 2)
    count += (b < n ? b : n - 1) - a + 1;
  nd->count = (int)count;
}

static void knomial_node(int v, int n, long long k, struct node *nd) {
  long long lim; /* k^p: v's children are v + d k^j for k^j < lim */
  if (v == 0) {
    nd->parent = -1;
    lim = n;
  } else {
    long long u = 1;
    while (v % (u * k) == 0) u *= k;
    nd->parent = (int)(v - (v / u % k) * u); /* clear v's lowest nonzero digit */
    lim = u;
  }
  nd->lo = v;
  nd->count = (int)(lim < n - v ? lim : n - v);
  if (lim <= 1 || v + 1 >= n) return;
  long long u = 1;
  while (u * k < lim && v + u * k < n) u *= k;
  for (; u >= 1; u /= k)
    for (long long d = 1; d < k && v + d * u < n; d++) emit(nd, v + d * u);
}

/* The split rule of a partition tree (lambda, postal). */
struct splitter {
  double lambda; /* > 0: lambda rule; 0: postal rule on fib (or flat) */
  int flat;      /* postal with L >= n-1: keep m-1 */
  int jump;      /* d(m) = m - keep(m) is non-decreasing in m: keep runs can be jumped */
  struct fib fib;
};

static int split_init(struct splitter *sp, const tutti_treespec_t *spec, int n) {
  sp->flat = sp->jump = 0;
  if (spec->kind == TUTTI_TREE_LAMBDA) {
    sp->lambda = spec->lambda;
    /* keep(m) = floor(fl(fl(lambda m) + 1/2)) clamped to [1, m-1] grows by
     * at most 1 from m to m+1 when the two roundings (each within 2^-23 for
     * m < 2^31) cannot add up past 1: lambda + 2^-21 < 1. Then d(m) is
     * non-decreasing, which the jump in skip_keeps relies on; closer to 1
     * the descent steps one split at a time. */
    sp->jump = spec->lambda < 1.0 - 0x1p-21;
    return 0;
  }
  sp->lambda = 0;
  /* For L >= n-1 the tree of n ranks is flat (F(j) = j - L + 2 on the
   * range used, so the source keeps m-1), the same for every such L: no
   * window needed. */
  if (spec->L >= n - 1) {
    sp->flat = sp->jump = 1;
    return 0;
  }
  int err = fib_init(&sp->fib, spec->L);
  if (!err && n >= 2) fib_sync(&sp->fib, n);
  return err;
}

static void split_free(struct splitter *sp) {
  if (sp->lambda == 0 && !sp->flat) fib_free(&sp->fib);
}

/* How many ranks the source of a range of m >= 2 ranks keeps. */
static int split_keep(const struct splitter *sp, int m) {
  if (sp->flat) return m - 1;
  if (sp->lambda == 0) return (int)fib_cur(&sp->fib); /* F(f(m)-1) < m */
  long long x = (long long)(sp->lambda * m + 0.5);    /* floor: the value is positive */
  return x < 1 ? 1 : x > m - 1 ? m - 1 : (int)x;
}

/* The current range now has m ranks. */
static void split_moved(struct splitter *sp, int m) {
  if (sp->lambda == 0 && !sp->flat && m >= 2) fib_sync(&sp->fib, m);
}

/* The source's own part after its splits while rank r (0 < r < m, relative
 * to the source) stays in it: m -> keep(m) while keep(m) > r. One split at
 * a time this is O(m - r) for lambda near 1 (keep(m) = m-1: the source
 * sends to m-1, m-2, ... in turn), so runs of splits that each give away
 * the same d = m - keep(m) are taken at once: d is non-decreasing in m
 * (sp->jump), so it is d on all of [x0, m] for the least x0 with
 * d(x0) = d, found by bisection. A run ends below x0 with a smaller d, or
 * where the next split would give r away; there are at most as many runs
 * as values of d, O(log m) splits of at least d/m each otherwise. */
static int skip_keeps(const struct splitter *sp, int m, int r) {
  for (;;) {
    int k = split_keep(sp, m);
    if (k <= r) return m;
    int d = m - k;
    if ((m - r) / d < 8) { /* a few splits: plain steps are cheaper */
      m = k;
      continue;
    }
    int lo = r + 1 > 2 ? r + 1 : 2, hi = m; /* d(hi) = d; find the least x0 */
    if (lo - split_keep(sp, lo) == d)
      hi = lo;
    else
      while (hi - lo > 1) { /* d(lo) < d = d(hi) */
        int mid = lo + (hi - lo) / 2;
        if (mid - split_keep(sp, mid) == d)
          hi = mid;
        else
          lo = mid;
      }
    /* m, m-d, ... >= hi are in the run; each > r + d still keeps r */
    int j1 = (m - hi) / d + 1, j2 = (m - r - 1) / d;
    m -= (j1 < j2 ? j1 : j2) * d;
  }
}

/* Walk the partition from [0, n) down to v's own range, then split that
 * range as v would: the leaders of its splits are v's children (counted
 * only, when nd->max is 0 and the count is not wanted either). */
static int partition_node(const tutti_treespec_t *spec, int v, int n, struct node *nd) {
  struct splitter sp;
  int err = split_init(&sp, spec, n);
  if (err) return err;
  int lo = 0, m = n;
  nd->parent = -1;
  while (lo != v) {
    if (sp.jump) m = skip_keeps(&sp, m, v - lo);
    int n1 = split_keep(&sp, m);
    if (v < lo + n1) {
      m = n1;
    } else {
      nd->parent = lo; /* the last time this happens, lo becomes v */
      lo += n1;
      m -= n1;
    }
    split_moved(&sp, m);
  }
  nd->lo = v;
  nd->count = m;
  if (sp.flat && nd->max == 0) /* the flat case counts without listing */
    nd->n = m - 1;
  else if (!nd->no_children)
    while (m >= 2) {
      int n1 = split_keep(&sp, m);
      emit(nd, (long long)v + n1);
      m = n1;
      split_moved(&sp, m);
    }
  split_free(&sp);
  return 0;
}

int tutti__tree_node_rel(const tutti_treespec_t *spec, int v, int n, struct node *nd) {
  nd->n = 0;
  switch (spec->kind) {
  case TUTTI_TREE_FLAT:
    flat_node(v, n, nd);
    return 0;
  case TUTTI_TREE_CHAIN:
    chain_node(v, n, nd);
    return 0;
  case TUTTI_TREE_BINARY:
    binary_node(v, n, nd);
    return 0;
  case TUTTI_TREE_BINOMIAL:
    knomial_node(v, n, 2, nd);
    return 0;
  case TUTTI_TREE_KNOMIAL:
    knomial_node(v, n, spec->k, nd);
    return 0;
  default:
    return partition_node(spec, v, n, nd);
  }
}

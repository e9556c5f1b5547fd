/*
 * test_e2e_plan.c -- registered algorithms run in worlds, and the
 * per-rank call plans (collectives/plan.c): a program's own bcast with
 * its own parameter struct on P = 1, 3, 7 and every root (threads and
 * fibers); a tree algorithm registered from outside (knomial, fn NULL)
 * against the built-in binomial (results, modeled rank ends bit for bit,
 * Hockney costs); a call repeated and every part of the plan's key
 * changed (bcast, reduce, allreduce, gather, scan, exscan, alltoall)
 * against the same calls made through desc->fn (no plan), and a
 * new key checked again; the variables read when a run starts; nesting
 * (a registered allreduce calling tutti_reduce and tutti_bcast is one
 * span, a barrier nesting it two deep too); a parameter read that the
 * algorithm does not declare (the call fails naming the rank; outside a
 * call it does not; the rank's own later failure is not blamed on it);
 * tutti_rank_shared; tutti_rank_self, and handles interned by ranks
 * selecting at once. TUTTI_TSAN_TEST: also built and run under
 * ThreadSanitizer (worlds of at most 13 ranks).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#define B TUTTI_COLL_BCAST
#define R TUTTI_COLL_REDUCE
#define A TUTTI_COLL_ALLREDUCE
#define G TUTTI_COLL_GATHER
#define SC TUTTI_COLL_SCAN
#define EX TUTTI_COLL_EXSCAN
#define AA TUTTI_COLL_ALLTOALL

static const int AS[2] = {TUTTI_RANKS_AS_THREADS, TUTTI_RANKS_AS_FIBERS};
static const char *const AS_NAME[2] = {"threads", "fibers"};

/* A world of P ranks as threads or fibers (two workers: ranks move
 * between them), under m (NULL: native). */
static tutti_world_t *world(int P, int as, const tutti_model_t *m) {
  tutti_config_t c = tutti_config_default(P);
  c.model = m;
  c.ranks_as = as;
  if (as == TUTTI_RANKS_AS_FIBERS) c.workers = 2;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  return w;
}

static tutti_model_t hockney(void) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  return m;
}

static const tutti_algo_t *sel(int coll, const char *name) {
  const tutti_algo_t *a = NULL;
  char err[512];
  cr_assert(eq(int, tutti_algo_select(coll, name, NULL, &a, err, sizeof err), 0), "%s: %s", name,
            err);
  return a;
}

/* Register an algorithm of the test's: a function (fn.any) or a tree kind. */
static void reg(int coll, const char *name, void (*fn)(void), const char *tree, int np,
                const tutti_param_desc_t *ps, size_t size) {
  /* abi, coll, name, fn, tree, nparams, params, params_size, restrictions, summary,
   * source, cost, cost_fn, msgs_fn */
  tutti_algo_desc_t d = {
      TUTTI_ALGO_ABI,          coll, name, {.any = fn}, tree, np, ps, size, 0, "mine",
      "tests/test_e2e_plan.c", NULL, NULL, NULL};
  char err[512];
  cr_assert(eq(int, tutti_algo_register(&d, err, sizeof err), 0), "%s: %s", name, err);
}

/* ------------------------------------------ a program's own algorithm */

struct kp {
  double x;
  long fanout;
};
static long seen_fanout[64];
static double seen_x[64];
static int seen_self[64];

/* A k-ary heap from the root, k = fanout, read from the algorithm's own
 * struct; what each rank read is kept for the test. */
static int kary_bcast(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                      const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r);
  if (tag < 0) return tag;
  const struct kp *p = tutti_algo_params(a);
  int P = tutti_size(r), me = tutti_rank(r), v = (me - root + P) % P, rc = 0;
  long k = p->fanout;
  seen_fanout[me] = k, seen_x[me] = p->x, seen_self[me] = tutti_rank_self() == r;
  if (v > 0) rc = tutti_recv(r, buf, count, type, (int)(((v - 1) / k + root) % P), tag, NULL);
  for (long c = k * v + 1; c <= k * v + k && c < P && !rc; c++)
    rc = tutti_send(r, buf, count, type, (int)((c + root) % P), tag);
  return rc;
}

/* name, type, default, min, max, flags, help, offset (coll.h's order) */
static const tutti_param_desc_t kary_params[] = {
    {"fanout", TUTTI_PARAM_INT, 2, 1, 64, 0, "children", offsetof(struct kp, fanout), 0, 0},
    {"x", TUTTI_PARAM_REAL, 0.5, 0, 1, 0, "unused", offsetof(struct kp, x), 0, 0},
};

struct bc {
  const tutti_algo_t *a;
  int root;
};

static int64_t pattern(int root, int j) {
  return (int64_t)root * 1000 + j * 7 + 1;
}

static int bcast_checked(tutti_rank_t *r, void *arg) {
  const struct bc *b = arg;
  int64_t buf[5];
  for (int j = 0; j < 5; j++) buf[j] = tutti_rank(r) == b->root ? pattern(b->root, j) : -1;
  int rc = tutti_bcast(r, buf, 5, TUTTI_INT64, b->root, b->a);
  if (rc) return rc;
  for (int j = 0; j < 5; j++)
    if (buf[j] != pattern(b->root, j)) return TUTTI_EVERIFY;
  return 0;
}

Test(registered, own_bcast_every_root, .timeout = 60) {
  reg(B, "kary", (void (*)(void))kary_bcast, NULL, 2, kary_params, sizeof(struct kp));
  const tutti_algo_t *a = sel(TUTTI_COLL_BCAST, "kary:fanout=3,x=0.25");
  static const int Ps[] = {1, 3, 7};
  for (int s = 0; s < 2; s++)
    for (size_t i = 0; i < 3; i++) {
      int P = Ps[i];
      tutti_world_t *w = world(P, AS[s], NULL);
      for (int root = 0; root < P; root++) {
        memset(seen_fanout, 0, sizeof seen_fanout), memset(seen_self, 0, sizeof seen_self);
        struct bc b = {a, root};
        cr_assert(eq(int, tutti_world_run(w, bcast_checked, &b), 0), "%s P=%d root %d: %s",
                  AS_NAME[s], P, root, tutti_world_error(w));
        for (int q = 0; q < P; q++) {
          cr_expect(eq(long, seen_fanout[q], 3), "%s P=%d root %d rank %d", AS_NAME[s], P, root, q);
          cr_expect(eq(dbl, seen_x[q], 0.25));
          cr_expect(eq(int, seen_self[q], 1), "rank %d: tutti_rank_self in the algorithm", q);
        }
      }
      tutti_world_destroy(w);
    }
}

/* -------------------------------------- a tree algorithm from outside */

static const tutti_param_desc_t ext_params[] = {
    {.name = "k", .type = TUTTI_PARAM_INT, .def = 3, .min = 2, .max = 1024, .help = "radix"},
    {.name = "segment", .type = TUTTI_PARAM_SIZE, .min = 0, .max = INFINITY, .help = "segment"},
};

struct tr {
  const tutti_algo_t *b, *rd;
  int root;
};

/* bcast three times, reduce twice, each checked */
static int tree_calls(tutti_rank_t *r, void *arg) {
  const struct tr *t = arg;
  int P = tutti_size(r), me = tutti_rank(r), rc;
  int32_t buf[100], sb[100], rb[100];
  for (int it = 0; it < 3; it++) {
    for (int j = 0; j < 100; j++) buf[j] = me == t->root ? j * 3 + it : -1;
    if ((rc = tutti_bcast(r, buf, 100, TUTTI_INT32, t->root, t->b))) return rc;
    for (int j = 0; j < 100; j++)
      if (buf[j] != j * 3 + it) return TUTTI_EVERIFY;
  }
  for (int it = 0; it < 2; it++) {
    for (int j = 0; j < 100; j++) sb[j] = (me + 1) * (j + 1 + it), rb[j] = -1;
    if ((rc = tutti_reduce(r, sb, rb, 100, TUTTI_INT32, TUTTI_SUM, t->root, t->rd))) return rc;
    for (int j = 0; me == t->root && j < 100; j++)
      if (rb[j] != (j + 1 + it) * P * (P + 1) / 2) return TUTTI_EVERIFY;
  }
  return 0;
}

struct result {
  int ncalls;
  double end[16], call[8];
  uint64_t messages;
};

static struct result run_report(tutti_world_t *w, tutti_rank_fn *fn, void *arg, const char *what) {
  struct result res;
  memset(&res, 0, sizeof res);
  cr_assert(eq(int, tutti_world_run(w, fn, arg), 0), "%s: %s", what, tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0), "%s", what);
  cr_assert(le(int, rep.nranks, 16));
  res.ncalls = rep.ncalls;
  res.messages = rep.messages;
  memcpy(res.end, rep.rank_end, (size_t)rep.nranks * sizeof *res.end);
  for (int i = 0; i < rep.ncalls && i < 8; i++) res.call[i] = rep.calls[i].time;
  return res;
}

Test(registered, tree_from_outside_is_the_binomial_at_k2, .timeout = 120) {
  reg(B, "ext-knomial", NULL, "knomial", 2, ext_params, 0);
  reg(R, "ext-knomial", NULL, "knomial", 2, ext_params, 0);
  const tutti_algo_t *e2 = sel(B, "ext-knomial:k=2");
  tutti_treespec_t spec;
  cr_assert(eq(int, tutti_algo_treespec(sel(B, "ext-knomial"), 1, &spec), 0));
  cr_expect(eq(int, spec.kind, TUTTI_TREE_KNOMIAL));
  cr_expect(eq(int, spec.k, 3));
  cr_assert(eq(int, tutti_algo_treespec(e2, 1, &spec), 0));
  cr_expect(eq(int, spec.k, 2));
  static const int Ps[] = {1, 2, 5, 8, 13};
  static const char *const segs[] = {"0", "64"};
  tutti_model_t m = hockney();
  for (int s = 0; s < 2; s++) {
    char bn[64], en[64];
    snprintf(bn, sizeof bn, "binomial:segment=%s", segs[s]);
    snprintf(en, sizeof en, "ext-knomial:k=2,segment=%s", segs[s]);
    struct tr tb = {sel(B, bn), sel(R, bn), 0};
    struct tr te = {sel(B, en), sel(R, en), 0};
    for (size_t i = 0; i < sizeof Ps / sizeof *Ps; i++) {
      int P = Ps[i], roots[3] = {0, P / 2, P - 1};
      tutti_world_t *wb = world(P, AS[i % 2], &m), *we = world(P, AS[(i + 1) % 2], &m);
      for (int k = 0; k < 3; k++) {
        tb.root = te.root = roots[k];
        struct result rb = run_report(wb, tree_calls, &tb, bn);
        struct result re = run_report(we, tree_calls, &te, en);
        cr_expect(eq(int, re.ncalls, 5));
        cr_expect(eq(int, rb.ncalls, 5));
        cr_expect(eq(u64, re.messages, rb.messages));
        cr_expect(eq(int, memcmp(re.end, rb.end, sizeof re.end), 0),
                  "%s P=%d root %d: rank 0 ends at %a, binomial's at %a", en, P, roots[k],
                  re.end[0], rb.end[0]);
        cr_expect(eq(int, memcmp(re.call, rb.call, sizeof re.call), 0), "%s P=%d", en, P);
      }
      tutti_world_destroy(wb), tutti_world_destroy(we);
    }
    /* the same Hockney costs, from the same tree */
    tutti_hockney_t h = {1e-6, 1e-9, 1e-10};
    for (int c = 0; c < 2; c++)
      for (int P = 1; P <= 40; P++)
        for (size_t mb = 0; mb < 3; mb++) {
          size_t bytes = (size_t[]){0, 8, 4096}[mb];
          const tutti_algo_t *x = c ? te.rd : te.b, *y = c ? tb.rd : tb.b;
          int bx = -1, by = -2;
          double cx = tutti_algo_cost(x, P, P - 1, bytes, &h, &bx);
          double cy = tutti_algo_cost(y, P, P - 1, bytes, &h, &by);
          cr_expect(eq(dbl, cx, cy), "%s P=%d m=%zu: %a, binomial %a", en, P, bytes, cx, cy);
          cr_expect(eq(int, bx, by));
          cr_expect(not(isnan(cx)));
        }
  }
  /* k = 3: another tree, still right */
  struct tr t3 = {sel(B, "ext-knomial:k=3,segment=100"), sel(R, "ext-knomial:k=3"), 4};
  tutti_world_t *w = world(13, TUTTI_RANKS_AS_THREADS, &m);
  run_report(w, tree_calls, &t3, "k=3");
  tutti_world_destroy(w);
}

/* ------------------------------------------------------ plans and keys */

enum { I32, I64, F64 };
static void put(void *b, int t, long i, long v) {
  if (t == I32) ((int32_t *)b)[i] = (int32_t)v;
  if (t == I64) ((int64_t *)b)[i] = v;
  if (t == F64) ((double *)b)[i] = (double)v;
}
static long get(const void *b, int t, long i) {
  return t == I32   ? ((const int32_t *)b)[i]
         : t == I64 ? (long)((const int64_t *)b)[i]
                    : (long)((const double *)b)[i];
}

/* The calls of the sequence: collective, handle (index into keys.h; -1:
 * NULL), root (mod P), count, type, op (0 SUM, 1 MAX), times in a row.
 * Each row changes one part of the key of the row before it. */
static const struct call {
  int coll, h, root;
  long count;
  int type, op, times;
} seq[] = {
    {B, 0, 0, 16, I32, 0, 6},  {B, 0, 2, 16, I32, 0, 2}, /* root */
    {B, 0, 2, 17, I32, 0, 1},                            /* count */
    {B, 0, 2, 17, F64, 0, 2},                            /* type */
    {B, 1, 2, 17, F64, 0, 1},                            /* handle */
    {B, 2, 2, 17, F64, 0, 2},  {B, -1, 2, 17, F64, 0, 2}, {B, 7, 2, 17, F64, 0, 1},
    {B, 6, 2, 17, F64, 0, 1},  {R, 3, 1, 9, I64, 0, 3},   {R, 3, 1, 9, I64, 1, 1}, /* op */
    {R, 3, 1, 9, I64, 0, 1},   {A, 4, 0, 9, I64, 0, 2},   {A, -1, 0, 9, I64, 0, 1},
    {A, 4, 0, 9, F64, 1, 1},   {G, 5, 3, 4, I32, 0, 2},   {B, 0, 0, 16, I32, 0, 3},
    {B, 0, 0, 0, I32, 0, 1},   {B, 0, 0, 16, I32, 0, 1},  {SC, 8, 0, 5, I64, 0, 2},
    {SC, -1, 0, 5, I64, 0, 1},                            /* handle */
    {SC, 8, 0, 5, I64, 1, 1},                             /* op */
    {EX, 9, 0, 5, I32, 0, 2},  {EX, 9, 0, 6, I32, 0, 1},  /* count */
    {EX, 9, 0, 6, I32, 1, 1},                             /* op */
    {AA, 10, 0, 3, I32, 0, 2}, {AA, 10, 0, 3, F64, 0, 1}, /* type */
    {AA, -1, 0, 3, F64, 0, 1},                            /* handle */
};
#define NROWS ((int)(sizeof seq / sizeof *seq))

struct keys {
  const tutti_algo_t *h[11];
  const tutti_algo_t *null[TUTTI_COLL_N]; /* what NULL runs, for the direct calls */
  int direct;                             /* through desc->fn, no plan */
};

/* Call i of row c, checked: 0, the call's error, or TUTTI_EVERIFY. */
static int one_call(tutti_rank_t *r, const struct keys *k, const struct call *c, int i, void *x,
                    void *y) {
  int P = tutti_size(r), me = tutti_rank(r), root = c->root % P, rc = 0;
  tutti_datatype_t t = c->type == I32 ? TUTTI_INT32 : c->type == I64 ? TUTTI_INT64 : TUTTI_DOUBLE;
  tutti_op_t op = c->op ? TUTTI_MAX : TUTTI_SUM;
  const tutti_algo_t *a = c->h < 0 ? NULL : k->h[c->h], *run = a ? a : k->null[c->coll];
  const tutti_algo_desc_t *d = tutti_algo_desc(run);
  for (long j = 0; j < c->count * P; j++) put(x, c->type, j, -1), put(y, c->type, j, -1);
  if (c->coll == B) {
    for (long j = 0; me == root && j < c->count; j++) put(x, c->type, j, i * 100 + j);
    rc = k->direct ? d->fn.bcast(r, x, c->count, t, root, run)
                   : tutti_bcast(r, x, c->count, t, root, a);
    for (long j = 0; !rc && j < c->count; j++)
      if (get(x, c->type, j) != i * 100 + j) return TUTTI_EVERIFY;
  } else if (c->coll == R || c->coll == A) {
    for (long j = 0; j < c->count; j++) put(x, c->type, j, me + j + i);
    if (c->coll == R)
      rc = k->direct ? d->fn.reduce(r, x, y, c->count, t, op, root, run)
                     : tutti_reduce(r, x, y, c->count, t, op, root, a);
    else
      rc = k->direct ? d->fn.allreduce(r, x, y, c->count, t, op, run)
                     : tutti_allreduce(r, x, y, c->count, t, op, a);
    for (long j = 0; !rc && (me == root || c->coll == A) && j < c->count; j++) {
      long want = c->op ? P - 1 + j + i : (long)P * (j + i) + (long)P * (P - 1) / 2;
      if (get(y, c->type, j) != want) return TUTTI_EVERIFY;
    }
  } else if (c->coll == SC || c->coll == EX) {
    /* rank q's x_j = q + j + i: its prefix is a sum (or max) in closed form */
    for (long j = 0; j < c->count; j++) put(x, c->type, j, me + j + i);
    if (c->coll == SC)
      rc = k->direct ? d->fn.scan(r, x, y, c->count, t, op, run)
                     : tutti_scan(r, x, y, c->count, t, op, a);
    else
      rc = k->direct ? d->fn.exscan(r, x, y, c->count, t, op, run)
                     : tutti_exscan(r, x, y, c->count, t, op, a);
    long top = c->coll == SC ? me : me - 1; /* the prefix of ranks 0..top */
    for (long j = 0; !rc && j < c->count; j++) {
      long want = top < 0 ? -1 /* exscan leaves rank 0's alone */
                  : c->op ? top + j + i
                          : top * (top + 1) / 2 + (top + 1) * (j + i);
      if (get(y, c->type, j) != want) return TUTTI_EVERIFY;
    }
  } else if (c->coll == AA) {
    /* block q of rank me's input: me * 100 + q * 10 + j + i, for rank q */
    for (long j = 0; j < c->count * P; j++)
      put(x, c->type, j, me * 100 + (j / c->count) * 10 + j % c->count + i);
    rc = k->direct ? d->fn.alltoall(r, x, y, c->count, t, run)
                   : tutti_alltoall(r, x, y, c->count, t, a);
    for (long j = 0; !rc && j < c->count * P; j++)
      if (get(y, c->type, j) != (j / c->count) * 100 + me * 10 + j % c->count + i)
        return TUTTI_EVERIFY;
  } else {
    for (long j = 0; j < c->count; j++) put(x, c->type, j, me * 10 + j + i);
    rc = k->direct ? d->fn.gather(r, x, c->count, t, y, c->count, t, root, run)
                   : tutti_gather(r, x, c->count, t, y, c->count, t, root, a);
    for (long j = 0; !rc && me == root && j < c->count * P; j++)
      if (get(y, c->type, j) != (j / c->count) * 10 + j % c->count + i) return TUTTI_EVERIFY;
  }
  return rc;
}

static int run_seq(tutti_rank_t *r, void *arg) {
  int rc = 0, i = 0;
  void *x = calloc(16 * 17, 8), *y = calloc(16 * 17, 8);
  if (!x || !y) rc = TUTTI_ENOMEM;
  for (int row = 0; row < NROWS && !rc; row++)
    for (int n = 0; n < seq[row].times && !rc; n++) rc = one_call(r, arg, &seq[row], i++, x, y);
  free(x), free(y);
  return rc;
}

Test(plan, repeated_and_changed_keys_match_direct_calls, .timeout = 120) {
  unsetenv("TUTTI_BCAST"), unsetenv("TUTTI_REDUCE"), unsetenv("TUTTI_ALLREDUCE");
  unsetenv("TUTTI_GATHER"), unsetenv("TUTTI_SCAN"), unsetenv("TUTTI_EXSCAN");
  unsetenv("TUTTI_ALLTOALL");
  struct keys k = {.h = {sel(B, "binomial"), sel(B, "lambda-tree"), sel(B, "binomial:segment=16"),
                         sel(R, "binomial"), sel(A, "reduce-bcast"), sel(G, "binomial"),
                         sel(B, "flat"), sel(B, NULL), /* h[7]: NULL's, asked for by name */
                         sel(SC, "binomial"), sel(EX, "linear"), sel(AA, "bruck")}};
  for (int c = 0; c < TUTTI_COLL_N; c++) k.null[c] = sel(c, NULL);
  int ncalls = 0;
  for (int row = 0; row < NROWS; row++) ncalls += seq[row].times;
  tutti_model_t m = hockney();
  static const int Ps[] = {1, 4, 7};
  for (int s = 0; s < 2; s++)
    for (size_t i = 0; i < 3; i++) {
      int P = Ps[i];
      tutti_world_t *w = world(P, AS[s], &m);
      k.direct = 0;
      struct result planned = run_report(w, run_seq, &k, AS_NAME[s]);
      k.direct = 1;
      struct result direct = run_report(w, run_seq, &k, AS_NAME[s]);
      cr_expect(eq(int, planned.ncalls, ncalls));
      cr_expect(eq(int, direct.ncalls, 0));
      cr_expect(eq(u64, planned.messages, direct.messages), "%s P=%d", AS_NAME[s], P);
      for (int q = 0; q < P; q++)
        cr_expect(eq(dbl, planned.end[q], direct.end[q]), "%s P=%d rank %d: planned %a, direct %a",
                  AS_NAME[s], P, q, planned.end[q], direct.end[q]);
      tutti_world_destroy(w);
    }
}

/* A changed key is checked again: the op (a commutative-only algorithm
 * refuses matmul2), the count (more segments than bytes), the root (an
 * explicit chain that does not start at it); the old key then runs again. */
static const tutti_algo_t *g_ring, *g_chain8, *g_list;
static int rechecks[16][10];

static int recheck(tutti_rank_t *r, void *arg) {
  (void)arg;
  int me = tutti_rank(r), n = 0, *rc = rechecks[me];
  int32_t sb[8] = {1, 2, 3, 4, 5, 6, 7, 8}, rb[2];
  uint8_t buf[16] = {0};
  rc[n++] = tutti_reduce_scatter(r, sb, rb, 2, TUTTI_INT32, TUTTI_SUM, g_ring);
  rc[n++] = tutti_reduce_scatter(r, sb, rb, 2, TUTTI_INT32, TUTTI_SUM, g_ring);
  rc[n++] = tutti_reduce_scatter(r, sb, rb, 2, TUTTI_INT32, TUTTI_MATMUL2, g_ring);
  rc[n++] = tutti_reduce_scatter(r, sb, rb, 2, TUTTI_INT32, TUTTI_SUM, g_ring);
  rc[n++] = tutti_bcast(r, buf, 16, TUTTI_BYTE, 0, g_chain8);
  rc[n++] = tutti_bcast(r, buf, 4, TUTTI_BYTE, 0, g_chain8);
  rc[n++] = tutti_bcast(r, buf, 16, TUTTI_BYTE, 0, g_chain8);
  rc[n++] = tutti_bcast(r, buf, 16, TUTTI_BYTE, 0, g_list);
  rc[n++] = tutti_bcast(r, buf, 16, TUTTI_BYTE, 1, g_list);
  rc[n++] = tutti_bcast(r, buf, 16, TUTTI_BYTE, 0, g_list);
  return 0;
}

Test(plan, a_new_key_is_checked_again, .timeout = 60) {
  g_ring = sel(TUTTI_COLL_REDUCE_SCATTER, "ring");
  g_chain8 = sel(B, "pipelined-chain:segments=8");
  g_list = sel(B, "pipelined-chain:order=list:0,1,2,3");
  static const int want[10] = {0, 0, TUTTI_ENOTSUP, 0, 0, TUTTI_EINVAL, 0, 0, TUTTI_EINVAL, 0};
  for (int s = 0; s < 2; s++) {
    tutti_world_t *w = world(4, AS[s], NULL);
    memset(rechecks, 0x55, sizeof rechecks);
    cr_assert(eq(int, tutti_world_run(w, recheck, NULL), 0), "%s", tutti_world_error(w));
    for (int q = 0; q < 4; q++)
      for (int i = 0; i < 10; i++)
        cr_expect(eq(int, rechecks[q][i], want[i]), "%s rank %d call %d", AS_NAME[s], q, i);
    tutti_world_destroy(w);
  }
}

/* algo NULL: a run reads TUTTI_BCAST as it is when the run starts. */
static int bcast_twice(tutti_rank_t *r, void *arg) {
  int32_t buf[4] = {0};
  int rc = tutti_bcast(r, buf, 4, TUTTI_INT32, 0, arg);
  return rc ? rc : tutti_bcast(r, buf, 4, TUTTI_INT32, 0, arg);
}

Test(plan, variables_are_read_when_a_run_starts, .timeout = 60) {
  tutti_model_t m = hockney();
  unsetenv("TUTTI_BCAST");
  tutti_world_t *w = world(5, TUTTI_RANKS_AS_THREADS, &m), *x = world(5, AS[1], &m);
  struct result null1 = run_report(w, bcast_twice, NULL, "NULL");
  struct result bin = run_report(x, bcast_twice, (void *)sel(B, "binomial"), "binomial");
  setenv("TUTTI_BCAST", "flat", 1);
  struct result null2 = run_report(w, bcast_twice, NULL, "NULL, TUTTI_BCAST=flat");
  unsetenv("TUTTI_BCAST");
  struct result flat = run_report(x, bcast_twice, (void *)sel(B, "flat"), "flat");
  struct result null3 = run_report(w, bcast_twice, NULL, "NULL again");
  cr_expect(eq(int, memcmp(null1.end, bin.end, sizeof bin.end), 0));
  cr_expect(eq(int, memcmp(null2.end, flat.end, sizeof flat.end), 0), "%a %a", null2.end[4],
            flat.end[4]);
  cr_expect(eq(int, memcmp(null3.end, bin.end, sizeof bin.end), 0));
  cr_expect(not(eq(dbl, flat.end[0], bin.end[0]))); /* the two are told apart */
  tutti_world_destroy(w), tutti_world_destroy(x);
}

/* ------------------------------------------------------------- nesting */

static const tutti_algo_t *g_inner, *g_nested, *g_deep;

/* allreduce = tutti_reduce (algo NULL: the default) + tutti_bcast */
static int nested_allreduce(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                            tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r);
  if (tag < 0) return tag;
  int rc = tutti_reduce(r, sbuf, rbuf, count, type, op, 0, NULL);
  return rc ? rc : tutti_bcast(r, rbuf, count, type, 0, g_inner);
}

/* a barrier that is that allreduce of ones: two deep */
static int deep_barrier(tutti_rank_t *r, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r);
  if (tag < 0) return tag;
  int32_t one = 1, sum = 0;
  int rc = tutti_allreduce(r, &one, &sum, 1, TUTTI_INT32, TUTTI_SUM, g_nested);
  return rc ? rc : sum == tutti_size(r) ? 0 : TUTTI_EVERIFY;
}

static int allreduce_checked(tutti_rank_t *r, int it) {
  int P = tutti_size(r), me = tutti_rank(r);
  int64_t s[6], d[6];
  for (int j = 0; j < 6; j++) s[j] = me * 3 + j + it, d[j] = -1;
  int rc = tutti_allreduce(r, s, d, 6, TUTTI_INT64, TUTTI_SUM, g_nested);
  for (int j = 0; !rc && j < 6; j++)
    if (d[j] != (int64_t)3 * P * (P - 1) / 2 + (int64_t)P * (j + it)) return TUTTI_EVERIFY;
  return rc;
}

static int nest_seq(tutti_rank_t *r, void *arg) {
  (void)arg;
  int rc = 0;
  for (int it = 0; it < 2 && !rc; it++) rc = allreduce_checked(r, it);
  if (!rc) rc = bcast_checked(r, &(struct bc){g_inner, tutti_size(r) - 1});
  for (int it = 2; it < 4 && !rc; it++) rc = allreduce_checked(r, it);
  for (int it = 0; it < 2 && !rc; it++) rc = tutti_barrier(r, g_deep);
  return rc;
}

/* the nested allreduce's messages made by two calls of the rank's own */
static int two_calls(tutti_rank_t *r, void *arg) {
  int64_t s[6] = {1, 2, 3, 4, 5, 6}, d[6];
  if (arg) return tutti_allreduce(r, s, d, 6, TUTTI_INT64, TUTTI_SUM, g_nested);
  int rc = tutti_coll_tag(r); /* the tag nested_allreduce takes */
  if (rc < 0) return rc;
  rc = tutti_reduce(r, s, d, 6, TUTTI_INT64, TUTTI_SUM, 0, NULL);
  return rc ? rc : tutti_bcast(r, d, 6, TUTTI_INT64, 0, g_inner);
}

Test(nesting, a_collective_an_algorithm_calls_is_its_span, .timeout = 60) {
  unsetenv("TUTTI_REDUCE");
  reg(A, "nested-rb", (void (*)(void))nested_allreduce, NULL, 0, NULL, 0);
  reg(TUTTI_COLL_BARRIER, "deep", (void (*)(void))deep_barrier, NULL, 0, NULL, 0);
  g_inner = sel(B, "binomial"), g_nested = sel(A, "nested-rb"),
  g_deep = sel(TUTTI_COLL_BARRIER, "deep");
  tutti_model_t m = hockney();
  static const char *const names[] = {"allreduce", "allreduce", "bcast",  "allreduce",
                                      "allreduce", "barrier",   "barrier"};
  static const int Ps[] = {1, 4, 7};
  for (int s = 0; s < 2; s++)
    for (size_t i = 0; i < 3; i++) {
      tutti_world_t *w = world(Ps[i], AS[s], &m);
      for (int again = 0; again < 2; again++) {
        cr_assert(eq(int, tutti_world_run(w, nest_seq, NULL), 0), "%s P=%d: %s", AS_NAME[s], Ps[i],
                  tutti_world_error(w));
        tutti_report_t rep;
        cr_assert(eq(int, tutti_world_report(w, &rep), 0));
        cr_assert(eq(int, rep.ncalls, 7), "%s P=%d", AS_NAME[s], Ps[i]);
        for (int c = 0; c < 7; c++) {
          cr_expect(eq(str, (char *)rep.calls[c].name, (char *)names[c]), "call %d", c);
          if (Ps[i] > 1) cr_expect(gt(dbl, rep.calls[c].time, 0), "call %d", c);
        }
      }
      tutti_world_destroy(w);
    }
  /* one span, the same messages and clocks as the two calls made apart */
  tutti_world_t *w = world(6, TUTTI_RANKS_AS_THREADS, &m);
  struct result one = run_report(w, two_calls, w, "nested");
  struct result two = run_report(w, two_calls, NULL, "two calls");
  cr_expect(eq(int, one.ncalls, 1));
  cr_expect(eq(int, two.ncalls, 2));
  cr_expect(eq(u64, one.messages, two.messages));
  cr_expect(eq(int, memcmp(one.end, two.end, sizeof one.end), 0), "%a %a", one.end[0], two.end[0]);
  tutti_world_destroy(w);
}

/* -------------------------------------------------------------- faults */

static int nope_rank;
static const tutti_algo_t *g_nope, *g_bin;

static int nope_bcast(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                      const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r), rc = 0;
  if (tag < 0) return tag;
  if (nope_rank < 0 || tutti_rank(r) == nope_rank) (void)tutti_param_long(a, "nope");
  if (tutti_rank(r) != root) return tutti_recv(r, buf, count, type, root, tag, NULL);
  for (int i = 0; i < tutti_size(r) && !rc; i++)
    if (i != root) rc = tutti_send(r, buf, count, type, i, tag);
  return rc;
}

struct fault {
  int rc1[16], rc2[16], ok1[16], ok2[16];
  int ret_first, direct, then_fail;
};

static int fill_check(int32_t *b, int me, int root, int fill) {
  int ok = 1;
  for (int j = 0; j < 3; j++)
    if (fill)
      b[j] = me == root ? 40 + root + j : 0;
    else
      ok &= b[j] == 40 + root + j;
  return ok;
}

static int fault_rank(tutti_rank_t *r, void *arg) {
  struct fault *f = arg;
  int me = tutti_rank(r), P = tutti_size(r), rc;
  int32_t buf[3];
  if (f->direct) { /* the rank has a plan, and no call is under way */
    fill_check(buf, me, 0, 1);
    if ((rc = tutti_bcast(r, buf, 3, TUTTI_INT32, 0, g_bin))) return rc;
  }
  fill_check(buf, me, 0, 1);
  f->rc1[me] = f->direct ? tutti_algo_desc(g_nope)->fn.bcast(r, buf, 3, TUTTI_INT32, 0, g_nope)
                         : tutti_bcast(r, buf, 3, TUTTI_INT32, 0, g_nope);
  f->ok1[me] = fill_check(buf, me, 0, 0);
  if (f->ret_first) return f->rc1[me];
  fill_check(buf, me, 1 % P, 1);
  f->rc2[me] = tutti_bcast(r, buf, 3, TUTTI_INT32, 1 % P, g_bin);
  f->ok2[me] = fill_check(buf, me, 1 % P, 0);
  return f->then_fail && me == nope_rank ? TUTTI_EVERIFY : 0; /* the program's own failure */
}

Test(faults, an_undeclared_parameter_fails_the_call, .timeout = 60) {
  reg(B, "reads-nope", (void (*)(void))nope_bcast, NULL, 2, kary_params, 0);
  g_nope = sel(B, "reads-nope"), g_bin = sel(B, "binomial");
  for (int s = 0; s < 2; s++) {
    tutti_world_t *w = world(4, AS[s], NULL);
    struct fault f;
    /* rank 2 reads it: its call fails, the others' do not, its next call runs */
    for (int who = 2; who >= -1; who -= 3) {
      nope_rank = who;
      memset(&f, 0, sizeof f);
      cr_assert(eq(int, tutti_world_run(w, fault_rank, &f), 0), "%s", tutti_world_error(w));
      for (int q = 0; q < 4; q++) {
        int bad = who < 0 || q == who;
        cr_expect(eq(int, f.rc1[q], bad ? TUTTI_ENOTFOUND : 0), "%s nope at %d: rank %d",
                  AS_NAME[s], who, q);
        cr_expect(eq(int, f.ok1[q], 1), "rank %d: the call's data", q);
        cr_expect(eq(int, f.rc2[q], 0), "%s nope at %d: rank %d's next call", AS_NAME[s], who, q);
        cr_expect(eq(int, f.ok2[q], 1));
      }
    }
    /* the rank that returns it: the run's error names rank, algorithm, name */
    nope_rank = 3;
    memset(&f, 0, sizeof f);
    f.ret_first = 1;
    cr_expect(eq(int, tutti_world_run(w, fault_rank, &f), TUTTI_ENOTFOUND));
    const char *e = tutti_world_error(w);
    cr_expect(strstr(e, "rank 3") && strstr(e, "TUTTI_ENOTFOUND") &&
                  strstr(e, "bcast 'reads-nope' (registered by the program)") &&
                  strstr(e, "read parameter 'nope'"),
              "%s: %s", AS_NAME[s], e);
    /* the program's own failure after a later call that ran well: not the fault's */
    nope_rank = 2;
    memset(&f, 0, sizeof f);
    f.then_fail = 1;
    cr_expect(eq(int, tutti_world_run(w, fault_rank, &f), TUTTI_EVERIFY));
    e = tutti_world_error(w);
    cr_expect(strstr(e, "rank 2 failed: TUTTI_EVERIFY") && !strstr(e, "nope"), "%s: %s", AS_NAME[s],
              e);
    /* outside any collective (desc->fn itself): only the value tells */
    nope_rank = -1;
    memset(&f, 0, sizeof f);
    f.direct = 1;
    cr_expect(eq(int, tutti_world_run(w, fault_rank, &f), 0), "%s", tutti_world_error(w));
    for (int q = 0; q < 4; q++) {
      cr_expect(eq(int, f.rc1[q], 0), "%s direct: rank %d", AS_NAME[s], q);
      cr_expect(eq(int, f.ok1[q], 1));
      cr_expect(eq(int, f.rc2[q], 0), "%s direct: rank %d's next call", AS_NAME[s], q);
      cr_expect(eq(int, f.ok2[q], 1));
    }
    tutti_world_destroy(w);
  }
  cr_expect(eq(long, tutti_param_long(g_nope, "nope"), 0)); /* and on no rank at all */
}

/* ------------------------------------------------ shared blocks, self */

static void *g_shared[2][8];
static int g_fini_n;
static void *g_fini_p[4];
static void fini(void *p) {
  g_fini_p[g_fini_n++ % 4] = p;
}

static int shared_rank(tutti_rank_t *r, void *arg) {
  int wi = *(const int *)arg, me = tutti_rank(r);
  unsigned char *b = tutti_rank_shared(r, 64, fini);
  if (!b) return TUTTI_ENOMEM;
  if (tutti_rank_shared(r, 1, NULL) != b) return TUTTI_EVERIFY; /* whatever the size */
  g_shared[wi][me] = b;
  b[8 + me] = (unsigned char)(me + 1);
  return 0;
}

Test(rank, shared_block_per_world, .timeout = 60) {
  tutti_world_t *w0 = world(4, TUTTI_RANKS_AS_THREADS, NULL), *w1 = world(3, AS[1], NULL);
  int i0 = 0, i1 = 1;
  cr_assert(eq(int, tutti_world_run(w0, shared_rank, &i0), 0), "%s", tutti_world_error(w0));
  cr_assert(eq(int, tutti_world_run(w1, shared_rank, &i1), 0), "%s", tutti_world_error(w1));
  unsigned char *p0 = g_shared[0][0], *p1 = g_shared[1][0];
  cr_assert(not(eq(ptr, p0, NULL)));
  cr_assert(not(eq(ptr, p1, NULL)));
  for (int q = 0; q < 4; q++) cr_expect(eq(ptr, g_shared[0][q], p0), "rank %d", q);
  for (int q = 0; q < 3; q++) cr_expect(eq(ptr, g_shared[1][q], p1), "rank %d", q);
  cr_expect(not(eq(ptr, p0, p1)));
  for (int q = 0; q < 4; q++) cr_expect(eq(int, p0[8 + q], q + 1));
  cr_expect(eq(int, p0[0] + p1[8 + 3], 0)); /* zeroed */
  cr_expect(eq(int, g_fini_n, 0));          /* not at the end of a run */
  memset(g_shared, 0, sizeof g_shared);
  cr_assert(eq(int, tutti_world_run(w0, shared_rank, &i0), 0), "%s", tutti_world_error(w0));
  cr_expect(eq(ptr, g_shared[0][3], p0)); /* the same block in the next run */
  cr_expect(eq(int, g_fini_n, 0));
  tutti_world_destroy(w0);
  cr_expect(eq(int, g_fini_n, 1));
  cr_expect(eq(ptr, g_fini_p[0], p0));
  tutti_world_destroy(w1);
  cr_expect(eq(int, g_fini_n, 2));
  cr_expect(eq(ptr, g_fini_p[1], p1));
  cr_expect(eq(ptr, tutti_rank_shared(NULL, 8, fini), NULL));
}

static tutti_rank_t *g_self[3][16];
static const tutti_algo_t *g_sel[16];

/* also: every rank selects what no one has selected yet, at once */
static int self_rank(tutti_rank_t *r, void *arg) {
  int me = tutti_rank(r);
  int32_t x = me;
  g_self[0][me] = tutti_rank_self() == r ? r : NULL;
  if (tutti_algo_select(B, "lambda-tree", arg, &g_sel[me], NULL, 0)) g_sel[me] = NULL;
  int rc = tutti_bcast(r, &x, 1, TUTTI_INT32, tutti_size(r) - 1, NULL); /* blocks, moves */
  g_self[1][me] = tutti_rank_self() == r ? r : NULL;
  if (!rc) rc = tutti_barrier(r, NULL);
  g_self[2][me] = tutti_rank_self() == r ? r : NULL;
  return rc ? rc : x == tutti_size(r) - 1 ? 0 : TUTTI_EVERIFY;
}

Test(rank, self_is_the_rank_running, .timeout = 60) {
  cr_expect(eq(ptr, tutti_rank_self(), NULL));
  for (int s = 0; s < 2; s++) {
    tutti_world_t *w = world(13, AS[s], NULL);
    memset(g_self, 0, sizeof g_self);
    const char *lambda = s ? "lambda=0.625" : "lambda=0.5625,segment=3";
    cr_assert(eq(int, tutti_world_run(w, self_rank, (void *)lambda), 0), "%s",
              tutti_world_error(w));
    const tutti_algo_t *one = sel(B, "lambda-tree"), *a = NULL;
    cr_assert(eq(int, tutti_algo_select(B, "lambda-tree", lambda, &a, NULL, 0), 0));
    cr_expect(not(eq(ptr, (void *)a, (void *)one)));
    for (int q = 0; q < 13; q++)
      cr_expect(eq(ptr, (void *)g_sel[q], (void *)a), "%s rank %d", AS_NAME[s], q);
    for (int q = 0; q < 13; q++)
      for (int k = 0; k < 3; k++) {
        cr_expect(not(eq(ptr, g_self[k][q], NULL)), "%s rank %d at %d", AS_NAME[s], q, k);
        cr_expect(eq(int, tutti_rank(g_self[k][q]), q), "%s rank %d at %d", AS_NAME[s], q, k);
      }
    cr_expect(eq(ptr, tutti_rank_self(), NULL), "%s", AS_NAME[s]);
    tutti_world_destroy(w);
  }
}

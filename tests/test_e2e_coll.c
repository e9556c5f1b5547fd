/*
 * test_e2e_coll.c -- the collectives and their registry.
 *
 * Correctness is driven from the registry: every registered algorithm, with
 * each of its parameters at several values, on many rank counts and roots,
 * int32 sum, double max and the non-commutative matmul2 on int64, counts
 * 0, 1, 5 and large, in place and not, against a sequential reference (the
 * fold in rank order with tutti_reduce_local). A new algorithm is tested by
 * being registered. One world per rank count serves every algorithm; most
 * are native (none model), some hockney, so the replay runs too.
 *
 * Modeled times are MODEL.md's worked examples and REFERENCE.md's postal
 * vectors, measured on real collectives through tutti_world_report.
 *
 * TUTTI_TSAN_TEST: also built and run under ThreadSanitizer (tests/CMakeLists.txt).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

/* ------------------------------------------------------------------ worlds */

static tutti_world_t *mkworld(int n, const tutti_model_t *m) {
  tutti_config_t c = tutti_config_default(n);
  c.model = m;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  return w;
}

static tutti_model_t hockney(double alpha, double beta) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_hockney(&m, alpha, beta), 0));
  return m;
}

static tutti_model_t postal(double L) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_postal(&m, L), 0));
  return m;
}

static int has(const char *s, const char *sub) {
  return strstr(s, sub) != NULL;
}

static tutti_algo_t pick(int coll, const char *name, const char *params) {
  tutti_algo_t a;
  char err[256];
  int rc = tutti_algo_select(coll, name, params, &a, err, sizeof err);
  cr_assert(eq(int, rc, 0), "select %s %s: %s", name, params ? params : "", err);
  return a;
}

/* ------------------------------------------------------- data and reference */

enum kind { K_I32_SUM, K_DBL_MAX, K_I64_MATMUL, NKINDS };
static tutti_datatype_t ktype(int k) {
  return k == K_I32_SUM ? TUTTI_INT32 : k == K_DBL_MAX ? TUTTI_DOUBLE : TUTTI_INT64;
}
static tutti_op_t kop(int k) {
  return k == K_I32_SUM ? TUTTI_SUM : k == K_DBL_MAX ? TUTTI_MAX : TUTTI_MATMUL2;
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 31, x *= 0x7fb5d329728ea185ull, x ^= x >> 27, x *= 0x81dadef4bc2dd44dull;
  return x ^ x >> 33;
}

/* Rank `rank`'s i-th input element for a kind; salt tells calls apart. */
static void gen(int k, int rank, long i, int salt, void *out) {
  uint64_t h = mix((uint64_t)rank * 1000003u + (uint64_t)i * 7919u + (uint64_t)salt * 104729u + 1);
  if (k == K_I32_SUM) {
    *(int32_t *)out = (int32_t)(h % 200001) - 100000; /* sums of 128 stay far from overflow */
  } else if (k == K_DBL_MAX) {
    *(double *)out = (double)(int64_t)(h % 100003) * 0.25 - 12345.5;
  } else { /* four matrix entries mod 65521, never the identity's shape */
    uint64_t v = 0;
    for (int j = 0; j < 4; j++) v |= (mix(h + (uint64_t)j) % 65521) << (16 * j);
    *(int64_t *)out = (int64_t)v;
  }
}

static void fill(int k, int rank, long count, int salt, void *buf) {
  size_t esz = tutti_type_size(ktype(k));
  for (long i = 0; i < count; i++) gen(k, rank, i, salt, (char *)buf + (size_t)i * esz);
}

#define MAXCOUNT 1000
#define NSALTS 3
/* ref[k][salt] = x_0 op x_1 op ... op x_{P-1}, folded in rank order. */
struct ref {
  void *v[NKINDS][NSALTS];
};

static void ref_build(struct ref *R, int P) {
  for (int k = 0; k < NKINDS; k++)
    for (int s = 0; s < NSALTS; s++) {
      size_t esz = tutti_type_size(ktype(k));
      char *acc = malloc(MAXCOUNT * esz), *x = malloc(MAXCOUNT * esz);
      fill(k, 0, MAXCOUNT, s, acc);
      for (int r = 1; r < P; r++) {
        fill(k, r, MAXCOUNT, s, x); /* x = acc op x, then acc = x */
        cr_assert(eq(int, tutti_reduce_local(acc, x, MAXCOUNT, ktype(k), kop(k)), 0));
        memcpy(acc, x, MAXCOUNT * esz);
      }
      free(x);
      R->v[k][s] = acc;
    }
}

static void ref_free(struct ref *R) {
  for (int k = 0; k < NKINDS; k++)
    for (int s = 0; s < NSALTS; s++) free(R->v[k][s]);
}

/* ------------------------------------------------------------------ cases */

struct tcase {
  tutti_algo_t algo;
  int root, kind, inplace, salt, expect; /* expect: 0 or TUTTI_ENOTSUP */
  long count;
};

struct run {
  const struct tcase *c;
  int n;
  const struct ref *ref;
  int failed;
  char why[512];
};

static void fail(struct run *R, const struct tcase *c, int rank, const char *what, long i) {
  if (__atomic_exchange_n(&R->failed, 1, __ATOMIC_ACQ_REL)) return;
  char name[128];
  tutti_algo_format(&c->algo, name, sizeof name);
  snprintf(R->why, sizeof R->why,
           "%s %s: rank %d root %d kind %d count %ld inplace %d: %s (element %ld)",
           tutti_coll_name(c->algo.desc->coll), name, rank, c->root, c->kind, c->count, c->inplace,
           what, i);
}

/* Compare count elements with rank src's input (ref NULL) or with ref. */
static long mismatch(const struct tcase *c, const void *got, int src, const void *ref) {
  size_t esz = tutti_type_size(ktype(c->kind));
  char want[8];
  for (long i = 0; i < c->count; i++) {
    const void *w = ref ? (const char *)ref + (size_t)i * esz : want;
    if (!ref) gen(c->kind, src, i, c->salt, want);
    if (memcmp((const char *)got + (size_t)i * esz, w, esz)) return i;
  }
  return -1;
}

#define CHECK(cond, what, i)                                                                       \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fail(R, c, me, what, i);                                                                     \
      goto out;                                                                                    \
    }                                                                                              \
  } while (0)

static int run_cases(tutti_rank_t *r, void *arg) {
  struct run *R = arg;
  const int me = tutti_rank(r), P = tutti_size(r);
  int rc = 0;
  size_t big = (size_t)P * MAXCOUNT * 8;
  char *sb = malloc(MAXCOUNT * 8), *rb = malloc(big);
  if (!sb || !rb) return TUTTI_ENOMEM;
  for (int n = 0; n < R->n && !__atomic_load_n(&R->failed, __ATOMIC_ACQUIRE); n++) {
    const struct tcase *c = &R->c[n];
    const int root = c->root, isroot = me == root, k = c->kind;
    tutti_datatype_t t = ktype(k);
    const size_t esz = tutti_type_size(t), bytes = (size_t)c->count * esz;
    long bad;
    memset(rb, 0xA5, big); /* poison: a stale result cannot pass */
    switch (c->algo.desc->coll) {
    case TUTTI_COLL_BCAST:
      if (isroot) fill(k, me, c->count, c->salt, rb);
      rc = tutti_bcast(r, rb, c->count, t, root, &c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      CHECK((bad = mismatch(c, rb, root, NULL)) < 0, "wrong data", bad);
      break;
    case TUTTI_COLL_REDUCE:
      fill(k, me, c->count, c->salt, isroot && c->inplace ? rb : sb);
      rc = tutti_reduce(r, isroot && c->inplace ? TUTTI_IN_PLACE : sb, isroot ? rb : NULL, c->count,
                        t, kop(k), root, &c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      if (!rc && isroot)
        CHECK((bad = mismatch(c, rb, -1, R->ref->v[k][c->salt])) < 0, "wrong result", bad);
      break;
    case TUTTI_COLL_ALLREDUCE:
      fill(k, me, c->count, c->salt, c->inplace ? rb : sb);
      rc = tutti_allreduce(r, c->inplace ? TUTTI_IN_PLACE : sb, rb, c->count, t, kop(k), &c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      if (!rc) CHECK((bad = mismatch(c, rb, -1, R->ref->v[k][c->salt])) < 0, "wrong result", bad);
      break;
    case TUTTI_COLL_GATHER:
      fill(k, me, c->count, c->salt, isroot && c->inplace ? rb + (size_t)root * bytes : sb);
      rc = tutti_gather(r, isroot && c->inplace ? TUTTI_IN_PLACE : sb, c->count, t,
                        isroot ? rb : NULL, c->count, t, root, &c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      for (int j = 0; isroot && j < P; j++)
        CHECK((bad = mismatch(c, rb + (size_t)j * bytes, j, NULL)) < 0, "wrong block",
              j * 100000L + bad);
      break;
    case TUTTI_COLL_SCATTER:
      if (isroot)
        for (int j = 0; j < P; j++) fill(k, j, c->count, c->salt, rb + (size_t)j * bytes);
      /* the root's own block comes out at sb, or stays in rb in place */
      rc = tutti_scatter(r, isroot ? rb : NULL, c->count, t,
                         isroot && c->inplace ? TUTTI_IN_PLACE : sb, c->count, t, root, &c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      CHECK((bad = mismatch(c, isroot && c->inplace ? rb + (size_t)me * bytes : sb, me, NULL)) < 0,
            "wrong block", bad);
      break;
    case TUTTI_COLL_BARRIER:
      rc = tutti_barrier(r, &c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      break;
    }
    memset(sb, 0x5A, MAXCOUNT * 8);
  }
out:
  free(sb);
  free(rb);
  return __atomic_load_n(&R->failed, __ATOMIC_ACQUIRE) ? TUTTI_EVERIFY : 0;
}

/* The values each parameter is tried at, by name; unknown future
 * parameters get their default, range ends and auto. */
static int param_values(const tutti_param_desc_t *p, const char *v[8]) {
  static const char *lambda[] = {"0.5", "0.6", "0.75", "0.9", "auto"};
  static const char *L[] = {"1", "2", "3", "auto"};
  static const char *segment[] = {"0", "16", "1000"};
  static char gen_v[3][32];
  int n = 0;
#define COPY(arr)                                                                                  \
  for (size_t i = 0; i < sizeof arr / sizeof *arr; i++) v[n++] = arr[i];                           \
  return n
  if (!strcmp(p->name, "lambda")) {
    COPY(lambda);
  }
  if (!strcmp(p->name, "L")) {
    COPY(L);
  }
  if (!strcmp(p->name, "segment")) {
    COPY(segment);
  }
#undef COPY
  snprintf(gen_v[0], 32, "%.17g", p->min);
  v[n++] = gen_v[0];
  if (isfinite(p->max)) snprintf(gen_v[1], 32, "%.17g", p->max), v[n++] = gen_v[1];
  if (p->flags & TUTTI_PARAM_AUTO_OK) v[n++] = "auto";
  return n;
}

/* Every case for one algorithm on P ranks. `light` trims the sweep (the
 * modeled worlds, whose replay is slower). */
static int build_cases(const tutti_algo_desc_t *d, int P, int light, struct tcase **out) {
  const char *settings[1 + TUTTI_MAX_PARAMS * 8];
  static char buf[TUTTI_MAX_PARAMS * 8][64];
  int ns = 0, nb = 0;
  settings[ns++] = "";
  for (int i = 0; i < d->nparams; i++) {
    const char *v[8];
    int nv = param_values(&d->params[i], v);
    for (int j = 0; j < nv; j++) {
      snprintf(buf[nb], sizeof buf[nb], "%s=%s", d->params[i].name, v[j]);
      settings[ns++] = buf[nb++];
    }
  }
  int roots[128], nr = 0;
  if (P <= 16 && !light)
    for (int i = 0; i < P; i++) roots[nr++] = i;
  else {
    int cand[] = {0, 1, P / 2, P - 1};
    for (int i = 0; i < 4; i++) {
      int dup = 0;
      for (int j = 0; j < nr; j++) dup |= roots[j] == cand[i] % P;
      if (!dup) roots[nr++] = cand[i] % P;
    }
  }
  int reduction = d->coll == TUTTI_COLL_REDUCE || d->coll == TUTTI_COLL_ALLREDUCE;
  int blocks = d->coll == TUTTI_COLL_GATHER || d->coll == TUTTI_COLL_SCATTER;
  int rooted = d->coll != TUTTI_COLL_ALLREDUCE && d->coll != TUTTI_COLL_BARRIER;
  long counts[] = {0, 1, 5, blocks ? 100 : MAXCOUNT};
  size_t cap = (size_t)ns * (size_t)nr * NKINDS * 4 + 1, n = 0;
  struct tcase *c = malloc(cap * sizeof *c);
  for (int s = 0; s < ns; s++) {
    tutti_algo_t a = pick(d->coll, d->name, settings[s]);
    double seg = tutti_algo_param(&a, "segment");
    for (int ri = 0; ri < (rooted ? nr : 1); ri++)
      for (int k = 0; k < NKINDS; k++) {
        if (!reduction && k == K_I64_MATMUL) continue; /* movers: two types suffice */
        for (int ci = 0; ci < 4; ci++) {
          if (d->coll == TUTTI_COLL_BARRIER && (k || ci)) continue;
          /* tiny segments of a large buffer: thousands of messages a call */
          if (counts[ci] > 100 && seg > 0 && seg < 256 && (P > 16 || light)) continue;
          struct tcase t = {.algo = a, .root = roots[ri], .kind = k, .count = counts[ci]};
          t.salt = (int)(n % NSALTS);
          t.inplace = (int)(n / NSALTS % 2);
          if (reduction && (d->restrictions & TUTTI_ALGO_COMMUTATIVE) &&
              !tutti_op_commutative(kop(k)))
            t.expect = TUTTI_ENOTSUP;
          c[n++] = t;
        }
      }
  }
  *out = c;
  return (int)n;
}

#ifdef __SANITIZE_THREAD__
#define TSAN_LIGHT 1
#else
#define TSAN_LIGHT 0
#endif

/* Run every registered algorithm on one world of P ranks. */
static void sweep(int P, const tutti_model_t *m, int light) {
  if (TSAN_LIGHT && P > 31) return;
  tutti_world_t *w = mkworld(P, m);
  struct ref ref;
  ref_build(&ref, P);
  const tutti_algo_desc_t *d;
  int total = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
    struct run R = {.ref = &ref};
    struct tcase *c;
    R.n = build_cases(d, P, light, &c);
    R.c = c;
    int rc = tutti_world_run(w, run_cases, &R);
    cr_expect(eq(int, rc, 0), "P=%d %s %s: %s / %s", P, tutti_coll_name(d->coll), d->name, R.why,
              tutti_world_error(w));
    if (m && !rc) {
      tutti_report_t rep;
      cr_expect(eq(int, tutti_world_report(w, &rep), 0));
      int spans = 0;
      for (int j = 0; j < R.n; j++) spans += c[j].expect == 0;
      cr_expect(eq(int, rep.ncalls, spans), "one span per successful call");
    }
    total += R.n;
    free(c);
  }
  cr_log_info("P=%d: %d calls", P, total);
  ref_free(&ref);
  tutti_world_destroy(w);
}

/* One test per world size (not ParameterizedTest: the TSan stand-in runs
 * plain Tests only). Under TSan, whose shadow state slows every thread,
 * the sweep is trimmed to a few roots and worlds of at most 31 ranks (64
 * and 100 would need minutes; the other builds cover them). */
#define NATIVE(P)                                                                                  \
  Test(coll, every_algorithm_native_##P, .timeout = 120) {                                         \
    sweep(P, NULL, TSAN_LIGHT);                                                                    \
  }
NATIVE(1)
NATIVE(2)
NATIVE(3)
NATIVE(4)
NATIVE(5)
NATIVE(7)
NATIVE(8)
NATIVE(13)
NATIVE(16)
NATIVE(31)
NATIVE(64)
NATIVE(100)

#define HOCKNEY(P)                                                                                 \
  Test(coll, every_algorithm_hockney_##P, .timeout = 120) {                                        \
    tutti_model_t m = hockney(1e-6, 1e-9);                                                         \
    sweep(P, &m, 1);                                                                               \
  }
HOCKNEY(5)
HOCKNEY(13)

Test(coll, every_algorithm_postal, .timeout = 120) {
  tutti_model_t m = postal(3);
  sweep(10, &m, 1);
}

/* ------------------------------------------------------------ modeled time */

struct one {
  int coll;
  tutti_algo_t algo;
  long count;
  tutti_datatype_t type;
  int root;
};

static int one_call(tutti_rank_t *r, void *arg) {
  const struct one *o = arg;
  int P = tutti_size(r), rc = 0;
  size_t bytes = (size_t)o->count * tutti_type_size(o->type);
  char *a = calloc(1, bytes + 1), *b = calloc((size_t)P, bytes + 1);
  const tutti_algo_t *al = o->algo.desc ? &o->algo : NULL;
  switch (o->coll) {
  case TUTTI_COLL_BCAST:
    rc = tutti_bcast(r, a, o->count, o->type, o->root, al);
    break;
  case TUTTI_COLL_REDUCE:
    rc = tutti_reduce(r, a, b, o->count, o->type, TUTTI_SUM, o->root, al);
    break;
  case TUTTI_COLL_GATHER:
    rc = tutti_gather(r, a, o->count, o->type, b, o->count, o->type, o->root, al);
    break;
  case TUTTI_COLL_SCATTER:
    rc = tutti_scatter(r, b, o->count, o->type, a, o->count, o->type, o->root, al);
    break;
  case TUTTI_COLL_BARRIER:
    rc = tutti_barrier(r, al);
    break;
  }
  free(a);
  free(b);
  return rc;
}

/* The modeled time of one call (MODEL.md rule 7) on a fresh world. */
static double timed(int P, const tutti_model_t *m, int coll, const tutti_algo_t *algo, long count,
                    tutti_datatype_t type, int root) {
  tutti_world_t *w = mkworld(P, m);
  struct one o = {coll, algo ? *algo : (tutti_algo_t){0}, count, type, root};
  cr_assert(eq(int, tutti_world_run(w, one_call, &o), 0), "%s", tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  cr_assert(eq(int, rep.ncalls, 1));
  double t = rep.calls[0].time;
  tutti_world_destroy(w);
  return t;
}

static int ceil_log2(int P) {
  int k = 0;
  while ((1 << k) < P) k++;
  return k;
}

static int rel_eq(double got, double want) {
  return fabs(got - want) <= 1e-12 * fabs(want);
}
#define REL_EQ rel_eq

Test(modeled, hockney_binomial_and_flat_bcast, .timeout = 60) {
  tutti_model_t m = hockney(1e-6, 1e-9);
  tutti_algo_t bin = pick(TUTTI_COLL_BCAST, "binomial", NULL);
  tutti_algo_t flat = pick(TUTTI_COLL_BCAST, "flat", NULL);
  for (int P = 1; P <= 64; P++) {
    double tb = timed(P, &m, TUTTI_COLL_BCAST, &bin, 1000, TUTTI_BYTE, 0);
    double tf = timed(P, &m, TUTTI_COLL_BCAST, &flat, 1000, TUTTI_BYTE, P / 2);
    cr_expect(REL_EQ(tb, ceil_log2(P) * 2e-6), "binomial P=%d: %.17g", P, tb);
    cr_expect(REL_EQ(tf, (P - 1) * 2e-6), "flat P=%d: %.17g", P, tf);
  }
}

Test(modeled, hockney_reduce_gather_scatter, .timeout = 30) {
  tutti_model_t m = hockney(1e-6, 1e-9);
  tutti_algo_t a;
  a = pick(TUTTI_COLL_GATHER, "flat", NULL);
  cr_expect(REL_EQ(timed(8, &m, TUTTI_COLL_GATHER, &a, 1000, TUTTI_BYTE, 0), 14e-6));
  cr_expect(REL_EQ(timed(8, &m, TUTTI_COLL_GATHER, &a, 1000, TUTTI_BYTE, 5), 14e-6));
  a = pick(TUTTI_COLL_SCATTER, "flat", NULL);
  cr_expect(REL_EQ(timed(8, &m, TUTTI_COLL_SCATTER, &a, 1000, TUTTI_BYTE, 3), 14e-6));
  /* binomial reduce is the broadcast reversed: 3 rounds of 2 us (gamma 0) */
  a = pick(TUTTI_COLL_REDUCE, "binomial", NULL);
  cr_expect(REL_EQ(timed(8, &m, TUTTI_COLL_REDUCE, &a, 1000, TUTTI_BYTE, 0), 6e-6));
  cr_expect(REL_EQ(timed(5, &m, TUTTI_COLL_REDUCE, &a, 1000, TUTTI_BYTE, 2), 6e-6));
  a = pick(TUTTI_COLL_REDUCE, "flat", NULL);
  cr_expect(REL_EQ(timed(8, &m, TUTTI_COLL_REDUCE, &a, 1000, TUTTI_BYTE, 0), 14e-6));
  /* binomial gather, P = 8, 1000-byte blocks: the root's children send 1, 2
   * and 4 blocks, received one after another (alpha + 1 us, + 2 us, + 4 us). */
  a = pick(TUTTI_COLL_GATHER, "binomial", NULL);
  cr_expect(REL_EQ(timed(8, &m, TUTTI_COLL_GATHER, &a, 1000, TUTTI_BYTE, 0), 10e-6));
}

/* Chain-like pipelining: a segmented binomial bcast on 2 ranks is one
 * edge: S segments of m/S bytes cost S (alpha + beta m / S). */
Test(modeled, hockney_segments, .timeout = 30) {
  tutti_model_t m = hockney(1e-6, 1e-9);
  tutti_algo_t a = pick(TUTTI_COLL_BCAST, "binomial", "segment=250");
  cr_expect(REL_EQ(timed(2, &m, TUTTI_COLL_BCAST, &a, 1000, TUTTI_BYTE, 0), 4 * 1.25e-6));
  /* 3 ranks of the binary tree: the root feeds two children per segment */
  a = pick(TUTTI_COLL_BCAST, "binary", "segment=500");
  cr_expect(REL_EQ(timed(3, &m, TUTTI_COLL_BCAST, &a, 1000, TUTTI_BYTE, 0), 4 * 1.5e-6));
}

static double postal_bcast(int P, double L, const char *name, const char *params) {
  tutti_model_t m = postal(L);
  tutti_algo_t a = pick(TUTTI_COLL_BCAST, name, params);
  return timed(P, &m, TUTTI_COLL_BCAST, &a, 0, TUTTI_BYTE, 0);
}

Test(modeled, postal_vectors, .timeout = 60) {
  cr_expect(eq(dbl, postal_bcast(8, 2, "binomial", NULL), 6));
  cr_expect(eq(dbl, postal_bcast(8, 2, "lambda-tree", "lambda=0.6"), 5));
  cr_expect(eq(dbl, postal_bcast(8, 2, "lambda-tree", "lambda=auto"), 5));
  cr_expect(eq(dbl, postal_bcast(4, 2, "flat", NULL), 4));
  cr_expect(eq(dbl, postal_bcast(10, 1, "lambda-tree", "lambda=0.6"), 4));
  cr_expect(eq(dbl, postal_bcast(10, 2, "lambda-tree", "lambda=0.6"), 6));
  cr_expect(eq(dbl, postal_bcast(10, 3, "lambda-tree", "lambda=0.6"), 9));
  cr_expect(eq(dbl, postal_bcast(10, 2, "lambda-tree", "lambda=0.5"), 6));
  cr_expect(eq(dbl, postal_bcast(10, 3, "postal-optimal", NULL), 8)); /* f_3(10) */
  cr_expect(eq(dbl, postal_bcast(10, 2, "postal-optimal", "L=2"), 6));
  /* a root other than 0 changes nothing but the labels */
  tutti_model_t m = postal(2);
  tutti_algo_t a = pick(TUTTI_COLL_BCAST, "lambda-tree", NULL);
  cr_expect(eq(dbl, timed(10, &m, TUTTI_COLL_BCAST, &a, 0, TUTTI_BYTE, 7), 6));
}

Test(modeled, postal_optimal_is_f, .timeout = 60) {
  for (int P = 2; P <= 128; P++) {
    double t = postal_bcast(P, 2, "postal-optimal", NULL);
    cr_expect(eq(dbl, t, (double)tutti_postal_f(2, P)), "P=%d", P);
  }
}

/* Every tree's modeled postal broadcast is the builder's postal time. */
Test(modeled, postal_matches_tree_postal_time, .timeout = 60) {
  static const struct {
    const char *name, *params;
    int kind;
    double lambda;
  } algos[] = {{"flat", NULL, TUTTI_TREE_FLAT, 0},
               {"binary", NULL, TUTTI_TREE_BINARY, 0},
               {"binomial", NULL, TUTTI_TREE_BINOMIAL, 0},
               {"lambda-tree", "lambda=0.75", TUTTI_TREE_LAMBDA, 0.75}};
  int sizes[] = {3, 6, 11, 23, 40};
  for (size_t i = 0; i < sizeof algos / sizeof *algos; i++)
    for (size_t j = 0; j < sizeof sizes / sizeof *sizes; j++)
      for (int L = 1; L <= 3; L++) {
        tutti_treespec_t s = tutti_treespec_default(algos[i].kind);
        if (algos[i].lambda) s.lambda = algos[i].lambda;
        long want;
        cr_assert(eq(int, tutti_tree_postal_time(&s, sizes[j], L, &want), 0));
        double got = postal_bcast(sizes[j], L, algos[i].name, algos[i].params);
        cr_expect(eq(dbl, got, (double)want), "%s P=%d L=%d", algos[i].name, sizes[j], L);
      }
}

Test(modeled, barrier_postal, .timeout = 30) {
  /* up the lambda-tree and back down: twice the broadcast, 2 x 5 for P = 8, L = 2 */
  tutti_model_t m = postal(2);
  tutti_algo_t a = pick(TUTTI_COLL_BARRIER, "lambda-tree", "lambda=auto");
  cr_expect(eq(dbl, timed(8, &m, TUTTI_COLL_BARRIER, &a, 0, TUTTI_BYTE, 0), 10));
}

/* -------------------------------------------------------------- selection */

Test(select, env_variable) {
  setenv("TUTTI_BCAST", "lambda:lambda=0.7", 1);
  tutti_algo_t a;
  char err[256];
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, NULL, NULL, &a, err, sizeof err), 0), "%s",
            err);
  cr_expect(eq(str, (char *)a.desc->name, "lambda-tree"));
  cr_expect(eq(dbl, tutti_algo_param(&a, "lambda"), 0.7));
  cr_expect(eq(dbl, tutti_algo_param(&a, "segment"), 0));
  /* an explicit name wins over the variable */
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "flat", "", &a, err, sizeof err), 0));
  cr_expect(eq(str, (char *)a.desc->name, "flat"));
  /* a bad variable is an error naming it */
  setenv("TUTTI_BCAST", "nosuch", 1);
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, NULL, NULL, &a, err, sizeof err),
               TUTTI_ENOTFOUND));
  cr_expect(has(err, "TUTTI_BCAST") && has(err, "binomial"), "%s", err);
  unsetenv("TUTTI_BCAST");
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, NULL, NULL, &a, err, sizeof err), 0));
  cr_expect(eq(ptr, (void *)a.desc, (void *)tutti_algo_desc_default(TUTTI_COLL_BCAST)));
}

/* The variable steers tutti_bcast(..., NULL): flat on 8 ranks, postal L = 2,
 * takes 8 steps where the default binomial takes 6. */
Test(select, env_variable_reaches_the_call, .timeout = 30) {
  tutti_model_t m = postal(2);
  cr_expect(eq(dbl, timed(8, &m, TUTTI_COLL_BCAST, NULL, 0, TUTTI_BYTE, 0), 6));
  setenv("TUTTI_BCAST", "flat", 1);
  cr_expect(eq(dbl, timed(8, &m, TUTTI_COLL_BCAST, NULL, 0, TUTTI_BYTE, 0), 8));
  setenv("TUTTI_BCAST", "lambda:lambda=0.6", 1);
  cr_expect(eq(dbl, timed(8, &m, TUTTI_COLL_BCAST, NULL, 0, TUTTI_BYTE, 0), 5));
  unsetenv("TUTTI_BCAST");
}

Test(select, names_params_format) {
  tutti_algo_t a;
  char err[256], s[128];
  cr_assert(eq(int,
               tutti_algo_select(TUTTI_COLL_REDUCE, "lambda-tree:lambda=0.75", "segment=8KiB", &a,
                                 err, sizeof err),
               0),
            "%s", err);
  cr_expect(eq(dbl, tutti_algo_param(&a, "lambda"), 0.75));
  cr_expect(eq(dbl, tutti_algo_param(&a, "segment"), 8192));
  cr_assert(eq(int, tutti_algo_format(&a, s, sizeof s), 0));
  cr_expect(eq(str, s, "lambda-tree:lambda=0.75,segment=8KiB"));
  /* the canonical spelling selects the same algorithm again */
  tutti_algo_t b;
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_REDUCE, s, NULL, &b, err, sizeof err), 0), "%s",
            err);
  cr_expect(eq(int, memcmp(&a, &b, sizeof a), 0));
  /* a unique leading word; auto defaults */
  cr_assert(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "postal", NULL, &a, err, sizeof err), 0));
  cr_expect(eq(str, (char *)a.desc->name, "postal-optimal"));
  cr_expect(eq(u32, a.is_auto, 1u));
  cr_expect(isnan(tutti_algo_param(&a, "L")));
  cr_assert(eq(int, tutti_algo_format(&a, s, sizeof s), 0));
  cr_expect(eq(str, s, "postal-optimal:L=auto,segment=0"));
  cr_assert(
      eq(int,
         tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree", " lambda = auto ", &a, err, sizeof err),
         0),
      "%s", err);
  cr_expect(eq(u32, a.is_auto, 1u));
  cr_expect(eq(int, tutti_algo_format(&a, s, 8), TUTTI_EINVAL)); /* truncated */
  /* every registered name selects itself, and every default is registered */
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
    cr_expect(eq(int, tutti_algo_select(d->coll, d->name, NULL, &a, err, sizeof err), 0), "%s",
              err);
    cr_expect(eq(ptr, (void *)a.desc, (void *)d));
    cr_expect(eq(ptr, (void *)tutti_algo_desc_find(d->coll, d->name), (void *)d));
    cr_expect(d->summary && d->source && d->cost);
  }
  for (int c = 0; c < TUTTI_COLL_N; c++) {
    cr_expect(not(eq(ptr, (void *)tutti_algo_desc_default(c), NULL)), "%s", tutti_coll_name(c));
    int back;
    cr_expect(eq(int, tutti_coll_find(tutti_coll_name(c), &back), 0));
    cr_expect(eq(int, back, c));
  }
  int coll;
  cr_expect(eq(int, tutti_coll_find("nosuch", &coll), TUTTI_ENOTFOUND));
  cr_expect(eq(str, (char *)tutti_coll_name(TUTTI_COLL_N), "invalid"));
}

Test(select, errors_list_what_is_accepted) {
  tutti_algo_t a;
  char err[512];
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "nosuch", NULL, &a, err, sizeof err),
               TUTTI_ENOTFOUND));
  cr_expect(has(err, "'nosuch'") && has(err, "flat") && has(err, "binomial") &&
                has(err, "lambda-tree") && has(err, "postal-optimal"),
            "%s", err);
  cr_expect(eq(int, tutti_algo_select(-1, "flat", NULL, &a, err, sizeof err), TUTTI_ENOTFOUND));
  cr_expect(has(err, "bcast") && has(err, "barrier"), "%s", err);
  cr_expect(
      eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree", "lambda=1.0", &a, err, sizeof err),
         TUTTI_EINVAL));
  cr_expect(has(err, "lambda") && has(err, "[0.5, 1)") && has(err, "auto"), "%s", err);
  cr_expect(eq(
      int, tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree:lambda=0.4", NULL, &a, err, sizeof err),
      TUTTI_EINVAL));
  cr_expect(has(err, "[0.5, 1)"), "%s", err);
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree", "lambda=x", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(
      eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree", "lambda=nan", &a, err, sizeof err),
         TUTTI_EINVAL));
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "binomial", "lambda=0.6", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "unknown parameter 'lambda'") && has(err, "segment"), "%s", err);
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "flat", "segment=1", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "no parameters"), "%s", err);
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "binomial", "segment", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "binomial", "segment=-1", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "binomial", "segment=auto", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "auto"), "%s", err);
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "postal-optimal", "L=0", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "[1, 4096]"), "%s", err);
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "postal-optimal", "L=2.5", &a, err, sizeof err),
               TUTTI_EINVAL));
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree:lambda=0.6", "lambda=0.7", &a, err,
                                 sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "twice"), "%s", err);
  cr_expect(eq(int, tutti_algo_select(TUTTI_COLL_BCAST, "binomial", NULL, NULL, err, sizeof err),
               TUTTI_EINVAL));
  /* restrictions */
  a = pick(TUTTI_COLL_REDUCE, "binary", NULL);
  cr_expect(eq(int, tutti_algo_check(&a, 4, TUTTI_SUM, err, sizeof err), 0));
  cr_expect(eq(int, tutti_algo_check(&a, 4, TUTTI_MATMUL2, err, sizeof err), TUTTI_ENOTSUP));
  cr_expect(has(err, "commutative") && has(err, "matmul2"), "%s", err);
  cr_expect(eq(int, tutti_algo_check(&a, 0, TUTTI_SUM, err, sizeof err), TUTTI_EINVAL));
  a.value[0] = -5; /* a hand-made value out of range */
  cr_expect(eq(int, tutti_algo_check(&a, 4, TUTTI_SUM, err, sizeof err), TUTTI_EINVAL));
  tutti_algo_t bogus = {0};
  cr_expect(eq(int, tutti_algo_check(&bogus, 4, NULL, err, sizeof err), TUTTI_EINVAL));
}

/* ----------------------------------------------------------- bad arguments */

#define NBAD 64
struct bad {
  int rc[NBAD];
  int n;
};

/* Every rank makes the same bad calls (in place off the root: every rank
 * but the root); rank 1 records the codes. None sends anything, so nothing
 * blocks. */
static int bad_calls(tutti_rank_t *r, void *arg) {
  struct bad *B = arg;
  int rc[NBAD], n = 0, P = tutti_size(r);
  int32_t x[4] = {0}, y[64] = {0};
  tutti_algo_t red = pick(TUTTI_COLL_REDUCE, "binomial", NULL);
  tutti_algo_t bin = pick(TUTTI_COLL_REDUCE, "binary", NULL);
  rc[n++] = tutti_bcast(r, x, 1, TUTTI_INT32, -1, NULL);   /* ERANK */
  rc[n++] = tutti_bcast(r, x, 1, TUTTI_INT32, P, NULL);    /* ERANK */
  rc[n++] = tutti_bcast(r, x, -1, TUTTI_INT32, 0, NULL);   /* ECOUNT */
  rc[n++] = tutti_bcast(r, NULL, 1, TUTTI_INT32, 0, NULL); /* EBUFFER */
  rc[n++] = tutti_bcast(r, x, 1, NULL, 0, NULL);           /* ETYPE */
  rc[n++] = tutti_bcast(r, x, 1, TUTTI_INT32, 0, &red);    /* EINVAL: a reduce algorithm */
  rc[n++] = tutti_bcast(r, TUTTI_IN_PLACE, 1, TUTTI_INT32, 0, NULL);        /* EINVAL */
  rc[n++] = tutti_reduce(r, x, y, 1, TUTTI_INT32, TUTTI_SUM, P, NULL);      /* ERANK */
  rc[n++] = tutti_reduce(r, x, y, -2, TUTTI_INT32, TUTTI_SUM, 0, NULL);     /* ECOUNT */
  rc[n++] = tutti_reduce(r, NULL, y, 1, TUTTI_INT32, TUTTI_SUM, 0, NULL);   /* EBUFFER */
  rc[n++] = tutti_reduce(r, x, y, 1, TUTTI_INT32, NULL, 0, NULL);           /* EOP */
  rc[n++] = tutti_reduce(r, x, y, 1, TUTTI_DOUBLE, TUTTI_MATMUL2, 0, NULL); /* EOP */
  rc[n++] = tutti_reduce(r, x, y, 1, TUTTI_INT64, TUTTI_MATMUL2, 0, &bin);  /* ENOTSUP */
  /* in place off the root; the root itself does not call */
  rc[n++] = tutti_rank(r) ? tutti_reduce(r, TUTTI_IN_PLACE, y, 1, TUTTI_INT32, TUTTI_SUM, 0, NULL)
                          : TUTTI_EINVAL;
  rc[n++] = tutti_allreduce(r, x, NULL, 1, TUTTI_INT32, TUTTI_SUM, NULL);        /* EBUFFER */
  rc[n++] = tutti_allreduce(r, x, y, 1, TUTTI_INT32, NULL, NULL);                /* EOP */
  rc[n++] = tutti_allreduce(r, x, y, -1, TUTTI_INT32, TUTTI_SUM, NULL);          /* ECOUNT */
  rc[n++] = tutti_gather(r, x, 1, TUTTI_INT32, y, 1, TUTTI_INT32, -3, NULL);     /* ERANK */
  rc[n++] = tutti_gather(r, x, -1, TUTTI_INT32, y, 1, TUTTI_INT32, 0, NULL);     /* ECOUNT */
  rc[n++] = tutti_gather(r, NULL, 1, TUTTI_INT32, y, 1, TUTTI_INT32, 0, NULL);   /* EBUFFER */
  rc[n++] = tutti_gather(r, x, 1, NULL, y, 1, TUTTI_INT32, 0, NULL);             /* ETYPE */
  rc[n++] = tutti_scatter(r, y, 1, TUTTI_INT32, x, 1, TUTTI_INT32, P + 7, NULL); /* ERANK */
  rc[n++] = tutti_scatter(r, y, 1, TUTTI_INT32, x, -1, TUTTI_INT32, 0, NULL);    /* ECOUNT */
  rc[n++] = tutti_scatter(r, y, 1, TUTTI_INT32, NULL, 1, TUTTI_INT32, 0, NULL);  /* EBUFFER */
  rc[n++] = tutti_scatter(r, y, 1, TUTTI_INT32, x, 1, NULL, 0, NULL);            /* ETYPE */
  rc[n++] = tutti_barrier(r, &red);                                              /* EINVAL */
  rc[n++] = tutti_barrier(NULL, NULL);                                           /* EINVAL */
  rc[n++] = tutti_rank(r)
                ? tutti_gather(r, TUTTI_IN_PLACE, 1, TUTTI_INT32, y, 1, TUTTI_INT32, 0, NULL)
                : TUTTI_EINVAL;
  rc[n++] = tutti_rank(r)
                ? tutti_scatter(r, y, 1, TUTTI_INT32, TUTTI_IN_PLACE, 1, TUTTI_INT32, 0, NULL)
                : TUTTI_EINVAL;
  if (tutti_rank(r) == 1) memcpy(B->rc, rc, sizeof rc), B->n = n;
  return 0;
}

Test(args, every_collective_checks_its_arguments, .timeout = 30) {
  static const int want[] = {
      TUTTI_ERANK,   TUTTI_ERANK,   TUTTI_ECOUNT,  TUTTI_EBUFFER, TUTTI_ETYPE,  TUTTI_EINVAL,
      TUTTI_EINVAL,  TUTTI_ERANK,   TUTTI_ECOUNT,  TUTTI_EBUFFER, TUTTI_EOP,    TUTTI_EOP,
      TUTTI_ENOTSUP, TUTTI_EINVAL,  TUTTI_EBUFFER, TUTTI_EOP,     TUTTI_ECOUNT, TUTTI_ERANK,
      TUTTI_ECOUNT,  TUTTI_EBUFFER, TUTTI_ETYPE,   TUTTI_ERANK,   TUTTI_ECOUNT, TUTTI_EBUFFER,
      TUTTI_ETYPE,   TUTTI_EINVAL,  TUTTI_EINVAL,  TUTTI_EINVAL,  TUTTI_EINVAL};
  tutti_world_t *w = mkworld(4, NULL);
  struct bad B = {0};
  cr_assert(eq(int, tutti_world_run(w, bad_calls, &B), 0), "%s", tutti_world_error(w));
  cr_assert(eq(int, B.n, (int)(sizeof want / sizeof *want)));
  for (int i = 0; i < B.n; i++)
    cr_expect(eq(int, B.rc[i], want[i]), "call %d: %s, want %s", i, tutti_err_name(B.rc[i]),
              tutti_err_name(want[i]));
  tutti_world_destroy(w);
}

/* The root's own arguments, on a world of one rank (where only the root
 * calls, so an error at the root alone cannot leave others waiting). */
static int root_calls(tutti_rank_t *r, void *arg) {
  struct bad *B = arg;
  int n = 0;
  int32_t x[4] = {0}, y[4] = {0};
  double d[4] = {0};
  B->rc[n++] = tutti_reduce(r, x, NULL, 1, TUTTI_INT32, TUTTI_SUM, 0, NULL);           /* EBUFFER */
  B->rc[n++] = tutti_reduce(r, x, TUTTI_IN_PLACE, 1, TUTTI_INT32, TUTTI_SUM, 0, NULL); /* EINVAL */
  B->rc[n++] = tutti_gather(r, x, 1, TUTTI_INT32, NULL, 1, TUTTI_INT32, 0, NULL);      /* EBUFFER */
  B->rc[n++] = tutti_gather(r, x, 1, TUTTI_INT32, y, 1, TUTTI_DOUBLE, 0, NULL); /* EINVAL: sizes */
  B->rc[n++] = tutti_gather(r, x, 1, TUTTI_INT32, y, 1, NULL, 0, NULL);         /* ETYPE */
  B->rc[n++] = tutti_scatter(r, NULL, 1, TUTTI_INT32, y, 1, TUTTI_INT32, 0, NULL); /* EBUFFER */
  B->rc[n++] = tutti_scatter(r, d, 1, TUTTI_DOUBLE, y, 1, TUTTI_INT32, 0, NULL); /* EINVAL: sizes */
  /* and the good calls of one rank: copies, in place or not */
  x[0] = 41;
  B->rc[n++] = tutti_reduce(r, x, y, 1, TUTTI_INT32, TUTTI_SUM, 0, NULL);
  B->rc[n++] = y[0] == 41 ? 0 : TUTTI_EVERIFY;
  B->rc[n++] = tutti_gather(r, TUTTI_IN_PLACE, 0, NULL, y, 1, TUTTI_INT32, 0, NULL);
  B->rc[n++] = tutti_scatter(r, x, 1, TUTTI_INT32, TUTTI_IN_PLACE, 0, NULL, 0, NULL);
  B->rc[n++] = tutti_allreduce(r, TUTTI_IN_PLACE, y, 1, TUTTI_INT32, TUTTI_SUM, NULL);
  B->rc[n++] = y[0] == 41 ? 0 : TUTTI_EVERIFY;
  B->n = n;
  return 0;
}

Test(args, root_arguments, .timeout = 30) {
  static const int want[] = {TUTTI_EBUFFER,
                             TUTTI_EINVAL,
                             TUTTI_EBUFFER,
                             TUTTI_EINVAL,
                             TUTTI_ETYPE,
                             TUTTI_EBUFFER,
                             TUTTI_EINVAL,
                             0,
                             0,
                             0,
                             0,
                             0,
                             0};
  tutti_world_t *w = mkworld(1, NULL);
  struct bad B = {0};
  cr_assert(eq(int, tutti_world_run(w, root_calls, &B), 0), "%s", tutti_world_error(w));
  cr_assert(eq(int, B.n, (int)(sizeof want / sizeof *want)));
  for (int i = 0; i < B.n; i++)
    cr_expect(eq(int, B.rc[i], want[i]), "call %d: %s, want %s", i, tutti_err_name(B.rc[i]),
              tutti_err_name(want[i]));
  tutti_world_destroy(w);
}

/* Consecutive calls with a different root each: the tags keep them apart
 * even when a fast rank runs ahead (modeled world, pipelining shows). */
static int rotate(tutti_rank_t *r, void *arg) {
  (void)arg;
  int P = tutti_size(r), me = tutti_rank(r);
  double x[64], y[64];
  tutti_algo_t a = pick(TUTTI_COLL_REDUCE, "lambda-tree", NULL);
  for (int k = 0; k < 20; k++) {
    for (int i = 0; i < 64; i++) x[i] = me * 1000 + k * 10 + i;
    int rc = tutti_reduce(r, x, y, 64, TUTTI_DOUBLE, TUTTI_SUM, k % P, &a);
    if (rc) return rc;
    if (me == k % P)
      for (int i = 0; i < 64; i++)
        if (y[i] != 1000.0 * P * (P - 1) / 2 + P * (k * 10 + i)) return TUTTI_EVERIFY;
  }
  return 0;
}

Test(coll, rotating_roots_back_to_back, .timeout = 30) {
  tutti_model_t m = hockney(40e-6, 1.0 / 35e6);
  tutti_world_t *w = mkworld(24, &m);
  cr_assert(eq(int, tutti_world_run(w, rotate, NULL), 0), "%s", tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  cr_expect(eq(int, rep.ncalls, 20));
  tutti_world_destroy(w);
}

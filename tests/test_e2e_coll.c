/*
 * test_e2e_coll.c -- the collectives, run on rank threads.
 *
 * Correctness is driven from the registry: every registered algorithm, with
 * each of its parameters at several values, on many rank counts and roots,
 * int32 sum, double max and the non-commutative matmul2 on int64, counts
 * 0, 1, 5 and large, in place and not, against a sequential reference (the
 * fold in rank order with tutti_reduce_local; its prefixes for scan and
 * exscan, whose rank 0 must keep its rbuf). A new algorithm is tested by
 * being registered. One world per rank count serves every algorithm; most
 * are native (none model), some hockney, so the replay runs too.
 *
 * Also: the TUTTI_<COLL> variable reaches the call, every collective
 * checks its arguments, and roots rotate back to back. Modeled times of
 * collectives are in test_e2e_modeled.c, the registry without messaging
 * in test_unit_registry.c.
 *
 * TUTTI_TSAN_TEST: also built and run under ThreadSanitizer (tests/CMakeLists.txt).
 */
#include <limits.h>
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#include "coll_helpers.h"

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
#define BLOCKCOUNT 100 /* the largest count of a collective with P blocks */
#define NSALTS 3
/* v[k][salt] = x_0 op x_1 op ... op x_{P-1}, folded in rank order, over
 * the longest input: MAXCOUNT elements, or reduce_scatter's P blocks.
 * pre[k][salt] holds P prefixes of MAXCOUNT elements, the i-th x_0 op ...
 * op x_i: the same fold, kept after each rank (scan, exscan). */
struct ref {
  void *v[NKINDS][NSALTS];
  void *pre[NKINDS][NSALTS];
};

static long ref_len(int P) {
  return (long)P * BLOCKCOUNT > MAXCOUNT ? (long)P * BLOCKCOUNT : MAXCOUNT;
}

static void ref_build(struct ref *R, int P) {
  long len = ref_len(P);
  for (int k = 0; k < NKINDS; k++)
    for (int s = 0; s < NSALTS; s++) {
      size_t esz = tutti_type_size(ktype(k));
      const size_t pbytes = MAXCOUNT * esz;
      char *acc = malloc((size_t)len * esz), *x = malloc((size_t)len * esz);
      char *pre = malloc((size_t)P * pbytes);
      cr_assert(acc && x && pre);
      fill(k, 0, len, s, acc);
      memcpy(pre, acc, pbytes);
      for (int r = 1; r < P; r++) {
        fill(k, r, len, s, x); /* x = acc op x, then acc = x */
        cr_assert(eq(int, tutti_reduce_local(acc, x, (int)len, ktype(k), kop(k)), 0));
        memcpy(acc, x, (size_t)len * esz);
        memcpy(pre + (size_t)r * pbytes, acc, pbytes);
      }
      free(x);
      R->v[k][s] = acc;
      R->pre[k][s] = pre;
    }
}

static void ref_free(struct ref *R) {
  for (int k = 0; k < NKINDS; k++)
    for (int s = 0; s < NSALTS; s++) free(R->v[k][s]), free(R->pre[k][s]);
}

/* ------------------------------------------------------------------ cases */

struct tcase {
  const tutti_algo_t *algo;
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
  tutti_algo_format(c->algo, name, sizeof name);
  snprintf(R->why, sizeof R->why,
           "%s %s: rank %d root %d kind %d count %ld inplace %d: %s (element %ld)",
           tutti_coll_name(tutti_algo_desc(c->algo)->coll), name, rank, c->root, c->kind, c->count,
           c->inplace, what, i);
}

/* The first of n elements at got that is not rank src's input element
 * first + i, or -1. */
static long differs(const struct tcase *c, const void *got, int src, long first, long n) {
  size_t esz = tutti_type_size(ktype(c->kind));
  char want[8];
  for (long i = 0; i < n; i++) {
    gen(c->kind, src, first + i, c->salt, want);
    if (memcmp((const char *)got + (size_t)i * esz, want, esz)) return i;
  }
  return -1;
}

/* Compare count elements with rank src's input (ref NULL) or with ref. */
static long mismatch(const struct tcase *c, const void *got, int src, const void *ref) {
  size_t esz = tutti_type_size(ktype(c->kind));
  if (!ref) return differs(c, got, src, 0, c->count);
  for (long i = 0; i < c->count; i++)
    if (memcmp((const char *)got + (size_t)i * esz, (const char *)ref + (size_t)i * esz, esz))
      return i;
  return -1;
}

/* The first of n bytes at p that is not the poison, or -1. */
static long unpoisoned(const void *p, size_t n, unsigned char poison) {
  for (size_t i = 0; i < n; i++)
    if (((const unsigned char *)p)[i] != poison) return (long)i;
  return -1;
}

#define CHECK(cond, what, i)                                                                       \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fail(R, c, me, what, i);                                                                     \
      goto out;                                                                                    \
    }                                                                                              \
  } while (0)

/* rb's poison, and the bytes past the largest result that must keep it */
#define POISON 0xA5
#define TAIL 64

static int run_cases(tutti_rank_t *r, void *arg) {
  struct run *R = arg;
  const int me = tutti_rank(r), P = tutti_size(r);
  int rc = 0;
  size_t big = (size_t)ref_len(P) * 8; /* MAXCOUNT, or P blocks of BLOCKCOUNT */
  char *sb = malloc(big), *rb = malloc(big + TAIL);
  if (!sb || !rb) return TUTTI_ENOMEM;
  for (int n = 0; n < R->n && !__atomic_load_n(&R->failed, __ATOMIC_ACQUIRE); n++) {
    const struct tcase *c = &R->c[n];
    const int root = c->root, isroot = me == root, k = c->kind;
    tutti_datatype_t t = ktype(k);
    const size_t esz = tutti_type_size(t), bytes = (size_t)c->count * esz;
    long bad;
    memset(rb, POISON, big + TAIL); /* poison: a stale result cannot pass */
    switch (tutti_algo_desc(c->algo)->coll) {
    case TUTTI_COLL_BCAST:
      if (isroot) fill(k, me, c->count, c->salt, rb);
      rc = tutti_bcast(r, rb, c->count, t, root, c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      CHECK((bad = mismatch(c, rb, root, NULL)) < 0, "wrong data", bad);
      break;
    case TUTTI_COLL_REDUCE:
      fill(k, me, c->count, c->salt, isroot && c->inplace ? rb : sb);
      rc = tutti_reduce(r, isroot && c->inplace ? TUTTI_IN_PLACE : sb, isroot ? rb : NULL, c->count,
                        t, kop(k), root, c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      if (!rc && isroot)
        CHECK((bad = mismatch(c, rb, -1, R->ref->v[k][c->salt])) < 0, "wrong result", bad);
      break;
    case TUTTI_COLL_ALLREDUCE:
      fill(k, me, c->count, c->salt, c->inplace ? rb : sb);
      rc = tutti_allreduce(r, c->inplace ? TUTTI_IN_PLACE : sb, rb, c->count, t, kop(k), c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      if (!rc) CHECK((bad = mismatch(c, rb, -1, R->ref->v[k][c->salt])) < 0, "wrong result", bad);
      break;
    case TUTTI_COLL_GATHER:
      fill(k, me, c->count, c->salt, isroot && c->inplace ? rb + (size_t)root * bytes : sb);
      rc = tutti_gather(r, isroot && c->inplace ? TUTTI_IN_PLACE : sb, c->count, t,
                        isroot ? rb : NULL, c->count, t, root, c->algo);
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
                         isroot && c->inplace ? TUTTI_IN_PLACE : sb, c->count, t, root, c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      CHECK((bad = mismatch(c, isroot && c->inplace ? rb + (size_t)me * bytes : sb, me, NULL)) < 0,
            "wrong block", bad);
      break;
    case TUTTI_COLL_BARRIER:
      rc = tutti_barrier(r, c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      break;
    case TUTTI_COLL_ALLGATHER:
      fill(k, me, c->count, c->salt, c->inplace ? rb + (size_t)me * bytes : sb);
      rc = tutti_allgather(r, c->inplace ? TUTTI_IN_PLACE : sb, rb, c->count, t, c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      for (int j = 0; !rc && j < P; j++)
        CHECK((bad = mismatch(c, rb + (size_t)j * bytes, j, NULL)) < 0, "wrong block",
              j * 100000L + bad);
      break;
    case TUTTI_COLL_REDUCE_SCATTER:
      /* P blocks in; block `me` of the rank-ordered fold out, at rb */
      fill(k, me, (long)P * c->count, c->salt, c->inplace ? rb : sb);
      rc = tutti_reduce_scatter(r, c->inplace ? TUTTI_IN_PLACE : sb, rb, c->count, t, kop(k),
                                c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      if (!rc)
        CHECK((bad = mismatch(c, rb, -1,
                              (const char *)R->ref->v[k][c->salt] + (size_t)me * bytes)) < 0,
              "wrong result", bad);
      break;
    case TUTTI_COLL_ALLTOALL:
      /* P blocks in, block j to rank j: rank j's block `me` is its input
       * elements me*count.. on, and lands in block j of rb */
      fill(k, me, (long)P * c->count, c->salt, c->inplace ? rb : sb);
      rc = tutti_alltoall(r, c->inplace ? TUTTI_IN_PLACE : sb, rb, c->count, t, c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      for (int j = 0; !rc && j < P; j++)
        CHECK((bad = differs(c, rb + (size_t)j * bytes, j, (long)me * c->count, c->count)) < 0,
              "wrong block", j * 100000L + bad);
      CHECK(c->inplace || (bad = differs(c, sb, me, 0, (long)P * c->count)) < 0,
            "send buffer changed", bad);
      CHECK((bad = unpoisoned(rb + (size_t)P * bytes, TAIL, POISON)) < 0, "wrote past rbuf", bad);
      break;
    case TUTTI_COLL_SCAN:
    case TUTTI_COLL_EXSCAN: {
      /* rank me gets the fold of ranks 0..me (exscan: 0..me-1); exscan
       * leaves rank 0's rbuf alone: its input in place, else the poison */
      const int ex = tutti_algo_desc(c->algo)->coll == TUTTI_COLL_EXSCAN;
      fill(k, me, c->count, c->salt, c->inplace ? rb : sb);
      rc = (ex ? tutti_exscan : tutti_scan)(r, c->inplace ? TUTTI_IN_PLACE : sb, rb, c->count, t,
                                            kop(k), c->algo);
      CHECK(rc == c->expect, tutti_err_name(rc), -1);
      if (rc) break;
      if (ex && me == 0) {
        bad = c->inplace ? differs(c, rb, 0, 0, c->count) : unpoisoned(rb, bytes, POISON);
        CHECK(bad < 0, "rank 0's rbuf changed", bad);
      } else {
        const char *want =
            (const char *)R->ref->pre[k][c->salt] + (size_t)(me - ex) * MAXCOUNT * esz;
        CHECK((bad = mismatch(c, rb, -1, want)) < 0, "wrong prefix", bad);
      }
      CHECK(c->inplace || (bad = differs(c, sb, me, 0, c->count)) < 0, "send buffer changed", bad);
      CHECK((bad = unpoisoned(rb + bytes, TAIL, POISON)) < 0, "wrote past rbuf", bad);
      break;
    }
    }
    memset(sb, 0x5A, big);
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
  static const char *segments[] = {"1", "2", "3", "auto"}; /* at most the 4 bytes of one int32 */
  static const char *blocks[] = {"1", "2", "3", "16", "auto"};
  /* a window matters only with segments: each with three of them */
  static const char *window[] = {"0,segments=3", "1,segments=3", "2,segments=3"};
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
  if (!strcmp(p->name, "segments")) {
    COPY(segments);
  }
  if (!strcmp(p->name, "blocks")) {
    COPY(blocks);
  }
  if (!strcmp(p->name, "window")) {
    COPY(window);
  }
#undef COPY
  if (p->type == TUTTI_PARAM_CHOICE) { /* every word; "list:" alone: build_cases adds the list */
    for (int w = 0; p->choices[w] && n < 8; w++) v[n++] = p->choices[w];
    return n;
  }
  snprintf(gen_v[0], 32, "%.17g", p->min);
  v[n++] = gen_v[0];
  if (isfinite(p->max)) snprintf(gen_v[1], 32, "%.17g", p->max), v[n++] = gen_v[1];
  if (p->flags & TUTTI_PARAM_AUTO_OK) v[n++] = "auto";
  return n;
}

/* The restrictions a call of a meets: its own, and a commutative-only
 * algorithm that a level of hierarchical names (allreduce's intra: a
 * reduce), which refuses a non-commutative op as its own would. */
static unsigned restrictions_of(const tutti_algo_t *a) {
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  unsigned r = d->restrictions;
  for (int p = 0; p < d->nparams; p++) {
    const char *nm = d->params[p].name;
    int lv = !strcmp(nm, "inter") ? d->coll
             : !strcmp(nm, "intra")
                 ? (d->coll == TUTTI_COLL_ALLREDUCE ? TUTTI_COLL_REDUCE : d->coll)
                 : -1;
    if (lv < 0 || tutti_algo_param_is_auto(a, p)) continue;
    const tutti_algo_desc_t *l =
        tutti_algo_desc_find(lv, d->params[p].choices[(int)tutti_algo_param_at(a, p)]);
    if (l) r |= l->restrictions & TUTTI_ALGO_COMMUTATIVE;
  }
  return r;
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
  unsigned traits = tutti_coll_traits(d->coll); /* the registry's, not a list here */
  int reduction = (traits & TUTTI_COLL_REDUCES) != 0;
  int blocks = (traits & TUTTI_COLL_BLOCKS) != 0;
  int rooted = (traits & TUTTI_COLL_ROOTED) != 0;
  long counts[] = {0, 1, 5, blocks ? BLOCKCOUNT : MAXCOUNT};
  /* In place or not: cases take turns over roots and settings; an
   * algorithm with neither (no root, no parameter) would keep each kind and
   * count to one of the two, so up to 31 ranks each of its cases runs both
   * ways (larger worlds take turns: an alltoall there is P^2 messages). */
  int ways = !rooted && ns == 1 && (traits & TUTTI_COLL_DATA) && P <= 31 ? 2 : 1;
  size_t cap = (size_t)ns * (size_t)nr * NKINDS * 4 * (size_t)ways + 1, n = 0;
  struct tcase *c = malloc(cap * sizeof *c);
  for (int s = 0; s < ns; s++) {
    const tutti_algo_t *a = pick(d->coll, d->name, strchr(settings[s], ':') ? NULL : settings[s]);
    double seg = tutti_algo_param(a, "segment");
    for (int ri = 0; ri < (rooted ? nr : 1); ri++) {
      if (strchr(settings[s], ':')) { /* a rank list: the ranks downward from the root */
        static char lst[TUTTI_PARAM_LIST_MAX + 64];
        int root = roots[ri], k = snprintf(lst, sizeof lst, "%s", settings[s]);
        k += snprintf(lst + k, sizeof lst - (size_t)k, "%d-0", root);
        if (root < P - 1) snprintf(lst + k, sizeof lst - (size_t)k, ",%d-%d", P - 1, root + 1);
        a = pick(d->coll, d->name, lst);
      }
      for (int k = 0; k < NKINDS; k++) {
        if (!reduction && k == K_I64_MATMUL) continue; /* movers: two types suffice */
        for (int ci = 0; ci < 4; ci++) {
          if (!(traits & TUTTI_COLL_DATA) && (k || ci)) continue;
          /* tiny segments of a large buffer: thousands of messages a call */
          if (counts[ci] > 100 && seg > 0 && seg < 256 && (P > 16 || light)) continue;
          for (int w = 0; w < ways; w++) {
            struct tcase t = {.algo = a, .root = roots[ri], .kind = k, .count = counts[ci]};
            t.salt = (int)(n % NSALTS);
            t.inplace = ways == 2 ? w : (int)(n / NSALTS % 2);
            if (reduction && (restrictions_of(a) & TUTTI_ALGO_COMMUTATIVE) &&
                !tutti_op_commutative(kop(k)))
              t.expect = TUTTI_ENOTSUP;
            if ((d->restrictions & TUTTI_ALGO_POW2) && (P & (P - 1))) t.expect = TUTTI_ENOTSUP;
            c[n++] = t;
          }
        }
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

/* Worlds of at most 31 ranks: under TSan, and under ASan for the rerun
 * with every rank a fiber (test_e2e_coll_fibers): there the run on
 * threads sweeps the larger worlds, and test_e2e_fibers.c runs every
 * algorithm on fibers at P = 33 and a world of 3000 fibers. */
static int small_worlds_only(void) {
#if defined(__SANITIZE_ADDRESS__)
  const char *as = getenv("TUTTI_RANKS_AS");
  if (as && !strcmp(as, "fibers")) return 1;
#endif
  return TSAN_LIGHT;
}

/* The light sweep (a few roots) under either sanitizer: the code paths
 * are the same for every root, and the plain build sweeps every root. */
static int light_run(void) {
#if defined(__SANITIZE_ADDRESS__)
  return 1;
#else
  return TSAN_LIGHT;
#endif
}

/* Run every registered algorithm on one world of P ranks. */
static void sweep(int P, const tutti_model_t *m, int light) {
  if (small_worlds_only() && P > 31) return;
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
 * plain Tests only). Under the sanitizers, whose shadow state slows every
 * thread, the sweep is trimmed to a few roots (light_run); under TSan and
 * in ASan's fiber rerun also to worlds of at most 31 ranks (64 and 100
 * would need minutes; the other builds cover them). */
#define NATIVE(P)                                                                                  \
  Test(coll, every_algorithm_native_##P, .timeout = 120) {                                         \
    sweep(P, NULL, light_run());                                                                   \
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

/* Scan and exscan combine in rank order, so none of their algorithms is
 * commutative-only (the sweep would take TUTTI_ENOTSUP from one flagged
 * so): each takes matmul2, in place and not, and every rank gets the
 * rank-ordered prefix. The fold in reverse rank order differs from it,
 * so an algorithm that swapped operands would fail here. */
Test(coll, every_prefix_algorithm_takes_a_non_commutative_op, .timeout = 60) {
  enum { P = 6, COUNT = 5 };
  cr_assert(not(tutti_op_commutative(TUTTI_MATMUL2)));
  struct ref ref;
  ref_build(&ref, P);
  int64_t rev[COUNT], x[COUNT];
  fill(K_I64_MATMUL, P - 1, COUNT, 0, rev);
  for (int i = P - 2; i >= 0; i--) { /* rev = rev op x_i: x_(P-1) op ... op x_0 */
    fill(K_I64_MATMUL, i, COUNT, 0, x);
    cr_assert(eq(int, tutti_reduce_local(rev, x, COUNT, TUTTI_INT64, TUTTI_MATMUL2), 0));
    memcpy(rev, x, sizeof rev);
  }
  cr_assert(
      ne(int,
         memcmp(rev, (char *)ref.pre[K_I64_MATMUL][0] + (size_t)(P - 1) * MAXCOUNT * 8, sizeof rev),
         0));
  tutti_world_t *w = mkworld(P, NULL);
  int seen[TUTTI_COLL_N] = {0};
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
    if (!(tutti_coll_traits(d->coll) & TUTTI_COLL_PREFIX)) continue;
    cr_expect(eq(int, (d->restrictions & TUTTI_ALGO_COMMUTATIVE), 0), "%s %s: commutative only",
              tutti_coll_name(d->coll), d->name);
    const tutti_algo_t *a = pick(d->coll, d->name, NULL);
    struct tcase c[2];
    for (int ip = 0; ip < 2; ip++)
      c[ip] = (struct tcase){.algo = a, .kind = K_I64_MATMUL, .inplace = ip, .count = COUNT};
    struct run R = {.c = c, .n = 2, .ref = &ref};
    cr_expect(eq(int, tutti_world_run(w, run_cases, &R), 0), "%s %s: %s / %s",
              tutti_coll_name(d->coll), d->name, R.why, tutti_world_error(w));
    seen[d->coll]++;
  }
  cr_expect(gt(int, seen[TUTTI_COLL_SCAN], 0));
  cr_expect(gt(int, seen[TUTTI_COLL_EXSCAN], 0));
  tutti_world_destroy(w);
  ref_free(&ref);
}

/* -------------------------------------------------------------- selection */

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

/* bcast, reduce, bcast with algo NULL; every rank's codes in rc[rank][3]. */
static int null_calls(tutti_rank_t *r, void *arg) {
  int(*rc)[3] = arg;
  char x = 0, y = 0;
  int *mine = rc[tutti_rank(r)];
  mine[0] = tutti_bcast(r, &x, 1, TUTTI_BYTE, 0, NULL);
  mine[1] = tutti_reduce(r, &x, &y, 1, TUTTI_BYTE, TUTTI_SUM, 0, NULL);
  mine[2] = tutti_bcast(r, &x, 1, TUTTI_BYTE, 0, NULL);
  return 0;
}

/* One run of null_calls on w with TUTTI_BCAST at env (NULL: unset): every
 * rank's three codes must be want, and then the two bcasts take t steps. */
static void null_run(tutti_world_t *w, const char *env, int want, double t) {
  int rc[8][3];
  if (env)
    setenv("TUTTI_BCAST", env, 1);
  else
    unsetenv("TUTTI_BCAST");
  memset(rc, 1, sizeof rc);
  cr_assert(eq(int, tutti_world_run(w, null_calls, rc), 0), "%s", tutti_world_error(w));
  for (int i = 0; i < 8; i++)
    for (int c = 0; c < 3; c++)
      cr_expect(eq(int, rc[i][c], c == 1 ? 0 : want), "TUTTI_BCAST=%s: rank %d call %d: %s",
                env ? env : "(unset)", i, c, tutti_err_name(rc[i][c]));
  if (want) return;
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  cr_assert(eq(int, rep.ncalls, 3));
  cr_expect(eq(dbl, rep.calls[0].time, t), "TUTTI_BCAST=%s", env ? env : "(unset)");
  cr_expect(eq(dbl, rep.calls[2].time, t), "TUTTI_BCAST=%s", env ? env : "(unset)");
}

/* A rank keeps the algorithm it took from the variable for the run (the
 * second bcast, after a reduce, runs the same), reads the variable again
 * in the next run of the same world, and keeps no failed choice. */
Test(select, env_variable_is_read_each_run, .timeout = 30) {
  tutti_model_t m = postal(2);
  tutti_world_t *w = mkworld(8, &m);
  null_run(w, "flat", 0, 8);
  null_run(w, "lambda:lambda=0.6", 0, 5);
  null_run(w, "nosuch", TUTTI_ENOTFOUND, 0);
  null_run(w, NULL, 0, 6);
  null_run(w, "flat", 0, 8);
  unsetenv("TUTTI_BCAST");
  tutti_world_destroy(w);
}

/* ----------------------------------------------------------- bad arguments */

#define NBAD 96
struct bad {
  int rc[NBAD];
  int n;
};

/* Run fn on P ranks; the codes its calls returned (struct bad) must be
 * want[0..n). */
static void expect_codes(int P, tutti_rank_fn *fn, const int *want, int n) {
  tutti_world_t *w = mkworld(P, NULL);
  struct bad B = {0};
  cr_assert(eq(int, tutti_world_run(w, fn, &B), 0), "%s", tutti_world_error(w));
  cr_assert(eq(int, B.n, n));
  for (int i = 0; i < B.n; i++)
    cr_expect(eq(int, B.rc[i], want[i]), "call %d: %s, want %s", i, tutti_err_name(B.rc[i]),
              tutti_err_name(want[i]));
  tutti_world_destroy(w);
}

/* Every rank makes the same bad calls (in place off the root: every rank
 * but the root); rank 1 records the codes. None sends anything, so nothing
 * blocks. */
static int bad_calls(tutti_rank_t *r, void *arg) {
  struct bad *B = arg;
  int rc[NBAD], n = 0, P = tutti_size(r);
  int32_t x[4] = {0}, y[64] = {0};
  const tutti_algo_t *red = pick(TUTTI_COLL_REDUCE, "binomial", NULL);
  const tutti_algo_t *bin = pick(TUTTI_COLL_REDUCE, "binary", NULL);
  rc[n++] = tutti_bcast(r, x, 1, TUTTI_INT32, -1, NULL);   /* ERANK */
  rc[n++] = tutti_bcast(r, x, 1, TUTTI_INT32, P, NULL);    /* ERANK */
  rc[n++] = tutti_bcast(r, x, -1, TUTTI_INT32, 0, NULL);   /* ECOUNT */
  rc[n++] = tutti_bcast(r, NULL, 1, TUTTI_INT32, 0, NULL); /* EBUFFER */
  rc[n++] = tutti_bcast(r, x, 1, NULL, 0, NULL);           /* ETYPE */
  rc[n++] = tutti_bcast(r, x, 1, TUTTI_INT32, 0, red);     /* EINVAL: a reduce algorithm */
  rc[n++] = tutti_bcast(r, TUTTI_IN_PLACE, 1, TUTTI_INT32, 0, NULL);        /* EINVAL */
  rc[n++] = tutti_reduce(r, x, y, 1, TUTTI_INT32, TUTTI_SUM, P, NULL);      /* ERANK */
  rc[n++] = tutti_reduce(r, x, y, -2, TUTTI_INT32, TUTTI_SUM, 0, NULL);     /* ECOUNT */
  rc[n++] = tutti_reduce(r, NULL, y, 1, TUTTI_INT32, TUTTI_SUM, 0, NULL);   /* EBUFFER */
  rc[n++] = tutti_reduce(r, x, y, 1, TUTTI_INT32, NULL, 0, NULL);           /* EOP */
  rc[n++] = tutti_reduce(r, x, y, 1, TUTTI_DOUBLE, TUTTI_MATMUL2, 0, NULL); /* EOP */
  rc[n++] = tutti_reduce(r, x, y, 1, TUTTI_INT64, TUTTI_MATMUL2, 0, bin);   /* ENOTSUP */
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
  rc[n++] = tutti_barrier(r, red);                                               /* EINVAL */
  rc[n++] = tutti_barrier(NULL, NULL);                                           /* EINVAL */
  rc[n++] = tutti_rank(r)
                ? tutti_gather(r, TUTTI_IN_PLACE, 1, TUTTI_INT32, y, 1, TUTTI_INT32, 0, NULL)
                : TUTTI_EINVAL;
  rc[n++] = tutti_rank(r)
                ? tutti_scatter(r, y, 1, TUTTI_INT32, TUTTI_IN_PLACE, 1, TUTTI_INT32, 0, NULL)
                : TUTTI_EINVAL;
  const tutti_algo_t *ring = pick(TUTTI_COLL_ALLGATHER, "ring", NULL);
  rc[n++] = tutti_allgather(r, x, NULL, 1, TUTTI_INT32, NULL);                  /* EBUFFER */
  rc[n++] = tutti_allgather(r, x, y, -1, TUTTI_INT32, NULL);                    /* ECOUNT */
  rc[n++] = tutti_allgather(r, x, y, 1, NULL, NULL);                            /* ETYPE */
  rc[n++] = tutti_allgather(r, x, TUTTI_IN_PLACE, 1, TUTTI_INT32, NULL);        /* EINVAL */
  rc[n++] = tutti_allgather(r, x, y, 1, TUTTI_INT32, red);                      /* EINVAL */
  rc[n++] = tutti_allgather(NULL, x, y, 1, TUTTI_INT32, NULL);                  /* EINVAL */
  rc[n++] = tutti_reduce_scatter(r, y, x, 1, TUTTI_INT32, NULL, NULL);          /* EOP */
  rc[n++] = tutti_reduce_scatter(r, NULL, x, 1, TUTTI_INT32, TUTTI_SUM, NULL);  /* EBUFFER */
  rc[n++] = tutti_reduce_scatter(r, y, NULL, 1, TUTTI_INT32, TUTTI_SUM, NULL);  /* EBUFFER */
  rc[n++] = tutti_reduce_scatter(r, y, x, -1, TUTTI_INT32, TUTTI_SUM, NULL);    /* ECOUNT */
  rc[n++] = tutti_reduce_scatter(r, y, x, 1, TUTTI_DOUBLE, TUTTI_BAND, NULL);   /* EOP */
  rc[n++] = tutti_reduce_scatter(r, y, x, 1, TUTTI_INT64, TUTTI_MATMUL2, NULL); /* ENOTSUP */
  rc[n++] =
      tutti_reduce_scatter(r, y, TUTTI_IN_PLACE, 1, TUTTI_INT32, TUTTI_SUM, NULL); /* EINVAL */
  rc[n++] = tutti_reduce_scatter(r, y, x, 1, TUTTI_INT32, TUTTI_SUM, ring);        /* EINVAL */
  rc[n++] = tutti_bcast(r, x, LONG_MAX, TUTTI_INT32, 0, NULL); /* ECOUNT: bytes overflow size_t */
  /* alltoall: both buffers hold P blocks. huge: one block of int32 fits in
   * a long, the P blocks of a buffer do not */
  const long huge = LONG_MAX / (4L * P) + 1;
  const tutti_algo_t *scan = pick(TUTTI_COLL_SCAN, "linear", NULL);
  const tutti_algo_t *exscan = pick(TUTTI_COLL_EXSCAN, "linear", NULL);
  rc[n++] = tutti_alltoall(r, x, NULL, 1, TUTTI_INT32, NULL);              /* EBUFFER */
  rc[n++] = tutti_alltoall(r, NULL, y, 1, TUTTI_INT32, NULL);              /* EBUFFER */
  rc[n++] = tutti_alltoall(r, x, y, -1, TUTTI_INT32, NULL);                /* ECOUNT */
  rc[n++] = tutti_alltoall(r, x, y, 1, NULL, NULL);                        /* ETYPE */
  rc[n++] = tutti_alltoall(r, x, TUTTI_IN_PLACE, 1, TUTTI_INT32, NULL);    /* EINVAL */
  rc[n++] = tutti_alltoall(r, x, y, 1, TUTTI_INT32, ring);                 /* EINVAL: allgather's */
  rc[n++] = tutti_alltoall(NULL, x, y, 1, TUTTI_INT32, NULL);              /* EINVAL */
  rc[n++] = tutti_alltoall(r, x, y, huge, TUTTI_INT32, NULL);              /* ECOUNT */
  rc[n++] = tutti_alltoall(r, TUTTI_IN_PLACE, y, huge, TUTTI_INT32, NULL); /* ECOUNT */
  /* scan and exscan: allreduce's arguments; the other one's algorithm of
   * the same name and signature is refused all the same */
  for (int ex = 0; ex < 2; ex++) {
    int (*f)(tutti_rank_t *, const void *, void *, long, tutti_datatype_t, tutti_op_t,
             const tutti_algo_t *) = ex ? tutti_exscan : tutti_scan;
    rc[n++] = f(r, x, NULL, 1, TUTTI_INT32, TUTTI_SUM, NULL);            /* EBUFFER */
    rc[n++] = f(r, NULL, y, 1, TUTTI_INT32, TUTTI_SUM, NULL);            /* EBUFFER */
    rc[n++] = f(r, x, y, -1, TUTTI_INT32, TUTTI_SUM, NULL);              /* ECOUNT */
    rc[n++] = f(r, x, y, 1, NULL, TUTTI_SUM, NULL);                      /* ETYPE */
    rc[n++] = f(r, x, TUTTI_IN_PLACE, 1, TUTTI_INT32, TUTTI_SUM, NULL);  /* EINVAL */
    rc[n++] = f(r, x, y, 1, TUTTI_INT32, TUTTI_SUM, ex ? scan : exscan); /* EINVAL */
    rc[n++] = f(r, x, y, 1, TUTTI_INT32, TUTTI_SUM, red);                /* EINVAL */
    rc[n++] = f(NULL, x, y, 1, TUTTI_INT32, TUTTI_SUM, NULL);            /* EINVAL */
    rc[n++] = f(r, x, y, 1, TUTTI_INT32, NULL, NULL);                    /* EOP (tutti_op_check) */
    rc[n++] = f(r, TUTTI_IN_PLACE, y, 1, TUTTI_INT32, NULL, NULL);       /* EOP */
    rc[n++] = f(r, x, y, 1, TUTTI_DOUBLE, TUTTI_BAND, NULL);             /* EOP: not on doubles */
    rc[n++] = f(r, x, y, 1, TUTTI_DOUBLE, TUTTI_MATMUL2, NULL);          /* EOP: not on doubles */
  }
  if (tutti_rank(r) == 1) memcpy(B->rc, rc, (size_t)n * sizeof *rc), B->n = n;
  return 0;
}

Test(args, every_collective_checks_its_arguments, .timeout = 30) {
  static const int want[] = {
      TUTTI_ERANK, TUTTI_ERANK, TUTTI_ECOUNT, TUTTI_EBUFFER, TUTTI_ETYPE, TUTTI_EINVAL,
      TUTTI_EINVAL, TUTTI_ERANK, TUTTI_ECOUNT, TUTTI_EBUFFER, TUTTI_EOP, TUTTI_EOP, TUTTI_ENOTSUP,
      TUTTI_EINVAL, TUTTI_EBUFFER, TUTTI_EOP, TUTTI_ECOUNT, TUTTI_ERANK, TUTTI_ECOUNT,
      TUTTI_EBUFFER, TUTTI_ETYPE, TUTTI_ERANK, TUTTI_ECOUNT, TUTTI_EBUFFER, TUTTI_ETYPE,
      TUTTI_EINVAL, TUTTI_EINVAL, TUTTI_EINVAL, TUTTI_EINVAL,
      /* allgather */
      TUTTI_EBUFFER, TUTTI_ECOUNT, TUTTI_ETYPE, TUTTI_EINVAL, TUTTI_EINVAL, TUTTI_EINVAL,
      /* reduce_scatter */
      TUTTI_EOP, TUTTI_EBUFFER, TUTTI_EBUFFER, TUTTI_ECOUNT, TUTTI_EOP, TUTTI_ENOTSUP, TUTTI_EINVAL,
      TUTTI_EINVAL,
      /* bcast, count * size past SIZE_MAX */
      TUTTI_ECOUNT,
      /* alltoall */
      TUTTI_EBUFFER, TUTTI_EBUFFER, TUTTI_ECOUNT, TUTTI_ETYPE, TUTTI_EINVAL, TUTTI_EINVAL,
      TUTTI_EINVAL, TUTTI_ECOUNT, TUTTI_ECOUNT,
      /* scan */
      TUTTI_EBUFFER, TUTTI_EBUFFER, TUTTI_ECOUNT, TUTTI_ETYPE, TUTTI_EINVAL, TUTTI_EINVAL,
      TUTTI_EINVAL, TUTTI_EINVAL, TUTTI_EOP, TUTTI_EOP, TUTTI_EOP, TUTTI_EOP,
      /* exscan */
      TUTTI_EBUFFER, TUTTI_EBUFFER, TUTTI_ECOUNT, TUTTI_ETYPE, TUTTI_EINVAL, TUTTI_EINVAL,
      TUTTI_EINVAL, TUTTI_EINVAL, TUTTI_EOP, TUTTI_EOP, TUTTI_EOP, TUTTI_EOP};
  expect_codes(4, bad_calls, want, (int)(sizeof want / sizeof *want));
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
  x[0] = 43, y[0] = 0;
  B->rc[n++] = tutti_allgather(r, x, y, 1, TUTTI_INT32, NULL);
  B->rc[n++] = y[0] == 43 ? 0 : TUTTI_EVERIFY;
  B->rc[n++] = tutti_allgather(r, TUTTI_IN_PLACE, y, 1, TUTTI_INT32, NULL);
  B->rc[n++] = y[0] == 43 ? 0 : TUTTI_EVERIFY;
  x[0] = 47, y[0] = 0;
  B->rc[n++] = tutti_reduce_scatter(r, x, y, 1, TUTTI_INT32, TUTTI_SUM, NULL);
  B->rc[n++] = y[0] == 47 ? 0 : TUTTI_EVERIFY;
  B->rc[n++] = tutti_reduce_scatter(r, TUTTI_IN_PLACE, y, 1, TUTTI_INT32, TUTTI_SUM, NULL);
  B->rc[n++] = y[0] == 47 ? 0 : TUTTI_EVERIFY;
  x[0] = 53, y[0] = 0;
  B->rc[n++] = tutti_alltoall(r, x, y, 1, TUTTI_INT32, NULL);
  B->rc[n++] = y[0] == 53 ? 0 : TUTTI_EVERIFY;
  B->rc[n++] = tutti_alltoall(r, TUTTI_IN_PLACE, y, 1, TUTTI_INT32, NULL);
  B->rc[n++] = y[0] == 53 ? 0 : TUTTI_EVERIFY;
  x[0] = 59, y[0] = 0;
  B->rc[n++] = tutti_scan(r, x, y, 1, TUTTI_INT32, TUTTI_SUM, NULL);
  B->rc[n++] = y[0] == 59 ? 0 : TUTTI_EVERIFY;
  B->rc[n++] = tutti_scan(r, TUTTI_IN_PLACE, y, 1, TUTTI_INT32, TUTTI_SUM, NULL);
  B->rc[n++] = y[0] == 59 ? 0 : TUTTI_EVERIFY;
  y[0] = 61; /* exscan on one rank: rank 0's rbuf is left alone */
  B->rc[n++] = tutti_exscan(r, x, y, 1, TUTTI_INT32, TUTTI_SUM, NULL);
  B->rc[n++] = y[0] == 61 ? 0 : TUTTI_EVERIFY;
  B->rc[n++] = tutti_exscan(r, TUTTI_IN_PLACE, y, 1, TUTTI_INT32, TUTTI_SUM, NULL);
  B->rc[n++] = y[0] == 61 ? 0 : TUTTI_EVERIFY;
  B->n = n;
  return 0;
}

Test(args, root_arguments, .timeout = 30) {
  static const int want[] = {TUTTI_EBUFFER, TUTTI_EINVAL, TUTTI_EBUFFER, TUTTI_EINVAL, TUTTI_ETYPE,
                             TUTTI_EBUFFER, TUTTI_EINVAL,
                             /* the good calls: 14 before alltoall, 12 of the three after */
                             0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                             0, 0};
  expect_codes(1, root_calls, want, (int)(sizeof want / sizeof *want));
}

/* A rank keeps the plan of its last call (plan.c): a call with another
 * key -- another algorithm handle, count or op -- plans anew and is
 * checked again, and a call with the plan's key after a refused one runs
 * the plan. The same algorithm selected with other parameter values is
 * another handle; the same values, the same handle. Every rank makes the
 * same calls; the bad ones send nothing. */
static int changed_calls(tutti_rank_t *r, void *arg) {
  struct bad *B = arg;
  int n = 0, rc[16];
  int64_t x[3] = {-1, -1, -1}, y = 0;
  if (tutti_rank(r) == 0) x[0] = 1, x[1] = 2, x[2] = 3; /* the root's */
  const tutti_algo_t *a4 = pick(TUTTI_COLL_BCAST, "pipelined-chain", "segments=4");
  const tutti_algo_t *a100 = pick(TUTTI_COLL_BCAST, "pipelined-chain", "segments=100");
  const tutti_algo_t *a16 = pick(TUTTI_COLL_BCAST, "pipelined-chain", "segments=16");
  const tutti_algo_t *red = pick(TUTTI_COLL_REDUCE, "binomial", NULL);
  const tutti_algo_t *again = pick(TUTTI_COLL_BCAST, "pipelined-chain", "segments=4");
  rc[n++] = again == a4 && a4 != a100 && a4 != a16 ? 0 : TUTTI_EVERIFY; /* 0: interned */
  rc[n++] = tutti_bcast(r, x, 3, TUTTI_INT64, 0, a4);   /* 0: 4 segments of 24 bytes */
  rc[n++] = tutti_bcast(r, x, 3, TUTTI_INT64, 0, a4);   /* 0, its plan */
  rc[n++] = tutti_bcast(r, x, 3, TUTTI_INT64, 0, a100); /* EINVAL: more segments than bytes */
  rc[n++] = tutti_bcast(r, x, 3, TUTTI_INT64, 0, a4);   /* 0 again */
  rc[n++] = tutti_bcast(r, x, 3, TUTTI_INT64, 0, red);  /* EINVAL: a reduce algorithm */
  rc[n++] = tutti_bcast(r, x, 3, TUTTI_INT64, 0, a4);   /* 0 again */
  rc[n++] = tutti_bcast(r, x, 3, TUTTI_INT64, 0, a16);  /* 0: 16 segments of 24 bytes */
  rc[n++] = tutti_bcast(r, x, 1, TUTTI_INT64, 0, a16);  /* EINVAL: 16 segments of 8 bytes */
  rc[n++] = tutti_bcast(r, x, 3, TUTTI_INT64, 0, a16);  /* 0 again */
  rc[n++] = x[0] == 1 && x[1] == 2 && x[2] == 3 ? 0 : TUTTI_EVERIFY;   /* 0: the root's */
  const tutti_algo_t *bin = pick(TUTTI_COLL_REDUCE, "binary", NULL);   /* commutative ops only */
  rc[n++] = tutti_reduce(r, x, &y, 1, TUTTI_INT64, TUTTI_SUM, 0, bin); /* 0 */
  rc[n++] = tutti_reduce(r, x, &y, 1, TUTTI_INT64, TUTTI_MATMUL2, 0, bin); /* ENOTSUP */
  rc[n++] = tutti_reduce(r, x, &y, 1, TUTTI_INT64, TUTTI_SUM, 0, bin);     /* 0 */
  if (tutti_rank(r) == 1) memcpy(B->rc, rc, (size_t)n * sizeof *rc), B->n = n;
  return 0;
}

Test(args, a_plan_is_rebuilt_for_another_key, .timeout = 30) {
  static const int want[] = {0, 0, 0, TUTTI_EINVAL,  0, TUTTI_EINVAL, 0, 0, TUTTI_EINVAL,
                             0, 0, 0, TUTTI_ENOTSUP, 0};
  expect_codes(4, changed_calls, want, (int)(sizeof want / sizeof *want));
}

/* The same tree bcast again runs its rank's plan, which holds the node
 * its first call planned, and goes from coll.c straight to that node
 * (engine.h tutti__bcast_direct). Calls that must not reach that node:
 * another root (another key: a new plan), the same algorithm called
 * through desc->fn (not planned, so it marks nothing), and a call refused
 * inside the caller's own span (planned, then dropped). through_fn:
 * every call through desc->fn, the reference for the modeled times. */
struct repeat_run {
  int through_fn;
  int bad; /* calls that returned an unexpected code or value, on any rank */
};
#define REPEAT_CALLS 10
static const int repeat_root[REPEAT_CALLS] = {0, 0, 3, 3, 0, 0, 5, 5, 0, 0};

static int repeat_calls(tutti_rank_t *r, void *arg) {
  struct repeat_run *R = arg;
  const tutti_algo_t *a = pick(TUTTI_COLL_BCAST, "binomial", NULL);
  for (int k = 0; k < REPEAT_CALLS; k++) {
    int root = repeat_root[k], rc;
    int64_t x[3];
    for (int i = 0; i < 3; i++) x[i] = tutti_rank(r) == root ? 100 * k + i : -1;
    if (!R->through_fn && k == 7) { /* root 0 again, refused in the caller's span */
      tutti_span_begin(r, "mine");
      if (tutti_bcast(r, x, 3, TUTTI_INT64, 0, a) != TUTTI_EINVAL)
        __atomic_add_fetch(&R->bad, 1, __ATOMIC_RELAXED);
      tutti_span_end(r);
    }
    if (R->through_fn || root == 5)
      rc = tutti_algo_desc(a)->fn.bcast(r, x, 3, TUTTI_INT64, root, a);
    else
      rc = tutti_bcast(r, x, 3, TUTTI_INT64, root, a);
    if (rc || x[0] != 100 * k || x[2] != 100 * k + 2)
      __atomic_add_fetch(&R->bad, 1, __ATOMIC_RELAXED);
    if (rc) return rc;
  }
  return 0;
}

Test(coll, a_repeated_bcast_goes_to_its_own_node, .timeout = 60) {
  for (int fibers = 0; fibers < 2; fibers++) {
    tutti_config_t c = tutti_config_default(11);
    c.ranks_as = fibers ? TUTTI_RANKS_AS_FIBERS : TUTTI_RANKS_AS_THREADS;
    tutti_world_t *w = NULL;
    cr_assert(eq(int, tutti_world_create(&w, &c), 0));
    struct repeat_run R = {0, 0};
    cr_assert(eq(int, tutti_world_run(w, repeat_calls, &R), 0), "%s", tutti_world_error(w));
    cr_expect(eq(int, R.bad, 0), "fibers %d", fibers);
    tutti_world_destroy(w);
  }
}

/* A repeated bcast, direct down its plan's node, sends what the algorithm
 * would: the same modeled times to the bit as the same calls made through
 * desc->fn. */
Test(coll, a_repeated_bcast_times_as_its_algorithm, .timeout = 60) {
  tutti_model_t m = hockney(40e-6, 1.0 / 35e6);
  double end[2][11];
  tutti_report_t rep[2];
  for (int fn = 0; fn < 2; fn++) {
    tutti_world_t *w = mkworld(11, &m);
    struct repeat_run R = {fn, 0};
    cr_assert(eq(int, tutti_world_run(w, repeat_calls, &R), 0), "%s", tutti_world_error(w));
    cr_expect(eq(int, R.bad, 0), "through desc->fn %d", fn);
    cr_assert(eq(int, tutti_world_report(w, &rep[fn]), 0));
    memcpy(end[fn], rep[fn].rank_end, sizeof end[fn]);
    tutti_world_destroy(w);
  }
  cr_expect(eq(u64, rep[0].messages, rep[1].messages));
  cr_expect(gt(dbl, rep[0].modeled_time, 0));
  for (int i = 0; i < 11; i++)
    cr_expect(eq(dbl, end[0][i], end[1][i]), "rank %d ends at %.17g, not %.17g", i, end[0][i],
              end[1][i]);
}

/* Consecutive calls with a different root each: the tags keep them apart
 * even when a fast rank runs ahead (modeled world, pipelining shows). */
static int rotate(tutti_rank_t *r, void *arg) {
  (void)arg;
  int P = tutti_size(r), me = tutti_rank(r);
  double x[64], y[64];
  const tutti_algo_t *a = pick(TUTTI_COLL_REDUCE, "lambda-tree", NULL);
  for (int k = 0; k < 20; k++) {
    for (int i = 0; i < 64; i++) x[i] = me * 1000 + k * 10 + i;
    int rc = tutti_reduce(r, x, y, 64, TUTTI_DOUBLE, TUTTI_SUM, k % P, a);
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

/* collectives/REFERENCE.md's allgather and reduce_scatter vectors: alpha =
 * beta = 1 (seconds, seconds per byte), m = 100 bytes per block; each
 * derived there by hand from the algorithm's steps. */
Test(coll, allgather_reduce_scatter_reference_vectors, .timeout = 60) {
  tutti_model_t m = hockney(1, 1);
  const struct {
    int coll;
    const char *algo;
    int P;
    double t;
  } v[] = {
      {TUTTI_COLL_ALLGATHER, "ring", 7, 606},
      {TUTTI_COLL_ALLGATHER, "bruck", 7, 603},
      {TUTTI_COLL_ALLGATHER, "ring", 8, 707},
      {TUTTI_COLL_ALLGATHER, "recursive-doubling", 8, 703},
      {TUTTI_COLL_ALLGATHER, "bruck", 8, 703},
      {TUTTI_COLL_REDUCE_SCATTER, "ring", 8, 707},
      {TUTTI_COLL_REDUCE_SCATTER, "recursive-halving", 8, 703},
      {TUTTI_COLL_REDUCE_SCATTER, "ring", 3, 202},
      {TUTTI_COLL_REDUCE_SCATTER, "recursive-halving", 3, 603},
      {TUTTI_COLL_REDUCE_SCATTER, "ring", 7, 606},
      {TUTTI_COLL_REDUCE_SCATTER, "recursive-halving", 7, 1404},
  };
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    const tutti_algo_t *a = pick(v[i].coll, v[i].algo, NULL);
    double t = timed(v[i].P, &m, v[i].coll, a, 100, TUTTI_BYTE, 0);
    cr_expect(epsilon_eq(dbl, t, v[i].t, 1e-9), "%s %s P=%d: %g, want %g",
              tutti_coll_name(v[i].coll), v[i].algo, v[i].P, t, v[i].t);
  }
}

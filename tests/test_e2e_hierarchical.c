/*
 * test_e2e_hierarchical.c -- group views, hosts and the two-level
 * algorithms (collectives/hierarchical.c), on rank threads.
 *
 * Group views (p2p.h "groups"): inside tutti_group_enter a rank's rank,
 * size, peers, statuses, chain and collectives answer within the group;
 * bad lists, nesting and leaving outside a view are refused; the
 * collective tag counter comes back at leave to where it would have been
 * without the view. Hosts (tutti_rank_host): none without a topology,
 * else the lowest switch (its breadth-first id) of the rank's leaf, under
 * identity and roundrobin mappings, in a view too.
 *
 * The "hierarchical" bcast, reduce, allreduce and barrier against a
 * sequential reference computed here (int32 sum, and the non-commutative
 * matmul2 multiplied out by this file's own 2x2 product mod 251), on
 * two- and three-level trees under identity, roundrobin, roundrobin:2
 * and random mappings (hosts as rank ranges and not, part-filled, one
 * rank each), P from 1 to 65, every root to 17, counts 0, 1, 5, 1000, in
 * place and not, every inter and intra word at some points; a barrier's
 * ranks all enter before any leaves. Modeled time: without hosts
 * hierarchical is its inter algorithm to the bit, with one rank per host
 * too, with one host its intra (allreduce: intra's reduce then bcast;
 * barrier: intra twice); on tree:4x8 with slow upper links two levels
 * send H-1 messages through the root switch where a flat binomial under
 * roundrobin sends 24, and are faster (under identity the two are the
 * same messages, the same time); a non-commutative reduce on hosts that
 * are not ranges is one level (binomial's links and time). Bad inter and
 * intra words through the C API, and a non-commutative op with a
 * commutative-only level at run time.
 *
 * TUTTI_TSAN_TEST: also built and run under ThreadSanitizer (tests/CMakeLists.txt).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tutti/tutti.h"

#include "coll_helpers.h"
#include "sanitized.h"
#include "topo_helpers.h"

/* ------------------------------------------------------ a rank's failure */

/* The first failure of any rank, in words; the rank then returns an error,
 * which ends the run (every other rank's blocking call: TUTTI_EABORTED). */
struct fails {
  int failed;
  char why[768];
};

__attribute__((format(printf, 3, 4))) static void failf(struct fails *F, int me, const char *fmt,
                                                        ...) {
  if (__atomic_exchange_n(&F->failed, 1, __ATOMIC_ACQ_REL)) return;
  int k = snprintf(F->why, sizeof F->why, "rank %d: ", me);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(F->why + k, sizeof F->why - (size_t)k, fmt, ap);
  va_end(ap);
}

/* In a rank function with `F` and `me` in scope. */
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failf(F, me, __VA_ARGS__);                                                                   \
      return TUTTI_EINVAL;                                                                         \
    }                                                                                              \
  } while (0)

static tutti_world_t *mkworld_cfg(int n, const tutti_model_t *m, unsigned flags) {
  tutti_config_t c = tutti_config_default(n);
  c.model = m;
  c.flags = flags;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  return w;
}

/* Run fn; fail the test with the ranks' first failure or the run's error. */
static void run_ok(tutti_world_t *w, tutti_rank_fn *fn, void *arg, const struct fails *F,
                   const char *what) {
  int rc = tutti_world_run(w, fn, arg);
  cr_assert(eq(int, F->failed, 0), "%s: %s", what, F->why);
  cr_assert(eq(int, rc, 0), "%s: %s", what, tutti_world_error(w));
}

static tutti_model_t native(void) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_none(&m), 0));
  return m;
}

/* ------------------------------------------------------------ group views */

#define GP 7
static const int grp_a[] = {1, 3, 4, 6}; /* the view under test */
static const int grp_b[] = {0, 2, 5};    /* the other ranks, in a view of their own */

struct gview {
  struct fails f;
  int modeled; /* no wildcard receives (TUTTI_EMODEL): sources named */
};

static int group_fn(tutti_rank_t *r, void *arg) {
  struct gview *G = arg;
  struct fails *F = &G->f;
  const int me = tutti_rank(r);
  const int in_a = me == 1 || me == 3 || me == 4 || me == 6;
  const int *g = in_a ? grp_a : grp_b, n = in_a ? 4 : 3;
  int idx = 0, rc, prev, next;
  while (g[idx] != me) idx++;
  EXPECT(tutti_size(r) == GP, "size %d outside a view", tutti_size(r));
  EXPECT((rc = tutti_group_leave(r)) == TUTTI_EBUSY, "leave outside a view: %d", rc);

  /* lists that are refused, each holding me (but the last two) */
  int all_down[GP], dup[2] = {me, me}, over[2] = {me, GP}, neg[2] = {-1, me}, other = (me + 1) % GP;
  for (int i = 0; i < GP; i++) all_down[i] = GP - 1 - i;
  struct {
    const int *l;
    int n;
    const char *what;
  } bad[] = {{all_down, GP, "descending"},
             {dup, 2, "a duplicate"},
             {over, 2, "rank == size"},
             {neg, 2, "rank -1"},
             {&other, 1, "without the rank"},
             {g, 0, "n = 0"},
             {g, -1, "n = -1"},
             {NULL, 1, "NULL list"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    EXPECT((rc = tutti_group_enter(r, bad[i].l, bad[i].n)) == TUTTI_EINVAL, "enter %s: %d",
           bad[i].what, rc);
  EXPECT(tutti_rank(r) == me && tutti_size(r) == GP, "a refused enter changed the view");

  /* rank 0 (outside view a) sends world rank 1 a message it receives in view a */
  int32_t out = me, in = -1;
  if (me == 0 && !G->modeled)
    EXPECT((rc = tutti_send(r, &out, 1, TUTTI_INT32, 1, 9)) == 0, "send: %d", rc);

  const int t0 = tutti_coll_tag(r);
  EXPECT((rc = tutti_group_enter(r, g, n)) == 0, "enter: %d", rc);
  EXPECT(tutti_rank(r) == idx, "rank %d in the view, want %d", tutti_rank(r), idx);
  EXPECT(tutti_size(r) == n, "size %d in the view, want %d", tutti_size(r), n);
  EXPECT((rc = tutti_group_enter(r, g, n)) == TUTTI_EBUSY, "enter twice: %d", rc);
  EXPECT((rc = tutti_group_enter(r, dup, 2)) == TUTTI_EBUSY, "enter twice, bad list: %d", rc);
  EXPECT(tutti_rank(r) == idx && tutti_size(r) == n, "a second enter changed the view");

  /* the chain in group order from each root: v = (idx - root) mod n */
  for (int root = 0; root < n; root++) {
    const int v = (idx - root + n) % n;
    EXPECT(tutti_rank_chain(r, root, &prev, &next) == 0, "chain");
    EXPECT(prev == (v ? (idx + n - 1) % n : -1) && next == (v < n - 1 ? (idx + 1) % n : -1),
           "chain from %d: prev %d next %d", root, prev, next);
  }
  EXPECT(tutti_rank_chain(r, n, &prev, &next) == TUTTI_EINVAL, "chain from a root past the view");

  /* tags go on inside the view */
  const int t1 = tutti_coll_tag(r);
  EXPECT(t1 == t0 + 1, "first tag in the view %d, want %d", t1, t0 + 1);
  for (int k = 0; k < 5; k++) tutti_coll_tag(r);

  /* point to point between group indices reaches the right world ranks */
  const int to = (idx + 1) % n, from = (idx + n - 1) % n;
  tutti_status_t st;
  rc = tutti_sendrecv(r, &out, 1, TUTTI_INT32, to, 5, &in, 1, TUTTI_INT32, from, 5, &st);
  EXPECT(rc == 0, "sendrecv: %d", rc);
  EXPECT(in == g[from] && st.source == from && st.tag == 5,
         "sendrecv from index %d got %d, source %d tag %d", from, in, st.source, st.tag);
  tutti_request_t q[2];
  in = -1;
  EXPECT((rc = tutti_irecv(r, &in, 1, TUTTI_INT32, G->modeled ? from : TUTTI_ANY_SOURCE, 6,
                           &q[0])) == 0,
         "irecv: %d", rc);
  EXPECT(tutti_isend(r, &out, 1, TUTTI_INT32, to, 6, &q[1]) == 0, "isend");
  tutti_status_t sts[2];
  EXPECT((rc = tutti_waitall(r, 2, q, sts)) == 0, "waitall: %d", rc);
  EXPECT(in == g[from] && sts[0].source == from, "irecv got %d from index %d", in, sts[0].source);
  in = -1;
  EXPECT(tutti_isend(r, &out, 1, TUTTI_INT32, to, 7, &q[1]) == 0, "isend");
  EXPECT((rc = tutti_recv(r, &in, 1, TUTTI_INT32, from, 7, &st)) == 0, "recv: %d", rc);
  EXPECT(tutti_wait(r, &q[1], NULL) == 0, "wait");
  EXPECT(in == g[from] && st.source == from, "recv got %d, source %d", in, st.source);

  /* peers outside 0..n-1, world ranks or not */
  const int outside[] = {n, GP - 1, GP, GP + 5};
  for (size_t i = 0; i < sizeof outside / sizeof *outside; i++) {
    EXPECT((rc = tutti_send(r, &out, 1, TUTTI_INT32, outside[i], 8)) == TUTTI_ERANK,
           "send to index %d: %d", outside[i], rc);
    EXPECT((rc = tutti_recv(r, &in, 1, TUTTI_INT32, outside[i], 8, NULL)) == TUTTI_ERANK,
           "recv from index %d: %d", outside[i], rc);
    EXPECT((rc = tutti_isend(r, &out, 1, TUTTI_INT32, outside[i], 8, &q[0])) == TUTTI_ERANK,
           "isend to index %d: %d", outside[i], rc);
  }

  /* a sender outside the view: its status source is TUTTI_UNDEFINED */
  if (me == 1 && !G->modeled) {
    in = -1;
    EXPECT((rc = tutti_recv(r, &in, 1, TUTTI_INT32, TUTTI_ANY_SOURCE, 9, &st)) == 0, "recv: %d",
           rc);
    EXPECT(in == 0 && st.source == TUTTI_UNDEFINED, "from outside: %d, source %d", in, st.source);
  }

  /* collectives on the group only (both groups at once, with the same tags) */
  int32_t b[5];
  for (int k = 0; k < 5; k++) b[k] = idx == n - 1 ? 1000 + me + k : -1;
  rc = tutti_bcast(r, b, 5, TUTTI_INT32, n - 1, pick(TUTTI_COLL_BCAST, "binomial", NULL));
  EXPECT(rc == 0, "bcast in the view: %d", rc);
  for (int k = 0; k < 5; k++)
    EXPECT(b[k] == 1000 + g[n - 1] + k, "bcast in the view: element %d is %d", k, (int)b[k]);
  int32_t sum = -1, want = 0;
  for (int i = 0; i < n; i++) want += g[i];
  rc = tutti_allreduce(r, &out, &sum, 1, TUTTI_INT32, TUTTI_SUM, NULL);
  EXPECT(rc == 0 && sum == want, "allreduce in the view: %d, sum %d want %d", rc, (int)sum,
         (int)want);
  EXPECT((rc = tutti_barrier(r, NULL)) == 0, "barrier in the view: %d", rc);

  EXPECT((rc = tutti_group_leave(r)) == 0, "leave: %d", rc);
  EXPECT(tutti_rank(r) == me && tutti_size(r) == GP, "after leave: rank %d size %d", tutti_rank(r),
         tutti_size(r));
  EXPECT((rc = tutti_group_leave(r)) == TUTTI_EBUSY, "leave twice: %d", rc);
  const int t2 = tutti_coll_tag(r);
  EXPECT(t2 == t0 + 1, "tag after leave %d, want %d (as without the view)", t2, t0 + 1);

  /* the whole world again, peers as world ranks */
  rc = tutti_allreduce(r, &out, &sum, 1, TUTTI_INT32, TUTTI_SUM, NULL);
  EXPECT(rc == 0 && sum == GP * (GP - 1) / 2, "allreduce after leave: %d, sum %d", rc, (int)sum);
  in = -1;
  rc = tutti_sendrecv(r, &out, 1, TUTTI_INT32, (me + 1) % GP, 3, &in, 1, TUTTI_INT32,
                      (me + GP - 1) % GP, 3, &st);
  EXPECT(rc == 0 && in == (me + GP - 1) % GP && st.source == in, "world ring: %d got %d source %d",
         rc, in, st.source);
  return 0;
}

Test(group, views_native_and_modeled, .timeout = 60) {
  tutti_model_t m[2] = {native(), hockney(1e-6, 1e-9)};
  for (int k = 0; k < 2; k++) {
    struct gview G = {{0}, k};
    tutti_world_t *w = mkworld_cfg(GP, &m[k], 0);
    run_ok(w, group_fn, &G, &G.f, k ? "hockney" : "native");
    run_ok(w, group_fn, &G, &G.f, k ? "hockney, again" : "native, again");
    tutti_world_destroy(w);
  }
}

/* ------------------------------------------------------------------ hosts */

struct hosts {
  struct fails f;
  const int *want; /* want[q]: rank q's host id; NULL: no topology */
};

static int hosts_fn(tutti_rank_t *r, void *arg) {
  struct hosts *H = arg;
  struct fails *F = &H->f;
  const int me = tutti_rank(r), P = tutti_size(r);
  int h = -7, rc;
  EXPECT((rc = tutti_rank_host(r, -1, &h)) == TUTTI_EINVAL, "rank -1: %d", rc);
  EXPECT((rc = tutti_rank_host(r, P, &h)) == TUTTI_EINVAL, "rank P: %d", rc);
  EXPECT((rc = tutti_rank_host(r, 0, NULL)) == TUTTI_EINVAL, "NULL host: %d", rc);
  EXPECT((rc = tutti_rank_host(NULL, 0, &h)) == TUTTI_EINVAL, "NULL rank: %d", rc);
  for (int view = 0; view < 2; view++) { /* world ranks in a view too */
    if (view) EXPECT(tutti_group_enter(r, &me, 1) == 0, "enter");
    for (int q = 0; q < P; q++) {
      h = -7;
      rc = tutti_rank_host(r, q, &h);
      if (!H->want) {
        EXPECT(rc == TUTTI_ENOTSUP && h == -7, "no topology, rank %d: %d, host %d", q, rc, h);
      } else {
        EXPECT(rc == 0 && h == H->want[q], "rank %d%s: %d, host %d want %d", q,
               view ? " (in a view)" : "", rc, h, H->want[q]);
      }
    }
    if (view) EXPECT(tutti_group_leave(r) == 0, "leave");
  }
  return 0;
}

/* host(q): the breadth-first id of the switch rank q's leaf hangs from */
static void hosts_case(const char *spec, const char *map, int P, int (*host)(int q)) {
  tutti_model_t m = native();
  tutti_topo_t *t = spec ? mktopo(spec, NULL, P, map, 1e-9) : NULL;
  m.topo = t;
  int want[64];
  for (int q = 0; q < P; q++) {
    want[q] = host(q);
    cr_assert(eq(int, tutti_topo_leaf_switch(t, tutti_topo_leaf_of_rank(t, q)), want[q]),
              "%s %s: rank %d", spec, map, q);
  }
  struct hosts H = {{0}, want};
  tutti_world_t *w = mkworld_cfg(P, &m, 0);
  run_ok(w, hosts_fn, &H, &H.f, spec);
  tutti_world_destroy(w);
  tutti_topo_free(t);
}

/* tree:3x4: root 0, s0..s2 are switches 1..3; tree:2x2x3: root 0, the
 * middle switches 1, 2, s0..s3 are 3..6 (topo.h "Ids") */
static int h_3x4_identity(int q) {
  return 1 + q / 4;
}
static int h_3x4_roundrobin(int q) {
  return 1 + q % 3;
}
static int h_2x2x3_identity(int q) {
  return 3 + q / 3;
}
static int h_2x2x4_roundrobin2(int q) { /* blocks of 2 dealt to s0..s3 in turn */
  return 3 + (q / 2) % 4;
}
static int h_2x2x3_roundrobin2(int q) { /* ... s0 full at rank 8: 9 goes on to s1 */
  static const int s[12] = {0, 0, 1, 1, 2, 2, 3, 3, 0, 1, 2, 3};
  return 3 + s[q];
}

Test(hosts, rank_host, .timeout = 60) {
  struct hosts H = {{0}, NULL};
  tutti_model_t m = native();
  tutti_world_t *w = mkworld_cfg(4, &m, 0);
  run_ok(w, hosts_fn, &H, &H.f, "no topology");
  tutti_world_destroy(w);
  hosts_case("tree:3x4", "identity", 12, h_3x4_identity);
  hosts_case("tree:3x4", "roundrobin", 12, h_3x4_roundrobin);
  hosts_case("tree:3x4", "identity", 7, h_3x4_identity); /* partial: s2 empty */
  hosts_case("tree:2x2x3", "identity", 12, h_2x2x3_identity);
  hosts_case("tree:2x2x3", "roundrobin:2", 12, h_2x2x3_roundrobin2);
  hosts_case("tree:2x2x4", "roundrobin:2", 16, h_2x2x4_roundrobin2);
}

/* ------------------------------------------------ data and the reference */

enum { K_SUM, K_MAT, NK };
#define NSALTS 3
#define MAXC 1000
#define TAIL 16
#define POISON ((int32_t)0x5a5a5a5a)

static uint64_t mix(uint64_t x) {
  x ^= x >> 31, x *= 0x7fb5d329728ea185ull, x ^= x >> 27, x *= 0x81dadef4bc2dd44dull;
  return x ^ x >> 33;
}

/* Rank `rank`'s i-th input: a sum's from -100000 to 100000, a matrix's
 * four entries below 251 (a valid matmul2 element). */
static int32_t gen(int kind, int rank, long i, int salt) {
  uint64_t h = mix((uint64_t)rank * 1000003u + (uint64_t)i * 7919u + (uint64_t)salt * 104729u + 1);
  if (kind == K_SUM) return (int32_t)(h % 200001) - 100000;
  uint32_t v = 0;
  for (int j = 0; j < 4; j++) v |= (uint32_t)((h >> (16 * j)) % 251) << (8 * j);
  return (int32_t)v;
}

/* The 2x2 product a b mod 251, entries row-major from the low byte. */
static int32_t mat(int32_t a, int32_t b) {
  uint32_t x[4], y[4], z[4], v = 0;
  for (int j = 0; j < 4; j++)
    x[j] = (uint32_t)a >> (8 * j) & 255, y[j] = (uint32_t)b >> (8 * j) & 255;
  z[0] = (x[0] * y[0] + x[1] * y[2]) % 251;
  z[1] = (x[0] * y[1] + x[1] * y[3]) % 251;
  z[2] = (x[2] * y[0] + x[3] * y[2]) % 251;
  z[3] = (x[2] * y[1] + x[3] * y[3]) % 251;
  for (int j = 0; j < 4; j++) v |= z[j] << (8 * j);
  return (int32_t)v;
}

/* x_0 op x_1 op ... op x_{P-1} in rank order, element by element */
static int32_t *reference(int kind, int P, int salt) {
  int32_t *v = malloc(sizeof *v * MAXC);
  cr_assert(v != NULL);
  for (long i = 0; i < MAXC; i++) {
    int32_t acc = gen(kind, 0, i, salt);
    for (int q = 1; q < P; q++)
      acc = kind == K_SUM ? (int32_t)((uint32_t)acc + (uint32_t)gen(kind, q, i, salt))
                          : mat(acc, gen(kind, q, i, salt));
    v[i] = acc;
  }
  return v;
}

/* The reference's product is the library's matmul2: in op inout = in x inout. */
Test(reference, matmul2_is_the_2x2_product_in_rank_order) {
  int commute = 0;
  for (long i = 0; i < 200; i++) {
    int32_t a = gen(K_MAT, 1, i, 0), b = gen(K_MAT, 2, i, 0), inout = b;
    cr_assert(eq(int, tutti_reduce_local(&a, &inout, 1, TUTTI_INT32, TUTTI_MATMUL2), 0));
    cr_assert(eq(i32, inout, mat(a, b)), "element %ld: %08x x %08x", i, (unsigned)a, (unsigned)b);
    commute += mat(a, b) == mat(b, a);
  }
  cr_assert(lt(int, commute, 2), "%d of 200 pairs commute: a weak test of rank order", commute);
}

/* -------------------------------------------- hierarchical's correctness */

struct hcase {
  int coll;
  const tutti_algo_t *a;
  int root, kind, inplace, salt;
  long count;
};

struct hrun {
  struct fails f;
  const struct hcase *c;
  int n;
  int32_t *ref[NK][NSALTS];
  int *entered; /* per case: barrier ranks entered */
};

static long bad_elem(const int32_t *got, const int32_t *want, long count) {
  for (long i = 0; i < count; i++)
    if (got[i] != want[i]) return i;
  for (long i = count; i < count + TAIL; i++)
    if (got[i] != POISON) return i; /* past the count: untouched */
  return -1;
}

static void fill(int32_t *b, int kind, int rank, long count, int salt) {
  for (long i = 0; i < count; i++) b[i] = gen(kind, rank, i, salt);
}

#define CASE_EXPECT(cond, what, i)                                                                 \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      char name_[160];                                                                             \
      tutti_algo_format(c->a, name_, sizeof name_);                                                \
      failf(F, me, "%s %s on %d ranks, root %d, %s, count %ld%s: %s (element %ld)",                \
            tutti_coll_name(c->coll), name_, P, c->root, c->kind == K_SUM ? "sum" : "matmul2",     \
            c->count, c->inplace ? ", in place" : "", what, (long)(i));                            \
      return TUTTI_EINVAL;                                                                         \
    }                                                                                              \
  } while (0)

static int one_case(tutti_rank_t *r, struct hrun *R, int n, int32_t *sb, int32_t *rb, int32_t *in) {
  struct fails *F = &R->f;
  const struct hcase *c = &R->c[n];
  const int me = tutti_rank(r), P = tutti_size(r), isroot = me == c->root;
  const tutti_op_t op = c->kind == K_SUM ? TUTTI_SUM : TUTTI_MATMUL2;
  const int32_t *ref = R->ref[c->kind][c->salt];
  long bad;
  int rc;
  for (long i = 0; i < MAXC + TAIL; i++) sb[i] = rb[i] = POISON;
  fill(in, c->kind, me, c->count, c->salt);
  switch (c->coll) {
  case TUTTI_COLL_BCAST:
    fill(in, c->kind, c->root, c->count, c->salt);
    if (isroot) fill(rb, c->kind, me, c->count, c->salt);
    rc = tutti_bcast(r, rb, c->count, TUTTI_INT32, c->root, c->a);
    CASE_EXPECT(rc == 0, tutti_err_name(rc), -1);
    CASE_EXPECT((bad = bad_elem(rb, in, c->count)) < 0, "not the root's data", bad);
    break;
  case TUTTI_COLL_REDUCE:
    fill(isroot && c->inplace ? rb : sb, c->kind, me, c->count, c->salt);
    rc = tutti_reduce(r, isroot && c->inplace ? TUTTI_IN_PLACE : sb, isroot ? rb : NULL, c->count,
                      TUTTI_INT32, op, c->root, c->a);
    CASE_EXPECT(rc == 0, tutti_err_name(rc), -1);
    if (isroot)
      CASE_EXPECT((bad = bad_elem(rb, ref, c->count)) < 0, "wrong result", bad);
    else
      CASE_EXPECT((bad = bad_elem(rb, rb, 0)) < 0, "a non-root's rbuf was written", bad);
    if (!(isroot && c->inplace))
      CASE_EXPECT((bad = bad_elem(sb, in, c->count)) < 0, "sbuf changed", bad);
    break;
  case TUTTI_COLL_ALLREDUCE:
    fill(c->inplace ? rb : sb, c->kind, me, c->count, c->salt);
    rc = tutti_allreduce(r, c->inplace ? TUTTI_IN_PLACE : sb, rb, c->count, TUTTI_INT32, op, c->a);
    CASE_EXPECT(rc == 0, tutti_err_name(rc), -1);
    CASE_EXPECT((bad = bad_elem(rb, ref, c->count)) < 0, "wrong result", bad);
    if (!c->inplace) CASE_EXPECT((bad = bad_elem(sb, in, c->count)) < 0, "sbuf changed", bad);
    break;
  case TUTTI_COLL_BARRIER: {
    if (n % P == me) { /* one rank comes late, a different one each time */
      struct timespec ts = {0, 200 * 1000};
      nanosleep(&ts, NULL);
    }
    __atomic_add_fetch(&R->entered[n], 1, __ATOMIC_ACQ_REL);
    rc = tutti_barrier(r, c->a);
    CASE_EXPECT(rc == 0, tutti_err_name(rc), -1);
    int e = __atomic_load_n(&R->entered[n], __ATOMIC_ACQUIRE);
    CASE_EXPECT(e == P, "left the barrier before every rank entered", e);
    break;
  }
  }
  return 0;
}

static int hcases_fn(tutti_rank_t *r, void *arg) {
  struct hrun *R = arg;
  int32_t *sb = malloc(sizeof *sb * (MAXC + TAIL)), *rb = malloc(sizeof *rb * (MAXC + TAIL));
  int32_t *in = malloc(sizeof *in * MAXC);
  int rc = sb && rb && in ? 0 : TUTTI_ENOMEM;
  for (int n = 0; n < R->n && !rc; n++) rc = one_case(r, R, n, sb, rb, in);
  free(sb), free(rb), free(in);
  return rc;
}

struct cases {
  struct hcase *v;
  int n, cap;
};

static void add(struct cases *C, struct hcase c) {
  if (C->n == C->cap) {
    C->cap = C->cap ? 2 * C->cap : 256;
    C->v = realloc(C->v, sizeof *C->v * (size_t)C->cap);
    cr_assert(C->v != NULL);
  }
  C->v[C->n++] = c;
}

/* Whether a's levels run on a non-commutative op: none of the algorithms
 * its inter and intra words name is commutative-only (allreduce's intra
 * names a reduce). auto picks one that runs. */
static int noncommutative_ok(const tutti_algo_t *a, int coll) {
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  for (int i = 0; i < d->nparams; i++) {
    if (tutti_algo_param_is_auto(a, i)) continue;
    const char *word = d->params[i].choices[(long)tutti_algo_param_at(a, i)];
    int lc = coll == TUTTI_COLL_ALLREDUCE && !strcmp(d->params[i].name, "intra") ? TUTTI_COLL_REDUCE
                                                                                 : coll;
    const tutti_algo_desc_t *ld = tutti_algo_desc_find(lc, word);
    cr_assert(ld != NULL, "%s names no %s algorithm", word, tutti_coll_name(lc));
    if (ld->restrictions & TUTTI_ALGO_COMMUTATIVE) return 0;
  }
  return 1;
}

/* The variants of hierarchical for coll: the defaults and inter=auto, and
 * with sweep every inter word, every intra word and intra=auto. */
static int variants(int coll, int sweep, const tutti_algo_t **out) {
  int n = 0;
  out[n++] = pick(coll, "hierarchical", NULL);
  out[n++] = pick(coll, "hierarchical", "inter=auto");
  if (!sweep) return n;
  const tutti_algo_desc_t *d = tutti_algo_desc_find(coll, "hierarchical");
  cr_assert(d != NULL);
  for (int i = 0; i < d->nparams; i++) {
    cr_assert(eq(int, d->params[i].type, TUTTI_PARAM_CHOICE));
    for (int w = 0; d->params[i].choices[w]; w++) {
      char p[96];
      snprintf(p, sizeof p, "%s=%s", d->params[i].name, d->params[i].choices[w]);
      out[n++] = pick(coll, "hierarchical", p);
    }
  }
  out[n++] = pick(coll, "hierarchical", "intra=auto");
  return n;
}

/* The cases of one (machine, P): the defaults at every root (P <= 17;
 * sanitized: 8) or three (0, P/2, P-1), the other variants at those three;
 * counts 0, 1, 5 and 1000 (sanitized: the other variants 1 and 1000); sum
 * and matmul2 (where no level is commutative-only), in place and not. */
static void build_cases(struct cases *C, int P, int sweep) {
  static const int colls[] = {TUTTI_COLL_BCAST, TUTTI_COLL_REDUCE, TUTTI_COLL_ALLREDUCE,
                              TUTTI_COLL_BARRIER};
  int salt = 0;
  for (size_t ci = 0; ci < sizeof colls / sizeof *colls; ci++) {
    const int coll = colls[ci];
    const tutti_algo_t *v[40];
    int nv = variants(coll, sweep, v);
    for (int vi = 0; vi < nv; vi++) {
      if (coll == TUTTI_COLL_BARRIER) {
        for (int k = 0; k < (vi ? 1 : 3); k++) add(C, (struct hcase){coll, v[vi], 0, 0, 0, 0, 0});
        continue;
      }
      int roots[20], nr = 0;
      const int every = vi == 0 && P <= (SANITIZED ? 8 : 17);
      if (coll == TUTTI_COLL_ALLREDUCE)
        roots[nr++] = 0;
      else if (every)
        for (int q = 0; q < P; q++) roots[nr++] = q;
      else {
        roots[nr++] = 0;
        if (P / 2 > 0) roots[nr++] = P / 2;
        if (P - 1 > P / 2) roots[nr++] = P - 1;
      }
      static const long all_counts[] = {0, 1, 5, MAXC}, some_counts[] = {1, MAXC};
      const long *counts = vi == 0 || !SANITIZED ? all_counts : some_counts;
      const int ncounts = vi == 0 || !SANITIZED ? 4 : 2;
      const int nkinds = coll == TUTTI_COLL_BCAST ? 1 : NK;
      const int ninplace = coll == TUTTI_COLL_BCAST ? 1 : 2;
      for (int ri = 0; ri < nr; ri++)
        for (int k = 0; k < nkinds; k++) {
          if (k == K_MAT && !noncommutative_ok(v[vi], coll)) continue;
          for (int ni = 0; ni < ncounts; ni++)
            for (int ip = 0; ip < ninplace; ip++)
              add(C, (struct hcase){coll, v[vi], roots[ri], k, ip, salt++ % NSALTS, counts[ni]});
        }
    }
  }
}

struct point {
  const char *topo, *map; /* NULL topo: no hosts */
  int P, sweep;
};

static void check_point(const struct point *pt) {
  tutti_model_t m = native();
  tutti_topo_t *t = pt->topo ? mktopo(pt->topo, NULL, pt->P, pt->map, 1e-9) : NULL;
  m.topo = t;
  struct cases C = {0};
  build_cases(&C, pt->P, pt->sweep);
  struct hrun R = {{0}, C.v, C.n, {{0}}, calloc((size_t)C.n, sizeof(int))};
  cr_assert(R.entered != NULL);
  for (int k = 0; k < NK; k++)
    for (int s = 0; s < NSALTS; s++) R.ref[k][s] = reference(k, pt->P, s);
  char what[128];
  snprintf(what, sizeof what, "%s%s%s, %d ranks, %d cases", pt->topo ? pt->topo : "no topology",
           pt->map ? " " : "", pt->map ? pt->map : "", pt->P, C.n);
  tutti_world_t *w = mkworld_cfg(pt->P, &m, 0);
  run_ok(w, hcases_fn, &R, &R.f, what);
  cr_log_info("%s: verified", what);
  tutti_world_destroy(w);
  for (int k = 0; k < NK; k++)
    for (int s = 0; s < NSALTS; s++) free(R.ref[k][s]);
  free(R.entered);
  free(C.v);
  tutti_topo_free(t);
}

static void check_points(const struct point *pts, size_t n) {
  for (size_t i = 0; i < n; i++) check_point(&pts[i]);
}

/* No hosts: the one-level fallback, inter on every rank. */
Test(hierarchical, verified_without_hosts, .timeout = 120) {
  static const struct point pts[] = {
      {NULL, NULL, 1, 0}, {NULL, NULL, 2, 0}, {NULL, NULL, 5, 0}, {NULL, NULL, 13, 1}};
  check_points(pts, sizeof pts / sizeof *pts);
}

/* Small two-level trees: hosts of 3 and of 5 leaves, some part-filled,
 * ranges (identity) and interleaved (roundrobin, roundrobin:2, random: a
 * non-commutative op falls back to one level), one rank per host
 * (roundrobin, 3 ranks). */
Test(hierarchical, verified_small_trees, .timeout = 240) {
  static const struct point pts[] = {
      {"tree:2x3", "identity", 1, 0},      {"tree:2x3", "identity", 2, 0},
      {"tree:2x3", "identity", 3, 0},      {"tree:2x3", "identity", 5, 1},
      {"tree:2x3", "roundrobin", 5, 0},    {"tree:3x5", "identity", 7, 0},
      {"tree:3x5", "identity", 8, 0},      {"tree:3x5", "identity", 13, 1},
      {"tree:3x5", "roundrobin", 8, 0},    {"tree:3x5", "roundrobin", 13, 1},
      {"tree:3x5", "roundrobin:2", 13, 1}, {"tree:3x5", "roundrobin", 3, 0},
      {"tree:3x5", "random:7", 11, 0}};
  check_points(pts, sizeof pts / sizeof *pts);
}

Test(hierarchical, verified_4x4, .timeout = 240) {
  static const struct point pts[] = {{"tree:4x4", "identity", 16, 1},
                                     {"tree:4x4", "roundrobin", 16, 1}};
  check_points(pts, sizeof pts / sizeof *pts);
}

/* tree:5x13: up to 65 ranks on 5 hosts of 13. */
Test(hierarchical, verified_5x13, .timeout = 300) {
#if SANITIZED
  static const struct point pts[] = {{"tree:5x13", "identity", 17, 0},
                                     {"tree:5x13", "identity", 31, 1},
                                     {"tree:5x13", "roundrobin", 17, 0}};
#else
  static const struct point pts[] = {
      {"tree:5x13", "identity", 17, 0},   {"tree:5x13", "identity", 31, 0},
      {"tree:5x13", "identity", 64, 0},   {"tree:5x13", "identity", 65, 1},
      {"tree:5x13", "roundrobin", 17, 0}, {"tree:5x13", "roundrobin", 65, 1}};
#endif
  check_points(pts, sizeof pts / sizeof *pts);
}

/* Three levels: hosts are the lowest switches, under two middle ones. */
Test(hierarchical, verified_three_levels, .timeout = 300) {
#if SANITIZED
  static const struct point pts[] = {{"tree:2x2x5", "identity", 17, 1},
                                     {"tree:2x2x5", "roundrobin", 17, 0}};
#else
  static const struct point pts[] = {{"tree:2x2x5", "identity", 17, 1},
                                     {"tree:2x2x5", "roundrobin", 17, 1},
                                     {"tree:2x2x8", "identity", 31, 0},
                                     {"tree:2x2x8", "roundrobin", 31, 0}};
#endif
  check_points(pts, sizeof pts / sizeof *pts);
}

/* ---------------------------------------------------------- modeled times */

struct step {
  int coll;
  const tutti_algo_t *a;
};

struct prog {
  struct step s[2];
  int n, root;
  long count;
  int mat; /* reduce with matmul2, not sum */
};

/* The steps of p, one span each: reduce from a into b, bcast and
 * allreduce of b (an intra reduce then bcast is hierarchical allreduce
 * on one host). Timing only: TUTTI_NO_DATA worlds. */
static int prog_fn(tutti_rank_t *r, void *arg) {
  const struct prog *p = arg;
  int32_t *a = calloc((size_t)p->count + 1, sizeof *a),
          *b = calloc((size_t)p->count + 1, sizeof *b);
  int rc = a && b ? 0 : TUTTI_ENOMEM;
  for (int i = 0; i < p->n && !rc; i++) {
    const struct step *s = &p->s[i];
    switch (s->coll) {
    case TUTTI_COLL_BCAST:
      rc = tutti_bcast(r, b, p->count, TUTTI_INT32, p->root, s->a);
      break;
    case TUTTI_COLL_REDUCE:
      rc = tutti_reduce(r, a, b, p->count, TUTTI_INT32, p->mat ? TUTTI_MATMUL2 : TUTTI_SUM, p->root,
                        s->a);
      break;
    case TUTTI_COLL_ALLREDUCE:
      rc = tutti_allreduce(r, a, b, p->count, TUTTI_INT32, TUTTI_SUM, s->a);
      break;
    case TUTTI_COLL_BARRIER:
      rc = tutti_barrier(r, s->a);
      break;
    }
  }
  free(a), free(b);
  return rc;
}

struct times {
  int P, ncalls;
  double first, end[128];
  uint64_t messages;
};

static struct times run_prog(tutti_world_t *w, const struct prog *p) {
  cr_assert(eq(int, tutti_world_run(w, prog_fn, (void *)p), 0), "%s", tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  struct times t = {rep.nranks, rep.ncalls, rep.ncalls ? rep.calls[0].time : -1, {0}, rep.messages};
  cr_assert(le(int, rep.nranks, 128));
  memcpy(t.end, rep.rank_end, sizeof *t.end * (size_t)rep.nranks);
  return t;
}

static struct prog one_step(int coll, const tutti_algo_t *a, int root) {
  return (struct prog){{{coll, a}, {0, NULL}}, 1, root, 1000, 0};
}

/* hierarchical and the program it should time as, to the bit: every
 * rank's end, and the first call's time when both are one call. */
static void same_times(tutti_world_t *w, const struct prog *hier, const struct prog *ref,
                       const char *what) {
  struct times a = run_prog(w, hier), b = run_prog(w, ref);
  cr_assert(eq(int, a.ncalls, 1), "%s", what);
  cr_assert(eq(int, b.ncalls, ref->n), "%s", what);
  cr_assert(eq(u64, a.messages, b.messages), "%s: messages", what);
  if (ref->n == 1)
    cr_assert(eq(int, a.first == b.first, 1), "%s: %.17g s, want %.17g s", what, a.first, b.first);
  for (int q = 0; q < a.P; q++)
    cr_assert(eq(int, a.end[q] == b.end[q], 1), "%s: rank %d ends at %.17g s, want %.17g s", what,
              q, a.end[q], b.end[q]);
  cr_assert(gt(dbl, a.end[0], 0.0), "%s: nothing was timed", what);
}

static const int colls4[] = {TUTTI_COLL_BCAST, TUTTI_COLL_REDUCE, TUTTI_COLL_ALLREDUCE,
                             TUTTI_COLL_BARRIER};

/* Every inter word (and auto) of each collective: hierarchical with it,
 * against the algorithm itself, at roots 0 and P/2. */
static void inter_equivalence(tutti_world_t *w, int P, const char *label) {
  for (size_t ci = 0; ci < 4; ci++) {
    const int coll = colls4[ci];
    const tutti_algo_desc_t *d = tutti_algo_desc_find(coll, "hierarchical");
    const char *const *words = d->params[0].choices;
    cr_assert(eq(str, (char *)d->params[0].name, "inter"));
    for (int wi = -1; wi < 0 || words[wi]; wi++) {
      const char *word = wi < 0 ? "auto" : words[wi];
      char p[64], what[160];
      snprintf(p, sizeof p, "inter=%s", word);
      const tutti_algo_t *h = pick(coll, "hierarchical", p), *x = pick(coll, word, NULL);
      for (int root = 0; root <= P / 2; root += P / 2) {
        snprintf(what, sizeof what, "%s %s, P=%d root %d: hierarchical:%s against %s",
                 tutti_coll_name(coll), label, P, root, p, word);
        struct prog hp = one_step(coll, h, root), xp = one_step(coll, x, root);
        same_times(w, &hp, &xp, what);
        if (coll == TUTTI_COLL_ALLREDUCE || coll == TUTTI_COLL_BARRIER) break;
      }
    }
  }
}

Test(times, without_hosts_inter_to_the_bit, .timeout = 120) {
  tutti_model_t m = hockney(1e-6, 1e-9);
  static const int Ps[] = {13, 16};
  for (size_t i = 0; i < 2; i++) {
    tutti_world_t *w = mkworld_cfg(Ps[i], &m, TUTTI_NO_DATA);
    inter_equivalence(w, Ps[i], "no topology");
    tutti_world_destroy(w);
  }
}

/* tree:Px1: every host one rank, so the leaders are every rank. */
Test(times, one_rank_per_host_inter_to_the_bit, .timeout = 120) {
  static const int Ps[] = {13, 16};
  for (size_t i = 0; i < 2; i++) {
    char spec[32];
    snprintf(spec, sizeof spec, "tree:%dx1", Ps[i]);
    tutti_model_t m = hockney(1e-6, 1e-9);
    tutti_topo_t *t = mktopo(spec, "0.5us/2GB/s, 3us/1GB/s", Ps[i], "identity", m.latency.b);
    m.topo = t;
    tutti_world_t *w = mkworld_cfg(Ps[i], &m, TUTTI_NO_DATA);
    inter_equivalence(w, Ps[i], spec);
    tutti_world_destroy(w);
    tutti_topo_free(t);
  }
}

/* tree:P: one host, so no leaders' level: intra alone (allreduce: intra's
 * reduce to rank 0, then its bcast; barrier: intra twice). */
Test(times, one_host_intra_to_the_bit, .timeout = 120) {
  static const int Ps[] = {13, 16};
  for (size_t i = 0; i < 2; i++) {
    const int P = Ps[i];
    char spec[32];
    snprintf(spec, sizeof spec, "tree:%d", P);
    tutti_model_t m = hockney(1e-6, 1e-9);
    tutti_topo_t *t = mktopo(spec, "0.5us/2GB/s", P, "identity", m.latency.b);
    m.topo = t;
    tutti_world_t *w = mkworld_cfg(P, &m, TUTTI_NO_DATA);
    for (size_t ci = 0; ci < 4; ci++) {
      const int coll = colls4[ci];
      const tutti_algo_desc_t *d = tutti_algo_desc_find(coll, "hierarchical");
      cr_assert(eq(str, (char *)d->params[1].name, "intra"));
      const char *const *words = d->params[1].choices;
      for (int wi = 0; words[wi]; wi++) {
        char p[64], what[160];
        snprintf(p, sizeof p, "intra=%s", words[wi]);
        const tutti_algo_t *h = pick(coll, "hierarchical", p);
        for (int root = 0; root <= P / 2; root += P / 2) {
          struct prog hp = one_step(coll, h, root), xp;
          if (coll == TUTTI_COLL_ALLREDUCE)
            xp = (struct prog){{{TUTTI_COLL_REDUCE, pick(TUTTI_COLL_REDUCE, words[wi], NULL)},
                                {TUTTI_COLL_BCAST, pick(TUTTI_COLL_BCAST, words[wi], NULL)}},
                               2,
                               0,
                               1000,
                               0};
          else if (coll == TUTTI_COLL_BARRIER)
            xp = (struct prog){
                {{coll, pick(coll, words[wi], NULL)}, {coll, pick(coll, words[wi], NULL)}},
                2,
                0,
                1000,
                0};
          else
            xp = one_step(coll, pick(coll, words[wi], NULL), root);
          snprintf(what, sizeof what, "%s %s, root %d: hierarchical:%s against %s",
                   tutti_coll_name(coll), spec, root, p, words[wi]);
          same_times(w, &hp, &xp, what);
          if (coll == TUTTI_COLL_ALLREDUCE || coll == TUTTI_COLL_BARRIER) break;
        }
      }
    }
    tutti_world_destroy(w);
    tutti_topo_free(t);
  }
}

/* --------------------------------------------- where two levels pay off */

struct linkcount {
  uint64_t up_root, down_root, leaf; /* messages over s_i -> root, root -> s_i, leaf links */
};

static struct linkcount count_links(tutti_world_t *w) {
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  tutti_link_load_t *l = calloc((size_t)rep.nlinks + 1, sizeof *l);
  int n = 0;
  cr_assert(eq(int, tutti_world_links(w, rep.nlinks, l, &n), 0));
  struct linkcount c = {0, 0, 0};
  for (int i = 0; i < n; i++) {
    if (strstr(l[i].name, "-> root"))
      c.up_root += l[i].messages;
    else if (strstr(l[i].name, "root ->"))
      c.down_root += l[i].messages;
    else if (strstr(l[i].name, "leaf "))
      c.leaf += l[i].messages;
    else
      cr_fatal("a link of a two-level tree named '%s'", l[i].name);
  }
  free(l);
  return c;
}

/* tree:4x8, 32 ranks on H = 4 hosts of 8, leaf links 20 GB/s and 0.5 us,
 * upper links 1 GB/s and 2 us; a bcast of 64 KiB from rank 0.
 * - identity (hosts are ranges 0-7, ...): the binomial tree's edges of
 *   distance 16 and 8 are the only ones between hosts, and its rank 0
 *   sends 16, 8, then 4, 2, 1: exactly hierarchical binomial/binomial's
 *   messages in the same order, so the same time to the bit.
 * - roundrobin (rank q on host q mod 4): binomial's edges of distance 1
 *   (16 of them) and 2 (8) cross hosts, 24 messages each over one up and
 *   one down root link, 8 at once on s0 -> root in the last round;
 *   hierarchical sends H - 1 = 3 between the leaders 0..3 and the rest
 *   inside hosts, so it is faster. Either way every message takes one
 *   leaf link up and one down: 2 (P - 1). */
Test(times, two_levels_cross_the_network_less, .timeout = 120) {
  enum { P = 32, H = 4 };
  const long count = (64 << 10) / 4;
  const tutti_algo_t *flat = pick(TUTTI_COLL_BCAST, "binomial", NULL);
  const tutti_algo_t *two = pick(TUTTI_COLL_BCAST, "hierarchical", "inter=binomial,intra=binomial");
  for (int rr = 0; rr < 2; rr++) {
    tutti_model_t m = hockney(1e-6, 5e-11);
    tutti_topo_t *t = mktopo("tree:4x8", "0.5us/20GB/s, 2us/1GB/s", P,
                             rr ? "roundrobin" : "identity", m.latency.b);
    m.topo = t;
    tutti_world_t *w = mkworld_cfg(P, &m, TUTTI_NO_DATA);
    struct prog fp = {{{TUTTI_COLL_BCAST, flat}, {0, NULL}}, 1, 0, count, 0};
    struct prog hp = {{{TUTTI_COLL_BCAST, two}, {0, NULL}}, 1, 0, count, 0};
    struct times tf = run_prog(w, &fp);
    struct linkcount lf = count_links(w);
    struct times th = run_prog(w, &hp);
    struct linkcount lh = count_links(w);
    cr_assert(eq(u64, tf.messages, P - 1));
    cr_assert(eq(u64, th.messages, P - 1));
    cr_assert(eq(u64, lf.leaf, 2 * (P - 1)));
    cr_assert(eq(u64, lh.leaf, 2 * (P - 1)));
    cr_assert(eq(u64, lh.up_root, H - 1), "hierarchical: %llu messages up to the root switch",
              (unsigned long long)lh.up_root);
    cr_assert(eq(u64, lh.down_root, H - 1));
    if (!rr) {
      cr_assert(eq(u64, lf.up_root, H - 1));
      cr_assert(eq(u64, lf.down_root, H - 1));
      cr_assert(eq(int, th.first == tf.first, 1),
                "identity: hierarchical %.17g s, binomial %.17g s", th.first, tf.first);
    } else {
      cr_assert(eq(u64, lf.up_root, 24), "binomial, roundrobin: %llu up to the root switch",
                (unsigned long long)lf.up_root);
      cr_assert(eq(u64, lf.down_root, 24));
      cr_assert(lt(dbl, th.first, tf.first), "roundrobin: hierarchical %.17g s, binomial %.17g s",
                th.first, tf.first);
      cr_log_info("roundrobin: hierarchical %g s, binomial %g s", th.first, tf.first);
    }
    tutti_world_destroy(w);
    tutti_topo_free(t);
  }
}

/* collectives/REFERENCE.md "Hierarchical": bcast of 64 KiB on tree:4x4,
 * links 0.5us/20GB/s then 2us/10GB/s, Hockney alpha = beta = 0: a
 * message within a host 4.2768 us, between hosts 11.5536 us (cut-through
 * over two and four links); two levels 2 x 11.5536 + 2 x 4.2768 =
 * 31.6608 us on either mapping, binomial the same on identity and
 * 63.9824 us on roundrobin. */
Test(times, reference_vector, .timeout = 60) {
  enum { P = 16 };
  const long count = 64 << 10; /* bytes */
  const tutti_algo_t *bin = pick(TUTTI_COLL_BCAST, "binomial", NULL);
  const tutti_algo_t *two = pick(TUTTI_COLL_BCAST, "hierarchical", NULL);
  const double want[2][2] = {{31.6608e-6, 31.6608e-6}, {63.9824e-6, 31.6608e-6}};
  for (int rr = 0; rr < 2; rr++) {
    tutti_model_t m = hockney(0, 0);
    tutti_topo_t *t =
        mktopo("tree:4x4", "0.5us/20GB/s, 2us/10GB/s", P, rr ? "roundrobin" : "identity", 0);
    m.topo = t;
    tutti_world_t *w = mkworld_cfg(P, &m, TUTTI_NO_DATA);
    for (int k = 0; k < 2; k++) {
      struct prog pr = {{{TUTTI_COLL_BCAST, k ? two : bin}, {0, NULL}}, 1, 0, count / 4, 0};
      struct times tm = run_prog(w, &pr);
      cr_assert(lt(dbl, fabs(tm.first - want[rr][k]), 1e-12), "%s, %s: %.9g us, REFERENCE.md %g us",
                rr ? "roundrobin" : "identity", k ? "hierarchical" : "binomial", tm.first * 1e6,
                want[rr][k] * 1e6);
    }
    tutti_world_destroy(w);
    tutti_topo_free(t);
  }
}

/* tree:4x4, 16 ranks, reduce to rank 0 with inter and intra binomial. Sum:
 * two levels, the leaders' H - 1 = 3 messages cross the root switch under
 * either mapping. Matmul2 on hosts that are ranges (identity): two levels
 * too. Matmul2 under roundrobin (host q mod 4, not ranges): one level,
 * binomial on every rank, whose edges of distance 1 (8) and 2 (4) cross:
 * 12, and binomial's time to the bit. */
Test(times, noncommutative_on_interleaved_hosts_is_one_level, .timeout = 60) {
  enum { P = 16, H = 4 };
  const tutti_algo_t *flat = pick(TUTTI_COLL_REDUCE, "binomial", NULL);
  const tutti_algo_t *two =
      pick(TUTTI_COLL_REDUCE, "hierarchical", "inter=binomial,intra=binomial");
  for (int rr = 0; rr < 2; rr++)
    for (int mat = 0; mat < 2; mat++) {
      tutti_model_t m = hockney(1e-6, 1e-9);
      tutti_topo_t *t = mktopo("tree:4x4", NULL, P, rr ? "roundrobin" : "identity", m.latency.b);
      m.topo = t;
      tutti_world_t *w = mkworld_cfg(P, &m, TUTTI_NO_DATA);
      struct prog hp = {{{TUTTI_COLL_REDUCE, two}, {0, NULL}}, 1, 0, 1000, mat};
      struct prog fp = {{{TUTTI_COLL_REDUCE, flat}, {0, NULL}}, 1, 0, 1000, mat};
      struct times th = run_prog(w, &hp);
      struct linkcount lh = count_links(w);
      struct times tf = run_prog(w, &fp);
      const char *what = rr ? (mat ? "roundrobin, matmul2" : "roundrobin, sum")
                            : (mat ? "identity, matmul2" : "identity, sum");
      const uint64_t want = rr && mat ? 12 : H - 1;
      cr_assert(eq(u64, lh.up_root, want), "%s: %llu messages up to the root switch", what,
                (unsigned long long)lh.up_root);
      cr_assert(eq(u64, lh.down_root, want), "%s", what);
      cr_assert(eq(u64, lh.leaf, 2 * (P - 1)), "%s", what);
      if (rr && mat)
        cr_assert(eq(int, th.first == tf.first, 1), "%s: %.17g s, binomial %.17g s", what, th.first,
                  tf.first);
      tutti_world_destroy(w);
      tutti_topo_free(t);
    }
}

/* ------------------------------------------------------------- bad input */

static void select_fails(int coll, const char *params, const char *names, const char *lists) {
  const tutti_algo_t *a = NULL;
  char err[1024] = "";
  int rc = tutti_algo_select(coll, "hierarchical", params, &a, err, sizeof err);
  cr_assert(eq(int, rc, TUTTI_EINVAL), "%s hierarchical %s: %d", tutti_coll_name(coll), params, rc);
  cr_assert(eq(ptr, (void *)a, NULL));
  cr_assert(ne(ptr, strstr(err, names), NULL), "'%s' does not name %s: %s", params, names, err);
  cr_assert(ne(ptr, strstr(err, lists), NULL), "'%s' does not list %s: %s", params, lists, err);
}

Test(errors, bad_level_words_are_refused) {
  static const char *const some_word[] = {"pipelined-chain", "postal-optimal", "rabenseifner",
                                          "tournament"}; /* one inter word of each */
  for (size_t ci = 0; ci < 4; ci++) {
    select_fails(colls4[ci], "inter=hierarchical", "inter", some_word[ci]);
    select_fails(colls4[ci], "intra=hierarchical", "intra", "binomial");
    select_fails(colls4[ci], "inter=nosuch", "inter", some_word[ci]);
    pick(colls4[ci], "hierarchical", "inter=auto,intra=auto");
  }
  select_fails(TUTTI_COLL_BCAST, "inter=hierarchical", "inter", "scatter-allgather");
  select_fails(TUTTI_COLL_BCAST, "inter=ring", "inter", "pipelined-chain");
  select_fails(TUTTI_COLL_REDUCE, "intra=rabenseifner", "intra", "postal-optimal");
  select_fails(TUTTI_COLL_ALLREDUCE, "intra=ring", "intra", "lambda-tree");
  select_fails(TUTTI_COLL_ALLREDUCE, "intra=reduce-bcast", "intra", "flat");
  select_fails(TUTTI_COLL_BARRIER, "inter=ring", "inter", "dissemination");
  pick(TUTTI_COLL_ALLREDUCE, "hierarchical", "inter=ring,intra=flat");
}

struct nc {
  const tutti_algo_t *a;
  int rc[16];
};

static int nc_fn(tutti_rank_t *r, void *arg) {
  struct nc *c = arg;
  int32_t x = 0x01000001, y = 0; /* the identity matrix */
  int rc = tutti_allreduce(r, &x, &y, 1, TUTTI_INT32, TUTTI_MATMUL2, c->a);
  c->rc[tutti_rank(r)] = rc;
  return rc;
}

/* allreduce hierarchical:inter=recursive-doubling (commutative ops only)
 * with matmul2: the level's restriction is the algorithm's
 * (tutti_algo_check), so on every topology every rank refuses the call
 * with TUTTI_ENOTSUP before any message moves -- no rank is left waiting
 * for a leader. The world runs again afterwards. */
Test(errors, commutative_only_level_with_matmul2_fails_cleanly, .timeout = 60) {
  enum { P = 8 };
  const char *maps[] = {NULL, "roundrobin", "identity"};
  const tutti_algo_t *rd = pick(TUTTI_COLL_ALLREDUCE, "hierarchical", "inter=recursive-doubling");
  char err[512] = "";
  cr_assert(eq(int, tutti_algo_check(rd, P, TUTTI_MATMUL2, err, sizeof err), TUTTI_ENOTSUP));
  cr_assert(
      ne(ptr, strstr(err, "inter: allreduce 'recursive-doubling' needs a commutative op"), NULL),
      "%s", err);
  cr_assert(eq(int, tutti_algo_check(rd, P, TUTTI_SUM, err, sizeof err), 0), "%s", err);
  cr_assert(eq(int,
               tutti_algo_check(pick(TUTTI_COLL_REDUCE, "hierarchical", "intra=binary"), P,
                                TUTTI_MATMUL2, err, sizeof err),
               TUTTI_ENOTSUP));
  cr_assert(ne(ptr, strstr(err, "intra: reduce 'binary' needs a commutative op"), NULL), "%s", err);
  for (int k = 0; k < 3; k++) {
    tutti_model_t m = native();
    tutti_topo_t *t = maps[k] ? mktopo("tree:2x4", NULL, P, maps[k], 1e-9) : NULL;
    m.topo = t;
    tutti_world_t *w = mkworld_cfg(P, &m, 0);
    struct nc c = {rd, {0}};
    for (int q = 0; q < P; q++) c.rc[q] = 1;
    int rc = tutti_world_run(w, nc_fn, &c);
    const char *label = maps[k] ? maps[k] : "no topology";
    cr_assert(eq(int, rc, TUTTI_ENOTSUP), "%s: %d: %s", label, rc, tutti_world_error(w));
    int notsup = 0;
    for (int q = 0; q < P; q++) {
      cr_assert(eq(int, c.rc[q], TUTTI_ENOTSUP), "%s, rank %d: %s", label, q,
                tutti_err_name(c.rc[q]));
      notsup++;
    }
    cr_assert(eq(int, notsup, P));
    c.a = pick(TUTTI_COLL_ALLREDUCE, "hierarchical", NULL); /* inter=auto: one that runs */
    cr_assert(eq(int, tutti_world_run(w, nc_fn, &c), 0), "%s: %s", label, tutti_world_error(w));
    tutti_world_destroy(w);
    tutti_topo_free(t);
  }
}

/*
 * test_e2e_hierarchical.c -- group views, hosts and the two-level
 * algorithms' results (collectives/hierarchical.c), on rank threads;
 * their modeled times and bad input: test_e2e_hierarchical_times.c.
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
 * ranks all enter before any leaves.
 *
 * TUTTI_TSAN_TEST: also built and run under ThreadSanitizer (tests/CMakeLists.txt).
 */
#include "hierarchical_e2e.h"

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

/*
 * test_e2e_hierarchical_times.c -- the two-level algorithms'
 * (collectives/hierarchical.c) modeled times and bad input, on rank
 * threads. Without hosts hierarchical is its inter algorithm to the bit,
 * with one rank per host too, with one host its intra (allreduce:
 * intra's reduce then bcast; barrier: intra twice); on tree:4x8 with
 * slow upper links two levels send H-1 messages through the root switch
 * where a flat binomial under roundrobin sends 24, and are faster (under
 * identity the two are the same messages, the same time); REFERENCE.md's
 * vector; a non-commutative reduce on hosts that are not ranges is one
 * level (binomial's links and time). Bad inter and intra words through
 * the C API, and a commutative-only level refused with a non-commutative
 * op on every rank.
 *
 * TUTTI_TSAN_TEST: also built and run under ThreadSanitizer (tests/CMakeLists.txt).
 */
#include "hierarchical_e2e.h"

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

/*
 * test_e2e_bcast_large.c -- the large-message broadcasts, pipelined-chain
 * and scatter-allgather, timed on rank threads under Hockney
 * (runtime/MODEL.md): collectives/REFERENCE.md's vectors; the chain's
 * modeled time against an independent max-plus recurrence over the (link,
 * segment) grid for many P, m, S and every root; scatter-allgather's
 * closed form whenever P divides m, every root; segments=auto against an
 * exhaustive sweep of S under three profiles; the contention-free chain
 * on a tree of two switches with the link report; the order and segment
 * errors, from the C API and from `tutti run` (exit 2), and the note of
 * a fallback; `tutti bench lecture` on a small grid. Correctness of the data is test_e2e_coll.c's
 * (it sweeps every registered parameter), costs of every algorithm test_e2e_cost.c's.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"
#include "coll_helpers.h"

#define US 1e-6

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1 /* tests/README.md "Sanitizers": smaller sweeps, every path kept */
#else
#define SANITIZED 0
#endif

/* The modeled time of one bcast of `bytes` bytes on world w (reused). */
static double bcast_on(tutti_world_t *w, const tutti_algo_t *a, long bytes, int root) {
  struct one o = {TUTTI_COLL_BCAST, a, bytes, TUTTI_BYTE, root};
  cr_assert(eq(int, tutti_world_run(w, one_call, &o), 0), "%s", tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  cr_assert(eq(int, rep.ncalls, 1));
  return rep.calls[0].time;
}

static const tutti_algo_t *chain(const char *params) {
  return pick(TUTTI_COLL_BCAST, "pipelined-chain", params);
}

static int close_to(double got, double want) {
  return fabs(got - want) <= 1e-9 * fabs(want) + 1e-13;
}

/* ------------------------------------------------------ REFERENCE.md */

/* P = 5, alpha = 1 us, beta = 1 us/B, m = 100: T(1) = 404, T(10) = 143,
 * T(20) = 138 us; P = 8, m = 800: scatter + ring 1410 against flat 5607
 * and binomial 2403. */
Test(reference, vectors, .timeout = 30) {
  tutti_model_t m = hockney(1 * US, 1 * US);
  struct {
    const char *segs;
    double us;
  } ch[] = {{"segments=1", 404}, {"segments=10", 143}, {"segments=20", 138}};
  for (size_t i = 0; i < sizeof ch / sizeof *ch; i++) {
    const tutti_algo_t *a = chain(ch[i].segs);
    double t = timed(5, &m, TUTTI_COLL_BCAST, a, 100, TUTTI_BYTE, 0);
    cr_expect(close_to(t, ch[i].us * US), "%s: %.9g us, want %g", ch[i].segs, t / US, ch[i].us);
  }
  struct {
    const char *algo;
    double us;
  } p8[] = {{"flat", 5607}, {"binomial", 2403}, {"scatter-allgather", 1410}};
  for (size_t i = 0; i < sizeof p8 / sizeof *p8; i++) {
    const tutti_algo_t *a = pick(TUTTI_COLL_BCAST, p8[i].algo, NULL);
    double t = timed(8, &m, TUTTI_COLL_BCAST, a, 800, TUTTI_BYTE, 0);
    cr_expect(close_to(t, p8[i].us * US), "%s: %.9g us, want %g", p8[i].algo, t / US, p8[i].us);
  }
}

/* ------------------------------------------------- the chain's time */

/* The pipeline as a recurrence, independent of the closed form: link i
 * (rank i of the chain to rank i+1) starts segment k when link i-1 has
 * delivered it and link i has delivered segment k-1; each transfer takes
 * alpha + beta b_k, with b_k = m/S bytes, one more for the first m mod S
 * (REFERENCE.md). */
static double chain_dp(int P, long m, long S, double alpha, double beta) {
  if (P <= 1) return 0;
  double *end = calloc((size_t)S, sizeof *end); /* end of segment k on the previous link */
  for (int i = 0; i < P - 1; i++) {
    double prev_k = 0; /* end of segment k-1 on this link */
    for (long k = 0; k < S; k++) {
      long b = m / S + (k < m % S);
      double start = fmax(end[k], prev_k);
      end[k] = prev_k = start + alpha + beta * (double)b;
    }
  }
  double t = end[S - 1];
  free(end);
  return t;
}

/* Many (P, m, S) and every root (three for the larger P): the modeled
 * time is the recurrence's, and the registered cost says the same. Under
 * the sanitizers the largest S is 100, not 1000 (most of the messages),
 * still one-byte segments at m = 100 and unequal ones at m = 4099, and
 * every root only to P = 4. */
Test(chain, time_is_the_pipeline_recurrence, .timeout = 120) {
  const int Ps[] = {2, 3, 4, 5, 7, 8, 13, 16};
  const long ms[] = {1, 7, 100, 1000, 4099};
  const long Ss[] = {1, 2, 3, 5, 8, 13, 64, SANITIZED ? 100 : 1000};
  const double betas[] = {1 * US, 1e-9};
  int checked = 0;
  for (size_t pi = 0; pi < sizeof Ps / sizeof *Ps; pi++) {
    int P = Ps[pi];
    for (size_t bi = 0; bi < 2; bi++) {
      tutti_model_t mod = hockney(1 * US, betas[bi]);
      tutti_world_t *w = mkworld(P, &mod);
      tutti_hockney_t h = {1 * US, betas[bi], 0};
      for (size_t mi = 0; mi < sizeof ms / sizeof *ms; mi++)
        for (size_t si = 0; si < sizeof Ss / sizeof *Ss; si++) {
          long m = ms[mi], S = Ss[si];
          if (S > m) continue;
          char p[32];
          snprintf(p, sizeof p, "segments=%ld", S);
          const tutti_algo_t *a = chain(p);
          for (int root = 0; root < P; root += P <= (SANITIZED ? 4 : 8) ? 1 : P / 3) {
            double want = chain_dp(P, m, S, 1 * US, betas[bi]);
            double got = bcast_on(w, a, m, root);
            cr_expect(close_to(got, want), "P=%d m=%ld S=%ld root=%d beta=%g: %.9g us, want %.9g",
                      P, m, S, root, betas[bi], got / US, want / US);
            int bound = -1;
            double cost = tutti_algo_cost(a, P, root, (size_t)m, &h, &bound);
            cr_expect(close_to(cost, want) && bound == 0, "cost %.9g us", cost / US);
            checked++;
          }
        }
      tutti_world_destroy(w);
    }
  }
  cr_assert(gt(int, checked, 500));
}

/* segment=SIZE cuts ceil(m/SIZE) segments, none longer than SIZE. */
Test(chain, segment_size, .timeout = 30) {
  tutti_model_t mod = hockney(1 * US, 1e-9);
  const tutti_algo_t *a = chain("segment=1000");
  for (long m = 1; m <= 10000; m += 2999) {
    double t = timed(6, &mod, TUTTI_COLL_BCAST, a, m, TUTTI_BYTE, 2);
    long S = (m + 999) / 1000;
    cr_expect(close_to(t, chain_dp(6, m, S, 1 * US, 1e-9)), "m=%ld: %.9g us", m, t / US);
  }
}

/* --------------------------------------------- scatter-allgather */

/* When P divides m: (ceil(log2 P) + P - 1) alpha + 2 ((P-1)/P) beta m
 * with the ring, every root; recursive doubling on powers of two:
 * 2 log2(P) alpha + 2 ((P-1)/P) beta m. Under the sanitizers every root
 * to P = 8, then three (the first, a middle one, one near the end). */
Test(scatter_allgather, closed_form_when_P_divides_m, .timeout = 120) {
  const double alpha = 1 * US, beta = 1e-8;
  tutti_model_t mod = hockney(alpha, beta);
  const tutti_algo_t *ring = pick(TUTTI_COLL_BCAST, "scatter-allgather", NULL);
  const tutti_algo_t *rd =
      pick(TUTTI_COLL_BCAST, "scatter-allgather", "allgather=recursive-doubling");
  for (int P = 2; P <= 17; P++) {
    tutti_world_t *w = mkworld(P, &mod);
    int lg = 0;
    while ((1 << lg) < P) lg++;
    for (long k = 1; k <= 1000; k *= 10) {
      long m = P * k;
      double body = 2.0 * (P - 1) / P * beta * (double)m;
      for (int root = 0; root < P; root += SANITIZED && P > 8 ? (P - 1) / 2 : 1) {
        double t = bcast_on(w, ring, m, root), want = (lg + P - 1) * alpha + body;
        cr_expect(close_to(t, want), "ring P=%d m=%ld root=%d: %.9g us, want %.9g", P, m, root,
                  t / US, want / US);
        if (P & (P - 1)) continue;
        t = bcast_on(w, rd, m, root), want = 2 * lg * alpha + body;
        cr_expect(close_to(t, want), "rd P=%d m=%ld root=%d: %.9g us, want %.9g", P, m, root,
                  t / US, want / US);
      }
    }
    tutti_world_destroy(w);
  }
}

/* Past 10000 ranks the cost function bounds the ring instead of
 * replaying its P^2 steps (auto weighs it at 262144 ranks): exact, by the
 * closed form, when P divides m; an upper bound no less than the closed
 * form with the longest block otherwise, and quick either way. */
Test(scatter_allgather, cost_past_10000_ranks, .timeout = 30) {
  const tutti_hockney_t h = {1 * US, 1e-9, 0};
  const tutti_algo_t *ring = pick(TUTTI_COLL_BCAST, "scatter-allgather", NULL);
  const int Ps[] = {10007, 262144};
  for (size_t i = 0; i < 2; i++) {
    int P = Ps[i], lg = 0, bound = -1;
    while ((1 << lg) < P) lg++;
    long m = (long)P * 3;
    double t = tutti_algo_cost(ring, P, 0, (size_t)m, &h, &bound);
    double want = (lg + P - 1) * h.alpha + 2.0 * (P - 1) / P * h.beta * (double)m;
    cr_expect(close_to(t, want) && bound == 0, "P=%d m=%ld: %.9g us, want %.9g (bound %d)", P, m,
              t / US, want / US, bound);
    m += 5;
    t = tutti_algo_cost(ring, P, 0, (size_t)m, &h, &bound);
    cr_expect(t >= want && bound == 1, "P=%d m=%ld: %.9g us, at least %.9g (bound %d)", P, m,
              t / US, want / US, bound);
  }
}

/* ------------------------------------------------------ window= */

/* window=W changes nothing under fifo sharing (a port serves one message
 * at a time, so the recurrence holds whatever W), nor window=1 under fair
 * (a rank's one send and its receive use different ports); window=0
 * posts every segment at once, and under fair sharing they share each
 * hop and arrive together: P - 1 hops of the whole message, no pipeline,
 * as SMPI's NTSL runs. alpha = 0.1 us, beta = 1 ns/B, m = 10000 B, S = 10:
 * the pipeline (S + P - 2) 1.1 us, window=0 under fair (P - 1) 10.1 us. */
Test(chain, window_pipelines_unless_segments_share, .timeout = 60) {
  tutti_model_t h = hockney(0.1 * US, 1e-9), hf = h;
  hf.sharing = TUTTI_SHARING_FAIR;
  const char *ws[] = {"segments=10,window=0", "segments=10,window=1", "segments=10,window=2",
                      "segments=10,window=5", "segments=10,window=64"};
  const int Ps[] = {2, 3, 4, 7};
  for (size_t pi = 0; pi < sizeof Ps / sizeof *Ps; pi++) {
    int P = Ps[pi];
    double pipe = chain_dp(P, 10000, 10, 0.1 * US, 1e-9), whole = (P - 1) * 10.1 * US;
    for (size_t wi = 0; wi < sizeof ws / sizeof *ws; wi++) {
      const tutti_algo_t *a = chain(ws[wi]);
      for (int root = 0; root < P; root += P - 1 ? P - 1 : 1) {
        double t = timed(P, &h, TUTTI_COLL_BCAST, a, 10000, TUTTI_BYTE, root);
        cr_expect(close_to(t, pipe), "fifo P=%d %s root %d: %.9g us, want %.9g", P, ws[wi], root,
                  t / US, pipe / US);
      }
      double f = timed(P, &hf, TUTTI_COLL_BCAST, a, 10000, TUTTI_BYTE, 0);
      double want = wi == 0 ? whole : wi == 1 ? pipe : -1;
      if (want >= 0)
        cr_expect(le(dbl, fabs(f - want), 1e-12 * P), "fair P=%d %s: %.9g us, want %.9g", P, ws[wi],
                  f / US, want / US);
      else /* W in between: between the two */
        cr_expect(f >= fmin(pipe, whole) - 1e-12 && f <= fmax(pipe, whole) + 1e-12,
                  "fair P=%d %s: %.9g us", P, ws[wi], f / US);
    }
  }
}

/* ----------------------------------------------------- segments=auto */

/* segments=auto is within 1% of the best S of a sweep, under three
 * profiles (alpha 1 us to 50 us, 35 MB/s to 1 GB/s, gige's eager limit).
 * The sweep runs every S from 1 to 3 S* + 2, which is exhaustive: beyond
 * it T(S) >= (S + P - 2) alpha + beta m > (2 S* + P - 2) alpha + beta m,
 * about T(S*). Under the sanitizers only gige, whose S* are the smallest
 * (a sweep costs about (P - 1) (3 S*)^2 / 2 messages): a fifth of the
 * teaching profile's messages; the plain build sweeps every profile. */
Test(chain, auto_within_one_percent_of_the_sweep, .timeout = 300) {
  const char *profiles[] = {"gige", "teaching-hockney", "sp2-hps"};
  const size_t nprof = SANITIZED ? 1 : 3;
  const struct {
    int P;
    long m;
  } cases[] = {{8, 256 << 10}, {16, 64 << 10}, {5, 1 << 20}};
  const tutti_algo_t *au = chain("segments=auto");
  for (size_t fi = 0; fi < nprof; fi++) {
    tutti_profile_t prof;
    char err[256];
    cr_assert(eq(int, tutti_profile_load(profiles[fi], &prof, err, sizeof err), 0), "%s", err);
    const tutti_model_t *mod = &prof.model;
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
      int P = cases[ci].P;
      long m = cases[ci].m;
      /* timing only: modeled times are those of a data run (runtime/MODEL.md) */
      tutti_config_t cfg = tutti_config_default(P);
      cfg.model = mod;
      cfg.flags = TUTTI_NO_DATA;
      tutti_world_t *w;
      cr_assert(eq(int, tutti_world_create(&w, &cfg), 0));
      double alpha = mod->latency.a, beta = mod->latency.b;
      double sstar = sqrt((P - 2) * beta * (double)m / alpha);
      double t_auto = bcast_on(w, au, m, 0), best = INFINITY;
      long best_S = 0;
      for (long S = 1; S <= (long)(3 * sstar) + 2 && S <= m; S++) {
        char p[32];
        snprintf(p, sizeof p, "segments=%ld", S);
        const tutti_algo_t *a = chain(p);
        double t = bcast_on(w, a, m, 0);
        if (t < best) best = t, best_S = S;
      }
      cr_expect(le(dbl, t_auto, best * 1.01), "%s P=%d m=%ld: auto %.9g us, best S=%ld %.9g us",
                profiles[fi], P, m, t_auto / US, best_S, best / US);
      tutti_world_destroy(w);
    }
  }
}

/* ------------------------------------------------------- contention */

static tutti_topo_t *two_switches(double beta) {
  tutti_topo_t *t = NULL;
  char err[512] = "";
  cr_assert(eq(int, tutti_topo_open("tree:2x4", NULL, &t, err, sizeof err), 0), "%s", err);
  cr_assert(eq(int, tutti_topo_default_links(t, 0, beta), 0));
  cr_assert(eq(int, tutti_topo_bind_text(t, 8, "roundrobin", 0, err, sizeof err), 0), "%s", err);
  return t;
}

static uint64_t link_messages(tutti_world_t *w, const char *name) {
  tutti_link_load_t l[64];
  int n = 0;
  cr_assert(eq(int, tutti_world_links(w, 64, l, &n), 0));
  for (int i = 0; i < n; i++)
    if (!strcmp(l[i].name, name)) return l[i].messages;
  return 0;
}

/* REFERENCE.md: tree:2x4 with roundrobin puts 0 2 4 6 under s0 and
 * 1 3 5 7 under s1. At 1 MiB in 64 segments the rank-order chain crosses
 * s0 -> root and root -> s1 four times (4 flows, 256 messages) and is at
 * least 2.5 times as slow as the DFS chain 0 2 4 6 1 3 5 7, which crosses
 * them once (64 messages) and takes the time it takes with no topology;
 * the same list given explicitly takes the same time. */
Test(contention, dfs_chain_on_two_switches, .timeout = 60) {
  const double beta = 1e-9;
  tutti_model_t base = hockney(1 * US, beta), m = base;
  tutti_topo_t *t = two_switches(beta);
  m.topo = t;
  const long M = 1 << 20;
  tutti_world_t *w = mkworld(8, &m);
  const tutti_algo_t *rank = chain("segments=64,order=rank"), *dfs = chain("segments=64,order=dfs");
  const tutti_algo_t *list = chain("segments=64,order=list:0,2,4,6,1,3,5,7");
  double t_rank = bcast_on(w, rank, M, 0);
  cr_expect(eq(u64, link_messages(w, "s0 -> root"), 4 * 64));
  cr_expect(eq(u64, link_messages(w, "root -> s1"), 4 * 64));
  double t_dfs = bcast_on(w, dfs, M, 0);
  cr_expect(eq(u64, link_messages(w, "s0 -> root"), 64));
  cr_expect(eq(u64, link_messages(w, "root -> s1"), 64));
  cr_expect(eq(u64, link_messages(w, "s1 -> root"), 0));
  double t_list = bcast_on(w, list, M, 0);
  cr_expect(ge(dbl, t_rank, 2.5 * t_dfs), "rank order %.9g us, dfs %.9g us", t_rank / US,
            t_dfs / US);
  cr_expect(eq(dbl, t_list, t_dfs));
  cr_expect(close_to(t_dfs, chain_dp(8, M, 64, 1 * US, beta)), "dfs %.9g us", t_dfs / US);
  /* from root 3 (under s1) the chain starts at s1: 3 1 5 7, then s0 */
  double t_dfs3 = bcast_on(w, dfs, M, 3);
  cr_expect(eq(u64, link_messages(w, "s1 -> root"), 64));
  cr_expect(eq(u64, link_messages(w, "s0 -> root"), 0));
  cr_expect(eq(dbl, t_dfs3, t_dfs));
  tutti_world_destroy(w);
  /* without a topology order=dfs is rank order */
  w = mkworld(8, &base);
  cr_expect(eq(dbl, bcast_on(w, dfs, M, 5), bcast_on(w, rank, M, 5)));
  tutti_world_destroy(w);
  tutti_topo_free(t);
}

/* The contract function itself: without a topology, rank order from the
 * root; with one, the DFS chain, every rank's neighbours consistent. */
static int chain_of(tutti_rank_t *r, void *arg) {
  int *nb = arg, me = tutti_rank(r), prev, next;
  int rc = tutti_rank_chain(r, 3, &prev, &next);
  nb[2 * me] = prev, nb[2 * me + 1] = next;
  if (tutti_rank_chain(r, 8, &prev, &next) != TUTTI_EINVAL) return TUTTI_EVERIFY;
  return rc;
}

Test(contention, rank_chain_contract, .timeout = 30) {
  tutti_model_t base = hockney(1 * US, 1e-9), m = base;
  tutti_topo_t *t = two_switches(1e-9);
  m.topo = t;
  int nb[16];
  tutti_world_t *w = mkworld(8, &m);
  cr_assert(eq(int, tutti_world_run(w, chain_of, nb), 0), "%s", tutti_world_error(w));
  const int order[8] = {3, 1, 5, 7, 0, 2, 4, 6}; /* s1: the root, then leaf order; then s0 */
  for (int i = 0; i < 8; i++) {
    cr_expect(eq(int, nb[2 * order[i]], i ? order[i - 1] : -1), "prev of %d", order[i]);
    cr_expect(eq(int, nb[2 * order[i] + 1], i < 7 ? order[i + 1] : -1), "next of %d", order[i]);
  }
  tutti_world_destroy(w);
  w = mkworld(8, &base);
  cr_assert(eq(int, tutti_world_run(w, chain_of, nb), 0), "%s", tutti_world_error(w));
  for (int v = 0; v < 8; v++) {
    int rk = (3 + v) % 8;
    cr_expect(eq(int, nb[2 * rk], v ? (rk + 7) % 8 : -1));
    cr_expect(eq(int, nb[2 * rk + 1], v < 7 ? (rk + 1) % 8 : -1));
  }
  tutti_world_destroy(w);
  tutti_topo_free(t);
}

/* -------------------------------------------------------- bad input */

/* What the registry refuses for one call (tutti_algo_check_call) and what
 * every rank's call then returns, before any message moves. */
static int bad_bcasts(tutti_rank_t *r, void *arg) {
  int *rc = arg, n = 0, me = tutti_rank(r);
  char buf[16] = {0};
  const tutti_algo_t *nine = chain("segments=9"), *two = chain("segments=2");
  const tutti_algo_t *from1 = chain("order=list:1,0,2,3"), *dup = chain("order=list:0,1,1,3");
  int got[6];
  got[n++] = tutti_bcast(r, buf, 8, TUTTI_BYTE, 0, nine);  /* 9 segments of 8 bytes */
  got[n++] = tutti_bcast(r, buf, 2, TUTTI_INT32, 0, nine); /* 9 of 8 bytes again */
  got[n++] = tutti_bcast(r, buf, 0, TUTTI_BYTE, 0, two);   /* empty: one empty message */
  got[n++] = tutti_bcast(r, buf, 4, TUTTI_BYTE, 0, from1); /* starts at 1, root 0 */
  got[n++] = tutti_bcast(r, buf, 4, TUTTI_BYTE, 1, from1); /* fine from root 1 */
  got[n++] = tutti_bcast(r, buf, 4, TUTTI_BYTE, 0, dup);   /* not a permutation */
  if (me == 2) memcpy(rc, got, sizeof got);
  return 0;
}

Test(errors, refused_before_any_message, .timeout = 30) {
  int rc[6];
  tutti_world_t *w = mkworld(4, NULL);
  cr_assert(eq(int, tutti_world_run(w, bad_bcasts, rc), 0), "%s", tutti_world_error(w));
  const int want[6] = {TUTTI_EINVAL, TUTTI_EINVAL, 0, TUTTI_EINVAL, 0, TUTTI_EINVAL};
  for (int i = 0; i < 6; i++) cr_expect(eq(int, rc[i], want[i]), "call %d", i);
  tutti_world_destroy(w);
}

static int has(const char *s, const char *sub) {
  return strstr(s, sub) != NULL;
}

/* The sentences: what was wrong and what is accepted. */
Test(errors, messages, .timeout = 10) {
  char err[512];
  const tutti_algo_t *a;
  struct {
    const char *params;
    int nranks, root;
    size_t bytes;
    const char *say;
  } bad[] = {{"segments=9", 4, 0, 8, "accepted: 1..8"},
             {"segments=4,segment=1KiB", 4, 0, 100, "both segments=4 and segment=1024 given"},
             {"order=list:0,1,2", 4, 0, 8, "3 ranks for a world of 4"},
             {"order=list:0,1,1,3", 4, 0, 8, "rank 1 appears twice"},
             {"order=list:0,1,2,9", 4, 0, 8, "9 is not a rank of 0..3"},
             {"order=list:2,1,0,3", 4, 0, 8, "starts at rank 2, not at the root 0"},
             {"order=list:0-3", 5, 0, 8, "permutation of the ranks 0..4"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    a = chain(bad[i].params);
    cr_expect(eq(int,
                 tutti_algo_check_call(a, bad[i].nranks, bad[i].root, bad[i].bytes, NULL, err,
                                       sizeof err),
                 TUTTI_EINVAL),
              "%s", bad[i].params);
    cr_expect(has(err, bad[i].say), "%s: '%s' lacks '%s'", bad[i].params, err, bad[i].say);
  }
  /* refused at selection: syntax, zero segments, an unknown word */
  const char *sel[][2] = {{"segments=0", "in [1, "},
                          {"order=list:0,x", "list:R,R,"},
                          {"order=tree", "one of rank, dfs, list:"}};
  for (size_t i = 0; i < 3; i++) {
    cr_expect(eq(
        int, tutti_algo_select(TUTTI_COLL_BCAST, "pipelined-chain", sel[i][0], &a, err, sizeof err),
        TUTTI_EINVAL));
    cr_expect(has(err, sel[i][1]), "'%s' lacks '%s'", err, sel[i][1]);
  }
  cr_expect(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "scatter-allgather", "allgather=tree", &a, err,
                                 sizeof err),
               TUTTI_EINVAL));
  cr_expect(has(err, "one of ring, recursive-doubling"), "%s", err);
  /* a fallback is a note, not an error */
  a = pick(TUTTI_COLL_BCAST, "scatter-allgather", "allgather=recursive-doubling");
  cr_expect(eq(int, tutti_algo_check_call(a, 6, 0, 100, NULL, err, sizeof err), 0));
  cr_expect(has(err, "6 ranks run the ring"), "%s", err);
  cr_expect(eq(int, tutti_algo_check_call(a, 8, 0, 100, NULL, err, sizeof err), 0));
  cr_expect(eq(str, err, ""));
  /* the list round-trips through the canonical spelling, ranges kept */
  a = chain("order=list: 0, 3-1 ,4,segments=2");
  char s[256];
  cr_assert(eq(int, tutti_algo_format(a, s, sizeof s), 0));
  cr_expect(eq(str, s, "pipelined-chain:segments=2,segment=0,order=list:0,3-1,4,window=1"));
  const tutti_algo_t *b = pick(TUTTI_COLL_BCAST, s, NULL);
  cr_expect(eq(ptr, (void *)a, (void *)b)); /* the same values: the same handle */
  cr_expect(eq(str, (char *)tutti_param_list(b, "order"), "0,3-1,4"));
  cr_expect(eq(int, tutti_algo_check_call(b, 5, 0, 100, NULL, err, sizeof err), 0), "%s", err);
}

/* The command: bad segment counts and chains exit 2 with one line naming
 * what is wrong and what is accepted; a fallback is a note. */
Test(errors, cli_exit_2, .timeout = 60) {
  const char *base[] = {"run", "bcast", "pipelined-chain", "-n", "4", "-m", "8", "--param"};
  struct {
    const char *param, *say;
  } bad[] = {{"segments=0", "accepted: an integer in [1, "},
             {"segments=9", "9 segments of a 8-byte message; accepted: 1..8"},
             {"order=list:0,1,2", "3 ranks for a world of 4"},
             {"order=list:1,0,2,3", "starts at rank 1, not at the root 0"},
             {"order=list:0,1,1,3", "rank 1 appears twice"},
             {"order=zigzag", "accepted: one of rank, dfs, list:"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    fails_with(
        CLI(base[0], base[1], base[2], base[3], base[4], base[5], base[6], base[7], bad[i].param),
        2, bad[i].say);
  fails_with(CLI("run", "bcast", "scatter-allgather", "--param", "allgather=tree"), 2,
             "accepted: one of ring, recursive-doubling");
  struct cli c = CLI("run", "bcast", "scatter-allgather", "-n", "6", "-m", "100", "--param",
                     "allgather=recursive-doubling", "--json");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "\"verified\":true");
  HAS(c.out, "6 ranks run the ring allgather instead");
  cli_free(&c);
  c = CLI("run", "bcast", "pipelined-chain:order=list:2,1,0,3", "-n", "4", "-m", "1KiB", "--root",
          "2", "--json");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "\"order\":\"list:2,1,0,3\"");
  HAS(c.out, "\"note\":null");
  cli_free(&c);
}

/* The lecture on a small grid: every algorithm's line, the crossovers,
 * the mapping with its ratio, and a CSV with one row per point. */
Test(lecture, small_grid, .timeout = 120) {
  char csv[] = "/tmp/tutti-lecture-XXXXXX";
  int fd = mkstemp(csv);
  cr_assert(ge(int, fd, 0));
  close(fd);
  struct cli c = CLI("bench", "lecture", "--ranks", "8", "--sizes", "1KiB..256KiB", "--csv", csv);
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "fastest at P = 8: binomial from 1 KiB");
  HAS(c.out, "pipelined-chain from 256 KiB");
  HAS(c.out, "rank order / DFS order:");
  double ratio = atof(strstr(c.out, "rank order / DFS order:") + 24);
  cr_expect(ge(dbl, ratio, 2.5), "ratio %g", ratio);
  cli_free(&c);
  FILE *f = fopen(csv, "r");
  cr_assert(ne(ptr, f, NULL));
  char line[256];
  int rows = 0;
  while (fgets(line, sizeof line, f)) rows++;
  fclose(f);
  unlink(csv);
  cr_expect(eq(int, rows, 1 + 9 * 5)); /* header, 9 sizes x 5 algorithms */
  fails_with(CLI("bench", "lecture", "--plot", "x.pdf"), 2, "--plot");
  fails_with(CLI("bench", "lecture", "--sizes", "64..8"), 2, "--sizes");
}

/* tutti sweep --algos: a rank list's commas stay inside its value. */
Test(errors, sweep_algos_with_a_rank_list, .timeout = 60) {
  struct cli c =
      CLI("sweep", "bcast", "--algos", "pipelined-chain:segments=2,order=list:0,3-1,binomial",
          "--ranks", "4", "--sizes", "8");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "pipelined-chain:segments=2,segment=0,order=list:0,3-1");
  HAS(c.out, "\nbcast,binomial,");
  cli_free(&c);
}

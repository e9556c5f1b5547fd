/*
 * test_e2e_fair.c -- sharing = fair (runtime/MODEL.md "Sharing") on whole
 * runs: the section's worked examples (flat gather, flat and binomial
 * broadcast, two isends sharing a send port), bit-identical repeats under
 * both sharings and under perturbed scheduling (with and without a
 * topology), every registered algorithm verified under fair sharing
 * through `tutti sweep`, the model field through --model and
 * profiles, with its errors, and the run table's links (flows shared).
 * The rules on hand-built logs: test_unit_fair.c.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"
#include "coll_helpers.h"
#include "topo_helpers.h"

#define US 1e-6

static tutti_model_t fair(tutti_model_t m) {
  m.sharing = TUTTI_SHARING_FAIR;
  return m;
}

/* Equal to about a picosecond: the times are whole picoseconds. */
static void near_us(double got, double want_us, const char *what) {
  cr_assert(epsilon_eq(dbl, got, want_us * US, 1e-15), "%s: %.17g s, want %g us", what, got,
            want_us);
}

/* ------------------------------------------------------ worked examples */

/* Rank 0 isends 1000 B to ranks 1 and 2 at once; they receive. */
static int two_isends(tutti_rank_t *r, void *arg) {
  (void)arg;
  char buf[2][1000] = {{0}};
  if (tutti_rank(r) != 0) return tutti_recv(r, buf[0], 1000, TUTTI_BYTE, 0, 0, NULL);
  tutti_request_t q[2];
  int rc = tutti_isend(r, buf[0], 1000, TUTTI_BYTE, 1, 0, &q[0]);
  if (!rc) rc = tutti_isend(r, buf[1], 1000, TUTTI_BYTE, 2, 0, &q[1]);
  return rc ? rc : tutti_waitall(r, 2, q, NULL);
}

static double run_time(const tutti_model_t *m, int n, tutti_rank_fn *fn, void *arg, unsigned flags,
                       unsigned seed, double *ends) {
  tutti_config_t c = tutti_config_default(n);
  c.model = m;
  c.flags = flags;
  c.seed = seed;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_assert(eq(int, tutti_world_run(w, fn, arg), 0), "%s", tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  if (ends) memcpy(ends, rep.rank_end, sizeof *ends * (size_t)n);
  double t = rep.modeled_time;
  tutti_world_destroy(w);
  return t;
}

Test(worked_examples, hockney_1us_1ns_1000B, .timeout = 60) {
  tutti_model_t h = hockney(1 * US, 1e-9), hf = fair(h);
  const tutti_algo_t *gflat = pick(TUTTI_COLL_GATHER, "flat", NULL);
  const tutti_algo_t *bflat = pick(TUTTI_COLL_BCAST, "flat", NULL);
  const tutti_algo_t *bbin = pick(TUTTI_COLL_BCAST, "binomial", NULL);
  near_us(timed(8, &h, TUTTI_COLL_GATHER, gflat, 1000, TUTTI_BYTE, 0), 14, "gather flat fifo");
  near_us(timed(8, &hf, TUTTI_COLL_GATHER, gflat, 1000, TUTTI_BYTE, 0), 8, "gather flat fair");
  near_us(timed(8, &h, TUTTI_COLL_BCAST, bflat, 1000, TUTTI_BYTE, 0), 14, "bcast flat fifo");
  near_us(timed(8, &hf, TUTTI_COLL_BCAST, bflat, 1000, TUTTI_BYTE, 0), 8, "bcast flat fair");
  near_us(timed(8, &h, TUTTI_COLL_BCAST, bbin, 1000, TUTTI_BYTE, 0), 6, "bcast binomial fifo");
  near_us(timed(8, &hf, TUTTI_COLL_BCAST, bbin, 1000, TUTTI_BYTE, 0), 6, "bcast binomial fair");
  h.eager_limit = hf.eager_limit = TUTTI_EAGER_ALL;
  double e[3];
  run_time(&h, 3, two_isends, NULL, 0, 0, e);
  near_us(e[1], 2, "rank 1, fifo");
  near_us(e[2], 4, "rank 2, fifo");
  run_time(&hf, 3, two_isends, NULL, 0, 0, e);
  near_us(e[1], 3, "rank 1, fair");
  near_us(e[2], 3, "rank 2, fair");
}

/* ---------------------------------------------------------- determinism */

#include "mixed_prog.h" /* mixed: many flows share ports and links */

/* Repeats and perturbed runs give every rank's end to the bit. */
static void same_bits(const tutti_model_t *m, int n, int runs, const char *what) {
  double *ref = calloc((size_t)n, sizeof *ref), *got = calloc((size_t)n, sizeof *got);
  run_time(m, n, mixed, NULL, 0, 0, ref);
  for (int k = 0; k < runs; k++) {
    run_time(m, n, mixed, NULL, k % 2 ? TUTTI_PERTURB : 0, 1000 + (unsigned)k, got);
    cr_assert(eq(int, memcmp(ref, got, sizeof *ref * (size_t)n), 0),
              "%s: run %d differs (rank 0: %.17g vs %.17g)", what, k, got[0], ref[0]);
  }
  free(ref);
  free(got);
}

Test(determinism, both_sharings_repeat_to_the_bit, .timeout = 300) {
  tutti_model_t h = hockney(1 * US, 1e-9);
  h.eager_limit = 1024; /* both protocols */
  tutti_model_t lg;
  cr_assert(eq(int, tutti_model_loggp(&lg, 5 * US, 1 * US, 2 * US, 1e-9), 0));
  tutti_topo_t *t16 = mktopo("tree:4x4", "100ns/2GB/s, 1us/4GB/s", 16, "random:7", 0);
  for (int share = 0; share < 2; share++) {
    h.sharing = lg.sharing = share ? TUTTI_SHARING_FAIR : TUTTI_SHARING_FIFO;
    h.topo = lg.topo = NULL;
    same_bits(&h, 16, 12, share ? "fair/hockney" : "fifo/hockney");
    same_bits(&lg, 13, 12, share ? "fair/loggp" : "fifo/loggp");
    h.topo = t16;
    same_bits(&h, 16, 12, share ? "fair/hockney/tree:4x4" : "fifo/hockney/tree:4x4");
  }
  /* and fair is not fifo here: the flows did share */
  h.topo = NULL;
  h.sharing = TUTTI_SHARING_FIFO;
  double a = run_time(&h, 16, mixed, NULL, 0, 0, NULL);
  h.sharing = TUTTI_SHARING_FAIR;
  double b = run_time(&h, 16, mixed, NULL, 0, 0, NULL);
  cr_assert(ne(dbl, a, b));
  tutti_topo_free(t16);
}

/* ------------------------------------------------- the whole registry */

/* Every registered algorithm of every collective runs and verifies under
 * fair sharing, without and with a topology (tutti sweep exits 0 only
 * when every point verified). */
Test(registry, every_algorithm_verifies_under_fair, .timeout = 600) {
  for (int c = 0; c < TUTTI_COLL_N; c++) {
    int data = (tutti_coll_traits(c) & TUTTI_COLL_DATA) != 0;
    for (int topo = 0; topo < 2; topo++) {
      struct cli r =
          CLI("sweep", tutti_coll_name(c), "--ranks", "2,3,8,17", "--model",
              "hockney:alpha=1us,beta=1ns,eager_limit=1KiB,sharing=fair", "--topology",
              topo ? "tree:4x8" : "tree:32", "--csv", "-", data ? "--sizes" : NULL, "8,1000,65536");
      cr_assert(eq(int, r.status, 0), "sweep %s under fair: %s", tutti_coll_name(c), r.err);
      cr_assert(ne(ptr, strstr(r.out, ","), NULL));
      cli_free(&r);
    }
  }
}

/* ----------------------------------------------- the field, and errors */

Test(field, spec_profile_describe_and_errors, .timeout = 60) {
  tutti_model_t m;
  char err[512] = "", d[512];
  cr_assert(
      eq(int, tutti_model_parse("hockney:alpha=1us,beta=1ns,sharing=fair", &m, err, sizeof err), 0),
      "%s", err);
  cr_assert(eq(int, m.sharing, TUTTI_SHARING_FAIR));
  cr_assert(eq(int, tutti_model_describe(&m, d, sizeof d), 0));
  cr_assert(ne(ptr, strstr(d, "sharing fair"), NULL), "%s", d);
  cr_assert(eq(int, tutti_model_parse("hockney:alpha=1us,beta=1ns", &m, err, sizeof err), 0));
  cr_assert(eq(int, m.sharing, TUTTI_SHARING_FIFO));
  cr_assert(eq(int, tutti_model_describe(&m, d, sizeof d), 0));
  cr_assert(eq(ptr, strstr(d, "sharing"), NULL), "%s", d); /* fifo, the default: as before */
  cr_assert(eq(int,
               tutti_model_parse("loggp:L=1us,o=1us,g=1us,G=1ns,sharing=fifo", &m, err, sizeof err),
               0));
  cr_assert(eq(int, m.sharing, TUTTI_SHARING_FIFO));
  cr_assert(eq(int,
               tutti_model_parse("hockney:alpha=1us,beta=1ns,sharing=fast", &m, err, sizeof err),
               TUTTI_EPARSE));
  cr_assert(ne(ptr, strstr(err, "key 'sharing': 'fast' is not a sharing; accepted: fifo"), NULL),
            "%s", err);
  cr_assert(ne(ptr, strstr(err, "or fair"), NULL), "%s", err);

  tutti_profile_t p;
  cr_assert(eq(int,
               tutti_profile_parse_string("[model]\npreset = hockney\nalpha = 1us\nbeta = 1ns\n"
                                          "sharing = fair\n",
                                          "f.ini", &p, err, sizeof err),
               0),
            "%s", err);
  cr_assert(eq(int, p.model.sharing, TUTTI_SHARING_FAIR));
  cr_assert(eq(int,
               tutti_profile_parse_string("[model]\npreset = hockney\nalpha = 1us\nbeta = 1ns\n"
                                          "sharing = maxmin\n",
                                          "f.ini", &p, err, sizeof err),
               TUTTI_EPARSE));
  cr_assert(ne(ptr, strstr(err, "f.ini:5: key 'sharing'"), NULL), "%s", err);

  /* C API: a value that is neither is refused when the world is made */
  tutti_model_t h = hockney(1 * US, 1e-9);
  h.sharing = 2;
  tutti_config_t c = tutti_config_default(2);
  c.model = &h;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_EINVAL));

  /* the CLI: exit 2, one line naming both words */
  struct cli r = CLI("run", "bcast", "binomial", "--model", "hockney:alpha=1us,beta=1ns,sharing=x");
  cr_assert(eq(int, r.status, 2));
  cr_assert(ne(ptr, strstr(r.err, "fifo"), NULL), "%s", r.err);
  cr_assert(ne(ptr, strstr(r.err, "fair"), NULL), "%s", r.err);
  cr_assert(eq(ptr, strchr(r.err, '\n'), r.err + strlen(r.err) - 1), "one line: %s", r.err);
  cli_free(&r);
  /* and a run under it says so */
  r = CLI("run", "gather", "flat", "-n", "8", "-m", "1000", "--model",
          "hockney:alpha=1us,beta=1ns,sharing=fair");
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  cr_assert(ne(ptr, strstr(r.out, "sharing fair"), NULL), "%s", r.out);
  cli_free(&r);
}

/* The run table's links under fair: flat gather on tree:4 (links at the
 * model's 1 ns/B), the three 1000 B flows share the root's link down from
 * 0 to 3 us, each sender's own link alone. */
Test(links, the_table_counts_flows, .timeout = 60) {
  struct cli r = CLI("run", "gather", "flat", "-n", "4", "-m", "1000", "--model",
                     "hockney:alpha=1us,beta=1ns,sharing=fair", "--topology", "tree:4");
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  cr_assert(ne(ptr, strstr(r.out, "flows: the most at once"), NULL), "%s", r.out);
  char *root = strstr(r.out, "  s0 -> leaf 0 (rank 0) ");
  cr_assert(ne(ptr, root, NULL), "%s", r.out);
  char line[160];
  snprintf(line, sizeof line, "%.*s", (int)strcspn(root, "\n"), root);
  unsigned long msgs;
  char bytes[16], busy[16], shared[16], bu[8], su[8];
  int flows;
  cr_assert(eq(int,
               sscanf(line, " s0 -> leaf 0 (rank 0) %lu %15s B %15s %7s %15s %7s %d", &msgs, bytes,
                      busy, bu, shared, su, &flows),
               7),
            "%s", line);
  cr_assert(eq(u64, msgs, 3), "%s", line);
  cr_assert(eq(str, busy, "3"), "%s", line);
  cr_assert(eq(str, shared, "3"), "%s", line);
  cr_assert(eq(int, flows, 3), "%s", line);
  char *own = strstr(r.out, "  leaf 1 (rank 1) -> s0 ");
  cr_assert(ne(ptr, own, NULL), "%s", r.out);
  cr_assert(ne(ptr, strstr(own, " 0 s      1\n"), NULL), "%s", own);
  cli_free(&r);
}

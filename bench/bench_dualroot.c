/*
 * bench_dualroot.c -- `tutti bench dualroot`: Traff's comparison of the
 * doubly-pipelined dual-root allreduce with the algorithms it is measured
 * against, in modeled time: dual-root (blocks=auto), single-tree
 * (blocks=auto), binary-reduce-bcast (pipelined reduce then bcast on a
 * binary tree, blocks=auto), reduce-bcast (binomial, unpipelined), ring
 * and two-tree (Sanders, Speck & Traff's two trees, blocks=auto),
 * for m = 1 KiB .. 64 MiB per rank at P = 14, 62, 254 (p + 2 a power of
 * two, the paper's sizes) and 100, on an InfiniBand-like and a gigabit-
 * Ethernet-like profile.
 *
 * Times are the registered Hockney costs (tutti_algo_cost) with the
 * profile's alpha and beta and gamma = 0, the paper's communication-only
 * analysis. Each cost function is checked against the engine's modeled
 * time of the same call by tests/test_e2e_cost.c (exact, or a bound within
 * 16 bytes a block for block sizes that do not divide m), so no world of
 * 254 ranks x 64 MiB has to be allocated. --check runs the engine too for
 * every point up to 64 KiB per rank (all rendezvous, as the cost assumes)
 * and prints the largest relative difference.
 *
 * Ratios: each algorithm's time over its bandwidth term -- 3 beta m for
 * the doubly-pipelined trees, 4 beta m for reduce then broadcast, 2 beta m
 * for ring and the best-known two-tree algorithm -- and dual-root's time
 * over each other's (below 1: dual-root wins).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "plot.h"
#include "tutti/tutti.h"

int tutti_bench_dualroot(int argc, char **argv);

#define NALG 6
static const char *const algos[NALG] = {"dual-root",    "single-tree", "binary-reduce-bcast",
                                        "reduce-bcast", "ring",        "two-tree"};
static const double bw_term[NALG] = {3, 3, 4, 4, 2, 2}; /* multiples of beta m */

static void usage(FILE *f) {
  fprintf(f, "usage: tutti bench dualroot [options]\n\n"
             "Traff's doubly-pipelined dual-root allreduce against single-tree, pipelined\n"
             "binary reduce+bcast, binomial reduce+bcast, ring and two-tree: modeled time (the\n"
             "registered Hockney costs, gamma = 0) for m = 1 KiB .. 64 MiB per rank.\n\n"
             "  --profiles A,B,..  Hockney profiles (default infiniband-hdr,gige)\n"
             "  --ranks P,Q,..     rank counts (default 14,62,254,100)\n"
             "  --csv FILE         also write every point as CSV ('-': stdout)\n"
             "  --plot FILE        draw time against size, .svg or .png (gnuplot)\n"
             "  --check            run the engine for every point up to 64 KiB per rank and\n"
             "                     report the largest difference from the cost\n");
}

struct crun {
  const tutti_algo_t *a;
  long count;
};

static int one_allreduce(tutti_rank_t *r, void *arg) {
  const struct crun *c = arg;
  double *x = calloc((size_t)c->count + 1, 8), *y = calloc((size_t)c->count + 1, 8);
  int rc =
      x && y ? tutti_allreduce(r, x, y, c->count, TUTTI_DOUBLE, TUTTI_SUM, c->a) : TUTTI_ENOMEM;
  free(x);
  free(y);
  return rc;
}

/* The engine's modeled time of one call, all rendezvous; negative error. */
static double engine_time(const tutti_model_t *pm, int P, const tutti_algo_t *a, size_t m) {
  tutti_model_t md = *pm;
  md.eager_limit = 0;
  md.gamma = 0;
  tutti_config_t cfg = tutti_config_default(P);
  cfg.model = &md;
  tutti_world_t *w;
  if (tutti_world_create(&w, &cfg)) return TUTTI_ENOMEM;
  struct crun c = {a, (long)(m / 8)};
  int rc = tutti_world_run(w, one_allreduce, &c);
  tutti_report_t rep;
  double t = rc ? rc : tutti_world_report(w, &rep) ? -1 : rep.calls[0].time;
  tutti_world_destroy(w);
  return t;
}

int tutti_bench_dualroot(int argc, char **argv) {
  const char *who = "tutti bench dualroot";
  char profiles[512] = "infiniband-hdr,gige", err[512];
  const char *csvpath = NULL, *plotpath = NULL;
  long ranks[32] = {14, 62, 254, 100};
  int nranks = 4, check = 0;
  unsigned seen = 0;
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(argv[i], "--check")) {
      if (bench_once(who, &seen, 1u << 4, "--check")) return 2;
      check = 1;
    } else if ((v = bench_opt(argc, argv, &i, "--profiles"))) {
      if (bench_once(who, &seen, 1u << 0, "--profiles")) return 2;
      snprintf(profiles, sizeof profiles, "%s", v);
    } else if ((v = bench_opt(argc, argv, &i, "--ranks"))) {
      if (bench_once(who, &seen, 1u << 1, "--ranks")) return 2;
      nranks = 0;
      for (char *end; *v && nranks < 32; v = *end ? end + 1 : end) {
        long p = strtol(v, &end, 10);
        if (end == v || (*end && *end != ',') || p < 1 || p > 4096) {
          fprintf(stderr, "%s: --ranks: bad list; accepted: rank counts 1..4096, e.g. 14,62\n",
                  who);
          return 2;
        }
        ranks[nranks++] = p;
      }
    } else if ((v = bench_opt(argc, argv, &i, "--csv"))) {
      if (bench_once(who, &seen, 1u << 2, "--csv")) return 2;
      csvpath = v;
    } else if ((v = bench_opt(argc, argv, &i, "--plot"))) {
      if (bench_once(who, &seen, 1u << 3, "--plot")) return 2;
      if (!plot_format(v)) {
        fprintf(stderr, "%s: --plot: '%s': accepted: a .svg or .png file\n", who, v);
        return 2;
      }
      plotpath = v;
    } else {
      fprintf(stderr, "%s: unknown option '%s' (see --help)\n", who, argv[i]);
      return 2;
    }
  }
  const tutti_algo_t *a[NALG];
  for (int k = 0; k < NALG; k++)
    if (tutti_algo_select(TUTTI_COLL_ALLREDUCE, algos[k], NULL, &a[k], err, sizeof err)) {
      fprintf(stderr, "%s: %s\n", who, err);
      return 2;
    }
  /* the outputs (cli_out.c): two to one file refused, both opened before anything runs */
  struct cli_out csv_out = {0}, plot_out = {0};
  int status = 0;
  if (cli_out_apart("bench dualroot", "--csv", csvpath, "--plot", plotpath, 0)) return 2;
  if ((csvpath &&
       (status = cli_out_open(&csv_out, "bench dualroot", "--csv", csvpath, CLI_OUT_DASH))) ||
      (plotpath && (status = cli_out_open(&plot_out, "bench dualroot", "--plot", plotpath, 0)))) {
    cli_out_discard(&csv_out);
    return status;
  }
  FILE *csv = csv_out.f;
  if (csv) {
    fprintf(csv, "profile,P,bytes,algorithm,time_s,bandwidth_term_s,ratio_to_term,ratio_dual\n");
  }
  plot_t *pl = plotpath ? plot_new("allreduce: doubly-pipelined dual-root and its rivals",
                                   "bytes per rank", "modeled time")
                        : NULL;
  if (plotpath && !pl) {
    cli_out_discard(&csv_out), cli_out_discard(&plot_out);
    fprintf(stderr, "%s: out of memory\n", who);
    return 3;
  }
  double worst_check = 0;
  printf("allreduce, modeled time from the registered Hockney costs (gamma = 0), blocks=auto;\n"
         "x/N: the time over N beta m (the bandwidth term); dual/X: dual-root's time over X's.\n");
  char *save = NULL;
  for (char *prof = strtok_r(profiles, ",", &save); prof && !status;
       prof = strtok_r(NULL, ",", &save)) {
    tutti_profile_t pr;
    if (tutti_profile_load(prof, &pr, err, sizeof err)) {
      fprintf(stderr, "%s: %s\n", who, err);
      status = 2;
      break;
    }
    if (pr.model.preset != TUTTI_MODEL_HOCKNEY) {
      fprintf(stderr, "%s: profile '%s' is not a Hockney model; accepted: hockney profiles\n", who,
              prof);
      status = 2;
      break;
    }
    /* the envelope in alpha: alpha + beta (m + header) (runtime/MODEL.md) */
    tutti_hockney_t h = {pr.model.params[0] + pr.model.params[1] * (double)pr.model.header,
                         pr.model.params[1], 0};
    char desc[256];
    tutti_model_describe(&pr.model, desc, sizeof desc);
    printf("\n%s: %s\n", pr.name, desc);
    printf("%5s %8s | %10s %10s %10s %10s %10s %10s | %6s %6s %6s %6s %6s | %6s %6s %6s %6s "
           "%6s\n",
           "P", "m", "dual-root", "single", "bin-rb", "binom-rb", "ring", "two-tree", "dual/3",
           "sing/3", "brb/4", "ring/2", "2tr/2", "d/sing", "d/brb", "d/bnrb", "d/ring", "d/2tr");
    for (int pi = 0; pi < nranks; pi++) {
      int P = (int)ranks[pi];
      for (size_t m = 1024; m <= (size_t)64 << 20; m *= 4) {
        double t[NALG];
        for (int k = 0; k < NALG; k++) {
          int bound;
          t[k] = tutti_algo_cost(a[k], P, 0, m, &h, &bound);
          if (check && m <= 65536) {
            double e = engine_time(&pr.model, P, a[k], m);
            if (e < 0) {
              fprintf(stderr, "%s: %s P=%d m=%zu: the run failed\n", who, algos[k], P, m);
              status = 3;
            } else if (t[k] > 0) {
              worst_check = fmax(worst_check, fabs(e - t[k]) / t[k]);
            }
          }
        }
        char ms[32], ts[NALG][32];
        tutti_format_bytes(m, ms, sizeof ms);
        for (int k = 0; k < NALG; k++) tutti_format_model_time(&pr.model, t[k], ts[k], 32);
        double bm = h.beta * (double)m;
        printf("%5d %8s | %10s %10s %10s %10s %10s %10s | %6.2f %6.2f %6.2f %6.2f %6.2f | %6.3f "
               "%6.3f %6.3f %6.3f %6.3f\n",
               P, ms, ts[0], ts[1], ts[2], ts[3], ts[4], ts[5], t[0] / (3 * bm), t[1] / (3 * bm),
               t[2] / (4 * bm), t[4] / (2 * bm), t[5] / (2 * bm), t[0] / t[1], t[0] / t[2],
               t[0] / t[3], t[0] / t[4], t[0] / t[5]);
        for (int k = 0; k < NALG; k++) {
          if (csv)
            fprintf(csv, "%s,%d,%zu,%s,%.9g,%.9g,%.6f,%.6f\n", pr.name, P, m, algos[k], t[k],
                    bw_term[k] * bm, t[k] / (bw_term[k] * bm), t[0] / t[k]);
          if (pl) {
            char panel[160];
            snprintf(panel, sizeof panel, "%s, P = %d", pr.name, P);
            plot_add(pl, panel, algos[k], (double)m, t[k]);
          }
        }
      }
    }
  }
  if (check && !status) printf("\n--check: largest |engine - cost| / cost: %.3g\n", worst_check);
  if (!status) status = cli_out_commit(&csv_out);
  if (pl && !status) {
    int prc = plot_write(pl, plotpath, plot_out.f, who);
    if (prc >= 2) status = prc;
    if (!prc) status = cli_out_commit(&plot_out);
  }
  cli_out_discard(&csv_out), cli_out_discard(&plot_out); /* not committed: no file */
  plot_free(pl);
  return status;
}

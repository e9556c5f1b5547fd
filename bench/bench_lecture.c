/*
 * bench_lecture.c -- `tutti bench lecture`: X. Yuan's lecture on
 * MPI_Bcast, reproduced in modeled time. Part 1 sets the lecture's five
 * broadcasts -- flat, binary and binomial trees, scatter-allgather and
 * the linear pipelined chain (segments=auto) -- against each other from
 * 8 B to 64 MiB at P = 8, 32 and 128 on a gigabit-Ethernet-like profile
 * (gige: 50 us, 112 MB/s), prints the fastest per size and the crossover
 * sizes, and writes the points as CSV and a gnuplot plot. Part 2 is the
 * lecture's slide on mapping: 32 machines under 4 switches numbered
 * round-robin in pairs (tree:4x8, roundrobin:2: switch 0 holds machines
 * 0 1 8 9 16 17 24 25), where the chain in rank order crosses the
 * switches at almost every hop and the DFS chain (Patarasuk, Faraj &
 * Yuan) crosses each directed link once; the link report shows it.
 *
 * Points are modeled runs on rank threads, each result verified, as long
 * as the ranks' buffers fit --max-memory (P x m bytes); beyond that (128
 * ranks of 64 MiB would need 8 GiB) a point is the algorithm's registered
 * Hockney cost under the profile's alpha and beta, marked "cost". Where
 * both exist the bench reports how far apart they are, which checks the
 * cost functions against the engine on the profile itself.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"
#include "plot.h"
#include "tutti/tutti.h"

int tutti_bench_lecture(int argc, char **argv);

static const char *const algos[] = {"flat", "binary", "binomial", "scatter-allgather",
                                    "pipelined-chain"};
#define NALG 5
#define WHO "tutti bench lecture"
#define CMD "bench lecture" /* cli_fail's name of the command */

static unsigned char pattern(long i) {
  return (unsigned char)(i * 131 + 7);
}

struct job {
  const tutti_algo_t *a;
  long m;
  int bad; /* ranks whose buffer differs, counted by the ranks */
};

static int lecture_rank(tutti_rank_t *r, void *arg) {
  struct job *j = arg;
  unsigned char *b = malloc((size_t)j->m + 1);
  if (!b) return TUTTI_ENOMEM;
  int me = tutti_rank(r);
  for (long i = 0; i < j->m; i++) b[i] = me == 0 ? pattern(i) : 0;
  int rc = tutti_bcast(r, b, j->m, TUTTI_BYTE, 0, j->a);
  for (long i = 0; !rc && i < j->m; i++)
    if (b[i] != pattern(i)) {
      __atomic_add_fetch(&j->bad, 1, __ATOMIC_RELAXED);
      break;
    }
  free(b);
  return rc;
}

/* One modeled run: its time, or a negative error (TUTTI_EVERIFY: wrong data). */
static double run_point(tutti_world_t *w, const tutti_algo_t *a, long m) {
  struct job j = {a, m, 0};
  int rc = tutti_world_run(w, lecture_rank, &j);
  if (rc) {
    fprintf(stderr, "%s: %s\n", WHO, tutti_world_error(w));
    return rc;
  }
  if (j.bad) return TUTTI_EVERIFY;
  tutti_report_t rep;
  if ((rc = tutti_world_report(w, &rep))) return rc;
  return rep.modeled_time;
}

static void usage(FILE *f) {
  fprintf(f, "usage: tutti bench lecture [options]\n\n"
             "X. Yuan's lecture on MPI_Bcast in modeled time: flat, binary, binomial,\n"
             "scatter-allgather and pipelined-chain (segments=auto) from 8 B to 64 MiB, the\n"
             "fastest per size and the crossovers; then 32 machines under 4 switches, the\n"
             "chain in rank order against the contention-free DFS chain, with the link report.\n\n"
             "  --profile NAME|FILE  latency profile (default gige)\n"
             "  --ranks P,Q,..       rank counts (default 8,32,128)\n"
             "  --sizes A..B         bytes per rank, doubling (default 8..64MiB)\n"
             "  --max-memory SIZE    run a point on rank threads when P x m fits (default\n"
             "                       256MiB); larger points take the registered Hockney cost\n"
             "  --csv FILE           write the points as CSV (ranks,bytes,algorithm,time,source)\n"
             "  --plot FILE          draw time against size with gnuplot into FILE.svg or .png\n");
}

/* Part 2: the lecture's slide. 0, or an exit status. */
static int mapping_part(const char *profile, double *ratio) {
  char err[512], s1[32], s2[32];
  tutti_machine_spec_t sp = tutti_machine_spec_default();
  sp.profile = profile, sp.topology = "tree:4x8", sp.mapping = "roundrobin:2", sp.nranks = 32;
  tutti_machine_t mach;
  if (tutti_machine_build(&sp, &mach, NULL, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", WHO, err);
    return 2;
  }
  int order[32];
  tutti_topo_chain_order(mach.topo, NULL, 32, 0, order);
  const long m = 4 << 20;
  printf("\nMapping (the lecture's slide): 32 machines on tree:4x8, numbered round-robin in\n"
         "pairs (switch 0 holds 0 1 8 9 16 17 24 25), pipelined-chain of %s from rank 0.\n"
         "contention-free chain:",
         tutti_format_bytes((size_t)m, s1, sizeof s1));
  for (int i = 0; i < 32; i++) printf(" %d", order[i]);
  printf("\n");
  tutti_config_t cfg = tutti_config_default(32);
  cfg.model = &mach.model;
  tutti_world_t *w;
  if (tutti_world_create(&w, &cfg)) {
    tutti_machine_free(&mach);
    return 3;
  }
  double t[2];
  const char *orders[2] = {"order=rank", "order=dfs"};
  int st = 0;
  for (int k = 0; k < 2 && !st; k++) {
    const tutti_algo_t *a;
    if (tutti_algo_select(TUTTI_COLL_BCAST, "pipelined-chain", orders[k], &a, err, sizeof err)) {
      fprintf(stderr, "%s: %s\n", WHO, err);
      st = 2;
      break;
    }
    t[k] = run_point(w, a, m);
    if (t[k] < 0) {
      st = t[k] == TUTTI_EVERIFY ? 1 : 3;
      break;
    }
    printf("\n%-11s %s, verified\n", orders[k], tutti_format_time(t[k], s1, sizeof s1));
    cli_print_links(stdout, w, &mach.model, 4);
  }
  if (!st) {
    *ratio = t[0] / t[1];
    printf("\nrank order / DFS order: %.2fx (%s against %s)\n", *ratio,
           tutti_format_time(t[0], s1, sizeof s1), tutti_format_time(t[1], s2, sizeof s2));
  }
  tutti_world_destroy(w);
  tutti_machine_free(&mach);
  return st;
}

int tutti_bench_lecture(int argc, char **argv) {
  const char *profile = "gige", *csv_path = NULL, *plot_path = NULL;
  long ranks[16] = {8, 32, 128};
  int nranks = 3;
  size_t lo = 8, hi = (size_t)64 << 20, maxmem = (size_t)256 << 20;
  unsigned seen = 0;
  char err[512];
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else if ((v = bench_opt(argc, argv, &i, "--profile"))) {
      if (bench_once(WHO, &seen, 1u << 0, "--profile")) return 2;
      profile = v;
    } else if ((v = bench_opt(argc, argv, &i, "--ranks"))) {
      if (bench_once(WHO, &seen, 1u << 1, "--ranks")) return 2;
      nranks = 0;
      for (char *end; *v && nranks < 16; v = *end ? end + 1 : end) {
        long P = strtol(v, &end, 10);
        if (end == v || (*end && *end != ',') || P < 1 || P > 4096) {
          fprintf(stderr, "%s: --ranks: '%s' is not a list of rank counts; accepted: 8,32,128\n",
                  WHO, v);
          return 2;
        }
        ranks[nranks++] = P;
      }
    } else if ((v = bench_opt(argc, argv, &i, "--sizes"))) {
      if (bench_once(WHO, &seen, 1u << 2, "--sizes")) return 2;
      const char *dots = strstr(v, "..");
      char a[64];
      snprintf(a, sizeof a, "%.*s", dots ? (int)(dots - v) : 0, v);
      if (!dots || tutti_parse_size(a, &lo, NULL, 0) || tutti_parse_size(dots + 2, &hi, NULL, 0) ||
          lo < 1 || hi < lo) {
        fprintf(stderr, "%s: --sizes: '%s' is not a range; accepted: A..B, e.g. 8..64MiB\n", WHO,
                v);
        return 2;
      }
    } else if ((v = bench_opt(argc, argv, &i, "--max-memory"))) {
      if (bench_once(WHO, &seen, 1u << 3, "--max-memory")) return 2;
      if (tutti_parse_size(v, &maxmem, err, sizeof err)) {
        fprintf(stderr, "%s: --max-memory: %s\n", WHO, err);
        return 2;
      }
    } else if ((v = bench_opt(argc, argv, &i, "--csv"))) {
      if (bench_once(WHO, &seen, 1u << 4, "--csv")) return 2;
      csv_path = v;
    } else if ((v = bench_opt(argc, argv, &i, "--plot"))) {
      if (bench_once(WHO, &seen, 1u << 5, "--plot")) return 2;
      if (!plot_format(v)) {
        fprintf(stderr, "%s: --plot: '%s' is not .svg or .png; accepted: FILE.svg, FILE.png\n", WHO,
                v);
        return 2;
      }
      plot_path = v;
    } else {
      fprintf(stderr, "%s: unknown option '%s'; accepted: see tutti bench lecture --help\n", WHO,
              argv[i]);
      return 2;
    }
  }
  /* two outputs to one file, or over the profile read: refused before anything runs */
  if (cli_out_apart(CMD, "--csv", csv_path, "--plot", plot_path, 0) ||
      cli_out_apart(CMD, "--csv", csv_path, "--profile", profile, 1) ||
      cli_out_apart(CMD, "--plot", plot_path, "--profile", profile, 1))
    return 2;
  tutti_profile_t pr;
  if (tutti_profile_load(profile, &pr, err, sizeof err)) {
    fprintf(stderr, "%s: --profile: %s\n", WHO, err);
    return 2;
  }
  const tutti_algo_t *al[NALG];
  for (int k = 0; k < NALG; k++)
    if (tutti_algo_select(TUTTI_COLL_BCAST, algos[k], NULL, &al[k], err, sizeof err)) {
      fprintf(stderr, "%s: %s\n", WHO, err);
      return 2;
    }
  struct cli_out csv_out = {0}, plot_out = {0}; /* cli_out.c: committed at the end */
  int st = 0;
  if ((csv_path && (st = cli_out_open(&csv_out, CMD, "--csv", csv_path, CLI_OUT_DASH))) ||
      (plot_path && (st = cli_out_open(&plot_out, CMD, "--plot", plot_path, 0)))) {
    cli_out_discard(&csv_out);
    return st;
  }
  FILE *csv = csv_out.f;
  if (csv) fprintf(csv, "ranks,bytes,algorithm,modeled_time,source\n");
  char title[128];
  snprintf(title, sizeof title, "MPI_Bcast (X. Yuan's lecture), profile %s", pr.name);
  plot_t *plot = plot_path ? plot_new(title, "bytes per rank", "modeled time") : NULL;
  if (plot_path && (!plot || plot_y_unit(plot, tutti_model_time_unit(&pr.model)))) {
    fprintf(stderr, "%s: out of memory\n", WHO);
    plot_free(plot);
    cli_out_discard(&csv_out), cli_out_discard(&plot_out);
    return 3;
  }
  /* the envelope in alpha: alpha + beta (m + header) (runtime/MODEL.md) */
  const tutti_hockney_t h = {pr.model.latency.a + pr.model.latency.b * (double)pr.model.header,
                             pr.model.latency.b, pr.model.gamma};
  char desc[256], s1[32];
  tutti_model_describe(&pr.model, desc, sizeof desc);
  printf("MPI_Bcast after X. Yuan's lecture, profile %s: %s.\n"
         "Modeled time per broadcast from rank 0; * marks the fastest; c: the registered\n"
         "Hockney cost (P x m above --max-memory), else a verified run on rank threads.\n",
         pr.name, desc);
  int ncmp = 0;
  double maxdev = 0;
  for (int pi = 0; pi < nranks && !st; pi++) {
    int P = (int)ranks[pi];
    char panel[32];
    snprintf(panel, sizeof panel, "P = %d", P);
    tutti_config_t cfg = tutti_config_default(P);
    cfg.model = &pr.model;
    tutti_world_t *w;
    if (tutti_world_create(&w, &cfg)) {
      fprintf(stderr, "%s: cannot create a world of %d ranks\n", WHO, P);
      st = 3;
      break;
    }
    printf("\nP = %d\n%10s", P, "bytes");
    for (int k = 0; k < NALG; k++) printf(" %18s", algos[k]);
    printf("\n");
    int prev_best = -1;
    char cross[1024] = "";
    size_t clen = 0;
    for (size_t m = lo; m <= hi && !st; m *= 2) {
      double t[NALG];
      int best = 0, ran = (double)P * (double)m <= (double)maxmem;
      for (int k = 0; k < NALG; k++) {
        int bound;
        double c = tutti_algo_cost(al[k], P, 0, m, &h, &bound);
        t[k] = c;
        if (ran) {
          t[k] = run_point(w, al[k], (long)m);
          if (t[k] < 0) {
            st = t[k] == TUTTI_EVERIFY ? 1 : 3;
            if (st == 1) fprintf(stderr, "%s: %s, P=%d, %zu B: wrong data\n", WHO, algos[k], P, m);
            break;
          }
          if (!bound && t[k] > 0) maxdev = fmax(maxdev, fabs(c - t[k]) / t[k]), ncmp++;
        }
        if (t[k] < t[best]) best = k;
      }
      if (st) break;
      printf("%10s", tutti_format_bytes(m, s1, sizeof s1));
      for (int k = 0; k < NALG; k++) {
        char tt[40];
        tutti_format_model_time(&pr.model, t[k], s1, sizeof s1);
        snprintf(tt, sizeof tt, "%s%s%s", s1, ran ? "" : " c", k == best ? " *" : "");
        printf(" %18s", tt);
        if (csv) fprintf(csv, "%d,%zu,%s,%.9g,%s\n", P, m, algos[k], t[k], ran ? "run" : "cost");
        if (plot) plot_add(plot, panel, algos[k], (double)m, t[k]);
      }
      printf("\n");
      if (best != prev_best)
        clen += (size_t)snprintf(cross + clen, sizeof cross - clen, "%s%s from %s",
                                 prev_best < 0 ? "" : ", ", algos[best],
                                 tutti_format_bytes(m, s1, sizeof s1));
      prev_best = best;
      fflush(stdout);
    }
    if (!st) printf("fastest at P = %d: %s\n", P, cross);
    tutti_world_destroy(w);
  }
  if (!st && ncmp)
    printf("\ncost functions against the runs: %d points, largest difference %.2g%%\n", ncmp,
           100 * maxdev);
  double ratio = 0;
  if (!st) st = mapping_part(profile, &ratio);
  if (!st) st = cli_out_commit(&csv_out);
  if (plot && !st) {
    int prc = plot_write(plot, plot_path, plot_out.f, WHO);
    if (prc >= 2) st = prc;
    if (!prc) st = cli_out_commit(&plot_out);
  }
  cli_out_discard(&csv_out), cli_out_discard(&plot_out); /* not committed: no file */
  plot_free(plot);
  return st; /* main closes stdout and reports a lost write */
}

/*
 * cli_suite.c -- `tutti suite`: every registered algorithm of every
 * collective, each run on the same ranks and profile (default 16 ranks,
 * teaching-hockney) at 8 B and 64 KiB per rank (or the one size of -m),
 * each verified against the sequential reference. One table per collective
 * and size, fastest first, the winner marked; --json prints one object.
 * Algorithms whose restrictions the run violates (a power of two of ranks)
 * are listed as skipped, with the registry's reason.
 *
 * Exit: 0 all verified, 1 a result failed verification, 3 a run failed
 * (deadlock, a rank's error), 2 bad usage.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int by_time(const void *pa, const void *pb) {
  const struct cli_point *a = pa, *b = pb;
  int ra = a->skipped ? 2 : a->failed ? 1 : 0, rb = b->skipped ? 2 : b->failed ? 1 : 0;
  if (ra != rb) return ra - rb;
  if (!ra && a->time != b->time) return a->time < b->time ? -1 : 1;
  return a->order - b->order;
}

#define SUITE_OPTS                                                                                 \
  (CLI_O(RANKS) | CLI_O(BYTES) | CLI_O(MODEL) | CLI_O(PROFILE) | CLI_O(TOPOLOGY) |                 \
   CLI_O(MAPPING) | CLI_O(LINKS) | CLI_O(JSON) | CLI_O(HELP))

/* Rows continue one array across tables; *printed counts those written. */
static void print_rows_json(FILE *f, const struct cli_point *rows, int n, int modeled,
                            int *printed) {
  for (int i = 0; i < n; i++) {
    fputs((*printed)++ ? ",\n  " : "\n  ", f);
    cli_point_json(f, &rows[i], modeled, 0);
  }
}

/* Wall times are noisy: three significant digits are plenty. */
static const char *wall(double t, char *buf, size_t n) {
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%.3g", t);
  return tutti_format_time(strtod(tmp, NULL), buf, n);
}

static void print_rows_table(const struct cli_point *rows, int n, const tutti_model_t *m,
                             int modeled) {
  char s1[64], s2[64], spec[256];
  int w = 24;
  for (int i = 0; i < n; i++) {
    tutti_algo_format(&rows[i].algo, spec, sizeof spec);
    if ((int)strlen(spec) > w) w = (int)strlen(spec);
  }
  /* under the none model the time column is the wall time already */
  printf("     %-*s  %14s  %9s  %12s  %s\n", w, "algorithm", modeled ? "modeled time" : "wall time",
         "messages", modeled ? "wall time" : "", "verified");
  for (int i = 0; i < n; i++) {
    const struct cli_point *r = &rows[i];
    tutti_algo_format(&r->algo, spec, sizeof spec);
    if (r->skipped || r->failed) {
      printf("     %-*s  %s: %.100s%s\n", w, spec, r->skipped ? "skipped" : "FAILED", r->note,
             strlen(r->note) > 100 ? " ..." : "");
      continue;
    }
    printf("  %c  %-*s  %14s  %9llu  %12s  %s\n", r->winner ? '*' : ' ', w, spec,
           modeled ? tutti_format_model_time(m, r->time, s1, sizeof s1)
                   : wall(r->time, s1, sizeof s1),
           (unsigned long long)r->res.stats.messages,
           modeled ? wall(r->res.stats.wall_time, s2, sizeof s2) : "", r->verified ? "yes" : "NO");
    if (!r->verified) printf("     %*s  %s\n", w, "", r->note);
  }
}

int tutti_cli_suite(int argc, char **argv) {
  struct cli_opts o;
  int st = cli_parse("suite", SUITE_OPTS, 0, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    printf("usage: tutti suite [-n N] [-m SIZE] [--profile P | --model SPEC]\n"
           "                   [--topology SPEC|FILE [--mapping M] [--links LIST]] [--json]\n\n"
           "Run every registered algorithm of every collective (%s) on N\n"
           "ranks (default 16) under one profile (default teaching-hockney), at 8 B and\n"
           "64 KiB per rank (or only -m SIZE), check each result against a sequential\n"
           "reference, and print a table per collective and size, fastest first, the\n"
           "winner marked '*'. Reductions use sum on int32 (byte when SIZE is not a\n"
           "multiple of 4), root 0. Algorithms whose restrictions the rank count breaks\n"
           "are listed as skipped. With a topology (--topology, or the profile's), every\n"
           "run shares its links and contention (see tutti run --help).\n"
           "Exit: 0 all verified, 1 a verification failed, 2 bad usage, 3 a run failed.\n\n"
           "options:\n",
           cli_coll_names());
    cli_print_options(stdout, SUITE_OPTS);
    return 0;
  }
  tutti_machine_t mach;
  char desc[512] = "";
  if ((st = cli_model("suite", &o, o.nranks, &mach))) return st;
  const tutti_model_t *model = &mach.model;
  if (mach.topo && model->preset == TUTTI_MODEL_NONE) {
    tutti_machine_free(&mach);
    return cli_fail(CLI_EUSAGE, "suite",
                    "--topology: the none model has no modeled time for links to shape; "
                    "accepted: a topology with a cost model (--model hockney:..., --profile)");
  }
  tutti_model_describe(model, desc, sizeof desc);
  int P = o.nranks, json = (o.given & CLI_O(JSON)) != 0,
      modeled = model->preset != TUTTI_MODEL_NONE;
  size_t sizes[2] = {8, (size_t)64 << 10};
  int nsizes = 2;
  if (o.given & CLI_O(BYTES)) sizes[0] = o.bytes, nsizes = 1;
  for (int s = 0; s < nsizes; s++)
    if (sizes[s] > SIZE_MAX / (size_t)P) {
      tutti_machine_free(&mach);
      return cli_fail(CLI_EUSAGE, "suite", "--bytes: too large for %d ranks; accepted: less", P);
    }

  tutti_config_t cfg = tutti_config_default(P);
  cfg.model = model;
  tutti_world_t *w;
  int rc = tutti_world_create(&w, &cfg);
  if (rc) {
    tutti_machine_free(&mach);
    return cli_fail(CLI_ERUNTIME, "suite", "cannot create a world of %d ranks: %s", P,
                    tutti_strerror(rc));
  }

  int nalgos = 0;
  while (tutti_algo_desc_at(nalgos)) nalgos++;
  struct cli_point *rows = calloc((size_t)(nalgos ? nalgos : 1), sizeof *rows);
  if (!rows) {
    tutti_world_destroy(w);
    tutti_machine_free(&mach);
    return cli_fail(CLI_ERUNTIME, "suite", "%s", tutti_strerror(TUTTI_ENOMEM));
  }
  int runs = 0, nver = 0, nskip = 0, nfail = 0, nbad = 0, printed = 0;
  char first_bad[1024] = "", first_fail[1024] = "";
  if (json) {
    printf("{\"ranks\":%d,\"profile\":", P);
    if (o.model)
      printf("null");
    else
      cli_json_str(stdout, mach.label);
    printf(",\"model\":");
    tutti_model_json(model, stdout);
    printf(",\"topology\":");
    cli_json_topology(stdout, &mach);
    printf(",\"time_unit\":");
    cli_json_str(stdout, modeled ? tutti_model_time_unit(model) : "s");
    printf(",\"sizes\":[");
    for (int s = 0; s < nsizes; s++) printf("%s%zu", s ? "," : "", sizes[s]);
    printf("],\"results\":[");
  } else {
    printf("tutti suite: %d ranks, %s: %s\n", P, o.model ? "model" : "profile", mach.label);
    printf("model: %s\n", desc);
    cli_print_topology(stdout, &mach, 0);
    printf("every registered algorithm, each result checked against a sequential reference;\n"
           "fastest first, '*' marks the winner%s\n",
           modeled ? "" : " (the none model: wall time, which is noisy)");
  }
  for (int c = 0; c < TUTTI_COLL_N; c++) {
    int data = (tutti_coll_traits(c) & TUTTI_COLL_DATA) != 0, ns = data ? nsizes : 1;
    for (int s = 0; s < ns; s++) {
      size_t bytes = data ? sizes[s] : 0;
      int n = 0;
      const tutti_algo_desc_t *d;
      for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
        if (d->coll != c) continue;
        struct cli_point *r = &rows[n];
        memset(r, 0, sizeof *r);
        r->desc = d, r->coll = c, r->order = n++, r->bytes = bytes;
        char err[512] = "";
        if (tutti_algo_select(c, d->name, NULL, &r->algo, err, sizeof err)) {
          r->failed = 1;
          snprintf(r->note, sizeof r->note, "%s", err);
          r->algo.desc = d;
          continue;
        }
        cli_point_run(&w, &cfg, P, r);
      }
      if (!n) continue;
      qsort(rows, (size_t)n, sizeof *rows, by_time);
      for (int i = 0; i < n; i++) {
        struct cli_point *r = &rows[i];
        if (r->skipped)
          nskip++;
        else if (r->failed)
          nfail++;
        else {
          runs++;
          if (r->verified)
            nver++;
          else
            nbad++;
        }
        char *first = r->failed ? first_fail : !r->skipped && !r->verified ? first_bad : NULL;
        if (first && !first[0])
          snprintf(first, sizeof first_bad, "%s %s, %zu B: %s", tutti_coll_name(c), r->desc->name,
                   bytes, r->note);
      }
      /* winners: every verified run as fast as the fastest verified one */
      double best = INFINITY;
      for (int i = 0; i < n; i++)
        if (!rows[i].skipped && !rows[i].failed && rows[i].verified && rows[i].time < best)
          best = rows[i].time;
      for (int i = 0; i < n; i++)
        rows[i].winner = !rows[i].skipped && !rows[i].failed && rows[i].verified &&
                         rows[i].time <= best * (1 + 1e-12);
      if (json) {
        print_rows_json(stdout, rows, n, modeled, &printed);
      } else {
        char s1[64];
        printf("\n%s", tutti_coll_name(c));
        if (data) printf(", %s per rank", tutti_format_bytes(bytes, s1, sizeof s1));
        printf("\n");
        print_rows_table(rows, n, model, modeled);
      }
    }
  }
  if (json) {
    printf("\n  ],\"runs\":%d,\"verified\":%d,\"skipped\":%d,\"failed\":%d,\"all_verified\":%s}\n",
           runs, nver, nskip, nfail, nbad || nfail ? "false" : "true");
  } else {
    printf("\n%d runs: %d verified, %d not verified; %d skipped, %d failed\n", runs, nver, nbad,
           nskip, nfail);
  }
  fflush(stdout);
  free(rows);
  if (w) tutti_world_destroy(w);
  tutti_machine_free(&mach); /* after the world: its model points to it */
  if (nfail)
    return cli_fail(CLI_ERUNTIME, "suite", "%d run%s failed%s; first: %s", nfail,
                    nfail == 1 ? "" : "s", nbad ? " (and some failed verification)" : "",
                    first_fail);
  if (nbad)
    return cli_fail(CLI_EVERIFY, "suite", "%d run%s failed verification; first: %s", nbad,
                    nbad == 1 ? "" : "s", first_bad);
  return 0;
}

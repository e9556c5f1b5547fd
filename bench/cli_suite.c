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
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot.h"

static int by_time(const void *pa, const void *pb) {
  const struct cli_point *a = pa, *b = pb;
  int ra = a->skipped ? 2 : a->failed ? 1 : 0, rb = b->skipped ? 2 : b->failed ? 1 : 0;
  if (ra != rb) return ra - rb;
  if (!ra && a->time != b->time) return a->time < b->time ? -1 : 1;
  return a->order - b->order;
}

#define SUITE_OPTS                                                                                 \
  (CLI_O(RANKS) | CLI_O(BYTES) | CLI_O(SIZES) | CLI_O(MODEL) | CLI_O(PROFILE) | CLI_O(TOPOLOGY) |  \
   CLI_O(MAPPING) | CLI_O(LINKS) | CLI_O(JSON) | CLI_O(CSV) | CLI_O(PLOT) | CLI_O(NO_DATA) |       \
   CLI_O(RANKS_AS) | CLI_O(BIND) | CLI_O(STACK) | CLI_O(PLUGIN) | CLI_O(HELP) | CLI_O(RULES) |     \
   CLI_O(QUIET) | CLI_O(MAX_MEMORY) | CLI_O(STRICT_MEMORY))
#define SUITE_MAX_RANKS 16384

/* Rows continue one array across tables; *printed counts those written. */
static void print_rows_json(FILE *f, const struct cli_point *rows, int n, int modeled,
                            int *printed) {
  for (int i = 0; i < n; i++) {
    fputs((*printed)++ ? ",\n  " : "\n  ", f);
    cli_point_json(f, &rows[i], modeled, 1);
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
    tutti_algo_format(rows[i].algo, spec, sizeof spec);
    if ((int)strlen(spec) > w) w = (int)strlen(spec);
  }
  /* under the none model the time column is the wall time already */
  printf("     %-*s  %14s  %9s  %12s  %s\n", w, "algorithm", modeled ? "modeled time" : "wall time",
         "messages", modeled ? "wall time" : "", "verified");
  for (int i = 0; i < n; i++) {
    const struct cli_point *r = &rows[i];
    tutti_algo_format(r->algo, spec, sizeof spec);
    if (r->skipped || r->failed) {
      printf("     %-*s  %s: %.100s%s\n", w, spec, r->skipped ? "skipped" : "FAILED", r->note,
             strlen(r->note) > 100 ? " ..." : "");
      continue;
    }
    printf("  %c  %-*s  %14s  %9llu  %12s  %s\n", r->winner ? '*' : ' ', w, spec,
           modeled ? tutti_format_model_time(m, r->time, s1, sizeof s1)
                   : wall(r->time, s1, sizeof s1),
           (unsigned long long)r->res.stats.messages,
           modeled ? wall(r->res.stats.wall_time, s2, sizeof s2) : "",
           r->unchecked  ? "-"
           : r->verified ? "yes"
                         : "NO");
    if (!r->verified) printf("     %*s  %s\n", w, "", r->note);
    if (r->timing_only[0]) printf("     %*s  %s\n", w, "", r->timing_only);
  }
}

/* One line of the closing summary: the winner of a (P, collective, size)
 * table and its lead over the next verified algorithm. */
static void summary_line(const struct cli_point *rows, int n, const tutti_model_t *m, int modeled,
                         int show_ranks) {
  const struct cli_point *best = NULL, *next = NULL;
  int ties = 0;
  for (int i = 0; i < n; i++) { /* rows are sorted: verified runs first, fastest first */
    const struct cli_point *r = &rows[i];
    if (r->skipped || r->failed || !r->verified) continue;
    if (!best)
      best = r;
    else if (r->time == best->time)
      ties++;
    else if (!next)
      next = r;
  }
  char sz[32], t[64], spec[256] = "", lead[96] = "", nspec[256] = "";
  printf("  %-14s", tutti_coll_name(rows[0].coll)); /* reduce_scatter */
  if (show_ranks) printf("  P=%-6d", rows[0].nranks);
  printf("  %10s  ", tutti_coll_traits(rows[0].coll) & TUTTI_COLL_DATA
                         ? tutti_format_bytes(rows[0].bytes, sz, sizeof sz)
                         : "-");
  if (!best) {
    printf("(no verified run)\n");
    return;
  }
  tutti_algo_format(best->algo, spec, sizeof spec);
  if (ties)
    snprintf(lead, sizeof lead, "tied with %d other%s", ties, ties == 1 ? "" : "s");
  else if (next && best->time > 0) {
    tutti_algo_format(next->algo, nspec, sizeof nspec);
    snprintf(lead, sizeof lead, "%.3fx ahead of %.60s", next->time / best->time, nspec);
  } else if (!next)
    snprintf(lead, sizeof lead, "(the only one verified)");
  /* the time first: a long spec would push it out of its column */
  printf("%14s  %s, %s\n",
         modeled ? tutti_format_model_time(m, best->time, t, sizeof t)
                 : wall(best->time, t, sizeof t),
         spec, lead);
}

int tutti_cli_suite(int argc, char **argv) {
  cli_keep_memory();
  struct cli_opts o;
  int st = cli_parse_world("suite", SUITE_OPTS, 0, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    printf("usage: tutti suite [-n N|LIST] [-m SIZE | --sizes LIST] [--profile P | --model SPEC]\n"
           "                   [--topology SPEC|FILE [--mapping M] [--links LIST]]\n"
           "                   [--json] [--csv FILE] [--plot FILE.svg|.png] [--no-data]\n"
           "                   [--max-memory SIZE [--strict-memory]]\n\n"
           "Run every registered algorithm of every collective (%s) on N\n"
           "ranks (default 16; a list such as 8,64 or 2..64 runs each) under one profile\n"
           "(default teaching-hockney), at 8 B and 64 KiB per rank (or -m SIZE, or the\n"
           "sizes of --sizes), check each result against a sequential reference, and\n"
           "print a table per collective and size, fastest first, the winner marked '*',\n"
           "then a summary of who won each table and by how much. Reductions use sum on\n"
           "int32 (byte when SIZE is not a multiple of 4), root 0. Algorithms whose\n"
           "restrictions the rank count breaks are listed as skipped. With a topology\n"
           "(--topology, or the profile's), every run shares its links and contention\n"
           "(see tutti run --help). --csv writes the rows as tutti sweep does; --plot\n"
           "draws each collective's times against size with gnuplot. --no-data: timing\n"
           "only, the same modeled times with no payload moved and nothing verified.\n"
           "A point whose memory estimate passes --max-memory (default half of physical\n"
           "memory) runs timing only, its row saying so; --strict-memory stops instead.\n"
           "Exit: 0 all verified, 1 a verification failed, 2 bad usage, 3 a run failed.\n\n"
           "options:\n",
           cli_coll_names());
    cli_print_options(stdout, SUITE_OPTS);
    return 0;
  }
  if ((o.given & CLI_O(BYTES)) && (o.given & CLI_O(SIZES)))
    return cli_fail(CLI_EUSAGE, "suite", "--bytes and --sizes exclude each other; accepted: one");
  int json = (o.given & CLI_O(JSON)) != 0, csv_only = o.csv && !strcmp(o.csv, "-");
  if (json && csv_only)
    return cli_fail(CLI_EUSAGE, "suite",
                    "--csv -: stdout carries the JSON; accepted: --csv FILE with --json");
  if (o.plot && !plot_format(o.plot))
    return cli_fail(CLI_EUSAGE, "suite",
                    "--plot: '%s' is not .svg or .png; accepted: FILE.svg, FILE.png", o.plot);
  int *ranks = NULL, nranks = 0, nsizes = 0;
  size_t *sizes = NULL;
  tutti_rules_t *rules = NULL; /* --rules: what the `auto` rows follow */
  if ((st = cli_rules("suite", &o, &rules))) return st;
  if ((st = cli_parse_ranks("suite", o.ranks_list ? o.ranks_list : "16", SUITE_MAX_RANKS, &ranks,
                            &nranks))) {
    tutti_rules_free(rules);
    return st;
  }
  char one[32];
  snprintf(one, sizeof one, "%zu", o.bytes);
  if ((st = cli_parse_sizes("suite",
                            o.sizes                  ? o.sizes
                            : o.given & CLI_O(BYTES) ? one
                                                     : "8,64KiB",
                            &sizes, &nsizes))) {
    free(ranks), tutti_rules_free(rules);
    return st;
  }
  for (int i = 0; i < nranks; i++)
    for (int s = 0; s < nsizes; s++)
      if (sizes[s] > SIZE_MAX / (size_t)ranks[i]) {
        free(ranks), free(sizes), tutti_rules_free(rules);
        return cli_fail(CLI_EUSAGE, "suite", "--bytes: too large for %d ranks; accepted: less",
                        ranks[i]);
      }
  struct cli_out csv_out = {0}, plot_out = {0}; /* --csv FILE, --plot FILE */
  if ((o.csv && !csv_only && (st = cli_out_open(&csv_out, "suite", "--csv", o.csv, 0))) ||
      (o.plot && (st = cli_out_open(&plot_out, "suite", "--plot", o.plot, 0)))) {
    cli_out_discard(&csv_out);
    free(ranks), free(sizes), tutti_rules_free(rules);
    return st;
  }
  FILE *csv = csv_only ? stdout : csv_out.f;
  int table = !json && !csv_only;

  tutti_machine_t mach;
  char desc[512] = "";
  if ((st = cli_model("suite", &o, ranks[0], &mach))) {
    cli_out_discard(&csv_out), cli_out_discard(&plot_out);
    free(ranks), free(sizes), tutti_rules_free(rules);
    return st;
  }
  int have_mach = 1;
  const tutti_model_t *model = &mach.model;
  if (mach.topo && model->preset == TUTTI_MODEL_NONE) {
    tutti_machine_free(&mach);
    cli_out_discard(&csv_out), cli_out_discard(&plot_out);
    free(ranks), free(sizes), tutti_rules_free(rules);
    return cli_fail(CLI_EUSAGE, "suite",
                    "--topology: the none model has no modeled time for links to shape; "
                    "accepted: a topology with a cost model (--model hockney:..., --profile)");
  }
  tutti_model_describe(model, desc, sizeof desc);
  int modeled = model->preset != TUTTI_MODEL_NONE;
  if (o.no_data && !modeled) {
    tutti_machine_free(&mach);
    cli_out_discard(&csv_out), cli_out_discard(&plot_out);
    free(ranks), free(sizes);
    return cli_fail(CLI_EUSAGE, "suite",
                    "--no-data: the none model has no modeled time to measure; accepted: "
                    "--no-data with a cost model (--model hockney:..., --profile)");
  }
  plot_t *plot = NULL;
  if (o.plot) {
    char title[256];
    snprintf(title, sizeof title, "tutti suite: %s", mach.label);
    plot = plot_new(title, "bytes per rank", modeled ? "modeled time" : "wall time");
    if (plot) plot_y_unit(plot, modeled ? tutti_model_time_unit(model) : "s");
  }

  int nalgos = 0;
  while (tutti_algo_desc_at(nalgos)) nalgos++;
  /* every table's rows are kept for the closing summary */
  int ntables = 0;
  for (int c = 0; c < TUTTI_COLL_N; c++)
    ntables += tutti_coll_traits(c) & TUTTI_COLL_DATA ? nsizes : 1;
  ntables *= nranks;
  struct cli_point *rows = calloc((size_t)(nalgos ? nalgos : 1) * (size_t)ntables, sizeof *rows);
  int *tstart = calloc((size_t)ntables + 1, sizeof *tstart);
  if (!rows || !tstart || (o.plot && !plot)) {
    free(rows), free(tstart), plot_free(plot);
    tutti_machine_free(&mach);
    cli_out_discard(&csv_out), cli_out_discard(&plot_out);
    free(ranks), free(sizes), tutti_rules_free(rules);
    return cli_fail(CLI_ERUNTIME, "suite", "%s", tutti_strerror(TUTTI_ENOMEM));
  }
  int npoints = 0;
  double weight = 0;
  cli_mem_begin("suite", &o, 1, model);
  for (int pi = 0; pi < nranks && !st; pi++)
    for (int i = 0; i < nalgos && !st; i++) {
      const tutti_algo_desc_t *d = tutti_algo_desc_at(i);
      int c = d->coll, data = (tutti_coll_traits(c) & TUTTI_COLL_DATA) != 0;
      for (int s = 0; s < (data ? nsizes : 1) && !st; s++, npoints++)
        st = cli_mem_add(c, d->name, ranks[pi], data ? sizes[s] : 0);
    }
  if (st || (st = cli_mem_plan(&weight))) {
    free(rows), free(tstart), plot_free(plot);
    tutti_machine_free(&mach);
    cli_out_discard(&csv_out), cli_out_discard(&plot_out);
    free(ranks), free(sizes), tutti_rules_free(rules);
    return st;
  }
  cli_progress_start("suite", npoints, weight, (o.given & CLI_O(QUIET)) != 0);
  int runs = 0, nver = 0, nskip = 0, nfail = 0, nbad = 0, printed = 0, t = 0, used = 0;
  char first_bad[1024] = "", first_fail[1024] = "";
  if (csv) cli_point_csv_header(csv);
  if (json) {
    printf("{\"ranks\":%d,\"ranks_list\":[", ranks[0]);
    for (int i = 0; i < nranks; i++) printf("%s%d", i ? "," : "", ranks[i]);
    printf("],\"profile\":");
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
    printf(",\"no_data\":%s,\"sizes\":[", o.no_data ? "true" : "false");
    for (int s = 0; s < nsizes; s++) printf("%s%zu", s ? "," : "", sizes[s]);
    printf("],\"results\":[");
  } else if (table) {
    char rl[128] = "";
    for (int i = 0, k = 0; i < nranks && k < (int)sizeof rl - 16; i++)
      k += snprintf(rl + k, sizeof rl - (size_t)k, "%s%d", i ? ", " : "", ranks[i]);
    printf("tutti suite: %s ranks, %s: %s\n", rl, o.model ? "model" : "profile", mach.label);
    printf("model: %s\n", desc);
    cli_print_topology(stdout, &mach, 0);
    if (o.no_data)
      printf("every registered algorithm, timing only (--no-data: no payload moved, nothing\n"
             "verified); fastest first, '*' marks the winner\n");
    else
      printf("every registered algorithm, each result checked against a sequential reference;\n"
             "fastest first, '*' marks the winner%s\n",
             modeled ? "" : " (the none model: wall time, which is noisy)");
  }
  for (int pi = 0; pi < nranks && !st; pi++) {
    int P = ranks[pi];
    if (pi > 0) {
      tutti_machine_free(&mach);
      have_mach = 0;
      if ((st = cli_model("suite", &o, P, &mach))) break;
      have_mach = 1;
      model = &mach.model;
    }
    tutti_config_t cfg = tutti_config_default(P);
    cfg.model = model;
    cli_config(&o, &cfg, cli_max_size(sizes, nsizes)); /* one world for every size */
    cfg.rules = rules;
    tutti_world_t *w;
    int rc = tutti_world_create(&w, &cfg);
    if (rc) {
      st = cli_fail(CLI_ERUNTIME, "suite", "cannot create a world of %d ranks: %s", P,
                    tutti_strerror(rc));
      break;
    }
    for (int c = 0; c < TUTTI_COLL_N; c++) {
      int data = (tutti_coll_traits(c) & TUTTI_COLL_DATA) != 0, ns = data ? nsizes : 1;
      for (int s = 0; s < ns; s++) {
        size_t bytes = data ? sizes[s] : 0;
        struct cli_point *tab = rows + used;
        int n = 0;
        const tutti_algo_desc_t *d;
        for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
          if (d->coll != c) continue;
          struct cli_point *r = &tab[n];
          memset(r, 0, sizeof *r);
          r->desc = d, r->coll = c, r->order = n++, r->bytes = bytes, r->nranks = P;
          char err[512] = "";
          if (tutti_algo_select(c, d->name, NULL, &r->algo, err, sizeof err)) {
            r->failed = 1;
            snprintf(r->note, sizeof r->note, "%s", err);
          }
        }
        cli_points_run(&w, &cfg, P, tab, n);
        if (!n) continue;
        qsort(tab, (size_t)n, sizeof *tab, by_time);
        for (int i = 0; i < n; i++) {
          struct cli_point *r = &tab[i];
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
            snprintf(first, sizeof first_bad, "%s %s, %d ranks, %zu B: %s", tutti_coll_name(c),
                     r->desc->name, P, bytes, r->note);
        }
        /* winners: every verified run as fast as the fastest verified one */
        double best = INFINITY;
        for (int i = 0; i < n; i++)
          if (!tab[i].skipped && !tab[i].failed && tab[i].verified && tab[i].time < best)
            best = tab[i].time;
        for (int i = 0; i < n; i++)
          tab[i].winner = !tab[i].skipped && !tab[i].failed && tab[i].verified &&
                          tab[i].time <= best * (1 + 1e-12);
        cli_progress_clear(); /* the rows below must not land on its line */
        if (json) print_rows_json(stdout, tab, n, modeled, &printed);
        if (csv)
          for (int i = 0; i < n; i++) cli_point_csv(csv, &tab[i], modeled);
        if (table) {
          char s1[64];
          printf("\n%s", tutti_coll_name(c));
          if (nranks > 1) printf(", %d ranks", P);
          if (data) printf(", %s per rank", tutti_format_bytes(bytes, s1, sizeof s1));
          printf("\n");
          print_rows_table(tab, n, model, modeled);
        }
        for (int i = 0; plot && data && i < n; i++) {
          if (tab[i].skipped || tab[i].failed) continue;
          char spec[256], panel[64];
          tutti_algo_format(tab[i].algo, spec, sizeof spec);
          snprintf(panel, sizeof panel, nranks > 1 ? "%s, P = %d" : "%s", tutti_coll_name(c), P);
          if (plot_add(plot, panel, spec, (double)tab[i].bytes, tab[i].time)) {
            st = cli_fail(CLI_ERUNTIME, "suite", "%s", tutti_strerror(TUTTI_ENOMEM));
            break;
          }
        }
        tstart[t++] = used;
        used += n;
        tstart[t] = used;
      }
    }
    tutti_world_destroy(w);
  }
  cli_progress_end();
  if (json) {
    if (o.no_data)
      printf("\n  ],\"runs\":%d,\"verified\":0,\"skipped\":%d,\"failed\":%d,"
             "\"all_verified\":null}\n",
             runs, nskip, nfail);
    else
      printf("\n  ],\"runs\":%d,\"verified\":%d,\"skipped\":%d,\"failed\":%d,"
             "\"all_verified\":%s}\n",
             runs, nver, nskip, nfail, nbad || nfail ? "false" : "true");
  } else if (table && !st) {
    printf("\nwinners (the fastest %s, and its lead over the next)\n",
           o.no_data ? "run, not verified (--no-data)" : "verified");
    for (int k = 0; k < t; k++)
      if (tstart[k + 1] > tstart[k])
        summary_line(rows + tstart[k], tstart[k + 1] - tstart[k], model, modeled, nranks > 1);
    if (o.no_data)
      printf("\n%d runs, not verified (--no-data); %d skipped, %d failed\n", runs, nskip, nfail);
    else
      printf("\n%d runs: %d verified, %d not verified; %d skipped, %d failed\n", runs, nver, nbad,
             nskip, nfail);
  }
  fflush(stdout);
  free(rows), free(tstart);
  if (!st) st = cli_out_commit(&csv_out);
  if (plot && !st) {
    int prc = plot_write(plot, o.plot, plot_out.f, "tutti suite");
    if (prc >= 2) st = CLI_ERUNTIME;
    if (!prc) st = cli_out_commit(&plot_out);
  }
  cli_out_discard(&csv_out), cli_out_discard(&plot_out); /* not committed: no file */
  plot_free(plot);
  if (have_mach) tutti_machine_free(&mach); /* after the worlds: their model points to it */
  free(ranks), free(sizes), tutti_rules_free(rules);
  if (st) return st;
  if (nfail)
    return cli_fail(CLI_ERUNTIME, "suite", "%d run%s failed%s; first: %s", nfail,
                    nfail == 1 ? "" : "s", nbad ? " (and some failed verification)" : "",
                    first_fail);
  if (nbad)
    return cli_fail(CLI_EVERIFY, "suite", "%d run%s failed verification; first: %s", nbad,
                    nbad == 1 ? "" : "s", first_bad);
  return 0;
}

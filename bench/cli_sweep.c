/*
 * cli_sweep.c -- `tutti sweep COLL`: every chosen algorithm of one
 * collective at every (rank count, size) of the lists given, each point
 * run and verified like a suite row (cli_point.c). CSV on stdout, or into
 * --csv FILE with a summary table on stdout (the best algorithm per
 * (P, m) and its lead over the next), or JSON with --json; --plot draws
 * modeled time against size with gnuplot (plot.h), a panel per rank count.
 * A progress line on stderr when stderr is a terminal (cli_progress.c),
 * none otherwise or with --quiet, so logs stay clean.
 *
 * Points are written as each (P, m) group completes, so a long sweep
 * keeps only one group in memory (and the plot's points).
 *
 * Exit: 0 all verified, 1 a point failed verification, 3 a run failed or
 * output could not be written, 2 bad usage.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "plot.h"

#define SWEEP_OPTS                                                                                 \
  (CLI_O(RANKS) | CLI_O(SIZES) | CLI_O(ALGOS) | CLI_O(MODEL) | CLI_O(PROFILE) | CLI_O(TOPOLOGY) |  \
   CLI_O(MAPPING) | CLI_O(LINKS) | CLI_O(PARAM) | CLI_O(CSV) | CLI_O(JSON) | CLI_O(PLOT) |         \
   CLI_O(NO_DATA) | CLI_O(PLUGIN) | CLI_O(HELP) | CLI_O(RULES) | CLI_O(RANKS_AS) | CLI_O(BIND) |   \
   CLI_O(STACK) | CLI_O(QUIET) | CLI_O(MAX_MEMORY) | CLI_O(STRICT_MEMORY))

#define SWEEP_DEFAULT_SIZES "8..1MiB"
#define SWEEP_MAX_RANKS 16384

static void help(void) {
  printf("usage: tutti sweep COLL [--algos LIST] [--sizes LIST] [--ranks LIST]\n"
         "                   [--profile P | --model SPEC] [--topology SPEC|FILE ...]\n"
         "                   [--param K=V] [--csv FILE] [--json] [--plot FILE.svg|.png]\n"
         "                   [--no-data] [--max-memory SIZE [--strict-memory]]\n\n"
         "Run every chosen algorithm of COLL (%s) at every rank\n"
         "count and size per rank of the lists, each result checked against a sequential\n"
         "reference, and write one row per point: modeled time, messages, verified.\n"
         "--algos: names with their parameters, default every registered algorithm of\n"
         "COLL; a parameter list continues across commas (pipelined-chain:segments=8,\n"
         "order=dfs,binomial). --param K=V applies to every chosen algorithm that has K.\n"
         "--sizes default %s, --ranks default 16; A..B doubles from A to B.\n"
         "Output: CSV on stdout; with --csv FILE the CSV goes to FILE and stdout gets the\n"
         "best algorithm per (ranks, size); --json prints one object instead. Reductions\n"
         "use sum on int32 (byte when a size is not a multiple of 4), root 0.\n"
         "--no-data: timing only -- the same modeled times, no payload moved, nothing\n"
         "verified (verified is null in JSON, empty in CSV), buffers cost no memory.\n"
         "A point whose memory estimate passes --max-memory (default half of physical\n"
         "memory) runs timing only, its note saying so; --strict-memory stops instead.\n"
         "Exit: 0 all verified, 1 a verification failed, 2 bad usage, 3 a run failed.\n\n"
         "options:\n",
         cli_coll_names(), SWEEP_DEFAULT_SIZES);
  cli_print_options(stdout, SWEEP_OPTS);
}

/* The chosen algorithms. */
struct algos {
  const tutti_algo_t **v;
  int n;
};

/* Does the list "k=v,k=v" set key (len bytes)? */
static int list_has(const char *list, const char *key, size_t len) {
  for (const char *s = list; s && *s;) {
    while (*s == ' ') s++;
    if (!strncmp(s, key, len) && (s[len] == '=' || s[len] == ' ')) return 1;
    const char *comma = strchr(s, ',');
    s = comma ? comma + 1 : s + strlen(s);
  }
  return 0;
}

/* Does desc declare parameter key? */
static int has_param(const tutti_algo_desc_t *d, const char *key, size_t len) {
  for (int i = 0; i < d->nparams; i++)
    if (strlen(d->params[i].name) == len && !strncmp(d->params[i].name, key, len)) return 1;
  return 0;
}

/* Select `name` with `own` parameters plus those of --param (`extra`,
 * "k=v,k=v") that its descriptor declares and `own` does not set; marks in
 * *used the --param items some algorithm took. */
static int choose(const char *cmd, int coll, const char *name, const char *own, const char *extra,
                  uint64_t *used, const tutti_algo_t **out) {
  char err[512] = "";
  if (tutti_algo_select(coll, name, own, out, err, sizeof err))
    return cli_fail(CLI_EUSAGE, cmd, "--algos: %s", err);
  char params[1536];
  snprintf(params, sizeof params, "%s", own ? own : "");
  int k = 0;
  for (const char *s = extra; s && *s; k++) {
    const char *comma = strchr(s, ','), *eq = strchr(s, '=');
    size_t len = comma ? (size_t)(comma - s) : strlen(s), klen = (size_t)(eq - s);
    if (has_param(tutti_algo_desc(*out), s, klen) && !list_has(own, s, klen)) {
      size_t used_len = strlen(params);
      snprintf(params + used_len, sizeof params - used_len, "%s%.*s", used_len ? "," : "", (int)len,
               s);
      if (k < 64) *used |= 1ull << k;
    }
    s = comma ? comma + 1 : s + len;
  }
  if (tutti_algo_select(coll, name, params, out, err, sizeof err))
    return cli_fail(CLI_EUSAGE, cmd, "--param: %s", err);
  return 0;
}

/* --algos: "a,b:k=v,k=v,c" -- an item with '=' and no ':' continues the
 * parameter list of the algorithm before it, and so does a piece of a
 * rank list (b:order=list:0,2,1,3,c). */
static int parse_algos(const char *cmd, int coll, const char *text, const char *extra,
                       uint64_t *used, struct algos *out) {
  int cap = 1;
  for (const char *p = text; *p; p++) cap += *p == ',';
  out->v = calloc((size_t)cap, sizeof *out->v);
  out->n = 0;
  if (!out->v) return cli_fail(CLI_ERUNTIME, cmd, "%s", tutti_strerror(TUTTI_ENOMEM));
  char name[1024] = "", own[2048] = "";
  int have = 0;
  for (const char *s = text;;) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    char item[1024];
    if (!len || len >= sizeof item)
      return cli_fail(CLI_EUSAGE, cmd,
                      "--algos: '%s' has an %s item; accepted: algorithm names (tutti list %s) "
                      "separated by commas",
                      text, len ? "overlong" : "empty", tutti_coll_name(coll));
    memcpy(item, s, len);
    item[len] = '\0';
    char *colon = strchr(item, ':'), *eq = strchr(item, '=');
    /* a piece of a rank list (order=list:0,2,1,3): digits and '-' after a
     * value with a ':' continue that value */
    const char *lastv = strrchr(own, '=');
    int list_piece = have && lastv && strchr(lastv, ':') && strspn(item, "0123456789- ") == len;
    if (list_piece || (eq && (!colon || colon > eq))) { /* k=v: the previous algorithm's */
      if (!have)
        return cli_fail(CLI_EUSAGE, cmd,
                        "--algos: '%s' comes before any algorithm; accepted: NAME:%s", item, item);
      size_t ol = strlen(own);
      if (ol + len + 2 > sizeof own)
        return cli_fail(CLI_EUSAGE, cmd,
                        "--algos: a parameter list is too long; accepted: up to "
                        "%zu characters",
                        sizeof own - 1);
      snprintf(own + ol, sizeof own - ol, "%s%s", ol ? "," : "", item);
    } else {
      if (have) {
        int rc = choose(cmd, coll, name, own, extra, used, &out->v[out->n]);
        if (rc) return rc;
        out->n++;
      }
      if (colon) *colon = '\0';
      snprintf(name, sizeof name, "%s", item);
      snprintf(own, sizeof own, "%s", colon ? colon + 1 : "");
      have = 1;
    }
    if (!comma) break;
    s = comma + 1;
  }
  int rc = choose(cmd, coll, name, own, extra, used, &out->v[out->n]);
  if (rc) return rc;
  out->n++;
  return 0;
}

/* Every registered algorithm of coll, with --param where it applies. */
static int all_algos(const char *cmd, int coll, const char *extra, uint64_t *used,
                     struct algos *out) {
  int n = 0;
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) n += d->coll == coll;
  out->v = calloc((size_t)(n ? n : 1), sizeof *out->v);
  out->n = 0;
  if (!out->v) return cli_fail(CLI_ERUNTIME, cmd, "%s", tutti_strerror(TUTTI_ENOMEM));
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
    if (d->coll != coll) continue;
    int rc = choose(cmd, coll, d->name, NULL, extra, used, &out->v[out->n]);
    if (rc) return rc;
    out->n++;
  }
  return 0;
}

/* The summary: per (P, m), the fastest verified point and its lead over
 * the next. */
static void summary_line(const struct cli_point *g, int n, const tutti_model_t *m, int modeled) {
  int best = -1, next = -1;
  for (int i = 0; i < n; i++) {
    if (g[i].skipped || g[i].failed || !g[i].verified) continue;
    if (best < 0 || g[i].time < g[best].time)
      next = best, best = i;
    else if (next < 0 || g[i].time < g[next].time)
      next = i;
  }
  char sz[32], t[64], spec[256] = "", lead[64] = "";
  int ties = 0;
  for (int i = 0; i < n; i++)
    ties += i != best && best >= 0 && !g[i].skipped && !g[i].failed && g[i].verified &&
            g[i].time == g[best].time;
  printf("%7d  %10s  ", g[0].nranks, tutti_format_bytes(g[0].bytes, sz, sizeof sz));
  if (best < 0) {
    printf("(no verified run)\n");
    return;
  }
  tutti_algo_format(g[best].algo, spec, sizeof spec);
  if (ties)
    snprintf(lead, sizeof lead, "tied with %d other%s", ties, ties == 1 ? "" : "s");
  else if (next >= 0 && g[best].time > 0)
    snprintf(lead, sizeof lead, "%.3fx", g[next].time / g[best].time);
  printf("%-40s  %14s  %s\n", spec,
         modeled ? tutti_format_model_time(m, g[best].time, t, sizeof t)
                 : tutti_format_time(g[best].time, t, sizeof t),
         lead);
}

int tutti_cli_sweep(int argc, char **argv) {
  cli_keep_memory();
  struct cli_opts o;
  int st = cli_parse_world("sweep", SWEEP_OPTS, 1, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    help();
    return 0;
  }
  if (o.npos < 1)
    return cli_fail(CLI_EUSAGE, "sweep", "missing COLL; accepted: %s", cli_coll_names());
  int coll;
  if (tutti_coll_find(o.pos[0], &coll))
    return cli_fail(CLI_EUSAGE, "sweep", "unknown collective '%s'; accepted: %s", o.pos[0],
                    cli_coll_names());
  int json = (o.given & CLI_O(JSON)) != 0;
  int csv_stdout = !json && (!o.csv || !strcmp(o.csv, "-"));
  if (json && o.csv && !strcmp(o.csv, "-"))
    return cli_fail(CLI_EUSAGE, "sweep",
                    "--csv -: stdout carries the JSON; accepted: --csv FILE with --json");
  if (o.plot && !plot_format(o.plot))
    return cli_fail(CLI_EUSAGE, "sweep",
                    "--plot: '%s' is not .svg or .png; accepted: FILE.svg, "
                    "FILE.png",
                    o.plot);

  int *ranks = NULL, nranks = 0, nsizes = 0;
  size_t *sizes = NULL;
  struct algos al = {0};
  FILE *csv = NULL;
  struct cli_out csv_out = {0}, plot_out = {0}; /* --csv FILE, --plot FILE */
  plot_t *plot = NULL;
  tutti_machine_t mach;
  int have_mach = 0;
  tutti_rules_t *rules = NULL; /* --rules: what `auto` follows */
  if ((st = cli_rules("sweep", &o, &rules))) goto out;
  if (o.ranks_list) {
    if ((st = cli_parse_ranks("sweep", o.ranks_list, SWEEP_MAX_RANKS, &ranks, &nranks))) goto out;
  } else if ((st = cli_parse_ranks("sweep", "16", SWEEP_MAX_RANKS, &ranks, &nranks))) {
    goto out;
  }
  int data = (tutti_coll_traits(coll) & TUTTI_COLL_DATA) != 0;
  if (!data && (o.given & CLI_O(SIZES))) {
    st = cli_fail(CLI_EUSAGE, "sweep", "--sizes: %s moves no data; accepted: --ranks alone",
                  tutti_coll_name(coll));
    goto out;
  }
  if ((st = cli_parse_sizes("sweep", data ? o.sizes ? o.sizes : SWEEP_DEFAULT_SIZES : "0", &sizes,
                            &nsizes)))
    goto out;
  uint64_t used = 0;
  st = o.algos ? parse_algos("sweep", coll, o.algos, o.params, &used, &al)
               : all_algos("sweep", coll, o.params, &used, &al);
  if (st) goto out;
  int k = 0;
  for (const char *s = o.params; *s; k++) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    if (k < 64 && !(used >> k & 1u)) {
      const char *eq = strchr(s, '='); /* cli_parse checked K=V */
      st = cli_fail(CLI_EUSAGE, "sweep",
                    "--param: no chosen algorithm has '%.*s'; accepted: a parameter of one of "
                    "them (tutti list %s)",
                    (int)(eq && eq < s + len ? eq - s : (long)len), s, tutti_coll_name(coll));
      goto out;
    }
    s = comma ? comma + 1 : s + len;
  }
  for (int i = 0; i < nranks; i++)
    for (int s = 0; s < nsizes; s++)
      if (sizes[s] > SIZE_MAX / (size_t)ranks[i]) {
        st = cli_fail(CLI_EUSAGE, "sweep", "--sizes: too large for %d ranks; accepted: less",
                      ranks[i]);
        goto out;
      }
  /* the memory of every point and the job's time, before anything runs or is written */
  if ((st = cli_model("sweep", &o, ranks[0], &mach))) goto out;
  have_mach = 1;
  cli_mem_begin("sweep", &o, 1, &mach.model);
  for (int i = 0; i < nranks && !st; i++)
    for (int s = 0; s < nsizes && !st; s++)
      for (int a = 0; a < al.n && !st; a++)
        st = cli_mem_add(coll, tutti_algo_desc(al.v[a])->name, ranks[i], sizes[s]);
  double weight = 0;
  if (st || (st = cli_mem_plan(&weight))) goto out;
  if (o.csv && strcmp(o.csv, "-") && (st = cli_out_open(&csv_out, "sweep", "--csv", o.csv, 0)))
    goto out;
  csv = csv_stdout ? stdout : csv_out.f;
  if (o.plot && (st = cli_out_open(&plot_out, "sweep", "--plot", o.plot, 0))) goto out;

  /* the first machine names the profile and model for the header */
  int modeled = mach.model.preset != TUTTI_MODEL_NONE;
  if (o.no_data && !modeled) {
    st = cli_fail(CLI_EUSAGE, "sweep",
                  "--no-data: the none model has no modeled time to measure; accepted: "
                  "--no-data with a cost model (--model hockney:..., --profile)");
    goto out;
  }
  if (mach.topo && !modeled) {
    st = cli_fail(CLI_EUSAGE, "sweep",
                  "--topology: the none model has no modeled time for links to shape; "
                  "accepted: a topology with a cost model (--model hockney:..., --profile)");
    goto out;
  }
  char title[512], desc[512] = "";
  tutti_model_describe(&mach.model, desc, sizeof desc);
  snprintf(title, sizeof title, "tutti sweep %s: %s", tutti_coll_name(coll), mach.label);
  /* A collective without data (barrier) is drawn against P, in one panel. */
  const int has_data = tutti_coll_traits(coll) & TUTTI_COLL_DATA;
  if (o.plot) {
    plot = plot_new(title, has_data ? "bytes per rank" : "ranks",
                    modeled ? "modeled time" : "wall time");
    if (!plot || plot_y_unit(plot, modeled ? tutti_model_time_unit(&mach.model) : "s") ||
        (!has_data && plot_x_ranks(plot))) {
      st = cli_fail(CLI_ERUNTIME, "sweep", "%s", tutti_strerror(TUTTI_ENOMEM));
      goto out;
    }
  }
  if (csv) cli_point_csv_header(csv);
  if (json) {
    printf("{\"collective\":");
    cli_json_str(stdout, tutti_coll_name(coll));
    printf(",\"profile\":");
    if (o.model)
      printf("null");
    else
      cli_json_str(stdout, mach.label);
    printf(",\"model\":");
    tutti_model_json(&mach.model, stdout);
    printf(",\"time_unit\":");
    cli_json_str(stdout, modeled ? tutti_model_time_unit(&mach.model) : "s");
    printf(",\"no_data\":%s,\"ranks\":[", o.no_data ? "true" : "false");
    for (int i = 0; i < nranks; i++) printf("%s%d", i ? "," : "", ranks[i]);
    printf("],\"sizes\":[");
    for (int s = 0; s < nsizes; s++) printf("%s%zu", s ? "," : "", sizes[s]);
    printf("],\"results\":[");
  } else if (!csv_stdout) {
    printf("%s\nmodel: %s\n", title, desc);
    printf("%7s  %10s  %-40s  %14s  %s\n", "ranks", "bytes",
           o.no_data ? "fastest (--no-data: not verified)" : "fastest (verified)",
           modeled ? "modeled time" : "wall time", "next is slower by");
  }

  struct cli_point *g = calloc((size_t)al.n, sizeof *g);
  if (!g) {
    st = cli_fail(CLI_ERUNTIME, "sweep", "%s", tutti_strerror(TUTTI_ENOMEM));
    goto out;
  }
  cli_progress_start("sweep", nranks * nsizes * al.n, weight, (o.given & CLI_O(QUIET)) != 0);
  int printed = 0;
  int runs = 0, nver = 0, nbad = 0, nskip = 0, nfail = 0;
  char first_bad[1024] = "", first_fail[1024] = "";
  for (int i = 0; i < nranks && !st; i++) {
    int P = ranks[i];
    if (i > 0) {
      tutti_machine_free(&mach);
      have_mach = 0;
      if ((st = cli_model("sweep", &o, P, &mach))) break;
      have_mach = 1;
    }
    tutti_config_t cfg = tutti_config_default(P);
    cfg.model = &mach.model;
    cli_config(&o, &cfg,
               (tutti_coll_traits(coll) & TUTTI_COLL_DATA) ? cli_max_size(sizes, nsizes) : 0);
    cfg.rules = rules;
    tutti_world_t *w = NULL;
    int rc = tutti_world_create(&w, &cfg);
    if (rc) {
      st = cli_fail(CLI_ERUNTIME, "sweep", "cannot create a world of %d ranks: %s", P,
                    tutti_strerror(rc));
      break;
    }
    for (int s = 0; s < nsizes; s++) {
      for (int a = 0; a < al.n; a++) {
        struct cli_point *r = &g[a];
        memset(r, 0, sizeof *r);
        r->algo = al.v[a], r->desc = tutti_algo_desc(al.v[a]), r->coll = coll, r->order = a;
        r->bytes = sizes[s];
      }
      cli_points_run(&w, &cfg, P, g, al.n);
      cli_progress_clear(); /* the rows below must not land on its line */
      double best = INFINITY;
      for (int a = 0; a < al.n; a++) {
        struct cli_point *r = &g[a];
        int ran = !r->skipped && !r->failed;
        nskip += r->skipped, nfail += r->failed, runs += ran, nver += ran && r->verified;
        nbad += ran && !r->verified;
        char *first = r->failed ? first_fail : ran && !r->verified ? first_bad : NULL;
        if (first && !first[0])
          snprintf(first, sizeof first_bad, "%s P=%d, %zu B: %s", r->desc->name, P, r->bytes,
                   r->note);
        if (ran && r->verified && r->time < best) best = r->time;
      }
      for (int a = 0; a < al.n; a++) {
        struct cli_point *r = &g[a];
        r->winner = !r->skipped && !r->failed && r->verified && r->time <= best * (1 + 1e-12);
        if (csv) cli_point_csv(csv, r, modeled);
        if (json) {
          fputs(printed++ ? ",\n  " : "\n  ", stdout);
          cli_point_json(stdout, r, modeled, 1);
        }
        if (plot && !r->skipped && !r->failed) {
          char spec[256], panel[32];
          tutti_algo_format(r->algo, spec, sizeof spec);
          if (has_data)
            snprintf(panel, sizeof panel, "P = %d", P);
          else
            snprintf(panel, sizeof panel, "%s", tutti_coll_name(coll));
          if (plot_add(plot, panel, spec, has_data ? (double)r->bytes : P, r->time)) {
            st = cli_fail(CLI_ERUNTIME, "sweep", "%s", tutti_strerror(TUTTI_ENOMEM));
            break;
          }
        }
      }
      if (!json && !csv_stdout) {
        summary_line(g, al.n, &mach.model, modeled);
        for (int a = 0; a < al.n; a++)
          if (g[a].timing_only[0]) { /* one line per group: every point has the same size */
            printf("%7s  %10s  %s\n", "", "", g[a].timing_only);
            break;
          }
      }
    }
    if (w) tutti_world_destroy(w);
  }
  free(g);
  cli_progress_end();
  if (st) goto out;
  if (json && o.no_data)
    printf("\n  ],\"runs\":%d,\"verified\":0,\"skipped\":%d,\"failed\":%d,\"all_verified\":null}\n",
           runs, nskip, nfail);
  else if (json)
    printf("\n  ],\"runs\":%d,\"verified\":%d,\"skipped\":%d,\"failed\":%d,\"all_verified\":%s}\n",
           runs, nver, nskip, nfail, nbad || nfail ? "false" : "true");
  else if (!csv_stdout && o.no_data)
    printf("%d runs, not verified (--no-data); %d skipped, %d failed\n", runs, nskip, nfail);
  else if (!csv_stdout)
    printf("%d runs: %d verified, %d not verified; %d skipped, %d failed\n", runs, nver, nbad,
           nskip, nfail);
  if ((st = cli_out_commit(&csv_out))) goto out;
  if (plot) {
    int prc = plot_write(plot, o.plot, plot_out.f, "tutti sweep");
    if (prc >= 2) {
      st = CLI_ERUNTIME;
      goto out;
    }
    if (!prc && (st = cli_out_commit(&plot_out))) goto out;
  }
  if (nfail)
    st = cli_fail(CLI_ERUNTIME, "sweep", "%d run%s failed; first: %s", nfail, nfail == 1 ? "" : "s",
                  first_fail);
  else if (nbad)
    st = cli_fail(CLI_EVERIFY, "sweep", "%d point%s failed verification; first: %s", nbad,
                  nbad == 1 ? "" : "s", first_bad);
out:
  cli_out_discard(&csv_out); /* what was not committed leaves no file */
  cli_out_discard(&plot_out);
  plot_free(plot);
  if (have_mach) tutti_machine_free(&mach);
  free(al.v);
  free(ranks);
  free(sizes);
  tutti_rules_free(rules);
  return st;
}

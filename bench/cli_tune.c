/*
 * cli_tune.c -- `tutti tune`: for every collective of the registry, every
 * registered algorithm with its registered parameter choices (each choice
 * word, and "auto" where a parameter takes it) at every (P, m) of the
 * grid, run and verified like a sweep point (cli_point.c); the fastest
 * verified per (P, m) wins (--no-data: timing only, nothing verified;
 * the modeled times are bit-identical, so are the winners). Adjacent
 * sizes with the same winner merge into one bucket. Out: a table on stdout, a rules file
 * (--rules-out, bench/CLI.md "Rules files") that --rules feeds back to `auto`, and the MPI
 * libraries' files (--ompi-rules, --ompi-rules-json, --mpich-rules: cli_rules*.c, from every
 * candidate's time per cell, kept for them). The loader of --rules, which run, sweep and suite
 * take, is cli_world.c's.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_rules.h"

#define TUNE_OPTS                                                                                  \
  (CLI_O(RANKS) | CLI_O(SIZES) | CLI_O(MODEL) | CLI_O(PROFILE) | CLI_O(TOPOLOGY) |                 \
   CLI_O(MAPPING) | CLI_O(LINKS) | CLI_O(RULES_OUT) | CLI_O(OMPI_RULES) | CLI_O(OMPI_RULES_JSON) | \
   CLI_O(MPICH_RULES) | CLI_O(NO_DATA) | CLI_O(RANKS_AS) | CLI_O(BIND) | CLI_O(STACK) |            \
   CLI_O(PLUGIN) | CLI_O(HELP) | CLI_O(QUIET) | CLI_O(MAX_MEMORY) | CLI_O(STRICT_MEMORY))
#define TUNE_DEFAULT_RANKS "8,32"
#define TUNE_DEFAULT_SIZES "8..64KiB"
#define TUNE_MAX_RANKS 4096
#define MAX_CANDIDATES TUNE_MAX_CANDIDATES

static void help(void) {
  printf("usage: tutti tune [--ranks LIST] [--sizes LIST] [--profile P | --model SPEC]\n"
         "                  [--topology SPEC|FILE ...] [--rules-out FILE] [--ompi-rules FILE]\n"
         "                  [--ompi-rules-json FILE] [--mpich-rules FILE] [--no-data]\n"
         "                  [--max-memory SIZE [--strict-memory]]\n\n"
         "For every collective (%s), run every registered\n"
         "algorithm -- at its defaults, with each other word of a choice parameter, and\n"
         "with \"auto\" where a parameter takes it -- at every rank count and size per rank\n"
         "of the lists, each result verified, and keep the fastest per (ranks, size).\n"
         "Adjacent sizes with the same winner merge into one bucket. The table gives the\n"
         "collective, the rank counts and byte range a bucket's rule covers, the winner\n"
         "with its parameters, its time (the range over the bucket's sizes) and its\n"
         "smallest lead over the runner-up. A rule covers from its measured rank count up\n"
         "to the next one, and from its first measured size up to the next bucket's\n"
         "(the first bucket from 0, the last with no end). --rules-out writes the rules\n"
         "file that --rules (run, sweep, suite) feeds to `auto`; --ompi-rules,\n"
         "--ompi-rules-json and --mpich-rules write the fastest algorithm each MPI library\n"
         "has, as Open MPI 4.1's coll/tuned rules, Open MPI 6.0's JSON rules and MPICH\n"
         "4.0's collective selection (bench/CLI.md \"MPI libraries' rules files\"; they\n"
         "need a cost model). --ranks default %s,\n"
         "--sizes default %s; barrier runs once per rank count. Reductions use sum on\n"
         "int32 (byte when a size is not a multiple of 4), root 0. --no-data: timing\n"
         "only -- the same modeled times, so the same winners and rules, no payload\n"
         "moved, nothing verified (needs a cost model). A point whose memory estimate\n"
         "passes --max-memory (default half of physical memory) runs timing only, with\n"
         "a line after the table; --strict-memory stops instead.\n"
         "Exit: 0 done, 1 a verification failed, 2 bad usage, 3 a run failed or a file\n"
         "could not be written.\n\n"
         "options:\n",
         cli_coll_names(), TUNE_DEFAULT_RANKS, TUNE_DEFAULT_SIZES);
  cli_print_options(stdout, TUNE_OPTS);
}

/* ------------------------------------------------------------ candidates */

/* Every non-auto algorithm of coll: defaults, each other choice word (no
 * word taking a list), "auto" for a parameter that takes it and does not
 * default to it. */
static int candidates(int coll, const tutti_algo_t **v, int max) {
  int n = 0;
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) && n < max; i++) {
    if (d->coll != coll || tutti_algo_is_auto(d)) continue;
    if (!tutti_algo_select(coll, d->name, NULL, &v[n], NULL, 0)) n++;
    for (int k = 0; k < d->nparams && n < max; k++) {
      const tutti_param_desc_t *p = &d->params[k];
      char params[128];
      if (p->type == TUTTI_PARAM_CHOICE) {
        for (int w = 0; p->choices[w] && n < max; w++) {
          const char *word = p->choices[w];
          if (w == (int)p->def || word[strlen(word) - 1] == ':') continue;
          snprintf(params, sizeof params, "%s=%s", p->name, word);
          if (!tutti_algo_select(coll, d->name, params, &v[n], NULL, 0)) n++;
        }
      } else if ((p->flags & TUTTI_PARAM_AUTO_OK) && !(p->flags & TUTTI_PARAM_AUTO_DEFAULT)) {
        snprintf(params, sizeof params, "%s=auto", p->name);
        if (!tutti_algo_select(coll, d->name, params, &v[n], NULL, 0)) n++;
      }
    }
  }
  return n;
}

/* pipelined-chain:order=dfs: without a topology its chain is the rank
 * order's (bench/CLI.md), the same run as the default's to the event, and
 * at 1024 ranks and 64 MiB that run is 8.5 million messages -- the
 * largest share of a large tune: run only where a topology sets it apart. */
static int chain_in_dfs_order(const tutti_algo_t *a) {
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  return tutti_algo_builtin(d) && !strcmp(d->name, "pipelined-chain") &&
         tutti_algo_param(a, "order") == 1;
}

/* ------------------------------------------------------------ cells */

/* A cell (cli_rules.h: struct tune_cell) holds every candidate's time of
 * one (coll, P, m), its winner and the runner-up: the fastest other
 * algorithm (a variant of the winner's own is not a rival). */

/* A bucket: the cells [first, last] of one (coll, P) with the same winner. */
struct bucket {
  int first, last;
  size_t lo, hi; /* the rule's byte range */
  int P, Pnext;  /* ranks P..Pnext-1 (Pnext 0: no end) */
};

static int same_winner(const struct tune_cell *a, const struct tune_cell *b) {
  return a->ok && b->ok && !strcmp(a->spec, b->spec);
}

static int cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}
static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Buckets of the cells of one (coll, P): cells[first..first+n). */
static int make_buckets(const struct tune_cell *c, int first, int n, int P, int Pnext,
                        struct bucket *out) {
  int nb = 0;
  for (int i = first; i < first + n; i++) {
    if (!c[i].ok) continue;
    if (nb && same_winner(&c[out[nb - 1].last], &c[i]) && out[nb - 1].last == i - 1) {
      out[nb - 1].last = i;
      continue;
    }
    out[nb++] = (struct bucket){i, i, c[i].m, TUTTI_RULES_NO_LIMIT, P, Pnext};
  }
  if (nb) out[0].lo = 0;
  for (int b = 0; b + 1 < nb; b++) out[b].hi = out[b + 1].lo - 1;
  return nb;
}

/* The smallest lead of the bucket's winner over its runner-up, as a
 * fraction of the winner's time; INFINITY when nothing else ran. */
static double bucket_lead(const struct tune_cell *c, const struct bucket *b, const char **who) {
  double lead = INFINITY;
  *who = "";
  for (int i = b->first; i <= b->last; i++) {
    if (!isfinite(c[i].t2)) continue;
    double l = c[i].t > 0 ? (c[i].t2 - c[i].t) / c[i].t : (c[i].t2 > 0 ? INFINITY : 0);
    if (l < lead || !*who[0]) lead = l, *who = c[i].spec2;
  }
  return lead;
}

/* ------------------------------------------------------------ the command */

/* The bytes per segment the run of candidate a used (r: its point): a
 * `segment` parameter's, or pipelined-chain's (segments=auto resolves per
 * run from the model: S segments are S sends per rank of the chain but
 * the last, the longest of them ceil(m / S) bytes); 0 for one message. */
static long segment_bytes(const tutti_algo_t *a, int P, size_t m, const struct cli_point *r) {
  double seg = tutti_algo_param(a, "segment");
  if (isfinite(seg) && seg > 0) return (long)seg;
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  if (!tutti_algo_builtin(d) || strcmp(d->name, "pipelined-chain") || P < 2 || !m) return 0;
  uint64_t S = r->res.report.messages / (uint64_t)(P - 1);
  return S > 1 ? (long)((m + S - 1) / S) : 0;
}

/* A tune's runs: groups of points, one (collective, rank count) each, on
 * one world. A timing-only tune runs a group per core at once (the
 * groups share nothing but the counters below, under mu; each writes
 * only its own cells, so the results do not depend on the order); with
 * data one at a time, so that one point's buffers are what the memory
 * estimate counts. The largest rank counts go first: the last group to
 * finish is then a short one. */
struct tune_run {
  const char *cmd;
  const struct cli_opts *o;
  struct tune_result *t;
  double *times;
  long *segs;
  int (*group)[2]; /* (collective, rank index), largest P first */
  int ngroups;
  pthread_mutex_t mu;
  int next, st, nbad, ntiming; /* under mu */
  char first_timing[512];
};

/* Lay out every collective's cells: its candidates, then nranks x per
 * cells from first[coll]. */
static void layout(struct tune_result *t) {
  t->ncells = 0;
  for (int coll = 0; coll < TUTTI_COLL_N; coll++) {
    t->ncand[coll] = candidates(coll, t->cand[coll], MAX_CANDIDATES);
    t->per[coll] = (tutti_coll_traits(coll) & TUTTI_COLL_DATA) ? t->nsizes : 1;
    t->first[coll] = t->ncells;
    t->ncells += t->nranks * t->per[coll];
  }
}

/* Run every candidate of coll at every m on ranks[i]: 0, or the exit
 * status of a failure (said on stderr). */
static int measure(struct tune_run *g, int coll, int i) {
  struct tune_result *t = g->t;
  const struct cli_opts *o = g->o;
  const tutti_algo_t **cand = t->cand[coll];
  int nc = t->ncand[coll], ns = t->per[coll], st = 0, P = t->ranks[i];
  int data = (tutti_coll_traits(coll) & TUTTI_COLL_DATA) != 0;
  tutti_machine_t mach;
  pthread_mutex_lock(&g->mu); /* a bad flag is said once, by the first */
  st = g->st ? g->st : cli_model(g->cmd, o, P, &mach);
  pthread_mutex_unlock(&g->mu);
  if (st) return st;
  tutti_config_t cfg = tutti_config_default(P);
  cfg.model = &mach.model;
  cli_config(o, &cfg, data ? cli_max_size(t->sizes, t->nsizes) : 0);
  tutti_world_t *w = NULL;
  int rc = tutti_world_create(&w, &cfg);
  if (rc) {
    tutti_machine_free(&mach);
    pthread_mutex_lock(&g->mu);
    st = cli_fail(CLI_ERUNTIME, g->cmd, "cannot create a world of %d ranks: %s", P,
                  tutti_strerror(rc));
    pthread_mutex_unlock(&g->mu);
    return st;
  }
  for (int s = 0; s < ns && !st; s++) {
    int k = t->first[coll] + i * ns + s;
    struct tune_cell *c = &t->cells[k];
    *c = (struct tune_cell){.coll = coll,
                            .P = P,
                            .m = data ? t->sizes[s] : 0,
                            .times = g->times + (size_t)k * MAX_CANDIDATES,
                            .seg = g->segs + (size_t)k * MAX_CANDIDATES,
                            .best = -1,
                            .t = INFINITY,
                            .t2 = INFINITY};
    for (int a = 0; a < nc && !st; a++) {
      c->times[a] = INFINITY; /* skipped or not verified: out of the race */
      if (!mach.topo &&
          (chain_in_dfs_order(cand[a]) || tutti_algo_is_two_level(tutti_algo_desc(cand[a])))) {
        /* not run: counted as done (hierarchical without hosts is its inter
         * algorithm's run to the event, REFERENCE.md "Hierarchical") */
        cli_progress_done(
            cli_point_weight(coll, tutti_algo_desc(cand[a])->name, P, c->m, o->no_data));
        continue;
      }
      struct cli_point r = {
          .algo = cand[a], .desc = tutti_algo_desc(cand[a]), .coll = coll, .bytes = c->m};
      cli_point_run(&w, &cfg, P, &r);
      const char *name = tutti_algo_desc(cand[a])->name;
      pthread_mutex_lock(&g->mu);
      if (r.failed)
        st = cli_fail(CLI_ERUNTIME, g->cmd, "%s on %d ranks, %zu B: %s", name, P, c->m, r.note);
      else if (!r.skipped && r.timing_only[0] && !g->ntiming++)
        snprintf(g->first_timing, sizeof g->first_timing, "%s on %d ranks, %zu B: %s", name, P,
                 c->m, r.timing_only);
      if (!st && !r.skipped && !r.verified && !g->nbad++ && (cli_progress_clear(), 1))
        fprintf(stderr, "tutti %s: %s on %d ranks, %zu B: not verified: %s\n", g->cmd, name, P,
                c->m, r.note);
      if (g->st) st = g->st; /* another group failed: stop here too */
      pthread_mutex_unlock(&g->mu);
      if (st || r.skipped || !r.verified) continue;
      c->times[a] = r.time;
      c->seg[a] = segment_bytes(cand[a], P, c->m, &r);
      if (r.time < c->t * (1 - 1e-12)) /* a new best; ties: the first */
        c->t = r.time, c->best = a, c->ok = 1;
    }
    /* the runner-up: the fastest other algorithm (not a variant of the winner's) */
    for (int a = 0; c->ok && a < nc; a++)
      if (tutti_algo_desc(cand[a]) != tutti_algo_desc(cand[c->best]) &&
          c->times[a] < c->t2 * (1 - 1e-12)) {
        c->t2 = c->times[a];
        tutti_algo_format(cand[a], c->spec2, sizeof c->spec2);
      }
    if (c->ok) tutti_algo_format(cand[c->best], c->spec, sizeof c->spec);
  }
  if (w) tutti_world_destroy(w);
  tutti_machine_free(&mach);
  return st;
}

static void *tune_worker(void *arg) {
  struct tune_run *g = arg;
  for (;;) {
    pthread_mutex_lock(&g->mu);
    int k = g->st || g->next == g->ngroups ? -1 : g->next++;
    pthread_mutex_unlock(&g->mu);
    if (k < 0) return NULL;
    int st = measure(g, g->group[k][0], g->group[k][1]);
    pthread_mutex_lock(&g->mu);
    if (st && !g->st) g->st = st;
    pthread_mutex_unlock(&g->mu);
  }
}

static int cmp_group(const void *a, const void *b, void *ranks) {
  const int *x = a, *y = b, *P = ranks;
  if (P[x[1]] != P[y[1]]) return P[y[1]] - P[x[1]];
  return x[0] != y[0] ? x[0] - y[0] : 0;
}

/* Every group: on this thread, or (timing only) on one thread per core. */
static int measure_all(struct tune_run *g) {
  struct tune_result *t = g->t;
  g->group = malloc(sizeof *g->group * (size_t)TUTTI_COLL_N * (size_t)t->nranks);
  if (!g->group) return cli_fail(CLI_ERUNTIME, g->cmd, "%s", tutti_strerror(TUTTI_ENOMEM));
  for (int coll = 0; coll < TUTTI_COLL_N; coll++)
    for (int i = 0; i < t->nranks; i++)
      g->group[g->ngroups][0] = coll, g->group[g->ngroups][1] = i, g->ngroups++;
  qsort_r(g->group, (size_t)g->ngroups, sizeof *g->group, cmp_group, t->ranks);
  pthread_mutex_init(&g->mu, NULL);
  long cores = g->o->no_data ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
  pthread_t th[64];
  int nth = cores < 1 ? 1 : cores > 64 ? 64 : (int)cores, started = 0;
  for (int k = 1; k < nth; k++) started += !pthread_create(&th[started], NULL, tune_worker, g);
  tune_worker(g); /* this thread is one of them */
  for (int k = 0; k < started; k++) pthread_join(th[k], NULL);
  pthread_mutex_destroy(&g->mu);
  free(g->group);
  return g->st;
}

/* The buckets of collective coll at rank index i. */
static int coll_buckets(const struct tune_result *t, int coll, int i, struct bucket *out) {
  int n = t->per[coll];
  return make_buckets(t->cells, t->first[coll] + i * n, n, t->ranks[i],
                      i + 1 < t->nranks ? t->ranks[i + 1] : 0, out);
}

static void print_table(const struct tune_result *t, const tutti_model_t *m, const char *label,
                        int no_data, struct bucket *bk) {
  char desc[512] = "";
  tutti_model_describe(m, desc, sizeof desc);
  printf("tutti tune: the fastest %s per (ranks, size)\nmodel: %s",
         no_data ? "algorithm, timing only (--no-data: nothing verified)," : "verified algorithm",
         desc);
  if (label) printf("  [profile %s]", label);
  printf("\n");
  printf("%-10s  %-8s  %-16s  %-20s  %6s  %-40s  %s\n", "collective", "ranks", "bytes", "time",
         "lead", "winner", "(runner-up)");
  for (int coll = 0; coll < TUTTI_COLL_N; coll++)
    for (int i = 0; i < t->nranks; i++) {
      int nb = coll_buckets(t, coll, i, bk);
      for (int b = 0; b < nb; b++) {
        const struct tune_cell *c = t->cells;
        char pr[32], br[80], t1[32], t2[32], tr[80], lead[32], next[300] = "";
        if (bk[b].Pnext)
          snprintf(pr, sizeof pr, "%d..%d", bk[b].P, bk[b].Pnext - 1);
        else
          snprintf(pr, sizeof pr, "%d..", bk[b].P);
        tutti_format_model_time(m, c[bk[b].first].t, t1, sizeof t1);
        tutti_format_model_time(m, c[bk[b].last].t, t2, sizeof t2);
        if (bk[b].first == bk[b].last)
          snprintf(tr, sizeof tr, "%s", t1);
        else
          snprintf(tr, sizeof tr, "%s..%s", t1, t2);
        const char *who;
        double l = bucket_lead(c, &bk[b], &who);
        if (!isfinite(l)) {
          snprintf(lead, sizeof lead, "-"); /* nothing else ran */
        } else {
          snprintf(lead, sizeof lead, "%.1f%%", 100 * l);
          snprintf(next, sizeof next, "(%s)", who);
        }
        if (bk[b].hi == TUTTI_RULES_NO_LIMIT)
          snprintf(br, sizeof br, "%zu..", bk[b].lo);
        else
          snprintf(br, sizeof br, "%zu..%zu", bk[b].lo, bk[b].hi);
        printf("%-10s  %-8s  %-16s  %-20s  %6s  %-40s  %s\n", tutti_coll_name(coll), pr, br, tr,
               lead, c[bk[b].first].spec, next);
      }
    }
}

/* The rules file on f (--rules-out; its writer checks the writes). */
static void write_rules(FILE *f, const struct tune_result *t, const tutti_model_t *m, int no_data,
                        struct bucket *bk) {
  char desc[512] = "";
  tutti_model_describe(m, desc, sizeof desc);
  fprintf(f,
          "; tutti rules file, written by tutti tune (bench/CLI.md \"Rules files\")\n"
          "; model: %s\n"
          "; A rule applies from its 'ranks =' up to the next one, to the bytes per rank\n"
          "; of its range; `auto` follows it with --rules FILE.\n",
          desc);
  if (no_data) fprintf(f, "; timing only (--no-data): the same times, nothing verified\n");
  /* the plugins whose algorithms won somewhere: loaded again by the reader */
  for (int i = 0; i < t->ncells; i++) {
    const struct tune_cell *ci = &t->cells[i];
    const tutti_algo_desc_t *d = ci->ok ? tutti_algo_desc(t->cand[ci->coll][ci->best]) : NULL;
    const char *origin = d && !tutti_algo_builtin(d) ? tutti_algo_origin(d) : NULL;
    int seen = 0;
    for (int k = 0; origin && k < i && !seen; k++) {
      const struct tune_cell *ck = &t->cells[k];
      const tutti_algo_desc_t *e = ck->ok ? tutti_algo_desc(t->cand[ck->coll][ck->best]) : NULL;
      seen = e && tutti_algo_origin(e) == origin;
    }
    if (origin && !seen) fprintf(f, "plugin = %s\n", origin);
  }
  for (int coll = 0; coll < TUTTI_COLL_N; coll++) {
    fprintf(f, "\n[%s]\n", tutti_coll_name(coll));
    for (int i = 0; i < t->nranks; i++) {
      int nb = coll_buckets(t, coll, i, bk);
      if (!nb) continue;
      fprintf(f, "ranks = %d\n", t->ranks[i]);
      for (int b = 0; b < nb; b++) {
        const struct tune_cell *c = t->cells;
        char a[32], z[32], tm[32];
        fprintf(f, "; measured %s..%s: %s\n", tutti_format_bytes(c[bk[b].first].m, a, sizeof a),
                tutti_format_bytes(c[bk[b].last].m, z, sizeof z),
                tutti_format_model_time(m, c[bk[b].first].t, tm, sizeof tm));
        if (bk[b].hi == TUTTI_RULES_NO_LIMIT)
          fprintf(f, "%zu.. = %s\n", bk[b].lo, c[bk[b].first].spec);
        else
          fprintf(f, "%zu..%zu = %s\n", bk[b].lo, bk[b].hi, c[bk[b].first].spec);
      }
    }
  }
}

/* The files tune writes: its own rules file, then the MPI libraries'. */
enum { OUT_RULES, OUT_OMPI, OUT_OMPI_JSON, OUT_MPICH, NOUTS };
static const char *const out_flag[NOUTS] = {"--rules-out", "--ompi-rules", "--ompi-rules-json",
                                            "--mpich-rules"};

int tutti_cli_tune(int argc, char **argv) {
  cli_keep_memory();
  const char *cmd = "tune";
  struct cli_opts o;
  int st = cli_parse_world(cmd, TUNE_OPTS, 0, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    help();
    return 0;
  }
  struct tune_result t = {0};
  struct bucket *bk = NULL;
  double *times = NULL;
  long *segs = NULL;
  struct cli_out out[NOUTS] = {{0}};
  const char *path[NOUTS] = {o.rules_out, o.ompi_rules, o.ompi_rules_json, o.mpich_rules};
  const char *rtext = o.ranks_list ? o.ranks_list : TUNE_DEFAULT_RANKS;
  const char *stext = o.sizes ? o.sizes : TUNE_DEFAULT_SIZES;
  if ((st = cli_parse_ranks(cmd, rtext, TUNE_MAX_RANKS, &t.ranks, &t.nranks))) goto out;
  if ((st = cli_parse_sizes(cmd, stext, &t.sizes, &t.nsizes))) goto out;
  qsort(t.ranks, (size_t)t.nranks, sizeof *t.ranks, cmp_int);
  qsort(t.sizes, (size_t)t.nsizes, sizeof *t.sizes, cmp_size);
  size_t ncells = (size_t)TUTTI_COLL_N * (size_t)t.nranks * (size_t)t.nsizes;
  t.cells = calloc(ncells, sizeof *t.cells);
  times = malloc(ncells * MAX_CANDIDATES * sizeof *times);
  segs = calloc(ncells * MAX_CANDIDATES, sizeof *segs);
  bk = calloc((size_t)t.nsizes, sizeof *bk);
  if (!t.cells || !times || !segs || !bk) {
    st = cli_fail(CLI_ERUNTIME, cmd, "%s", tutti_strerror(TUTTI_ENOMEM));
    goto out;
  }
  /* the model once, for its description (and to fail early on bad flags) */
  tutti_machine_t mach;
  if ((st = cli_model(cmd, &o, t.ranks[0], &mach))) goto out;
  for (int i = 0; i < NOUTS && !st; i++)
    if (path[i]) st = cli_out_open(&out[i], cmd, out_flag[i], path[i], 0);
  if (!st && o.no_data && mach.model.preset == TUTTI_MODEL_NONE)
    st = cli_fail(CLI_EUSAGE, cmd,
                  "--no-data: the none model has no modeled time to measure; accepted: "
                  "--no-data with a cost model (--model hockney:..., --profile)");
  /* an MPI library's rules rank algorithms by the modeled time of a
   * machine: a model without costs gives the wall time of threads here */
  char who[1100];
  if (o.model)
    snprintf(who, sizeof who, "--model %s", o.model);
  else
    snprintf(who, sizeof who, "profile %s", o.profile ? o.profile : mach.label);
  for (int i = OUT_OMPI; i < NOUTS && !st; i++)
    if (path[i] && mach.model.preset == TUTTI_MODEL_NONE)
      st = cli_fail(CLI_EUSAGE, cmd,
                    "%s: %s has no latency or bandwidth to rank the algorithms by (the none "
                    "model); accepted: a profile or --model with costs (hockney, postal, logp, "
                    "loggp, custom)",
                    out_flag[i], who);
  if (st) {
    tutti_machine_free(&mach);
    goto out;
  }
  t.profile = o.model ? NULL : mach.label;
  t.model_spec = o.model;
  t.topology = o.topology;
  t.model = &mach.model;
  tutti_model_describe(&mach.model, t.model_desc, sizeof t.model_desc);
  t.ranks_text = rtext, t.sizes_text = stext, t.no_data = o.no_data;
  int npoints = 0;
  double weight = 0;
  layout(&t);
  cli_mem_begin(cmd, &o, 1, &mach.model);
  for (int coll = 0; coll < TUTTI_COLL_N && !st; coll++) {
    const tutti_algo_t *cand[MAX_CANDIDATES];
    int nc = candidates(coll, cand, MAX_CANDIDATES);
    int data = (tutti_coll_traits(coll) & TUTTI_COLL_DATA) != 0;
    for (int i = 0; i < t.nranks && !st; i++)
      for (int s = 0; s < (data ? t.nsizes : 1) && !st; s++, npoints += nc) {
        for (int a = 0; a < nc && !st; a++)
          st = cli_mem_add(coll, tutti_algo_desc(cand[a])->name, t.ranks[i], data ? t.sizes[s] : 0);
      }
  }
  if (st || (st = cli_mem_plan(&weight))) {
    tutti_machine_free(&mach);
    goto out;
  }
  cli_progress_start(cmd, npoints, weight, (o.given & CLI_O(QUIET)) != 0);
  struct tune_run g = {.cmd = cmd, .o = &o, .t = &t, .times = times, .segs = segs};
  st = measure_all(&g);
  int nbad = g.nbad, ntiming = g.ntiming;
  const char *first_timing = g.first_timing;
  cli_progress_end();
  if (!st) {
    print_table(&t, &mach.model, o.model ? NULL : mach.label, o.no_data, bk);
    if (ntiming) /* verified is not what they are: their winners are by time alone */
      printf("%d point%s ran timing only (over --max-memory), not verified; first: %s\n", ntiming,
             ntiming == 1 ? "" : "s", first_timing);
    if (path[OUT_RULES]) write_rules(out[OUT_RULES].f, &t, &mach.model, o.no_data, bk);
    int rc = 0;
    if (path[OUT_OMPI]) rc = rules_write_ompi(out[OUT_OMPI].f, &t);
    if (!rc && path[OUT_OMPI_JSON]) rc = rules_write_ompi_json(out[OUT_OMPI_JSON].f, &t);
    if (!rc && path[OUT_MPICH]) rc = rules_write_mpich(out[OUT_MPICH].f, &t);
    if (rc) st = cli_fail(CLI_ERUNTIME, cmd, "writing the rules: %s", tutti_strerror(rc));
    for (int i = 0; i < NOUTS && !st; i++) st = cli_out_commit(&out[i]);
  }
  tutti_machine_free(&mach);
  if (!st && nbad)
    st = cli_fail(CLI_EVERIFY, cmd, "%d point%s failed verification (left out of the rules)", nbad,
                  nbad == 1 ? "" : "s");
out:
  for (int i = 0; i < NOUTS; i++) cli_out_discard(&out[i]); /* uncommitted: no file */
  free(t.cells);
  free(times);
  free(segs);
  free(t.ranks);
  free(t.sizes);
  free(bk);
  return st;
}

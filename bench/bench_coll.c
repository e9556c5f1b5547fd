/*
 * bench_coll.c -- `tutti bench coll [COLL ...]`: the native wall time per
 * call of every registered algorithm of each collective asked (all of them
 * by default), at native speed (the none model), with the ranks run in
 * each way asked (--ranks-as: the default way, threads, fibers), beside
 * the MPI library's own collective (MPI_Bcast for bcast, ...) when Open MPI
 * is installed: bench_coll_mpi.c, built with mpicc and run under `mpirun
 * --oversubscribe -n P` by mpijob.c.
 *
 * How a figure is made. Every (collective, P, size) is a block with a
 * world per way of running the ranks (the default way's is the world the
 * command would make for a run of that size: cli_world.c cli_default_way). Each world's first run
 * sizes a batch of each algorithm (about TARGET seconds of calls, from a batch of at least an
 * eighth of it: the first calls of a run are slow). Then rounds follow, each a run of every world
 * and a batch of Open MPI's, in an order that rotates from round to round; no side runs while
 * another is timed (rank threads exist only during their world's run, the MPI processes sleep on a
 * FIFO). In a run, each algorithm makes a few untimed calls (a run sets up channels and fastboxes
 * anew), then every rank passes a barrier and times its own batch; a batch's time per call is the
 * maximum over ranks. Reported: the median over rounds of each side, and ratios as medians of the
 * per-round ratios -- the host is shared and its speed swings between rounds, and a slow round
 * slows every side alike.
 *
 * Buffers: root 0; reductions sum int32 (uint8 when the size is not a
 * multiple of 4 bytes), as `tutti suite` does; results are not checked
 * here (`tutti run` and `tutti suite` check them).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "stats.h"
#include "cli.h"
#include "mpijob.h"
#include "tutti/tutti.h"

int tutti_bench_coll(int argc, char **argv);

#define CMD "bench coll" /* cli_fail's "tutti bench coll: " */
#define MAXA 64          /* algorithms of one collective */
#define MAX_RANKS 4096
#define WARM 4       /* the first sizing batch's calls */
#define TARGET 20e-3 /* seconds a batch should last */
#define MAX_BATCH 100000

/* The ways of running the ranks a block compares (--ranks-as). */
enum { DEF, THR, FIB, NMODE };
static const char *const mode_name[NMODE] = {"default", "threads", "fibers"};
static const char *const mode_short[NMODE] = {"def", "thr", "fib"};

/* ------------------------------------------------------------ one run */

/* One (collective, P, size): the algorithms that can run, the worlds, the
 * times. */
struct cx {
  int P, na, rounds, nm;    /* nm: ways measured, mode[0..nm) */
  int mode[NMODE];          /* DEF, THR, FIB */
  tutti_world_t *w[NMODE];  /* per way measured */
  struct cli_job job[MAXA]; /* the algorithms, each with count, type, op */
  int batch[NMODE][MAXA];   /* calls per timed batch, per way and algorithm */
  /* the run under way: which way (index into mode), sizing or timed */
  int cur, sizing;
  double *per;                   /* [j * P + rank]: the run's seconds per call (relaxed atomics) */
  unsigned char **a, **b, **big; /* per rank, kept from run to run */
  double *t;         /* [(k * nm + m) * na + j]: round k, way m, algorithm j; max over ranks */
  struct mpijob *mj; /* NULL: no Open MPI column */
  double *tm;        /* per round: Open MPI's seconds per call; 0 none, -1 failed */
  int mbatch;        /* Open MPI's calls per batch, the last round's */
  char mpi_why[512];
};

static int calls_of(tutti_rank_t *r, struct cx *x, int j, int calls) {
  int me = tutti_rank(r), rc = 0;
  for (int i = 0; i < calls && !rc; i++)
    rc = cli_call(r, &x->job[j], 0, x->a[me], x->b[me], x->big[me]);
  return rc;
}

static void put(struct cx *x, int j, int me, double v) {
  __atomic_store(&x->per[(size_t)j * (size_t)x->P + (size_t)me], &v, __ATOMIC_RELAXED);
}

/* The slowest rank's seconds per call of algorithm j in this run. */
static double slowest(struct cx *x, int j) {
  double m = 0, v;
  for (int i = 0; i < x->P; i++) {
    __atomic_load(&x->per[(size_t)j * (size_t)x->P + (size_t)i], &v, __ATOMIC_RELAXED);
    m = v > m ? v : m;
  }
  return m;
}

/* Rank me's buffers, made in its world's first run (first touched by the
 * thread that runs it) and kept for the block: inputs ones, results 0. */
static int buffers(struct cx *x, int me) {
  const struct cli_job *j0 = &x->job[0];
  size_t tsize = tutti_type_size(j0->type), blk = (size_t)j0->count * tsize;
  unsigned tr = tutti_coll_traits(j0->coll);
  int has_big = (tr & TUTTI_COLL_BLOCKS) && (me == 0 || !(tr & TUTTI_COLL_ROOTED));
  size_t nbig = (size_t)x->P * (tr & TUTTI_COLL_EXCHANGE ? 2 : 1); /* alltoall: send, receive */
  unsigned char *a = malloc(blk + 1), *b = malloc(blk + 1);
  unsigned char *big = has_big ? malloc(blk * nbig + 1) : NULL;
  if (!a || !b || (has_big && !big)) {
    free(a), free(b), free(big);
    return TUTTI_ENOMEM;
  }
  if (tsize == 4) {
    for (long i = 0; i < j0->count; i++) ((int32_t *)a)[i] = 1;
    for (size_t i = 0; big && i < (size_t)j0->count * nbig; i++) ((int32_t *)big)[i] = 1;
  } else {
    memset(a, 1, blk);
    if (big) memset(big, 1, blk * nbig);
  }
  memset(b, 0, blk);
  x->a[me] = a, x->b[me] = b, x->big[me] = big;
  return 0;
}

/* The sizing run's part for algorithm j: its batch from its slowest rank's
 * time per call in a batch of at least an eighth of TARGET (the MPI side
 * sizes its batch the same way, bench_coll_mpi.c). Every rank reads the
 * same times after the barrier, so all agree on each batch. */
static int size_batch(tutti_rank_t *r, struct cx *x, int j) {
  int me = tutti_rank(r), m = WARM, rc = 0;
  double w = 0;
  for (int pass = 0; pass < 6 && !rc; pass++) {
    if ((rc = tutti_barrier(r, NULL))) break;
    double t0 = bench_now();
    if ((rc = calls_of(r, x, j, m))) break;
    put(x, j, me, (bench_now() - t0) / m);
    if ((rc = tutti_barrier(r, NULL))) break;
    w = slowest(x, j);
    if (m * w >= TARGET / 8 || m >= MAX_BATCH) break;
    m = bench_batch(TARGET / 4, w, 1, MAX_BATCH);
  }
  if (me == 0) x->batch[x->cur][j] = bench_batch(TARGET, w, 1, MAX_BATCH);
  return rc;
}

static int rank_fn(tutti_rank_t *r, void *arg) {
  struct cx *x = arg;
  int me = tutti_rank(r), rc = 0;
  if (!x->a[me] && (rc = buffers(x, me))) return rc;
  for (int j = 0; j < x->na && !rc; j++) {
    if (x->sizing) {
      rc = size_batch(r, x, j);
      continue;
    }
    int n = x->batch[x->cur][j];
    /* untimed calls first: a run sets up its channels and fastboxes anew
     * (a pair gets its fastbox after 8 messages, runtime/fastbox.h) */
    if ((rc = calls_of(r, x, j, n < 8 ? 2 : 8)) || (rc = tutti_barrier(r, NULL))) break;
    double t0 = bench_now();
    rc = calls_of(r, x, j, n);
    put(x, j, me, (bench_now() - t0) / n);
  }
  return rc;
}

/* ------------------------------------------------------------ a block */

struct row {
  char name[160];
  char skipped[512]; /* why it cannot run here, or "" */
  int job;           /* index into cx.job when it runs */
};

/* Whether --algos (NULL: all) names registered algorithm d; its entry
 * (name with parameters) into spec. The entry `default` names each
 * collective's default algorithm. */
static int wanted(const char *algos, const tutti_algo_desc_t *d, char *spec, size_t n) {
  if (!algos) return snprintf(spec, n, "%s", d->name), 1;
  for (const char *s = algos; *s;) {
    size_t len = strcspn(s, ",");
    size_t name = strcspn(s, ",:");
    if (name == strlen(d->name) && !strncmp(s, d->name, name))
      return snprintf(spec, n, "%.*s", (int)len, s), 1;
    if (len == 7 && !strncmp(s, "default", 7) && d == tutti_algo_desc_default(d->coll))
      return snprintf(spec, n, "%s", d->name), 1;
    s += len + (s[len] == ',');
  }
  return 0;
}

/* How world w runs its ranks: "threads", "fibers on 2 workers". */
static const char *runs_as(const tutti_world_t *w, char *buf, size_t n) {
  int k = tutti_world_workers(w);
  if (k <= 0) return "threads";
  snprintf(buf, n, "fibers on %d worker%s", k, k == 1 ? "" : "s");
  return buf;
}

/* The world of way `mode` for P ranks and a run of `bytes` per rank. */
static int world_of(int mode, int P, size_t bytes, tutti_world_t **w) {
  tutti_config_t c = tutti_config_default(P);
  if (mode == THR) c.ranks_as = TUTTI_RANKS_AS_THREADS;
  if (mode == FIB) c.ranks_as = TUTTI_RANKS_AS_FIBERS;
  if (mode == DEF) cli_default_way(&c, TUTTI_RANKS_AS_DEFAULT, bytes);
  return tutti_world_create(w, &c);
}

/* One run of way m (index into x->mode): 0, or CLI_ERUNTIME after the
 * one-line error. */
static int run(struct cx *x, int m, int sizing, int coll) {
  x->cur = m, x->sizing = sizing;
  if (!tutti_world_run(x->w[m], rank_fn, x)) return 0;
  return cli_fail(CLI_ERUNTIME, CMD, "%s on %d ranks (%s): %s", tutti_coll_name(coll), x->P,
                  mode_name[x->mode[m]], tutti_world_error(x->w[m]));
}

/* The rounds: each a run of every way and Open MPI's batch, in turn. */
static int rounds(struct cx *x, int coll, size_t blk) {
  int sides = x->nm + (x->mj != NULL), st = 0;
  for (int m = 0; m < x->nm && !st; m++) st = run(x, m, 1, coll);
  for (int k = 0; k < x->rounds && !st; k++)
    for (int s = 0; s < sides && !st; s++) {
      int m = (k + s) % sides; /* the order rotates */
      if (m == x->nm) {
        if (x->mj->pid <= 0) continue; /* failed in an earlier round */
        x->tm[k] = mpijob_round(x->mj, tutti_coll_name(coll), blk, TARGET, &x->mbatch, x->mpi_why,
                                sizeof x->mpi_why);
        if (x->tm[k] < 0) mpijob_stop(x->mj, NULL);
        continue;
      }
      if ((st = run(x, m, 0, coll))) break;
      for (int j = 0; j < x->na; j++)
        x->t[((size_t)k * (size_t)x->nm + (size_t)m) * (size_t)x->na + (size_t)j] = slowest(x, j);
    }
  return st;
}

/* A cell of the table: "1.234 us", or "-" when not measured. */
static const char *cell(double v, char *buf, size_t n) {
  return isnan(v) ? "-" : tutti_format_time(v, buf, n);
}

static void print_rows(struct cx *x, const struct row *rows, int nrows) {
  int R = x->rounds, has_best = x->nm == NMODE, ways[NMODE];
  for (int m = 0; m < x->nm; m++) ways[x->mode[m]] = m;
  double v[1000], q[1000];
  for (int i = 0; i < nrows; i++) {
    if (rows[i].skipped[0]) {
      printf("  %-28s skipped: %s\n", rows[i].name, rows[i].skipped);
      continue;
    }
    int j = rows[i].job;
    double med[NMODE + 1];
    char buf[NMODE + 1][32], best[16] = "-", xm[16] = "-";
#define T(k, m) x->t[((size_t)(k) * (size_t)x->nm + (size_t)(m)) * (size_t)x->na + (size_t)j]
    for (int m = 0; m < x->nm; m++) {
      for (int k = 0; k < R; k++) v[k] = T(k, m);
      med[m] = bench_median(v, R);
    }
    int n = 0;
    for (int k = 0; k < R; k++)
      if (x->tm[k] > 0) v[n] = x->tm[k], q[n++] = x->tm[k] / T(k, 0);
    med[x->nm] = n ? bench_median(v, n) : NAN;
    if (n) snprintf(xm, sizeof xm, "%.2f", bench_median(q, n));
    if (has_best) {
      for (int k = 0; k < R; k++) v[k] = T(k, ways[DEF]) / fmin(T(k, ways[THR]), T(k, ways[FIB]));
      snprintf(best, sizeof best, "%.2f", bench_median(v, R));
    }
#undef T
    printf("  %-28s", rows[i].name);
    for (int m = 0; m <= x->nm; m++) printf(" %12s", cell(med[m], buf[m], sizeof buf[m]));
    printf(" %8s %8s %8d\n", best, xm, x->batch[0][j]);
  }
}

/* One (collective, P, size): rows, runs, the table. 0, or CLI_ERUNTIME
 * after the one-line error. */
static int block(int P, int coll, size_t bytes, const char *algos, int nrounds, const int *modes,
                 int nm, struct mpijob *mj) {
  unsigned tr = tutti_coll_traits(coll);
  int reduces = (tr & TUTTI_COLL_REDUCES) != 0;
  tutti_datatype_t type = reduces && bytes % 4 == 0 ? TUTTI_INT32 : TUTTI_BYTE;
  tutti_op_t op = reduces ? TUTTI_SUM : NULL;
  long count = (long)(bytes / tutti_type_size(type));
  struct cx *x = calloc(1, sizeof *x);
  struct row *rows = calloc(MAXA, sizeof *rows);
  int nrows = 0, st = 0;
  if (!x || !rows) {
    free(x), free(rows);
    return cli_fail(CLI_ERUNTIME, CMD, "%s", tutti_strerror(TUTTI_ENOMEM));
  }
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) && nrows < MAXA; i++) {
    char spec[160], err[512] = "";
    if (d->coll != coll || !wanted(algos, d, spec, sizeof spec)) continue;
    struct row *rw = &rows[nrows++];
    snprintf(rw->name, sizeof rw->name, "%s", spec);
    struct cli_job *j = &x->job[x->na];
    *j = (struct cli_job){.coll = coll, .count = count, .type = type, .op = op, .iters = 1};
    if (tutti_algo_select(coll, spec, NULL, &j->algo, err, sizeof err) ||
        tutti_algo_check_call(j->algo, P, 0, bytes, op, err, sizeof err)) {
      snprintf(rw->skipped, sizeof rw->skipped, "%s", err);
      continue;
    }
    rw->job = x->na++;
  }
  if (!nrows) { /* --algos named none of this collective's */
    free(x), free(rows);
    return 0;
  }
  x->P = P, x->rounds = nrounds, x->nm = nm, x->mj = mj && mj->pid > 0 ? mj : NULL;
  memcpy(x->mode, modes, (size_t)nm * sizeof *modes);
  char sb[32], how[48];
  for (int m = 0; m < nm && !st; m++)
    if (world_of(modes[m], P, bytes, &x->w[m]))
      st = cli_fail(CLI_ERUNTIME, CMD, "cannot create a world of %d ranks (%s)", P,
                    mode_name[modes[m]]);
  printf("\n%s on %d ranks", tutti_coll_name(coll), P);
  if (tr & TUTTI_COLL_DATA)
    printf(", %s per rank (%ld x %s%s%s)", tutti_format_bytes(bytes, sb, sizeof sb), count,
           tutti_type_name(type), op ? ", " : "", op ? tutti_op_name(op) : "");
  if (tr & TUTTI_COLL_ROOTED) printf(", root 0");
  printf(": median of %d rounds", nrounds);
  for (int m = 0; m < nm && !st; m++)
    if (modes[m] == DEF) printf("; default: %s", runs_as(x->w[m], how, sizeof how));
  printf("\n  %-28s", "algorithm");
  for (int m = 0; m < nm; m++) printf(" %12s", mode_name[modes[m]]);
  char xm[16];
  snprintf(xm, sizeof xm, "MPI/%s", mode_short[modes[0]]);
  printf(" %12s %8s %8s %8s\n", "Open MPI", "x best", xm, "batch");
  size_t blk = (size_t)count * tutti_type_size(type);
  x->per = calloc((size_t)x->na * (size_t)P + 1, sizeof *x->per);
  x->a = calloc((size_t)P, sizeof *x->a), x->b = calloc((size_t)P, sizeof *x->b);
  x->big = calloc((size_t)P, sizeof *x->big);
  x->t = calloc((size_t)nrounds * (size_t)nm * (size_t)x->na + 1, sizeof *x->t);
  x->tm = malloc((size_t)nrounds * sizeof *x->tm);
  if (!st && (!x->per || !x->a || !x->b || !x->big || !x->t || !x->tm))
    st = cli_fail(CLI_ERUNTIME, CMD, "%s", tutti_strerror(TUTTI_ENOMEM));
  for (int k = 0; !st && k < nrounds; k++) x->tm[k] = -1;
  if (!st && x->na == 0) { /* nothing runs: the rows say why */
    for (int i = 0; i < nrows; i++) printf("  %-28s skipped: %s\n", rows[i].name, rows[i].skipped);
    goto done;
  }
  if (st || (st = rounds(x, coll, blk))) goto done;
  print_rows(x, rows, nrows);
  int nmpi = 0; /* rounds with an Open MPI figure */
  for (int k = 0; k < nrounds; k++) nmpi += x->tm[k] > 0;
  if (x->mj && !nmpi && x->tm[0] == 0) /* the program has no twin of this collective */
    printf("  Open MPI: no %s here (bench_coll_mpi.c has no MPI twin of it)\n",
           tutti_coll_name(coll));
  else if (x->mj && !nmpi)
    printf("  Open MPI: failed: %s\n", x->mpi_why);
  else if (mj && !x->mj)
    printf("  Open MPI: not measured (its job on %d ranks was stopped after a failure)\n", P);
  else if (x->mj)
    printf("  Open MPI: %d calls a batch\n", x->mbatch);
  fflush(stdout);
done:
  for (int i = 0; x->a && i < P; i++) free(x->a[i]), free(x->b[i]), free(x->big[i]);
  for (int m = 0; m < nm; m++) tutti_world_destroy(x->w[m]);
  free(x->per), free(x->a), free(x->b), free(x->big), free(x->t), free(x->tm);
  free(x), free(rows);
  return st;
}

/* ------------------------------------------------------------ options */

static void usage(FILE *f) {
  fprintf(f,
          "usage: tutti bench coll [COLL ...] [options]\n\n"
          "Native wall time per call of every registered algorithm of each COLL (default: every\n"
          "collective) at native speed (the none model), with the ranks run the default way,\n"
          "as threads and as fibers, beside Open MPI's own collective, measured in turn each\n"
          "round of the same run (Open MPI: a small MPI program built with mpicc and run under\n"
          "mpirun --oversubscribe when Open MPI is installed, P up to %d). A batch's time per\n"
          "call is the maximum over ranks of each rank's time per call; the times are medians\n"
          "over rounds, x best (the default's time over the better of threads' and fibers')\n"
          "and MPI/def (Open MPI's over the default's: above 1, tutti is faster) medians of\n"
          "the per-round ratios; batch is the first way's calls in each timed loop (about %g\n"
          "ms of them). Root 0; reductions sum int32 (uint8 when the size is not a multiple\n"
          "of 4).\n\n"
          "options:\n"
          "  -n, --ranks LIST    rank counts, e.g. 2,16 (default 4; each in 1..%d)\n"
          "  -m, --bytes LIST    bytes per rank, e.g. 8,64KiB,1MiB (default 8,64KiB; barrier\n"
          "                      moves none)\n"
          "  --algos LIST        only these algorithms, with parameters if wanted:\n"
          "                      binomial,lambda-tree:lambda=0.7; default: each collective's\n"
          "                      default algorithm (default: all registered)\n"
          "  --ranks-as LIST     the ways to run the ranks, from default, threads, fibers\n"
          "                      (default all three)\n"
          "  --rounds K          rounds, 1..1000 (default 11)\n"
          "  --no-mpi            leave Open MPI out\n"
          "  -h, --help          this text\n\n"
          "Exit: 0 measured, 2 bad usage, 3 a run failed.\n",
          MPIJOB_MAX_P, TARGET * 1e3, MAX_RANKS);
}

/* --ranks-as: a list of distinct ways. 0, or CLI_EUSAGE after the error. */
static int parse_modes(const char *text, int *modes, int *n) {
  *n = 0;
  for (const char *s = text;;) {
    size_t len = strcspn(s, ",");
    int m = NMODE;
    for (int k = 0; k < NMODE; k++)
      if (len == strlen(mode_name[k]) && !strncmp(s, mode_name[k], len)) m = k;
    for (int k = 0; k < *n && m < NMODE; k++)
      if (modes[k] == m) m = NMODE; /* twice */
    if (m == NMODE)
      return cli_fail(CLI_EUSAGE, CMD,
                      "--ranks-as: '%s' is not a list of ways; accepted: default, threads, "
                      "fibers, each at most once, separated by commas",
                      text);
    modes[(*n)++] = m;
    if (!s[len]) return 0;
    s += len + 1;
  }
}

/* -m/--bytes: a list of sizes (tutti_parse_size's units). */
static int parse_bytes(const char *text, size_t *out, int max, int *n) {
  *n = 0;
  for (const char *s = text;;) {
    size_t len = strcspn(s, ",");
    char item[64], err[256];
    if (!len || len >= sizeof item || *n == max)
      return cli_fail(CLI_EUSAGE, CMD,
                      "--bytes: '%s' is not a list of sizes; accepted: up to %d sizes such as "
                      "8,64KiB,1MiB separated by commas",
                      text, max);
    snprintf(item, sizeof item, "%.*s", (int)len, s);
    if (tutti_parse_size(item, &out[*n], err, sizeof err))
      return cli_fail(CLI_EUSAGE, CMD, "--bytes: %s", err);
    ++*n;
    if (!s[len]) return 0;
    s += len + 1;
  }
}

/* --algos: every entry names an algorithm of some collective asked, and
 * selects with its parameters. 0, or CLI_EUSAGE after the error. */
static int check_algos(const char *algos, const int *colls, int ncolls) {
  char names[2048] = "", err[1024] = "";
  size_t len = 0;
  for (const char *s = algos;;) {
    size_t n = strcspn(s, ",");
    char item[512];
    if (!n || n >= sizeof item)
      return cli_fail(CLI_EUSAGE, CMD,
                      "--algos: '%s' has an empty or overlong entry; accepted: algorithm names "
                      "separated by commas (tutti list COLL)",
                      algos);
    snprintf(item, sizeof item, "%.*s", (int)n, s);
    int found = !strcmp(item, "default"); /* each collective's default */
    for (int c = 0; c < ncolls && !found; c++) {
      const tutti_algo_t *a;
      char name[256];
      snprintf(name, sizeof name, "%.*s", (int)strcspn(item, ":"), item);
      if (!tutti_algo_desc_find(colls[c], name)) continue;
      found = 1;
      if (tutti_algo_select(colls[c], item, NULL, &a, err, sizeof err))
        return cli_fail(CLI_EUSAGE, CMD, "--algos: %s", err);
    }
    if (!found) {
      const tutti_algo_desc_t *d;
      for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
        for (int c = 0; c < ncolls; c++)
          if (d->coll == colls[c] && len < sizeof names && !strstr(names, d->name))
            len +=
                (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", d->name);
      return cli_fail(CLI_EUSAGE, CMD,
                      "--algos: unknown algorithm '%s' of the collectives asked; accepted: %s",
                      item, names);
    }
    if (!s[n]) return 0;
    s += n + 1;
  }
}

int tutti_bench_coll(int argc, char **argv) {
  int colls[TUTTI_COLL_N], ncolls = 0, rounds = 11, no_mpi = 0, nsizes = 2, nranks = 0;
  int modes[NMODE] = {DEF, THR, FIB}, nm = NMODE;
  size_t sizes[64] = {8, 64 << 10};
  int *ranks = NULL;
  const char *ranks_text = "4", *algos = NULL;
  unsigned seen = 0;
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(argv[i], "--no-mpi")) {
      no_mpi = 1;
    } else if ((v = bench_opt(argc, argv, &i, "--ranks")) ||
               (v = bench_opt(argc, argv, &i, "-n"))) {
      if (bench_once("tutti " CMD, &seen, 1u << 0, "--ranks")) return 2;
      ranks_text = v;
    } else if ((v = bench_opt(argc, argv, &i, "--bytes")) ||
               (v = bench_opt(argc, argv, &i, "-m"))) {
      if (bench_once("tutti " CMD, &seen, 1u << 1, "--bytes")) return 2;
      if (parse_bytes(v, sizes, 64, &nsizes)) return 2;
    } else if ((v = bench_opt(argc, argv, &i, "--algos"))) {
      if (bench_once("tutti " CMD, &seen, 1u << 2, "--algos")) return 2;
      algos = v;
    } else if ((v = bench_opt(argc, argv, &i, "--ranks-as"))) {
      if (bench_once("tutti " CMD, &seen, 1u << 4, "--ranks-as")) return 2;
      if (parse_modes(v, modes, &nm)) return 2;
    } else if ((v = bench_opt(argc, argv, &i, "--rounds"))) {
      if (bench_once("tutti " CMD, &seen, 1u << 3, "--rounds")) return 2;
      char *end;
      long k = strtol(v, &end, 10);
      if (end == v || *end || k < 1 || k > 1000)
        return cli_fail(CLI_EUSAGE, CMD, "--rounds: '%s' is not valid; accepted: 1..1000", v);
      rounds = (int)k;
    } else if (argv[i][0] == '-') {
      return cli_fail(CLI_EUSAGE, CMD,
                      "unknown option '%s'; accepted: -n/--ranks, -m/--bytes, --algos, "
                      "--ranks-as, --rounds, --no-mpi (see --help)",
                      argv[i]);
    } else {
      int c;
      if (tutti_coll_find(argv[i], &c))
        return cli_fail(CLI_EUSAGE, CMD, "unknown collective '%s'; accepted: %s", argv[i],
                        cli_coll_names());
      int dup = 0;
      for (int k = 0; k < ncolls; k++) dup |= colls[k] == c;
      if (!dup) colls[ncolls++] = c;
    }
  }
  if (!ncolls)
    for (int c = 0; c < TUTTI_COLL_N; c++) colls[ncolls++] = c;
  if (algos && check_algos(algos, colls, ncolls)) return 2;
  if (cli_parse_ranks(CMD, ranks_text, MAX_RANKS, &ranks, &nranks)) return 2;

  struct mpiprog mp = {0};
  if (no_mpi)
    snprintf(mp.why, sizeof mp.why, "left out (--no-mpi)");
  else
    mpijob_build(&mp);
  printf("Native wall time per call (model none), each way of running the ranks and Open MPI\n"
         "measured in turn each round. A time: the median over rounds of the slowest rank's\n"
         "time per call; x best: the default's time over the better of threads' and fibers';\n"
         "MPI/...: Open MPI's time over the first way's (above 1: tutti is faster); both\n"
         "medians of the per-round ratios.\n");
  if (!mp.ok) printf("Open MPI: not measured: %s\n", mp.why);
  int st = 0;
  for (int i = 0; i < nranks && !st; i++) {
    int P = ranks[i];
    struct mpijob mj = {.pid = -1, .res = -1}, *mjp = NULL;
    char why[512] = "";
    if (mp.ok && P > MPIJOB_MAX_P)
      printf("\nOpen MPI: not measured on %d ranks (more than %d processes)\n", P, MPIJOB_MAX_P);
    else if (mp.ok && mpijob_start(&mp, P, &mj, why, sizeof why))
      printf("\nOpen MPI: not measured on %d ranks: %s\n", P, why);
    else if (mp.ok)
      mjp = &mj;
    for (int c = 0; c < ncolls && !st; c++) {
      int data = (tutti_coll_traits(colls[c]) & TUTTI_COLL_DATA) != 0;
      for (int s = 0; s < (data ? nsizes : 1) && !st; s++)
        st = block(P, colls[c], data ? sizes[s] : 0, algos, rounds, modes, nm, mjp);
    }
    if (mjp) mpijob_stop(mjp, &mp);
  }
  if (mp.ok && mp.lib[0]) printf("\nOpen MPI: %s\n", mp.lib);
  mpijob_cleanup(&mp);
  free(ranks);
  return st;
}

/*
 * bench_coll.c -- `tutti bench coll [COLL ...]`: the native wall time per
 * call of every registered algorithm of each collective asked (all of them
 * by default), on rank threads at native speed (the none model), beside
 * two yardsticks measured in the same run: pthread_barrier_wait on the
 * same threads (the floor: what synchronizing the ranks alone costs) and,
 * when Open MPI is installed, the MPI library's own collective (MPI_Bcast
 * for bcast, ...) from bench_coll_mpi.c, built with mpicc and run under
 * `mpirun --oversubscribe -n P` by mpijob.c.
 *
 * How a figure is made. Every rank count P has one world; every
 * (collective, size) one run of it, in which each algorithm first warms up
 * (4 calls, whose time sizes its batch: about 3 ms of calls), then rounds
 * follow: the floor's batch, each algorithm's batch, then Open MPI's (the
 * rank threads asleep meanwhile, the MPI processes asleep on a FIFO during
 * the threads' batches). A batch starts on every rank together (a gate),
 * each rank times its own calls, and a batch's time per call is the
 * maximum over ranks of each rank's time per call. Reported: the median
 * over rounds, and the ratios to the floor and to Open MPI as medians of
 * the per-round ratios -- the host is shared and its speed swings between
 * rounds, and a slow round slows all three alike.
 *
 * Buffers: root 0; reductions sum int32 (uint8 when the size is not a
 * multiple of 4 bytes), as `tutti suite` does; results are not checked
 * here (`tutti run` and `tutti suite` check them).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "stats.h"
#include "cli.h"
#include "gate.h"
#include "mpijob.h"
#include "tutti/tutti.h"

int tutti_bench_coll(int argc, char **argv);

#define CMD "bench coll" /* cli_fail's "tutti bench coll: " */
#define MAXA 64          /* algorithms of one collective */
#define MAX_RANKS 4096
#define WARM 4      /* the first warm-up batch's calls */
#define TARGET 3e-3 /* seconds a batch should last */
#define MAX_BATCH 100000
/* ------------------------------------------------------------ one run */

/* One (collective, P, size): the algorithms that can run, and the times. */
struct cx {
  int P, na, rounds;
  struct cli_job job[MAXA]; /* the algorithms, each with count, type, op */
  pthread_barrier_t floor;
  struct gate gate;
  double *warm; /* per rank: seconds per warm-up call */
  double *t;    /* [(k * (na + 1) + j) * P + rank]: round k, j = 0 floor, 1.. algorithms */
  int batch[MAXA + 1];
  struct mpijob *mj; /* NULL: no Open MPI row */
  double *tm;        /* per round: Open MPI's seconds per call; 0 none, -1 failed */
  int mbatch;        /* Open MPI's calls per batch, the last round's */
  char mpi_why[512];
};

/* The floor (j = 0) or algorithm j's call, `calls` times. */
static int calls_of(tutti_rank_t *r, struct cx *x, int j, int calls, void *a, void *b, void *big) {
  int rc = 0;
  if (j == 0) {
    for (int i = 0; i < calls; i++) pthread_barrier_wait(&x->floor);
    return 0;
  }
  for (int i = 0; i < calls && !rc; i++) rc = cli_call(r, &x->job[j - 1], 0, a, b, big);
  return rc;
}

static int rank_fn(tutti_rank_t *r, void *arg) {
  struct cx *x = arg;
  const struct cli_job *j0 = &x->job[0];
  int me = tutti_rank(r), P = x->P, rc = 0, n = x->na + 1, batch[MAXA + 1];
  size_t tsize = tutti_type_size(j0->type), blk = (size_t)j0->count * tsize;
  unsigned tr = tutti_coll_traits(j0->coll);
  int has_big = (tr & TUTTI_COLL_BLOCKS) && (me == 0 || !(tr & TUTTI_COLL_ROOTED));
  unsigned char *a = malloc(blk + 1), *b = malloc(blk + 1);
  size_t nbig = (size_t)P * (tr & TUTTI_COLL_EXCHANGE ? 2 : 1); /* alltoall: send, receive */
  unsigned char *big = has_big ? malloc(blk * nbig + 1) : NULL;
  if (!a || !b || (has_big && !big)) {
    free(a), free(b), free(big);
    gate_open(&x->gate);
    return TUTTI_ENOMEM;
  }
  /* inputs: ones (sums stay small), results zero */
  if (tsize == 4) {
    for (long i = 0; i < j0->count; i++) ((int32_t *)a)[i] = 1;
    for (size_t i = 0; big && i < (size_t)j0->count * nbig; i++) ((int32_t *)big)[i] = 1;
  } else {
    memset(a, 1, blk);
    if (big) memset(big, 1, blk * nbig);
  }
  memset(b, 0, blk);
  /* warm-up: each one's batch from its slowest rank's time per call in a
   * batch of at least an eighth of TARGET (the first calls of a run are
   * slow: sized from them alone, a batch lasted a fraction of TARGET; the
   * MPI side sizes its batch the same way, bench_coll_mpi.c). w is the
   * same on every rank, so are the batches. */
  for (int j = 0; j < n && !rc; j++) {
    int m = WARM;
    double w = 0;
    for (int pass = 0; pass < 6; pass++) {
      if (gate_wait(&x->gate, NULL, NULL)) goto out;
      double t0 = bench_now();
      rc = calls_of(r, x, j, m, a, b, big);
      x->warm[me] = (bench_now() - t0) / m;
      if (rc || gate_wait(&x->gate, NULL, NULL)) goto out;
      w = 0;
      for (int i = 0; i < P; i++) w = x->warm[i] > w ? x->warm[i] : w;
      if (m * w >= TARGET / 8 || m >= MAX_BATCH) break;
      m = bench_batch(TARGET / 4, w, 1, MAX_BATCH);
    }
    batch[j] = bench_batch(TARGET, w, 1, MAX_BATCH);
    if (me == 0) x->batch[j] = batch[j];
  }
  for (int k = 0; k < x->rounds && !rc; k++) {
    for (int j = 0; j < n && !rc; j++) {
      if (gate_wait(&x->gate, NULL, NULL)) goto out;
      double t0 = bench_now();
      rc = calls_of(r, x, j, batch[j], a, b, big);
      x->t[((size_t)k * (size_t)n + (size_t)j) * (size_t)P + (size_t)me] =
          (bench_now() - t0) / batch[j];
    }
    if (rc || !x->mj) continue;
    /* Open MPI's batch while every rank thread sleeps in the gate */
    if (gate_wait(&x->gate, NULL, NULL)) goto out;
    if (me == 0 && x->mj->pid > 0) {
      x->tm[k] = mpijob_round(x->mj, tutti_coll_name(j0->coll), blk, TARGET, &x->mbatch, x->mpi_why,
                              sizeof x->mpi_why);
      if (x->tm[k] < 0) mpijob_stop(x->mj, NULL);
    }
  }
out:
  if (rc) gate_open(&x->gate); /* the others must not wait for this rank */
  free(a), free(b), free(big);
  return rc;
}

/* ------------------------------------------------------------ a block */

struct row {
  char name[160];
  char skipped[512]; /* why it cannot run here, or "" */
  int job;           /* index into cx.job when it runs */
};

/* Whether --algos (NULL: all) names registered algorithm d; its entry
 * (name with parameters) into spec. */
static int wanted(const char *algos, const tutti_algo_desc_t *d, char *spec, size_t n) {
  if (!algos) return snprintf(spec, n, "%s", d->name), 1;
  for (const char *s = algos; *s;) {
    size_t len = strcspn(s, ",");
    size_t name = strcspn(s, ",:");
    if (name == strlen(d->name) && !strncmp(s, d->name, name))
      return snprintf(spec, n, "%.*s", (int)len, s), 1;
    s += len + (s[len] == ',');
  }
  return 0;
}

/* One (collective, P, size) on world w: rows, runs, the table. 0, or
 * CLI_ERUNTIME after the one-line error. */
static int block(tutti_world_t *w, int P, int coll, size_t bytes, const char *algos, int rounds,
                 struct mpijob *mj) {
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
  char sb[32], s1[32], s2[32];
  if (!nrows) { /* --algos named none of this collective's */
    free(x), free(rows);
    return 0;
  }
  printf("\n%s on %d ranks", tutti_coll_name(coll), P);
  if (tr & TUTTI_COLL_DATA)
    printf(", %s per rank (%ld x %s%s%s)", tutti_format_bytes(bytes, sb, sizeof sb), count,
           tutti_type_name(type), op ? ", " : "", op ? tutti_op_name(op) : "");
  if (tr & TUTTI_COLL_ROOTED) printf(", root 0");
  printf(": median of %d rounds\n", rounds);
  printf("  %-28s %13s %9s %10s %9s\n", "algorithm", "per call", "x floor", "x Open MPI", "batch");
  int n = x->na + 1;
  x->P = P, x->rounds = rounds, x->mj = mj && mj->pid > 0 ? mj : NULL;
  x->warm = calloc((size_t)P, sizeof *x->warm);
  x->t = calloc((size_t)rounds * (size_t)n * (size_t)P, sizeof *x->t);
  x->tm = malloc((size_t)rounds * sizeof *x->tm);
  double *v = malloc((size_t)rounds * sizeof *v), *q = malloc((size_t)rounds * sizeof *q);
  double *tk = malloc((size_t)rounds * (size_t)n * sizeof *tk); /* max over ranks */
  if (!x->warm || !x->t || !x->tm || !v || !q || !tk) {
    st = cli_fail(CLI_ERUNTIME, CMD, "%s", tutti_strerror(TUTTI_ENOMEM));
    goto done;
  }
  for (int k = 0; k < rounds; k++) x->tm[k] = -1;
  if (x->na == 0) { /* nothing runs: the rows say why */
    for (int i = 0; i < nrows; i++) printf("  %-28s skipped: %s\n", rows[i].name, rows[i].skipped);
    goto done;
  }
  if (pthread_barrier_init(&x->floor, NULL, (unsigned)P)) {
    st = cli_fail(CLI_ERUNTIME, CMD, "cannot make a pthread barrier of %d threads", P);
    goto done;
  }
  gate_init(&x->gate, P);
  int rc = tutti_world_run(w, rank_fn, x);
  pthread_barrier_destroy(&x->floor);
  if (rc) {
    st = cli_fail(CLI_ERUNTIME, CMD, "%s on %d ranks: %s", tutti_coll_name(coll), P,
                  tutti_world_error(w));
    goto done;
  }
  for (int k = 0; k < rounds; k++)
    for (int j = 0; j < n; j++) {
      const double *per = &x->t[((size_t)k * (size_t)n + (size_t)j) * (size_t)P];
      double m = 0;
      for (int i = 0; i < P; i++) m = per[i] > m ? per[i] : m;
      tk[k * n + j] = m;
    }
  int nm = 0; /* rounds with an Open MPI figure */
  for (int k = 0; k < rounds; k++) nm += x->tm[k] > 0;
  int none = x->mj && x->tm[0] == 0; /* the program has no twin of this collective */
  /* j = 0 is the floor; the rows of the algorithms follow in registry order */
  for (int i = -1; i < nrows; i++) {
    int j = i < 0 ? 0 : rows[i].job + 1;
    const char *name = i < 0 ? "floor: pthread_barrier_wait" : rows[i].name;
    if (i >= 0 && rows[i].skipped[0]) {
      printf("  %-28s skipped: %s\n", name, rows[i].skipped);
      continue;
    }
    for (int k = 0; k < rounds; k++) v[k] = tk[k * n + j];
    double med = bench_median(v, rounds);
    for (int k = 0; k < rounds; k++) v[k] = tk[k * n + j] / tk[k * n];
    double xf = bench_median(v, rounds);
    int m = 0;
    for (int k = 0; k < rounds; k++)
      if (x->tm[k] > 0) q[m++] = tk[k * n + j] / x->tm[k];
    char xm[32] = "-";
    if (m) snprintf(xm, sizeof xm, "%.3g", bench_median(q, m));
    printf("  %-28s %13s %9.3g %10s %9d\n", name, tutti_format_time(med, s1, sizeof s1), xf, xm,
           x->batch[j]);
  }
  if (x->mj && nm) {
    char name[64];
    int m = 0;
    for (int k = 0; k < rounds; k++)
      if (x->tm[k] > 0) v[m] = x->tm[k], q[m++] = x->tm[k] / tk[k * n];
    snprintf(name, sizeof name, "Open MPI %s", tutti_coll_name(coll));
    double med = bench_median(v, m);
    printf("  %-28s %13s %9.3g %10s %9d\n", name, tutti_format_time(med, s2, sizeof s2),
           bench_median(q, m), "1", x->mbatch);
  } else if (x->mj && none) {
    printf("  Open MPI: no %s here (bench_coll_mpi.c has no MPI twin of it)\n",
           tutti_coll_name(coll));
  } else if (x->mj) {
    printf("  Open MPI: failed: %s\n", x->mpi_why);
  } else if (mj) {
    printf("  Open MPI: not measured (its job on %d ranks was stopped after a failure)\n", P);
  }
  fflush(stdout);
done:
  free(x->warm), free(x->t), free(x->tm), free(v), free(q), free(tk);
  free(x), free(rows);
  return st;
}

/* ------------------------------------------------------------ options */

static void usage(FILE *f) {
  fprintf(f,
          "usage: tutti bench coll [COLL ...] [options]\n\n"
          "Native wall time per call of every registered algorithm of each COLL (default: every\n"
          "collective), on rank threads at native speed (the none model), beside the floor --\n"
          "pthread_barrier_wait on the same threads -- and Open MPI's own collective, measured\n"
          "in turn each round of the same run (Open MPI: a small MPI program built with mpicc\n"
          "and run under mpirun --oversubscribe when Open MPI is installed, P up to %d).\n"
          "A batch's time per call is the maximum over ranks of each rank's time per call;\n"
          "per call is the median over rounds, x floor and x Open MPI medians of the\n"
          "per-round ratios; batch is the calls in each timed loop (about %g ms of them).\n"
          "Root 0; reductions sum int32 (uint8 when the size is not a multiple of 4).\n\n"
          "options:\n"
          "  -n, --ranks LIST    rank counts, e.g. 2,16 (default 4; each in 1..%d)\n"
          "  -m, --bytes LIST    bytes per rank, e.g. 8,64KiB,1MiB (default 8,64KiB; barrier\n"
          "                      moves none)\n"
          "  --algos LIST        only these algorithms, with parameters if wanted:\n"
          "                      binomial,lambda-tree:lambda=0.7 (default: all registered)\n"
          "  --rounds K          rounds, 1..1000 (default 11)\n"
          "  --no-mpi            leave Open MPI out\n"
          "  -h, --help          this text\n\n"
          "Exit: 0 measured, 2 bad usage, 3 a run failed.\n",
          MPIJOB_MAX_P, TARGET * 1e3, MAX_RANKS);
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
    int found = 0;
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
                      "--rounds, --no-mpi (see --help)",
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
  printf("Native wall time per call (model none), the floor (pthread_barrier_wait) and Open MPI\n"
         "measured in turn each round. per call: the median over rounds of the slowest rank's\n"
         "time per call; x floor, x Open MPI: medians of the per-round ratios of a row's time\n"
         "to the floor's and to Open MPI's (above 1: slower).\n");
  if (!mp.ok) printf("Open MPI: not measured: %s\n", mp.why);
  int st = 0;
  for (int i = 0; i < nranks && !st; i++) {
    int P = ranks[i];
    tutti_config_t cfg = tutti_config_default(P);
    tutti_world_t *w;
    int rc = tutti_world_create(&w, &cfg);
    if (rc) {
      st = cli_fail(CLI_ERUNTIME, CMD, "cannot create a world of %d ranks: %s", P,
                    tutti_strerror(rc));
      break;
    }
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
        st = block(w, P, colls[c], data ? sizes[s] : 0, algos, rounds, mjp);
    }
    if (mjp) mpijob_stop(mjp, &mp);
    tutti_world_destroy(w);
  }
  if (mp.ok && mp.lib[0]) printf("\nOpen MPI rows: %s\n", mp.lib);
  mpijob_cleanup(&mp);
  free(ranks);
  return st;
}

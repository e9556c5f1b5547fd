/*
 * bench_barrier.c -- `tutti bench barrier`: which barrier is best, the
 * question Bernaschi & Iannello leave open (sec. 5 of "Efficient
 * collective communication operations in PVMe": a lambda-tree reduce and
 * broadcast, circulant graphs, or generalized Fibonacci numbers).
 *
 * Modeled (the default): every registered barrier at its default
 * parameters, plus the lambda-tree with lambda = auto, runs one call on
 * fresh clocks for each P and profile (default postal-2, postal-4, sp2-hps
 * and gige); the table gives per P the winner and its modeled time, the
 * runner-up and how much slower it is, where the paper's lambda-tree
 * barrier (lambda = 0.6) stands (its time over the best, its rank), and
 * whether `auto` ran a barrier as fast as the winner. A summary per profile
 * counts the wins.
 *
 * --native: the best tutti barrier in a native run (model none) against
 * pthread_barrier_wait on the same rank threads, for P = 2, 4, 8, 16, 64,
 * 1024. Each P first times every registered barrier briefly and keeps the
 * fastest; then rounds alternate a batch of tutti barriers and a batch of
 * pthread_barrier_wait calls, and the ratio reported is the median of the
 * per-round ratios (so a slow phase of the shared machine hits both
 * sides). Wake-ups per barrier per rank come from the runtime's futex
 * counter (tutti_world_stats) over a separate run of the chosen barrier.
 * When tutti-mpi was built beside this program and mpirun is on the PATH,
 * each P up to 64 also runs `mpirun --oversubscribe -n P tutti-mpi bench
 * barrier` right after its tutti rounds: MPI_Barrier timed the same way
 * (batches, median over rounds), the "Open MPI" column and tutti's median
 * over it (the MPI processes are another program, so this ratio is of
 * medians, not per round).
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "stats.h"
#include "tutti/tutti.h"

int tutti_bench_barrier(int argc, char **argv);

#define WHO "tutti bench barrier"
#define MAXC 24 /* candidates */

/* ------------------------------------------------------------ modeled */

static int one_barrier(tutti_rank_t *r, void *arg) {
  return tutti_barrier(r, arg);
}

/* The modeled time of one barrier call; negative error. */
static double modeled(tutti_world_t *w, const tutti_algo_t *a) {
  int rc = tutti_world_run(w, one_barrier, (void *)a);
  if (rc) {
    fprintf(stderr, WHO ": %s\n", tutti_world_error(w));
    return rc;
  }
  tutti_report_t rep;
  if ((rc = tutti_world_report(w, &rep))) return rc;
  return rep.ncalls ? rep.calls[0].time : 0;
}

/* Every registered barrier at its defaults, and the lambda-tree with
 * lambda = auto; *lam is the paper's (lambda = 0.6), *aut auto's index.
 * Not hierarchical: the profiles have no hosts, where it is its inter
 * barrier to the bit (`bench hierarchy` weighs it where it has). */
static int candidates(const tutti_algo_t **c, char names[][48], int *lam, int *aut) {
  int n = 0;
  const tutti_algo_desc_t *d;
  *lam = *aut = -1;
  for (int i = 0; (d = tutti_algo_desc_at(i)) && n < MAXC - 1; i++) {
    if (d->coll != TUTTI_COLL_BARRIER) continue;
    if (tutti_algo_is_two_level(d)) continue;
    if (tutti_algo_select(TUTTI_COLL_BARRIER, d->name, NULL, &c[n], NULL, 0)) continue;
    snprintf(names[n], 48, "%s", d->name);
    if (!strcmp(d->name, "lambda-tree")) {
      *lam = n++;
      if (tutti_algo_select(TUTTI_COLL_BARRIER, d->name, "lambda=auto", &c[n], NULL, 0)) continue;
      snprintf(names[n], 48, "lambda-tree:auto");
    } else if (!strcmp(d->name, "auto")) {
      *aut = n;
    }
    n++;
  }
  return n;
}

static int parse_list(const char *s, long *out, int max, long lo, long hi) {
  int n = 0;
  for (char *end; *s && n < max; s = *end ? end + 1 : end) {
    long v = strtol(s, &end, 10);
    if (end == s || (*end && *end != ',') || v < lo || v > hi) return -1;
    out[n++] = v;
  }
  return n;
}

static int run_modeled(char *profiles, const long *ranks, int nranks) {
  const tutti_algo_t *c[MAXC];
  char names[MAXC][48], err[512];
  int lam, aut, nc = candidates(c, names, &lam, &aut);
  printf(
      "One barrier call per algorithm (registered defaults; lambda-tree:auto is lambda = auto),\n"
      "modeled time on fresh clocks. best: the first registered of least time; tied: how many\n"
      "others have that time too; runner-up: the fastest of the slower ones, +%%: by how\n"
      "much. lambda-tree: the paper's barrier (lambda = 0.6), its time over the best and\n"
      "its rank (1 + those faster). auto: what auto chose, '=' when it ran as fast as the best.\n");
  char *save = NULL;
  for (char *prof = strtok_r(profiles, ",", &save); prof; prof = strtok_r(NULL, ",", &save)) {
    tutti_profile_t pr;
    if (tutti_profile_load(prof, &pr, err, sizeof err)) {
      fprintf(stderr, WHO ": %s\n", err);
      return 2;
    }
    char desc[256];
    tutti_model_describe(&pr.model, desc, sizeof desc);
    printf("\n%s: %s\n", pr.name, desc);
    printf("%5s  %-18s %4s %10s  %-18s %6s  %10s %6s %4s  %s\n", "P", "best", "tied", "time",
           "runner-up", "+%", "lambda-tree", "x best", "rank", "auto");
    int wins[MAXC] = {0}, auto_ok = 0, lam_best = 0;
    double lam_worst = 1;
    int lam_worst_p = 0;
    for (int i = 0; i < nranks; i++) {
      int P = (int)ranks[i];
      tutti_config_t cfg = tutti_config_default(P);
      cfg.model = &pr.model;
      tutti_world_t *w;
      if (tutti_world_create(&w, &cfg)) {
        fprintf(stderr, WHO ": cannot create a world of %d ranks\n", P);
        return 3;
      }
      double t[MAXC];
      for (int k = 0; k < nc; k++)
        if ((t[k] = modeled(w, c[k])) < 0) {
          tutti_world_destroy(w);
          return 3;
        }
      tutti_world_destroy(w);
      /* best, the others tied with it, and the runner-up: the best of
       * those strictly slower (among the algorithms themselves, not auto) */
      int b = -1, s = -1, tied = 0;
      for (int k = 0; k < nc; k++)
        if (k != aut && (b < 0 || t[k] < t[b] * (1 - 1e-12))) b = k;
      for (int k = 0; k < nc; k++) {
        if (k == aut || k == b) continue;
        if (t[k] <= t[b] * (1 + 1e-12))
          tied++, wins[k]++;
        else if (s < 0 || t[k] < t[s] * (1 - 1e-12))
          s = k;
      }
      wins[b]++;
      int rank = 1;
      for (int k = 0; k < nc; k++)
        if (k != aut && t[k] < t[lam] * (1 - 1e-12)) rank++;
      double q = t[b] > 0 ? t[lam] / t[b] : 1;
      lam_best += rank == 1;
      if (q > lam_worst) lam_worst = q, lam_worst_p = P;
      char tb[32], tl[32], an[64] = "";
      tutti_format_model_time(&pr.model, t[b], tb, sizeof tb);
      tutti_format_model_time(&pr.model, t[lam], tl, sizeof tl);
      if (aut >= 0) {
        const tutti_algo_t *ch;
        if (!tutti_barrier_auto_choose(&pr.model, P, &ch, NULL, 0))
          tutti_algo_format(ch, an, sizeof an);
        int ok = t[aut] <= t[b] * (1 + 1e-12);
        auto_ok += ok;
        snprintf(an + strlen(an), sizeof an - strlen(an), " %s", ok ? "=" : "slower");
      }
      double plus = s >= 0 && t[b] > 0 ? 100 * (t[s] / t[b] - 1) : 0;
      printf("%5d  %-18s %4d %10s  %-18s %6.1f  %10s %6.2f %4d  %s\n", P, names[b], tied, tb,
             s >= 0 ? names[s] : "-", plus, tl, q, rank, an);
      fflush(stdout);
    }
    printf("summary %s: wins (ties count for each):", pr.name);
    for (int k = 0; k < nc; k++)
      if (k != aut && wins[k]) printf(" %s %d,", names[k], wins[k]);
    printf(" of %d rank counts; lambda-tree best at %d, at worst %.2fx the best (P=%d)", nranks,
           lam_best, lam_worst, lam_worst_p);
    if (aut >= 0) printf("; auto as fast as the best at %d of %d", auto_ok, nranks);
    printf("\n");
  }
  return 0;
}

/* ------------------------------------------------------------ native */

struct nat {
  const tutti_algo_t *const *a; /* na barriers; index na is pthread_barrier_wait */
  int na, rounds, batch, with_pthread;
  pthread_barrier_t pb;
  double *t; /* t[k * (na + 1) + j]: round k, barrier j, seconds per call (rank 0 writes) */
};

/* Every round runs a batch of each barrier in turn (then, if asked, of
 * pthread_barrier_wait), each timed by rank 0 from a barrier of the same
 * kind (so every rank has arrived when its clock starts). */
static int native_rank(tutti_rank_t *r, void *arg) {
  struct nat *x = arg;
  int me = tutti_rank(r), rc = 0;
  for (int k = 0; k < x->rounds && !rc; k++) {
    for (int j = 0; j < x->na && !rc; j++) {
      rc = tutti_barrier(r, x->a[j]);
      double t0 = bench_now();
      for (int i = 0; i < x->batch && !rc; i++) rc = tutti_barrier(r, x->a[j]);
      if (me == 0) x->t[k * (x->na + 1) + j] = (bench_now() - t0) / x->batch;
    }
    if (rc || !x->with_pthread) continue;
    pthread_barrier_wait(&x->pb);
    double t0 = bench_now();
    for (int i = 0; i < x->batch; i++) pthread_barrier_wait(&x->pb);
    if (me == 0) x->t[k * (x->na + 1) + x->na] = (bench_now() - t0) / x->batch;
  }
  return rc;
}

/* Above this many processes the MPI column is skipped: each Open MPI
 * process is a full program (tens of MB, a second or more to start under
 * load), so 1024 of them on this 2-core machine would take minutes and
 * GBs of memory to measure one barrier. */
#define MPI_MAX_P 64

/* tutti-mpi beside this program and mpirun on the PATH: their paths, or
 * 0 (why: in *why). */
static int find_mpi(char *tm, size_t ntm, char *run, size_t nrun, const char **why) {
  char exe[1000];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) return *why = "cannot read /proc/self/exe", 0;
  exe[len] = 0;
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  snprintf(tm, ntm, "%s/tutti-mpi", exe);
  if (access(tm, X_OK)) return *why = "tutti-mpi is not built beside this program", 0;
  const char *path = getenv("PATH");
  for (const char *p = path ? path : ""; *p;) {
    size_t n = strcspn(p, ":");
    snprintf(run, nrun, "%.*s/mpirun", (int)n, p);
    if (n && !access(run, X_OK)) return 1;
    p += n + (p[n] == ':');
  }
  return *why = "mpirun is not on the PATH", 0;
}

/* MPI_Barrier on P processes: median seconds per call, or -1. lib gets the
 * library's name. */
static double mpi_barrier(const char *tm, const char *run, int P, int rounds, int batch, char *lib,
                          size_t nlib) {
  char cmd[2400], line[512];
  /* </dev/null: mpirun forwards its stdin to rank 0 and would eat ours */
  snprintf(cmd, sizeof cmd,
           "'%s' --oversubscribe %s -n %d '%s' bench barrier --rounds %d --batch %d "
           "</dev/null 2>/dev/null",
           run, geteuid() == 0 ? "--allow-run-as-root" : "", P, tm, rounds, batch);
  FILE *f = popen(cmd, "r");
  double med = -1, mn;
  int p;
  while (f && fgets(line, sizeof line, f)) {
    if (!strncmp(line, "library ", 8)) {
      line[strcspn(line, "\n")] = 0;
      snprintf(lib, nlib, "%.200s", line + 8);
    }
    if (sscanf(line, "MPI_Barrier %d %lf %lf", &p, &med, &mn) == 3 && p != P) med = -1;
  }
  if (!f || pclose(f) != 0) return -1;
  return med;
}

static int run_native(const long *ranks, int nranks, int rounds) {
  const tutti_algo_t *c[MAXC], *run[MAXC];
  char names[MAXC][48], rnames[MAXC][48];
  int lam, aut, nc = candidates(c, names, &lam, &aut), na = 0;
  for (int k = 0; k < nc; k++) /* auto only runs one of the others */
    if (k != aut) run[na] = c[k], memcpy(rnames[na], names[k], 48), na++;
  printf("Native run (model none) on this machine. Each of %d rounds runs a batch of every\n"
         "registered barrier and of pthread_barrier_wait, in turn, on the same rank threads.\n"
         "best: the barrier of least median time per call; ratio: the median over rounds of\n"
         "its time / pthread's in the same round. wakes: futex wake-ups per barrier per rank\n"
         "of the best (a separate run of one batch).\n",
         rounds);
  char tm[1024], mrun[1024], lib[256] = "the MPI library";
  const char *why = NULL;
  int mpi = find_mpi(tm, sizeof tm, mrun, sizeof mrun, &why);
  if (mpi)
    printf("Open MPI: MPI_Barrier on as many processes (`mpirun --oversubscribe -n P tutti-mpi\n"
           "bench barrier`, the same batches and rounds) right after each P's tutti rounds, up to\n"
           "P = %d (more processes than that take minutes to start here); /MPI: tutti's median\n"
           "over MPI's.\n\n",
           MPI_MAX_P);
  else
    printf("Open MPI: not measured (%s); issue 11 quotes Open MPI 4.1's MPI_Barrier\n"
           "here at 4.6 us (P = 4), 16 us (8) and 61 us (16).\n\n",
           why);
  printf("%5s  %-18s %12s %12s %7s %12s %7s %7s  %s\n", "P", "best tutti", "tutti", "pthread",
         "ratio", "Open MPI", "/MPI", "wakes", "runner-up");
  double *t = malloc(sizeof *t * (size_t)rounds * (size_t)(na + 1)),
         *v = malloc(sizeof *v * (size_t)rounds);
  if (!t || !v) {
    free(t), free(v);
    return 3;
  }
  int st = 0;
  for (int i = 0; i < nranks && !st; i++) {
    int P = (int)ranks[i];
    /* batches of a few ms on this 2-core machine, at least 2 calls */
    int batch = P >= 512 ? 2 : P >= 64 ? 10 : 100;
    tutti_config_t cfg = tutti_config_default(P);
    cfg.ranks_as = TUTTI_RANKS_AS_THREADS; /* pthread_barrier_wait runs on the same threads */
    tutti_world_t *w;
    if (tutti_world_create(&w, &cfg)) {
      fprintf(stderr, WHO ": cannot create a world of %d ranks\n", P);
      st = 3;
      break;
    }
    struct nat x = {run, na, rounds, batch, 1, .t = t};
    if (pthread_barrier_init(&x.pb, NULL, (unsigned)P)) {
      tutti_world_destroy(w);
      st = 3;
      break;
    }
    int rc = tutti_world_run(w, native_rank, &x);
    pthread_barrier_destroy(&x.pb);
    if (rc) {
      fprintf(stderr, WHO ": %s\n", tutti_world_error(w));
      tutti_world_destroy(w);
      st = 3;
      break;
    }
    double med[MAXC + 1];
    for (int j = 0; j <= na; j++) {
      for (int k = 0; k < rounds; k++) v[k] = t[k * (na + 1) + j];
      med[j] = bench_median(v, rounds);
    }
    int b = 0, s = -1;
    for (int j = 1; j < na; j++)
      if (med[j] < med[b])
        s = b, b = j;
      else if (s < 0 || med[j] < med[s])
        s = j;
    for (int k = 0; k < rounds; k++) v[k] = t[k * (na + 1) + b] / t[k * (na + 1) + na];
    double q = bench_median(v, rounds);
    /* wake-ups: the runtime counts them per run */
    struct nat y = {&run[b], 1, 1, batch, 0, .t = t};
    tutti_stats_t sts;
    double wakes = NAN;
    if (!tutti_world_run(w, native_rank, &y) && !tutti_world_stats(w, &sts))
      wakes = (double)sts.wakeups / ((batch + 1.0) * P);
    tutti_world_destroy(w);
    char s1[32], s2[32], s3[32], s4[32] = "-", s5[16] = "-";
    if (mpi && P > MPI_MAX_P)
      snprintf(s4, sizeof s4, "skipped");
    else if (mpi) {
      double m = mpi_barrier(tm, mrun, P, rounds, batch, lib, sizeof lib);
      if (m > 0)
        tutti_format_time(m, s4, sizeof s4), snprintf(s5, sizeof s5, "%.2f", med[b] / m);
      else
        snprintf(s4, sizeof s4, "failed");
    }
    printf("%5d  %-18s %12s %12s %7.2f %12s %7s %7.2f  %s (%s)\n", P, rnames[b],
           tutti_format_time(med[b], s1, sizeof s1), tutti_format_time(med[na], s2, sizeof s2), q,
           s4, s5, wakes, s >= 0 ? rnames[s] : "-",
           s >= 0 ? tutti_format_time(med[s], s3, sizeof s3) : "");
    fflush(stdout);
  }
  if (mpi && !st) printf("Open MPI column: %s\n", lib);
  free(t), free(v);
  return st;
}

/* ------------------------------------------------------------ options */

static void usage(FILE *f) {
  fprintf(f, "usage: tutti bench barrier [options]\n\n"
             "Which barrier is best: every registered barrier's modeled time per profile and P,\n"
             "the winner, the runner-up, where the lambda-tree barrier stands, what auto ran.\n\n"
             "  --profiles A,B,..  latency profiles (default postal-2,postal-4,sp2-hps,gige)\n"
             "  --ranks P,Q,..     rank counts (default 2-9,12,16,17,24,32,33,48,64,65,100,128,\n"
             "                     129,256,257,500,512,1000,1024; --native: 2,4,8,16,64,1024)\n"
             "  --native           native speed instead: the best tutti barrier against\n"
             "                     pthread_barrier_wait on the same threads (and Open MPI's\n"
             "                     MPI_Barrier when tutti-mpi and mpirun are found)\n"
             "  --rounds K         --native: alternating rounds (default 21)\n");
}

int tutti_bench_barrier(int argc, char **argv) {
  char profiles[512] = "postal-2,postal-4,sp2-hps,gige";
  long ranks[160] = {2,  3,  4,  5,  6,   7,   8,   9,   12,  16,  17,  24,   32,
                     33, 48, 64, 65, 100, 128, 129, 256, 257, 500, 512, 1000, 1024};
  int nranks = 26, native = 0, rounds = 21;
  unsigned seen = 0;
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(argv[i], "--native")) {
      if (bench_once(WHO, &seen, 1u << 0, "--native")) return 2;
      native = 1;
    } else if ((v = bench_opt(argc, argv, &i, "--profiles"))) {
      if (bench_once(WHO, &seen, 1u << 1, "--profiles")) return 2;
      snprintf(profiles, sizeof profiles, "%s", v);
    } else if ((v = bench_opt(argc, argv, &i, "--ranks"))) {
      if (bench_once(WHO, &seen, 1u << 2, "--ranks")) return 2;
      if ((nranks = parse_list(v, ranks, 160, 1, 4096)) <= 0) {
        fprintf(stderr,
                WHO ": --ranks: '%s' is not a list of rank counts; accepted: P,Q,.. each "
                    "in 1..4096\n",
                v);
        return 2;
      }
    } else if ((v = bench_opt(argc, argv, &i, "--rounds"))) {
      if (bench_once(WHO, &seen, 1u << 3, "--rounds")) return 2;
      char *end;
      long k = strtol(v, &end, 10);
      if (end == v || *end || k < 1 || k > 10000) {
        fprintf(stderr, WHO ": --rounds: '%s' is not valid; accepted: an integer in 1..10000\n", v);
        return 2;
      }
      rounds = (int)k;
    } else {
      fprintf(stderr,
              WHO ": unknown option '%s'; accepted: --profiles, --ranks, --native, "
                  "--rounds (see --help)\n",
              argv[i]);
      return 2;
    }
  }
  if (native && (seen & (1u << 1))) {
    fprintf(stderr, WHO ": --profiles: not with --native (native runs have no model); accepted: "
                        "one of them\n");
    return 2;
  }
  if (!native && (seen & (1u << 3))) {
    fprintf(stderr, WHO ": --rounds: only with --native; accepted: --native --rounds K\n");
    return 2;
  }
  if (native) {
    if (!(seen & (1u << 2))) {
      static const long def[] = {2, 4, 8, 16, 64, 1024};
      memcpy(ranks, def, sizeof def);
      nranks = 6;
    }
    return run_native(ranks, nranks, rounds);
  }
  return run_modeled(profiles, ranks, nranks);
}

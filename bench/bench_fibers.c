/*
 * bench_fibers.c -- `tutti bench fibers`: ranks as fibers (runtime/fiber.c)
 * against ranks as threads and against Open MPI, in one run.
 *
 * Native (model none), oversubscribed: a barrier (dissemination), a
 * broadcast of 8 B (binomial, then binary: which tree is faster depends on
 * how its ranks' turns fall on the workers) and an allreduce of 8 B
 * (recursive doubling) at 16 and 1024 ranks on this machine's cores. One world of each
 * kind per P, kept, and for P up to 64 one Open MPI job (mpijob.c: the
 * MPI_Barrier, MPI_Bcast, MPI_Allreduce of bench_coll_mpi.c under mpirun
 * --oversubscribe). Each round times a batch of calls (after 10 untimed,
 * each mode's batch sized to its own speed) in the thread world, in the
 * fiber world and in the MPI job, in turn (the order rotates): rank 0
 * timing from a barrier before the batch to a barrier after it, the MPI
 * program the slowest rank's time per call. The ratios (threads over
 * fibers, Open MPI over each) are medians of the per-round ratios (the
 * machine's speed swings between rounds, not within one). Also the
 * wake-ups (futex wakes for threads, ranks made runnable for fibers) and
 * sleeps per call and rank.
 *
 * Modeled: a 1024-rank scatter-allgather broadcast of 8 B, 10 calls (about
 * 10 million messages with the recorded events and their replay) in each
 * mode, wall time and the replay's events per second; the modeled times
 * must agree to the bit.
 *
 * --scale: the largest worlds, fibers only, timing only (--no-data):
 * 262144 ranks for every registered bcast, reduce and barrier algorithm,
 * then 1048576 ranks for binomial bcast and lambda-tree reduce; wall time,
 * events per second and the process's peak RSS after each.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "mpijob.h"
#include "stats.h"
#include "tutti/tutti.h"

int tutti_bench_fibers(int argc, char **argv);

#define TARGET 0.02 /* seconds a timed batch should last, tutti's and Open MPI's */

static double peak_rss_gib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / (1 << 20);
}

/* ------------------------------------------------------------- native */

struct batch {
  int coll;
  const tutti_algo_t *algo;
  int calls;
  double per_call; /* rank 0's, seconds */
};

static int calls(tutti_rank_t *r, const struct batch *b, int n) {
  int64_t x = tutti_rank(r), y = 0;
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) switch (b->coll) {
    case TUTTI_COLL_BARRIER:
      rc = tutti_barrier(r, b->algo);
      break;
    case TUTTI_COLL_BCAST:
      rc = tutti_bcast(r, &x, 1, TUTTI_INT64, 0, b->algo);
      break;
    default:
      rc = tutti_allreduce(r, &x, &y, 1, TUTTI_INT64, TUTTI_SUM, b->algo);
    }
  return rc;
}

/* WARMUP untimed calls first (Open MPI's side makes 3: bench_coll_mpi.c):
 * a run's first calls set up its channels and fastboxes, and a pair gets
 * its fastbox after 8 messages (runtime/fastbox.h BOX_AFTER), which
 * dissemination and recursive doubling send one a call: after 3 calls the
 * timed calls' messages still took the inbox. */
#define WARMUP 10
#define MIN_CALLS 20 /* a timed batch's calls, at least */
#define MAX_CALLS 20000
static int batch_fn(tutti_rank_t *r, void *arg) {
  struct batch *b = arg;
  int rc = calls(r, b, WARMUP);
  if (!rc) rc = tutti_barrier(r, NULL);
  double t0 = bench_now();
  if (!rc) rc = calls(r, b, b->calls);
  if (!rc) rc = tutti_barrier(r, NULL);
  if (tutti_rank(r) == 0) b->per_call = (bench_now() - t0) / b->calls;
  return rc;
}

static const struct {
  int coll;
  size_t bytes; /* Open MPI's side: the same 8 B (it sums 2 x int32 where tutti sums 1 x int64) */
  const char *algo, *what;
} cases[] = {{TUTTI_COLL_BARRIER, 0, "dissemination", "barrier"},
             {TUTTI_COLL_BCAST, 8, "binomial", "bcast 8 B"},
             {TUTTI_COLL_BCAST, 8, "binary", "bcast 8 B"},
             {TUTTI_COLL_ALLREDUCE, 8, "recursive-doubling", "allreduce 8 B"}};

/* Open MPI at one P: the program (built at the first P that may use it) and
 * the job of P. Returns whether the job runs; if not, one line said why. */
static int mpi_at(int P, int no_mpi, struct mpiprog *mp, int *built, struct mpijob *mj) {
  char why[512] = "";
  if (no_mpi) {
    printf("Open MPI: not run at P=%d (--no-mpi)\n", P);
    return 0;
  }
  if (P > MPIJOB_MAX_P) {
    printf("Open MPI: not run at P=%d (above %d processes: each is a whole program, tens of MB "
           "and seconds to start)\n",
           P, MPIJOB_MAX_P);
    return 0;
  }
  if (!*built) {
    mpijob_build(mp);
    *built = 1;
  }
  if (!mp->ok) {
    printf("Open MPI: not run at P=%d: %s\n", P, mp->why);
    return 0;
  }
  if (mpijob_start(mp, P, mj, why, sizeof why)) {
    printf("Open MPI: not run at P=%d: %s\n", P, why);
    return 0;
  }
  return 1;
}

/* "1.23x", the median of v[0..n), or "-" when there is none. */
static const char *ratio_cell(double *v, int n, char *buf, size_t len) {
  if (!n) return "-";
  snprintf(buf, len, "%.2fx", bench_median(v, n));
  return buf;
}

static int native(const int *Ps, int nP, int rounds, int no_mpi, int workers) {
  printf(
      "native (model none), %d rounds: threads, fibers and Open MPI (P up to %d) timed in\n"
      "turn each round (the order rotates), batches of about %g ms on each side after %d\n"
      "warm-up calls. Per call: the median over rounds; tutti's is rank 0's time from a barrier\n"
      "before its batch to one after it, Open MPI's the slowest rank's (mpirun\n"
      "--oversubscribe). thr/fib: threads' time over fibers'; MPI/fib, MPI/thr: Open MPI's time\n"
      "over fibers' and over threads' (above 1: tutti is faster); each ratio the median of the\n"
      "per-round ratios.\n\n",
      rounds, MPIJOB_MAX_P, TARGET * 1e3, WARMUP);
  printf("%6s  %-14s %-18s %11s %11s %8s %11s %8s %8s   %-20s %s\n", "P", "collective",
         "tutti's algorithm", "threads", "fibers", "thr/fib", "Open MPI", "MPI/fib", "MPI/thr",
         "threads wake/sleep", "fibers wake/sleep");
  struct mpiprog mp = {0};
  int built = 0, st = 0;
  for (int p = 0; p < nP && !st; p++) {
    int P = Ps[p];
    tutti_world_t *w[2];
    for (int k = 0; k < 2; k++) {
      tutti_config_t c = tutti_config_default(P);
      c.ranks_as = k ? TUTTI_RANKS_AS_FIBERS : TUTTI_RANKS_AS_THREADS;
      c.workers = k ? workers : 0;
      int rc = tutti_world_create(&w[k], &c);
      if (rc) {
        fprintf(stderr, "tutti bench fibers: cannot create a world of %d ranks: %s\n", P,
                tutti_strerror(rc));
        if (k) tutti_world_destroy(w[0]);
        st = 3;
        break;
      }
    }
    if (st) break;
    printf("fibers: %d worker thread%s at P=%d%s\n", tutti_world_workers(w[1]),
           tutti_world_workers(w[1]) == 1 ? "" : "s", P, workers ? " (--workers)" : "");
    struct mpijob mj = {.pid = -1, .res = -1};
    int mpi = mpi_at(P, no_mpi, &mp, &built, &mj), started = mpi;
    for (size_t c = 0; c < sizeof cases / sizeof *cases && !st; c++) {
      struct batch b = {.coll = cases[c].coll};
      char err[256], mwhy[512] = "";
      if (tutti_algo_select(cases[c].coll, cases[c].algo, NULL, &b.algo, err, sizeof err)) {
        fprintf(stderr, "tutti bench fibers: %s\n", err);
        st = 3;
        break;
      }
      /* a batch of about TARGET in each mode, at least MIN_CALLS: the
       * barriers around a batch are not to weigh (fibers at 1024 ranks
       * made batches of 5). Sized from a batch of at least an eighth of
       * one, as the MPI side's (bench_coll_mpi.c): the first calls of a
       * run are slow, and sizing from a few of them makes batches too
       * short. */
      int calls[2];
      for (int k = 0; k < 2; k++) {
        b.calls = 5;
        for (int pass = 0; pass < 6; pass++) {
          if (tutti_world_run(w[k], batch_fn, &b)) goto failed;
          if (b.calls * b.per_call >= TARGET / 8 || b.calls >= MAX_CALLS) break;
          b.calls = bench_batch(TARGET / 4, b.per_call, MIN_CALLS, MAX_CALLS);
        }
        calls[k] = bench_batch(TARGET, b.per_call, MIN_CALLS, MAX_CALLS);
      }
      double tt[64], tf[64], tm[64], ratio[64], mf[64], mt[64], wake[2] = {0}, sleep[2] = {0};
      int sides = mpi ? 3 : 2, mbatch = 0;
      for (int i = 0; i < rounds; i++) {
        tm[i] = 0;
        for (int j = 0; j < sides; j++) {
          int k = (i + j) % sides; /* rotate which goes first */
          if (k == 2) {
            if (mj.pid <= 0) continue; /* failed in this round */
            tm[i] = mpijob_round(&mj, tutti_coll_name(cases[c].coll), cases[c].bytes, TARGET,
                                 &mbatch, mwhy, sizeof mwhy);
            if (tm[i] <= 0) {
              if (!tm[i])
                snprintf(mwhy, sizeof mwhy, "the MPI program has no %s",
                         tutti_coll_name(cases[c].coll));
              mpijob_stop(&mj, NULL);
              tm[i] = 0;
            }
            continue;
          }
          b.calls = calls[k];
          if (tutti_world_run(w[k], batch_fn, &b)) goto failed;
          (k ? tf : tt)[i] = b.per_call;
          tutti_stats_t ts;
          tutti_world_stats(w[k], &ts);
          /* per call of the run: the warm-up's too (the two barriers around
           * the batch are counted in, a little) */
          wake[k] += (double)ts.wakeups / ((double)(b.calls + WARMUP) * P * rounds);
          sleep[k] += (double)ts.sleeps / ((double)(b.calls + WARMUP) * P * rounds);
        }
        ratio[i] = tt[i] / tf[i];
      }
      int nm = 0; /* rounds with an Open MPI figure */
      for (int i = 0; i < rounds; i++)
        if (tm[i] > 0) mf[nm] = tm[i] / tf[i], mt[nm] = tm[i] / tt[i], tm[nm++] = tm[i];
      char s1[32], s2[32], s3[32] = "-", c1[16], c2[16], ws[2][32];
      if (nm) tutti_format_time(bench_median(tm, nm), s3, sizeof s3);
      for (int k = 0; k < 2; k++) snprintf(ws[k], sizeof ws[k], "%.2f / %.2f", wake[k], sleep[k]);
      printf("%6d  %-14s %-18s %11s %11s %7.2fx %11s %8s %8s   %-20s %s\n", P, cases[c].what,
             cases[c].algo, tutti_format_time(bench_median(tt, rounds), s1, sizeof s1),
             tutti_format_time(bench_median(tf, rounds), s2, sizeof s2),
             bench_median(ratio, rounds), s3, ratio_cell(mf, nm, c1, sizeof c1),
             ratio_cell(mt, nm, c2, sizeof c2), ws[0], ws[1]);
      if (mpi && mj.pid <= 0) { /* the job failed: no more Open MPI at this P */
        printf("Open MPI: failed at P=%d (%s): not run for the rest of P=%d\n", P, mwhy, P);
        mpi = 0;
      }
      fflush(stdout);
      continue;
    failed:
      fprintf(stderr, "tutti bench fibers: %s at P=%d failed: %s\n", cases[c].what, P,
              tutti_world_error(w[0])[0] ? tutti_world_error(w[0]) : tutti_world_error(w[1]));
      st = 3;
    }
    if (started) mpijob_stop(&mj, &mp);
    tutti_world_destroy(w[0]), tutti_world_destroy(w[1]);
  }
  if (built) {
    if (mp.ok && mp.lib[0]) printf("\nOpen MPI column: %s\n", mp.lib);
    mpijob_cleanup(&mp);
  }
  if (!st)
    printf("\n(wake = ranks woken per call and rank: a futex wake for threads, a queue push for "
           "fibers;\nOpen MPI's are not counted)\n");
  return st;
}

/* ------------------------------------------------------------- modeled */

struct mcall {
  int coll;
  const tutti_algo_t *algo;
  int calls;
};

static int modeled_fn(tutti_rank_t *r, void *arg) {
  const struct mcall *m = arg;
  static char buf[8]; /* --no-data: never touched */
  int rc = 0;
  for (int i = 0; i < m->calls && !rc; i++) switch (m->coll) {
    case TUTTI_COLL_BCAST:
      rc = tutti_bcast(r, buf, 8, TUTTI_BYTE, 0, m->algo);
      break;
    case TUTTI_COLL_REDUCE:
      rc = tutti_reduce(r, buf, buf, 8, TUTTI_BYTE, TUTTI_BOR, 0, m->algo);
      break;
    default:
      rc = tutti_barrier(r, m->algo);
    }
  return rc;
}

/* One timing-only run under the teaching-hockney model; prints a row. */
/* params: NULL, or the parameters the row runs with (its name then gets
 * a '*', which a note line explains). */
static int modeled_row(int P, int ranks_as, int coll, const char *algo, const char *params,
                       int calls, double *modeled) {
  tutti_machine_t mc;
  tutti_machine_spec_t ms = tutti_machine_spec_default();
  char err[512];
  if (tutti_machine_build(&ms, &mc, NULL, err, sizeof err)) {
    fprintf(stderr, "tutti bench fibers: %s\n", err);
    return 3;
  }
  struct mcall m = {coll, NULL, calls};
  if (tutti_algo_select(coll, algo, params, &m.algo, err, sizeof err) ||
      tutti_algo_check_call(m.algo, P, 0, coll == TUTTI_COLL_BARRIER ? 0 : 8, TUTTI_BOR, err,
                            sizeof err)) {
    printf("%8d  %-8s %-10s %-26s skipped: %s\n", P,
           ranks_as == TUTTI_RANKS_AS_FIBERS ? "fibers" : "threads", tutti_coll_name(coll), algo,
           err);
    tutti_machine_free(&mc);
    return 0;
  }
  tutti_config_t c = tutti_config_default(P);
  c.model = &mc.model;
  c.ranks_as = ranks_as;
  c.flags = TUTTI_NO_DATA;
  tutti_world_t *w;
  int rc = tutti_world_create(&w, &c);
  double t0 = bench_now();
  if (!rc) rc = tutti_world_run(w, modeled_fn, &m);
  double wall = bench_now() - t0;
  tutti_report_t rep;
  tutti_stats_t st = {0};
  if (!rc) rc = tutti_world_report(w, &rep);
  if (rc) {
    fprintf(stderr, "tutti bench fibers: %s %s at P=%d: %s\n", tutti_coll_name(coll), algo, P,
            w ? tutti_world_error(w) : tutti_strerror(rc));
    tutti_world_destroy(w);
    tutti_machine_free(&mc);
    return 3;
  }
  tutti_world_stats(w, &st);
  char s1[32], s2[32];
  char name[64];
  snprintf(name, sizeof name, "%s%s", algo, params ? "*" : "");
  printf("%8d  %-8s %-10s %-26s %10s %9.2f s %10.3g %10.3g %8.2f GiB\n", P,
         ranks_as == TUTTI_RANKS_AS_FIBERS ? "fibers" : "threads", tutti_coll_name(coll), name,
         tutti_format_time(rep.modeled_time, s1, sizeof s1), wall, (double)st.messages,
         (double)rep.events / fmax(rep.replay_wall_time, 1e-9), peak_rss_gib());
  (void)s2;
  fflush(stdout);
  *modeled = rep.modeled_time;
  tutti_world_destroy(w);
  tutti_machine_free(&mc);
  return 0;
}

static void modeled_head(void) {
  printf("%8s  %-8s %-10s %-26s %10s %11s %10s %10s %12s\n", "P", "ranks as", "collective",
         "algorithm", "modeled", "wall", "messages", "replay ev/s", "peak RSS");
}

static int modeled(int P) {
  printf("\nmodeled (teaching-hockney, --no-data): %d ranks, scatter-allgather bcast of 8 B, 10 "
         "calls\n\n",
         P);
  modeled_head();
  double t[2];
  for (int k = 0; k < 2; k++) {
    int rc = modeled_row(P, k ? TUTTI_RANKS_AS_FIBERS : TUTTI_RANKS_AS_THREADS, TUTTI_COLL_BCAST,
                         "scatter-allgather", NULL, 10, &t[k]);
    if (rc) return rc;
  }
  if (memcmp(&t[0], &t[1], sizeof t[0])) {
    fprintf(stderr,
            "tutti bench fibers: modeled times differ: %.17g s with threads, %.17g with "
            "fibers\n",
            t[0], t[1]);
    return 3;
  }
  return 0;
}

/* Algorithms whose default parameters cannot run at 262144 ranks, and the
 * registered parameters they run with there instead. */
static const struct {
  const char *name, *params, *why;
} scale_params[] = {
    {"scatter-allgather", "allgather=recursive-doubling",
     "its default ring allgather posts P(P-1) messages, 6.9e10 at 262144 ranks"},
};

static int scale(void) {
  printf("\nscale (fibers, teaching-hockney, --no-data, 8 B, one call)\n\n");
  modeled_head();
  const int colls[] = {TUTTI_COLL_BCAST, TUTTI_COLL_REDUCE, TUTTI_COLL_BARRIER};
  const tutti_algo_desc_t *d;
  double t;
  for (size_t c = 0; c < 3; c++)
    for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
      if (d->coll == colls[c]) {
        const char *params = NULL;
        for (size_t k = 0; k < sizeof scale_params / sizeof *scale_params; k++)
          if (!strcmp(d->name, scale_params[k].name)) {
            params = scale_params[k].params;
            printf("%8s  (%s*: %s; it runs with %s)\n", "", d->name, scale_params[k].why, params);
          }
        int rc = modeled_row(262144, TUTTI_RANKS_AS_FIBERS, d->coll, d->name, params, 1, &t);
        if (rc) return rc;
      }
  const int big = 1048576;
  int rc = modeled_row(big, TUTTI_RANKS_AS_FIBERS, TUTTI_COLL_BCAST, "binomial", NULL, 1, &t);
  if (!rc)
    rc = modeled_row(big, TUTTI_RANKS_AS_FIBERS, TUTTI_COLL_REDUCE, "lambda-tree", NULL, 1, &t);
  if (rc) return rc;
  /* The largest P: tutti's own limit, and what this machine's memory
   * would hold at the peak per rank measured above. */
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  double per_rank = peak_rss_gib() * (1 << 30) / big;
  printf("\nlargest P: %d, tutti's limit (TUTTI_ERANK above it); at %.1f KiB a rank (this\n"
         "process's peak over %d ranks) this machine's %.0f GiB would hold about %.2g ranks\n",
         big, per_rank / 1024, big, (double)pages * psize / (1 << 30),
         (double)pages * psize / per_rank);
  return 0;
}

int tutti_bench_fibers(int argc, char **argv) {
  int Ps[8] = {16, 1024}, nP = 2, rounds = 9, do_scale = 0, do_native = 1, mranks = 1024;
  int no_mpi = 0, workers = 0;
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf(
          "usage: tutti bench fibers [-n P,Q,..] [--rounds K] [--modeled-ranks P] [--workers W]\n"
          "                          [--scale] [--no-native] [--no-mpi]\n\n"
          "Ranks as fibers against ranks as threads, and against Open MPI, in one run: native\n"
          "barrier (dissemination), bcast 8 B (binomial and binary trees) and allreduce 8 B\n"
          "(recursive doubling) at P ranks (default 16,1024), each round a\n"
          "batch of about %g ms in each mode and of Open MPI's own collective (a small MPI\n"
          "program built with mpicc, run under mpirun --oversubscribe when Open MPI is\n"
          "installed, P up to %d), the medians of the per-round ratios (above 1 for Open\n"
          "MPI's time over tutti's: tutti is faster) and the wake-ups per call and rank;\n"
          "a modeled scatter-allgather bcast of 8 B, 10 calls, in both modes; with --scale,\n"
          "262144 fiber ranks for every bcast, reduce and barrier algorithm and 1048576 for\n"
          "binomial bcast and lambda-tree reduce (timing only).\n\n"
          "options:\n"
          "  -n P,Q,..           rank counts of the native part, each 2..16384 (default\n"
          "                      16,1024)\n"
          "  --rounds K          rounds of the native part, 1..64 (default 9)\n"
          "  --modeled-ranks P   ranks of the modeled part, 2..16384 (default 1024)\n"
          "  --workers W         worker threads of the native part's fibers, 1..1024\n"
          "                      (default one per 1024 ranks, up to one per CPU)\n"
          "  --scale             then the 262144- and 1048576-rank worlds\n"
          "  --no-native         skip the native part\n"
          "  --no-mpi            leave Open MPI out of the native part\n"
          "  -h, --help          this text\n",
          TARGET * 1e3, MPIJOB_MAX_P);
      return 0;
    } else if ((v = bench_opt(argc, argv, &i, "-n"))) {
      nP = 0;
      for (char *s = (char *)v, *end; *s && nP < 8; s = *end ? end + 1 : end) {
        long x = strtol(s, &end, 10);
        if (end == s || x < 2 || x > 16384 || (*end && *end != ',')) {
          fprintf(stderr,
                  "tutti bench fibers: -n: '%s' is not a list of rank counts; accepted: "
                  "2..16384, comma-separated\n",
                  v);
          return 2;
        }
        Ps[nP++] = (int)x;
      }
    } else if ((v = bench_opt(argc, argv, &i, "--rounds"))) {
      rounds = atoi(v);
      if (rounds < 1 || rounds > 64) {
        fprintf(stderr, "tutti bench fibers: --rounds: '%s'; accepted: 1..64\n", v);
        return 2;
      }
    } else if ((v = bench_opt(argc, argv, &i, "--modeled-ranks"))) {
      mranks = atoi(v);
      if (mranks < 2 || mranks > 16384) {
        fprintf(stderr, "tutti bench fibers: --modeled-ranks: '%s'; accepted: 2..16384\n", v);
        return 2;
      }
    } else if ((v = bench_opt(argc, argv, &i, "--workers"))) {
      workers = atoi(v);
      if (workers < 1 || workers > 1024) {
        fprintf(stderr, "tutti bench fibers: --workers: '%s'; accepted: 1..1024\n", v);
        return 2;
      }
    } else if (!strcmp(argv[i], "--scale")) {
      do_scale = 1;
    } else if (!strcmp(argv[i], "--no-native")) {
      do_native = 0;
    } else if (!strcmp(argv[i], "--no-mpi")) {
      no_mpi = 1;
    } else {
      fprintf(stderr,
              "tutti bench fibers: unknown option '%s'; accepted: -n, --rounds, --modeled-ranks, "
              "--workers, --scale, --no-native, --no-mpi, --help\n",
              argv[i]);
      return 2;
    }
  }
  int rc = do_native ? native(Ps, nP, rounds, no_mpi, workers) : 0;
  if (!rc) rc = modeled(mranks);
  if (!rc && do_scale) rc = scale();
  return rc;
}

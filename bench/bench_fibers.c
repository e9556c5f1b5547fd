/*
 * bench_fibers.c -- `tutti bench fibers`: ranks as fibers (runtime/fiber.c)
 * against ranks as threads, in one run.
 *
 * Native (model none), oversubscribed: a barrier (dissemination), a
 * broadcast of 8 B (binomial) and an allreduce of 8 B (recursive
 * doubling) at 16 and 1024 ranks on this machine's cores. One world of each
 * kind per P, kept; each round times a batch of calls in the thread world
 * and then in the fiber world (the order alternates), rank 0 timing from a
 * barrier before the batch to a barrier after it; the ratio is threads'
 * time per call over fibers', the median of the per-round ratios (the
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

#include "bench.h"
#include "stats.h"
#include "tutti/tutti.h"

int tutti_bench_fibers(int argc, char **argv);

static double peak_rss_gib(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_maxrss / (1 << 20);
}

/* ------------------------------------------------------------- native */

struct batch {
  int coll;
  tutti_algo_t algo;
  int calls;
  double per_call; /* rank 0's, seconds */
};

static int batch_fn(tutti_rank_t *r, void *arg) {
  struct batch *b = arg;
  int64_t x = tutti_rank(r), y = 0;
  int rc = tutti_barrier(r, NULL);
  double t0 = bench_now();
  for (int i = 0; i < b->calls && !rc; i++) switch (b->coll) {
    case TUTTI_COLL_BARRIER:
      rc = tutti_barrier(r, &b->algo);
      break;
    case TUTTI_COLL_BCAST:
      rc = tutti_bcast(r, &x, 1, TUTTI_INT64, 0, &b->algo);
      break;
    default:
      rc = tutti_allreduce(r, &x, &y, 1, TUTTI_INT64, TUTTI_SUM, &b->algo);
    }
  if (!rc) rc = tutti_barrier(r, NULL);
  if (tutti_rank(r) == 0) b->per_call = (bench_now() - t0) / b->calls;
  return rc;
}

static const struct {
  int coll;
  const char *algo, *what;
} cases[] = {{TUTTI_COLL_BARRIER, "dissemination", "barrier"},
             {TUTTI_COLL_BCAST, "binomial", "bcast 8 B"},
             {TUTTI_COLL_ALLREDUCE, "recursive-doubling", "allreduce 8 B"}};

static int native(const int *Ps, int nP, int rounds) {
  printf("native (model none), %d rounds; ratio = threads' time per call over fibers', median of "
         "per-round ratios\n\n",
         rounds);
  printf("%6s  %-14s %12s %12s %9s   %-22s %-22s\n", "P", "collective", "threads", "fibers",
         "ratio", "threads wake/sleep", "fibers wake/sleep");
  for (int p = 0; p < nP; p++) {
    int P = Ps[p];
    tutti_world_t *w[2];
    for (int k = 0; k < 2; k++) {
      tutti_config_t c = tutti_config_default(P);
      c.ranks_as = k ? TUTTI_RANKS_AS_FIBERS : TUTTI_RANKS_AS_THREADS;
      int rc = tutti_world_create(&w[k], &c);
      if (rc) {
        fprintf(stderr, "tutti bench fibers: cannot create a world of %d ranks: %s\n", P,
                tutti_strerror(rc));
        if (k) tutti_world_destroy(w[0]);
        return 3;
      }
    }
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
      struct batch b = {.coll = cases[c].coll};
      char err[256];
      if (tutti_algo_select(cases[c].coll, cases[c].algo, NULL, &b.algo, err, sizeof err)) {
        fprintf(stderr, "tutti bench fibers: %s\n", err);
        return 3;
      }
      /* a batch of about 20 ms in thread mode, at least 5 calls */
      b.calls = 5;
      if (tutti_world_run(w[0], batch_fn, &b)) goto failed;
      b.calls = (int)fmin(20000, fmax(5, 0.02 / fmax(b.per_call, 1e-9)));
      double tt[64], tf[64], ratio[64], wake[2] = {0}, sleep[2] = {0};
      for (int i = 0; i < rounds; i++) {
        for (int j = 0; j < 2; j++) {
          int k = (i + j) % 2; /* alternate which goes first */
          if (tutti_world_run(w[k], batch_fn, &b)) goto failed;
          (k ? tf : tt)[i] = b.per_call;
          tutti_stats_t st;
          tutti_world_stats(w[k], &st);
          wake[k] += (double)st.wakeups / ((double)b.calls * P * rounds);
          sleep[k] += (double)st.sleeps / ((double)b.calls * P * rounds);
        }
        ratio[i] = tt[i] / tf[i];
      }
      char s1[32], s2[32], ws[2][32];
      for (int k = 0; k < 2; k++) snprintf(ws[k], sizeof ws[k], "%.2f / %.2f", wake[k], sleep[k]);
      printf("%6d  %-14s %12s %12s %8.2fx   %-22s %-22s\n", P, cases[c].what,
             tutti_format_time(bench_median(tt, rounds), s1, sizeof s1),
             tutti_format_time(bench_median(tf, rounds), s2, sizeof s2),
             bench_median(ratio, rounds), ws[0], ws[1]);
      fflush(stdout);
      continue;
    failed:
      fprintf(stderr, "tutti bench fibers: %s at P=%d failed: %s\n", cases[c].what, P,
              tutti_world_error(w[0])[0] ? tutti_world_error(w[0]) : tutti_world_error(w[1]));
      tutti_world_destroy(w[0]), tutti_world_destroy(w[1]);
      return 3;
    }
    tutti_world_destroy(w[0]), tutti_world_destroy(w[1]);
  }
  printf("\n(wake = ranks woken per call and rank: a futex wake for threads, a queue push for "
         "fibers)\n");
  return 0;
}

/* ------------------------------------------------------------- modeled */

struct mcall {
  int coll;
  tutti_algo_t algo;
  int calls;
};

static int modeled_fn(tutti_rank_t *r, void *arg) {
  const struct mcall *m = arg;
  static char buf[8]; /* --no-data: never touched */
  int rc = 0;
  for (int i = 0; i < m->calls && !rc; i++) switch (m->coll) {
    case TUTTI_COLL_BCAST:
      rc = tutti_bcast(r, buf, 8, TUTTI_BYTE, 0, &m->algo);
      break;
    case TUTTI_COLL_REDUCE:
      rc = tutti_reduce(r, buf, buf, 8, TUTTI_BYTE, TUTTI_BOR, 0, &m->algo);
      break;
    default:
      rc = tutti_barrier(r, &m->algo);
    }
  return rc;
}

/* One timing-only run under the teaching-hockney model; prints a row. */
static int modeled_row(int P, int ranks_as, int coll, const char *algo, int calls,
                       double *modeled) {
  tutti_machine_t mc;
  tutti_machine_spec_t ms = tutti_machine_spec_default();
  char err[512];
  if (tutti_machine_build(&ms, &mc, NULL, err, sizeof err)) {
    fprintf(stderr, "tutti bench fibers: %s\n", err);
    return 3;
  }
  struct mcall m = {coll, {0}, calls};
  if (tutti_algo_select(coll, algo, NULL, &m.algo, err, sizeof err) ||
      tutti_algo_check_call(&m.algo, P, 0, coll == TUTTI_COLL_BARRIER ? 0 : 8, TUTTI_BOR, err,
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
  printf("%8d  %-8s %-10s %-26s %10s %9.2f s %10.3g %10.3g %8.2f GiB\n", P,
         ranks_as == TUTTI_RANKS_AS_FIBERS ? "fibers" : "threads", tutti_coll_name(coll), algo,
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
                         "scatter-allgather", 10, &t[k]);
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

static int scale(void) {
  printf("\nscale (fibers, teaching-hockney, --no-data, 8 B, one call)\n\n");
  modeled_head();
  const int colls[] = {TUTTI_COLL_BCAST, TUTTI_COLL_REDUCE, TUTTI_COLL_BARRIER};
  const tutti_algo_desc_t *d;
  double t;
  for (size_t c = 0; c < 3; c++)
    for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
      if (d->coll == colls[c]) {
        int rc = modeled_row(262144, TUTTI_RANKS_AS_FIBERS, d->coll, d->name, 1, &t);
        if (rc) return rc;
      }
  int rc = modeled_row(1048576, TUTTI_RANKS_AS_FIBERS, TUTTI_COLL_BCAST, "binomial", 1, &t);
  if (!rc)
    rc = modeled_row(1048576, TUTTI_RANKS_AS_FIBERS, TUTTI_COLL_REDUCE, "lambda-tree", 1, &t);
  return rc;
}

int tutti_bench_fibers(int argc, char **argv) {
  int Ps[8] = {16, 1024}, nP = 2, rounds = 9, do_scale = 0, do_native = 1, mranks = 1024;
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      printf("usage: tutti bench fibers [-n P,Q,..] [--rounds K] [--modeled-ranks P] [--scale]\n"
             "                          [--no-native]\n\n"
             "Ranks as fibers against ranks as threads in one run: native barrier, bcast 8 B\n"
             "and allreduce 8 B at P ranks (default 16,1024), the median of per-round ratios;\n"
             "a modeled 1024-rank scatter-allgather bcast, 10 calls, in both modes; with\n"
             "--scale, 262144 fiber ranks for every bcast, reduce and barrier algorithm and\n"
             "1048576 for binomial bcast and lambda-tree reduce (timing only).\n");
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
    } else if (!strcmp(argv[i], "--scale")) {
      do_scale = 1;
    } else if (!strcmp(argv[i], "--no-native")) {
      do_native = 0;
    } else {
      fprintf(stderr,
              "tutti bench fibers: unknown option '%s'; accepted: -n, --rounds, --modeled-ranks, "
              "--scale, --no-native, --help\n",
              argv[i]);
      return 2;
    }
  }
  int rc = do_native ? native(Ps, nP, rounds) : 0;
  if (!rc) rc = modeled(mranks);
  if (!rc && do_scale) rc = scale();
  return rc;
}

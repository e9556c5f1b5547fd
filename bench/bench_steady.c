/*
 * bench_steady.c -- the first section of `tutti bench p2p`: how steady
 * small messages are at 2 ranks on this machine, as a distribution over
 * repetitions, not one figure. Each repetition measures in turn:
 *   - an 8-byte ping-pong's one-way time on tutti's 2 rank threads, placed
 *     as the library places them (by default each pinned to a core of its
 *     own, as mpirun binds its processes: include/tutti/tutti.h tutti_bind);
 *   - the same ping-pong under Open MPI (bench_coll_mpi.c's "pingpong" run
 *     by mpirun beside the threads, when Open MPI is installed);
 *   - pthread_barrier_wait on the 2 rank threads (the floor of a barrier);
 *   - tutti's barrier as a user gets it (algo NULL: the registry's default,
 *     lambda-tree, a reduce then a broadcast), and dissemination (one
 *     exchange at 2 ranks);
 *   - MPI_Barrier.
 * A wide distribution is the defect this section exists to show: unpinned,
 * the two ranks could share one core while the other idled, and a message
 * then waited for a time slice (runtime/README.md "Binding").
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "mpijob.h"
#include "pingpong.h"
#include "stats.h"
#include "tutti/tutti.h"

enum { PP_ITERS = 20000, PP_WARM = 1000, BAR_CALLS = 4000, BAR_WARM = 200 };

/* What one repetition of each row measured (seconds; 0: not measured). */
enum { R_PP, R_PP_MPI, R_BAR_FLOOR, R_BAR, R_BAR_DISS, R_BAR_MPI, NROWS };

struct steady {
  pthread_barrier_t floor;
  double bar[2]; /* per rank: seconds per barrier call of the last batch */
  double oneway;
  int which; /* R_PP, R_BAR_FLOOR, R_BAR or R_BAR_DISS */
  const tutti_algo_t *diss;
};

static int steady_fn(tutti_rank_t *r, void *arg) {
  struct steady *s = arg;
  int me = tutti_rank(r), rc = 0;
  if (s->which == R_PP) {
    char buf[8] = {0};
    return pp_latency(r, buf, sizeof buf, PP_ITERS, PP_WARM, bench_now, &s->oneway);
  }
  double t0 = 0;
  for (int i = 0; i < BAR_WARM + BAR_CALLS && !rc; i++) {
    if (i == BAR_WARM) t0 = bench_now();
    if (s->which == R_BAR_FLOOR)
      pthread_barrier_wait(&s->floor);
    else
      rc = tutti_barrier(r, s->which == R_BAR_DISS ? s->diss : NULL);
  }
  s->bar[me] = (bench_now() - t0) / BAR_CALLS;
  return rc;
}

/* The p-th quantile of the sorted v[0..n), nearest rank. */
static double quantile(const double *v, int n, double p) {
  int i = (int)(p * (n - 1) + 0.5);
  return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

/* One row: its measured repetitions (v[k] > 0) only. */
static void print_row(const char *name, const double *v, int reps) {
  double s[256];
  int n = 0;
  for (int k = 0; k < reps; k++)
    if (v[k] > 0) s[n++] = v[k];
  if (n == 0) return;
  double med = bench_median(s, n); /* sorts s */
  int slow = 0;
  for (int i = 0; i < n; i++) slow += s[i] > 3 * med;
  printf("  %-38s %9.0f %9.0f %9.0f %9.0f %9.0f %6d\n", name, s[0] * 1e9, quantile(s, n, 0.1) * 1e9,
         med * 1e9, quantile(s, n, 0.9) * 1e9, s[n - 1] * 1e9, slow);
}

/* The median over repetitions of a[k] / b[k], where both were measured. */
static double ratio(const double *a, const double *b, int n) {
  double q[256];
  int m = 0;
  for (int k = 0; k < n; k++)
    if (a[k] > 0 && b[k] > 0) q[m++] = a[k] / b[k];
  return bench_median(q, m);
}

int bench_steady(int reps, int use_mpi) {
  if (reps < 1 || reps > 256) return 2;
  tutti_world_t *w;
  tutti_config_t c = tutti_config_default(2);
  c.ranks_as = TUTTI_RANKS_AS_THREADS; /* beside pthread_barrier_wait on the same threads */
  if (tutti_world_create(&w, &c)) return 3;
  struct mpiprog mp = {0};
  struct mpijob mj = {.pid = -1};
  char why[512] = "";
  int started = 0;
  if (use_mpi) {
    mpijob_build(&mp);
    if (!mp.ok)
      snprintf(why, sizeof why, "%s", mp.why);
    else
      started = !mpijob_start(&mp, 2, &mj, why, sizeof why);
  } else
    snprintf(why, sizeof why, "left out (--no-mpi)");
  struct steady s;
  if (tutti_algo_select(TUTTI_COLL_BARRIER, "dissemination", NULL, &s.diss, NULL, 0)) {
    tutti_world_destroy(w);
    return 3;
  }
  pthread_barrier_init(&s.floor, NULL, 2);
  double t[NROWS][256] = {{0}}, sleeps = 0;
  int status = 0;
  for (int k = 0; k < reps && !status; k++) {
    for (int row = 0; row < NROWS && !status; row++) {
      if (row == R_PP_MPI || row == R_BAR_MPI) {
        if (mj.pid <= 0) continue;
        int batch;
        double x = mpijob_round(&mj, row == R_PP_MPI ? "pingpong" : "barrier", 8, 5e-3, &batch, why,
                                sizeof why);
        if (x < 0) mpijob_stop(&mj, NULL); /* why says what failed; tutti's rows go on */
        t[row][k] = x > 0 ? (row == R_PP_MPI ? x / 2 : x) : 0;
        continue;
      }
      s.which = row;
      if (tutti_world_run(w, steady_fn, &s)) {
        fprintf(stderr, "tutti bench p2p: %s\n", tutti_world_error(w));
        status = 3;
        break;
      }
      tutti_stats_t st;
      tutti_world_stats(w, &st);
      if (row == R_PP) sleeps += (double)st.sleeps;
      t[row][k] = row == R_PP ? s.oneway : s.bar[0] > s.bar[1] ? s.bar[0] : s.bar[1];
    }
  }
  pthread_barrier_destroy(&s.floor);
  tutti_world_destroy(w);
  if (started) mpijob_stop(&mj, &mp);
  mpijob_cleanup(&mp);
  if (status) return status;

  int mpi_reps = 0;
  for (int k = 0; k < reps; k++) mpi_reps += t[R_PP_MPI][k] > 0;
  printf("steady small messages at 2 ranks: %d repetitions, each measuring every row in turn\n"
         "(ns; the ping-pong's one-way time over %d round trips, a barrier's time per call\n"
         "over %d calls, the slower rank's; slow: repetitions above 3x the row's median)\n",
         reps, PP_ITERS, BAR_CALLS);
  printf("  %-38s %9s %9s %9s %9s %9s %6s\n", "", "min", "p10", "median", "p90", "max", "slow");
  char dflt[64];
  snprintf(dflt, sizeof dflt, "barrier: tutti default (%s)",
           tutti_algo_desc_default(TUTTI_COLL_BARRIER)->name);
  const char *names[NROWS] = {"8 B one-way: tutti",
                              "8 B one-way: Open MPI",
                              "barrier: pthread_barrier_wait",
                              dflt,
                              "barrier: tutti dissemination",
                              "barrier: Open MPI"};
  for (int row = 0; row < NROWS; row++) print_row(names[row], t[row], reps);
  printf("  tutti sleeps per ping-pong message: %.4f\n",
         sleeps / (2.0 * (double)(PP_ITERS + PP_WARM) * reps));
  if (mpi_reps)
    printf("  tutti / Open MPI, medians of per-repetition ratios: one-way %.2fx, barrier %.2fx"
           " (dissemination; default %.2fx) (%s)\n",
           ratio(t[R_PP], t[R_PP_MPI], reps), ratio(t[R_BAR_DISS], t[R_BAR_MPI], reps),
           ratio(t[R_BAR], t[R_BAR_MPI], reps), mp.lib);
  if (mpi_reps < reps)
    printf("  Open MPI: %s in %d of %d repetitions: %s\n", mpi_reps ? "measured" : "not measured",
           mpi_reps, reps, why);
  printf("  tutti barrier / pthread_barrier_wait, medians of per-repetition ratios: %.2fx"
         " (dissemination), %.2fx (default)\n\n",
         ratio(t[R_BAR_DISS], t[R_BAR_FLOOR], reps), ratio(t[R_BAR], t[R_BAR_FLOOR], reps));
  return 0;
}

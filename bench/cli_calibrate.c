/*
 * cli_calibrate.c -- `tutti calibrate [PROFILE] [--sizes L] [--iters R]`:
 * measure tutti's thread runtime between two rank threads (ping-pong and
 * back-to-back sends, calib.c), fit Hockney alpha/beta piecewise between
 * the protocol steps found and LogGP L/o/g/G, print the tables and, given
 * a file name, write the profile --profile reads. `tutti-mpi calibrate`
 * (bench/mpi/calibrate.c) does the same over MPI with the same calib.c.
 */
#include <stdlib.h>
#include <time.h>

#include "calib.h"
#include "cli.h"

#define CALIBRATE_OPTS (CLI_O(SIZES) | CLI_O(ITERS) | CLI_O(HELP))

struct calib_job {
  const size_t *sizes;
  int n, reps;
  struct calib_data d;
};

static double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int calib_rank(tutti_rank_t *r, void *arg) {
  struct calib_job *j = arg;
  return calib_measure(r, j->sizes, j->n, j->reps, 16, mono, &j->d);
}

/* The default sizes: 8 B to 4 MiB, doubling. */
static int default_sizes(size_t *s) {
  int n = 0;
  for (size_t m = 8; m <= 4u << 20; m *= 2) s[n++] = m;
  return n;
}

int tutti_cli_calibrate(int argc, char **argv) {
  struct cli_opts o;
  int st = cli_parse_world("calibrate", CALIBRATE_OPTS, 1, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    printf("usage: tutti calibrate [PROFILE] [--sizes LIST] [--iters R]\n\n"
           "Measure tutti's thread runtime between two rank threads (none model): ping-pong\n"
           "and back-to-back sends over the sizes (default 8..4MiB), R repetitions each\n"
           "(default 31, medians). Fit Hockney alpha and beta to the one-way ping-pong time\n"
           "piecewise: one line per range of sizes between the protocol steps found in the\n"
           "data (the fewest ranges, up to 5, within 5%% of every size; eager_limit is the\n"
           "first step up by the smallest size's time). Fit LogGP g and G to the\n"
           "back-to-back time per message, all by least squares on relative residuals;\n"
           "print the fits with their error per range, and write PROFILE, a profile file\n"
           "that --profile reads. mpirun -n 2 tutti-mpi calibrate measures an MPI library\n"
           "the same way.\n\noptions:\n");
    cli_print_options(stdout, CALIBRATE_OPTS);
    return 0;
  }
  size_t defs[CALIB_MAX_SIZES], *sizes = NULL;
  int n = default_sizes(defs);
  if (o.sizes && (st = cli_parse_sizes("calibrate", o.sizes, &sizes, &n))) return st;
  if (n < 2 || n > CALIB_MAX_SIZES) {
    free(sizes);
    return cli_fail(CLI_EUSAGE, "calibrate", "--sizes: %d sizes; accepted: 2 to %d sizes", n,
                    CALIB_MAX_SIZES);
  }
  struct cli_out out = {0}; /* PROFILE */
  if (o.npos == 1 && (st = cli_out_open(&out, "calibrate", "PROFILE", o.pos[0], 0))) {
    free(sizes);
    return st;
  }
  struct calib_job j = {
      .sizes = sizes ? sizes : defs, .n = n, .reps = o.given & CLI_O(ITERS) ? o.iters : 31};
  tutti_config_t cfg = tutti_config_default(2);
  cfg.ranks_as = TUTTI_RANKS_AS_THREADS; /* two threads on two cores, as two processes */
  tutti_world_t *w;
  int rc = tutti_world_create(&w, &cfg);
  if (!rc) {
    rc = tutti_world_run(w, calib_rank, &j);
    tutti_world_destroy(w);
  }
  free(sizes);
  struct calib_result res;
  if (!rc) rc = calib_analyze(&j.d, &res);
  if (rc) {
    cli_out_discard(&out);
    return cli_fail(CLI_ERUNTIME, "calibrate", "%s", tutti_strerror(rc));
  }
  printf("tutti's thread runtime, 2 rank threads, %d repetitions per size\n", j.reps);
  calib_print(stdout, &j.d, &res);
  if (out.f) {
    calib_write_profile(out.f, "tutti's thread runtime", &j.d, &res);
    if ((st = cli_out_commit(&out))) return st;
    printf("profile       %s (--profile %s)\n", o.pos[0], o.pos[0]);
  }
  return CLI_OK;
}

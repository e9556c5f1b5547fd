/*
 * calibrate.c -- `tutti-mpi calibrate [PROFILE]`: the MPI library measured
 * between ranks 0 and 1 (ping-pong and back-to-back sends over the sizes),
 * Hockney and LogGP fitted by bench/calib.c -- the code `tutti calibrate`
 * uses for threads -- and written as a profile file that tutti's --profile
 * reads (bench/CLI.md "tutti-mpi"). Ranks 0 and 1 on one host measure that
 * host's shared memory, not the network: said on stderr and in the profile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calib.h"
#include "cli.h"
#include "main.h"

#define CALIBRATE_OPTS (CLI_O(SIZES) | CLI_O(ITERS) | CLI_O(HELP))

static double wtime(void) {
  return MPI_Wtime();
}

/* On rank 0: whether ranks 0 and 1 run on one host, its name in host. */
static int same_host(tutti_rank_t *r, char host[MPI_MAX_PROCESSOR_NAME]) {
  char other[MPI_MAX_PROCESSOR_NAME] = "";
  int len = 0, me = tutti_rank(r);
  MPI_Get_processor_name(host, &len);
  if (me == 1) MPI_Send(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 0, tutti_mpi_comm(r));
  if (me != 0) return 0;
  MPI_Recv(other, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 1, 0, tutti_mpi_comm(r), MPI_STATUS_IGNORE);
  return strncmp(host, other, MPI_MAX_PROCESSOR_NAME) == 0;
}

/* The same-host warning in two lines, each after prefix. */
static void host_warning(FILE *f, const char *prefix, const char *host) {
  fprintf(f,
          "%sranks 0 and 1 are both on %s: this measures shared memory within a node, not the "
          "network;\n%sto measure the network, place them on two nodes: mpirun -n 2 --map-by "
          "node --host NODE1,NODE2 tutti-mpi calibrate ...\n",
          prefix, host, prefix);
}

int tutti_mpi_calibrate(tutti_rank_t *r, int argc, char **argv) {
  const char *cmd = "mpi calibrate";
  struct cli_opts o;
  int st = cli_parse(cmd, CALIBRATE_OPTS, 1, argc, argv, &o), me = tutti_rank(r);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    if (me == 0)
      printf("usage: mpirun -n 2 tutti-mpi calibrate [PROFILE] [--sizes LIST] [--iters R]\n\n"
             "Measure the MPI library between ranks 0 and 1 (others wait): ping-pong and\n"
             "back-to-back sends over the sizes (default 8..4MiB), R repetitions each\n"
             "(default 101, medians). Fit Hockney alpha/beta piecewise, one line per range\n"
             "between the protocol steps found in the data (eager_limit: the first up by a\n"
             "small message's time), with the error per range, and LogGP L/o/g/G\n"
             "(bench/calib.c, the code `tutti calibrate` uses for threads); write PROFILE,\n"
             "a profile file that tutti's --profile reads. Ranks 0 and 1 on one host\n"
             "measure its shared memory (a warning says so): for the network, mpirun -n 2\n"
             "--map-by node --host A,B.\n");
    return 0;
  }
  if (tutti_size(r) < 2)
    return cli_fail(CLI_EUSAGE, cmd, "needs 2 processes, has 1; accepted: mpirun -n 2");
  size_t defs[CALIB_MAX_SIZES], *sizes = NULL;
  int n = 0;
  for (size_t m = 8; m <= 4u << 20; m *= 2) defs[n++] = m;
  if (o.sizes && (st = cli_parse_sizes(cmd, o.sizes, &sizes, &n))) return st;
  if (n < 2 || n > CALIB_MAX_SIZES) {
    free(sizes);
    return cli_fail(CLI_EUSAGE, cmd, "--sizes: %d sizes; accepted: 2 to %d sizes", n,
                    CALIB_MAX_SIZES);
  }
  struct cli_out out = {0}; /* PROFILE, rank 0's (bench/CLI.md "Output files") */
  if (me == 0 && o.npos == 1) st = cli_out_open(&out, cmd, "PROFILE", o.pos[0], 0);
  MPI_Bcast(&st, 1, MPI_INT, 0, tutti_mpi_comm(r));
  if (st) { /* rank 0 said why */
    free(sizes);
    return st;
  }
  char host[MPI_MAX_PROCESSOR_NAME] = "";
  int shared = same_host(r, host);
  if (shared) host_warning(stderr, "tutti mpi calibrate: ", host);
  /* more than the threads' 31: a node's times vary more, and the profile serves a cluster */
  int reps = o.given & CLI_O(ITERS) ? o.iters : 101;
  static struct calib_data d;
  int rc = calib_measure(r, sizes ? sizes : defs, n, reps, 16, wtime, &d), any = 0;
  free(sizes);
  /* ranks past 1 wait here without spinning on the cores 0 and 1 need */
  MPI_Request q;
  int done = 0;
  MPI_Iallreduce(&rc, &any, 1, MPI_INT, MPI_MIN, tutti_mpi_comm(r), &q);
  while (!done) {
    MPI_Test(&q, &done, MPI_STATUS_IGNORE);
    if (!done && me > 1) nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  struct calib_result res;
  if (!any && me == 0) any = calib_analyze(&d, &res);
  MPI_Bcast(&any, 1, MPI_INT, 0, tutti_mpi_comm(r));
  if (any) {
    cli_out_discard(&out);
    return cli_fail(CLI_ERUNTIME, cmd, "%s", tutti_strerror(any));
  }
  if (me != 0) return CLI_OK;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "", what[MPI_MAX_LIBRARY_VERSION_STRING + 32];
  int len = 0;
  MPI_Get_library_version(lib, &len);
  lib[strcspn(lib, ",\n")] = 0;
  snprintf(what, sizeof what, "%s (MPI)", lib);
  printf("%s, ranks 0 and 1 of %d, %d repetitions per size\n", what, tutti_size(r), reps);
  calib_print(stdout, &d, &res);
  if (out.f) {
    if (shared) host_warning(out.f, "; warning: ", host);
    calib_write_profile(out.f, what, &d, &res);
    if ((st = cli_out_commit(&out))) return st;
    printf("profile       %s (--profile %s)\n", o.pos[0], o.pos[0]);
  }
  return CLI_OK;
}

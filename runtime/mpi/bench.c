/*
 * bench.c -- `tutti-mpi bench compare`: the MPI library's own MPI_Bcast,
 * MPI_Allreduce and MPI_Barrier against every registered tutti algorithm
 * of the same collective, run over the same MPI processes.
 *
 * Method: R rounds; a round runs every candidate once, in forward order on
 * even rounds and reverse order on odd ones, so that drift (caches, the
 * machine's load) falls on all alike. A call starts after an MPI_Barrier;
 * its time is the maximum over ranks of MPI_Wtime around it. The table
 * gives each candidate's median and minimum over the rounds and its median
 * relative to the MPI library's. Reductions: sum on int32 (byte below 4
 * bytes), root 0. Data is not verified here (`tutti-mpi check` does that).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "main.h"

struct cand {
  const char *label;
  tutti_algo_t algo;
  int own; /* the MPI library's collective */
  double *t;
};

/* The thread runtime's times (threads.c), for the "threads" column. */
struct thread_row {
  char coll[16], algo[64];
  size_t bytes;
  double med, min;
};

/* Rank 0 runs tutti-compare-threads (beside this program) on as many rank
 * threads as there are processes, while the other processes sleep in a
 * polled MPI_Ibarrier instead of spinning on the cores the threads need.
 * Returns the rows read (0 if the helper is missing or failed). */
static int thread_times(MPI_Comm comm, int P, int rounds, const size_t *sz, int nsz,
                        struct thread_row *rows, int max) {
  int me, n = 0;
  MPI_Comm_rank(comm, &me);
  if (me == 0) {
    char exe[PATH_MAX], cmd[PATH_MAX + 4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
      exe[len] = 0;
      char *slash = strrchr(exe, '/');
      if (slash) *slash = 0;
      int at = snprintf(cmd, sizeof cmd, "'%s/tutti-compare-threads' %d %d", exe, P, rounds);
      for (int s = 0; s < nsz && at < (int)sizeof cmd - 32; s++)
        at += snprintf(cmd + at, sizeof cmd - (size_t)at, " %zu", sz[s]);
      FILE *f = popen(cmd, "r");
      while (f && n < max &&
             fscanf(f, "%15s %zu %63s %lf %lf", rows[n].coll, &rows[n].bytes, rows[n].algo,
                    &rows[n].med, &rows[n].min) == 5)
        n++;
      if (f && pclose(f) != 0) n = 0;
    }
  }
  MPI_Request q;
  int done = 0;
  MPI_Ibarrier(comm, &q);
  while (!done) {
    MPI_Test(&q, &done, MPI_STATUS_IGNORE);
    if (!done) nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  return n;
}

static const struct thread_row *thread_find(const struct thread_row *rows, int n, const char *coll,
                                            size_t bytes, const char *algo) {
  for (int i = 0; i < n; i++)
    if (!strcmp(rows[i].coll, coll) && rows[i].bytes == bytes && !strcmp(rows[i].algo, algo))
      return &rows[i];
  return NULL;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int one_call(tutti_rank_t *r, int coll, const struct cand *c, void *a, void *b, long n,
                    tutti_datatype_t type, MPI_Datatype mt) {
  MPI_Comm comm = tutti_mpi_comm(r);
  switch (coll) {
  case TUTTI_COLL_BCAST:
    return c->own ? (MPI_Bcast(a, (int)n, mt, 0, comm) ? TUTTI_EIO : 0)
                  : tutti_bcast(r, a, n, type, 0, &c->algo);
  case TUTTI_COLL_ALLREDUCE:
    return c->own ? (MPI_Allreduce(a, b, (int)n, mt, MPI_SUM, comm) ? TUTTI_EIO : 0)
                  : tutti_allreduce(r, a, b, n, type, TUTTI_SUM, &c->algo);
  case TUTTI_COLL_BARRIER:
    return c->own ? (MPI_Barrier(comm) ? TUTTI_EIO : 0) : tutti_barrier(r, &c->algo);
  }
  return TUTTI_ENOTSUP;
}

#define COMPARE_OPTS (CLI_O(SIZES) | CLI_O(ITERS) | CLI_O(HELP))

static int compare(tutti_rank_t *r, int argc, char **argv) {
  const char *cmd = "mpi bench compare";
  struct cli_opts o;
  int st = cli_parse(cmd, COMPARE_OPTS, 0, argc, argv, &o), me = tutti_rank(r), P = tutti_size(r);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    if (me == 0)
      printf("usage: mpirun -n N tutti-mpi bench compare [--sizes LIST] [--iters R]\n\n"
             "MPI_Bcast, MPI_Allreduce and MPI_Barrier of the MPI library against every\n"
             "registered tutti algorithm of the same collective over the same processes:\n"
             "R rounds (default 21), candidates alternating forward and reverse, each call\n"
             "the maximum over ranks of MPI_Wtime; median and minimum per candidate.\n"
             "Sizes default to 8,64KiB,1MiB bytes per rank.\n");
    return 0;
  }
  size_t *sizes = NULL, defsizes[] = {8, 64 * 1024, 1024 * 1024};
  int nsizes = 3, rounds = o.given & CLI_O(ITERS) ? o.iters : 21;
  if (o.sizes && (st = cli_parse_sizes(cmd, o.sizes, &sizes, &nsizes))) return st;
  const size_t *sz = sizes ? sizes : defsizes;
  static const int colls[] = {TUTTI_COLL_BCAST, TUTTI_COLL_ALLREDUCE, TUTTI_COLL_BARRIER};
  static const char *const own_names[] = {"MPI_Bcast", "MPI_Allreduce", "MPI_Barrier"};
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  MPI_Get_library_version(lib, &len);
  lib[strcspn(lib, ",\n")] = 0;
  static struct thread_row trows[256];
  int ntrows = thread_times(tutti_mpi_comm(r), P, rounds, sz, nsizes, trows, 256);
  if (me == 0)
    printf("%d ranks, %s, %d rounds, times: median (min) of the max over ranks;\n"
           "threads: the same algorithm on %d rank threads of tutti's runtime (none model)%s\n",
           P, lib, rounds, P,
           ntrows ? "" : " -- not measured (tutti-compare-threads failed or missing)");
  int rc = 0;
  for (size_t ci = 0; ci < sizeof colls / sizeof *colls && !rc; ci++) {
    int coll = colls[ci];
    struct cand cands[32];
    int nc = 0;
    cands[nc++] = (struct cand){.label = own_names[ci], .own = 1};
    const tutti_algo_desc_t *d;
    for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL && nc < 32; i++) {
      if (d->coll != coll) continue;
      struct cand c = {.label = d->name};
      if (tutti_algo_select(coll, d->name, "", &c.algo, NULL, 0)) continue;
      if (tutti_algo_check(&c.algo, P, coll == TUTTI_COLL_ALLREDUCE ? TUTTI_SUM : NULL, NULL, 0))
        continue;
      cands[nc++] = c;
    }
    int nsz = coll == TUTTI_COLL_BARRIER ? 1 : nsizes;
    for (int s = 0; s < nsz && !rc; s++) {
      size_t bytes = coll == TUTTI_COLL_BARRIER ? 0 : sz[s];
      tutti_datatype_t type =
          coll == TUTTI_COLL_ALLREDUCE && bytes % 4 == 0 ? TUTTI_INT32 : TUTTI_BYTE;
      MPI_Datatype mt;
      tutti_mpi_type(type, &mt);
      long n = (long)(bytes / tutti_type_size(type));
      void *a = calloc(1, bytes ? bytes : 1), *b = calloc(1, bytes ? bytes : 1);
      double *local = calloc((size_t)rounds * (size_t)nc, sizeof *local);
      if (!a || !b || !local) rc = TUTTI_ENOMEM;
      for (int k = 0; k < rounds && !rc; k++)
        for (int q = 0; q < nc && !rc; q++) {
          int ci2 = k % 2 ? nc - 1 - q : q;
          MPI_Barrier(tutti_mpi_comm(r));
          double t0 = MPI_Wtime();
          rc = one_call(r, coll, &cands[ci2], a, b, n, type, mt);
          local[(size_t)ci2 * (size_t)rounds + (size_t)k] = MPI_Wtime() - t0;
        }
      int any = rc;
      MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MIN, tutti_mpi_comm(r));
      rc = any;
      double *t = rc ? NULL : malloc(sizeof *t * (size_t)rounds * (size_t)nc);
      if (t) MPI_Reduce(local, t, rounds * nc, MPI_DOUBLE, MPI_MAX, 0, tutti_mpi_comm(r));
      if (t && me == 0) {
        char s1[64], s2[64];
        if (coll == TUTTI_COLL_BARRIER)
          printf("\n%s\n", tutti_coll_name(coll));
        else
          printf("\n%s, %s per rank\n", tutti_coll_name(coll),
                 tutti_format_bytes(bytes, s1, sizeof s1));
        double own_med = 0;
        for (int q = 0; q < nc; q++) {
          double *x = t + (size_t)q * (size_t)rounds;
          qsort(x, (size_t)rounds, sizeof *x, cmp_double);
          double med = rounds % 2 ? x[rounds / 2] : (x[rounds / 2 - 1] + x[rounds / 2]) / 2;
          if (q == 0) own_med = med;
          const struct thread_row *tr =
              thread_find(trows, ntrows, tutti_coll_name(coll), bytes, cands[q].label);
          char s3[64] = "-", s4[64] = "";
          if (tr) {
            tutti_format_time(tr->med, s3, sizeof s3);
            snprintf(s4, sizeof s4, "(%s)", tutti_format_time(tr->min, s1, sizeof s1));
          }
          printf("  %-16s %12s (%s)  %5.2fx MPI   threads %12s %s\n", cands[q].label,
                 tutti_format_time(med, s1, sizeof s1), tutti_format_time(x[0], s2, sizeof s2),
                 own_med > 0 ? med / own_med : 0.0, s3, s4);
        }
      }
      free(t), free(a), free(b), free(local);
    }
  }
  free(sizes);
  fflush(stdout);
  if (rc) return cli_fail(CLI_ERUNTIME, cmd, "%s", tutti_strerror(rc));
  return CLI_OK;
}

int tutti_mpi_bench(tutti_rank_t *r, int argc, char **argv) {
  if (argc < 1 || strcmp(argv[0], "compare"))
    return cli_fail(CLI_EUSAGE, "mpi bench", "unknown or missing benchmark '%s'; accepted: compare",
                    argc < 1 ? "" : argv[0]);
  return compare(r, argc - 1, argv + 1);
}

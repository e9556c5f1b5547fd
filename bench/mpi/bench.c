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
 * Under each collective and size, "best" lines name the fastest tutti
 * algorithm (least median) over MPI and on threads beside the library's.
 *
 * `tutti-mpi bench p2p`: bench/pingpong.c's ping-pong and stream (the code
 * of `tutti bench p2p`) between ranks 0 and 1 over MPI; with --compare,
 * rounds alternate the MPI half and the thread half (tutti-compare-threads
 * p2p, run by rank 0), and the ratios are medians of per-round ratios.
 *
 * `tutti-mpi bench barrier`: MPI_Barrier timed as `tutti bench barrier
 * --native` times tutti's barriers (batches, rank 0's clock from a barrier
 * of the same kind), for that command's Open MPI column.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "main.h"
#include "pingpong.h"

struct cand {
  const char *label;
  const tutti_algo_t *algo;
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
                  : tutti_bcast(r, a, n, type, 0, c->algo);
  case TUTTI_COLL_ALLREDUCE:
    return c->own ? (MPI_Allreduce(a, b, (int)n, mt, MPI_SUM, comm) ? TUTTI_EIO : 0)
                  : tutti_allreduce(r, a, b, n, type, TUTTI_SUM, c->algo);
  case TUTTI_COLL_BARRIER:
    return c->own ? (MPI_Barrier(comm) ? TUTTI_EIO : 0) : tutti_barrier(r, c->algo);
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
      printf("usage: mpirun -n N tutti-mpi bench compare [--sizes LIST] [--iters R] "
             "[--markdown]\n\n"
             "MPI_Bcast, MPI_Allreduce and MPI_Barrier of the MPI library against every\n"
             "registered tutti algorithm of the same collective over the same processes:\n"
             "R rounds (default 21), candidates alternating forward and reverse, each call\n"
             "the maximum over ranks of MPI_Wtime; median and minimum per candidate.\n"
             "Sizes default to 8,64KiB,1MiB bytes per rank. --markdown: as a results page\n"
             "(bench/results/mpi-compare.md).\n");
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
      if (tutti_algo_check(c.algo, P, coll == TUTTI_COLL_ALLREDUCE ? TUTTI_SUM : NULL, NULL, 0))
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
        double own_med = 0, best_mpi = 0, best_thr = 0;
        int bm = -1, bt = -1;
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
          if (q > 0 && (bm < 0 || med < best_mpi)) bm = q, best_mpi = med;
          if (q > 0 && tr && (bt < 0 || tr->med < best_thr)) bt = q, best_thr = tr->med;
        }
        if (bm > 0)
          printf("  best over MPI: %s %s (%.3gx %s)", cands[bm].label,
                 tutti_format_time(best_mpi, s1, sizeof s1), own_med > 0 ? best_mpi / own_med : 0.0,
                 own_names[ci]);
        if (bt > 0)
          printf("; best on threads: %s %s (%.3gx %s)", cands[bt].label,
                 tutti_format_time(best_thr, s1, sizeof s1), own_med > 0 ? best_thr / own_med : 0.0,
                 own_names[ci]);
        if (bm > 0) printf("\n");
      }
      free(t), free(a), free(b), free(local);
    }
  }
  free(sizes);
  fflush(stdout);
  if (rc) return cli_fail(CLI_ERUNTIME, cmd, "%s", tutti_strerror(rc));
  return CLI_OK;
}

/* ------------------------------------------------------------ p2p */

/* Every process past the ones measuring waits here without spinning on the
 * cores they need: a polled MPI_Ibarrier with 1 ms sleeps (rank 0, which
 * may have run the thread half, does not sleep). */
static void quiet_barrier(MPI_Comm comm) {
  int me, done = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Request q;
  MPI_Ibarrier(comm, &q);
  while (!done) {
    MPI_Test(&q, &done, MPI_STATUS_IGNORE);
    if (!done && me != 0) nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
}

static double wtime(void) {
  return MPI_Wtime();
}

enum { P2P_NLAT = 6, P2P_NBW = 9, P2P_MAXROUNDS = 101 };
static const size_t p2p_lat[P2P_NLAT] = {8, 64, 512, 4096, 32768, 262144};

/* Round trips per latency size: about the same time per size. */
static long p2p_iters(size_t bytes, int quick) {
  long base = quick ? 2000 : 20000, n = bytes <= 64 ? base : (long)(base * 64 / (long)bytes);
  return n < 50 ? 50 : n;
}

static size_t p2p_bw(int i) {
  return (size_t)1024 << (2 * i); /* 1 KiB .. 64 MiB */
}

static int p2p_msgs(size_t bytes, int quick) {
  size_t total = quick ? ((size_t)16 << 20) : ((size_t)128 << 20), n = total / bytes;
  return n < 4 ? 4 : n > 20000 ? 20000 : (int)n;
}

/* The thread half of one round: rank 0 runs tutti-compare-threads p2p
 * with the same points; lat[] and bw[] get its figures. 0 or -1. */
static int p2p_threads(int quick, double *lat, double *bw) {
  char exe[PATH_MAX], cmd[PATH_MAX + 1024];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) return -1;
  exe[len] = 0;
  char *slash = strrchr(exe, '/');
  if (slash) *slash = 0;
  int at = snprintf(cmd, sizeof cmd, "'%s/tutti-compare-threads' p2p", exe);
  for (int s = 0; s < P2P_NLAT; s++)
    at += snprintf(cmd + at, sizeof cmd - (size_t)at, " l%zu:%ld", p2p_lat[s],
                   p2p_iters(p2p_lat[s], quick));
  for (int s = 0; s < P2P_NBW; s++)
    at += snprintf(cmd + at, sizeof cmd - (size_t)at, " b%zu:%d", p2p_bw(s),
                   p2p_msgs(p2p_bw(s), quick));
  FILE *f = popen(cmd, "r");
  if (!f) return -1;
  char kind[8];
  size_t bytes;
  double v;
  int got = 0;
  while (fscanf(f, "%7s %zu %lf", kind, &bytes, &v) == 3) {
    for (int s = 0; s < P2P_NLAT; s++)
      if (!strcmp(kind, "lat") && bytes == p2p_lat[s]) lat[s] = v, got++;
    for (int s = 0; s < P2P_NBW; s++)
      if (!strcmp(kind, "bw") && bytes == p2p_bw(s)) bw[s] = v, got++;
  }
  return pclose(f) == 0 && got == P2P_NLAT + P2P_NBW ? 0 : -1;
}

/* The MPI half of one round, on every rank (ranks past 1 only wait). */
static int p2p_mpi(tutti_rank_t *r, int quick, double *lat, double *bw) {
  int me = tutti_rank(r), rc = 0;
  char *buf = me <= 1 ? malloc(p2p_bw(P2P_NBW - 1)) : NULL;
  if (me <= 1 && !buf) rc = TUTTI_ENOMEM;
  for (int s = 0; s < P2P_NLAT && !rc && me <= 1; s++) {
    long it = p2p_iters(p2p_lat[s], quick);
    rc = pp_latency(r, buf, p2p_lat[s], it, it / 10 + 10, wtime, &lat[s]);
  }
  for (int s = 0; s < P2P_NBW && !rc && me <= 1; s++) {
    memset(buf, me, p2p_bw(s)); /* page faults are not measured */
    rc = pp_stream(r, buf, p2p_bw(s), p2p_msgs(p2p_bw(s), quick), wtime, &bw[s]);
  }
  free(buf);
  int any = rc;
  MPI_Request q;
  int done = 0;
  MPI_Iallreduce(&rc, &any, 1, MPI_INT, MPI_MIN, tutti_mpi_comm(r), &q);
  while (!done) {
    MPI_Test(&q, &done, MPI_STATUS_IGNORE);
    if (!done && me > 1) nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  return any;
}

static double med_of(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int p2p(tutti_rank_t *r, int argc, char **argv) {
  const char *cmd = "mpi bench p2p";
  int me = tutti_rank(r), compare = 0, quick = 0, rounds = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--compare") && !compare)
      compare = 1;
    else if (!strcmp(argv[i], "--quick") && !quick)
      quick = 1;
    else if (!strcmp(argv[i], "--rounds") && !rounds) {
      char *end = NULL;
      long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
      if (!end || *end || v < 1 || v > P2P_MAXROUNDS)
        return cli_fail(CLI_EUSAGE, cmd, "--rounds: '%s' is not valid; accepted: 1..%d",
                        i + 1 < argc ? argv[i + 1] : "", P2P_MAXROUNDS);
      rounds = (int)v, i++;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      if (me == 0)
        printf("usage: mpirun -n 2 tutti-mpi bench p2p [--compare] [--rounds K] [--quick] "
               "[--markdown]\n\n"
               "bench/pingpong.c, the ping-pong and stream of `tutti bench p2p`, between ranks\n"
               "0 and 1 over MPI: one-way latency 8 B..256 KiB, bandwidth 1 KiB..64 MiB; K\n"
               "rounds (default 7), medians. --compare: each round also runs the same code on\n"
               "two rank threads of tutti's runtime (tutti-compare-threads, from rank 0),\n"
               "halves alternating first, and prints the median of the per-round ratios.\n"
               "--quick: fewer round trips and bytes (a smoke run). --markdown: as a results\n"
               "page (bench/results/mpi-p2p.md).\n");
      return CLI_OK;
    } else
      return cli_fail(CLI_EUSAGE, cmd,
                      "'%s': unknown or given twice; accepted: --compare, --rounds K, --quick, "
                      "--help, each once",
                      argv[i]);
  }
  if (!rounds) rounds = quick ? 3 : 7;
  if (tutti_size(r) < 2)
    return cli_fail(CLI_EUSAGE, cmd, "needs 2 processes, has 1; accepted: mpirun -n 2");
  static double ml[P2P_MAXROUNDS][P2P_NLAT], mb[P2P_MAXROUNDS][P2P_NBW],
      tl[P2P_MAXROUNDS][P2P_NLAT], tb[P2P_MAXROUNDS][P2P_NBW];
  int rc = 0, thr = compare;
  for (int k = 0; k < rounds && !rc; k++) {
    for (int half = 0; half < 2 && !rc; half++) {
      if ((half == 0) == (k % 2 == 0)) {
        rc = p2p_mpi(r, quick, ml[k], mb[k]);
      } else if (thr) {
        int bad = me == 0 ? p2p_threads(quick, tl[k], tb[k]) : 0;
        quiet_barrier(tutti_mpi_comm(r)); /* rank 1 sleeps while the threads run */
        MPI_Bcast(&bad, 1, MPI_INT, 0, tutti_mpi_comm(r));
        if (bad) thr = 0;
      }
    }
  }
  if (rc) return cli_fail(CLI_ERUNTIME, cmd, "%s", tutti_strerror(rc));
  if (me != 0) return CLI_OK;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int len = 0;
  MPI_Get_library_version(lib, &len);
  lib[strcspn(lib, ",\n")] = 0;
  printf("# tutti-mpi bench p2p: bench/pingpong.c between ranks 0 and 1 of %d, %s;\n"
         "# %d rounds, medians%s\n",
         tutti_size(r), lib, rounds,
         !compare ? ""
         : thr    ? "; threads: the same code on 2 rank threads of tutti's runtime (none model,\n"
                    "# pinned to cores 0 and 1 for the ping-pong), in the same rounds; ratio: the\n"
                    "# median of the per-round ratios threads / MPI"
                  : "; threads: not measured (tutti-compare-threads failed or missing)");
  double v[P2P_MAXROUNDS];
  char s1[32], s2[32];
  printf("\none-way latency  %12s%s\n", "MPI", thr ? "      threads  threads/MPI (time)" : "");
  for (int s = 0; s < P2P_NLAT; s++) {
    for (int k = 0; k < rounds; k++) v[k] = ml[k][s];
    printf("  %-10s     %12s", tutti_format_bytes(p2p_lat[s], s1, sizeof s1),
           tutti_format_time(med_of(v, rounds), s2, sizeof s2));
    if (thr) {
      for (int k = 0; k < rounds; k++) v[k] = tl[k][s];
      printf("  %11s", tutti_format_time(med_of(v, rounds), s2, sizeof s2));
      for (int k = 0; k < rounds; k++) v[k] = tl[k][s] / ml[k][s];
      printf("  %10.2fx", med_of(v, rounds));
    }
    printf("\n");
  }
  printf("\nbandwidth        %12s%s\n", "MPI", thr ? "      threads  threads/MPI (rate)" : "");
  for (int s = 0; s < P2P_NBW; s++) {
    for (int k = 0; k < rounds; k++) v[k] = mb[k][s];
    printf("  %-10s     %12s", tutti_format_bytes(p2p_bw(s), s1, sizeof s1),
           tutti_format_bandwidth(med_of(v, rounds), s2, sizeof s2));
    if (thr) {
      for (int k = 0; k < rounds; k++) v[k] = tb[k][s];
      printf("  %11s", tutti_format_bandwidth(med_of(v, rounds), s2, sizeof s2));
      for (int k = 0; k < rounds; k++) v[k] = tb[k][s] / mb[k][s];
      printf("  %10.2fx", med_of(v, rounds));
    }
    printf("\n");
  }
  return CLI_OK;
}

/* ------------------------------------------------------------ barrier */

/* K rounds of one untimed MPI_Barrier then B timed ones, rank 0's clock:
 * prints "MPI_Barrier P MEDIAN MIN" (seconds per call) and the library. */
static int barrier(tutti_rank_t *r, int argc, char **argv) {
  const char *cmd = "mpi bench barrier";
  long v[2] = {21, 100};
  static const char *const flag[2] = {"--rounds", "--batch"};
  for (int i = 0; i < argc; i++) {
    int f = !strcmp(argv[i], flag[0]) ? 0 : !strcmp(argv[i], flag[1]) ? 1 : -1;
    char *end = NULL;
    if (f < 0)
      return cli_fail(CLI_EUSAGE, cmd, "unknown option '%s'; accepted: --rounds K, --batch B",
                      argv[i]);
    v[f] = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
    if (!end || *end || v[f] < 1 || v[f] > 100000)
      return cli_fail(CLI_EUSAGE, cmd, "%s: '%s' is not valid; accepted: 1..100000", flag[f],
                      i + 1 < argc ? argv[i + 1] : "");
    i++;
  }
  int rounds = (int)v[0], batch = (int)v[1], me = tutti_rank(r);
  MPI_Comm comm = tutti_mpi_comm(r);
  double *t = malloc(sizeof *t * (size_t)rounds);
  if (!t) return cli_fail(CLI_ERUNTIME, cmd, "%s", tutti_strerror(TUTTI_ENOMEM));
  int rc = 0;
  for (int k = 0; k < rounds && !rc; k++) {
    rc = MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < batch && !rc; i++) rc = MPI_Barrier(comm);
    t[k] = (MPI_Wtime() - t0) / batch;
  }
  if (!rc && me == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = 0;
    double m = med_of(t, rounds);
    printf("library %s\nMPI_Barrier %d %.9g %.9g\n", lib, tutti_size(r), m, t[0]);
  }
  free(t);
  return rc ? cli_fail(CLI_ERUNTIME, cmd, "MPI_Barrier failed") : CLI_OK;
}

/* --markdown (compare and p2p): rank 0 prints a results page
 * (bench/results/mpi-NAME.md) around what the benchmark prints, headed
 * with the command as it was given under mpirun. */
static int markdown(int argc, char **argv) {
  int found = 0;
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--markdown")) {
      found = 1;
      memmove(argv + i, argv + i + 1, (size_t)(argc - i - 1) * sizeof *argv);
      argc--, i--;
    }
  return found ? argc : -1;
}

int tutti_mpi_bench(tutti_rank_t *r, int argc, char **argv) {
  int (*fn)(tutti_rank_t *, int, char **) = NULL;
  const char *title = NULL;
  if (argc >= 1 && !strcmp(argv[0], "compare"))
    fn = compare, title = "tutti over MPI and on rank threads against the MPI library's own";
  else if (argc >= 1 && !strcmp(argv[0], "p2p"))
    fn = p2p, title = "Point to point: MPI processes and tutti's rank threads";
  else if (argc >= 1 && !strcmp(argv[0], "barrier"))
    return barrier(r, argc - 1, argv + 1);
  else
    return cli_fail(CLI_EUSAGE, "mpi bench",
                    "unknown or missing benchmark '%s'; accepted: compare, p2p, barrier",
                    argc < 1 ? "" : argv[0]);
  int n = markdown(argc, argv), page = n >= 0 && tutti_rank(r) == 0;
  if (n >= 0) argc = n;
  for (int i = 1; i < argc; i++) page &= strcmp(argv[i], "--help") && strcmp(argv[i], "-h");
  if (page) {
    char cmd[64];
    snprintf(cmd, sizeof cmd, "mpirun -n %d tutti-mpi bench", tutti_size(r));
    bench_page_begin(title, cmd, argc, argv, 0);
    printf("```\n");
  }
  int st = fn(r, argc - 1, argv + 1);
  if (page) {
    printf("```\n");
    bench_page_end();
  }
  return st;
}

/*
 * main.c -- the `tutti-mpi` command: tutti's collectives over MPI
 * processes (bench/CLI.md "tutti-mpi"). Run it under mpirun:
 *
 *   mpirun -n 8 tutti-mpi run bcast lambda-tree -m 1MiB [--iters 20] [--json]
 *   mpirun -n 5 tutti-mpi check           every algorithm, verified and
 *                                         compared with MPI's own collective
 *   mpirun -n 4 tutti-mpi bench compare   MPI's own bcast, allreduce and
 *                                         barrier against tutti's algorithms
 *   tutti-mpi list [COLL]                 the registry (no MPI needed)
 *
 * What it shares with `tutti`: the option parser and its error texts
 * (bench/cli_opts.c), the JSON writers (bench/cli_json.c), the registry
 * listing (bench/cli_list.c) and the sequential reference (bench/verify.c,
 * verify_call.c),
 * linked in as they are. What it cannot share is cli_exec, whose ranks are
 * threads of one world; its MPI twin is mpi_exec below.
 *
 * Times: each call starts after an MPI_Barrier, is timed with MPI_Wtime on
 * every rank, and a call's time is the maximum over ranks; a run reports
 * the minimum over its --iters calls (the lambda-tree paper's measure) and
 * their median. There is no modeled time over MPI, and the report says so.
 *
 * Output comes from rank 0; every rank computes the same exit status
 * (bench/CLI.md: 0, 1 verification, 2 usage, 3 runtime).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "calib.h"
#include "cli.h"
#include "main.h"

static int me_world; /* this process's rank in MPI_COMM_WORLD */

/* ------------------------------------------------------------ one job */

struct mres {
  int rc;        /* the first error of any rank (0: ran) */
  int verified;  /* every rank matched the reference (and MPI's own) */
  char why[256]; /* the first mismatch, from the lowest failing rank */
  double *t;     /* per call: the maximum over ranks, seconds */
  double best;   /* minimum over calls */
  double median; /* median over calls */
};

struct bad {
  int call; /* -1: none */
  long index;
  int from;
  const char *what;
};

static void mark(struct bad *b, int call, long index, int from, const char *what) {
  if (b->call < 0) *b = (struct bad){call, index, from, what};
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(const double *t, int n) {
  double *s = malloc(sizeof *s * (size_t)n);
  if (!s) return t[0];
  memcpy(s, t, sizeof *s * (size_t)n);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  free(s);
  return m;
}

/* MPI's own collective on the same inputs, into `out` (the root's or every
 * rank's result): the cross-check. in is the call's input (for scatter the
 * root's P blocks). */
static int mpi_own(MPI_Comm c, const struct cli_job *j, int root, const void *in, void *out, int P,
                   size_t blk) {
  MPI_Datatype t;
  MPI_Op op;
  int me, rc;
  MPI_Comm_rank(c, &me);
  if ((rc = tutti_mpi_type(j->type, &t))) return rc;
  int n = (int)j->count;
  switch (j->coll) {
  case TUTTI_COLL_BCAST:
    if (me == root) memcpy(out, in, blk);
    return MPI_Bcast(out, n, t, root, c) ? TUTTI_EIO : 0;
  case TUTTI_COLL_REDUCE:
  case TUTTI_COLL_ALLREDUCE:
    if ((rc = tutti_mpi_op(j->op, &op))) return rc;
    if (j->coll == TUTTI_COLL_REDUCE) return MPI_Reduce(in, out, n, t, op, root, c) ? TUTTI_EIO : 0;
    return MPI_Allreduce(in, out, n, t, op, c) ? TUTTI_EIO : 0;
  case TUTTI_COLL_GATHER:
    return MPI_Gather(in, n, t, out, n, t, root, c) ? TUTTI_EIO : 0;
  case TUTTI_COLL_SCATTER:
    return MPI_Scatter(in, n, t, out, n, t, root, c) ? TUTTI_EIO : 0;
  case TUTTI_COLL_BARRIER:
    return MPI_Barrier(c) ? TUTTI_EIO : 0;
  case TUTTI_COLL_ALLGATHER:
    return MPI_Allgather(in, n, t, out, n, t, c) ? TUTTI_EIO : 0;
  case TUTTI_COLL_REDUCE_SCATTER:
    if ((rc = tutti_mpi_op(j->op, &op))) return rc;
    return MPI_Reduce_scatter_block(in, out, n, t, op, c) ? TUTTI_EIO : 0;
  case TUTTI_COLL_ALLTOALL:
    return MPI_Alltoall(in, n, t, out, n, t, c) ? TUTTI_EIO : 0;
  case TUTTI_COLL_SCAN:
  case TUTTI_COLL_EXSCAN: /* MPI_Exscan leaves rank 0's out undefined: not compared */
    if ((rc = tutti_mpi_op(j->op, &op))) return rc;
    if (j->coll == TUTTI_COLL_SCAN) return MPI_Scan(in, out, n, t, op, c) ? TUTTI_EIO : 0;
    return MPI_Exscan(in, out, n, t, op, c) ? TUTTI_EIO : 0;
  }
  (void)P;
  return TUTTI_ENOTSUP;
}

/* Run job j on every process of r's communicator: iters calls, each with
 * fresh inputs and poisoned outputs, timed, then checked against verify.c
 * and (xcheck) against MPI's own collective. Collective over the
 * communicator; every process gets the same res (t: iters doubles, the
 * caller frees). Returns 0 or TUTTI_ENOMEM. */
static int mpi_exec(tutti_rank_t *r, const struct cli_job *j, int xcheck, struct mres *res) {
  MPI_Comm c = tutti_mpi_comm(r);
  int me = tutti_rank(r), P = tutti_size(r), rc = 0;
  long n = j->count, at;
  size_t blk = (size_t)n * tutti_type_size(j->type);
  memset(res, 0, sizeof *res);
  struct verify v;
  if (verify_init(&v, j->coll, j->type,
                  tutti_coll_traits(j->coll) & TUTTI_COLL_REDUCES ? j->op : NULL, P, n, j->iters))
    return TUTTI_ENOMEM;
  unsigned tr = tutti_coll_traits(j->coll);
  /* big: P blocks (gather's, scatter's, allgather's, reduce_scatter's);
   * alltoall's 2P, the P sent then the P received */
  size_t bigsz =
      tr & TUTTI_COLL_BLOCKS ? blk * (size_t)P * (tr & TUTTI_COLL_EXCHANGE ? 2 : 1) : blk;
  unsigned char *a = malloc(blk ? blk : 1), *b = malloc(blk ? blk : 1);
  unsigned char *big = malloc(bigsz ? bigsz : 1), *own = malloc(bigsz ? bigsz : 1);
  double *t = calloc((size_t)j->iters, sizeof *t);
  /* barrier: a counter at rank 0 that every rank bumps on entering */
  MPI_Win win = MPI_WIN_NULL;
  long *counter = NULL;
  if (j->coll == TUTTI_COLL_BARRIER) {
    MPI_Win_allocate(me == 0 ? (MPI_Aint)sizeof(long) : 0, sizeof(long), MPI_INFO_NULL, c, &counter,
                     &win);
    if (me == 0) *counter = 0;
    MPI_Barrier(c);
    MPI_Win_lock_all(0, win);
  }
  int ok_alloc = a && b && big && own && t;
  struct bad bad = {.call = -1};
  for (int k = 0; k < j->iters && !rc && ok_alloc; k++) {
    int root = j->rotate ? (int)(((long)j->root + k) % P) : j->root, isroot = me == root;
    verify_prepare(&v, me, root, k, a, b, big, blk);
    MPI_Barrier(c);
    if (j->coll == TUTTI_COLL_BARRIER) {
      long one = 1;
      MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_SUM, win);
      MPI_Win_flush(0, win);
    }
    double t0 = MPI_Wtime();
    rc = cli_call(r, j, root, a, b, big);
    t[k] = MPI_Wtime() - t0;
    if (rc) break;
    /* the reference */
    if (j->coll == TUTTI_COLL_BARRIER) {
      long seen = 0, none = 0;
      MPI_Fetch_and_op(&none, &seen, MPI_LONG, 0, 0, MPI_NO_OP, win);
      MPI_Win_flush(0, win);
      if (seen < (long)P * (k + 1))
        mark(&bad, k, -1, -1, "left the barrier before every rank entered it");
    } else {
      int from;
      const char *what;
      if ((at = verify_result(&v, me, root, k, a, b, big, blk, &from, &what)) >= 0)
        mark(&bad, k, at, from, what);
    }
    if (!xcheck || j->coll == TUTTI_COLL_BARRIER) continue;
    /* MPI's own collective on the same inputs: the same bytes */
    int all = j->coll == TUTTI_COLL_ALLGATHER, rs = j->coll == TUTTI_COLL_REDUCE_SCATTER;
    int a2a = j->coll == TUTTI_COLL_ALLTOALL;
    const void *in = j->coll == TUTTI_COLL_SCATTER || rs || a2a ? (const void *)big : a;
    const unsigned char *mine = j->coll == TUTTI_COLL_GATHER || all ? big
                                : a2a                               ? big + (size_t)P * blk
                                                                    : b;
    if (j->coll == TUTTI_COLL_BCAST) {
      if (isroot) verify_input(&v, root, k, big, 0, n);
      in = big, mine = a;
    }
    if ((rc = mpi_own(c, j, root, in, own, P, blk))) break;
    size_t cmp = j->coll == TUTTI_COLL_GATHER   ? (isroot ? bigsz : 0)
                 : j->coll == TUTTI_COLL_REDUCE ? (isroot ? blk : 0)
                 : j->coll == TUTTI_COLL_EXSCAN ? (me == 0 ? 0 : blk)
                 : all || a2a                   ? (size_t)P * blk
                                                : blk;
    for (size_t i = 0; i < cmp; i++)
      if (mine[i] != own[i]) {
        mark(&bad, k, (long)(i / tutti_type_size(j->type)), -1,
             "tutti's result, compared with the MPI library's own collective,");
        break;
      }
  }
  if (win != MPI_WIN_NULL) {
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
  }
  int alloc_fail = !ok_alloc, any_fail = 0;
  MPI_Allreduce(&alloc_fail, &any_fail, 1, MPI_INT, MPI_MAX, c);
  free(a), free(b), free(big), free(own);
  verify_free(&v);
  if (any_fail) {
    free(t);
    return TUTTI_ENOMEM;
  }
  /* the first error (most negative), the lowest failing rank and its text */
  MPI_Allreduce(&rc, &res->rc, 1, MPI_INT, MPI_MIN, c);
  int mine_bad = bad.call >= 0 ? me : P, first_bad = P;
  MPI_Allreduce(&mine_bad, &first_bad, 1, MPI_INT, MPI_MIN, c);
  res->verified = !res->rc && first_bad == P;
  if (first_bad < P) {
    if (me == first_bad) {
      char from[48] = "";
      if (bad.from >= 0) snprintf(from, sizeof from, " from rank %d", bad.from);
      if (bad.index < 0)
        snprintf(res->why, sizeof res->why, "rank %d, call %d: %s", me, bad.call + 1, bad.what);
      else
        snprintf(res->why, sizeof res->why,
                 "rank %d, call %d: element %ld of %s%s differs from the %s", me, bad.call + 1,
                 bad.index, bad.what, from,
                 strstr(bad.what, "MPI library") ? "MPI library's" : "sequential reference");
    }
    MPI_Bcast(res->why, sizeof res->why, MPI_CHAR, first_bad, c);
  }
  res->t = malloc(sizeof *res->t * (size_t)j->iters);
  if (!res->t) {
    free(t);
    return TUTTI_ENOMEM;
  }
  MPI_Allreduce(t, res->t, j->iters, MPI_DOUBLE, MPI_MAX, c);
  free(t);
  res->best = res->t[0];
  for (int k = 1; k < j->iters; k++)
    if (res->t[k] < res->best) res->best = res->t[k];
  res->median = median(res->t, j->iters);
  return 0;
}

/* ------------------------------------------------------------ run */

#define RUN_OPTS                                                                                   \
  (CLI_O(RANKS) | CLI_O(BYTES) | CLI_O(ROOT) | CLI_O(PARAM) | CLI_O(OP) | CLI_O(DTYPE) |           \
   CLI_O(ITERS) | CLI_O(ROTATE) | CLI_O(JSON) | CLI_O(PLUGIN) | CLI_O(HELP))

static void run_help(FILE *f) {
  fprintf(f,
          "usage: mpirun -n N tutti-mpi run COLL ALGO [options]\n\n"
          "Run one collective over MPI processes with tutti's algorithm, check every\n"
          "rank's result against the sequential reference of `tutti run`, and report\n"
          "wall times (MPI_Wtime; a call's time is the maximum over ranks; the run's,\n"
          "the minimum over --iters calls). COLL is one of: %s.\n"
          "The ranks are mpirun's processes: -n, if given, must equal their number.\n\n"
          "options:\n",
          cli_coll_names());
  cli_print_options(f, RUN_OPTS);
  fprintf(f, "\nExit: 0 verified, 1 verification failed, 2 bad usage or input, 3 runtime\n"
             "failure.\n");
}

static void print_run(const struct cli_job *j, int P, size_t bytes, const struct mres *res,
                      int json) {
  char spec[256] = "", s1[64], s2[64];
  tutti_algo_format(j->algo, spec, sizeof spec);
  int lib_version_len = 0;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  MPI_Get_library_version(lib, &lib_version_len);
  char *nl = strchr(lib, '\n');
  if (nl) *nl = 0;
  char *comma = strchr(lib, ',');
  if (comma) *comma = 0;
  unsigned traits = tutti_coll_traits(j->coll);
  if (json) {
    FILE *f = stdout;
    fputs("{\"backend\":\"mpi\",\"mpi_library\":", f);
    cli_json_str(f, lib);
    fputc(',', f);
    cli_json_algo(f, tutti_algo_desc(j->algo), j->algo);
    fprintf(f, ",\"ranks\":%d,\"bytes\":%zu,\"count\":%ld,\"dtype\":", P, bytes, j->count);
    cli_json_str(f, tutti_type_name(j->type));
    fputs(",\"op\":", f);
    if (j->op)
      cli_json_str(f, tutti_op_name(j->op));
    else
      fputs("null", f);
    if (traits & TUTTI_COLL_ROOTED)
      fprintf(f, ",\"root\":%d", j->root);
    else
      fputs(",\"root\":null", f);
    fprintf(f, ",\"rotate_root\":%s,\"iters\":%d", j->rotate ? "true" : "false", j->iters);
    fputs(",\"modeled_time\":null,\"wall_time\":", f);
    cli_json_num(f, res->best);
    fputs(",\"wall_median\":", f);
    cli_json_num(f, res->median);
    fputs(",\"wall_times\":[", f);
    for (int k = 0; k < j->iters; k++) {
      if (k) fputc(',', f);
      cli_json_num(f, res->t[k]);
    }
    fprintf(f, "],\"verified\":%s}\n", res->verified ? "true" : "false");
    return;
  }
  printf("collective    %s\n", tutti_coll_name(j->coll));
  printf("algorithm     %s\n", spec);
  printf("ranks         %d (MPI processes)\n", P);
  if (traits & TUTTI_COLL_DATA)
    printf("bytes         %s per rank (%ld x %s)\n", tutti_format_bytes(bytes, s1, sizeof s1),
           j->count, tutti_type_name(j->type));
  if (j->op) printf("op            %s\n", tutti_op_name(j->op));
  if (traits & TUTTI_COLL_ROOTED)
    printf("root          %d%s\n", j->root, j->rotate ? " (rotating: call k uses root + k)" : "");
  printf("backend       MPI: %s\n", lib);
  printf("modeled time  not available over MPI (measured wall time only)\n");
  printf("wall time     %s min, %s median over %d call%s (MPI_Wtime, max over ranks)\n",
         tutti_format_time(res->best, s1, sizeof s1), tutti_format_time(res->median, s2, sizeof s2),
         j->iters, j->iters > 1 ? "s" : "");
  printf("verified      %s\n", res->verified ? "yes" : "NO");
}

static int cmd_run(tutti_rank_t *r, int argc, char **argv) {
  const char *cmd = "mpi run";
  struct cli_opts o;
  int P = tutti_size(r), st = cli_parse(cmd, RUN_OPTS, 2, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    if (me_world == 0) run_help(stdout);
    return 0;
  }
  if ((o.given & CLI_O(RANKS)) && o.nranks != P)
    return cli_fail(CLI_EUSAGE, cmd,
                    "--ranks: %d, but mpirun started %d processes; accepted: -n %d or no -n",
                    o.nranks, P, P);
  if (o.npos < 2)
    return cli_fail(CLI_EUSAGE, cmd,
                    "missing COLL and ALGO; accepted: tutti-mpi run COLL ALGO, "
                    "COLL one of %s (tutti-mpi list names the algorithms)",
                    cli_coll_names());
  int coll;
  if (tutti_coll_find(o.pos[0], &coll))
    return cli_fail(CLI_EUSAGE, cmd, "unknown collective '%s'; accepted: %s", o.pos[0],
                    cli_coll_names());
  struct cli_job j = {.coll = coll, .iters = o.iters, .root = o.root};
  char err[1024] = "";
  if (tutti_algo_select(coll, o.pos[1], o.params, &j.algo, err, sizeof err))
    return cli_fail(CLI_EUSAGE, cmd, "%s", err);
  unsigned traits = tutti_coll_traits(coll);
  if (!(traits & TUTTI_COLL_ROOTED) && (o.given & (CLI_O(ROOT) | CLI_O(ROTATE))))
    return cli_fail(CLI_EUSAGE, cmd, "--%s: %s has no root",
                    o.given & CLI_O(ROOT) ? "root" : "rotate-root", tutti_coll_name(coll));
  if (o.root >= P)
    return cli_fail(CLI_EUSAGE, cmd, "--root: %d is out of range for %d ranks; accepted: 0..%d",
                    o.root, P, P - 1);
  j.rotate = (o.given & CLI_O(ROTATE)) != 0;
  if ((st = cli_job_types(cmd, &o, coll, &j.op, &j.type))) return st;
  size_t bytes = traits & TUTTI_COLL_DATA ? o.bytes : 0, tsize = tutti_type_size(j.type);
  if (bytes % tsize)
    return cli_fail(CLI_EUSAGE, cmd,
                    "--bytes: %zu B is not a whole number of %s elements; accepted: a multiple "
                    "of %zu B",
                    bytes, tutti_type_name(j.type), tsize);
  if (bytes > INT_MAX / (size_t)P)
    return cli_fail(CLI_EUSAGE, cmd,
                    "--bytes: %zu B per rank is too large for MPI's int counts over %d ranks; "
                    "accepted: at most %d B",
                    bytes, P, INT_MAX / P);
  j.count = (long)(bytes / tsize);
  /* what a rank would refuse, at every root the calls take: bad input,
   * as for `tutti run` (cli_opts.c) */
  if ((st = cli_job_check(cmd, &j, P, bytes))) return st;
  struct mres res;
  int rc = mpi_exec(r, &j, 0, &res);
  if (rc || res.rc) {
    free(res.t);
    const char *doing = tutti_mpi_rank_doing(r);
    return cli_fail(CLI_ERUNTIME, cmd, "rank %d failed: %s (%s)%s%s", tutti_rank(r),
                    tutti_err_name(rc ? rc : res.rc), tutti_strerror(rc ? rc : res.rc),
                    doing ? " in " : "", doing ? doing : "");
  }
  if (me_world == 0) print_run(&j, P, bytes, &res, (o.given & CLI_O(JSON)) != 0);
  fflush(stdout);
  free(res.t);
  if (!res.verified) return cli_fail(CLI_EVERIFY, cmd, "verification failed: %s", res.why);
  return CLI_OK;
}

/* ------------------------------------------------------------ check */

/* The variants of an algorithm that check runs: its defaults, then each
 * parameter moved off its default once (the minimum, or a step up). */
static int variant(const tutti_algo_desc_t *d, int v, char *params, size_t n) {
  if (v == 0) return params[0] = 0, 1;
  if (v > d->nparams) return 0;
  const tutti_param_desc_t *p = &d->params[v - 1];
  double def = p->def, x;
  if (p->type == TUTTI_PARAM_CHOICE) { /* the next word that needs no list after it */
    int nw = 0;
    while (p->choices[nw]) nw++;
    for (int i = 1; i < nw; i++) {
      const char *w = p->choices[((int)def + i) % nw];
      if (w[strlen(w) - 1] != ':') return snprintf(params, n, "%s=%s", p->name, w), 1;
    }
    return params[0] = 0, 1; /* one word only: the defaults again */
  }
  if (p->type == TUTTI_PARAM_SIZE)
    x = 512; /* pipelined in segments */
  else if (p->flags & TUTTI_PARAM_AUTO_DEFAULT)
    x = p->min + (p->type == TUTTI_PARAM_INT ? 1 : 0);
  else if (p->min != def)
    x = p->min;
  else
    x = p->type == TUTTI_PARAM_INT ? def + 1 : (def + (isfinite(p->max) ? p->max : def + 1)) / 2;
  if (x > p->max) x = p->min;
  snprintf(params, n, "%s=%.17g", p->name, x);
  return 1;
}

#define CHECK_OPTS (CLI_O(SIZES) | CLI_O(ITERS) | CLI_O(PLUGIN) | CLI_O(HELP))

static int cmd_check(tutti_rank_t *r, int argc, char **argv) {
  const char *cmd = "mpi check";
  struct cli_opts o;
  int P = tutti_size(r), st = cli_parse(cmd, CHECK_OPTS, 0, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    if (me_world == 0)
      printf("usage: mpirun -n N tutti-mpi check [--sizes LIST] [--iters K] [--plugin FILE]\n\n"
             "Every registered algorithm of every collective (a plugin's too), at its\n"
             "defaults and with each\n"
             "parameter moved once, at roots 0, 1 and N-1, over the sizes (default\n"
             "0,1000,72KiB bytes per rank), reductions with sum (int32), prod (double)\n"
             "and the non-commutative matmul2 (int32, int64): each call verified against\n"
             "the sequential reference and against the MPI library's own collective\n"
             "(MPI_Bcast, MPI_Reduce, MPI_Allreduce with an MPI_Op_create(commute = 0) op\n"
             "for matmul2, MPI_Gather, MPI_Scatter, MPI_Allgather, MPI_Reduce_scatter_block,\n"
             "MPI_Alltoall, MPI_Scan, MPI_Exscan (not rank 0's result, which MPI leaves\n"
             "undefined); barrier: no rank leaves early).\n"
             "Exit 0 when every run passed, 1 otherwise.\n");
    return 0;
  }
  size_t *sizes = NULL, defsizes[] = {0, 1000, 72 * 1024};
  int nsizes = 3;
  if (o.sizes) {
    if ((st = cli_parse_sizes(cmd, o.sizes, &sizes, &nsizes))) return st;
  }
  const size_t *sz = sizes ? sizes : defsizes;
  static const struct {
    const char *op, *dtype;
  } reds[] = {{"sum", "int32"}, {"prod", "double"}, {"matmul2", "int32"}, {"matmul2", "int64"}};
  int roots[3] = {0, 1 % P, P - 1};
  int runs = 0, skipped = 0, failed = 0, iters = o.given & CLI_O(ITERS) ? o.iters : 2;
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
    unsigned traits = tutti_coll_traits(d->coll);
    char params[128];
    for (int v = 0; variant(d, v, params, sizeof params); v++) {
      struct cli_job j = {.coll = d->coll, .iters = iters};
      char err[1024] = "", spec[256];
      if (tutti_algo_select(d->coll, d->name, params, &j.algo, err, sizeof err)) {
        if (me_world == 0)
          printf("FAIL %s %s:%s: %s\n", tutti_coll_name(d->coll), d->name, params, err);
        failed++;
        continue;
      }
      tutti_algo_format(j.algo, spec, sizeof spec);
      int nred = traits & TUTTI_COLL_REDUCES ? 4 : 1;
      int nroot = traits & TUTTI_COLL_ROOTED ? 3 : 1;
      int nsz = traits & TUTTI_COLL_DATA ? nsizes : 1;
      int a_runs = 0, a_skip = 0, a_fail = 0;
      for (int e = 0; e < nred; e++) {
        j.type = TUTTI_BYTE, j.op = NULL;
        if (traits & TUTTI_COLL_REDUCES) {
          tutti_op_find(reds[e].op, &j.op);
          tutti_type_find(reds[e].dtype, &j.type);
        }
        if (tutti_algo_check(j.algo, P, j.op, err, sizeof err)) {
          a_skip++;
          continue;
        }
        for (int s = 0; s < nsz; s++) {
          size_t bytes = traits & TUTTI_COLL_DATA ? sz[s] : 0, tsize = tutti_type_size(j.type);
          j.count = (long)(bytes / tsize);
          for (int q = 0; q < nroot; q++) {
            if (q && roots[q] == roots[q - 1]) continue;
            j.root = roots[q];
            struct mres res;
            int rc = mpi_exec(r, &j, 1, &res);
            a_runs++;
            if (rc || res.rc || !res.verified) {
              a_fail++;
              if (me_world == 0)
                printf("FAIL %s %s, %zu B, root %d%s%s: %s\n", tutti_coll_name(j.coll), spec,
                       j.count * tsize, j.root, j.op ? ", op " : "",
                       j.op ? tutti_op_name(j.op) : "",
                       rc || res.rc ? tutti_strerror(rc ? rc : res.rc) : res.why);
            }
            free(res.t);
          }
        }
      }
      if (me_world == 0)
        printf("%s %-9s %-40s %3d runs%s\n", a_fail ? "FAIL" : "ok  ", tutti_coll_name(d->coll),
               spec, a_runs, a_skip ? " (restriction: some ops skipped)" : "");
      runs += a_runs, skipped += a_skip, failed += a_fail;
    }
  }
  free(sizes);
  if (me_world == 0)
    printf("%d ranks: %d runs verified against the reference and the MPI library, %d failed, "
           "%d op sets skipped by a restriction\n",
           P, runs - failed, failed, skipped);
  fflush(stdout);
  return failed ? CLI_EVERIFY : CLI_OK;
}

/* ------------------------------------------------------------ the same command */

/* FNV-1a 64 of the words argv[0..argc), each with its NUL: two commands
 * that differ in any byte or in where a word ends hash apart. */
static uint64_t args_hash(int argc, char **argv) {
  uint64_t h = 14695981039346656037ULL;
  for (int a = 0; a < argc; a++) {
    const unsigned char *p = (const unsigned char *)argv[a];
    do h = (h ^ *p) * 1099511628211ULL;
    while (*p++);
  }
  return h;
}

/* The words joined by spaces, cut with "..." to fit buf. */
static void args_text(int argc, char **argv, char *buf, size_t n) {
  size_t len = 0;
  buf[0] = '\0';
  for (int a = 0; a < argc && len < n; a++)
    len += (size_t)snprintf(buf + len, n - len, "%s%s", a ? " " : "", argv[a]);
  if (len >= n && n > 4) memcpy(buf + n - 4, "...", 4);
}

/* Whether every process of MPI_COMM_WORLD was given the arguments of
 * process 0 (an MPMD launch, `mpirun -n 2 tutti-mpi A : -n 2 tutti-mpi B`,
 * gives each its own): collective, before any parsing, since a process
 * that refused its arguments alone would leave the others waiting in
 * their first collective call forever. 0, or CLI_EUSAGE on every process
 * after process 0 printed the one line naming those that differ. */
static int same_command(int argc, char **argv) {
  MPI_Comm c = MPI_COMM_WORLD;
  int me, P;
  MPI_Comm_rank(c, &me);
  MPI_Comm_size(c, &P);
  unsigned long long h = args_hash(argc, argv), h0 = h;
  MPI_Bcast(&h0, 1, MPI_UNSIGNED_LONG_LONG, 0, c);
  int differs = h != h0, ndiff = 0;
  MPI_Allreduce(&differs, &ndiff, 1, MPI_INT, MPI_SUM, c);
  if (!ndiff) return 0;
  /* the lowest differing processes, named; the first of them quoted */
  enum { NAMED = 8 };
  int named[NAMED], k = 0, last = -1;
  for (; k < NAMED && k < ndiff; k++) {
    int mine = differs && me > last ? me : P;
    MPI_Allreduce(&mine, &named[k], 1, MPI_INT, MPI_MIN, c);
    last = named[k];
  }
  char theirs[256], ours[256];
  args_text(argc, argv, theirs, sizeof theirs);
  args_text(argc, argv, ours, sizeof ours);
  MPI_Bcast(theirs, sizeof theirs, MPI_CHAR, named[0], c);
  char list[160];
  size_t len = 0;
  for (int i = 0; i < k; i++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%d", i ? ", " : "", named[i]);
  if (ndiff > k) snprintf(list + len, sizeof list - len, " and %d more", ndiff - k);
  char cmd[64] = "mpi";
  if (argc > 0) snprintf(cmd, sizeof cmd, "mpi %.50s", argv[0]);
  return cli_fail(CLI_EUSAGE, cmd,
                  "process%s %s %s given other arguments than process 0 ('%s' against '%s'); "
                  "accepted: the same command on every process",
                  ndiff > 1 ? "es" : "", list, ndiff > 1 ? "were" : "was", theirs, ours);
}

/* ------------------------------------------------------------ main */

static void usage(FILE *f) {
  fprintf(
      f,
      "usage: mpirun -n N tutti-mpi COMMAND [options]\n\n"
      "tutti's collective algorithms over MPI processes (bench/CLI.md \"tutti-mpi\").\n\n"
      "commands:\n"
      "  run COLL ALGO [options]   run one collective, verify, report wall times\n"
      "  check [options]           every algorithm, verified and compared with MPI's own\n"
      "  bench compare [options]   MPI's own bcast/allreduce/barrier against tutti's\n"
      "  calibrate [PROFILE]       fit alpha/beta (LogGP too) to ranks 0 and 1, write a profile\n"
      "  list [COLL]               the algorithm registry (runs without mpirun)\n\n"
      "COMMAND --help describes each.\n");
}

/* The commands that run without MPI: usage, --help, list, an unknown
 * command. */
static int no_mpi(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_EUSAGE;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[1], "list")) return tutti_cli_list(argc - 2, argv + 2);
  return cli_fail(CLI_EUSAGE, "mpi",
                  "unknown command '%s'; accepted: run, check, bench, calibrate, list", argv[1]);
}

int main(int argc, char **argv) {
  int (*fn)(tutti_rank_t *, int, char **) = NULL;
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "run"))
    fn = cmd_run;
  else if (!strcmp(what, "check"))
    fn = cmd_check;
  else if (!strcmp(what, "bench"))
    fn = tutti_mpi_bench;
  else if (!strcmp(what, "calibrate"))
    fn = tutti_mpi_calibrate;
  /* Started by mpirun (Open MPI's, or a PMI or PMIx launcher's variable),
   * a command that needs no MPI still joins the others' MPI_Init and the
   * check below: a process that ran `list` alone and left would keep
   * those of an MPMD launch waiting in MPI_Init. */
  int launched = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
  if (!fn && !launched) return no_mpi(argc, argv);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me_world);
  /* Every rank parses the same arguments and reaches the same verdict:
   * only rank 0 says it. */
  if (me_world != 0 && !freopen("/dev/null", "w", stderr)) return CLI_ERUNTIME;
  /* That verdict holds only if every process got the same arguments. */
  int st = same_command(argc - 1, argv + 1);
  if (st || !fn) {
    if (!st) st = no_mpi(argc, argv);
    MPI_Finalize();
    return st;
  }
  tutti_rank_t *r;
  int rc = tutti_mpi_rank_create(MPI_COMM_WORLD, &r);
  if (rc)
    st = cli_fail(CLI_ERUNTIME, "mpi", "cannot make an MPI rank: %s", tutti_strerror(rc));
  else
    st = fn(r, argc - 2, argv + 2);
  if (fflush(stdout) && st == CLI_OK) st = CLI_ERUNTIME;
  tutti_mpi_rank_free(r);
  tutti_mpi_finalize();
  MPI_Finalize();
  return st;
}

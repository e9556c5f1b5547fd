/*
 * cli_exec.c -- one job (struct cli_job: a collective, its algorithm,
 * count, type, op, root and calls) of the `tutti` command's collective
 * commands: made from the options and checked (cli_job_make), run on a
 * world with every rank's result checked against verify.c's sequential
 * reference on every call (cli_exec, cli_call), and its tree
 * (cli_job_tree). run, compare, explain, check and the points of suite,
 * sweep and tune (cli_point.c) all run their collectives through here, so
 * a result means the same in every command.
 *
 * Threads: cli_exec runs rank_fn on the world's ranks; they share the
 * reference (read-only while the world runs, its shared buffers behind a
 * lock) and write only their own slots of struct exec, its atomic
 * counters and its gate.
 */
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "cli.h"
#include "gate.h"

/* ------------------------------------------------------------ running one */

struct bad {
  int call; /* -1: none */
  long index;
  int from; /* gather: the block's rank */
  const char *what;
};

struct exec {
  const struct cli_job *job;
  struct verify v;
  atomic_long entered; /* barrier: ranks that entered, over all calls */
  struct bad *bad;     /* one per rank */
  /* no_data: the buffers of every rank, one shared mapping never touched
   * (the runtime copies nothing): [send | receive | root's P blocks] */
  unsigned char *region;
  size_t region_size, slot;
  double *cpu; /* per rank: [0] its thread's CPU seconds, [1] of them checking */
  int fibers;  /* ranks are fibers: a rank's thread clock is its worker's */
  /* The wall time per call without the checking: every call of a checked
   * run starts on every rank together (the gate, passed after the rank
   * prepared its buffers), and each rank adds up its wall time inside the
   * calls (wall[rank]). in_call: ranks inside a call now (what the gate
   * asks before it gives up on ranks that never come: a deadlock the
   * runtime cannot see while others wait here). */
  struct gate gate;
  int gated;
  atomic_int in_call;
  double *wall;
};

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* This thread's CPU seconds (user and system): what a rank spent, however
 * the 1024 threads of a run share the cores. */
static double thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A rank's buffers in a no-data run: views into the shared region. */
static int rank_nodata(tutti_rank_t *r, struct exec *x) {
  const struct cli_job *j = x->job;
  int P = tutti_size(r), rc = 0;
  unsigned char *a = x->region, *b = x->region + x->slot, *big = x->region + 2 * x->slot;
  double t0 = wall_now(); /* nothing is checked: the calls run back to back */
  for (int k = 0; k < j->iters && !rc; k++) {
    int root = j->rotate ? (int)(((long)j->root + k) % P) : j->root;
    rc = cli_call(r, j, root, a, b, big);
    if (j->calls_done && tutti_rank(r) == 0) __atomic_add_fetch(j->calls_done, 1, __ATOMIC_RELAXED);
  }
  x->wall[tutti_rank(r)] = wall_now() - t0;
  /* a rank thread's CPU from its creation; fibers: cli_exec reads the
   * workers' (a fiber's thread clock is its worker's) */
  if (!x->fibers) x->cpu[2 * tutti_rank(r)] = thread_cpu();
  return rc;
}

/* A rank's buffer. Large ones are 2 MiB-aligned and asked for in huge
 * pages: a 1024-rank broadcast of 4 MiB touches 4 GiB, and first touch in
 * 4 KiB pages costs a million page faults, more than the checking itself. */
#define HUGE_PAGE ((size_t)2 << 20)
static void *buf_alloc(size_t size) {
  if (size < HUGE_PAGE) return malloc(size ? size : 1);
  void *p;
  size = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  if (posix_memalign(&p, HUGE_PAGE, size)) return NULL;
  madvise(p, size, MADV_HUGEPAGE); /* advice: without it, small pages */
  return p;
}

/* The gate's question after a second of waiting: open it (1) when every
 * rank still missing has been inside a call for a long while -- ranks that
 * may be deadlocked, which the runtime detects only once these waiters are
 * back in calls too. The run goes on ungated (its per-call wall time is
 * then not reported). */
#define GATE_PATIENCE 10.0 /* seconds */
static int gate_stuck(void *arg, double waited, int missing) {
  struct exec *x = arg;
  return waited >= GATE_PATIENCE && atomic_load(&x->in_call) >= missing;
}

static void yield_rank(void *r) {
  tutti_rank_yield(r);
}

/* Before a call: pass the gate (checked runs; a fiber yields while it
 * waits, its worker's other ranks may not have come yet, and the thread
 * clock that runs meanwhile, theirs, is added to *others); the wall clock
 * at entry. */
static double call_enter(struct exec *x, tutti_rank_t *r, double *others) {
  if (x->gated && x->fibers) {
    double t = thread_cpu();
    gate_wait_yielding(&x->gate, gate_stuck, x, yield_rank, r);
    *others += thread_cpu() - t;
  } else if (x->gated)
    gate_wait(&x->gate, gate_stuck, x);
  atomic_fetch_add(&x->in_call, 1);
  return wall_now();
}

/* After it: the call's wall time, added to *sum. */
static void call_leave(struct exec *x, double t, double *sum) {
  *sum += wall_now() - t;
  atomic_fetch_sub(&x->in_call, 1);
}

/* The process's CPU seconds (user and system), all threads. */
static double process_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A broadcast's buffers from one shared reference (verify_ref_get): a
 * memcpy to prepare, a memcmp to check, whatever the rank count. Returns
 * the first bad index or -1; *rc the call's code. */
static long bcast_shared(tutti_rank_t *r, struct exec *x, const struct verify_ref *ref, int root,
                         unsigned char *a, size_t blk, double *tcall, double *wall, int *rc) {
  const struct cli_job *j = x->job;
  memcpy(a, tutti_rank(r) == root ? ref->data : ref->inv, blk);
  double tw = call_enter(x, r, tcall), t = thread_cpu();
  *rc = tutti_bcast(r, a, j->count, j->type, root, j->algo);
  *tcall += thread_cpu() - t;
  call_leave(x, tw, wall);
  return *rc ? -1 : verify_check_ref(&x->v, ref, a);
}

static void mark(struct exec *x, int me, int call, long index, int from, const char *what) {
  if (x->bad[me].call < 0) x->bad[me] = (struct bad){call, index, from, what};
}

/* Every rank: iters calls, each with fresh inputs and poisoned outputs,
 * each checked before the next. A rank allocates only its own buffers
 * (the root's P blocks of gather and scatter only while it is root; every
 * rank's P blocks of allgather and reduce_scatter, 2P of alltoall). */
static int rank_fn(tutti_rank_t *r, void *arg) {
  struct exec *x = arg;
  if (x->job->no_data) return rank_nodata(r, x);
  const struct cli_job *j = x->job;
  const struct verify *v = &x->v;
  int me = tutti_rank(r), P = tutti_size(r), rc = 0;
  /* The thread's clock (a system call, several microseconds with thousands
   * of threads) is read around the calls and once at the end: a rank
   * thread's clock starts with the thread, a fiber's is its worker's, read
   * at the start too. Checking is the rest: the rank's CPU but its calls
   * (and but what a fiber's worker ran while it waited at the gate). */
  double t0 = x->fibers ? thread_cpu() : 0, tcall = 0, tb, tw, wall = 0;
/* rc = call, its CPU time added to tcall, its wall time to wall; the gate
 * before it is not in wall (a fiber's gate is in tcall: not checking) */
#define TIMED(rc, call)                                                                            \
  (tw = call_enter(x, r, &tcall), tb = thread_cpu(), (rc) = (call), tcall += thread_cpu() - tb,    \
   call_leave(x, tw, &wall))
  long n = j->count, at;
  size_t blk = (size_t)n * tutti_type_size(j->type);
  unsigned char *a = buf_alloc(blk), *b = buf_alloc(blk), *big = NULL;
  if (!a || !b) {
    free(a), free(b);
    if (x->gated) gate_open(&x->gate); /* the others must not wait for it at the gate */
    return TUTTI_ENOMEM;
  }
  for (int k = 0; k < j->iters && !rc; k++) {
    int root = j->rotate ? (int)(((long)j->root + k) % P) : j->root;
    unsigned tr = tutti_coll_traits(j->coll);
    if ((tr & TUTTI_COLL_BLOCKS) && (me == root || !(tr & TUTTI_COLL_ROOTED))) {
      size_t bigsz = blk * (size_t)P * (tr & TUTTI_COLL_EXCHANGE ? 2 : 1);
      big = buf_alloc(bigsz);
      if (!big) {
        rc = TUTTI_ENOMEM;
        break;
      }
    }
    const struct verify_ref *ref;
    if (j->coll == TUTTI_COLL_BCAST && (ref = verify_ref_get(&x->v, root, k)) != NULL) {
      at = bcast_shared(r, x, ref, root, a, blk, &tcall, &wall, &rc);
      verify_ref_put(&x->v, ref);
      if (at >= 0) mark(x, me, k, at, -1, me == root ? "the root's buffer changed" : "the buffer");
      if (j->calls_done && me == 0) __atomic_add_fetch(j->calls_done, 1, __ATOMIC_RELAXED);
      continue; /* big is NULL: a broadcast has no blocks */
    }
    if (j->coll == TUTTI_COLL_BARRIER) {
      atomic_fetch_add(&x->entered, 1);
      TIMED(rc, tutti_barrier(r, j->algo));
      if (!rc && atomic_load(&x->entered) < (long)P * (k + 1))
        mark(x, me, k, -1, -1, "left the barrier before every rank entered it");
    } else {
      int from;
      const char *what;
      verify_prepare(v, me, root, k, a, b, big, blk);
      TIMED(rc, cli_call(r, j, root, a, b, big));
      if (!rc && (at = verify_result(v, me, root, k, a, b, big, blk, &from, &what)) >= 0)
        mark(x, me, k, at, from, what);
    }
    free(big);
    big = NULL;
    if (j->calls_done && me == 0) __atomic_add_fetch(j->calls_done, 1, __ATOMIC_RELAXED);
  }
  free(a), free(b);
  if (rc && x->gated) gate_open(&x->gate); /* it leaves early: nobody waits for it */
  double cpu = thread_cpu() - t0;
  x->cpu[2 * me] = cpu;
  x->cpu[2 * me + 1] = cpu - tcall;
  x->wall[me] = wall;
  return rc;
#undef TIMED
}

/* The largest of v[0..n). */
static double slowest(const double *v, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = v[i] > m ? v[i] : m;
  return m;
}

int cli_exec(tutti_world_t *w, const struct cli_job *job, struct cli_result *res) {
  memset(res, 0, sizeof *res);
  int P = tutti_world_size(w);
  struct exec x = {.job = job};
  atomic_init(&x.entered, 0);
  x.bad = malloc(sizeof *x.bad * (size_t)P);
  x.wall = calloc((size_t)P, sizeof *x.wall);
  atomic_init(&x.in_call, 0);
  res->call_wall = NAN;
  if (!x.bad || !x.wall) {
    free(x.bad), free(x.wall);
    return TUTTI_ENOMEM;
  }
  for (int i = 0; i < P; i++) x.bad[i].call = -1;
  if (job->no_data) {
    /* One region for all ranks, never touched: MAP_NORESERVE, so even
     * terabytes of address space commit no memory. */
    size_t blk = (size_t)job->count * tutti_type_size(job->type), line = 4096;
    x.slot = (blk + line - 1) / line * line + line;
    unsigned tr = tutti_coll_traits(job->coll);
    size_t blocks = tr & TUTTI_COLL_BLOCKS ? (size_t)P * (tr & TUTTI_COLL_EXCHANGE ? 2 : 1) : 1;
    if (x.slot > (SIZE_MAX - x.slot * 2) / blocks) {
      free(x.bad), free(x.wall);
      return TUTTI_ENOMEM;
    }
    x.region_size = 2 * x.slot + blocks * x.slot;
    x.cpu = calloc(2 * (size_t)P, sizeof *x.cpu);
    x.region = x.cpu ? mmap(NULL, x.region_size, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
                     : MAP_FAILED;
    if (x.region == MAP_FAILED) {
      free(x.bad), free(x.wall), free(x.cpu);
      return TUTTI_ENOMEM;
    }
    /* the ranks' CPU as a checked run measures it (below); nothing is
     * checked, so check_cpu stays 0 */
    x.fibers = tutti_world_workers(w) > 0;
    double cpu0 = process_cpu();
    res->rc = tutti_world_run(w, rank_fn, &x);
    for (int i = 0; i < P; i++) res->ranks_cpu += x.cpu[2 * i];
    if (x.fibers) res->ranks_cpu = process_cpu() - cpu0;
    if (res->rc) {
      const char *e = tutti_world_error(w);
      snprintf(res->error, sizeof res->error, "%s", e && *e ? e : tutti_strerror(res->rc));
    }
    munmap(x.region, x.region_size);
    tutti_world_stats(w, &res->stats);
    res->has_report = !res->rc && tutti_world_report(w, &res->report) == 0;
    res->verified = !res->rc; /* nothing checked: only that it ran */
    res->unchecked = 1;
    res->call_wall = slowest(x.wall, P) / job->iters;
    free(x.bad), free(x.wall), free(x.cpu);
    return 0;
  }
  if (!(x.cpu = calloc(2 * (size_t)P, sizeof *x.cpu))) {
    free(x.bad), free(x.wall);
    return TUTTI_ENOMEM;
  }
  x.fibers = tutti_world_workers(w) > 0;
  x.gated = !job->ungated;
  if (x.gated) gate_init(&x.gate, P);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = verify_init(&x.v, job->coll, job->type,
                       tutti_coll_traits(job->coll) & TUTTI_COLL_REDUCES ? job->op : NULL, P,
                       job->count, job->iters);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (rc) {
    free(x.bad), free(x.cpu), free(x.wall);
    return rc;
  }
  res->reference_time = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  double cpu0 = process_cpu();
  res->rc = tutti_world_run(w, rank_fn, &x);
  for (int i = 0; i < P; i++) res->ranks_cpu += x.cpu[2 * i], res->check_cpu += x.cpu[2 * i + 1];
  /* A fiber's thread clock also runs while the worker runs the others:
   * the ranks' CPU is the workers' (the caller only waits meanwhile). The
   * checking is still each rank's own: it never waits. */
  if (tutti_world_workers(w) > 0) res->ranks_cpu = process_cpu() - cpu0;
  /* an ungated run's calls waited for the others' checking: not reported */
  if (x.gated && !gate_is_open(&x.gate)) res->call_wall = slowest(x.wall, P) / job->iters;
  if (res->rc) {
    const char *e = tutti_world_error(w);
    snprintf(res->error, sizeof res->error, "%s", e && *e ? e : tutti_strerror(res->rc));
  }
  tutti_world_stats(w, &res->stats);
  res->has_report = !res->rc && tutti_world_report(w, &res->report) == 0;
  res->verified = !res->rc;
  res->bad_rank = res->bad_call = -1;
  for (int i = 0; i < P && res->verified; i++) {
    const struct bad *b = &x.bad[i];
    if (b->call < 0) continue;
    res->verified = 0;
    res->bad_rank = i, res->bad_call = b->call;
    char from[48] = "";
    if (b->from >= 0) snprintf(from, sizeof from, " from rank %d", b->from);
    if (b->index < 0)
      snprintf(res->why, sizeof res->why, "rank %d, call %d: %s", i, b->call + 1, b->what);
    else
      snprintf(res->why, sizeof res->why,
               "rank %d, call %d: element %ld of %s%s differs from the sequential reference", i,
               b->call + 1, b->index, b->what, from);
  }
  verify_free(&x.v);
  free(x.bad), free(x.cpu), free(x.wall);
  return 0;
}

/* ------------------------------------------------------------ making one */

int cli_job_make(const char *cmd, const struct cli_opts *o, const char *coll_name,
                 const char *algo_name, struct cli_job *j, size_t *bytes) {
  int coll;
  if (!coll_name || !algo_name)
    return cli_fail(CLI_EUSAGE, cmd,
                    "missing COLL and ALGO; accepted: tutti %s COLL ALGO, COLL one of %s", cmd,
                    cli_coll_names());
  if (tutti_coll_find(coll_name, &coll))
    return cli_fail(CLI_EUSAGE, cmd, "unknown collective '%s'; accepted: %s", coll_name,
                    cli_coll_names());
  memset(j, 0, sizeof *j);
  j->coll = coll;
  j->iters = 1;
  j->root = o->root;
  char err[1024] = "";
  if (tutti_algo_select(coll, algo_name, o->params, &j->algo, err, sizeof err))
    return cli_fail(CLI_EUSAGE, cmd, "%s", err);
  unsigned traits = tutti_coll_traits(coll);
  char names[256];
  if (!(traits & TUTTI_COLL_ROOTED) && (o->given & CLI_O(ROOT)))
    return cli_fail(CLI_EUSAGE, cmd, "--root: %s has no root; accepted: --root with %s",
                    tutti_coll_name(coll),
                    cli_coll_with(TUTTI_COLL_ROOTED, ", ", names, sizeof names));
  if (o->root >= o->nranks)
    return cli_fail(CLI_EUSAGE, cmd, "--root: %d is out of range for %d ranks; accepted: 0..%d",
                    o->root, o->nranks, o->nranks - 1);
  int st = cli_job_types(cmd, o, coll, &j->op, &j->type);
  if (st) return st;
  *bytes = traits & TUTTI_COLL_DATA ? o->bytes : 0;
  size_t tsize = tutti_type_size(j->type);
  char s1[64];
  if (*bytes % tsize)
    return cli_fail(CLI_EUSAGE, cmd,
                    "--bytes: %s is not a whole number of %s elements; accepted: a multiple of "
                    "%zu B, or another --dtype",
                    tutti_format_bytes(*bytes, s1, sizeof s1), tutti_type_name(j->type), tsize);
  if (*bytes / tsize > (size_t)LONG_MAX || *bytes > SIZE_MAX / (size_t)o->nranks)
    return cli_fail(CLI_EUSAGE, cmd, "--bytes: %s per rank is too large; accepted: less",
                    tutti_format_bytes(*bytes, s1, sizeof s1));
  j->count = (long)(*bytes / tsize);
  if (tutti_algo_check_call(j->algo, o->nranks, o->root, *bytes, j->op, err, sizeof err))
    return cli_fail(CLI_EUSAGE, cmd, "%s", err);
  snprintf(j->note, sizeof j->note, "%.*s", (int)sizeof j->note - 1, err);
  return 0;
}

/* ------------------------------------------------------------ its tree */

/* auto resolved as the ranks resolve it (collectives/engine.c): for the
 * bytes of one message, a segment's when the tree moves segments, none
 * for a barrier. */
int cli_job_tree(const struct cli_job *j, const tutti_model_t *m, size_t bytes,
                 tutti_treespec_t *spec) {
  const tutti_algo_t *a = j->algo;
  size_t b = bytes;
  if (!tutti_algo_desc(a)->tree) return TUTTI_ENOTSUP;
  double seg = tutti_algo_param(a, "segment"); /* NAN: none */
  if (j->coll == TUTTI_COLL_BARRIER)
    b = 0;
  else if (seg > 0 && (size_t)seg < bytes) {
    size_t esz = tutti_type_size(j->type), n = (size_t)seg / esz;
    b = (n ? n : 1) * esz;
  }
  return tutti_algo_treespec(a, tutti_algo_postal_L(m, b), spec);
}

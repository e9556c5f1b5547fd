/*
 * cli_estimate.c -- "know before you run": the memory a point of run,
 * suite, sweep or tune holds at its peak and the whole job's memory and
 * time, before anything runs, against one budget (--max-memory, default
 * half of physical memory). A data point over the budget runs timing only
 * (TUTTI_NO_DATA: the same modeled times, bit for bit) with a note in its
 * row; with --strict-memory the command stops before running anything.
 *
 * The estimate models what the commands allocate today, so it is the one
 * place to change when that changes. Per rank, cli_exec.c's rank_fn holds
 * a send and a receive block of m bytes and, where the collective has
 * them, P blocks (the root's of gather and scatter, every rank's of
 * allgather and reduce_scatter; alltoall's 2P, the P it sends and the P
 * it receives, in place of the two blocks); a block no one writes before the call
 * (a broadcast's receive block, a gather's) is never touched, so it takes
 * no memory. verify.c's reference is one copy for all ranks: a
 * broadcast's shared input and its complement, or a reduction's fold
 * (scan's and exscan's prefixes are checked by a digest a rank: no
 * reference); the other inputs are generated and checked a chunk at a time. The
 * scratch terms are the registered algorithms' typical ones (a binomial
 * reduce's partial results, a tree allreduce's partials where rbuf cannot
 * take them, a binomial gather's subtrees, a ring reduce_scatter's
 * received block, recursive doubling scan's received prefix and exscan's
 * two), per collective, since an algorithm's description has no scratch
 * size: recursive doubling's allreduce holds a block a rank (8 times the
 * term), bruck's allgather half a block more a rank, Rabenseifner's, the
 * ring and the pipelined allreduces, a flat gather or scatter and a
 * linear scan or exscan less, and reduce_scatter's recursive halving 3/4
 * of its P blocks (counted in a job's estimate, below, as bruck's
 * alltoall). alltoall's
 * scratch lies between its algorithms': none for the pairwise, ring and
 * linear exchanges, bruck's pack buffer P/2 blocks a rank; P/4 blocks is
 * within a quarter of the peak of either, where the buffers dominate. In
 * bytes, m per rank, P ranks (bench/CLI.md "Memory estimate"):
 *
 *   collective      buffers         reference  scratch
 *   bcast           P m             2 m        0
 *   reduce          2 P m           m          P m / 4
 *   allreduce       2 P m           m          P m / 8
 *   gather          2 P m           0          P m / 2
 *   scatter         2 P m           0          P m / 2
 *   allgather       P m + P^2 m     0          0
 *   reduce_scatter  P m + P^2 m     P m        P m
 *   alltoall        2 P^2 m         0          P^2 m / 4
 *   scan            2 P m           0          P m
 *   exscan          2 P m           0          2 P m
 *   barrier         0               0          0
 *
 * plus the runtime, with or without data: 4 MiB for the process (10 MiB
 * at the least: what it takes while starting), 12 KiB a rank (the touched
 * part of its stack, its signal stack, its state and channels) and 224 B
 * a message for the event logs and the replay (alltoall's 352 B: each
 * message opens a pair's channel; its linear exchange's 800 B: every
 * message is posted at once), counting the messages of
 * the point's algorithm (point_messages: its registered count under
 * the job's model; for a plugin without one, 2 P ceil(log2 P), P
 * ceil(log2 P) for a rooted collective, P (P - 1) for alltoall), and the
 * runtime's own budget (tutti_config_t.max_memory) stops a run whose logs
 * outgrow memory.
 * Measured against peak RSS by tests/test_e2e_memory.c.
 *
 * A job of many points (suite, sweep, tune) gives what a point frees
 * back to the system before the next (cli_release_memory), so its peak
 * is its largest point's: a point counts as a lone run, but a point of
 * reduce_scatter's recursive halving or alltoall's bruck, or of their
 * collective's auto (which may choose them), counts its scratch, 3 P^2
 * m / 4 and P^2 m / 2 (more_scratch).
 *
 * Time: about 60 us per unit of cli_point_weight (a rank, 120 messages,
 * and 48 KiB of buffer traffic per rank with data), on 2 cores: an
 * estimate, said as "about".
 *
 * State: one job per process (the process runs one command), as the
 * progress line; main thread only.
 */
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#define MEM_PROCESS ((uint64_t)4 << 20)
#define MEM_STARTUP ((uint64_t)10 << 20)
#define MEM_RANK ((uint64_t)12 << 10)
#define MEM_MESSAGE 224
#define MEM_CHANNEL 128
#define MEM_POSTED 448
#define SECONDS_PER_WEIGHT 6e-5

static struct {
  const char *cmd;
  const tutti_model_t *model; /* the points' model (NULL: teaching-hockney's view) */
  uint64_t budget;
  int given, strict, no_data, quiet, kept;
  int points, over;
  double weight;
  uint64_t most;        /* the largest point's estimate */
  char most_label[256]; /* and which point */
  uint64_t first_over;  /* the first point over the budget */
  char first_over_label[256];
} job;

/* The messages one call of a point sends: its algorithm's registered
 * count under the job's model, else a tree's (an exchange's: one a pair). */
static double point_messages(int coll, const char *algo, int P, size_t bytes) {
  const tutti_algo_t *a;
  tutti_hockney_t h = {1e-6, 1e-9, 0}; /* teaching-hockney's, before a model is known */
  if (job.model) tutti_algo_hockney_view(job.model, bytes, &h);
  double n = algo && !tutti_algo_select(coll, algo, NULL, &a, NULL, 0)
                 ? tutti_algo_messages(a, P, 0, bytes, &h)
                 : NAN;
  if (n >= 0) return n;
  long double p = P > 0 ? P : 1; /* unknown: a tree's count, or a message a pair */
  int lg = 0;
  while (lg < 30 && (1L << lg) < (long)p) lg++;
  unsigned tr = tutti_coll_traits(coll);
  if (tr & TUTTI_COLL_EXCHANGE) return (double)(p * (p > 1 ? p - 1 : 1));
  return (double)(p * (lg ? lg : 1) * (tr & TUTTI_COLL_ROOTED ? 1 : 2));
}

double cli_point_weight(int coll, const char *algo, int P, size_t bytes, int no_data) {
  unsigned tr = tutti_coll_traits(coll);
  double per_rank = (double)bytes;
  /* the root's P blocks shared out (gather, scatter), every rank's P
   * (allgather, reduce_scatter), or 2P (alltoall: P sent, P received) */
  if (tr & TUTTI_COLL_BLOCKS)
    per_rank *= (tr & TUTTI_COLL_ROOTED) ? 2 : (tr & TUTTI_COLL_EXCHANGE) ? 2.0 * P : (double)P;
  /* a rank (its start, its share of the replay) costs about what 48 KiB
   * of its buffers' traffic (writing, copying, checking) does, and a
   * message (sent, received, replayed) a 120th of that */
  return (double)P * (1 + (no_data ? 0 : per_rank / (48 << 10))) +
         point_messages(coll, algo, P, bytes) / 120;
}

/* The terms in long double, exact for integers below 2^64 (x86-64's 64-bit
 * mantissa; wider elsewhere), so one formula serves the bytes and, past
 * 2^64, the figure of the refusal. */
int cli_mem_point(int coll, const char *algo, int P, size_t bytes, int no_data, struct cli_mem *m,
                  double *figure) {
  memset(m, 0, sizeof *m);
  long double p = P > 0 ? P : 1, b = no_data ? 0 : (long double)bytes, pm = p * b, ppm = p * pm;
  long double buf = 0, ref = 0, scr = 0;
  long double msgs = point_messages(coll, algo, P, bytes);
  /* an exchange's messages each open the channel of a pair of its own;
   * the linear exchange posts them all at once, each held (its request,
   * its envelope) until its receiver matches it */
  unsigned tr = tutti_coll_traits(coll);
  long double per = MEM_MESSAGE + (tr & TUTTI_COLL_EXCHANGE ? MEM_CHANNEL : 0);
  if (tr & TUTTI_COLL_EXCHANGE && algo && !strcmp(algo, "linear")) per += MEM_POSTED;
  long double rt = MEM_PROCESS + p * MEM_RANK + msgs * per;
  switch (coll) {
  case TUTTI_COLL_BCAST:
    buf = pm, ref = 2 * b;
    break;
  case TUTTI_COLL_REDUCE:
  case TUTTI_COLL_ALLREDUCE:
    buf = 2 * pm, ref = b, scr = coll == TUTTI_COLL_REDUCE ? pm / 4 : pm / 8;
    break;
  case TUTTI_COLL_GATHER:
  case TUTTI_COLL_SCATTER:
    buf = 2 * pm, scr = pm / 2;
    break;
  case TUTTI_COLL_ALLGATHER:
    buf = pm + ppm;
    break;
  case TUTTI_COLL_REDUCE_SCATTER:
    buf = pm + ppm, ref = pm, scr = pm;
    break;
  case TUTTI_COLL_ALLTOALL:
    buf = 2 * ppm, scr = ppm / 4;
    break;
  case TUTTI_COLL_SCAN:
  case TUTTI_COLL_EXSCAN:
    buf = 2 * pm, scr = coll == TUTTI_COLL_SCAN ? pm : 2 * pm;
    break;
  default: /* barrier: no data */
    break;
  }
  long double total = buf + ref + scr + rt;
  if (total >= 0x1p64L) {
    if (figure) *figure = (double)total;
    return -1;
  }
  m->buffers = (uint64_t)buf, m->reference = (uint64_t)ref, m->scratch = (uint64_t)scr;
  m->runtime = (uint64_t)rt;
  m->total = m->buffers + m->reference + m->scratch + m->runtime;
  if (m->total < MEM_STARTUP) m->total = MEM_STARTUP;
  return 0;
}

/* "4.29 GiB": the budget's and the estimate's figures, to 3 digits */
static const char *about(uint64_t x, char *buf, size_t n) {
  static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = (double)x;
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, u++;
  if (!u)
    snprintf(buf, n, "%llu B", (unsigned long long)x);
  else
    snprintf(buf, n, "%.3g %s", v, unit[u]);
  return buf;
}

/* "allgather ring, 64 ranks, 1 MiB per rank" */
static void point_label(int coll, const char *algo, int P, size_t bytes, char *buf, size_t n) {
  char sz[32];
  if (tutti_coll_traits(coll) & TUTTI_COLL_DATA)
    snprintf(buf, n, "%s %s, %d rank%s, %s per rank", tutti_coll_name(coll), algo, P,
             P == 1 ? "" : "s", tutti_format_bytes(bytes, sz, sizeof sz));
  else
    snprintf(buf, n, "%s %s, %d rank%s", tutti_coll_name(coll), algo, P, P == 1 ? "" : "s");
}

static uint64_t physical_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

void cli_mem_begin(const char *cmd, const struct cli_opts *o, int kept,
                   const tutti_model_t *model) {
  memset(&job, 0, sizeof job);
  job.cmd = cmd;
  job.model = model;
  job.kept = kept;
  job.no_data = o->no_data;
  job.quiet = (o->given & CLI_O(QUIET)) != 0;
  job.strict = (o->given & CLI_O(STRICT_MEMORY)) != 0;
  job.given = (o->given & CLI_O(MAX_MEMORY)) != 0;
  uint64_t phys = physical_memory();
  job.budget = job.given ? o->max_memory : phys / 2;
  char a[32], b[32];
  if (job.given && phys && o->max_memory > phys)
    fprintf(stderr,
            "tutti %s: warning: --max-memory %s is more than the %s of physical memory; "
            "running anyway\n",
            cmd, about(o->max_memory, a, sizeof a), about(phys, b, sizeof b));
}

/* The algorithms that hold more scratch than their collective's term, in
 * units of P^2 m: reduce_scatter's recursive halving 3/4 of its P blocks
 * a rank, alltoall's bruck its pack buffer of P/2. */
static const struct {
  int coll;
  const char *algo;
  long double p2m;
} more_scratch[] = {{TUTTI_COLL_REDUCE_SCATTER, "recursive-halving", 0.75L},
                    {TUTTI_COLL_ALLTOALL, "bruck", 0.5L}};

/* The point's estimate in this job: cli_mem_point, with the scratch of
 * more_scratch's algorithm for a point of a job of many points that may
 * run it (algo, its collective's auto, or NULL: the collective's typical
 * algorithm). 0, or -1 past 64 bits. */
static int job_point(int coll, const char *algo, int P, size_t bytes, int no_data, uint64_t *total,
                     double *figure) {
  struct cli_mem m;
  if (cli_mem_point(coll, algo, P, bytes, no_data, &m, figure)) return -1;
  *total = m.total;
  if (!job.kept || no_data || !algo) return 0;
  long double more = 0;
  for (size_t i = 0; i < sizeof more_scratch / sizeof *more_scratch; i++)
    if (more_scratch[i].coll == coll &&
        (!strcmp(algo, more_scratch[i].algo) || !strcmp(algo, "auto"))) {
      long double x = more_scratch[i].p2m * P * P * (long double)bytes - (long double)m.scratch;
      more = x > more ? x : more;
    }
  if ((long double)m.total + more >= 0x1p64L) {
    if (figure) *figure = (double)((long double)m.total + more);
    return -1;
  }
  *total = m.total + (uint64_t)more;
  return 0;
}

int cli_mem_add(int coll, const char *algo, int P, size_t bytes) {
  uint64_t total = 0;
  double figure = 0;
  job.points++;
  job.weight += cli_point_weight(coll, algo, P, bytes, job.no_data);
  char what[256];
  if (job_point(coll, algo, P, bytes, job.no_data, &total, &figure)) {
    point_label(coll, algo, P, bytes, what, sizeof what);
    return cli_fail(CLI_EUSAGE, job.cmd,
                    "%s: its memory estimate, %.3g B, does not fit in 64 bits; accepted: fewer "
                    "ranks or fewer bytes per rank",
                    what, figure);
  }
  if (total > job.most) {
    job.most = total;
    point_label(coll, algo, P, bytes, job.most_label, sizeof job.most_label);
  }
  if (job.budget && total > job.budget && !job.over++) {
    job.first_over = total;
    point_label(coll, algo, P, bytes, job.first_over_label, sizeof job.first_over_label);
  }
  return 0;
}

int cli_mem_plan(double *weight) {
  char a[32], b[32], t[32], over[160] = "";
  if (weight) *weight = job.weight;
  if (job.strict && job.over)
    return cli_fail(CLI_EUSAGE, job.cmd,
                    "--strict-memory: %s needs about %s (%llu B) > --max-memory %s; accepted: a "
                    "larger --max-memory, fewer ranks or bytes, or --no-data",
                    job.first_over_label, about(job.first_over, a, sizeof a),
                    (unsigned long long)job.first_over, about(job.budget, b, sizeof b));
  if (job.quiet || !isatty(STDERR_FILENO)) return 0;
  if (job.over && job.no_data)
    snprintf(over, sizeof over, "; %d over --max-memory %s (the runtime's budget stops them)",
             job.over, about(job.budget, b, sizeof b));
  else if (job.over)
    snprintf(over, sizeof over, "; %d over --max-memory %s: timing only", job.over,
             about(job.budget, b, sizeof b));
  cli_progress_clear();
  fprintf(stderr, "tutti %s: %d point%s, about %s; memory at most about %s, for %s%s\n", job.cmd,
          job.points, job.points == 1 ? "" : "s",
          cli_clock_text(fmax(1, job.weight * SECONDS_PER_WEIGHT), t, sizeof t),
          about(job.most, a, sizeof a), job.most_label, over);
  return 0;
}

int cli_mem_over_algo(int coll, const char *algo, int P, size_t bytes, char *note, size_t n) {
  uint64_t total = 0;
  if (job.no_data || !job.budget || !(tutti_coll_traits(coll) & TUTTI_COLL_DATA)) return 0;
  char a[32], b[32];
  int overflow = job_point(coll, algo, P, bytes, 0, &total, NULL) != 0;
  if (!overflow && total <= job.budget) return 0;
  if (overflow)
    snprintf(note, n, "timing only: needs more than 2^64 B > --max-memory %s",
             about(job.budget, b, sizeof b));
  else
    snprintf(note, n, "timing only: needs %s > --max-memory %s", about(total, a, sizeof a),
             about(job.budget, b, sizeof b));
  return 1;
}

/* Under ASan or TSan the sanitizer's allocator replaces glibc's, whose
 * arena is then never set up: malloc_trim would walk a null arena. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GLIBC_HEAP 0
#else
#define GLIBC_HEAP 1
#endif

void cli_keep_memory(void) {
  if (!GLIBC_HEAP) return;
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
}

void cli_release_memory(void) {
  if (GLIBC_HEAP) malloc_trim(0);
}

#define GIVE_BACK_FROM (128 << 10) /* glibc's threshold before it adapts */

void cli_give_back_memory(void) {
  if (GLIBC_HEAP) mallopt(M_MMAP_THRESHOLD, GIVE_BACK_FROM);
}

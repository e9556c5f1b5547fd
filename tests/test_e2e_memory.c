/*
 * test_e2e_memory.c -- "know before you run" (bench/CLI.md "Memory
 * estimate"; bench/cli_estimate.c), run as a user runs the commands:
 * - `run --json`'s memory_estimate is within 25% of the process's peak
 *   RSS (wait4 on the child) for every collective at two sizes where the
 *   buffers dominate (barrier: two rank counts), and timing only on 1024
 *   ranks for algorithms of many messages (their registered counts);
 * - a point over --max-memory runs timing only, with the note in run's
 *   report, in sweep's JSON and CSV, in suite's table and after tune's,
 *   and the same modeled time as its data run;
 * - --strict-memory stops before running anything, exit 2, naming the
 *   point and its bytes;
 * - bad input: --max-memory without a unit, zero, negative or garbage is
 *   exit 2; more than the machine has is a warning and the run goes on;
 *   an estimate past 64 bits is exit 2 with its figure;
 * - the estimate line goes to a terminal only, never with --quiet;
 * - a run's peak RSS is at most 1.3 times the users' buffers its
 *   collective's semantics require, plus the process's own, for every
 *   collective (64 ranks, 64 KiB: the ratio of 64 ranks at a size a
 *   shared machine holds many times over); at 64 ranks and 1 MiB (P^2
 *   collectives: 64 KiB) every registered algorithm's is at most 1.3
 *   times them, with nothing added, but those whose messages need more,
 *   each held to its own bound; and a sweep's at most 1.3 times its
 *   largest point's run alone.
 * No timing assertions.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <sys/resource.h>

#include "cli_helpers.h"
#include "json_reader.h"
#include "tutti/tutti.h"

/* ------------------------------------------------------------ peak RSS */

/* `tutti args...` with stdout read back into *out (malloc'd): its exit
 * status, and its peak RSS in bytes in *peak (the child's own rusage). */
static int run_peak(const char *const *args, char **out, double *peak) {
  char bin[4096];
  const char *dir = getenv("TUTTI_BINARY_DIR");
  snprintf(bin, sizeof bin, "%s/tutti", dir && *dir ? dir : ".");
  const char *argv[32] = {"tutti"};
  int n = 1;
  for (; args[n - 1] && n < 31; n++) argv[n] = args[n - 1];
  argv[n] = NULL;
  int ofd = tmpfile_fd();
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, ofd, 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  cr_assert(eq(int, posix_spawn(&pid, bin, &fa, NULL, (char *const *)argv, environ), 0));
  posix_spawn_file_actions_destroy(&fa);
  struct rusage ru;
  int ws;
  cr_assert(eq(int, (int)wait4(pid, &ws, 0, &ru), (int)pid));
  *peak = 1024.0 * (double)ru.ru_maxrss;
  *out = slurp(ofd);
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

/* run COLL ALGO on `ranks` ranks with `size` bytes per rank (NULL: no
 * -m), timing only when `timing` is "--no-data" (else NULL): its estimate
 * within 25% of its peak. */
static void within_of(const char *coll, const char *algo, const char *ranks, const char *size,
                      const char *timing) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  cr_skip("peak RSS is not meaningful under a sanitizer");
#endif
  int c;
  cr_assert(eq(int, tutti_coll_find(coll, &c), 0));
  if (!tutti_algo_desc_find(c, algo)) cr_skip("no %s %s", coll, algo);
  char *out;
  double peak;
  int st =
      size ? run_peak((const char *const[]){"run", coll, algo, "-n", ranks, "-m", size, "--json",
                                            timing, NULL},
                      &out, &peak)
           : run_peak((const char *const[]){"run", coll, algo, "-n", ranks, "--json", timing, NULL},
                      &out, &peak);
  cr_assert(eq(int, st, 0), "%s %s -n %s -m %s: exit %d", coll, algo, ranks, size, st);
  struct jp p = json_ok(out);
  double est = json_num(&p, "memory_estimate");
  cr_assert(le(dbl, fabs(est - peak), 0.25 * peak),
            "%s %s -n %s -m %s: estimate %.1f MiB, peak RSS %.1f MiB", coll, algo, ranks,
            size ? size : "-", est / 1048576, peak / 1048576);
  free(out);
}

static void within(const char *coll, const char *algo, const char *ranks, const char *size) {
  within_of(coll, algo, ranks, size, NULL);
}

static void two_sizes(const char *coll, const char *algo) {
  within(coll, algo, "8", "1MiB");
  within(coll, algo, "8", "4MiB");
}

Test(estimate, bcast, .timeout = 120) {
  two_sizes("bcast", "binomial");
}
Test(estimate, reduce, .timeout = 120) {
  two_sizes("reduce", "binomial");
}
Test(estimate, allreduce, .timeout = 120) {
  two_sizes("allreduce", "rabenseifner");
}
Test(estimate, gather, .timeout = 120) {
  two_sizes("gather", "binomial");
}
Test(estimate, scatter, .timeout = 120) {
  two_sizes("scatter", "binomial");
}
Test(estimate, allgather, .timeout = 120) {
  two_sizes("allgather", "ring");
}
Test(estimate, reduce_scatter, .timeout = 120) {
  two_sizes("reduce_scatter", "ring");
}
/* alltoall's estimate counts scratch between its algorithms': none for
 * the pairwise exchange, bruck's pack buffers of about P blocks a rank;
 * both are held to it */
Test(estimate, alltoall, .timeout = 120) {
  two_sizes("alltoall", "pairwise");
  two_sizes("alltoall", "bruck");
}
Test(estimate, scan, .timeout = 120) {
  two_sizes("scan", "recursive-doubling");
}
Test(estimate, exscan, .timeout = 120) {
  two_sizes("exscan", "recursive-doubling");
}
Test(estimate, barrier, .timeout = 120) {
  /* no data: two rank counts, the ranks' part of the runtime */
  within("barrier", "binomial", "8", NULL);
  within("barrier", "binomial", "1024", NULL);
}
/* timing only on 1024 ranks, where the event logs and the replay of the
 * messages dominate: the algorithm's registered message count (P^2 for a
 * ring or a pairwise exchange, P - 1 times the segments of a chain, P
 * log P for bruck), not its collective's */
Test(estimate, messages, .timeout = 300) {
  within_of("allgather", "ring", "1024", "1MiB", "--no-data");
  within_of("allgather", "bruck", "1024", "1MiB", "--no-data");
  within_of("alltoall", "pairwise", "1024", "1MiB", "--no-data");
  within_of("allreduce", "ring", "1024", "1MiB", "--no-data");
  within_of("bcast", "pipelined-chain", "1024", "1MiB", "--no-data");
}

/* ------------------------------------------------------------ the users' buffers */

/* What the process holds besides the buffers: its code, libraries and
 * heap, 64 ranks' stacks and state, the event logs and the replay, the
 * verifier's one shared reference (at most 64 KiB x 64 here), and an
 * algorithm's typical scratch (a tree's partial results, a ring's
 * received block). */
#define PROCESS_MIB 16.0

/* The users' buffers of coll on P ranks, m bytes per rank: a send and a
 * receive block a rank where the call has both, and P blocks where the
 * call has them (the root's of gather and scatter; every rank's of
 * allgather and reduce_scatter; alltoall's P to send and P received). */
static double users_buffers(const char *coll, double P, double m) {
  if (!strcmp(coll, "bcast")) return P * m;
  if (!strcmp(coll, "reduce") || !strcmp(coll, "allreduce")) return 2 * P * m;
  if (!strcmp(coll, "gather") || !strcmp(coll, "scatter")) return P * m + P * m;
  if (!strcmp(coll, "scan") || !strcmp(coll, "exscan")) return 2 * P * m;
  if (!strcmp(coll, "alltoall")) return 2 * P * P * m;
  return P * m + P * P * m; /* allgather, reduce_scatter */
}

static double peak_of(const char *const *args) {
  char *out;
  double peak;
  int st = run_peak(args, &out, &peak);
  cr_assert(eq(int, st, 0), "tutti %s %s %s: exit %d", args[0], args[1], args[2], st);
  free(out);
  return peak;
}

Test(buffers, a_run_holds_its_buffers_and_little_more, .timeout = 300) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  cr_skip("peak RSS is not meaningful under a sanitizer");
#endif
  /* each collective's default and the algorithms with the most scratch
   * of their own (reduce_scatter's recursive halving, whose scratch is
   * 3/4 of its P blocks, is not held to it; the next test holds it to
   * its own bound) */
  static const char *const runs[][2] = {
      {"bcast", "binomial"},           {"bcast", "pipelined-chain"},
      {"reduce", "binomial"},          {"allreduce", "reduce-bcast"},
      {"allreduce", "rabenseifner"},   {"gather", "binomial"},
      {"scatter", "binomial"},         {"allgather", "bruck"},
      {"allgather", "ring"},           {"reduce_scatter", "ring"},
      {"alltoall", "pairwise"},        {"scan", "recursive-doubling"},
      {"exscan", "recursive-doubling"}};
  for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
    int c;
    cr_assert(eq(int, tutti_coll_find(runs[i][0], &c), 0));
    if (!tutti_algo_desc_find(c, runs[i][1])) continue;
    double peak = peak_of((const char *const[]){"run", runs[i][0], runs[i][1], "-n", "64", "-m",
                                                "64KiB", "--json", NULL});
    double buf = users_buffers(runs[i][0], 64, 65536);
    cr_assert(le(dbl, peak, 1.3 * buf + PROCESS_MIB * 1048576),
              "%s %s -n 64 -m 64KiB: peak RSS %.1f MiB, users' buffers %.1f MiB", runs[i][0],
              runs[i][1], peak / 1048576, buf / 1048576);
  }
}

/* The algorithms whose messages need more than 1.3 times their users'
 * buffers, and the bound each keeps: what the algorithm's scratch holds
 * at worst, plus 0.1 for the process itself. Most hold it at once on
 * every rank. The tree gathers and scatters hold a subtree's blocks
 * while they pass through, so their peak depends on how the ranks' runs
 * overlap: each block sits in at most two ranks' scratch at once, two
 * only while one copies it to the other, so the scratch is at most
 * 2 (P-1) blocks beside the 2 P of the users' buffers; how near a run
 * comes to that depends on the machine's cores and load. The tree
 * reduces likewise: an inner rank holds two blocks of scratch (its
 * partial result and the next child's) until its parent has taken its
 * result, so at worst 2 I blocks (I inner ranks of the 64: binomial's and
 * binary's 32, lambda-tree's 30, postal-optimal's 24) beside the 2 P.
 * Every other algorithm keeps 1.3. */
static const struct {
  const char *coll, *algo;
  double bound;
} above[] = {
    {"allreduce", "recursive-doubling", 1.6}, /* the vector received, beside in and out */
    {"scan", "recursive-doubling", 1.6},      /* the window received */
    {"exscan", "recursive-doubling", 2.1},    /* the window and the one received */
    {"exscan", "binomial", 1.6},              /* the prefix beside the result */
    {"gather", "binomial", 2.1},              /* subtrees forwarded whole */
    {"gather", "lambda-tree", 2.1},
    {"scatter", "binomial", 2.1},
    {"scatter", "lambda-tree", 2.1},
    {"reduce_scatter", "recursive-halving", 1.85}, /* 3/4 of the P blocks */
    {"reduce", "binomial", 1.6},                   /* 1 + I/P, + 0.1 */
    {"reduce", "binary", 1.6},
    {"reduce", "lambda-tree", 1.57},
    {"reduce", "postal-optimal", 1.48},
};

static double bound_of(const char *coll, const char *algo) {
  for (size_t i = 0; i < sizeof above / sizeof *above; i++)
    if (!strcmp(above[i].coll, coll) && !strcmp(above[i].algo, algo)) return above[i].bound;
  return 1.3;
}

Test(buffers, every_algorithm_holds_1_3_times_its_buffers_or_its_bound, .timeout = 900) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  cr_skip("peak RSS is not meaningful under a sanitizer");
#endif
  /* issue 36's measure: 64 ranks and 1 MiB, where the users' buffers
   * dwarf the process's own memory (no allowance for it here); the
   * collectives of P blocks a rank at 64 KiB, P^2 blocks in all */
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
    const char *coll = tutti_coll_name(d->coll);
    unsigned tr = tutti_coll_traits(d->coll);
    if (!(tr & TUTTI_COLL_DATA)) continue;
    int square = (tr & TUTTI_COLL_BLOCKS) && !(tr & TUTTI_COLL_ROOTED);
    const char *size = square ? "64KiB" : "1MiB";
    char *out;
    double peak;
    int st = run_peak(
        (const char *const[]){"run", coll, d->name, "-n", "64", "-m", size, "--json", NULL}, &out,
        &peak);
    cr_assert(eq(int, st, 0), "%s %s: exit %d", coll, d->name, st);
    struct jp p = json_ok(out);
    char chose[64] = "";
    const char *v = json_get(&p, "auto_chose"); /* auto: the bound of what it ran */
    if (v && *v == '"') snprintf(chose, sizeof chose, "%.*s", (int)strcspn(v + 1, "\""), v + 1);
    double buf = users_buffers(coll, 64, square ? 65536 : 1048576);
    double bound = bound_of(coll, *chose ? chose : d->name);
    cr_assert(le(dbl, peak, bound * buf),
              "%s %s%s%s -n 64 -m %s: peak RSS %.1f MiB, %.2f times "
              "the users' buffers (%.1f MiB); bound %.2f",
              coll, d->name, *chose ? " -> " : "", chose, size, peak / 1048576, peak / buf,
              buf / 1048576, bound);
    free(out);
  }
}

Test(buffers, a_sweep_holds_its_largest_point, .timeout = 300) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  cr_skip("peak RSS is not meaningful under a sanitizer");
#endif
  /* every allgather algorithm at three sizes and two rank counts: what
   * the points free must not pile up; the largest point is one of the
   * algorithms at 16 ranks and 1 MiB, each run alone */
  static const char *const algos[] = {"ring", "recursive-doubling", "bruck"};
  int c;
  cr_assert(eq(int, tutti_coll_find("allgather", &c), 0));
  double most = 0;
  for (size_t i = 0; i < sizeof algos / sizeof *algos; i++) {
    if (!tutti_algo_desc_find(c, algos[i])) continue;
    double p = peak_of(
        (const char *const[]){"run", "allgather", algos[i], "-n", "16", "-m", "1MiB", NULL});
    most = p > most ? p : most;
  }
  double sweep = peak_of((const char *const[]){"sweep", "allgather", "--ranks", "8,16", "--sizes",
                                               "64KiB,256KiB,1MiB", NULL});
  cr_assert(le(dbl, sweep, 1.3 * most), "sweep: peak RSS %.1f MiB, its largest point's %.1f MiB",
            sweep / 1048576, most / 1048576);
}

/* ------------------------------------------------------------ over the budget */

#define POINT "allgather", "ring", "-n", "8", "-m", "1MiB" /* about 76 MiB with data */

Test(budget, a_run_over_it_runs_timing_only_with_the_same_time, .timeout = 120) {
  struct cli d = CLI("run", POINT, "--json");
  cr_assert(eq(int, d.status, 0), "%s", d.err);
  struct jp pd = json_ok(d.out);
  cr_assert(eq(int, strncmp(json_get(&pd, "timing_only"), "null", 4), 0), "%s", d.out);
  struct cli t = CLI("run", POINT, "--json", "--max-memory", "20MiB");
  cr_assert(eq(int, t.status, 0), "%s", t.err);
  cr_assert(eq(str, t.err, ""), "nothing on stderr but errors: %s", t.err);
  struct jp pt = json_ok(t.out);
  HAS(json_get(&pt, "timing_only"), "\"timing only: needs ");
  HAS(json_get(&pt, "timing_only"), "> --max-memory 20 MiB");
  cr_assert(eq(int, strncmp(json_get(&pt, "verified"), "null", 4), 0), "%s", t.out);
  cr_assert(eq(dbl, json_num(&pt, "modeled_time"), json_num(&pd, "modeled_time")));
  cr_assert(eq(dbl, json_num(&pt, "messages"), json_num(&pd, "messages")));
  /* the table says why it was not checked */
  struct cli x = CLI("run", POINT, "--max-memory", "20MiB");
  cr_assert(eq(int, x.status, 0), "%s", x.err);
  HAS(x.out, "verified      not checked (timing only: needs ");
  cli_free(&d), cli_free(&t), cli_free(&x);
}

Test(budget, sweep_suite_and_tune_note_it, .timeout = 300) {
  struct cli r = CLI("run", POINT, "--json");
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  struct jp pr = json_ok(r.out);
  double want = json_num(&pr, "modeled_time");
  /* sweep --json: the point's timing_only and the same modeled time */
  struct cli s = CLI("sweep", "allgather", "--ranks", "8", "--sizes", "1MiB", "--algos", "ring",
                     "--json", "--max-memory", "20MiB");
  cr_assert(eq(int, s.status, 0), "%s", s.err);
  json_ok(s.out);
  const char *res = strstr(s.out, "\"results\":");
  cr_assert(ne(ptr, (void *)res, NULL), "%s", s.out);
  HAS(res, "\"timing_only\":\"timing only: needs ");
  const char *mt = strstr(res, "\"modeled_time\":");
  cr_assert(ne(ptr, (void *)mt, NULL));
  cr_assert(eq(dbl, strtod(mt + strlen("\"modeled_time\":"), NULL), want));
  HAS(res, "\"verified\":null");
  /* sweep's CSV: the note column */
  struct cli c = CLI("sweep", "allgather", "--ranks", "8", "--sizes", "1MiB", "--algos", "ring",
                     "--max-memory", "20MiB");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, ",timing only: needs ");
  /* within the budget: no note */
  struct cli n = CLI("sweep", "allgather", "--ranks", "8", "--sizes", "1MiB", "--algos", "ring");
  cr_assert(eq(int, n.status, 0), "%s", n.err);
  cr_assert(eq(ptr, strstr(n.out, "timing only"), NULL), "%s", n.out);
  /* suite's table: a line under the row; 8 B points fit */
  struct cli t = CLI("suite", "-n", "8", "--sizes", "8,1MiB", "--max-memory", "30MiB");
  cr_assert(eq(int, t.status, 0), "%s", t.err);
  HAS(t.out, "timing only: needs ");
  /* tune: the count after its table */
  struct cli u = CLI("tune", "--ranks", "8", "--sizes", "1MiB", "--max-memory", "30MiB");
  cr_assert(eq(int, u.status, 0), "%s", u.err);
  HAS(u.out, "ran timing only (over --max-memory)");
  cli_free(&r), cli_free(&s), cli_free(&c), cli_free(&n), cli_free(&t), cli_free(&u);
}

Test(budget, strict_stops_before_anything_runs, .timeout = 60) {
  struct cli r = CLI("run", POINT, "--max-memory", "20MiB", "--strict-memory");
  fails_with(r, 2, "--strict-memory: allgather ring, 8 ranks, 1 MiB per rank needs about ");
  HAS(r.err, " B) > --max-memory 20 MiB");
  cr_assert(eq(str, r.out, ""), "ran: %s", r.out);
  struct cli s = CLI("suite", "-n", "8", "--sizes", "8,1MiB", "--json", "--max-memory", "30MiB",
                     "--strict-memory");
  fails_with(s, 2, "--strict-memory: ");
  cr_assert(eq(str, s.out, ""), "ran: %s", s.out);
  struct cli w = CLI("sweep", "allgather", "--ranks", "8", "--sizes", "1MiB", "--max-memory",
                     "20MiB", "--strict-memory");
  fails_with(w, 2, "--strict-memory: allgather ");
  cr_assert(eq(str, w.out, ""), "ran: %s", w.out);
  struct cli t =
      CLI("tune", "--ranks", "8", "--sizes", "1MiB", "--max-memory", "30MiB", "--strict-memory");
  fails_with(t, 2, "--strict-memory: ");
  cr_assert(eq(str, t.out, ""), "ran: %s", t.out);
  /* within the budget, strict runs */
  struct cli ok = CLI("run", POINT, "--max-memory", "1GiB", "--strict-memory");
  cr_assert(eq(int, ok.status, 0), "%s", ok.err);
  HAS(ok.out, "verified      yes");
  cli_free(&r), cli_free(&s), cli_free(&w), cli_free(&t), cli_free(&ok);
}

/* ------------------------------------------------------------ bad input */

Test(bad_input, max_memory, .timeout = 60) {
  static const struct {
    const char *value, *says;
  } bad[] = {{"4", "has no unit"},
             {"4096", "has no unit"},
             {"0GiB", "is zero"},
             {"0B", "is zero"},
             {"-1GiB", "is not a size"},
             {"lots", "is not a size"},
             {"4 parsecs", "is not a size"},
             {"", "--max-memory"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    struct cli c = CLI("run", "bcast", "binomial", "-n", "4", "--max-memory", bad[i].value);
    fails_with(c, 2, bad[i].says);
    HAS(c.err, "accepted: a size with its unit");
    cli_free(&c);
    c = CLI("suite", "-n", "4", "--max-memory", bad[i].value);
    fails_with(c, 2, bad[i].says);
    cli_free(&c);
  }
}

Test(bad_input, more_than_the_machine_warns_and_runs, .timeout = 60) {
  struct cli c = CLI("run", "bcast", "binomial", "-n", "4", "--max-memory", "1000TiB");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.err, "tutti run: warning: --max-memory ");
  HAS(c.err, "physical memory; running anyway\n");
  cr_assert(eq(ptr, strchr(c.err, '\n'), c.err + strlen(c.err) - 1), "one line: %s", c.err);
  HAS(c.out, "verified      yes");
  cli_free(&c);
}

Test(bad_input, an_estimate_past_64_bits_is_refused_with_its_figure, .timeout = 60) {
  struct cli c = CLI("run", "allgather", "ring", "-n", "1048576", "-m", "1GiB");
  fails_with(c, 2,
             "allgather ring, 1048576 ranks, 1 GiB per rank: its memory estimate, 1.18e+21 B");
  cli_free(&c);
  c = CLI("sweep", "reduce_scatter", "--ranks", "16384", "--sizes", "1TiB");
  fails_with(c, 2, "does not fit in 64 bits");
  cr_assert(eq(str, c.out, ""), "ran: %s", c.out);
  cli_free(&c);
}

/* ------------------------------------------------------------ the line */

Test(estimate_line, on_a_terminal_only, .timeout = 60) {
  const char *args[] = {"tutti", "suite", "-n", "4", "-m", "8", NULL};
  char *out = cli_on_terminal(200, args);
  HAS(out, "tutti suite: ");
  HAS(out, " points, about ");
  HAS(out, "; memory at most about ");
  free(out);
  const char *quiet[] = {"tutti", "run", "bcast", "binomial", "-n", "4", "-q", NULL};
  out = cli_on_terminal(200, quiet);
  cr_assert(eq(ptr, strstr(out, "memory at most"), NULL), "%s", out);
  free(out);
  struct cli c = CLI("suite", "-n", "4", "-m", "8"); /* a pipe: nothing */
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(str, c.err, ""));
  cli_free(&c);
}

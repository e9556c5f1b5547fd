/*
 * bench.h -- the `tutti` command's pieces. Each benchmark is a function
 * `int tutti_bench_NAME(int argc, char **argv)` listed once in BENCHES;
 * `tutti bench` enumerates that list.
 */
#ifndef TUTTI_BENCH_H
#define TUTTI_BENCH_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

int tutti_bench_p2p(int argc, char **argv);
/* bench_steady.c: `bench p2p`'s first section (reps repetitions; Open MPI
 * beside tutti when use_mpi); 0, or 3 when a run failed. */
int bench_steady(int reps, int use_mpi);
int tutti_bench_replay(int argc, char **argv);
int tutti_bench_contention(int argc, char **argv);
int tutti_bench_lambda(int argc, char **argv);
int tutti_bench_barrier(int argc, char **argv);
int tutti_bench_hierarchy(int argc, char **argv);
int tutti_bench_lecture(int argc, char **argv);
int tutti_bench_dualroot(int argc, char **argv);
int tutti_bench_coll(int argc, char **argv);
int tutti_bench_fibers(int argc, char **argv);
int tutti_bench_spawn(int argc, char **argv);
int tutti_bench_plugin(int argc, char **argv);
int tutti_bench_smpi(int argc, char **argv);
int tutti_bench_sharing(int argc, char **argv);

/* X(name, function, modeled, one-line description): modeled 1 when the
 * benchmark prints modeled times only (the same on any machine), so that
 * its results page can be checked by re-running it; 2 when another
 * simulator's times stand beside them (smpi: SimGrid), the same wherever
 * that simulator is, which the tests do not assume. */
#define TUTTI_BENCHES(X)                                                                           \
  X(p2p, tutti_bench_p2p, 0, "p2p latency, bandwidth, message rate beside the machine's floors")   \
  X(replay, tutti_bench_replay, 0,                                                                 \
    "events per second of the replay engine on synthetic event logs")                              \
  X(contention, tutti_bench_contention, 0,                                                         \
    "replay time with link contention vs without (a 1024-rank pipelined chain on tree:32x32)")     \
  X(lambda, tutti_bench_lambda, 1,                                                                 \
    "Bernaschi & Iannello's experiment: 10 reduces, rotating root, lambda-tree vs binomial")       \
  X(barrier, tutti_bench_barrier, 1,                                                               \
    "which barrier wins per profile and P, where lambda-tree stands; --native: vs pthread")        \
  X(lecture, tutti_bench_lecture, 1,                                                               \
    "X. Yuan's MPI_Bcast lecture: 5 broadcasts 8 B..64 MiB, crossovers, contention-free mapping")  \
  X(dualroot, tutti_bench_dualroot, 1,                                                             \
    "Traff's dual-root allreduce vs single-tree, reduce+bcast and ring, 1 KiB..64 MiB")            \
  X(hierarchy, tutti_bench_hierarchy, 1,                                                           \
    "two levels vs the best flat algorithm on 16 hosts x 8 cores and 64 x 4, 8 B..1 MiB")          \
  X(coll, tutti_bench_coll, 0,                                                                     \
    "native time per call of every algorithm: default way, threads, fibers, Open MPI, one run")    \
  X(fibers, tutti_bench_fibers, 0,                                                                 \
    "ranks as fibers vs threads: native oversubscribed calls, modeled 1024 ranks; --scale: 2^20")  \
  X(spawn, tutti_bench_spawn, 0,                                                                   \
    "starting and ending 4096 and 16384 rank threads vs bare pthread create and join")             \
  X(plugin, tutti_bench_plugin, 0,                                                                 \
    "an algorithm from outside: compiling one file; a plugin's bcast vs the built-in per call")    \
  X(smpi, tutti_bench_smpi, 2,                                                                     \
    "SimGrid SMPI vs tutti: the same algorithms on one simulated 1 Gbps cluster, P = 16..64")      \
  X(sharing, tutti_bench_sharing, 1,                                                               \
    "every algorithm ranked under fifo and fair sharing: where the ranking changes (P, m)")

/* A results page (page.c): the head -- title, the command with its
 * arguments, tutti's version, the date, the machine and its load -- and
 * the foot (the load at the end), around what the command prints.
 * modeled: 0 wall-clock times, 1 modeled only, 2 simulated on both sides
 * (TUTTI_BENCHES). */
void bench_page_begin(const char *title, const char *cmd, int argc, char **argv, int modeled);
void bench_page_end(void);

/* Calls of a batch lasting about `target` seconds at `per` seconds a
 * call, within [lo, hi] (hi when per is not positive): the one sizing
 * rule of `bench coll` and `bench fibers` (bench_coll_mpi.c, a program of
 * its own, repeats it for Open MPI's side). */
static inline int bench_batch(double target, double per, int lo, int hi) {
  double want = per > 0 ? target / per : hi;
  return want < lo ? lo : want > hi ? hi : (int)want;
}

/* A benchmark's option with a value given twice is refused, as the
 * commands' are (bench/CLI.md), not silently replaced by the last: `bit`
 * is the option's own bit in *seen. Returns 2 after one line on stderr
 * ("tutti bench replay: -n: given twice; ..."), else 0. */
static inline int bench_once(const char *who, unsigned *seen, unsigned bit, const char *flag) {
  if (*seen & bit) {
    fprintf(stderr, "%s: %s: given twice; accepted: each option once\n", who, flag);
    return 2;
  }
  *seen |= bit;
  return 0;
}

/* "--name VALUE" or "--name=VALUE": the value, advancing *i past it;
 * NULL if argv[*i] is not this option (or it lacks its value). */
static inline const char *bench_opt(int argc, char **argv, int *i, const char *name) {
  size_t n = strlen(name);
  if (strncmp(argv[*i], name, n)) return NULL;
  if (argv[*i][n] == '=') return argv[*i] + n + 1;
  if (argv[*i][n] || *i + 1 >= argc) return NULL;
  return argv[++*i];
}

/* The options of a bench over ranks and sizes (bench smpi, bench
 * sharing): -n/--ranks LIST, -m/--bytes LIST, --profile VALUE (`what`:
 * its value in the missing-value error, "FILE" or "NAME|FILE"), each
 * once. Returns 0 when argv[*i] is not an option (a positional word), -1
 * after taking one (*i past it), 1 for -h/--help (the caller prints its
 * usage), 2 after one line on stderr for anything else starting with
 * '-'. */
static inline int bench_grid_opt(const char *who, int argc, char **argv, int *i, unsigned *seen,
                                 const char **ranks, const char **sizes, const char **profile,
                                 const char *what) {
  const char *v, *a = argv[*i];
  if (!strcmp(a, "--help") || !strcmp(a, "-h")) return 1;
  if ((v = bench_opt(argc, argv, i, "--ranks")) || (v = bench_opt(argc, argv, i, "-n"))) {
    if (bench_once(who, seen, 1u << 0, "--ranks")) return 2;
    *ranks = v;
  } else if ((v = bench_opt(argc, argv, i, "--bytes")) || (v = bench_opt(argc, argv, i, "-m"))) {
    if (bench_once(who, seen, 1u << 1, "--bytes")) return 2;
    *sizes = v;
  } else if ((v = bench_opt(argc, argv, i, "--profile"))) {
    if (bench_once(who, seen, 1u << 2, "--profile")) return 2;
    *profile = v;
  } else if (a[0] == '-') {
    if (!strcmp(a, "--ranks") || !strcmp(a, "-n") || !strcmp(a, "--bytes") || !strcmp(a, "-m") ||
        !strcmp(a, "--profile")) {
      fprintf(stderr, "%s: %s: missing its value; accepted: %s %s\n", who, a, a,
              strcmp(a, "--profile") ? "LIST" : what);
      return 2;
    }
    fprintf(stderr,
            "%s: unknown option '%s'; accepted: -n/--ranks, -m/--bytes, --profile (see --help)\n",
            who, a);
    return 2;
  } else
    return 0;
  return -1;
}

/* The end of a program's output, the one place write errors are caught
 * (a full disk, /dev/full): flush and close stdout; if anything written
 * there was lost, print one line on stderr naming it and return 3
 * (bench/CLI.md: a runtime failure). A status of 2 or 3 has reported its
 * own failure already and is kept. `who` starts the line ("tutti run"). */
static inline int bench_close_stdout(const char *who, int status) {
  int bad = ferror(stdout) != 0, e = 0;
  errno = 0;
  if (fflush(stdout)) bad = 1, e = errno;
  errno = 0;
  if (fclose(stdout) && !e) bad = 1, e = errno;
  if (!bad || status >= 2) return status;
  /* an earlier write's errno is gone by now: the flag is all stdio keeps */
  fprintf(stderr, "%s: writing the standard output failed: %s\n", who,
          e ? strerror(e) : "some output was lost");
  return 3;
}

#endif

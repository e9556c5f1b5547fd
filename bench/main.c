/*
 * main.c -- the `tutti` command: dispatch to its subcommands. The contract
 * (names, flags, exit statuses) is bench/CLI.md: 0 success, 1 failed
 * verification, 2 bad usage or input, 3 runtime failure (a write error on
 * stdout included: checked here, once, when the command is done); errors
 * are one line on stderr. The collective commands live in cli_*.c (cli.h), the
 * benchmark programs in bench_*.c (bench.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "tutti/tutti.h"

static int bench_main(int argc, char **argv);

/* X(name, function, synopsis, one-line description) */
#define TUTTI_COMMANDS(X)                                                                          \
  X(list, tutti_cli_list, "list [COLL]",                                                           \
    "collectives, algorithms, their parameters and restrictions")                                  \
  X(run, tutti_cli_run, "run COLL ALGO [options]",                                                 \
    "run one collective on emulated ranks, verify, report")                                        \
  X(suite, tutti_cli_suite, "suite [options]",                                                     \
    "every registered algorithm on a default profile -> table")                                    \
  X(sweep, tutti_cli_sweep, "sweep COLL [options]",                                                \
    "algorithms x rank counts x sizes -> CSV, JSON, a gnuplot plot")                               \
  X(tune, tutti_cli_tune, "tune [options]",                                                        \
    "the best algorithm per (ranks, size) -> table, rules file, Open MPI rules")                   \
  X(compare, tutti_cli_compare, "compare COLL ALGO ALGO...",                                       \
    "two or more algorithms side by side: a table, or a step-through page (--html)")               \
  X(new, tutti_cli_new, "new COLL NAME [FILE]",                                                    \
    "write a working algorithm of COLL to start from, one C file (a plugin)")                      \
  X(check, tutti_cli_check, "check [COLL] ALGO|FILE",                                              \
    "an algorithm against the sequential reference everywhere, and its cost against the engine")   \
  X(tree, tutti_cli_tree, "tree ALGO -n N [options]",                                              \
    "print the tree an algorithm uses (ASCII, or --dot)")                                          \
  X(explain, tutti_cli_explain, "explain COLL ALGO -n N [options]",                                \
    "one collective on <= 32 ranks explained: tree or schedule, rounds, cost, why")                \
  X(topo, tutti_cli_topo, "topo SPEC|FILE [options]",                                              \
    "draw a network topology with the ranks on its leaves (ASCII, or --dot)")                      \
  X(profiles, tutti_cli_profiles, "profiles", "the built-in latency profiles")                     \
  X(calibrate, tutti_cli_calibrate, "calibrate [PROFILE] [options]",                               \
    "measure ping-pong and back-to-back sends, fit alpha/beta (LogGP too), write a profile")       \
  X(bench, bench_main, "bench NAME [options]",                                                     \
    "run a benchmark program (tutti bench --help lists them)")

struct command {
  const char *name;
  int (*fn)(int, char **);
  const char *synopsis, *help;
};

static const struct command commands[] = {
#define X(name, fn, syn, help) {#name, fn, syn, help},
    TUTTI_COMMANDS(X)
#undef X
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

struct bench {
  const char *name;
  int (*fn)(int, char **);
  int modeled;
  const char *help;
};

static const struct bench benches[] = {
#define X(name, fn, modeled, help) {#name, fn, modeled, help},
    TUTTI_BENCHES(X)
#undef X
};
#define NBENCHES (sizeof benches / sizeof *benches)

static void usage(FILE *f) {
  fprintf(f, "usage: tutti COMMAND [options]\n\n"
             "Collective algorithms on emulated ranks (POSIX threads exchanging real\n"
             "messages) with a deterministic modeled time.\n\n"
             "commands:\n");
  for (size_t i = 0; i < NCOMMANDS; i++)
    fprintf(f, "  %-26s %s\n", commands[i].synopsis, commands[i].help);
  fprintf(f, "  %-26s %s\n  %-26s %s\n\n", "--version", "print the version", "--help", "this text");
  fprintf(f, "tutti COMMAND --help documents every flag of a command; an option with a value\n"
             "may be given once (--param repeats). Exit status: 0 success, 1 a result failed\n"
             "verification, 2 bad usage or input, 3 runtime failure (deadlock, a rank's error,\n"
             "output that could not be written), with a one-line reason on stderr.\n");
}

/* bench_replay.c drives the replay engine, an internal that libtutti.so
 * does not export, so it is a program of its own: bench_replay, built beside
 * tutti in the build tree, not installed. These run it from there. */
static int run_bench_replay(const char *name, int argc, char **argv) {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - sizeof "bench_replay");
  char *slash = n > 0 ? memrchr(path, '/', (size_t)n) : NULL;
  char **args = calloc((size_t)argc + 3, sizeof *args);
  if (slash && args) {
    strcpy(slash + 1, "bench_replay");
    args[0] = path;
    args[1] = (char *)name;
    memcpy(args + 2, argv, (size_t)argc * sizeof *argv);
    execv(path, args); /* returns only when it failed */
  }
  free(args);
  fprintf(stderr,
          "tutti bench %s: needs bench_replay beside tutti; it is built in the build tree "
          "(build/bench_replay), not installed\n",
          name);
  return 2;
}

int tutti_bench_replay(int argc, char **argv) {
  return run_bench_replay("replay", argc, argv);
}
int tutti_bench_contention(int argc, char **argv) {
  return run_bench_replay("contention", argc, argv);
}

/* "p2p, replay, ..." */
static const char *bench_names(void) {
  static char names[256];
  size_t len = 0;
  for (size_t i = 0; i < NBENCHES && len < sizeof names; i++)
    len +=
        (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", benches[i].name);
  return names;
}

static int bench_main(int argc, char **argv) {
  if (argc < 1)
    return cli_fail(CLI_EUSAGE, "bench", "missing NAME; accepted: %s (see tutti bench --help)",
                    bench_names());
  if (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
    printf("usage: tutti bench NAME [options]\n\nbenchmarks (tutti bench NAME --help for their "
           "options):\n");
    for (size_t i = 0; i < NBENCHES; i++) printf("  %-10s %s\n", benches[i].name, benches[i].help);
    printf("\n--markdown after NAME: the output as a results page (bench/results/), headed by\n"
           "the command, tutti's version, the date and the machine.\n");
    return 0;
  }
  for (size_t i = 0; i < NBENCHES; i++) {
    if (strcmp(argv[0], benches[i].name)) continue;
    /* the variables its worlds will read, named now if bad (cli_world.c),
     * not met later as "cannot create a world: invalid argument" */
    char who[64];
    snprintf(who, sizeof who, "bench %s", benches[i].name);
    int help = argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
    int st = help ? 0 : cli_world_env(who, NULL);
    if (st) return st;
    /* --markdown: the output as a results page (page.c), the option
     * taken out of what the benchmark sees */
    int page = 0, native = 0, n = 0;
    const char *plot = NULL;
    char **args = calloc((size_t)argc + 1, sizeof *args);
    if (!args) return cli_fail(CLI_ERUNTIME, who, "%s", tutti_strerror(TUTTI_ENOMEM));
    for (int a = 1; a < argc; a++) {
      if (!strcmp(argv[a], "--markdown"))
        page = 1;
      else
        args[n++] = argv[a];
      native |= !strcmp(argv[a], "--native");
      if (!strcmp(argv[a], "--plot") && a + 1 < argc) plot = argv[a + 1];
    }
    if (page && !help) {
      char title[256], cmd[64];
      snprintf(title, sizeof title, "tutti bench %s: %s", benches[i].name, benches[i].help);
      snprintf(cmd, sizeof cmd, "tutti bench %s", benches[i].name);
      bench_page_begin(title, cmd, argc - 1, argv + 1, native ? 0 : benches[i].modeled);
      printf("```\n");
      fflush(stdout);
    }
    st = benches[i].fn(n, args);
    if (page && !help) {
      fflush(stdout);
      printf("```\n");
      if (plot) /* the picture beside the page */
        printf("\n![%s](%s)\n", benches[i].help,
               strrchr(plot, '/') ? strrchr(plot, '/') + 1 : plot);
      bench_page_end();
    }
    free(args);
    return st;
  }
  return cli_fail(CLI_EUSAGE, "bench", "unknown benchmark '%s'; accepted: %s", argv[0],
                  bench_names());
}

static int dispatch(int argc, char **argv) {
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    printf("tutti %s\n", TUTTI_VERSION_STRING);
    return 0;
  }
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (!strcmp(cmd, commands[i].name)) return commands[i].fn(argc - 2, argv + 2);
  char names[256] = "";
  size_t len = 0;
  for (size_t i = 0; i < NCOMMANDS && len < sizeof names; i++)
    len +=
        (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "", commands[i].name);
  return cli_fail(CLI_EUSAGE, NULL, "unknown command '%s'; accepted: %s (see tutti --help)", cmd,
                  names);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  /* every command's output is checked here, once, when it is complete */
  char who[64];
  int known = 0;
  for (size_t i = 0; i < NCOMMANDS; i++) known |= !strcmp(argv[1], commands[i].name);
  snprintf(who, sizeof who, "tutti%s%s", known ? " " : "", known ? argv[1] : "");
  return bench_close_stdout(who, dispatch(argc, argv));
}

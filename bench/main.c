/*
 * main.c -- the `tutti` command: dispatch to its subcommands. The contract
 * (names, flags, exit statuses) is shared/CLI.md: 0 success, 1 failed
 * verification, 2 bad usage or input, 3 runtime failure; errors are one
 * line on stderr.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "tutti/tutti.h"

struct bench {
  const char *name;
  int (*fn)(int, char **);
  const char *help;
};

static const struct bench benches[] = {
#define X(name, fn, help) {#name, fn, help},
    TUTTI_BENCHES(X)
#undef X
};
#define NBENCHES (sizeof benches / sizeof *benches)

static void usage(FILE *f) {
  fprintf(f, "usage: tutti COMMAND [options]\n\n"
             "commands:\n"
             "  bench NAME [options]   run a benchmark program (tutti bench --help lists them)\n"
             "  --version              print the version\n"
             "  --help                 this text\n");
}

static int bench_main(int argc, char **argv) {
  if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
    FILE *f = argc < 1 ? stderr : stdout;
    fprintf(f, "usage: tutti bench NAME [options]\n\nbenchmarks:\n");
    for (size_t i = 0; i < NBENCHES; i++) fprintf(f, "  %-10s %s\n", benches[i].name, benches[i].help);
    return argc < 1 ? 2 : 0;
  }
  for (size_t i = 0; i < NBENCHES; i++)
    if (!strcmp(argv[0], benches[i].name)) return benches[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "tutti bench: unknown benchmark '%s' (accepted:", argv[0]);
  for (size_t i = 0; i < NBENCHES; i++) fprintf(stderr, " %s", benches[i].name);
  fprintf(stderr, ")\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version")) {
    printf("tutti %s\n", TUTTI_VERSION_STRING);
    return 0;
  }
  if (!strcmp(cmd, "bench")) return bench_main(argc - 2, argv + 2);
  fprintf(stderr, "tutti: unknown command '%s' (accepted: bench; see tutti --help)\n", cmd);
  return 2;
}

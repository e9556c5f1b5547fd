/*
 * test_e2e_cli.c -- the `tutti` command against bench/CLI.md: exit statuses
 * (0, 1, 2, 3) with one line on stderr for each kind of bad input; `list`
 * and `suite` cover every registered algorithm (the test enumerates the
 * registry, so a new algorithm is tested by being registered); `run
 * --json` is well-formed JSON with bench/CLI.md's fields and runtime/MODEL.md's times;
 * every algorithm verifies through `run`, non-commutative ops included;
 * `tree` draws collectives/REFERENCE.md's lambda-tree; `profiles` lists the built-ins;
 * `--topology`/`--mapping`/`--links` and profiles with a [topology] put
 * the run on links (the link table, JSON and trace tracks), and `topo`
 * draws collectives/REFERENCE.md's two-switch lecture example (ASCII and --dot).
 * Every command with its output on /dev/full exits 3 (so does a --trace
 * file there); an option with a value given twice is exit 2; messages show
 * control bytes as \xNN; JSON integers look like integers; a profile's
 * mapping (behind a UTF-8 BOM) reads like --mapping.
 * The JSON is read with json_reader.h; verify.c, the reference `run`
 * checks against, is tested directly in test_unit_verify.c.
 *
 * The binary is $TUTTI_BINARY_DIR/tutti (set by ctest), else the tutti
 * beside this test's directory (BUILD/tests/test_e2e_cli -> BUILD/tutti); it
 * runs under posix_spawn with stdout and stderr in temporary files.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "json_reader.h"

#include "cli_helpers.h"

/* the fields of `tutti run --json` (bench/CLI.md) */
static const char *run_keys[] = {"collective",   "algorithm",     "params",   "ranks",
                                 "bytes",        "root",          "iters",    "model",
                                 "modeled_time", "modeled_times", "per_rank", "messages",
                                 "bytes_moved",  "wall_time",     "verified"};

/* ------------------------------------------------------------ the registry's names */

static const char *bcast_default(void) {
  const tutti_algo_desc_t *d = tutti_algo_desc_default(TUTTI_COLL_BCAST);
  cr_assert(ne(ptr, (void *)d, NULL), "bcast has no default algorithm");
  return d->name;
}

static int reduces(int coll) {
  return (tutti_coll_traits(coll) & TUTTI_COLL_REDUCES) != 0;
}

/* An algorithm with a parameter named `param`, NULL if none. */
static const tutti_algo_desc_t *with_param(const char *param) {
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
    for (int k = 0; k < d->nparams; k++)
      if (!strcmp(d->params[k].name, param)) return d;
  return NULL;
}

/* ------------------------------------------------------------ help */

Test(help, every_command_and_flag_documented, .timeout = 30) {
  struct cli c = CLI("--help");
  cr_assert(eq(int, c.status, 0));
  const char *cmds[] = {"list", "run", "suite", "tree", "topo", "profiles", "bench"};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) HAS(c.out, cmds[i]);
  cli_free(&c);
  c = CLI("run", "--help");
  cr_assert(eq(int, c.status, 0));
  const char *flags[] = {"-n, --ranks", "-m, --bytes", "--root",     "--model",
                         "--profile",   "--topology",  "--mapping",  "--param",
                         "--op",        "--dtype",     "--iters",    "--rotate-root",
                         "--json",      "--trace",     "--timeline", "--links"};
  for (size_t i = 0; i < sizeof flags / sizeof *flags; i++) HAS(c.out, flags[i]);
  cli_free(&c);
  const char *sub[][2] = {{"list", "COLL"},        {"tree", "--dot"},     {"profiles", "profiles"},
                          {"suite", "--topology"}, {"topo", "--mapping"}, {"topo", "--dot"}};
  for (size_t i = 0; i < sizeof sub / sizeof *sub; i++) {
    c = CLI(sub[i][0], "--help");
    cr_assert(eq(int, c.status, 0), "%s --help: %d", sub[i][0], c.status);
    HAS(c.out, sub[i][1]);
    cli_free(&c);
  }
  c = CLI("--version");
  cr_assert(eq(int, c.status, 0));
  HAS(c.out, TUTTI_VERSION_STRING);
  cli_free(&c);
}

/* ------------------------------------------------------------ write errors: exit 3 */

/* Output that cannot be written is a runtime failure, never a silent
 * exit 0: every command with stdout on /dev/full (which refuses every
 * write) exits 3 with one line naming the standard output; so do --trace
 * files. */
Test(output, write_errors_are_exit_3, .timeout = 120) {
  if (access("/dev/full", W_OK)) cr_skip_test("no writable /dev/full here");
  const char *a = bcast_default();
  const char *const cmds[][12] = {
      {"--help"},
      {"--version"},
      {"list"},
      {"list", "bcast", "--markdown"},
      {"run", "bcast", a},
      {"run", "bcast", a, "--json"},
      {"run", "bcast", a, "--timeline"},
      {"run", "bcast", a, "-n", "8", "--topology", "tree:2x4"},
      {"run", "--help"},
      {"suite", "-n", "4", "-m", "8"},
      {"suite", "-n", "4", "-m", "8", "--json"},
      {"tree", "binomial", "-n", "8"},
      {"tree", "binomial", "-n", "8", "--dot"},
      {"topo", "tree:2x4"},
      {"topo", "tree:2x4", "--dot"},
      {"profiles"},
      {"bench", "--help"},
      {"bench", "lambda", "--help"},
      {"bench", "replay", "-p", "ring", "-n", "4", "-k", "1", "-r", "1"},
  };
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    const char *const *v = cmds[i];
    struct cli c = run_io(NULL, "/dev/full", v);
    cr_expect(eq(int, c.status, 3), "tutti %s %s ... > /dev/full: exit %d, want 3; stderr: %s",
              v[0], v[1] ? v[1] : "", c.status, c.err);
    fails_with(c, 3, "standard output");
    cli_free(&c);
  }
  fails_with(CLI("run", "bcast", a, "--trace", "/dev/full"), 3, "--trace");
  fails_with(
      CLI("bench", "replay", "-p", "ring", "-n", "4", "-k", "1", "-r", "1", "--trace", "/dev/full"),
      3, "--trace");
}

/* ------------------------------------------------------------ bad input: exit 2 */

Test(usage, unknown_collective_algorithm_parameter, .timeout = 30) {
  fails_with(CLI("run", "bcst", "binomial"), 2, "bcst");
  /* the registry's text lists the valid names */
  fails_with(CLI("run", "bcast", "no-such-algorithm"), 2, bcast_default());
  fails_with(CLI("run", "bcast", bcast_default(), "--param", "nosuchparam=1"), 2, "nosuchparam");
  fails_with(CLI("run", "bcast", bcast_default(), "--param", "novalue"), 2, "--param");
  fails_with(CLI("run"), 2, "bcast");
  fails_with(CLI("run", "bcast"), 2, bcast_default());
  fails_with(CLI("run", "bcast", bcast_default(), "stray"), 2, "stray");
  fails_with(CLI("frobnicate"), 2, "frobnicate");
  fails_with(CLI("list", "bcst"), 2, "bcst");
}

Test(usage, lambda_out_of_range, .timeout = 30) {
  const tutti_algo_desc_t *d = with_param("lambda");
  if (!d) cr_skip_test("no registered algorithm has a lambda parameter");
  fails_with(CLI("run", tutti_coll_name(d->coll), d->name, "--param", "lambda=1.5"), 2, "lambda");
  fails_with(CLI("run", tutti_coll_name(d->coll), d->name, "--param", "lambda=0.2"), 2, "lambda");
  fails_with(CLI("run", tutti_coll_name(d->coll), d->name, "--param", "lambda=abc"), 2, "lambda");
}

Test(usage, numbers_sizes_times, .timeout = 30) {
  const char *a = bcast_default();
  fails_with(CLI("run", "bcast", a, "-n", "0"), 2, "--ranks");
  fails_with(CLI("run", "bcast", a, "--ranks=-3"), 2, "--ranks");
  fails_with(CLI("run", "bcast", a, "-n", "many"), 2, "--ranks");
  fails_with(CLI("run", "bcast", a, "-n", "4", "--root", "4"), 2, "--root");
  fails_with(CLI("run", "bcast", a, "--root", "-1"), 2, "--root");
  fails_with(CLI("run", "bcast", a, "-m", "12XB"), 2, "--bytes");
  fails_with(CLI("run", "bcast", a, "-m", "-5"), 2, "--bytes");
  fails_with(CLI("run", "bcast", a, "--model", "hockney:alpha=1xs,beta=1ns"), 2, "--model");
  fails_with(CLI("run", "bcast", a, "--model", "warp:speed=9"), 2, "--model");
  fails_with(CLI("run", "bcast", a, "--iters", "0"), 2, "--iters");
  fails_with(CLI("run", "reduce", tutti_algo_desc_default(TUTTI_COLL_REDUCE)->name, "-m", "7"), 2,
             "--bytes");
}

Test(usage, options, .timeout = 30) {
  const char *a = bcast_default(), *r = tutti_algo_desc_default(TUTTI_COLL_REDUCE)->name;
  fails_with(CLI("run", "bcast", a, "--bogus"), 2, "--bogus");
  fails_with(CLI("run", "bcast", a, "-x"), 2, "-x");
  fails_with(CLI("run", "bcast", a, "-n"), 2, "--ranks");
  fails_with(CLI("run", "bcast", a, "--model"), 2, "--model");
  fails_with(CLI("run", "bcast", a, "--json=yes"), 2, "--json");
  fails_with(CLI("run", "bcast", a, "--profile", "no-such-profile"), 2, "--profile");
  fails_with(CLI("run", "bcast", a, "--profile", "gige", "--model", "none"), 2, "--model");
  fails_with(CLI("run", "reduce", r, "--dtype", "quad"), 2, "--dtype");
  fails_with(CLI("run", "reduce", r, "--op", "avg"), 2, "--op");
  fails_with(CLI("run", "reduce", r, "--op", "matmul2", "--dtype", "double"), 2, "--op");
  fails_with(CLI("run", "bcast", a, "--op", "sum"), 2, "--op");
  fails_with(
      CLI("run", "allreduce", tutti_algo_desc_default(TUTTI_COLL_ALLREDUCE)->name, "--root", "1"),
      2, "--root");
  fails_with(CLI("run", "bcast", a, "--timeline", "--json"), 2, "--timeline");
  fails_with(CLI("run", "bcast", a, "--trace", "/nonexistent-dir/t.json"), 2, "--trace");
  fails_with(CLI("tree", "no-such-tree", "-n", "4"), 2, "no-such-tree");
  fails_with(CLI("tree", "lambda", "-n", "4", "--param", "lambda=1"), 2, "lambda");
  fails_with(CLI("tree", "lambda", "-n", "4", "--param", "k=3"), 2, "'k'");
  fails_with(CLI("tree", "binomial", "-n", "4", "--root", "4"), 2, "--root");
  fails_with(CLI("profiles", "extra"), 2, "extra");
  fails_with(CLI("suite", "--op", "sum"), 2, "--op");
}

/* allgather and reduce_scatter: unknown algorithms list the registered
 * ones, no root, no op for allgather, a power of two for recursive
 * doubling (naming the rank count), commutative ops for reduce_scatter. */
Test(usage, allgather_reduce_scatter_bad_input, .timeout = 60) {
  fails_with(CLI("run", "allgather", "nope", "-n", "4"), 2, "ring, recursive-doubling, bruck");
  fails_with(CLI("run", "reduce_scatter", "nope", "-n", "4"), 2, "ring, recursive-halving");
  fails_with(CLI("run", "allgather", "ring", "-n", "4", "--root", "1"), 2, "allgather has no root");
  fails_with(CLI("run", "reduce_scatter", "ring", "-n", "4", "--rotate-root"), 2,
             "reduce_scatter has no root");
  fails_with(CLI("run", "allgather", "bruck", "-n", "4", "--op", "sum"), 2,
             "allgather takes no op");
  fails_with(CLI("run", "allgather", "recursive-doubling", "-n", "12"), 2,
             "power-of-two number of ranks, not 12");
  fails_with(CLI("run", "reduce_scatter", "recursive-halving", "-n", "5", "--op", "matmul2"), 2,
             "needs a commutative op");
  fails_with(CLI("run", "reduce_scatter", "ring", "-n", "4", "--param", "k=2"), 2,
             "takes no parameters");
  fails_with(CLI("run", "reduce_scatter", "ring", "-n", "4", "-m", "6"), 2, "--bytes");
  fails_with(CLI("run", "allgather"), 2, "ring, recursive-doubling, bruck");
}

/* An option with a value given twice is refused (never the last one
 * silently); --param adds up, a flag without a value may repeat. */
Test(usage, option_given_twice, .timeout = 60) {
  const char *a = bcast_default();
  fails_with(CLI("run", "bcast", a, "-n", "4", "-n", "8"), 2,
             "--ranks: given twice ('4', then '8')");
  fails_with(CLI("run", "bcast", a, "--ranks=4", "-n8"), 2, "--ranks: given twice");
  fails_with(CLI("run", "bcast", a, "--model", "none", "--model", "postal:L=2"), 2,
             "--model: given twice");
  fails_with(CLI("run", "bcast", a, "-m", "8", "--bytes", "16"), 2, "--bytes: given twice");
  fails_with(CLI("suite", "-m", "8", "-m", "16"), 2, "--bytes: given twice");
  fails_with(CLI("topo", "tree:2x4", "--root", "1", "--root", "2"), 2, "--root: given twice");
  fails_with(CLI("tree", "binomial", "-n", "4", "-n", "5"), 2, "--ranks: given twice");
  fails_with(CLI("bench", "replay", "-n", "4", "--ranks", "8"), 2, "given twice");
  fails_with(CLI("bench", "lambda", "--calls", "1", "--calls", "2"), 2, "given twice");
  struct cli c = CLI("run", "bcast", a, "-n", "4", "--json", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cli_free(&c);
  const tutti_algo_desc_t *d = NULL, *x;
  for (int i = 0; (x = tutti_algo_desc_at(i)) != NULL && !d; i++)
    if (x->nparams >= 2 && x->coll == TUTTI_COLL_BCAST) d = x;
  if (d) { /* two different parameters, each once */
    char p0[96], p1[96], v[32];
    snprintf(p0, sizeof p0, "%s=%s", d->params[0].name,
             tutti_format_shortest(d->params[0].min, v, sizeof v));
    snprintf(p1, sizeof p1, "%s=%s", d->params[1].name,
             tutti_format_shortest(d->params[1].min, v, sizeof v));
    c = CLI("tree", d->name, "-n", "4", "--param", p0, "--param", p1);
    cr_assert(ne(int, c.status, 2), "--param twice refused: %s", c.err);
    cli_free(&c);
  }
}

/* Messages quote what they were given, but a control byte never reaches
 * the terminal raw: it is shown as \xNN. */
Test(usage, control_bytes_are_escaped, .timeout = 30) {
  const char *a = bcast_default();
  struct cli c = CLI("run", "bcast", a, "--model", "hock\x01ney\x1b[31m");
  fails_with(c, 2, "hock\\x01ney\\x1b[31m");
  cli_free(&c);
  c = CLI("run", "bcast", "bi\x07nomial");
  fails_with(c, 2, "bi\\x07nomial");
  cli_free(&c);
  char prof[] = "/tmp/tutti_test_ctl_XXXXXX";
  int fd = mkstemp(prof);
  cr_assert(ge(int, fd, 0));
  const char *ini = "[model]\npreset = hockney\nalpha = 1\x02us\nbeta = 1ns\n";
  cr_assert(eq(long, (long)write(fd, ini, strlen(ini)), (long)strlen(ini)));
  close(fd);
  c = CLI("run", "bcast", a, "--profile", prof);
  unlink(prof);
  fails_with(c, 2, ":3: key 'alpha'");
  HAS(c.err, "\\x02");
  int raw = 0;
  for (const unsigned char *q = (const unsigned char *)c.err; *q; q++)
    raw |= (*q < 0x20 && *q != '\n') || *q == 0x7f;
  cr_assert(eq(int, raw, 0), "a raw control byte in: %s", c.err);
  cli_free(&c);
}

/* Topologies: a bad spec, file, mapping, link list or rank count is bad
 * input naming its flag. */
Test(usage, topology, .timeout = 30) {
  const char *a = bcast_default();
  fails_with(CLI("run", "bcast", a, "--topology", "tree:0x3"), 2, "--topology");
  fails_with(CLI("run", "bcast", a, "--topology", "mesh:4"), 2, "--topology");
  fails_with(CLI("run", "bcast", a, "--topology", "/nonexistent/cluster.ini"), 2, "--topology");
  fails_with(CLI("run", "bcast", a, "-n", "8", "--topology", "tree:2x4", "--mapping", "bogus"), 2,
             "--mapping");
  fails_with(CLI("run", "bcast", a, "-n", "4", "--topology", "tree:2x4", "--mapping", "list:0,1"),
             2, "--mapping");
  fails_with(CLI("run", "bcast", a, "-n", "16", "--topology", "tree:2x4"), 2, "--ranks");
  fails_with(CLI("run", "bcast", a, "-n", "8", "--topology", "tree:2x4", "--links", "fast"), 2,
             "--links");
  fails_with(CLI("run", "bcast", a, "-n", "8", "--topology", "tree:2x4", "--links",
                 "1us/1GB/s, 1us/1GB/s, 1us/1GB/s"),
             2, "--links");
  fails_with(CLI("run", "bcast", a, "--mapping", "dfs"), 2, "--mapping");
  fails_with(CLI("run", "bcast", a, "--links", "1us/10Gbps"), 2, "--links");
  fails_with(CLI("run", "bcast", a, "-n", "8", "--topology", "tree:2x4", "--model", "none"), 2,
             "--topology");
  fails_with(CLI("suite", "-n", "4", "--mapping", "dfs"), 2, "--mapping");
  fails_with(CLI("topo"), 2, "SPEC");
  fails_with(CLI("topo", "tree:2x"), 2, "--topology");
  fails_with(CLI("topo", "tree:2x4", "-n", "9"), 2, "--ranks");
  fails_with(CLI("topo", "tree:2x4", "--root", "8"), 2, "--root");
  fails_with(CLI("topo", "tree:2x4", "--mapping", "random:"), 2, "--mapping");
  fails_with(CLI("topo", "tree:2x4", "extra"), 2, "extra");
  fails_with(CLI("topo", "--profile", "teaching-hockney"), 2, "[topology]");
}

/* A restriction the run breaks is bad input, with the registry's sentence. */
Test(usage, restrictions, .timeout = 30) {
  const tutti_algo_desc_t *d;
  int tested = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
    if (d->restrictions & TUTTI_ALGO_POW2) {
      fails_with(CLI("run", tutti_coll_name(d->coll), d->name, "-n", "6"), 2, NULL);
      tested++;
    }
    if ((d->restrictions & TUTTI_ALGO_COMMUTATIVE) && reduces(d->coll)) {
      fails_with(CLI("run", tutti_coll_name(d->coll), d->name, "-n", "8", "--op", "matmul2"), 2,
                 NULL);
      tested++;
    }
  }
  if (!tested) cr_skip_test("no registered algorithm has a restriction");
}

/* A barrier's bad input: an unknown name (the message lists the barriers),
 * k and L out of range or not numbers, and data or root options. */
Test(usage, barrier_bad_input, .timeout = 30) {
  fails_with(CLI("run", "barrier", "nope", "-n", "4"), 2, "fibonacci");
  fails_with(CLI("run", "barrier", "dissemination", "-n", "4", "--param", "k=1"), 2, "'k'");
  fails_with(CLI("run", "barrier", "dissemination:k=0", "-n", "4"), 2, "[2, 1024]");
  fails_with(CLI("run", "barrier", "dissemination", "-n", "4", "--param", "k=two"), 2, "'k'");
  fails_with(CLI("run", "barrier", "fibonacci", "-n", "4", "--param", "L=0"), 2, "or auto");
  fails_with(CLI("run", "barrier", "fibonacci", "-n", "4", "--param", "L=x"), 2, "'L'");
  fails_with(CLI("run", "barrier", "tournament", "-n", "4", "--param", "k=2"), 2, "no parameters");
  fails_with(CLI("run", "barrier", "flat", "-n", "4", "--root", "1"), 2, "--root");
  fails_with(CLI("run", "barrier", "auto", "-n", "4", "--bytes", "8"), 2, "--bytes");
  fails_with(CLI("run", "barrier", "dissemination", "-n", "4", "-m", "8"), 2, "--bytes");
}

/* `tutti run barrier auto` says what it chose and the estimates it chose
 * by: under postal L = 2, fibonacci, whose f_2(8) = 5 steps no barrier
 * beats. */
Test(run, barrier_auto_explains, .timeout = 30) {
  struct cli c = CLI("run", "barrier", "auto", "-n", "8", "--model", "postal:L=2");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "chose         fibonacci");
  HAS(c.out, "dissemination 6");
  HAS(c.out, "fibonacci 5");
  HAS(c.out, "modeled time  5\n");
  cli_free(&c);
}

/* ------------------------------------------------------------ runtime failure: exit 3 */

Test(runtime, thread_creation_failure_is_3, .timeout = 30) {
  /* a stack no machine can give: the world cannot start its threads */
  fails_with(CLI_ENV("TUTTI_STACK=100000000M", "run", "bcast", bcast_default(), "-n", "4"), 3,
             "rank thread");
}

/* bench spawn (bench/CLI.md): a small run prints a row per P and case,
 * each case's median figures, and the scaling from the first P; a bad
 * rank count or round count, or an option twice, is exit 2. */
Test(bench, spawn_rows_and_bad_input, .timeout = 60) {
  struct cli c = CLI("bench", "spawn", "-n", "16,32", "--rounds", "1");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  const char *rows[] = {"     16  floor", "     16  gated", "     16  tutti",
                        "     32  floor", "     32  gated", "     32  tutti"};
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
    cr_expect(strstr(c.out, rows[i]) != NULL, "no row '%s' in:\n%s", rows[i], c.out);
  cr_expect(strstr(c.out, "scaling 32/16 (wall, 2x the ranks): floor ") != NULL, "%s", c.out);
  cli_free(&c);
  fails_with(CLI("bench", "spawn", "-n", "1"), 2, "-n");
  fails_with(CLI("bench", "spawn", "-n", "16,40000"), 2, "-n");
  fails_with(CLI("bench", "spawn", "--rounds", "0"), 2, "--rounds");
  fails_with(CLI("bench", "spawn", "--rounds", "1", "--rounds", "2"), 2, "given twice");
  fails_with(CLI("bench", "spawn", "--frob"), 2, "--frob");
}

/* --max-events: a logged run that needs more is exit 3 naming the rank;
 * a bad count is exit 2. A malformed TUTTI_PERTURB stops the world. */
Test(runtime, max_events_is_3, .timeout = 60) {
  fails_with(
      CLI("run", "bcast", bcast_default(), "-n", "4", "--iters", "1000", "--max-events", "100"), 3,
      "event log full at 100 events");
  fails_with(CLI("run", "bcast", bcast_default(), "-n", "4", "--max-events", "0"), 2,
             "--max-events");
  fails_with(CLI("run", "bcast", bcast_default(), "-n", "4", "--max-events", "4294967295"), 2,
             "--max-events");
  struct cli c =
      CLI("run", "bcast", bcast_default(), "-n", "4", "--iters", "10", "--max-events", "1000");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cli_free(&c);
  fails_with(CLI_ENV("TUTTI_PERTURB=often", "run", "bcast", bcast_default(), "-n", "4"), 3,
             "cannot create a world");
}

/* ------------------------------------------------------------ list, profiles */

Test(list, every_registered_algorithm, .timeout = 30) {
  struct cli c = CLI("list");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  const tutti_algo_desc_t *d;
  int n = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++, n++) {
    HAS(c.out, d->name);
    for (int k = 0; k < d->nparams; k++) HAS(c.out, d->params[k].name);
  }
  cr_assert(gt(int, n, 0), "the registry is empty");
  for (int k = 0; k < TUTTI_COLL_N; k++) HAS(c.out, tutti_coll_name(k));
  cli_free(&c);
  /* one collective: its algorithms, and no other collective's heading */
  c = CLI("list", "reduce");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
    if (d->coll == TUTTI_COLL_REDUCE) HAS(c.out, d->name);
  cr_assert(eq(ptr, strstr(c.out, "\nbcast"), NULL));
  cr_assert(eq(int, strncmp(c.out, "reduce", 6), 0));
  cli_free(&c);
}

Test(profiles, lists_the_builtins, .timeout = 30) {
  struct cli c = CLI("profiles");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "teaching-hockney");
  HAS(c.out, "sp2-hps");
  const tutti_profile_info_t *b;
  for (int i = 0; (b = tutti_profile_builtin(i)) != NULL; i++) {
    HAS(c.out, b->name);
    HAS(c.out, b->source);
  }
  cli_free(&c);
}

/* ------------------------------------------------------------ run */

Test(run, binomial_bcast_json_is_model_md, .timeout = 30) {
  if (!tutti_algo_desc_find(TUTTI_COLL_BCAST, "binomial")) cr_skip_test("no bcast binomial");
  struct cli c = CLI("run", "bcast", "binomial", "-n", "8", "-m", "1000B", "--model",
                     "hockney:alpha=1us,beta=1ns", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cr_assert(eq(str, c.err, ""));
  struct jp p = json_ok(c.out);
  for (size_t i = 0; i < sizeof run_keys / sizeof *run_keys; i++) json_get(&p, run_keys[i]);
  double t = json_num(&p, "modeled_time");
  cr_assert(epsilon_eq(dbl, t, 6e-6, 1e-15), "modeled_time %g, want 6e-06", t);
  cr_assert(eq(int, strncmp(json_get(&p, "verified"), "true", 4), 0));
  cr_assert(eq(int, strncmp(json_get(&p, "collective"), "\"bcast\"", 7), 0));
  cr_assert(eq(int, strncmp(json_get(&p, "algorithm"), "\"binomial\"", 10), 0));
  cr_assert(eq(dbl, json_num(&p, "ranks"), 8));
  cr_assert(eq(dbl, json_num(&p, "bytes"), 1000));
  cr_assert(eq(dbl, json_num(&p, "root"), 0));
  cr_assert(eq(dbl, json_num(&p, "iters"), 1));
  cr_assert(eq(dbl, json_num(&p, "messages"), 7));
  cr_assert(eq(dbl, json_num(&p, "bytes_moved"), 7000));
  cr_assert(eq(int, json_array_len(json_get(&p, "per_rank")), 8));
  cr_assert(eq(int, json_array_len(json_get(&p, "modeled_times")), 1));
  cr_assert(eq(int, strncmp(json_get(&p, "model"), "{\"preset\":\"hockney\"", 19), 0));
  cli_free(&c);
}

/* JSON integers look like integers (10, not 1e+01): postal times are steps. */
Test(run, json_integers_look_like_integers, .timeout = 30) {
  struct cli c =
      CLI("run", "bcast", bcast_default(), "-n", "8", "--model", "postal:L=10", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_ok(c.out);
  HAS(json_get(&p, "model"), "\"L\":10,");
  double t = json_num(&p, "modeled_time");
  cr_assert(eq(dbl, t, floor(t)), "postal time %g is not whole", t);
  cr_assert(eq(ptr, strstr(c.out, "e+"), NULL), "an exponent in: %s", c.out);
  cli_free(&c);
}

/* A profile and the command line read a mapping with one parser: what
 * --mapping takes, `mapping =` takes, with the same result; a UTF-8 BOM at
 * the start of a profile is skipped. */
Test(run, profile_mapping_is_the_command_lines, .timeout = 60) {
  const char *a = bcast_default();
  char prof[] = "/tmp/tutti_test_map_XXXXXX";
  int fd = mkstemp(prof);
  cr_assert(ge(int, fd, 0));
  const char *ini = "\xEF\xBB\xBF[model]\npreset = hockney\nalpha = 1us\nbeta = 1ns\n"
                    "[topology]\nspec = tree:4x4\nmapping = list:15,14,13,12\n";
  cr_assert(eq(long, (long)write(fd, ini, strlen(ini)), (long)strlen(ini)));
  close(fd);
  struct cli c = CLI("run", "bcast", a, "-n", "4", "-m", "1000B", "--profile", prof, "--json");
  struct cli d =
      CLI("run", "bcast", a, "-n", "4", "-m", "1000B", "--model", "hockney:alpha=1us,beta=1ns",
          "--topology", "tree:4x4", "--mapping", "list:15,14,13,12", "--json");
  unlink(prof);
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cr_assert(eq(int, d.status, 0), "exit %d: %s", d.status, d.err);
  struct jp p = json_ok(c.out), q = json_ok(d.out);
  cr_assert(eq(dbl, json_num(&p, "modeled_time"), json_num(&q, "modeled_time")));
  HAS(json_get(&p, "topology"), "\"mapping\":\"list:15,14,13,12\"");
  cli_free(&c);
  cli_free(&d);
}

Test(run, iters_rotate_root, .timeout = 30) {
  struct cli c = CLI("run", "bcast", bcast_default(), "-n", "8", "-m", "1000B", "--iters", "3",
                     "--rotate-root", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_ok(c.out);
  cr_assert(eq(int, json_array_len(json_get(&p, "modeled_times")), 3));
  cr_assert(eq(dbl, json_num(&p, "iters"), 3));
  cr_assert(eq(int, strncmp(json_get(&p, "verified"), "true", 4), 0));
  cli_free(&c);
  /* the table shows the three per-call times */
  c = CLI("run", "bcast", bcast_default(), "-n", "8", "--iters", "3", "--rotate-root");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "per call");
  HAS(c.out, "verified      yes");
  cli_free(&c);
}

Test(run, table_and_none_model, .timeout = 30) {
  struct cli c = CLI("run", "bcast", bcast_default(), "-n", "8", "-m", "1000B");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "modeled time");
  HAS(c.out, "teaching-hockney");
  HAS(c.out, "verified      yes");
  cli_free(&c);
  c = CLI("run", "bcast", bcast_default(), "-n", "5", "--model", "none", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_ok(c.out);
  cr_assert(eq(int, strncmp(json_get(&p, "modeled_time"), "null", 4), 0));
  cr_assert(eq(int, strncmp(json_get(&p, "verified"), "true", 4), 0));
  cli_free(&c);
  /* postal: steps */
  c = CLI("run", "bcast", bcast_default(), "-n", "8", "--profile", "postal-2", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  p = json_ok(c.out);
  double t = json_num(&p, "modeled_time");
  cr_assert(eq(dbl, t, floor(t)), "postal time %g is not whole steps", t);
  cli_free(&c);
}

Test(run, trace_and_timeline, .timeout = 30) {
  char path[] = "/tmp/tutti_test_trace_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(ge(int, fd, 0));
  close(fd);
  struct cli c =
      CLI("run", "bcast", bcast_default(), "-n", "6", "-m", "64", "--trace", path, "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  json_ok(c.out);
  cli_free(&c);
  fd = open(path, O_RDONLY);
  cr_assert(ge(int, fd, 0));
  char *trace = slurp(fd);
  unlink(path);
  struct jp p = json_ok(trace);
  json_get(&p, "traceEvents");
  HAS(trace, "rank 5");
  free(trace);
  c = CLI("run", "bcast", bcast_default(), "-n", "6", "--timeline", "--model", "none");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "r5");
  cli_free(&c);
}

/* Every registered algorithm, through `run`, verifies: a non-zero root,
 * an odd rank count (a power of two where required), rotating roots, and
 * the non-commutative matmul2 for reductions that accept it. */
Test(run, every_algorithm_verifies, .timeout = 240) {
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
    const char *coll = tutti_coll_name(d->coll), *n = d->restrictions & TUTTI_ALGO_POW2 ? "8" : "7";
    struct cli c;
    switch (d->coll) {
    case TUTTI_COLL_BARRIER:
      c = CLI("run", coll, d->name, "-n", n, "--iters", "2", "--json");
      break;
    case TUTTI_COLL_ALLGATHER:
      c = CLI("run", coll, d->name, "-n", n, "-m", "120", "--iters", "2", "--json");
      break;
    case TUTTI_COLL_ALLREDUCE:
    case TUTTI_COLL_REDUCE_SCATTER:
    case TUTTI_COLL_REDUCE: {
      const char *op = d->restrictions & TUTTI_ALGO_COMMUTATIVE ? "sum" : "matmul2";
      if (d->coll == TUTTI_COLL_REDUCE)
        c = CLI("run", coll, d->name, "-n", n, "-m", "120", "--op", op, "--root", "3", "--iters",
                "2", "--rotate-root", "--json");
      else
        c = CLI("run", coll, d->name, "-n", n, "-m", "120", "--op", op, "--iters", "2", "--json");
      break;
    }
    default:
      c = CLI("run", coll, d->name, "-n", n, "-m", "120", "--root", "3", "--iters", "2",
              "--rotate-root", "--json");
    }
    cr_assert(eq(int, c.status, 0), "%s %s: exit %d: %s", coll, d->name, c.status, c.err);
    struct jp p = json_ok(c.out);
    cr_assert(eq(int, strncmp(json_get(&p, "verified"), "true", 4), 0), "%s %s", coll, d->name);
    cli_free(&c);
  }
}

/* ------------------------------------------------------------ topology */

static const char *has_binomial(void) {
  return tutti_algo_desc_find(TUTTI_COLL_BCAST, "binomial") ? "binomial" : NULL;
}

/* Binomial broadcast, 8 ranks, 1000 B, teaching Hockney: on one switch
 * every message has its own links (runtime/MODEL.md's 6 us); on tree:2x4 with
 * roundrobin the last round's four messages all cross s0 -> root. */
Test(run, topology_json_and_links, .timeout = 60) {
  const char *b = has_binomial();
  if (!b) cr_skip_test("no bcast binomial");
  struct cli c = CLI("run", "bcast", b, "-n", "8", "-m", "1000B", "--topology", "tree:8", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_ok(c.out);
  for (size_t i = 0; i < sizeof run_keys / sizeof *run_keys; i++) json_get(&p, run_keys[i]);
  double t = json_num(&p, "modeled_time");
  cr_assert(epsilon_eq(dbl, t, 6e-6, 1e-15), "modeled_time %g, want 6e-06", t);
  cr_assert(eq(int, strncmp(json_get(&p, "topology"), "{\"spec\":\"tree:8\",", 17), 0));
  cr_assert(eq(int, json_array_len(json_get(&p, "links")), 11)); /* 4 senders, 7 receivers */
  cli_free(&c);

  c = CLI("run", "bcast", b, "-n", "8", "-m", "1000B", "--topology", "tree:2x4", "--mapping",
          "roundrobin", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  p = json_ok(c.out);
  cr_assert(gt(dbl, json_num(&p, "modeled_time"), 6e-6 + 1e-12));
  const char *links = json_get(&p, "links");
  HAS(links, "{\"link\":0,\"name\":\"s0 -> root\",\"messages\":4,\"bytes\":4000,");
  HAS(links, "\"max_queue\":4}");
  HAS(json_get(&p, "topology"), "\"mapping\":\"roundrobin\"");
  cli_free(&c);

  /* without a topology: "topology" and "links" are null */
  c = CLI("run", "bcast", b, "-n", "8", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  p = json_ok(c.out);
  cr_assert(eq(int, strncmp(json_get(&p, "topology"), "null", 4), 0));
  cr_assert(eq(int, strncmp(json_get(&p, "links"), "null", 4), 0));
  cli_free(&c);
}

Test(run, topology_table_trace_and_profile, .timeout = 60) {
  const char *b = has_binomial();
  if (!b) cr_skip_test("no bcast binomial");
  char path[] = "/tmp/tutti_test_trace_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(ge(int, fd, 0));
  close(fd);
  struct cli c =
      CLI("run", "bcast", b, "-n", "8", "-m", "64KiB", "--topology", "tree:2x4", "--mapping",
          "roundrobin", "--links", "1us/10Gbps, 2us/40Gbps", "--trace", path);
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "topology      tree:2x4: 3 switches, 8 leaves, depth 2; 8 ranks, mapping roundrobin");
  HAS(c.out, "links         1us/10Gbps, 2us/40Gbps");
  HAS(c.out, "busiest links");
  HAS(c.out, "s0 -> root");
  HAS(c.out, "verified      yes");
  cli_free(&c);
  fd = open(path, O_RDONLY);
  cr_assert(ge(int, fd, 0));
  char *trace = slurp(fd);
  unlink(path);
  json_ok(trace);
  HAS(trace, "\"name\":\"links\"");
  HAS(trace, "\"name\":\"s0 -> root\"");
  HAS(trace, "\"name\":\"msg 0->1 64 KiB\"");
  free(trace);

  /* a profile's [topology]; --topology replaces it */
  char prof[] = "/tmp/tutti_test_prof_XXXXXX";
  fd = mkstemp(prof);
  cr_assert(ge(int, fd, 0));
  const char *ini = "[model]\npreset = hockney\nalpha = 1us\nbeta = 1ns\n"
                    "[topology]\nspec = tree:2x4\nmapping = roundrobin\n";
  cr_assert(eq(long, (long)write(fd, ini, strlen(ini)), (long)strlen(ini)));
  close(fd);
  c = CLI("run", "bcast", b, "-n", "8", "-m", "1000B", "--profile", prof, "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_ok(c.out);
  HAS(json_get(&p, "topology"), "\"source\":\"profile\"");
  HAS(json_get(&p, "links"), "\"max_queue\":4}");
  cli_free(&c);
  c = CLI("run", "bcast", b, "-n", "8", "-m", "1000B", "--profile", prof, "--topology", "tree:8",
          "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  p = json_ok(c.out);
  cr_assert(epsilon_eq(dbl, json_num(&p, "modeled_time"), 6e-6, 1e-15));
  HAS(json_get(&p, "topology"), "\"mapping\":\"identity\"");
  cli_free(&c);
  c = CLI("topo", "--profile", prof); /* the profile's tree, fewer ranks than leaves */
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "ranks 0 2 4 6");
  cli_free(&c);
  c = CLI("suite", "-n", "4", "-m", "64", "--profile", prof, "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  p = json_ok(c.out);
  HAS(json_get(&p, "topology"), "\"spec\":\"tree:2x4\"");
  cr_assert(eq(int, strncmp(json_get(&p, "all_verified"), "true", 4), 0));
  cli_free(&c);
  unlink(prof);
}

/* collectives/REFERENCE.md's lecture example: two switches, roundrobin. */
Test(topo, lecture_example_ascii_and_dot, .timeout = 30) {
  struct cli c = CLI("topo", "tree:2x4", "--mapping", "roundrobin");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cr_assert(eq(str, c.err, ""));
  HAS(c.out, "tree:2x4: 3 switches, 8 leaves, depth 2; 8 ranks, mapping roundrobin");
  HAS(c.out, "|-- s0");
  HAS(c.out, "leaves 0-3: ranks 0 2 4 6");
  HAS(c.out, "leaves 4-7: ranks 1 3 5 7");
  HAS(c.out, "contention-free chain from rank 0: 0 2 4 6 1 3 5 7\n");
  cli_free(&c);
  c = CLI("topo", "tree:2x4", "--mapping", "roundrobin", "--dot");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cr_assert(eq(int, strncmp(c.out, "graph topology {", 16), 0), "%s", c.out);
  HAS(c.out, "leaf 3\\nrank 6");
  cli_free(&c);
  /* fewer ranks than leaves; explicit links; another root */
  c = CLI("topo", "tree:2x4", "-n", "5", "--links", "1us/10Gbps, 2us/40Gbps", "--root", "4");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "5 ranks");
  HAS(c.out, "ranks 4 - - -");
  HAS(c.out, "chain from rank 4: 4 0 1 2 3");
  cli_free(&c);
}

/* ------------------------------------------------------------ tree */

Test(tree, lambda_is_reference_md, .timeout = 30) {
  struct cli c = CLI("tree", "lambda", "-n", "10", "--param", "lambda=0.6");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  /* the root's children are the lines at depth 1: "├── 6" ... "└── 1" */
  int kids[16], n = 0;
  for (char *line = c.out; line && *line;
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (!strncmp(line, "├── ", strlen("├── ")) || !strncmp(line, "└── ", strlen("└── ")))
      kids[n++] = atoi(line + strlen("├── "));
    cr_assert(lt(int, n, 16));
  }
  cr_assert(eq(int, n, 4), "root has %d children:\n%s", n, c.out);
  int want[] = {6, 4, 2, 1};
  for (int i = 0; i < 4; i++)
    cr_assert(eq(int, kids[i], want[i]), "child %d is %d:\n%s", i, kids[i], c.out);
  cli_free(&c);
}

Test(tree, dot_and_registry_names, .timeout = 30) {
  struct cli c = CLI("tree", "binomial", "-n", "8", "--dot");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(int, strncmp(c.out, "digraph", 7), 0), "%s", c.out);
  cli_free(&c);
  /* each kind draws */
  for (int k = 0; k < TUTTI_TREE_NKINDS; k++) {
    c = CLI("tree", tutti_tree_kind_name(k), "-n", "9", "--root", "2");
    cr_assert(eq(int, c.status, 0), "%s: %s", tutti_tree_kind_name(k), c.err);
    cli_free(&c);
  }
  /* a registry algorithm with a lambda parameter draws its tree */
  const tutti_algo_desc_t *d = with_param("lambda");
  if (d) {
    c = CLI("tree", d->name, "-n", "10", "--param", "lambda=0.6");
    if (c.status == 0) HAS(c.out, "├── 6");
    cli_free(&c);
  }
}

/* ------------------------------------------------------------ suite */

Test(suite, every_algorithm_verified, .timeout = 120) {
  struct cli c = CLI("suite");
  cr_assert(eq(int, c.status, 0), "exit %d: %s\n%s", c.status, c.err, c.out);
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) HAS(c.out, d->name);
  HAS(c.out, "teaching-hockney");
  HAS(c.out, "*");
  cli_free(&c);
  c = CLI("suite", "-n", "5", "-m", "100", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_ok(c.out);
  int n = 0;
  for (int i = 0; tutti_algo_desc_at(i); i++) n++;
  cr_assert(eq(int, json_array_len(json_get(&p, "results")), n)); /* one size: one row each */
  cr_assert(eq(int, strncmp(json_get(&p, "all_verified"), "true", 4), 0));
  cli_free(&c);
}

/* `profiles --json`: every built-in, in order, with its source and the
 * model the library loads for it. */
Test(profiles, json_lists_every_builtin, .timeout = 30) {
  struct cli c = CLI("profiles", "--json");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(chr, c.out[0], '['));
  const tutti_profile_info_t *b;
  const char *at = c.out;
  for (int i = 0; (b = tutti_profile_builtin(i)) != NULL; i++) {
    char key[128];
    snprintf(key, sizeof key, "{\"name\":\"%s\",\"default\":%s", b->name, i ? "false" : "true");
    const char *hit = strstr(at, key);
    cr_assert(ne(ptr, (void *)hit, NULL), "%s missing or out of order", b->name);
    at = hit + 1;
    tutti_profile_t p;
    char err[512];
    cr_assert(eq(int, tutti_profile_load(b->name, &p, err, sizeof err), 0), "%s", err);
    char *obj = strndup(hit, (size_t)(strchr(hit, '\n') ? strchr(hit, '\n') - hit : 4096));
    char want[64];
    snprintf(want, sizeof want, "\"preset\":\"%s\"", tutti_model_preset_name(p.model.preset));
    HAS(obj, want);
    HAS(obj, "\"source\":\"");
    free(obj);
  }
  cli_free(&c);
}

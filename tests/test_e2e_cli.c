/*
 * test_e2e_cli.c -- the `tutti` command against bench/CLI.md: its help,
 * and its exit statuses (0, 1, 2, 3) with one line on stderr for each kind
 * of bad input. Every command with its output on /dev/full exits 3 (so
 * does a --trace file there); an option with a value given twice is exit
 * 2; messages show control bytes as \xNN. What the commands print when
 * they succeed: test_e2e_cli_run.c.
 *
 * The binary is $TUTTI_BINARY_DIR/tutti (set by ctest), else the tutti
 * beside this test's directory (BUILD/tests/test_e2e_cli -> BUILD/tutti); it
 * runs under posix_spawn with stdout and stderr in temporary files
 * (cli_helpers.h).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "json_reader.h"

#include "cli_helpers.h"
#include "cli_names.h"

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
  /* the protocol fields (runtime/MODEL.md): a unit, a known word, a
   * detached_limit some rendezvous message is under */
  fails_with(CLI("run", "bcast", a, "--model", "hockney:alpha=1us,beta=1ns,header=16"), 2,
             "key 'header': '16' has no unit");
  fails_with(CLI("run", "bcast", a, "--model", "hockney:alpha=1us,beta=1ns,header=-1B"), 2,
             "key 'header'");
  fails_with(CLI("run", "bcast", a, "--model", "hockney:alpha=1us,beta=1ns,rendezvous=rdma"), 2,
             "ready");
  fails_with(CLI("run", "bcast", a, "--model", "logp:L=1us,o=1us,g=1us,detached_limit=64KiB"), 2,
             "every send is eager already");
  fails_with(CLI("run", "bcast", a, "--model",
                 "hockney:alpha=1us,beta=1ns,eager_limit=64KiB,detached_limit=1KiB"),
             2, "not above eager_limit");
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

/* alltoall, scan and exscan: unknown algorithms list the registered
 * ones, no root, no op for alltoall, no parameters, sizes a multiple of
 * the element; scan's and exscan's rank-order algorithms take a
 * non-commutative op (matmul2 runs, verified). */
Test(usage, alltoall_scan_exscan_bad_input, .timeout = 60) {
  fails_with(CLI("run", "alltoall", "nope", "-n", "4"), 2, "pairwise, linear, bruck, ring");
  fails_with(CLI("run", "scan", "nope", "-n", "4"), 2, "linear, recursive-doubling, binomial");
  fails_with(CLI("run", "exscan", "nope", "-n", "4"), 2, "linear, recursive-doubling, binomial");
  fails_with(CLI("run", "alltoall", "pairwise", "-n", "4", "--root", "1"), 2,
             "alltoall has no root");
  fails_with(CLI("run", "scan", "linear", "-n", "4", "--rotate-root"), 2, "scan has no root");
  fails_with(CLI("run", "exscan", "binomial", "-n", "4", "--root", "2"), 2, "exscan has no root");
  fails_with(CLI("run", "alltoall", "bruck", "-n", "4", "--op", "sum"), 2, "alltoall takes no op");
  fails_with(CLI("run", "alltoall", "ring", "-n", "4", "--param", "k=2"), 2, "takes no parameters");
  fails_with(CLI("run", "scan", "binomial", "-n", "4", "-m", "6"), 2, "--bytes");
  fails_with(CLI("run", "exscan"), 2, "linear, recursive-doubling, binomial");
  const char *colls[] = {"scan", "exscan"};
  for (int i = 0; i < 2; i++) {
    struct cli c = CLI("run", colls[i], "recursive-doubling", "-n", "6", "-m", "64", "--op",
                       "matmul2", "--dtype", "int64", "--json");
    cr_assert(eq(int, c.status, 0), "%s matmul2: exit %d: %s", colls[i], c.status, c.err);
    HAS(c.out, "\"verified\":true");
    cli_free(&c);
  }
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
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  cr_skip_test("sanitizers reserve terabytes of address space up front");
#else
  /* the largest stack (--stack's limit) in an address space of 1 GiB,
   * which tutti inherits: its world cannot hold four of them */
  struct rlimit was, rl;
  getrlimit(RLIMIT_AS, &was);
  rl = was;
  rl.rlim_cur = (rlim_t)1 << 30;
  cr_assert(eq(int, setrlimit(RLIMIT_AS, &rl), 0));
  struct cli c = CLI("run", "bcast", bcast_default(), "-n", "4", "--stack", "1GiB");
  setrlimit(RLIMIT_AS, &was);
  fails_with(c, 3, "rank");
#endif
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
 * a bad count is exit 2, and so is a malformed TUTTI_PERTURB or
 * TUTTI_STACK, named (the library's check, tutti_config_check). */
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
  fails_with(CLI_ENV("TUTTI_PERTURB=often", "run", "bcast", bcast_default(), "-n", "4"), 2,
             "TUTTI_PERTURB='often' is not a seed; accepted: a decimal number from 0 (off) to "
             "4294967295");
  fails_with(CLI_ENV("TUTTI_STACK=12", "run", "bcast", bcast_default(), "-n", "4"), 2,
             "TUTTI_STACK='12' is not a stack size; accepted: bytes with an optional K or M "
             "suffix, from 16384 to 1073741824");
  /* --stack decides, so the variable is not read */
  c = CLI_ENV("TUTTI_STACK=12", "run", "bcast", bcast_default(), "-n", "4", "--stack", "64KiB");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cli_free(&c);
}

/* The commands that make worlds without options for them (compare,
 * explain, calibrate, every bench) name a bad variable those worlds read,
 * exit 2, before any world: not "cannot create a world: invalid argument"
 * later. --help still helps, and a command that makes no world (list)
 * does not read them. */
Test(runtime, world_variables_are_named_by_every_command, .timeout = 60) {
  const char *bind = "TUTTI_BIND='x' is not a placement; accepted: cores, none";
  fails_with(CLI_ENV("TUTTI_BIND=x", "explain", "bcast", bcast_default(), "-n", "4"), 2, bind);
  fails_with(CLI_ENV("TUTTI_BIND=x", "compare", "bcast", "binomial", "flat", "-n", "4"), 2, bind);
  fails_with(CLI_ENV("TUTTI_BIND=x", "calibrate"), 2, bind);
  fails_with(CLI_ENV("TUTTI_STACK=abc", "bench", "spawn", "-n", "16"), 2,
             "tutti bench spawn: TUTTI_STACK='abc' is not a stack size");
  fails_with(CLI_ENV("TUTTI_WORKERS=0", "bench", "fibers", "-n", "3"), 2,
             "TUTTI_WORKERS='0' is not a worker count");
  struct cli c = CLI_ENV("TUTTI_BIND=x", "explain", "--help");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cli_free(&c);
  c = CLI_ENV("TUTTI_BIND=x", "list");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cli_free(&c);
}

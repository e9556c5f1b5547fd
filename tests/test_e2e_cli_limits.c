/*
 * test_e2e_cli_limits.c -- the `tutti` command holds every count and size
 * to its stated limit at the edge (bench/CLI.md): --stack and TUTTI_STACK
 * within 16 KiB..1 GiB (the library's TUTTI_MAX_STACK), -n within 2^20,
 * exit 2 with one line naming the limit, never a crash or a world that
 * cannot be made (exit 3); what a rank would refuse at a rotating root is
 * refused before the run; compare names its limit of algorithms; a
 * --no-data run measures its ranks' CPU; a byte that is not printable
 * ASCII or valid UTF-8 is never echoed raw; --mapping list: reads ranges
 * as order=list: does. The binary as in test_e2e_cli.c (cli_helpers.h).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"

/* ------------------------------------------------------------ --stack */

Test(limits, stack_beyond_its_limits_is_2, .timeout = 60) {
  /* near 2^64 (within a page of it: a fiber world's slot arithmetic
   * wrapped there), past 1 GiB by a byte, below the minimum; fibers and
   * --no-data, where it crashed */
  const char *bad[] = {"18446744073709551615", "18446744073709547520", "1073741825", "1025MiB",
                       "1KiB"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char want[256];
    snprintf(want, sizeof want,
             "tutti run: --stack: '%s' is out of range; accepted: a size from 16 KiB to 1 GiB",
             bad[i]);
    fails_with(
        CLI("run", "bcast", "binomial", "-n", "4", "--ranks-as", "fibers", "--stack", bad[i]), 2,
        want);
    fails_with(CLI("run", "bcast", "binomial", "-n", "4", "--no-data", "--stack", bad[i]), 2, want);
  }
  fails_with(CLI("sweep", "bcast", "--stack", "18446744073709551615"), 2,
             "tutti sweep: --stack: '18446744073709551615' is out of range");
  fails_with(CLI("run", "bcast", "binomial", "--stack", "lots"), 2,
             "--stack: 'lots' is not a stack size; accepted: a size from 16 KiB to 1 GiB");
  /* the variable meets the same limit, by the library's check */
  fails_with(CLI_ENV("TUTTI_STACK=18446744073709551615", "run", "bcast", "binomial", "-n", "4",
                     "--ranks-as", "fibers"),
             2,
             "TUTTI_STACK='18446744073709551615' is not a stack size; accepted: bytes with an "
             "optional K or M suffix, from 16384 to 1073741824 (1024M)");
  fails_with(CLI_ENV("TUTTI_STACK=1025M", "run", "bcast", "binomial", "-n", "4"), 2,
             "TUTTI_STACK='1025M'");
  /* the limit itself runs */
  struct cli c = CLI("run", "bcast", "binomial", "-n", "2", "--no-data", "--stack", "1GiB");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cli_free(&c);
}

/* ------------------------------------------------------------ -n */

Test(limits, ranks_beyond_2_20_is_2, .timeout = 60) {
  const char *want = "--ranks: 1048577 is out of range; accepted: an integer from 1 to 1048576 "
                     "(2^20)";
  fails_with(CLI("run", "bcast", "binomial", "-n", "1048577", "--no-data"), 2, want);
  fails_with(CLI("run", "bcast", "binomial", "-n", "2147483647"), 2, "--ranks: 2147483647 is out");
  fails_with(CLI("compare", "bcast", "binomial", "flat", "-n", "1048577"), 2, want);
  fails_with(CLI("explain", "bcast", "binomial", "-n", "1048577"), 2, want);
  fails_with(CLI("tree", "binomial", "-n", "1048577"), 2, want);
}

/* ------------------------------------------------------------ rotating roots */

Test(limits, a_chain_at_a_rotating_root_is_2, .timeout = 60) {
  /* an explicit chain starts at one root: call 2 of --rotate-root is
   * rooted elsewhere; that is bad input, as for --root, not a rank's
   * TUTTI_EINVAL (exit 3) */
  fails_with(CLI("run", "bcast", "pipelined-chain:order=list:0,1,2,3", "-n", "4", "--rotate-root",
                 "--iters", "2"),
             2,
             "tutti run: --rotate-root: call 2 is rooted at rank 1: bcast 'pipelined-chain': "
             "order=list starts at rank 0, not at the root 1; accepted: a permutation of the ranks "
             "0..3 starting at the root");
  fails_with(CLI("run", "bcast", "pipelined-chain:order=list:0,1,2,3", "-n", "4", "--root", "2"), 2,
             "order=list starts at rank 0, not at the root 2");
  /* one call takes one root: it runs */
  struct cli c = CLI("run", "bcast", "pipelined-chain:order=list:2,3,0,1", "-n", "4", "--root", "2",
                     "--rotate-root");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "verified      yes");
  cli_free(&c);
  /* every other algorithm rotates as before */
  c = CLI("run", "bcast", "pipelined-chain", "-n", "4", "--rotate-root", "--iters", "6");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  cli_free(&c);
}

/* ------------------------------------------------------------ compare */

Test(limits, compare_names_its_limit_of_algorithms, .timeout = 60) {
  fails_with(CLI("compare", "bcast", "binomial", "flat", "binary", "binomial:", "lambda-tree",
                 "pipelined-chain", "scatter-allgather", "auto", "-n", "4"),
             2,
             "tutti compare: 8 algorithms; accepted: tutti compare COLL ALGO1 ALGO2 ..., 2 to 7 "
             "algorithms");
  /* options and their values between them are not counted */
  fails_with(CLI("compare", "-n", "4", "bcast", "binomial", "flat", "--model", "postal:L=2",
                 "binary", "binomial", "lambda-tree", "pipelined-chain", "scatter-allgather",
                 "auto", "flat"),
             2, "tutti compare: 9 algorithms");
  struct cli c =
      CLI("compare", "bcast", "binomial", "flat", "binary", "lambda-tree", "pipelined-chain",
          "scatter-allgather", "auto", "-n", "4", "--model", "postal:L=2");
  cr_assert(eq(int, c.status, 0), "7 algorithms: exit %d: %s", c.status, c.err);
  cli_free(&c);
  c = CLI("compare", "--help");
  cr_assert(eq(int, c.status, 0));
  cli_free(&c);
}

/* ------------------------------------------------------------ --no-data */

/* "ranks_cpu_time": its value in a run's JSON. */
static double ranks_cpu(const char *json) {
  const char *p = strstr(json, "\"ranks_cpu_time\":");
  cr_assert(ne(ptr, (void *)p, NULL), "no ranks_cpu_time in %s", json);
  return strtod(p + strlen("\"ranks_cpu_time\":"), NULL);
}

Test(limits, no_data_measures_rank_cpu, .timeout = 60) {
  const char *as[] = {"fibers", "threads"};
  for (int i = 0; i < 2; i++) {
    struct cli c =
        CLI("run", "reduce", "binomial", "-n", "8", "--no-data", "--ranks-as", as[i], "--json");
    cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
    cr_expect(gt(dbl, ranks_cpu(c.out), 0.0), "%s: %s", as[i], c.out);
    cli_free(&c);
  }
  struct cli c = CLI("run", "reduce", "binomial", "-n", "8", "--no-data");
  cr_assert(eq(int, c.status, 0));
  HAS(c.out, "over all ranks, nothing checked;");
  cr_expect(eq(ptr, strstr(c.out, "rank CPU      0 s"), NULL), "%s", c.out);
  cli_free(&c);
}

/* ------------------------------------------------------------ escaping */

Test(limits, bytes_not_utf8_are_escaped, .timeout = 30) {
  char prof[] = "/tmp/tutti_test_utf8_XXXXXX";
  int fd = mkstemp(prof);
  cr_assert(ge(int, fd, 0));
  const char *ini = "[model]\npreset = hockney\nalpha = 1\x85us\nbeta = 1ns\n";
  cr_assert(eq(long, (long)write(fd, ini, strlen(ini)), (long)strlen(ini)));
  close(fd);
  struct cli c = CLI("run", "bcast", "binomial", "--profile", prof);
  unlink(prof);
  fails_with(c, 2, "'1\\x85us' is not a time");
  cli_free(&c);
  /* valid UTF-8 stays as it is; a C1 control (U+0085 as UTF-8), a lone
   * lead byte, an overlong form and a surrogate are escaped */
  c = CLI("run", "bcast", "bin\xc3\xa9|\xc2\x85|\xc3|\xc0\xaf|\xed\xa0\x80");
  fails_with(c, 2, "'bin\xc3\xa9|\\xc2\\x85|\\xc3|\\xc0\\xaf|\\xed\\xa0\\x80'");
  cli_free(&c);
}

/* ------------------------------------------------------------ --mapping list: */

Test(limits, mapping_lists_take_ranges_as_orders_do, .timeout = 60) {
  struct cli c = CLI("run", "bcast", "binomial", "-n", "8", "--topology", "tree:2x4", "--mapping",
                     "list:7-4,0-3");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "mapping list:7,6,5,4,0,1,2,3");
  cli_free(&c);
  fails_with(CLI("run", "bcast", "binomial", "-n", "4", "--topology", "tree:2x2", "--mapping",
                 "list:0-2,2"),
             2, "--mapping: mapping 'list:...': leaf 2 given twice (for ranks 2 and 3)");
}

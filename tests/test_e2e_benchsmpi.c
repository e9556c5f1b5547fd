/*
 * test_e2e_benchsmpi.c -- `tutti bench smpi` against bench/CLI.md:
 * - bad input (an unknown collective or option, an option twice, a rank
 *   count outside 2..64, a size that is no whole int32) is exit 2 with one
 *   line on stderr, before anything runs;
 * - without SimGrid (an empty PATH) it is exit 3 with one line saying what
 *   to install;
 * - with SimGrid's smpicc and smpirun, a tiny run (4 ranks, 64 KiB) has a
 *   row per bcast and barrier pair, each with a positive time on both
 *   sides and SMPI's message count; five pairs that send the same
 *   messages the same way at P = 4 (flat, binomial and NTSL's chain
 *   bcasts, the flat and dissemination barriers) say so, and their two
 *   simulated times are within 2% (issue 39's target; both simulators
 *   are deterministic, so this is no timing of the machine); a summary
 *   closes it. The whole table is the results page's.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_helpers.h"

Test(bench_smpi, bad_input_is_exit_2, .timeout = 60) {
  fails_with(CLI("bench", "smpi", "gather"), 2, "unknown collective 'gather'");
  fails_with(CLI("bench", "smpi", "--rounds", "3"), 2, "unknown option '--rounds'");
  fails_with(CLI("bench", "smpi", "-n", "4", "--ranks", "8"), 2, "given twice");
  fails_with(CLI("bench", "smpi", "-n", "1"), 2, "--ranks");
  fails_with(CLI("bench", "smpi", "-n", "65"), 2, "--ranks");
  fails_with(CLI("bench", "smpi", "-m", "6"), 2, "--bytes");
  fails_with(CLI("bench", "smpi", "-m", "lots"), 2, "'lots' is not a size");
  fails_with(CLI("bench", "smpi", "--profile"), 2, "--profile");
}

Test(bench_smpi, without_simgrid_is_exit_3, .timeout = 60) {
  /* the command is run by its path, so it needs no PATH; put this one back */
  const char *old = getenv("PATH");
  char *keep = old ? strdup(old) : NULL;
  setenv("PATH", "/nonexistent", 1);
  struct cli c = CLI("bench", "smpi", "barrier", "-n", "4");
  if (keep)
    setenv("PATH", keep, 1);
  else
    unsetenv("PATH");
  free(keep);
  fails_with(c, 3, "libsimgrid-dev");
  cli_free(&c);
}

/* The row of (collective, "tutti / SMPI") at 4 ranks: its SMPI and tutti
 * times (us), message count and the verdict word; 0 if there is none. */
static int row(const char *out, const char *coll, const char *pair, double *ts, double *tt,
               int *msgs, char *verdict) {
  size_t lc = strlen(coll), lp = strlen(pair);
  for (const char *line = out; line && *line; line = strchr(line, '\n'), line += !!line) {
    if (strncmp(line, coll, lc) || line[lc] != ' ') continue;
    const char *p = line + lc + strspn(line + lc, " ");
    if (strncmp(p, pair, lp) || p[lp] != ' ') continue;
    int P, k = 0;
    p += lp;
    if (sscanf(p, "%d%n", &P, &k) != 1 || P != 4) continue;
    p += k;
    p += strspn(p, " ");
    /* the size: "-" for the barrier, else a number and a unit */
    p += strcspn(p, " ");
    if (p[-1] != '-') p += strspn(p, " "), p += strcspn(p, " ");
    if (sscanf(p, "%lf %lf %*s %d %15s", ts, tt, msgs, verdict) == 4) return 1;
  }
  return 0;
}

Test(bench_smpi, tiny_run_end_to_end, .timeout = 600) {
  if (!on_path("smpicc") || !on_path("smpirun")) {
    cr_skip_test("SimGrid is not installed (no smpicc and smpirun on the PATH; Debian: "
                 "libsimgrid-dev)");
  }
  struct cli c = CLI("bench", "smpi", "bcast", "barrier", "-n", "4", "-m", "64KiB");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "SimGrid version");
  HAS(c.out, "network/model:CM02");
  /* each the same messages, sent the same way: within the 2% of issue 39 */
  static const char *const rows[][2] = {
      {"bcast", "flat / flattree"},
      {"bcast", "binomial / binomial_tree"},
      {"bcast", "pipelined-chain:segment=8KiB,window=0 / NTSL"},
      {"barrier", "flat / ompi_basic_linear"},
      {"barrier", "dissemination / ompi_bruck"},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    double ts = 0, tt = 0;
    int msgs = 0;
    char verdict[16] = "";
    cr_assert(row(c.out, rows[i][0], rows[i][1], &ts, &tt, &msgs, verdict),
              "no row of %s %s at P = 4 in:\n%s", rows[i][0], rows[i][1], c.out);
    cr_assert(gt(dbl, ts, 0), "%s: SMPI's time", rows[i][1]);
    cr_assert(gt(dbl, tt, 0), "%s: tutti's time", rows[i][1]);
    cr_assert(gt(int, msgs, 0), "%s: SMPI's messages", rows[i][1]);
    cr_assert(eq(str, verdict, "same"), "%s: %s", rows[i][1], verdict);
    cr_assert(le(dbl, fabs(tt - ts), 0.02 * ts), "%s: tutti %g s, SMPI %g s", rows[i][1], tt, ts);
  }
  HAS(c.out, "summary: ");
  cli_free(&c);
}

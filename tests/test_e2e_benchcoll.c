/*
 * test_e2e_benchcoll.c -- `tutti bench coll` and `run --iters`'s wall time
 * per call, against bench/CLI.md:
 * - every registered algorithm of every collective (enumerated from the
 *   registry here) has one row per size with a positive time per call, a
 *   ratio to the floor and the Open MPI column, beside the floor's row;
 * - with Open MPI installed (mpicc and mpirun on the PATH) the Open MPI
 *   row is there and the algorithms' ratios to it are numbers; without it
 *   (an empty PATH) the run still succeeds and says why it was skipped;
 * - bad input (an unknown collective, an unknown algorithm in --algos, a
 *   bad -n, -m or --rounds) is exit 2 with one line on stderr;
 * - `run --iters K` reports the wall time per call without the checking,
 *   positive and smaller than the whole run's wall time over K (each rank's
 *   time inside its calls is part of its thread's life: a property, not a
 *   timing threshold), in the JSON and in the table.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "json_reader.h"

#include "cli_helpers.h"

/* ------------------------------------------------------------ the table */

struct row {
  int found;
  double time; /* seconds per call */
  double xfloor;
  char xmpi[32];
  int batch;
};

/* The rows named `name` in the output, one per block, in order: how many
 * were found (up to max). A row: "  NAME  TIME UNIT  XFLOOR  XMPI  BATCH". */
static int rows_of(const char *out, const char *name, struct row *r, int max) {
  int n = 0;
  size_t len = strlen(name);
  for (const char *line = out; line && *line && n < max;) {
    const char *next = strchr(line, '\n');
    if (!strncmp(line, "  ", 2) && !strncmp(line + 2, name, len) && line[2 + len] == ' ') {
      char unit[8], xf[32];
      const char *rest = line + 2 + len;
      cr_assert(
          eq(int,
             sscanf(rest, "%lf %7s %31s %31s %d", &r[n].time, unit, xf, r[n].xmpi, &r[n].batch), 5),
          "row of %s is not TIME UNIT XFLOOR XMPI BATCH: %.*s", name,
          (int)(next ? next - line : (long)strlen(line)), line);
      r[n].time *= unit_scale(unit);
      r[n].xfloor = strtod(xf, NULL);
      r[n].found = 1;
      n++;
    }
    line = next ? next + 1 : NULL;
  }
  return n;
}

/* Every registered algorithm of coll has `blocks` rows with a positive time,
 * a positive ratio to the floor, and a batch of at least one call. */
static void every_algorithm_has_rows(const char *out, int coll, int blocks, int with_mpi) {
  const tutti_algo_desc_t *d;
  int seen = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
    if (d->coll != coll) continue;
    seen++;
    /* rows of this collective's blocks only (another may have the same
     * names); rows_of matches the whole name (flat, not flat-x) */
    int mine = 0;
    char head[64];
    snprintf(head, sizeof head, "\n%s on ", tutti_coll_name(coll));
    const char *at = strstr(out, head);
    cr_assert(ne(ptr, (void *)at, NULL), "no block of %s", tutti_coll_name(coll));
    for (const char *blk = at; blk; blk = strstr(blk + 1, head)) {
      const char *end = strstr(blk + 1, "\n\n");
      size_t len = end ? (size_t)(end - blk) : strlen(blk);
      char *copy = strndup(blk, len);
      struct row one[2] = {{0}};
      cr_assert(eq(int, rows_of(copy, d->name, one, 2), 1), "%s %s: not one row in:\n%s",
                tutti_coll_name(coll), d->name, copy);
      cr_assert(gt(dbl, one[0].time, 0), "%s %s: time %g", tutti_coll_name(coll), d->name,
                one[0].time);
      cr_assert(gt(dbl, one[0].xfloor, 0));
      cr_assert(ge(int, one[0].batch, 1));
      if (with_mpi)
        cr_assert(gt(dbl, strtod(one[0].xmpi, NULL), 0), "%s %s: x Open MPI '%s'",
                  tutti_coll_name(coll), d->name, one[0].xmpi);
      else
        cr_assert(eq(str, one[0].xmpi, "-"));
      struct row fl[2] = {{0}};
      cr_assert(eq(int, rows_of(copy, "floor: pthread_barrier_wait", fl, 2), 1));
      cr_assert(gt(dbl, fl[0].time, 0));
      free(copy);
      mine++;
    }
    cr_assert(eq(int, mine, blocks), "%s: %d blocks, want %d", tutti_coll_name(coll), mine, blocks);
  }
  cr_assert(gt(int, seen, 0), "%s has no algorithm", tutti_coll_name(coll));
}

Test(bench_coll, every_registered_algorithm_of_every_collective, .timeout = 600) {
  /* 4 ranks: a power of two, so no algorithm's restriction skips it */
  struct cli c = CLI("bench", "coll", "-n", "4", "-m", "8,1KiB", "--rounds", "2", "--no-mpi");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "Open MPI: not measured: left out (--no-mpi)");
  for (int coll = 0; coll < TUTTI_COLL_N; coll++)
    every_algorithm_has_rows(c.out, coll, tutti_coll_traits(coll) & TUTTI_COLL_DATA ? 2 : 1, 0);
  cli_free(&c);
}

Test(bench_coll, algos_picks_rows, .timeout = 120) {
  const tutti_algo_desc_t *d = tutti_algo_desc_default(TUTTI_COLL_BCAST);
  struct cli c = CLI("bench", "coll", "bcast", "-n", "3", "-m", "64", "--algos", d->name,
                     "--rounds", "1", "--no-mpi");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  /* one block, the floor and the default algorithm only */
  const tutti_algo_desc_t *o;
  for (int i = 0; (o = tutti_algo_desc_at(i)) != NULL; i++) {
    struct row r[2] = {{0}};
    int n = rows_of(c.out, o->name, r, 2);
    if (o->coll == TUTTI_COLL_BCAST && !strcmp(o->name, d->name))
      cr_assert(eq(int, n, 1));
    else if (o->coll == TUTTI_COLL_BCAST)
      cr_assert(eq(int, n, 0), "%s was not asked for", o->name);
  }
  cr_assert(eq(ptr, strstr(c.out, "\nreduce on "), NULL));
  cli_free(&c);
}

Test(bench_coll, open_mpi_row_when_installed, .timeout = 600) {
  if (!on_path("mpirun") || !on_path("mpicc")) {
    cr_skip_test("Open MPI is not installed (no mpirun and mpicc on the PATH)");
  }
  struct cli c =
      CLI("bench", "coll", "barrier", "allreduce", "-n", "2", "-m", "8", "--rounds", "2");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  every_algorithm_has_rows(c.out, TUTTI_COLL_BARRIER, 1, 1);
  every_algorithm_has_rows(c.out, TUTTI_COLL_ALLREDUCE, 1, 1);
  const char *names[] = {"Open MPI barrier", "Open MPI allreduce"};
  for (int i = 0; i < 2; i++) {
    struct row r[2] = {{0}};
    cr_assert(eq(int, rows_of(c.out, names[i], r, 2), 1), "no row '%s' in:\n%s", names[i], c.out);
    cr_assert(gt(dbl, r[0].time, 0));
    cr_assert(gt(dbl, r[0].xfloor, 0));
  }
  HAS(c.out, "Open MPI rows: ");
  cli_free(&c);
}

/* MPI_Alltoall, MPI_Scan and MPI_Exscan beside alltoall, scan and exscan
 * (3 ranks: exscan's rank 0 and the middle rank differ). */
Test(bench_coll, open_mpi_rows_of_alltoall_scan_exscan, .timeout = 600) {
  if (!on_path("mpirun") || !on_path("mpicc")) {
    cr_skip_test("Open MPI is not installed (no mpirun and mpicc on the PATH)");
  }
  struct cli c =
      CLI("bench", "coll", "alltoall", "scan", "exscan", "-n", "3", "-m", "64", "--rounds", "2");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  const int colls[] = {TUTTI_COLL_ALLTOALL, TUTTI_COLL_SCAN, TUTTI_COLL_EXSCAN};
  const char *names[] = {"Open MPI alltoall", "Open MPI scan", "Open MPI exscan"};
  for (int i = 0; i < 3; i++) {
    every_algorithm_has_rows(c.out, colls[i], 1, 1);
    struct row r[2] = {{0}};
    cr_assert(eq(int, rows_of(c.out, names[i], r, 2), 1), "no row '%s' in:\n%s", names[i], c.out);
    cr_assert(gt(dbl, r[0].time, 0));
    cr_assert(gt(dbl, r[0].xfloor, 0));
  }
  cli_free(&c);
}

Test(bench_coll, open_mpi_absent_is_a_note, .timeout = 120) {
  /* the command is run by its path, so it needs no PATH; put this one back
   * after (a runner may run the next test in this process) */
  const char *old = getenv("PATH");
  char *keep = old ? strdup(old) : NULL;
  setenv("PATH", "/nonexistent", 1);
  struct cli c = CLI("bench", "coll", "barrier", "-n", "2", "--rounds", "1");
  if (keep)
    setenv("PATH", keep, 1);
  else
    unsetenv("PATH");
  free(keep);
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "Open MPI: not measured: Open MPI is not installed");
  every_algorithm_has_rows(c.out, TUTTI_COLL_BARRIER, 1, 0);
  cli_free(&c);
}

/* bench p2p's steady section: every row, each with its 5 figures in
 * increasing order, Open MPI's rows when it is installed, a note when not. */
static void steady_rows(const char *out, int mpi) {
  const char *rows[] = {"8 B one-way: tutti",
                        "barrier: pthread_barrier_wait",
                        "barrier: tutti default (lambda-tree)",
                        "barrier: tutti dissemination",
                        "8 B one-way: Open MPI",
                        "barrier: Open MPI"};
  for (int i = 0; i < (mpi ? 6 : 4); i++) {
    const char *p = strstr(out, rows[i]);
    cr_assert(ne(ptr, (void *)p, NULL), "no row '%s' in:\n%s", rows[i], out);
    double v[5];
    int slow;
    cr_assert(eq(int,
                 sscanf(p + strlen(rows[i]), "%lf %lf %lf %lf %lf %d", &v[0], &v[1], &v[2], &v[3],
                        &v[4], &slow),
                 6),
              "row '%s' in:\n%s", rows[i], out);
    cr_expect(gt(dbl, v[0], 0));
    for (int k = 1; k < 5; k++) cr_expect(le(dbl, v[k - 1], v[k]), "'%s' out of order", rows[i]);
    cr_expect(le(int, slow, 2)); /* at most all of 2 repetitions */
  }
  if (!mpi) cr_expect(eq(ptr, strstr(out, "8 B one-way: Open MPI"), NULL));
}

Test(bench_p2p, steady_section_without_open_mpi, .timeout = 120) {
  struct cli c = CLI("bench", "p2p", "--steady", "--reps", "2", "--no-mpi");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  steady_rows(c.out, 0);
  HAS(c.out, "Open MPI: not measured in 0 of 2 repetitions: left out (--no-mpi)");
  HAS(c.out, "tutti barrier / pthread_barrier_wait");
  cr_expect(eq(ptr, strstr(c.out, "bandwidth"), NULL), "--steady ran the other sections");
  cli_free(&c);
}

Test(bench_p2p, steady_section_beside_open_mpi, .timeout = 600) {
  if (!on_path("mpirun") || !on_path("mpicc")) {
    cr_skip_test("Open MPI is not installed (no mpirun and mpicc on the PATH)");
  }
  struct cli c = CLI("bench", "p2p", "--steady", "--reps", "2");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  steady_rows(c.out, 1);
  HAS(c.out, "tutti / Open MPI, medians of per-repetition ratios: one-way ");
  cli_free(&c);
}

Test(bench_p2p, bad_input, .timeout = 60) {
  fails_with(CLI("bench", "p2p", "--reps", "0"), 2, "--reps: '0' is not a count; accepted: 1..256");
  fails_with(CLI("bench", "p2p", "--reps", "x"), 2, "accepted: 1..256");
  fails_with(CLI("bench", "p2p", "--reps", "2", "--reps", "3"), 2, "given twice");
  fails_with(CLI("bench", "p2p", "--fast"), 2, "unknown option '--fast'; accepted: --quick");
}

Test(bench_coll, bad_input, .timeout = 60) {
  fails_with(CLI("bench", "coll", "nosuchcoll"), 2, "unknown collective 'nosuchcoll'");
  fails_with(CLI("bench", "coll", "bcast", "--algos", "nosuchalgo"), 2,
             "unknown algorithm 'nosuchalgo'");
  /* an algorithm of another collective than the one asked */
  fails_with(CLI("bench", "coll", "bcast", "--algos", "dissemination"), 2, "dissemination");
  fails_with(CLI("bench", "coll", "bcast", "--algos", "binomial:nosuchparam=1"), 2, "--algos");
  fails_with(CLI("bench", "coll", "-n", "0"), 2, "--ranks");
  fails_with(CLI("bench", "coll", "-n", "x"), 2, "--ranks");
  fails_with(CLI("bench", "coll", "-n", "5000"), 2, "--ranks");
  fails_with(CLI("bench", "coll", "-m", "3x"), 2, "--bytes");
  fails_with(CLI("bench", "coll", "-m", "8,,16"), 2, "--bytes");
  fails_with(CLI("bench", "coll", "--rounds", "0"), 2, "--rounds");
  fails_with(CLI("bench", "coll", "--frobnicate"), 2, "unknown option");
  fails_with(CLI("bench", "coll", "-n", "2", "-n", "3"), 2, "given twice");
}

/* ------------------------------------------------------------ run --iters */

Test(run_iters, wall_per_call_excludes_the_check, .timeout = 300) {
  for (int coll = 0; coll < TUTTI_COLL_N; coll++) {
    const tutti_algo_desc_t *d = tutti_algo_desc_default(coll);
    int data = (tutti_coll_traits(coll) & TUTTI_COLL_DATA) != 0;
    const int K = 4;
    struct cli c = data ? CLI("run", tutti_coll_name(coll), d->name, "-n", "5", "-m", "64KiB",
                              "--iters", "4", "--model", "none", "--json")
                        : CLI("run", tutti_coll_name(coll), d->name, "-n", "5", "--iters", "4",
                              "--model", "none", "--json");
    cr_assert(eq(int, c.status, 0), "%s: exit %d: %s", tutti_coll_name(coll), c.status, c.err);
    struct jp p = json_parse(c.out);
    double per = json_num(&p, "wall_per_call"), all = json_num(&p, "wall_time");
    cr_assert(gt(dbl, per, 0), "%s: wall_per_call %g", tutti_coll_name(coll), per);
    cr_assert(lt(dbl, per, all / K), "%s: wall_per_call %g, wall_time / K %g",
              tutti_coll_name(coll), per, all / K);
    cr_assert(eq(int, strncmp(json_get(&p, "verified"), "true", 4), 0));
    cli_free(&c);
  }
  /* the table says it too, and a modeled run measures it as well */
  struct cli c = CLI("run", "bcast", tutti_algo_desc_default(TUTTI_COLL_BCAST)->name, "-n", "3",
                     "--iters", "3");
  cr_assert(eq(int, c.status, 0));
  HAS(c.out, " per call, checking excluded");
  cli_free(&c);
}

Test(run_iters, no_data_run_times_its_calls, .timeout = 120) {
  struct cli c = CLI("run", "bcast", tutti_algo_desc_default(TUTTI_COLL_BCAST)->name, "-n", "4",
                     "-m", "1MiB", "--iters", "3", "--no-data", "--json");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  struct jp p = json_parse(c.out);
  double per = json_num(&p, "wall_per_call"), all = json_num(&p, "wall_time");
  cr_assert(gt(dbl, per, 0));
  cr_assert(lt(dbl, per, all / 3));
  cli_free(&c);
}

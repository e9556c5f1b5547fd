/*
 * test_e2e_benchcoll.c -- `tutti bench coll` and `run --iters`'s wall time
 * per call, against bench/CLI.md:
 * - every registered algorithm of every collective (enumerated from the
 *   registry here) has one row per size with a positive time per call in
 *   each way of running the ranks (default, threads, fibers), the
 *   default's ratio to the better of the two and the Open MPI column; each
 *   block says how the default ran its ranks; --algos (`default` too) and
 *   --ranks-as pick the rows and columns;
 * - with Open MPI installed (mpicc and mpirun on the PATH) the Open MPI
 *   row is there and the algorithms' ratios to it are numbers; without it
 *   (an empty PATH) the run still succeeds and says why it was skipped;
 * - bad input (an unknown collective, an unknown algorithm in --algos, a
 *   bad -n, -m, --rounds or --ranks-as) is exit 2 with one line on stderr;
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

/* A row: "  NAME  DEFAULT THREADS FIBERS OPEN-MPI  XBEST  MPI/DEF  BATCH", each
 * time a number and a unit or "-" (not measured). */
struct row {
  int found;
  double time[4]; /* seconds per call: default, threads, fibers, Open MPI; NAN: "-" */
  char xbest[32], xmpi[32];
  int batch;
};

/* The rows named `name` in the output, one per block, in order: how many
 * were found (up to max). */
static int rows_of(const char *out, const char *name, struct row *r, int max) {
  int n = 0;
  size_t len = strlen(name);
  for (const char *line = out; line && *line && n < max;) {
    const char *next = strchr(line, '\n');
    size_t ll = next ? (size_t)(next - line) : strlen(line);
    if (!strncmp(line, "  ", 2) && !strncmp(line + 2, name, len) && line[2 + len] == ' ' &&
        !strstr(line, "skipped:")) {
      char *copy = strndup(line + 2 + len, ll - 2 - len), *save = NULL;
      const char *tok[16];
      int nt = 0;
      for (char *t = strtok_r(copy, " ", &save); t && nt < 16; t = strtok_r(NULL, " ", &save))
        tok[nt++] = t;
      int k = 0;
      for (int c = 0; c < 4; c++) {
        cr_assert(lt(int, k, nt), "row of %s is short: %.*s", name, (int)ll, line);
        if (!strcmp(tok[k], "-")) {
          r[n].time[c] = NAN, k++;
          continue;
        }
        cr_assert(lt(int, k + 1, nt), "row of %s: %.*s", name, (int)ll, line);
        r[n].time[c] = strtod(tok[k], NULL) * unit_scale(tok[k + 1]);
        k += 2;
      }
      cr_assert(eq(int, nt - k, 3), "row of %s is not TIMES XBEST XMPI BATCH: %.*s", name, (int)ll,
                line);
      snprintf(r[n].xbest, sizeof r[n].xbest, "%s", tok[k]);
      snprintf(r[n].xmpi, sizeof r[n].xmpi, "%s", tok[k + 1]);
      r[n].batch = atoi(tok[k + 2]);
      r[n].found = 1;
      free(copy);
      n++;
    }
    line = next ? next + 1 : NULL;
  }
  return n;
}

/* Every registered algorithm of coll has `blocks` rows with a positive
 * time in each way of running the ranks, the default's ratio to the better
 * of threads and fibers, and a batch of at least one call; the Open MPI
 * column and its ratio are numbers with Open MPI, "-" without. Each block
 * says how the default ran its ranks. */
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
      cr_assert(strstr(copy, "; default: threads\n") || strstr(copy, "; default: fibers on "),
                "no 'default:' in the head of:\n%s", copy);
      struct row one[2] = {{0}};
      cr_assert(eq(int, rows_of(copy, d->name, one, 2), 1), "%s %s: not one row in:\n%s",
                tutti_coll_name(coll), d->name, copy);
      for (int c = 0; c < 3; c++)
        cr_assert(gt(dbl, one[0].time[c], 0), "%s %s: time %d is %g", tutti_coll_name(coll),
                  d->name, c, one[0].time[c]);
      cr_assert(gt(dbl, strtod(one[0].xbest, NULL), 0), "x best '%s'", one[0].xbest);
      cr_assert(ge(int, one[0].batch, 1));
      if (with_mpi) {
        cr_assert(gt(dbl, one[0].time[3], 0));
        cr_assert(gt(dbl, strtod(one[0].xmpi, NULL), 0), "%s %s: MPI/def '%s'",
                  tutti_coll_name(coll), d->name, one[0].xmpi);
      } else {
        cr_assert(isnan(one[0].time[3]));
        cr_assert(eq(str, one[0].xmpi, "-"));
      }
      free(copy);
      mine++;
    }
    cr_assert(eq(int, mine, blocks), "%s: %d blocks, want %d", tutti_coll_name(coll), mine, blocks);
  }
  cr_assert(gt(int, seen, 0), "%s has no algorithm", tutti_coll_name(coll));
}

Test(bench_coll, every_registered_algorithm_of_every_collective, .timeout = 900) {
  /* 4 ranks: a power of two, so no algorithm's restriction skips it */
  struct cli c = CLI("bench", "coll", "-n", "4", "-m", "8,1KiB", "--rounds", "1", "--no-mpi");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  HAS(c.out, "Open MPI: not measured: left out (--no-mpi)");
  for (int coll = 0; coll < TUTTI_COLL_N; coll++)
    every_algorithm_has_rows(c.out, coll, tutti_coll_traits(coll) & TUTTI_COLL_DATA ? 2 : 1, 0);
  cli_free(&c);
}

/* --algos picks rows (`default`: each collective's default algorithm);
 * --ranks-as picks the columns, in its order. */
Test(bench_coll, algos_and_ranks_as_pick_rows_and_columns, .timeout = 120) {
  const tutti_algo_desc_t *d = tutti_algo_desc_default(TUTTI_COLL_BCAST);
  const char *picks[] = {d->name, "default"};
  for (int k = 0; k < 2; k++) {
    struct cli c = CLI("bench", "coll", "bcast", "-n", "3", "-m", "64", "--algos", picks[k],
                       "--rounds", "1", "--no-mpi", "--ranks-as", "fibers,default");
    cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
    /* one block, the default algorithm only */
    const tutti_algo_desc_t *o;
    for (int i = 0; (o = tutti_algo_desc_at(i)) != NULL; i++) {
      struct row r[2] = {{0}};
      if (o->coll == TUTTI_COLL_BCAST && strcmp(o->name, d->name))
        cr_assert(eq(int, rows_of(c.out, o->name, r, 2), 0), "%s was not asked for", o->name);
    }
    cr_assert(ne(ptr, strstr(c.out, d->name), NULL));
    /* two ways measured, in the order asked, and Open MPI's over the first */
    const char *head = strstr(c.out, "\n  algorithm ");
    cr_assert(ne(ptr, (void *)head, NULL), "%s", c.out);
    const char *f = strstr(head, " fibers "), *df = strstr(head, " default ");
    const char *eol = strchr(head + 1, '\n');
    cr_assert(f && df && f < df && df < eol, "columns: %.*s", (int)(eol - head), head);
    const char *t = strstr(head, " threads ");
    cr_assert(t == NULL || t > eol, "threads were not asked for");
    cr_assert(ne(ptr, strstr(head, "MPI/fib"), NULL));
    cr_assert(eq(ptr, strstr(c.out, "\nreduce on "), NULL));
    cli_free(&c);
  }
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
  HAS(c.out, "calls a batch");
  HAS(c.out, "\nOpen MPI: Open MPI");
  cli_free(&c);
}

/* MPI_Alltoall, MPI_Scan and MPI_Exscan beside alltoall, scan and exscan
 * (3 ranks: exscan's rank 0 and the middle rank differ). */
Test(bench_coll, open_mpi_rows_of_alltoall_scan_exscan, .timeout = 600) {
  if (!on_path("mpirun") || !on_path("mpicc")) {
    cr_skip_test("Open MPI is not installed (no mpirun and mpicc on the PATH)");
  }
  struct cli c = CLI("bench", "coll", "alltoall", "scan", "exscan", "-n", "3", "-m", "64",
                     "--rounds", "1", "--algos", "default");
  cr_assert(eq(int, c.status, 0), "exit %d: %s", c.status, c.err);
  const int colls[] = {TUTTI_COLL_ALLTOALL, TUTTI_COLL_SCAN, TUTTI_COLL_EXSCAN};
  for (int i = 0; i < 3; i++) {
    struct row r[2] = {{0}};
    char head[64];
    snprintf(head, sizeof head, "\n%s on ", tutti_coll_name(colls[i]));
    const char *at = strstr(c.out, head), *name = tutti_algo_desc_default(colls[i])->name;
    cr_assert(ne(ptr, (void *)at, NULL), "no block of %s in:\n%s", head + 1, c.out);
    const char *end = strstr(at + 1, "\n\n");
    char *blk = strndup(at, end ? (size_t)(end - at) : strlen(at));
    cr_assert(eq(int, rows_of(blk, name, r, 2), 1), "no row '%s' in:\n%s", name, blk);
    cr_assert(gt(dbl, r[0].time[3], 0), "%s: no Open MPI time", name);
    free(blk);
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
  fails_with(CLI("bench", "coll", "--ranks-as", "processes"), 2,
             "--ranks-as: 'processes' is not a list of ways; accepted: default, threads, fibers");
  fails_with(CLI("bench", "coll", "--ranks-as", "threads,threads"), 2, "each at most once");
  fails_with(CLI("bench", "coll", "--ranks-as", "threads,"), 2, "--ranks-as");
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

/*
 * test_e2e_sweep.c -- `tutti sweep`, and the suite's lists, CSV, plot and
 * summary (bench/CLI.md), run as a user runs them: the CSV and JSON
 * schemas, one row per (algorithm, P, m), each modeled time equal to the
 * library's own for that point (a world run here, not through the CLI),
 * the winners the fastest rows, the plot (a line per algorithm in each
 * panel; without gnuplot the CSV is still written and one line says how
 * to install it), and bad input for every flag they add.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"
#include "coll_helpers.h"
#include "json_reader.h"

/* A CSV line split at commas outside quotes, quotes removed, into f[]. */
static int csv_fields(const char *line, char f[][256], int max) {
  int n = 0, q = 0;
  size_t k = 0;
  for (const char *p = line;; p++) {
    if (*p == '"') {
      if (q && p[1] == '"') {
        f[n][k++] = '"', p++;
        continue;
      }
      q = !q;
      continue;
    }
    if ((*p == ',' && !q) || !*p || *p == '\n') {
      f[n][k] = '\0';
      n++, k = 0;
      if (!*p || *p == '\n' || n == max) return n;
      continue;
    }
    if (k < 255) f[n][k++] = *p;
  }
}

static char *next_line(char **s) {
  if (!*s || !**s) return NULL;
  char *l = *s, *nl = strchr(l, '\n');
  if (nl)
    *nl = '\0', *s = nl + 1;
  else
    *s = l + strlen(l);
  return l;
}

static const char *const header[] = {
    "collective", "algorithm", "algorithm_spec", "ranks",    "bytes",  "dtype", "modeled_time",
    "wall_time",  "messages",  "bytes_moved",    "verified", "winner", "note"};
#define NCOLS ((int)(sizeof header / sizeof *header))

/* Every row of a bcast sweep: the time the library gives for that point. */
Test(sweep, csv_rows_match_the_library, .timeout = 120) {
  struct cli c =
      CLI("sweep", "bcast", "--ranks", "3,8", "--sizes", "8..1KiB", "--algos",
          "binomial,lambda-tree:lambda=0.7,flat", "--model", "hockney:alpha=2us,beta=1ns");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  char *s = c.out, *l = next_line(&s), f[NCOLS + 1][256];
  cr_assert(eq(int, csv_fields(l, f, NCOLS + 1), NCOLS), "header: %s", l);
  for (int i = 0; i < NCOLS; i++) cr_expect(eq(str, f[i], (char *)header[i]));
  tutti_model_t m = hockney(2e-6, 1e-9);
  const char *names[] = {"binomial", "lambda-tree", "flat"}, *params[] = {NULL, "lambda=0.7", NULL};
  int rows = 0;
  while ((l = next_line(&s))) {
    cr_assert(eq(int, csv_fields(l, f, NCOLS + 1), NCOLS), "row: %s", l);
    cr_expect(eq(str, f[0], "bcast"));
    cr_expect(eq(str, f[10], "true"), "verified: %s", l);
    int P = atoi(f[3]), a = -1;
    long bytes = atol(f[4]);
    for (int k = 0; k < 3; k++)
      if (!strcmp(f[1], names[k])) a = k;
    cr_assert(ge(int, a, 0), "algorithm %s", f[1]);
    const tutti_algo_t *al = pick(TUTTI_COLL_BCAST, names[a], params[a]);
    double want = timed(P, &m, TUTTI_COLL_BCAST, al, bytes, TUTTI_BYTE, 0);
    cr_expect(eq(dbl, strtod(f[6], NULL), want), "%s P=%d m=%ld: %s, want %.17g", f[1], P, bytes,
              f[6], want);
    cr_expect(gt(long, atol(f[8]), 0), "messages");
    rows++;
  }
  cr_expect(eq(int, rows, 2 * 8 * 3), "2 rank counts x 8 sizes (8..1KiB) x 3 algorithms");
  cli_free(&c);
}

/* Every (P, m) group has exactly the fastest verified rows as winners. */
Test(sweep, winners_are_the_fastest, .timeout = 120) {
  struct cli c = CLI("sweep", "reduce", "--ranks", "5..20", "--sizes", "4,4KiB");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  char *s = c.out, *l = next_line(&s), f[NCOLS + 1][256];
  double best[64];
  int win[64], seen = 0;
  for (int i = 0; i < 64; i++) best[i] = INFINITY, win[i] = 0;
  char buf[1 << 16];
  snprintf(buf, sizeof buf, "%s", s);
  for (char *t = buf; (l = next_line(&t));) { /* pass 1: the minimum per group */
    csv_fields(l, f, NCOLS + 1);
    int g = (atoi(f[3]) / 5) * 2 + (atol(f[4]) > 4);
    if (!strcmp(f[10], "true") && strtod(f[6], NULL) < best[g]) best[g] = strtod(f[6], NULL);
  }
  while ((l = next_line(&s))) {
    csv_fields(l, f, NCOLS + 1);
    int g = (atoi(f[3]) / 5) * 2 + (atol(f[4]) > 4);
    int w = !strcmp(f[11], "true");
    cr_expect(eq(int, w, strtod(f[6], NULL) == best[g]), "%s", l);
    win[g] += w, seen++;
  }
  cr_expect(gt(int, seen, 0));
  for (int g = 0; g < 64; g++)
    if (isfinite(best[g])) cr_expect(ge(int, win[g], 1), "group %d has no winner", g);
  cli_free(&c);
}

Test(sweep, json_schema, .timeout = 60) {
  struct cli c = CLI("sweep", "gather", "--ranks", "4,7", "--sizes", "16", "--json");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  struct jp p = json_parse(c.out);
  HAS(c.out, "{\"collective\":\"gather\"");
  cr_expect(eq(int, json_array_len(json_get(&p, "ranks")), 2));
  cr_expect(eq(int, json_array_len(json_get(&p, "sizes")), 1));
  int n = 0;
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) n += d->coll == TUTTI_COLL_GATHER;
  cr_expect(eq(int, json_array_len(json_get(&p, "results")), 2 * n), "every gather algorithm");
  cr_expect(eq(dbl, json_num(&p, "runs"), 2.0 * n));
  cr_expect(eq(int, strncmp(json_get(&p, "all_verified"), "true", 4), 0));
  HAS(c.out, "\"ranks\":7");
  cli_free(&c);
}

/* --csv FILE: the CSV there, a summary on stdout naming the winner. */
Test(sweep, csv_file_and_summary, .timeout = 60) {
  char path[] = "/tmp/tutti_test_sweep_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(ge(int, fd, 0));
  close(fd);
  struct cli c = CLI("sweep", "bcast", "--ranks", "16", "--sizes", "8", "--algos", "flat,binomial",
                     "--csv", path);
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "binomial");
  HAS(c.out, "2 runs: 2 verified");
  FILE *f = fopen(path, "r");
  char line[1024];
  int n = 0;
  while (fgets(line, sizeof line, f)) n++;
  fclose(f);
  cr_expect(eq(int, n, 3), "header and two rows");
  unlink(path);
  cli_free(&c);
}

static int count(const char *s, const char *what) {
  int n = 0;
  for (const char *q = s; (q = strstr(q, what)); q++) n++;
  return n;
}

Test(sweep, plot_has_a_line_per_algorithm, .timeout = 60) {
  if (system("command -v gnuplot >/dev/null 2>&1")) cr_skip_test("gnuplot is not installed");
  char path[] = "/tmp/tutti_test_sweep_XXXXXX.svg";
  int fd = mkstemps(path, 4);
  cr_assert(ge(int, fd, 0));
  close(fd);
  struct cli c = CLI("sweep", "bcast", "--ranks", "4,8", "--sizes", "8..64KiB", "--algos",
                     "flat,binomial", "--csv", "/dev/null", "--plot", path);
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  fd = open(path, O_RDONLY);
  char *svg = slurp(fd);
  cr_expect(eq(int, count(svg, ">flat<"), 2), "flat in both panels");
  cr_expect(eq(int, count(svg, ">binomial:segment=0<"), 2), "binomial in both panels");
  HAS(svg, "P = 8");
  HAS(svg, "bytes per rank");
  free(svg);
  unlink(path);
  cli_free(&c);
}

/* A barrier has no size: its plot is time against P, one panel, a line
 * per algorithm with a point per rank count. */
Test(sweep, barrier_plot_is_against_ranks, .timeout = 60) {
  if (system("command -v gnuplot >/dev/null 2>&1")) cr_skip_test("gnuplot is not installed");
  char path[] = "/tmp/tutti_test_sweep_XXXXXX.svg";
  int fd = mkstemps(path, 4);
  cr_assert(ge(int, fd, 0));
  close(fd);
  struct cli c = CLI("sweep", "barrier", "--ranks", "2..32", "--algos", "flat,dissemination",
                     "--csv", "/dev/null", "--plot", path);
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  fd = open(path, O_RDONLY);
  char *svg = slurp(fd);
  cr_expect(eq(int, count(svg, ">flat<"), 1), "one panel");
  cr_expect(eq(int, count(svg, ">dissemination:k=2<"), 1));
  HAS(svg, ">ranks<");
  HAS(svg, ">16<");
  cr_expect(eq(ptr, (void *)strstr(svg, "no data"), NULL), "points drawn: %s", path);
  free(svg);
  unlink(path);
  cli_free(&c);
}

Test(sweep, plot_without_gnuplot_keeps_the_csv, .timeout = 60) {
  char csv[] = "/tmp/tutti_test_sweep_XXXXXX";
  int fd = mkstemp(csv);
  cr_assert(ge(int, fd, 0));
  close(fd);
  struct cli c = CLI_ENV("TUTTI_GNUPLOT=/nonexistent/gnuplot", "sweep", "barrier", "--ranks", "2,4",
                         "--csv", csv, "--plot", "/tmp/tutti_test_sweep_none.svg");
  cr_expect(eq(int, c.status, 0), "%s", c.err);
  HAS(c.err, "apt-get install gnuplot-nox");
  cr_expect(eq(int, count(c.err, "\n"), 1), "one line: %s", c.err);
  fd = open(csv, O_RDONLY);
  char *text = slurp(fd);
  cr_expect(gt(int, count(text, "\nbarrier,"), 1), "%s", text);
  free(text);
  unlink(csv);
  cli_free(&c);
}

Test(sweep, bad_input, .timeout = 60) {
  fails_with(CLI("sweep"), 2, "missing COLL");
  fails_with(CLI("sweep", "bcastt"), 2, "unknown collective 'bcastt'");
  fails_with(CLI("sweep", "bcast", "--sizes", "64..8"), 2, "not a range");
  fails_with(CLI("sweep", "bcast", "--sizes", "0..8"), 2, "0 < A <= B");
  fails_with(CLI("sweep", "bcast", "--sizes", "8,,16"), 2, "empty item");
  fails_with(CLI("sweep", "bcast", "--sizes", "1x"), 2, "--sizes");
  fails_with(CLI("sweep", "bcast", "--ranks", "0,4"), 2, "'0' is not a rank count");
  fails_with(CLI("sweep", "bcast", "--ranks", "4..2"), 2, "not a range");
  fails_with(CLI("sweep", "bcast", "--ranks", "1..99999"), 2, "'99999' is not a rank count");
  fails_with(CLI("sweep", "bcast", "--algos", "binomial,nosuch"), 2, "'nosuch'");
  fails_with(CLI("sweep", "bcast", "--algos", "lambda=0.7,binomial"), 2, "before any algorithm");
  fails_with(CLI("sweep", "bcast", "--algos", "lambda-tree:lambda=2"), 2, "out of range");
  fails_with(CLI("sweep", "bcast", "--algos", "flat", "--param", "lambda=0.7"), 2,
             "no chosen algorithm has 'lambda'");
  fails_with(CLI("sweep", "bcast", "--plot", "x.pdf"), 2, ".svg");
  fails_with(CLI("sweep", "barrier", "--sizes", "8"), 2, "moves no data");
  fails_with(CLI("sweep", "bcast", "--json", "--csv", "-"), 2, "--csv");
  fails_with(CLI("sweep", "bcast", "--csv", "/nonexistent/dir/x.csv"), 2, "cannot write");
  fails_with(CLI("run", "bcast", "binomial", "--ranks", "4,8"), 2, "not a whole number");
}

/* --param reaches every chosen algorithm that has it, and only those. */
Test(sweep, param_applies_where_declared, .timeout = 60) {
  struct cli c = CLI("sweep", "bcast", "--ranks", "8", "--sizes", "64", "--algos",
                     "flat,lambda-tree,binomial", "--param", "segment=16");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "binomial:segment=16");
  HAS(c.out, "\"lambda-tree:lambda=0.6,segment=16\"");
  HAS(c.out, "bcast,flat,flat,");
  cli_free(&c);
}

/* ------------------------------------------------------------ suite */

/* Lists of ranks and sizes: a result per (P, algorithm, size), each
 * naming its P; the summary names each table's JSON winner. */
Test(suite, rank_and_size_lists, .timeout = 180) {
  struct cli c = CLI("suite", "-n", "3,8", "--sizes", "8,1KiB", "--json");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  struct jp p = json_parse(c.out);
  int want = 0;
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
    want += tutti_coll_traits(d->coll) & TUTTI_COLL_DATA ? 2 : 1;
  cr_expect(eq(int, json_array_len(json_get(&p, "results")), 2 * want));
  cr_expect(eq(int, json_array_len(json_get(&p, "ranks_list")), 2));
  cr_expect(eq(int, count(c.out, "\"ranks\":3,\"bytes\""), want), "every result names its P");
  cli_free(&c);

  c = CLI("suite", "-n", "8", "--sizes", "8", "--model", "hockney:alpha=1us,beta=1ns");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  const char *w = strstr(c.out, "\nwinners");
  cr_assert(ne(ptr, (void *)w, NULL), "no summary: %s", c.out);
  /* gather at 8 ranks, 8 B under Hockney: binomial's 3 start-ups beat
   * the lambda-tree's 4 and the flat tree's 7 */
  HAS(w, "gather");
  const char *g = strstr(w, "  gather");
  cr_assert(ne(ptr, (void *)g, NULL));
  cr_expect(eq(int, strncmp(strstr(g, "binomial"), "binomial", 8), 0));
  cr_expect(lt(ptr, (void *)strstr(g, "binomial"), (void *)strchr(g, '\n')),
            "gather's winner is binomial: %s", g);
  for (int k = 0; k < TUTTI_COLL_N; k++) {
    char line[64];
    snprintf(line, sizeof line, "\n  %s", tutti_coll_name(k));
    HAS(w, line);
  }
  cli_free(&c);
}

Test(suite, csv_on_stdout, .timeout = 120) {
  struct cli c = CLI("suite", "-n", "4", "-m", "8", "--csv", "-");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_expect(eq(int, strncmp(c.out, "collective,algorithm,", 21), 0), "%s", c.out);
  int n = 0;
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) n++;
  cr_expect(eq(int, count(c.out, "\n"), n + 1), "a header and a row per algorithm");
  cr_expect(eq(ptr, (void *)strstr(c.out, "winners"), NULL), "no table");
  cli_free(&c);
}

Test(suite, plot_a_panel_per_collective, .timeout = 120) {
  if (system("command -v gnuplot >/dev/null 2>&1")) cr_skip_test("gnuplot is not installed");
  char path[] = "/tmp/tutti_test_suite_XXXXXX.svg";
  int fd = mkstemps(path, 4);
  cr_assert(ge(int, fd, 0));
  close(fd);
  struct cli c = CLI("suite", "-n", "4", "--plot", path);
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  fd = open(path, O_RDONLY);
  char *svg = slurp(fd);
  for (int k = 0; k < TUTTI_COLL_N; k++) {
    char title[64];
    snprintf(title, sizeof title, ">%s<", tutti_coll_name(k));
    if (tutti_coll_traits(k) & TUTTI_COLL_DATA)
      cr_expect(eq(int, count(svg, title), 1), "a panel titled %s", tutti_coll_name(k));
  }
  free(svg);
  unlink(path);
  cli_free(&c);
}

Test(suite, bad_input, .timeout = 30) {
  fails_with(CLI("suite", "-m", "8", "--sizes", "8,16"), 2, "exclude each other");
  fails_with(CLI("suite", "-n", "0"), 2, "'0' is not a rank count");
  fails_with(CLI("suite", "--plot", "a.gif"), 2, ".svg");
  fails_with(CLI("suite", "--json", "--csv", "-"), 2, "--csv");
}

/* A row of a CSV sweep whose (algorithm_spec, ranks, bytes) are those given. */
static int find_row(const char *csv, const char *spec, const char *ranks, const char *bytes,
                    char f[][256]) {
  char *copy = strdup(csv), *s = copy, *l;
  int found = 0;
  next_line(&s); /* the header */
  while (!found && (l = next_line(&s)))
    found = csv_fields(l, f, NCOLS + 1) == NCOLS && !strcmp(f[2], spec) && !strcmp(f[3], ranks) &&
            !strcmp(f[4], bytes);
  free(copy);
  return found;
}

/* A timing-only sweep runs `auto` once per (P, m) fewer: its row carries
 * the figures of the row that ran its choice, and says so. That the two
 * are the same run is checked against a data sweep, where auto runs
 * itself: its modeled time and messages equal the named row's. */
Test(sweep, no_data_auto_takes_its_choices_run, .timeout = 240) {
  const char *colls[] = {"bcast",    "allreduce", "gather", "reduce_scatter",
                         "alltoall", "scan",      "exscan"};
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  const int ncolls = 2, nsizes = 2; /* instrumented data runs of 1 MiB are slow */
  const char *sizes = "8,64KiB";
#else
  const int ncolls = 7, nsizes = 3;
  const char *sizes = "8,64KiB,1MiB";
#endif
  for (int c = 0; c < ncolls; c++) {
    struct cli nd =
        CLI("sweep", colls[c], "--ranks", "12", "--sizes", sizes, "--no-data", "--csv", "-");
    struct cli da = CLI("sweep", colls[c], "--ranks", "12", "--sizes", sizes, "--csv", "-");
    cr_assert(eq(int, nd.status, 0), "%s", nd.err);
    cr_assert(eq(int, da.status, 0), "%s", da.err);
    /* next_line cuts the text it walks: walk a copy, search the original */
    char *walk = strdup(nd.out), *s = walk, *l, f[NCOLS + 1][256], g[NCOLS + 1][256],
         h[NCOLS + 1][256];
    int autos = 0;
    next_line(&s);
    while ((l = next_line(&s))) {
      cr_assert(eq(int, csv_fields(l, f, NCOLS + 1), NCOLS), "row: %s", l);
      if (strcmp(f[1], "auto")) {
        cr_expect(eq(str, f[12], ""), "only auto rows borrow a run: %s", l);
        continue;
      }
      autos++;
      const char *pre = "the run of ", *post = ", auto's choice";
      size_t n = strlen(f[12]);
      cr_assert(eq(int, strncmp(f[12], pre, strlen(pre)), 0), "auto's note: %s", l);
      cr_assert(gt(sz, n, strlen(pre) + strlen(post)));
      cr_assert(eq(str, f[12] + n - strlen(post), (char *)post), "%s", l);
      char spec[256];
      snprintf(spec, sizeof spec, "%.*s", (int)(n - strlen(pre) - strlen(post)),
               f[12] + strlen(pre));
      cr_assert(find_row(nd.out, spec, f[3], f[4], g), "%s: no row %s", colls[c], spec);
      for (int k = 6; k <= 9; k++) /* modeled_time, wall_time, messages, bytes_moved */
        cr_expect(eq(str, f[k], g[k]), "%s column %s: auto %s, %s %s", colls[c], header[k], f[k],
                  spec, g[k]);
      /* with data, auto runs itself and lands on the same figures */
      cr_assert(find_row(da.out, "auto", f[3], f[4], g), "%s: data auto row", colls[c]);
      cr_assert(find_row(da.out, spec, f[3], f[4], h), "%s: data %s row", colls[c], spec);
      cr_expect(eq(str, g[12], ""), "a data run's auto runs itself: %s", g[12]);
      cr_expect(eq(str, g[6], h[6]), "%s m=%s: auto %s, %s %s", colls[c], f[4], g[6], spec, h[6]);
      cr_expect(eq(str, g[8], h[8]), "%s m=%s messages", colls[c], f[4]);
      cr_expect(eq(str, g[10], "true"));
    }
    cr_expect(eq(int, autos, nsizes), "%s: one auto row per size", colls[c]);
    free(walk);
    cli_free(&nd);
    cli_free(&da);
  }
}

/*
 * test_unit_plot.c -- bench/plot.c: the gnuplot plots of the study and
 * lecture benchmarks. With gnuplot installed (.ci/run installs
 * gnuplot-nox) the SVG must carry every panel, series and axis label and a
 * line per series; without it (TUTTI_GNUPLOT naming a program that does
 * not exist) plot_write returns 1 after one line saying how to install it
 * and writes nothing; a gnuplot that fails or draws nothing is 3.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot.c" /* bench/: compiled in */

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *s = malloc((size_t)n + 1);
  s[fread(s, 1, (size_t)n, f)] = '\0';
  fclose(f);
  return s;
}

static int count(const char *s, const char *what) {
  int n = 0;
  for (const char *q = s; (q = strstr(q, what)); q++) n++;
  return n;
}

static plot_t *sample(void) {
  plot_t *p = plot_new("bcast, modeled", "message size", "modeled time");
  cr_assert(p != NULL);
  const char *panels[] = {"P = 8", "P = 32"}, *algos[] = {"binomial", "pipelined-chain", "o'flat"};
  for (int k = 0; k < 2; k++)
    for (int a = 0; a < 3; a++)
      for (double m = 8; m <= 64 << 20; m *= 8)
        cr_assert(
            eq(int, plot_add(p, panels[k], algos[a], m, 1e-6 * (a + 1) * (k + 1) + m * 1e-9), 0));
  return p;
}

Test(plot, format_from_extension) {
  cr_expect(eq(str, (char *)plot_format("a/b.svg"), "svg"));
  cr_expect(eq(str, (char *)plot_format("b.png"), "png"));
  cr_expect(plot_format("b.pdf") == NULL);
  cr_expect(plot_format("svg") == NULL);
  cr_expect(plot_format(NULL) == NULL);
}

Test(plot, refuses_other_extensions, .timeout = 10) {
  plot_t *p = sample();
  FILE *f = tmpfile();
  cr_assert(f != NULL);
  cr_expect(eq(int, plot_write(p, "/tmp/x.pdf", f, "test"), 2));
  cr_expect(eq(long, ftell(f), 0L), "nothing is written");
  fclose(f);
  plot_free(p);
}

/* Points that log axes cannot show are left out, not drawn at 0. */
Test(plot, drops_points_off_log_axes) {
  plot_t *p = plot_new("t", "x", "y");
  cr_assert(eq(int, plot_add(p, "P", "s", 0, 1), 0));
  cr_assert(eq(int, plot_add(p, "P", "s", 8, -1), 0));
  cr_assert(eq(int, plot_add(p, "P", "s", 8, NAN), 0));
  cr_expect(eq(sz, p->n, 0));
  cr_assert(eq(int, plot_add(p, "P", "s", 8, 1e-6), 0));
  cr_expect(eq(sz, p->n, 1));
  plot_free(p);
}

Test(plot, without_gnuplot_says_how_to_install, .timeout = 10) {
  setenv("TUTTI_GNUPLOT", "/nonexistent/gnuplot", 1);
  plot_t *p = sample();
  FILE *f = tmpfile();
  cr_assert(f != NULL);
  cr_expect(eq(int, plot_write(p, "x.svg", f, "test"), 1));
  cr_expect(eq(long, ftell(f), 0L), "nothing is written: the caller leaves no file");
  fclose(f);
  plot_free(p);
  unsetenv("TUTTI_GNUPLOT");
}

/* A gnuplot that fails, or exits 0 having drawn nothing, is a failure:
 * the picture is what came back on its standard output. */
Test(plot, gnuplot_failing_or_drawing_nothing_is_3, .timeout = 10) {
  plot_t *p = sample();
  const char *progs[] = {"false", "true"};
  for (int i = 0; i < 2; i++) {
    setenv("TUTTI_GNUPLOT", progs[i], 1);
    FILE *f = tmpfile();
    cr_assert(f != NULL);
    cr_expect(eq(int, plot_write(p, "x.svg", f, "test"), 3), "TUTTI_GNUPLOT=%s", progs[i]);
    fclose(f);
  }
  unsetenv("TUTTI_GNUPLOT");
  plot_free(p);
}

Test(plot, svg_has_every_panel_series_and_label, .timeout = 30) {
  if (system("command -v gnuplot >/dev/null 2>&1")) cr_skip_test("gnuplot is not installed");
  plot_t *p = sample();
  char out[] = "/tmp/tutti-plot-test-XXXXXX.svg";
  int fd = mkstemps(out, 4);
  cr_assert(fd >= 0);
  FILE *f = fdopen(fd, "w");
  cr_assert(f != NULL);
  cr_assert(eq(int, plot_write(p, out, f, "test"), 0));
  cr_assert(eq(int, fclose(f), 0));
  char *svg = slurp(out);
  cr_assert(svg != NULL);
  cr_expect(strstr(svg, "<svg") != NULL);
  cr_expect(strstr(svg, "</svg>") != NULL, "the picture is whole");
  const char *want[] = {"P = 8",           "P = 32",       "binomial",
                        "pipelined-chain", "message size", "modeled time",
                        "bcast, modeled",  "1KiB",         "1MiB"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    cr_expect(strstr(svg, want[i]) != NULL, "the SVG lacks '%s'", want[i]);
  /* one titled line per series in each of the two panels */
  cr_expect(eq(int, count(svg, ">binomial<"), 2));
  cr_expect(eq(int, count(svg, "flat<"), 2), "the quote in o'flat survives");
  free(svg);
  unlink(out);
  plot_free(p);
}

/*
 * test_unit_calib.c -- the piecewise Hockney fit of calibration
 * (bench/calib.c) on synthetic ping-pong curves with known steps: a clean
 * curve of two or three pieces gives back its breaks and coefficients,
 * noise of a few percent still finds the step and nothing more, a single
 * line stays one piece, a range's line is the one of least largest
 * relative error, breaks fall between different sizes only and
 * leave >= 2 sizes per range, eager_limit is the first step up by a
 * small message's time (not a smaller one); and the profile written has the shape
 * bench/CLI.md states (eager_limit, the four costs in pieces, the
 * measurements as comments), in lines a profile takes even with 5 pieces,
 * that load into a model whose costs are the fit's.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "calib.c" /* bench/: compiled in */

#define NS 22 /* 8 B .. 16 MiB, doubling */

struct line {
  size_t from;
  double a, b;
};

/* y at the sizes 8 << i from the pieces (from ascending, the first 0),
 * times (1 + noise * w_i) with w_i a fixed pattern in [-1, 1]. */
static void curve(const struct line *l, int nl, double noise, size_t *x, double *y) {
  static const double w[] = {1, -1, 0.5, -0.5, 0, 1, -1, 0.25, -0.75, 0.75, -0.25};
  for (int i = 0; i < NS; i++) {
    x[i] = (size_t)8 << i;
    int k = 0;
    while (k + 1 < nl && l[k + 1].from <= x[i]) k++;
    y[i] = (l[k].a + l[k].b * (double)x[i]) * (1 + noise * w[i % 11]);
  }
}

static void same(double got, double want, const char *what) {
  cr_assert(fabs(got - want) <= 1e-6 * want, "%s: %g, want %g", what, got, want);
}

Test(calib, a_clean_step_is_found_with_both_lines, .timeout = 10) {
  const struct line l[] = {{0, 1e-6, 1e-10}, {4096, 3e-6, 8e-11}};
  size_t x[NS];
  double y[NS];
  curve(l, 2, 0, x, y);
  struct calib_pieces pw;
  cr_assert(eq(int, calib_fit_pieces(x, y, NS, CALIB_TOLERANCE, &pw), 0));
  cr_assert(eq(int, pw.n, 2), "%d pieces", pw.n);
  cr_assert(pw.p[0].from == 8 && pw.p[0].to == 2048 && pw.p[1].from == 4096 &&
                pw.p[1].to == (size_t)16 << 20,
            "ranges %zu..%zu, %zu..%zu", pw.p[0].from, pw.p[0].to, pw.p[1].from, pw.p[1].to);
  same(pw.p[0].fit.a, 1e-6, "alpha below");
  same(pw.p[0].fit.b, 1e-10, "beta below");
  same(pw.p[1].fit.a, 3e-6, "alpha above");
  same(pw.p[1].fit.b, 8e-11, "beta above");
  cr_assert(pw.max_rel < 1e-9 && pw.rms_rel <= pw.max_rel, "errors %g %g", pw.max_rel, pw.rms_rel);
  same(calib_pieces_at(&pw, 4095), 1e-6 + 1e-10 * 4095, "the model below the step");
  same(calib_pieces_at(&pw, 4096), 3e-6 + 8e-11 * 4096, "the model at the step");
  same(calib_pieces_at(&pw, 1), 1e-6 + 1e-10, "the model below the smallest size");
}

Test(calib, a_change_of_slope_is_a_step_too, .timeout = 10) {
  /* 4 KiB: a jump; 1 MiB: the slope falls from 0.08 to 0.05 ns/B (and 5 us
   * more there, so that 1 MiB itself is on one line only) */
  const struct line c[] = {
      {0, 1e-6, 1e-10}, {4096, 3e-6, 8e-11}, {1 << 20, 3e-6 + 3e-11 * 1048576 + 5e-6, 5e-11}};
  size_t x[NS];
  double y[NS];
  curve(c, 3, 0, x, y);
  struct calib_pieces pw;
  cr_assert(eq(int, calib_fit_pieces(x, y, NS, CALIB_TOLERANCE, &pw), 0));
  cr_assert(eq(int, pw.n, 3), "%d pieces", pw.n);
  cr_assert(pw.p[1].from == 4096 && pw.p[2].from == 1 << 20, "steps %zu, %zu", pw.p[1].from,
            pw.p[2].from);
  same(pw.p[2].fit.a, c[2].a, "alpha above 1 MiB");
  same(pw.p[2].fit.b, 5e-11, "beta above 1 MiB");
  cr_assert(pw.max_rel < 1e-9, "error %g", pw.max_rel);
}

Test(calib, noise_of_a_few_percent_finds_the_step_and_no_other, .timeout = 10) {
  const struct line l[] = {{0, 1e-6, 1e-10}, {8192, 4e-6, 8e-11}};
  size_t x[NS];
  double y[NS];
  for (int s = 0; s < 3; s++) {
    double noise = 0.01 * (s + 1); /* +-1%, 2%, 3% */
    curve(l, 2, noise, x, y);
    struct calib_pieces pw;
    cr_assert(eq(int, calib_fit_pieces(x, y, NS, CALIB_TOLERANCE, &pw), 0));
    cr_assert(eq(int, pw.n, 2), "noise %g: %d pieces", noise, pw.n);
    cr_assert(pw.p[1].from == 8192, "noise %g: the step at %zu", noise, pw.p[1].from);
    cr_assert(pw.max_rel <= 2 * noise * 1.01 && pw.max_rel <= CALIB_TOLERANCE, "noise %g: error %g",
              noise, pw.max_rel);
    /* one line over both would be off by far more */
    struct calib_fit one;
    cr_assert(eq(int, calib_fit(x, y, NS, &one), 0));
    cr_assert(one.max_rel > 3 * pw.max_rel, "one line %g, pieces %g", one.max_rel, pw.max_rel);
  }
}

Test(calib, a_single_line_is_one_piece, .timeout = 10) {
  const struct line l[] = {{0, 2e-6, 1e-9}};
  size_t x[NS];
  double y[NS];
  curve(l, 1, 0.02, x, y);
  struct calib_pieces pw;
  cr_assert(eq(int, calib_fit_pieces(x, y, NS, CALIB_TOLERANCE, &pw), 0));
  cr_assert(eq(int, pw.n, 1), "%d pieces", pw.n);
  cr_assert(pw.p[0].from == 8 && pw.p[0].to == (size_t)16 << 20);
  struct calib_fit one;
  cr_assert(eq(int, calib_fit(x, y, NS, &one), 0));
  cr_assert(pw.max_rel <= one.max_rel, "the piece %g, least squares %g", pw.max_rel, one.max_rel);
  cr_assert(fabs(pw.p[0].fit.a - 2e-6) <= 0.02 * 2e-6 && fabs(pw.p[0].fit.b - 1e-9) <= 0.02 * 1e-9,
            "within the noise: alpha %g, beta %g", pw.p[0].fit.a, pw.p[0].fit.b);
}

Test(calib, a_range_s_line_has_the_least_largest_error, .timeout = 10) {
  /* 1, 0.8, 1: the Chebyshev line is flat at 8/9 (errors +-1/9 alternating);
   * least squares weighted 1/y^2 sits at 0.912, 14% off the middle point */
  size_t x[] = {64, 128, 192};
  double y[] = {1e-6, 0.8e-6, 1e-6};
  struct calib_pieces pw;
  cr_assert(eq(int, calib_fit_pieces(x, y, 3, 0.2, &pw), 0));
  cr_assert(eq(int, pw.n, 1), "%d pieces", pw.n);
  same(pw.max_rel, 1.0 / 9, "the largest error");
  same(pw.p[0].fit.a, 8e-6 / 9, "alpha");
  cr_assert(pw.p[0].fit.b == 0, "beta %g", pw.p[0].fit.b);
  struct calib_fit one;
  cr_assert(eq(int, calib_fit(x, y, 3, &one), 0));
  cr_assert(one.max_rel > 0.13, "least squares: %g", one.max_rel);
}

Test(calib, ranges_hold_two_sizes_and_break_between_different_sizes, .timeout = 10) {
  /* the jump at the last size cannot be a range of its own */
  size_t x[] = {8, 16, 32, 64, 128, 256};
  double y[] = {1e-6, 1e-6, 1e-6, 1e-6, 1e-6, 9e-6};
  struct calib_pieces pw;
  cr_assert(eq(int, calib_fit_pieces(x, y, 6, CALIB_TOLERANCE, &pw), 0));
  for (int k = 0; k < pw.n; k++)
    cr_assert(pw.p[k].from < pw.p[k].to, "range %d: %zu..%zu", k, pw.p[k].from, pw.p[k].to);
  /* equal sizes stay in one range: a step between them has no size */
  size_t xd[] = {8, 8, 64, 64, 512, 512, 4096, 4096};
  double yd[] = {1e-6, 1e-6, 1e-6, 5e-6, 9e-6, 9e-6, 2e-5, 2e-5};
  cr_assert(eq(int, calib_fit_pieces(xd, yd, 8, CALIB_TOLERANCE, &pw), 0));
  for (int k = 1; k < pw.n; k++)
    cr_assert(pw.p[k].from > pw.p[k - 1].to, "range %d: %zu after %zu", k, pw.p[k].from,
              pw.p[k - 1].to);
  cr_assert(eq(int, calib_fit_pieces(x, y, 1, CALIB_TOLERANCE, &pw), TUTTI_EINVAL));
  size_t xu[] = {64, 8, 16};
  cr_assert(eq(int, calib_fit_pieces(xu, y, 3, CALIB_TOLERANCE, &pw), TUTTI_EINVAL),
            "sizes out of order");
}

static const struct line two[] = {{0, 1e-6, 1e-10}, {4096, 3e-6, 8e-11}};
/* five pieces, as Open MPI's shared memory measured here */
static const struct line five[] = {{0, 4.84502123e-7, 1.48567e-10},
                                   {512, 7.3327e-7, 1.98444e-10},
                                   {4096, 4.55492e-6, 1.11041e-10},
                                   {1 << 20, 1.778e-6, 1.4801e-10},
                                   {4 << 20, 2.60296e-3, 9.91472e-10}};

/* A calibration of a curve as calib_measure would leave it, sizes given
 * out of order (analysis sorts them). */
static void data(struct calib_data *d, const struct line *l, int nl) {
  size_t x[NS];
  double y[NS];
  curve(l, nl, 0, x, y);
  memset(d, 0, sizeof *d);
  d->n = NS;
  for (int i = 0; i < NS; i++) {
    int j = (i * 5) % NS; /* 5 and 22 coprime: a permutation */
    d->bytes[j] = x[i], d->pp[j] = y[i], d->gap[j] = 0.5 * y[i];
  }
  d->o_send = 2e-7;
}

static char *profile(const struct calib_data *d, const struct calib_result *res) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  cr_assert(ne(ptr, f, NULL));
  calib_write_profile(f, "the test", d, res);
  cr_assert(eq(int, fclose(f), 0));
  return text;
}

static int count(const char *text, const char *sub) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, sub)); p++) n++;
  return n;
}

Test(calib, the_profile_has_eager_limit_costs_in_pieces_and_the_data, .timeout = 10) {
  struct calib_data d;
  struct calib_result res;
  data(&d, two, 2);
  cr_assert(eq(int, calib_analyze(&d, &res), 0));
  cr_assert(eq(int, res.pw.n, 2));
  cr_assert(res.eager_limit == 4096, "eager_limit %zu", res.eager_limit);
  cr_assert(res.hockney.max_rel > 0.1, "one line fits a step: %g", res.hockney.max_rel);
  char *t = profile(&d, &res);
  cr_assert(ne(ptr, strstr(t, "[model]\npreset = hockney\nalpha = "), NULL), "%s", t);
  cr_assert(ne(ptr, strstr(t, "\neager_limit = 4096\n"), NULL), "%s", t);
  const char *keys[] = {"\nsend_cpu = ", "\nsend_port = ", "\nlatency = ", "\nrecv_port = "};
  for (int i = 0; i < 4; i++) {
    char *p = strstr(t, keys[i]);
    cr_assert(ne(ptr, p, NULL), "no %s in\n%s", keys[i] + 1, t);
    /* the cost reads back to the fit, to its 9 digits */
    char line[256], err[256] = "";
    size_t len = strcspn(p + strlen(keys[i]), "\n");
    cr_assert(len < 198 - strlen(keys[i]), "a line longer than a profile takes: %s", p);
    memcpy(line, p + strlen(keys[i]), len);
    line[len] = 0;
    tutti_cost_t c;
    cr_assert(eq(int, tutti_parse_cost(line, 0, &c, err, sizeof err), 0), "%s: %s", line, err);
    cr_assert(eq(int, c.pieces, 1), "%s", line);
    cr_assert(c.piece[0].from == 4096 && strstr(line, "| from 4KiB: "), "%s", line);
    for (int k = 0; k < NS; k++) {
      double m = (double)((size_t)8 << k), want = calib_pieces_at(&res.pw, m);
      cr_assert(fabs(tutti_cost_eval(&c, m) - want) <= 1e-8 * want, "%s at %g B", line, m);
    }
  }
  cr_assert(eq(int, count(t, "recv_cpu"), 0));
  cr_assert(eq(int, count(t, "\n;   "), NS + 2), "a comment per size and per range:\n%s", t);
  cr_assert(ne(ptr, strstr(t, ";   4096 "), NULL), "%s", t);
  free(t);

  data(&d, two, 1);
  cr_assert(eq(int, calib_analyze(&d, &res), 0));
  cr_assert(eq(int, res.pw.n, 1));
  t = profile(&d, &res);
  cr_assert(ne(ptr, strstr(t, "\neager_limit = 0\n"), NULL), "%s", t);
  cr_assert(eq(ptr, strstr(t, "latency"), NULL), "one piece: the preset's costs\n%s", t);
  free(t);
}

Test(calib, eager_limit_is_a_step_up_by_a_small_message_s_time, .timeout = 10) {
  struct calib_data d;
  struct calib_result res;
  /* the slope alone falls at 64 KiB (a faster copy): a range, no rendezvous */
  const struct line slope[] = {{0, 1e-6, 1e-10}, {65536, 1e-6 + 5e-11 * 65536, 5e-11}};
  data(&d, slope, 2);
  cr_assert(eq(int, calib_analyze(&d, &res), 0));
  cr_assert(eq(int, res.pw.n, 2), "%d pieces", res.pw.n);
  cr_assert(res.eager_limit == 0, "eager_limit %zu", res.eager_limit);
  /* a jump of 1.9 us at 4 KiB, more than 8 B's 1 us: rendezvous */
  data(&d, two, 2);
  cr_assert(eq(int, calib_analyze(&d, &res), 0));
  cr_assert(res.eager_limit == 4096, "eager_limit %zu", res.eager_limit);
}

/* Read back by the profile reader, five pieces (the most a cost has) in
 * lines it takes: the model's costs are the fit. */
/* The profile text t (freed) through a file and tutti_profile_load. */
static void load(char *t, tutti_profile_t *prof) {
  char path[] = "/tmp/tutti-unit-calib-XXXXXX.ini";
  int fd = mkstemps(path, 4);
  cr_assert(fd >= 0);
  cr_assert(eq(int, (int)write(fd, t, strlen(t)), (int)strlen(t)));
  close(fd);
  free(t);
  char err[512] = "";
  int rc = tutti_profile_load(path, prof, err, sizeof err);
  unlink(path);
  cr_assert(eq(int, rc, 0), "the profile does not load: %s", err);
}

Test(calib, the_profile_loads_into_the_fitted_model, .timeout = 10) {
  struct calib_data d;
  struct calib_result res;
  data(&d, five, 5);
  cr_assert(eq(int, calib_analyze(&d, &res), 0));
  cr_assert(eq(int, res.pw.n, 5));
  for (int k = 0; k < 5; k++)
    cr_assert(res.pw.p[k].from == (k ? five[k].from : 8), "piece %d from %zu", k, res.pw.p[k].from);
  char *t = profile(&d, &res);
  for (const char *p = t; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) {
    int len = (int)strcspn(p, "\n"); /* comments too: topo/ini.c reads every line */
    cr_assert(len <= 197, "a line too long: %.*s", len, p);
  }
  tutti_profile_t prof;
  load(t, &prof);
  /* 512 B: up by 0.27 us, less than 8 B's 0.49 us, a piece only; 4 KiB: up
   * by 3.45 us, the switch to rendezvous */
  cr_assert(prof.model.eager_limit == 4096, "eager_limit %zu", prof.model.eager_limit);
  const tutti_cost_t *cs[] = {&prof.model.send_cpu, &prof.model.send_port, &prof.model.latency,
                              &prof.model.recv_port};
  for (int i = 0; i < 4; i++) {
    cr_assert(eq(int, cs[i]->pieces, 4), "cost %d", i);
    for (int j = 0; j < d.n; j++) {
      /* 7 digits fit five pieces in a line */
      double m = (double)d.bytes[j], want = calib_pieces_at(&res.pw, m);
      cr_assert(fabs(tutti_cost_eval(cs[i], m) - want) <= 1e-6 * want, "cost %d at %g B", i, m);
    }
  }
  cr_assert(eq(int, (int)tutti_cost_eval(&prof.model.recv_cpu, 4096), 0));
}

/* A range steeper than a line through 0 (caches left behind): its alpha
 * comes out negative, as it is, and the profile reads it back. */
Test(calib, a_steep_last_range_keeps_its_negative_alpha, .timeout = 10) {
  static const struct line steep[] = {{0, 1e-6, 1e-10}, {8 << 20, -1e-3, 2.5e-10}};
  struct calib_data d;
  struct calib_result res;
  data(&d, steep, 2);
  cr_assert(eq(int, calib_analyze(&d, &res), 0));
  cr_assert(eq(int, res.pw.n, 2), "%d pieces", res.pw.n);
  cr_assert(res.pw.p[1].from == (size_t)8 << 20, "from %zu", res.pw.p[1].from);
  cr_assert(fabs(res.pw.p[1].fit.a + 1e-3) <= 1e-9, "alpha %g", res.pw.p[1].fit.a);
  cr_assert(res.pw.max_rel < 1e-6, "error %g", res.pw.max_rel);
  char *t = profile(&d, &res);
  tutti_profile_t prof;
  load(t, &prof);
  for (int j = 0; j < d.n; j++) {
    double m = (double)d.bytes[j], want = calib_pieces_at(&res.pw, m);
    cr_assert(fabs(tutti_cost_eval(&prof.model.latency, m) - want) <= 1e-6 * want, "at %g B", m);
  }
  /* the first range through 0 or above: a negative one is refitted */
  static const struct line low[] = {{0, -1e-7, 1e-9}};
  data(&d, low, 1);
  cr_assert(eq(int, calib_analyze(&d, &res), 0));
  cr_assert(res.pw.p[0].fit.a >= 0, "first alpha %g", res.pw.p[0].fit.a);
}

Test(calib, eager_limit_comes_from_the_data_where_a_range_spans_the_jump, .timeout = 10) {
  /* Open MPI 4.1's shared memory, 8 B..16 MiB, measured here: 2 KiB stands
   * alone between two levels, so its range takes 4 KiB and its line spans
   * the jump to rendezvous; the last sizes grow faster than a line (no
   * jump: the slope rises) */
  static const double us[NS] = {0.491,  0.541,   0.531,  0.551,   0.561,  0.566,   0.952,   0.927,
                                1.337,  5.6355,  6.127,  7.1085,  9.388,  13.8465, 21.7465, 37.9875,
                                74.417, 157.531, 327.77, 728.467, 1712.1, 3583.21};
  struct calib_data d = {.n = NS, .o_send = 1e-7};
  for (int i = 0; i < NS; i++)
    d.bytes[i] = (size_t)8 << i, d.pp[i] = us[i] * 1e-6, d.gap[i] = 0.5 * d.pp[i];
  struct calib_result res;
  cr_assert(eq(int, calib_analyze(&d, &res), 0));
  int spans = 0;
  for (int k = 0; k < res.pw.n; k++) spans |= res.pw.p[k].from == 2048 && res.pw.p[k].to == 4096;
  cr_assert(spans, "no range 2 KiB..4 KiB: the case this checks is gone");
  cr_assert(res.eager_limit == 4096, "eager_limit %zu", res.eager_limit);
  cr_assert(res.pw.max_rel <= 0.10, "the largest error %g", res.pw.max_rel);
  cr_assert(res.hockney.max_rel > 0.5, "one line %g", res.hockney.max_rel);
}

/*
 * test_e2e_calibrate.c -- calibration (bench/calib.c, `tutti calibrate`):
 * the least-squares fit recovers an exact line and is optimal for noisy
 * data (moving either parameter makes the weighted residuals worse), and a
 * calibration of the thread runtime writes a profile whose modeled
 * ping-pong -- a real modeled world under that profile, its costs in
 * pieces between the steps found, read back by tutti_profile_load -- is
 * within the piecewise fit's stated error of every ping-pong time
 * measured; the command prints the fit per range and writes a profile
 * `tutti run` reads, and refuses bad input. (The piecewise fit itself:
 * test_unit_calib.c.)
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "calib.c" /* bench/: compiled in */
#include "cli_helpers.h"

static double wss(const size_t *x, const double *y, int n, double a, double b) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double e = (a + b * (double)x[i] - y[i]) / y[i];
    s += e * e;
  }
  return s;
}

Test(calibrate, fit_recovers_an_exact_line, .timeout = 10) {
  size_t x[12];
  double y[12];
  for (int i = 0; i < 12; i++) x[i] = (size_t)8 << (2 * i), y[i] = 2e-6 + 1e-9 * (double)x[i];
  struct calib_fit f;
  cr_assert_eq(calib_fit(x, y, 12, &f), 0);
  cr_assert(fabs(f.a - 2e-6) < 1e-15 && fabs(f.b - 1e-9) < 1e-18, "a %g b %g", f.a, f.b);
  cr_assert(f.max_rel < 1e-9 && f.rms_rel <= f.max_rel, "errors %g %g", f.max_rel, f.rms_rel);
  cr_assert_eq(calib_fit(x, y, 1, &f), TUTTI_EINVAL, "one point fits no line");
}

Test(calibrate, fit_is_optimal_and_its_error_is_the_largest_residual, .timeout = 10) {
  size_t x[10];
  double y[10];
  for (int i = 0; i < 10; i++) {
    x[i] = (size_t)64 << i;
    y[i] = (3e-6 + 2e-10 * (double)x[i]) * (1 + 0.1 * ((i * 7) % 5 - 2) / 2.0);
  }
  struct calib_fit f;
  cr_assert_eq(calib_fit(x, y, 10, &f), 0);
  double best = wss(x, y, 10, f.a, f.b), mx = 0;
  for (int s = -1; s <= 1; s += 2) {
    cr_assert(wss(x, y, 10, f.a * (1 + 0.01 * s), f.b) > best, "moving a improves the fit");
    cr_assert(wss(x, y, 10, f.a, f.b * (1 + 0.01 * s)) > best, "moving b improves the fit");
  }
  for (int i = 0; i < 10; i++) {
    double e = fabs(f.a + f.b * (double)x[i] - y[i]) / y[i];
    if (e > mx) mx = e;
  }
  cr_assert(fabs(f.max_rel - mx) < 1e-12 && f.max_rel > 0.01, "stated %g, largest %g", f.max_rel,
            mx);
}

static double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

struct job {
  const size_t *sizes;
  int n;
  struct calib_data d;
  long bytes; /* the modeled ping-pong's size */
};

static int measure(tutti_rank_t *r, void *arg) {
  struct job *j = arg;
  return calib_measure(r, j->sizes, j->n, 9, 4, mono, &j->d);
}

/* One message of j->bytes from rank 0 to 1: its modeled time is the
 * profile's one-way prediction. */
static int one_message(tutti_rank_t *r, void *arg) {
  struct job *j = arg;
  static char buf[1 << 20];
  if (tutti_rank(r) == 0) return tutti_send(r, buf, j->bytes, TUTTI_BYTE, 1, 0);
  return tutti_recv(r, buf, j->bytes, TUTTI_BYTE, 0, 0, TUTTI_STATUS_IGNORE);
}

Test(calibrate, thread_profile_predicts_the_measured_ping_pong, .timeout = 60) {
  static const size_t sizes[] = {8, 1024, 65536, 262144, 1 << 20};
  struct job j = {.sizes = sizes, .n = 5};
  tutti_config_t cfg = tutti_config_default(2);
  tutti_world_t *w;
  cr_assert_eq(tutti_world_create(&w, &cfg), 0);
  cr_assert_eq(tutti_world_run(w, measure, &j), 0, "%s", tutti_world_error(w));
  tutti_world_destroy(w);
  struct calib_result res;
  cr_assert_eq(calib_analyze(&j.d, &res), 0);
  cr_assert(res.hockney.a > 0 || res.hockney.b > 0, "a fit of nothing");

  char path[] = "/tmp/tutti-calib-XXXXXX.ini";
  int fd = mkstemps(path, 4);
  cr_assert(fd >= 0);
  FILE *f = fdopen(fd, "w");
  calib_write_profile(f, "the test", &j.d, &res);
  cr_assert_eq(fclose(f), 0);
  tutti_profile_t prof;
  char err[512] = "";
  int rc = tutti_profile_load(path, &prof, err, sizeof err);
  unlink(path);
  cr_assert_eq(rc, 0, "the written profile does not load: %s", err);
  cr_assert_eq(prof.model.preset, TUTTI_MODEL_HOCKNEY);

  cfg.model = &prof.model;
  cr_assert_eq(tutti_world_create(&w, &cfg), 0);
  for (int i = 0; i < j.n; i++) {
    j.bytes = (long)sizes[i];
    cr_assert_eq(tutti_world_run(w, one_message, &j), 0, "%s", tutti_world_error(w));
    tutti_report_t rep;
    cr_assert_eq(tutti_world_report(w, &rep), 0);
    double meas = j.d.pp[i], e = fabs(rep.modeled_time - meas) / meas;
    /* the profile's numbers read back exactly; the model's costs are
     * whole picoseconds (runtime/MODEL.md "Time base"), each cost rounded
     * once: 2 ps, relative to the time measured, covers them */
    cr_assert(e <= res.pw.max_rel + 2e-12 / meas + 1e-9,
              "%zu B: modeled %g s, measured %g s: off by %.3g, the fit states %.3g", sizes[i],
              rep.modeled_time, meas, e, res.pw.max_rel);
  }
  tutti_world_destroy(w);
}

/* `tutti calibrate` end to end: a profile that `tutti run --profile`
 * takes, and bad input refused with exit 2 naming what is accepted. */
Test(calibrate, command_writes_a_profile_run_reads, .timeout = 60) {
  char path[] = "/tmp/tutti-calib-cli-XXXXXX.ini";
  int fd = mkstemps(path, 4);
  cr_assert(fd >= 0);
  close(fd);
  struct cli c = CLI("calibrate", path, "--sizes", "8,64KiB,1MiB", "--iters", "3");
  cr_assert(eq(int, c.status, 0), "stderr: %s", c.err);
  HAS(c.out, "Hockney  alpha");
  HAS(c.out, "fit error: max");
  HAS(c.out, "\nsteps         ");
  HAS(c.out, "\nHockney range");
  HAS(c.out, "one line: max");
  cli_free(&c);
  c = CLI("run", "bcast", "binomial", "-n", "8", "--profile", path);
  cr_assert(eq(int, c.status, 0), "stderr: %s", c.err);
  HAS(c.out, "model         hockney alpha=");
  cli_free(&c);
  unlink(path);
  c = CLI("calibrate", "--sizes", "8");
  fails_with(c, 2, "--sizes: 1 sizes; accepted: 2 to 64 sizes");
  cli_free(&c);
  c = CLI("calibrate", "/nonexistent-dir/x.ini");
  fails_with(c, 2,
             "PROFILE: cannot write '/nonexistent-dir/x.ini': No such file or directory; "
             "accepted: a writable file path");
  cli_free(&c);
}

/*
 * calib.c -- calibration (calib.h): measure, fit, write a profile.
 *
 * Method. Ping-pong: rank 0 sends m bytes to rank 1, which sends them
 * back; one way is half the round trip, the median over reps. Back-to-back:
 * rank 0 sends `burst` messages of m bytes, rank 1 receives them all and
 * answers with an empty message; the time per message is the burst's time
 * over `burst` (the ack's latency spread across it), the median over reps.
 * Hockney: one way = alpha + beta m (ping-pong). LogGP: per message gap =
 * g + G m (back-to-back), o = the time a small blocking send takes at the
 * sender, L = alpha - 2 o. Fits minimize relative residuals (weights 1/y^2)
 * so that alpha comes from the small messages and beta from the large
 * ones; the error stated is the largest and the RMS relative residual.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "stats.h"
#include "tutti/units.h"

int calib_measure(tutti_rank_t *r, const size_t *sizes, int n, int reps, int burst,
                  double (*clock)(void), struct calib_data *d) {
  int me = tutti_rank(r), rc = 0;
  if (me > 1) return 0;
  if (n < 1 || n > CALIB_MAX_SIZES || reps < 1 || burst < 1) return TUTTI_EINVAL;
  size_t max = 0;
  for (int i = 0; i < n; i++)
    if (sizes[i] > max) max = sizes[i];
  unsigned char *buf = calloc(1, max ? max : 1);
  double *t = malloc(sizeof *t * (size_t)reps), *o = malloc(sizeof *o * (size_t)reps);
  if (!buf || !t || !o) {
    free(buf), free(t), free(o);
    return TUTTI_ENOMEM;
  }
  int peer = 1 - me, tag = 7;
  if (me == 0) memset(d, 0, sizeof *d), d->n = n;
  for (int i = 0; i < n && !rc; i++) {
    long m = (long)sizes[i];
    /* ping-pong, one warm-up round first */
    for (int k = -1; k < reps && !rc; k++) {
      double t0 = clock();
      if (me == 0) {
        double s0 = clock();
        if ((rc = tutti_send(r, buf, m, TUTTI_BYTE, peer, tag))) break;
        if (k >= 0) o[k] = clock() - s0;
        rc = tutti_recv(r, buf, m, TUTTI_BYTE, peer, tag, TUTTI_STATUS_IGNORE);
      } else {
        if ((rc = tutti_recv(r, buf, m, TUTTI_BYTE, peer, tag, TUTTI_STATUS_IGNORE))) break;
        rc = tutti_send(r, buf, m, TUTTI_BYTE, peer, tag);
      }
      if (k >= 0) t[k] = (clock() - t0) / 2;
    }
    if (me == 0 && !rc) {
      d->bytes[i] = sizes[i];
      d->pp[i] = bench_median(t, reps);
      if (i == 0) d->o_send = bench_median(o, reps);
    }
    /* back-to-back bursts */
    for (int k = -1; k < reps && !rc; k++) {
      double t0 = clock();
      for (int b = 0; b < burst && !rc; b++)
        rc = me == 0 ? tutti_send(r, buf, m, TUTTI_BYTE, peer, tag)
                     : tutti_recv(r, buf, m, TUTTI_BYTE, peer, tag, TUTTI_STATUS_IGNORE);
      if (rc) break;
      rc = me == 0 ? tutti_recv(r, NULL, 0, TUTTI_BYTE, peer, tag + 1, TUTTI_STATUS_IGNORE)
                   : tutti_send(r, NULL, 0, TUTTI_BYTE, peer, tag + 1);
      if (k >= 0) t[k] = (clock() - t0) / burst;
    }
    if (me == 0 && !rc) d->gap[i] = bench_median(t, reps);
  }
  free(buf), free(t), free(o);
  return rc;
}

int calib_fit(const size_t *x, const double *y, int n, struct calib_fit *f) {
  double S = 0, Sm = 0, Smm = 0, St = 0, Smt = 0;
  int used = 0;
  for (int i = 0; i < n; i++) {
    if (!(y[i] > 0)) continue;
    double w = 1 / (y[i] * y[i]), m = (double)x[i];
    S += w, Sm += w * m, Smm += w * m * m, St += w * y[i], Smt += w * m * y[i];
    used++;
  }
  double det = S * Smm - Sm * Sm;
  if (used < 2 || !(det > 0)) return TUTTI_EINVAL;
  f->a = (Smm * St - Sm * Smt) / det;
  f->b = (S * Smt - Sm * St) / det;
  /* a negative intercept or slope is noise: refit the other alone */
  if (f->a < 0) f->a = 0, f->b = Smt / Smm;
  if (f->b < 0) f->b = 0, f->a = St / S;
  double ss = 0, mx = 0;
  for (int i = 0; i < n; i++) {
    if (!(y[i] > 0)) continue;
    double e = fabs(f->a + f->b * (double)x[i] - y[i]) / y[i];
    ss += e * e;
    if (e > mx) mx = e;
  }
  f->rms_rel = sqrt(ss / used), f->max_rel = mx;
  return 0;
}

int calib_analyze(const struct calib_data *d, struct calib_result *res) {
  int rc;
  memset(res, 0, sizeof *res);
  if ((rc = calib_fit(d->bytes, d->pp, d->n, &res->hockney))) return rc;
  if ((rc = calib_fit(d->bytes, d->gap, d->n, &res->gap))) return rc;
  res->o = d->o_send;
  res->L = res->hockney.a - 2 * res->o;
  if (res->L < 0) res->L = 0;
  return 0;
}

void calib_print(FILE *f, const struct calib_data *d, const struct calib_result *res) {
  char s1[64], s2[64], s3[64], s4[64];
  fprintf(f, "%12s  %14s  %14s  %14s\n", "bytes", "ping-pong 1way", "Hockney fit", "b2b per msg");
  for (int i = 0; i < d->n; i++)
    fprintf(f, "%12s  %14s  %14s  %14s\n", tutti_format_bytes(d->bytes[i], s1, sizeof s1),
            tutti_format_time(d->pp[i], s2, sizeof s2),
            tutti_format_time(res->hockney.a + res->hockney.b * (double)d->bytes[i], s3, sizeof s3),
            tutti_format_time(d->gap[i], s4, sizeof s4));
  fprintf(f, "Hockney  alpha %s, beta %s/B; fit error: max %.1f%%, RMS %.1f%% (relative)\n",
          tutti_format_time(res->hockney.a, s1, sizeof s1),
          tutti_format_time(res->hockney.b, s2, sizeof s2), 100 * res->hockney.max_rel,
          100 * res->hockney.rms_rel);
  fprintf(
      f, "LogGP    L %s, o %s, g %s, G %s/B; gap fit error: max %.1f%%, RMS %.1f%% (relative)\n",
      tutti_format_time(res->L, s1, sizeof s1), tutti_format_time(res->o, s2, sizeof s2),
      tutti_format_time(res->gap.a, s3, sizeof s3), tutti_format_time(res->gap.b, s4, sizeof s4),
      100 * res->gap.max_rel, 100 * res->gap.rms_rel);
}

void calib_write_profile(FILE *f, const char *what, const struct calib_data *d,
                         const struct calib_result *res) {
  fprintf(f, "; calibrated on %s: ping-pong and back-to-back sends, ranks 0 and 1\n", what);
  fprintf(f, "; (tutti calibrate / tutti-mpi calibrate; method in bench/calib.c)\n");
  fprintf(f, "; Hockney fit error: max %.3g, RMS %.3g (relative)\n", res->hockney.max_rel,
          res->hockney.rms_rel);
  fprintf(f, "; LogGP: L = %.6gs, o = %.6gs, g = %.6gs, G = %.6gs per byte (gap fit max %.3g)\n",
          res->L, res->o, res->gap.a, res->gap.b, res->gap.max_rel);
  fprintf(f, "[model]\npreset = hockney\nalpha = %.9gs\nbeta = %.9gs\n", res->hockney.a,
          res->hockney.b);
  fprintf(f, "; measured: bytes, ping-pong one way (s), back-to-back per message (s)\n");
  for (int i = 0; i < d->n; i++)
    fprintf(f, ";   %zu %.9g %.9g\n", d->bytes[i], d->pp[i], d->gap[i]);
}

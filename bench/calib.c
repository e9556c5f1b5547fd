/*
 * calib.c -- calibration (calib.h): measure, fit, write a profile.
 *
 * Method. Ping-pong: rank 0 sends m bytes to rank 1, which sends them
 * back; one way is half the round trip, the median over reps. Back-to-back:
 * rank 0 sends `burst` messages of m bytes, rank 1 receives them all and
 * answers with an empty message; the time per message is the burst's time
 * over `burst` (the ack's latency spread across it), the median over reps.
 * The repetitions run in rounds over the sizes (calib_measure).
 * The one-line fits (calib_fit) minimize relative residuals (weights
 * 1/y^2) so that alpha comes from the small messages and beta from the
 * large ones; a range of the piecewise fit takes the line of least largest
 * relative residual, the error it reports. An error stated is the largest
 * or the RMS relative residual.
 * Hockney, piecewise: one way = alpha_k + beta_k m on the k-th range of
 * sizes. A protocol switch (eager to rendezvous, a pipelined copy) shows
 * as a jump or a change of slope that no single line follows, so the
 * ranges are found from the data: the fewest (up to CALIB_MAX_PIECES, each
 * of >= CALIB_MIN_POINTS sizes) whose largest relative residual is within
 * CALIB_TOLERANCE, else the most (a dynamic program over the sorted sizes
 * minimizing the largest residual); among the splits into that many
 * ranges that stay within the largest residual reached (or the
 * tolerance), the one of least squared residuals places the breaks. Each
 * range starts at a measured size: that is its step, as SimGrid's latency
 * and bandwidth factors change at fixed sizes. eager_limit (the model's
 * switch to rendezvous) is the first size whose time is up from the size
 * before by at least the smallest size's one-way time, beyond the slope
 * beside it: the wait for a control message. A step less than that (an
 * inline send's limit, a cache size) is a piece only. A range
 * after the first may have a negative alpha_k (it grows faster than a
 * line through 0: caches left behind) where its line keeps at least half
 * the time measured at its first size, so the cost stays >= 0 with room
 * for the profile's rounding; the first range's alpha is >= 0.
 * LogGP: per message gap = g + G m (back-to-back, one line), o = the time a
 * small blocking send takes at the sender, L = alpha - 2 o.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "stats.h"
#include "tutti/units.h"

/* One round trip of m bytes between ranks 0 and 1: *t the half of its
 * time, *o (rank 0, o not NULL) the time its send took. */
static int round_trip(tutti_rank_t *r, unsigned char *buf, long m, double (*clock)(void), double *t,
                      double *o) {
  int me = tutti_rank(r), peer = 1 - me, tag = 7, rc;
  double t0 = clock();
  if (me == 0) {
    if ((rc = tutti_send(r, buf, m, TUTTI_BYTE, peer, tag))) return rc;
    if (o) *o = clock() - t0;
    rc = tutti_recv(r, buf, m, TUTTI_BYTE, peer, tag, TUTTI_STATUS_IGNORE);
  } else {
    if ((rc = tutti_recv(r, buf, m, TUTTI_BYTE, peer, tag, TUTTI_STATUS_IGNORE))) return rc;
    rc = tutti_send(r, buf, m, TUTTI_BYTE, peer, tag);
  }
  *t = (clock() - t0) / 2;
  return rc;
}

/* `burst` messages of m bytes from rank 0 to 1, then an empty ack back:
 * *t the time per message. */
static int burst_of(tutti_rank_t *r, unsigned char *buf, long m, int burst, double (*clock)(void),
                    double *t) {
  int me = tutti_rank(r), peer = 1 - me, tag = 7, rc = 0;
  double t0 = clock();
  for (int b = 0; b < burst && !rc; b++)
    rc = me == 0 ? tutti_send(r, buf, m, TUTTI_BYTE, peer, tag)
                 : tutti_recv(r, buf, m, TUTTI_BYTE, peer, tag, TUTTI_STATUS_IGNORE);
  if (rc) return rc;
  rc = me == 0 ? tutti_recv(r, NULL, 0, TUTTI_BYTE, peer, tag + 1, TUTTI_STATUS_IGNORE)
               : tutti_send(r, NULL, 0, TUTTI_BYTE, peer, tag + 1);
  *t = (clock() - t0) / burst;
  return rc;
}

/* Rounds over the sizes: per size, one round trip to warm up and a batch
 * of up to CALIB_BATCH timed ones, then the same for bursts, until each
 * size has reps of each. A load that changes during the run (a shared
 * machine) falls on every size alike, where a block of one size's
 * repetitions would catch one moment of it and put a step between two
 * neighbouring sizes; within a batch the size's caches and protocol state
 * stay warm, as in a ping-pong benchmark. The rounds go up and down the
 * list in turn, so that each batch follows a neighbouring size (or its
 * own), never the largest right before the smallest. */
#define CALIB_BATCH 5
int calib_measure(tutti_rank_t *r, const size_t *sizes, int n, int reps, int burst,
                  double (*clock)(void), struct calib_data *d) {
  int me = tutti_rank(r), rc = 0;
  if (me > 1) return 0;
  if (n < 1 || n > CALIB_MAX_SIZES || reps < 1 || burst < 1) return TUTTI_EINVAL;
  size_t max = 0, nt = (size_t)reps * (size_t)n;
  for (int i = 0; i < n; i++)
    if (sizes[i] > max) max = sizes[i];
  unsigned char *buf = calloc(1, max ? max : 1);
  double *t = malloc(sizeof *t * nt), *g = malloc(sizeof *g * nt),
         *o = malloc(sizeof *o * (size_t)reps), x;
  if (!buf || !t || !g || !o) {
    free(buf), free(t), free(g), free(o);
    return TUTTI_ENOMEM;
  }
  /* an untimed round first: a library sets up a pair's channel on its
   * first messages, which would land in the first batch */
  for (int i = 0; i < n && !rc; i++) {
    rc = round_trip(r, buf, (long)sizes[i], clock, &x, NULL);
    if (!rc) rc = burst_of(r, buf, (long)sizes[i], burst, clock, &x);
  }
  for (int k0 = 0; k0 < reps && !rc; k0 += CALIB_BATCH) {
    int k1 = k0 + CALIB_BATCH < reps ? k0 + CALIB_BATCH : reps;
    for (int q = 0; q < n && !rc; q++) {
      int i = (k0 / CALIB_BATCH) % 2 ? n - 1 - q : q;
      long m = (long)sizes[i];
      double *ti = t + (size_t)i * (size_t)reps, *gi = g + (size_t)i * (size_t)reps;
      rc = round_trip(r, buf, m, clock, &x, NULL);
      for (int k = k0; k < k1 && !rc; k++) rc = round_trip(r, buf, m, clock, &ti[k], NULL);
      if (!rc) rc = burst_of(r, buf, m, burst, clock, &x);
      for (int k = k0; k < k1 && !rc; k++) rc = burst_of(r, buf, m, burst, clock, &gi[k]);
    }
  }
  /* o on round trips of their own: its clock reading stays out of pp */
  for (int k = 0; k < reps && !rc; k++) rc = round_trip(r, buf, (long)sizes[0], clock, &x, &o[k]);
  if (me == 0 && !rc) {
    memset(d, 0, sizeof *d);
    d->n = n;
    for (int i = 0; i < n; i++) {
      d->bytes[i] = sizes[i];
      d->pp[i] = bench_median(t + (size_t)i * (size_t)reps, reps);
      d->gap[i] = bench_median(g + (size_t)i * (size_t)reps, reps);
    }
    d->o_send = bench_median(o, reps);
  }
  free(buf), free(t), free(g), free(o);
  return rc;
}

/* The residuals of the line a + b m over the points, relative: their RMS
 * and largest into *f. */
static void residuals(const size_t *x, const double *y, int n, struct calib_fit *f) {
  double ss = 0, mx = 0;
  int used = 0;
  for (int i = 0; i < n; i++) {
    if (!(y[i] > 0)) continue;
    double e = fabs(f->a + f->b * (double)x[i] - y[i]) / y[i];
    ss += e * e, used++;
    if (e > mx) mx = e;
  }
  f->rms_rel = sqrt(ss / used), f->max_rel = mx;
}

/* Least squares, each point weighing 1/y^2; a negative intercept or
 * slope is noise: the other is refitted alone. */
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
  if (f->a < 0) f->a = 0, f->b = Smt / Smm;
  if (f->b < 0) f->b = 0, f->a = St / S;
  residuals(x, y, n, f);
  return 0;
}

/* For slope b: the intercept a >= lo with the least largest relative
 * residual, and that residual. Above and below the line, the largest
 * residuals rise and fall with a (each a max of lines in a), so the
 * optimum is where they cross, or lo: bisection on their difference. */
static double best_intercept(const size_t *x, const double *y, int n, double b, double lo,
                             double *a) {
  double dmin = INFINITY, dmax = -INFINITY;
  for (int i = 0; i < n; i++)
    if (y[i] > 0)
      dmin = fmin(dmin, y[i] - b * (double)x[i]), dmax = fmax(dmax, y[i] - b * (double)x[i]);
  double l = fmax(lo, dmin), h = fmax(lo, dmax), up = 0, down = 0;
  for (int it = 0; it < 200 && l < h; it++) {
    double mid = l + (h - l) / 2;
    if (mid <= l || mid >= h) break;
    up = down = 0;
    for (int i = 0; i < n; i++) {
      if (!(y[i] > 0)) continue;
      double e = (mid + b * (double)x[i] - y[i]) / y[i];
      up = fmax(up, e), down = fmax(down, -e);
    }
    if (up > down)
      h = mid;
    else
      l = mid;
  }
  *a = l;
  double mx = 0;
  for (int i = 0; i < n; i++)
    if (y[i] > 0) mx = fmax(mx, fabs(l + b * (double)x[i] - y[i]) / y[i]);
  return mx;
}

/* A range's line: the one of least largest relative residual (a Chebyshev
 * fit, the error calibration reports), with slope >= 0 and intercept >= 0;
 * with neg (a range after the first) the intercept may be negative where
 * the line at x[0], the range's first size, keeps at least half the time
 * measured there: a range steeper than a line through 0 (the profile's
 * pieces allow it, runtime/MODEL.md "Pieces"). The largest residual is
 * convex in (a, b), so its minimum over a is convex in b: golden-section
 * search over b in [0, the steepest slope that stays within 2x]. */
static int fit_range(const size_t *x, const double *y, int n, int neg, struct calib_fit *f) {
  int used = 0;
  double ymax = 0;
  size_t xlo = SIZE_MAX, xhi = 0;
  for (int i = 0; i < n; i++)
    if (y[i] > 0) {
      used++, ymax = fmax(ymax, y[i]);
      if (x[i] < xlo) xlo = x[i];
      if (x[i] > xhi) xhi = x[i];
    }
  if (used < 2 || xhi == xlo) return TUTTI_EINVAL;
  const double phi = (sqrt(5) - 1) / 2, x0 = (double)x[0], y0 = y[0] > 0 ? y[0] : 0;
#define LOW(b) (neg ? fmin(0, 0.5 * y0 - (b)*x0) : 0)
  double lo = 0, hi = 2 * ymax / (double)(xhi - xlo), a;
  double b1 = hi - phi * (hi - lo), b2 = lo + phi * (hi - lo);
  double e1 = best_intercept(x, y, n, b1, LOW(b1), &a),
         e2 = best_intercept(x, y, n, b2, LOW(b2), &a);
  for (int it = 0; it < 100; it++)
    if (e1 <= e2)
      hi = b2, b2 = b1, e2 = e1, b1 = hi - phi * (hi - lo),
      e1 = best_intercept(x, y, n, b1, LOW(b1), &a);
    else
      lo = b1, b1 = b2, e1 = e2, b2 = lo + phi * (hi - lo),
      e2 = best_intercept(x, y, n, b2, LOW(b2), &a);
  /* the slope 0 edge (a flat range) is a candidate of its own */
  f->b = e1 <= e2 ? b1 : b2;
  double e = best_intercept(x, y, n, f->b, LOW(f->b), &f->a), a0;
  if (best_intercept(x, y, n, 0, 0, &a0) <= e) f->b = 0, f->a = a0;
#undef LOW
  residuals(x, y, n, f);
  return 0;
}

/* Each range's fit, computed once per (first, end) the search tries. */
struct fits {
  signed char done[CALIB_MAX_SIZES][CALIB_MAX_SIZES + 1];
  struct calib_fit f[CALIB_MAX_SIZES][CALIB_MAX_SIZES + 1];
};

/* The fit of points [i, j) into *f: its largest residual, or INFINITY. */
static double seg_fit(const size_t *x, const double *y, int i, int j, struct fits *memo,
                      struct calib_fit *f) {
  if (!memo->done[i][j])
    memo->done[i][j] = fit_range(x + i, y + i, j - i, i > 0, &memo->f[i][j]) ? -1 : 1;
  *f = memo->f[i][j];
  return memo->done[i][j] < 0 ? INFINITY : f->max_rel;
}

/* The cost of a range [i, j): its largest residual (bound < 0), or its sum
 * of squared residuals if its largest is within bound (else INFINITY). */
static double seg_cost(const size_t *x, const double *y, int i, int j, double bound,
                       struct fits *memo) {
  struct calib_fit f;
  double mx = seg_fit(x, y, i, j, memo, &f);
  if (bound < 0) return mx;
  int used = 0;
  for (int q = i; q < j; q++) used += y[q] > 0;
  return mx <= bound ? f.rms_rel * f.rms_rel * used : INFINITY;
}

/* Split points [0, n) into k ranges of >= 2 points, breaking only between
 * different sizes, at least cost: ranges combine by max (bound < 0) or by
 * sum (seg_cost). cut[q] (q = 0..k) are the range bounds. The cost, or
 * INFINITY when no split exists. */
static double split(const size_t *x, const double *y, int n, int k, double bound, struct fits *memo,
                    int *cut) {
  double best[CALIB_MAX_PIECES + 1][CALIB_MAX_SIZES + 1];
  int from[CALIB_MAX_PIECES + 1][CALIB_MAX_SIZES + 1];
  for (int q = 0; q <= k; q++)
    for (int j = 0; j <= n; j++) best[q][j] = INFINITY, from[q][j] = -1;
  best[0][0] = 0;
  for (int q = 1; q <= k; q++)
    for (int j = CALIB_MIN_POINTS * q; j <= n; j++)
      for (int i = CALIB_MIN_POINTS * (q - 1); i <= j - CALIB_MIN_POINTS; i++) {
        if (best[q - 1][i] == INFINITY || (i > 0 && x[i] == x[i - 1])) continue;
        double c = seg_cost(x, y, i, j, bound, memo);
        c = bound < 0 ? fmax(best[q - 1][i], c) : best[q - 1][i] + c;
        if (c < best[q][j]) best[q][j] = c, from[q][j] = i;
      }
  cut[k] = n;
  for (int q = k; q > 0 && best[k][n] < INFINITY; q--) cut[q - 1] = from[q][cut[q]];
  return best[k][n];
}

int calib_fit_pieces(const size_t *x, const double *y, int n, double tol, struct calib_pieces *pw) {
  if (n < 2 || n > CALIB_MAX_SIZES) return TUTTI_EINVAL;
  for (int i = 1; i < n; i++)
    if (x[i] < x[i - 1]) return TUTTI_EINVAL;
  struct fits *memo = calloc(1, sizeof *memo);
  if (!memo) return TUTTI_ENOMEM;
  int cut[CALIB_MAX_PIECES + 1], k = 0, kmax = n / CALIB_MIN_POINTS;
  if (kmax > CALIB_MAX_PIECES) kmax = CALIB_MAX_PIECES;
  double err = INFINITY;
  for (int q = 1; q <= kmax && !(err <= tol); q++) {
    double e = split(x, y, n, q, -1, memo, cut);
    if (e < INFINITY) err = e, k = q;
  }
  if (err == INFINITY) {
    free(memo);
    return TUTTI_EINVAL;
  }
  /* the breaks: least squares among the splits within the bound reached */
  split(x, y, n, k, fmax(tol, err * (1 + 1e-9)), memo, cut);
  memset(pw, 0, sizeof *pw);
  pw->n = k;
  double ss = 0;
  int used = 0;
  for (int q = 0; q < k; q++) {
    struct calib_piece *p = &pw->p[q];
    seg_fit(x, y, cut[q], cut[q + 1], memo, &p->fit);
    p->from = x[cut[q]], p->to = x[cut[q + 1] - 1];
    for (int i = cut[q]; i < cut[q + 1]; i++) {
      if (!(y[i] > 0)) continue;
      double e = fabs(p->fit.a + p->fit.b * (double)x[i] - y[i]) / y[i];
      ss += e * e, used++;
    }
    pw->max_rel = fmax(pw->max_rel, p->fit.max_rel);
  }
  pw->rms_rel = sqrt(ss / used);
  free(memo);
  return 0;
}

double calib_pieces_at(const struct calib_pieces *pw, double m) {
  int k = 0;
  while (k + 1 < pw->n && (double)pw->p[k + 1].from <= m) k++;
  return pw->p[k].fit.a + pw->p[k].fit.b * m;
}

/* Sort indices by size (insertion: at most CALIB_MAX_SIZES). */
static void order(const struct calib_data *d, int *ix) {
  for (int i = 0; i < d->n; i++) {
    int j = i;
    for (; j > 0 && d->bytes[ix[j - 1]] > d->bytes[i]; j--) ix[j] = ix[j - 1];
    ix[j] = i;
  }
}

/* The first size (x ascending) whose time jumps up from the size before
 * by the smallest size's time y[0] or more, beyond what the slopes beside
 * it explain (the greater of those into the size before and out of this
 * one: a slope that rises or falls there is no jump): a rendezvous waits
 * for a control message an eager send does not. The last size has no
 * slope after it, so a jump there cannot be told from a steeper slope and
 * is not one. From the data, not the ranges: a range of two sizes may
 * span the jump. 0 if none does. */
static size_t eager_step(const size_t *x, const double *y, int n) {
  for (int i = 1; i + 1 < n; i++) {
    double dx = (double)(x[i] - x[i - 1]), s = 0;
    if (i >= 2 && x[i - 1] > x[i - 2]) s = (y[i - 1] - y[i - 2]) / (double)(x[i - 1] - x[i - 2]);
    if (x[i + 1] > x[i]) s = fmax(s, (y[i + 1] - y[i]) / (double)(x[i + 1] - x[i]));
    if (dx > 0 && y[i] - y[i - 1] - s * dx >= y[0]) return x[i];
  }
  return 0;
}

int calib_analyze(const struct calib_data *d, struct calib_result *res) {
  int rc, ix[CALIB_MAX_SIZES];
  memset(res, 0, sizeof *res);
  if (d->n < 2 || d->n > CALIB_MAX_SIZES) return TUTTI_EINVAL;
  size_t x[CALIB_MAX_SIZES];
  double y[CALIB_MAX_SIZES];
  order(d, ix);
  for (int i = 0; i < d->n; i++) x[i] = d->bytes[ix[i]], y[i] = d->pp[ix[i]];
  if ((rc = calib_fit_pieces(x, y, d->n, CALIB_TOLERANCE, &res->pw))) return rc;
  if ((rc = calib_fit(d->bytes, d->pp, d->n, &res->hockney))) return rc;
  if ((rc = calib_fit(d->bytes, d->gap, d->n, &res->gap))) return rc;
  res->eager_limit = eager_step(x, y, d->n);
  res->o = d->o_send;
  res->L = res->pw.p[0].fit.a - 2 * res->o;
  if (res->L < 0) res->L = 0;
  return 0;
}

/* "8 B..2 KiB" */
static char *range(const struct calib_piece *p, char *buf, size_t n) {
  char a[32], b[32];
  snprintf(buf, n, "%s..%s", tutti_format_bytes(p->from, a, sizeof a),
           tutti_format_bytes(p->to, b, sizeof b));
  return buf;
}

static void print_steps(FILE *f, const struct calib_result *res) {
  char s1[64], s2[64], s3[64];
  const struct calib_pieces *pw = &res->pw;
  fprintf(f, "steps         %s", pw->n == 1 ? "none" : "at");
  for (int k = 1; k < pw->n; k++)
    fprintf(f, "%s %s", k > 1 ? "," : "", tutti_format_bytes(pw->p[k].from, s1, sizeof s1));
  if (res->eager_limit)
    fprintf(f, "; eager_limit %s (the first size up by a small message's time)\n",
            tutti_format_bytes(res->eager_limit, s1, sizeof s1));
  else
    fprintf(f, "; eager_limit 0 (no size up by a small message's time)\n");
  fprintf(f, "%-22s  %10s  %10s  %8s  %8s\n", "Hockney range", "alpha", "beta/B", "max err",
          "RMS err");
  for (int k = 0; k < pw->n; k++) {
    const struct calib_fit *q = &pw->p[k].fit;
    fprintf(f, "%-22s  %10s  %10s  %7.1f%%  %7.1f%%\n", range(&pw->p[k], s3, sizeof s3),
            tutti_format_time(q->a, s1, sizeof s1), tutti_format_time(q->b, s2, sizeof s2),
            100 * q->max_rel, 100 * q->rms_rel);
  }
}

void calib_print(FILE *f, const struct calib_data *d, const struct calib_result *res) {
  char s1[64], s2[64], s3[64], s4[64];
  fprintf(f, "%12s  %14s  %14s  %14s\n", "bytes", "ping-pong 1way", "Hockney fit", "b2b per msg");
  for (int i = 0; i < d->n; i++)
    fprintf(f, "%12s  %14s  %14s  %14s\n", tutti_format_bytes(d->bytes[i], s1, sizeof s1),
            tutti_format_time(d->pp[i], s2, sizeof s2),
            tutti_format_time(calib_pieces_at(&res->pw, (double)d->bytes[i]), s3, sizeof s3),
            tutti_format_time(d->gap[i], s4, sizeof s4));
  print_steps(f, res);
  fprintf(f,
          "Hockney  alpha %s, beta %s/B (first range); fit error: max %.1f%%, RMS %.1f%% "
          "(relative; one line: max %.1f%%, RMS %.1f%%)\n",
          tutti_format_time(res->pw.p[0].fit.a, s1, sizeof s1),
          tutti_format_time(res->pw.p[0].fit.b, s2, sizeof s2), 100 * res->pw.max_rel,
          100 * res->pw.rms_rel, 100 * res->hockney.max_rel, 100 * res->hockney.rms_rel);
  fprintf(
      f, "LogGP    L %s, o %s, g %s, G %s/B; gap fit error: max %.1f%%, RMS %.1f%% (relative)\n",
      tutti_format_time(res->L, s1, sizeof s1), tutti_format_time(res->o, s2, sizeof s2),
      tutti_format_time(res->gap.a, s3, sizeof s3), tutti_format_time(res->gap.b, s4, sizeof s4),
      100 * res->gap.max_rel, 100 * res->gap.rms_rel);
}

/* x seconds (or seconds per byte) with `digits` significant digits in the
 * unit that puts it in [1, 1000): "484.502ns". */
static char *fmt_time(double x, int digits, char *buf, size_t n) {
  static const struct {
    double scale;
    const char *unit;
  } u[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}, {1e-12, "ps"}};
  int k = 0;
  while (k < 4 && fabs(x) < u[k].scale) k++;
  /* a number past buf's room (seconds beyond 1e30) is cut, never overrun */
  if (snprintf(buf, n, "%.*g%s", digits, x / u[k].scale, x == 0 ? "s" : u[k].unit) >= (int)n)
    buf[n - 1] = '\0';
  return buf;
}

/* m bytes exactly in the largest binary unit that divides it: "4MiB". */
static char *fmt_size(size_t m, char *buf, size_t n) {
  static const char *const unit[] = {"", "KiB", "MiB", "GiB"};
  int k = 0;
  while (k < 3 && m && m % ((size_t)1024 << (10 * k)) == 0) k++;
  snprintf(buf, n, "%zu%s", m >> (10 * k), unit[k]);
  return buf;
}

/* The pieces as a cost, "A + B*m | from SIZE: A + B*m ..." (runtime/MODEL.md
 * "Cost functions"), with the most digits (9 down to 4) that keep a
 * profile line "recv_port = COST" within CALIB_COST_MAX characters. */
#define CALIB_COST_MAX (197 - 12) /* a profile line: at most 197 (topo/ini.c) */
static void cost_text(const struct calib_pieces *pw, char *buf, size_t n) {
  for (int digits = 9; digits >= 4; digits--) {
    size_t off = 0;
    char a[32], b[32];
    for (int k = 0; k < pw->n && off < n; k++) {
      if (k > 0)
        off += (size_t)snprintf(buf + off, n - off,
                                " | from %s: ", fmt_size(pw->p[k].from, a, sizeof a));
      if (off < n)
        off += (size_t)snprintf(buf + off, n - off, "%s + %s*m",
                                fmt_time(pw->p[k].fit.a, digits, a, sizeof a),
                                fmt_time(pw->p[k].fit.b, digits, b, sizeof b));
    }
    if (off <= CALIB_COST_MAX) return;
  }
}

void calib_write_profile(FILE *f, const char *what, const struct calib_data *d,
                         const struct calib_result *res) {
  const struct calib_pieces *pw = &res->pw;
  char s1[32], s2[32];
  fprintf(f, "; calibrated on %s: ping-pong and back-to-back sends, ranks 0 and 1\n", what);
  fprintf(f, "; (tutti calibrate / tutti-mpi calibrate; method in bench/calib.c)\n");
  fprintf(f, "; Hockney in %d range%s (steps where one line is off by more than %.0f%%):\n", pw->n,
          pw->n > 1 ? "s" : "", 100 * CALIB_TOLERANCE);
  for (int k = 0; k < pw->n; k++)
    fprintf(f, ";   %s..%s: alpha %.6gs, beta %.6gs; fit error max %.3g, RMS %.3g (relative)\n",
            tutti_format_bytes(pw->p[k].from, s1, sizeof s1),
            tutti_format_bytes(pw->p[k].to, s2, sizeof s2), pw->p[k].fit.a, pw->p[k].fit.b,
            pw->p[k].fit.max_rel, pw->p[k].fit.rms_rel);
  fprintf(f, "; eager_limit: the first size up from the one before by the smallest size's "
             "time, beyond the slope\n");
  fprintf(f, "; Hockney fit error: max %.3g, RMS %.3g (relative; one line: max %.3g, RMS %.3g)\n",
          pw->max_rel, pw->rms_rel, res->hockney.max_rel, res->hockney.rms_rel);
  fprintf(f, "; LogGP: L = %.6gs, o = %.6gs, g = %.6gs, G = %.6gs per byte (gap fit max %.3g)\n",
          res->L, res->o, res->gap.a, res->gap.b, res->gap.max_rel);
  fprintf(f, "[model]\npreset = hockney\nalpha = %ss\nbeta = %ss\neager_limit = %zu\n",
          tutti_format_shortest(pw->p[0].fit.a, s1, sizeof s1),
          tutti_format_shortest(pw->p[0].fit.b, s2, sizeof s2), res->eager_limit);
  static const char *const keys[] = {"send_cpu", "send_port", "latency", "recv_port"};
  char cost[512];
  cost_text(pw, cost, sizeof cost);
  for (int i = 0; i < 4 && pw->n > 1; i++) fprintf(f, "%s = %s\n", keys[i], cost);
  fprintf(f, "; measured: bytes, ping-pong one way (s), back-to-back per message (s)\n");
  for (int i = 0; i < d->n; i++)
    fprintf(f, ";   %zu %.9g %.9g\n", d->bytes[i], d->pp[i], d->gap[i]);
}

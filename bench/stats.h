/*
 * stats.h -- what every benchmark needs to time and summarize: the
 * monotonic clock in seconds and the median of a sample (the benches
 * report medians of per-round figures: the machine's speed swings).
 */
#ifndef TUTTI_BENCH_STATS_H
#define TUTTI_BENCH_STATS_H

#include <math.h>
#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds. */
static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of v[0..n) (v is sorted in place); NAN for n = 0. */
static inline double bench_median(double *v, int n) {
  if (n <= 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif

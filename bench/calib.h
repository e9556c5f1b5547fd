/*
 * calib.h -- calibration (`tutti calibrate`, `tutti-mpi calibrate`):
 * measure ping-pong and back-to-back sends between ranks 0 and 1 over
 * message sizes, fit Hockney's alpha and beta and LogGP's g and G by
 * least squares, and write a profile file that --profile reads.
 *
 * The measurement is written against the backend contract alone
 * (tutti/p2p.h) and a clock the caller passes, so the same code measures
 * tutti's thread runtime and an MPI library.
 *
 * Threads: calib_measure runs on ranks (each on its own rank); the rest is
 * pure and runs anywhere.
 */
#ifndef TUTTI_CALIB_H
#define TUTTI_CALIB_H

#include <stddef.h>
#include <stdio.h>

#include "tutti/p2p.h"

#define CALIB_MAX_SIZES 64

struct calib_data {
  int n;                         /* sizes */
  size_t bytes[CALIB_MAX_SIZES]; /* message sizes */
  double pp[CALIB_MAX_SIZES];    /* ping-pong one way: median of RTT/2, seconds */
  double gap[CALIB_MAX_SIZES];   /* back-to-back: seconds per message, median */
  double o_send;                 /* median time in tutti_send of the smallest size */
};

/* y(m) = a + b m, fitted by least squares on relative residuals (each
 * point weighs 1/y^2, so small messages count as much as large ones). */
struct calib_fit {
  double a, b;
  double rms_rel, max_rel; /* the fit's error: relative residuals, RMS and max */
};

/* On ranks 0 and 1 (other ranks return at once): reps round trips and
 * reps bursts of `burst` back-to-back sends per size, timed with clock().
 * Rank 0's d holds the result. 0 or a p2p error. */
int calib_measure(tutti_rank_t *r, const size_t *sizes, int n, int reps, int burst,
                  double (*clock)(void), struct calib_data *d);
/* Fit y[i] against x[i]: 0, or TUTTI_EINVAL (fewer than 2 points). */
int calib_fit(const size_t *x, const double *y, int n, struct calib_fit *f);
/* The Hockney (ping-pong) and LogGP (gap) fits of d, and o and L:
 * L = alpha - 2 o, at least 0. */
struct calib_result {
  struct calib_fit hockney, gap;
  double o, L;
};
int calib_analyze(const struct calib_data *d, struct calib_result *res);
/* The measurements and the fits as a table, for people. */
void calib_print(FILE *f, const struct calib_data *d, const struct calib_result *res);
/* A profile file (bench/CLI.md "Profile files"): [model] preset = hockney
 * with the fitted alpha and beta, the LogGP fit and every measurement as
 * comments. what: "tutti's thread runtime" or the MPI library's name. */
void calib_write_profile(FILE *f, const char *what, const struct calib_data *d,
                         const struct calib_result *res);

#endif

/*
 * calib.h -- calibration (`tutti calibrate`, `tutti-mpi calibrate`):
 * measure ping-pong and back-to-back sends between ranks 0 and 1 over
 * message sizes, fit Hockney's alpha and beta piecewise -- one line per
 * size range between protocol steps (eager to rendezvous), found in the
 * data -- and LogGP's g and G by least squares, and write a profile file
 * that --profile reads.
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

/* A piecewise fit: piece k is a line over the sizes p[k].from..p[k].to
 * (measured sizes, at least CALIB_MIN_POINTS) and models every m from p[k].from up to the
 * next piece's from (the first piece from 0 on). A cost's pieces
 * (tutti_cost_t) bound their number. */
#define CALIB_MAX_PIECES (1 + TUTTI_COST_PIECES)
#define CALIB_MIN_POINTS 2   /* sizes per piece: what a line needs */
#define CALIB_TOLERANCE 0.05 /* a step is found where one line is off by more */
struct calib_piece {
  size_t from, to;
  struct calib_fit fit;
};
struct calib_pieces {
  int n;
  struct calib_piece p[CALIB_MAX_PIECES];
  double rms_rel, max_rel; /* over every point */
};
/* The fewest pieces whose largest relative residual is at most tol (else
 * the most), the breaks placed by least squares among the splits that
 * reach that. x ascending, 2 <= n <= CALIB_MAX_SIZES. 0, or TUTTI_EINVAL. */
int calib_fit_pieces(const size_t *x, const double *y, int n, double tol, struct calib_pieces *pw);
/* The piecewise model at m bytes. */
double calib_pieces_at(const struct calib_pieces *pw, double m);

/* The fits of d: Hockney piecewise (the profile's) and as one line (for
 * comparison), LogGP's gap as one line, o and L: L = alpha - 2 o of the
 * first piece, at least 0. eager_limit: the first size whose time jumps
 * up from the size before by the smallest size's time or more (beyond the
 * slope beside it), 0 without one. */
struct calib_result {
  struct calib_pieces pw;
  struct calib_fit hockney, gap;
  double o, L;
  size_t eager_limit;
};
int calib_analyze(const struct calib_data *d, struct calib_result *res);
/* The measurements, the steps and the fit per range as tables, for people. */
void calib_print(FILE *f, const struct calib_data *d, const struct calib_result *res);
/* A profile file (bench/CLI.md "Profile files"): [model] preset = hockney
 * with the first piece's alpha and beta, eager_limit, the four Hockney
 * costs in pieces when there are steps, the fits' errors, the LogGP fit
 * and every measurement as comments. what: "tutti's thread runtime" or the
 * MPI library's name. */
void calib_write_profile(FILE *f, const char *what, const struct calib_data *d,
                         const struct calib_result *res);

#endif

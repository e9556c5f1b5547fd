/*
 * plot.h -- modeled time against message size, drawn by gnuplot.
 *
 * The study and lecture benchmarks collect (panel, series, x, y) points --
 * a panel per rank count, a line per algorithm -- and plot_write hands
 * them to gnuplot (Debian's gnuplot-nox) as inline data blocks: log-log
 * axes, x in bytes with binary-unit tics (8, 1KiB, 1MiB), y in seconds
 * with SI prefixes, one panel per rank count. tutti never draws a plot
 * itself. The CSV the caller writes beside it stays the data of record:
 * without gnuplot, plot_write says in one line how to install it and the
 * caller goes on.
 *
 * The program run is `gnuplot` from PATH, or $TUTTI_GNUPLOT when set.
 */
#ifndef TUTTI_BENCH_PLOT_H
#define TUTTI_BENCH_PLOT_H

#include <stdio.h>

typedef struct plot plot_t;

/* An empty plot with its title and axis labels; NULL if out of memory. */
plot_t *plot_new(const char *title, const char *xlabel, const char *ylabel);
void plot_free(plot_t *p);
/* The unit of y: "s" (the default) labels tics with SI prefixes (10us,
 * 1ms); any other ("steps" of a postal model) plain numbers, the unit
 * added to the y label. NULL means "s". 0, or -1 if out of memory. */
int plot_y_unit(plot_t *p, const char *unit);

/* x as a count of ranks rather than bytes: plain numbers on the x tics
 * (a barrier's time against P). 0. */
int plot_x_ranks(plot_t *p);

/* One point of the line `series` in the panel `panel` ("P = 64"). Panels
 * and series keep the order they first appear in; a line's points are
 * drawn in increasing x. Points with x or y not above 0 cannot be drawn on
 * log axes and are left out. 0, or -1 if out of memory. */
int plot_add(plot_t *p, const char *panel, const char *series, double x, double y);

/* The format a path asks for, from its extension: "svg" or "png"; NULL
 * for any other (callers refuse it up front, exit 2). */
const char *plot_format(const char *path);

/* Draw the plot in the format `path` asks for (.svg or .png) and write
 * it to out (the caller's output file, cli_out_open: the caller commits
 * it and so reports a write that failed). gnuplot reads the script on its
 * standard input and draws on its standard output, which is copied to
 * out: it never opens a file of its own. Returns 0 when drawn; 1 when
 * gnuplot is not installed (one line on stderr, starting with `who`, says
 * how to install it; nothing written); 2 for a path that is not .svg or
 * .png; 3 when gnuplot failed or drew nothing (its first error line on
 * stderr). */
int plot_write(const plot_t *p, const char *path, FILE *out, const char *who);

#endif

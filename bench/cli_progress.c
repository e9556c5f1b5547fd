/*
 * cli_progress.c -- the progress line of the commands that run many points
 * (suite, sweep, tune) or one long run (run): on stderr when it is a
 * terminal and --quiet is not given, never otherwise, so that logs and
 * pipes stay clean. One line, redrawn in place:
 *
 *   tutti suite: 12/70 [###     ] 0:41 gone, about 1:52 left  64 ranks, 1 MiB: allgather ring
 *
 * cut to the terminal's width.
 *
 * What is left is the time gone scaled by the work left over the work
 * done, each point weighing what its buffers and ranks make it cost (a
 * data point touches its buffers when it fills, moves and checks them; a
 * timing-only point only sends), so one large point early does not make
 * the rest look long, nor many small ones the large ones short.
 *
 * A command has one progress at a time (the process runs one command):
 * cli_point_run reports each point to it, so every command that runs
 * points through cli_point.c shows them without passing it along. Rows on
 * stdout never land on the line: cli_progress_clear erases it first.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

/* A timing-only tune runs points on several threads at once (cli_tune.c):
 * the counts and the line are under pg_mu. */
static pthread_mutex_t pg_mu = PTHREAD_MUTEX_INITIALIZER;

static struct {
  int on;               /* drawing: stderr is a terminal, not --quiet */
  const char *cmd;      /* "suite" */
  int total, done;      /* points */
  double t0;            /* CLOCK_MONOTONIC seconds at the start */
  double wtotal, wdone; /* weights (cli_point_weight) */
} pg;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Draw the line, cut to the terminal's width: a line that wrapped could
 * not be redrawn in place. */
static void draw(const char *line) {
  struct winsize ws;
  int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
  fprintf(stderr, "\r\033[K%.*s", cols - 1, line);
  fflush(stderr);
  cli_line_shown = 1;
}

void cli_progress_start(const char *cmd, int total, double weight, int quiet) {
  memset(&pg, 0, sizeof pg);
  pg.on = !quiet && isatty(STDERR_FILENO);
  pg.cmd = cmd, pg.total = total, pg.wtotal = weight, pg.t0 = now();
}

const char *cli_clock_text(double s, char *buf, size_t n) {
  long t = lround(s < 0 ? 0 : s);
  if (t >= 3600)
    snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
  return buf;
}

static void progress_point(const char *what);

void cli_progress_point(const char *what) {
  if (!pg.on) return;
  pthread_mutex_lock(&pg_mu);
  progress_point(what);
  pthread_mutex_unlock(&pg_mu);
}

static void progress_point(const char *what) {
  char gone[32], left[48] = "";
  double t = now() - pg.t0;
  if (pg.wdone > 0 && pg.wtotal > pg.wdone) {
    char l[32];
    snprintf(left, sizeof left, ", about %s left",
             cli_clock_text(t * (pg.wtotal - pg.wdone) / pg.wdone, l, sizeof l));
  }
  enum { WIDTH = 20 };
  int fill = pg.wtotal > 0 ? (int)(WIDTH * pg.wdone / pg.wtotal) : 0;
  fill = fill < 0 ? 0 : fill > WIDTH ? WIDTH : fill;
  char line[512];
  snprintf(line, sizeof line, "tutti %s: %d/%d [%.*s%*s] %s gone%s  %s", pg.cmd, pg.done + 1,
           pg.total, fill, "####################", WIDTH - fill, "",
           cli_clock_text(t, gone, sizeof gone), left, what);
  draw(line);
}

void cli_progress_done(double weight) {
  pthread_mutex_lock(&pg_mu);
  pg.done++;
  pg.wdone += weight;
  pthread_mutex_unlock(&pg_mu);
}

void cli_progress_clear(void) {
  pthread_mutex_lock(&pg_mu);
  if (!cli_line_shown) {
    pthread_mutex_unlock(&pg_mu);
    return;
  }
  fflush(stdout);
  fputs("\r\033[K", stderr);
  fflush(stderr);
  cli_line_shown = 0;
  pthread_mutex_unlock(&pg_mu);
}

void cli_progress_end(void) {
  cli_progress_clear();
  pg.on = 0;
}

/* ------------------------------------------------------------ one long run */

static struct {
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int running, stop;
  const char *what;
  const long *calls_done;
  int calls;
} watch = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void draw_run(double t) {
  char gone[32], left[48] = "", calls[48] = "";
  long done = watch.calls_done ? __atomic_load_n(watch.calls_done, __ATOMIC_RELAXED) : 0;
  if (watch.calls > 1) {
    snprintf(calls, sizeof calls, "  call %ld of %d", done < watch.calls ? done + 1 : done,
             watch.calls);
    if (done > 0 && done < watch.calls) {
      char l[32];
      snprintf(left, sizeof left, ", about %s left",
               cli_clock_text(t * (double)(watch.calls - done) / (double)done, l, sizeof l));
    }
  }
  char line[512];
  snprintf(line, sizeof line, "tutti %s: %s gone%s%s  %s", pg.cmd,
           cli_clock_text(t, gone, sizeof gone), left, calls, watch.what);
  draw(line);
}

static void *watch_main(void *arg) {
  (void)arg;
  pthread_mutex_lock(&watch.mu);
  for (double wait = 2.0; !watch.stop; wait = 0.5) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long ns = ts.tv_nsec + (long)(wait * 1e9);
    ts.tv_sec += ns / 1000000000L, ts.tv_nsec = ns % 1000000000L;
    while (!watch.stop && pthread_cond_timedwait(&watch.cv, &watch.mu, &ts) == 0) {
    }
    if (!watch.stop) draw_run(now() - pg.t0);
  }
  pthread_mutex_unlock(&watch.mu);
  return NULL;
}

void cli_progress_watch(const char *what, const long *calls_done, int calls) {
  if (!pg.on || watch.running) return;
  watch.what = what, watch.calls_done = calls_done, watch.calls = calls, watch.stop = 0;
  pg.t0 = now();
  watch.running = pthread_create(&watch.th, NULL, watch_main, NULL) == 0;
}

void cli_progress_watch_stop(void) {
  if (!watch.running) return;
  pthread_mutex_lock(&watch.mu);
  watch.stop = 1;
  pthread_cond_signal(&watch.cv);
  pthread_mutex_unlock(&watch.mu);
  pthread_join(watch.th, NULL);
  watch.running = 0;
  cli_progress_clear();
}

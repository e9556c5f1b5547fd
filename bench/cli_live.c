/*
 * cli_live.c -- the live timeline of `tutti run --realtime SCALE --timeline`
 * on a terminal: a thread redraws the ASCII timeline about ten times a
 * second while the paced run goes on, each rank's row cut at how far that
 * rank has really come (tutti_world_paced_clock), so a class watches the
 * flat tree's root send one message after another and each receiver's row
 * grow when its message arrives.
 *
 * The picture itself (which column is S, R, . or C) is the timeline of an
 * unpaced run of the same job, made just before: modeled times do not
 * depend on pacing (runtime/MODEL.md "Determinism"), so it is the paced
 * run's own timeline; only how much of each row is shown is live.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

struct cli_live {
  FILE *f;
  const tutti_world_t *w;
  char *text;   /* the frame */
  char **lines; /* its lines; rows start "r<rank>" and a '|' */
  int nlines;
  double T, scale;
  struct timespec t0;
  atomic_int stop;
  int drawn; /* lines on screen (the thread's until joined) */
  pthread_t thread;
};

/* Rank of a timeline row "r12   |....|", else -1; *cols where its columns start. */
static int row_rank(const char *s, int *cols) {
  if (s[0] != 'r' || s[1] < '0' || s[1] > '9') return -1;
  const char *bar = strchr(s, '|');
  if (!bar) return -1;
  *cols = (int)(bar - s) + 1;
  return atoi(s + 1);
}

static void draw(struct cli_live *l) {
  FILE *f = l->f;
  if (l->drawn) fprintf(f, "\033[%dA\r", l->drawn);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  double wall = (double)(now.tv_sec - l->t0.tv_sec) + (double)(now.tv_nsec - l->t0.tv_nsec) * 1e-9;
  fprintf(f, "live: %.1f s of wall time, %g wall s per modeled unit\033[K\n", wall, l->scale);
  for (int i = 0; i < l->nlines; i++) {
    const char *s = l->lines[i];
    int cols, r = row_rank(s, &cols);
    if (r < 0) {
      fprintf(f, "%s\033[K\n", s);
      continue;
    }
    const char *end = strrchr(s, '|');
    int width = (int)(end - s) - cols;
    double v = tutti_world_paced_clock(l->w, r);
    /* column c covers [c T / width, (c + 1) T / width): shown once the
     * rank's clock has passed its start */
    int shown = !(v > 0) || !(l->T > 0) ? 0 : (int)ceil(v / l->T * width);
    if (shown > width) shown = width;
    fprintf(f, "%.*s%*s%s\033[K\n", cols + shown, s, width - shown, "", end);
  }
  fflush(f);
  l->drawn = l->nlines + 1;
}

static void *live_main(void *arg) {
  struct cli_live *l = arg;
  while (!atomic_load(&l->stop)) {
    draw(l);
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  return NULL;
}

struct cli_live *cli_live_start(FILE *f, const tutti_world_t *paced, const char *frame, double T,
                                double scale) {
  struct cli_live *l = calloc(1, sizeof *l);
  char *copy = strdup(frame);
  int n = 1;
  for (const char *p = frame; *p; p++) n += *p == '\n';
  char **lines = malloc((size_t)n * sizeof *lines);
  if (!l || !copy || !lines) goto fail;
  l->lines = lines;
  l->text = copy;
  for (char *p = copy; *p;) {
    char *nl = strchr(p, '\n');
    lines[l->nlines++] = p;
    if (!nl) break;
    *nl = '\0';
    p = nl + 1;
  }
  l->f = f, l->w = paced, l->T = T, l->scale = scale;
  clock_gettime(CLOCK_MONOTONIC, &l->t0);
  atomic_init(&l->stop, 0);
  if (pthread_create(&l->thread, NULL, live_main, l)) goto fail;
  return l;
fail:
  free(lines);
  free(copy);
  free(l);
  return NULL;
}

void cli_live_stop(struct cli_live *l) {
  if (!l) return;
  atomic_store(&l->stop, 1);
  pthread_join(l->thread, NULL);
  if (l->drawn) fprintf(l->f, "\033[%dA\r\033[J", l->drawn); /* the report prints in its place */
  fflush(l->f);
  free(l->text);
  free(l->lines);
  free(l);
}

/*
 * plot.c -- plot.h: points collected in memory, written out as one gnuplot
 * script with the data inline (gnuplot 5's data blocks), run by gnuplot.
 * A series keeps one colour (its line type) in every panel, so a reader
 * follows an algorithm from panel to panel.
 */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct point {
  int panel, series;
  double x, y;
};

struct names {
  char **v;
  int n, cap;
};

struct plot {
  char *title, *xlabel, *ylabel, *yunit;
  int xranks; /* x counts ranks: plain tics */
  struct names panels, series;
  struct point *pt;
  size_t n, cap;
};

static char *copy(const char *s) {
  return strdup(s ? s : "");
}

/* The index of `s` in `t`, appended if new; -1 if out of memory. */
static int intern(struct names *t, const char *s) {
  for (int i = 0; i < t->n; i++)
    if (!strcmp(t->v[i], s)) return i;
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 8;
    char **v = realloc(t->v, (size_t)cap * sizeof *v);
    if (!v) return -1;
    t->v = v, t->cap = cap;
  }
  if (!(t->v[t->n] = copy(s))) return -1;
  return t->n++;
}

static void names_free(struct names *t) {
  for (int i = 0; i < t->n; i++) free(t->v[i]);
  free(t->v);
}

plot_t *plot_new(const char *title, const char *xlabel, const char *ylabel) {
  plot_t *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->title = copy(title), p->xlabel = copy(xlabel), p->ylabel = copy(ylabel);
  p->yunit = copy("s");
  if (!p->title || !p->xlabel || !p->ylabel || !p->yunit) {
    plot_free(p);
    return NULL;
  }
  return p;
}

void plot_free(plot_t *p) {
  if (!p) return;
  free(p->title), free(p->xlabel), free(p->ylabel), free(p->yunit);
  names_free(&p->panels), names_free(&p->series);
  free(p->pt);
  free(p);
}

int plot_y_unit(plot_t *p, const char *unit) {
  char *u = copy(unit ? unit : "s");
  if (!u) return -1;
  free(p->yunit);
  p->yunit = u;
  return 0;
}

int plot_x_ranks(plot_t *p) {
  p->xranks = 1;
  return 0;
}

int plot_add(plot_t *p, const char *panel, const char *series, double x, double y) {
  if (!(x > 0 && y > 0 && isfinite(x) && isfinite(y))) return 0; /* not on log axes */
  int pi = intern(&p->panels, panel), si = intern(&p->series, series);
  if (pi < 0 || si < 0) return -1;
  if (p->n == p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 64;
    struct point *v = realloc(p->pt, cap * sizeof *v);
    if (!v) return -1;
    p->pt = v, p->cap = cap;
  }
  p->pt[p->n++] = (struct point){pi, si, x, y};
  return 0;
}

const char *plot_format(const char *path) {
  const char *dot = path ? strrchr(path, '.') : NULL;
  if (dot && !strcmp(dot, ".svg")) return "svg";
  if (dot && !strcmp(dot, ".png")) return "png";
  return NULL;
}

/* A gnuplot single-quoted string: only '' is special there. Control
 * bytes become spaces, so a label cannot break the script's lines. */
static void quoted(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'') fputc('\'', f);
    fputc((unsigned char)*s < ' ' ? ' ' : *s, f);
  }
  fputc('\'', f);
}

/* x in bytes: 8, 512, 1KiB, 64MiB -- the largest binary unit that
 * divides it. */
static void size_label(double x, char *buf, size_t n) {
  static const char *const unit[] = {"", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && x >= 1024 && fmod(x, 1024) == 0) x /= 1024, u++;
  snprintf(buf, n, "%.0f%s", x, unit[u]);
}

static int by_x(const void *a, const void *b) {
  const struct point *p = a, *q = b;
  if (p->panel != q->panel) return p->panel - q->panel;
  if (p->series != q->series) return p->series - q->series;
  return (p->x > q->x) - (p->x < q->x);
}

/* Tics at powers of two whose exponent is a multiple of a step of 1, 2,
 * 5, 10 or 20, the smallest that keeps at most 9 across the range: so
 * 1KiB and 1MiB are tics whenever they are in range. */
static void xtics(FILE *f, double lo, double hi, int ranks) {
  static const int steps[] = {1, 2, 5, 10, 20};
  int e0 = (int)floor(log2(lo)), e1 = (int)ceil(log2(hi)), step = 20;
  for (int i = 0; i < 5; i++)
    if ((e1 - e0) / steps[i] < 9) {
      step = steps[i];
      break;
    }
  fputs("set xtics (", f);
  const char *sep = "";
  for (int e = e0; e <= e1; e++) {
    if (e % step) continue;
    char lab[32];
    if (ranks)
      snprintf(lab, sizeof lab, "%.0f", ldexp(1, e));
    else
      size_label(ldexp(1, e), lab, sizeof lab);
    fprintf(f, "%s\"%s\" %.17g", sep, lab, ldexp(1, e));
    sep = ", ";
  }
  fputs(")\n", f);
}

static int script(const plot_t *p, FILE *f, const char *fmt) {
  struct point *pt = malloc((p->n ? p->n : 1) * sizeof *pt);
  if (!pt) return -1;
  if (p->n) { /* memcpy and qsort want non-null pointers even for 0 items */
    memcpy(pt, p->pt, p->n * sizeof *pt);
    qsort(pt, p->n, sizeof *pt, by_x);
  }
  int np = p->panels.n ? p->panels.n : 1;
  int cols = np == 1 ? 1 : np <= 4 ? 2 : 3, rows = (np + cols - 1) / cols;
  double lo = INFINITY, hi = 0;
  for (size_t i = 0; i < p->n; i++) lo = fmin(lo, pt[i].x), hi = fmax(hi, pt[i].x);
  if (!p->n) lo = 1, hi = 2;
  if (!strcmp(fmt, "svg"))
    fprintf(f,
            "set terminal svg size %d,%d dynamic noenhanced font 'sans,11' background "
            "rgb 'white'\n",
            560 * cols, 400 * rows + 30);
  else
    fprintf(f,
            "set terminal pngcairo size %d,%d noenhanced font 'sans,10' background "
            "rgb 'white'\n",
            560 * cols, 400 * rows + 30);
  fputs("set output\n", f); /* the standard output: plot_write copies it */
  /* the data: one block per (panel, series), points in increasing x */
  for (size_t i = 0; i < p->n;) {
    fprintf(f, "$d_%d_%d << EOD\n", pt[i].panel, pt[i].series);
    size_t j = i;
    for (; j < p->n && pt[j].panel == pt[i].panel && pt[j].series == pt[i].series; j++)
      fprintf(f, "%.17g %.17g\n", pt[j].x, pt[j].y);
    fputs("EOD\n", f);
    i = j;
  }
  fputs("set multiplot layout ", f);
  fprintf(f, "%d,%d title ", rows, cols), quoted(f, p->title), fputc('\n', f);
  fputs("set logscale xy\nset grid\nset key top left\n", f);
  int si = !strcmp(p->yunit, "s");
  fputs(si ? "set format y '%.0s%cs'\n" : "set format y '%g'\n", f);
  xtics(f, lo, hi, p->xranks);
  fputs("set xlabel ", f), quoted(f, p->xlabel), fputc('\n', f);
  char ylab[512];
  snprintf(ylab, sizeof ylab, si ? "%s" : "%s (%s)", p->ylabel, p->yunit);
  fputs("set ylabel ", f), quoted(f, ylab), fputc('\n', f);
  for (int k = 0; k < p->panels.n; k++) {
    fputs("set title ", f), quoted(f, p->panels.v[k]), fputc('\n', f);
    const char *sep = "plot ";
    for (size_t i = 0; i < p->n; i++) {
      if (pt[i].panel != k || (i && pt[i - 1].panel == k && pt[i - 1].series == pt[i].series))
        continue;
      fprintf(f, "%s$d_%d_%d using 1:2 with linespoints linetype %d pointtype %d title ", sep, k,
              pt[i].series, pt[i].series + 1, pt[i].series % 13 + 1);
      quoted(f, p->series.v[pt[i].series]);
      sep = ", \\\n     ";
    }
    if (*sep == 'p') fputs("set label 1 'no data' at graph 0.5,0.5 center\nplot NaN notitle", f);
    fputc('\n', f);
  }
  fputs("unset multiplot\nset output\n", f);
  free(pt);
  return ferror(f) ? -1 : 0;
}

/* Run gnuplot on the script text[0..len): the script goes to its
 * standard input, what it draws comes back on its standard output and is
 * copied to out, its standard error is kept (the first bytes) in err. A
 * socket, not a pipe, feeds it so that a gnuplot that exits early makes
 * send fail (MSG_NOSIGNAL) instead of killing the command with SIGPIPE;
 * poll keeps both directions moving, so neither side waits on a full
 * buffer. *drawn counts the bytes copied. 0, or the errno of the spawn. */
static int pump(const char *prog, const char *text, size_t len, FILE *out, char *err, size_t errn,
                size_t *drawn, int *status) {
  int in[2], op[2], ep[2];
  *drawn = 0, *status = 0, err[0] = '\0';
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in)) return errno;
  if (pipe2(op, O_CLOEXEC)) {
    int e = errno;
    close(in[0]), close(in[1]);
    return e;
  }
  if (pipe2(ep, O_CLOEXEC)) {
    int e = errno;
    close(in[0]), close(in[1]), close(op[0]), close(op[1]);
    return e;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[1], 0);
  posix_spawn_file_actions_adddup2(&fa, op[1], 1);
  posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
  char *argv[] = {(char *)prog, NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, prog, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(in[1]), close(op[1]), close(ep[1]);
  if (rc) {
    close(in[0]), close(op[0]), close(ep[0]);
    return rc;
  }
  struct pollfd pf[3] = {{in[0], POLLOUT, 0}, {op[0], POLLIN, 0}, {ep[0], POLLIN, 0}};
  size_t sent = 0, elen = 0;
  if (!len) close(in[0]), pf[0].fd = -1;
  char buf[65536];
  while (pf[1].fd >= 0 || pf[2].fd >= 0) {
    if (poll(pf, 3, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (pf[0].fd >= 0 && pf[0].revents) {
      ssize_t k = send(pf[0].fd, text + sent, len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (k > 0) sent += (size_t)k;
      if ((k < 0 && errno != EAGAIN && errno != EINTR) || sent == len)
        close(pf[0].fd), pf[0].fd = -1; /* all sent, or gnuplot stopped reading */
    }
    for (int i = 1; i < 3; i++) {
      if (pf[i].fd < 0 || !pf[i].revents) continue;
      ssize_t k = read(pf[i].fd, buf, sizeof buf);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) {
        close(pf[i].fd), pf[i].fd = -1;
      } else if (i == 1) {
        fwrite(buf, 1, (size_t)k, out); /* a failing write is the caller's to report */
        *drawn += (size_t)k;
      } else if (elen + 1 < errn) {
        size_t c = (size_t)k < errn - 1 - elen ? (size_t)k : errn - 1 - elen;
        memcpy(err + elen, buf, c);
        err[elen += c] = '\0';
      }
    }
  }
  for (int i = 0; i < 3; i++)
    if (pf[i].fd >= 0) close(pf[i].fd);
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
  }
  return 0;
}

int plot_write(const plot_t *p, const char *path, FILE *out, const char *who) {
  const char *fmt = plot_format(path);
  if (!fmt) {
    fprintf(stderr, "%s: --plot: '%s' is not .svg or .png; accepted: FILE.svg, FILE.png\n", who,
            path);
    return 2;
  }
  const char *prog = getenv("TUTTI_GNUPLOT");
  if (!prog || !*prog) prog = "gnuplot";
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  int bad = !f || script(p, f, fmt);
  if (f && fclose(f)) bad = 1;
  if (bad) {
    free(text);
    fprintf(stderr, "%s: --plot: %s\n", who, strerror(ENOMEM));
    return 3;
  }
  char err[512];
  size_t drawn;
  int status, rc = pump(prog, text, len, out, err, sizeof err, &drawn, &status);
  free(text);
  if (rc == ENOENT) {
    fprintf(stderr,
            "%s: plot not drawn: %s is not installed (apt-get install gnuplot-nox); the CSV "
            "holds the data\n",
            who, prog);
    return 1;
  }
  if (rc || !WIFEXITED(status) || WEXITSTATUS(status) || !drawn) {
    /* gnuplot's first non-empty line says why */
    const char *line = err + strspn(err, " \t\n"), *why = NULL;
    int n = (int)strcspn(line, "\n");
    if (rc || !n) why = rc ? strerror(rc) : "gnuplot exited with an error";
    fprintf(stderr, "%s: --plot: drawing '%s' failed: %.*s\n", who, path,
            why ? (int)strlen(why) : n, why ? why : line);
    return 3;
  }
  return 0;
}

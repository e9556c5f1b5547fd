/*
 * test_e2e_progress.c -- the progress line of suite, sweep and run
 * (bench/cli_progress.c): on a terminal (a pseudo-terminal here) a line per
 * point, "tutti suite: 3/85 [###   ] 0:00 gone, about 0:02 left  8 ranks,
 * 8 B: bcast flat", every point counted once, in order, the last one
 * N/N; table rows never land on it (what the terminal shows of each line
 * of output is a row or nothing, never a row after the progress text); it
 * fits the terminal's width; --quiet and a stderr that is not a terminal
 * print none.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <errno.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "cli_helpers.h"

/* The progress lines drawn: each "\r\033[K" followed by "tutti CMD: ";
 * checks each has the counter "k/total" with k = 1, 2, ... in turn, fits
 * in cols - 1 columns, and (when it has room) says the time gone. Returns
 * how many. */
static int check_lines(const char *out, const char *cmd, int total, int cols) {
  char head[64];
  snprintf(head, sizeof head, "\r\033[Ktutti %s: ", cmd);
  int n = 0;
  for (const char *p = strstr(out, head); p; p = strstr(p + 1, head)) {
    const char *s = p + 4, *e = s; /* after \r\033[K */
    while (*e && *e != '\r' && *e != '\n') e++;
    int w = (int)(e - s);
    cr_assert(le(int, w, cols - 1), "wider than the terminal: %.*s", w, s);
    int k = 0, t = 0;
    cr_assert(eq(int, sscanf(s + strlen(head) - 4, "%d/%d [", &k, &t), 2), "%.*s", w, s);
    cr_assert(eq(int, k, n + 1), "point %d shown as %d: %.*s", n + 1, k, w, s);
    cr_assert(eq(int, t, total), "%.*s", w, s);
    if (cols >= 80) cr_assert(ne(ptr, strstr(s, " gone"), NULL), "%.*s", w, s);
    n++;
  }
  return n;
}

/* Whether text holds a progress line of cmd: "tutti CMD: k/N [". */
static int has_progress(const char *text, const char *cmd) {
  char head[64];
  snprintf(head, sizeof head, "tutti %s: ", cmd);
  for (const char *p = strstr(text, head); p; p = strstr(p + 1, head)) {
    int k, t;
    char br;
    if (sscanf(p + strlen(head), "%d/%d %c", &k, &t, &br) == 3 && br == '[') return 1;
  }
  return 0;
}

/* What the terminal shows of each output line (the text after its last
 * carriage return, the erase sequence dropped) never holds the progress
 * text: a row written while the line was up would follow it there. */
static void rows_stand_alone(const char *out, const char *cmd) {
  int rows = 0;
  for (const char *p = out; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    const char *vis = p;
    for (const char *q = p; q < p + len; q++)
      if (*q == '\r' && q + 1 < p + len) vis = q + 1;
    if (!strncmp(vis, "\033[K", 3)) vis += 3;
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(p + len - vis), vis);
    cr_assert(eq(int, has_progress(line, cmd), 0), "a row on the progress line: %s", line);
    rows += line[0] != '\0' && line[0] != '\r';
    if (!nl) {
      cr_assert(eq(int, (int)strlen(line), 0), "left on the screen: %s", line);
      break;
    }
    p = nl + 1;
  }
  cr_assert(gt(int, rows, 3), "%s", out);
}

static int count_points(const char *csv_or_json, const char *key) {
  int n = 0;
  for (const char *p = strstr(csv_or_json, key); p; p = strstr(p + 1, key)) n++;
  return n;
}

Test(progress, suite_draws_a_line_per_point_and_rows_stand_alone, .timeout = 240) {
  /* the number of points: what --json lists (skipped ones included) */
  struct cli j = CLI("suite", "-n", "5", "--sizes", "8,4KiB", "--json");
  cr_assert(eq(int, j.status, 0), "%s", j.err);
  int total = count_points(j.out, "\"algorithm_spec\":");
  cli_free(&j);
  const char *args[] = {"tutti", "suite", "-n", "5", "--sizes", "8,4KiB", NULL};
  char *out = cli_on_terminal(100, args);
  cr_assert(eq(int, check_lines(out, "suite", total, 100), total), "%s", out);
  rows_stand_alone(out, "suite");
  free(out);
  /* a narrow terminal: every line cut to fit, the counter first */
  out = cli_on_terminal(24, args);
  cr_assert(eq(int, check_lines(out, "suite", total, 24), total), "%s", out);
  free(out);
}

Test(progress, sweep_draws_a_line_per_point_and_rows_stand_alone, .timeout = 240) {
  const char *args[] = {"tutti", "sweep", "bcast", "-n", "4,7", "--sizes", "8,1KiB", NULL};
  struct cli j = CLI("sweep", "bcast", "-n", "4,7", "--sizes", "8,1KiB", "--json");
  cr_assert(eq(int, j.status, 0), "%s", j.err);
  int total = count_points(j.out, "\"algorithm_spec\":");
  cli_free(&j);
  char *out = cli_on_terminal(120, args);
  cr_assert(eq(int, check_lines(out, "sweep", total, 120), total), "%s", out);
  rows_stand_alone(out, "sweep");
  free(out);
}

Test(progress, quiet_or_no_terminal_draws_none, .timeout = 240) {
  const char *args[] = {"tutti", "suite", "-n", "4", "-m", "8", "--quiet", NULL};
  char *out = cli_on_terminal(100, args);
  cr_assert(eq(int, has_progress(out, "suite"), 0), "%s", out);
  cr_assert(ne(ptr, strstr(out, "winners"), NULL), "%s", out);
  free(out);
  const char *sw[] = {"tutti", "sweep", "bcast", "-n", "4", "--sizes", "8", "-q", NULL};
  out = cli_on_terminal(100, sw);
  cr_assert(eq(int, has_progress(out, "sweep"), 0), "%s", out);
  free(out);
  /* pipes (cli_helpers.h): nothing on stderr */
  struct cli c = CLI("suite", "-n", "4", "-m", "8");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(str, c.err, ""));
  cli_free(&c);
  c = CLI("run", "bcast", "binomial", "-n", "4", "--quiet");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(str, c.err, ""));
  cli_free(&c);
}

/*
 * page.c -- a results page (bench/results/NAME.md): what a command printed,
 * whole, under a head that says which command wrote it, when, with which
 * tutti and on what machine (CPU model, cores, kernel, load average at the
 * start), and a foot with the load average at the end. `tutti bench NAME
 * --markdown` and `tutti list --markdown` write them; tests/
 * test_e2e_results.c re-runs the modeled ones and compares them with the
 * committed pages, skipping the head's and foot's lines, which are
 * quoted (`> `) for that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "tutti/tutti.h"

/* The CPU's model name, from /proc/cpuinfo; "unknown CPU" without one. */
static void cpu_model(char *buf, size_t n) {
  char line[512];
  FILE *f = fopen("/proc/cpuinfo", "r");
  snprintf(buf, n, "unknown CPU");
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) || !colon) continue;
    colon += 1 + (colon[1] == ' ');
    colon[strcspn(colon, "\n")] = '\0';
    snprintf(buf, n, "%s", colon);
    break;
  }
  if (f) fclose(f);
}

static void load(char *buf, size_t n) {
  double l[3];
  if (getloadavg(l, 3) == 3)
    snprintf(buf, n, "%.2f %.2f %.2f", l[0], l[1], l[2]);
  else
    snprintf(buf, n, "unknown");
}

void bench_page_begin(const char *title, const char *cmd, int argc, char **argv, int modeled) {
  char cpu[256], ld[64], when[64];
  struct utsname u;
  time_t now = time(NULL);
  strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&now));
  cpu_model(cpu, sizeof cpu);
  load(ld, sizeof ld);
  if (uname(&u)) snprintf(u.release, sizeof u.release, "unknown");
  printf("# %s\n\n> Written by `%s", title, cmd);
  for (int i = 0; i < argc; i++) printf(" %s", argv[i]);
  printf("` (tutti %s), %s.\n", TUTTI_VERSION_STRING, when);
  printf("> Machine: %s, %ld cores, Linux %s; load average %s at the start.\n", cpu,
         sysconf(_SC_NPROCESSORS_ONLN), u.release, ld);
  if (modeled == 2)
    printf("> Simulated on both sides, the same on any machine with the same simulator: run the "
           "command to check.\n\n");
  else if (modeled)
    printf("> Modeled, the same on any machine: tests/test_e2e_results.c re-runs it.\n\n");
  else
    printf("> Wall-clock times of this machine, as it was loaded then: run the command "
           "to measure yours.\n\n");
}

void bench_page_end(void) {
  char ld[64];
  load(ld, sizeof ld);
  printf("\n> Load average %s at the end.\n", ld);
}

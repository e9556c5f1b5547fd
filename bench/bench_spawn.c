/*
 * bench_spawn.c -- `tutti bench spawn`: what starting and ending thousands
 * of rank threads costs, against what the threads alone cost.
 *
 * Three cases at each P (default 4096 and 16384), each run in a child
 * process of its own (fork, then wait4's resource usage: the child's wall
 * time, user and system CPU of all its threads, and its peak RSS, which a
 * long-lived process could not give per case):
 *   floor  P bare threads created and joined, each returning at once;
 *   gated  P threads all alive at once: created, each waiting on one
 *          futex, released with one wake, joined (what a world must do at
 *          least: no rank may start before every thread exists);
 *   tutti  a world of P rank threads running one 8 B lambda-tree reduce on
 *          the hockney model (alpha 1 us, beta 1 ns/B, every message
 *          rendezvous), the result checked at the root, the run replayed,
 *          the world destroyed -- `tutti run reduce lambda-tree -n P -m 8`
 *          without the command's checking.
 * The floor's threads get stacks like a world's (128 KiB slots of one
 * region, a guard page each, a guard region where the kernel has them),
 * so that the difference is tutti's own work.
 * Rounds run the cases in turn (the order rotates); figures are medians,
 * ratios medians of the per-round ratios (the machine is shared: its
 * speed swings between rounds, not within one).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "stats.h"
#include "tutti/tutti.h"

#define STACK ((size_t)128 << 10) /* a rank thread's default stack (runtime/world.c) */
#ifndef MADV_GUARD_INSTALL        /* Linux 6.13 */
#define MADV_GUARD_INSTALL 102
#endif
#define MAXP 32768 /* a guard page each: two mappings a thread of 65530 */
#define MAXN 8
#define MAXROUNDS 99

enum { FLOOR, GATED, TUTTI, NCASES };
static const char *case_name[NCASES] = {"floor", "gated", "tutti"};

/* ----------------------------------------------------------- the floors */

static int gate;

static void *bare(void *arg) {
  return arg;
}

static void *gated(void *arg) {
  while (!__atomic_load_n(&gate, __ATOMIC_ACQUIRE))
    syscall(SYS_futex, &gate, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
  return arg;
}

/* P threads on stacks carved from one region, as a world's are (under
 * ThreadSanitizer glibc's, as a world's then: its thread state does not
 * fit in a given stack). */
static int threads(int P, int wait_gate) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE), slot = page + STACK;
  pthread_t *t = malloc((size_t)P * sizeof *t);
  char *region = mmap(NULL, slot * (size_t)P, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (!t || region == MAP_FAILED) return 1;
  int madv = 1; /* guard regions where the kernel has them, as a world's */
  for (int i = 0; i < P; i++) {
    char *g = region + (size_t)i * slot;
    if (madv && madvise(g, page, MADV_GUARD_INSTALL) == 0) continue;
    madv = 0;
    if (mprotect(g, page, PROT_NONE)) return 1;
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
#ifdef __SANITIZE_THREAD__
  pthread_attr_setstacksize(&attr, 4 * STACK);
#endif
  int n = 0;
  for (; n < P; n++) {
#ifndef __SANITIZE_THREAD__
    pthread_attr_setstack(&attr, region + (size_t)n * slot + page, STACK);
#endif
    if (pthread_create(&t[n], &attr, wait_gate ? gated : bare, NULL)) break;
  }
  __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &gate, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
  for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
  return n < P;
}

/* ------------------------------------------------------------ the world */

static const tutti_algo_t *lambda;

static int reduce_rank(tutti_rank_t *r, void *arg) {
  (void)arg;
  int32_t in[2] = {1, tutti_rank(r)}, out[2] = {0, 0};
  int rc = tutti_reduce(r, in, out, 2, TUTTI_INT32, TUTTI_SUM, 0, lambda);
  if (!rc && tutti_rank(r) == 0) {
    int64_t P = tutti_size(r);
    if (out[0] != P || out[1] != (int32_t)(P * (P - 1) / 2)) return 1; /* a wrong sum */
  }
  return rc;
}

static int world(int P) {
  tutti_model_t m;
  tutti_model_hockney(&m, 1e-6, 1e-9);
  tutti_config_t cfg = tutti_config_default(P);
  cfg.model = &m;
  cfg.ranks_as = TUTTI_RANKS_AS_THREADS; /* what is measured: starting rank threads */
  tutti_world_t *w;
  if (tutti_world_create(&w, &cfg)) return 1;
  int rc = tutti_world_run(w, reduce_rank, NULL);
  if (rc) fprintf(stderr, "tutti bench spawn: %s\n", tutti_world_error(w));
  tutti_world_destroy(w);
  return rc != 0;
}

/* ------------------------------------------------------------ measuring */

struct fig {
  double wall, user, sys, rss; /* s, s, s, MiB */
};

/* One case in a child process; 0, or -1 after a line on stderr. */
static int measure(int kind, int P, struct fig *f) {
  fflush(stdout);
  fflush(stderr);
  double t0 = bench_now();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "tutti bench spawn: fork: %s\n", strerror(errno));
    return -1;
  }
  if (pid == 0) _exit(kind == TUTTI ? world(P) : threads(P, kind == GATED));
  int st;
  struct rusage ru;
  while (wait4(pid, &st, 0, &ru) < 0)
    if (errno != EINTR) {
      fprintf(stderr, "tutti bench spawn: wait4: %s\n", strerror(errno));
      return -1;
    }
  f->wall = bench_now() - t0;
  if (!WIFEXITED(st) || WEXITSTATUS(st)) {
    fprintf(stderr, "tutti bench spawn: %s at P=%d failed (%s %d)\n", case_name[kind], P,
            WIFEXITED(st) ? "exit status" : "signal",
            WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    return -1;
  }
  f->user = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec;
  f->sys = (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
  f->rss = (double)ru.ru_maxrss / 1024;
  return 0;
}

static int parse_ranks(const char *s, int *out) {
  int n = 0;
  while (*s) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || errno || v < 2 || v > MAXP || n == MAXN || (*end && *end != ',')) return -1;
    out[n++] = (int)v;
    s = *end ? end + 1 : end;
  }
  return n;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: tutti bench spawn [-n P,Q,..] [--rounds K]\n\n"
          "Starting and ending P rank threads: a world running an 8 B lambda-tree\n"
          "reduce (tutti) against P bare threads created and joined (floor) and P\n"
          "threads all alive at once behind one futex (gated), each case in a child\n"
          "process of its own: wall, user and system CPU, peak RSS; medians of K\n"
          "rounds, the cases in turn.\n\n"
          "  -n P,Q,..     rank counts, each 2..%d (default 4096,16384)\n"
          "  --rounds K    rounds, 1..%d (default 3)\n",
          MAXP, MAXROUNDS);
}

int tutti_bench_spawn(int argc, char **argv) {
  const char *who = "tutti bench spawn";
  int ranks[MAXN] = {4096, 16384}, nranks = 2, rounds = 3;
  unsigned seen = 0;
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else if ((v = bench_opt(argc, argv, &i, "-n"))) {
      if (bench_once(who, &seen, 1u << 0, "-n")) return 2;
      if ((nranks = parse_ranks(v, ranks)) <= 0) {
        fprintf(stderr, "%s: -n: '%s' is not a list of rank counts; accepted: up to %d of 2..%d\n",
                who, v, MAXN, MAXP);
        return 2;
      }
    } else if ((v = bench_opt(argc, argv, &i, "--rounds"))) {
      if (bench_once(who, &seen, 1u << 1, "--rounds")) return 2;
      char *end;
      long k = strtol(v, &end, 10);
      if (end == v || *end || k < 1 || k > MAXROUNDS) {
        fprintf(stderr, "%s: --rounds: '%s' is not a round count; accepted: 1..%d\n", who, v,
                MAXROUNDS);
        return 2;
      }
      rounds = (int)k;
    } else {
      fprintf(stderr, "%s: unknown option '%s' (see --help)\n", who, argv[i]);
      return 2;
    }
  }
  char err[256];
  if (tutti_algo_select(TUTTI_COLL_REDUCE, "lambda-tree", NULL, &lambda, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", who, err);
    return 3;
  }
  printf("Starting and ending P threads, each case a child process of its own, %d round%s,\n"
         "cases in turn; medians (ratios: of the per-round ratios).\n"
         "  floor  P bare threads (128 KiB stacks from one region, as a world's), joined\n"
         "  gated  the same, all alive at once behind one futex, released by one wake\n"
         "  tutti  a world of P rank threads: one 8 B lambda-tree reduce (hockney 1 us,\n"
         "         1 ns/B), checked, replayed, destroyed\n\n",
         rounds, rounds > 1 ? "s" : "");
  static struct fig fig[MAXN][NCASES][MAXROUNDS];
  for (int r = 0; r < rounds; r++)
    for (int p = 0; p < nranks; p++)
      for (int c = 0; c < NCASES; c++) {
        int kind = (c + r) % NCASES;
        if (measure(kind, ranks[p], &fig[p][kind][r])) return 3;
      }
  printf("%7s  %-5s  %7s  %7s  %7s  %8s  %10s\n", "P", "case", "wall s", "user s", "sys s",
         "RSS MiB", "wall/floor");
  double v[MAXROUNDS];
  for (int p = 0; p < nranks; p++)
    for (int c = 0; c < NCASES; c++) {
      double m[4];
      for (int k = 0; k < 4; k++) {
        for (int r = 0; r < rounds; r++) {
          const struct fig *f = &fig[p][c][r];
          v[r] = k == 0 ? f->wall : k == 1 ? f->user : k == 2 ? f->sys : f->rss;
        }
        m[k] = bench_median(v, rounds);
      }
      for (int r = 0; r < rounds; r++) v[r] = fig[p][c][r].wall / fig[p][FLOOR][r].wall;
      printf("%7d  %-5s  %7.3f  %7.3f  %7.3f  %8.0f  %9.2fx\n", ranks[p], case_name[c], m[0], m[1],
             m[2], m[3], bench_median(v, rounds));
    }
  for (int p = 1; p < nranks; p++) {
    printf("\nscaling %d/%d (wall, %.0fx the ranks):", ranks[p], ranks[0],
           (double)ranks[p] / ranks[0]);
    for (int c = 0; c < NCASES; c++) {
      for (int r = 0; r < rounds; r++) v[r] = fig[p][c][r].wall / fig[0][c][r].wall;
      printf(" %s %.2fx%s", case_name[c], bench_median(v, rounds), c + 1 < NCASES ? "," : "\n");
    }
  }
  return 0;
}

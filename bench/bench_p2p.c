/*
 * bench_p2p.c -- `tutti bench p2p`: point-to-point speed beside its
 * physical floors, measured in the same run so the ratios hold on a noisy
 * shared machine:
 *   - one-way latency (8..64 B) next to a two-thread cache-line ping-pong;
 *   - bandwidth (1 KiB..64 MiB) next to a single-thread memcpy;
 *   - message rate with P = 2..1024 ranks exchanging with random peers,
 *     with futex sleeps and wake-ups per message;
 *   - the wall time of a 4096-rank sendrecv ring.
 * Each figure is the best of a few repetitions (noise only adds time).
 * Ranks are threads throughout (what the floors run on, and what the
 * sleeps and wake-ups count: futex calls).
 * The ping-pong and the stream are pingpong.c's, written against the
 * contract alone: `mpirun -n 2 tutti-mpi bench p2p` runs the same code over
 * MPI (bench/mpi/bench.c).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"
#include "stats.h"
#include "pingpong.h"
#include "tutti/tutti.h"

/* ------------------------------------------------------------- the floors */

/* Untimed round trips before each latency loop. */
enum { WARMUP = 1000 };

struct pp {
  _Alignas(64) volatile int flag;
  long iters;
  int cpu;
};

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu % CPU_SETSIZE, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void unpin(void) {
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c = 0; c < CPU_SETSIZE; c++) CPU_SET(c, &all);
  pthread_setaffinity_np(pthread_self(), sizeof all, &all);
}

static void *pong(void *arg) {
  struct pp *p = arg;
  pin(p->cpu);
  /* Warm-up rounds included: the timed loop starts only once both threads
   * sit on their cores, so thread start and migration are not measured. */
  for (long i = 0; i < p->iters + WARMUP; i++) {
    while (__atomic_load_n(&p->flag, __ATOMIC_ACQUIRE) != 1) __builtin_ia32_pause();
    __atomic_store_n(&p->flag, 0, __ATOMIC_RELEASE);
  }
  return NULL;
}

/* One-way time of a cache line bouncing between two spinning threads. */
static double cacheline_oneway(long iters) {
  struct pp p = {.flag = 0, .iters = iters, .cpu = 1};
  pthread_t t;
  pthread_create(&t, NULL, pong, &p);
  pin(0);
  double t0 = 0;
  for (long i = 0; i < iters + WARMUP; i++) {
    if (i == WARMUP) t0 = bench_now();
    __atomic_store_n(&p.flag, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&p.flag, __ATOMIC_ACQUIRE) != 0) __builtin_ia32_pause();
  }
  double dt = bench_now() - t0;
  pthread_join(t, NULL);
  unpin();
  return dt / (2.0 * (double)iters);
}

static double memcpy_rate(size_t bytes, int reps) {
  char *a = malloc(bytes), *b = malloc(bytes);
  memset(a, 1, bytes), memset(b, 2, bytes);
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now();
    memcpy(b, a, bytes);
    __asm__ volatile("" ::"r"(b) : "memory");
    double dt = bench_now() - t0;
    if (dt < best) best = dt;
  }
  free(a), free(b);
  return (double)bytes / best;
}

/* --------------------------------------------------------------- tutti */

struct lat_arg {
  size_t bytes;
  long iters;
  double oneway;
};

/* Each rank on its own core, as the floor's two threads are: the figure
 * then compares like with like. */
static int latency_fn(tutti_rank_t *r, void *arg) {
  struct lat_arg *a = arg;
  char buf[64] = {0};
  pin(tutti_rank(r));
  int rc = pp_latency(r, buf, a->bytes, a->iters, WARMUP, bench_now, &a->oneway);
  unpin();
  return rc;
}

struct bw_arg {
  size_t bytes;
  int msgs;
  char *buf[2];
  double rate;
};

static int bandwidth_fn(tutti_rank_t *r, void *arg) {
  struct bw_arg *a = arg;
  int me = tutti_rank(r);
  /* Warm both buffers so page faults are not measured. */
  memset(a->buf[me], me, a->bytes);
  return pp_stream(r, a->buf[me], a->bytes, a->msgs, bench_now, &a->rate);
}

struct rate_arg {
  int rounds;
  double seconds;
};

/* Round k: a random permutation pi_k known to all; rank i sends to pi(i)
 * and receives from pi^-1(i): random peers, no deadlock. */
static int rate_fn(tutti_rank_t *r, void *arg) {
  struct rate_arg *a = arg;
  int me = tutti_rank(r), p = tutti_size(r), rc = 0;
  int *perm = malloc(sizeof(int) * (size_t)p), *inv = malloc(sizeof(int) * (size_t)p);
  uint64_t x = 88172645463325252ull;
  int64_t v = me, got;
  double t0 = bench_now();
  for (int k = 0; k < a->rounds && !rc; k++) {
    for (int i = 0; i < p; i++) perm[i] = i;
    for (int i = p - 1; i > 0; i--) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      int j = (int)(x % (uint64_t)(i + 1)), t = perm[i];
      perm[i] = perm[j], perm[j] = t;
    }
    for (int i = 0; i < p; i++) inv[perm[i]] = i;
    rc = tutti_sendrecv(r, &v, 1, TUTTI_INT64, perm[me], k, &got, 1, TUTTI_INT64, inv[me], k, NULL);
  }
  if (me == 0) a->seconds = bench_now() - t0;
  free(perm), free(inv);
  return rc;
}

static int ring_fn(tutti_rank_t *r, void *arg) {
  int me = tutti_rank(r), p = tutti_size(r);
  int64_t x = me, y;
  int rc = tutti_sendrecv(r, &x, 1, TUTTI_INT64, (me + 1) % p, 0, &y, 1, TUTTI_INT64,
                          (me + p - 1) % p, 0, NULL);
  return rc ? rc : (y == (me + p - 1) % p ? 0 : TUTTI_EVERIFY);
}

static int run(tutti_world_t *w, tutti_rank_fn *fn, void *arg) {
  int rc = tutti_world_run(w, fn, arg);
  if (rc) fprintf(stderr, "tutti bench p2p: %s\n", tutti_world_error(w));
  return rc;
}

static void fmt_size(size_t b, char *out, size_t n) {
  if (b >= (1u << 20))
    snprintf(out, n, "%zu MiB", b >> 20);
  else if (b >= 1024)
    snprintf(out, n, "%zu KiB", b >> 10);
  else
    snprintf(out, n, "%zu B", b);
}

int tutti_bench_p2p(int argc, char **argv) {
  int quick = 0, use_mpi = 1, steady_reps = 20, steady_only = 0;
  unsigned seen = 0;
  for (int i = 0; i < argc; i++) {
    const char *v;
    if (!strcmp(argv[i], "--quick"))
      quick = 1;
    else if (!strcmp(argv[i], "--no-mpi"))
      use_mpi = 0;
    else if (!strcmp(argv[i], "--steady"))
      steady_only = 1;
    else if ((v = bench_opt(argc, argv, &i, "--reps"))) {
      char *end;
      long k = strtol(v, &end, 10);
      if (bench_once("tutti bench p2p", &seen, 1, "--reps")) return 2;
      if (*end || end == v || k < 1 || k > 256) {
        fprintf(stderr, "tutti bench p2p: --reps: '%s' is not a count; accepted: 1..256\n", v);
        return 2;
      }
      steady_reps = (int)k;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: tutti bench p2p [--quick] [--steady] [--reps K] [--no-mpi]\n"
             "  latency, bandwidth and message rate of tutti's p2p layer beside the\n"
             "  physical floors of this machine, measured in the same run; first, the\n"
             "  distribution of 8 B one-way and barrier times at 2 ranks over K\n"
             "  repetitions beside pthread_barrier_wait and Open MPI's (when installed).\n"
             "  --quick     fewer repetitions (a smoke run)\n"
             "  --steady    the steady section only\n"
             "  --reps K    repetitions of the steady section, 1..256 (default 20)\n"
             "  --no-mpi    leave Open MPI out\n");
      return 0;
    } else {
      fprintf(stderr,
              "tutti bench p2p: unknown option '%s'; accepted: --quick, --steady, --reps K, "
              "--no-mpi, --help\n",
              argv[i]);
      return 2;
    }
  }
  int reps = quick ? 1 : 3;
  long lat_iters = quick ? 20000 : 100000;
  tutti_world_t *w;
  tutti_config_t c = tutti_config_default(2);
  c.ranks_as = TUTTI_RANKS_AS_THREADS;
  if (tutti_world_create(&w, &c)) return 3;

  printf("# tutti bench p2p (none model, eager below 64 KiB; best of %d)\n\n", reps);
  fflush(stdout); /* before mpirun's children inherit the buffer */
  int steady = bench_steady(steady_reps, use_mpi);
  if (steady || steady_only) {
    tutti_world_destroy(w);
    return steady;
  }
  /* Floor and tutti side by side, round after round: the two vCPUs' speed
   * drifts with the host, so each round's ratio is taken within the round,
   * and the median over rounds is the figure to read. */
  enum { NLAT = 4, MAXROUNDS = 9 };
  size_t lat_sizes[NLAT] = {8, 16, 32, 64};
  int rounds = quick ? 3 : MAXROUNDS;
  double fl[MAXROUNDS], lat[NLAT][MAXROUNDS], ratio[NLAT][MAXROUNDS], sleeps[NLAT] = {0};
  for (int k = 0; k < rounds; k++) {
    fl[k] = cacheline_oneway(lat_iters);
    for (int s = 0; s < NLAT; s++) {
      struct lat_arg a = {lat_sizes[s], lat_iters, 0};
      if (run(w, latency_fn, &a)) return 3;
      tutti_stats_t st;
      tutti_world_stats(w, &st);
      sleeps[s] += (double)st.sleeps;
      lat[s][k] = a.oneway;
      ratio[s][k] = a.oneway / fl[k];
    }
  }
  printf(
      "one-way latency (ranks pinned to cores 0 and 1, as the floor's threads; %d rounds of\n"
      "%ld round trips, floor and tutti in turn)\n"
      "             tutti (median)  floor (median, cache-line ping-pong)  ratio (median of rounds)"
      "  sleeps/msg\n",
      rounds, lat_iters);
  double flm = bench_median(fl, rounds);
  for (int s = 0; s < NLAT; s++)
    printf("  %4zu B        %8.1f ns      %8.1f ns                            %6.2fx"
           "                   %.4f\n",
           lat_sizes[s], bench_median(lat[s], rounds) * 1e9, flm * 1e9,
           bench_median(ratio[s], rounds), sleeps[s] / (2.0 * (double)lat_iters * rounds));

  printf("\nbandwidth              tutti       memcpy (one thread)   ratio  protocol\n");
  for (size_t bytes = 1024; bytes <= ((size_t)64 << 20); bytes *= 4) {
    struct bw_arg a = {bytes, 0, {malloc(bytes), malloc(bytes)}, 0};
    size_t total = quick ? ((size_t)64 << 20) : ((size_t)512 << 20);
    a.msgs = (int)(total / bytes < 4 ? 4 : total / bytes > 20000 ? 20000 : total / bytes);
    double best = 0;
    for (int k = 0; k < reps; k++) {
      if (run(w, bandwidth_fn, &a)) return 3;
      if (a.rate > best) best = a.rate;
    }
    double mc = memcpy_rate(bytes, bytes >= ((size_t)16 << 20) ? 5 * reps : 50 * reps);
    char sz[32];
    fmt_size(bytes, sz, sizeof sz);
    printf("  %-8s       %7.2f GB/s  %7.2f GB/s         %5.2fx  %s\n", sz, best / 1e9, mc / 1e9,
           best / mc, bytes < ((size_t)64 << 10) ? "eager" : "rendezvous");
    free(a.buf[0]), free(a.buf[1]);
  }
  tutti_world_destroy(w);

  printf("\nmessage rate, random peers (sendrecv rounds)\n");
  printf("  ranks    msgs/s       per msg    sleeps/msg  wake-ups/msg\n");
  for (int p = 2; p <= 1024; p *= 2) {
    tutti_config_t cp = tutti_config_default(p);
    cp.ranks_as = TUTTI_RANKS_AS_THREADS;
    if (tutti_world_create(&w, &cp)) return 3;
    struct rate_arg a = {0, 0};
    a.rounds = (int)((quick ? 20000 : 100000) / p);
    if (a.rounds < 5) a.rounds = 5;
    double best = 1e30;
    tutti_stats_t st = {0};
    for (int k = 0; k < reps; k++) {
      if (run(w, rate_fn, &a)) return 3;
      if (a.seconds < best) best = a.seconds, tutti_world_stats(w, &st);
    }
    double msgs = (double)p * a.rounds;
    printf("  %5d  %10.0f  %9.2f us  %10.3f  %12.3f\n", p, msgs / best, best / msgs * 1e6,
           (double)st.sleeps / msgs, (double)st.wakeups / msgs);
    tutti_world_destroy(w);
  }

  /* Rings at the scale the runtime is built for: 4096 ranks is a normal
   * test; 16384 is the practical ceiling here (kernel.pid_max 32768,
   * vm.max_map_count 65530: two maps per thread stack). */
  int ring_sizes[] = {4096, 16384};
  for (int k = 0; k < 2; k++) {
    c = tutti_config_default(ring_sizes[k]);
    c.ranks_as = TUTTI_RANKS_AS_THREADS;
    if (tutti_world_create(&w, &c)) return 3;
    double best = 1e30;
    for (int rep = 0; rep < (k ? 1 : reps); rep++) {
      double t0 = bench_now();
      if (run(w, ring_fn, NULL)) return 3;
      double dt = bench_now() - t0;
      if (dt < best) best = dt;
    }
    tutti_stats_t st;
    tutti_world_stats(w, &st);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%s%d-rank sendrecv ring: %.3f s wall (threads started to joined), %lu sleeps, "
           "peak RSS %.0f MiB\n",
           k ? "" : "\n", ring_sizes[k], best, (unsigned long)st.sleeps,
           (double)ru.ru_maxrss / 1024.0);
    tutti_world_destroy(w);
  }
  return 0;
}

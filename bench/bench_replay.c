/*
 * bench_replay.c -- `tutti bench replay`: how fast the replay engine
 * (runtime/replay.c) turns event logs into modeled time.
 *
 * It builds synthetic logs exactly as the runtime records them (blocking
 * send = SEND + WAIT, blocking receive = RECV naming its SEND + WAIT,
 * sendrecv = SEND, RECV, WAIT, WAIT) for a few patterns, replays each a few
 * times and prints events per second, the replay's memory per event and
 * its wall time:
 *   binomial  a binomial broadcast from rank 0 (largest subtree first),
 *             `iters` consecutive calls; Hockney, all rendezvous (rule 3)
 *   ring      a pipelined ring: every round each rank sendrecvs to its
 *             right and from its left; LogGP, all eager (rules 1, 2)
 *   pairs     rounds of random pairs exchanging random sizes (half eager,
 *             half rendezvous) with some local work (rule 6)
 * Each pattern is replayed under both sharings (runtime/MODEL.md
 * "Sharing"; --sharing picks one): fifo, and fair -- max-min fair flows
 * over the ports (replay_fair.c) --, side by side, and a last line gives
 * fair's events per CPU second over fifo's per pattern.
 * The replay is single-threaded; the builder's time is not counted.
 *
 * `tutti bench contention` (tutti_bench_contention) measures what link
 * contention (runtime/MODEL.md "Topology") costs the replay: a 1024-rank chain
 * broadcast pipelined in segments, replayed without a topology and on
 * tree:32x32 (identity: one flow per link; roundrobin: every hop crosses
 * the root, the most contended), side by side; the budget is 3x.
 *
 * Both use the library's internals, which libtutti.so does not export, so
 * this file is a program of its own, `bench_replay replay|contention
 * [options]`, linked with the internal static library and built beside
 * build/tutti; `tutti bench replay|contention` runs it (bench/main.c).
 */
#include "internal.h" /* first: it sets _GNU_SOURCE */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "cli.h"
#include "replay.h"

struct logs {
  int P;
  struct tutti_evlog *log;
  const struct tutti_evlog **ptr;
  uint32_t *idx; /* scratch: a pending SEND's index, per rank */
};

static int logs_init(struct logs *L, int P) {
  L->P = P;
  L->log = calloc((size_t)P, sizeof *L->log);
  L->ptr = calloc((size_t)P, sizeof *L->ptr);
  L->idx = calloc((size_t)P, sizeof *L->idx);
  if (!L->log || !L->ptr || !L->idx) return TUTTI_ENOMEM;
  for (int r = 0; r < P; r++) L->ptr[r] = &L->log[r];
  return 0;
}

static void logs_free(struct logs *L) {
  for (int r = 0; r < L->P; r++) tutti__evlog_free(&L->log[r]);
  free(L->log);
  free(L->ptr);
  free(L->idx);
}

static int oom;

static uint32_t ev(struct logs *L, int r, int kind, int peer, int tag, uint32_t ref,
                   uint64_t bytes) {
  struct tutti_ev e = {.kind = (uint8_t)kind, .peer = peer, .tag = tag, .ref = ref, .bytes = bytes};
  uint32_t i = tutti__evlog_push(&L->log[r], &e);
  if (i == UINT32_MAX) oom = 1;
  return i;
}

static void span(struct logs *L, int r, int end) {
  uint32_t i = ev(L, r, end ? TUTTI_EV_SPAN_END : TUTTI_EV_SPAN_BEGIN, 0, 0, 0, 0);
  if (!end && i != UINT32_MAX) L->log[r].ev[i].u.name = "bcast";
}

/* rank r posts its half of a sendrecv with `peer`; the peer's SEND index
 * must already be in L->idx[peer] (all SENDs of a round are appended
 * before the RECVs: each rank's own order is SEND, RECV, WAIT, WAIT). */
static void sendrecv_send(struct logs *L, int r, int peer, int tag, uint64_t bytes) {
  L->idx[r] = ev(L, r, TUTTI_EV_SEND, peer, tag, 0, bytes);
}
static void sendrecv_rest(struct logs *L, int r, int peer, int tag, uint64_t bytes) {
  uint32_t s = (uint32_t)L->log[r].n - 1; /* its SEND, appended last */
  uint32_t q = ev(L, r, TUTTI_EV_RECV, peer, tag, L->idx[peer], bytes);
  ev(L, r, TUTTI_EV_WAIT, 0, 0, s, 0);
  ev(L, r, TUTTI_EV_WAIT, 0, 0, q, 0);
}

static void build_binomial(struct logs *L, int iters, uint64_t bytes) {
  int P = L->P, top = 1;
  while (top < P) top *= 2;
  for (int k = 0; k < iters; k++)
    for (int r = 0; r < P; r++) { /* a parent (r - lowbit) comes before its children */
      int low = r ? (r & -r) : top;
      span(L, r, 0);
      if (r) {
        uint32_t q = ev(L, r, TUTTI_EV_RECV, r - low, k, L->idx[r], bytes);
        ev(L, r, TUTTI_EV_WAIT, 0, 0, q, 0);
      }
      for (int mask = low / 2; mask >= 1; mask /= 2)
        if (r + mask < P) {
          uint32_t s = ev(L, r, TUTTI_EV_SEND, r + mask, k, 0, bytes);
          L->idx[r + mask] = s;
          ev(L, r, TUTTI_EV_WAIT, 0, 0, s, 0);
        }
      span(L, r, 1);
    }
}

static void build_ring(struct logs *L, int iters, uint64_t bytes) {
  int P = L->P;
  for (int k = 0; k < iters; k++) {
    for (int r = 0; r < P; r++) sendrecv_send(L, r, (r + 1) % P, k, bytes);
    for (int r = 0; r < P; r++) sendrecv_rest(L, r, (r + P - 1) % P, k, bytes);
  }
}

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void build_pairs(struct logs *L, int iters, uint64_t seed) {
  int P = L->P;
  int *perm = malloc((size_t)P * sizeof *perm), *mate = malloc((size_t)P * sizeof *mate);
  uint64_t *size = malloc((size_t)P * sizeof *size);
  if (!perm || !mate || !size) {
    oom = 1;
    goto out;
  }
  for (int r = 0; r < P; r++) perm[r] = r;
  for (int k = 0; k < iters; k++) {
    for (int i = P - 1; i > 0; i--) {
      int j = (int)(xorshift(&seed) % (uint64_t)(i + 1)), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    for (int r = 0; r < P; r++) mate[r] = -1;
    for (int i = 0; i + 1 < P; i += 2) {
      mate[perm[i]] = perm[i + 1];
      mate[perm[i + 1]] = perm[i];
    }
    for (int r = 0; r < P; r++) {
      size[r] = xorshift(&seed) % 16384;
      if (mate[r] >= 0) sendrecv_send(L, r, mate[r], k, size[r]);
    }
    for (int r = 0; r < P; r++) {
      if (mate[r] >= 0) {
        sendrecv_rest(L, r, mate[r], k, size[mate[r]]);
      } else {
        uint32_t i = ev(L, r, TUTTI_EV_COMPUTE, 0, 0, 0, 0);
        if (i != UINT32_MAX) L->log[r].ev[i].u.seconds = 1e-6;
      }
      if ((r + k) % 4 == 0) ev(L, r, TUTTI_EV_REDUCE, 0, 0, 0, size[r]);
    }
  }
out:
  free(perm);
  free(mate);
  free(size);
}

/* A chain broadcast 0 -> 1 -> ... -> P-1 pipelined in `segs` segments, as
 * the pipelined broadcast does it: each rank posts the receive of segment
 * k + 1 before forwarding segment k with a nonblocking send, and waits for
 * that send before forwarding the next. Built rank by rank, so that every
 * RECV can name its SEND (prev[k]: rank r-1's SEND of segment k). */
static void build_chain(struct logs *L, int segs, uint64_t bytes) {
  int P = L->P;
  uint32_t *prev = malloc((size_t)segs * sizeof *prev), *cur = malloc((size_t)segs * sizeof *cur);
  if (!prev || !cur) {
    oom = 1;
    goto out;
  }
  for (int r = 0; r < P; r++) {
    span(L, r, 0);
    uint32_t rq = UINT32_MAX, sq = UINT32_MAX;
    if (r) rq = ev(L, r, TUTTI_EV_RECV, r - 1, 0, prev[0], bytes);
    for (int k = 0; k < segs; k++) {
      if (r) {
        ev(L, r, TUTTI_EV_WAIT, 0, 0, rq, 0);
        if (k + 1 < segs) rq = ev(L, r, TUTTI_EV_RECV, r - 1, 0, prev[k + 1], bytes);
      }
      if (r + 1 < P) {
        if (sq != UINT32_MAX) ev(L, r, TUTTI_EV_WAIT, 0, 0, sq, 0);
        sq = cur[k] = ev(L, r, TUTTI_EV_SEND, r + 1, 0, 0, bytes);
      }
    }
    if (sq != UINT32_MAX) ev(L, r, TUTTI_EV_WAIT, 0, 0, sq, 0);
    span(L, r, 1);
    uint32_t *t = prev;
    prev = cur;
    cur = t;
  }
out:
  free(prev);
  free(cur);
}

static tutti_cost_t lin(double a, double b) {
  return (tutti_cost_t){.floor = 0, .a = a, .b = b};
}

static tutti_model_t model_hockney(void) { /* alpha 1 us, beta 1 ns/B */
  tutti_model_t m = {.preset = TUTTI_MODEL_HOCKNEY, .params = {1e-6, 1e-9}};
  m.send_cpu = m.send_port = m.latency = m.recv_port = lin(1e-6, 1e-9);
  m.eager_limit = 0;
  return m;
}

static tutti_model_t model_loggp(void) { /* L 5 us, o 1 us, g 2 us, G 1 ns/B */
  tutti_model_t m = {.preset = TUTTI_MODEL_LOGGP, .params = {5e-6, 1e-6, 2e-6, 1e-9}};
  m.send_cpu = lin(1e-6, 0);
  m.send_port = (tutti_cost_t){.floor = 2e-6, .a = 1e-6, .b = 1e-9};
  m.latency = lin(6e-6, 1e-9);
  m.recv_port = (tutti_cost_t){.floor = 2e-6, .a = 0, .b = 1e-9};
  m.recv_cpu = lin(1e-6, 0);
  m.eager_limit = TUTTI_EAGER_ALL;
  return m;
}

static tutti_model_t model_mixed(void) { /* LogGP with an 8 KiB eager limit */
  tutti_model_t m = model_loggp();
  m.preset = TUTTI_MODEL_CUSTOM;
  m.gamma = 0.25e-9;
  m.eager_limit = 8192;
  return m;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One pattern under sharing `share`; *eps: its events per CPU second. */
static int run(const char *name, int share, int P, int iters, int reps, struct cli_out *trace,
               double *eps) {
  struct logs L;
  tutti_model_t m;
  oom = 0;
  if (logs_init(&L, P)) {
    fprintf(stderr, "bench replay: out of memory\n");
    logs_free(&L);
    return 3;
  }
  double t0 = now();
  if (!strcmp(name, "binomial")) {
    m = model_hockney();
    build_binomial(&L, iters, 1000);
  } else if (!strcmp(name, "ring")) {
    m = model_loggp();
    build_ring(&L, iters, 1024);
  } else {
    m = model_mixed();
    build_pairs(&L, iters, 0x9e3779b97f4a7c15u);
  }
  m.sharing = share;
  double build = now() - t0;
  if (oom) {
    fprintf(stderr, "bench replay: out of memory building the %s logs\n", name);
    logs_free(&L);
    return 3;
  }
  double best = 0, best_cpu = 0, modeled = 0;
  struct tutti_replay *rp = NULL;
  for (int i = 0; i < reps; i++) {
    char err[256];
    tutti__replay_free(rp);
    int rc = tutti__replay_run(&m, P, L.ptr, &rp, err, sizeof err);
    if (rc) {
      fprintf(stderr, "bench replay: %s: %s\n", name, err);
      logs_free(&L);
      return 3;
    }
    if (i == 0 || rp->wall_time < best) best = rp->wall_time;
    if (i == 0 || rp->cpu_time < best_cpu) best_cpu = rp->cpu_time; /* with its helpers' */
    if (i > 0 && rp->modeled_time != modeled) {
      fprintf(stderr, "bench replay: %s: replays disagree (%.17g, %.17g)\n", name, modeled,
              rp->modeled_time);
      tutti__replay_free(rp);
      logs_free(&L);
      return 3;
    }
    modeled = rp->modeled_time;
  }
  double evs = (double)rp->events;
  *eps = evs / best_cpu;
  printf("%-9s %-7s %6d %6d %10llu %9llu %9.4f %9.4f %9.2f %7.1f %7.1f %8.3f %12.6g\n", name,
         share == TUTTI_SHARING_FAIR ? "fair" : "fifo", P, iters, (unsigned long long)rp->events,
         (unsigned long long)rp->messages, best, best_cpu, evs / best_cpu / 1e6,
         (double)rp->state_bytes / evs,
         (double)(rp->state_bytes + rp->events * sizeof(struct tutti_ev)) / evs, build,
         rp->modeled_time);
  int status = 0;
  if (trace) {
    /* a write that failed is the writer's to name, with its cause */
    int rc = tutti__replay_trace(rp, trace->f);
    if (rc && rc != TUTTI_EIO) {
      cli_out_discard(trace);
      fprintf(stderr, "tutti bench replay: --trace: %s\n", tutti_strerror(rc));
      status = 3;
    } else {
      status = cli_out_commit(trace);
    }
  }
  tutti__replay_free(rp);
  logs_free(&L);
  return status;
}

static void usage(FILE *f) {
  fputs(
      "usage: tutti bench replay [-p PATTERN] [-s SHARING] [-n RANKS] [-k ITERS] [-r REPS]\n"
      "                          [--trace FILE]\n"
      "  Replays synthetic event logs and prints events/s, memory per event and wall time.\n"
      "  -p, --pattern P  binomial | ring | pairs | all (default: all, each at its default size)\n"
      "  -s, --sharing S  fifo | fair | both (default both: each pattern under each, side by\n"
      "                   side, and fair's events/s over fifo's)\n"
      "  -n, --ranks N    ranks (defaults: binomial 4096, ring 1024, pairs 1024)\n"
      "  -k, --iters K    consecutive calls / rounds (defaults: binomial 1 and 200, ring 1000,\n"
      "                   pairs 1000)\n"
      "  -r, --reps R     replays per pattern, the best wall time is shown (default 3)\n"
      "  --trace FILE     write the Chrome trace of the (last) pattern run to FILE\n",
      f);
}

static int intarg(const char *flag, const char *v, int lo, int hi, int *out) {
  char *end;
  long x = v ? strtol(v, &end, 10) : 0;
  if (!v || *end || x < lo || x > hi) {
    fprintf(stderr, "tutti bench replay: %s needs an integer in %d..%d, not '%s'\n", flag, lo, hi,
            v ? v : "");
    return 2;
  }
  *out = (int)x;
  return 0;
}

/* argv holds the options only (as bench/main.c passes them: what follows
 * `tutti bench replay`). Returns the exit status of bench/CLI.md: 0, 2 bad
 * usage, 3 failure. */
int tutti_bench_replay(int argc, char **argv) {
  const char *pattern = "all", *sharing = "both", *trace_path = NULL, *who = "tutti bench replay";
  int P = 0, iters = 0, reps = 3;
  unsigned seen = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = 0;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "-p") || !strcmp(a, "--pattern")) {
      if (bench_once(who, &seen, 1u << 0, a)) return 2;
      if (!v ||
          (strcmp(v, "binomial") && strcmp(v, "ring") && strcmp(v, "pairs") && strcmp(v, "all"))) {
        fprintf(stderr, "tutti bench replay: %s needs binomial, ring, pairs or all\n", a);
        return 2;
      }
      pattern = v;
      i++;
    } else if (!strcmp(a, "-s") || !strcmp(a, "--sharing")) {
      if (bench_once(who, &seen, 1u << 5, a)) return 2;
      if (!v || (strcmp(v, "fifo") && strcmp(v, "fair") && strcmp(v, "both"))) {
        fprintf(stderr, "tutti bench replay: %s needs fifo, fair or both, not '%s'\n", a,
                v ? v : "");
        return 2;
      }
      sharing = v;
      i++;
    } else if (!strcmp(a, "-n") || !strcmp(a, "--ranks")) {
      rc = bench_once(who, &seen, 1u << 1, a) ? 2 : intarg(a, v, 1, 1 << 24, &P);
      i++;
    } else if (!strcmp(a, "-k") || !strcmp(a, "--iters")) {
      rc = bench_once(who, &seen, 1u << 2, a) ? 2 : intarg(a, v, 1, 1 << 24, &iters);
      i++;
    } else if (!strcmp(a, "-r") || !strcmp(a, "--reps")) {
      rc = bench_once(who, &seen, 1u << 3, a) ? 2 : intarg(a, v, 1, 1000, &reps);
      i++;
    } else if (!strcmp(a, "--trace")) {
      if (bench_once(who, &seen, 1u << 4, a)) return 2;
      if (!v) {
        fprintf(stderr, "tutti bench replay: --trace needs a file name\n");
        return 2;
      }
      trace_path = v;
      i++;
    } else {
      fprintf(stderr, "tutti bench replay: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    }
    if (rc) return rc;
  }

  /* --trace: opened before the runs, written by the last one (cli_out.c) */
  struct cli_out out = {0}, *trace = trace_path ? &out : NULL;
  if (trace && cli_out_open(trace, "bench replay", "--trace", trace_path, 0)) return 2;
  printf("%-9s %-7s %6s %6s %10s %9s %9s %9s %9s %7s %7s %8s %12s\n", "pattern", "sharing", "ranks",
         "iters", "events", "messages", "wall_s", "cpu_s", "Mevents/s", "B/ev", "+log", "build_s",
         "modeled");
  int all = !strcmp(pattern, "all"), rc = 0, both = !strcmp(sharing, "both");
  int s0 = strcmp(sharing, "fair") ? TUTTI_SHARING_FIFO : TUTTI_SHARING_FAIR;
  int s1 = strcmp(sharing, "fifo") ? TUTTI_SHARING_FAIR : TUTTI_SHARING_FIFO;
  static const char *const names[] = {"binomial", "ring", "pairs"};
  static const int defP[] = {4096, 1024, 1024}, defk[] = {200, 1000, 1000};
  double eps[3][2] = {{0}};
  for (int p = 0; p < 3 && !rc; p++) {
    if (!all && strcmp(pattern, names[p])) continue;
    int n = P ? P : defP[p], k = iters ? iters : defk[p];
    for (int sh = s0; sh <= s1 && !rc; sh++) {
      double one;
      if (p == 0 && all && !iters) rc = run(names[p], sh, n, 1, reps, NULL, &one);
      /* the trace: the last pattern's last run */
      int last = (!all || p == 2) && sh == s1;
      if (!rc) rc = run(names[p], sh, n, k, reps, last ? trace : NULL, &eps[p][sh]);
    }
  }
  if (!rc)
    printf("wall_s, cpu_s: the best replay's wall and CPU time (of every thread it ran on);\n"
           "Mevents/s: per CPU second; B/ev: replay state per event; +log: with the event\n"
           "log (%zu B/event)\n",
           sizeof(struct tutti_ev));
  if (!rc && both) {
    printf("fair/fifo events per CPU second:");
    for (int p = 0; p < 3; p++)
      if (eps[p][0] > 0) printf(" %s %.2f", names[p], eps[p][1] / eps[p][0]);
    printf("\n");
  }
  cli_out_discard(&out); /* a run that failed before the trace leaves no file */
  return rc;
}

/* ------------------------------------------------------------ contention */

/* One replay of L under m: its CPU seconds (the machine is shared: CPU
 * time is steadier than wall time) and modeled time. 0 or 3. */
static int timed_replay(const tutti_model_t *m, struct logs *L, double *cpu, double *modeled,
                        uint64_t *events) {
  struct tutti_replay *rp;
  char err[256];
  if (tutti__replay_run(m, L->P, L->ptr, &rp, err, sizeof err)) {
    fprintf(stderr, "bench contention: %s\n", err);
    return 3;
  }
  *cpu = rp->cpu_time; /* its threads' and its helpers' */
  *modeled = rp->modeled_time;
  *events = rp->events;
  tutti__replay_free(rp);
  return 0;
}

static void contention_usage(FILE *f) {
  fputs("usage: tutti bench contention [-n RANKS] [-s SEGMENTS] [-m BYTES] [-t SPEC] [-r REPS]\n"
        "  Replays a chain broadcast pipelined in segments without a topology and on a tree\n"
        "  of switches (identity and roundrobin mappings), and prints the replay times and\n"
        "  their ratio (the budget: contention at most 3x the replay without topology).\n"
        "  -n, --ranks N     ranks (default 1024; the topology must have as many leaves)\n"
        "  -s, --segments S  segments of the broadcast (default 256)\n"
        "  -m, --bytes B     bytes per segment (default 8192)\n"
        "  -t, --topology T  the tree (default tree:32x32)\n"
        "  -r, --reps R      replays of each, the best CPU time is shown (default 5)\n",
        f);
}

int tutti_bench_contention(int argc, char **argv) {
  int P = 1024, segs = 256, seg = 8192, reps = 5;
  const char *spec = "tree:32x32", *who = "tutti bench contention";
  unsigned seen = 0;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    int rc = 0;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      contention_usage(stdout);
      return 0;
    } else if (!strcmp(a, "-n") || !strcmp(a, "--ranks")) {
      rc = bench_once(who, &seen, 1u << 0, a) ? 2 : intarg(a, v, 2, 1 << 24, &P), i++;
    } else if (!strcmp(a, "-s") || !strcmp(a, "--segments")) {
      rc = bench_once(who, &seen, 1u << 1, a) ? 2 : intarg(a, v, 1, 1 << 20, &segs), i++;
    } else if (!strcmp(a, "-m") || !strcmp(a, "--bytes")) {
      rc = bench_once(who, &seen, 1u << 2, a) ? 2 : intarg(a, v, 0, 1 << 30, &seg), i++;
    } else if (!strcmp(a, "-r") || !strcmp(a, "--reps")) {
      rc = bench_once(who, &seen, 1u << 3, a) ? 2 : intarg(a, v, 1, 1000, &reps), i++;
    } else if (!strcmp(a, "-t") || !strcmp(a, "--topology")) {
      if (bench_once(who, &seen, 1u << 4, a)) return 2;
      if (!v) {
        fprintf(stderr, "tutti bench contention: %s needs a topology, e.g. tree:32x32\n", a);
        return 2;
      }
      spec = v, i++;
    } else {
      fprintf(stderr, "tutti bench contention: unknown option '%s'\n", a);
      contention_usage(stderr);
      return 2;
    }
    if (rc) return rc;
  }
  struct logs L;
  oom = 0;
  if (logs_init(&L, P) || (build_chain(&L, segs, (uint64_t)seg), oom)) {
    fprintf(stderr, "bench contention: out of memory\n");
    logs_free(&L);
    return 3;
  }
  /* LogGP, all eager (rules 1, 2); Hockney, all rendezvous (rule 3); each
   * without a topology and with it under two mappings, replayed in turn
   * `reps` times (so that drift of the shared machine hits all alike) */
  const char *maps[3] = {NULL, "identity", "roundrobin"};
  tutti_model_t models[2] = {model_loggp(), model_hockney()};
  const char *names[2] = {"loggp", "hockney"};
  tutti_machine_t mach[2][3]; /* [k][0]: none, the replay without a topology */
  memset(mach, 0, sizeof mach);
  double best[2][3], modeled[2][3];
  uint64_t nev = 0;
  int status = 0;
  for (int k = 0; k < 2 && !status; k++)
    for (int j = 1; j < 3 && !status; j++) {
      /* the library's machine: links default to runtime/MODEL.md's (0, the model's beta) */
      tutti_machine_spec_t ms = tutti_machine_spec_default();
      ms.model_value = &models[k], ms.topology = spec, ms.mapping = maps[j];
      ms.nranks = P, ms.bind_flags = 0; /* one rank per leaf */
      char err[512] = "";
      if (tutti_machine_build(&ms, &mach[k][j], NULL, err, sizeof err)) {
        fprintf(stderr, "tutti bench contention: --topology: %s\n", err);
        status = 2;
        break;
      }
    }
  for (int i = 0; i < reps && !status; i++)
    for (int k = 0; k < 2 && !status; k++)
      for (int j = 0; j < 3 && !status; j++) {
        tutti_model_t m = j ? mach[k][j].model : models[k];
        double cpu, t;
        if ((status = timed_replay(&m, &L, &cpu, &t, &nev))) break;
        if (i && t != modeled[k][j]) {
          fprintf(stderr, "bench contention: replays disagree (%.17g, %.17g)\n", modeled[k][j], t);
          status = 3;
        }
        if (!i || cpu < best[k][j]) best[k][j] = cpu;
        modeled[k][j] = t;
      }
  if (!status) {
    double worst = 0;
    printf("chain broadcast: %d ranks, %d segments of %d B, %llu events; topology %s\n", P, segs,
           seg, (unsigned long long)nev, spec);
    printf("%-8s %-11s %10s %10s %7s %13s %13s\n", "model", "mapping", "plain_s", "topo_s", "ratio",
           "modeled", "modeled_topo");
    for (int k = 0; k < 2; k++)
      for (int j = 1; j < 3; j++) {
        double r = best[k][j] / best[k][0];
        if (r > worst) worst = r;
        printf("%-8s %-11s %10.4f %10.4f %6.2fx %13.6g %13.6g\n", names[k], maps[j], best[k][0],
               best[k][j], r, modeled[k][0], modeled[k][j]);
      }
    printf("plain_s, topo_s: the best replay's CPU time without and with the topology;\n"
           "worst ratio %.2fx (budget 3x); modeled: the run's modeled time (s)\n",
           worst);
  }
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 3; j++) tutti_machine_free(&mach[k][j]);
  logs_free(&L);
  return status;
}

int main(int argc, char **argv) {
  if (argc >= 2 && !strcmp(argv[1], "replay"))
    return bench_close_stdout("tutti bench replay", tutti_bench_replay(argc - 2, argv + 2));
  if (argc >= 2 && !strcmp(argv[1], "contention"))
    return bench_close_stdout("tutti bench contention", tutti_bench_contention(argc - 2, argv + 2));
  fprintf(stderr, "usage: bench_replay replay|contention [options] (see tutti bench --help)\n");
  return 2;
}

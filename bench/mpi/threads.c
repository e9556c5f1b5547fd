/*
 * threads.c -- tutti-compare-threads: the thread half of `tutti-mpi bench
 * compare`. The same candidates (every registered bcast, allreduce and
 * barrier algorithm at its defaults), the same sizes, the same method
 * (rounds in alternating order, a call's time the maximum over ranks,
 * median and minimum over rounds), on one world of rank threads under the
 * none model (native speed, nothing recorded) -- linked with libtutti,
 * since libtutti-mpi defines the same contract symbols. tutti-mpi runs it
 * from rank 0 while the other processes sleep, and prints its times beside
 * the MPI ones. Calls are aligned by tutti's own binomial barrier.
 *
 * Usage: tutti-compare-threads P ROUNDS SIZE... ; prints one line per
 * point, "COLL BYTES ALGO MEDIAN MIN" (seconds); exit 0, or 3 on failure.
 *
 * `tutti-compare-threads p2p TOKEN...`: one round of the thread half of
 * `tutti-mpi bench p2p --compare`, bench/pingpong.c on two rank threads
 * (the code the MPI half runs): a token lBYTES:ITERS is a ping-pong
 * (ranks pinned to cores 0 and 1, as `tutti bench p2p` pins them), printed
 * "lat BYTES SECONDS" (one way); bBYTES:MSGS a stream, "bw BYTES
 * BYTES_PER_SECOND".
 *
 * mpirun binds rank 0 (this program's parent) to one core when it has a
 * core per process; the threads would inherit that one core, so the
 * program first allows itself every core again.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pingpong.h"
#include "tutti/tutti.h"

struct job {
  int coll, nc, rounds;
  const tutti_algo_t *algo[32];
  const tutti_algo_t *align;
  long count;
  tutti_datatype_t type;
  size_t bytes;
  double *t; /* [rank][cand][round] */
};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int rank_fn(tutti_rank_t *r, void *arg) {
  struct job *j = arg;
  int me = tutti_rank(r), rc = 0;
  unsigned char *a = calloc(1, j->bytes ? j->bytes : 1), *b = calloc(1, j->bytes ? j->bytes : 1);
  if (!a || !b) rc = TUTTI_ENOMEM;
  for (int k = 0; k < j->rounds && !rc; k++)
    for (int q = 0; q < j->nc && !rc; q++) {
      int c = k % 2 ? j->nc - 1 - q : q;
      if ((rc = tutti_barrier(r, j->align))) break;
      double t0 = now();
      if (j->coll == TUTTI_COLL_BCAST)
        rc = tutti_bcast(r, a, j->count, j->type, 0, j->algo[c]);
      else if (j->coll == TUTTI_COLL_ALLREDUCE)
        rc = tutti_allreduce(r, a, b, j->count, j->type, TUTTI_SUM, j->algo[c]);
      else
        rc = tutti_barrier(r, j->algo[c]);
      j->t[((size_t)me * (size_t)j->nc + (size_t)c) * (size_t)j->rounds + (size_t)k] = now() - t0;
    }
  free(a), free(b);
  return rc;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* ------------------------------------------------------------ p2p */

struct p2p_job {
  size_t bytes;
  long n; /* round trips or messages */
  int lat;
  char *buf[2];
  double out;
};

static void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu % CPU_SETSIZE, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void pin_all(void) {
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c = 0; c < CPU_SETSIZE; c++) CPU_SET(c, &all);
  pthread_setaffinity_np(pthread_self(), sizeof all, &all);
}

static int p2p_rank(tutti_rank_t *r, void *arg) {
  struct p2p_job *j = arg;
  int me = tutti_rank(r), rc;
  if (j->lat) {
    pin_to(me);
    rc = pp_latency(r, j->buf[me], j->bytes, j->n, j->n / 10 + 10, now, &j->out);
    pin_all();
  } else {
    memset(j->buf[me], me, j->bytes); /* page faults are not measured */
    rc = pp_stream(r, j->buf[me], j->bytes, (int)j->n, now, &j->out);
  }
  return rc;
}

static int p2p_main(int argc, char **argv) {
  tutti_world_t *w;
  tutti_config_t cfg = tutti_config_default(2);
  if (tutti_world_create(&w, &cfg)) return 3;
  int st = 0;
  for (int i = 0; i < argc && !st; i++) {
    struct p2p_job j = {.lat = argv[i][0] == 'l'};
    char *end;
    j.bytes = strtoull(argv[i] + 1, &end, 10);
    j.n = *end == ':' ? strtol(end + 1, NULL, 10) : 0;
    if ((argv[i][0] != 'l' && argv[i][0] != 'b') || j.n < 1) {
      fprintf(stderr,
              "tutti-compare-threads p2p: bad point '%s'; accepted: lBYTES:ITERS, "
              "bBYTES:MSGS\n",
              argv[i]);
      st = 2;
      break;
    }
    j.buf[0] = calloc(1, j.bytes ? j.bytes : 1), j.buf[1] = calloc(1, j.bytes ? j.bytes : 1);
    if (!j.buf[0] || !j.buf[1] || tutti_world_run(w, p2p_rank, &j))
      st = 3;
    else
      printf("%s %zu %.9g\n", j.lat ? "lat" : "bw", j.bytes, j.out);
    free(j.buf[0]), free(j.buf[1]);
  }
  tutti_world_destroy(w);
  return fflush(stdout) ? 3 : st;
}

int main(int argc, char **argv) {
  pin_all();
  if (argc >= 2 && !strcmp(argv[1], "p2p")) return p2p_main(argc - 2, argv + 2);
  if (argc < 3) {
    fprintf(stderr, "usage: tutti-compare-threads P ROUNDS SIZE...\n");
    return 2;
  }
  int P = atoi(argv[1]), rounds = atoi(argv[2]);
  if (P < 1 || rounds < 1) return 2;
  tutti_world_t *w;
  tutti_config_t cfg = tutti_config_default(P);
  if (tutti_world_create(&w, &cfg)) return 3;
  static const int colls[] = {TUTTI_COLL_BCAST, TUTTI_COLL_ALLREDUCE, TUTTI_COLL_BARRIER};
  int st = 0;
  for (size_t ci = 0; ci < sizeof colls / sizeof *colls && !st; ci++) {
    int nsz = colls[ci] == TUTTI_COLL_BARRIER ? 1 : argc - 3;
    for (int s = 0; s < nsz && !st; s++) {
      struct job j = {.coll = colls[ci], .rounds = rounds};
      tutti_algo_select(TUTTI_COLL_BARRIER, "lambda-tree", "lambda=0.5", &j.align, NULL, 0);
      j.bytes = colls[ci] == TUTTI_COLL_BARRIER ? 0 : strtoull(argv[3 + s], NULL, 10);
      j.type = j.coll == TUTTI_COLL_ALLREDUCE && j.bytes % 4 == 0 ? TUTTI_INT32 : TUTTI_BYTE;
      j.count = (long)(j.bytes / tutti_type_size(j.type));
      const tutti_algo_desc_t *d;
      for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL && j.nc < 32; i++) {
        if (d->coll != j.coll) continue;
        if (tutti_algo_select(j.coll, d->name, "", &j.algo[j.nc], NULL, 0)) continue;
        if (tutti_algo_check(j.algo[j.nc], P, j.coll == TUTTI_COLL_ALLREDUCE ? TUTTI_SUM : NULL,
                             NULL, 0))
          continue;
        j.nc++;
      }
      j.t = calloc((size_t)P * (size_t)j.nc * (size_t)rounds, sizeof *j.t);
      if (!j.t || tutti_world_run(w, rank_fn, &j)) {
        free(j.t);
        st = 3;
        break;
      }
      double *x = malloc(sizeof *x * (size_t)rounds);
      for (int c = 0; x && c < j.nc; c++) {
        for (int k = 0; k < rounds; k++) {
          x[k] = 0;
          for (int i = 0; i < P; i++) {
            double v = j.t[((size_t)i * (size_t)j.nc + (size_t)c) * (size_t)rounds + (size_t)k];
            if (v > x[k]) x[k] = v;
          }
        }
        qsort(x, (size_t)rounds, sizeof *x, cmp_double);
        double med = rounds % 2 ? x[rounds / 2] : (x[rounds / 2 - 1] + x[rounds / 2]) / 2;
        printf("%s %zu %s %.9g %.9g\n", tutti_coll_name(j.coll), j.bytes,
               tutti_algo_desc(j.algo[c])->name, med, x[0]);
      }
      free(x);
      free(j.t);
    }
  }
  tutti_world_destroy(w);
  return fflush(stdout) ? 3 : st;
}

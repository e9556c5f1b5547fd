/*
 * bench_coll_mpi.c -- the MPI side of `tutti bench coll` and `tutti bench
 * fibers`: a small program that uses MPI alone (no tutti), compiled into
 * the command as text (bench/CMakeLists.txt) and built with mpicc by the
 * bench itself (mpijob.c), then run under `mpirun --oversubscribe -n P PROG
 * DIR` beside the bench's rank threads, so both sides run in the same
 * minutes of a shared machine.
 *
 * Commands come one line at a time on DIR/in.R, a FIFO of each rank
 * (reading it blocks, so an idle process takes no CPU while the rank
 * threads are timed), and rank 0 answers on DIR/res:
 *
 *   "run COLL BYTES TARGET" -> "time T BATCH": the library's own collective
 *      (MPI_Bcast for bcast, ...; reductions sum int32, or uint8 when BYTES
 *      is not a multiple of 4; root 0), 3 warm-up calls and batches until
 *      one lasts an eighth of TARGET, then a timed loop of BATCH calls
 *      lasting about TARGET seconds; T is the maximum over ranks of each
 *      rank's time per call. "none" for a collective that has
 *      no MPI twin here.
 *   "run pingpong BYTES TARGET": the same, a call being one round trip of
 *      BYTES between ranks 0 and 1 (the others idle; `tutti bench p2p`).
 *   "quit" -> MPI_Finalize.
 *
 * On start rank 0 writes "ready P LIBRARY" (MPI_Get_library_version's
 * first line).
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  BCAST,
  REDUCE,
  ALLREDUCE,
  GATHER,
  SCATTER,
  BARRIER,
  ALLGATHER,
  REDUCE_SCATTER,
  ALLTOALL,
  SCAN,
  EXSCAN,
  PINGPONG,
  NONE
};

static int coll_of(const char *name) {
  static const char *const names[] = {"bcast",    "reduce",  "allreduce", "gather",
                                      "scatter",  "barrier", "allgather", "reduce_scatter",
                                      "alltoall", "scan",    "exscan",    "pingpong"};
  for (int i = 0; i < NONE; i++)
    if (!strcmp(name, names[i])) return i;
  return NONE;
}

struct call {
  int coll, P;
  long count; /* elements of one rank's message or block */
  MPI_Datatype type;
  size_t bytes;
  unsigned char *a, *b, *big; /* send, receive, P blocks (alltoall: 2P, sent then received) */
};

static int one(const struct call *c) {
  int n = (int)c->count;
  switch (c->coll) {
  case BCAST:
    return MPI_Bcast(c->a, n, c->type, 0, MPI_COMM_WORLD);
  case REDUCE:
    return MPI_Reduce(c->a, c->b, n, c->type, MPI_SUM, 0, MPI_COMM_WORLD);
  case ALLREDUCE:
    return MPI_Allreduce(c->a, c->b, n, c->type, MPI_SUM, MPI_COMM_WORLD);
  case GATHER:
    return MPI_Gather(c->a, n, c->type, c->big, n, c->type, 0, MPI_COMM_WORLD);
  case SCATTER:
    return MPI_Scatter(c->big, n, c->type, c->b, n, c->type, 0, MPI_COMM_WORLD);
  case BARRIER:
    return MPI_Barrier(MPI_COMM_WORLD);
  case ALLGATHER:
    return MPI_Allgather(c->a, n, c->type, c->big, n, c->type, MPI_COMM_WORLD);
  case REDUCE_SCATTER:
    return MPI_Reduce_scatter_block(c->big, c->b, n, c->type, MPI_SUM, MPI_COMM_WORLD);
  case ALLTOALL:
    return MPI_Alltoall(c->big, n, c->type, c->big + (size_t)c->P * c->bytes, n, c->type,
                        MPI_COMM_WORLD);
  case SCAN:
    return MPI_Scan(c->a, c->b, n, c->type, MPI_SUM, MPI_COMM_WORLD);
  case EXSCAN:
    return MPI_Exscan(c->a, c->b, n, c->type, MPI_SUM, MPI_COMM_WORLD);
  case PINGPONG: {
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me > 1 || c->P < 2) return MPI_SUCCESS;
    int rc = me == 0 ? MPI_Send(c->a, n, c->type, 1, 0, MPI_COMM_WORLD)
                     : MPI_Recv(c->a, n, c->type, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    return me == 0 ? MPI_Recv(c->a, n, c->type, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
                   : MPI_Send(c->a, n, c->type, 0, 0, MPI_COMM_WORLD);
  }
  }
  return MPI_ERR_OTHER;
}

/* Seconds per call of `calls` calls, the maximum over ranks (on every rank). */
static double timed(const struct call *c, int calls) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < calls; i++) one(c);
  double t = (MPI_Wtime() - t0) / calls, max;
  MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return max;
}

/* Calls that last about `target` seconds at w seconds a call. */
#define MAX_BATCH 100000
static int batch_for(double target, double w) {
  double want = w > 0 ? target / w : MAX_BATCH;
  return want < 1 ? 1 : want > MAX_BATCH ? MAX_BATCH : (int)want;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  char path[4096], line[256];
  if (argc < 2) MPI_Abort(MPI_COMM_WORLD, 2);
  snprintf(path, sizeof path, "%s/in.%d", argv[1], me);
  FILE *in = fopen(path, "r");
  FILE *res = NULL;
  if (!in) MPI_Abort(MPI_COMM_WORLD, 3);
  if (me == 0) {
    snprintf(path, sizeof path, "%s/res", argv[1]);
    if (!(res = fopen(path, "w"))) MPI_Abort(MPI_COMM_WORLD, 3);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n,")] = '\0';
    fprintf(res, "ready %d %s\n", P, lib);
    fflush(res);
  }
  while (fgets(line, sizeof line, in)) {
    char name[64];
    unsigned long long bytes;
    double target;
    if (!strncmp(line, "quit", 4)) break;
    if (sscanf(line, "run %63s %llu %lf", name, &bytes, &target) != 3) MPI_Abort(MPI_COMM_WORLD, 2);
    struct call c = {.coll = coll_of(name), .P = P, .bytes = (size_t)bytes};
    if (c.coll == NONE) {
      if (res) fprintf(res, "none\n"), fflush(res);
      continue;
    }
    int reduces = c.coll == REDUCE || c.coll == ALLREDUCE || c.coll == REDUCE_SCATTER ||
                  c.coll == SCAN || c.coll == EXSCAN;
    int words = reduces && bytes % 4 == 0;
    c.type = words ? MPI_INT32_T : MPI_UINT8_T;
    c.count = (long)(words ? bytes / 4 : bytes);
    size_t blk = (size_t)bytes ? (size_t)bytes : 1, nbig = (size_t)P * (c.coll == ALLTOALL ? 2 : 1);
    c.a = malloc(blk), c.b = malloc(blk), c.big = malloc(blk * nbig);
    if (!c.a || !c.b || !c.big) MPI_Abort(MPI_COMM_WORLD, 4);
    memset(c.a, 1, blk), memset(c.b, 0, blk), memset(c.big, 1, blk * nbig);
    /* Warm-up, then the size of the batch from one of at least an eighth
     * of it: sized from the 3 cold calls alone, an 8 B bcast's batch lasted
     * a fifth of the target (tutti's side sizes its batch the same way). */
    int n = 3;
    double w = timed(&c, n);
    for (int pass = 0; pass < 5 && n * w < target / 8 && n < MAX_BATCH; pass++)
      w = timed(&c, n = batch_for(target / 4, w));
    int batch = batch_for(target, w);
    double t = timed(&c, batch);
    if (res) fprintf(res, "time %.9g %d\n", t, batch), fflush(res);
    free(c.a), free(c.b), free(c.big);
  }
  if (res) fclose(res);
  fclose(in);
  MPI_Finalize();
  return 0;
}

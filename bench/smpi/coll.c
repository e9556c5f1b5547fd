/*
 * coll.c -- one collective call timed by SimGrid's SMPI, the other side of
 * `tutti bench smpi` (bench/bench_smpi.c, which compiles this file into the
 * command as text, writes it out and builds it with smpicc; an MPI program
 * against SMPI's mpi.h, no tutti). SMPI chooses the algorithm:
 *
 *   smpirun -np P -platform cluster.xml -hostfile hosts \
 *     --cfg=smpi/bcast:binomial_tree ./coll bcast 65536
 *
 * prints the call's simulated time in seconds: the latest return over all
 * ranks from the moment they all entered it. tutti's rule 7 (runtime/
 * MODEL.md) measures a call the same way, all ranks entering at one time.
 *
 * How they enter together. A barrier alone lets its ranks go at different
 * times (its last messages reach them one by one), so after it the ranks
 * agree on a start: the largest clock, by an allreduce, plus 10 ms, by
 * which every message of the barrier and the allreduce has long arrived;
 * each rank sleeps until then (SMPI's nanosleep is simulated time, to the
 * nanosecond) and the call's time is the latest MPI_Wtime after it minus
 * that start, which every rank computed alike.
 *
 * Markers for the message check: just before and just after the call each
 * rank creates and frees a persistent send of tag 4242 that never starts.
 * SMPI's request log (smpi_request at verbose) names it ("Destroying
 * request ... tag = 4242") without sending anything, so the sends a rank
 * logs between its two markers are the call's, in its own order.
 *
 * Arguments: COLL (bcast, reduce, allreduce, allgather, reduce_scatter,
 * barrier) and BYTES, tutti's --bytes: the message of bcast, reduce and
 * allreduce, each rank's block of allgather and of reduce_scatter (each
 * rank reduces P blocks, MPI_Reduce_scatter with every count equal);
 * reductions sum int32, as tutti's do. The buffers are SMPI's shared
 * memory (one copy for all ranks, contents undefined): the time does not
 * depend on the data, and P copies of an allgather's P blocks would not
 * fit.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MARK 4242

static void mark(int to) {
  MPI_Request q;
  MPI_Send_init(NULL, 0, MPI_BYTE, to, MARK, MPI_COMM_WORLD, &q);
  MPI_Request_free(&q);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int r, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (argc != 3) {
    if (!r) fprintf(stderr, "usage: coll COLL BYTES\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *coll = argv[1];
  long m = atol(argv[2]);
  int n = (int)(m / 4); /* int32 elements of a reduction */
  size_t all = (size_t)m * (size_t)P + 1;
  char *s = SMPI_SHARED_MALLOC(all), *d = SMPI_SHARED_MALLOC(all);
  int *counts = malloc(sizeof *counts * (size_t)P);
  for (int i = 0; i < P; i++) counts[i] = n;

  MPI_Barrier(MPI_COMM_WORLD);
  double now = MPI_Wtime(), latest;
  MPI_Allreduce(&now, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double start = latest + 0.01, wait = start - MPI_Wtime();
  struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
  nanosleep(&ts, NULL);

  int known = 1;
  mark((r + 1) % P);
  if (!strcmp(coll, "bcast"))
    MPI_Bcast(s, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD);
  else if (!strcmp(coll, "reduce"))
    MPI_Reduce(s, d, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  else if (!strcmp(coll, "allreduce"))
    MPI_Allreduce(s, d, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  else if (!strcmp(coll, "allgather"))
    MPI_Allgather(s, (int)m, MPI_BYTE, d, (int)m, MPI_BYTE, MPI_COMM_WORLD);
  else if (!strcmp(coll, "reduce_scatter"))
    MPI_Reduce_scatter(s, d, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  else if (!strcmp(coll, "barrier"))
    MPI_Barrier(MPI_COMM_WORLD);
  else
    known = 0;
  double end = MPI_Wtime(), last;
  mark((r + 1) % P);
  if (!known) {
    if (!r) fprintf(stderr, "coll: unknown collective '%s'\n", coll);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Reduce(&end, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (!r) printf("%.17g\n", last - start);
  SMPI_SHARED_FREE(s);
  SMPI_SHARED_FREE(d);
  free(counts);
  MPI_Finalize();
  return 0;
}

/*
 * rules_probe.c -- the MPI program tests/test_e2e_tune_mpi.c runs under
 * Open MPI and MPICH with the rules files `tutti tune` wrote: it calls the
 * collectives its arguments name, COLL:BYTES each (BYTES per rank as
 * tutti counts them: the message of bcast, reduce and allreduce, each
 * rank's block of the others; 0 for barrier), one after the other, on
 * MPI_COMM_WORLD, root 0, MPI_BYTE (MPI_INT with MPI_SUM for the
 * reductions and scans, BYTES a multiple of 4; alltoall: BYTES per block,
 * separate buffers). Before each call it tells the
 * preloaded probe library (probe_ompi.c, probe_ucx.c) which one comes, so
 * that what the library records is told apart per call; without one the
 * calls just run. "untuned:BYTES" calls collectives tutti does not tune
 * (the v-variants, non-blocking ones). Exit 0, or 1
 * after a line on stderr naming the call that failed. Built by the test with the library's own
 * mpicc.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The probe library's, when one is preloaded. */
void probe_phase(const char *name) __attribute__((weak));

/* Collectives tutti does not tune, blocking and not, on m bytes (a
 * multiple of 4) per rank and a and b of m x size bytes: they must run as
 * the library runs them whatever the file says of the others. */
static int untuned(char *a, char *b, long m, int *counts, int size) {
  int *displs = malloc(sizeof *displs * (size_t)size), rc = MPI_ERR_NO_MEM;
  if (!displs) return rc;
  for (int r = 0; r < size; r++) counts[r] = (int)m, displs[r] = r * (int)m;
  MPI_Request q[4];
  int n = (int)(m / 4);
  rc = MPI_SUCCESS;
#define CALL(x)                                                                                    \
  if (rc == MPI_SUCCESS) rc = (x)
  CALL(MPI_Alltoallv(a, counts, displs, MPI_BYTE, b, counts, displs, MPI_BYTE, MPI_COMM_WORLD));
  CALL(MPI_Allgatherv(a, (int)m, MPI_BYTE, b, counts, displs, MPI_BYTE, MPI_COMM_WORLD));
  CALL(MPI_Gatherv(a, (int)m, MPI_BYTE, b, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD));
  CALL(MPI_Scatterv(a, counts, displs, MPI_BYTE, b, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD));
  CALL(MPI_Ibcast(a, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD, &q[0]));
  CALL(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
  CALL(MPI_Iallreduce(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[1]));
  CALL(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
  CALL(MPI_Ibarrier(MPI_COMM_WORLD, &q[2]));
  CALL(MPI_Wait(&q[2], MPI_STATUS_IGNORE));
  CALL(MPI_Iallgather(a, (int)m, MPI_BYTE, b, (int)m, MPI_BYTE, MPI_COMM_WORLD, &q[3]));
  CALL(MPI_Wait(&q[3], MPI_STATUS_IGNORE));
#undef CALL
  free(displs);
  return rc;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int bad = 0;
  for (int i = 1; i < argc && !bad; i++) {
    char coll[64];
    long m = 0;
    if (sscanf(argv[i], "%63[a-z_]:%ld", coll, &m) != 2 || m < 0) {
      fprintf(stderr, "rules_probe: '%s': accepted COLL:BYTES\n", argv[i]);
      bad = 1;
      break;
    }
    size_t total = (size_t)m * (size_t)size;
    char *a = calloc(total + 8, 1), *b = calloc(total + 8, 1);
    int *counts = malloc(sizeof *counts * (size_t)size);
    if (!a || !b || !counts) {
      fprintf(stderr, "rules_probe: out of memory for %s\n", argv[i]);
      bad = 1;
      break;
    }
    for (int r = 0; r < size; r++) counts[r] = (int)(m / 4);
    if (probe_phase) probe_phase(argv[i]);
    int rc = MPI_ERR_ARG;
    if (!strcmp(coll, "bcast"))
      rc = MPI_Bcast(a, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(coll, "reduce"))
      rc = MPI_Reduce(a, b, (int)(m / 4), MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    else if (!strcmp(coll, "allreduce"))
      rc = MPI_Allreduce(a, b, (int)(m / 4), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(coll, "gather"))
      rc = MPI_Gather(a, (int)m, MPI_BYTE, b, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(coll, "scatter"))
      rc = MPI_Scatter(a, (int)m, MPI_BYTE, b, (int)m, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(coll, "barrier"))
      rc = MPI_Barrier(MPI_COMM_WORLD);
    else if (!strcmp(coll, "allgather"))
      rc = MPI_Allgather(a, (int)m, MPI_BYTE, b, (int)m, MPI_BYTE, MPI_COMM_WORLD);
    else if (!strcmp(coll, "reduce_scatter"))
      rc = MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(coll, "reduce_scatter_block"))
      rc = MPI_Reduce_scatter_block(a, b, (int)(m / 4), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(coll, "alltoall"))
      rc = MPI_Alltoall(a, (int)m, MPI_BYTE, b, (int)m, MPI_BYTE, MPI_COMM_WORLD);
    else if (!strcmp(coll, "scan"))
      rc = MPI_Scan(a, b, (int)(m / 4), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(coll, "exscan"))
      rc = MPI_Exscan(a, b, (int)(m / 4), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(coll, "untuned")) /* those a library's file keeps as the library has them */
      rc = untuned(a, b, m, counts, size);
    if (rc != MPI_SUCCESS) {
      fprintf(stderr, "rules_probe: rank %d: %s failed (%d)\n", rank, argv[i], rc);
      bad = 1;
    }
    free(a), free(b), free(counts);
  }
  if (probe_phase) probe_phase("end");
  MPI_Finalize();
  return bad;
}

/*
 * test_mpi_api.c -- what include/tutti/mpi.h promises about errors, under
 * mpirun (a plain program: Criterion's runner forks, which MPI forbids).
 * Each check prints one line; the exit status is the number that failed.
 *
 * - tutti_mpi_rank_create: TUTTI_EINVAL before MPI_Init, for a NULL out
 *   and for MPI_COMM_NULL; a rank of MPI_COMM_WORLD otherwise.
 * - tutti_mpi_type: TUTTI_ETYPE for no type (NULL); a contiguous
 *   type per slot, then TUTTI_ENOMEM when the slots are full.
 * - tutti_mpi_op: TUTTI_EOP for no op (NULL); user ops per slot,
 *   then TUTTI_ENOMEM.
 */
#include <mpi.h>
#include <stdio.h>

#include "tutti/mpi.h"
#include "tutti/tutti.h"

static int failures, me;

static void check(int ok, const char *what, int rc) {
  if (!ok) failures++;
  if (me == 0 || !ok)
    printf("%s rank %d: %s (rc %d, %s)\n", ok ? "ok  " : "FAIL", me, what, rc, tutti_strerror(rc));
}

static void nothing(const void *in, void *inout, size_t count, tutti_datatype_t type, void *ctx) {
  (void)in, (void)inout, (void)count, (void)type, (void)ctx;
}

int main(int argc, char **argv) {
  tutti_rank_t *r = NULL;
  int rc = tutti_mpi_rank_create(MPI_COMM_WORLD, &r);
  check(rc == TUTTI_EINVAL && !r, "tutti_mpi_rank_create before MPI_Init is TUTTI_EINVAL", rc);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  rc = tutti_mpi_rank_create(MPI_COMM_WORLD, NULL);
  check(rc == TUTTI_EINVAL, "tutti_mpi_rank_create with a NULL out is TUTTI_EINVAL", rc);
  rc = tutti_mpi_rank_create(MPI_COMM_NULL, &r);
  check(rc == TUTTI_EINVAL, "tutti_mpi_rank_create of MPI_COMM_NULL is TUTTI_EINVAL", rc);
  rc = tutti_mpi_rank_create(MPI_COMM_WORLD, &r);
  check(rc == 0 && r, "tutti_mpi_rank_create of MPI_COMM_WORLD", rc);

  MPI_Datatype t;
  rc = tutti_mpi_type(NULL, &t);
  check(rc == TUTTI_ETYPE, "tutti_mpi_type of no type is TUTTI_ETYPE", rc);
  rc = 0;
  int made = 0;
  for (size_t size = 3; size < 200 && rc == 0; size++) { /* distinct sizes: one slot each */
    tutti_datatype_t c;
    if (tutti_type_contiguous(size, &c)) break;
    rc = tutti_mpi_type(c, &t);
    made += rc == 0;
  }
  check(rc == TUTTI_ENOMEM && made > 0, "tutti_mpi_type past its slots is TUTTI_ENOMEM", rc);

  MPI_Op o;
  rc = tutti_mpi_op(NULL, &o);
  check(rc == TUTTI_EOP, "tutti_mpi_op of no op is TUTTI_EOP", rc);
  rc = 0;
  made = 0;
  for (int i = 0; i < 200 && rc == 0; i++) {
    tutti_op_t u;
    if (tutti_op_create(nothing, 1, NULL, &u)) break;
    rc = tutti_mpi_op(u, &o);
    made += rc == 0;
  }
  check(rc == TUTTI_ENOMEM && made > 0, "tutti_mpi_op past its slots is TUTTI_ENOMEM", rc);

  tutti_mpi_rank_free(r);
  tutti_mpi_finalize();
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all ? 1 : 0;
}

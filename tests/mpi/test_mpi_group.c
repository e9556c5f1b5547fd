/*
 * test_mpi_group.c -- the MPI backend's group views and hosts (p2p.h
 * "groups"), under mpirun with 5 processes (a plain program, as
 * test_mpi_api.c). Each check prints one line; the exit status says
 * whether any failed.
 *
 * - tutti_rank_host: every process of one machine on one host, named by
 *   its lowest rank (0); TUTTI_EINVAL for a rank out of range.
 * - a view of world ranks {1, 3, 4}: rank and size within it, a ring of
 *   sendrecvs between group indices carrying each sender's world rank,
 *   statuses naming group indices, TUTTI_ERANK past the group, no
 *   nesting (TUTTI_EBUSY), a bcast inside the view on its ranks only, and
 *   the collective tags where they were at enter after leave.
 * - hierarchical allreduce with matmul2 on all 5 ranks (one host: intra
 *   in a view of every rank), against the product in rank order.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "tutti/mpi.h"
#include "tutti/tutti.h"

static int failures, me;

static void check(int ok, const char *what, int rc) {
  if (!ok) failures++;
  if (me == 0 || !ok)
    printf("%s rank %d: %s (rc %d, %s)\n", ok ? "ok  " : "FAIL", me, what, rc, tutti_strerror(rc));
}

/* matmul2 on int32: a 2x2 matrix of 8-bit entries mod 251, row-major from
 * the low bits; the product a * b */
static int32_t mat_mul(int32_t a, int32_t b) {
  int x[4], y[4], z[4];
  for (int i = 0; i < 4; i++) x[i] = (a >> (8 * i)) & 255, y[i] = (b >> (8 * i)) & 255;
  z[0] = (x[0] * y[0] + x[1] * y[2]) % 251, z[1] = (x[0] * y[1] + x[1] * y[3]) % 251;
  z[2] = (x[2] * y[0] + x[3] * y[2]) % 251, z[3] = (x[2] * y[1] + x[3] * y[3]) % 251;
  return z[0] | z[1] << 8 | z[2] << 16 | z[3] << 24;
}
static int32_t mat_of(int rank) {
  return (1 + rank) | (2 * rank + 3) << 8 | (rank * rank % 250) << 16 | (7 + rank) << 24;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  int P;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  tutti_rank_t *r = NULL;
  int rc = tutti_mpi_rank_create(MPI_COMM_WORLD, &r);
  check(rc == 0 && r && P == 5, "a rank of MPI_COMM_WORLD, 5 processes", rc);
  if (rc || P != 5) MPI_Abort(MPI_COMM_WORLD, 1);

  int host = -1, all_zero = 1;
  for (int q = 0; q < P; q++) {
    rc = tutti_rank_host(r, q, &host);
    all_zero &= rc == 0 && host == 0;
  }
  check(all_zero, "tutti_rank_host: one machine is one host, named by rank 0", rc);
  rc = tutti_rank_host(r, P, &host);
  check(rc == TUTTI_EINVAL, "tutti_rank_host of rank P is TUTTI_EINVAL", rc);

  static const int group[] = {1, 3, 4};
  const int in = me == 1 || me == 3 || me == 4;
  int t0 = tutti_coll_tag(r);
  if (in) {
    rc = tutti_group_enter(r, group, 3);
    check(rc == 0, "tutti_group_enter {1, 3, 4}", rc);
    const int g = tutti_rank(r);
    check(tutti_size(r) == 3 && group[g] == me, "rank and size within the view", 0);
    rc = tutti_group_enter(r, group, 3);
    check(rc == TUTTI_EBUSY, "a view in a view is TUTTI_EBUSY", rc);
    int out = me, got = -1;
    tutti_status_t st;
    rc = tutti_sendrecv(r, &out, 1, TUTTI_INT32, (g + 1) % 3, 7, &got, 1, TUTTI_INT32, (g + 2) % 3,
                        7, &st);
    check(rc == 0 && got == group[(g + 2) % 3] && st.source == (g + 2) % 3,
          "a ring of sendrecvs by group index; the status names the index", rc);
    rc = tutti_send(r, &out, 1, TUTTI_INT32, 3, 7);
    check(rc == TUTTI_ERANK, "a peer past the group is TUTTI_ERANK", rc);
    int32_t b = g == 2 ? 4242 : 0;
    rc = tutti_bcast(r, &b, 1, TUTTI_INT32, 2, NULL);
    check(rc == 0 && b == 4242, "a bcast from group index 2 (world rank 4) in the view", rc);
    rc = tutti_group_leave(r);
    check(rc == 0, "tutti_group_leave", rc);
  } else {
    rc = tutti_group_leave(r);
    check(rc == TUTTI_EBUSY, "leave outside a view is TUTTI_EBUSY", rc);
  }
  int t1 = tutti_coll_tag(r);
  check(t1 == t0 + 1, "the tags go on after leave as if no view had been", t1);
  check(tutti_rank(r) == me && tutti_size(r) == P, "rank and size of the world again", 0);

  const tutti_algo_t *h;
  rc = tutti_algo_select(TUTTI_COLL_ALLREDUCE, "hierarchical", "intra=flat", &h, NULL, 0);
  int32_t x = mat_of(me), y = 0, want = mat_of(0);
  for (int q = 1; q < P; q++) want = mat_mul(want, mat_of(q));
  if (!rc) rc = tutti_allreduce(r, &x, &y, 1, TUTTI_INT32, TUTTI_MATMUL2, h);
  check(rc == 0 && y == want, "hierarchical allreduce, matmul2: the product in rank order", rc);

  tutti_mpi_rank_free(r);
  tutti_mpi_finalize();
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return all ? 1 : 0;
}

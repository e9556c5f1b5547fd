/*
 * test_unit_coll_traits.c -- what the registry says of each collective
 * (coll.h TUTTI_COLL_MAP: tutti_coll_traits, tutti_coll_summary), checked
 * against what the collectives' signatures take: a root, an op, a block
 * per rank at the root, a buffer and a count, P blocks in both buffers
 * (alltoall), a result from the ranks below (scan, exscan).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <string.h>

#include "tutti/tutti.h"

Test(traits, match_the_signatures, .timeout = 10) {
  const struct {
    int coll;
    unsigned traits;
  } want[] = {
      {TUTTI_COLL_BCAST, TUTTI_COLL_ROOTED | TUTTI_COLL_DATA},
      {TUTTI_COLL_REDUCE, TUTTI_COLL_ROOTED | TUTTI_COLL_REDUCES | TUTTI_COLL_DATA},
      {TUTTI_COLL_ALLREDUCE, TUTTI_COLL_REDUCES | TUTTI_COLL_DATA},
      {TUTTI_COLL_GATHER, TUTTI_COLL_ROOTED | TUTTI_COLL_BLOCKS | TUTTI_COLL_DATA},
      {TUTTI_COLL_SCATTER, TUTTI_COLL_ROOTED | TUTTI_COLL_BLOCKS | TUTTI_COLL_DATA},
      {TUTTI_COLL_BARRIER, 0},
      {TUTTI_COLL_ALLGATHER, TUTTI_COLL_BLOCKS | TUTTI_COLL_DATA},
      {TUTTI_COLL_REDUCE_SCATTER, TUTTI_COLL_REDUCES | TUTTI_COLL_BLOCKS | TUTTI_COLL_DATA},
      {TUTTI_COLL_ALLTOALL, TUTTI_COLL_BLOCKS | TUTTI_COLL_EXCHANGE | TUTTI_COLL_DATA},
      {TUTTI_COLL_SCAN, TUTTI_COLL_REDUCES | TUTTI_COLL_PREFIX | TUTTI_COLL_DATA},
      {TUTTI_COLL_EXSCAN, TUTTI_COLL_REDUCES | TUTTI_COLL_PREFIX | TUTTI_COLL_DATA},
  };
  cr_assert(eq(sz, sizeof want / sizeof want[0], (size_t)TUTTI_COLL_N), "a collective untested");
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    cr_assert(eq(u32, tutti_coll_traits(want[i].coll), want[i].traits), "%s",
              tutti_coll_name(want[i].coll));
  /* EXCHANGE only with BLOCKS and no root, PREFIX only with an op */
  for (int c = 0; c < TUTTI_COLL_N; c++) {
    unsigned t = tutti_coll_traits(c);
    if (t & TUTTI_COLL_EXCHANGE)
      cr_assert(eq(u32, t & (TUTTI_COLL_BLOCKS | TUTTI_COLL_ROOTED), TUTTI_COLL_BLOCKS), "%s",
                tutti_coll_name(c));
    if (t & TUTTI_COLL_PREFIX)
      cr_assert(eq(u32, t & (TUTTI_COLL_REDUCES | TUTTI_COLL_ROOTED | TUTTI_COLL_BLOCKS),
                   TUTTI_COLL_REDUCES),
                "%s", tutti_coll_name(c));
  }
  cr_assert(eq(u32, tutti_coll_traits(-1), 0));
  cr_assert(eq(u32, tutti_coll_traits(TUTTI_COLL_N), 0));
}

/* Names and variables as the MPI functions' (MPI_Alltoall, MPI_Scan,
 * MPI_Exscan), found by name. */
Test(traits, names_of_the_collectives, .timeout = 10) {
  const char *const names[] = {"bcast",    "reduce",  "allreduce", "gather",
                               "scatter",  "barrier", "allgather", "reduce_scatter",
                               "alltoall", "scan",    "exscan"};
  cr_assert(eq(sz, sizeof names / sizeof *names, (size_t)TUTTI_COLL_N));
  for (int c = 0; c < TUTTI_COLL_N; c++) {
    int found = -1;
    cr_assert(eq(str, (char *)tutti_coll_name(c), (char *)names[c]));
    cr_assert(eq(int, tutti_coll_find(names[c], &found), 0));
    cr_assert(eq(int, found, c));
  }
  cr_assert(eq(str, (char *)tutti_coll_name(TUTTI_COLL_N), "invalid"));
}

Test(traits, every_collective_has_a_summary, .timeout = 10) {
  for (int c = 0; c < TUTTI_COLL_N; c++)
    cr_assert(gt(sz, strlen(tutti_coll_summary(c)), 0), "%s", tutti_coll_name(c));
  cr_assert(eq(str, (char *)tutti_coll_summary(TUTTI_COLL_N), ""));
  cr_assert(eq(str, (char *)tutti_coll_summary(-1), ""));
}

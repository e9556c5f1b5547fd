/*
 * probe_ompi.c -- preloaded into every process of an Open MPI 4.1 run
 * (LD_PRELOAD) by tests/test_e2e_tune_mpi.c: it stands in front of Open
 * MPI's collective algorithms, the ompi_coll_base_*_intra_* functions its
 * tuned component calls (coll_tuned_*_decision.c: across shared objects,
 * so through the dynamic linker, which finds this library first), and
 * writes one line per call to stderr before calling Open MPI's own:
 *
 *   PROBE rank PHASE FUNCTION seg SEGSIZE radix RADIX
 *
 * PHASE is what rules_probe.c last passed to probe_phase; SEGSIZE and
 * RADIX the arguments of the bcast algorithms that take them (-1 for the
 * others). So a run shows which algorithm Open MPI ran for each call, and
 * with what segment size. Every wrapper takes and passes on twelve
 * integer-class arguments (the most of these functions, reduce's chain,
 * take eleven): under the x86-64 System V convention that passes each
 * function's own arguments unchanged, whatever their number.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char phase[128] = "-";

void probe_phase(const char *name) {
  snprintf(phase, sizeof phase, "%s", name);
}

typedef long fn12(long, long, long, long, long, long, long, long, long, long, long, long);

static void note(const char *fn, long seg, long radix) {
  const char *r = getenv("OMPI_COMM_WORLD_RANK");
  fprintf(stderr, "PROBE %s %s %s seg %ld radix %ld\n", r ? r : "?", phase, fn, seg, radix);
}

/* SEG, RADIX: the 0-based argument holding each, -1 for none. */
#define WRAP(name, SEG, RADIX)                                                                     \
  long name(long a0, long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8,       \
            long a9, long a10, long a11) {                                                         \
    static fn12 *real;                                                                             \
    long v[12] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11};                               \
    if (!real) real = (fn12 *)dlsym(RTLD_NEXT, #name);                                             \
    note(#name, SEG < 0 ? -1 : (long)(uint32_t)v[SEG < 0 ? 0 : SEG],                               \
         RADIX < 0 ? -1 : (long)(int)v[RADIX < 0 ? 0 : RADIX]);                                    \
    return real(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11);                                 \
  }

/* (buf, count, dtype, root, comm, module, segsize[, chains | radix]) */
WRAP(ompi_coll_base_bcast_intra_basic_linear, -1, -1)
WRAP(ompi_coll_base_bcast_intra_chain, 6, -1)
WRAP(ompi_coll_base_bcast_intra_pipeline, 6, -1)
WRAP(ompi_coll_base_bcast_intra_split_bintree, 6, -1)
WRAP(ompi_coll_base_bcast_intra_bintree, 6, -1)
WRAP(ompi_coll_base_bcast_intra_binomial, 6, -1)
WRAP(ompi_coll_base_bcast_intra_knomial, 6, 7)
WRAP(ompi_coll_base_bcast_intra_scatter_allgather, 6, -1)
WRAP(ompi_coll_base_bcast_intra_scatter_allgather_ring, 6, -1)
WRAP(ompi_coll_base_reduce_intra_basic_linear, -1, -1)
WRAP(ompi_coll_base_reduce_intra_chain, -1, -1)
WRAP(ompi_coll_base_reduce_intra_pipeline, -1, -1)
WRAP(ompi_coll_base_reduce_intra_binary, -1, -1)
WRAP(ompi_coll_base_reduce_intra_binomial, -1, -1)
WRAP(ompi_coll_base_reduce_intra_in_order_binary, -1, -1)
WRAP(ompi_coll_base_reduce_intra_redscat_gather, -1, -1)
WRAP(ompi_coll_base_allreduce_intra_basic_linear, -1, -1)
WRAP(ompi_coll_base_allreduce_intra_nonoverlapping, -1, -1)
WRAP(ompi_coll_base_allreduce_intra_recursivedoubling, -1, -1)
WRAP(ompi_coll_base_allreduce_intra_ring, -1, -1)
WRAP(ompi_coll_base_allreduce_intra_ring_segmented, -1, -1)
WRAP(ompi_coll_base_allreduce_intra_redscat_allgather, -1, -1)
WRAP(ompi_coll_base_barrier_intra_basic_linear, -1, -1)
WRAP(ompi_coll_base_barrier_intra_doublering, -1, -1)
WRAP(ompi_coll_base_barrier_intra_recursivedoubling, -1, -1)
WRAP(ompi_coll_base_barrier_intra_bruck, -1, -1)
WRAP(ompi_coll_base_barrier_intra_two_procs, -1, -1)
WRAP(ompi_coll_base_barrier_intra_tree, -1, -1)
WRAP(ompi_coll_base_gather_intra_basic_linear, -1, -1)
WRAP(ompi_coll_base_gather_intra_binomial, -1, -1)
WRAP(ompi_coll_base_gather_intra_linear_sync, -1, -1)
WRAP(ompi_coll_base_scatter_intra_basic_linear, -1, -1)
WRAP(ompi_coll_base_scatter_intra_binomial, -1, -1)
WRAP(ompi_coll_base_scatter_intra_linear_nb, -1, -1)
WRAP(ompi_coll_base_allgather_intra_basic_linear, -1, -1)
WRAP(ompi_coll_base_allgather_intra_bruck, -1, -1)
WRAP(ompi_coll_base_allgather_intra_recursivedoubling, -1, -1)
WRAP(ompi_coll_base_allgather_intra_ring, -1, -1)
WRAP(ompi_coll_base_allgather_intra_neighborexchange, -1, -1)
WRAP(ompi_coll_base_allgather_intra_two_procs, -1, -1)
WRAP(ompi_coll_base_reduce_scatter_intra_nonoverlapping, -1, -1)
WRAP(ompi_coll_base_reduce_scatter_intra_basic_recursivehalving, -1, -1)
WRAP(ompi_coll_base_reduce_scatter_intra_ring, -1, -1)
WRAP(ompi_coll_base_reduce_scatter_intra_butterfly, -1, -1)
WRAP(ompi_coll_base_reduce_scatter_block_intra_recursivedoubling, -1, -1)
WRAP(ompi_coll_base_reduce_scatter_block_intra_recursivehalving, -1, -1)
WRAP(ompi_coll_base_reduce_scatter_block_intra_butterfly, -1, -1)
WRAP(ompi_coll_base_alltoall_intra_basic_linear, -1, -1)
WRAP(ompi_coll_base_alltoall_intra_pairwise, -1, -1)
WRAP(ompi_coll_base_alltoall_intra_bruck, -1, -1)
WRAP(ompi_coll_base_alltoall_intra_linear_sync, -1, -1)
WRAP(ompi_coll_base_alltoall_intra_two_procs, -1, -1)
WRAP(ompi_coll_base_scan_intra_linear, -1, -1)
WRAP(ompi_coll_base_scan_intra_recursivedoubling, -1, -1)
WRAP(ompi_coll_base_exscan_intra_linear, -1, -1)
WRAP(ompi_coll_base_exscan_intra_recursivedoubling, -1, -1)

/*
 * knomial.c -- a test plugin: bcast 'knomial', tutti's k-nomial tree
 * (collectives/tree_build.c, kind "knomial", radix k, default 4) as a
 * tree algorithm: no function, the bcast tree mover runs it. What
 * tests/test_e2e_tune_mpi.c tunes to see `tune --ompi-rules` write Open
 * MPI's knomial bcast (7) with its radix when the k-nomial tree wins.
 */
#include <stddef.h>
#include <tutti/plugin.h>

struct params {
  long k;
};

static const tutti_param_desc_t params[] = {
    {.name = "k",
     .type = TUTTI_PARAM_INT,
     .def = 4,
     .min = 2,
     .max = 64,
     .help = "radix: a rank has up to k-1 children per round",
     .offset = offsetof(struct params, k)},
};

static const tutti_algo_desc_t knomial = {
    .abi = TUTTI_ALGO_ABI,
    .coll = TUTTI_COLL_BCAST,
    .name = "knomial",
    .tree = "knomial",
    .nparams = 1,
    .params = params,
    .params_size = sizeof(struct params),
    .summary = "k-nomial tree of radix k (MPICH's and Open MPI's knomial bcast)",
    .source = "the k-nomial tree of collectives/tree_build.c",
};

TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &knomial);
}

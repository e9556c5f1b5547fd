/*
 * cli_rules_mpich.c -- MPICH's collective selection from a tune (`tune
 * --mpich-rules FILE`; bench/CLI.md "MPI libraries' rules files"): the
 * JSON that MPICH 4.0 reads from MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE
 * (src/mpi/coll/src/csel.c) in place of its own.
 *
 * The format: nested objects whose keys are tests, tried in order --
 * "collective=bcast", "comm_type=intra", "comm_size<=N", "avg_msg_size<=N",
 * "total_msg_size<=N", "is_commutative=yes", ... -- down to a container,
 * "algorithm=MPIR_Bcast_intra_binomial". What MPICH 4.0's reader and
 * search require, and the file keeps:
 * - every collective MPICH may look up is in the file (a missing one is
 *   an assertion failure at its first call): the ones tutti tunes get its
 *   rules, the others MPICH 4.0's own selection, written out below as it
 *   decides (its built-in tree, ch4 device);
 * - a chain of size tests ends with "=any" (a test whose failure path is
 *   empty is refused); sizes are read with atoi, so a threshold past
 *   2^31 - 1 ends the chain there;
 * - the size a test sees: avg_msg_size is the message (bcast, reduce,
 *   allreduce: tutti's bytes per rank; alltoall: the bytes per block,
 *   csel.c's get_avg_msgsize); total_msg_size the whole buffer,
 *   bytes per rank x communicator size (allgather, reduce_scatter,
 *   reduce_scatter_block), so those get one comm_size test per size, each
 *   with its own thresholds (cli_rules.c);
 * - an algorithm runs only where MPICH can run it: Rabenseifner's
 *   allreduce with a built-in op and a count of at least the largest
 *   power of two below the size (else recursive doubling), recursive
 *   halving for commutative ops (else MPICH's own), the recursive-doubling
 *   allgather on a power-of-two size (it asserts one; else Bruck's, MPICH's
 *   own choice there), alltoall's with separate buffers (all three
 *   assert it; in place, MPICH's pairwise_sendrecv_replace) -- a rule
 *   covers the sizes up to the next measured count, not just the one it
 *   was measured at;
 * - scan and exscan keep MPICH's own: its recursive doubling pairs rank
 *   XOR 2^k, tutti's Hillis-Steele rounds send to rank + 2^k, and MPICH
 *   has no chain nor up/down sweep;
 * - json-c, MPICH's parser, reads C comments: the file starts with one,
 *   tutti's provenance and every note.
 * Below the smallest measured count, and for inter-communicators, MPICH's
 * own selection. MPICH's device (ch4) picks a composition first; the
 * rules here decide inside it, and for the whole communicator only with
 * MPIR_CVAR_DEVICE_COLLECTIVES=none (bench/CLI.md).
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "cli_rules.h"

#define A(x) "{\"algorithm=MPIR_" x "\":{}}"

/* MPICH 4.0's own selection per collective: the intra-communicator
 * subtree and the inter one, or one subtree for both (any). Its
 * decisions as it makes them, but for two shortcuts of zero-byte calls on
 * communicators spanning nodes (bcast by MPIR_Bcast_intra_smp): plain
 * binomial here. */
struct mpich_default {
  const char *name, *intra, *inter, *any;
};

#define BCAST_SIZES(p)                                                                             \
  "{\"comm_size<8\":{\"avg_msg_size=any\":" A(                                                     \
      p                                                                                            \
      "binomial") "},"                                                                             \
                  "\"comm_size=pow2\":{\"avg_msg_size<=12288\":" A(                                \
                      p                                                                            \
                      "binomial") ","                                                              \
                                  "\"avg_msg_size<=524288\":" A(                                   \
                                      p                                                            \
                                      "scatter_recursive_doubling_"                                \
                                      "allgather") ","                                             \
                                                   "\"avg_msg_size="                               \
                                                   "any\":" A(                                     \
                                                       p                                           \
                                                       "scatter_"                                  \
                                                       "ring_"                                     \
                                                       "allgathe"                                  \
                                                       "r") "},"                                   \
                                                            "\"co"                                 \
                                                            "mm_"                                  \
                                                            "size"                                 \
                                                            "=any"                                 \
                                                            "\":{"                                 \
                                                            "\"av"                                 \
                                                            "g_"                                   \
                                                            "msg_"                                 \
                                                            "size"                                 \
                                                            "<="                                   \
                                                            "1228"                                 \
                                                            "8\""                                  \
                                                            ":" A(                                 \
                                                                p                                  \
                                                                "binomial") ","                    \
                                                                            "\"avg_msg_size="      \
                                                                            "any\":" A(            \
                                                                                p                  \
                                                                                "scatter_ring_"    \
                                                                                "allgather") "}}"
#define REDUCE_SIZES(p)                                                                            \
  "{\"avg_msg_size<=2048\":" A(                                                                    \
      p "binomial") ",\"avg_msg_size=any\":{\"is_op_built_in=yes\":"                               \
                    "{\"count<pow2\":" A(p "binomial") ",\"count=any\":" A(                        \
                        p "reduce_scatter_gather") "},"                                            \
                                                   "\"is_op_built_in=no\":" A(p "binomial") "}}"
#define ALLREDUCE_BIG(p)                                                                           \
  "{\"is_op_built_in=no\":" A(                                                                     \
      p "recursive_doubling") ",\"is_op_built_in=yes\":{\"count<"                                  \
                              "pow2\":" A(p "recursive_doubling") ",\"count="                      \
                                                                  "any\":" A(p "red"               \
                                                                               "uce"               \
                                                                               "_sc"               \
                                                                               "att"               \
                                                                               "er_"               \
                                                                               "all"               \
                                                                               "gat"               \
                                                                               "he"                \
                                                                               "r") "}}"
#define ALLGATHER(p)                                                                               \
  "{\"comm_size=pow2\":{\"total_msg_size<524288\":" A(                                             \
      p "recursive_doubling") ","                                                                  \
                              "\"total_msg_size=any\":" A(                                         \
                                  p "ring") "},\"comm_size=any\":{"                                \
                                            "\"total_msg_size<81920\":" A(                         \
                                                p "brucks") ",\"total_"                            \
                                                            "msg_size="                            \
                                                            "any\":" A(p "r"                       \
                                                                         "i"                       \
                                                                         "n"                       \
                                                                         "g") "}}"
#define RS_NONCOMM(p)                                                                              \
  "{\"comm_size=pow2\":" A(p "noncommutative") ",\"comm_size=any\":" A(p "recursive_doubling") "}"
#define RS_COMM(p)                                                                                 \
  "{\"total_msg_size<524288\":" A(p "recursive_halving") ",\"total_msg_size=any\":" A(             \
      p "pairwise") "}"
#define RS(p)                                                                                      \
  "{\"is_commutative=yes\":" RS_COMM(p) ",\"is_commutative=no\":{\"is_block_regular="              \
                                        "yes\":" RS_NONCOMM(p) ",\"is_block_regular=no\":" A(      \
                                            p "recursive_doubling") "}}"
#define RSB(p) "{\"is_commutative=yes\":" RS_COMM(p) ",\"is_commutative=no\":" RS_NONCOMM(p) "}"
#define ALLTOALL_SIZES(p, small, mid, mid_alg)                                                     \
  "{\"comm_size<8\":{\"avg_msg_size<=32768\":" A(p mid_alg) ",\"avg_msg_size=any\":" A(            \
      p "pairwise") "},\"comm_size=any\":{\"avg_msg_size<=" small                                  \
                    "\":" A(p "brucks") ","                                                        \
                                        "\"avg_msg_size<=" mid                                     \
                                        "\":" A(p mid_alg) ",\"avg_msg_size=any\":" A(             \
                                            p "pairwise") "}}"
#define INPLACE(yes, no) "{\"is_sendbuf_inplace=yes\":" yes ",\"is_sendbuf_inplace=no\":" no "}"
#define INTER_BY_SIZE(small, big)                                                                  \
  "{\"total_msg_size<2048\":" A(small) ",\"total_msg_size=any\":" A(big) "}"

static const struct mpich_default defaults[] = {
    {"bcast", BCAST_SIZES("Bcast_intra_"), A("Bcast_inter_remote_send_local_bcast"), NULL},
    {"allreduce",
     "{\"avg_msg_size<=0\":{\"is_commutative=yes\":" A(
         "Allreduce_intra_smp") ","
                                "\"is_commutative=no\":" A(
                                    "Allreduce_intra_recursive_doubling") "},"
                                                                          "\"avg_msg_size<="
                                                                          "8\":" A(
                                                                              "Allreduce_intra_"
                                                                              "recursive_"
                                                                              "doubling") ","
                                                                                          "\"av"
                                                                                          "g_"
                                                                                          "msg_"
                                                                                          "size"
                                                                                          "=any"
                                                                                          "\""
                                                                                          ":" ALLREDUCE_BIG(
                                                                                              "Allr"
                                                                                              "educ"
                                                                                              "e_"
                                                                                              "intr"
                                                                                              "a_") "}",
     A("Allreduce_inter_reduce_exchange_bcast"), NULL},
    {"allgather", ALLGATHER("Allgather_intra_"), A("Allgather_inter_local_gather_remote_bcast"),
     NULL},
    {"allgatherv", ALLGATHER("Allgatherv_intra_"), A("Allgatherv_inter_remote_gather_local_bcast"),
     NULL},
    {"reduce",
     "{\"comm_hierarchy=parent\":{\"avg_msg_size<=0\":{\"is_commutative=yes\":" A(
         "Reduce_"
         "intra_smp") ",\"is_commutative=no\":" A("Reduce_intra_binomial") "},"
                                                                           "\"avg_msg_size="
                                                                           "any\":" REDUCE_SIZES(
                                                                               "Reduce_intra_") "},"
                                                                                                "\""
                                                                                                "co"
                                                                                                "mm"
                                                                                                "_h"
                                                                                                "ie"
                                                                                                "ra"
                                                                                                "rc"
                                                                                                "hy"
                                                                                                "=a"
                                                                                                "ny"
                                                                                                "\""
                                                                                                ":" REDUCE_SIZES(
                                                                                                    "Reduce_intra_") "}",
     A("Reduce_inter_local_reduce_remote_send"), NULL},
    {"reduce_scatter", RS("Reduce_scatter_intra_"),
     A("Reduce_scatter_inter_remote_reduce_local_scatter"), NULL},
    {"reduce_scatter_block", RSB("Reduce_scatter_block_intra_"),
     A("Reduce_scatter_block_inter_remote_reduce_local_scatter"), NULL},
    {"gather", A("Gather_intra_binomial"),
     INTER_BY_SIZE("Gather_inter_local_gather_remote_send", "Gather_inter_linear"), NULL},
    {"scatter", A("Scatter_intra_binomial"),
     INTER_BY_SIZE("Scatter_inter_remote_send_local_scatter", "Scatter_inter_linear"), NULL},
    {"gatherv", NULL, NULL, A("Gatherv_allcomm_linear")},
    {"scatterv", NULL, NULL, A("Scatterv_allcomm_linear")},
    {"scan",
     "{\"is_node_consecutive=yes\":" A("Scan_intra_smp") ",\"is_node_consecutive=no\":" A(
         "Scan_intra_recursive_doubling") "}",
     A("Scan_intra_smp"), NULL},
    {"exscan", NULL, NULL, A("Exscan_intra_recursive_doubling")},
    {"barrier",
     "{\"comm_hierarchy=parent\":" A("Barrier_intra_smp") ",\"comm_hierarchy=any\":" A(
         "Barrier_intra_dissemination") "}",
     A("Barrier_inter_bcast"), NULL},
    {"alltoall",
     INPLACE(A("Alltoall_intra_pairwise_sendrecv_replace"),
             ALLTOALL_SIZES("Alltoall_intra_", "256", "32768", "scattered")),
     A("Alltoall_inter_pairwise_exchange"), NULL},
    {"alltoallv",
     INPLACE(A("Alltoallv_intra_pairwise_sendrecv_replace"), A("Alltoallv_intra_scattered")),
     A("Alltoallv_inter_pairwise_exchange"), NULL},
    {"alltoallw",
     INPLACE(A("Alltoallw_intra_pairwise_sendrecv_replace"), A("Alltoallw_intra_scattered")),
     A("Alltoallw_inter_pairwise_exchange"), NULL},
    {"neighbor_allgather", NULL, NULL, A("Neighbor_allgather_allcomm_nb")},
    {"neighbor_allgatherv", NULL, NULL, A("Neighbor_allgatherv_allcomm_nb")},
    {"neighbor_alltoall", NULL, NULL, A("Neighbor_alltoall_allcomm_nb")},
    {"neighbor_alltoallv", NULL, NULL, A("Neighbor_alltoallv_allcomm_nb")},
    {"neighbor_alltoallw", NULL, NULL, A("Neighbor_alltoallw_allcomm_nb")},
    {"ibarrier", A("Ibarrier_intra_sched_recursive_doubling"), A("Ibarrier_inter_sched_bcast"),
     NULL},
    {"iallreduce",
     "{\"avg_msg_size<=2048\":" A(
         "Iallreduce_intra_sched_recursive_doubling") ","
                                                      "\"avg_msg_size=any\":" ALLREDUCE_BIG(
                                                          "Iallreduce_intra_sched_") "}",
     A("Iallreduce_inter_sched_remote_reduce_local_bcast"), NULL},
    {"iallgather", ALLGATHER("Iallgather_intra_sched_"),
     A("Iallgather_inter_sched_local_gather_remote_bcast"), NULL},
    {"iallgatherv", ALLGATHER("Iallgatherv_intra_sched_"),
     A("Iallgatherv_inter_sched_remote_gather_local_bcast"), NULL},
    {"ibcast",
     "{\"comm_hierarchy=parent\":" A("Ibcast_intra_sched_smp") ",\"comm_hierarchy="
                                                               "any\":" BCAST_SIZES(
                                                                   "Ibcast_intra_sched_") "}",
     A("Ibcast_inter_sched_flat"), NULL},
    {"ireduce",
     "{\"comm_hierarchy=parent\":{\"is_commutative=yes\":" A(
         "Ireduce_intra_sched_smp") ","
                                    "\"is_commutative=no\":" A(
                                        "Ireduce_intra_sched_binomial") "},"
                                                                        "\"comm_hierarchy="
                                                                        "any\":" REDUCE_SIZES(
                                                                            "Ireduce_intra_"
                                                                            "sched_") "}",
     A("Ireduce_inter_sched_local_reduce_remote_send"), NULL},
    {"ireduce_scatter", RS("Ireduce_scatter_intra_sched_"),
     A("Ireduce_scatter_inter_sched_remote_reduce_local_scatterv"), NULL},
    {"ireduce_scatter_block", RSB("Ireduce_scatter_block_intra_sched_"),
     A("Ireduce_scatter_block_inter_sched_remote_reduce_local_scatterv"), NULL},
    {"igather", A("Igather_intra_sched_binomial"),
     INTER_BY_SIZE("Igather_inter_sched_short", "Igather_inter_sched_long"), NULL},
    {"iscatter", A("Iscatter_intra_sched_binomial"),
     INTER_BY_SIZE("Iscatter_inter_sched_remote_send_local_scatter", "Iscatter_inter_sched_linear"),
     NULL},
    {"igatherv", NULL, NULL, A("Igatherv_allcomm_sched_linear")},
    {"iscatterv", NULL, NULL, A("Iscatterv_allcomm_sched_linear")},
    {"iexscan", NULL, NULL, A("Iexscan_intra_sched_recursive_doubling")},
    {"ialltoall",
     INPLACE(A("Ialltoall_intra_sched_inplace"),
             ALLTOALL_SIZES("Ialltoall_intra_sched_", "2048", "32768", "permuted_sendrecv")),
     A("Ialltoall_inter_sched_pairwise_exchange"), NULL},
    {"ialltoallv",
     INPLACE(A("Ialltoallv_intra_sched_inplace"), A("Ialltoallv_intra_sched_blocked")),
     A("Ialltoallv_inter_sched_pairwise_exchange"), NULL},
    {"ialltoallw",
     INPLACE(A("Ialltoallw_intra_sched_inplace"), A("Ialltoallw_intra_sched_blocked")),
     A("Ialltoallw_inter_sched_pairwise_exchange"), NULL},
    {"iscan", NULL, NULL,
     "{\"comm_hierarchy=parent\":" A("Iscan_intra_sched_smp") ",\"comm_hierarchy=any\":" A(
         "Iscan_intra_sched_recursive_doubling") "}"},
    {"ineighbor_allgather", NULL, NULL, A("Ineighbor_allgather_allcomm_sched_linear")},
    {"ineighbor_allgatherv", NULL, NULL, A("Ineighbor_allgatherv_allcomm_sched_linear")},
    {"ineighbor_alltoall", NULL, NULL, A("Ineighbor_alltoall_allcomm_sched_linear")},
    {"ineighbor_alltoallv", NULL, NULL, A("Ineighbor_alltoallv_allcomm_sched_linear")},
    {"ineighbor_alltoallw", NULL, NULL, A("Ineighbor_alltoallw_allcomm_sched_linear")},
};
#define NDEFAULTS (int)(sizeof defaults / sizeof *defaults)

static const struct mpich_default *default_of(const char *name) {
  for (int i = 0; i < NDEFAULTS; i++)
    if (!strcmp(defaults[i].name, name)) return &defaults[i];
  return NULL;
}

/* ------------------------------------------------------------ mapping */

/* MPICH 4.0's blocking algorithms of the collectives tutti tunes, in the
 * order a tie follows (MPICH's default first); pick.alg is the index + 1. */
static const char *const algs_bcast[] = {"MPIR_Bcast_intra_binomial",
                                         "MPIR_Bcast_intra_scatter_recursive_doubling_allgather",
                                         "MPIR_Bcast_intra_scatter_ring_allgather", NULL};
static const char *const algs_reduce[] = {"MPIR_Reduce_intra_binomial", NULL};
static const char *const algs_allreduce[] = {"MPIR_Allreduce_intra_recursive_doubling",
                                             "MPIR_Allreduce_intra_reduce_scatter_allgather", NULL};
static const char *const algs_gather[] = {"MPIR_Gather_intra_binomial", NULL};
static const char *const algs_scatter[] = {"MPIR_Scatter_intra_binomial", NULL};
static const char *const algs_barrier[] = {"MPIR_Barrier_intra_dissemination", NULL};
static const char *const algs_allgather[] = {"MPIR_Allgather_intra_recursive_doubling",
                                             "MPIR_Allgather_intra_brucks",
                                             "MPIR_Allgather_intra_ring", NULL};
static const char *const algs_rs[] = {"MPIR_Reduce_scatter_intra_recursive_halving", NULL};
static const char *const algs_rsb[] = {"MPIR_Reduce_scatter_block_intra_recursive_halving", NULL};
static const char *const algs_alltoall[] = {"MPIR_Alltoall_intra_scattered",
                                            "MPIR_Alltoall_intra_pairwise",
                                            "MPIR_Alltoall_intra_brucks", NULL};

/* MPIR_CVAR_ALLTOALL_THROTTLE's default: scattered posts this many
 * requests of each kind at a time, so up to this size all of them. */
#define MPICH_ALLTOALL_THROTTLE 32

/* The index in the target's list of tutti algorithm a on P ranks (-1: none). */
static int mpich_index(int coll, const tutti_algo_t *a, int P, long seg) {
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  const char *tree = d->tree;
  int builtin = tutti_algo_builtin(d);
  double k = tutti_algo_param(a, "k");
  if (tree && !strcmp(tree, "knomial") && k == 2) tree = "binomial";
  if (tree) /* MPICH's trees are binomial, one message each */
    return !strcmp(tree, "binomial") && !seg &&
                   (coll == TUTTI_COLL_BCAST || coll == TUTTI_COLL_REDUCE ||
                    coll == TUTTI_COLL_GATHER || coll == TUTTI_COLL_SCATTER)
               ? 0
               : -1;
  if (!builtin) return -1;
  const char *n = d->name;
  switch (coll) {
  case TUTTI_COLL_BCAST:
    if (strcmp(n, "scatter-allgather")) return -1;
    return tutti_algo_param(a, "allgather") != 0 && P > 0 && !(P & (P - 1)) ? 1 : 2;
  case TUTTI_COLL_ALLREDUCE:
    return !strcmp(n, "recursive-doubling") ? 0 : !strcmp(n, "rabenseifner") ? 1 : -1;
  case TUTTI_COLL_BARRIER:
    return !strcmp(n, "dissemination") && k == 2 ? 0 : -1;
  case TUTTI_COLL_ALLGATHER:
    return !strcmp(n, "recursive-doubling") ? 0
           : !strcmp(n, "bruck")            ? 1
           : !strcmp(n, "ring")             ? 2
                                            : -1;
  case TUTTI_COLL_REDUCE_SCATTER:
    return !strcmp(n, "recursive-halving") ? 0 : -1;
  case TUTTI_COLL_ALLTOALL: /* MPICH's pairwise: rank XOR i on powers of 2, else shifts */
    if (!strcmp(n, "linear")) return P <= MPICH_ALLTOALL_THROTTLE ? 0 : -1;
    if (!strcmp(n, "pairwise")) return 1;
    if (!strcmp(n, "ring")) return P > 0 && (P & (P - 1)) ? 1 : -1;
    return !strcmp(n, "bruck") ? 2 : -1;
  default:
    return -1;
  }
}

static const char *const *algs_of(const struct rules_target *tg) {
  static const char *const *const by_id[] = {
      algs_bcast,   algs_reduce,    algs_allreduce, algs_gather, algs_scatter,
      algs_barrier, algs_allgather, algs_rs,        algs_rsb,    algs_alltoall};
  return by_id[tg->id];
}

static int map_mpich(const struct rules_target *tg, const tutti_algo_t *a, int P, long seg,
                     struct rules_pick *out, int *pref) {
  int i = mpich_index(tg->coll, a, P, seg);
  if (i < 0) return -1;
  *out = (struct rules_pick){i + 1, algs_of(tg)[i], 0, 0};
  *pref = i;
  return 0;
}

/* The collectives tutti tunes, as MPICH names them; id indexes algs_of.
 * key_per_block: total_msg_size (the whole buffer) is their size test. */
static const struct rules_target mpich_targets[] = {
    {TUTTI_COLL_BCAST, 0, "bcast", 0, map_mpich},
    {TUTTI_COLL_REDUCE, 1, "reduce", 0, map_mpich},
    {TUTTI_COLL_ALLREDUCE, 2, "allreduce", 0, map_mpich},
    {TUTTI_COLL_GATHER, 3, "gather", 1, map_mpich},
    {TUTTI_COLL_SCATTER, 4, "scatter", 1, map_mpich},
    {TUTTI_COLL_BARRIER, 5, "barrier", 0, map_mpich},
    {TUTTI_COLL_ALLGATHER, 6, "allgather", 1, map_mpich},
    {TUTTI_COLL_REDUCE_SCATTER, 7, "reduce_scatter", 1, map_mpich},
    {TUTTI_COLL_REDUCE_SCATTER, 8, "reduce_scatter_block", 1, map_mpich},
    {TUTTI_COLL_ALLTOALL, 9, "alltoall", 0, map_mpich}, /* avg_msg_size: the block */
};
#define NTARGETS (int)(sizeof mpich_targets / sizeof *mpich_targets)

/* ------------------------------------------------------------ writing */

/* A note inside the file's comment: no "* /" can end it early. */
static void note_line(FILE *f, const char *pre, const char *s) {
  fputs(pre, f);
  for (; *s; s++) fputc(s[0] == '*' && s[1] == '/' ? '+' : *s, f);
  fputc('\n', f);
}

/* What one rule runs: its container, guarded where MPICH needs it. */
static void container(FILE *f, const struct rules_target *tg, const struct rules_pick *p) {
  const struct mpich_default *d = default_of(tg->name);
  if (!p->alg) /* MPICH's own */
    fputs(d->intra, f);
  else if (!strcmp(p->name, "MPIR_Allreduce_intra_reduce_scatter_allgather"))
    fputs(ALLREDUCE_BIG("Allreduce_intra_"), f);
  else if (!strcmp(p->name, "MPIR_Allgather_intra_recursive_doubling")) /* asserts a power of 2 */
    fputs("{\"comm_size=pow2\":" A("Allgather_intra_recursive_doubling") ",\"comm_size=any\":" A(
              "Allgather_intra_brucks") "}",
          f);
  else if (tg->coll == TUTTI_COLL_ALLTOALL) /* each asserts separate buffers */
    fprintf(f, INPLACE(A("Alltoall_intra_pairwise_sendrecv_replace"), "{\"algorithm=%s\":{}}"),
            p->name);
  else if (tg->coll == TUTTI_COLL_REDUCE_SCATTER)
    fprintf(
        f, "{\"is_commutative=yes\":{\"algorithm=%s\":{}},\"is_commutative=no\":%s}", p->name,
        !strcmp(tg->name, "reduce_scatter")
            ? "{\"is_block_regular=yes\":" RS_NONCOMM(
                  "Reduce_scatter_intra_") ",\"is_block_regular=no\":" A("Reduce_scatter_intra_"
                                                                         "recursive_doubling") "}"
            : RS_NONCOMM("Reduce_scatter_block_intra_"));
  else
    fprintf(f, "{\"algorithm=%s\":{}}", p->name);
}

/* One communicator range's rules: a chain of size tests ending in =any. */
static void chain(FILE *f, const struct rules_target *tg, const struct rules_comm *c) {
  const char *key = tg->key_per_block ? "total_msg_size" : "avg_msg_size";
  if (c->n == 1) return container(f, tg, &c->r[0].pick);
  fputc('{', f);
  for (int r = 0; r < c->n; r++) {
    const struct rules_rule *x = &c->r[r];
    int last = r + 1 == c->n || x->hi > (size_t)INT_MAX; /* atoi: an int or nothing */
    if (last)
      fprintf(f, "%s\"%s=any\":", r ? "," : "", key);
    else
      fprintf(f, "%s\"%s<=%zu\":", r ? "," : "", key, x->hi);
    container(f, tg, &x->pick);
    if (last) break;
  }
  fputc('}', f);
}

int rules_write_mpich(FILE *f, const struct tune_result *t) {
  struct rules_comm *c[NTARGETS] = {0};
  int n[NTARGETS] = {0}, rc = 0;
  for (int i = 0; i < NTARGETS && !rc; i++)
    rc = rules_build(t, &mpich_targets[i], "MPICH 4.0", &c[i], &n[i]);
  if (rc) {
    for (int i = 0; i < NTARGETS; i++) rules_free(c[i], n[i]);
    return rc;
  }
  fputs("/*\n", f);
  rules_provenance(f, t, " * ");
  fputs(" * MPICH 4.0 collective selection (bench/CLI.md \"MPI libraries' rules files\"):\n"
        " *   MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE MPIR_CVAR_DEVICE_COLLECTIVES=none\n"
        " * Collectives tutti does not tune, counts below the smallest measured one and\n"
        " * inter-communicators keep MPICH 4.0's own selection, and so do scan and exscan\n"
        " * (none of MPICH's is one of tutti's). MPICH has one gather, one\n"
        " * scatter and one barrier algorithm (binomial, binomial, dissemination): their\n"
        " * rules can only name those.\n",
        f);
  for (int i = 0; i < NTARGETS; i++)
    for (int k = 0; k < n[i]; k++)
      for (int r = 0; r < c[i][k].n; r++) {
        const struct rules_rule *x = &c[i][k].r[r];
        char pre[200], lo[32], hi[32], ranks[48];
        if (!x->note[0]) continue;
        tutti_format_bytes(x->lo, lo, sizeof lo);
        if (x->hi == SIZE_MAX)
          snprintf(hi, sizeof hi, "no end");
        else
          tutti_format_bytes(x->hi, hi, sizeof hi);
        if (c[i][k].cmax == INT32_MAX)
          snprintf(ranks, sizeof ranks, "%d..", c[i][k].cmin);
        else
          snprintf(ranks, sizeof ranks, "%d..%d", c[i][k].cmin, c[i][k].cmax);
        if (mpich_targets[i].coll == TUTTI_COLL_BARRIER) /* no size */
          snprintf(pre, sizeof pre, " * note: barrier, %s ranks: ", ranks);
        else
          snprintf(pre, sizeof pre, " * note: %s, %s ranks, %s %s..%s: ", mpich_targets[i].name,
                   ranks, mpich_targets[i].key_per_block ? "whole buffer" : "message", lo, hi);
        note_line(f, pre, x->note);
      }
  fputs(" */\n{", f);
  int first = 1;
  for (int d = 0; d < NDEFAULTS; d++) {
    const struct mpich_default *df = &defaults[d];
    int t_i = -1;
    for (int i = 0; i < NTARGETS; i++)
      if (!strcmp(mpich_targets[i].name, df->name) && n[i]) t_i = i;
    fprintf(f, "%s\n\"collective=%s\":", first ? "" : ",", df->name);
    first = 0;
    if (t_i < 0) { /* not tuned: MPICH's own */
      if (df->any)
        fputs(df->any, f);
      else
        fprintf(f, "{\"comm_type=intra\":%s,\"comm_type=inter\":%s}", df->intra, df->inter);
      continue;
    }
    fputs("{\"comm_type=intra\":{", f);
    for (int k = 0; k < n[t_i]; k++) {
      const struct rules_comm *cc = &c[t_i][k];
      if (cc->cmax == INT32_MAX)
        fprintf(f, "%s\n  \"comm_size=any\":", k ? "," : "");
      else
        fprintf(f, "%s\n  \"comm_size<=%d\":", k ? "," : "", cc->cmax);
      chain(f, &mpich_targets[t_i], cc);
    }
    if (c[t_i][n[t_i] - 1].cmax != INT32_MAX) /* cannot happen: the last range is open */
      fprintf(f, ",\n  \"comm_size=any\":%s", df->intra);
    fprintf(f, "},\n \"comm_type=inter\":%s}", df->inter);
  }
  fputs("\n}\n", f);
  for (int i = 0; i < NTARGETS; i++) rules_free(c[i], n[i]);
  return 0;
}

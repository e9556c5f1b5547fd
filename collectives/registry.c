/*
 * registry.c -- THE list of tutti's own algorithms (TUTTI_ALGOS below), and
 * the registry every algorithm joins, built-in or not: tutti_algo_register
 * checks a description (coll.h), copies it, and appends it; the built-ins
 * go through the very same checks, from this file's table, the first time
 * anyone asks the registry anything. The CLI, the tests, the results
 * page of algorithms and the help enumerate it with tutti_algo_desc_at(); adding a
 * built-in is adding one line to TUTTI_ALGOS (and, unless it is a tree,
 * its own file).
 *
 * Threads: registration takes a lock; readers take none. Entries are
 * never changed or removed, and the count is published after the entry
 * (release, acquire), so a reader sees whole entries only.
 * Parsing a selection and its parameters, and checking them per call, is
 * select.c's; the collectives' default algorithms are `defaults` below.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "engine.h"
#include "tutti/coll.h"
#include "tutti/units.h"

/* ------------------------------------------------------------ parameters */

/* Each parameter of the table is declared once here and named by any
 * number of its lines; its field in tutti_params_t (algo.h) receives the
 * parsed value. */
static const char *const order_words[] = {"rank", "dfs", "list:", NULL}; /* tutti_chain_order */
static const char *const allgather_words[] = {"ring", "recursive-doubling", NULL};
/* hierarchical's levels: tutti's own algorithms of the collective but
 * itself and auto (a level takes "auto" as a value), in table order; for
 * allreduce's intra, the reduce and the bcast it runs
 * (tests/test_unit_registry.c holds them to the table) */
static const char *const bcast_words[] = {
    "flat",           "binary",          "binomial",          "lambda-tree",
    "postal-optimal", "pipelined-chain", "scatter-allgather", NULL};
static const char *const reduce_words[] = {"flat",        "binary",         "binomial",
                                           "lambda-tree", "postal-optimal", NULL};
static const char *const allreduce_words[] = {"reduce-bcast",        "dual-root",    "single-tree",
                                              "binary-reduce-bcast", "two-tree",     "ring",
                                              "recursive-doubling",  "rabenseifner", NULL};
static const char *const barrier_words[] = {"lambda-tree",    "flat",          "binomial",
                                            "postal-optimal", "dissemination", "recursive-doubling",
                                            "tournament",     "fibonacci",     NULL};
#define LAMBDA_MAX 0x1.fffffffffffffp-1 /* the largest double below 1: lambda in [0.5, 1) */
#define FIELD(f) offsetof(tutti_params_t, f)

#define P_LAMBDA                                                                                   \
  {                                                                                                \
    "lambda", TUTTI_PARAM_REAL, TUTTI_TREE_DEFAULT_LAMBDA, 0.5, LAMBDA_MAX, TUTTI_PARAM_AUTO_OK,   \
        "share of its set a source keeps: 0.5 is binomial-like, toward 1 flat; auto: "             \
        "fitted to the model's latency (0.6 suits postal L = 2)",                                  \
        FIELD(lambda), NULL, NULL                                                                  \
  }
#define P_L                                                                                        \
  {                                                                                                \
    "L", TUTTI_PARAM_INT, 0, 1, 4096, TUTTI_PARAM_AUTO_OK | TUTTI_PARAM_AUTO_DEFAULT,              \
        "postal latency in send times the tree is optimal for; auto: the model's L(m)/S(m)",       \
        FIELD(L), NULL, NULL                                                                       \
  }
#define P_K                                                                                        \
  {                                                                                                \
    "k", TUTTI_PARAM_INT, TUTTI_TREE_DEFAULT_K, 2, 1024, 0,                                        \
        "radix: a rank has up to k-1 children per round", FIELD(k), NULL, NULL                     \
  }
#define P_SEGMENT                                                                                  \
  {                                                                                                \
    "segment", TUTTI_PARAM_SIZE, 0, 0, INFINITY, 0,                                                \
        "pipeline the message in segments of this many bytes (whole elements); 0: one message",    \
        FIELD(segment), NULL, NULL                                                                 \
  }

#define P_SEGMENTS                                                                                 \
  {                                                                                                \
    "segments", TUTTI_PARAM_INT, 0, 1, 1 << 30, TUTTI_PARAM_AUTO_OK | TUTTI_PARAM_AUTO_DEFAULT,    \
        "cut the message into this many segments (at most its bytes); auto: "                      \
        "sqrt((P-2) beta m / alpha) from the model, the better of its floor and ceiling",          \
        FIELD(segments), NULL, tutti__check_segments                                               \
  }
#define P_ORDER                                                                                    \
  {                                                                                                \
    "order", TUTTI_PARAM_CHOICE, TUTTI_ORDER_RANK, 0, 2, 0,                                        \
        "the chain: rank order from the root, the topology's contention-free DFS chain "           \
        "(rank order without one), or an explicit list starting at the root",                      \
        FIELD(order), order_words, tutti__check_order                                              \
  }
#define P_WINDOW                                                                                   \
  {                                                                                                \
    "window", TUTTI_PARAM_INT, 1, 0, 1 << 30, 0,                                                   \
        "sends a rank keeps in flight, one receive more posted: 1 the paper's pipeline; 0 "        \
        "every segment posted at once (SMPI's NTSL)",                                              \
        FIELD(window), NULL, NULL                                                                  \
  }
#define P_ALLGATHER                                                                                \
  {                                                                                                \
    "allgather", TUTTI_PARAM_CHOICE, TUTTI_ALLGATHER_RING, 0, 1, 0,                                \
        "the second phase: ring (any P), or recursive doubling (a power of two; other P run "      \
        "the ring, with a note)",                                                                  \
        FIELD(allgather), allgather_words, tutti__check_allgather                                  \
  }

/* hierarchical: a level's algorithm, word `def` of `words` (n words), or
 * auto (the level's `auto`, TUTTI_PARAM_AUTO in the field) */
#define P_LEVEL(name, words, n, def, flags, help)                                                  \
  {                                                                                                \
#name, TUTTI_PARAM_CHOICE, def, 0, (n)-1, TUTTI_PARAM_AUTO_OK | (flags), help, FIELD(name),    \
        words, NULL                                                                                \
  }
#define INTER_HELP "the algorithm among one leader per host (over the network)"
#define INTRA_HELP "the algorithm among each host's ranks (over its own links)"

#define P_BLOCKS                                                                                   \
  {                                                                                                \
    "blocks", TUTTI_PARAM_INT, 0, 1, 1 << 30, TUTTI_PARAM_AUTO_OK | TUTTI_PARAM_AUTO_DEFAULT,      \
        "cut the vector into this many blocks (at most one per element); auto: the count "         \
        "minimizing the modeled time, near sqrt((4H-2) beta m / (3 alpha))",                       \
        FIELD(blocks), NULL, NULL                                                                  \
  }

#define SRC_BI                                                                                     \
  "M. Bernaschi, G. Iannello, \"Efficient collective communication operations in PVMe\", 1995, "   \
  "sec. 3"
#define SRC_BK                                                                                     \
  "A. Bar-Noy, S. Kipnis, \"Designing broadcasting algorithms in the postal model\", SPAA 1992"
#define SRC_PFY                                                                                    \
  "P. Patarasuk, A. Faraj, X. Yuan, \"Pipelined broadcast on Ethernet switched clusters\", JPDC "  \
  "68(6), 2008; X. Yuan's lecture on MPI_Bcast (linear tree pipelined broadcast)"
#define SRC_VDG                                                                                    \
  "M. Barnett, S. Gupta, D. Payne, L. Shuler, R. van de Geijn, J. Watts, \"Interprocessor "        \
  "collective communication library (InterCom)\", SHPCC 1994; MPICH's long-message bcast "         \
  "(Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005, sec. 4.3)"
#define SRC_DUALROOT                                                                               \
  "J. L. Traff, \"A doubly-pipelined, dual-root reduction-to-all algorithm and implementation\", " \
  "2021, Algorithm 1"
#define SRC_BRUCK                                                                                  \
  "J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal, D. Weathersby, \"Efficient algorithms for all-to-all " \
  "communications in multiport message-passing systems\", IEEE TPDS 8(11), 1997, sec. 3"
#define SRC_MPICH "MPICH src/mpi/coll (binomial trees)"
#define SRC_HS                                                                                     \
  "W. D. Hillis, G. L. Steele Jr., \"Data parallel algorithms\", CACM 29(12), 1986; MPICH's "      \
  "recursive-doubling scan"
#define SRC_BLELLOCH                                                                               \
  "G. E. Blelloch, \"Prefix sums and their applications\", CMU-CS-90-190, 1990; R. P. Brent, "     \
  "H. T. Kung, IEEE TC 31(3), 1982"
#define SRC_HAN                                                                                    \
  "X. Luo et al., \"HAN: a hierarchical autotuned collective communication framework\", IEEE "     \
  "Cluster 2020 (Open MPI coll/han); MPICH's SMP-aware collectives"
#define SRC_PVM "PVM 3.3 (the baseline of " SRC_BI ")"
#define SRC_HFM                                                                                    \
  "D. Hensgen, R. Finkel, U. Manber, \"Two algorithms for barrier synchronization\", IJPP "        \
  "17(1), 1988"
#define SRC_BBHKS                                                                                  \
  "A. Bar-Noy, J. Bruck, C.-T. Ho, S. Kipnis, B. Schieber, \"Computing global combine "            \
  "operations in the multiport postal model\", IEEE TPDS 6(8), 1995"

/* ------------------------------------------------------------ the table */

/* THE list. One line per algorithm:
 *
 *   TREE(coll, "name", kind, restrictions, summary, source, cost, params...)
 *     a tree algorithm: the collective's generic tree mover (engine.h) on
 *     tree.h's kind, its Hockney cost and message count from the tree itself (tree_cost.c);
 *     nothing else to write.
 *   ALGO(coll, id, "name", restrictions, summary, source, cost, params...)
 *     any other algorithm: one file defining tutti__<coll>_<id> and its
 *     cost function tutti__<coll>_<id>_cost and its message count
 *     tutti__<coll>_<id>_msgs (declared by this list).
 *
 * params: P_* above, at most TUTTI_MAX_PARAMS. Order within a collective
 * is the order of `tutti list` and the suite. */
#define TUTTI_ALGOS(TREE, ALGO)                                                                    \
  TREE(bcast, "flat", flat, 0, "the root sends to every other rank in turn", SRC_PVM,              \
       "(P-1)(alpha + beta m)")                                                                    \
  TREE(bcast, "binary", binary, 0, "heap-ordered binary tree, optionally pipelined in segments",   \
       "Open MPI coll/base (bintree)", "<= 2 floor(log2 P)(alpha + beta m)", P_SEGMENT)            \
  TREE(bcast, "binomial", binomial, 0,                                                             \
       "binomial tree, farthest child first, optionally pipelined", SRC_MPICH,                     \
       "ceil(log2 P)(alpha + beta m)", P_SEGMENT)                                                  \
  TREE(bcast, "lambda-tree", lambda, 0,                                                            \
       "the source keeps a share lambda of its set and hands the rest to one leader", SRC_BI,      \
       "T_1(P)(alpha + beta m); ceil(log2 P) at lambda = 0.5", P_LAMBDA, P_SEGMENT)                \
  TREE(bcast, "postal-optimal", postal, 0,                                                         \
       "the optimal tree of the postal model of latency L (f_L(P) steps)", SRC_BK,                 \
       "T_1(P)(alpha + beta m); ceil(log2 P) for L = 1", P_L, P_SEGMENT)                           \
  ALGO(bcast, pipelined_chain, "pipelined-chain", 0,                                               \
       "a chain from the root, the message in S segments: each rank forwards one while it "        \
       "receives the next",                                                                        \
       SRC_PFY, "(S + P - 2)(alpha + beta m/S), best S = sqrt((P-2) beta m / alpha)", P_SEGMENTS,  \
       P_SEGMENT, P_ORDER, P_WINDOW)                                                               \
  ALGO(bcast, scatter_allgather, "scatter-allgather", 0,                                           \
       "binomial scatter of one block per rank, then an allgather of the blocks", SRC_VDG,         \
       "(ceil(log2 P) + P - 1) alpha + 2 ((P-1)/P) beta m (ring)", P_ALLGATHER)                    \
  ALGO(bcast, hierarchical, "hierarchical", 0,                                                     \
       "one leader per host runs inter over the network, then each host intra from its leader",    \
       SRC_HAN, "inter's on P without hosts; ceil(log2 H)(ae + be m) + ceil(log2 c)(ai + bi m)",   \
       P_LEVEL(inter, bcast_words, 7, 2, 0, INTER_HELP),                                           \
       P_LEVEL(intra, bcast_words, 7, 2, 0, INTRA_HELP))                                           \
  ALGO(bcast, auto, "auto", 0,                                                                     \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. ceil(log2 P)(alpha + beta m)")        \
                                                                                                   \
  TREE(reduce, "flat", flat, 0, "every rank sends to the root, which combines in rank order",      \
       SRC_PVM, "(P-1)(alpha + beta m + gamma m)")                                                 \
  TREE(reduce, "binary", binary, TUTTI_ALGO_COMMUTATIVE,                                           \
       "heap-ordered binary tree (subtrees are not rank ranges)", "Open MPI coll/base (bintree)",  \
       "<= 2 floor(log2 P)(alpha + beta m + gamma m)", P_SEGMENT)                                  \
  TREE(reduce, "binomial", binomial, 0, "binomial tree, children combined in rank order",          \
       SRC_MPICH, "ceil(log2 P)(alpha + beta m + gamma m)", P_SEGMENT)                             \
  TREE(reduce, "lambda-tree", lambda, 0,                                                           \
       "the lambda-tree broadcast reversed: receive from children, reduce, send to parent",        \
       SRC_BI, "T_1(P)(alpha + beta m + gamma m); ceil(log2 P) at lambda = 0.5", P_LAMBDA,         \
       P_SEGMENT)                                                                                  \
  TREE(reduce, "postal-optimal", postal, 0, "the postal-optimal broadcast tree reversed", SRC_BK,  \
       "T_1(P)(alpha + beta m + gamma m)", P_L, P_SEGMENT)                                         \
  ALGO(reduce, hierarchical, "hierarchical", 0,                                                    \
       "each host reduces intra to its leader, then the leaders inter to the root", SRC_HAN,       \
       "inter's on P without hosts; ceil(log2 H)(ae + be m) + ceil(log2 c)(ai + bi m)",            \
       P_LEVEL(inter, reduce_words, 5, 2, 0, INTER_HELP),                                          \
       P_LEVEL(intra, reduce_words, 5, 2, 0, INTRA_HELP))                                          \
  ALGO(reduce, auto, "auto", 0,                                                                    \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. ceil(log2 P)(alpha + beta m)")        \
                                                                                                   \
  TREE(gather, "flat", flat, 0, "every rank sends its block to the root", SRC_PVM,                 \
       "(P-1)(alpha + beta b)")                                                                    \
  TREE(gather, "binomial", binomial, 0,                                                            \
       "binomial tree; each rank forwards its subtree's blocks in one message", SRC_MPICH,         \
       "ceil(log2 P) alpha + (P-1) beta b")                                                        \
  TREE(gather, "lambda-tree", lambda, 0,                                                           \
       "lambda-tree; each rank forwards its subtree's blocks in one message", SRC_BI,              \
       "T_1(P) alpha + ~(P-1) beta b", P_LAMBDA)                                                   \
  ALGO(gather, auto, "auto", 0,                                                                    \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. ceil(log2 P)(alpha + beta m)")        \
                                                                                                   \
  TREE(scatter, "flat", flat, 0, "the root sends every rank its block", SRC_PVM,                   \
       "(P-1)(alpha + beta b)")                                                                    \
  TREE(scatter, "binomial", binomial, 0,                                                           \
       "binomial tree; each rank gets its subtree's blocks in one message", SRC_MPICH,             \
       "ceil(log2 P) alpha + (P-1) beta b")                                                        \
  TREE(scatter, "lambda-tree", lambda, 0,                                                          \
       "lambda-tree; each rank gets its subtree's blocks in one message", SRC_BI,                  \
       "T_1(P) alpha + ~(P-1) beta b", P_LAMBDA)                                                   \
  ALGO(scatter, auto, "auto", 0,                                                                   \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. ceil(log2 P)(alpha + beta m)")        \
                                                                                                   \
  ALGO(allreduce, reduce_bcast, "reduce-bcast", 0,                                                 \
       "binomial reduce to rank 0, then binomial broadcast",                                       \
       "Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005",                                          \
       "2 ceil(log2 P)(alpha + beta m) + ceil(log2 P) gamma m", P_SEGMENT)                         \
  ALGO(allreduce, dual_root, "dual-root", 0,                                                       \
       "two post-order binary trees with dual roots, reduce and broadcast doubly pipelined",       \
       SRC_DUALROOT, "(4H + 1 + 3(b-1))(alpha + beta m/b), H = log2(P+2) - 2", P_BLOCKS)           \
  ALGO(allreduce, single_tree, "single-tree", 0,                                                   \
       "one post-order binary tree, reduce and broadcast doubly pipelined", SRC_DUALROOT,          \
       "(4H + 3(b-1) + [b > 1])(alpha + beta m/b), H = log2(P+1) - 1", P_BLOCKS)                   \
  ALGO(allreduce, binary_reduce_bcast, "binary-reduce-bcast", 0,                                   \
       "pipelined reduce up a post-order binary tree to rank P-1, then pipelined broadcast down",  \
       SRC_DUALROOT, "(4H + 4(b-1))(alpha + beta m/b), H = log2(P+1) - 1", P_BLOCKS)               \
  ALGO(allreduce, two_tree, "two-tree", 0,                                                         \
       "two in-order binary trees, each rank interior in one; reduce then broadcast pipelined, "   \
       "half the vector on each tree",                                                             \
       "Sanders, Speck, Traff, Parallel Computing 35(12), 2009; NCCL's double binary tree",        \
       "(4L + 4(b-1))(alpha + beta m/(2b)), L = ceil(log2 P)", P_BLOCKS)                           \
  ALGO(allreduce, ring, "ring", TUTTI_ALGO_COMMUTATIVE,                                            \
       "ring reduce-scatter of P blocks, then ring allgather (bandwidth-optimal)",                 \
       "Patarasuk, Yuan, JPDC 69(2), 2009", "2(P-1)(alpha + beta m/P) + (P-1) gamma m/P")          \
  ALGO(allreduce, recursive_doubling, "recursive-doubling", TUTTI_ALGO_COMMUTATIVE,                \
       "whole vectors exchanged with rank XOR 2^k, log2 P steps (a fold for non-powers of two)",   \
       "Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005",                                          \
       "log2(p')(alpha + beta m + gamma m) [+ 2(alpha + beta m) + gamma m]")                       \
  ALGO(allreduce, rabenseifner, "rabenseifner", TUTTI_ALGO_COMMUTATIVE,                            \
       "recursive-halving reduce-scatter, recursive-doubling allgather (a fold for non-powers "    \
       "of two)",                                                                                  \
       "R. Rabenseifner, ICCS 2004; Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005",              \
       "2 log2(p') alpha + (p'-1)/p' (2 beta + gamma) m [+ 2(alpha + beta m) + gamma m]")          \
  ALGO(allreduce, hierarchical, "hierarchical", 0,                                                 \
       "intra reduce to each host's leader, inter allreduce among the leaders, intra broadcast",   \
       SRC_HAN, "inter's on P without hosts; ceil(log2 c)(2 ai + 2 bi m) + the leaders' on H",     \
       P_LEVEL(inter, allreduce_words, 8, 0, TUTTI_PARAM_AUTO_DEFAULT, INTER_HELP),                \
       P_LEVEL(intra, reduce_words, 5, 2, 0, INTRA_HELP " (its reduce, then its bcast)"))          \
  ALGO(allreduce, auto, "auto", 0,                                                                 \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. ceil(log2 P)(alpha + beta m)")        \
                                                                                                   \
  TREE(barrier, "lambda-tree", lambda, 0,                                                          \
       "empty reduce to rank 0 on the lambda-tree, then an empty broadcast", SRC_BI,               \
       "2 T_1(P) alpha", P_LAMBDA)                                                                 \
  TREE(barrier, "flat", flat, 0, "every rank reports to rank 0, which then releases each in turn", \
       SRC_PVM, "2 (P-1) alpha")                                                                   \
  TREE(barrier, "binomial", binomial, 0,                                                           \
       "empty reduce to rank 0 on the binomial tree, then an empty broadcast", SRC_MPICH,          \
       "2 ceil(log2 P) alpha")                                                                     \
  TREE(barrier, "postal-optimal", postal, 0,                                                       \
       "empty reduce, then empty broadcast, on the postal-optimal tree of latency L", SRC_BK,      \
       "2 T_1(P) alpha", P_L)                                                                      \
  ALGO(barrier, dissemination, "dissemination", 0,                                                 \
       "round r: send to i + j k^r, receive from i - j k^r, j < k (circulant graph)", SRC_HFM,     \
       "sum_r min(k-1, ceil(P/k^r)-1) alpha; ceil(log2 P) alpha for k = 2", P_K)                   \
  ALGO(barrier, recursive_doubling, "recursive-doubling", 0,                                       \
       "butterfly: exchange with v XOR 2^r; extra ranks fold onto 0..P-P'-1",                      \
       "E. D. Brooks III, \"The butterfly barrier\", IJPP 15(4), 1986",                            \
       "log2 P alpha; (floor(log2 P) + 2) alpha if P is not a power of two")                       \
  ALGO(barrier, tournament, "tournament", 0,                                                       \
       "statically assigned winners v mod 2^(r+1) = 0, then a release tree (binomial)", SRC_HFM,   \
       "2 ceil(log2 P) alpha")                                                                     \
  ALGO(barrier, fibonacci, "fibonacci", 0,                                                         \
       "step t: send to i + F(t+L-1), the postal numbers of latency L; f_L(P) postal steps",       \
       SRC_BBHKS, "(f_L(P) - L + 1) alpha; ceil(log2 P) alpha for L = 1", P_L)                     \
  ALGO(barrier, hierarchical, "hierarchical", 0,                                                   \
       "each host intra, the leaders inter, each host intra again", SRC_HAN,                       \
       "inter's on P without hosts; 4 ceil(log2 c) ai + ceil(log2 H) ae (the defaults)",           \
       P_LEVEL(inter, barrier_words, 8, 4, 0, INTER_HELP),                                         \
       P_LEVEL(intra, barrier_words, 8, 2, 0, INTRA_HELP))                                         \
  ALGO(barrier, auto, "auto", 0,                                                                   \
       "the barrier above of least estimated time for the run's model and P (closed forms)",       \
       "collectives/barrier_auto.c", "the least of the others', e.g. ceil(log2 P) alpha")          \
                                                                                                   \
  ALGO(allgather, ring, "ring", 0,                                                                 \
       "P-1 steps: pass the block received last to the right neighbour (bandwidth-optimal)",       \
       "Patarasuk, Yuan, JPDC 69(2), 2009; Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005",       \
       "(P-1)(alpha + beta m)")                                                                    \
  ALGO(allgather, recursive_doubling, "recursive-doubling", TUTTI_ALGO_POW2,                       \
       "log2 P steps: exchange the group's blocks with rank XOR 2^k, the group doubles",           \
       "Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005, sec. 4.1",                                \
       "log2(P) alpha + (P-1) beta m")                                                             \
  ALGO(allgather, bruck, "bruck", 0,                                                               \
       "ceil(log2 P) rounds on any P: send what you hold to rank - 2^k, then rotate locally",      \
       SRC_BRUCK, "ceil(log2 P) alpha + (P-1) beta m")                                             \
                                                                                                   \
  ALGO(reduce_scatter, ring, "ring", TUTTI_ALGO_COMMUTATIVE,                                       \
       "P-1 steps: combine the block from the left, pass it right; rank i ends with block i",      \
       "Patarasuk, Yuan, JPDC 69(2), 2009", "(P-1)(alpha + beta m + gamma m)")                     \
  ALGO(reduce_scatter, recursive_halving, "recursive-halving", TUTTI_ALGO_COMMUTATIVE,             \
       "exchange half the blocks with rank XOR 2^k, log2 P steps (a fold for non-powers of two)",  \
       "Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005, sec. 4.5",                                \
       "log2(p') alpha + (P-1)(beta + gamma) m [+ 2 alpha + (P+1) beta m + P gamma m, unequal "    \
       "halves]")                                                                                  \
  ALGO(alltoall, pairwise, "pairwise", 0,                                                          \
       "P-1 exchanges: with rank XOR s on powers of two, else to rank + s and from rank - s",      \
       "Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005, sec. 4.7", "(P-1)(alpha + beta m)")       \
  ALGO(alltoall, linear, "linear", 0,                                                              \
       "post every receive and send at once, then wait for them all",                              \
       "Open MPI coll/base (basic_linear)",                                                        \
       "3(P-1)(alpha + beta m) for P > 2: ports serve the messages in the order posted")           \
  ALGO(alltoall, bruck, "bruck", 0,                                                                \
       "ceil(log2 P) rounds: the blocks whose slot has bit 2^k set go to rank + 2^k, packed",      \
       SRC_BRUCK,                                                                                  \
       "sum_k (alpha + n_k beta m), n_k = #{i < P: bit k of i set}; log2(P)(alpha + "              \
       "beta m P/2) for P a power of two")                                                         \
  ALGO(alltoall, ring, "ring", 0,                                                                  \
       "P-1 steps on every P: send to rank + s, receive from rank - s (SMPI's ring)",              \
       "SimGrid SMPI alltoall-ring; Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005",              \
       "(P-1)(alpha + beta m)")                                                                    \
                                                                                                   \
  ALGO(scan, linear, "linear", 0,                                                                  \
       "a chain in rank order: receive the prefix, combine your own on the right, pass it on",     \
       "Open MPI coll/basic (scan_intra)", "(P-1)(alpha + beta m + gamma m)")                      \
  ALGO(scan, recursive_doubling, "recursive-doubling", 0,                                          \
       "round k: send your window to rank + 2^k, put rank - 2^k's on its left (Hillis-Steele)",    \
       SRC_HS, "ceil(log2 P)(alpha + beta m + gamma m)")                                           \
  ALGO(scan, binomial, "binomial", 0,                                                              \
       "up-sweep and down-sweep on the binomial tree in rank order (Blelloch, Brent-Kung)",        \
       SRC_BLELLOCH, "<= (2 ceil(log2 P) - 1)(alpha + beta m + gamma m)")                          \
  ALGO(exscan, linear, "linear", 0,                                                                \
       "a chain in rank order: the prefix received is the result; combine yours, pass it on",      \
       "Open MPI coll/basic (exscan_intra)", "(P-1)(alpha + beta m) + (P-2) gamma m")              \
  ALGO(exscan, recursive_doubling, "recursive-doubling", 0,                                        \
       "Hillis-Steele's rounds, the windows received kept apart from your own as the result",      \
       SRC_HS, "ceil(log2 P)(alpha + beta m) + up to (2 ceil(log2 P) - 1) gamma m")                \
  ALGO(exscan, binomial, "binomial", 0,                                                            \
       "the binomial up-sweep and down-sweep, what is received kept apart as the result",          \
       SRC_BLELLOCH, "<= (2 ceil(log2 P) - 1)(alpha + beta m + 2 gamma m)")                        \
  ALGO(allgather, auto, "auto", 0,                                                                 \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. ceil(log2 P) alpha + (P-1) beta m")   \
  ALGO(reduce_scatter, auto, "auto", TUTTI_ALGO_COMMUTATIVE,                                       \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. (P-1)(alpha + beta m + gamma m)")     \
  ALGO(alltoall, auto, "auto", 0,                                                                  \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. (P-1)(alpha + beta m)")               \
  ALGO(scan, auto, "auto", 0,                                                                      \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c",                                                                       \
       "the least of the others', e.g. ceil(log2 P)(alpha + beta m + gamma m)")                    \
  ALGO(exscan, auto, "auto", 0,                                                                    \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c",                                                                       \
       "the least of the others', e.g. (P-1)(alpha + beta m) + (P-2) gamma m")

/* The enum of a collective named in lower case, for the list above. */
#define COLL_bcast TUTTI_COLL_BCAST
#define COLL_reduce TUTTI_COLL_REDUCE
#define COLL_allreduce TUTTI_COLL_ALLREDUCE
#define COLL_gather TUTTI_COLL_GATHER
#define COLL_scatter TUTTI_COLL_SCATTER
#define COLL_barrier TUTTI_COLL_BARRIER
#define COLL_allgather TUTTI_COLL_ALLGATHER
#define COLL_reduce_scatter TUTTI_COLL_REDUCE_SCATTER
#define COLL_alltoall TUTTI_COLL_ALLTOALL
#define COLL_scan TUTTI_COLL_SCAN
#define COLL_exscan TUTTI_COLL_EXSCAN

/* Pass 1: declare what each ALGO line's file defines. */
#define DECLARE_TREE(...)
#define DECLARE_ALGO(c, id, ...)                                                                   \
  tutti_##c##_fn tutti__##c##_##id;                                                                \
  tutti_cost_fn tutti__##c##_##id##_cost;                                                          \
  tutti_msgs_fn tutti__##c##_##id##_msgs;
TUTTI_ALGOS(DECLARE_TREE, DECLARE_ALGO)

/* Pass 2: the descriptions, as any algorithm's author writes one. NPARAMS
 * counts the P_* given (none is fine). */
#define NPARAMS(...)                                                                               \
  ((int)(sizeof((tutti_param_desc_t[]){{0}, ##__VA_ARGS__}) / sizeof(tutti_param_desc_t)) - 1)
#define ENTRY(c, nm, fn_, cost_fn_, msgs_fn_, tree_, restr, sum, src, cst, ...)                    \
  {.abi = TUTTI_ALGO_ABI,                                                                          \
   .coll = COLL_##c,                                                                               \
   .name = nm,                                                                                     \
   .fn.c = fn_,                                                                                    \
   .tree = tree_,                                                                                  \
   .nparams = NPARAMS(__VA_ARGS__),                                                                \
   .params = (const tutti_param_desc_t[]){{0}, ##__VA_ARGS__} + 1,                                 \
   .params_size = sizeof(tutti_params_t),                                                          \
   .restrictions = restr,                                                                          \
   .summary = sum,                                                                                 \
   .source = src,                                                                                  \
   .cost = cst,                                                                                    \
   .cost_fn = cost_fn_,                                                                            \
   .msgs_fn = msgs_fn_},
#define ENTRY_TREE(c, nm, kind, ...) ENTRY(c, nm, NULL, NULL, NULL, #kind, __VA_ARGS__)
#define ENTRY_ALGO(c, id, nm, ...)                                                                 \
  ENTRY(c, nm, tutti__##c##_##id, tutti__##c##_##id##_cost, tutti__##c##_##id##_msgs, NULL,        \
        __VA_ARGS__)
static const tutti_algo_desc_t builtins[] = {TUTTI_ALGOS(ENTRY_TREE, ENTRY_ALGO)};
#define NBUILTINS ((int)(sizeof builtins / sizeof *builtins))
_Static_assert(NBUILTINS > 0, "the registry is empty");

/* Each collective's default: the classic binomial tree where there is one
 * (optimal under Hockney, where latency and sending cost are equal). */
static const char *const defaults[TUTTI_COLL_N] = {
    [TUTTI_COLL_BCAST] = "binomial",
    [TUTTI_COLL_REDUCE] = "binomial",
    [TUTTI_COLL_ALLREDUCE] = "reduce-bcast",
    [TUTTI_COLL_GATHER] = "binomial",
    [TUTTI_COLL_SCATTER] = "binomial",
    [TUTTI_COLL_BARRIER] = "lambda-tree",
    /* Bruck: never slower than the ring under Hockney, on any P; the ring
     * reduce-scatter: bandwidth-optimal on any P (halving folds) */
    [TUTTI_COLL_ALLGATHER] = "bruck",
    [TUTTI_COLL_REDUCE_SCATTER] = "ring",
    /* the fewest bytes on any P (Bruck's fewer start-ups win only for
     * small blocks: `auto` weighs both); Hillis-Steele: the fewest rounds */
    [TUTTI_COLL_ALLTOALL] = "pairwise",
    [TUTTI_COLL_SCAN] = "recursive-doubling",
    [TUTTI_COLL_EXSCAN] = "recursive-doubling",
};

/* ------------------------------------------------------------ collectives */

static const struct {
  const char *name, *env;
} colls[TUTTI_COLL_N] = {
#define X(e, name, env, ...) {name, env},
    TUTTI_COLL_MAP(X)
#undef X
};

const char *tutti_coll_name(int coll) {
  return coll >= 0 && coll < TUTTI_COLL_N ? colls[coll].name : "invalid";
}

int tutti_coll_find(const char *name, int *coll) {
  if (!name || !coll) return TUTTI_EINVAL;
  for (int i = 0; i < TUTTI_COLL_N; i++)
    if (!strcmp(name, colls[i].name)) return *coll = i, 0;
  return TUTTI_ENOTFOUND;
}

const char *tutti__coll_env(int coll) {
  return coll >= 0 && coll < TUTTI_COLL_N ? colls[coll].env : NULL;
}

unsigned tutti_coll_traits(int coll) {
  static const unsigned traits[TUTTI_COLL_N] = {
#define X(e, name, env, tr, what) tr,
      TUTTI_COLL_MAP(X)
#undef X
  };
  return coll >= 0 && coll < TUTTI_COLL_N ? traits[coll] : 0;
}

const char *tutti_coll_summary(int coll) {
  static const char *const what[TUTTI_COLL_N] = {
#define X(e, name, env, tr, text) text,
      TUTTI_COLL_MAP(X)
#undef X
  };
  return coll >= 0 && coll < TUTTI_COLL_N ? what[coll] : "";
}

/* ------------------------------------------------------------ the registry */

#define MAX_ALGOS 4096
static struct tutti__entry *entries[MAX_ALGOS];
static int nentries; /* published with release once entries[nentries-1] is whole */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The shape parameters a tree algorithm may declare, by name and type
 * (register_check.c), each as tutti's own TREE lines declare it: the ranges of
 * a bare tree kind's parameter too (tutti_tree_kind_param). */
const tutti_param_desc_t tutti__tree_params[TUTTI__TP_N] = {
    [TUTTI__TP_LAMBDA] = P_LAMBDA,
    [TUTTI__TP_L] = P_L,
    [TUTTI__TP_K] = P_K,
    [TUTTI__TP_SEGMENT] = P_SEGMENT,
};

const tutti_param_desc_t *tutti_tree_kind_param(int kind) {
  switch (kind) {
  case TUTTI_TREE_LAMBDA:
    return &tutti__tree_params[TUTTI__TP_LAMBDA];
  case TUTTI_TREE_POSTAL:
    return &tutti__tree_params[TUTTI__TP_L];
  case TUTTI_TREE_KNOMIAL:
    return &tutti__tree_params[TUTTI__TP_K];
  default:
    return NULL;
  }
}

static const struct tutti__entry *find_locked(int n, int coll, const char *name) {
  for (int i = 0; i < n; i++)
    if (entries[i]->d.coll == coll && !strcmp(entries[i]->d.name, name)) return entries[i];
  return NULL;
}

/* Register n descriptions from `origin`, all or none, holding the lock:
 * tutti's own static table (builtin 1), or copies (tutti__desc_dup) the
 * entries keep. */
static int register_locked(const tutti_algo_desc_t *const *d, int n, const char *origin,
                           int builtin, char *err, size_t errlen) {
  int base = nentries, rc = 0;
  if (base + n > MAX_ALGOS) {
    tutti__errf(err, errlen, "the registry is full (%d algorithms)", MAX_ALGOS);
    return TUTTI_ENOMEM;
  }
  int made = 0;
  for (; made < n && !rc; made++) {
    struct tutti__entry *e = calloc(1, sizeof *e);
    if (!e) {
      tutti__errf(err, errlen, "out of memory");
      rc = TUTTI_ENOMEM;
      break;
    }
    entries[base + made] = e;
    if ((rc = tutti__desc_into(d[made], e, err, errlen))) {
      made++;
      break;
    }
    const struct tutti__entry *twin = find_locked(base + made, e->d.coll, e->d.name);
    if (twin) {
      tutti__errf(err, errlen,
                  "%s '%s' is registered already (%s); accepted: a name %s does not have",
                  tutti_coll_name(e->d.coll), e->d.name, twin->origin, tutti_coll_name(e->d.coll));
      rc = TUTTI_EINVAL;
      made++;
      break;
    }
    e->origin = origin;
    e->builtin = builtin;
    e->index = base + made;
    char doing[256];
    snprintf(doing, sizeof doing, "%s '%s' (%s%s)", tutti_coll_name(e->d.coll), e->d.name,
             origin[0] == '/' ? "plugin " : "", origin);
    e->doing = builtin ? NULL : strdup(doing);
    if (!builtin && !e->doing) {
      tutti__errf(err, errlen, "out of memory");
      rc = TUTTI_ENOMEM;
      made++;
      break;
    }
  }
  if (rc) { /* none of them: only copies were made, nothing was published */
    for (int i = 0; i < made; i++) {
      free((char *)entries[base + i]->doing);
      free(entries[base + i]);
      entries[base + i] = NULL;
    }
    return rc;
  }
  __atomic_store_n(&nentries, base + n, __ATOMIC_RELEASE);
  return 0;
}

static void register_builtins(void) {
  const tutti_algo_desc_t *d[NBUILTINS];
  char err[512];
  for (int i = 0; i < NBUILTINS; i++) d[i] = &builtins[i];
  pthread_mutex_lock(&lock);
  int rc = register_locked(d, NBUILTINS, "built-in", 1, err, sizeof err);
  pthread_mutex_unlock(&lock);
  if (rc) { /* the table itself is wrong: tests/test_unit_registry.c */
    fprintf(stderr, "tutti: a built-in algorithm does not register: %s\n", err);
    abort();
  }
}

static inline int count(void) {
  pthread_once(&once, register_builtins);
  return __atomic_load_n(&nentries, __ATOMIC_ACQUIRE);
}

int tutti__register_all(const tutti_algo_desc_t *const *d, int n, const char *origin, char *err,
                        size_t errlen) {
  count();
  pthread_mutex_lock(&lock);
  int rc = register_locked(d, n, origin, 0, err, errlen);
  pthread_mutex_unlock(&lock);
  return rc;
}

int tutti_algo_register(const tutti_algo_desc_t *d, char *err, size_t errlen) {
  tutti_algo_desc_t *c;
  if (!d) {
    tutti__errf(err, errlen, "no algorithm description given");
    return TUTTI_EINVAL;
  }
  if (tutti__desc_dup(d, &c)) {
    tutti__errf(err, errlen, "out of memory");
    return TUTTI_ENOMEM;
  }
  const tutti_algo_desc_t *one = c;
  int rc = tutti__register_all(&one, 1, "registered by the program", err, errlen);
  if (rc)
    tutti__desc_free(c);
  else
    free(c); /* the entry holds its strings and words now, not the copy itself */
  return rc;
}

/* ----------------------------------------------------------------- lookup */

const tutti_algo_desc_t *tutti_algo_desc_at(int i) {
  return i >= 0 && i < count() ? &entries[i]->d : NULL;
}

const struct tutti__entry *tutti__entry_of(const tutti_algo_desc_t *d) {
  int n = count();
  for (int i = 0; d && i < n; i++)
    if (&entries[i]->d == d) return entries[i];
  return NULL;
}

const char *tutti_algo_origin(const tutti_algo_desc_t *d) {
  const struct tutti__entry *e = tutti__entry_of(d);
  return e ? e->origin : NULL;
}

int tutti_algo_builtin(const tutti_algo_desc_t *d) {
  const struct tutti__entry *e = tutti__entry_of(d);
  return e && e->builtin;
}

const tutti_algo_desc_t *tutti_algo_desc_find(int coll, const char *name) {
  int n = count();
  if (!name) return NULL;
  for (int i = 0; i < n; i++)
    if (entries[i]->d.coll == coll && !strcmp(entries[i]->d.name, name)) return &entries[i]->d;
  return NULL;
}

const tutti_algo_desc_t *tutti_algo_desc_default(int coll) {
  if (coll < 0 || coll >= TUTTI_COLL_N) return NULL;
  const tutti_algo_desc_t *d = defaults[coll] ? tutti_algo_desc_find(coll, defaults[coll]) : NULL;
  for (int i = 0; !d && tutti_algo_desc_at(i); i++) /* no default named: the collective's first */
    if (entries[i]->d.coll == coll) d = &entries[i]->d;
  return d;
}

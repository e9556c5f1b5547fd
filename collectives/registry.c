/*
 * registry.c -- THE list of every algorithm (coll.h): collective, name,
 * function or tree, parameters with defaults and ranges, restrictions,
 * summary, source and Hockney cost (text and function). The CLI, the
 * tests, the README's table and the help enumerate it with
 * tutti_algo_desc_at(); adding an algorithm is adding one line to
 * TUTTI_ALGOS below (and, unless it is a tree, its own file).
 *
 * Selection: an explicit name, else the collective's environment variable
 * (TUTTI_BCAST=lambda-tree:lambda=0.7), else the collective's default (the
 * `defaults` list below). A name matches
 * exactly, or as an unambiguous leading part ending at a '-' of a
 * registered name: "lambda" is "lambda-tree", "postal" "postal-optimal".
 *
 * Parameter values: REAL and INT as C numbers, SIZE as tutti_parse_size
 * ("8KiB"), CHOICE as one of its words ("dfs"; a word ending in ':' takes a
 * rank list, "list:0,2,1,3", whose commas do not end the value), and
 * "auto" where the parameter allows it (the algorithm then
 * chooses per run, from the model: bit set in is_auto, NAN or
 * TUTTI_PARAM_AUTO in the typed field). Values are parsed once, here,
 * into the algorithm's typed tutti_params_t, which is what it reads. Ranges
 * are inclusive; lambda's upper bound is the double just below 1 and is
 * shown as "[0.5, 1)".
 *
 * Everything here is a pure lookup on constant data: any thread, any time.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "tutti/coll.h"
#include "tutti/units.h"

/* ------------------------------------------------------------ parameters */

/* Each parameter is declared once here and named by any number of
 * algorithms; its field in tutti_params_t receives the parsed value. */
static const char *const order_words[] = {"rank", "dfs", "list:", NULL}; /* tutti_chain_order */
static const char *const allgather_words[] = {"ring", "recursive-doubling", NULL};
static int check_segments(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes,
                          char *err, size_t errlen);
static int check_order(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes, char *err,
                       size_t errlen);
static int check_allgather(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes,
                           char *err, size_t errlen);
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
    "L", TUTTI_PARAM_INT, NAN, 1, 4096, TUTTI_PARAM_AUTO_OK | TUTTI_PARAM_AUTO_DEFAULT,            \
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
    "segments", TUTTI_PARAM_INT, NAN, 1, 1 << 30, TUTTI_PARAM_AUTO_OK | TUTTI_PARAM_AUTO_DEFAULT,  \
        "cut the message into this many segments (at most its bytes); auto: "                      \
        "sqrt((P-2) beta m / alpha) from the model, the better of its floor and ceiling",          \
        FIELD(segments), NULL, check_segments                                                      \
  }
#define P_ORDER                                                                                    \
  {                                                                                                \
    "order", TUTTI_PARAM_CHOICE, TUTTI_ORDER_RANK, 0, 2, 0,                                        \
        "the chain: rank order from the root, the topology's contention-free DFS chain "           \
        "(rank order without one), or an explicit list starting at the root",                      \
        FIELD(order), order_words, check_order                                                     \
  }
#define P_ALLGATHER                                                                                \
  {                                                                                                \
    "allgather", TUTTI_PARAM_CHOICE, TUTTI_ALLGATHER_RING, 0, 1, 0,                                \
        "the second phase: ring (any P), or recursive doubling (a power of two; other P run "      \
        "the ring, with a note)",                                                                  \
        FIELD(allgather), allgather_words, check_allgather                                         \
  }

#define P_BLOCKS                                                                                   \
  {                                                                                                \
    "blocks", TUTTI_PARAM_INT, NAN, 1, 1 << 30, TUTTI_PARAM_AUTO_OK | TUTTI_PARAM_AUTO_DEFAULT,    \
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
 *   TREE(coll, "name", KIND, restrictions, summary, source, cost, params...)
 *     a tree algorithm: the collective's generic tree mover (engine.h) on
 *     tree.h's TUTTI_TREE_KIND, its Hockney cost from the tree itself
 *     (tree_cost.c); nothing else to write.
 *   ALGO(coll, id, "name", restrictions, summary, source, cost, params...)
 *     any other algorithm: one file defining tutti__<coll>_<id> and its
 *     cost function tutti__<coll>_<id>_cost (declared by this list).
 *
 * params: P_* above, at most TUTTI_MAX_PARAMS. Order within a collective
 * is the order of `tutti list` and the suite. */
#define TUTTI_ALGOS(TREE, ALGO)                                                                    \
  TREE(bcast, "flat", FLAT, 0, "the root sends to every other rank in turn", SRC_PVM,              \
       "(P-1)(alpha + beta m)")                                                                    \
  TREE(bcast, "binary", BINARY, 0, "heap-ordered binary tree, optionally pipelined in segments",   \
       "Open MPI coll/base (bintree)", "<= 2 floor(log2 P)(alpha + beta m)", P_SEGMENT)            \
  TREE(bcast, "binomial", BINOMIAL, 0,                                                             \
       "binomial tree, farthest child first, optionally pipelined", SRC_MPICH,                     \
       "ceil(log2 P)(alpha + beta m)", P_SEGMENT)                                                  \
  TREE(bcast, "lambda-tree", LAMBDA, 0,                                                            \
       "the source keeps a share lambda of its set and hands the rest to one leader", SRC_BI,      \
       "T_1(P)(alpha + beta m); ceil(log2 P) at lambda = 0.5", P_LAMBDA, P_SEGMENT)                \
  TREE(bcast, "postal-optimal", POSTAL, 0,                                                         \
       "the optimal tree of the postal model of latency L (f_L(P) steps)", SRC_BK,                 \
       "T_1(P)(alpha + beta m); ceil(log2 P) for L = 1", P_L, P_SEGMENT)                           \
  ALGO(bcast, pipelined_chain, "pipelined-chain", 0,                                               \
       "a chain from the root, the message in S segments: each rank forwards one while it "        \
       "receives the next",                                                                        \
       SRC_PFY, "(S + P - 2)(alpha + beta m/S), best S = sqrt((P-2) beta m / alpha)", P_SEGMENTS,  \
       P_SEGMENT, P_ORDER)                                                                         \
  ALGO(bcast, scatter_allgather, "scatter-allgather", 0,                                           \
       "binomial scatter of one block per rank, then an allgather of the blocks", SRC_VDG,         \
       "(ceil(log2 P) + P - 1) alpha + 2 ((P-1)/P) beta m (ring)", P_ALLGATHER)                    \
  ALGO(bcast, auto, "auto", 0,                                                                     \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. ceil(log2 P)(alpha + beta m)")        \
                                                                                                   \
  TREE(reduce, "flat", FLAT, 0, "every rank sends to the root, which combines in rank order",      \
       SRC_PVM, "(P-1)(alpha + beta m + gamma m)")                                                 \
  TREE(reduce, "binary", BINARY, TUTTI_ALGO_COMMUTATIVE,                                           \
       "heap-ordered binary tree (subtrees are not rank ranges)", "Open MPI coll/base (bintree)",  \
       "<= 2 floor(log2 P)(alpha + beta m + gamma m)", P_SEGMENT)                                  \
  TREE(reduce, "binomial", BINOMIAL, 0, "binomial tree, children combined in rank order",          \
       SRC_MPICH, "ceil(log2 P)(alpha + beta m + gamma m)", P_SEGMENT)                             \
  TREE(reduce, "lambda-tree", LAMBDA, 0,                                                           \
       "the lambda-tree broadcast reversed: receive from children, reduce, send to parent",        \
       SRC_BI, "T_1(P)(alpha + beta m + gamma m); ceil(log2 P) at lambda = 0.5", P_LAMBDA,         \
       P_SEGMENT)                                                                                  \
  TREE(reduce, "postal-optimal", POSTAL, 0, "the postal-optimal broadcast tree reversed", SRC_BK,  \
       "T_1(P)(alpha + beta m + gamma m)", P_L, P_SEGMENT)                                         \
  ALGO(reduce, auto, "auto", 0,                                                                    \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. ceil(log2 P)(alpha + beta m)")        \
                                                                                                   \
  TREE(gather, "flat", FLAT, 0, "every rank sends its block to the root", SRC_PVM,                 \
       "(P-1)(alpha + beta b)")                                                                    \
  TREE(gather, "binomial", BINOMIAL, 0,                                                            \
       "binomial tree; each rank forwards its subtree's blocks in one message", SRC_MPICH,         \
       "ceil(log2 P) alpha + (P-1) beta b")                                                        \
  TREE(gather, "lambda-tree", LAMBDA, 0,                                                           \
       "lambda-tree; each rank forwards its subtree's blocks in one message", SRC_BI,              \
       "T_1(P) alpha + ~(P-1) beta b", P_LAMBDA)                                                   \
  ALGO(gather, auto, "auto", 0,                                                                    \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. ceil(log2 P)(alpha + beta m)")        \
                                                                                                   \
  TREE(scatter, "flat", FLAT, 0, "the root sends every rank its block", SRC_PVM,                   \
       "(P-1)(alpha + beta b)")                                                                    \
  TREE(scatter, "binomial", BINOMIAL, 0,                                                           \
       "binomial tree; each rank gets its subtree's blocks in one message", SRC_MPICH,             \
       "ceil(log2 P) alpha + (P-1) beta b")                                                        \
  TREE(scatter, "lambda-tree", LAMBDA, 0,                                                          \
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
  ALGO(allreduce, auto, "auto", 0,                                                                 \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. ceil(log2 P)(alpha + beta m)")        \
                                                                                                   \
  TREE(barrier, "lambda-tree", LAMBDA, 0,                                                          \
       "empty reduce to rank 0 on the lambda-tree, then an empty broadcast", SRC_BI,               \
       "2 T_1(P) alpha", P_LAMBDA)                                                                 \
  TREE(barrier, "flat", FLAT, 0, "every rank reports to rank 0, which then releases each in turn", \
       SRC_PVM, "2 (P-1) alpha")                                                                   \
  TREE(barrier, "binomial", BINOMIAL, 0,                                                           \
       "empty reduce to rank 0 on the binomial tree, then an empty broadcast", SRC_MPICH,          \
       "2 ceil(log2 P) alpha")                                                                     \
  TREE(barrier, "postal-optimal", POSTAL, 0,                                                       \
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
  ALGO(allgather, auto, "auto", 0,                                                                 \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. ceil(log2 P) alpha + (P-1) beta m")   \
  ALGO(reduce_scatter, auto, "auto", TUTTI_ALGO_COMMUTATIVE,                                       \
       "the rule of the run's rules file, else the one above of least Hockney cost at this size",  \
       "collectives/auto.c", "the least of the others', e.g. (P-1)(alpha + beta m + gamma m)")

/* The enum of a collective named in lower case, for the list above. */
#define COLL_bcast TUTTI_COLL_BCAST
#define COLL_reduce TUTTI_COLL_REDUCE
#define COLL_allreduce TUTTI_COLL_ALLREDUCE
#define COLL_gather TUTTI_COLL_GATHER
#define COLL_scatter TUTTI_COLL_SCATTER
#define COLL_barrier TUTTI_COLL_BARRIER
#define COLL_allgather TUTTI_COLL_ALLGATHER
#define COLL_reduce_scatter TUTTI_COLL_REDUCE_SCATTER

/* Pass 1: declare what each ALGO line's file defines. */
#define DECLARE_TREE(...)
#define DECLARE_ALGO(c, id, ...)                                                                   \
  tutti_##c##_fn tutti__##c##_##id;                                                                \
  tutti_cost_fn tutti__##c##_##id##_cost;
TUTTI_ALGOS(DECLARE_TREE, DECLARE_ALGO)

/* Pass 2: the table. NPARAMS counts the P_* given (none is fine). */
#define NPARAMS(...)                                                                               \
  ((int)(sizeof((tutti_param_desc_t[]){{0}, ##__VA_ARGS__}) / sizeof(tutti_param_desc_t)) - 1)
#define ENTRY(c, nm, fn_, cost_fn_, tree_, restr, sum, src, cst, ...)                              \
  {.coll = COLL_##c,                                                                               \
   .name = nm,                                                                                     \
   .fn.c = fn_,                                                                                    \
   .nparams = NPARAMS(__VA_ARGS__),                                                                \
   .params = {__VA_ARGS__},                                                                        \
   .restrictions = restr,                                                                          \
   .summary = sum,                                                                                 \
   .source = src,                                                                                  \
   .cost = cst,                                                                                    \
   .cost_fn = cost_fn_,                                                                            \
   .tree = tree_},
#define ENTRY_TREE(c, nm, kind, ...)                                                               \
  ENTRY(c, nm, tutti__##c##_tree, tutti__##c##_tree_cost, TUTTI_TREE_##kind, __VA_ARGS__)
#define ENTRY_ALGO(c, id, nm, ...)                                                                 \
  ENTRY(c, nm, tutti__##c##_##id, tutti__##c##_##id##_cost, -1, __VA_ARGS__)
static const tutti_algo_desc_t table[] = {TUTTI_ALGOS(ENTRY_TREE, ENTRY_ALGO)};
#define NALGOS ((int)(sizeof table / sizeof *table))
_Static_assert(NALGOS > 0, "the registry is empty");

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

/* ----------------------------------------------------------------- lookup */

const tutti_algo_desc_t *tutti_algo_desc_at(int i) {
  return i >= 0 && i < NALGOS ? &table[i] : NULL;
}

const tutti_algo_desc_t *tutti_algo_desc_find(int coll, const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < NALGOS; i++)
    if (table[i].coll == coll && !strcmp(table[i].name, name)) return tutti_algo_desc_at(i);
  return NULL;
}

const tutti_algo_desc_t *tutti_algo_desc_default(int coll) {
  if (coll < 0 || coll >= TUTTI_COLL_N) return NULL;
  const tutti_algo_desc_t *d = defaults[coll] ? tutti_algo_desc_find(coll, defaults[coll]) : NULL;
  for (int i = 0; !d && i < NALGOS; i++) /* no default named: the collective's first */
    if (table[i].coll == coll) d = &table[i];
  return d;
}

static int desc_index(const tutti_algo_desc_t *d) {
  for (int i = 0; i < NALGOS; i++)
    if (d == &table[i]) return i;
  return -1;
}

/* Exact name, else the one name that starts with `name` followed by '-'. */
static const tutti_algo_desc_t *find_name(int coll, const char *name, size_t len) {
  const tutti_algo_desc_t *hit = NULL;
  int nhits = 0;
  for (int i = 0; i < NALGOS; i++) {
    if (table[i].coll != coll || strncmp(table[i].name, name, len)) continue;
    if (table[i].name[len] == '\0') return tutti_algo_desc_at(i);
    if (table[i].name[len] == '-') hit = tutti_algo_desc_at(i), nhits++;
  }
  return nhits == 1 ? hit : NULL;
}

/* ----------------------------------------------------------------- errors */

static void errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void errf(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || !errlen) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

static void fmt_num(double x, char *buf, size_t n) {
  tutti_format_shortest(x, buf, n);
}

int tutti_param_range(const tutti_param_desc_t *p, char *buf, size_t n) {
  if (!p || !buf || !n) return TUTTI_EINVAL;
  if (p->type == TUTTI_PARAM_CHOICE) { /* "one of rank, dfs, list:R,R,..." */
    size_t used = (size_t)snprintf(buf, n, "one of ");
    for (int w = 0; p->choices && p->choices[w] && used < n; w++) {
      const char *word = p->choices[w];
      int colon = word[strlen(word) - 1] == ':';
      used += (size_t)snprintf(buf + used, n - used, "%s%s%s", w ? ", " : "", word,
                               colon ? "R,R,... (ranks or ranges a-b)" : "");
    }
    return 0;
  }
  char lo[32], hi[32], up[32];
  fmt_num(p->min, lo, sizeof lo);
  if (isinf(p->max)) {
    snprintf(buf, n, ">= %s", lo);
    return 0;
  }
  fmt_num(p->max, hi, sizeof hi);
  fmt_num(nextafter(p->max, INFINITY), up, sizeof up);
  /* an upper bound that is the double just below a short number is shown
   * as that number, open: lambda's [0.5, 1) */
  if (strlen(hi) > 12 && strlen(up) <= 6)
    snprintf(buf, n, "in [%s, %s)", lo, up);
  else
    snprintf(buf, n, "in [%s, %s]", lo, hi);
  return 0;
}

/* "a number in [0.5, 1) or auto" */
static void fmt_accepted(const tutti_param_desc_t *p, char *buf, size_t n) {
  char range[80];
  if (p->type == TUTTI_PARAM_CHOICE) {
    tutti_param_range(p, buf, n);
    return;
  }
  tutti_param_range(p, range, sizeof range);
  const char *what = p->type == TUTTI_PARAM_REAL  ? "a number"
                     : p->type == TUTTI_PARAM_INT ? "an integer"
                                                  : "a size in bytes (e.g. 8KiB)";
  snprintf(buf, n, "%s %s%s", what, range, p->flags & TUTTI_PARAM_AUTO_OK ? " or auto" : "");
}

static void list_names(int coll, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < NALGOS && used < n; i++) {
    if (table[i].coll != coll) continue;
    int k = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", table[i].name);
    if (k < 0) break;
    used += (size_t)k;
  }
}

static void list_params(const tutti_algo_desc_t *d, char *buf, size_t n) {
  size_t used = 0;
  if (d->nparams == 0) {
    snprintf(buf, n, "none (%s takes no parameters)", d->name);
    return;
  }
  buf[0] = '\0';
  for (int i = 0; i < d->nparams && used < n; i++) {
    int k = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", d->params[i].name);
    if (k < 0) break;
    used += (size_t)k;
  }
}

/* ------------------------------------------------------------ rank lists */

/* A rank list "0,2-5,9-7" (spaces ignored): writes its ranks in order to
 * out[0..cap) and returns how many there are (also past cap), or -1 when
 * it is not such a list. Ranks are 0..2^30; a range a-b runs down when
 * a > b. */
long tutti__rank_list(const char *list, int *out, long cap) {
  long n = 0;
  const char *s = list;
  if (!s) return -1;
  for (;;) {
    long a, b;
    char *end;
    while (*s == ' ') s++;
    if (*s < '0' || *s > '9') return -1;
    a = strtol(s, &end, 10);
    s = end;
    while (*s == ' ') s++;
    b = a;
    if (*s == '-') {
      s++;
      while (*s == ' ') s++;
      if (*s < '0' || *s > '9') return -1;
      b = strtol(s, &end, 10);
      s = end;
      while (*s == ' ') s++;
    }
    if (a > 1L << 30 || b > 1L << 30) return -1;
    /* written up to cap, counted past it: a range of 2^30 costs nothing */
    long step = a <= b ? 1 : -1, len = (b - a) * step + 1, room = cap - n;
    long take = room <= 0 ? 0 : room < len ? room : len;
    for (long j = 0; j < take; j++) out[n + j] = (int)(a + j * step);
    n += len;
    if (!*s) return n;
    if (*s++ != ',') return -1;
  }
}

/* -------------------------------------------------------------- selection */

static int param_find(const tutti_algo_desc_t *d, const char *key, size_t len) {
  for (int i = 0; i < d->nparams; i++)
    if (strlen(d->params[i].name) == len && !strncmp(d->params[i].name, key, len)) return i;
  return -1;
}

/* Parse one value: 0, or TUTTI_EINVAL with the message. */
static int parse_value(const char *who, const tutti_param_desc_t *p, const char *v, tutti_algo_t *a,
                       int i, char *err, size_t errlen) {
  char acc[160];
  fmt_accepted(p, acc, sizeof acc);
  if (!strcmp(v, "auto")) {
    if (!(p->flags & TUTTI_PARAM_AUTO_OK)) {
      errf(err, errlen, "%s: parameter '%s' does not take auto; accepted: %s", who, p->name, acc);
      return TUTTI_EINVAL;
    }
    a->value[i] = NAN;
    a->is_auto |= 1u << i;
    return 0;
  }
  double x;
  char *end = NULL;
  errno = 0;
  if (p->type == TUTTI_PARAM_CHOICE) {
    for (int w = 0; p->choices[w]; w++) {
      const char *word = p->choices[w];
      size_t wl = strlen(word);
      if (word[wl - 1] != ':') {
        if (strcmp(v, word)) continue;
        a->p.list[0] = '\0';
      } else {
        if (strncmp(v, word, wl)) continue;
        /* the rank list, kept without spaces (the canonical spelling) */
        char list[TUTTI_PARAM_LIST_MAX];
        size_t k = 0;
        for (const char *c = v + wl; *c; c++)
          if (*c != ' ' && k + 1 < sizeof list) list[k++] = *c;
        list[k] = '\0';
        if (strlen(v + wl) >= sizeof list) {
          errf(err, errlen,
               "%s: parameter '%s': the list is too long (%zu characters); accepted: at most %d "
               "(ranges a-b shorten it)",
               who, p->name, strlen(v + wl), TUTTI_PARAM_LIST_MAX - 1);
          return TUTTI_EINVAL;
        }
        if (tutti__rank_list(list, NULL, 0) < 0) goto bad;
        memcpy(a->p.list, list, k + 1);
      }
      a->value[i] = w;
      a->is_auto &= ~(1u << i);
      return 0;
    }
    goto bad;
  }
  if (p->type == TUTTI_PARAM_SIZE) {
    size_t sz;
    if (tutti_parse_size(v, &sz, NULL, 0)) goto bad;
    /* cut to 2^63: a size near SIZE_MAX rounds up to 2^64 as a double, which
     * no later conversion back could hold; no message is that large, so the
     * segmenting is the same */
    x = sz > (size_t)1 << 63 ? 0x1p63 : (double)sz;
  } else if (p->type == TUTTI_PARAM_INT) {
    long long k = strtoll(v, &end, 10);
    if (end == v || *end || errno) goto bad;
    x = (double)k;
  } else {
    x = strtod(v, &end);
    if (end == v || *end || !isfinite(x)) goto bad;
  }
  if (!(x >= p->min && x <= p->max)) {
    errf(err, errlen, "%s: parameter '%s': '%s' is out of range; accepted: %s", who, p->name, v,
         acc);
    return TUTTI_EINVAL;
  }
  a->value[i] = x;
  a->is_auto &= ~(1u << i);
  return 0;
bad:
  errf(err, errlen, "%s: parameter '%s': '%s' is not valid; accepted: %s", who, p->name, v, acc);
  return TUTTI_EINVAL;
}

/* Apply "k=v,k=v" (spaces around keys and values are ignored). `seen`
 * catches a key given twice, also across the name's list and params. */
static int apply_params(const char *who, const char *list, tutti_algo_t *a, unsigned *seen,
                        char *err, size_t errlen) {
  const tutti_algo_desc_t *d = a->desc;
  char item[TUTTI_PARAM_LIST_MAX + 64], names[160];
  for (const char *s = list; s && *s;) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    /* A value with a ':' (a choice word and its rank list, order=list:0,2,1)
     * goes on through the pieces after it that hold no '=' and are not empty. */
    const char *eq0 = memchr(s, '=', len);
    if (eq0 && memchr(eq0, ':', len - (size_t)(eq0 - s)))
      while (comma && comma[1] && comma[1] != ',') {
        const char *c2 = strchr(comma + 1, ',');
        size_t l2 = c2 ? (size_t)(c2 - comma - 1) : strlen(comma + 1);
        if (memchr(comma + 1, '=', l2)) break;
        comma = c2;
        len = comma ? (size_t)(comma - s) : strlen(s);
      }
    if (len >= sizeof item) {
      errf(err, errlen, "%s: parameter list item too long: '%.40s...'", who, s);
      return TUTTI_EINVAL;
    }
    memcpy(item, s, len);
    item[len] = '\0';
    s = comma ? comma + 1 : s + len;
    char *k = item, *eq = strchr(item, '=');
    while (*k == ' ') k++;
    if (!*k && !comma) break; /* a trailing comma or an empty list */
    list_params(d, names, sizeof names);
    if (!eq) {
      errf(err, errlen, "%s: '%s' is not key=value; accepted keys: %s", who, k, names);
      return TUTTI_EINVAL;
    }
    char *ke = eq, *v = eq + 1;
    while (ke > k && ke[-1] == ' ') ke--;
    while (*v == ' ') v++;
    for (char *ve = v + strlen(v); ve > v && ve[-1] == ' ';) *--ve = '\0';
    int i = param_find(d, k, (size_t)(ke - k));
    if (i < 0) {
      errf(err, errlen, "%s: unknown parameter '%.*s'; accepted: %s", who, (int)(ke - k), k, names);
      return TUTTI_EINVAL;
    }
    if (*seen >> i & 1u) {
      errf(err, errlen, "%s: parameter '%s' given twice", who, d->params[i].name);
      return TUTTI_EINVAL;
    }
    *seen |= 1u << i;
    int rc = parse_value(who, &d->params[i], v, a, i, err, errlen);
    if (rc) return rc;
  }
  return 0;
}

/* The typed values a's parameters stand for: parsed once, at selection. */
static tutti_params_t typed(const tutti_algo_t *a) {
  tutti_params_t p = TUTTI_PARAMS_DEFAULT;
  for (int i = 0; i < a->desc->nparams; i++) {
    const tutti_param_desc_t *d = &a->desc->params[i];
    int is_auto = a->is_auto >> i & 1u;
    char *f = (char *)&p + d->offset;
    if (d->type == TUTTI_PARAM_CHOICE)
      *(long *)f = (long)a->value[i];
    else if (d->type == TUTTI_PARAM_REAL)
      *(double *)f = is_auto ? NAN : a->value[i];
    else if (d->type == TUTTI_PARAM_INT)
      *(long *)f = is_auto ? TUTTI_PARAM_AUTO : (long)a->value[i];
    else /* at most 2^63: parse_value cut it */
      *(size_t *)f = is_auto ? SIZE_MAX : (size_t)a->value[i];
  }
  memcpy(p.list, a->p.list, sizeof p.list); /* parse_value's, the one text value */
  return p;
}

int tutti_algo_select(int coll, const char *name, const char *params, tutti_algo_t *out, char *err,
                      size_t errlen) {
  if (!out) {
    errf(err, errlen, "no output algorithm given");
    return TUTTI_EINVAL;
  }
  if (coll < 0 || coll >= TUTTI_COLL_N) {
    char all[128] = "";
    for (int i = 0; i < TUTTI_COLL_N; i++)
      snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "", colls[i].name);
    errf(err, errlen, "unknown collective %d; accepted: %s", coll, all);
    return TUTTI_ENOTFOUND;
  }
  const char *from = NULL; /* the environment variable the name came from */
  if (!name || !*name) {
    const char *env = getenv(colls[coll].env);
    if (env && *env) name = env, from = colls[coll].env;
  }
  tutti_algo_t a = {0};
  const char *nparams = NULL;
  char who[160];
  if (!name || !*name) {
    a.desc = tutti_algo_desc_default(coll);
    if (!a.desc) {
      errf(err, errlen, "no %s algorithm is registered", colls[coll].name);
      return TUTTI_ENOTFOUND;
    }
  } else {
    const char *colon = strchr(name, ':');
    size_t len = colon ? (size_t)(colon - name) : strlen(name);
    nparams = colon ? colon + 1 : NULL;
    a.desc = find_name(coll, name, len);
    if (!a.desc) {
      char names[256];
      list_names(coll, names, sizeof names);
      if (from)
        errf(err, errlen, "%s='%s': unknown %s algorithm '%.*s'; accepted: %s", from, name,
             colls[coll].name, (int)len, name, names);
      else
        errf(err, errlen, "unknown %s algorithm '%.*s'; accepted: %s", colls[coll].name, (int)len,
             name, names);
      return TUTTI_ENOTFOUND;
    }
  }
  if (from)
    snprintf(who, sizeof who, "%s='%s': %s '%s'", from, name, colls[coll].name, a.desc->name);
  else
    snprintf(who, sizeof who, "%s '%s'", colls[coll].name, a.desc->name);
  for (int i = 0; i < a.desc->nparams; i++) {
    const tutti_param_desc_t *p = &a.desc->params[i];
    a.value[i] = p->def;
    if (p->flags & TUTTI_PARAM_AUTO_DEFAULT) a.value[i] = NAN, a.is_auto |= 1u << i;
  }
  unsigned seen = 0;
  int rc = apply_params(who, nparams, &a, &seen, err, errlen);
  if (!rc) rc = apply_params(who, params, &a, &seen, err, errlen);
  if (rc) return rc;
  a.p = typed(&a);
  *out = a;
  if (err && errlen) err[0] = '\0';
  return 0;
}

double tutti_algo_param(const tutti_algo_t *a, const char *name) {
  if (!a || !a->desc || !name) return NAN;
  int i = param_find(a->desc, name, strlen(name));
  if (i < 0 || (a->is_auto >> i & 1u)) return NAN;
  return a->value[i];
}

/* An algorithm value as the registry would have made it: a registered
 * desc, every value in range or auto where allowed. */
static int algo_valid(const tutti_algo_t *a, char *err, size_t errlen) {
  if (!a || !a->desc || desc_index(a->desc) < 0) {
    errf(err, errlen, "not an algorithm of the registry (use tutti_algo_select)");
    return TUTTI_EINVAL;
  }
  const tutti_algo_desc_t *d = a->desc;
  for (int i = 0; i < d->nparams; i++) {
    const tutti_param_desc_t *p = &d->params[i];
    int ok = a->is_auto >> i & 1u ? (p->flags & TUTTI_PARAM_AUTO_OK) != 0
                                  : a->value[i] >= p->min && a->value[i] <= p->max;
    if (!ok) {
      char acc[160];
      fmt_accepted(p, acc, sizeof acc);
      errf(err, errlen, "%s '%s': parameter '%s' has an invalid value; accepted: %s",
           tutti_coll_name(d->coll), d->name, p->name, acc);
      return TUTTI_EINVAL;
    }
  }
  tutti_params_t want = typed(a); /* no padding: a bitwise compare is exact */
  if (memcmp(&want, &a->p, sizeof want)) {
    errf(err, errlen,
         "%s '%s': its typed parameters disagree with its values (use tutti_algo_select)",
         tutti_coll_name(d->coll), d->name);
    return TUTTI_EINVAL;
  }
  return 0;
}
_Static_assert(sizeof(tutti_params_t) ==
                   sizeof(double) + 6 * sizeof(long) + sizeof(size_t) + TUTTI_PARAM_LIST_MAX,
               "tutti_params_t must have no padding (algo_valid compares it bitwise)");

int tutti_algo_check(const tutti_algo_t *a, int nranks, tutti_op_t op, char *err, size_t errlen) {
  int rc = tutti_algo_check_call(a, nranks, -1, SIZE_MAX, op, err, errlen);
  if (!rc && err && errlen) err[0] = '\0'; /* no notes here */
  return rc;
}

int tutti_algo_check_call(const tutti_algo_t *a, int nranks, int root, size_t bytes, tutti_op_t op,
                          char *err, size_t errlen) {
  int rc = algo_valid(a, err, errlen);
  if (rc) return rc;
  const tutti_algo_desc_t *d = a->desc;
  if (nranks < 1) {
    errf(err, errlen, "%d ranks: a world has at least one", nranks);
    return TUTTI_EINVAL;
  }
  if ((d->restrictions & TUTTI_ALGO_POW2) && (nranks & (nranks - 1))) {
    errf(err, errlen, "%s '%s' needs a power-of-two number of ranks, not %d",
         tutti_coll_name(d->coll), d->name, nranks);
    return TUTTI_ENOTSUP;
  }
  if (op && (d->restrictions & TUTTI_ALGO_COMMUTATIVE)) {
    int c = tutti_op_commutative(op);
    if (c < 0) {
      errf(err, errlen, "invalid reduction op");
      return TUTTI_EOP;
    }
    if (!c) {
      errf(err, errlen, "%s '%s' needs a commutative op; '%s' is not (choose another algorithm)",
           tutti_coll_name(d->coll), d->name, tutti_op_name(op));
      return TUTTI_ENOTSUP;
    }
  }
  if (root >= nranks) {
    errf(err, errlen, "root %d is not a rank of 0..%d", root, nranks - 1);
    return TUTTI_EINVAL;
  }
  /* a check that passes may leave a note (a fallback) in err */
  if (err && errlen) err[0] = '\0';
  for (int i = 0; i < d->nparams; i++)
    if (d->params[i].check && (rc = d->params[i].check(a, i, nranks, root, bytes, err, errlen)))
      return rc;
  return 0;
}

/* Sizes in the largest binary unit that divides them: 8KiB, 1000. */
static void fmt_size(double x, char *buf, size_t n) {
  static const char *const units[] = {"", "KiB", "MiB", "GiB", "TiB"};
  uint64_t v = (uint64_t)x;
  int u = 0;
  while (u < 4 && v && v % 1024 == 0) v /= 1024, u++;
  snprintf(buf, n, "%llu%s", (unsigned long long)v, units[u]);
}

int tutti_algo_format(const tutti_algo_t *a, char *buf, size_t n) {
  if (!buf || !n) return TUTTI_EINVAL;
  buf[0] = '\0';
  if (!a || !a->desc) return TUTTI_EINVAL;
  const tutti_algo_desc_t *d = a->desc;
  size_t used = (size_t)snprintf(buf, n, "%s", d->name);
  for (int i = 0; i < d->nparams && used < n; i++) {
    char v[TUTTI_PARAM_LIST_MAX + 32];
    tutti_algo_param_text(a, i, v, sizeof v);
    used += (size_t)snprintf(buf + used, n - used, "%c%s=%s", i ? ',' : ':', d->params[i].name, v);
  }
  return used < n ? 0 : TUTTI_EINVAL; /* TUTTI_EINVAL: truncated */
}

int tutti_algo_param_text(const tutti_algo_t *a, int i, char *buf, size_t n) {
  if (!buf || !n) return TUTTI_EINVAL;
  buf[0] = '\0';
  if (!a || !a->desc || i < 0 || i >= a->desc->nparams) return TUTTI_EINVAL;
  const tutti_param_desc_t *p = &a->desc->params[i];
  int k;
  if (a->is_auto >> i & 1u) {
    k = snprintf(buf, n, "auto");
  } else if (p->type == TUTTI_PARAM_CHOICE) {
    const char *word = p->choices[(int)a->value[i]];
    k = snprintf(buf, n, "%s%s", word, word[strlen(word) - 1] == ':' ? a->p.list : "");
  } else {
    char v[48];
    if (p->type == TUTTI_PARAM_SIZE)
      fmt_size(a->value[i], v, sizeof v);
    else
      fmt_num(a->value[i], v, sizeof v);
    k = snprintf(buf, n, "%s", v);
  }
  return k >= 0 && (size_t)k < n ? 0 : TUTTI_EINVAL;
}

/* ---------------------------------------------------- per-call checks */

static int check_segments(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes,
                          char *err, size_t errlen) {
  (void)nranks, (void)root;
  const tutti_algo_desc_t *d = a->desc;
  long S = a->p.segments;
  if (S == TUTTI_PARAM_AUTO) return 0;
  if (a->p.segment) {
    errf(err, errlen,
         "%s '%s': both segments=%ld and segment=%zu given; accepted: one of them (segment "
         "sets the segments' size, segments their number)",
         tutti_coll_name(d->coll), d->name, S, a->p.segment);
    return TUTTI_EINVAL;
  }
  /* an empty message is one empty message, whatever S */
  if (bytes != SIZE_MAX && bytes > 0 && (size_t)S > bytes) {
    errf(err, errlen,
         "%s '%s': parameter '%s': %ld segments of a %zu-byte message; accepted: 1..%zu "
         "(whole bytes) or auto",
         tutti_coll_name(d->coll), d->name, d->params[i].name, S, bytes, bytes);
    return TUTTI_EINVAL;
  }
  return 0;
}

static int check_order(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes, char *err,
                       size_t errlen) {
  (void)bytes;
  if (a->p.order != TUTTI_ORDER_LIST) return 0;
  const tutti_algo_desc_t *d = a->desc;
  const char *who = tutti_coll_name(d->coll), *nm = d->params[i].name;
  char acc[96];
  snprintf(acc, sizeof acc, "a permutation of the ranks 0..%d starting at the root", nranks - 1);
  long n = tutti__rank_list(a->p.list, NULL, 0);
  if (n != nranks) {
    errf(err, errlen, "%s '%s': %s=list:%.60s%s has %ld ranks for a world of %d; accepted: %s", who,
         d->name, nm, a->p.list, strlen(a->p.list) > 60 ? "..." : "", n, nranks, acc);
    return TUTTI_EINVAL;
  }
  int *order = malloc((size_t)nranks * sizeof *order);
  unsigned char *seen = calloc((size_t)nranks, 1);
  int rc = 0;
  if (!order || !seen) {
    errf(err, errlen, "out of memory");
    rc = TUTTI_ENOMEM;
    goto out;
  }
  tutti__rank_list(a->p.list, order, nranks);
  for (int k = 0; k < nranks && !rc; k++) {
    if (order[k] >= nranks) {
      errf(err, errlen, "%s '%s': %s=list: %d is not a rank of 0..%d; accepted: %s", who, d->name,
           nm, order[k], nranks - 1, acc);
      rc = TUTTI_EINVAL;
    } else if (seen[order[k]]++) {
      errf(err, errlen, "%s '%s': %s=list: rank %d appears twice; accepted: %s", who, d->name, nm,
           order[k], acc);
      rc = TUTTI_EINVAL;
    }
  }
  if (!rc && root >= 0 && order[0] != root) {
    errf(err, errlen, "%s '%s': %s=list starts at rank %d, not at the root %d; accepted: %s", who,
         d->name, nm, order[0], root, acc);
    rc = TUTTI_EINVAL;
  }
out:
  free(order);
  free(seen);
  return rc;
}

/* Not an error: recursive doubling on a P that is not a power of two runs
 * the ring, and says so. */
static int check_allgather(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes,
                           char *err, size_t errlen) {
  (void)root, (void)bytes;
  if (a->p.allgather == TUTTI_ALLGATHER_RECDBL && (nranks & (nranks - 1)))
    errf(err, errlen,
         "%s '%s': %s=recursive-doubling needs a power-of-two number of ranks; %d ranks run the "
         "ring allgather instead",
         tutti_coll_name(a->desc->coll), a->desc->name, a->desc->params[i].name, nranks);
  return 0;
}

double tutti_algo_cost(const tutti_algo_t *a, int P, int root, size_t m, const tutti_hockney_t *h,
                       int *bound) {
  int b = 0;
  double t = NAN;
  if (!algo_valid(a, NULL, 0) && a->desc->cost_fn && h && P >= 1 && root >= 0 && root < P)
    t = a->desc->cost_fn(a, P, root, m, h, &b);
  if (bound) *bound = b;
  return t;
}

int tutti_algo_treespec(const tutti_algo_t *a, int L_auto, tutti_treespec_t *spec) {
  if (!a || !a->desc || a->desc->tree < 0 || !spec) return TUTTI_EINVAL;
  *spec = tutti_treespec_default(a->desc->tree);
  if (L_auto < 1) L_auto = 1;
  spec->lambda = isnan(a->p.lambda) ? tutti_lambda_auto_postal(L_auto) : a->p.lambda;
  spec->L = a->p.L == TUTTI_PARAM_AUTO ? L_auto : (int)a->p.L;
  spec->k = (int)a->p.k;
  return tutti_tree_check(spec);
}

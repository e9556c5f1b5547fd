/*
 * tree.h -- pure tree builders for tree-based collectives.
 *
 * Every rank derives its own parent and children from (rank, size, root,
 * parameters) alone, by repeating the construction from the top: O(depth)
 * work, no messaging, no global state, no whole-tree table. The functions
 * here may be called from any thread at any time; they share nothing.
 *
 * Ranks are relative to the root inside a builder: v = (rank - root) mod size.
 * tutti_tree_node takes and returns absolute ranks; tutti_tree_subtree
 * returns a range of relative ranks. In every kind a parent's relative rank
 * is below its children's, so relative order 0..size-1 is a top-down order.
 *
 * Errors are p2p.h's negative TUTTI_E* codes: TUTTI_EINVAL (bad spec or
 * size, NULL pointer), TUTTI_ERANK (rank or root outside [0, size)),
 * TUTTI_ENOTSUP, TUTTI_ENOTFOUND, TUTTI_ENOMEM, TUTTI_EIO.
 *
 * This header is self-contained: tutti.h includes it.
 */
#ifndef TUTTI_TREE_H
#define TUTTI_TREE_H

#include <stddef.h>
#include <stdio.h>

#include "tutti/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, "name", contiguous, "help"): one list feeds the enum, the name
 * lookup and the help text. contiguous: every subtree is a contiguous range
 * of relative ranks (what gather and scatter need to move one block). */
#define TUTTI_TREE_KIND_MAP(X)                                                                     \
  X(FLAT, "flat", 1, "the root sends to every rank, 1..n-1 in order")                              \
  X(CHAIN, "chain", 1, "each rank sends to the next: v -> v+1")                                    \
  X(BINARY, "binary", 0, "heap-ordered binary tree: v -> 2v+1, then 2v+2")                         \
  X(BINOMIAL, "binomial", 1, "binomial tree: v -> v + 2^j, j decreasing")                          \
  X(KNOMIAL, "knomial", 1, "k-nomial tree of radix k (k = 2 is binomial)")                         \
  X(LAMBDA, "lambda", 1, "lambda-tree: the source keeps a share lambda of its set (Bernaschi)")    \
  X(POSTAL, "postal", 1, "optimal broadcast tree of the postal model of latency L (Bar-Noy)")

enum tutti_tree_kind {
#define TUTTI_X_TREE_ENUM(name, str, contig, help) TUTTI_TREE_##name,
  TUTTI_TREE_KIND_MAP(TUTTI_X_TREE_ENUM)
#undef TUTTI_X_TREE_ENUM
      TUTTI_TREE_NKINDS
};

/* A tree shape. Fields a kind does not use are ignored (not validated).
 *   k       knomial radix, >= 2
 *   lambda  lambda-tree share kept by the source, in [0.5, 1)
 *   L       postal latency in send times, >= 1 */
typedef struct tutti_treespec {
  int kind; /* enum tutti_tree_kind */
  int k;
  double lambda;
  int L;
} tutti_treespec_t;

#define TUTTI_TREE_DEFAULT_K 2
#define TUTTI_TREE_DEFAULT_LAMBDA 0.6 /* the paper's value */
#define TUTTI_TREE_DEFAULT_L 2        /* the latency 0.6 approximates best */

/* A spec of `kind` with every parameter at its default. */
TUTTI_API tutti_treespec_t tutti_treespec_default(int kind);

/* 0 if spec is valid, else TUTTI_EINVAL. */
TUTTI_API int tutti_tree_check(const tutti_treespec_t *spec);

/* The kind's name ("lambda"); "invalid" for an unknown kind. */
TUTTI_API const char *tutti_tree_kind_name(int kind);
/* A one-line description of the kind; "invalid" for an unknown kind. */
TUTTI_API const char *tutti_tree_kind_help(int kind);
/* Look a kind up by its exact name: 0, or TUTTI_ENOTFOUND (TUTTI_EINVAL for
 * NULL arguments). Valid names: tutti_tree_kind_name(0..TUTTI_TREE_NKINDS-1). */
TUTTI_API int tutti_tree_kind_find(const char *name, int *kind);
/* 1 if every subtree of this kind is a contiguous relative range, 0 if not,
 * TUTTI_EINVAL for an unknown kind. */
TUTTI_API int tutti_tree_contiguous(int kind);

/*
 * tutti_tree_node: the parent and children of `rank` in the tree of `size`
 * ranks rooted at `root`.
 *
 * *parent gets the parent's absolute rank, -1 for the root. children[0..]
 * get the children's absolute ranks in send order (a broadcast sends to
 * children[0] first; a reduce that receives in reverse send order combines
 * lower relative ranks last). At most maxchildren are written; *nchildren
 * always gets the true count, so maxchildren = 0 (children may then be NULL)
 * queries it. parent and nchildren may be NULL when not wanted.
 * Time: O(depth + the rank's degree) for flat, chain, binomial, knomial
 * and postal with L >= size-1; lambda: O(depth * (size (1 - lambda) + 1)
 * * log size) at most, the runs of splits that give away the same number
 * of ranks taken at once (one split at a time for lambda within 2^-21 of
 * 1); postal with 1 < L < size-1: O(L + f(size)), its Fibonacci window.
 * No allocation except for postal with 64 < L < size-1.
 */
TUTTI_API int tutti_tree_node(const tutti_treespec_t *spec, int rank, int size, int root,
                              int *parent, int *children, int maxchildren, int *nchildren);

/*
 * tutti_tree_subtree: the subtree of `rank` as the relative range
 * [*lo, *lo + *count), for kinds whose subtrees are contiguous
 * (tutti_tree_contiguous); TUTTI_ENOTSUP for binary. The root's is [0, size).
 */
TUTTI_API int tutti_tree_subtree(const tutti_treespec_t *spec, int rank, int size, int root,
                                 int *lo, int *count);

/* tutti_tree_subtree_size: the number of ranks in `rank`'s subtree (itself
 * included), for every kind. */
TUTTI_API int tutti_tree_subtree_size(const tutti_treespec_t *spec, int rank, int size, int root,
                                      int *count);

/* ------------------------------------------------------- postal model helpers
 *
 * The postal model (Bar-Noy & Kipnis): a rank starts one send per time unit
 * and a message sent at time s arrives at s + L. F(t) is the number of ranks
 * a broadcast can reach by time t:
 *   F(t) = 1 for 0 <= t < L;  F(t) = F(t-1) + F(t-L) for t >= L. */

/* F(t) for latency L; LONG_MAX when it does not fit. Negative error for
 * L < 1 or t < 0 (TUTTI_EINVAL), or TUTTI_ENOMEM. O(t) time, O(L) memory. */
TUTTI_API long tutti_postal_F(int L, int t);

/* The optimal broadcast time f(n) = min{t : F(t) >= n} for n >= 1 ranks
 * (f(1) = 0). TUTTI_EINVAL for L < 1, n < 1 or a time above INT_MAX;
 * TUTTI_ENOMEM. O(f(n)) time, O(min(L, n)) memory. */
TUTTI_API int tutti_postal_f(int L, long n);

/* The lambda whose lambda-tree approximates the postal-optimal tree: the
 * limit F(t-1)/F(t), i.e. 1/x for the largest real root x of
 * x^L = x^(L-1) + 1. 0.5, 0.618..., 0.682..., 0.724... for L = 1..4.
 * Returns TUTTI_EINVAL (a negative value) for L < 1. */
TUTTI_API double tutti_lambda_auto_postal(int L);

/*
 * tutti_tree_postal_time: the postal-model time of a broadcast down the tree
 * of `size` ranks, latency L: a rank that received at time r starts its i-th
 * send (0-based) at r + i, arriving at r + i + L; the time is the last
 * arrival (0 for one rank). The root does not matter. O(size * depth) time,
 * O(size) memory.
 */
TUTTI_API int tutti_tree_postal_time(const tutti_treespec_t *spec, int size, int L, long *steps);

/*
 * tutti_tree_print: the whole tree of `size` ranks rooted at `root`, in
 * absolute ranks. dot = 0: an indented drawing like tree(1), children in
 * send order:
 *     0
 *     ├── 2
 *     │   └── 3
 *     └── 1
 * The drawing stops TUTTI_TREE_PRINT_DEPTH levels down: a rank there with
 * children gets one line "└── ... N more ranks below, not drawn (...)", so
 * the text is O(size * TUTTI_TREE_PRINT_DEPTH) bytes, not O(size^2) for a
 * chain. dot = 1: a Graphviz digraph of every edge, labelled with the send
 * order (1 = the parent's first send). TUTTI_EIO if writing fails. O(size)
 * memory; O(size log size) time for every kind (tutti_tree_node's).
 */
#define TUTTI_TREE_PRINT_DEPTH 64
TUTTI_API int tutti_tree_print(const tutti_treespec_t *spec, int size, int root, FILE *out,
                               int dot);

#ifdef __cplusplus
}
#endif
#endif /* TUTTI_TREE_H */

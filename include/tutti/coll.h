/*
 * coll.h -- collective operations and the algorithm registry.
 *
 * Every algorithm is one entry of one registry (collectives/registry.c):
 * collective, name, function, parameters with defaults and ranges,
 * restrictions, a one-line summary and its source. The CLI, the tests and
 * the help text enumerate it with tutti_algo_desc_at(); nothing else lists
 * algorithm names.
 *
 * Selection (tutti_algo_select): an explicit name; else the environment
 * variable of the collective (TUTTI_BCAST=lambda:lambda=0.7); else the
 * collective's documented default. An unknown name or parameter, a value out
 * of range, or a violated restriction is an error whose text lists what is
 * accepted.
 *
 * Calls: every rank of the world calls the same collective, in the same
 * order, with the same root, count and algorithm (as in MPI). Each call is
 * one span of the modeled-time report, named after the collective. Buffers
 * follow MPI: `TUTTI_IN_PLACE` as the send buffer of the root of reduce and
 * gather, or the receive buffer of the root of scatter.
 *
 * Threads: tutti_algo_* functions are pure lookups, callable from any
 * thread. The collectives are called from rank threads, like p2p calls.
 */
#ifndef TUTTI_COLL_H
#define TUTTI_COLL_H

#include <stddef.h>
#include <stdio.h>

#include "tutti/export.h"
#include "tutti/p2p.h"
#include "tutti/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TUTTI_IN_PLACE ((void *)1)

/* What a collective's calls take and do (tutti_coll_traits), so that
 * callers ask the registry instead of listing collectives by hand. */
enum tutti_coll_trait {
  TUTTI_COLL_ROOTED = 1u << 0,   /* takes a root */
  TUTTI_COLL_REDUCES = 1u << 1,  /* combines the ranks' data with an op (takes one) */
  TUTTI_COLL_BLOCKS = 1u << 2,   /* a buffer holds one block per rank: the root's, every rank's
                                    without a root (allgather's result, reduce_scatter's input) */
  TUTTI_COLL_DATA = 1u << 3,     /* moves data: takes buffers and a count */
  TUTTI_COLL_EXCHANGE = 1u << 4, /* both buffers hold one block per rank (alltoall) */
  TUTTI_COLL_PREFIX = 1u << 5,   /* rank i's result combines ranks 0..i (scan; exscan: 0..i-1) */
};

/* X(ENUM, "name", "environment variable", traits, "what it does") */
#define TUTTI_COLL_MAP(X)                                                                          \
  X(BCAST, "bcast", "TUTTI_BCAST", TUTTI_COLL_ROOTED | TUTTI_COLL_DATA,                            \
    "the root's buffer to every rank")                                                             \
  X(REDUCE, "reduce", "TUTTI_REDUCE", TUTTI_COLL_ROOTED | TUTTI_COLL_REDUCES | TUTTI_COLL_DATA,    \
    "combine every rank's buffer with an op, result at the root")                                  \
  X(ALLREDUCE, "allreduce", "TUTTI_ALLREDUCE", TUTTI_COLL_REDUCES | TUTTI_COLL_DATA,               \
    "combine every rank's buffer with an op, result at every rank")                                \
  X(GATHER, "gather", "TUTTI_GATHER", TUTTI_COLL_ROOTED | TUTTI_COLL_BLOCKS | TUTTI_COLL_DATA,     \
    "every rank's block to the root, in rank order")                                               \
  X(SCATTER, "scatter", "TUTTI_SCATTER", TUTTI_COLL_ROOTED | TUTTI_COLL_BLOCKS | TUTTI_COLL_DATA,  \
    "the root's i-th block to rank i")                                                             \
  X(BARRIER, "barrier", "TUTTI_BARRIER", 0, "no rank leaves before every rank has entered")        \
  X(ALLGATHER, "allgather", "TUTTI_ALLGATHER", TUTTI_COLL_BLOCKS | TUTTI_COLL_DATA,                \
    "every rank's block to every rank, in rank order")                                             \
  X(REDUCE_SCATTER, "reduce_scatter", "TUTTI_REDUCE_SCATTER",                                      \
    TUTTI_COLL_REDUCES | TUTTI_COLL_BLOCKS | TUTTI_COLL_DATA,                                      \
    "combine every rank's P blocks with an op, block i of the result at rank i")                   \
  X(ALLTOALL, "alltoall", "TUTTI_ALLTOALL",                                                        \
    TUTTI_COLL_BLOCKS | TUTTI_COLL_EXCHANGE | TUTTI_COLL_DATA,                                     \
    "every rank's i-th block to rank i, block j of the result from rank j")                        \
  X(SCAN, "scan", "TUTTI_SCAN", TUTTI_COLL_REDUCES | TUTTI_COLL_PREFIX | TUTTI_COLL_DATA,          \
    "rank i gets x_0 op x_1 op ... op x_i, in rank order")                                         \
  X(EXSCAN, "exscan", "TUTTI_EXSCAN", TUTTI_COLL_REDUCES | TUTTI_COLL_PREFIX | TUTTI_COLL_DATA,    \
    "rank i > 0 gets x_0 op ... op x_(i-1), in rank order; rank 0's result is left alone")

enum tutti_coll {
#define TUTTI_X_COLL(e, ...) TUTTI_COLL_##e,
  TUTTI_COLL_MAP(TUTTI_X_COLL)
#undef TUTTI_X_COLL
      TUTTI_COLL_N
};

TUTTI_API const char *tutti_coll_name(int coll);            /* "bcast"; "invalid" */
TUTTI_API int tutti_coll_find(const char *name, int *coll); /* 0 or TUTTI_ENOTFOUND */
TUTTI_API unsigned tutti_coll_traits(int coll);     /* enum tutti_coll_trait bits; 0 if invalid */
TUTTI_API const char *tutti_coll_summary(int coll); /* "the root's buffer to every rank"; "" */

/* ------------------------------------------------------------ parameters */

enum tutti_param_type {
  TUTTI_PARAM_REAL = 1, /* a number: lambda=0.6 (a double field) */
  TUTTI_PARAM_INT,      /* an integer: blocks=16, k=3 (a long field) */
  TUTTI_PARAM_SIZE,     /* bytes with units: segment=8KiB (a size_t field) */
  TUTTI_PARAM_CHOICE,   /* one word of the desc's `choices`: order=dfs (a long field: its index) */
};

#define TUTTI_PARAM_AUTO_OK 1u      /* the value "auto" is accepted (chosen per run) */
#define TUTTI_PARAM_AUTO_DEFAULT 2u /* the default is "auto" (def is then ignored) */

/* "auto" in a typed field: NAN in a double, TUTTI_PARAM_AUTO in a long,
 * SIZE_MAX in a size_t. */
#define TUTTI_PARAM_AUTO (-1)

/* The longest rank list a choice word ending in ':' takes
 * (order=list:...), with its terminating NUL; ranges a-b keep long chains
 * short (list:0-15,31-16). */
#define TUTTI_PARAM_LIST_MAX 512

typedef struct tutti_algo tutti_algo_t;

/* One parameter an algorithm declares: its name (letters, digits, '_'),
 * type, default, inclusive range and help. Ranges: max may be INFINITY; a
 * choice's are its words' indices (0 .. words - 1). */
typedef struct tutti_param_desc {
  const char *name;
  int type;             /* enum tutti_param_type */
  double def, min, max; /* default and inclusive range */
  unsigned flags;       /* TUTTI_PARAM_AUTO_OK, TUTTI_PARAM_AUTO_DEFAULT */
  const char *help;
  /* Where its typed value goes in the algorithm's own parameter struct
   * (tutti_algo_params), when the algorithm declares one (params_size >
   * 0): offsetof(struct my_params, k). Ignored otherwise. */
  size_t offset;
  /* TUTTI_PARAM_CHOICE: the accepted words, NULL-terminated; a word ending
   * in ':' takes a rank list after it (list:0,2,1,3 or ranges list:0-3,7-4),
   * read with tutti_param_list. NULL for the other types. */
  const char *const *choices;
  /* What the value allows for one call, beyond its range (NULL: nothing):
   * nranks ranks, root (-1: any), bytes per rank (SIZE_MAX: any). 0, or
   * TUTTI_EINVAL with a sentence in err (tutti_algo_check_call); a check
   * that passes may leave a note in err (a fallback the call takes). */
  int (*check)(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes, char *err,
               size_t errlen);
} tutti_param_desc_t;

#define TUTTI_MAX_PARAMS 16

/* A parameter's range for people and error texts: "in [0.5, 1)",
 * "in [1, 4096]", ">= 0" (an upper bound just below a short number is
 * shown open). 0, or TUTTI_EINVAL for a NULL argument. */
TUTTI_API int tutti_param_range(const tutti_param_desc_t *p, char *buf, size_t n);

/* ------------------------------------------------------------ the registry */

enum tutti_algo_restrict {
  TUTTI_ALGO_COMMUTATIVE = 1u << 0, /* reductions: commutative ops only */
  TUTTI_ALGO_POW2 = 1u << 1,        /* the number of ranks is a power of two */
};

/* The uniform signatures, one per collective. */
typedef int tutti_bcast_fn(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                           const tutti_algo_t *a);
typedef int tutti_reduce_fn(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                            tutti_datatype_t type, tutti_op_t op, int root, const tutti_algo_t *a);
typedef int tutti_allreduce_fn(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                               tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a);
typedef int tutti_gather_fn(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype,
                            void *rbuf, long rcount, tutti_datatype_t rtype, int root,
                            const tutti_algo_t *a);
typedef int tutti_scatter_fn(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype,
                             void *rbuf, long rcount, tutti_datatype_t rtype, int root,
                             const tutti_algo_t *a);
typedef int tutti_barrier_fn(tutti_rank_t *r, const tutti_algo_t *a);
typedef int tutti_allgather_fn(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                               tutti_datatype_t type, const tutti_algo_t *a);
typedef int tutti_reduce_scatter_fn(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                    tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a);
typedef int tutti_alltoall_fn(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                              tutti_datatype_t type, const tutti_algo_t *a);
typedef int tutti_scan_fn(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                          tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a);
typedef tutti_scan_fn tutti_exscan_fn;

/* Hockney's model: a message of m bytes costs alpha + beta m, reducing m
 * bytes gamma m (runtime/MODEL.md's hockney preset, all rendezvous). */
typedef struct tutti_hockney {
  double alpha, beta, gamma;
} tutti_hockney_t;

/* An algorithm's cost under Hockney, in seconds, for P ranks, `root`, and
 * m bytes per rank (the message of bcast/reduce/allreduce, each rank's
 * block of gather/scatter/allgather/reduce_scatter/alltoall, 0 for barrier). Sets
 * *bound to 1 when the value is only an upper bound for these arguments
 * (0: exact, equal to the modeled time of tutti's engine to rounding).
 * NAN: not defined here. Pure; any thread. */
typedef double tutti_cost_fn(const tutti_algo_t *a, int P, int root, size_t m,
                             const tutti_hockney_t *h, int *bound);

/* How many messages one call of the algorithm sends, all ranks together,
 * for the same arguments as its cost (h decides a parameter that is auto,
 * as the model's Hockney view does in a run: tutti_algo_hockney_view).
 * Exact under the Hockney preset, where the view is the model; NAN: not
 * known. What an estimate of a run's time and memory counts before it runs
 * (bench/CLI.md "Memory estimate"). Pure; any thread. */
typedef double tutti_msgs_fn(const tutti_algo_t *a, int P, int root, size_t m,
                             const tutti_hockney_t *h);

/* The version of tutti_algo_desc_t and of the plugin entry point
 * (plugin.h): an algorithm sets desc.abi to the TUTTI_ALGO_ABI of the
 * headers it was compiled against, and registration refuses any other. */
#define TUTTI_ALGO_ABI 5 /* 4: header, protocols; 5: msgs_fn */

/* An algorithm, as its author describes it. Built-ins and plugins alike
 * register one with tutti_algo_register; from then on it is enumerated
 * (tutti_algo_desc_at), selected by name with its parameters
 * (tutti_algo_select), validated and called like any other. */
typedef struct tutti_algo_desc {
  unsigned abi;     /* TUTTI_ALGO_ABI */
  int coll;         /* enum tutti_coll */
  const char *name; /* unique within its collective: letters, digits, '-', '_' */
  union {
    tutti_bcast_fn *bcast;
    tutti_reduce_fn *reduce;
    tutti_allreduce_fn *allreduce;
    tutti_gather_fn *gather;
    tutti_scatter_fn *scatter;
    tutti_barrier_fn *barrier;
    tutti_allgather_fn *allgather;
    tutti_reduce_scatter_fn *reduce_scatter;
    tutti_alltoall_fn *alltoall;
    tutti_scan_fn *scan;
    tutti_exscan_fn *exscan;
    void (*any)(void);
  } fn; /* NULL for a tree algorithm (tree below): the collective's tree mover runs it */
  /* A tree algorithm (bcast, reduce, gather, scatter, barrier): the name of
   * the tree kind it runs on (tree.h: "binomial", "knomial", ...), whose
   * shape parameters it may declare (lambda, L, k; and segment for bcast and
   * reduce); NULL for any other algorithm. */
  const char *tree;
  int nparams; /* 0 .. TUTTI_MAX_PARAMS */
  const tutti_param_desc_t *params;
  /* The size of the algorithm's own parameter struct, which selection fills
   * at each parameter's offset (tutti_algo_params); 0: none, the
   * algorithm reads its parameters by name (tutti_param_long, ...). */
  size_t params_size;
  unsigned restrictions;  /* enum tutti_algo_restrict */
  const char *summary;    /* its idea, one line */
  const char *source;     /* paper, figure, or who wrote it */
  const char *cost;       /* Hockney cost formula, one line (may be NULL) */
  tutti_cost_fn *cost_fn; /* the same as a function (may be NULL; a tree's is its tree's) */
  tutti_msgs_fn *msgs_fn; /* its message count (may be NULL; a tree's is its tree's) */
} tutti_algo_desc_t;

/* Register an algorithm. The description is copied (strings and
 * parameters too): d may go once this returns. Errors, with a sentence in
 * err naming what is wrong and what is accepted: TUTTI_EINVAL (another
 * ABI, an unknown collective or tree kind, a bad name, a name its
 * collective already has, no function and no tree, a parameter with a bad
 * name or type, min > max, a default out of range, a name given twice, an
 * offset outside params_size, unknown restriction bits, no summary),
 * TUTTI_ENOMEM. Nothing is registered on an error. Any thread; an
 * algorithm is never unregistered. */
TUTTI_API int tutti_algo_register(const tutti_algo_desc_t *d, char *err, size_t errlen);

/* The i-th registered algorithm (0, 1, ...: the built-ins in their
 * table's order, then the others as registered), NULL past the end. */
TUTTI_API const tutti_algo_desc_t *tutti_algo_desc_at(int i);
/* By collective and name, NULL if none. */
TUTTI_API const tutti_algo_desc_t *tutti_algo_desc_find(int coll, const char *name);
/* The default algorithm of a collective. */
TUTTI_API const tutti_algo_desc_t *tutti_algo_desc_default(int coll);
/* Where a registered algorithm comes from: "built-in", the real path of
 * the plugin file that registered it, or "registered by the program"
 * (tutti_algo_register); NULL for a description that is not registered. */
TUTTI_API const char *tutti_algo_origin(const tutti_algo_desc_t *d);
/* 1 if d is one of tutti's own algorithms, else 0. */
TUTTI_API int tutti_algo_builtin(const tutti_algo_desc_t *d);

/* ------------------------------------------------- a chosen algorithm */

/* A selected algorithm (tutti_algo_t, opaque) is an algorithm with its
 * parameter values. Handles are shared: selecting the same algorithm with
 * the same values gives the same handle, valid for the life of the
 * process; copy the pointer freely, never free it. Any thread. */

/* Choose an algorithm of `coll`: name NULL or "" means the environment
 * variable, else the default; params "k=v,k=v" (NULL or "" for none) may
 * also come after a ':' in the name or the variable ("lambda-tree:lambda=0.7").
 * A name that is a file (it holds a '/', or ends in ".c" or ".so") loads
 * that plugin (plugin.h, tutti_plugin_load) and selects its one algorithm
 * of coll. Errors: TUTTI_ENOTFOUND (unknown collective or algorithm; err
 * lists the valid names), TUTTI_EINVAL (unknown parameter, bad or
 * out-of-range value; err names it and what is accepted), a plugin's
 * errors. err may be NULL. */
TUTTI_API int tutti_algo_select(int coll, const char *name, const char *params,
                                const tutti_algo_t **out, char *err, size_t errlen);
/* The description of a selected algorithm (NULL for NULL). */
TUTTI_API const tutti_algo_desc_t *tutti_algo_desc(const tutti_algo_t *a);
/* Parameter values, by name or by the index the algorithm declared:
 * NAN for "auto" (the algorithm resolves it per run) and for a name or
 * index the algorithm does not have; a choice's value is its word's index. */
TUTTI_API double tutti_algo_param(const tutti_algo_t *a, const char *name);
TUTTI_API double tutti_algo_param_at(const tutti_algo_t *a, int i);
/* 1 if parameter i is "auto", else 0. */
TUTTI_API int tutti_algo_param_is_auto(const tutti_algo_t *a, int i);
/* The algorithm's own parameter struct (desc.params_size bytes, each
 * declared parameter at its offset), NULL when it declares none. */
TUTTI_API const void *tutti_algo_params(const tutti_algo_t *a);

/* An algorithm's reading of its own parameters by name, typed: a long
 * (INT; CHOICE: the word's index), a double (REAL), a size_t (SIZE);
 * "auto" as TUTTI_PARAM_AUTO, NAN and SIZE_MAX; any numeric parameter is
 * converted. tutti_param_list: the rank list after a choice word ending in
 * ':' ("0,2,1,3"), else "". Reading a name the algorithm does not declare
 * is a bug of the algorithm: on a rank inside a collective call the call
 * fails with TUTTI_ENOTFOUND and the run's error names the rank, the
 * algorithm, its plugin and the name; the value read is then 0 (NAN,
 * "") */
TUTTI_API long tutti_param_long(const tutti_algo_t *a, const char *name);
TUTTI_API double tutti_param_real(const tutti_algo_t *a, const char *name);
TUTTI_API size_t tutti_param_size(const tutti_algo_t *a, const char *name);
TUTTI_API const char *tutti_param_list(const tutti_algo_t *a, const char *name);

/* For an algorithm running a collective call on rank r: a block of `size`
 * bytes (at most 4 KiB) that the rank's plan of this call keeps -- zeroed
 * when the plan is made (the rank's first call with this collective,
 * algorithm, root, count, datatype and op), the same bytes on every later
 * such call -- for what the algorithm would otherwise work out again on
 * every call (its tree, its partners): tutti's own tree algorithms keep
 * their tree node in the plan so. Valid until the call returns (ask
 * again on the next call). NULL when no plan keeps it: outside a
 * collective call, in a collective an algorithm calls, above 4 KiB, out
 * of memory -- then work it out for this call. */
TUTTI_API void *tutti_plan_state(tutti_rank_t *r, size_t size);

/* Whether `a` may run on `nranks` ranks with `op` (NULL for non-reductions):
 * 0, or TUTTI_ENOTSUP with a sentence in err. */
TUTTI_API int tutti_algo_check(const tutti_algo_t *a, int nranks, tutti_op_t op, char *err,
                               size_t errlen);
/* tutti_algo_check, plus what the parameters allow for one call rooted at
 * `root` (-1: not checked) moving `bytes` bytes per rank (SIZE_MAX: not
 * checked): an explicit chain must be a permutation of the ranks starting
 * at the root, no more segments than bytes. The collectives call it when
 * they plan a call, before any message moves; the CLI before a run. 0, or
 * TUTTI_EINVAL / TUTTI_ENOTSUP with a sentence in err. On success err
 * holds a note when the call runs otherwise than asked (a fallback:
 * allgather=recursive-doubling on 12 ranks runs the ring), else "". */
TUTTI_API int tutti_algo_check_call(const tutti_algo_t *a, int nranks, int root, size_t bytes,
                                    tutti_op_t op, char *err, size_t errlen);
/* Parameter i of `a` as text, as tutti_algo_format writes it: "0.6",
 * "8KiB", "auto", "dfs", "list:0,2,1,3". 0, or TUTTI_EINVAL (bad
 * arguments, or truncated). */
TUTTI_API int tutti_algo_param_text(const tutti_algo_t *a, int i, char *buf, size_t n);
/* "lambda-tree:lambda=0.6" -- the canonical spelling, for reports. */
TUTTI_API int tutti_algo_format(const tutti_algo_t *a, char *buf, size_t n);
/* The registered Hockney cost of `a` (tutti_cost_fn) for P ranks, root and
 * m bytes per rank; *bound (may be NULL) says whether it is an upper bound.
 * NAN if a is invalid or has no cost function, P is outside 1 to
 * TUTTI_COST_MAX_RANKS (the rank limit of a world, world.h's
 * TUTTI_MAX_RANKS) or root outside 0 to P-1. Any m: the built-ins' costs
 * take bounded time and memory for every P and m accepted (a pipelined
 * allreduce's beyond a bounded replay is an upper bound, pipetree.h). */
#define TUTTI_COST_MAX_RANKS (1 << 20)
TUTTI_API double tutti_algo_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h, int *bound);
/* tutti_algo_cost for messages of whole elements of `elem` bytes (the
 * datatype's size; m a multiple of it): a built-in cost that cuts the
 * message into blocks then cuts them as its run does, equal blocks where
 * elements divide evenly, and is exact where its formula is (ring
 * allreduce, m = 4000 B of int32 on 4 ranks: 12 us with alpha = 1 us,
 * beta = 1 ns/B; tutti_algo_cost allows every element size up to 16
 * bytes and gives a bound there). elem 0, or one that does not divide m:
 * tutti_algo_cost. A plugin's cost function is not told elem. */
TUTTI_API double tutti_algo_cost_elem(const tutti_algo_t *a, int P, int root, size_t m, size_t elem,
                                      const tutti_hockney_t *h, int *bound);
/* The registered message count of `a` (tutti_msgs_fn) for P ranks, root
 * and m bytes per rank: NAN if a is invalid or has none, P or root is out
 * of tutti_algo_cost's range, or m is above LONG_MAX (no call's bytes). */
TUTTI_API double tutti_algo_messages(const tutti_algo_t *a, int P, int root, size_t m,
                                     const tutti_hockney_t *h);
/* The Hockney view of model m for messages of `bytes` bytes, as `auto`
 * weighs the algorithms (bench/CLI.md "Tune and auto"): alpha = t(0),
 * beta = (t(bytes) - t(0)) / bytes, gamma the model's, where t(x) = L(x) +
 * O_r(x) (+ O_s(x) when the model is eager); the none model counts rounds
 * (alpha 1, beta 0). 0, or TUTTI_EINVAL for a NULL argument. */
TUTTI_API int tutti_algo_hockney_view(const tutti_model_t *m, size_t bytes, tutti_hockney_t *h);
/* The tree a tree algorithm uses (its desc's tree with its lambda, L and k),
 * "auto" resolved for a postal latency of L_auto send times (1 under
 * Hockney; tutti_algo_postal_L gives a run's). 0, or TUTTI_EINVAL if `a`
 * is not a tree algorithm. */
TUTTI_API int tutti_algo_treespec(const tutti_algo_t *a, int L_auto, struct tutti_treespec *spec);
/* The postal latency, in send times, that model m shows for messages of
 * `bytes` bytes: the L_auto of tutti_algo_treespec, with which a run
 * resolves a tree's lambda = auto and L = auto (give a segment's bytes
 * when the tree moves segments, 0 for a barrier's empty messages). The
 * postal preset's own L; else L(m)/S(m), a message's latency over its
 * sender's gap, rounded to the nearest integer within [1, 4096] (the
 * registry's range of L); TUTTI_TREE_DEFAULT_L for a model without these
 * costs (none). Pure; any thread. */
TUTTI_API int tutti_algo_postal_L(const tutti_model_t *m, size_t bytes);
/* The shape parameter of a tree kind -- lambda (lambda), k (knomial), L
 * (postal) -- as the registry declares it for every tree algorithm that
 * takes it (name, type, default, range: tutti_param_range); NULL for a
 * kind without one or an unknown kind. */
TUTTI_API const tutti_param_desc_t *tutti_tree_kind_param(int kind);
/* A bare tree of kind `kind` (no algorithm) with parameters "k=v,k=v"
 * (NULL or "": the defaults): its shape parameter parsed and checked as
 * tutti_algo_select checks an algorithm's, with the same messages ("lambda
 * tree: parameter 'lambda': '1' is out of range; accepted: a number in
 * [0.5, 1) or auto"), "auto" resolved for a postal latency of L_auto as
 * tutti_algo_treespec resolves it. 0, or TUTTI_EINVAL (TUTTI_ENOMEM) with
 * the sentence in err. */
TUTTI_API int tutti_tree_kind_select(int kind, const char *params, int L_auto,
                                     struct tutti_treespec *spec, char *err, size_t errlen);

/* --------------------------------------------------------------- calls */

/* algo NULL: the selection rule above; a rank reads the variable at its
 * first such call of the collective in a run (with the MPI backend: in the
 * rank's life) and keeps that choice. Each returns 0 or a negative code;
 * a restriction the call violates (a non-commutative op on a commutative-
 * only algorithm) is TUTTI_ENOTSUP, never a wrong answer. */
TUTTI_API int tutti_bcast(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                          const tutti_algo_t *algo);
TUTTI_API int tutti_reduce(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                           tutti_datatype_t type, tutti_op_t op, int root,
                           const tutti_algo_t *algo);
TUTTI_API int tutti_allreduce(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                              tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *algo);
TUTTI_API int tutti_gather(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype,
                           void *rbuf, long rcount, tutti_datatype_t rtype, int root,
                           const tutti_algo_t *algo);
TUTTI_API int tutti_scatter(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype,
                            void *rbuf, long rcount, tutti_datatype_t rtype, int root,
                            const tutti_algo_t *algo);
TUTTI_API int tutti_barrier(tutti_rank_t *r, const tutti_algo_t *algo);
/* Every rank's `count` elements (sbuf) to every rank: rbuf gets P blocks
 * of count elements, block i from rank i (MPI_Allgather with equal send
 * and receive types). sbuf TUTTI_IN_PLACE: the rank's block is already at
 * block `rank` of rbuf. */
TUTTI_API int tutti_allgather(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                              tutti_datatype_t type, const tutti_algo_t *algo);
/* sbuf holds P blocks of `count` elements on every rank; rank i's rbuf
 * gets block i of x_0 op x_1 op ... op x_{P-1} (MPI_Reduce_scatter_block).
 * sbuf TUTTI_IN_PLACE: rbuf holds the P blocks on entry and block i at its
 * start on return. */
TUTTI_API int tutti_reduce_scatter(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                   tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *algo);
/* sbuf and rbuf hold P blocks of `count` elements: block i of sbuf goes to
 * rank i, block j of rbuf comes from rank j (MPI_Alltoall with equal send
 * and receive types). sbuf TUTTI_IN_PLACE: rbuf holds the blocks to send
 * on entry (the algorithm then keeps a copy of them in scratch). */
TUTTI_API int tutti_alltoall(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                             tutti_datatype_t type, const tutti_algo_t *algo);
/* Rank i's rbuf gets x_0 op x_1 op ... op x_i, combined in rank order, so
 * a non-commutative op is right (MPI_Scan). sbuf TUTTI_IN_PLACE: x_i is
 * rbuf's content on entry. */
TUTTI_API int tutti_scan(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                         tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *algo);
/* Rank i > 0's rbuf gets x_0 op ... op x_(i-1); rank 0's rbuf is not
 * written (MPI_Exscan leaves it undefined; tutti leaves it alone). */
TUTTI_API int tutti_exscan(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                           tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *algo);

/* The barrier `auto` runs on P ranks under model m (collectives/
 * barrier_auto.c): *chosen is the registered barrier, at its default
 * parameters, of least estimated time (Hockney cost functions for
 * rendezvous models, postal closed forms for eager ones; ties: the first
 * registered). why (may be NULL) gets one line: the view taken and every
 * candidate's estimate, ">= " marking a lower bound. 0, TUTTI_EINVAL,
 * or TUTTI_ENOTFOUND (no candidate). Pure; any thread. */
TUTTI_API int tutti_barrier_auto_choose(const tutti_model_t *m, int P, const tutti_algo_t **chosen,
                                        char *why, size_t whylen);

/* ------------------------------------------------------------ auto and rules */

/* Rules: which algorithm `auto` runs for a collective, a rank count and a
 * message size -- what `tutti tune` measured, written as a rules file
 * (bench/CLI.md "Rules files") and read back with tutti_rules_load. A
 * rule (coll, ranks R, bytes lo..hi, algorithm) applies to a call of coll
 * on P ranks moving m bytes per rank (a block for gather and scatter, 0
 * for barrier) when R is the largest rank count of coll's rules at or
 * below P, and lo <= m <= hi. A P below every R, or an m no range of its
 * R covers, has no rule: `auto` then makes its model choice. Rules are
 * data a program hands to a world (tutti_config_t.rules); a set is
 * immutable once built, so any number of worlds and rank threads may read
 * it at once. */
typedef struct tutti_rules tutti_rules_t;

#define TUTTI_RULES_NO_LIMIT SIZE_MAX /* hi of an open range "A.." */

/* An empty set; source names it in `why` texts ("tune.ini"; may be NULL).
 * 0, TUTTI_EINVAL or TUTTI_ENOMEM. */
TUTTI_API int tutti_rules_create(tutti_rules_t **out, const char *source);
TUTTI_API void tutti_rules_free(tutti_rules_t *rules);
/* Add a rule (line: where it came from, 0 if nowhere). Errors, with a
 * sentence in err: TUTTI_EINVAL for a bad collective, ranks < 1, lo > hi,
 * an algorithm of another collective or an `auto` (a rule must name what
 * to run), or a range overlapping a rule of the same (coll, ranks);
 * TUTTI_ENOMEM. Not thread-safe: build a set before handing it out. */
TUTTI_API int tutti_rules_add(tutti_rules_t *rules, int coll, int ranks, size_t lo, size_t hi,
                              const tutti_algo_t *algo, int line, char *err, size_t errlen);
/* The number of rules (0 for NULL). */
TUTTI_API int tutti_rules_count(const tutti_rules_t *rules);
/* The rule for (coll, P, bytes) as described above: 0 with *out set and
 * why (may be NULL) saying which rule ("tune.ini:12: ranks >= 8, bytes
 * 0..1 KiB"), TUTTI_ENOTFOUND when none applies, TUTTI_EINVAL for bad
 * arguments. A NULL set has no rules. Pure; any thread. */
TUTTI_API int tutti_rules_lookup(const tutti_rules_t *rules, int coll, int P, size_t bytes,
                                 const tutti_algo_t **out, char *why, size_t whylen);
/* Parse a rules file's text (INI, bench/CLI.md "Rules files"); filename is
 * for messages. 0 with *out (free it with tutti_rules_free), or
 * TUTTI_EPARSE / TUTTI_ENOMEM with "FILE:LINE: what; accepted: what" in
 * err: an unknown section (collective), an unknown key, a bad range, a
 * range before any "ranks =", an unknown algorithm or parameter (the
 * registry's message), overlapping ranges. */
TUTTI_API int tutti_rules_parse_string(const char *text, const char *filename, tutti_rules_t **out,
                                       char *err, size_t errlen);
/* Read and parse a rules file: as above, TUTTI_EIO when it cannot be read
 * ("FILE: why"). */
TUTTI_API int tutti_rules_load(const char *path, tutti_rules_t **out, char *err, size_t errlen);

/* What `auto` of collective coll runs on P ranks under model m with rules
 * (may be NULL), moving `bytes` bytes per rank, rooted at root (-1: any),
 * reducing with op (NULL: not a reduction, or any op): the rule that
 * applies, if its algorithm can run this call; else the model choice:
 * barrier, tutti_barrier_auto_choose; every other collective, the
 * registered algorithm (at its default parameters, `auto` excluded) of
 * least registered Hockney cost (tutti_algo_cost) for the model's Hockney
 * view at this size: alpha = t(0), beta = (t(m) - t(0)) / m with t(x) the
 * one-message time L(x) + O_r(x), plus O_s(x) for an eager model
 * (collectives/auto.c); gamma = the model's; the none model alpha = 1,
 * beta = 0 (fewest message rounds). Ties go to the first registered.
 * why (may be NULL) gets one line saying which, and the candidates'
 * estimates. 0, TUTTI_EINVAL, TUTTI_ENOTFOUND (no candidate can run).
 * Pure; any thread. */
TUTTI_API int tutti_auto_choose(int coll, const tutti_model_t *m, const tutti_rules_t *rules, int P,
                                size_t bytes, int root, tutti_op_t op, const tutti_algo_t **chosen,
                                char *why, size_t whylen);
/* 1 if d is a collective's `auto` (it chooses among the others), else 0. */
TUTTI_API int tutti_algo_is_auto(const tutti_algo_desc_t *d);
/* 1 if d is one of tutti's own `hierarchical` algorithms (a leader per
 * host, then each host: collectives/hierarchical.c), which without hosts
 * run their inter algorithm on every rank; else 0. */
TUTTI_API int tutti_algo_is_two_level(const tutti_algo_desc_t *d);

#ifdef __cplusplus
}
#endif
#endif /* TUTTI_COLL_H */

/*
 * algo.h -- the registry's own view of what coll.h keeps opaque: a
 * registered algorithm (an entry: the description as registered, where it
 * came from, its tree) and a selected one (a handle: an entry with its
 * parameter values, typed). Internal to collectives/.
 *
 * Entries are made once, by tutti_algo_register (registry.c), and never
 * change or go; handles are made once per distinct selection, by
 * tutti_algo_select (select.c), shared by everyone who selects the same,
 * and never change or go either. So both are read without locks, by any
 * thread, for the life of the process.
 */
#ifndef TUTTI_COLL_ALGO_H
#define TUTTI_COLL_ALGO_H

#include <stddef.h>
#include <stdint.h>

#include "tutti/coll.h"
#include "tutti/tree.h"

/* The shape parameters a tree algorithm may declare, in the order of
 * tutti__entry.tp. */
enum { TUTTI__TP_LAMBDA, TUTTI__TP_L, TUTTI__TP_K, TUTTI__TP_SEGMENT, TUTTI__TP_N };
/* Each as tutti's own TREE lines declare it (registry.c). */
extern const tutti_param_desc_t tutti__tree_params[TUTTI__TP_N];

struct tutti__entry {
  tutti_algo_desc_t d; /* as registered: d.params points to params below */
  const char *origin;  /* "built-in", a plugin's file, "tutti_algo_register" */
  int builtin;
  int index;           /* in the registry (tutti_algo_desc_at) */
  int tree;            /* enum tutti_tree_kind; -1: not a tree algorithm */
  int tp[TUTTI__TP_N]; /* tree algorithms: the index of each shape parameter, -1 */
  const char *doing;   /* "bcast 'mine' of plugin FILE", for failure messages */
  tutti_param_desc_t params[TUTTI_MAX_PARAMS];
};

/* d checked on its own into e, not yet registered (register_check.c):
 * e's tree, tp and, for a tree algorithm, its movers and cost; 0 or
 * TUTTI_EINVAL with the sentence. */
int tutti__desc_into(const tutti_algo_desc_t *d, struct tutti__entry *e, char *err, size_t errlen);

#define TUTTI__ALGO_MAGIC 0x7475616cu /* "tual" */

struct tutti_algo {
  uint32_t magic;
  unsigned is_auto; /* bit i: parameter i is "auto" */
  const struct tutti__entry *e;
  struct tutti_algo *next; /* in select.c's table */
  uint64_t hash;
  double value[TUTTI_MAX_PARAMS];      /* in declaration order; NAN where auto */
  const char *list[TUTTI_MAX_PARAMS];  /* the rank list of a word ending in ':', else NULL */
  _Alignas(16) unsigned char params[]; /* e->d.params_size bytes: the typed struct */
};

static inline const struct tutti__entry *tutti__entry(const tutti_algo_t *a) {
  return a->e;
}

/* The registered entry of a description tutti handed out (registry.c),
 * NULL for any other pointer. */
const struct tutti__entry *tutti__entry_of(const tutti_algo_desc_t *d);

/* printf into err[errlen], the caller's error buffer of the registry's
 * functions; nothing when err is NULL or errlen 0 (select.c). */
void tutti__errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The built-ins' parameter struct: every parameter of the registry's
 * table has its field here (registry.c's P_* declare the offsets). A
 * built-in reads it in place: tutti__params(a)->segment. */
typedef struct tutti_params {
  double lambda;  /* lambda-tree: share of its set a source keeps */
  long L;         /* postal-optimal tree: latency in send times */
  long k;         /* radix of k-ary and k-nomial shapes */
  size_t segment; /* pipeline segment in bytes; 0: one message */
  long blocks;    /* pipelined allreduce: number of blocks the vector is cut into */
  long segments;  /* pipelined-chain: number of segments */
  long order;     /* pipelined-chain: enum tutti_chain_order */
  long window;    /* pipelined-chain: segments a rank keeps in flight */
  long allgather; /* scatter-allgather: enum tutti_allgather_kind */
  long inter;     /* hierarchical: the leaders' algorithm (a word of its list) */
  long intra;     /* hierarchical: each host's algorithm (a word of its list) */
} tutti_params_t;

/* a is a handle tutti_algo_select made. */
static inline int tutti__algo_valid(const tutti_algo_t *a) {
  return a && a->magic == TUTTI__ALGO_MAGIC;
}

static inline const tutti_params_t *tutti__params(const tutti_algo_t *a) {
  return (const tutti_params_t *)(const void *)a->params;
}

/* order=: the chain a pipelined broadcast follows from the root. */
enum tutti_chain_order {
  TUTTI_ORDER_RANK, /* root, root+1, ..., mod P */
  TUTTI_ORDER_DFS,  /* the topology's contention-free chain (tutti_rank_chain) */
  TUTTI_ORDER_LIST  /* the explicit list: a permutation of the ranks starting at the root */
};
/* allgather=: the second phase of scatter-allgather. */
enum tutti_allgather_kind { TUTTI_ALLGATHER_RING, TUTTI_ALLGATHER_RECDBL };

#endif /* TUTTI_COLL_ALGO_H */

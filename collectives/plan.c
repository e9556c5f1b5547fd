/*
 * plan.c -- a rank's call plans (engine.h "the call plan") and its tree
 * nodes (parent, children in send order, and the subtree ranges the
 * movers of engine.c need).
 *
 * A small collective repeated in a loop would otherwise work out on every
 * call what the first call already did: which algorithm algo NULL means,
 * whether the algorithm may run this call (registry checks, parameter
 * checks), which tree node the rank has, what `auto` chose. A plan keeps
 * all of that, keyed by what decides it: (collective, algorithm as
 * passed, root, count, datatype, op, and the rank and size the rank sees,
 * which a group view changes: p2p.h) -- the world, its model and rules are
 * the rank's own and fixed for a run, and the algorithm handle fixes the
 * parameters (handles are interned: select.c). One rule: a rank keeps one
 * plan per depth of nesting (0: a call from the rank's code; 1: a
 * collective its algorithm calls), a call with its depth's key runs that
 * plan, any other call builds a new one in its place; a rank's plans go
 * before each run (the runtime frees tutti_rank_coll_cache), so a run
 * reads the variables as they are when it starts.
 *
 * Only the public API is used (p2p.h, coll.h, tree.h): the same file runs
 * over any backend of the p2p calls.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "engine.h"
#include "tutti/coll.h"

static int rel(int rank, int root, int size) {
  return rank >= root ? rank - root : rank + (size - root);
}

int tutti__child_cmp_lo(const void *a, const void *b) {
  const tutti__child_t *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

/* ----------------------------------------------------------------- plans */

#define DEPTHS 2 /* plans kept: depth 0 and 1; deeper calls are planned anew each time */

struct plan {
  /* the key; coll -1: none */
  const tutti_algo_t *asked; /* as passed: NULL means the variable's */
  tutti_datatype_t type;
  tutti_op_t op;
  long count;
  int root;
  int coll;
  int rank, size; /* tutti_rank, tutti_size: a group view's */
  /* what it decided */
  const tutti_algo_t *run;    /* validated for this call */
  const tutti_algo_t *choice; /* `auto`'s (tutti__plan_choice), NULL until made */
};

/* A rank's plans, in tutti_rank_coll_cache: in the rank's room
 * (tutti_rank_coll_room) while they fit, else one allocation (the runtime
 * frees it with free()), some 300 bytes and its node's children. */
struct rank_plans {
  int depth;                      /* collective calls under way on the rank */
  const tutti_algo_t *fault_algo; /* read an undeclared parameter in the call under way */
  const char *fault_name;
  uint8_t env_algo[TUTTI_COLL_N]; /* 1 + tutti__env_algo_index's index; 0: not looked up */
  struct plan plan[DEPTHS];
  /* plan[0]'s tree node: the first its call asked for (tutti__node_get),
   * and whether the call is a one-message bcast down it (direct) */
  bool node_valid, direct;
  tutti_treespec_t spec;
  tutti__node_t node; /* node.child is child: re-pointed whenever the plans move */
  int cap;            /* children child[] has room for */
  uint32_t state_cap; /* bytes of plan[0]'s algorithm state (tutti_plan_state), after child[] */
  tutti__child_t child[];
};

/* plan[0]'s algorithm state: after the children, 16-byte aligned. */
#define STATE_OFF(cap)                                                                             \
  ((sizeof(struct rank_plans) + (size_t)(cap) * sizeof(tutti__child_t) + 15) & ~(size_t)15)
#define STATE_MAX 4096 /* bytes an algorithm may keep in a plan */
static inline char *state_of(struct rank_plans *m) {
  return (char *)m + STATE_OFF(m->cap);
}

static struct rank_plans *plans_of(tutti_rank_t *r) {
  void **slot = tutti_rank_coll_cache(r);
  return slot ? *slot : NULL;
}

static struct rank_plans *plans_make(tutti_rank_t *r) {
  void **slot = tutti_rank_coll_cache(r);
  if (!slot) return NULL;
  if (!*slot) {
    size_t room;
    struct rank_plans *m = tutti_rank_coll_room(r, &room);
    if (room >= sizeof *m)
      memset(m, 0, sizeof *m);
    else if (!(m = calloc(1, sizeof *m)))
      return NULL; /* nothing kept, nothing lost */
    for (int d = 0; d < DEPTHS; d++) m->plan[d].coll = -1;
    *slot = m;
  }
  return *slot;
}

/* realloc for the plans: in the rank's room while they fit, out of it
 * (copied) when they outgrow it. */
static struct rank_plans *plans_resize(tutti_rank_t *r, struct rank_plans *m, size_t bytes) {
  size_t room;
  void *own = tutti_rank_coll_room(r, &room);
  if (m != own) return realloc(m, bytes);
  if (bytes <= room) return m;
  struct rank_plans *g = malloc(bytes);
  if (g) memcpy(g, m, room); /* all it holds: it fitted */
  return g;
}

/* The algorithm a call of coll with algo NULL runs (coll.h's selection
 * rule): the rank looks the variable up at its first such call of a run
 * and keeps the choice. */
static int algo_of_env(struct rank_plans *m, int coll, const tutti_algo_t **out) {
  if (m && m->env_algo[coll]) {
    *out = tutti__env_algo(m->env_algo[coll] - 1);
    return 0;
  }
  int idx, rc = tutti__env_algo_index(coll, &idx);
  if (rc) return rc;
  if (idx < 0) /* the process keeps no more: select for this call */
    return tutti_algo_select(coll, NULL, NULL, out, NULL, 0);
  *out = tutti__env_algo(idx);
  if (m) m->env_algo[coll] = (uint8_t)(idx + 1);
  return 0;
}

static inline bool same_key(tutti_rank_t *r, const struct plan *p, int coll,
                            const tutti_algo_t *algo, int root, long count, tutti_datatype_t type,
                            tutti_op_t op) {
  return p->asked == algo && p->coll == coll && p->root == root && p->count == count &&
         p->type == type && p->op == op && p->rank == tutti_rank(r) && p->size == tutti_size(r);
}

/* A new plan for the key: resolve and validate the algorithm. */
static __attribute__((noinline)) int plan_make(tutti_rank_t *r, struct rank_plans *m, int coll,
                                               const tutti_algo_t *algo, int root, long count,
                                               tutti_datatype_t type, tutti_op_t op, size_t bytes,
                                               const tutti_algo_t **run) {
  const tutti_algo_t *a = algo;
  int rc;
  if (a) {
    const tutti_algo_desc_t *d = tutti_algo_desc(a);
    if (!d || d->coll != coll) return TUTTI_EINVAL;
  } else if ((rc = algo_of_env(m, coll, &a))) {
    return rc;
  }
  if ((rc = tutti_algo_check_call(a, tutti_size(r), root, bytes, op, NULL, 0))) return rc;
  *run = a;
  if (!m || m->depth >= DEPTHS) return 0; /* planned for this call only */
  struct plan *p = &m->plan[m->depth];
  *p = (struct plan){algo, type, op, count, root, coll, tutti_rank(r), tutti_size(r), a, NULL};
  if (m->depth == 0) {
    m->node_valid = m->direct = false;
    memset(state_of(m), 0, m->state_cap);
  }
  return 0;
}

int tutti__call_begin(tutti_rank_t *r, int coll, const tutti_algo_t *algo, int root, long count,
                      tutti_datatype_t type, tutti_op_t op, size_t bytes, const tutti_algo_t **run,
                      const tutti__node_t **direct) {
  struct rank_plans *m = plans_of(r);
  int rc;
  *direct = NULL;
  if (m && m->depth < DEPTHS &&
      same_key(r, &m->plan[m->depth], coll, algo, root, count, type, op)) {
    *run = m->plan[m->depth].run;
    if (m->depth == 0 && m->direct) {
      m->node.child = m->child;
      *direct = &m->node;
    }
  } else {
    if (!m) m = plans_make(r);
    if ((rc = plan_make(r, m, coll, algo, root, count, type, op, bytes, run))) return rc;
  }
  /* A collective an algorithm calls is part of the enclosing call's span. */
  int outer = !m || m->depth == 0;
  if (outer && (rc = tutti_span_begin(r, tutti_coll_name(coll)))) return rc;
  if (m) m->depth++;
  const char *doing = (*run)->e->doing; /* NULL for tutti's own */
  if (doing) tutti_rank_doing(r, doing);
  return 0;
}

static const char *fault_text(const tutti_algo_t *a, const char *name);

int tutti__call_end(tutti_rank_t *r, int rc) {
  struct rank_plans *m = plans_of(r); /* the algorithm may have moved it */
  if (m) {
    m->depth--;
    if (m->fault_algo) {
      tutti_rank_doing(r, fault_text(m->fault_algo, m->fault_name));
      m->fault_algo = NULL;
      if (!rc) rc = TUTTI_ENOTFOUND;
    } else if (!rc) {
      /* done: the rank is doing what the enclosing call runs, if any (an
       * error keeps naming this call, for the rank's failure message) */
      const tutti_algo_t *outer = m->depth && m->depth <= DEPTHS ? m->plan[m->depth - 1].run : NULL;
      tutti_rank_doing(r, outer ? outer->e->doing : NULL);
    }
  }
  int rc2 = !m || m->depth == 0 ? tutti_span_end(r) : 0;
  return rc ? rc : rc2;
}

const tutti_algo_t **tutti__plan_choice(tutti_rank_t *r, const tutti_algo_t *a) {
  struct rank_plans *m = plans_of(r);
  if (!m || m->depth < 1 || m->depth > DEPTHS) return NULL;
  struct plan *p = &m->plan[m->depth - 1];
  return p->run == a ? &p->choice : NULL;
}

static bool same_spec(const tutti_treespec_t *a, const tutti_treespec_t *b);

void tutti__plan_direct(tutti_rank_t *r, const tutti_algo_t *a, const tutti_treespec_t *spec,
                        int root) {
  struct rank_plans *m = plans_of(r);
  if (m && m->depth == 1 && m->plan[0].run == a && m->node_valid && m->node.root == root &&
      same_spec(&m->spec, spec))
    m->direct = true;
}

/* ---------------------------------------------------------------- faults */

void tutti__param_fault(const tutti_algo_t *a, const char *name) {
  tutti_rank_t *r = tutti_rank_self();
  struct rank_plans *m = r ? plans_of(r) : NULL;
  if (!m || !m->depth || m->fault_algo) return; /* outside a call: only the value tells */
  m->fault_algo = a;
  m->fault_name = name;
}

/* The failure text of a fault, made once per (algorithm, name) and kept
 * for the process's life: the rank's failure message may quote it after
 * the call. */
static const char *fault_text(const tutti_algo_t *a, const char *name) {
  static struct text {
    const struct tutti__entry *e;
    char *name, *text;
    struct text *next;
  } * texts;
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  const struct tutti__entry *e = a && a->magic == TUTTI__ALGO_MAGIC ? a->e : NULL;
  const char *nm = name ? name : "(null)";
  struct text *t;
  pthread_mutex_lock(&lock);
  for (t = texts; t && !(t->e == e && !strcmp(t->name, nm)); t = t->next) {
  }
  if (!t && (t = calloc(1, sizeof *t))) {
    char buf[512];
    if (e)
      snprintf(buf, sizeof buf, "%s '%s' (%s%s), which read parameter '%.64s' it does not declare",
               tutti_coll_name(e->d.coll), e->d.name, e->origin[0] == '/' ? "plugin " : "",
               e->origin, nm);
    else
      snprintf(buf, sizeof buf, "an algorithm that read parameter '%.64s' of an invalid handle",
               nm);
    t->e = e, t->name = strdup(nm), t->text = strdup(buf);
    if (!t->name || !t->text) {
      free(t->name), free(t->text), free(t);
      t = NULL;
    } else {
      t->next = texts, texts = t;
    }
  }
  pthread_mutex_unlock(&lock);
  return t ? t->text : "an algorithm that read a parameter it does not declare";
}

/* ----------------------------------------------------------------- nodes */

/* The rank's plans with room for n children, or NULL (no rank, or out of
 * memory: then nothing is kept and nothing is lost). It may move: the
 * caller re-points node.child. */
static bool same_spec(const tutti_treespec_t *a, const tutti_treespec_t *b) {
  /* lambda bitwise: the same tree comes of the same bits (NaN included) */
  return a->kind == b->kind && a->k == b->k && a->L == b->L &&
         !memcmp(&a->lambda, &b->lambda, sizeof a->lambda);
}

/* The plans of a rank whose top-level call asks for its first node, with
 * room for n children; NULL when the node is not the plan's to keep
 * (outside a call, nested, asked already, more than 16 children, out of
 * memory: then it is built for the caller alone). It may move: the
 * caller re-points node.child. */
static struct rank_plans *plans_room(tutti_rank_t *r, void **slot, int n) {
  struct rank_plans *m = slot ? *slot : NULL;
  if (!m || m->depth != 1 || m->node_valid || n > 16) return NULL;
  if (m->cap < n) { /* the state moves up behind the longer child[] */
    struct rank_plans *g = plans_resize(r, m, STATE_OFF(n) + m->state_cap);
    if (!g) return NULL;
    memmove((char *)g + STATE_OFF(n), (char *)g + STATE_OFF(g->cap), g->state_cap);
    *slot = m = g;
    m->cap = n;
  }
  return m;
}

void *tutti_plan_state(tutti_rank_t *r, size_t size) {
  void **slot = tutti_rank_coll_cache(r);
  struct rank_plans *m = slot ? *slot : NULL;
  if (!m || m->depth != 1 || size > STATE_MAX) return NULL;
  if (m->state_cap < size) {
    struct rank_plans *g = plans_resize(r, m, STATE_OFF(m->cap) + size);
    if (!g) return NULL;
    memset((char *)g + STATE_OFF(g->cap) + g->state_cap, 0, size - g->state_cap);
    *slot = m = g;
    m->state_cap = (uint32_t)size;
  }
  return state_of(m);
}

/* nd (whose child has room for n) as r's node: parent and the children's
 * ranks in send order from tutti_tree_node, the subtree ranges from the
 * tree. */
static int node_build(const tutti_treespec_t *spec, int rank, int size, int root, int parent,
                      const int *ranks, int n, tutti__node_t *nd) {
  nd->size = size, nd->rank = rank, nd->root = root;
  nd->vrank = rel(rank, root, size);
  nd->parent = parent;
  nd->contiguous = tutti_tree_contiguous(spec->kind) == 1;
  nd->in_turn = tutti__tree_in_turn(spec->kind);
  nd->nchildren = n;
  for (int i = 0; i < n; i++)
    nd->child[i] = (tutti__child_t){ranks[i], rel(ranks[i], root, size), 0};
  if (!nd->contiguous) {
    nd->lo = nd->vrank;
    return tutti_tree_subtree_size(spec, rank, size, root, &nd->count);
  }
  int rc = tutti_tree_subtree(spec, rank, size, root, &nd->lo, &nd->count);
  if (rc) return rc;
  /* The children's subtrees tile (lo, lo+count) in increasing relative
   * order, so each ends where the next (by relative rank) begins. Sort a
   * copy to find the ends, then write the counts back in send order. */
  tutti__child_t tmp[16], *sorted = n <= 16 ? tmp : malloc((size_t)n * sizeof *sorted);
  if (!sorted) return TUTTI_ENOMEM;
  for (int i = 0; i < n; i++) sorted[i] = nd->child[i], sorted[i].count = i; /* count: send index */
  qsort(sorted, (size_t)n, sizeof *sorted, tutti__child_cmp_lo);
  for (int i = 0; i < n; i++) {
    int end = i + 1 < n ? sorted[i + 1].lo : nd->lo + nd->count;
    nd->child[sorted[i].count].count = end - sorted[i].lo;
  }
  if (sorted != tmp) free(sorted);
  return 0;
}

/* tutti__node_get when the plans do not have the node: build it (into
 * the plans, or *own). Out of line, so that the plans' answer is a short
 * function without this one's frame. */
static __attribute__((noinline)) int node_make(const tutti_treespec_t *spec, tutti_rank_t *r,
                                               int root, tutti__node_t *own,
                                               const tutti__node_t **out) {
  void **slot = tutti_rank_coll_cache(r);
  struct rank_plans *m;
  int size = tutti_size(r), rank = tutti_rank(r);
  int n = 0, parent, small[16], *ranks = small;
  int rc = tutti_tree_node(spec, rank, size, root, &parent, small, 16, &n);
  if (rc) return rc;
  tutti__node_t *nd = own;
  if ((m = plans_room(r, slot, n))) {
    nd = &m->node;
    nd->child = m->child;
  } else { /* a node of more than 16 children (a flat root's) is rebuilt every call */
    if (n > 16 && !(ranks = malloc((size_t)n * sizeof *ranks))) return TUTTI_ENOMEM;
    if (!(own->child = malloc((size_t)(n ? n : 1) * sizeof *own->child)))
      rc = TUTTI_ENOMEM;
    else if (n > 16)
      rc = tutti_tree_node(spec, rank, size, root, NULL, ranks, n, NULL);
  }
  if (!rc) rc = node_build(spec, rank, size, root, parent, ranks, n, nd);
  if (ranks != small) free(ranks);
  if (rc) {
    tutti__node_free(own);
    return rc;
  }
  if (nd != own) {
    m->spec = *spec;
    m->node_valid = true;
  }
  *out = nd;
  return 0;
}

int tutti__node_get(const tutti_treespec_t *spec, tutti_rank_t *r, int root, tutti__node_t *own,
                    const tutti__node_t **out) {
  own->child = NULL, own->nchildren = 0;
  struct rank_plans *m = plans_of(r);
  if (m && m->depth == 1 && m->node_valid && m->node.root == root &&
      m->node.size == tutti_size(r) && same_spec(&m->spec, spec)) {
    m->node.child = m->child;
    *out = &m->node;
    return 0;
  }
  return node_make(spec, r, root, own, out);
}

void tutti__node_free(tutti__node_t *own) {
  if (!own->child) return; /* the plans' node: no call into free */
  free(own->child);
  own->child = NULL;
  own->nchildren = 0;
}

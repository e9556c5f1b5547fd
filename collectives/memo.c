/*
 * memo.c -- a rank's node of a tree (parent, children in send order, and
 * the subtree ranges the movers of engine.c need), and what a rank keeps
 * between collective calls so that a small collective repeated in a loop
 * does not derive it again: the last validated call, the last tree node,
 * the algorithms of algo NULL calls (engine.h).
 *
 * Only the public API is used (tutti.h): the same file runs over any
 * backend of the p2p calls.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "tutti/coll.h"

static int rel(int rank, int root, int size) {
  return rank >= root ? rank - root : rank + (size - root);
}

int tutti__child_cmp_lo(const void *a, const void *b) {
  const tutti__child_t *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

/* What a rank keeps between collective calls, in tutti_rank_coll_cache
 * (one allocation, freed with the rank and by the emulator before each
 * run): a small collective repeated in a loop would otherwise redo these
 * on every call.
 * - Per collective, the algorithm its calls with algo NULL run
 *   (tutti__algo_for_null), as an index into select.c's table.
 * - The last call it validated (tutti__call_checked): the algorithm's
 *   bytes, ranks, root, size and op. Validating an algorithm against the
 *   registry and its parameters' checks was 12% of an 8 B bcast on 16
 *   fibers; comparing the bytes costs a fraction of that. Not kept for an
 *   algorithm with a list value (order=list:...): its bytes would be 512.
 * - The last tree node, for the next call on the same tree, root and size
 *   (a node is a pure function of them and the rank): rebuilding it was
 *   15% of that bcast, and copying it out of the memo 5% of what was
 *   left, so the movers read it in place. Children stored to their number
 *   (a binomial tree's rank has one on average, so a million ranks keep
 *   some 200 bytes each); nodes of more than 16 children (a flat root's)
 *   are rebuilt.
 * - Whether that node is the one the last validated call's own algorithm
 *   took, unsegmented (a tree bcast marks it: tutti__call_node_mark): the
 *   same bcast again then goes from coll.c straight to its node
 *   (tutti__bcast_repeat), without the registry's dispatch, its tree
 *   spec and the node lookup: an 8 B bcast on 16 fibers in 0.84x the
 *   time. */
struct call_memo {
  const tutti_algo_desc_t *desc;
  uint64_t p[offsetof(tutti_params_t, list) / 8]; /* the typed values but the list */
  double value[TUTTI_MAX_PARAMS];
  unsigned is_auto;
  int size, root;
  size_t bytes;
  tutti_op_t op;
};
struct memo {
  struct call_memo call;
  bool call_valid, node_valid;
  /* The collective under way is `call` (tutti__call_checked found or kept
   * it; tutti__call_over clears it when the collective returns): an
   * algorithm called through desc->fn outside tutti_bcast and the like
   * is not validated, and marks nothing. */
  bool call_now;
  bool node_of_call;               /* node: the one `call` took (tutti__call_node_mark) */
  uint8_t null_algo[TUTTI_COLL_N]; /* 1 + tutti__algo_null's index; 0: not looked up */
  tutti_treespec_t spec;
  tutti__node_t node; /* node.child is child: re-pointed whenever the memo moves */
  int cap;
  tutti__child_t child[]; /* cap of them */
};

/* Whole words, read through a type that may alias any (the values are
 * doubles and longs). A loop, not a memcmp call (that was a third of the
 * check), and no libc copy: collectives copy through tutti_local_copy
 * (test_e2e_nodata). */
typedef uint64_t __attribute__((may_alias)) word_t;
static bool same_words(const void *x, const void *y, size_t n) {
  const word_t *a = x, *b = y;
  uint64_t d = 0;
  for (size_t i = 0; i < n / 8; i++) d |= a[i] ^ b[i];
  return !d;
}
static void copy_words(void *to, const void *from, size_t n) {
  word_t *a = to;
  const word_t *b = from;
  for (size_t i = 0; i < n / 8; i++) a[i] = b[i];
}
_Static_assert(offsetof(tutti_params_t, list) % 8 == 0 && sizeof(double) == 8,
               "the call memo compares whole words");

static bool same_call(const struct call_memo *m, const tutti_algo_t *a, int size, int root,
                      size_t bytes, tutti_op_t op) {
  return m->desc == a->desc && m->size == size && m->root == root && m->bytes == bytes &&
         m->op == op && m->is_auto == a->is_auto && same_words(m->p, &a->p, sizeof m->p) &&
         same_words(m->value, a->value, sizeof m->value);
}

int tutti__algo_for_null(tutti_rank_t *r, int coll, tutti_algo_t *buf, const tutti_algo_t **out) {
  void **slot = tutti_rank_coll_cache(r);
  struct memo *m = slot ? *slot : NULL;
  if (m && m->null_algo[coll]) {
    *out = tutti__algo_null_at(m->null_algo[coll] - 1);
    return 0;
  }
  int idx, rc = tutti__algo_null(coll, &idx);
  if (rc) return rc;
  if (idx < 0) { /* the process keeps no more: select for this call */
    *out = buf;
    return tutti_algo_select(coll, NULL, NULL, buf, NULL, 0);
  }
  *out = tutti__algo_null_at(idx);
  if (slot && (m || (*slot = m = calloc(1, sizeof *m)))) m->null_algo[coll] = (uint8_t)(idx + 1);
  return 0; /* not kept (no memory): looked up again next call */
}

int tutti__call_checked(tutti_rank_t *r, const tutti_algo_t *a, int root, size_t bytes,
                        tutti_op_t op) {
  void **slot = tutti_rank_coll_cache(r);
  struct memo *m = slot ? *slot : NULL;
  int size = tutti_size(r);
  bool keep = slot && a && a->desc && !a->p.list[0];
  if (keep && m && m->call_valid && same_call(&m->call, a, size, root, bytes, op))
    return m->call_now = true, 0;
  if (m) m->call_now = false;
  int rc = tutti_algo_check_call(a, size, root, bytes, op, NULL, 0);
  if (rc || !keep) return rc;
  if (!m && (*slot = m = calloc(1, sizeof *m)) == NULL) return 0; /* nothing kept, nothing lost */
  struct call_memo *k = &m->call;
  k->desc = a->desc;
  copy_words(k->p, &a->p, sizeof k->p);
  copy_words(k->value, a->value, sizeof k->value);
  k->is_auto = a->is_auto;
  k->size = size, k->root = root, k->bytes = bytes, k->op = op;
  m->call_valid = m->call_now = true;
  m->node_of_call = false;
  return 0;
}

static bool same_spec(const tutti_treespec_t *a, const tutti_treespec_t *b) {
  /* lambda bitwise: the same tree comes of the same bits (NaN included) */
  return a->kind == b->kind && a->k == b->k && a->L == b->L &&
         !memcmp(&a->lambda, &b->lambda, sizeof a->lambda);
}

static struct memo *memo_of(tutti_rank_t *r) {
  void **slot = tutti_rank_coll_cache(r);
  return slot ? *slot : NULL;
}

void tutti__call_over(tutti_rank_t *r) {
  struct memo *m = memo_of(r);
  if (m) m->call_now = false;
}

void tutti__call_node_mark(tutti_rank_t *r, const tutti_treespec_t *spec, int root) {
  struct memo *m = memo_of(r);
  if (m && m->call_now && m->node_valid && m->node.root == root && m->node.size == tutti_size(r) &&
      same_spec(&m->spec, spec))
    m->node_of_call = true;
}

const tutti__node_t *tutti__call_node(tutti_rank_t *r) {
  const struct memo *m = memo_of(r);
  return m && m->call_now && m->node_of_call ? &m->node : NULL;
}

/* The rank's memo with room for n children, or NULL (no rank, or out of
 * memory: then nothing is kept and nothing is lost). It may move: the
 * caller re-points node.child. */
static struct memo *memo_room(void **slot, int n) {
  struct memo *m = slot ? *slot : NULL;
  if (!slot || n > 16) return NULL;
  if (!m || m->cap < n) {
    struct memo *g = realloc(m, sizeof *m + (size_t)n * sizeof *m->child);
    if (!g) return NULL;
    if (!m) memset(g, 0, sizeof *g);
    *slot = m = g;
    m->cap = n;
  }
  return m;
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

/* tutti__node_get when the memo does not have the node: build it (into
 * the memo, or *own). Out of line, so that the memo's answer is a short
 * function without this one's frame. */
static __attribute__((noinline)) int node_make(const tutti_treespec_t *spec, tutti_rank_t *r,
                                               int root, tutti__node_t *own,
                                               const tutti__node_t **out) {
  void **slot = tutti_rank_coll_cache(r);
  struct memo *m;
  int size = tutti_size(r), rank = tutti_rank(r);
  int n = 0, parent, small[16], *ranks = small;
  int rc = tutti_tree_node(spec, rank, size, root, &parent, small, 16, &n);
  if (rc) return rc;
  tutti__node_t *nd = own;
  if ((m = memo_room(slot, n))) {
    m->node_valid = m->node_of_call = false;
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
  const struct memo *m = memo_of(r);
  if (m && m->node_valid && m->node.root == root && m->node.size == tutti_size(r) &&
      same_spec(&m->spec, spec)) {
    *out = &m->node;
    return 0;
  }
  return node_make(spec, r, root, own, out);
}

void tutti__node_free(tutti__node_t *own) {
  if (!own->child) return; /* the memo's node: no call into free */
  free(own->child);
  own->child = NULL;
  own->nchildren = 0;
}

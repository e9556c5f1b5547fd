/*
 * engine.c -- the movers every tree-based collective shares (engine.h):
 * push a buffer down a tree in segments, combine up a tree in rank order,
 * gather and scatter blocks along contiguous subtrees. In the spirit of
 * Open MPI's coll/base generic bcast/reduce: one routine per direction, any
 * tree; an algorithm only chooses the tree and the segment size.
 *
 * Only the public API is used (tutti.h): the same file runs over any
 * backend of the p2p calls.
 */
#include <limits.h>
#include <stdbool.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "tutti/coll.h"

/* ------------------------------------------------------------------ nodes */

static int rel(int rank, int root, int size) {
  return rank >= root ? rank - root : rank + (size - root);
}

static int cmp_lo(const void *a, const void *b) {
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
  qsort(sorted, (size_t)n, sizeof *sorted, cmp_lo);
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
  void **slot = tutti_rank_coll_cache(r);
  const struct memo *m = slot ? *slot : NULL;
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

/* Requests for one per child (+1), on the stack when the degree is small. */
struct reqs {
  tutti_request_t *q, small[17];
};
static int reqs_alloc(struct reqs *rq, int n) {
  rq->q = n <= 17 ? rq->small : malloc((size_t)n * sizeof *rq->q);
  return rq->q ? 0 : TUTTI_ENOMEM;
}
static int reqs_init(struct reqs *rq, int n) { /* all TUTTI_REQUEST_NULL */
  if (reqs_alloc(rq, n)) return TUTTI_ENOMEM;
  for (int i = 0; i < n; i++) rq->q[i] = TUTTI_REQUEST_NULL;
  return 0;
}
static void reqs_free(struct reqs *rq) {
  if (rq->q != rq->small) free(rq->q);
}

/* p + off, keeping NULL (count 0 buffers may be NULL; NULL + 0 is undefined). */
static inline char *at(const void *p, size_t off) {
  return p ? (char *)p + off : NULL;
}

/* Keep the first error but finish the cleanup steps after it. */
#define KEEP(rc, expr)                                                                             \
  do {                                                                                             \
    int e_ = (expr);                                                                               \
    if (!(rc)) (rc) = e_;                                                                          \
  } while (0)

size_t tutti__segment_bytes(long count, tutti_datatype_t type, size_t segment) {
  size_t esz = tutti_type_size(type), total = (size_t)count * esz;
  if (segment == 0 || segment >= total) return total;
  size_t n = segment / esz;
  return (n ? n : 1) * esz;
}

/* A transfer's elements per segment and segments; unsegmented without a
 * division (three of them were a third of the bcast mover's own time on
 * 8 B). */
static void segments(long count, size_t esz, size_t segment, long *segn, long *nseg) {
  if (!segment || segment >= (size_t)count * esz) {
    *segn = count, *nseg = 1;
    return;
  }
  *segn = (long)(segment / esz ? segment / esz : 1);
  *nseg = (count + *segn - 1) / *segn;
}

/* ------------------------------------------------------------------ bcast */

/* n elements at p to every child of nd, and wait for the sends (none at
 * leaves); q has room for a request per child. */
static int send_children(tutti_rank_t *r, const tutti__node_t *nd, void *p, long n,
                         tutti_datatype_t type, int tag, tutti_request_t *q) {
  int rc = 0, sent = 0;
  for (; sent < nd->nchildren; sent++)
    if ((rc = tutti_isend(r, p, n, type, nd->child[sent].rank, tag, &q[sent]))) break;
  if (sent) KEEP(rc, tutti_waitall(r, sent, q, NULL));
  return rc;
}

/* One message down the tree: from the parent, then to every child. */
static int bcast_once(tutti_rank_t *r, const tutti__node_t *nd, void *buf, long count,
                      tutti_datatype_t type, int tag, tutti_request_t *q) {
  int rc = 0;
  if (nd->parent >= 0) rc = tutti_recv(r, buf, count, type, nd->parent, tag, TUTTI_STATUS_IGNORE);
  return rc ? rc : send_children(r, nd, buf, count, type, tag, q);
}

int tutti__bcast_repeat(tutti_rank_t *r, const tutti__node_t *nd, void *buf, long count,
                        tutti_datatype_t type) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  tutti_request_t q[16]; /* a node in the memo has at most 16 children */
  return bcast_once(r, nd, buf, count, type, tag, q);
}

int tutti__tree_bcast(tutti_rank_t *r, const tutti_treespec_t *spec, void *buf, long count,
                      tutti_datatype_t type, int root, size_t segment, int tag) {
  tutti__node_t own;
  const tutti__node_t *nd;
  int rc = tutti__node_get(spec, r, root, &own, &nd);
  if (rc) return rc;
  size_t esz = tutti_type_size(type);
  long segn, nseg;
  segments(count, esz, segment, &segn, &nseg);
  struct reqs rq;
  /* Not filled with TUTTI_REQUEST_NULL (GCC makes that a call to memset):
   * only the requests sent are waited for. */
  if ((rc = reqs_alloc(&rq, nd->nchildren))) goto out;
  tutti_request_t rreq = TUTTI_REQUEST_NULL;
  /* One segment is a blocking receive: the same events as irecv and wait,
   * and a message already there is taken without a request (p2p.c
   * tutti_recv). Apart from the loop: its frame was 5% of an 8 B bcast. */
  if (nseg == 1) {
    rc = bcast_once(r, nd, buf, count, type, tag, rq.q);
    goto done;
  }
  /* Post the receive of segment s+1 before forwarding segment s: the
   * upward transfer overlaps the downward ones, which is the pipeline. */
  if (nd->parent >= 0) rc = tutti_irecv(r, buf, segn, type, nd->parent, tag, &rreq);
  for (long s = 0; s < nseg && !rc; s++) {
    long off = s * segn, n = count - off < segn ? count - off : segn;
    if (nd->parent >= 0) {
      if ((rc = tutti_wait(r, &rreq, TUTTI_STATUS_IGNORE))) break;
      if (s + 1 < nseg) {
        long n1 = count - off - n < segn ? count - off - n : segn;
        if ((rc = tutti_irecv(r, at(buf, (size_t)(off + n) * esz), n1, type, nd->parent, tag,
                              &rreq)))
          break;
      }
    }
    rc = send_children(r, nd, at(buf, (size_t)off * esz), n, type, tag, rq.q);
  }
  if (rreq) KEEP(rc, tutti_wait(r, &rreq, TUTTI_STATUS_IGNORE)); /* an error left it posted */
done:
  reqs_free(&rq);
out:
  tutti__node_free(&own);
  return rc;
}

/* ----------------------------------------------------------------- reduce */

/* order[] (reverse send order on entry) -> children by increasing lo. Send
 * order is decreasing for most kinds and increasing for flat, so a sort is
 * rarely needed. */
static int ascending(const tutti__node_t *nd, int *order) {
  int n = nd->nchildren, up = 1, down = 1;
  for (int i = 1; i < n; i++) {
    up &= nd->child[i - 1].lo < nd->child[i].lo;
    down &= nd->child[i - 1].lo > nd->child[i].lo;
  }
  if (down) return 0;
  if (up) {
    for (int i = 0; i < n; i++) order[i] = i;
    return 0;
  }
  tutti__child_t *c = malloc((size_t)n * sizeof *c);
  if (!c) return TUTTI_ENOMEM;
  for (int i = 0; i < n; i++) c[i] = (tutti__child_t){i, nd->child[i].lo, 0};
  qsort(c, (size_t)n, sizeof *c, cmp_lo);
  for (int i = 0; i < n; i++) order[i] = c[i].rank;
  free(c);
  return 0;
}

/*
 * Order. Relative ranks put the root first; absolute order is relative
 * b, b+1, ..., P-1, 0, 1, ..., b-1 with b = (P - root) mod P. So the result
 * is A (op) B, where A combines relative [b, P) ("region 0": absolute
 * 0..root-1) and B relative [0, b) ("region 1": absolute root..P-1), each
 * in increasing relative order. A contiguous subtree lies in one region,
 * except on the path from the root to relative rank b, whose subtrees wrap:
 * those ranks send both partial results, [B part | A part], in one message
 * of twice the size. With a commutative op, or root 0, b = 0: one region,
 * one message per edge. Appending a piece to an accumulator is
 * reduce_local(acc, piece) -- piece = acc (op) piece -- then a copy back
 * (free in modeled time).
 */
struct acc {
  const void *val; /* NULL: empty; else the own input or `buf` */
  void *buf;
};

static int append(tutti_rank_t *r, struct acc *a, void *piece, long n, size_t esz,
                  tutti_datatype_t type, tutti_op_t op) {
  int rc = 0;
  if (n && a->val) rc = tutti_reduce_local_r(r, a->val, piece, n, type, op);
  if (n && !rc) rc = tutti_local_copy(r, a->buf, piece, (size_t)n * esz);
  a->val = a->buf;
  return rc;
}

int tutti__tree_reduce(tutti_rank_t *r, const tutti_treespec_t *spec, const void *sbuf, void *rbuf,
                       long count, tutti_datatype_t type, tutti_op_t op, int root, size_t segment,
                       int tag) {
  int comm = tutti_op_commutative(op);
  if (comm < 0) return comm;
  tutti__node_t own;
  const tutti__node_t *nd;
  int rc = tutti__node_get(spec, r, root, &own, &nd);
  if (rc) return rc;
  const int P = nd->size, nc = nd->nchildren;
  const int b = comm ? 0 : (P - root) % P;
  if (!nd->contiguous && b) {
    tutti__node_free(&own);
    return TUTTI_ENOTSUP;
  }
  size_t esz = tutti_type_size(type);
  long segn, nseg;
  segments(count, esz, segment, &segn, &nseg);
#define STRADDLES(lo, n) (b > (lo) && b < (lo) + (n))
  const int own_region = nd->vrank < b, own_straddles = STRADDLES(nd->lo, nd->count);
  /* Receive order: increasing relative rank on contiguous trees (= reverse
   * send order for binomial, lambda and postal trees, whose first-served
   * child has the deepest subtree; send order for flat), reverse send
   * order otherwise. */
  int order_small[16], *order = nc <= 16 ? order_small : malloc((size_t)nc * sizeof *order);
  char *mem = NULL;
  tutti_request_t sreq = TUTTI_REQUEST_NULL;
  if (!order) {
    rc = TUTTI_ENOMEM;
    goto out;
  }
  for (int i = 0; i < nc; i++) order[i] = nc - 1 - i;
  if (nd->contiguous && (rc = ascending(nd, order))) goto out;
  /* Buffers (inner ranks only): a receive buffer, the accumulator of
   * region 0, and on the wrap-around path's side of things the second
   * accumulator and the double-size receive and packing buffers. With a
   * commutative op or root 0 that is two segments. */
  int child_straddles = 0;
  for (int i = 0; i < nc; i++) child_straddles |= STRADDLES(nd->child[i].lo, nd->child[i].count);
  size_t sb = (size_t)segn * esz, tmpsz = (child_straddles ? 2 : 1) * sb;
  size_t acc1sz = b ? sb : 0, packsz = own_straddles ? 2 * sb : 0;
  if (nc && !(mem = malloc(tmpsz + sb + acc1sz + packsz + 1))) {
    rc = TUTTI_ENOMEM;
    goto out;
  }
  char *tmp = mem, *acc0 = mem ? mem + tmpsz : NULL, *acc1 = acc0 ? acc0 + sb : NULL;
  char *pack = acc1 ? acc1 + acc1sz : NULL;
  struct acc A[2];
  for (long s = 0; s < nseg && !rc; s++) {
    long off = s * segn, n = count - off < segn ? count - off : segn;
    A[0] = (struct acc){NULL, acc0};
    A[1] = (struct acc){NULL, acc1};
    A[own_region].val = at(sbuf, (size_t)off * esz);
    for (int k = 0; k < nc && !rc; k++) {
      const tutti__child_t *c = &nd->child[order[k]];
      int two = STRADDLES(c->lo, c->count);
      if ((rc = tutti_recv(r, tmp, two ? 2 * n : n, type, c->rank, tag, TUTTI_STATUS_IGNORE)))
        break;
      /* The previous segment's send must be done before its buffers are
       * overwritten; waiting only now lets it overlap this receive. */
      if (k == 0 && (rc = tutti_wait(r, &sreq, TUTTI_STATUS_IGNORE))) break;
      if (two) {
        rc = append(r, &A[1], tmp, n, esz, type, op);
        if (!rc) rc = append(r, &A[0], tmp + (size_t)n * esz, n, esz, type, op);
      } else {
        rc = append(r, &A[c->lo < b], tmp, n, esz, type, op);
      }
    }
    if (rc) break;
    if (nc == 0 && (rc = tutti_wait(r, &sreq, TUTTI_STATUS_IGNORE))) break;
    if (nd->parent < 0) {
      /* Root: A (op) B into rbuf; a copy onto itself (in place, P = 1) is skipped. */
      char *dst = at(rbuf, (size_t)off * esz);
      const void *last = A[1].val ? A[1].val : A[0].val;
      if (n && last != dst) rc = tutti_local_copy(r, dst, last, (size_t)n * esz);
      if (!rc && n && A[0].val && A[1].val)
        rc = tutti_reduce_local_r(r, A[0].val, dst, n, type, op);
    } else if (own_straddles) {
      if (n && !(rc = tutti_local_copy(r, pack, A[1].val, (size_t)n * esz)))
        rc = tutti_local_copy(r, pack + (size_t)n * esz, A[0].val, (size_t)n * esz);
      if (!rc) rc = tutti_isend(r, pack, 2 * n, type, nd->parent, tag, &sreq);
    } else {
      rc = tutti_isend(r, A[own_region].val, n, type, nd->parent, tag, &sreq);
    }
  }
#undef STRADDLES
  KEEP(rc, tutti_wait(r, &sreq, TUTTI_STATUS_IGNORE));
out:
  free(mem);
  if (order != order_small) free(order);
  tutti__node_free(&own);
  return rc;
}

/* --------------------------------------------------------- gather, scatter */

/* A child's subtree in absolute ranks starts at (lo + root) mod P and may
 * wrap past P-1 (at most one child of the root does). */
static int abs_start(const tutti__node_t *nd, const tutti__child_t *c) {
  return c->lo < nd->size - nd->root ? c->lo + nd->root : c->lo - (nd->size - nd->root);
}

int tutti__tree_gather(tutti_rank_t *r, const tutti_treespec_t *spec, const void *sbuf, size_t blk,
                       void *rbuf, int root, int tag) {
  tutti__node_t own;
  const tutti__node_t *nd;
  int rc = tutti__node_get(spec, r, root, &own, &nd);
  if (rc) return rc;
  struct reqs rq = {0};
  char *buf = NULL, *wrapbuf = NULL;
  int wrap = -1;
  const int P = nd->size;
  if (!nd->contiguous) {
    rc = TUTTI_ENOTSUP;
    goto out;
  }
  if (nd->parent >= 0 && nd->nchildren == 0) { /* a leaf sends its own block */
    rc = tutti_send(r, sbuf, (long)blk, TUTTI_BYTE, nd->parent, tag);
    goto out;
  }
  if ((rc = reqs_init(&rq, nd->nchildren))) goto out;
  if (nd->parent < 0) {
    /* The root receives straight into rbuf, except the one subtree that
     * wraps past rank P-1. */
    char *out = rbuf;
    if (sbuf && blk && sbuf != out + (size_t)root * blk)
      rc = tutti_local_copy(r, out + (size_t)root * blk, sbuf, blk);
    for (int i = 0; i < nd->nchildren && !rc; i++) {
      const tutti__child_t *c = &nd->child[i];
      int a = abs_start(nd, c);
      char *dst = at(out, (size_t)a * blk);
      if (a + c->count > P) {
        if (!(wrapbuf = malloc((size_t)c->count * blk + 1))) {
          rc = TUTTI_ENOMEM;
          break;
        }
        dst = wrapbuf, wrap = i;
      }
      rc = tutti_irecv(r, dst, (long)((size_t)c->count * blk), TUTTI_BYTE, c->rank, tag, &rq.q[i]);
    }
    KEEP(rc, tutti_waitall(r, nd->nchildren, rq.q, NULL));
    if (!rc && wrap >= 0) {
      int a = abs_start(nd, &nd->child[wrap]), head = P - a;
      rc = tutti_local_copy(r, out + (size_t)a * blk, wrapbuf, (size_t)head * blk);
      KEEP(rc, tutti_local_copy(r, out, wrapbuf + (size_t)head * blk,
                                (size_t)(nd->child[wrap].count - head) * blk));
    }
  } else {
    /* An inner rank assembles its subtree's blocks in relative order. */
    if (!(buf = malloc((size_t)nd->count * blk + 1))) {
      rc = TUTTI_ENOMEM;
      goto out;
    }
    if (blk) rc = tutti_local_copy(r, buf, sbuf, blk);
    for (int i = 0; i < nd->nchildren && !rc; i++) {
      const tutti__child_t *c = &nd->child[i];
      rc = tutti_irecv(r, buf + (size_t)(c->lo - nd->lo) * blk, (long)((size_t)c->count * blk),
                       TUTTI_BYTE, c->rank, tag, &rq.q[i]);
    }
    KEEP(rc, tutti_waitall(r, nd->nchildren, rq.q, NULL));
    if (!rc) rc = tutti_send(r, buf, (long)((size_t)nd->count * blk), TUTTI_BYTE, nd->parent, tag);
  }
out:
  free(buf);
  free(wrapbuf);
  if (rq.q) reqs_free(&rq);
  tutti__node_free(&own);
  return rc;
}

int tutti__tree_scatter(tutti_rank_t *r, const tutti_treespec_t *spec, const void *sbuf, size_t blk,
                        void *rbuf, int root, int tag) {
  tutti__node_t own;
  const tutti__node_t *nd;
  int rc = tutti__node_get(spec, r, root, &own, &nd);
  if (rc) return rc;
  struct reqs rq = {0};
  char *buf = NULL;
  const int P = nd->size;
  if (!nd->contiguous) {
    rc = TUTTI_ENOTSUP;
    goto out;
  }
  if (nd->parent >= 0 && nd->nchildren == 0) { /* a leaf receives its own block */
    rc = tutti_recv(r, rbuf, (long)blk, TUTTI_BYTE, nd->parent, tag, TUTTI_STATUS_IGNORE);
    goto out;
  }
  if ((rc = reqs_init(&rq, nd->nchildren))) goto out;
  const char *in = sbuf;
  if (nd->parent < 0) {
    if (rbuf && blk && rbuf != in + (size_t)root * blk)
      rc = tutti_local_copy(r, rbuf, in + (size_t)root * blk, blk);
    /* The one subtree that wraps past rank P-1 is packed first. */
    for (int i = 0; i < nd->nchildren && !rc; i++) {
      const tutti__child_t *c = &nd->child[i];
      int a = abs_start(nd, c);
      const char *src = at(in, (size_t)a * blk);
      if (a + c->count > P) {
        int head = P - a;
        if (!(buf = malloc((size_t)c->count * blk + 1))) {
          rc = TUTTI_ENOMEM;
          break;
        }
        rc = tutti_local_copy(r, buf, src, (size_t)head * blk);
        KEEP(rc,
             tutti_local_copy(r, buf + (size_t)head * blk, in, (size_t)(c->count - head) * blk));
        if (rc) break;
        src = buf;
      }
      rc = tutti_isend(r, src, (long)((size_t)c->count * blk), TUTTI_BYTE, c->rank, tag, &rq.q[i]);
    }
  } else {
    if (!(buf = malloc((size_t)nd->count * blk + 1))) {
      rc = TUTTI_ENOMEM;
      goto out;
    }
    rc = tutti_recv(r, buf, (long)((size_t)nd->count * blk), TUTTI_BYTE, nd->parent, tag,
                    TUTTI_STATUS_IGNORE);
    if (!rc && blk) rc = tutti_local_copy(r, rbuf, buf, blk);
    for (int i = 0; i < nd->nchildren && !rc; i++) {
      const tutti__child_t *c = &nd->child[i];
      rc = tutti_isend(r, buf + (size_t)(c->lo - nd->lo) * blk, (long)((size_t)c->count * blk),
                       TUTTI_BYTE, c->rank, tag, &rq.q[i]);
    }
  }
  KEEP(rc, tutti_waitall(r, nd->nchildren, rq.q, NULL));
out:
  free(buf);
  if (rq.q) reqs_free(&rq);
  tutti__node_free(&own);
  return rc;
}

/* ------------------------------------------------------------- parameters */

#define MAX_AUTO_L 4096 /* the registry's upper bound of L */

int tutti__model_postal_L(const tutti_model_t *m, size_t bytes) {
  /* For the postal preset this is exactly L (latency L, gap 1). */
  double lat = tutti_cost_eval(&m->latency, (double)bytes);
  double gap = tutti_cost_eval(&m->send_port, (double)bytes);
  if (!(lat > 0 && gap > 0)) return TUTTI_TREE_DEFAULT_L;
  double L = lat / gap;
  if (!(L >= 1)) return 1;
  return L > MAX_AUTO_L ? MAX_AUTO_L : (int)lround(L);
}

int tutti__algo_tree(const tutti_rank_t *r, const tutti_algo_t *a, size_t bytes,
                     tutti_treespec_t *spec) {
  const tutti_params_t *p = &a->p;
  /* The model's L only when a parameter is auto: it evaluates two cost
   * functions, on every call of a small collective. */
  if (isnan(p->lambda) || p->L == TUTTI_PARAM_AUTO)
    return tutti_algo_treespec(a, tutti__model_postal_L(tutti_rank_model(r), bytes), spec);
  /* Nothing auto: tutti_algo_treespec's result, without its argument checks
   * (the call is validated) and defaults it would overwrite. */
  *spec = (tutti_treespec_t){a->desc->tree, (int)p->k, p->lambda, (int)p->L};
  return tutti_tree_check(spec);
}

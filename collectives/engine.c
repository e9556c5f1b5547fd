/*
 * engine.c -- the movers every tree-based collective shares (engine.h):
 * push a buffer down a tree in segments, combine up a tree in rank order,
 * gather and scatter blocks along contiguous subtrees. In the spirit of
 * Open MPI's coll/base generic bcast/reduce: one routine per direction, any
 * tree; an algorithm only chooses the tree and the segment size.
 *
 * A rank's tree node, and what it keeps between calls, are in plan.c.
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
static inline char *offset_or_null(const void *p, size_t off) {
  return p ? (char *)p + off : NULL;
}

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

int tutti__tree_in_turn(int kind) {
  return kind == TUTTI_TREE_BINOMIAL || kind == TUTTI_TREE_LAMBDA || kind == TUTTI_TREE_POSTAL;
}

/* n elements at p to every child of nd, and wait for the sends (none at
 * leaves): one after the other, or posted at once (tutti__tree_in_turn);
 * q has room for a request per child. */
static int send_children(tutti_rank_t *r, const tutti__node_t *nd, void *p, long n,
                         tutti_datatype_t type, int tag, tutti_request_t *q) {
  int rc = 0, sent = 0;
  if (nd->in_turn) {
    for (; sent < nd->nchildren && !rc; sent++)
      rc = tutti_send(r, p, n, type, nd->child[sent].rank, tag);
    return rc;
  }
  for (; sent < nd->nchildren; sent++)
    if ((rc = tutti_isend(r, p, n, type, nd->child[sent].rank, tag, &q[sent]))) break;
  if (sent) KEEP_FIRST_ERROR(rc, tutti_waitall(r, sent, q, NULL));
  return rc;
}

/* One message down the tree: from the parent, then to every child. */
static int bcast_once(tutti_rank_t *r, const tutti__node_t *nd, void *buf, long count,
                      tutti_datatype_t type, int tag, tutti_request_t *q) {
  int rc = 0;
  if (nd->parent >= 0) rc = tutti_recv(r, buf, count, type, nd->parent, tag, TUTTI_STATUS_IGNORE);
  return rc ? rc : send_children(r, nd, buf, count, type, tag, q);
}

int tutti__bcast_direct(tutti_rank_t *r, const tutti__node_t *nd, void *buf, long count,
                        tutti_datatype_t type) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  tutti_request_t q[16]; /* a node a plan keeps has at most 16 children */
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
   * tutti_recv). Apart from the loop, whose frame a small bcast would pay. */
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
        if ((rc = tutti_irecv(r, offset_or_null(buf, (size_t)(off + n) * esz), n1, type, nd->parent,
                              tag, &rreq)))
          break;
      }
    }
    rc = send_children(r, nd, offset_or_null(buf, (size_t)off * esz), n, type, tag, rq.q);
  }
  if (rreq)
    KEEP_FIRST_ERROR(rc, tutti_wait(r, &rreq, TUTTI_STATUS_IGNORE)); /* an error left it posted */
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
  qsort(c, (size_t)n, sizeof *c, tutti__child_cmp_lo);
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

/* One region (a commutative op, or root 0: b = 0): per segment the
 * accumulator starts as the rank's own input, and each child's partial
 * comes into a buffer that is neither the accumulator nor the previous
 * segment's send still in flight; reduce_local(acc, piece) leaves
 * acc (op) piece there, which is then the accumulator. The buffers, in
 * the order taken: the segment of rbuf where the rank may write it
 * (`mine`: the root's, and every rank's with `everywhere`), then two
 * segments of scratch, taken when first needed. So a rank with one child
 * writes one buffer (rbuf's, where it may), one with more two, and no
 * partial is copied. Same receives, waits, reductions and sends, in the
 * same order, as the two-region path below. */
static int reduce_one_region(tutti_rank_t *r, const tutti__node_t *nd, const int *order,
                             const char *sbuf, char *rbuf, int mine_ok, long count,
                             tutti_datatype_t type, tutti_op_t op, long segn, long nseg, int tag) {
  size_t esz = tutti_type_size(type), sb = (size_t)segn * esz;
  const int nc = nd->nchildren;
  char *scr = NULL;
  const char *sent = NULL; /* the buffer of the send in flight */
  tutti_request_t sreq = TUTTI_REQUEST_NULL;
  int rc = 0;
  for (long s = 0; s < nseg && !rc; s++) {
    long off = s * segn, n = count - off < segn ? count - off : segn;
    const char *acc = offset_or_null(sbuf, (size_t)off * esz);
    char *mine = mine_ok ? offset_or_null(rbuf, (size_t)off * esz) : NULL;
    for (int k = 0; k < nc && !rc; k++) {
      char *in = mine;
      if (!in || in == acc || in == sent) {
        if (!scr && !(scr = tutti_scratch_alloc(r, 2 * sb + 1))) {
          rc = TUTTI_ENOMEM;
          break;
        }
        in = scr != acc && scr != sent ? scr : scr + sb;
      }
      if ((rc = tutti_recv(r, in, n, type, nd->child[order[k]].rank, tag, TUTTI_STATUS_IGNORE)))
        break;
      /* the previous segment's send is waited for here, as in the other path */
      if (k == 0 && (rc = tutti_wait(r, &sreq, TUTTI_STATUS_IGNORE))) break;
      if (k == 0) sent = NULL;
      if (n) rc = tutti_reduce_local_r(r, acc, in, n, type, op);
      acc = in;
    }
    if (rc) break;
    if (nc == 0 && (rc = tutti_wait(r, &sreq, TUTTI_STATUS_IGNORE))) break;
    if (nd->parent < 0) { /* root: the result into rbuf (a copy onto itself is skipped) */
      char *dst = offset_or_null(rbuf, (size_t)off * esz);
      if (n && acc != dst) rc = tutti_local_copy(r, dst, acc, (size_t)n * esz);
    } else {
      rc = tutti_isend(r, acc, n, type, nd->parent, tag, &sreq);
      sent = acc;
    }
  }
  KEEP_FIRST_ERROR(rc, tutti_wait(r, &sreq, TUTTI_STATUS_IGNORE));
  tutti_scratch_free(r, scr);
  return rc;
}

int tutti__tree_reduce(tutti_rank_t *r, const tutti_treespec_t *spec, const void *sbuf, void *rbuf,
                       long count, tutti_datatype_t type, tutti_op_t op, int root, size_t segment,
                       int everywhere, int tag) {
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
  if (!b) {
    rc = reduce_one_region(r, nd, order, sbuf, rbuf, nd->parent < 0 || everywhere, count, type, op,
                           segn, nseg, tag);
    goto out;
  }
  /* Buffers (inner ranks only): a receive buffer, the accumulator of
   * region 0, and on the wrap-around path's side of things the second
   * accumulator and the double-size receive and packing buffers. */
  int child_straddles = 0;
  for (int i = 0; i < nc; i++) child_straddles |= STRADDLES(nd->child[i].lo, nd->child[i].count);
  size_t sb = (size_t)segn * esz, tmpsz = (child_straddles ? 2 : 1) * sb;
  size_t acc1sz = b ? sb : 0, packsz = own_straddles ? 2 * sb : 0;
  if (nc && !(mem = tutti_scratch_alloc(r, tmpsz + sb + acc1sz + packsz + 1))) {
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
    A[own_region].val = offset_or_null(sbuf, (size_t)off * esz);
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
      char *dst = offset_or_null(rbuf, (size_t)off * esz);
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
  KEEP_FIRST_ERROR(rc, tutti_wait(r, &sreq, TUTTI_STATUS_IGNORE));
out:
  tutti_scratch_free(r, mem);
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
      char *dst = offset_or_null(out, (size_t)a * blk);
      if (a + c->count > P) {
        if (!(wrapbuf = tutti_scratch_alloc(r, (size_t)c->count * blk + 1))) {
          rc = TUTTI_ENOMEM;
          break;
        }
        dst = wrapbuf, wrap = i;
      }
      rc = tutti_irecv(r, dst, (long)((size_t)c->count * blk), TUTTI_BYTE, c->rank, tag, &rq.q[i]);
    }
    KEEP_FIRST_ERROR(rc, tutti_waitall(r, nd->nchildren, rq.q, NULL));
    if (!rc && wrap >= 0) {
      int a = abs_start(nd, &nd->child[wrap]), head = P - a;
      rc = tutti_local_copy(r, out + (size_t)a * blk, wrapbuf, (size_t)head * blk);
      KEEP_FIRST_ERROR(rc, tutti_local_copy(r, out, wrapbuf + (size_t)head * blk,
                                            (size_t)(nd->child[wrap].count - head) * blk));
    }
  } else {
    /* An inner rank assembles its subtree's blocks in relative order, its
     * own block last: the buffer's pages are written only as they are
     * needed (a subtree's blocks come when the child's subtree is done). */
    if (!(buf = tutti_scratch_alloc(r, (size_t)nd->count * blk + 1))) {
      rc = TUTTI_ENOMEM;
      goto out;
    }
    for (int i = 0; i < nd->nchildren && !rc; i++) {
      const tutti__child_t *c = &nd->child[i];
      rc = tutti_irecv(r, buf + (size_t)(c->lo - nd->lo) * blk, (long)((size_t)c->count * blk),
                       TUTTI_BYTE, c->rank, tag, &rq.q[i]);
    }
    KEEP_FIRST_ERROR(rc, tutti_waitall(r, nd->nchildren, rq.q, NULL));
    if (!rc && blk) rc = tutti_local_copy(r, buf, sbuf, blk);
    if (!rc) rc = tutti_send(r, buf, (long)((size_t)nd->count * blk), TUTTI_BYTE, nd->parent, tag);
  }
out:
  tutti_scratch_free(r, buf);
  tutti_scratch_free(r, wrapbuf);
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
      const char *src = offset_or_null(in, (size_t)a * blk);
      if (a + c->count > P) {
        int head = P - a;
        if (!(buf = tutti_scratch_alloc(r, (size_t)c->count * blk + 1))) {
          rc = TUTTI_ENOMEM;
          break;
        }
        rc = tutti_local_copy(r, buf, src, (size_t)head * blk);
        KEEP_FIRST_ERROR(
            rc, tutti_local_copy(r, buf + (size_t)head * blk, in, (size_t)(c->count - head) * blk));
        if (rc) break;
        src = buf;
      }
      rc = tutti_isend(r, src, (long)((size_t)c->count * blk), TUTTI_BYTE, c->rank, tag, &rq.q[i]);
    }
  } else {
    if (!(buf = tutti_scratch_alloc(r, (size_t)nd->count * blk + 1))) {
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
  KEEP_FIRST_ERROR(rc, tutti_waitall(r, nd->nchildren, rq.q, NULL));
out:
  tutti_scratch_free(r, buf);
  if (rq.q) reqs_free(&rq);
  tutti__node_free(&own);
  return rc;
}

/* ------------------------------------------------------------- parameters */

int tutti__algo_tree(const tutti_rank_t *r, const tutti_algo_t *a, size_t bytes,
                     tutti_treespec_t *spec) {
  const struct tutti__entry *e = a->e;
  int il = e->tp[TUTTI__TP_LAMBDA], iL = e->tp[TUTTI__TP_L];
  /* The model's L only when a parameter is auto: it evaluates two cost
   * functions, on every call of a small collective. */
  int L = 1;
  if ((il >= 0 && (a->is_auto >> il & 1u)) || (iL >= 0 && (a->is_auto >> iL & 1u)))
    L = tutti_algo_postal_L(tutti_rank_model(r), bytes);
  return tutti_algo_treespec(a, L, spec);
}

/*
 * scan_linear.c -- scan and exscan `linear`: a chain in rank order. Rank 0
 * sends x_0 to rank 1; rank i receives the prefix x_0 op ... op x_(i-1)
 * from rank i-1, combines its own x_i on the right, and sends the longer
 * prefix on to rank i+1. Every combination is (lower ranks) op (higher
 * ranks), so a non-commutative op is right. The scan's result is the
 * prefix a rank sends; the exscan's is the one it receives.
 *
 * Source: MPI-1 (1994) sec. 4.9's definition of MPI_Scan, run as written;
 * Open MPI's coll/basic mca_coll_basic_scan_intra and
 * mca_coll_basic_exscan_intra (receive from rank - 1, combine, send to
 * rank + 1).
 *
 * Cost under Hockney, m bytes per rank: scan (P-1)(alpha + beta m + gamma
 * m); exscan (P-1)(alpha + beta m) + (P-2) gamma m (the last rank does not
 * combine). Exact: the ranks wait for each other in a line.
 *
 * Memory: a rank's scratch of m bytes (the combination apart from its
 * result, x_i on the right) is taken once its prefix has come into rbuf
 * and given back before it waits again, so along the chain about one
 * rank at a time holds it (taken at the start, every rank held it at
 * once). In place, x_i (exscan) or the prefix (scan) takes it from the
 * start.
 */
#include "engine.h"
#include "tutti/coll.h"

static int chain(tutti_rank_t *r, const void *sbuf, void *rbuf, long count, tutti_datatype_t type,
                 tutti_op_t op, int exclusive) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0;
  size_t bytes = (size_t)count * tutti_type_size(type);
  const void *x = sbuf == TUTTI_IN_PLACE ? rbuf : sbuf;
  if (me == 0) { /* x_0 is the first prefix; exscan leaves rank 0's rbuf alone */
    if (!exclusive && x != rbuf) rc = tutti_local_copy(r, rbuf, x, bytes);
    return rc || P == 1 ? rc : tutti_send(r, x, count, type, 1, tag);
  }
  /* Not in place: the prefix into rbuf, then t = x_i, taken only now
   * (header: Memory), and t = prefix op x_i. */
  void *t = NULL;
  if (x != rbuf) {
    rc = tutti_recv(r, rbuf, count, type, me - 1, tag, TUTTI_STATUS_IGNORE);
    if (rc || (exclusive && me == P - 1)) return rc; /* the last rank's result is the prefix */
    if (!(t = tutti_scratch_alloc(r, bytes ? bytes : 1))) return TUTTI_ENOMEM;
    rc = tutti_local_copy(r, t, x, bytes);
    if (!rc) rc = tutti_reduce_local_r(r, rbuf, t, count, type, op); /* t = prefix op x_i */
    if (!rc && !exclusive) rc = tutti_local_copy(r, rbuf, t, bytes);
    if (!rc && me < P - 1) rc = tutti_send(r, exclusive ? t : rbuf, count, type, me + 1, tag);
    tutti_scratch_free(r, t);
    return rc;
  }
  if (!(t = tutti_scratch_alloc(r, bytes ? bytes : 1))) return TUTTI_ENOMEM;
  if (exclusive) { /* t = x_i (saved first: rbuf is about to change) */
    rc = tutti_local_copy(r, t, x, bytes);
    if (!rc) rc = tutti_recv(r, rbuf, count, type, me - 1, tag, TUTTI_STATUS_IGNORE);
    if (!rc && me < P - 1) rc = tutti_reduce_local_r(r, rbuf, t, count, type, op);
    if (!rc && me < P - 1) rc = tutti_send(r, t, count, type, me + 1, tag);
  } else { /* prefix op x_i in place */
    rc = tutti_recv(r, t, count, type, me - 1, tag, TUTTI_STATUS_IGNORE);
    if (!rc) rc = tutti_reduce_local_r(r, t, rbuf, count, type, op);
    if (!rc && me < P - 1) rc = tutti_send(r, rbuf, count, type, me + 1, tag);
  }
  tutti_scratch_free(r, t);
  return rc;
}

int tutti__scan_linear(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                       tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;
  return chain(r, sbuf, rbuf, count, type, op, 0);
}

int tutti__exscan_linear(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                         tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;
  return chain(r, sbuf, rbuf, count, type, op, 1);
}

double tutti__scan_linear_cost(const tutti_algo_t *a, int P, int root, size_t m,
                               const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  return (P - 1) * (h->alpha + (h->beta + h->gamma) * (double)m);
}

/* A message a link of the chain. */
double tutti__scan_linear_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                               const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return P - 1;
}

double tutti__exscan_linear_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  if (P == 1) return 0;
  return (P - 1) * (h->alpha + h->beta * (double)m) + (P - 2) * h->gamma * (double)m;
}

/* A message a link of the chain. */
double tutti__exscan_linear_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                 const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  return P - 1;
}

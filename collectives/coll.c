/*
 * coll.c -- the public collectives (coll.h): check the arguments, choose
 * the algorithm, check its restrictions, and run it as one span of the
 * modeled-time report named after the collective.
 *
 * Argument errors are caught here, before any message moves, so a bad call
 * fails the same way on every rank that makes it: TUTTI_EINVAL (no rank,
 * TUTTI_IN_PLACE where MPI does not allow it, an algorithm of another
 * collective), TUTTI_ERANK (root), TUTTI_ECOUNT, TUTTI_EBUFFER (NULL with
 * a nonzero count), TUTTI_ETYPE, TUTTI_EOP (tutti_op_check), TUTTI_ENOTSUP
 * (a restriction of the algorithm, tutti_algo_check). As in MPI, the
 * receive arguments of gather and the send arguments of scatter are
 * checked only at the root, where they are used. allgather and
 * reduce_scatter check their P-block buffer on every rank, alltoall both of
 * its buffers; scan and exscan take allreduce's arguments.
 *
 * Then the call's plan (plan.c) gives the algorithm to run, validated
 * for the call, and the call runs as one span.
 *
 * Tags are not taken here: each algorithm takes its one tag itself
 * (engine.h "Tags"), so an algorithm called through desc->fn behaves the
 * same.
 */
#include <stdint.h>

#include "engine.h"
#include "tutti/coll.h"

/* count elements of type at buf: ETYPE, ECOUNT, EBUFFER or 0. */
static int check_buf(const void *buf, long count, tutti_datatype_t type) {
  size_t esz = tutti_type_size(type);
  if (!esz) return TUTTI_ETYPE;
  size_t bytes; /* not count > SIZE_MAX / esz: a division on every call */
  if (count < 0 || __builtin_mul_overflow((size_t)count, esz, &bytes)) return TUTTI_ECOUNT;
  if (count > 0 && !buf) return TUTTI_EBUFFER;
  return 0;
}

static int check_rank(const tutti_rank_t *r, int root) {
  if (!r || tutti_size(r) < 1) return TUTTI_EINVAL;
  if (root < 0 || root >= tutti_size(r)) return TUTTI_ERANK;
  return 0;
}

/* The call's plan (plan.c: found, or built and validated), its span
 * opened; *a: the algorithm to run. tutti__call_end closes it. */
#define BEGIN(coll, op, root, count, type)                                                         \
  do {                                                                                             \
    rc = tutti__call_begin(r, coll, algo, root, count, type, op,                                   \
                           (size_t)(count)*tutti_type_size(type), &a, &direct);                    \
    if (rc) return rc;                                                                             \
  } while (0)

int tutti_bcast(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                const tutti_algo_t *algo) {
  int rc;
  const tutti_algo_t *a;
  const tutti__node_t *direct;
  if ((rc = check_rank(r, root))) return rc;
  if (buf == TUTTI_IN_PLACE) return TUTTI_EINVAL;
  if ((rc = check_buf(buf, count, type))) return rc;
  BEGIN(TUTTI_COLL_BCAST, NULL, root, count, type);
  /* the same one-message tree bcast again: straight down its node */
  if (direct) return tutti__call_end(r, tutti__bcast_direct(r, direct, buf, count, type));
  return tutti__call_end(r, a->e->d.fn.bcast(r, buf, count, type, root, a));
}

int tutti_reduce(tutti_rank_t *r, const void *sbuf, void *rbuf, long count, tutti_datatype_t type,
                 tutti_op_t op, int root, const tutti_algo_t *algo) {
  int rc;
  const tutti_algo_t *a;
  const tutti__node_t *direct;
  if ((rc = check_rank(r, root))) return rc;
  int isroot = tutti_rank(r) == root;
  if (sbuf == TUTTI_IN_PLACE && !isroot) return TUTTI_EINVAL;
  if (isroot && rbuf == TUTTI_IN_PLACE) return TUTTI_EINVAL;
  if ((rc = check_buf(sbuf == TUTTI_IN_PLACE ? rbuf : sbuf, count, type))) return rc;
  if (isroot && (rc = check_buf(rbuf, count, type))) return rc;
  if ((rc = tutti_op_check(op, type))) return rc;
  BEGIN(TUTTI_COLL_REDUCE, op, root, count, type);
  return tutti__call_end(r, a->e->d.fn.reduce(r, sbuf, rbuf, count, type, op, root, a));
}

int tutti_allreduce(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                    tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *algo) {
  int rc;
  const tutti_algo_t *a;
  const tutti__node_t *direct;
  if ((rc = check_rank(r, 0))) return rc;
  if (rbuf == TUTTI_IN_PLACE) return TUTTI_EINVAL;
  if ((rc = check_buf(rbuf, count, type))) return rc;
  if (sbuf != TUTTI_IN_PLACE && (rc = check_buf(sbuf, count, type))) return rc;
  if ((rc = tutti_op_check(op, type))) return rc;
  BEGIN(TUTTI_COLL_ALLREDUCE, op, -1, count, type);
  return tutti__call_end(r, a->e->d.fn.allreduce(r, sbuf, rbuf, count, type, op, a));
}

/* The root's side of gather (receive) and scatter (send): P blocks of
 * count elements, and the block size matching the other side's, unless
 * the other side is in place. */
static int check_blocks(const tutti_rank_t *r, const void *buf, long count, tutti_datatype_t type,
                        int other_in_place, long ocount, tutti_datatype_t otype) {
  int rc;
  size_t P = (size_t)tutti_size(r), esz = tutti_type_size(type);
  if (buf == TUTTI_IN_PLACE) return TUTTI_EINVAL;
  if ((rc = check_buf(buf, count, type))) return rc;
  if ((size_t)count > (size_t)INT64_MAX / esz / P) return TUTTI_ECOUNT;
  if (!other_in_place && (size_t)count * esz != (size_t)ocount * tutti_type_size(otype))
    return TUTTI_EINVAL; /* MPI: the two sides' type signatures must match */
  return 0;
}

int tutti_gather(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype, void *rbuf,
                 long rcount, tutti_datatype_t rtype, int root, const tutti_algo_t *algo) {
  int rc;
  const tutti_algo_t *a;
  const tutti__node_t *direct;
  if ((rc = check_rank(r, root))) return rc;
  int isroot = tutti_rank(r) == root, in_place = sbuf == TUTTI_IN_PLACE;
  if (in_place && !isroot) return TUTTI_EINVAL;
  if (!in_place && (rc = check_buf(sbuf, scount, stype))) return rc;
  if (isroot && (rc = check_blocks(r, rbuf, rcount, rtype, in_place, scount, stype))) return rc;
  BEGIN(TUTTI_COLL_GATHER, NULL, root, scount, stype);
  return tutti__call_end(r,
                         a->e->d.fn.gather(r, sbuf, scount, stype, rbuf, rcount, rtype, root, a));
}

int tutti_scatter(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype,
                  void *rbuf, long rcount, tutti_datatype_t rtype, int root,
                  const tutti_algo_t *algo) {
  int rc;
  const tutti_algo_t *a;
  const tutti__node_t *direct;
  if ((rc = check_rank(r, root))) return rc;
  int isroot = tutti_rank(r) == root, in_place = rbuf == TUTTI_IN_PLACE;
  if (in_place && !isroot) return TUTTI_EINVAL;
  if (!in_place && (rc = check_buf(rbuf, rcount, rtype))) return rc;
  if (isroot && (rc = check_blocks(r, sbuf, scount, stype, in_place, rcount, rtype))) return rc;
  BEGIN(TUTTI_COLL_SCATTER, NULL, root, rcount, rtype);
  return tutti__call_end(r,
                         a->e->d.fn.scatter(r, sbuf, scount, stype, rbuf, rcount, rtype, root, a));
}

int tutti_barrier(tutti_rank_t *r, const tutti_algo_t *algo) {
  int rc;
  const tutti_algo_t *a;
  const tutti__node_t *direct;
  if ((rc = check_rank(r, 0))) return rc;
  BEGIN(TUTTI_COLL_BARRIER, NULL, -1, 0, TUTTI_BYTE);
  return tutti__call_end(r, a->e->d.fn.barrier(r, a));
}

/* P blocks of count elements at buf: the buffer check, and no overflow of
 * the whole buffer's bytes. */
static int check_all_blocks(const tutti_rank_t *r, const void *buf, long count,
                            tutti_datatype_t type) {
  int rc;
  size_t P = (size_t)tutti_size(r), esz = tutti_type_size(type);
  if ((rc = check_buf(buf, count, type))) return rc;
  if ((size_t)count > (size_t)INT64_MAX / esz / P) return TUTTI_ECOUNT;
  return 0;
}

int tutti_allgather(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                    tutti_datatype_t type, const tutti_algo_t *algo) {
  int rc;
  const tutti_algo_t *a;
  const tutti__node_t *direct;
  if ((rc = check_rank(r, 0))) return rc;
  if (rbuf == TUTTI_IN_PLACE) return TUTTI_EINVAL;
  if ((rc = check_all_blocks(r, rbuf, count, type))) return rc;
  if (sbuf != TUTTI_IN_PLACE && (rc = check_buf(sbuf, count, type))) return rc;
  BEGIN(TUTTI_COLL_ALLGATHER, NULL, -1, count, type);
  return tutti__call_end(r, a->e->d.fn.allgather(r, sbuf, rbuf, count, type, a));
}

int tutti_reduce_scatter(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                         tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *algo) {
  int rc;
  const tutti_algo_t *a;
  const tutti__node_t *direct;
  if ((rc = check_rank(r, 0))) return rc;
  if (rbuf == TUTTI_IN_PLACE) return TUTTI_EINVAL;
  if (sbuf == TUTTI_IN_PLACE) {
    if ((rc = check_all_blocks(r, rbuf, count, type))) return rc;
  } else {
    if ((rc = check_buf(rbuf, count, type))) return rc;
    if ((rc = check_all_blocks(r, sbuf, count, type))) return rc;
  }
  if ((rc = tutti_op_check(op, type))) return rc;
  BEGIN(TUTTI_COLL_REDUCE_SCATTER, op, -1, count, type);
  return tutti__call_end(r, a->e->d.fn.reduce_scatter(r, sbuf, rbuf, count, type, op, a));
}

int tutti_alltoall(tutti_rank_t *r, const void *sbuf, void *rbuf, long count, tutti_datatype_t type,
                   const tutti_algo_t *algo) {
  int rc;
  const tutti_algo_t *a;
  const tutti__node_t *direct;
  if ((rc = check_rank(r, 0))) return rc;
  if (rbuf == TUTTI_IN_PLACE) return TUTTI_EINVAL;
  if ((rc = check_all_blocks(r, rbuf, count, type))) return rc;
  if (sbuf != TUTTI_IN_PLACE && (rc = check_all_blocks(r, sbuf, count, type))) return rc;
  BEGIN(TUTTI_COLL_ALLTOALL, NULL, -1, count, type);
  return tutti__call_end(r, a->e->d.fn.alltoall(r, sbuf, rbuf, count, type, a));
}

/* scan and exscan take allreduce's arguments. */
static int check_scan(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                      tutti_datatype_t type, tutti_op_t op) {
  int rc;
  if ((rc = check_rank(r, 0))) return rc;
  if (rbuf == TUTTI_IN_PLACE) return TUTTI_EINVAL;
  if ((rc = check_buf(rbuf, count, type))) return rc;
  if (sbuf != TUTTI_IN_PLACE && (rc = check_buf(sbuf, count, type))) return rc;
  return tutti_op_check(op, type);
}

int tutti_scan(tutti_rank_t *r, const void *sbuf, void *rbuf, long count, tutti_datatype_t type,
               tutti_op_t op, const tutti_algo_t *algo) {
  int rc;
  const tutti_algo_t *a;
  const tutti__node_t *direct;
  if ((rc = check_scan(r, sbuf, rbuf, count, type, op))) return rc;
  BEGIN(TUTTI_COLL_SCAN, op, -1, count, type);
  return tutti__call_end(r, a->e->d.fn.scan(r, sbuf, rbuf, count, type, op, a));
}

int tutti_exscan(tutti_rank_t *r, const void *sbuf, void *rbuf, long count, tutti_datatype_t type,
                 tutti_op_t op, const tutti_algo_t *algo) {
  int rc;
  const tutti_algo_t *a;
  const tutti__node_t *direct;
  if ((rc = check_scan(r, sbuf, rbuf, count, type, op))) return rc;
  BEGIN(TUTTI_COLL_EXSCAN, op, -1, count, type);
  return tutti__call_end(r, a->e->d.fn.exscan(r, sbuf, rbuf, count, type, op, a));
}

/*
 * verify_call.c -- one call on the commands' buffer layout (cli_call),
 * with its inputs prepared and its results checked against verify.c's
 * reference (verify_prepare, verify_result): shared by `tutti run`
 * (cli_exec.c) and tutti-mpi (bench/mpi/main.c).
 */
#include "cli.h"

/* One call of job j's collective rooted at `root` on the commands' buffer
 * layout: a (send), b (receive), big (P blocks where this rank has them:
 * the root of gather and scatter, every rank of allgather and
 * reduce_scatter; 2P for alltoall, send then receive; NULL elsewhere). */
int cli_call(tutti_rank_t *r, const struct cli_job *j, int root, void *a, void *b, void *big) {
  int me = tutti_rank(r);
  long n = j->count;
  switch (j->coll) {
  case TUTTI_COLL_BCAST:
    return tutti_bcast(r, a, n, j->type, root, j->algo);
  case TUTTI_COLL_REDUCE:
    return tutti_reduce(r, a, b, n, j->type, j->op, root, j->algo);
  case TUTTI_COLL_ALLREDUCE:
    return tutti_allreduce(r, a, b, n, j->type, j->op, j->algo);
  case TUTTI_COLL_GATHER:
    return tutti_gather(r, a, n, j->type, me == root ? big : NULL, me == root ? n : 0, j->type,
                        root, j->algo);
  case TUTTI_COLL_SCATTER:
    return tutti_scatter(r, me == root ? big : NULL, me == root ? n : 0, j->type, b, n, j->type,
                         root, j->algo);
  case TUTTI_COLL_ALLGATHER:
    return tutti_allgather(r, a, big, n, j->type, j->algo);
  case TUTTI_COLL_REDUCE_SCATTER:
    return tutti_reduce_scatter(r, big, b, n, j->type, j->op, j->algo);
  case TUTTI_COLL_ALLTOALL: /* big: the P blocks to send, then the P received */
    return tutti_alltoall(
        r, big, (char *)big + (size_t)tutti_size(r) * (size_t)n * tutti_type_size(j->type), n,
        j->type, j->algo);
  case TUTTI_COLL_SCAN:
    return tutti_scan(r, a, b, n, j->type, j->op, j->algo);
  case TUTTI_COLL_EXSCAN:
    return tutti_exscan(r, a, b, n, j->type, j->op, j->algo);
  case TUTTI_COLL_BARRIER:
    return tutti_barrier(r, j->algo);
  default:
    return TUTTI_EINVAL;
  }
}

void verify_prepare(const struct verify *v, int me, int root, int call, void *a, void *b,
                    unsigned char *big, size_t blk) {
  int P = v->nranks, k = call;
  long n = v->tsize ? (long)(blk / v->tsize) : 0;
  switch (v->coll) {
  case TUTTI_COLL_BCAST:
    if (me == root)
      verify_input(v, root, k, a, 0, n);
    else
      verify_poison(v, root, k, a, 0, n);
    break;
  case TUTTI_COLL_REDUCE:
  case TUTTI_COLL_ALLREDUCE:
    verify_input(v, me, k, a, 0, n);
    verify_poison_fold(v, k, b);
    break;
  case TUTTI_COLL_GATHER:
    verify_input(v, me, k, a, 0, n);
    for (int s = 0; me == root && s < P; s++) verify_poison(v, s, k, big + (size_t)s * blk, 0, n);
    break;
  case TUTTI_COLL_SCATTER:
    if (me == root) verify_input(v, root, k, big, 0, n * P);
    verify_poison(v, root, k, b, (long)me * n, n);
    break;
  case TUTTI_COLL_ALLGATHER:
    verify_input(v, me, k, a, 0, n);
    for (int s = 0; s < P; s++) verify_poison(v, s, k, big + (size_t)s * blk, 0, n);
    break;
  case TUTTI_COLL_REDUCE_SCATTER:
    verify_input(v, me, k, big, 0, n * P);
    verify_poison_fold_range(v, k, b, (long)me * n, n);
    break;
  case TUTTI_COLL_ALLTOALL: /* block d of me's input goes to d: its elements d n.. */
    verify_input(v, me, k, big, 0, n * P);
    for (int s = 0; s < P; s++)
      verify_poison(v, s, k, big + (size_t)(P + s) * blk, (long)me * n, n);
    break;
  case TUTTI_COLL_SCAN:
  case TUTTI_COLL_EXSCAN:
    verify_input(v, me, k, a, 0, n);
    verify_poison(v, me, k, b, 0, n);
    break;
  }
}

/* The first of the blocks at blocks[s * blk] (s < P) that is not rank s's
 * input elements [first, first + n): its bad index, *from = s; or -1. */
static long check_blocks(const struct verify *v, int call, const unsigned char *blocks, size_t blk,
                         long first, long n, int *from) {
  for (int s = 0; s < v->nranks; s++) {
    long at = verify_check_input(v, s, call, blocks + (size_t)s * blk, first, n);
    if (at >= 0) return *from = s, at;
  }
  return -1;
}

long verify_result(const struct verify *v, int me, int root, int call, const void *a, const void *b,
                   const unsigned char *big, size_t blk, int *from, const char **what) {
  int P = v->nranks, k = call;
  long n = v->tsize ? (long)(blk / v->tsize) : 0, at = -1;
  *from = -1, *what = "the result";
#define BAD(cond, text) ((at = (cond)) >= 0 && (*what = (text), 1))
  switch (v->coll) {
  case TUTTI_COLL_BCAST:
    BAD(verify_check_input(v, root, k, a, 0, n),
        me == root ? "the root's buffer changed" : "the buffer");
    break;
  case TUTTI_COLL_REDUCE:
  case TUTTI_COLL_ALLREDUCE:
    if (!BAD(verify_check_input(v, me, k, a, 0, n), "the send buffer changed") &&
        (v->coll == TUTTI_COLL_ALLREDUCE || me == root))
      BAD(verify_check_fold(v, k, b), "the result");
    break;
  case TUTTI_COLL_GATHER:
  case TUTTI_COLL_ALLGATHER:
    if (!BAD(verify_check_input(v, me, k, a, 0, n), "the send buffer changed") &&
        (v->coll == TUTTI_COLL_ALLGATHER || me == root))
      BAD(check_blocks(v, k, big, blk, 0, n, from), "the block");
    break;
  case TUTTI_COLL_SCATTER:
    if (!BAD(verify_check_input(v, root, k, b, (long)me * n, n), "the received block") &&
        me == root)
      BAD(verify_check_input(v, root, k, big, 0, n * P), "the root's send buffer changed");
    break;
  case TUTTI_COLL_REDUCE_SCATTER:
    if (!BAD(verify_check_input(v, me, k, big, 0, n * P), "the send buffer changed"))
      BAD(verify_check_fold_range(v, k, b, (long)me * n, n), "the result block");
    break;
  case TUTTI_COLL_ALLTOALL:
    if (!BAD(verify_check_input(v, me, k, big, 0, n * P), "the send buffer changed"))
      BAD(check_blocks(v, k, big + (size_t)P * blk, blk, (long)me * n, n, from), "the block");
    break;
  case TUTTI_COLL_SCAN:
  case TUTTI_COLL_EXSCAN:
    if (BAD(verify_check_input(v, me, k, a, 0, n), "the send buffer changed")) break;
    if (v->coll == TUTTI_COLL_EXSCAN && me == 0)
      BAD(verify_check_poison(v, me, k, b, 0, n), "rank 0's result buffer changed");
    else
      BAD(verify_check_prefix(v, v->coll == TUTTI_COLL_SCAN ? me : me - 1, k, b), "the result");
    break;
  }
#undef BAD
  return at;
}

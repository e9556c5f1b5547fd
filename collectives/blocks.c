/*
 * blocks.c -- a buffer cut into one block per rank, and the in-place
 * allgathers over those blocks that the block-based algorithms share:
 * scatter-allgather broadcast, ring and Rabenseifner allreduce, and the
 * allgather collective itself.
 *
 * Blocks: block i of `count` elements among P has count/P elements, one
 * more for the first count%P, so sizes differ by at most one element and
 * the blocks tile the buffer in order. Block v belongs to relative rank
 * v = (rank - root) mod P, so a contiguous range of relative ranks owns a
 * contiguous range of the buffer (one message for recursive doubling).
 * Empty blocks (count < P) are still sent as empty messages: every step
 * costs its start-up, and both sides agree without looking at sizes.
 *
 * Ring (Patarasuk & Yuan's bandwidth-optimal allgather; MPICH's
 * MPIR_Allgather_intra_ring): in step s = 0..P-2 relative rank v sends
 * block (v - s) mod P to its right neighbour and receives block
 * (v - s - 1) mod P from its left one, in one sendrecv. Under Hockney with
 * P | count: (P-1)(alpha + beta m/P) (uneven blocks: at most
 * (P-1)(alpha + beta ceil(m/P))).
 *
 * Recursive doubling (Thakur, Rabenseifner & Gropp, IJHPCA 2005, sec.
 * 4.1): for P a power of two, in step k = 0..log2(P)-1 relative rank v
 * exchanges the 2^k blocks its group holds with partner v XOR 2^k.
 * Under Hockney with P | count: log2(P) alpha + ((P-1)/P) beta m.
 */
#include "engine.h"
#include "tutti/coll.h"

void tutti__block_range(long count, int P, int i, long *start, long *n) {
  long q = count / P, rem = count % P;
  *n = q + (i < rem);
  *start = (long)i * q + (i < rem ? i : rem);
}

/* The elements of blocks [first, first + nblocks) as one range. */
static void blocks_span(long count, int P, int first, int nblocks, long *start, long *n) {
  long s0, n0, s1, n1;
  tutti__block_range(count, P, first, &s0, &n0);
  tutti__block_range(count, P, first + nblocks - 1, &s1, &n1);
  *start = s0;
  *n = s1 + n1 - s0;
}

int tutti__allgather_ring(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                          int tag) {
  int P = tutti_size(r), me = tutti_rank(r), v = (me - root + P) % P;
  int right = (me + 1) % P, left = (me - 1 + P) % P;
  size_t ext = tutti_type_size(type);
  for (int s = 0; s < P - 1; s++) {
    int sb = (v - s + P) % P, rb = (v - s - 1 + 2 * P) % P;
    long ss, sn, rs, rn;
    tutti__block_range(count, P, sb, &ss, &sn);
    tutti__block_range(count, P, rb, &rs, &rn);
    int rc =
        tutti_sendrecv(r, (char *)buf + (size_t)ss * ext, sn, type, right, tag,
                       (char *)buf + (size_t)rs * ext, rn, type, left, tag, TUTTI_STATUS_IGNORE);
    if (rc) return rc;
  }
  return 0;
}

int tutti__allgather_recdbl(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                            int tag) {
  int P = tutti_size(r), me = tutti_rank(r), v = (me - root + P) % P;
  if (P & (P - 1)) return TUTTI_ENOTSUP;
  size_t ext = tutti_type_size(type);
  for (int mask = 1; mask < P; mask <<= 1) {
    int pv = v ^ mask, partner = (pv + root) % P;
    long ss, sn, rs, rn;
    blocks_span(count, P, v & ~(mask - 1), mask, &ss, &sn);
    blocks_span(count, P, pv & ~(mask - 1), mask, &rs, &rn);
    int rc =
        tutti_sendrecv(r, (char *)buf + (size_t)ss * ext, sn, type, partner, tag,
                       (char *)buf + (size_t)rs * ext, rn, type, partner, tag, TUTTI_STATUS_IGNORE);
    if (rc) return rc;
  }
  return 0;
}

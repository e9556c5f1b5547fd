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
 *
 * And the reduce-scatters that feed them (ring and Rabenseifner
 * allreduce, the reduce_scatter collective), the same exchanges reversed:
 *
 * Ring reduce-scatter (Patarasuk & Yuan, JPDC 69(2), 2009): in step
 * s = 0..P-2 relative rank v sends its partial block (v - s - 1) mod P to
 * the right and combines block (v - s - 2) mod P from the left into its
 * own; it ends with block v complete. Under Hockney with P | count:
 * (P-1)(alpha + (beta + gamma) m/P).
 *
 * Recursive halving (Thakur, Rabenseifner & Gropp, IJHPCA 2005, sec.
 * 4.4-4.5): the first 2r ranks (r = P - p', p' the largest power of two
 * <= P) fold in pairs, then for mask = p'/2 .. 1 group rank v exchanges
 * with v XOR mask the half of its range the partner keeps. Under Hockney
 * with p' | count and no fold: log2(p') alpha + ((p'-1)/p')(beta + gamma) m.
 * Memory: with the input apart from the buffer (not in place), the first
 * exchange sends from the input and receives into the buffer's kept
 * half, which takes the result with the input on the left; every later
 * exchange receives into the half given first, free by then. So the
 * buffer is the only memory, and of it only the ranges kept or received
 * into are ever written: half the vector and a quarter. In place, and on
 * a rank that folded, the first exchange receives into scratch of its
 * half instead (the buffer's given half is being sent).
 *
 * Both combine operands in an order that depends on the rank:
 * commutative ops only.
 */
#include <stdlib.h>
#include <string.h>

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

int tutti__blocks_allgather_ring(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type,
                                 int root, int tag) {
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

int tutti__blocks_allgather_recdbl(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type,
                                   int root, int tag) {
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

int tutti__blocks_own(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                      tutti_datatype_t type) {
  size_t bytes = (size_t)count * tutti_type_size(type);
  char *dst = (char *)rbuf + (size_t)tutti_rank(r) * bytes;
  return sbuf != TUTTI_IN_PLACE && bytes ? tutti_local_copy(r, dst, sbuf, bytes) : 0;
}

/* ------------------------------------------------- reduce-scatters */

int tutti__blocks_reduce_scatter_ring(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type,
                                      tutti_op_t op, int root, int tag) {
  int P = tutti_size(r), me = tutti_rank(r), v = (me - root + P) % P;
  int right = (me + 1) % P, left = (me - 1 + P) % P;
  size_t esz = tutti_type_size(type);
  if (P == 1) return 0;
  char *Y = buf, *t = tutti_scratch_alloc(r, ((size_t)(count / P) + 1) * esz);
  if (!t) return TUTTI_ENOMEM;
  int rc = 0;
  for (int s = 0; !rc && s < P - 1; s++) {
    long ss, sn, rs, rn;
    tutti__block_range(count, P, (v - s - 1 + 2 * P) % P, &ss, &sn);
    tutti__block_range(count, P, (v - s - 2 + 2 * P) % P, &rs, &rn);
    rc = tutti_sendrecv(r, Y + (size_t)ss * esz, sn, type, right, tag, t, rn, type, left, tag,
                        TUTTI_STATUS_IGNORE);
    if (!rc && rn) rc = tutti_reduce_local_r(r, t, Y + (size_t)rs * esz, rn, type, op);
  }
  tutti_scratch_free(r, t);
  return rc;
}

/* Where group rank g's elements start (g = p' gives the end). */
static long halving_off(long count, int pof2, int rem, long per, int g) {
  if (per > 0) return (long)(g < rem ? 2 * g : g + rem) * per;
  if (g >= pof2) return count;
  long s, n;
  tutti__block_range(count, pof2, g, &s, &n);
  return s;
}

int tutti__blocks_reduce_scatter_halving(tutti_rank_t *r, const void *in, void *buf, long count,
                                         tutti_datatype_t type, tutti_op_t op, long per, int tag,
                                         int *vout) {
  int P = tutti_size(r), me = tutti_rank(r), pof2 = 1;
  while (pof2 * 2 <= P) pof2 *= 2;
  int rem = P - pof2, rc = 0, v;
  size_t esz = tutti_type_size(type);
  char *Y = buf, *t = NULL;
  const char *X = in ? in : buf; /* what the next exchange sends from */
  *vout = -1;
  if (me < 2 * rem && me % 2 == 0) /* folded out */
    return tutti_send(r, X, count, type, me + 1, tag);
  if (me < 2 * rem && in) { /* the neighbour's input straight into Y, own on the left */
    rc = tutti_recv(r, Y, count, type, me - 1, tag, TUTTI_STATUS_IGNORE);
    if (!rc) rc = tutti_reduce_local_r(r, in, Y, count, type, op);
    X = Y;
  } else if (me < 2 * rem) {
    if (!(t = tutti_scratch_alloc(r, (size_t)count * esz))) return TUTTI_ENOMEM;
    rc = tutti_recv(r, t, count, type, me - 1, tag, TUTTI_STATUS_IGNORE);
    if (!rc) rc = tutti_reduce_local_r(r, t, Y, count, type, op);
  }
  v = me < 2 * rem ? me / 2 : me - rem;
  int lo = 0;        /* my group ranks [lo, lo + 2 mask) */
  long free_at = -1; /* the first exchange's given range: free after it */
  long free_n = 0;
  for (int mask = pof2 / 2; !rc && mask >= 1; mask >>= 1) {
    int keep = (v & mask) ? lo + mask : lo, give = (v & mask) ? lo : lo + mask;
    long ks = halving_off(count, pof2, rem, per, keep);
    long kn = halving_off(count, pof2, rem, per, keep + mask) - ks;
    long gs = halving_off(count, pof2, rem, per, give);
    long gn = halving_off(count, pof2, rem, per, give + mask) - gs;
    int pv = v ^ mask, partner = pv < rem ? 2 * pv + 1 : pv + rem;
    /* Where the kept half comes in: with the input apart, Y's own kept
     * range (nothing there yet); later the range given first, unless it
     * is too small; else scratch, whose first size is the largest. */
    char *into = Y + (size_t)ks * esz;
    if (X == Y && free_at >= 0 && kn <= free_n)
      into = Y + (size_t)free_at * esz;
    else if (X == Y && !t && !(into = t = tutti_scratch_alloc(r, (size_t)kn * esz + 1)))
      rc = TUTTI_ENOMEM;
    else if (X == Y)
      into = t;
    if (!rc)
      rc = tutti_sendrecv(r, X + (size_t)gs * esz, gn, type, partner, tag, into, kn, type, partner,
                          tag, TUTTI_STATUS_IGNORE);
    if (!rc && kn) /* the input's kept half on the left, or the partner's on the left of ours */
      rc = X != Y ? tutti_reduce_local_r(r, X + (size_t)ks * esz, into, kn, type, op)
                  : tutti_reduce_local_r(r, into, Y + (size_t)ks * esz, kn, type, op);
    if (free_at < 0) free_at = gs, free_n = gn;
    X = Y;
    lo = keep;
  }
  tutti_scratch_free(r, t);
  *vout = v;
  return rc;
}

/* ------------------------------------------------- alltoall */

int tutti__alltoall_begin(tutti_rank_t *r, const void *sbuf, void *rbuf, size_t bytes,
                          const unsigned char **src, void **copy) {
  size_t P = (size_t)tutti_size(r), me = (size_t)tutti_rank(r);
  *copy = NULL;
  if (sbuf != TUTTI_IN_PLACE) {
    *src = sbuf;
    return tutti_local_copy(r, (char *)rbuf + me * bytes, (const char *)sbuf + me * bytes, bytes);
  }
  if (P == 1 || bytes == 0) return *src = rbuf, 0; /* nothing leaves the rank */
  if (!(*copy = tutti_scratch_alloc(r, P * bytes))) return TUTTI_ENOMEM;
  *src = *copy;
  return tutti_local_copy(r, *copy, rbuf, P * bytes);
}

int tutti__alltoall_steps(tutti_rank_t *r, const unsigned char *src, void *rbuf, long count,
                          tutti_datatype_t type, int xor, int tag) {
  int P = tutti_size(r), me = tutti_rank(r), rc = 0;
  size_t bytes = (size_t)count * tutti_type_size(type);
  for (int s = 1; !rc && s < P; s++) {
    int to = xor? me ^ s : (me + s) % P, from = xor? to : (me - s + P) % P;
    rc = tutti_sendrecv(r, src + (size_t)to * bytes, count, type, to, tag,
                        (char *)rbuf + (size_t)from * bytes, count, type, from, tag,
                        TUTTI_STATUS_IGNORE);
  }
  return rc;
}

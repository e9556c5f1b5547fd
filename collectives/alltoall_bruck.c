/*
 * alltoall_bruck.c -- alltoall `bruck`: Bruck et al.'s index algorithm,
 * ceil(log2 P) rounds on any P, for small blocks. Rank v first rotates its
 * blocks so that slot i holds the block for rank v + i (mod P). In round
 * k, with d = 2^k, it packs every slot i with bit d set, sends them to
 * rank v + d as one message, receives the same slots from rank v - d, and
 * unpacks them: a block in slot i travels the binary digits of i, so after
 * the last round slot i of rank w holds the block from rank w - i. A
 * final local permutation (slot i to block w - i, an involution: pairs
 * swap) puts block j at position j. The slots are the receive buffer.
 * Memory: one scratch buffer of the largest round's n_k (at most P/2)
 * blocks, the packed slots sent. The received ones come into the receive
 * buffer itself: before the exchange the slots that stay (bit d clear)
 * close up in order at its front, freeing its last n_k slots for the
 * message; after it the message is moved into the free pack buffer and
 * every slot back to its place, so the message's blocks are in the order
 * of their slots as before (MPICH's second pack buffer, for the slots
 * received, was as much again).
 * Against the pairwise exchange: log2 P start-ups instead of P-1, for
 * about (log2 P)/2 times the bytes.
 *
 * Source: J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal, D. Weathersby,
 * "Efficient algorithms for all-to-all communications in multiport
 * message-passing systems", IEEE TPDS 8(11), 1997, sec. 4 (the index
 * operation, radix 2, one port); MPICH's MPIR_Alltoall_intra_brucks.
 *
 * Cost under Hockney, m bytes per block: sum over rounds k of
 * (alpha + n_k beta m), n_k = the number of i in [0, P) with bit 2^k set
 * (P/2 each when P is a power of two: log2(P)(alpha + beta m P/2)).
 * Exact: every rank's round k moves n_k blocks. Local copies are free.
 */
#include <stddef.h>

#include "engine.h"
#include "tutti/coll.h"

/* The slots i in [0, P) with bit d set. */
static int with_bit(int P, int d) {
  int n = 0;
  for (int i = d; i < P; i += 2 * d) n += P - i < d ? P - i : d;
  return n;
}

int tutti__alltoall_bruck(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                          tutti_datatype_t type, const tutti_algo_t *a) {
  (void)a;
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r);
  size_t bytes = (size_t)count * tutti_type_size(type);
  unsigned char *out = rbuf, *pack = NULL;
  const unsigned char *src;
  void *copy;
  int rc = tutti__alltoall_begin(r, sbuf, rbuf, bytes, &src, &copy);
  if (rc || P == 1) goto done;
  int nmax = with_bit(P, 1); /* the largest n_k: round 0's, or the last one's */
  for (int d = 2; d < P; d <<= 1) nmax = with_bit(P, d) > nmax ? with_bit(P, d) : nmax;
  if (!(pack = tutti_scratch_alloc(r, (size_t)nmax * bytes))) {
    rc = TUTTI_ENOMEM;
    goto done;
  }
  for (int i = 0; !rc && i < P; i++) /* slot i: the block for me + i */
    rc = tutti_local_copy(r, out + (size_t)i * bytes, src + (size_t)((me + i) % P) * bytes, bytes);
#define SLOT(i) (out + (size_t)(i)*bytes)
  for (int d = 1; !rc && d < P; d <<= 1) {
    int n = 0, c = d;                  /* the slots below d keep their places */
    for (int i = d; !rc && i < P; i++) /* pack bit d's slots, close up the others */
      rc = i & d ? tutti_local_copy(r, pack + (size_t)n++ * bytes, SLOT(i), bytes)
                 : tutti_local_copy(r, SLOT(c++), SLOT(i), bytes);
    if (!rc) /* the message into the last n slots, free now */
      rc = tutti_sendrecv(r, pack, (long)n * count, type, (me + d) % P, tag, SLOT(c),
                          (long)n * count, type, (me - d + P) % P, tag, TUTTI_STATUS_IGNORE);
    if (!rc) rc = tutti_local_copy(r, pack, SLOT(c), (size_t)n * bytes); /* the pack is free */
    for (int i = P - 1; !rc && i >= d; i--) /* from the top: a kept slot moves up or stays */
      rc = i & d ? tutti_local_copy(r, SLOT(i), pack + (size_t)--n * bytes, bytes)
                 : tutti_local_copy(r, SLOT(i), SLOT(--c), bytes);
  }
#undef SLOT
  for (int i = 0; !rc && i < P; i++) { /* slot i holds the block from me - i */
    int j = (me - i + P) % P;
    if (i >= j) continue;
    rc = tutti_local_copy(r, pack, out + (size_t)i * bytes, bytes);
    if (!rc) rc = tutti_local_copy(r, out + (size_t)i * bytes, out + (size_t)j * bytes, bytes);
    if (!rc) rc = tutti_local_copy(r, out + (size_t)j * bytes, pack, bytes);
  }
done:
  tutti_scratch_free(r, pack);
  tutti_scratch_free(r, copy);
  return rc;
}

double tutti__alltoall_bruck_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                  const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  double t = 0;
  for (int d = 1; d < P; d <<= 1) t += h->alpha + h->beta * (double)m * with_bit(P, d);
  return t;
}

/* Every rank sends once a round. */
double tutti__alltoall_bruck_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                  const tutti_hockney_t *h) {
  (void)a, (void)root, (void)m, (void)h;
  double n = 0;
  for (int d = 1; d < P; d <<= 1) n += P;
  return n;
}

/*
 * bcast_scatter_allgather.c -- broadcast as a scatter followed by an
 * allgather (van de Geijn et al.; MPICH's broadcast for long messages).
 * The root's m bytes are cut into P blocks (tutti__block_range: sizes
 * differ by at most one byte, the first m mod P one longer; block v
 * belongs to relative rank v = (rank - root) mod P). A binomial scatter
 * gives every rank its block -- each rank receives its subtree's blocks,
 * one contiguous range, straight into place -- and an in-place allgather
 * (blocks.c) gives every rank all of them. No rank sends more than about
 * 2m bytes, against ceil(log2 P) m at the binomial tree's root.
 *
 * Source: M. Barnett, S. Gupta, D. Payne, L. Shuler, R. van de Geijn,
 * J. Watts, "Interprocessor collective communication library (InterCom)",
 * SHPCC 1994; R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of
 * collective communication operations in MPICH", IJHPCA 19(1), 2005,
 * section 4.3; X. Yuan's lecture on MPI_Bcast ("scatter-allgather").
 *
 * allgather=ring (the default): P-1 steps to the right neighbour;
 * allgather=recursive-doubling: log2 P steps, for P a power of two; other
 * P run the ring (tutti_algo_check_call leaves that note, which
 * `tutti run` prints).
 *
 * Cost under Hockney when P divides m (b = m/P): the scatter's root sends
 * ceil(log2 P) messages holding the P-1 other blocks, ceil(log2 P) alpha +
 * (P-1) beta b; the ring adds (P-1)(alpha + beta b):
 *   T = (ceil(log2 P) + P - 1) alpha + 2 ((P-1)/P) beta m,
 * recursive doubling 2 log2(P) alpha + 2 ((P-1)/P) beta m. P = 8,
 * alpha = beta = 1, m = 800: 1410 (flat 5607, binomial 2403). With uneven
 * blocks ranks leave the scatter at different times and ring steps carry
 * blocks of two sizes; the cost function then replays the schedule
 * rank by rank (rendezvous: a transfer starts when both ends are there),
 * which is exact: O(P log P) for the scatter, O(P^2) for the ring; past
 * 10000 ranks the ring's part is bounded instead (every rank starts it
 * when the last leaves the scatter, every step moves the longest block).
 */
#include <math.h>
#include <stdlib.h>

#include "engine.h"
#include "tutti/coll.h"

/* The bytes of relative blocks [lo, lo+n) among P: one contiguous range. */
static void span(long m, int P, int lo, int n, long *start, long *len) {
  long s1, n1;
  tutti__block_range(m, P, lo, start, &n1);
  if (lo + n >= P) {
    *len = m - *start;
    return;
  }
  tutti__block_range(m, P, lo + n, &s1, &n1);
  *len = s1 - *start;
}

static int use_recdbl(const tutti_algo_t *a, int P) {
  return tutti__params(a)->allgather == TUTTI_ALLGATHER_RECDBL && !(P & (P - 1));
}

int tutti__bcast_scatter_allgather(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type,
                                   int root, const tutti_algo_t *a) {
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */
  if (tag < 0) return tag;
  const int P = tutti_size(r);
  if (P == 1) return 0;
  const long m = (long)((size_t)count * tutti_type_size(type));
  char *b = buf;
  tutti_treespec_t spec = tutti_treespec_default(TUTTI_TREE_BINOMIAL);
  tutti__node_t own;
  const tutti__node_t *nd;
  int rc = tutti__node_get(&spec, r, root, &own, &nd);
  if (rc) return rc;
  long off, len;
  /* one tag for both phases: each pair of ranks exchanges its scatter
   * messages before its allgather ones, in the order both post them */
  if (nd->parent >= 0) {
    span(m, P, nd->lo, nd->count, &off, &len);
    rc = tutti_recv(r, b ? b + off : b, len, TUTTI_BYTE, nd->parent, tag, TUTTI_STATUS_IGNORE);
  }
  for (int i = 0; i < nd->nchildren && !rc; i++) {
    span(m, P, nd->child[i].lo, nd->child[i].count, &off, &len);
    rc = tutti_send(r, b ? b + off : b, len, TUTTI_BYTE, nd->child[i].rank, tag);
  }
  tutti__node_free(&own);
  if (rc) return rc;
  if (use_recdbl(a, P)) return tutti__blocks_allgather_recdbl(r, buf, m, TUTTI_BYTE, root, tag);
  return tutti__blocks_allgather_ring(r, buf, m, TUTTI_BYTE, root, tag);
}

/* ------------------------------------------------------------------ cost */

/* Steps of the ring the cost function replays exactly (P^2 of them): past
 * this (P > 10000) an upper bound, which auto's choice at 262144 ranks can
 * afford (the replay would take minutes). */
#define RING_EXACT_MAX 1e8

/* Hockney, exact: the schedule above replayed with rendezvous transfers
 * (a transfer starts when sender and receiver have both posted and ends
 * alpha + beta b later; each rank sends and receives one at a time).
 * C[v] is relative rank v's clock. */
double tutti__bcast_scatter_allgather_cost(const tutti_algo_t *a, int P, int root, size_t m,
                                           const tutti_hockney_t *h, int *bound) {
  (void)root;
  *bound = 0;
  if (P <= 1) return 0;
  double *C = calloc((size_t)P, sizeof *C), *N = calloc((size_t)P, sizeof *N);
  int *kids = malloc((size_t)P * sizeof *kids);
  double T = NAN;
  if (!C || !N || !kids) goto out;
  tutti_treespec_t spec = tutti_treespec_default(TUTTI_TREE_BINOMIAL);
  long off, len;
  /* Scatter, top-down (a parent's relative rank is below its children's):
   * blocking sends, one after the other; C[v] is first v's arrival time,
   * then the end of its last send. Receives are posted at time 0. */
  for (int v = 0; v < P; v++) {
    int nk = 0;
    if (tutti_tree_node(&spec, v, P, 0, NULL, kids, P, &nk)) goto out;
    for (int i = 0; i < nk; i++) {
      int lo, cnt;
      if (tutti_tree_subtree(&spec, kids[i], P, 0, &lo, &cnt)) goto out;
      span((long)m, P, lo, cnt, &off, &len);
      C[v] += h->alpha + h->beta * (double)len;
      C[kids[i]] = C[v];
    }
  }
  /* Allgather: in each step every rank sends one message and receives
   * one; a transfer starts when both ends reach the step. */
  if (use_recdbl(a, P)) {
    for (int mask = 1; mask < P; mask <<= 1) {
      for (int v = 0; v < P; v++) {
        int pv = v ^ mask;
        span((long)m, P, v & ~(mask - 1), mask, &off, &len);
        double sent = fmax(C[v], C[pv]) + h->alpha + h->beta * (double)len;
        N[v] = fmax(N[v], sent), N[pv] = fmax(N[pv], sent);
      }
      for (int v = 0; v < P; v++) C[v] = N[v], N[v] = 0;
    }
  } else if ((double)P * P > RING_EXACT_MAX) {
    /* Too many steps to replay: every rank starts the ring when the last
     * leaves the scatter, and each step moves the longest block. */
    double start = 0, len0;
    for (int v = 0; v < P; v++) start = fmax(start, C[v]);
    tutti__block_range((long)m, P, 0, &off, &len);
    len0 = (double)len; /* block 0 is one of the longest */
    *bound = m % (size_t)P != 0;
    T = start + (P - 1) * (h->alpha + h->beta * len0);
    goto out;
  } else {
    for (int s = 0; s < P - 1; s++) {
      for (int v = 0; v < P; v++) {
        int w = (v + 1) % P;
        tutti__block_range((long)m, P, ((v - s) % P + P) % P, &off, &len);
        double sent = fmax(C[v], C[w]) + h->alpha + h->beta * (double)len;
        N[v] = fmax(N[v], sent), N[w] = fmax(N[w], sent);
      }
      for (int v = 0; v < P; v++) C[v] = N[v], N[v] = 0;
    }
  }
  T = 0;
  for (int v = 0; v < P; v++) T = fmax(T, C[v]);
out:
  free(C), free(N), free(kids);
  return T;
}

/* The scatter a tree edge, then the allgather: a block a rank a round. */
double tutti__bcast_scatter_allgather_msgs(const tutti_algo_t *a, int P, int root, size_t m,
                                           const tutti_hockney_t *h) {
  (void)root, (void)m, (void)h;
  if (P <= 1) return 0;
  double lg = 0;
  while ((1L << (int)lg) < P) lg++;
  return (P - 1) + (use_recdbl(a, P) ? P * lg : (double)P * (P - 1));
}

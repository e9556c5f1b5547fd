/*
 * template_algo.c -- an alltoall written outside tutti: the shifts of a
 * ring. (Written by `tutti new alltoall template_algo`; tutti runs it as
 * it is.)
 *
 * Idea: every rank holds P blocks; block j of its send buffer is for rank
 * j, block j of its receive buffer comes from rank j. Rank i first copies
 * its own block i; then in step s = 1 .. P-1 it sends its block for rank
 * i + s to that rank and receives rank i - s's block for itself (mod P),
 * one sendrecv. Every step is a permutation: no rank is sought by two
 * senders at once.
 *
 * Source: Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005, sec. 4.7 (the
 * pairwise exchange for any P; tutti's alltoall 'ring').
 *
 * Cost under Hockney (b bytes a block): (P-1)(alpha + beta b).
 *
 * Try it:
 *   tutti run alltoall template_algo.c -n 16 -m 4KiB
 *   tutti check alltoall template_algo.c
 *   tutti compare alltoall bruck template_algo.c -n 16 --html page.html
 *
 * What to change: the partners of step s (rank i XOR s on a power of
 * two, say); keep template_algo_cost and _msgs in step (tutti check compares them
 * with the engine).
 */
#include <tutti/plugin.h>

static int template_algo_alltoall(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                  tutti_datatype_t type, const tutti_algo_t *a) {
  (void)a;                     /* no parameters */
  int tag = tutti_coll_tag(r); /* every collective call takes one tag, first */
  if (tag < 0) return tag;
  int P = tutti_size(r), me = tutti_rank(r), rc = 0;
  size_t blk = (size_t)count * tutti_type_size(type);
  char *out = rbuf, *copy = NULL;
  const char *in = sbuf;
  if (sbuf == TUTTI_IN_PLACE) { /* the blocks to send are in rbuf: keep a copy of them */
    /* scratch, not malloc: a --no-data run holds none of it */
    if (!(copy = tutti_scratch_alloc(r, (size_t)P * blk + 1))) return TUTTI_ENOMEM;
    rc = tutti_local_copy(r, copy, rbuf, (size_t)P * blk);
    in = copy;
  }
  /* not memcpy: a --no-data run moves nothing */
  if (!rc) rc = tutti_local_copy(r, out + (size_t)me * blk, in + (size_t)me * blk, blk);
  for (int s = 1; s < P && !rc; s++) {
    int to = (me + s) % P, from = (me - s + P) % P;
    rc = tutti_sendrecv(r, in + (size_t)to * blk, count, type, to, tag, out + (size_t)from * blk,
                        count, type, from, tag, TUTTI_STATUS_IGNORE);
  }
  tutti_scratch_free(r, copy);
  return rc;
}

/* The Hockney time for P ranks and b bytes a block. *bound = 0: exact, as
 * tutti's engine times it. */
static double template_algo_cost(const tutti_algo_t *a, int P, int root, size_t b,
                                 const tutti_hockney_t *h, int *bound) {
  (void)a, (void)root;
  *bound = 0;
  return (P - 1) * (h->alpha + h->beta * (double)b);
}

/* The messages one call sends, all ranks together: a message an ordered pair of ranks. tutti check
 * compares it with the engine; tutti's estimates of time and memory count
 * it. */
static double template_algo_msgs(const tutti_algo_t *a, int P, int root, size_t b,
                                 const tutti_hockney_t *h) {
  (void)a, (void)root, (void)b, (void)h;
  return (double)P * (P - 1);
}

static const tutti_algo_desc_t template_algo = {
    .abi = TUTTI_ALGO_ABI,
    .coll = TUTTI_COLL_ALLTOALL,
    .name = "template_algo",
    .fn.alltoall = template_algo_alltoall,
    .summary = "ring shifts: in step s each rank sends to rank + s, receives from rank - s",
    .source = "Thakur, Rabenseifner, Gropp, IJHPCA 19(1), 2005, sec. 4.7",
    .cost = "(P-1)(alpha + beta b)",
    .cost_fn = template_algo_cost,
    .msgs_fn = template_algo_msgs,
};

/* The plugin's entry point: tutti calls it when it loads the file. */
TUTTI_PLUGIN(p) {
  return tutti_plugin_add(p, &template_algo);
}

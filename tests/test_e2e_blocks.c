/*
 * test_e2e_blocks.c -- collectives/blocks.c: the block partition and the
 * in-place ring and recursive-doubling allgathers, called directly (they
 * are internal movers). Every rank fills its own block with values
 * hashed from (block, element), the others with garbage; after the
 * allgather every element must hold its hash. Rank counts 1..33, 64, 100
 * and 128, every root for small P, counts from 0 (every block empty)
 * through count < P (some empty) to uneven and even partitions. Under
 * Hockney, the modeled times of the closed forms in blocks.c's header.
 * Under the sanitizers, whose thread starts are slow, every rank count and
 * count still runs but with every root only up to P = 4, then two (0 and
 * one past the middle); the plain build tries every root to P = 12 (ring)
 * or 8 (recursive doubling), then every fifth or seventh.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdint.h>
#include <stdlib.h>

#include "tutti/tutti.h"
#include "coll_helpers.h"
#include "engine.h" /* collectives/: the movers under test */

static int64_t h(long block, long i) {
  return (int64_t)(block * 1000003 + i * 7919 + 11);
}

struct job {
  long count;
  int root, recdbl;
  int bad; /* set by a rank that saw a wrong element */
};

static int gather(tutti_rank_t *r, void *arg) {
  struct job *j = arg;
  int P = tutti_size(r), v = (tutti_rank(r) - j->root + P) % P;
  int64_t *buf = malloc(sizeof *buf * (size_t)(j->count + 1));
  for (long i = 0; i < j->count; i++) buf[i] = -1;
  long s, n;
  tutti__block_range(j->count, P, v, &s, &n);
  for (long i = 0; i < n; i++) buf[s + i] = h(v, i);
  int tag = tutti_coll_tag(r);
  int rc = j->recdbl ? tutti__blocks_allgather_recdbl(r, buf, j->count, TUTTI_INT64, j->root, tag)
                     : tutti__blocks_allgather_ring(r, buf, j->count, TUTTI_INT64, j->root, tag);
  for (int b = 0; !rc && b < P; b++) {
    tutti__block_range(j->count, P, b, &s, &n);
    for (long i = 0; i < n; i++)
      if (buf[s + i] != h(b, i)) __atomic_store_n(&j->bad, 1, __ATOMIC_RELAXED);
  }
  free(buf);
  return rc;
}

/* The partition against its definition, computed independently. */
Test(blocks, partition_tiles_in_order) {
  for (int P = 1; P <= 40; P++)
    for (long count = 0; count <= 3 * P + 5; count++) {
      long next = 0, lo = count, hi = 0;
      for (int i = 0; i < P; i++) {
        long s, n;
        tutti__block_range(count, P, i, &s, &n);
        cr_assert(eq(long, s, next), "P=%d count=%ld block %d", P, count, i);
        next = s + n;
        lo = n < lo ? n : lo, hi = n > hi ? n : hi;
        if (i > 0) {
          long ps, pn;
          tutti__block_range(count, P, i - 1, &ps, &pn);
          cr_assert(pn >= n, "larger blocks come first");
        }
      }
      cr_assert(eq(long, next, count));
      cr_assert(hi - lo <= 1, "P=%d count=%ld: sizes %ld..%ld", P, count, lo, hi);
    }
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

/* The step from one root tried to the next: every root up to `every`
 * ranks, then every `step`-th; under the sanitizers two roots above 4. */
static int root_step(int P, int every, int step) {
  if (SANITIZED) return P > 4 ? (P + 1) / 2 : 1;
  return P > every ? step : 1;
}

static void check(int P, long count, int root, int recdbl) {
  tutti_world_t *w = mkworld(P, NULL);
  struct job j = {count, root, recdbl, 0};
  cr_assert(eq(int, tutti_world_run(w, gather, &j), 0), "P=%d count=%ld root=%d: %s", P, count,
            root, tutti_world_error(w));
  cr_assert(eq(int, j.bad, 0), "%s P=%d count=%ld root=%d: wrong data", recdbl ? "recdbl" : "ring",
            P, count, root);
  tutti_world_destroy(w);
}

Test(blocks, ring_every_root, .timeout = 120) {
  for (int P = 1; P <= 33; P++) {
    long counts[] = {0, 1, P - 1, P, 3L * P + 2, 257};
    for (int c = 0; c < 6; c++)
      for (int root = 0; root < P; root += root_step(P, 12, 5)) check(P, counts[c], root, 0);
  }
  check(64, 1000, 63, 0);
  check(100, 99, 7, 0);
}

Test(blocks, recdbl_powers_of_two, .timeout = 120) {
  for (int P = 1; P <= 128; P *= 2) {
    long counts[] = {0, 1, P - 1, P, 3L * P + 2, 257};
    for (int c = 0; c < 6; c++)
      for (int root = 0; root < P; root += root_step(P, 8, 7)) check(P, counts[c], root, 1);
  }
}

static int recdbl_odd(tutti_rank_t *r, void *arg) {
  (void)arg;
  int64_t x[6] = {0};
  return tutti__blocks_allgather_recdbl(r, x, 6, TUTTI_INT64, 0, tutti_coll_tag(r)) == TUTTI_ENOTSUP
             ? 0
             : TUTTI_EINVAL;
}

Test(blocks, recdbl_refuses_other_sizes, .timeout = 30) {
  for (int P = 3; P <= 7; P += 2) {
    tutti_world_t *w = mkworld(P, NULL);
    cr_expect(eq(int, tutti_world_run(w, recdbl_odd, NULL), 0), "P=%d", P);
    tutti_world_destroy(w);
  }
}

/* Hockney with P | count: ring (P-1)(alpha + beta m/P), recursive doubling
 * log2(P) alpha + ((P-1)/P) beta m, m in bytes. */
Test(blocks, hockney_closed_forms, .timeout = 60) {
  const double alpha = 1e-6, beta = 1e-9;
  tutti_model_t m = hockney(alpha, beta);
  for (int P = 2; P <= 32; P *= 2)
    for (int recdbl = 0; recdbl < 2; recdbl++) {
      long count = 64L * P;
      tutti_world_t *w = mkworld(P, &m);
      struct job j = {count, P / 2, recdbl, 0};
      cr_assert(eq(int, tutti_world_run(w, gather, &j), 0), "%s", tutti_world_error(w));
      tutti_report_t rep;
      cr_assert(eq(int, tutti_world_report(w, &rep), 0));
      double bytes = 8.0 * count, lg = 0;
      for (int q = P; q > 1; q /= 2) lg++;
      double want =
          recdbl ? lg * alpha + (P - 1.0) / P * beta * bytes : (P - 1) * (alpha + beta * bytes / P);
      cr_expect(epsilon_eq(dbl, rep.modeled_time, want, 1e-11), "%s P=%d: %.9g s, want %.9g",
                recdbl ? "recdbl" : "ring", P, rep.modeled_time, want);
      tutti_world_destroy(w);
    }
}

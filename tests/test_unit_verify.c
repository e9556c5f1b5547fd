/*
 * test_unit_verify.c -- bench/verify.c, the sequential reference that
 * `tutti run` and `tutti suite` check every result against, tested
 * directly: its rank-order fold equals the runtime's own reduce_local
 * applied in rank order (and matmul2 makes the order visible); inputs
 * differ between ranks and calls, a window is the same elements as the
 * whole, and the checks see a single flipped bit; scan's prefix digests
 * agree with reduce_local in rank order.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#include "verify.c" /* bench/: the reference under test, compiled in */

/* The fold equals the runtime's reduce_local applied in rank order, and
 * matmul2 makes that order visible. */
Test(verify, fold_matches_reduce_local_in_rank_order, .timeout = 30) {
  tutti_op_t ops[] = {TUTTI_SUM, TUTTI_PROD, TUTTI_MIN,  TUTTI_MAX, TUTTI_BAND,
                      TUTTI_BOR, TUTTI_BXOR, TUTTI_LAND, TUTTI_LOR, TUTTI_MATMUL2};
  tutti_datatype_t types[] = {TUTTI_BYTE, TUTTI_INT32, TUTTI_INT64, TUTTI_FLOAT, TUTTI_DOUBLE};
  for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
      if (tutti_op_check(ops[o], types[t])) continue;
      for (int P = 1; P <= 9; P += 4) {
        struct verify v;
        long n = 37;
        cr_assert(eq(int, verify_init(&v, TUTTI_COLL_REDUCE, types[t], ops[o], P, n, 3), 0));
        size_t sz = tutti_type_size(types[t]);
        unsigned char *acc = malloc(n * sz), *x = malloc(n * sz);
        for (int k = 0; k < 3; k++) {
          verify_input(&v, P - 1, k, acc, 0, n);
          for (int r = P - 2; r >= 0; r--) {
            verify_input(&v, r, k, x, 0, n);
            cr_assert(eq(int, tutti_reduce_local(x, acc, n, types[t], ops[o]), 0));
          }
          cr_assert(eq(i64, verify_check_fold(&v, k, acc), -1), "%s on %s, P = %d, call %d",
                    tutti_op_name(ops[o]), tutti_type_name(types[t]), P, k);
          verify_poison_fold(&v, k, x);
          for (long i = 0; i < n; i++) cr_assert(ne(int, memcmp(x + i * sz, acc + i * sz, sz), 0));
        }
        free(acc), free(x);
        verify_free(&v);
      }
    }
  /* matmul2 in the wrong order gives another answer */
  struct verify v;
  long n = 16;
  cr_assert(eq(int, verify_init(&v, TUTTI_COLL_REDUCE, TUTTI_INT32, TUTTI_MATMUL2, 4, n, 1), 0));
  int32_t acc[16], x[16];
  verify_input(&v, 0, 0, acc, 0, n);
  for (int r = 1; r < 4; r++) {
    verify_input(&v, r, 0, x, 0, n);
    tutti_reduce_local(x, acc, n, TUTTI_INT32, TUTTI_MATMUL2); /* x_r * acc: reversed */
  }
  cr_assert(ne(i64, verify_check_fold(&v, 0, acc), -1), "matmul2 did not notice the order");
  verify_free(&v);
}

Test(verify, inputs_differ_and_checks_see_one_bit, .timeout = 30) {
  struct verify v;
  long n = 64;
  cr_assert(eq(int, verify_init(&v, TUTTI_COLL_BCAST, TUTTI_BYTE, NULL, 8, n, 4), 0));
  unsigned char a[64], b[64];
  verify_input(&v, 3, 0, a, 0, n);
  cr_assert(eq(i64, verify_check_input(&v, 3, 0, a, 0, n), -1));
  verify_input(&v, 3, 1, b, 0, n);
  cr_assert(ne(int, memcmp(a, b, sizeof a), 0), "consecutive calls share inputs");
  verify_input(&v, 4, 0, b, 0, n);
  cr_assert(ne(int, memcmp(a, b, sizeof a), 0), "two ranks share inputs");
  /* a window [first, first + n) is the same elements as the whole */
  verify_input(&v, 3, 0, b, 10, 20);
  cr_assert(eq(int, memcmp(a + 10, b, 20), 0));
  a[17] ^= 0x10;
  cr_assert(eq(i64, verify_check_input(&v, 3, 0, a, 0, n), 17));
  verify_poison(&v, 3, 0, b, 0, n);
  a[17] ^= 0x10;
  for (long i = 0; i < n; i++) cr_assert(ne(int, a[i], b[i]), "poison equals the input at %ld", i);
  verify_free(&v);
}

/* The chunked generator writes what the per-element definition gives
 * (input_elem: the hash of (rank, element, call) shaped per op), for
 * every op and type, and raw byte o is byte o mod 8 of the hash of o / 8. */
Test(verify, chunked_inputs_equal_the_per_element_definition, .timeout = 30) {
  tutti_op_t ops[] = {NULL,      TUTTI_SUM,  TUTTI_PROD, TUTTI_MIN, TUTTI_MAX,    TUTTI_BAND,
                      TUTTI_BOR, TUTTI_BXOR, TUTTI_LAND, TUTTI_LOR, TUTTI_MATMUL2};
  tutti_datatype_t types[] = {TUTTI_BYTE, TUTTI_INT32, TUTTI_INT64, TUTTI_FLOAT, TUTTI_DOUBLE};
  long n = 5000; /* more than one 4 KiB chunk of any type */
  for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
      if (ops[o] && tutti_op_check(ops[o], types[t])) continue;
      struct verify v;
      cr_assert(eq(int, verify_init(&v, TUTTI_COLL_GATHER, types[t], ops[o], 3, 8, 4), 0));
      size_t sz = tutti_type_size(types[t]);
      unsigned char *p = malloc(n * sz);
      verify_input(&v, 2, 3, p, 100, n);
      for (long i = 0; i < n; i++) {
        union elem e;
        input_elem(&v, 2, 100 + i, 3, &e);
        cr_assert(eq(int, memcmp(p + i * sz, e.b, sz), 0), "%s %s element %ld",
                  ops[o] ? tutti_op_name(ops[o]) : "none", tutti_type_name(types[t]), i);
      }
      cr_assert(eq(i64, verify_check_input(&v, 2, 3, p, 100, n), -1));
      free(p);
      verify_free(&v);
    }
  struct verify v;
  unsigned char b[300];
  int32_t s[300];
  cr_assert(eq(int, verify_init(&v, TUTTI_COLL_BCAST, TUTTI_BYTE, NULL, 4, 300, 1), 0));
  verify_input(&v, 3, 0, b, 0, 300);
  verify_free(&v);
  cr_assert(eq(int, verify_init(&v, TUTTI_COLL_ALLREDUCE, TUTTI_INT32, TUTTI_SUM, 4, 300, 1), 0));
  verify_input(&v, 3, 0, s, 0, 300);
  verify_free(&v);
  for (int i = 0; i < 300; i++) { /* splitmix64's finalizer, written out again */
    uint64_t x = 3 * 0x100000001b3ull ^ 0, y = 0;
    for (int round = 0; round < 3; round++) {
      uint64_t z = round == 2 ? y : x;
      z += 0x9e3779b97f4a7c15ull;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      z ^= z >> 31;
      if (round == 0) x = z + (uint64_t)(i / 8), y = z + (uint64_t)(i / 16);
      if (round == 1) x = z;
      if (round == 2) y = z;
    }
    /* raw byte i: byte i mod 8 of hash i / 8; int32 sum element i: nibble
     * i mod 16 of hash i / 16, less 8 */
    cr_assert(eq(u8, b[i], (uint8_t)(x >> (8 * (i % 8)))), "byte %d", i);
    cr_assert(eq(i32, s[i], (int32_t)(y >> (4 * (i % 16)) & 15) - 8), "sum element %d", i);
  }
}

/* Every check finds a single wrong byte wherever it is, including across
 * the chunks and the 64 KiB blocks the comparisons go by, and names its
 * element; the poison differs from the reference in every byte. */
Test(verify, checks_find_one_wrong_byte_anywhere, .timeout = 60) {
  tutti_datatype_t types[] = {TUTTI_BYTE, TUTTI_INT32, TUTTI_DOUBLE};
  for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
    size_t sz = tutti_type_size(types[t]);
    long n = (long)((3 * 65536 + 123) / sz); /* a partial last block */
    struct verify v;
    cr_assert(eq(int, verify_init(&v, TUTTI_COLL_BCAST, types[t], NULL, 5, n, 2), 0));
    const struct verify_ref *ref = verify_ref_get(&v, 4, 1);
    cr_assert(not(eq(ptr, (void *)ref, NULL)));
    unsigned char *p = malloc(n * sz), *q = malloc(n * sz);
    verify_input(&v, 4, 1, p, 0, n);
    cr_assert(eq(int, memcmp(p, ref->data, n * sz), 0), "the shared reference is the input");
    size_t same = 0;
    for (size_t i = 0; i < n * sz; i++) same += ref->inv[i] != (uint8_t)~p[i];
    cr_assert(eq(sz, same, 0), "the poison is the complement everywhere");
    verify_poison(&v, 4, 1, q, 0, n);
    cr_assert(eq(int, memcmp(q, ref->inv, n * sz), 0));
    cr_assert(eq(i64, verify_check_ref(&v, ref, p), -1));
    cr_assert(eq(i64, verify_check_input(&v, 4, 1, p, 0, n), -1));
    /* every byte near the ends and the 64 KiB block edges, every 991st
     * elsewhere */
    for (size_t i = 0; i < n * sz;
         i += (i % 65536 < 64 || i % 65536 > 65536 - 64 || i + 64 > n * sz) ? 1 : 991) {
      unsigned char keep = p[i];
      p[i] = (unsigned char)(keep ^ (1u << (i % 8)));
      cr_assert(eq(i64, verify_check_ref(&v, ref, p), (long)(i / sz)), "byte %zu", i);
      cr_assert(eq(i64, verify_check_input(&v, 4, 1, p, 0, n), (long)(i / sz)), "byte %zu", i);
      p[i] = keep;
    }
    /* a buffer left poisoned in one byte only */
    p[n * sz - 1] = ref->inv[n * sz - 1];
    cr_assert(eq(i64, verify_check_ref(&v, ref, p), n - 1));
    verify_ref_put(&v, ref);
    free(p), free(q);
    verify_free(&v);
  }
}

/* The shared references: one per (rank, call variant) while held, rebuilt
 * for another key once idle, and each right for its key. */
Test(verify, shared_references_follow_their_keys, .timeout = 30) {
  struct verify v;
  long n = 1000;
  unsigned char x[1000];
  cr_assert(eq(int, verify_init(&v, TUTTI_COLL_BCAST, TUTTI_BYTE, NULL, 8, n, 8), 0));
  const struct verify_ref *a = verify_ref_get(&v, 2, 1), *b = verify_ref_get(&v, 2, 5);
  cr_assert(eq(ptr, (void *)a, (void *)b), "calls 1 and 5 share inputs (nvar 4)");
  const struct verify_ref *c = verify_ref_get(&v, 3, 1), *d = verify_ref_get(&v, 2, 2);
  cr_assert(not(eq(ptr, (void *)a, (void *)c)));
  cr_assert(not(eq(ptr, (void *)a, (void *)d)));
  verify_input(&v, 3, 1, x, 0, n);
  cr_assert(eq(int, memcmp(c->data, x, n), 0));
  verify_input(&v, 2, 2, x, 0, n);
  cr_assert(eq(int, memcmp(d->data, x, n), 0));
  verify_ref_put(&v, a), verify_ref_put(&v, b), verify_ref_put(&v, c);
  const struct verify_ref *e = verify_ref_get(&v, 7, 3); /* reuses an idle one */
  verify_input(&v, 7, 3, x, 0, n);
  cr_assert(eq(int, memcmp(e->data, x, n), 0));
  for (long i = 0; i < n; i++) cr_assert(eq(u8, e->inv[i], (uint8_t)~x[i]));
  verify_input(&v, 2, 2, x, 0, n); /* d, still held, is untouched */
  cr_assert(eq(int, memcmp(d->data, x, n), 0));
  verify_ref_put(&v, d), verify_ref_put(&v, e);
  verify_free(&v);
}

/* scan's and exscan's check: every rank's prefix, built with the
 * runtime's reduce_local in rank order, passes its digest, and a single
 * flipped bit anywhere is found at its element, for every op and type;
 * the poison check sees its own poison and nothing else. */
Test(verify, prefix_digests_match_reduce_local_in_rank_order, .timeout = 30) {
  tutti_op_t ops[] = {TUTTI_SUM, TUTTI_PROD, TUTTI_MIN, TUTTI_BXOR, TUTTI_MATMUL2};
  tutti_datatype_t types[] = {TUTTI_BYTE, TUTTI_INT32, TUTTI_INT64, TUTTI_DOUBLE};
  for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
      if (tutti_op_check(ops[o], types[t])) continue;
      int P = 6;
      long n = 19;
      struct verify v;
      cr_assert(eq(int, verify_init(&v, TUTTI_COLL_SCAN, types[t], ops[o], P, n, 3), 0));
      size_t sz = tutti_type_size(types[t]);
      unsigned char *acc = malloc(n * sz), *x = malloc(n * sz);
      for (int k = 0; k < 3; k++) {
        verify_input(&v, 0, k, acc, 0, n);
        for (int r = 0; r < P; r++) {
          if (r) { /* acc = acc op x_r: reduce_local's inout is the right operand */
            verify_input(&v, r, k, x, 0, n);
            cr_assert(eq(int, tutti_reduce_local(acc, x, n, types[t], ops[o]), 0));
            memcpy(acc, x, n * sz);
          }
          cr_assert(eq(i64, verify_check_prefix(&v, r, k, acc), -1), "%s on %s, rank %d, call %d",
                    tutti_op_name(ops[o]), tutti_type_name(types[t]), r, k);
          long at = (r * 7 + k) % n;
          acc[at * sz] ^= 0x10;
          cr_assert(eq(i64, verify_check_prefix(&v, r, k, acc), at));
          acc[at * sz] ^= 0x10;
        }
        verify_poison(&v, 2, k, x, 0, n);
        cr_assert(eq(i64, verify_check_poison(&v, 2, k, x, 0, n), -1));
        x[3 * sz] ^= 1;
        cr_assert(eq(i64, verify_check_poison(&v, 2, k, x, 0, n), 3));
      }
      free(acc), free(x);
      verify_free(&v);
    }
}

/*
 * test_unit_verify.c -- bench/verify.c, the sequential reference that
 * `tutti run` and `tutti suite` check every result against, tested
 * directly: its rank-order fold equals the runtime's own reduce_local
 * applied in rank order (and matmul2 makes the order visible); inputs
 * differ between ranks and calls, a window is the same elements as the
 * whole, and the checks see a single flipped bit.
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

/*
 * test_unit_reduce_local.c -- tutti_reduce_local against the element
 * reference of types_ref.h for every builtin op and type (random inputs
 * from a fixed seed, `in` untouched, guards past count), wraparound and
 * signedness, and the non-commutative matmul2 ops: known products,
 * associativity, a fold in rank order.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "types_ref.h"

/* ------------------------------------------ reduce_local vs the reference */

#define NELEM 1000
#define NGUARD 4

static int elem_equal(int t, const void *a, const void *b) {
  if (t == T_FLOAT) {
    float x, y;
    memcpy(&x, a, 4), memcpy(&y, b, 4);
    return x == y;
  }
  if (t == T_DOUBLE) {
    double x, y;
    memcpy(&x, a, 8), memcpy(&y, b, 8);
    return x == y;
  }
  return load_bits(t, a) == load_bits(t, b);
}

struct combo {
  const char *op;
  int type;
};

/* One (op, type) pair: NELEM random elements against ref_elem, `in` left
 * alone, guard elements past count untouched, count 1 at an offset. */
static void check_combo(const struct combo *c) {
  size_t sz = type_sizes[c->type];
  uint64_t seed = 0x7475747469ull + (uint64_t)c->type;
  for (const char *p = c->op; *p; p++) seed = seed * 131 + (unsigned char)*p;
  unsigned char in[(NELEM + NGUARD) * 8], inout[(NELEM + NGUARD) * 8];
  unsigned char in0[sizeof in], inout0[sizeof inout], want[NELEM * 8];
  for (size_t i = 0; i < NELEM + NGUARD; i++) {
    rand_elem(c->type, in + i * sz, &seed);
    rand_elem(c->type, inout + i * sz, &seed);
  }
  memcpy(in0, in, sizeof in), memcpy(inout0, inout, sizeof inout);
  for (size_t i = 0; i < NELEM; i++)
    ref_elem(c->op, c->type, in0 + i * sz, inout0 + i * sz, want + i * sz);

  cr_assert(eq(int, tutti_reduce_local(in, inout, NELEM, builtin(c->type), builtin_op(c->op)), 0));
  for (size_t i = 0; i < NELEM; i++) {
    if (c->type == T_FLOAT) {
      float g, w;
      memcpy(&g, inout + i * sz, 4), memcpy(&w, want + i * sz, 4);
      cr_assert(ieee_ulp_eq(flt, g, w, 0), "%s float [%zu]", c->op, i);
    } else if (c->type == T_DOUBLE) {
      double g, w;
      memcpy(&g, inout + i * sz, 8), memcpy(&w, want + i * sz, 8);
      cr_assert(ieee_ulp_eq(dbl, g, w, 0), "%s double [%zu]", c->op, i);
    } else {
      cr_assert(eq(u64, load_bits(c->type, inout + i * sz), load_bits(c->type, want + i * sz)),
                "%s %s [%zu]: in %#llx inout %#llx", c->op, type_names[c->type], i,
                (unsigned long long)load_bits(c->type, in0 + i * sz),
                (unsigned long long)load_bits(c->type, inout0 + i * sz));
    }
  }
  /* `in` is read-only, and nothing past count is touched */
  cr_assert(eq(int, memcmp(in, in0, sizeof in), 0), "in was modified");
  cr_assert(eq(int, memcmp(inout + NELEM * sz, inout0 + NELEM * sz, NGUARD * sz), 0),
            "wrote past count");

  /* count 1 on an odd offset of the buffer agrees too */
  memcpy(inout, inout0, sizeof inout);
  cr_assert(eq(
      int, tutti_reduce_local(in + 7 * sz, inout + 7 * sz, 1, builtin(c->type), builtin_op(c->op)),
      0));
  cr_assert(eq(int, elem_equal(c->type, inout + 7 * sz, want + 7 * sz), 1), "%s %s count 1", c->op,
            type_names[c->type]);
  cr_assert(eq(int, memcmp(inout, inout0, 7 * sz), 0));
  cr_assert(eq(int, memcmp(inout + 8 * sz, inout0 + 8 * sz, (NELEM - 8) * sz), 0));
}

/* Every valid (op, type) pair of the documented table, in three families
 * (a test process per pair costs more than the checks themselves). */
static int run_family(const char *const *ops, size_t nops) {
  int n = 0;
  for (size_t i = 0; i < nops; i++)
    for (int t = 0; t < T_NBUILTIN; t++)
      if (doc_defined(ops[i], t)) {
        struct combo c = {ops[i], t};
        check_combo(&c);
        n++;
      }
  return n;
}

Test(reduce_local, arith_matches_reference, .timeout = 10) {
  static const char *const ops[] = {"sum", "prod", "min", "max"};
  cr_assert(eq(int, run_family(ops, 4), 20));
}

Test(reduce_local, bitwise_logical_matches_reference, .timeout = 10) {
  static const char *const ops[] = {"band", "bor", "bxor", "land", "lor"};
  cr_assert(eq(int, run_family(ops, 5), 15));
}

Test(reduce_local, matmul2_matches_reference, .timeout = 10) {
  static const char *const ops[] = {"matmul2"};
  cr_assert(eq(int, run_family(ops, 1), 2));
}

/* Hand-picked values whose answers are known without any reference code. */
Test(reduce_local, wraparound_and_signedness) {
  int32_t a32[] = {INT32_MAX, INT32_MIN, 0x10000, -1, 46341};
  int32_t b32[] = {1, -1, 0x10000, -1, 46341};
  cr_assert(eq(int, tutti_reduce_local(a32, b32, 5, TUTTI_INT32, TUTTI_SUM), 0));
  cr_assert(eq(i32, b32[0], INT32_MIN));
  cr_assert(eq(i32, b32[1], INT32_MAX));
  cr_assert(eq(i32, b32[2], 0x20000));
  cr_assert(eq(i32, b32[3], -2));
  cr_assert(eq(i32, b32[4], 92682));

  int32_t p32[] = {0x10000, INT32_MIN, 46341, -1, INT32_MAX};
  int32_t q32[] = {0x10000, -1, 46341, INT32_MIN, 2};
  cr_assert(eq(int, tutti_reduce_local(p32, q32, 5, TUTTI_INT32, TUTTI_PROD), 0));
  cr_assert(eq(i32, q32[0], 0));           /* 2^32 mod 2^32 */
  cr_assert(eq(i32, q32[1], INT32_MIN));   /* -INT32_MIN wraps */
  cr_assert(eq(i32, q32[2], -2147479015)); /* 2147488281 - 2^32 */
  cr_assert(eq(i32, q32[3], INT32_MIN));
  cr_assert(eq(i32, q32[4], -2));

  int64_t a64[] = {INT64_MAX, INT64_MIN, (int64_t)1 << 32};
  int64_t b64[] = {1, -1, (int64_t)1 << 32};
  cr_assert(eq(int, tutti_reduce_local(a64, b64, 3, TUTTI_INT64, TUTTI_SUM), 0));
  cr_assert(eq(i64, b64[0], INT64_MIN));
  cr_assert(eq(i64, b64[1], INT64_MAX));
  cr_assert(eq(i64, b64[2], (int64_t)1 << 33));
  int64_t c64[] = {(int64_t)1 << 32, INT64_MIN, -3};
  int64_t d64[] = {(int64_t)1 << 32, -1, 5};
  cr_assert(eq(int, tutti_reduce_local(c64, d64, 3, TUTTI_INT64, TUTTI_PROD), 0));
  cr_assert(eq(i64, d64[0], 0));
  cr_assert(eq(i64, d64[1], INT64_MIN));
  cr_assert(eq(i64, d64[2], -15));

  uint8_t a8[] = {200, 200, 200, 16, 0x80, 3};
  uint8_t b8[] = {100, 100, 100, 16, 0x7f, 0};
  uint8_t s8[6], p8[6], mn8[6], mx8[6];
  memcpy(s8, b8, 6), memcpy(p8, b8, 6), memcpy(mn8, b8, 6), memcpy(mx8, b8, 6);
  cr_assert(eq(int, tutti_reduce_local(a8, s8, 6, TUTTI_BYTE, TUTTI_SUM), 0));
  cr_assert(eq(int, tutti_reduce_local(a8, p8, 6, TUTTI_BYTE, TUTTI_PROD), 0));
  cr_assert(eq(int, tutti_reduce_local(a8, mn8, 6, TUTTI_BYTE, TUTTI_MIN), 0));
  cr_assert(eq(int, tutti_reduce_local(a8, mx8, 6, TUTTI_BYTE, TUTTI_MAX), 0));
  cr_assert(eq(u8, s8[0], 44));   /* 300 mod 256 */
  cr_assert(eq(u8, p8[0], 32));   /* 20000 mod 256 */
  cr_assert(eq(u8, p8[3], 0));    /* 256 mod 256 */
  cr_assert(eq(u8, mn8[0], 100)); /* unsigned: 200 > 100 */
  cr_assert(eq(u8, mx8[0], 200));
  cr_assert(eq(u8, mn8[4], 0x7f));
  cr_assert(eq(u8, mx8[4], 0x80));
  cr_assert(eq(u8, s8[5], 3));
  cr_assert(eq(u8, p8[5], 0));

  int32_t m1[] = {-5, 7, INT32_MIN, -1};
  int32_t m2[] = {3, -9, INT32_MAX, 0};
  int32_t mn[4], mx[4];
  memcpy(mn, m2, sizeof m2), memcpy(mx, m2, sizeof m2);
  cr_assert(eq(int, tutti_reduce_local(m1, mn, 4, TUTTI_INT32, TUTTI_MIN), 0));
  cr_assert(eq(int, tutti_reduce_local(m1, mx, 4, TUTTI_INT32, TUTTI_MAX), 0));
  cr_assert(eq(i32, mn[0], -5));
  cr_assert(eq(i32, mn[1], -9));
  cr_assert(eq(i32, mn[2], INT32_MIN));
  cr_assert(eq(i32, mn[3], -1));
  cr_assert(eq(i32, mx[0], 3));
  cr_assert(eq(i32, mx[1], 7));
  cr_assert(eq(i32, mx[2], INT32_MAX));
  cr_assert(eq(i32, mx[3], 0));

  int64_t l1[] = {-2, 0, 5, 0};
  int64_t l2[] = {7, 0, 0, INT64_MIN};
  int64_t la[4], lo[4];
  memcpy(la, l2, sizeof l2), memcpy(lo, l2, sizeof l2);
  cr_assert(eq(int, tutti_reduce_local(l1, la, 4, TUTTI_INT64, TUTTI_LAND), 0));
  cr_assert(eq(int, tutti_reduce_local(l1, lo, 4, TUTTI_INT64, TUTTI_LOR), 0));
  int64_t want_la[] = {1, 0, 0, 0}, want_lo[] = {1, 0, 1, 1};
  for (int i = 0; i < 4; i++) {
    cr_assert(eq(i64, la[i], want_la[i]), "land [%d]", i);
    cr_assert(eq(i64, lo[i], want_lo[i]), "lor [%d]", i);
  }

  double d1[] = {-1.5, 0.1, -1e300};
  double d2[] = {2.25, 0.2, 1e300};
  double ds[3], dm[3];
  memcpy(ds, d2, sizeof d2), memcpy(dm, d2, sizeof d2);
  cr_assert(eq(int, tutti_reduce_local(d1, ds, 3, TUTTI_DOUBLE, TUTTI_SUM), 0));
  cr_assert(eq(int, tutti_reduce_local(d1, dm, 3, TUTTI_DOUBLE, TUTTI_MIN), 0));
  cr_assert(ieee_ulp_eq(dbl, ds[0], 0.75, 0));
  cr_assert(ieee_ulp_eq(dbl, ds[1], 0.30000000000000004, 0));
  cr_assert(ieee_ulp_eq(dbl, ds[2], 0.0, 0));
  cr_assert(ieee_ulp_eq(dbl, dm[0], -1.5, 0));
  cr_assert(ieee_ulp_eq(dbl, dm[2], -1e300, 0));
  float f1[] = {-3.5f, 1e30f}, f2[] = {2.0f, 1e30f}, fp[2];
  memcpy(fp, f2, sizeof f2);
  cr_assert(eq(int, tutti_reduce_local(f1, fp, 2, TUTTI_FLOAT, TUTTI_PROD), 0));
  cr_assert(ieee_ulp_eq(flt, fp[0], -7.0f, 0));
  cr_assert(eq(int, isinf(fp[1]) != 0, 1), "float prod overflows to inf");
}

/* ------------------------------------------------------------------ matmul2 */

Test(matmul2, known_products_and_noncommutativity) {
  /* a = [1 2; 3 4], b = [5 6; 7 8]: ab = [19 22; 43 50], ba = [23 34; 31 46] */
  uint32_t a = pack32(1, 2, 3, 4), b = pack32(5, 6, 7, 8);
  uint32_t ab = pack32(19, 22, 43, 50), ba = pack32(23, 34, 31, 46);
  cr_assert(ne(u32, ab, ba));
  cr_assert(eq(u32, ref_mm32(a, b), ab), "reference disagrees with hand product");
  cr_assert(eq(u32, ref_mm32(b, a), ba));
  int32_t in, io;
  memcpy(&in, &a, 4), memcpy(&io, &b, 4);
  cr_assert(eq(int, tutti_reduce_local(&in, &io, 1, TUTTI_INT32, TUTTI_MATMUL2), 0));
  cr_assert(eq(u32, (uint32_t)io, ab), "reduce_local(a, b) must give a*b");
  memcpy(&in, &b, 4), memcpy(&io, &a, 4);
  cr_assert(eq(int, tutti_reduce_local(&in, &io, 1, TUTTI_INT32, TUTTI_MATMUL2), 0));
  cr_assert(eq(u32, (uint32_t)io, ba), "reduce_local(b, a) must give b*a");

  uint64_t a64 = pack64(1, 2, 3, 4), b64 = pack64(5, 6, 7, 8);
  int64_t in64, io64;
  memcpy(&in64, &a64, 8), memcpy(&io64, &b64, 8);
  cr_assert(eq(int, tutti_reduce_local(&in64, &io64, 1, TUTTI_INT64, TUTTI_MATMUL2), 0));
  cr_assert(eq(u64, (uint64_t)io64, pack64(19, 22, 43, 50)));

  /* 8-bit entries mod 251: 250 = -1, so diag(250, 1)^2 = I */
  uint32_t m = pack32(250, 0, 0, 1), m2 = m;
  cr_assert(eq(int, tutti_reduce_local(&m, &m2, 1, TUTTI_INT32, TUTTI_MATMUL2), 0));
  cr_assert(eq(u32, m2, pack32(1, 0, 0, 1)));
  /* invalid entries are reduced first: 255 = 4 (mod 251) */
  uint32_t inv = pack32(255, 0, 0, 255), id = pack32(1, 0, 0, 1);
  cr_assert(eq(int, tutti_reduce_local(&inv, &id, 1, TUTTI_INT32, TUTTI_MATMUL2), 0));
  cr_assert(eq(u32, id, pack32(4, 0, 0, 4)));
  /* 200 * 200 + 100 * 100 = 50000 = 50000 - 199 * 251 = 51 */
  uint32_t big = pack32(200, 100, 0, 0), col = pack32(200, 0, 100, 0);
  cr_assert(eq(int, tutti_reduce_local(&big, &col, 1, TUTTI_INT32, TUTTI_MATMUL2), 0));
  cr_assert(eq(u32, col, pack32(51, 0, 0, 0)));

  /* 16-bit entries mod 65521: 65520 = -1, 65535 = 14 */
  uint64_t n = pack64(65520, 0, 0, 65535), n2 = pack64(65520, 1, 0, 1);
  cr_assert(eq(int, tutti_reduce_local(&n, &n2, 1, TUTTI_INT64, TUTTI_MATMUL2), 0));
  /* [-1 0; 0 14] [-1 1; 0 1] = [1 -1; 0 14] */
  cr_assert(eq(u64, n2, pack64(1, 65520, 0, 14)));
  /* top entry set: the int64 is negative as a signed value */
  uint64_t t1 = pack64(0, 0, 0, 65000), t2 = pack64(0, 0, 0, 65000);
  cr_assert(eq(int, tutti_reduce_local(&t1, &t2, 1, TUTTI_INT64, TUTTI_MATMUL2), 0));
  cr_assert(eq(u64, t2, pack64(0, 0, 0, (65000ull * 65000ull) % 65521)));
}

Test(matmul2, random_products_and_associativity) {
  uint64_t s = 0x6d61746d756c32ull;
  for (int rep = 0; rep < 200; rep++) {
    uint32_t x = (uint32_t)rng_next(&s), y = (uint32_t)rng_next(&s), z = (uint32_t)rng_next(&s);
    uint32_t t = y;
    cr_assert(eq(int, tutti_reduce_local(&x, &t, 1, TUTTI_INT32, TUTTI_MATMUL2), 0));
    cr_assert(eq(u32, t, ref_mm32(x, y)), "x*y x=%#x y=%#x", x, y);
    uint32_t u = z; /* (x y) z */
    cr_assert(eq(int, tutti_reduce_local(&t, &u, 1, TUTTI_INT32, TUTTI_MATMUL2), 0));
    uint32_t v = z; /* x (y z) */
    cr_assert(eq(int, tutti_reduce_local(&y, &v, 1, TUTTI_INT32, TUTTI_MATMUL2), 0));
    cr_assert(eq(int, tutti_reduce_local(&x, &v, 1, TUTTI_INT32, TUTTI_MATMUL2), 0));
    cr_assert(eq(u32, u, v), "int32 associativity x=%#x y=%#x z=%#x", x, y, z);
    cr_assert(eq(u32, u, ref_mm32(ref_mm32(x, y), z)));

    uint64_t X = rng_next(&s), Y = rng_next(&s), Z = rng_next(&s);
    uint64_t T = Y;
    cr_assert(eq(int, tutti_reduce_local(&X, &T, 1, TUTTI_INT64, TUTTI_MATMUL2), 0));
    cr_assert(eq(u64, T, ref_mm64(X, Y)));
    uint64_t U = Z, V = Z;
    cr_assert(eq(int, tutti_reduce_local(&T, &U, 1, TUTTI_INT64, TUTTI_MATMUL2), 0));
    cr_assert(eq(int, tutti_reduce_local(&Y, &V, 1, TUTTI_INT64, TUTTI_MATMUL2), 0));
    cr_assert(eq(int, tutti_reduce_local(&X, &V, 1, TUTTI_INT64, TUTTI_MATMUL2), 0));
    cr_assert(eq(u64, U, V), "int64 associativity");
    cr_assert(eq(u64, U, ref_mm64(ref_mm64(X, Y), Z)));
  }
  /* random matrices rarely commute: most pairs must show it */
  int noncommuting = 0;
  for (int rep = 0; rep < 100; rep++) {
    uint32_t x = (uint32_t)rng_next(&s), y = (uint32_t)rng_next(&s), xy = y, yx = x;
    tutti_reduce_local(&x, &xy, 1, TUTTI_INT32, TUTTI_MATMUL2);
    tutti_reduce_local(&y, &yx, 1, TUTTI_INT32, TUTTI_MATMUL2);
    noncommuting += xy != yx;
  }
  cr_assert(gt(int, noncommuting, 90));
}

#define P 9
#define FOLD_N 33

Test(matmul2, rank_order_fold) {
  uint64_t s = 0x666f6c64ull;
  uint32_t x32[P][FOLD_N];
  uint64_t x64[P][FOLD_N];
  for (int r = 0; r < P; r++)
    for (int i = 0; i < FOLD_N; i++) x32[r][i] = (uint32_t)rng_next(&s), x64[r][i] = rng_next(&s);

  /* acc = x_{P-1}; acc = x_i (op) acc for i = P-2 .. 0 */
  uint32_t acc32[FOLD_N];
  uint64_t acc64[FOLD_N];
  memcpy(acc32, x32[P - 1], sizeof acc32);
  memcpy(acc64, x64[P - 1], sizeof acc64);
  for (int r = P - 2; r >= 0; r--) {
    cr_assert(eq(int, tutti_reduce_local(x32[r], acc32, FOLD_N, TUTTI_INT32, TUTTI_MATMUL2), 0));
    cr_assert(eq(int, tutti_reduce_local(x64[r], acc64, FOLD_N, TUTTI_INT64, TUTTI_MATMUL2), 0));
  }
  /* the wrong direction: acc = x_0; acc = x_i (op) acc for i = 1 .. P-1 */
  uint32_t rev32[FOLD_N];
  memcpy(rev32, x32[0], sizeof rev32);
  for (int r = 1; r < P; r++)
    cr_assert(eq(int, tutti_reduce_local(x32[r], rev32, FOLD_N, TUTTI_INT32, TUTTI_MATMUL2), 0));

  int differ = 0;
  for (int i = 0; i < FOLD_N; i++) {
    uint32_t w32 = x32[0][i];
    uint64_t w64 = x64[0][i];
    for (int r = 1; r < P; r++) w32 = ref_mm32(w32, x32[r][i]), w64 = ref_mm64(w64, x64[r][i]);
    cr_assert(eq(u32, acc32[i], w32), "int32 fold [%d]", i);
    cr_assert(eq(u64, acc64[i], w64), "int64 fold [%d]", i);
    uint32_t back = x32[P - 1][i];
    for (int r = P - 2; r >= 0; r--) back = ref_mm32(back, x32[r][i]);
    cr_assert(eq(u32, rev32[i], back), "reverse fold [%d]", i);
    differ += rev32[i] != acc32[i];
  }
  cr_assert(gt(int, differ, FOLD_N / 2), "fold order does not matter?");
}

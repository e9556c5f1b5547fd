/*
 * types_ref.h -- the references the datatype and reduction tests check
 * tutti against (test_unit_types.c, test_unit_reduce_local.c), written from
 * the documentation in tutti.h, never from types.c: a fixed-seed
 * splitmix64 (a failure reproduces exactly), the builtin types and ops by
 * name, the 2x2 matrix product over Z/p of the matmul2 ops, and each
 * op's result on one element.
 */
#ifndef TUTTI_TESTS_TYPES_REF_H
#define TUTTI_TESTS_TYPES_REF_H

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "tutti/tutti.h"

/* ------------------------------------------------------------------ helpers */

static inline uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

enum { T_BYTE, T_INT32, T_INT64, T_FLOAT, T_DOUBLE, T_NBUILTIN };

static const char *const type_names[T_NBUILTIN] = {"byte", "int32", "int64", "float", "double"};
static const size_t type_sizes[T_NBUILTIN] = {1, 4, 8, 4, 8};

static inline tutti_datatype_t builtin(int t) {
  switch (t) {
  case T_BYTE:
    return TUTTI_BYTE;
  case T_INT32:
    return TUTTI_INT32;
  case T_INT64:
    return TUTTI_INT64;
  case T_FLOAT:
    return TUTTI_FLOAT;
  default:
    return TUTTI_DOUBLE;
  }
}

static const char *const op_names[] = {"sum", "prod", "min",  "max", "band",
                                       "bor", "bxor", "land", "lor", "matmul2"};
#define NOPS (sizeof op_names / sizeof *op_names)

static inline tutti_op_t builtin_op(const char *name) {
  if (!strcmp(name, "sum")) return TUTTI_SUM;
  if (!strcmp(name, "prod")) return TUTTI_PROD;
  if (!strcmp(name, "min")) return TUTTI_MIN;
  if (!strcmp(name, "max")) return TUTTI_MAX;
  if (!strcmp(name, "band")) return TUTTI_BAND;
  if (!strcmp(name, "bor")) return TUTTI_BOR;
  if (!strcmp(name, "bxor")) return TUTTI_BXOR;
  if (!strcmp(name, "land")) return TUTTI_LAND;
  if (!strcmp(name, "lor")) return TUTTI_LOR;
  if (!strcmp(name, "matmul2")) return TUTTI_MATMUL2;
  return NULL;
}

/* The documented table: is op `name` defined on built-in type t? */
static inline int doc_defined(const char *name, int t) {
  if (!strcmp(name, "sum") || !strcmp(name, "prod") || !strcmp(name, "min") || !strcmp(name, "max"))
    return 1;
  if (!strcmp(name, "matmul2")) return t == T_INT32 || t == T_INT64;
  return t == T_BYTE || t == T_INT32 || t == T_INT64; /* band bor bxor land lor */
}

/* ------------------------------------------------------------- matmul2 ref */

/* A 2x2 matrix over Z/p, entry (r, c) packed at bit position (2r + c) * bits:
 * row-major from the low bits. Entries are reduced mod p when unpacked. */
typedef struct {
  uint64_t m[2][2];
} mat2;

static inline mat2 mat_unpack(uint64_t x, unsigned bits, uint64_t p) {
  mat2 a;
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 2; c++)
      a.m[r][c] = ((x >> ((2 * r + c) * bits)) & ((1ull << bits) - 1)) % p;
  return a;
}

static inline uint64_t mat_pack(mat2 a, unsigned bits) {
  uint64_t x = 0;
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 2; c++) x |= a.m[r][c] << ((2 * r + c) * bits);
  return x;
}

static inline mat2 mat_mul(mat2 a, mat2 b, uint64_t p) {
  mat2 c;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      uint64_t s = 0;
      for (int k = 0; k < 2; k++) s = (s + a.m[i][k] * b.m[k][j]) % p;
      c.m[i][j] = s;
    }
  return c;
}

/* x * y for packed int32 (8-bit entries mod 251) and int64 (16-bit mod 65521). */
static inline uint32_t ref_mm32(uint32_t x, uint32_t y) {
  return (uint32_t)mat_pack(mat_mul(mat_unpack(x, 8, 251), mat_unpack(y, 8, 251), 251), 8);
}
static inline uint64_t ref_mm64(uint64_t x, uint64_t y) {
  return mat_pack(mat_mul(mat_unpack(x, 16, 65521), mat_unpack(y, 16, 65521), 65521), 16);
}

static inline uint32_t pack32(unsigned a0, unsigned a1, unsigned a2, unsigned a3) {
  return (uint32_t)a0 | (uint32_t)a1 << 8 | (uint32_t)a2 << 16 | (uint32_t)a3 << 24;
}
static inline uint64_t pack64(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3) {
  return a0 | a1 << 16 | a2 << 32 | a3 << 48;
}

/* ------------------------------------------------------- element reference */

/* Integer element of type t as raw bits (zero-extended) and as its value
 * (byte is unsigned, int32/int64 signed). */
static inline uint64_t load_bits(int t, const void *p) {
  switch (t) {
  case T_BYTE: {
    uint8_t v;
    memcpy(&v, p, 1);
    return v;
  }
  case T_INT32: {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  default: {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}
static inline int64_t load_val(int t, const void *p) {
  switch (t) {
  case T_BYTE: {
    uint8_t v;
    memcpy(&v, p, 1);
    return v;
  }
  case T_INT32: {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
  }
  default: {
    int64_t v;
    memcpy(&v, p, 8);
    return v;
  }
  }
}
static inline void store_bits(int t, void *p, uint64_t bits) {
  switch (t) {
  case T_BYTE: {
    uint8_t v = (uint8_t)bits;
    memcpy(p, &v, 1);
    break;
  }
  case T_INT32: {
    uint32_t v = (uint32_t)bits;
    memcpy(p, &v, 4);
    break;
  }
  default:
    memcpy(p, &bits, 8);
    break;
  }
}

/* out = a (op) b for one element. Integer sum/prod are computed on 64-bit
 * unsigned and truncated, which is two's-complement wrap-around at every
 * width; min/max compare values (byte unsigned). */
static inline void ref_elem(const char *op, int t, const void *a, const void *b, void *out) {
  if (t == T_FLOAT) {
    float x, y, r = 0;
    memcpy(&x, a, 4), memcpy(&y, b, 4);
    if (!strcmp(op, "sum"))
      r = x + y;
    else if (!strcmp(op, "prod"))
      r = x * y;
    else if (!strcmp(op, "min"))
      r = fminf(x, y);
    else if (!strcmp(op, "max"))
      r = fmaxf(x, y);
    memcpy(out, &r, 4);
    return;
  }
  if (t == T_DOUBLE) {
    double x, y, r = 0;
    memcpy(&x, a, 8), memcpy(&y, b, 8);
    if (!strcmp(op, "sum"))
      r = x + y;
    else if (!strcmp(op, "prod"))
      r = x * y;
    else if (!strcmp(op, "min"))
      r = fmin(x, y);
    else if (!strcmp(op, "max"))
      r = fmax(x, y);
    memcpy(out, &r, 8);
    return;
  }
  uint64_t ux = load_bits(t, a), uy = load_bits(t, b), r = 0;
  int64_t sx = load_val(t, a), sy = load_val(t, b);
  if (!strcmp(op, "sum"))
    r = ux + uy;
  else if (!strcmp(op, "prod"))
    r = ux * uy;
  else if (!strcmp(op, "min"))
    r = sx <= sy ? ux : uy;
  else if (!strcmp(op, "max"))
    r = sx >= sy ? ux : uy;
  else if (!strcmp(op, "band"))
    r = ux & uy;
  else if (!strcmp(op, "bor"))
    r = ux | uy;
  else if (!strcmp(op, "bxor"))
    r = ux ^ uy;
  else if (!strcmp(op, "land"))
    r = (sx != 0) && (sy != 0);
  else if (!strcmp(op, "lor"))
    r = (sx != 0) || (sy != 0);
  else if (!strcmp(op, "matmul2"))
    r = t == T_INT32 ? ref_mm32((uint32_t)ux, (uint32_t)uy) : ref_mm64(ux, uy);
  store_bits(t, out, r);
}

/* Random element: integers mix zeros, extremes and random bits (so land/lor
 * see both truth values and sum/prod wrap); floats are signed decimals. */
static inline void rand_elem(int t, void *p, uint64_t *s) {
  uint64_t r = rng_next(s);
  if (t == T_FLOAT || t == T_DOUBLE) {
    double v = (double)((int64_t)(r % 2000001) - 1000000) / 1000.0;
    if (t == T_FLOAT) {
      float f = (float)v;
      memcpy(p, &f, 4);
    } else
      memcpy(p, &v, 8);
    return;
  }
  static const uint64_t special[] = {0,
                                     1,
                                     UINT64_MAX /* -1 */,
                                     0x7fffffffffffffffull,
                                     0x8000000000000000ull,
                                     0x7fffffffull,
                                     0x80000000ull,
                                     0x7f,
                                     0x80,
                                     0xff};
  switch (r % 8) {
  case 0:
    store_bits(t, p, 0);
    break;
  case 1: {
    uint64_t v = special[rng_next(s) % (sizeof special / sizeof *special)];
    /* keep extremes extreme at each width: sign-extend -1, INT_MIN, INT_MAX */
    if (t == T_INT32 && v == 0x7fffffffffffffffull) v = 0x7fffffff;
    if (t == T_INT32 && v == 0x8000000000000000ull) v = 0x80000000;
    store_bits(t, p, v);
    break;
  }
  case 2:
    store_bits(t, p, rng_next(s) % 7);
    break; /* small, prod stays small */
  default:
    store_bits(t, p, rng_next(s));
    break;
  }
}

#endif

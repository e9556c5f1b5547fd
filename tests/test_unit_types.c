/*
 * test_unit_types.c -- error names, datatypes, reduction ops and
 * tutti_reduce_local, checked against references written here from the
 * documentation in tutti.h (never from types.c).
 *
 * Every random input comes from a fixed-seed splitmix64, so a failure
 * reproduces exactly.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "tutti/tutti.h"

/* ------------------------------------------------------------------ helpers */

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

enum { T_BYTE, T_INT32, T_INT64, T_FLOAT, T_DOUBLE, T_NBUILTIN };

static const char *const type_names[T_NBUILTIN] = {"byte", "int32", "int64", "float", "double"};
static const size_t type_sizes[T_NBUILTIN] = {1, 4, 8, 4, 8};

static tutti_datatype_t builtin(int t) {
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

static tutti_op_t builtin_op(const char *name) {
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
static int doc_defined(const char *name, int t) {
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

static mat2 mat_unpack(uint64_t x, unsigned bits, uint64_t p) {
  mat2 a;
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 2; c++)
      a.m[r][c] = ((x >> ((2 * r + c) * bits)) & ((1ull << bits) - 1)) % p;
  return a;
}

static uint64_t mat_pack(mat2 a, unsigned bits) {
  uint64_t x = 0;
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 2; c++) x |= a.m[r][c] << ((2 * r + c) * bits);
  return x;
}

static mat2 mat_mul(mat2 a, mat2 b, uint64_t p) {
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
static uint32_t ref_mm32(uint32_t x, uint32_t y) {
  return (uint32_t)mat_pack(mat_mul(mat_unpack(x, 8, 251), mat_unpack(y, 8, 251), 251), 8);
}
static uint64_t ref_mm64(uint64_t x, uint64_t y) {
  return mat_pack(mat_mul(mat_unpack(x, 16, 65521), mat_unpack(y, 16, 65521), 65521), 16);
}

static uint32_t pack32(unsigned a0, unsigned a1, unsigned a2, unsigned a3) {
  return (uint32_t)a0 | (uint32_t)a1 << 8 | (uint32_t)a2 << 16 | (uint32_t)a3 << 24;
}
static uint64_t pack64(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3) {
  return a0 | a1 << 16 | a2 << 32 | a3 << 48;
}

/* ------------------------------------------------------- element reference */

/* Integer element of type t as raw bits (zero-extended) and as its value
 * (byte is unsigned, int32/int64 signed). */
static uint64_t load_bits(int t, const void *p) {
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
static int64_t load_val(int t, const void *p) {
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
static void store_bits(int t, void *p, uint64_t bits) {
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
static void ref_elem(const char *op, int t, const void *a, const void *b, void *out) {
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
static void rand_elem(int t, void *p, uint64_t *s) {
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

/* ------------------------------------------------------------ error codes */

struct errdesc {
  int val;
  const char *name, *msg;
};
static const struct errdesc errs[] = {
#define X(name, val, msg) {val, "TUTTI_" #name, msg},
    TUTTI_ERRNO_MAP(X)
#undef X
};
#define NERRS (sizeof errs / sizeof *errs)

Test(errors, every_code_has_a_distinct_sentence_and_name) {
  cr_assert(eq(sz, NERRS, 22));
  for (size_t i = 0; i < NERRS; i++) {
    const char *s = tutti_strerror(errs[i].val), *n = tutti_err_name(errs[i].val);
    cr_assert(ne(ptr, (void *)s, NULL), "strerror(%d)", errs[i].val);
    cr_assert(ne(ptr, (void *)n, NULL), "err_name(%d)", errs[i].val);
    cr_assert(gt(sz, strlen(s), 0), "strerror(%d) is empty", errs[i].val);
    cr_assert(eq(str, (char *)s, (char *)errs[i].msg));
    cr_assert(eq(str, (char *)n, (char *)errs[i].name));
    cr_assert(eq(int, strncmp(n, "TUTTI_E", 7), 0), "%s", n);
    cr_assert(lt(int, errs[i].val, 0), "%s", n);
    cr_assert(ne(str, (char *)s, "success"));
    for (size_t j = 0; j < i; j++) {
      cr_assert(ne(int, errs[i].val, errs[j].val));
      cr_assert(ne(str, (char *)s, (char *)tutti_strerror(errs[j].val)), "%s vs %s", n,
                errs[j].name);
      cr_assert(ne(str, (char *)n, (char *)tutti_err_name(errs[j].val)));
    }
  }
}

Test(errors, enum_matches_the_map) {
  cr_assert(eq(int, TUTTI_OK, 0));
  cr_assert(eq(int, TUTTI_EINVAL, -1));
  cr_assert(eq(int, TUTTI_ENOTFOUND, -18));
  cr_assert(eq(int, TUTTI_EVERIFY, -21));
  cr_assert(eq(int, TUTTI_ESTACK, -22));
  cr_assert(eq(str, (char *)tutti_err_name(TUTTI_ETAG), "TUTTI_ETAG"));
}

Test(errors, success_and_unknown_codes) {
  cr_assert(eq(str, (char *)tutti_strerror(0), "success"));
  cr_assert(eq(str, (char *)tutti_err_name(0), "TUTTI_OK"));
  static const int unknown[] = {1, 42, -23, -999, INT_MIN, INT_MAX, TUTTI_UNDEFINED};
  for (size_t u = 0; u < sizeof unknown / sizeof *unknown; u++) {
    const char *s = tutti_strerror(unknown[u]), *n = tutti_err_name(unknown[u]);
    cr_assert(ne(ptr, (void *)s, NULL));
    cr_assert(ne(ptr, (void *)n, NULL));
    cr_assert(gt(sz, strlen(s), 0), "strerror(%d) empty", unknown[u]);
    cr_assert(gt(sz, strlen(n), 0), "err_name(%d) empty", unknown[u]);
    cr_assert(ne(str, (char *)s, "success"));
    for (size_t i = 0; i < NERRS; i++) {
      cr_assert(ne(str, (char *)s, (char *)errs[i].msg), "unknown %d reads as %s", unknown[u],
                errs[i].name);
      cr_assert(ne(str, (char *)n, (char *)errs[i].name));
    }
  }
}

/* --------------------------------------------------------------- datatypes */

Test(datatypes, builtin_sizes_names_and_find) {
  for (int t = 0; t < T_NBUILTIN; t++) {
    cr_assert(eq(sz, tutti_type_size(builtin(t)), type_sizes[t]), "%s", type_names[t]);
    cr_assert(eq(str, (char *)tutti_type_name(builtin(t)), (char *)type_names[t]));
    tutti_datatype_t got = NULL;
    cr_assert(eq(int, tutti_type_find(type_names[t], &got), 0), "%s", type_names[t]);
    cr_assert(eq(ptr, (void *)got, (void *)builtin(t)), "%s", type_names[t]);
  }
  cr_assert(eq(sz, tutti_type_size(TUTTI_INT32), sizeof(int32_t)));
  cr_assert(eq(sz, tutti_type_size(TUTTI_DOUBLE), sizeof(double)));
}

Test(datatypes, find_unknown_and_null) {
  tutti_datatype_t got = TUTTI_BYTE;
  static const char *const bad[] = {"int16", "", "Int32", "int32 ", "contiguous(4)", "invalid"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cr_assert(eq(int, tutti_type_find(bad[i], &got), TUTTI_ENOTFOUND), "'%s'", bad[i]);
    cr_assert(eq(ptr, (void *)got, (void *)TUTTI_BYTE), "out written on failure");
  }
  cr_assert(eq(int, tutti_type_find(NULL, &got), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_type_find("int32", NULL), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_type_find(NULL, NULL), TUTTI_EINVAL));
}

Test(datatypes, invalid_handles) {
  cr_assert(eq(sz, tutti_type_size(NULL), 0));
  cr_assert(eq(str, (char *)tutti_type_name(NULL), "invalid"));
  /* a struct that is not a datatype (wrong magic) */
  static const uint64_t junk[16];
  tutti_datatype_t bogus = (tutti_datatype_t)(const void *)junk;
  cr_assert(eq(sz, tutti_type_size(bogus), 0));
  cr_assert(eq(str, (char *)tutti_type_name(bogus), "invalid"));
}

Test(datatypes, contiguous_user_types) {
  tutti_datatype_t t = NULL;
  cr_assert(eq(int, tutti_type_contiguous(12, &t), 0));
  cr_assert(ne(ptr, (void *)t, NULL));
  cr_assert(eq(sz, tutti_type_size(t), 12));
  cr_assert(eq(str, (char *)tutti_type_name(t), "contiguous(12)"));

  tutti_datatype_t one = NULL, big = NULL;
  cr_assert(eq(int, tutti_type_contiguous(1, &one), 0));
  cr_assert(eq(sz, tutti_type_size(one), 1));
  cr_assert(eq(str, (char *)tutti_type_name(one), "contiguous(1)"));
  cr_assert(eq(int, tutti_type_contiguous(1048576, &big), 0));
  cr_assert(eq(sz, tutti_type_size(big), 1048576));
  cr_assert(eq(str, (char *)tutti_type_name(big), "contiguous(1048576)"));
  cr_assert(ne(ptr, (void *)one, (void *)big));

  /* a user type is not findable by name */
  tutti_datatype_t got = NULL;
  cr_assert(eq(int, tutti_type_find("contiguous(12)", &got), TUTTI_ENOTFOUND));

  cr_assert(eq(int, tutti_type_free(&t), 0));
  cr_assert(eq(ptr, (void *)t, NULL), "free clears the handle");
  cr_assert(lt(int, tutti_type_free(&t), 0), "second free accepted");
  cr_assert(eq(int, tutti_type_free(&t), TUTTI_ETYPE));
  cr_assert(eq(int, tutti_type_free(NULL), TUTTI_ETYPE));
  cr_assert(eq(int, tutti_type_free(&one), 0));
  cr_assert(eq(int, tutti_type_free(&big), 0));
}

Test(datatypes, contiguous_rejects) {
  tutti_datatype_t t = TUTTI_INT64;
  cr_assert(eq(int, tutti_type_contiguous(0, &t), TUTTI_EINVAL));
  cr_assert(eq(ptr, (void *)t, (void *)TUTTI_INT64), "out written on failure");
  cr_assert(eq(int, tutti_type_contiguous(8, NULL), TUTTI_EINVAL));
}

Test(datatypes, builtins_are_not_freed) {
  for (int i = 0; i < T_NBUILTIN; i++) {
    tutti_datatype_t t = builtin(i);
    cr_assert(eq(int, tutti_type_free(&t), TUTTI_EINVAL), "%s", type_names[i]);
    cr_assert(eq(ptr, (void *)t, (void *)builtin(i)), "handle changed");
    cr_assert(eq(sz, tutti_type_size(builtin(i)), type_sizes[i]), "built-in damaged");
    cr_assert(eq(str, (char *)tutti_type_name(builtin(i)), (char *)type_names[i]));
  }
}

/* --------------------------------------------------------------------- ops */

Test(ops, find_names_and_commutativity) {
  for (size_t i = 0; i < NOPS; i++) {
    tutti_op_t got = NULL;
    cr_assert(eq(int, tutti_op_find(op_names[i], &got), 0), "%s", op_names[i]);
    cr_assert(eq(ptr, (void *)got, (void *)builtin_op(op_names[i])), "%s", op_names[i]);
    cr_assert(eq(str, (char *)tutti_op_name(got), (char *)op_names[i]));
    int want = strcmp(op_names[i], "matmul2") != 0;
    cr_assert(eq(int, tutti_op_commutative(got), want), "%s", op_names[i]);
    for (size_t j = 0; j < i; j++) cr_assert(ne(ptr, (void *)got, (void *)builtin_op(op_names[j])));
  }
  tutti_op_t got = TUTTI_SUM;
  cr_assert(eq(int, tutti_op_find("avg", &got), TUTTI_ENOTFOUND));
  cr_assert(eq(int, tutti_op_find("SUM", &got), TUTTI_ENOTFOUND));
  cr_assert(eq(int, tutti_op_find("", &got), TUTTI_ENOTFOUND));
  cr_assert(eq(int, tutti_op_find("user", &got), TUTTI_ENOTFOUND));
  cr_assert(eq(ptr, (void *)got, (void *)TUTTI_SUM), "out written on failure");
  cr_assert(eq(int, tutti_op_find(NULL, &got), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_op_find("sum", NULL), TUTTI_EINVAL));
  cr_assert(lt(int, tutti_op_commutative(NULL), 0));
  cr_assert(eq(int, tutti_op_commutative(NULL), TUTTI_EOP));
  cr_assert(eq(str, (char *)tutti_op_name(NULL), "invalid"));
}

static void noop_fn(const void *in, void *inout, size_t count, tutti_datatype_t type, void *ctx) {
  (void)in, (void)inout, (void)count, (void)type, (void)ctx;
}

Test(ops, check_table) {
  tutti_datatype_t c4, c8;
  cr_assert(eq(int, tutti_type_contiguous(4, &c4), 0)); /* same size as int32, still a user type */
  cr_assert(eq(int, tutti_type_contiguous(8, &c8), 0));
  int ndefined = 0;
  for (size_t i = 0; i < NOPS; i++) {
    tutti_op_t op = builtin_op(op_names[i]);
    for (int t = 0; t < T_NBUILTIN; t++) {
      int want = doc_defined(op_names[i], t) ? 0 : TUTTI_EOP;
      ndefined += want == 0;
      cr_assert(eq(int, tutti_op_check(op, builtin(t)), want), "%s on %s", op_names[i],
                type_names[t]);
    }
    cr_assert(eq(int, tutti_op_check(op, c4), TUTTI_EOP), "%s on contiguous(4)", op_names[i]);
    cr_assert(eq(int, tutti_op_check(op, c8), TUTTI_EOP), "%s on contiguous(8)", op_names[i]);
    cr_assert(eq(int, tutti_op_check(op, NULL), TUTTI_ETYPE), "%s on NULL", op_names[i]);
  }
  cr_assert(eq(int, ndefined, 4 * 5 + 5 * 3 + 2));

  tutti_op_t user;
  int dummy;
  cr_assert(eq(int, tutti_op_create(noop_fn, 0, &dummy, &user), 0));
  for (int t = 0; t < T_NBUILTIN; t++)
    cr_assert(eq(int, tutti_op_check(user, builtin(t)), 0), "user on %s", type_names[t]);
  cr_assert(eq(int, tutti_op_check(user, c4), 0));
  cr_assert(eq(int, tutti_op_check(user, c8), 0));
  cr_assert(eq(int, tutti_op_check(user, NULL), TUTTI_ETYPE));
  cr_assert(eq(int, tutti_op_check(NULL, TUTTI_INT32), TUTTI_EOP));
  cr_assert(eq(int, tutti_op_free(&user), 0));
  cr_assert(eq(int, tutti_type_free(&c4), 0));
  cr_assert(eq(int, tutti_type_free(&c8), 0));
}

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

/* ----------------------------------------------------------------- user ops */

/* Affine maps f(x) = a x + b over Z/2^64 in a contiguous(16) type. The op
 * composes: in (op) inout = in o inout, i.e. x -> in(inout(x)). */
struct aff {
  uint64_t a, b;
};

struct uctx {
  int calls;
  const void *in;
  void *inout;
  size_t count;
  tutti_datatype_t type;
};

static void aff_compose(const void *in, void *inout, size_t count, tutti_datatype_t type,
                        void *ctx) {
  struct uctx *c = ctx;
  c->calls++, c->in = in, c->inout = inout, c->count = count, c->type = type;
  const struct aff *f = in;
  struct aff *g = inout;
  for (size_t i = 0; i < count; i++) {
    struct aff h = {f[i].a * g[i].a, f[i].a * g[i].b + f[i].b};
    g[i] = h;
  }
}

static uint64_t aff_apply(struct aff f, uint64_t x) {
  return f.a * x + f.b;
}

Test(user_ops, noncommutative_affine_composition) {
  tutti_datatype_t t;
  cr_assert(eq(int, tutti_type_contiguous(sizeof(struct aff), &t), 0));
  cr_assert(eq(str, (char *)tutti_type_name(t), "contiguous(16)"));
  struct uctx ctx = {0};
  tutti_op_t op;
  cr_assert(eq(int, tutti_op_create(aff_compose, 0, &ctx, &op), 0));
  cr_assert(ne(ptr, (void *)op, NULL));
  cr_assert(eq(int, tutti_op_commutative(op), 0));
  cr_assert(eq(int, tutti_op_check(op, t), 0));

  /* f = 2x + 1, g = 3x: f o g = 6x + 1, g o f = 6x + 3 */
  struct aff f[2] = {{2, 1}, {3, 0}}, g[2] = {{3, 0}, {2, 1}};
  cr_assert(eq(int, tutti_reduce_local(f, g, 2, t, op), 0));
  cr_assert(eq(int, ctx.calls, 1));
  cr_assert(eq(ptr, (void *)ctx.in, (void *)f), "fn got the wrong in");
  cr_assert(eq(ptr, ctx.inout, (void *)g), "fn got the wrong inout");
  cr_assert(eq(sz, ctx.count, 2));
  cr_assert(eq(ptr, (void *)ctx.type, (void *)t));
  cr_assert(eq(u64, g[0].a, 6));
  cr_assert(eq(u64, g[0].b, 1));
  cr_assert(eq(u64, g[1].a, 6));
  cr_assert(eq(u64, g[1].b, 3));
  cr_assert(eq(u64, f[0].a, 2), "in modified");

  /* rank-order fold gives f_0 o f_1 o ... o f_{P-1} */
  uint64_t s = 0x616666ull;
  struct aff x[P][FOLD_N], acc[FOLD_N];
  for (int r = 0; r < P; r++)
    for (int i = 0; i < FOLD_N; i++) x[r][i] = (struct aff){rng_next(&s), rng_next(&s)};
  memcpy(acc, x[P - 1], sizeof acc);
  ctx.calls = 0;
  for (int r = P - 2; r >= 0; r--) {
    cr_assert(eq(int, tutti_reduce_local(x[r], acc, FOLD_N, t, op), 0));
    cr_assert(eq(ptr, (void *)ctx.in, (void *)x[r]));
    cr_assert(eq(sz, ctx.count, FOLD_N));
  }
  cr_assert(eq(int, ctx.calls, P - 1));
  for (int i = 0; i < FOLD_N; i++)
    for (int k = 0; k < 3; k++) {
      uint64_t pt = k == 0 ? 0 : k == 1 ? 1 : rng_next(&s), v = pt;
      for (int r = P - 1; r >= 0; r--) v = aff_apply(x[r][i], v); /* innermost is f_{P-1} */
      cr_assert(eq(u64, aff_apply(acc[i], pt), v), "fold [%d] at %llu", i, (unsigned long long)pt);
    }

  /* count 0 is a successful no-op */
  struct aff keep = g[0];
  cr_assert(eq(int, tutti_reduce_local(f, g, 0, t, op), 0));
  cr_assert(eq(int, tutti_reduce_local(NULL, NULL, 0, t, op), 0));
  cr_assert(eq(u64, g[0].a, keep.a));
  cr_assert(eq(u64, g[0].b, keep.b));

  cr_assert(eq(int, tutti_op_free(&op), 0));
  cr_assert(eq(ptr, (void *)op, NULL));
  cr_assert(eq(int, tutti_type_free(&t), 0));
}

/* A user op on a built-in type: inout = 10 * in + inout (digits in order). */
static void digits(const void *in, void *inout, size_t count, tutti_datatype_t type, void *ctx) {
  struct uctx *c = ctx;
  c->calls++, c->type = type, c->count = count;
  const int64_t *a = in;
  int64_t *b = inout;
  for (size_t i = 0; i < count; i++) {
    int64_t p = 1;
    while (p <= b[i]) p *= 10;
    b[i] = a[i] * p + b[i];
  }
}

Test(user_ops, on_builtin_type_and_commute_flag) {
  struct uctx ctx = {0};
  tutti_op_t op, cop;
  cr_assert(eq(int, tutti_op_create(digits, 0, &ctx, &op), 0));
  cr_assert(eq(int, tutti_op_create(digits, 7, &ctx, &cop), 0));
  cr_assert(eq(int, tutti_op_commutative(op), 0));
  cr_assert(eq(int, tutti_op_commutative(cop), 1), "nonzero commute reports 1");
  cr_assert(ne(ptr, (void *)op, (void *)cop));
  cr_assert(ne(str, (char *)tutti_op_name(op), "invalid"));

  int64_t acc = 5;
  for (int64_t d = 4; d >= 1; d--)
    cr_assert(eq(int, tutti_reduce_local(&d, &acc, 1, TUTTI_INT64, op), 0));
  cr_assert(eq(i64, acc, 12345), "concat fold in rank order");
  cr_assert(eq(int, ctx.calls, 4));
  cr_assert(eq(ptr, (void *)ctx.type, (void *)TUTTI_INT64));
  cr_assert(eq(sz, ctx.count, 1));

  cr_assert(eq(int, tutti_op_free(&op), 0));
  cr_assert(eq(int, tutti_op_free(&cop), 0));
}

Test(user_ops, create_and_free_errors) {
  tutti_op_t op = TUTTI_SUM;
  cr_assert(eq(int, tutti_op_create(NULL, 1, NULL, &op), TUTTI_EINVAL));
  cr_assert(eq(ptr, (void *)op, (void *)TUTTI_SUM), "out written on failure");
  cr_assert(eq(int, tutti_op_create(noop_fn, 1, NULL, NULL), TUTTI_EINVAL));

  cr_assert(eq(int, tutti_op_create(noop_fn, 1, NULL, &op), 0)); /* NULL ctx is fine */
  cr_assert(eq(int, tutti_op_commutative(op), 1));
  cr_assert(eq(int, tutti_op_free(&op), 0));
  cr_assert(eq(ptr, (void *)op, NULL));
  cr_assert(lt(int, tutti_op_free(&op), 0), "double free accepted");
  cr_assert(eq(int, tutti_op_free(&op), TUTTI_EOP));
  cr_assert(eq(int, tutti_op_free(NULL), TUTTI_EOP));

  for (size_t i = 0; i < NOPS; i++) {
    tutti_op_t b = builtin_op(op_names[i]);
    cr_assert(eq(int, tutti_op_free(&b), TUTTI_EINVAL), "freed built-in %s", op_names[i]);
    cr_assert(eq(ptr, (void *)b, (void *)builtin_op(op_names[i])));
    cr_assert(eq(str, (char *)tutti_op_name(builtin_op(op_names[i])), (char *)op_names[i]));
  }
  /* the built-ins still work after the refused frees */
  int32_t a = 2, c = 3;
  cr_assert(eq(int, tutti_reduce_local(&a, &c, 1, TUTTI_INT32, TUTTI_SUM), 0));
  cr_assert(eq(i32, c, 5));
}

/* ------------------------------------------------- reduce_local error paths */

Test(reduce_local, argument_errors) {
  int32_t in[4] = {1, 2, 3, 4}, io[4] = {10, 20, 30, 40};
  const int32_t io0[4] = {10, 20, 30, 40};
  cr_assert(eq(int, tutti_reduce_local(in, io, 4, NULL, TUTTI_SUM), TUTTI_ETYPE));
  cr_assert(eq(int, tutti_reduce_local(in, io, 4, TUTTI_INT32, NULL), TUTTI_EOP));
  cr_assert(eq(int, tutti_reduce_local(in, io, -1, TUTTI_INT32, TUTTI_SUM), TUTTI_ECOUNT));
  cr_assert(eq(int, tutti_reduce_local(in, io, LONG_MIN, TUTTI_INT32, TUTTI_SUM), TUTTI_ECOUNT));
  cr_assert(eq(int, tutti_reduce_local(NULL, io, 4, TUTTI_INT32, TUTTI_SUM), TUTTI_EBUFFER));
  cr_assert(eq(int, tutti_reduce_local(in, NULL, 4, TUTTI_INT32, TUTTI_SUM), TUTTI_EBUFFER));
  cr_assert(eq(int, tutti_reduce_local(NULL, NULL, 1, TUTTI_INT32, TUTTI_SUM), TUTTI_EBUFFER));
  cr_assert(eq(int, memcmp(io, io0, sizeof io), 0), "inout changed by a failed call");

  /* count 0: NULL buffers are fine, nothing changes */
  for (size_t i = 0; i < NOPS; i++)
    for (int t = 0; t < T_NBUILTIN; t++)
      if (doc_defined(op_names[i], t))
        cr_assert(
            eq(int, tutti_reduce_local(NULL, NULL, 0, builtin(t), builtin_op(op_names[i])), 0),
            "count 0 %s %s", op_names[i], type_names[t]);
  cr_assert(eq(int, tutti_reduce_local(in, io, 0, TUTTI_INT32, TUTTI_PROD), 0));
  cr_assert(eq(int, memcmp(io, io0, sizeof io), 0));

  /* ops not defined on the type */
  double d[2] = {1, 2}, dio[2] = {3, 4};
  cr_assert(eq(int, tutti_reduce_local(d, dio, 2, TUTTI_DOUBLE, TUTTI_BAND), TUTTI_EOP));
  cr_assert(eq(int, tutti_reduce_local(d, dio, 2, TUTTI_DOUBLE, TUTTI_LOR), TUTTI_EOP));
  cr_assert(eq(int, tutti_reduce_local(d, dio, 1, TUTTI_FLOAT, TUTTI_MATMUL2), TUTTI_EOP));
  cr_assert(ieee_ulp_eq(dbl, dio[0], 3.0, 0));
  cr_assert(ieee_ulp_eq(dbl, dio[1], 4.0, 0));
  uint8_t b[2] = {1, 2}, bio[2] = {3, 4};
  cr_assert(eq(int, tutti_reduce_local(b, bio, 2, TUTTI_BYTE, TUTTI_MATMUL2), TUTTI_EOP));
  cr_assert(eq(u8, bio[0], 3));
  tutti_datatype_t c4;
  cr_assert(eq(int, tutti_type_contiguous(4, &c4), 0));
  for (size_t i = 0; i < NOPS; i++)
    cr_assert(eq(int, tutti_reduce_local(in, io, 4, c4, builtin_op(op_names[i])), TUTTI_EOP),
              "%s on contiguous(4)", op_names[i]);
  cr_assert(eq(int, memcmp(io, io0, sizeof io), 0), "inout changed by a failed call");
  cr_assert(eq(int, tutti_type_free(&c4), 0));
}

/* ------------------------------------------------------------- status_count */

Test(status_count, divisible_and_not) {
  tutti_status_t st = {.source = 0, .tag = 0, .error = 0, .bytes = 12};
  long n = -7;
  cr_assert(eq(int, tutti_status_count(&st, TUTTI_INT32, &n), 0));
  cr_assert(eq(long, n, 3));
  cr_assert(eq(int, tutti_status_count(&st, TUTTI_BYTE, &n), 0));
  cr_assert(eq(long, n, 12));
  cr_assert(eq(int, tutti_status_count(&st, TUTTI_DOUBLE, &n), 0));
  cr_assert(eq(long, n, TUTTI_UNDEFINED));
  st.bytes = 13;
  cr_assert(eq(int, tutti_status_count(&st, TUTTI_INT32, &n), 0));
  cr_assert(eq(long, n, TUTTI_UNDEFINED));
  cr_assert(eq(int, tutti_status_count(&st, TUTTI_BYTE, &n), 0));
  cr_assert(eq(long, n, 13));
  st.bytes = 0;
  for (int t = 0; t < T_NBUILTIN; t++) {
    cr_assert(eq(int, tutti_status_count(&st, builtin(t), &n), 0));
    cr_assert(eq(long, n, 0), "0 bytes of %s", type_names[t]);
  }
  st.bytes = (size_t)8 << 30;
  cr_assert(eq(int, tutti_status_count(&st, TUTTI_DOUBLE, &n), 0));
  cr_assert(eq(long, n, 1L << 30));

  tutti_datatype_t c12;
  cr_assert(eq(int, tutti_type_contiguous(12, &c12), 0));
  st.bytes = 36;
  cr_assert(eq(int, tutti_status_count(&st, c12, &n), 0));
  cr_assert(eq(long, n, 3));
  st.bytes = 40;
  cr_assert(eq(int, tutti_status_count(&st, c12, &n), 0));
  cr_assert(eq(long, n, TUTTI_UNDEFINED));
  cr_assert(eq(int, tutti_type_free(&c12), 0));
}

Test(status_count, bad_arguments) {
  tutti_status_t st = {.bytes = 8};
  long n = 99;
  cr_assert(eq(int, tutti_status_count(&st, NULL, &n), TUTTI_ETYPE));
  cr_assert(eq(long, n, 99), "count written on failure");
  cr_assert(eq(int, tutti_status_count(NULL, TUTTI_INT32, &n), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_status_count(&st, TUTTI_INT32, NULL), TUTTI_EINVAL));
}

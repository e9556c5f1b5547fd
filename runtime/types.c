/*
 * types.c -- error names, datatypes and reduction ops, reduce_local.
 *
 * tutti_reduce_local(in, inout) computes inout = in (op) inout, the operand
 * order of MPI_Reduce_local; reduction algorithms rely on it to keep rank
 * order for non-commutative ops. matmul2 is such an op, shipped so every
 * algorithm test can pin the order: 2x2 matrices mod a prime, packed in one
 * element so that any split of a buffer into blocks keeps elements whole.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ------------------------------------------------------------------ errors */

const char *tutti_strerror(int err) {
  switch (err) {
  case TUTTI_OK:
    return "success";
#define X(name, val, msg)                                                                          \
  case TUTTI_##name:                                                                               \
    return msg;
    TUTTI_ERRNO_MAP(X)
#undef X
  }
  return "unknown error code";
}

const char *tutti_err_name(int err) {
  switch (err) {
  case TUTTI_OK:
    return "TUTTI_OK";
#define X(name, val, msg)                                                                          \
  case TUTTI_##name:                                                                               \
    return "TUTTI_" #name;
    TUTTI_ERRNO_MAP(X)
#undef X
  }
  return "TUTTI_E?";
}

/* --------------------------------------------------------------- datatypes */

#define BUILTIN_TYPE(var, b, sz, nm)                                                               \
  const struct tutti_datatype var = {.magic = TUTTI_TYPE_MAGIC, .base = b, .size = sz, .name = nm}
BUILTIN_TYPE(tutti_builtin_type_byte, TB_BYTE, 1, "byte");
BUILTIN_TYPE(tutti_builtin_type_int32, TB_INT32, 4, "int32");
BUILTIN_TYPE(tutti_builtin_type_int64, TB_INT64, 8, "int64");
BUILTIN_TYPE(tutti_builtin_type_float, TB_FLOAT, 4, "float");
BUILTIN_TYPE(tutti_builtin_type_double, TB_DOUBLE, 8, "double");

static const struct tutti_datatype *const builtin_types[] = {
    &tutti_builtin_type_byte, &tutti_builtin_type_int32, &tutti_builtin_type_int64,
    &tutti_builtin_type_float, &tutti_builtin_type_double};

int tutti_type_contiguous(size_t size, tutti_datatype_t *out) {
  if (!out || size == 0) return TUTTI_EINVAL;
  struct tutti_datatype *t = calloc(1, sizeof *t);
  if (!t) return TUTTI_ENOMEM;
  t->magic = TUTTI_TYPE_MAGIC;
  t->base = TB_USER;
  t->size = size;
  snprintf(t->namebuf, sizeof t->namebuf, "contiguous(%zu)", size);
  t->name = t->namebuf;
  *out = t;
  return 0;
}

int tutti_type_free(tutti_datatype_t *type) {
  if (!type || !tutti__type_ok(*type)) return TUTTI_ETYPE;
  if ((*type)->base != TB_USER) return TUTTI_EINVAL; /* built-ins are not freed */
  struct tutti_datatype *t = (struct tutti_datatype *)*type;
  t->magic = 0;
  free(t);
  *type = NULL;
  return 0;
}

size_t tutti_type_size(tutti_datatype_t type) {
  return tutti__type_ok(type) ? type->size : 0;
}

const char *tutti_type_name(tutti_datatype_t type) {
  return tutti__type_ok(type) ? type->name : "invalid";
}

int tutti_type_find(const char *name, tutti_datatype_t *out) {
  if (!name || !out) return TUTTI_EINVAL;
  for (size_t i = 0; i < sizeof builtin_types / sizeof *builtin_types; i++)
    if (strcmp(builtin_types[i]->name, name) == 0) return *out = builtin_types[i], 0;
  return TUTTI_ENOTFOUND;
}

/* --------------------------------------------------------------------- ops */

#define BUILTIN_OP(var, k, c, nm)                                                                  \
  const struct tutti_op var = {.magic = TUTTI_OP_MAGIC, .kind = k, .commute = c, .name = nm}
BUILTIN_OP(tutti_builtin_op_sum, OP_SUM, 1, "sum");
BUILTIN_OP(tutti_builtin_op_prod, OP_PROD, 1, "prod");
BUILTIN_OP(tutti_builtin_op_min, OP_MIN, 1, "min");
BUILTIN_OP(tutti_builtin_op_max, OP_MAX, 1, "max");
BUILTIN_OP(tutti_builtin_op_band, OP_BAND, 1, "band");
BUILTIN_OP(tutti_builtin_op_bor, OP_BOR, 1, "bor");
BUILTIN_OP(tutti_builtin_op_bxor, OP_BXOR, 1, "bxor");
BUILTIN_OP(tutti_builtin_op_land, OP_LAND, 1, "land");
BUILTIN_OP(tutti_builtin_op_lor, OP_LOR, 1, "lor");
BUILTIN_OP(tutti_builtin_op_matmul2, OP_MATMUL2, 0, "matmul2");

static const struct tutti_op *const builtin_ops[] = {
    &tutti_builtin_op_sum,    &tutti_builtin_op_prod, &tutti_builtin_op_min,
    &tutti_builtin_op_max,    &tutti_builtin_op_band, &tutti_builtin_op_bor,
    &tutti_builtin_op_bxor,   &tutti_builtin_op_land, &tutti_builtin_op_lor,
    &tutti_builtin_op_matmul2};

int tutti__op_ok(tutti_op_t op) {
  return op && op->magic == TUTTI_OP_MAGIC;
}

int tutti_op_create(tutti_user_fn *fn, int commute, void *ctx, tutti_op_t *out) {
  if (!fn || !out) return TUTTI_EINVAL;
  struct tutti_op *op = calloc(1, sizeof *op);
  if (!op) return TUTTI_ENOMEM;
  *op = (struct tutti_op){.magic = TUTTI_OP_MAGIC,
                          .kind = OP_USER,
                          .commute = !!commute,
                          .name = "user",
                          .fn = fn,
                          .ctx = ctx};
  *out = op;
  return 0;
}

int tutti_op_free(tutti_op_t *op) {
  if (!op || !tutti__op_ok(*op)) return TUTTI_EOP;
  if ((*op)->kind != OP_USER) return TUTTI_EINVAL;
  struct tutti_op *o = (struct tutti_op *)*op;
  o->magic = 0;
  free(o);
  *op = NULL;
  return 0;
}

int tutti_op_commutative(tutti_op_t op) {
  return tutti__op_ok(op) ? op->commute : TUTTI_EOP;
}
const char *tutti_op_name(tutti_op_t op) {
  return tutti__op_ok(op) ? op->name : "invalid";
}

int tutti_op_find(const char *name, tutti_op_t *out) {
  if (!name || !out) return TUTTI_EINVAL;
  for (size_t i = 0; i < sizeof builtin_ops / sizeof *builtin_ops; i++)
    if (strcmp(builtin_ops[i]->name, name) == 0) return *out = builtin_ops[i], 0;
  return TUTTI_ENOTFOUND;
}

int tutti_op_check(tutti_op_t op, tutti_datatype_t t) {
  if (!tutti__op_ok(op)) return TUTTI_EOP;
  if (!tutti__type_ok(t)) return TUTTI_ETYPE;
  if (op->kind == OP_USER) return 0;
  switch (op->kind) {
  case OP_SUM:
  case OP_PROD:
  case OP_MIN:
  case OP_MAX:
    return t->base == TB_USER ? TUTTI_EOP : 0;
  case OP_BAND:
  case OP_BOR:
  case OP_BXOR:
  case OP_LAND:
  case OP_LOR:
    return t->base == TB_BYTE || t->base == TB_INT32 || t->base == TB_INT64 ? 0 : TUTTI_EOP;
  case OP_MATMUL2:
    return t->base == TB_INT32 || t->base == TB_INT64 ? 0 : TUTTI_EOP;
  }
  return TUTTI_EOP;
}

/* One element-wise loop per (op, C type); `in` first, as MPI orders them. */
#define LOOP(T, EXPR)                                                                              \
  do {                                                                                             \
    const T *a = in;                                                                               \
    T *b = inout;                                                                                  \
    for (size_t i = 0; i < n; i++) b[i] = (T)(EXPR);                                               \
  } while (0)
#define ARITH(T)                                                                                   \
  switch (kind) {                                                                                  \
  case OP_SUM:                                                                                     \
    LOOP(T, a[i] + b[i]);                                                                          \
    break;                                                                                         \
  case OP_PROD:                                                                                    \
    LOOP(T, a[i] * b[i]);                                                                          \
    break;                                                                                         \
  case OP_MIN:                                                                                     \
    LOOP(T, a[i] < b[i] ? a[i] : b[i]);                                                            \
    break;                                                                                         \
  case OP_MAX:                                                                                     \
    LOOP(T, a[i] > b[i] ? a[i] : b[i]);                                                            \
    break;                                                                                         \
  }
#define BITS(T)                                                                                    \
  switch (kind) {                                                                                  \
  case OP_BAND:                                                                                    \
    LOOP(T, a[i] & b[i]);                                                                          \
    break;                                                                                         \
  case OP_BOR:                                                                                     \
    LOOP(T, a[i] | b[i]);                                                                          \
    break;                                                                                         \
  case OP_BXOR:                                                                                    \
    LOOP(T, a[i] ^ b[i]);                                                                          \
    break;                                                                                         \
  case OP_LAND:                                                                                    \
    LOOP(T, a[i] && b[i]);                                                                         \
    break;                                                                                         \
  case OP_LOR:                                                                                     \
    LOOP(T, a[i] || b[i]);                                                                         \
    break;                                                                                         \
  default:                                                                                         \
    ARITH(T)                                                                                       \
  }

/* 2x2 matrix product mod p on packed entries of `bits` bits: [a0 a1; a2 a3]
 * with a0 in the low bits. Returns in * inout. */
static uint64_t matmul2(uint64_t x, uint64_t y, unsigned bits, uint64_t p) {
  uint64_t mask = (1ull << bits) - 1, a[4], b[4], c[4];
  for (int k = 0; k < 4; k++)
    a[k] = ((x >> (k * bits)) & mask) % p, b[k] = ((y >> (k * bits)) & mask) % p;
  c[0] = (a[0] * b[0] + a[1] * b[2]) % p;
  c[1] = (a[0] * b[1] + a[1] * b[3]) % p;
  c[2] = (a[2] * b[0] + a[3] * b[2]) % p;
  c[3] = (a[2] * b[1] + a[3] * b[3]) % p;
  return c[0] | c[1] << bits | c[2] << (2 * bits) | c[3] << (3 * bits);
}

static void reduce_builtin(int kind, int base, const void *in, void *inout, size_t n) {
  if (kind == OP_MATMUL2) {
    if (base == TB_INT32) {
      const uint32_t *a = in;
      uint32_t *b = inout;
      for (size_t i = 0; i < n; i++) b[i] = (uint32_t)matmul2(a[i], b[i], 8, 251);
    } else {
      const uint64_t *a = in;
      uint64_t *b = inout;
      for (size_t i = 0; i < n; i++) b[i] = matmul2(a[i], b[i], 16, 65521);
    }
    return;
  }
  switch (base) {
  case TB_BYTE:
    BITS(uint8_t);
    break;
  case TB_INT32:
    BITS(int32_t);
    break;
  case TB_INT64:
    BITS(int64_t);
    break;
  case TB_FLOAT:
    ARITH(float);
    break;
  case TB_DOUBLE:
    ARITH(double);
    break;
  }
}

int tutti__reduce_check(const void *in, const void *inout, long count, tutti_datatype_t type,
                        tutti_op_t op) {
  if (!tutti__type_ok(type)) return TUTTI_ETYPE;
  if (!tutti__op_ok(op)) return TUTTI_EOP;
  if (count < 0) return TUTTI_ECOUNT;
  if (count > 0 && (!in || !inout)) return TUTTI_EBUFFER;
  return tutti_op_check(op, type);
}

int tutti_reduce_local(const void *in, void *inout, long count, tutti_datatype_t type,
                       tutti_op_t op) {
  int rc = tutti__reduce_check(in, inout, count, type, op);
  if (rc) return rc;
  if (count == 0) return 0;
  /* Signed overflow in sum/prod of int32/int64 is undefined in C; do the
   * arithmetic on the unsigned twin, which wraps as every MPI does. */
  if (op->kind == OP_USER)
    op->fn(in, inout, (size_t)count, type, op->ctx);
  else if ((op->kind == OP_SUM || op->kind == OP_PROD) &&
           (type->base == TB_INT32 || type->base == TB_INT64)) {
    int kind = op->kind;
    size_t n = (size_t)count;
    if (type->base == TB_INT32) ARITH(uint32_t) else ARITH(uint64_t)
  } else
    reduce_builtin(op->kind, type->base, in, inout, (size_t)count);
  return 0;
}

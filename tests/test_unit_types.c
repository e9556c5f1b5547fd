/*
 * test_unit_types.c -- error names, datatypes, reduction ops, user ops,
 * tutti_reduce_local's argument errors and tutti_status_count, checked
 * against references written here and in types_ref.h from the
 * documentation in tutti.h (never from types.c). tutti_reduce_local's
 * results, element by element, and the matmul2 ops: test_unit_reduce_local.c.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include "types_ref.h"

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
  cr_assert(eq(sz, NERRS, 24));
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
  cr_assert(eq(int, TUTTI_EMEMORY, -23));
  cr_assert(eq(int, TUTTI_EPENDING, -24));
  cr_assert(eq(str, (char *)tutti_err_name(TUTTI_ETAG), "TUTTI_ETAG"));
}

Test(errors, success_and_unknown_codes) {
  cr_assert(eq(str, (char *)tutti_strerror(0), "success"));
  cr_assert(eq(str, (char *)tutti_err_name(0), "TUTTI_OK"));
  static const int unknown[] = {1, 42, -25, -999, INT_MIN, INT_MAX, TUTTI_UNDEFINED};
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

/* the rank-order fold's ranks and elements (as test_unit_reduce_local.c's) */
#define P 9
#define FOLD_N 33

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

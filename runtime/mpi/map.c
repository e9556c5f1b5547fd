/*
 * map.c -- tutti's datatypes and reduction ops as MPI handles
 * (tutti/mpi.h): the built-ins map to MPI's own, contiguous types to a
 * committed MPI_Type_contiguous of bytes, matmul2 and user ops to an
 * MPI_Op_create op carrying their commute flag.
 *
 * An MPI_User_function gets no context pointer, so each created op has
 * its own trampoline: a fixed table of SLOTS functions, slot i reducing
 * with the tutti op stored in slot i, through the public
 * tutti_reduce_local (inout = in op inout, the operand order of MPI's user
 * functions). The trampoline finds the tutti datatype from the MPI one in
 * the same caches. Nothing here is thread-safe on first use of a handle.
 */
#include <stdlib.h>

#include "internal.h"

#define SLOTS 16

struct type_map {
  tutti_datatype_t type;
  size_t size; /* a freed type's address may come back with another size */
  MPI_Datatype mpi;
};

static struct type_map user_types[SLOTS];
static int n_user_types;

static struct {
  tutti_op_t op;
  MPI_Op mpi;
} user_ops[SLOTS];
static int n_user_ops;

/* The built-ins, in one table both directions read. */
static int builtin_type(tutti_datatype_t type, MPI_Datatype *out) {
  if (type == TUTTI_BYTE)
    *out = MPI_UINT8_T;
  else if (type == TUTTI_INT32)
    *out = MPI_INT32_T;
  else if (type == TUTTI_INT64)
    *out = MPI_INT64_T;
  else if (type == TUTTI_FLOAT)
    *out = MPI_FLOAT;
  else if (type == TUTTI_DOUBLE)
    *out = MPI_DOUBLE;
  else
    return 0;
  return 1;
}

int tutti_mpi_type(tutti_datatype_t type, MPI_Datatype *out) {
  if (!out || !tutti_type_size(type)) return TUTTI_ETYPE;
  if (builtin_type(type, out)) return 0;
  size_t size = tutti_type_size(type);
  for (int i = 0; i < n_user_types; i++)
    if (user_types[i].type == type && user_types[i].size == size)
      return *out = user_types[i].mpi, 0;
  if (n_user_types == SLOTS || size > (size_t)INT32_MAX) return TUTTI_ENOMEM;
  MPI_Datatype t;
  if (MPI_Type_contiguous((int)size, MPI_BYTE, &t) != MPI_SUCCESS) return TUTTI_ENOMEM;
  if (MPI_Type_commit(&t) != MPI_SUCCESS) return TUTTI_ENOMEM;
  user_types[n_user_types++] = (struct type_map){type, size, t};
  return *out = t, 0;
}

/* The tutti type of an MPI type this file handed out; NULL if none. */
static tutti_datatype_t type_of(MPI_Datatype t) {
  static const tutti_datatype_t builtins[] = {TUTTI_BYTE, TUTTI_INT32, TUTTI_INT64, TUTTI_FLOAT,
                                              TUTTI_DOUBLE};
  MPI_Datatype m;
  for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
    if (builtin_type(builtins[i], &m) && m == t) return builtins[i];
  for (int i = n_user_types - 1; i >= 0; i--) /* the newest first */
    if (user_types[i].mpi == t) return user_types[i].type;
  return NULL;
}

static void reduce_slot(int slot, void *in, void *inout, int *len, MPI_Datatype *dt) {
  tutti_datatype_t type = type_of(*dt);
  /* MPI gives a user function no way to fail: a type it was never handed
   * cannot reach here, as MPI only calls it with the types of the call. */
  if (type) tutti_reduce_local(in, inout, *len, type, user_ops[slot].op);
}

#define SLOT_FN(i)                                                                                 \
  static void slot_fn_##i(void *in, void *inout, int *len, MPI_Datatype *dt) {                     \
    reduce_slot(i, in, inout, len, dt);                                                            \
  }
SLOT_FN(0)
SLOT_FN(1)
SLOT_FN(2)
SLOT_FN(3)
SLOT_FN(4)
SLOT_FN(5)
SLOT_FN(6)
SLOT_FN(7)
SLOT_FN(8)
SLOT_FN(9)
SLOT_FN(10)
SLOT_FN(11)
SLOT_FN(12)
SLOT_FN(13)
SLOT_FN(14)
SLOT_FN(15)
static MPI_User_function *const slot_fns[SLOTS] = {
    slot_fn_0, slot_fn_1, slot_fn_2,  slot_fn_3,  slot_fn_4,  slot_fn_5,  slot_fn_6,  slot_fn_7,
    slot_fn_8, slot_fn_9, slot_fn_10, slot_fn_11, slot_fn_12, slot_fn_13, slot_fn_14, slot_fn_15};

/* MPI's own op of a tutti built-in, MPI_OP_NULL for matmul2 and user ops. */
static MPI_Op builtin_op(tutti_op_t op) {
  static const struct {
    const struct tutti_op *op;
    MPI_Op mpi;
  } * m, map[] = {{TUTTI_SUM, MPI_SUM},   {TUTTI_PROD, MPI_PROD}, {TUTTI_MIN, MPI_MIN},
                  {TUTTI_MAX, MPI_MAX},   {TUTTI_BAND, MPI_BAND}, {TUTTI_BOR, MPI_BOR},
                  {TUTTI_BXOR, MPI_BXOR}, {TUTTI_LAND, MPI_LAND}, {TUTTI_LOR, MPI_LOR}};
  for (m = map; m < map + sizeof map / sizeof *map; m++)
    if (m->op == op) return m->mpi;
  return MPI_OP_NULL;
}

int tutti_mpi_op(tutti_op_t op, MPI_Op *out) {
  int commute = tutti_op_commutative(op);
  if (!out || commute < 0) return TUTTI_EOP;
  if ((*out = builtin_op(op)) != MPI_OP_NULL) return 0;
  for (int i = 0; i < n_user_ops; i++)
    if (user_ops[i].op == op) return *out = user_ops[i].mpi, 0;
  if (n_user_ops == SLOTS) return TUTTI_ENOMEM;
  MPI_Op m;
  if (MPI_Op_create(slot_fns[n_user_ops], commute, &m) != MPI_SUCCESS) return TUTTI_ENOMEM;
  user_ops[n_user_ops].op = op, user_ops[n_user_ops].mpi = m;
  n_user_ops++;
  return *out = m, 0;
}

/* 1 when MPI_Reduce_local can do it with MPI's own op and type. */
int tutti__mpi_builtin_pair(tutti_op_t op, tutti_datatype_t type, MPI_Op *mop, MPI_Datatype *mt) {
  return (*mop = builtin_op(op)) != MPI_OP_NULL && builtin_type(type, mt);
}

void tutti_mpi_finalize(void) {
  for (int i = 0; i < n_user_ops; i++) MPI_Op_free(&user_ops[i].mpi);
  for (int i = 0; i < n_user_types; i++) MPI_Type_free(&user_types[i].mpi);
  n_user_ops = n_user_types = 0;
}

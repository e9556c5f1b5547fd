/*
 * internal.h -- what the MPI backend's files share (runtime/mpi/ only).
 */
#ifndef TUTTI_MPI_INTERNAL_H
#define TUTTI_MPI_INTERNAL_H

#include "tutti/mpi.h"

/* 1 when MPI_Reduce_local can apply op to type with MPI's own op and
 * datatype (a built-in op on a built-in type), which it stores; else 0. */
int tutti__mpi_builtin_pair(tutti_op_t op, tutti_datatype_t type, MPI_Op *mop, MPI_Datatype *mt);

#endif

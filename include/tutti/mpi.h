/*
 * mpi.h -- tutti over a real MPI library: the backend contract of p2p.h
 * implemented with MPI calls (runtime/mpi/), so the very same collective
 * algorithms run across processes and nodes. Link with libtutti-mpi (built
 * when CMake finds MPI) instead of libtutti; include this header, which
 * needs <mpi.h>, beside tutti/p2p.h and tutti/coll.h. The world API of
 * tutti.h (threads, models, reports) is not part of this library.
 *
 * A rank is one MPI process of a communicator: after MPI_Init, call
 * tutti_mpi_rank_create(MPI_COMM_WORLD, &r) and pass r to tutti_bcast,
 * tutti_send, ... exactly as a thread rank of the emulator; free it before
 * MPI_Finalize. runtime/mpi/README.md lists where MPI semantics differ
 * from the emulator's (truncation, wildcards, modeled time).
 *
 * Threads: a rank handle is used by one thread at a time (MPI_THREAD_SINGLE
 * or FUNNELED suffice). tutti_mpi_type and tutti_mpi_op are not
 * thread-safe the first time they see a user type or op (they create and
 * cache the MPI handle).
 */
#ifndef TUTTI_MPI_H
#define TUTTI_MPI_H

#include <mpi.h>

#include "tutti/export.h"
#include "tutti/p2p.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A rank of communicator comm (duplicated: tutti's tags never meet the
 * caller's messages), with errors returned rather than fatal. 0,
 * TUTTI_EINVAL (NULL out, MPI not initialized, MPI_COMM_NULL), or the
 * failure of MPI_Comm_dup. */
TUTTI_API int tutti_mpi_rank_create(MPI_Comm comm, tutti_rank_t **out);
/* Free the rank and its communicator (collective over it, as
 * MPI_Comm_free). NULL is accepted. */
TUTTI_API void tutti_mpi_rank_free(tutti_rank_t *r);
/* The rank's own communicator (the duplicate), e.g. for MPI's collectives. */
TUTTI_API MPI_Comm tutti_mpi_comm(const tutti_rank_t *r);
/* What the rank said it was doing (tutti_rank_doing, p2p.h), for a
 * program's own failure message: "bcast 'mine' of plugin FILE", or NULL. */
TUTTI_API const char *tutti_mpi_rank_doing(const tutti_rank_t *r);

/* The MPI datatype of a tutti datatype: byte MPI_UINT8_T, int32
 * MPI_INT32_T, int64 MPI_INT64_T, float MPI_FLOAT, double MPI_DOUBLE; a
 * contiguous type becomes a committed MPI_Type_contiguous of bytes, cached
 * until tutti_mpi_finalize. 0 or TUTTI_ETYPE (TUTTI_ENOMEM). */
TUTTI_API int tutti_mpi_type(tutti_datatype_t type, MPI_Datatype *out);
/* The MPI op of a tutti op: sum prod min max band bor bxor land lor are
 * MPI's own (MPI_SUM, ...); matmul2 and user ops become MPI_Op_create ops
 * with their commute flag, whose function calls tutti_reduce_local, cached
 * until tutti_mpi_finalize (at most 16 such ops). 0, TUTTI_EOP or
 * TUTTI_ENOMEM. */
TUTTI_API int tutti_mpi_op(tutti_op_t op, MPI_Op *out);
/* Free the cached MPI types and ops; call before MPI_Finalize. */
TUTTI_API void tutti_mpi_finalize(void);

#ifdef __cplusplus
}
#endif
#endif /* TUTTI_MPI_H */

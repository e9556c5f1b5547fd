/*
 * p2p.h -- the backend contract: everything a collective algorithm may
 * call, and nothing else. collectives/ includes this header, coll.h and
 * tree.h only (the build gives it no other include path, and a test checks
 * its #include lines), so the same algorithm files run over every backend
 * that implements this header: the thread emulator of runtime/ today, an
 * MPI library tomorrow. What lies outside it -- creating and running a
 * world, reports, profiles, topologies -- is the emulator's own API
 * (tutti.h and its other sub-headers).
 *
 * The contract: error codes; datatypes and reduction ops (user ops with
 * their commute flag, reduce_local); the cost model's types, so "auto"
 * parameters can read the run's model (tutti_rank_model) and chain
 * algorithms its contention-free chain (tutti_rank_chain); ranks and
 * point-to-point messaging with MPI's semantics (send, recv, isend, irecv,
 * wait, waitall, test, sendrecv, status counts); abort; modeled local work
 * (compute, reduce_local_r), local copies; report spans; the collective tag counter;
 * group views and hosts, for algorithms that run on a subset of the ranks.
 *
 * Threads: a tutti_rank_t handle belongs to its rank; the calls taking one
 * are made only by that rank (no mutual exclusion is provided, and none is
 * needed between different ranks). The others are pure and any thread may
 * call them.
 */
#ifndef TUTTI_P2P_H
#define TUTTI_P2P_H

#include <stddef.h>
#include <stdint.h>

#include "tutti/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ errors */

/* X(name, value, sentence): one list feeds the enum, tutti_strerror and
 * tutti_err_name, so they cannot drift apart. */
#define TUTTI_ERRNO_MAP(X)                                                                         \
  X(EINVAL, -1, "invalid argument")                                                                \
  X(ERANK, -2, "rank out of range")                                                                \
  X(ECOUNT, -3, "element count negative, or count x type size overflows (beyond SIZE_MAX bytes)")  \
  X(EBUFFER, -4, "NULL buffer with a nonzero count")                                               \
  X(ETAG, -5, "invalid tag (accepted: 0..TUTTI_TAG_UB, or TUTTI_ANY_TAG on a receive)")            \
  X(ETYPE, -6, "unknown datatype, or a datatype the operation does not accept")                    \
  X(EOP, -7, "unknown reduction op, or an op not defined for this datatype")                       \
  X(ETRUNCATE, -8, "message truncated: the receive buffer is too small (the message is kept)")     \
  X(EDEADLOCK, -9, "deadlock: every live rank is blocked and no message can complete them")        \
  X(EABORTED, -10, "the world was aborted by another rank")                                        \
  X(ENOMEM, -11, "out of memory")                                                                  \
  X(ETHREADS, -12, "the operating system refused to create a rank thread")                         \
  X(EMODEL, -13, "not allowed in a modeled run (wildcard receives break deterministic matching)")  \
  X(EREQUEST, -14, "invalid or already completed request")                                         \
  X(ERANKFAIL, -15, "a rank function returned an error")                                           \
  X(EBUSY, -16, "the world is running, or is used from a rank thread")                             \
  X(EPARSE, -17, "a value could not be parsed")                                                    \
  X(ENOTFOUND, -18, "no such name")                                                                \
  X(ENOTSUP, -19, "not supported by this algorithm or configuration")                              \
  X(EIO, -20, "an input/output error")                                                             \
  X(EVERIFY, -21, "the result failed verification")                                                \
  X(ESTACK, -22, "a rank overflowed its stack (give ranks a larger one)")                          \
  X(EMEMORY, -23, "the run's memory budget is spent (tutti_config_t.max_memory)")                  \
  X(EPENDING, -24, "a rank returned with requests pending (wait for them before returning)")

enum tutti_errno {
  TUTTI_OK = 0,
#define TUTTI_X_ENUM(name, val, msg) TUTTI_##name = (val),
  TUTTI_ERRNO_MAP(TUTTI_X_ENUM)
#undef TUTTI_X_ENUM
};

/* A sentence for an error code (never NULL; unknown codes get one too). */
TUTTI_API const char *tutti_strerror(int err);
/* The code's name, e.g. "TUTTI_ETAG" (never NULL). */
TUTTI_API const char *tutti_err_name(int err);

/* ----------------------------------------------------------- datatypes, ops */

typedef const struct tutti_datatype *tutti_datatype_t;
typedef const struct tutti_op *tutti_op_t;

/* Built-in datatypes. TUTTI_BYTE is an unsigned 8-bit integer for ops. */
extern TUTTI_API const struct tutti_datatype tutti_builtin_type_byte, tutti_builtin_type_int32,
    tutti_builtin_type_int64, tutti_builtin_type_float, tutti_builtin_type_double;
#define TUTTI_BYTE (&tutti_builtin_type_byte)
#define TUTTI_INT32 (&tutti_builtin_type_int32)
#define TUTTI_INT64 (&tutti_builtin_type_int64)
#define TUTTI_FLOAT (&tutti_builtin_type_float)
#define TUTTI_DOUBLE (&tutti_builtin_type_double)

/* A contiguous user type of `size` bytes (size >= 1). Ops other than user
 * ops reject it. Free it with tutti_type_free once no call uses it. */
TUTTI_API int tutti_type_contiguous(size_t size, tutti_datatype_t *out);
TUTTI_API int tutti_type_free(tutti_datatype_t *type);
/* Size in bytes of one element; 0 for an invalid handle. */
TUTTI_API size_t tutti_type_size(tutti_datatype_t type);
/* "int32", "double", "contiguous(12)"; "invalid" for a bad handle. */
TUTTI_API const char *tutti_type_name(tutti_datatype_t type);
/* Look up a built-in by name ("byte", "int32", "int64", "float", "double"). */
TUTTI_API int tutti_type_find(const char *name, tutti_datatype_t *out);

/* Built-in ops. sum, prod, min, max on every built-in type; band, bor, bxor,
 * land, lor on byte, int32, int64. matmul2 is a non-commutative test op on
 * int32 and int64: each element holds a 2x2 matrix (4 entries of 8 bits mod
 * 251 in an int32, of 16 bits mod 65521 in an int64), row-major from the low
 * bits, and the op multiplies matrices. Invalid elements (an entry >= the
 * modulus) are reduced mod the modulus first. */
extern TUTTI_API const struct tutti_op tutti_builtin_op_sum, tutti_builtin_op_prod,
    tutti_builtin_op_min, tutti_builtin_op_max, tutti_builtin_op_band, tutti_builtin_op_bor,
    tutti_builtin_op_bxor, tutti_builtin_op_land, tutti_builtin_op_lor, tutti_builtin_op_matmul2;
#define TUTTI_SUM (&tutti_builtin_op_sum)
#define TUTTI_PROD (&tutti_builtin_op_prod)
#define TUTTI_MIN (&tutti_builtin_op_min)
#define TUTTI_MAX (&tutti_builtin_op_max)
#define TUTTI_BAND (&tutti_builtin_op_band)
#define TUTTI_BOR (&tutti_builtin_op_bor)
#define TUTTI_BXOR (&tutti_builtin_op_bxor)
#define TUTTI_LAND (&tutti_builtin_op_land)
#define TUTTI_LOR (&tutti_builtin_op_lor)
#define TUTTI_MATMUL2 (&tutti_builtin_op_matmul2)

/* A user op computes inout[i] = in[i] (op) inout[i] for i < count, exactly
 * as an MPI_User_function does. ctx is the pointer given at creation. It
 * cannot return an error: one that finds its input bad notes it through
 * ctx (each rank creating its own op, with a ctx of its own: ranks that
 * are fibers share their worker's thread-local state) and the rank
 * returns an error after the call, which ends the run naming that rank. */
typedef void tutti_user_fn(const void *in, void *inout, size_t count, tutti_datatype_t type,
                           void *ctx);
TUTTI_API int tutti_op_create(tutti_user_fn *fn, int commute, void *ctx, tutti_op_t *out);
TUTTI_API int tutti_op_free(tutti_op_t *op);
/* 1 if commutative, 0 if not, negative error for a bad handle. */
TUTTI_API int tutti_op_commutative(tutti_op_t op);
TUTTI_API const char *tutti_op_name(tutti_op_t op);
/* Look up a built-in by name: sum prod min max band bor bxor land lor matmul2 */
TUTTI_API int tutti_op_find(const char *name, tutti_op_t *out);
/* 0 when op is defined on type, else TUTTI_EOP or TUTTI_ETYPE. */
TUTTI_API int tutti_op_check(tutti_op_t op, tutti_datatype_t type);

/* inout = in (op) inout, element-wise, as MPI_Reduce_local(in, inout, ...).
 * Usable anywhere; called from a rank of a modeled world, prefer
 * tutti_reduce_local_r so the modeled clock advances by gamma * bytes. */
TUTTI_API int tutti_reduce_local(const void *in, void *inout, long count, tutti_datatype_t type,
                                 tutti_op_t op);

/* ------------------------------------------------------------- cost model */

/* c(m) = max(floor, a + b*m) for a message of m bytes (runtime/MODEL.md),
 * or piecewise: from piece[k].from bytes up (the largest from <= m),
 * max(piece[k].floor, piece[k].a + piece[k].b*m) -- protocol steps, as a
 * calibration finds them. `pieces` is 0..TUTTI_COST_PIECES, their from
 * strictly ascending and above 0; an initializer {floor, a, b} has none.
 * A piece's a may be negative where a + b*from >= 0: from its size on it
 * is never below 0 (a curve steeper than a line through 0). */
#define TUTTI_COST_PIECES 4
typedef struct tutti_cost_piece {
  size_t from;
  double floor, a, b;
} tutti_cost_piece_t;
typedef struct tutti_cost {
  double floor, a, b;
  size_t pieces; /* size_t: no padding, costs compare bytewise */
  tutti_cost_piece_t piece[TUTTI_COST_PIECES];
} tutti_cost_t;

enum tutti_preset {
  TUTTI_MODEL_NONE = 0, /* native speed, wall time only, nothing recorded */
  TUTTI_MODEL_HOCKNEY,
  TUTTI_MODEL_POSTAL,
  TUTTI_MODEL_LOGP,
  TUTTI_MODEL_LOGGP,
  TUTTI_MODEL_CUSTOM /* a preset with overridden fields keeps its preset */
};

struct tutti_topo; /* topo/: a tree of switches (may be NULL) */

#define TUTTI_EAGER_ALL SIZE_MAX /* eager_limit meaning "every message is eager" */

/* tutti_model_t.rendezvous (runtime/MODEL.md rule 3) */
enum tutti_rendezvous {
  TUTTI_RENDEZVOUS_READY = 0, /* the transfer starts when both sides are ready */
  TUTTI_RENDEZVOUS_HANDSHAKE  /* ... and a request and a clear-to-send have crossed */
};

typedef struct tutti_model {
  int preset;             /* enum tutti_preset */
  double params[4];       /* the preset's parameters as given: alpha,beta | L | L,o,g | L,o,g,G */
  tutti_cost_t send_cpu;  /* O_s */
  tutti_cost_t send_port; /* S */
  tutti_cost_t latency;   /* L */
  tutti_cost_t recv_port; /* R */
  tutti_cost_t recv_cpu;  /* O_r */
  double gamma;           /* seconds per byte of reduce_local */
  size_t eager_limit;     /* m < eager_limit is eager; TUTTI_EAGER_ALL: all eager */
  size_t header;          /* bytes of every message's envelope: costs at m + header */
  int rendezvous;         /* enum tutti_rendezvous: how a rendezvous transfer starts */
  size_t detached_limit;  /* a rendezvous send of m < this returns at once; 0: none */
  const struct tutti_topo *topo; /* NULL: no topology */
  int sharing;                   /* enum tutti_sharing (runtime/MODEL.md "Sharing"); last, so that
                                    a plugin built before it reads the fields before it alike */
} tutti_model_t;

/* tutti_model_t.sharing: how concurrent messages share ports and links. */
enum tutti_sharing {
  TUTTI_SHARING_FIFO = 0, /* one message at a time, first come first served */
  TUTTI_SHARING_FAIR = 1  /* bandwidth shared max-min fairly (flows) */
};

/* Evaluate a cost function for m bytes. */
TUTTI_API double tutti_cost_eval(const tutti_cost_t *c, double m);
/* The one piece of c that applies to m bytes, as a cost without pieces
 * (c itself when it has none): its alpha and beta at that size. */
TUTTI_API tutti_cost_t tutti_cost_at(const tutti_cost_t *c, double m);

/* ------------------------------------------------------------------ ranks */

typedef struct tutti_rank tutti_rank_t;

/* -------------------------------------------------------------------- p2p */

#define TUTTI_ANY_SOURCE (-1)
#define TUTTI_ANY_TAG (-1)
#define TUTTI_PROC_NULL (-2)
/* User tags are 0..TUTTI_TAG_UB; tags above it, up to INT32_MAX, are
 * reserved for tutti's collectives: a p2p call with one is TUTTI_ETAG
 * unless tutti_coll_tag has handed that tag to the rank (the collective
 * it is in, or one it has finished, whose messages all precede any later
 * one with that tag), so user code cannot reach a collective's data. */
#define TUTTI_TAG_UB 0x3fffffff
#define TUTTI_TAG_MAX 0x7fffffff
#define TUTTI_UNDEFINED (-32766)

TUTTI_API int tutti_rank(const tutti_rank_t *r);
TUTTI_API int tutti_size(const tutti_rank_t *r);

typedef struct tutti_status {
  int source;
  int tag;
  int error;    /* 0, TUTTI_ETRUNCATE, or TUTTI_EABORTED (the sender failed before the copy) */
  size_t bytes; /* bytes of the matched message */
} tutti_status_t;
#define TUTTI_STATUS_IGNORE ((tutti_status_t *)0)

/* Elements of `type` in the received message (MPI_Get_elements): bytes /
 * size, or TUTTI_UNDEFINED when the size does not divide. A count above
 * LONG_MAX is TUTTI_ECOUNT (*count = TUTTI_UNDEFINED). */
TUTTI_API int tutti_status_count(const tutti_status_t *st, tutti_datatype_t type, long *count);

typedef struct tutti_request *tutti_request_t;
#define TUTTI_REQUEST_NULL ((tutti_request_t)0)

/* Blocking send: returns once the buffer may be reused (eager: copied out;
 * rendezvous: the receiver copied it). Messages from one sender to one
 * receiver with one tag are received in the order sent. */
TUTTI_API int tutti_send(tutti_rank_t *r, const void *buf, long count, tutti_datatype_t type,
                         int dest, int tag);
/* Blocking receive; st may be TUTTI_STATUS_IGNORE. A message longer than the
 * buffer fails with TUTTI_ETRUNCATE, st->bytes tells its size, and the
 * message stays to be received by a later, larger receive. */
TUTTI_API int tutti_recv(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int source,
                         int tag, tutti_status_t *st);
TUTTI_API int tutti_isend(tutti_rank_t *r, const void *buf, long count, tutti_datatype_t type,
                          int dest, int tag, tutti_request_t *req);
TUTTI_API int tutti_irecv(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int source,
                          int tag, tutti_request_t *req);
/* Complete a request; *req becomes TUTTI_REQUEST_NULL. A NULL request
 * completes at once with an empty status. */
TUTTI_API int tutti_wait(tutti_rank_t *r, tutti_request_t *req, tutti_status_t *st);
/* sts may be NULL. Returns the first error; every request is completed. */
TUTTI_API int tutti_waitall(tutti_rank_t *r, int n, tutti_request_t reqs[], tutti_status_t sts[]);
/* *flag = 1 and the request is freed if it completed. In a modeled run a
 * successful test counts as a wait. */
TUTTI_API int tutti_test(tutti_rank_t *r, tutti_request_t *req, int *flag, tutti_status_t *st);
/* isend + irecv + waitall, as MPI_Sendrecv. */
TUTTI_API int tutti_sendrecv(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype,
                             int dest, int stag, void *rbuf, long rcount, tutti_datatype_t rtype,
                             int source, int rtag, tutti_status_t *st);

/* End the world from a rank: every blocked rank wakes, tutti_world_run
 * returns err (a negative code; 0 becomes TUTTI_EABORTED) naming this rank.
 * Does not return: the calling rank thread exits. */
TUTTI_API void tutti_abort(tutti_rank_t *r, int err) __attribute__((noreturn));

/* Modeled local work: advance this rank's modeled clock by `seconds`,
 * from 0 to TUTTI_TIME_MAX (units.h: 1e6 s); anything else (NaN,
 * infinity) is TUTTI_EINVAL at the call. */
TUTTI_API int tutti_compute(tutti_rank_t *r, double seconds);
/* tutti_reduce_local that also charges gamma * bytes to the modeled clock. */
TUTTI_API int tutti_reduce_local_r(tutti_rank_t *r, const void *in, void *inout, long count,
                                   tutti_datatype_t type, tutti_op_t op);

/* Copy `bytes` bytes from src to dst within the rank's own memory, as
 * memcpy does (the regions do not overlap; dst == src is a no-op). Free in
 * modeled time. Collectives copy through this call, never with memcpy, so
 * that a timing-only run (TUTTI_NO_DATA, world.h) can skip the copy: there
 * it touches neither buffer. 0, TUTTI_EINVAL (bad rank), TUTTI_EBUFFER
 * (NULL buffer with bytes > 0). */
TUTTI_API int tutti_local_copy(tutti_rank_t *r, void *dst, const void *src, size_t bytes);

/* Scratch memory of `bytes` bytes for a collective's own copies of payload
 * (receive buffers, accumulators, blocks in transit), freed with
 * tutti_scratch_free. In a timing-only run (TUTTI_NO_DATA) no payload is
 * read or written, so no memory is taken, whatever the size: the address
 * returned is one that is never dereferenced (the same for every call);
 * copy through tutti_local_copy and reduce through tutti_reduce_local_r,
 * as collectives do, and it is never touched. Elsewhere malloc's. NULL
 * out of memory or for a NULL rank. */
TUTTI_API void *tutti_scratch_alloc(tutti_rank_t *r, size_t bytes);
/* Free what tutti_scratch_alloc gave r (NULL: nothing). */
TUTTI_API void tutti_scratch_free(tutti_rank_t *r, void *p);

/* Spans delimit calls in the modeled-time report. `name` must outlive the
 * world (a string literal). Spans do not nest. */
TUTTI_API int tutti_span_begin(tutti_rank_t *r, const char *name);
TUTTI_API int tutti_span_end(tutti_rank_t *r);

/* ------------------------------------------------------------ collectives */

/* A fresh tag for one collective call, from the range above TUTTI_TAG_UB
 * that user code never uses. Every rank calls collectives in the same order,
 * so every rank gets the same tag for the same call. */
TUTTI_API int tutti_coll_tag(tutti_rank_t *r);

/* The model the world runs under (for algorithms whose parameters are
 * "auto": lambda=auto reads the latency L of the model). Never NULL. */
TUTTI_API const tutti_model_t *tutti_rank_model(const tutti_rank_t *r);

/* The rules `auto` algorithms follow (tutti_config_t.rules, coll.h's
 * tutti_rules_t), or NULL: none, `auto` makes its model choice. */
struct tutti_rules;
TUTTI_API const struct tutti_rules *tutti_rank_rules(const tutti_rank_t *r);

/* A pointer the collectives keep per rank from one call to the next, for
 * what they would otherwise derive again on every call (memo.c keeps the
 * rank's last tree node there). NULL at first; the runtime frees what it
 * points to, with free(), when the rank goes, and the emulator also before
 * each run of its world. Only the rank's own calls touch it. NULL for a
 * NULL rank. */
TUTTI_API void **tutti_rank_coll_cache(tutti_rank_t *r);

/* Room inside the rank for what tutti_rank_coll_cache points to while it
 * is small: *size bytes, aligned for any type, their contents unspecified;
 * a cache pointing here is not freed. So a world of a million ranks keeps
 * its collectives' memo without a million small allocations. NULL and
 * *size 0 where there is none (over MPI, or a NULL rank). */
TUTTI_API void *tutti_rank_coll_room(tutti_rank_t *r, size_t *size);

/* A block of `size` zeroed bytes the collectives share among the ranks of
 * r's world (over MPI: of r's process), for what every rank of a call
 * would otherwise work out alike (`auto`'s model choice). The first call
 * makes it; every later call, from any rank of the world, returns the same
 * block, whatever its size argument. fini (may be NULL; the first call's
 * is kept) runs on the block before it is freed with the world. What is
 * in it, and how ranks synchronize on it, is the caller's. NULL for a
 * NULL rank or out of memory. */
TUTTI_API void *tutti_rank_shared(tutti_rank_t *r, size_t size, void (*fini)(void *));

/* The rank the calling thread (or fiber) runs, NULL on a thread that runs
 * no rank: for code without a rank handle at hand (an algorithm's
 * parameter accessor that finds a bug) to reach the rank it runs on. */
TUTTI_API tutti_rank_t *tutti_rank_self(void);

/* What rank r is doing, for the run's failure message: when the rank then
 * fails (an error returned by its function, a deadlock it is part of), the
 * message names it ("in bcast 'mine' of plugin ./mine.so"). NULL: nothing
 * in particular. `what` is not copied: it must stay valid until the run
 * ends or the next call. A store: cheap enough for every collective call. */
TUTTI_API void tutti_rank_doing(tutti_rank_t *r, const char *what);

/* This rank's neighbours in the run's contention-free chain from `root`,
 * for chain-shaped algorithms (a pipelined broadcast, order=dfs): *prev
 * and *next are the ranks before and after it, -1 at the chain's ends.
 * With a topology, the chain of Patarasuk, Faraj & Yuan: a depth-first
 * search over the switches from the root's switch, which puts at most one
 * chain hop on every directed link (topo.h, tutti_topo_chain_order).
 * Without one -- and on a backend that knows no network, such as MPI --
 * rank order from the root: root, root+1, ..., root-1 (mod P). 0,
 * TUTTI_EINVAL (bad root or pointers), TUTTI_ENOMEM. O(P) time and
 * temporary memory, nothing kept. */
TUTTI_API int tutti_rank_chain(const tutti_rank_t *r, int root, int *prev, int *next);

/* ---------------------------------------------------------------- groups */

/* A group view, for algorithms that run another algorithm on a subset of
 * the ranks (a hierarchical algorithm: one leader per host, then each
 * host's ranks). From tutti_group_enter until tutti_group_leave, rank r
 * sees only the n ranks of `ranks` (world ranks, strictly ascending, r's
 * own among them; the array stays the caller's and must outlive the
 * view): tutti_rank and tutti_size answer within the group, the peers of
 * p2p calls are indices into it (outside 0..n-1: TUTTI_ERANK), a
 * status's source is one (TUTTI_UNDEFINED for a sender outside the
 * group), and tutti_rank_chain is group order from the root. Collective
 * tags restart at leave where they were at enter: a rank that took part
 * in fewer phases than another still takes the same tags afterwards, and
 * phases entered with the same count reuse tags, safely, since each
 * completes every message it sends before the next begins (messages
 * between two ranks with one tag do not overtake). Views do not nest.
 * 0, TUTTI_EINVAL (a bad list, or r not in it), TUTTI_EBUSY (in a view
 * already; leave: in none). */
TUTTI_API int tutti_group_enter(tutti_rank_t *r, const int *ranks, int n);
TUTTI_API int tutti_group_leave(tutti_rank_t *r);

/* The host that world rank `rank` runs on (world ranks, in a group view
 * too), as an id two ranks share exactly when they share a host: in the
 * emulator, the switch the rank's leaf of the run's topology hangs from
 * (a [host] section's, else the lowest switch's); over MPI, the lowest
 * rank of its shared-memory node. 0, TUTTI_EINVAL (bad rank or pointer),
 * TUTTI_ENOTSUP (no hosts known: the emulator without a topology). */
TUTTI_API int tutti_rank_host(const tutti_rank_t *r, int rank, int *host);

#ifdef __cplusplus
}
#endif
#endif /* TUTTI_P2P_H */

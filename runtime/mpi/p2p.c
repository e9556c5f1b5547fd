/*
 * p2p.c -- the backend contract (include/tutti/p2p.h) over MPI: a rank is
 * an MPI process of a duplicated communicator, tutti's p2p calls are MPI's
 * with the same semantics, so collectives/ runs unchanged across processes.
 *
 * Messages travel as MPI_BYTE, count * size bytes: one encoding for every
 * datatype, so a receive with another type of the same size matches as it
 * does in the emulator and the status counts bytes exactly (MPI_Get_count
 * of MPI_BYTE), from which tutti_status_count divides. A message is at
 * most INT_MAX bytes (MPI-3 counts are int): more is TUTTI_ECOUNT.
 *
 * Tags: user tags 0..TUTTI_TAG_UB and tutti_coll_tag's reserved tags above
 * pass through when MPI_TAG_UB reaches TUTTI_TAG_MAX (Open MPI: INT_MAX).
 * A smaller MPI_TAG_UB (MPICH: 2^21-1 or so) is split in halves: user tags
 * up to ub/2 pass, larger ones are TUTTI_ETAG, and the reserved tags fold
 * into (ub/2, ub] -- distinct for any ub/2 collective calls in flight.
 *
 * No modeled time: tutti_rank_model is the none model, tutti_compute busy-
 * waits for its seconds on MPI_Wtime (so a program's modeled work shows
 * in wall time), spans only check their nesting, and reduce_local_r is
 * MPI_Reduce_local (MPI's own ops for built-in pairs, tutti's
 * reduce_local for matmul2, user ops and contiguous types).
 *
 * Where MPI differs from the emulator (runtime/mpi/README.md): a
 * truncated message is consumed (MPI_ERR_TRUNCATE), not kept; wildcard
 * receives are always allowed (no modeled run forbids them); a deadlock
 * hangs, as in MPI, instead of failing with TUTTI_EDEADLOCK.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* tutti_rank_model's none model, written from p2p.h alone (this backend
 * sees only the contract): the value topo/model.c's tutti_model_none makes
 * -- every cost 0, eager below 64 KiB, no topology -- so that `auto`
 * chooses as it does on the emulator's none model. */
static const tutti_model_t none_model = {.preset = TUTTI_MODEL_NONE, .eager_limit = 64 * 1024};

struct tutti_rank {
  MPI_Comm comm;
  int rank, size;
  uint32_t coll_seq; /* collective calls so far: tutti_coll_tag */
  void *coll_cache;  /* tutti_rank_coll_cache: the collectives', freed with the rank */
  void *shared;      /* tutti_rank_shared: this process's, freed with the rank */
  void (*shared_fini)(void *);
  const char *doing;  /* tutti_rank_doing */
  int user_max;       /* the largest user tag MPI can carry */
  int fold;           /* 1: reserved tags fold into (user_max, tag_ub] */
  uint32_t fold_span; /* tag_ub - user_max */
  int in_span;        /* tutti_span_begin / end nesting */
  struct tutti_request *free_reqs;
  int *host; /* tutti_rank_host: each rank's node, as its lowest rank */
  /* tutti_group_enter's view: grp NULL outside one */
  const int *grp;
  int grp_n, grp_me;
  uint32_t grp_seq;
};

/* The rank this thread made last (tutti_rank_self): a process is one rank. */
static __thread tutti_rank_t *self;

/* A request is MPI's, wrapped so that tutti_request_t stays a pointer
 * whatever MPI_Request is (a pointer in Open MPI, an int in MPICH). */
struct tutti_request {
  MPI_Request mpi;
  struct tutti_request *next; /* the rank's free list */
};

/* ------------------------------------------------------------ errors */

static int from_mpi(int err) {
  if (err == MPI_SUCCESS) return 0;
  int cls = MPI_ERR_OTHER;
  MPI_Error_class(err, &cls);
  switch (cls) {
  case MPI_ERR_TRUNCATE:
    return TUTTI_ETRUNCATE;
  case MPI_ERR_RANK:
    return TUTTI_ERANK;
  case MPI_ERR_TAG:
    return TUTTI_ETAG;
  case MPI_ERR_COUNT:
    return TUTTI_ECOUNT;
  case MPI_ERR_BUFFER:
    return TUTTI_EBUFFER;
  case MPI_ERR_TYPE:
    return TUTTI_ETYPE;
  case MPI_ERR_OP:
    return TUTTI_EOP;
  case MPI_ERR_REQUEST:
    return TUTTI_EREQUEST;
  case MPI_ERR_NO_MEM:
    return TUTTI_ENOMEM;
  default:
    return TUTTI_EIO;
  }
}

/* ------------------------------------------------------------ ranks */

/* Each rank's host, as the lowest rank of its shared-memory node (MPI's
 * MPI_COMM_TYPE_SHARED), known to every rank: two collectives at creation,
 * P ints kept. */
static int hosts_find(struct tutti_rank *r) {
  MPI_Comm node;
  int low = r->rank, rc;
  if (!(r->host = malloc(sizeof *r->host * (size_t)r->size))) return TUTTI_ENOMEM;
  if ((rc = from_mpi(
           MPI_Comm_split_type(r->comm, MPI_COMM_TYPE_SHARED, r->rank, MPI_INFO_NULL, &node))))
    return free(r->host), rc;
  rc = from_mpi(MPI_Allreduce(&r->rank, &low, 1, MPI_INT, MPI_MIN, node));
  MPI_Comm_free(&node);
  if (!rc) rc = from_mpi(MPI_Allgather(&low, 1, MPI_INT, r->host, 1, MPI_INT, r->comm));
  if (rc) free(r->host);
  return rc;
}

int tutti_mpi_rank_create(MPI_Comm comm, tutti_rank_t **out) {
  int inited = 0, flag = 0, *ub = NULL;
  if (!out) return TUTTI_EINVAL;
  *out = NULL;
  MPI_Initialized(&inited);
  if (!inited || comm == MPI_COMM_NULL) return TUTTI_EINVAL;
  struct tutti_rank *r = calloc(1, sizeof *r);
  if (!r) return TUTTI_ENOMEM;
  int rc = from_mpi(MPI_Comm_dup(comm, &r->comm));
  if (rc) {
    free(r);
    return rc;
  }
  MPI_Comm_set_errhandler(r->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(r->comm, &r->rank);
  MPI_Comm_size(r->comm, &r->size);
  if ((rc = hosts_find(r))) {
    MPI_Comm_free(&r->comm);
    free(r);
    return rc;
  }
  MPI_Comm_get_attr(r->comm, MPI_TAG_UB, &ub, &flag);
  int tag_ub = flag && ub ? *ub : 32767; /* MPI guarantees at least 32767 */
  if (tag_ub >= TUTTI_TAG_MAX) {
    r->user_max = TUTTI_TAG_UB;
  } else {
    r->fold = 1;
    r->user_max = tag_ub / 2;
    r->fold_span = (uint32_t)(tag_ub - r->user_max);
  }
  *out = r;
  self = r;
  return 0;
}

void tutti_mpi_rank_free(tutti_rank_t *r) {
  if (!r) return;
  for (struct tutti_request *q = r->free_reqs, *n; q; q = n) n = q->next, free(q);
  MPI_Comm_free(&r->comm);
  free(r->host);
  free(r->coll_cache);
  if (r->shared && r->shared_fini) r->shared_fini(r->shared);
  free(r->shared);
  if (self == r) self = NULL;
  free(r);
}

const char *tutti_mpi_rank_doing(const tutti_rank_t *r) {
  return r ? r->doing : NULL;
}

tutti_rank_t *tutti_rank_self(void) {
  return self;
}

void tutti_rank_doing(tutti_rank_t *r, const char *what) {
  if (r) r->doing = what;
}

/* The rank's world is its communicator's processes, which share no
 * memory: the block is this process's alone. */
void *tutti_rank_shared(tutti_rank_t *r, size_t size, void (*fini)(void *)) {
  if (!r) return NULL;
  if (!r->shared && (r->shared = calloc(1, size ? size : 1))) r->shared_fini = fini;
  return r->shared;
}

MPI_Comm tutti_mpi_comm(const tutti_rank_t *r) {
  return r ? r->comm : MPI_COMM_NULL;
}

/* In a group view, the rank's place in it and its size (p2p.h). */
int tutti_rank(const tutti_rank_t *r) {
  return r ? r->grp ? r->grp_me : r->rank : TUTTI_EINVAL;
}
int tutti_size(const tutti_rank_t *r) {
  return r ? r->grp ? r->grp_n : r->size : TUTTI_EINVAL;
}

/* The emulator's rules (runtime/group.c), over the communicator's ranks. */
int tutti_group_enter(tutti_rank_t *r, const int *ranks, int n) {
  if (!r) return TUTTI_EINVAL;
  if (r->grp) return TUTTI_EBUSY;
  if (!ranks || n < 1 || n > r->size) return TUTTI_EINVAL;
  int me = -1;
  for (int i = 0; i < n; i++) {
    if (ranks[i] < 0 || ranks[i] >= r->size || (i && ranks[i] <= ranks[i - 1])) return TUTTI_EINVAL;
    if (ranks[i] == r->rank) me = i;
  }
  if (me < 0) return TUTTI_EINVAL;
  r->grp = ranks, r->grp_n = n, r->grp_me = me;
  r->grp_seq = r->coll_seq;
  return 0;
}

int tutti_group_leave(tutti_rank_t *r) {
  if (!r) return TUTTI_EINVAL;
  if (!r->grp) return TUTTI_EBUSY;
  r->grp = NULL;
  r->coll_seq = r->grp_seq;
  return 0;
}

int tutti_rank_host(const tutti_rank_t *r, int rank, int *host) {
  if (!r || !host || rank < 0 || rank >= r->size) return TUTTI_EINVAL;
  *host = r->host[rank];
  return 0;
}

int tutti_coll_tag(tutti_rank_t *r) {
  if (!r) return TUTTI_EINVAL;
  /* the emulator's rule, so that both backends hand out the same tags */
  const uint32_t span = (uint32_t)TUTTI_TAG_MAX - TUTTI_TAG_UB;
  return TUTTI_TAG_UB + 1 + (int)(r->coll_seq++ % span);
}

void **tutti_rank_coll_cache(tutti_rank_t *r) {
  return r ? &r->coll_cache : NULL;
}

void *tutti_rank_coll_room(tutti_rank_t *r, size_t *size) {
  *size = 0; /* one rank a process: its cache is one allocation */
  return NULL;
}

const tutti_model_t *tutti_rank_model(const tutti_rank_t *r) {
  (void)r;
  return &none_model;
}

/* No rules over MPI: `auto` makes its model choice (the none model's). */
const struct tutti_rules *tutti_rank_rules(const tutti_rank_t *r) {
  (void)r;
  return NULL;
}

/* MPI tells nothing of the network: the chain is rank order from the
 * root, as the emulator's without a topology (p2p.h). */
int tutti_rank_chain(const tutti_rank_t *r, int root, int *prev, int *next) {
  const int P = tutti_size(r), me = tutti_rank(r);
  if (!r || !prev || !next || root < 0 || root >= P) return TUTTI_EINVAL;
  const int v = (me - root + P) % P;
  *prev = v ? (me - 1 + P) % P : -1;
  *next = v < P - 1 ? (me + 1) % P : -1;
  return 0;
}

/* ------------------------------------------------------------ arguments */

static int check_buf(const void *buf, long count, tutti_datatype_t type, int *bytes) {
  size_t esz = tutti_type_size(type);
  if (!esz) return TUTTI_ETYPE;
  if (count < 0 || (unsigned long)count > INT_MAX / esz) return TUTTI_ECOUNT;
  if (count > 0 && !buf) return TUTTI_EBUFFER;
  *bytes = (int)((size_t)count * esz);
  return 0;
}

static int peer_to_mpi(const struct tutti_rank *r, int peer, int any_ok, int *out) {
  if (peer == TUTTI_PROC_NULL) return *out = MPI_PROC_NULL, 0;
  if (any_ok && peer == TUTTI_ANY_SOURCE) return *out = MPI_ANY_SOURCE, 0;
  if (peer < 0 || peer >= tutti_size(r)) return TUTTI_ERANK;
  return *out = r->grp ? r->grp[peer] : peer, 0; /* a group view's index: its rank */
}

static int tag_to_mpi(const struct tutti_rank *r, int tag, int any_ok, int *out) {
  if (any_ok && tag == TUTTI_ANY_TAG) return *out = MPI_ANY_TAG, 0;
  if (tag < 0) return TUTTI_ETAG;
  if (tag <= TUTTI_TAG_UB) {
    if (tag > r->user_max) return TUTTI_ETAG;
    return *out = tag, 0;
  }
  if (!r->fold) return *out = tag, 0;
  *out = r->user_max + 1 + (int)((uint32_t)(tag - TUTTI_TAG_UB - 1) % r->fold_span);
  return 0;
}

static int tag_from_mpi(const struct tutti_rank *r, int tag) {
  if (tag == MPI_ANY_TAG) return TUTTI_ANY_TAG;
  if (r->fold && tag > r->user_max) return TUTTI_TAG_UB + 1 + (tag - r->user_max - 1);
  return tag;
}

/* One message's arguments in the emulator's order: buffer, peer, tag. */
static int check_msg(const struct tutti_rank *r, const void *buf, long count, tutti_datatype_t type,
                     int peer, int tag, int recv, int *bytes, int *mpeer, int *mtag) {
  int rc;
  if ((rc = check_buf(buf, count, type, bytes)) || (rc = peer_to_mpi(r, peer, recv, mpeer)) ||
      (rc = tag_to_mpi(r, tag, recv, mtag)))
    return rc;
  return 0;
}

static void status_from_mpi(const struct tutti_rank *r, const MPI_Status *m, int err,
                            tutti_status_t *st) {
  if (!st) return;
  int n = 0;
  MPI_Get_count(m, MPI_BYTE, &n);
  st->source = m->MPI_SOURCE == MPI_PROC_NULL ? TUTTI_PROC_NULL : m->MPI_SOURCE;
  if (r->grp && st->source >= 0) { /* as the view names it: a binary search of the group */
    int lo = 0, hi = r->grp_n;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      if (r->grp[mid] < st->source)
        lo = mid + 1;
      else
        hi = mid;
    }
    st->source = lo < r->grp_n && r->grp[lo] == st->source ? lo : TUTTI_UNDEFINED;
  }
  st->tag = tag_from_mpi(r, m->MPI_TAG);
  st->error = err == TUTTI_ETRUNCATE ? err : 0;
  st->bytes = n == MPI_UNDEFINED || n < 0 ? 0 : (size_t)n;
}

int tutti_status_count(const tutti_status_t *st, tutti_datatype_t type, long *count) {
  if (!st || !count) return TUTTI_EINVAL;
  size_t esz = tutti_type_size(type);
  if (!esz) return TUTTI_ETYPE;
  size_t n = st->bytes / esz; /* beyond LONG_MAX: refused, as the emulator's */
  if (!(st->bytes % esz) && n > (size_t)LONG_MAX) return *count = TUTTI_UNDEFINED, TUTTI_ECOUNT;
  *count = st->bytes % esz ? TUTTI_UNDEFINED : (long)n;
  return 0;
}

/* ------------------------------------------------------------ requests */

static struct tutti_request *req_get(struct tutti_rank *r) {
  struct tutti_request *q = r->free_reqs;
  if (q)
    r->free_reqs = q->next;
  else if (!(q = malloc(sizeof *q)))
    return NULL;
  q->mpi = MPI_REQUEST_NULL;
  return q;
}

static void req_put(struct tutti_rank *r, struct tutti_request *q) {
  q->next = r->free_reqs;
  r->free_reqs = q;
}

/* ------------------------------------------------------------ p2p */

int tutti_isend(tutti_rank_t *r, const void *buf, long count, tutti_datatype_t type, int dest,
                int tag, tutti_request_t *req) {
  int rc, bytes, mdest, mtag;
  if (!r || !req) return TUTTI_EINVAL;
  if ((rc = check_msg(r, buf, count, type, dest, tag, 0, &bytes, &mdest, &mtag))) return rc;
  struct tutti_request *q = req_get(r);
  if (!q) return TUTTI_ENOMEM;
  if ((rc = from_mpi(MPI_Isend(buf, bytes, MPI_BYTE, mdest, mtag, r->comm, &q->mpi)))) {
    req_put(r, q);
    return rc;
  }
  *req = q;
  return 0;
}

int tutti_irecv(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int source, int tag,
                tutti_request_t *req) {
  int rc, bytes, msrc, mtag;
  if (!r || !req) return TUTTI_EINVAL;
  if ((rc = check_msg(r, buf, count, type, source, tag, 1, &bytes, &msrc, &mtag))) return rc;
  struct tutti_request *q = req_get(r);
  if (!q) return TUTTI_ENOMEM;
  if ((rc = from_mpi(MPI_Irecv(buf, bytes, MPI_BYTE, msrc, mtag, r->comm, &q->mpi)))) {
    req_put(r, q);
    return rc;
  }
  *req = q;
  return 0;
}

int tutti_send(tutti_rank_t *r, const void *buf, long count, tutti_datatype_t type, int dest,
               int tag) {
  int rc, bytes, mdest, mtag;
  if (!r) return TUTTI_EINVAL;
  if ((rc = check_msg(r, buf, count, type, dest, tag, 0, &bytes, &mdest, &mtag))) return rc;
  return from_mpi(MPI_Send(buf, bytes, MPI_BYTE, mdest, mtag, r->comm));
}

int tutti_recv(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int source, int tag,
               tutti_status_t *st) {
  int rc, bytes, msrc, mtag;
  if (!r) return TUTTI_EINVAL;
  if ((rc = check_msg(r, buf, count, type, source, tag, 1, &bytes, &msrc, &mtag))) return rc;
  MPI_Status m;
  rc = from_mpi(MPI_Recv(buf, bytes, MPI_BYTE, msrc, mtag, r->comm, &m));
  status_from_mpi(r, &m, rc, st);
  return rc;
}

int tutti_wait(tutti_rank_t *r, tutti_request_t *req, tutti_status_t *st) {
  if (!r || !req) return TUTTI_EINVAL;
  struct tutti_request *q = *req;
  if (!q) {
    if (st) *st = (tutti_status_t){.source = TUTTI_PROC_NULL, .tag = TUTTI_ANY_TAG};
    return 0;
  }
  MPI_Status m;
  int rc = from_mpi(MPI_Wait(&q->mpi, &m));
  status_from_mpi(r, &m, rc, st);
  req_put(r, q);
  *req = TUTTI_REQUEST_NULL;
  return rc;
}

int tutti_waitall(tutti_rank_t *r, int n, tutti_request_t reqs[], tutti_status_t sts[]) {
  if (!r) return TUTTI_EINVAL;
  if (n < 0 || (n > 0 && !reqs)) return TUTTI_EINVAL;
  /* one MPI_Waitall, so MPI progresses every request together */
  MPI_Request mstack[32], *mreq = mstack;
  MPI_Status sstack[32], *mst = sstack;
  if (n > 32) {
    mreq = malloc(sizeof *mreq * (size_t)n);
    mst = malloc(sizeof *mst * (size_t)n);
    if (!mreq || !mst) {
      free(mreq == mstack ? NULL : mreq), free(mst == sstack ? NULL : mst);
      return TUTTI_ENOMEM;
    }
  }
  for (int i = 0; i < n; i++) mreq[i] = reqs[i] ? reqs[i]->mpi : MPI_REQUEST_NULL;
  int err = MPI_Waitall(n, mreq, mst), first = 0;
  for (int i = 0; i < n; i++) {
    int rc = 0;
    if (err != MPI_SUCCESS) rc = from_mpi(err == MPI_ERR_IN_STATUS ? mst[i].MPI_ERROR : err);
    if (rc && !first) first = rc;
    if (!reqs[i]) {
      if (sts) sts[i] = (tutti_status_t){.source = TUTTI_PROC_NULL, .tag = TUTTI_ANY_TAG};
      continue;
    }
    if (sts) status_from_mpi(r, &mst[i], rc, &sts[i]);
    req_put(r, reqs[i]);
    reqs[i] = TUTTI_REQUEST_NULL;
  }
  if (mreq != mstack) free(mreq), free(mst);
  return first;
}

int tutti_test(tutti_rank_t *r, tutti_request_t *req, int *flag, tutti_status_t *st) {
  if (!r || !req || !flag) return TUTTI_EINVAL;
  if (!*req) return *flag = 1, tutti_wait(r, req, st);
  MPI_Status m;
  int done = 0, rc = from_mpi(MPI_Test(&(*req)->mpi, &done, &m));
  *flag = done || rc;
  if (!*flag) return 0;
  status_from_mpi(r, &m, rc, st);
  req_put(r, *req);
  *req = TUTTI_REQUEST_NULL;
  return rc;
}

int tutti_sendrecv(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype, int dest,
                   int stag, void *rbuf, long rcount, tutti_datatype_t rtype, int source, int rtag,
                   tutti_status_t *st) {
  int rc, sbytes, rbytes, mdest, msrc, mstag, mrtag;
  if (!r) return TUTTI_EINVAL;
  /* the emulator's order: the receive half is checked first */
  if ((rc = check_msg(r, rbuf, rcount, rtype, source, rtag, 1, &rbytes, &msrc, &mrtag)) ||
      (rc = check_msg(r, sbuf, scount, stype, dest, stag, 0, &sbytes, &mdest, &mstag)))
    return rc;
  MPI_Status m;
  rc = from_mpi(MPI_Sendrecv(sbuf, sbytes, MPI_BYTE, mdest, mstag, rbuf, rbytes, MPI_BYTE, msrc,
                             mrtag, r->comm, &m));
  status_from_mpi(r, &m, rc, st);
  return rc;
}

void tutti_abort(tutti_rank_t *r, int err) {
  /* mpirun ends every process; the exit code is the error's magnitude */
  int code = err < 0 ? -err : -TUTTI_EABORTED;
  MPI_Abort(r ? r->comm : MPI_COMM_WORLD, code);
  _Exit(code); /* MPI_Abort does not return; this keeps noreturn honest */
}

/* ------------------------------------------------------------ local work */

int tutti_compute(tutti_rank_t *r, double seconds) {
  if (!r) return TUTTI_EINVAL;
  if (!(seconds >= 0)) return TUTTI_EINVAL; /* also rejects NaN */
  /* busy: the work a modeled program stands in for takes real time here */
  for (double end = MPI_Wtime() + seconds; MPI_Wtime() < end;) {
  }
  return 0;
}

int tutti_reduce_local_r(tutti_rank_t *r, const void *in, void *inout, long count,
                         tutti_datatype_t type, tutti_op_t op) {
  if (!r) return TUTTI_EINVAL;
  MPI_Op mop;
  MPI_Datatype mt;
  if (count <= INT_MAX && in != inout && tutti__mpi_builtin_pair(op, type, &mop, &mt) &&
      !tutti_op_check(op, type)) {
    if (count > 0 && (!in || !inout)) return TUTTI_EBUFFER;
    if (count < 0) return TUTTI_ECOUNT;
    return from_mpi(MPI_Reduce_local(in, inout, (int)count, mt, mop));
  }
  /* matmul2, user ops, contiguous types, and every error: tutti's own */
  return tutti_reduce_local(in, inout, count, type, op);
}

/* MPI runs always carry data: a plain copy. */
int tutti_local_copy(tutti_rank_t *r, void *dst, const void *src, size_t bytes) {
  if (!r) return TUTTI_EINVAL;
  if (bytes && (!dst || !src)) return TUTTI_EBUFFER;
  if (bytes && dst != src) memcpy(dst, src, bytes);
  return 0;
}

/* MPI runs always carry data: plain memory. */
void *tutti_scratch_alloc(tutti_rank_t *r, size_t bytes) {
  return r ? malloc(bytes ? bytes : 1) : NULL;
}

void tutti_scratch_free(tutti_rank_t *r, void *p) {
  (void)r;
  free(p);
}

int tutti_span_begin(tutti_rank_t *r, const char *name) {
  if (!r || !name || r->in_span) return TUTTI_EINVAL;
  r->in_span = 1;
  return 0;
}

int tutti_span_end(tutti_rank_t *r) {
  if (!r || !r->in_span) return TUTTI_EINVAL;
  r->in_span = 0;
  return 0;
}

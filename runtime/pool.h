/*
 * pool.h -- a rank's private allocators, inline for the message path: the
 * pool of eager buffers, the batched hand-back of buffers to their senders,
 * and requests.
 *
 * Eager buffers are cache-line aligned (header and up to 8 bytes of payload
 * in one line), kept per size class in the sending rank's pool. The
 * receiver copies a message out and hands the buffer back in a batch on the
 * sender's lock-free stack (lfstack, the `retbufs` of internal.h's
 * synchronization table), which the sender reclaims in one pop_all when its
 * pool runs dry. Owner only, except the push onto another rank's retbufs
 * (and, with one worker thread, the receiver's put into the sender's pool).
 */
#ifndef TUTTI_POOL_H
#define TUTTI_POOL_H

#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define POOL_MAX_BYTES ((size_t)64 << (POOL_CLASSES - 1))

static inline char *msg_data(struct msg *m) {
  return (char *)m + MSG_HEADER;
}

/* A payload copy: 8 to 16 bytes (a double, a pair of them: most small
 * collectives' messages) as two overlapping word moves in line, anything
 * else through memcpy, whose call and size dispatch cost more than such a
 * copy. Never overlapping buffers. */
static inline void payload_copy(void *to, const void *from, size_t n) {
  if (n >= 8 && n <= 16) {
    uint64_t a, b;
    memcpy(&a, from, 8);
    memcpy(&b, (const char *)from + n - 8, 8);
    memcpy(to, &a, 8);
    memcpy((char *)to + n - 8, &b, 8);
    return;
  }
  memcpy(to, from, n);
}

static inline int size_class(size_t bytes) {
  int c = 0;
  while (((size_t)64 << c) < bytes) c++;
  return c;
}

/* Whole cache lines: a rank's private data never shares a line with
 * another rank's, whatever the allocator places next to it. */
static inline void *line_alloc(size_t n) {
  return aligned_alloc(TUTTI_CACHELINE, (n + TUTTI_CACHELINE - 1) & ~(size_t)(TUTTI_CACHELINE - 1));
}

/* Cache-line aligned, so that the header and a small payload share a line. */
static inline struct msg *msg_alloc(size_t cap) {
  return line_alloc(MSG_HEADER + cap);
}

/* What msg_alloc(cap) takes, as the memory budget counts it. */
static inline uint64_t msg_bytes(size_t cap) {
  return (MSG_HEADER + (uint64_t)cap + TUTTI_CACHELINE - 1) & ~(uint64_t)(TUTTI_CACHELINE - 1);
}

/* What a failed allocation of r's returns: TUTTI_EMEMORY when the memory
 * budget refused it (the run then fails with the budget's text), else
 * TUTTI_ENOMEM. */
static inline int nomem(const struct tutti_rank *r) {
  return r->mem_refused ? TUTTI_EMEMORY : TUTTI_ENOMEM;
}

/* Ask for a line in exclusive state ahead of a write. GCC emits PREFETCHW
 * for __builtin_prefetch(p, 1) only when told the CPU has it; every x86-64
 * that lacks it executes the opcode as a NOP. */
static inline void prefetch_for_write(const void *p) {
#if defined(__x86_64__)
  __asm__ volatile("prefetchw %0" ::"m"(*(const char *)p));
#else
  __builtin_prefetch(p, 1);
#endif
}

/* ----------------------------------------------------------------- the pool */

/* The pool is an array of pointers per size class, so that taking a buffer
 * back or handing one out touches no line of the buffer itself. */
static inline void pool_put(struct tutti_rank *r, struct msg *m) {
  struct pool_stack *ps = &r->pool[m->sizeclass];
  if (ps->n == ps->cap) {
    uint32_t cap = ps->cap ? 2 * ps->cap : 32;
    struct msg **slot = line_alloc(cap * sizeof *slot);
    if (!slot) { /* keep what we have; this buffer goes */
      tutti__mem_uncharge(&r->world->mem, TUTTI__MEM_MESSAGES,
                          msg_bytes((size_t)64 << m->sizeclass));
      free(m);
      return;
    }
    if (ps->n) memcpy(slot, ps->slot, ps->n * sizeof *slot);
    free(ps->slot);
    ps->slot = slot, ps->cap = cap;
  }
  ps->slot[ps->n++] = m;
}

/* Take in what receivers handed back: single buffers, and batches (a
 * MSG_RETURNS message listing buffers, so that no chain of buffers is
 * walked miss after miss). */
static inline void reclaim(struct tutti_rank *r) {
  struct cds_lfs_head *h = __cds_lfs_pop_all(&r->retbufs);
  /* By hand, not cds_lfs_for_each_safe: each node is acquired before its
   * link is read. */
  for (struct cds_lfs_node *n = h ? &h->node : NULL; n;) {
    struct msg *m = caa_container_of(n, struct msg, fnode);
    tsan_acquire(m);
    n = n->next;
    if (m->kind != MSG_RETURNS) {
      pool_put(r, m);
      continue;
    }
    struct msg **list = (struct msg **)msg_data(m);
    for (size_t i = 0; i < m->bytes; i++) {
      tsan_acquire(list[i]);
      pool_put(r, list[i]);
    }
    free(m);
  }
}

static inline struct msg *pool_get(struct tutti_rank *r, size_t bytes) {
  struct msg *m;
  if (bytes > POOL_MAX_BYTES) { /* given back when freed (pool_return) */
    if (!tutti__rank_charge(r, TUTTI__MEM_MESSAGES, msg_bytes(bytes))) return NULL;
    m = msg_alloc(bytes);
    if (m)
      m->sizeclass = POOL_NONE;
    else
      tutti__mem_uncharge(&r->world->mem, TUTTI__MEM_MESSAGES, msg_bytes(bytes));
    return m;
  }
  int c = size_class(bytes);
  struct pool_stack *ps = &r->pool[c];
  if (!ps->n) reclaim(r);
  if (ps->n) {
    m = ps->slot[--ps->n];
    /* The next send's buffer: fetch its line for writing now, while this
     * rank will soon be waiting, rather than on that send's path. */
    if (ps->n) prefetch_for_write(ps->slot[ps->n - 1]);
    return m;
  }
  /* a new buffer: charged while it exists, in the pool or in flight */
  if (!tutti__rank_charge(r, TUTTI__MEM_MESSAGES, msg_bytes((size_t)64 << c))) return NULL;
  m = msg_alloc((size_t)64 << c);
  if (m)
    m->sizeclass = (uint8_t)c, ps->made++;
  else
    tutti__mem_uncharge(&r->world->mem, TUTTI__MEM_MESSAGES, msg_bytes((size_t)64 << c));
  return m;
}

/* With fibers a rank runs until it waits, and an eager send never waits: a
 * rank that sends to ranks of its own worker would run ahead of them
 * without bound -- a broadcast root tens of thousands of calls ahead, a
 * buffer allocated for every message. So when its pool
 * has no buffer of the size, even after taking in the hand-backs, it
 * yields first: its receivers run, and hand buffers back.
 * But not before it has made world->run_ahead bytes of buffers of the
 * size: a sender that yields whenever its first few are out keeps too few
 * in flight, and each receiver then wakes for one or two messages.
 * RUN_AHEAD a rank, and at most RUN_AHEAD_WORKER for all the fibers of a
 * worker, so that what is in flight stays in its cache: with many ranks a
 * full RUN_AHEAD each would make every call touch new buffers. */
#define RUN_AHEAD ((uint32_t)16 << 10)
#define RUN_AHEAD_WORKER ((uint32_t)2 << 20)
static inline uint32_t run_ahead_of(int nranks, int nworkers) {
  uint32_t per = RUN_AHEAD_WORKER / (uint32_t)((nranks + nworkers - 1) / nworkers);
  return per < RUN_AHEAD ? per : RUN_AHEAD;
}

static inline void pool_throttle(struct tutti_rank *r, size_t bytes) {
  if (bytes > POOL_MAX_BYTES) return;
  int c = size_class(bytes);
  struct pool_stack *ps = &r->pool[c];
  if (!ps->n) reclaim(r);
  if (!ps->n && ps->made >= r->world->run_ahead >> (6 + c)) tutti__fiber_yield_to_started(r);
}

/* -------------------------------------------------------------- hand-backs */

/* The receiver hands eager buffers back to their senders in batches: one
 * push per message would cost the sender's stack line on every message.
 * It keeps up to RET_BATCH - 1 in a private array; at a flush each
 * sender's share goes back in one push: the buffer itself when it is
 * alone, else a MSG_RETURNS message listing them. All go back before the
 * receiver sleeps (tutti__block); at teardown they are freed.
 * Not in a world of one worker thread: there each goes straight into its
 * sender's pool (pool_return), as no sender runs meanwhile: no batches,
 * no list messages, no reclaim by the sender. */
#define RET_BATCH ((uint32_t)(sizeof((struct tutti_rank *)0)->ret / sizeof(struct msg *)))

static inline void push_returns(struct tutti_rank *r, int src, struct msg **list, size_t n) {
  struct __cds_lfs_stack *stack = &r->world->ranks[src]->retbufs;
  /* malloc, not msg_alloc: a list is never a message buffer, and an aligned
   * allocation (split off a larger chunk) costs glibc more, and this
   * runs at every sleep. */
  struct msg *b = n > 1 ? malloc(MSG_HEADER + n * sizeof *list) : NULL;
  if (b) {
    b->kind = MSG_RETURNS;
    b->sizeclass = POOL_NONE;
    b->bytes = n; /* entries */
    memcpy(msg_data(b), list, n * sizeof *list);
    for (size_t i = 0; i < n; i++) tsan_release(list[i]);
    tsan_release(b);
    cds_lfs_push(stack, &b->fnode);
    return;
  }
  for (size_t i = 0; i < n; i++) { /* alone, or no memory for a list */
    tsan_release(list[i]);
    cds_lfs_push(stack, &list[i]->fnode);
  }
}

static inline void flush_returns(struct tutti_rank *r) {
  struct msg *group[RET_BATCH];
  for (uint32_t i = 0; i < r->nret; i++) {
    if (!r->ret[i]) continue;
    int src = r->ret[i]->src;
    size_t n = 0;
    for (uint32_t j = i; j < r->nret; j++)
      if (r->ret[j] && r->ret[j]->src == src) group[n++] = r->ret[j], r->ret[j] = NULL;
    push_returns(r, src, group, n);
  }
  r->nret = 0;
}

/* A message the receiver is done with goes back where it came from. */
static inline void pool_return(struct tutti_rank *r, struct msg *m) {
  if (m->kind == MSG_BOX) { /* copied out: the box is the sender's again */
    __atomic_store_n(&m->seq, 0, __ATOMIC_RELEASE);
    return;
  }
  if (m->local) { /* a box message kept as unexpected: our own buffer */
    pool_put(r, m);
    return;
  }
  if (&m->qnode == r->seen) { /* still linked: back once it is off the queue */
    r->held = m;
    return;
  }
  if (m->sizeclass == POOL_NONE) { /* its own allocation, of its whole size */
    tutti__mem_uncharge(&r->world->mem, TUTTI__MEM_MESSAGES, msg_bytes(m->bytes));
    free(m);
    return;
  }
  if (tutti__one_thread(r->world)) { /* no sender runs now: straight into its pool */
    pool_put(r->world->ranks[m->src], m);
    return;
  }
  r->ret[r->nret++] = m;
  if (r->nret == RET_BATCH) flush_returns(r);
}

/* ----------------------------------------------------------------- requests */

/* Field by field: the rest is set by isend or irecv before it is read. */
static inline void req_init(struct tutti_request *q, struct tutti_rank *r, int kind) {
  q->owner = r;
  q->kind = (uint8_t)kind;
  q->active = 1;
  q->done = q->err = 0;
  q->rts_state = RTS_POSTED;
  q->ev = UINT32_MAX;
  q->vpost = q->vdone = 0;
  q->next = NULL;
  q->st = (tutti_status_t){0};
}

static inline struct tutti_request *req_alloc(struct tutti_rank *r, int kind) {
  struct tutti_request *q = r->freereqs;
  if (!q) { /* a chunk (internal.h): the rank's own first, not charged */
    struct req_chunk *c = &r->req0;
    int n = REQ_CHUNK_MIN;
    if (r->reqchunks) {
      n = 2 * r->reqchunks->n < REQ_CHUNK_MAX ? 2 * r->reqchunks->n : REQ_CHUNK_MAX;
      size_t size = sizeof *c + (size_t)n * sizeof(struct tutti_request);
      /* kept until the next run: a rendezvous envelope is in its request */
      if (!tutti__rank_charge(r, TUTTI__MEM_MESSAGES, size)) return NULL;
      if (!(c = line_alloc(size))) return NULL;
      c->reqs = (struct tutti_request *)(c + 1);
    } else {
      c->reqs = r->req0s;
    }
    memset(c->reqs, 0, (size_t)n * sizeof *c->reqs);
    c->n = n;
    c->next = r->reqchunks;
    r->reqchunks = c;
    for (int i = n - 1; i >= 0; i--) c->reqs[i].next = r->freereqs, r->freereqs = &c->reqs[i];
    q = r->freereqs;
  }
  r->freereqs = q->next;
  req_init(q, r, kind);
  return q;
}

static inline void req_free(struct tutti_rank *r, struct tutti_request *q) {
  q->active = 0;
  q->next = r->freereqs;
  r->freereqs = q;
}

#endif

/*
 * p2p.c -- point-to-point messaging between rank threads.
 *
 * Message path. Each rank has one inbox, a liburcu wait-free concurrent
 * queue (wfcqueue): any sender enqueues (wait-free, one xchg), only the
 * owner dequeues, so no lock is taken on the message path. The wfcqueue is
 * FIFO per producer, which gives MPI's non-overtaking order per pair. The
 * owner sorts arrivals into per-source channels (receiver-private, created
 * the first time a source is seen, so memory grows with the pairs that
 * talk, never with P x P) holding unexpected messages and posted receives.
 *
 * Protocols. A message of m < eager_limit bytes is eager: copied into a
 * cache-line-aligned buffer from the sender's pool (header and up to 8
 * bytes in one line), and the sender goes on; the receiver copies it out
 * and hands the buffer back in a batch on the sender's lock-free stack
 * (lfstack), which the sender reclaims in one pop_all. Larger messages are
 * rendezvous, single copy: the envelope (inside the send request) points at
 * the sender's buffer; the receiver copies straight from it, then marks the
 * request done and rings the sender's doorbell.
 *
 * Fastboxes. A pair that keeps talking gets a fastbox: a one-slot mailbox
 * of two cache lines that the receiver polls, for eager messages of up to
 * 72 bytes. A message then costs the line transfers of a ping-pong; the
 * inbox serves whenever the box is busy, and per-pair sequence numbers keep
 * MPI's order across the two paths (see the fastbox section).
 *
 * Cache lines on the inbox path. A one-way message costs the receiver two
 * line transfers it cannot avoid with a linked queue: the link in the
 * previous node, then the new node. Everything else stays on one side: the
 * inbox tail is written only by senders (the receiver reads the queue's last
 * node in place instead of dequeuing it, see progress), the head only by the
 * receiver, returns go back in batches, and the sender fetches its next
 * buffer for writing while it waits.
 *
 * Waiting. A rank polls briefly (world->spin) and then sleeps on a futex
 * doorbell, as urcu's call_rcu does: doorbell = -1, full barrier, re-check,
 * FUTEX_WAIT. A waker publishes, full barrier, and if it swaps -1 -> 1 it
 * owns the wake-up: it takes the sleeper off the blocked count, sets the
 * doorbell to 0 and issues FUTEX_WAKE. When every rank has a core
 * (world->asym), the barrier is asymmetric, as in urcu's membarrier flavour:
 * senders, who are many and in a hurry, issue none; the rare sleeper issues
 * membarrier(), which runs a full barrier on every running thread of the
 * process, so that either it sees the message or the sender sees -1.
 *
 * liburcu is used through its shared library (no _LGPL_SOURCE): the calls
 * cost a few ns next to a 70 ns cache-line transfer, and the sanitizers
 * then see only our own code, with explicit acquire/release annotations
 * where a message changes hands.
 *
 * Deadlock. world->live_blocked packs (live ranks, committed sleepers). A
 * rank counts itself only after its re-check failed (it is then certain to
 * sleep until woken), and a waker uncounts it when it claims the wake-up, so
 * the blocked half never exceeds the ranks truly asleep with no wake-up
 * coming. When it equals the live half, nobody can send anything again:
 * that is a deadlock, detected exactly, with no timeout.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "tutti/coll.h"

#define POOL_MAX_BYTES ((size_t)64 << (POOL_CLASSES - 1))

static inline char *msg_data(struct msg *m) {
  return (char *)m + MSG_HEADER;
}

static void futex_wait(int32_t *addr, int32_t val) {
  syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}
static void futex_wake(int32_t *addr, int n) {
  syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static int membarrier(int cmd) {
  return (int)syscall(SYS_membarrier, cmd, 0, 0);
}

static int membarrier_ok;
static void membarrier_register(void) {
  int cmds = membarrier(MEMBARRIER_CMD_QUERY);
  membarrier_ok = cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
                  membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

/* Whether the asymmetric barrier is there (Linux 4.14); registers once. */
bool tutti__membarrier_ready(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, membarrier_register);
  return membarrier_ok;
}

/* The sender's half of the doorbell protocol, after publishing: a full
 * barrier, or only the compiler's when the sleeper pays (block). */
static inline void publish_barrier(const struct tutti_world *w) {
  if (w->asym)
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
  else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* --------------------------------------------------------------- perturbing */

static uint64_t rng_next(struct tutti_rank *r) {
  uint64_t x = r->rng; /* xorshift64 */
  x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  return r->rng = x;
}

/* Test-only scheduling noise (TUTTI_PERTURB): yields and sleeps of up to
 * 50 us at the points where the order of threads matters. */
void tutti__perturb(struct tutti_rank *r) {
  uint64_t x = rng_next(r);
  if ((x & 7) == 0) sched_yield();
  if ((x & 0x3f0) == 0) {
    struct timespec ts = {0, (long)(1000 + (x >> 20) % 50000)};
    nanosleep(&ts, NULL);
  }
}
#define PERTURB(r)                                                                                 \
  do {                                                                                             \
    if (__builtin_expect((r)->world->flags & TUTTI_PERTURB, 0)) tutti__perturb(r);                 \
  } while (0)

/* ------------------------------------------------------- wall-clock pacing */

static double wall_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* TUTTI_WALLCLOCK: advance the rank's modeled clock to v and hold the
 * thread until real time catches up. Sleeps in slices of at most 10 ms so
 * that an abort is not kept waiting. */
static void pace(struct tutti_rank *r, double v) {
  struct tutti_world *w = r->world;
  if (v > r->vclock) r->vclock = v;
  double target = w->wall_start + r->vclock * w->time_scale;
  for (;;) {
    double left = target - wall_now();
    if (left <= 0 || __atomic_load_n(&w->aborted, __ATOMIC_ACQUIRE)) return;
    if (left > 0.01) left = 0.01;
    struct timespec ts = {0, (long)(left * 1e9)};
    nanosleep(&ts, NULL);
  }
}

static double cost(const tutti_cost_t *c, size_t m) {
  return tutti_cost_eval(c, (double)m);
}

/* ------------------------------------------------------------------ waking */

/* Called after publishing something rank d may be waiting for. The caller
 * has issued publish_barrier(), or a seq_cst store or RMW, after publishing.
 * The doorbell has three states: 0 awake, -1 asleep (or about to be), 1
 * being woken. The waker claims with -1 -> 1, takes the sleeper off the
 * blocked count, and only then lets it go (1 -> 0): were the sleeper
 * released first, it could block again and be counted twice before the
 * waker's decrement, and the count would report a deadlock that is not. */
static void wake(struct tutti_rank *waker, struct tutti_rank *d) {
  int32_t expect = -1;
  if (__atomic_load_n(&d->doorbell, __ATOMIC_SEQ_CST) != -1) return;
  if (!__atomic_compare_exchange_n(&d->doorbell, &expect, 1, false, __ATOMIC_SEQ_CST,
                                   __ATOMIC_SEQ_CST))
    return;
  __atomic_fetch_sub(&d->world->live_blocked, 1, __ATOMIC_SEQ_CST);
  __atomic_store_n(&d->doorbell, 0, __ATOMIC_SEQ_CST);
  futex_wake(&d->doorbell, 1);
  if (waker) waker->n_wakeups++;
}

/* Sleep until the doorbell is 0 again (through the "being woken" state). */
static void sleep_until_awake(struct tutti_rank *r) {
  int32_t v;
  while ((v = __atomic_load_n(&r->doorbell, __ATOMIC_SEQ_CST)) != 0) futex_wait(&r->doorbell, v);
}

void tutti__wake(struct tutti_rank *d) {
  wake(NULL, d);
}

static inline struct cds_wfcq_node *link_of(struct cds_wfcq_node *n) {
  return __atomic_load_n(&n->next, __ATOMIC_ACQUIRE); /* a plain load on x86 */
}

/* Something new in the inbox: a first node not yet read, or a successor of
 * the one read in place (r->seen, see progress). Only links are polled,
 * never the tail, which every sender writes. A message whose enqueue has
 * swapped the tail but not yet linked itself shows up a moment later: the
 * enqueuer links it before its full barrier and doorbell check, so block()
 * cannot miss it. */
static inline bool inbox_nonempty(struct tutti_rank *r) {
  struct cds_wfcq_node *n = link_of(&r->inbox_head.node);
  return n && (n != r->seen || link_of(n));
}

static inline bool aborted(struct tutti_world *w) {
  return __atomic_load_n(&w->aborted, __ATOMIC_ACQUIRE) != 0;
}

static void declare_deadlock(struct tutti_world *w);

/* Sleep until woken, unless something is already there. `done` is the flag
 * the caller waits for (may be NULL). */
static void flush_returns(struct tutti_rank *r);
static bool boxes_full(struct tutti_rank *r);

static void block(struct tutti_rank *r, const int *done) {
  struct tutti_world *w = r->world;
  flush_returns(r); /* a sender may be short of buffers while we sleep */
  __atomic_store_n(&r->doorbell, -1, __ATOMIC_SEQ_CST);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (w->asym) membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED); /* the senders' barrier */
  if (inbox_nonempty(r) || boxes_full(r) || (done && tutti__load_acq(done)) || aborted(w)) {
    /* Not sleeping after all. If a waker claimed us meanwhile, it takes us
     * off a count we never joined: let it finish, then put the count right. */
    int32_t expect = -1;
    if (__atomic_compare_exchange_n(&r->doorbell, &expect, 0, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
      return;
    sleep_until_awake(r);
    __atomic_fetch_add(&w->live_blocked, 1, __ATOMIC_SEQ_CST);
    return;
  }
  uint64_t v = __atomic_add_fetch(&w->live_blocked, 1, __ATOMIC_SEQ_CST);
  if (LB_BLOCKED(v) == LB_LIVE(v)) declare_deadlock(w);
  r->n_sleeps++;
  sleep_until_awake(r);
}

/* ----------------------------------------------------------------- deadlock */

static void declare_deadlock(struct tutti_world *w) {
  /* Every live rank sleeps with no wake-up coming, so their wait records are
   * stable; the seq_cst RMWs on live_blocked order them before this read. */
  char buf[sizeof w->errtext];
  size_t len = 0;
  int listed = 0, nblocked = 0;
  len += (size_t)snprintf(buf, sizeof buf, "deadlock:");
  for (int i = 0; i < w->nranks; i++) {
    const tutti_waitinfo_t *wi = &w->ranks[i]->waiting;
    if (!wi->blocked) continue;
    nblocked++;
    if (listed >= 16 || len >= sizeof buf - 96) continue;
    listed++;
    if (wi->peer == TUTTI_ANY_SOURCE)
      len += (size_t)snprintf(buf + len, sizeof buf - len, " rank %d waits in %s from any source",
                              i, wi->op);
    else
      len += (size_t)snprintf(buf + len, sizeof buf - len, " rank %d waits in %s %s %d", i, wi->op,
                              strcmp(wi->op, "recv") == 0 ? "from" : "with", wi->peer);
    if (wi->tag == TUTTI_ANY_TAG)
      len += (size_t)snprintf(buf + len, sizeof buf - len, " (any tag);");
    else
      len += (size_t)snprintf(buf + len, sizeof buf - len, " (tag %d);", wi->tag);
  }
  if (listed < nblocked && len < sizeof buf - 40)
    len += (size_t)snprintf(buf + len, sizeof buf - len, " ... and %d more;", nblocked - listed);
  if (len > 0 && buf[len - 1] == ';') buf[len - 1] = 0;
  tutti__fail(w, -1, TUTTI_EDEADLOCK, "%s", buf);
  tutti__abort_all(w);
}

/* A rank leaves the live count when its function returns. If the ranks
 * still live all sleep, this departure made the deadlock. */
void tutti__rank_departs(struct tutti_rank *r) {
  struct tutti_world *w = r->world;
  uint64_t v = __atomic_sub_fetch(&w->live_blocked, LB_ONE_LIVE, __ATOMIC_SEQ_CST);
  if (LB_LIVE(v) > 0 && LB_BLOCKED(v) == LB_LIVE(v) && !aborted(w)) declare_deadlock(w);
}

/* --------------------------------------------------------------- the pool */

static int size_class(size_t bytes) {
  int c = 0;
  while (((size_t)64 << c) < bytes) c++;
  return c;
}

/* Whole cache lines: a rank's private data never shares a line with
 * another rank's, whatever the allocator places next to it. */
static void *line_alloc(size_t n) {
  return aligned_alloc(TUTTI_CACHELINE, (n + TUTTI_CACHELINE - 1) & ~(size_t)(TUTTI_CACHELINE - 1));
}

/* Cache-line aligned, so that the header and a small payload share a line. */
static struct msg *msg_alloc(size_t cap) {
  return line_alloc(MSG_HEADER + cap);
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

/* The pool is an array of pointers per size class, so that taking a buffer
 * back or handing one out touches no line of the buffer itself. */
static void pool_put(struct tutti_rank *r, struct msg *m) {
  struct pool_stack *ps = &r->pool[m->sizeclass];
  if (ps->n == ps->cap) {
    uint32_t cap = ps->cap ? 2 * ps->cap : 32;
    struct msg **slot = line_alloc(cap * sizeof *slot);
    if (!slot) { /* keep what we have; this buffer goes */
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
static void reclaim(struct tutti_rank *r) {
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

static struct msg *pool_get(struct tutti_rank *r, size_t bytes) {
  struct msg *m;
  if (bytes > POOL_MAX_BYTES) {
    m = msg_alloc(bytes);
    if (m) m->sizeclass = POOL_NONE;
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
  m = msg_alloc((size_t)64 << c);
  if (m) m->sizeclass = (uint8_t)c;
  return m;
}

/* The receiver hands eager buffers back to their senders in batches: one
 * push per message would cost the sender's stack line on every message.
 * It keeps up to RET_BATCH - 1 in a private array; at a flush each
 * sender's share goes back in one push: the buffer itself when it is
 * alone, else a MSG_RETURNS message listing them. All go back before the
 * receiver sleeps (block); at teardown they are freed. */
#define RET_BATCH ((uint32_t)(sizeof((struct tutti_rank *)0)->ret / sizeof(struct msg *)))

static void push_returns(struct tutti_rank *r, int src, struct msg **list, size_t n) {
  struct __cds_lfs_stack *stack = &r->world->ranks[src]->retbufs;
  struct msg *b = n > 1 ? msg_alloc(n * sizeof *list) : NULL;
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

static void flush_returns(struct tutti_rank *r) {
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

static void pool_return(struct tutti_rank *r, struct msg *m) {
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
  if (m->sizeclass == POOL_NONE) {
    free(m);
    return;
  }
  r->ret[r->nret++] = m;
  if (r->nret == RET_BATCH) flush_returns(r);
}

/* ----------------------------------------------------------------- requests */

#define REQ_CHUNK 64
struct req_chunk {
  struct req_chunk *next;
  struct tutti_request reqs[REQ_CHUNK];
};

static struct tutti_request *req_alloc(struct tutti_rank *r, int kind) {
  struct tutti_request *q = r->freereqs;
  if (!q) {
    struct req_chunk *c = line_alloc(sizeof *c);
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    c->next = r->reqchunks;
    r->reqchunks = c;
    for (int i = REQ_CHUNK - 1; i >= 0; i--)
      c->reqs[i].next = r->freereqs, r->freereqs = &c->reqs[i];
    q = r->freereqs;
  }
  r->freereqs = q->next;
  /* Field by field: the rest is set by isend or irecv before it is read. */
  q->owner = r;
  q->kind = (uint8_t)kind;
  q->active = 1;
  q->done = q->err = 0;
  q->ev = UINT32_MAX;
  q->vpost = q->vdone = 0;
  q->next = NULL;
  q->st = (tutti_status_t){0};
  return q;
}

static void req_free(struct tutti_rank *r, struct tutti_request *q) {
  q->active = 0;
  q->next = r->freereqs;
  r->freereqs = q;
}

/* ------------------------------------------------------------------ events */

static int record(struct tutti_rank *r, uint8_t kind, int peer, int tag, uint64_t bytes,
                  uint32_t ref, uint32_t *index) {
  struct tutti_ev ev = {.kind = kind, .peer = peer, .tag = tag, .bytes = bytes, .ref = ref};
  uint32_t i = tutti__evlog_push(&r->log, &ev);
  if (i == UINT32_MAX) return TUTTI_ENOMEM;
  if (index) *index = i;
  return 0;
}

/* ---------------------------------------------------------------- channels */

static uint32_t hash_peer(int peer) {
  return (uint32_t)peer * 2654435761u;
}

/* The channel of `peer`, created on first use when `create`. The pointer is
 * valid until the next creation. */
static struct chan *chan_get(struct tutti_rank *r, int peer, bool create) {
  /* Most calls ask for the channel asked for last (the receive posted, then
   * the message it waits for). */
  if (r->lastchan && r->lastchan->peer == peer) return r->lastchan;
  if (r->chancap) {
    uint32_t mask = r->chancap - 1;
    for (uint32_t i = hash_peer(peer) & mask;; i = (i + 1) & mask) {
      if (r->chans[i].peer == peer) return r->lastchan = &r->chans[i];
      if (r->chans[i].peer < 0) break;
    }
  }
  if (!create) return NULL;
  if ((r->nchans + 1) * 2 > r->chancap) {
    uint32_t cap = r->chancap ? r->chancap * 2 : 8;
    struct chan *t = line_alloc(cap * sizeof *t);
    if (!t) return NULL;
    for (uint32_t i = 0; i < cap; i++) t[i] = (struct chan){.peer = -1};
    for (uint32_t j = 0; j < r->chancap; j++) {
      if (r->chans[j].peer < 0) continue;
      uint32_t i = hash_peer(r->chans[j].peer) & (cap - 1);
      while (t[i].peer >= 0) i = (i + 1) & (cap - 1);
      t[i] = r->chans[j];
    }
    free(r->chans);
    r->chans = t;
    r->lastchan = NULL; /* pointed into the old table */
    r->chancap = cap;
  }
  uint32_t mask = r->chancap - 1, i = hash_peer(peer) & mask;
  while (r->chans[i].peer >= 0) i = (i + 1) & mask;
  r->chans[i] = (struct chan){.peer = peer};
  r->nchans++;
  return r->lastchan = &r->chans[i];
}

static inline bool tag_match(int want, int tag) {
  return want == TUTTI_ANY_TAG || want == tag;
}

/* ---------------------------------------------------------------- matching */

static void unlink_seen(struct tutti_rank *r);
static void progress_inbox(struct tutti_rank *r);

/* Complete receive q with message m. Returns true if m was consumed; false
 * when it does not fit (q fails with ETRUNCATE, m stays to be received). */
static bool complete_recv(struct tutti_rank *r, struct tutti_request *q, struct msg *m) {
  q->st.source = m->src;
  q->st.tag = m->tag;
  q->st.bytes = m->bytes;
  if (m->bytes > q->cap) {
    q->err = q->st.error = TUTTI_ETRUNCATE;
    if (q->ev != UINT32_MAX) r->log.ev[q->ev].flags |= TUTTI_EVF_FAILED;
    q->done = 1;
    return false;
  }
  if (q->ev != UINT32_MAX) {
    struct tutti_ev *e = &r->log.ev[q->ev];
    e->peer = m->src, e->tag = m->tag, e->bytes = m->bytes, e->ref = m->send_ev;
  }
  const tutti_model_t *md = &r->world->model;
  if (m->kind != MSG_RTS) {  /* eager, from the inbox or a fastbox */
    if (r->world->wallclock) /* rules 1-2 without ports */
      q->vdone =
          fmax(q->vpost, m->vdepart + cost(&md->latency, m->bytes)) + cost(&md->recv_cpu, m->bytes);
    if (m->bytes) memcpy(q->buf, msg_data(m), m->bytes);
    pool_return(r, m);
  } else {
    struct tutti_request *sq = caa_container_of(m, struct tutti_request, rts);
    struct tutti_rank *sender = r->world->ranks[m->src];
    if (r->world->wallclock) { /* rule 3 without ports */
      double s = fmax(m->vdepart, q->vpost);
      q->vdone = s + cost(&md->latency, m->bytes) + cost(&md->recv_cpu, m->bytes);
      sq->vdone = s + cost(&md->send_cpu, m->bytes);
    }
    if (m->bytes) memcpy(q->buf, sq->sbuf, m->bytes);
    if (&m->qnode == r->seen) unlink_seen(r);
    /* After this store the sender may reuse the request holding m. */
    tsan_release(sq);
    __atomic_store_n(&sq->done, 1, __ATOMIC_SEQ_CST);
    wake(r, sender);
  }
  q->done = 1;
  return true;
}

/* Unlink q from the singly linked list (head, tail) given its predecessor. */
#define UNLINK(head, tail, prev, q)                                                                \
  do {                                                                                             \
    if (prev)                                                                                      \
      (prev)->next = (q)->next;                                                                    \
    else                                                                                           \
      (head) = (q)->next;                                                                          \
    if ((tail) == (q)) (tail) = (prev);                                                            \
  } while (0)

static struct msg *box_to_local(struct tutti_rank *r, struct msg *box);

static void deliver(struct tutti_rank *r, struct msg *m) {
  struct chan *c = chan_get(r, m->src, true);
  if (!c) { /* out of memory in a receiver-private table: fail the rank */
    tutti__fail(r->world, r->rank, TUTTI_ENOMEM, "rank %d: out of memory for a channel", r->rank);
    tutti__abort_all(r->world);
    return;
  }
  /* The earliest posted receive that matches: specific or wildcard. */
  struct tutti_request *q, *qp = NULL, *best = NULL, *wq, *wp = NULL;
  for (q = c->pq_head; q && !tag_match(q->tag, m->tag); qp = q, q = q->next) {
  }
  for (wq = r->wq_head; wq && !tag_match(wq->tag, m->tag); wp = wq, wq = wq->next) {
  }
  if (q && (!wq || q->post_seq < wq->post_seq)) {
    best = q;
    UNLINK(c->pq_head, c->pq_tail, qp, q);
  } else if (wq) {
    best = wq;
    UNLINK(r->wq_head, r->wq_tail, wp, wq);
  }
  if (best && complete_recv(r, best, m)) return;
  if (m->kind == MSG_BOX && !(m = box_to_local(r, m))) return;
  /* Unexpected: only now does the receiver write into the message. */
  m->arrival = r->arrival_seq++;
  m->next = NULL;
  if (c->uq_tail)
    c->uq_tail->next = m;
  else
    c->uq_head = m;
  c->uq_tail = m;
  r->n_unexpected++;
}

/* ---------------------------------------------------------------- fastboxes */

/* A fastbox is one pair's single-slot mailbox for small eager messages, as
 * MPICH's nemesis and Open MPI's vader have: one cache line that the
 * receiver polls and the sender fills, so a message costs the two line
 * transfers of a ping-pong and nothing else. The sender allocates it once
 * it has sent BOX_AFTER messages to a peer, and offers it through the inbox;
 * the receiver accepts up to BOX_MAX (it polls every one it holds) and
 * refuses the rest. The box is a message header and payload:
 * box->seq is 0 when empty, else the pair sequence number of the message in
 * it; box->arrival carries the offer's state.
 *
 * Order. Every message of a pair carries a sequence number, and a pair's
 * messages go by box or by inbox, whichever is free. Each path is FIFO and
 * the box holds one message, so the receiver restores the order by taking
 * the box first whenever the inbox brings a later number (the sender filled
 * the box before it enqueued that message, so the box is visible). */
enum { BOX_BYTES = 128, BOX_PAYLOAD = BOX_BYTES - MSG_HEADER, BOX_AFTER = 8 };
#define BOX_MAX ((int)(sizeof((struct tutti_rank *)0)->boxes / sizeof(struct boxref)))
enum { BOX_OFFERED = 0, BOX_OPEN, BOX_REFUSED };

static inline uint32_t next_seq(uint32_t s) {
  return s + 1 ? s + 1 : 1;
} /* 0: empty box */

static bool boxes_full(struct tutti_rank *r) {
  for (int i = 0; i < r->nboxes; i++)
    if (__atomic_load_n(&r->boxes[i].box->seq, __ATOMIC_ACQUIRE)) return true;
  return false;
}

static void take_box(struct tutti_rank *r, struct boxref *b) {
  struct msg *m = b->box;
  b->expect = next_seq(m->seq);
  deliver(r, m);
}

/* A box message that must wait (no receive matches, or it would truncate)
 * is copied into a buffer of our own, so that the box is free again. */
static struct msg *box_to_local(struct tutti_rank *r, struct msg *box) {
  struct msg *m = pool_get(r, box->bytes);
  if (!m) {
    tutti__fail(r->world, r->rank, TUTTI_ENOMEM, "rank %d: out of memory for a message", r->rank);
    tutti__abort_all(r->world);
    return NULL;
  }
  m->kind = MSG_EAGER;
  m->local = 1;
  m->src = box->src, m->tag = box->tag, m->bytes = box->bytes;
  m->send_ev = box->send_ev, m->vdepart = box->vdepart, m->seq = box->seq;
  if (box->bytes) memcpy(msg_data(m), msg_data(box), box->bytes);
  pool_return(r, box);
  return m;
}

/* Take what the boxes hold, each in its pair's order. */
static void poll_boxes(struct tutti_rank *r) {
  for (int i = 0; i < r->nboxes; i++) {
    struct boxref *b = &r->boxes[i];
    if (__atomic_load_n(&b->box->seq, __ATOMIC_ACQUIRE) == b->expect) take_box(r, b);
  }
}

static void accept_box(struct tutti_rank *r, struct msg *offer) {
  struct msg *box;
  memcpy(&box, msg_data(offer), sizeof box);
  struct chan *c = chan_get(r, offer->src, true);
  uint32_t verdict = BOX_REFUSED;
  if (c && r->nboxes < BOX_MAX) {
    r->boxes[r->nboxes] = (struct boxref){box, offer->src, offer->seq};
    c->boxi1 = ++r->nboxes;
    verdict = BOX_OPEN;
  }
  __atomic_store_n(&box->arrival, verdict, __ATOMIC_RELEASE);
}

/* An inbox message, in its pair's order with the box. */
static void deliver_inbox(struct tutti_rank *r, struct msg *m) {
  if (m->kind == MSG_BOXOFFER) {
    accept_box(r, m);
    pool_return(r, m);
    return;
  }
  struct chan *c = chan_get(r, m->src, false);
  if (c && c->boxi1) {
    struct boxref *b = &r->boxes[c->boxi1 - 1];
    if (m->seq != b->expect) {
      if (__atomic_load_n(&b->box->seq, __ATOMIC_ACQUIRE) != b->expect) { /* cannot happen */
        tutti__fail(r->world, r->rank, TUTTI_EINVAL,
                    "rank %d: internal error: message from %d "
                    "out of order",
                    r->rank, m->src);
        tutti__abort_all(r->world);
        return;
      }
      take_box(r, b);
    }
    b->expect = next_seq(m->seq);
  }
  deliver(r, m);
}

/* The sender's side: the box to this peer, if it is open and empty. */
static struct msg *box_claim(struct tutti_rank *r, struct chan *o, size_t bytes) {
  struct msg *b = o->box;
  if (!b || bytes > BOX_PAYLOAD) return NULL;
  uint32_t state = __atomic_load_n(&b->arrival, __ATOMIC_ACQUIRE);
  if (state == BOX_REFUSED) {
    free(b);
    o->box = NULL;
    return NULL;
  }
  if (state != BOX_OPEN || __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE)) return NULL;
  return b;
}

/* Offer a box to d ahead of the message numbered seq (no box if memory is
 * short: the inbox serves). */
static void box_offer(struct tutti_rank *r, struct tutti_rank *d, struct chan *o, uint32_t seq) {
  struct msg *b = line_alloc(BOX_BYTES), *m = pool_get(r, sizeof b);
  if (!b || !m) {
    free(b);
    if (m) pool_put(r, m);
    return;
  }
  b->seq = 0;
  b->arrival = BOX_OFFERED;
  o->box = b;
  m->kind = MSG_BOXOFFER;
  m->local = 0;
  m->src = r->rank, m->tag = 0, m->bytes = sizeof b, m->seq = seq, m->send_ev = UINT32_MAX;
  memcpy(msg_data(m), &b, sizeof b);
  cds_wfcq_node_init(&m->qnode);
  tsan_release(b);
  tsan_release(m);
  cds_wfcq_enqueue(&d->inbox_head, &d->inbox_tail, &m->qnode);
}

/* Move everything in the inbox and the boxes to the channels. Owner only. */
static void progress(struct tutti_rank *r) {
  bool inbox = inbox_nonempty(r);
  if (!inbox && !r->nboxes) return;
  PERTURB(r);
  if (inbox) progress_inbox(r);
  if (r->nboxes) poll_boxes(r);
}

/* Move everything in the inbox to its channel.
 *
 * The last node of the queue is read in place and left linked (r->seen):
 * dequeuing it would move the tail to the receiver and back to the next
 * sender, two cache-line transfers per message. A node with a successor
 * comes off without touching the tail. So seen's memory stays the queue's
 * until a successor appears: an eager buffer waits in r->held, and a
 * rendezvous envelope is dequeued for real before its send completes
 * (complete_recv). */
static void progress_inbox(struct tutti_rank *r) {
  struct cds_wfcq_node *n;
  while ((n = link_of(&r->inbox_head.node))) {
    if (n == r->seen) {
      if (!link_of(n)) break;
      __cds_wfcq_dequeue_blocking(&r->inbox_head, &r->inbox_tail); /* n: not the last */
      r->seen = NULL;
      struct msg *h = r->held;
      if (h) r->held = NULL, pool_return(r, h);
      continue;
    }
    struct msg *m = caa_container_of(n, struct msg, qnode);
    tsan_acquire(m);
    if (link_of(n))
      __cds_wfcq_dequeue_blocking(&r->inbox_head, &r->inbox_tail);
    else
      r->seen = n;
    deliver_inbox(r, m);
  }
}

/* Take the node read in place off the queue now (its memory is about to be
 * reused); when it is the last, this is wfcqueue's dequeue with the tail. */
static void unlink_seen(struct tutti_rank *r) {
  __cds_wfcq_dequeue_blocking(&r->inbox_head, &r->inbox_tail);
  r->seen = NULL;
}

/* Try to match a just-posted receive against the unexpected messages. */
static bool match_unexpected(struct tutti_rank *r, struct tutti_request *q) {
  struct chan *c = NULL;
  struct msg *m = NULL, *prev = NULL;
  if (q->src != TUTTI_ANY_SOURCE) {
    c = chan_get(r, q->src, false);
    if (c)
      for (m = c->uq_head; m && !tag_match(q->tag, m->tag); prev = m, m = m->next) {
      }
  } else if (r->n_unexpected) {
    /* Wildcard: the earliest arrival over all channels. */
    for (uint32_t i = 0; i < r->chancap; i++) {
      struct chan *ci = &r->chans[i];
      if (ci->peer < 0) continue;
      struct msg *mi, *pi = NULL;
      for (mi = ci->uq_head; mi && !tag_match(q->tag, mi->tag); pi = mi, mi = mi->next) {
      }
      /* Stamps wrap at 2^32; far fewer messages than that are ever waiting. */
      if (mi && (!m || (int32_t)(mi->arrival - m->arrival) < 0)) m = mi, prev = pi, c = ci;
    }
  }
  if (!m) return false;
  if (m->bytes <= q->cap) {
    /* Unlink before the copy: complete_recv hands an eager buffer back to
     * its sender, who may reuse it at once. */
    UNLINK(c->uq_head, c->uq_tail, prev, m);
    r->n_unexpected--;
  }
  complete_recv(r, q, m);
  return true;
}

/* --------------------------------------------------------------- checking */

static int check_rank(const tutti_rank_t *r) {
  if (!r || !r->world) return TUTTI_EINVAL;
  return 0;
}

static int check_buf(const void *buf, long count, tutti_datatype_t type, size_t *bytes) {
  if (!tutti__type_ok(type)) return TUTTI_ETYPE;
  if (count < 0) return TUTTI_ECOUNT;
  if (count > 0 && !buf) return TUTTI_EBUFFER;
  if ((unsigned long)count > SIZE_MAX / type->size) return TUTTI_ECOUNT;
  *bytes = (size_t)count * type->size;
  return 0;
}

static int check_peer(const struct tutti_rank *r, int peer, bool any_ok) {
  if (peer == TUTTI_PROC_NULL) return 0;
  if (any_ok && peer == TUTTI_ANY_SOURCE) return r->world->modeled ? TUTTI_EMODEL : 0;
  if (peer < 0 || peer >= r->size) return TUTTI_ERANK;
  return 0;
}

static int check_tag(const struct tutti_rank *r, int tag, bool any_ok) {
  if (any_ok && tag == TUTTI_ANY_TAG) return r->world->modeled ? TUTTI_EMODEL : 0;
  if (tag < 0) return TUTTI_ETAG; /* TUTTI_TAG_MAX is INT32_MAX: any int >= 0 fits */
  return 0;
}

/* One message's arguments, in the order the errors are reported; a receive
 * accepts the wildcards. */
static int check_msg(const struct tutti_rank *r, const void *buf, long count, tutti_datatype_t type,
                     int peer, int tag, bool recv, size_t *bytes) {
  int rc;
  if ((rc = check_buf(buf, count, type, bytes)) || (rc = check_peer(r, peer, recv)) ||
      (rc = check_tag(r, tag, recv)))
    return rc;
  return 0;
}

/* ------------------------------------------------------------ public calls */

int tutti_rank(const tutti_rank_t *r) {
  return r ? r->rank : TUTTI_EINVAL;
}
int tutti_size(const tutti_rank_t *r) {
  return r ? r->size : TUTTI_EINVAL;
}
tutti_world_t *tutti_rank_world(const tutti_rank_t *r) {
  return r ? r->world : NULL;
}

int tutti_coll_tag(tutti_rank_t *r) {
  if (!r) return TUTTI_EINVAL;
  const uint32_t span = (uint32_t)TUTTI_TAG_MAX - TUTTI_TAG_UB; /* reserved tags */
  return TUTTI_TAG_UB + 1 + (int)(r->coll_seq++ % span);
}

const tutti_model_t *tutti_rank_model(const tutti_rank_t *r) {
  return &r->world->model;
}

int tutti_status_count(const tutti_status_t *st, tutti_datatype_t type, long *count) {
  if (!st || !count) return TUTTI_EINVAL;
  if (!tutti__type_ok(type)) return TUTTI_ETYPE;
  *count = st->bytes % type->size ? TUTTI_UNDEFINED : (long)(st->bytes / type->size);
  return 0;
}

/* A request that is complete from the start (PROC_NULL peers). */
static int null_request(struct tutti_rank *r, int kind, tutti_request_t *req) {
  struct tutti_request *q = req_alloc(r, kind);
  if (!q) return TUTTI_ENOMEM;
  q->st.source = TUTTI_PROC_NULL;
  q->st.tag = TUTTI_ANY_TAG;
  q->done = 1;
  *req = q;
  return 0;
}

/* Post a checked send. A blocking eager send in a run that neither records
 * nor paces has nothing to wait for and nothing to note: it goes without a
 * request (*req = TUTTI_REQUEST_NULL). */
static int post_send(struct tutti_rank *r, const void *buf, size_t bytes, int dest, int tag,
                     bool blocking, tutti_request_t *req) {
  struct tutti_world *w = r->world;
  struct tutti_rank *d = w->ranks[dest];
  struct chan *o = chan_get(r, dest, true);
  struct tutti_request *q = NULL;
  struct msg *m, *box = NULL;
  uint32_t ev = 0;
  bool eager = bytes < w->eager_limit;
  int rc;
  if (!o) return TUTTI_ENOMEM;
  /* The box's line is the receiver's (it emptied it): ask for it in
   * exclusive state now, one transfer, not a read and then an upgrade. */
  if (o->box && eager) prefetch_for_write(o->box);
  if (!blocking || w->record || w->wallclock || !eager) {
    if (!(q = req_alloc(r, REQ_SEND))) return TUTTI_ENOMEM;
    q->dest = dest, q->stag = tag;
    if (w->record && (rc = record(r, TUTTI_EV_SEND, dest, tag, bytes, 0, &ev))) {
      req_free(r, q);
      return rc;
    }
    q->ev = w->record ? ev : UINT32_MAX;
  }
  if (eager) {
    if (dest != r->rank) box = box_claim(r, o, bytes);
    if (!(m = box ? box : pool_get(r, bytes))) {
      if (q) req_free(r, q);
      return TUTTI_ENOMEM;
    }
    m->kind = box ? MSG_BOX : MSG_EAGER;
    m->local = 0;
    if (bytes) memcpy(msg_data(m), buf, bytes);
    if (q) q->done = 1;
    r->n_eager++;
    if (w->record) r->log.ev[ev].flags |= TUTTI_EVF_EAGER;
  } else {
    m = &q->rts;
    m->kind = MSG_RTS;
    m->local = 0;
    q->sbuf = buf;
    r->n_rdv++;
  }
  if (w->wallclock) { /* q exists: a paced run always has one */
    m->vdepart = r->vclock;
    if (eager) q->vdone = r->vclock + cost(&w->model.send_cpu, bytes);
  }
  uint32_t seq = o->seq = next_seq(o->seq);
  m->src = r->rank;
  m->tag = tag;
  m->bytes = bytes;
  m->send_ev = ev;
  r->n_msgs++;
  r->n_bytes += bytes;
  PERTURB(r);
  if (box) {
    __atomic_store_n(&box->seq, seq, __ATOMIC_RELEASE);
  } else {
    if (eager && dest != r->rank && !o->box && ++o->nsent == BOX_AFTER) box_offer(r, d, o, seq);
    m->seq = seq;
    cds_wfcq_node_init(&m->qnode);
    tsan_release(m);
    cds_wfcq_enqueue(&d->inbox_head, &d->inbox_tail, &m->qnode);
  }
  publish_barrier(w);
  wake(r, d);
  *req = q;
  return 0;
}

int tutti_isend(tutti_rank_t *r, const void *buf, long count, tutti_datatype_t type, int dest,
                int tag, tutti_request_t *req) {
  size_t bytes;
  int rc;
  if ((rc = check_rank(r)) || !req) return rc ? rc : TUTTI_EINVAL;
  if ((rc = check_msg(r, buf, count, type, dest, tag, false, &bytes))) return rc;
  if (dest == TUTTI_PROC_NULL) return null_request(r, REQ_SEND, req);
  return post_send(r, buf, bytes, dest, tag, false, req);
}

int tutti_irecv(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int source, int tag,
                tutti_request_t *req) {
  size_t bytes;
  int rc;
  if ((rc = check_rank(r)) || !req) return rc ? rc : TUTTI_EINVAL;
  if ((rc = check_msg(r, buf, count, type, source, tag, true, &bytes))) return rc;
  if (source == TUTTI_PROC_NULL) return null_request(r, REQ_RECV, req);
  struct tutti_request *q = req_alloc(r, REQ_RECV);
  if (!q) return TUTTI_ENOMEM;
  q->buf = buf, q->cap = bytes, q->src = source, q->tag = tag;
  q->post_seq = r->post_seq++;
  q->vpost = r->vclock;
  if (r->world->record) {
    uint32_t ev;
    /* ref stays UINT32_MAX until a send matches: an unmatched receive (the
     * run failed) then refers to nothing. */
    if ((rc = record(r, TUTTI_EV_RECV, source, tag, 0, UINT32_MAX, &ev))) {
      req_free(r, q);
      return rc;
    }
    q->ev = ev;
  }
  progress(r);
  if (!match_unexpected(r, q)) {
    if (source == TUTTI_ANY_SOURCE) {
      if (r->wq_tail)
        r->wq_tail->next = q;
      else
        r->wq_head = q;
      r->wq_tail = q;
    } else {
      struct chan *c = chan_get(r, source, true);
      if (!c) {
        req_free(r, q);
        return TUTTI_ENOMEM;
      }
      if (c->pq_tail)
        c->pq_tail->next = q;
      else
        c->pq_head = q;
      c->pq_tail = q;
    }
  }
  *req = q;
  return 0;
}

static int valid_request(struct tutti_rank *r, tutti_request_t q) {
  return q && q->owner == r && q->active;
}

/* Wait until q is done; the caller filled r->waiting. */
static int wait_done(struct tutti_rank *r, struct tutti_request *q) {
  struct tutti_world *w = r->world;
  for (;;) {
    progress(r);
    if (tutti__load_acq(&q->done)) break;
    if (aborted(w)) return w->fail_err == TUTTI_EDEADLOCK ? TUTTI_EDEADLOCK : TUTTI_EABORTED;
    int i;
    for (i = 0; i < w->spin; i++) {
      if (inbox_nonempty(r) || boxes_full(r) || tutti__load_acq(&q->done) || aborted(w)) break;
      /* Now and then give the core away: if the peer we wait for shares
       * it, spinning alone would only burn our time slice. */
      if ((i & 255) == 255)
        sched_yield();
      else
        caa_cpu_relax();
    }
    if (i == w->spin) block(r, &q->done);
  }
  tsan_acquire(q);
  return 0;
}

static void set_waiting(struct tutti_rank *r, const char *op, struct tutti_request *q) {
  r->waiting = (tutti_waitinfo_t){.blocked = 1,
                                  .op = op,
                                  .peer = q->kind == REQ_RECV ? q->src : q->dest,
                                  .tag = q->kind == REQ_RECV ? q->tag : q->stag};
}

/* Finish a completed request: record the WAIT, hand out the status. */
static int finish(struct tutti_rank *r, tutti_request_t *req, tutti_status_t *st) {
  struct tutti_request *q = *req;
  int rc = q->err;
  if (r->world->wallclock && !rc) pace(r, q->vdone);
  if (st) *st = q->st;
  if (q->ev != UINT32_MAX && r->world->record) {
    int e = record(r, TUTTI_EV_WAIT, -1, 0, 0, q->ev, NULL);
    if (e && !rc) rc = e;
  }
  req_free(r, q);
  *req = TUTTI_REQUEST_NULL;
  return rc;
}

static int wait_one(struct tutti_rank *r, tutti_request_t *req, tutti_status_t *st,
                    const char *op) {
  struct tutti_request *q = *req;
  if (!q) {
    if (st) *st = (tutti_status_t){.source = TUTTI_PROC_NULL, .tag = TUTTI_ANY_TAG};
    return 0;
  }
  if (!valid_request(r, q)) return TUTTI_EREQUEST;
  if (!tutti__load_acq(&q->done)) {
    set_waiting(r, op, q);
    int rc = wait_done(r, q);
    if (rc) { /* r->waiting stays: it is the deadlock report */
      /* The request stays owned by the rank (freed with it): a posted
       * receive may still be linked in a channel. */
      q->active = 0;
      *req = TUTTI_REQUEST_NULL;
      return rc;
    }
    r->waiting.blocked = 0;
  }
  return finish(r, req, st);
}

int tutti_wait(tutti_rank_t *r, tutti_request_t *req, tutti_status_t *st) {
  int rc;
  if ((rc = check_rank(r)) || !req) return rc ? rc : TUTTI_EINVAL;
  return wait_one(r, req, st, "wait");
}

int tutti_waitall(tutti_rank_t *r, int n, tutti_request_t reqs[], tutti_status_t sts[]) {
  int rc;
  if ((rc = check_rank(r))) return rc;
  if (n < 0 || (n > 0 && !reqs)) return TUTTI_EINVAL;
  for (int i = 0; i < n; i++)
    if (reqs[i] && !valid_request(r, reqs[i])) return TUTTI_EREQUEST;
  int first = 0;
  for (int i = 0; i < n; i++) {
    rc = wait_one(r, &reqs[i], sts ? &sts[i] : NULL, "waitall");
    if (rc && !first) first = rc;
  }
  return first;
}

int tutti_test(tutti_rank_t *r, tutti_request_t *req, int *flag, tutti_status_t *st) {
  int rc;
  if ((rc = check_rank(r)) || !req || !flag) return rc ? rc : TUTTI_EINVAL;
  if (*req && !valid_request(r, *req)) return TUTTI_EREQUEST;
  if (!*req) return wait_one(r, req, st, "test"), *flag = 1, 0;
  progress(r);
  if (!tutti__load_acq(&(*req)->done)) {
    *flag = 0;
    if (aborted(r->world)) return TUTTI_EABORTED;
    return 0;
  }
  tsan_acquire(*req);
  *flag = 1;
  return finish(r, req, st);
}

int tutti_send(tutti_rank_t *r, const void *buf, long count, tutti_datatype_t type, int dest,
               int tag) {
  size_t bytes;
  int rc;
  if ((rc = check_rank(r))) return rc;
  if ((rc = check_msg(r, buf, count, type, dest, tag, false, &bytes))) return rc;
  if (dest == TUTTI_PROC_NULL) return 0;
  tutti_request_t q;
  if ((rc = post_send(r, buf, bytes, dest, tag, true, &q))) return rc;
  return q ? wait_one(r, &q, NULL, "send") : 0;
}

int tutti_recv(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int source, int tag,
               tutti_status_t *st) {
  tutti_request_t q;
  int rc = tutti_irecv(r, buf, count, type, source, tag, &q);
  return rc ? rc : wait_one(r, &q, st, "recv");
}

int tutti_sendrecv(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype, int dest,
                   int stag, void *rbuf, long rcount, tutti_datatype_t rtype, int source, int rtag,
                   tutti_status_t *st) {
  tutti_request_t q[2];
  tutti_status_t s[2];
  size_t b;
  int rc;
  /* Check both halves before posting either, so a bad receive does not
   * leave a send behind. */
  if ((rc = check_rank(r))) return rc;
  if ((rc = check_msg(r, rbuf, rcount, rtype, source, rtag, true, &b))) return rc;
  if ((rc = tutti_isend(r, sbuf, scount, stype, dest, stag, &q[0]))) return rc;
  if ((rc = tutti_irecv(r, rbuf, rcount, rtype, source, rtag, &q[1]))) {
    wait_one(r, &q[0], NULL, "sendrecv");
    return rc;
  }
  int rc0 = wait_one(r, &q[0], &s[0], "sendrecv");
  int rc1 = wait_one(r, &q[1], &s[1], "sendrecv");
  if (st) *st = s[1];
  return rc0 ? rc0 : rc1;
}

int tutti_compute(tutti_rank_t *r, double seconds) {
  int rc;
  if ((rc = check_rank(r))) return rc;
  if (!(seconds >= 0)) return TUTTI_EINVAL; /* also rejects NaN */
  if (r->world->wallclock) pace(r, r->vclock + seconds);
  if (!r->world->record) return 0;
  struct tutti_ev ev = {.kind = TUTTI_EV_COMPUTE, .peer = -1, .u.seconds = seconds};
  return tutti__evlog_push(&r->log, &ev) == UINT32_MAX ? TUTTI_ENOMEM : 0;
}

int tutti_reduce_local_r(tutti_rank_t *r, const void *in, void *inout, long count,
                         tutti_datatype_t type, tutti_op_t op) {
  int rc;
  if ((rc = check_rank(r))) return rc;
  if ((rc = tutti_reduce_local(in, inout, count, type, op))) return rc;
  if (r->world->wallclock)
    pace(r, r->vclock + r->world->model.gamma * (double)count * (double)type->size);
  if (!r->world->record) return 0;
  return record(r, TUTTI_EV_REDUCE, -1, 0, (uint64_t)count * type->size, 0, NULL);
}

int tutti_span_begin(tutti_rank_t *r, const char *name) {
  int rc;
  if ((rc = check_rank(r))) return rc;
  if (!name || r->in_span) return TUTTI_EINVAL;
  r->in_span = true;
  if (!r->world->record) return 0;
  struct tutti_ev ev = {.kind = TUTTI_EV_SPAN_BEGIN, .peer = -1, .u.name = name};
  return tutti__evlog_push(&r->log, &ev) == UINT32_MAX ? TUTTI_ENOMEM : 0;
}

int tutti_span_end(tutti_rank_t *r) {
  int rc;
  if ((rc = check_rank(r))) return rc;
  if (!r->in_span) return TUTTI_EINVAL;
  r->in_span = false;
  if (!r->world->record) return 0;
  return record(r, TUTTI_EV_SPAN_END, -1, 0, 0, 0, NULL);
}

/* ----------------------------------------------------- rank setup, teardown */

static void free_msg_list(struct msg *m) {
  while (m) {
    struct msg *next = m->next;
    if (m->kind == MSG_EAGER) free(m);
    m = next;
  }
}

/* Teardown has two phases over all ranks, because a rendezvous envelope in
 * one rank's lists lives in another rank's request storage: first every
 * rank drops the messages it holds, then every rank frees its storage.
 * Only when no rank thread runs. */
void tutti__rank_drop_messages(struct tutti_rank *r) {
  struct cds_wfcq_node *node;
  while ((node = __cds_wfcq_dequeue_blocking(&r->inbox_head, &r->inbox_tail))) {
    struct msg *m = caa_container_of(node, struct msg, qnode);
    if (node != r->seen && m->kind != MSG_RTS) free(m); /* seen: held or in a channel */
  }
  r->seen = NULL;
  free(r->held);
  r->held = NULL;
  for (uint32_t i = 0; i < r->chancap; i++)
    if (r->chans[i].peer >= 0) {
      free_msg_list(r->chans[i].uq_head);
      free(r->chans[i].box); /* no rank runs: its receiver holds it no more */
    }
  for (uint32_t i = 0; i < r->nret; i++) free(r->ret[i]);
  r->nret = 0;
  r->nboxes = 0; /* the boxes are their senders' */
  free(r->chans);
  r->chans = r->lastchan = NULL;
  r->chancap = r->nchans = 0;
  r->wq_head = r->wq_tail = NULL;
}

static void rank_free_storage(struct tutti_rank *r) {
  reclaim(r);
  for (int c = 0; c < POOL_CLASSES; c++) {
    struct pool_stack *ps = &r->pool[c];
    for (uint32_t i = 0; i < ps->n; i++) free(ps->slot[i]);
    free(ps->slot);
    *ps = (struct pool_stack){0};
  }
  while (r->reqchunks) {
    struct req_chunk *c = r->reqchunks;
    r->reqchunks = c->next;
    free(c);
  }
  r->freereqs = NULL;
}

/* Ready a rank for a new run (called by the world thread before start). */
void tutti__rank_reset(struct tutti_rank *r) {
  rank_free_storage(r); /* after tutti__rank_drop_messages on every rank */
  tutti__evlog_clear(&r->log);
  r->post_seq = r->arrival_seq = r->n_unexpected = 0;
  r->coll_seq = 0;
  r->vclock = 0;
  r->n_msgs = r->n_bytes = r->n_eager = r->n_rdv = r->n_sleeps = r->n_wakeups = 0;
  r->in_span = false;
  r->waiting = (tutti_waitinfo_t){0};
  r->err = 0;
  r->doorbell = 0;
  r->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)r->world->seed << 32) ^ (uint64_t)(r->rank + 1);
}

void tutti__rank_free(struct tutti_rank *r) {
  rank_free_storage(r); /* after tutti__rank_drop_messages on every rank */
  tutti__evlog_free(&r->log);
  cds_wfcq_destroy(&r->inbox_head, &r->inbox_tail);
  free(r);
}

/*
 * internal.h -- the runtime's private structures. Never included by
 * collectives/ (they see only include/tutti/).
 *
 * Synchronization table (who may touch what, concurrently with whom):
 *
 *   field of rank d                 written by            read by
 *   inbox (wfcqueue)                any sender: enqueue   d only: dequeue,
 *                                   (tail, last link)     links read in place
 *   doorbell                        d (-1 before sleep),  d, senders, aborter
 *                                   wakers: -1 -> 1 -> 0;
 *                                   an unstarted fiber's:
 *                                   -2 -> 0 by its first
 *                                   waker or its worker
 *   retbufs (lfstack)               receivers: push       d only: pop_all
 *   runq, queued (fibers)           wakers: 0 -> 1, push  d's worker: pop, 1 -> 0
 *   everything else                 d only                d; the world thread
 *                                                         after join; the
 *                                                         deadlock detector
 *                                                         while all are blocked
 *   rendezvous request `done`       the receiver (release) the sender (acquire)
 *   rendezvous request `rts_state`  the receiver or the   both (one CAS from
 *                                   failing sender        RTS_POSTED wins)
 *   a fastbox d sends by: seq       d fills (seq_cst      the receiver (acquire)
 *                                   xchg), the receiver
 *                                   empties (release)
 *     the offer state (arrival)     the receiver, once    d (acquire)
 *     header and payload            d, while seq is 0     the receiver, while
 *                                                         seq is not 0
 *
 *   In a world of fibers on one worker thread (tutti__one_thread) nothing
 *   runs at once: senders append to the inbox with plain stores, receivers
 *   put buffers straight into the sender's pool, and a fiber's doorbell
 *   needs no barrier.
 *
 *   world->live_blocked: one 64-bit word, live ranks in the high half and
 *   committed sleepers in the low half, so "all live ranks sleep" is one
 *   atomic read (see tutti__block in wait.c).
 */
#ifndef TUTTI_INTERNAL_H
#define TUTTI_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <urcu/lfstack.h>
#include <urcu/wfcqueue.h>

#include "budget.h"
#include "evlog.h"
#include "tutti/machine.h"
#include "tutti/model.h"
#include "tutti/report.h"
#include "tutti/topo.h"
#include "tutti/world.h"

#define TUTTI_CACHELINE 64
#define TUTTI_ALIGNED __attribute__((aligned(TUTTI_CACHELINE)))

/* What the budget charges for a fiber's stack, when its worker first
 * hands the stack out (fiber.c). Fiber stacks are reserved (MAP_NORESERVE)
 * and committed page by page as a rank touches them; a built-in
 * collective's call chain touches two pages, so the budget counts two,
 * where a rank thread's reservation is counted whole (its alternate
 * signal stack and glibc's thread block share it). A rank whose own code
 * goes deeper commits more than is charged (runtime/MODEL.md "Memory").
 * Charging the reservation would refuse a million fibers on a machine
 * whose memory holds them. */
#define TUTTI__FIBER_STACK_TOUCH ((size_t)8 << 10)

/* Bytes of tutti_rank_coll_room: the collectives' plans (collectives/plan.c)
 * and the children of a node of up to 10. */
#define TUTTI__COLL_ROOM 384

#if defined(__SANITIZE_THREAD__)
#define TUTTI_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TUTTI_TSAN 1
#endif
#endif
#ifdef TUTTI_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define tsan_acquire(p) __tsan_acquire((void *)(p))
#define tsan_release(p) __tsan_release((void *)(p))
#else
#define tsan_acquire(p) ((void)0)
#define tsan_release(p) ((void)0)
#endif

/* ------------------------------------------------------------ types, ops */

#define TUTTI_TYPE_MAGIC 0x74797065u /* "type" */
#define TUTTI_OP_MAGIC 0x6f70u

enum tutti_base { TB_BYTE, TB_INT32, TB_INT64, TB_FLOAT, TB_DOUBLE, TB_USER };

struct tutti_datatype {
  uint32_t magic;
  int base; /* enum tutti_base */
  size_t size;
  const char *name;
  char namebuf[48];
};

enum tutti_opkind {
  OP_SUM,
  OP_PROD,
  OP_MIN,
  OP_MAX,
  OP_BAND,
  OP_BOR,
  OP_BXOR,
  OP_LAND,
  OP_LOR,
  OP_MATMUL2,
  OP_USER
};

struct tutti_op {
  uint32_t magic;
  int kind;
  int commute;
  const char *name;
  tutti_user_fn *fn;
  void *ctx;
};

static inline int tutti__type_ok(tutti_datatype_t t) {
  return t && t->magic == TUTTI_TYPE_MAGIC && t->size > 0;
}
int tutti__op_ok(tutti_op_t op);
/* tutti_reduce_local's argument checks alone (a no-data run's reduce). */
int tutti__reduce_check(const void *in, const void *inout, long count, tutti_datatype_t type,
                        tutti_op_t op);

/* --------------------------------------------------------------- messages */

/* MSG_BOX: the message in a fastbox (fastbox.h). MSG_BOXOFFER: a fastbox
 * offered to the receiver (payload: its address). MSG_RETURNS: not a message
 * but a list of eager buffers a receiver hands back to their sender
 * (payload: bytes pointers). */
enum msg_kind { MSG_EAGER = 1, MSG_RTS, MSG_BOX, MSG_BOXOFFER, MSG_RETURNS };

/* An envelope in a receiver's inbox. Eager: allocated from the sender's
 * pool (cache-line aligned), payload inline, handed back to the sender after
 * the copy. RTS (rendezvous): the `rts` member of the sender's request,
 * which stays alive until the receiver sets its done flag.
 *
 * The header is 56 bytes so that an eager message of up to 8 bytes is one
 * cache line: the receiver then takes one line from the sender, and on the
 * fast path (the receive was posted) writes nothing into it. */
struct msg {
  union {
    struct cds_wfcq_node qnode; /* while in the inbox */
    struct cds_lfs_node fnode;  /* eager, on its way back: in the sender's retbufs */
  };
  struct msg *next; /* receiver-private: unexpected list */
  size_t bytes;
  double vdepart; /* TUTTI_WALLCLOCK: the sender's modeled clock at posting */
  int32_t src, tag;
  uint32_t send_ev; /* index of the SEND in the sender's log */
  uint32_t arrival; /* receiver-private, unexpected only: arrival stamp (mod 2^32);
                       in a fastbox, the offer's state */
  uint32_t seq;     /* the pair's sequence number; in a fastbox, 0 when empty */
  uint8_t kind;
  uint8_t sizeclass; /* eager: pool class, or POOL_NONE for malloc'd */
  uint8_t local;     /* a fastbox message copied into the receiver's own buffer */
};
#define MSG_HEADER 56
_Static_assert(sizeof(struct msg) <= MSG_HEADER, "an 8-byte eager message fits one line");

#define POOL_NONE 0xff
#define POOL_CLASSES 15 /* 64 B .. 1 MiB payloads pooled; larger are malloc'd */
#define POOL_MIN_SHIFT 6

/* ---------------------------------------------------------------- requests */

enum req_kind { REQ_SEND = 1, REQ_RECV };

struct tutti_request {
  struct tutti_rank *owner;
  uint8_t kind;
  uint8_t active;
  int done; /* set with release by whoever completes it */
  int err;
  uint32_t ev;         /* index of the post event in the owner's log, or UINT32_MAX */
  double vpost, vdone; /* TUTTI_WALLCLOCK: modeled post and completion times */
  /* recv */
  void *buf;
  size_t cap; /* bytes */
  int src, tag;
  uint64_t post_seq;
  struct tutti_request *next; /* posted list, or free list */
  tutti_status_t st;
  /* send */
  int dest, stag;
  const void *sbuf; /* rendezvous: the receiver copies from here */
  struct msg rts;   /* rendezvous envelope */
  int rts_state;    /* RTS_POSTED, RTS_COPYING (claimed by the receiver), RTS_CANCELLED */
};
/* A rendezvous send's buffer is read by the receiver's thread. When the
 * sender's call fails (tutti__cancel_sends), the sender cancels its pending
 * ones before its code can free those buffers: each is claimed once, by
 * the receiver (then the sender waits for its copy to end) or by the
 * sender (then the receiver's receive fails with TUTTI_EABORTED). */
enum { RTS_POSTED = 0, RTS_COPYING, RTS_CANCELLED };

/* A rank's requests: chunks that double from 4 to 64 requests (a rank of
 * a tree algorithm needs a few, and a first chunk of 64, 16 KiB, was most
 * of the memory and start-up time of worlds of 10^4-10^5 ranks). The
 * first chunk is the rank's own (req0); the rest are malloc'd. */
#define REQ_CHUNK_MIN 4
#define REQ_CHUNK_MAX 64
struct req_chunk {
  struct req_chunk *next;
  int n;
  struct tutti_request *reqs;
};

/* The large scratch blocks a fiber worker keeps for its ranks' next
 * requests (scratch.c). */
#define TUTTI__SCRATCH_KEEP 4

/* A rank's private state for one peer: created the first time it sends to
 * the peer, a message from it arrives or a receive names it, so memory
 * grows with the pairs that actually talk, never with P x P. The table
 * starts with CHAN_FIRST entries (chan.c). */
#define CHAN_FIRST 8
struct chan {
  int peer;
  /* from the peer */
  struct msg *uq_head, *uq_tail;           /* unexpected messages, in order */
  struct tutti_request *pq_head, *pq_tail; /* posted receives for the peer */
  int boxi1;                               /* 1 + index of its fastbox in boxes, or 0 */
  /* to the peer */
  uint32_t seq;    /* the last message's sequence number */
  uint32_t nsent;  /* eager messages sent while it had no fastbox */
  struct msg *box; /* the fastbox we fill (fastbox.h) */
};

/* A fastbox this rank receives from, and the next sequence number due. */
struct boxref {
  struct msg *box;
  int src;
  uint32_t expect;
};

/* ------------------------------------------------------------------ ranks */

struct tutti_rank {
  /* Shared: written by other threads. Each on its own cache line. */
  struct cds_wfcq_head inbox_head TUTTI_ALIGNED;
  struct cds_wfcq_tail inbox_tail TUTTI_ALIGNED;
  /* 0 awake, -1 sleeping or about to, 1 being woken, TUTTI__UNSTARTED a
   * fiber that has not run yet (fiber.c) */
  int32_t doorbell TUTTI_ALIGNED;
  struct __cds_lfs_stack retbufs TUTTI_ALIGNED;
  /* Fibers (fiber.c): the link in its worker's run queue, and 1 while it
   * is there (a waker that swaps 0 -> 1 pushes it). */
  struct cds_wfcq_node runq TUTTI_ALIGNED;
  int32_t queued;
  uint32_t switches; /* its worker's only: times it switched out (the canary's sampling) */

  /* Private to the rank thread (or fiber). */
  struct tutti_world *world TUTTI_ALIGNED;
  int rank, size;
  pthread_t thread;
  bool started;
  /* fibers: its saved context, its worker, whether its function has ended */
  void *fctx;
  struct tutti_worker *worker; /* set before the workers start; senders read it (same_worker) */
  bool fdone;
  int slot;                      /* the stack slot it runs on, -1 before it starts (fiber.c) */
  struct tutti_rank *next_woken; /* the link in its worker's `woken` (fiber.c) */
  void *san_fiber;               /* ThreadSanitizer's fiber, or AddressSanitizer's fake stack */

  struct chan *chans;    /* open-addressed table keyed by src */
  struct chan *lastchan; /* the one chan_get found last (into chans) */
  uint32_t nchans, chancap;
  struct cds_wfcq_node *seen; /* the inbox's last node, read in place (progress) */
  struct msg *held;           /* seen's eager buffer, copied out, not yet free */
  struct boxref boxes[16];    /* fastboxes accepted (BOX_MAX), polled while waiting */
  int nboxes;
  uint32_t nret;                           /* eager buffers copied out, to hand back */
  struct msg *ret[32];                     /* ... to their senders in one batch (RET_BATCH) */
  struct tutti_request *wq_head, *wq_tail; /* posted wildcard-source receives */
  uint64_t post_seq;
  uint32_t arrival_seq;
  uint32_t coll_seq;  /* collective calls made: tutti_coll_tag */
  bool coll_tags_all; /* tutti_coll_tag has handed out every reserved tag (p2p.c check_tag) */
  void *coll_cache;   /* the collectives' (tutti_rank_coll_cache), freed with the rank */
  const char *doing;  /* tutti_rank_doing: named by the rank's failure message */
  /* tutti_group_enter's view (group.c): grp NULL outside one */
  const int *grp;
  int grp_n, grp_me;
  uint32_t grp_seq; /* coll_seq at enter, back at leave */
  uint64_t n_unexpected;

  struct tutti_request *freereqs;
  struct req_chunk *reqchunks; /* every request it ever allocated */
  struct pool_stack {
    struct msg **slot;
    uint32_t n, cap, made; /* made: buffers allocated (pool_throttle) */
  } pool[POOL_CLASSES];    /* eager buffers by size class */

  struct tutti_evlog log;
  bool in_span;

  /* what the rank waits for (deadlock report) */
  tutti_waitinfo_t waiting;

  uint64_t rng;
  double vclock; /* TUTTI_WALLCLOCK: the rank's modeled clock, paced online */
  double vsport; /* TUTTI_WALLCLOCK: when its send port is free (rule 1's SP) */
  /* how far real time has taken vclock (wall since start / time_scale,
   * at most vclock): read by other threads (tutti_world_paced_clock, a
   * live view), so only touched atomically */
  double vreached;
  uint64_t n_msgs, n_bytes, n_eager, n_rdv, n_sleeps, n_wakeups;
  uint64_t n_posts; /* sends and receives posted this run (the fault hook counts them) */
  int err;          /* its rank function's return value */
  bool mem_refused; /* the memory budget refused it (its calls then return TUTTI_EMEMORY) */

  /* The first of each thing a rank grows, in the rank itself: its first
   * channel table, requests, event log and collectives' cache. A rank
   * that needs no more -- a tree's ranks of up to three children -- then
   * allocates nothing, so a world of 10^6 ranks takes no small allocation
   * a rank (4 KiB page faults, and free() trimming its arenas a madvise at
   * a time at the end). They are counted with the ranks' memory, not
   * charged again. */
  struct chan chan0[CHAN_FIRST] TUTTI_ALIGNED;
  struct req_chunk req0;
  struct tutti_request req0s[REQ_CHUNK_MIN] TUTTI_ALIGNED;
  struct tutti_ev ev0[EVLOG_LENT] TUTTI_ALIGNED;
  max_align_t coll0[TUTTI__COLL_ROOM / sizeof(max_align_t)] TUTTI_ALIGNED;
};

/* ------------------------------------------------------------------ world */

struct tutti_world {
  int nranks;
  void *coll_shared; /* tutti_rank_shared: made by the first call, freed with the world */
  void (*coll_shared_fini)(void *);
  size_t stack_size;
  /* the rank stacks, one region carved into guard page + stack slots, kept
   * across runs (world.c stacks_reserve); NULL: glibc's per-thread stacks;
   * stack_guard is 0 when fibers are too many for a guard page each */
  char *stacks;
  size_t stack_slot, stacks_len, stack_guard, stacks_pad; /* pad: a page below, if no guards */
  size_t stack_alt;     /* threads: the alternate signal stack above each stack in its slot */
  bool no_guards;       /* test hook TUTTI__NO_GUARDS */
  int depth_first_from; /* test hook TUTTI__DEPTH_FIRST; 0: fiber.c's */
  bool fibers;          /* ranks are fibers (fiber.c), not threads */
  int nworkers;         /* fibers: the worker threads */
  uint64_t stacks_used; /* fibers: the stack slots the last run's workers gave out (fiber.c) */
  uint32_t run_ahead; /* fibers: bytes of buffers of a size a rank makes before yielding (pool.h) */
  int *bind_cpus;     /* thread i runs on bind_cpus[i % nbind] (tutti_bind); NULL: unpinned */
  int nbind;
  bool own_cores; /* each rank thread pinned to a core no other rank shares */
  tutti_model_t model;
  bool record;  /* events are recorded (modeled run, or TUTTI_RECORD) */
  bool modeled; /* model != none: wildcards rejected */
  unsigned flags, seed;
  int spin;
  /* the config's rules, not copied (tutti_rank_rules) */
  const struct tutti_rules *rules;
  bool asym; /* senders skip the full barrier; a sleeper issues membarrier() */
  size_t eager_limit;
  bool wallclock;    /* TUTTI_WALLCLOCK */
  bool nodata;       /* TUTTI_NO_DATA: sizes travel, payloads do not */
  double time_scale; /* wall seconds per modeled second */
  double wall_start; /* CLOCK_MONOTONIC when the gate opened */

  struct tutti_rank **ranks;
  /* the ranks themselves, one zeroed mapping (rank_store_len bytes) */
  struct tutti_rank *rank_store;
  size_t rank_store_len;
  bool running;

  /* run state */
  tutti_rank_fn *fn;
  void *arg;
  int32_t gate TUTTI_ALIGNED;    /* futex: 0 closed, 1 open */
  bool start_failed;             /* a thread was refused: run nothing */
  int32_t aborted TUTTI_ALIGNED; /* 1 once the run must end */
  uint64_t live_blocked TUTTI_ALIGNED;
  int32_t failed TUTTI_ALIGNED; /* 0; 1 while the first failure is written; 2 (tutti__fail) */
  int fail_err;
  int fail_rank;
  char errtext[1024];
  double wall_time;

  struct tutti_replay *replay; /* replay.c: result of the last recorded run */
  /* the automatic max_events: event capacity the logs may still take,
   * shared by all ranks (evlog.h); its total is ev_budget_total */
  uint64_t ev_budget TUTTI_ALIGNED;
  uint64_t ev_budget_total;
  /* the memory budget (budget.h, tutti_config_t.max_memory): what the run
   * holds, by kind, against one limit */
  struct tutti__budget mem;

  /* Test-only (tutti__world_inject): rank fault_rank's fault_at-th posted
   * message (send or receive, counted from 1) fails with fault_err; the
   * thread of rank thread_refused is refused as if by the OS. */
  int fault_rank, thread_refused; /* -1: none */
  uint64_t fault_at;
  int fault_err;
};

/* Whether w's ranks are all fibers of one worker thread: then no two of
 * them run at once, and what one rank hands another needs no atomics. */
static inline bool tutti__one_thread(const struct tutti_world *w) {
  return w->fibers && w->nworkers == 1;
}

/* Whether a sender hands its message straight to the receiver's channel
 * (p2p.c post_send): one thread, and no recorded events or paced clocks,
 * whose arrival order the inbox keeps. */
static inline bool tutti__direct(const struct tutti_world *w) {
  return tutti__one_thread(w) && !w->record && !w->wallclock;
}

/* wfcqueue's enqueue of n at tail, for a queue no other thread touches
 * meanwhile (tutti__one_thread): plain stores, without the locked
 * exchange and without cds_wfcq_node_init's call. */
static inline void wfcq_append_alone(struct cds_wfcq_tail *tail, struct cds_wfcq_node *n) {
  n->next = NULL;
  struct cds_wfcq_node *last = tail->p;
  tail->p = n;
  last->next = n;
}

/* budget.c: the budget refused `bytes` of `kind` to rank (-1: the world):
 * the run fails with TUTTI_EMEMORY, the text naming the rank, what grew
 * and what the run holds, and (rank >= 0: during a run) is aborted.
 * Returns TUTTI_EMEMORY. */
int tutti__mem_refused(struct tutti_world *w, int rank, int kind, uint64_t bytes);

/* Charge `bytes` of `kind` to r's world; on refusal the run fails, naming
 * r and what grew (once: r->mem_refused), and this returns false. */
static inline bool tutti__rank_charge(struct tutti_rank *r, int kind, uint64_t bytes) {
  if (__builtin_expect(tutti__mem_charge(&r->world->mem, kind, bytes), 1)) return true;
  if (!r->mem_refused) {
    r->mem_refused = true;
    tutti__mem_refused(r->world, r->rank, kind, bytes);
  }
  return false;
}

#define LB_LIVE(v) ((uint32_t)((v) >> 32))
#define LB_BLOCKED(v) ((uint32_t)(v))
#define LB_ONE_LIVE ((uint64_t)1 << 32)

/* The most ranks a world may have (tutti_config_t.nranks, TUTTI_WORKERS). */
#define TUTTI__MAX_RANKS (1 << 20)

/* config.c: what a world is made of, its config's fields where set, else
 * the environment's, else the defaults; checked (tutti_config_check). */
struct tutti__settings {
  bool fibers;       /* the ranks run as fibers, not threads */
  bool perturb;      /* TUTTI_PERTURB is set (seed: its seed) */
  unsigned seed;     /* the config's, or TUTTI_PERTURB's */
  size_t stack_size; /* bytes per rank stack */
  int bind;          /* TUTTI_BIND_NONE, _CORES, or _DEFAULT: by threads and CPUs */
  int workers;       /* the config's or TUTTI_WORKERS; 0: by ranks and CPUs */
};
/* The CPUs this process may use (its affinity mask; else those online). */
int tutti__cpus(void);
/* 0, or a negative code with the reason in err (when err and errlen). */
int tutti__settings_of(const tutti_config_t *cfg, struct tutti__settings *s, char *err,
                       size_t errlen);

/* Dependencies run one way: world.c (the world and its run) calls rank.c
 * and wait.c; the message path (p2p.c, chan.c, fastbox.c and their inline
 * headers) calls wait.c; wait.c and rank.c call nothing above them. */

/* rank.c: a rank outside its thread, by the world's owner thread while no
 * rank thread runs. A teardown or reset first drops the messages of every
 * rank, then frees or resets each (a rendezvous envelope in one rank's
 * lists lives in another rank's request storage). */
/* r: zeroed storage, cache-line aligned (the world's rank array). */
void tutti__rank_init(struct tutti_rank *r, struct tutti_world *w, int rank);
void tutti__rank_drop_messages(struct tutti_rank *r);
void tutti__rank_reset(struct tutti_rank *r);
void tutti__rank_fini(struct tutti_rank *r);

/* wait.c: failure, waking, leaving */
void tutti__fail(struct tutti_world *w, int rank, int err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void tutti__abort_all(struct tutti_world *w);
void tutti__wake(struct tutti_rank *r);
void tutti__perturb(struct tutti_rank *r);
void tutti__rank_departs(struct tutti_rank *r);
bool tutti__membarrier_ready(void);

/* world.c: a rank's whole life on its thread or fiber, after the start:
 * its function, the failure it returns, its departure. */
void tutti__rank_body(struct tutti_rank *r);
/* pending.c: r's function has returned (or r has ended otherwise): its
 * requests still pending are made harmless -- sends cancelled (or their
 * copy waited for), receives taken out of the channels -- so that nothing
 * touches the memory they named again. Returns how many there were and,
 * when what, describes the first ("isend to rank 1, tag 5"). Owner only. */
int tutti__rank_pending(struct tutti_rank *r, char *what, size_t len);
/* The same count and description, changing nothing: a rank whose pending
 * requests are its failure claims it (tutti__fail) before cancelling them,
 * since a cancelled send fails its receiver, whose failure would otherwise
 * be taken for the cause. */
int tutti__rank_pending_count(const struct tutti_rank *r, char *what, size_t len);
/* p2p.c: cancel r's pending rendezvous sends (or wait for their copy). */
void tutti__cancel_sends(struct tutti_rank *r);
/* scratch.c: free the scratch blocks of a worker's kept array. */
void tutti__scratch_drop(void **kept);
/* fiber.c: the kept array of fiber rank r's worker (its thread only). */
void **tutti__fiber_kept(struct tutti_rank *r);

/* A rank handle the public calls accept: TUTTI_EINVAL for NULL or one of
 * no world (p2p.c, scratch.c). */
static inline int tutti__check_rank(const struct tutti_rank *r) {
  return !r || !r->world ? TUTTI_EINVAL : 0;
}

/* group.c: a peer as the rank's code names it, as a world rank. Outside a
 * group view, and for the negative PROC_NULL and ANY_SOURCE, itself; in
 * one, its member (an index outside the group: r->size, which the
 * caller's range check refuses). */
static inline int tutti__peer_world(const struct tutti_rank *r, int peer) {
  if (!r->grp || peer < 0) return peer;
  return peer < r->grp_n ? r->grp[peer] : r->size;
}
/* A status handed to the rank's code: its source as the view names it. */
void tutti__status_view(const struct tutti_rank *r, tutti_status_t *st);
/* fn on each of parts[0..n) (each `size` bytes, n <= TUTTI__WIDE_MAX):
 * part 0 on the calling thread, the others on threads of their own (a
 * part whose thread cannot be had, on the caller); returns when all are
 * done. For work whose cost is the kernel's or the hypervisor's per page
 * or per thread, which runs on whichever core asks (world.c, replay_prep.c). */
#define TUTTI__WIDE_MAX 16
void tutti__run_wide(void *(*fn)(void *), void *parts, size_t size, int n);
/* Pin thread i (rank i, or fiber worker i) through attr when the world
 * binds to cores (tutti_bind); else leave attr as it is. */
void tutti__bind_attr(const struct tutti_world *w, pthread_attr_t *attr, int i);

/* fiber.c: ranks as fibers. tutti__fibers_run runs the world's ranks on
 * its workers (the rank stacks reserved) and returns once all have ended;
 * the world's failure says why if they could not start. */
void tutti__fibers_run(struct tutti_world *w);
/* any thread: make r runnable; local: the caller runs on r's worker */
void tutti__fiber_ready(struct tutti_rank *r, bool local);
/* The doorbell of a fiber that has not run yet: the first message to it
 * (wake, wait.h) makes it runnable, else its worker starts it when it has
 * nothing else to run. */
#define TUTTI__UNSTARTED (-2)
void tutti__fiber_start_soon(struct tutti_rank *waker, struct tutti_rank *r);
void tutti__fiber_suspend(struct tutti_rank *r); /* r: to the worker, until made runnable */
void tutti__fiber_yield(struct tutti_rank *r);   /* r: runnable again, after every other */
/* r: runnable again after the ranks that run already, before those its
 * worker has not started (a sender waiting for its receivers to give
 * back its buffers: they are woken already) */
void tutti__fiber_yield_to_started(struct tutti_rank *r);
__attribute__((noreturn)) void tutti__fiber_exit(struct tutti_rank *r);
bool tutti__fiber_here(void);                          /* the caller is a fiber rank */
struct tutti_rank *tutti__fiber_current(void);         /* the fiber rank running here, or NULL */
void *tutti__fiber_canary(const struct tutti_rank *r); /* where r's stack canary lies */
/* A rank thread's way out of an overflow (world.c rank_main): its guard
 * page [lo, lo + len) and where fiber.c's SIGSEGV handler jumps when a
 * fault lands there. One handler serves fibers and threads. */
struct tutti__guard {
  sigjmp_buf jb;
  const char *lo;
  size_t len;
};
void tutti__guard_thread(struct tutti__guard *g); /* the calling thread's; NULL: none */
void tutti__segv_install(void);                   /* once per process */
/* r ran into its guard page, or over its canary (how): the run fails with
 * TUTTI_ESTACK naming r and its stack's size. */
void tutti__stack_overflowed(struct tutti_rank *r, size_t stack, const char *how);

/* Give the core away while waiting for another rank's short step -- unless
 * no rank shares it: then the peer runs elsewhere, and a yield would only
 * hand the core to another process for a time slice. */
static inline void tutti__relax(struct tutti_rank *r) {
  if (r->world->fibers)
    tutti__fiber_yield(r);
  else if (r->world->own_cores)
    caa_cpu_relax();
  else
    sched_yield();
}

/* world.c: test hooks, for tests/test_e2e_faults.c (not exported by
 * libtutti.so; tests link tutti_internal). Called by the world's owner
 * thread between runs; they last until changed.
 *   TUTTI__FAULT_MSG:   rank's k-th posted message (tutti_send, isend,
 *                       recv, irecv, or a half of sendrecv; PROC_NULL
 *                       peers and argument errors not counted) fails with
 *                       err before anything is sent or allocated, as if
 *                       the system had refused it;
 *   TUTTI__FAULT_EVLOG: rank's event log fails to grow past k events, as
 *                       if realloc had returned NULL (err unused);
 *   TUTTI__FAULT_THREAD: creating rank's thread fails with EAGAIN, as if
 *                       the OS had refused it (k, err unused);
 *   TUTTI__FAULT_BUDGET: the logs of all ranks together hold at most k
 *                       events, as the automatic max_events does with a
 *                       quarter of memory (a world created with max_events
 *                       0; rank and err unused);
 *   TUTTI__NO_GUARDS:   fiber stacks without guard pages, as past some
 *                       32000 fibers (before the first run; rank, k, err
 *                       unused);
 *   TUTTI__DEPTH_FIRST: a worker of k fibers or more runs them depth first
 *                       (fiber.c "Starting"; 0: the default; rank, err
 *                       unused).
 * rank -1 clears the fault of that kind. Returns 0 or TUTTI_EINVAL. */
enum tutti__fault {
  TUTTI__FAULT_MSG = 1,
  TUTTI__FAULT_EVLOG,
  TUTTI__FAULT_THREAD,
  TUTTI__FAULT_BUDGET,
  TUTTI__NO_GUARDS,
  TUTTI__DEPTH_FIRST
};
int tutti__world_inject(tutti_world_t *w, int kind, int rank, uint64_t k, int err);
/* Messages rank posted in the last run (what TUTTI__FAULT_MSG counts). */
uint64_t tutti__world_posts(const tutti_world_t *w, int rank);

static inline int tutti__load_acq(const int *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Clock c in seconds. */
static inline double tutti__clock_s(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CLOCK_MONOTONIC in seconds. */
static inline double tutti__now(void) {
  return tutti__clock_s(CLOCK_MONOTONIC);
}

/* The calling thread's CPU seconds. */
static inline double tutti__thread_cpu(void) {
  return tutti__clock_s(CLOCK_THREAD_CPUTIME_ID);
}

#endif

/*
 * wait.h -- the waker's side of the doorbell protocol and what a waiting
 * rank polls, inline for the message path; the sleeper's side, deadlock
 * detection and failure are in wait.c.
 *
 * Doorbell. A rank polls briefly (world->spin) and then sleeps on a futex
 * doorbell, as urcu's call_rcu does: doorbell = -1, full barrier, re-check,
 * FUTEX_WAIT (tutti__block). A waker publishes, full barrier, and if it
 * swaps -1 -> 1 it owns the wake-up: it takes the sleeper off the blocked
 * count, sets the doorbell to 0 and issues FUTEX_WAKE (wake). When every
 * rank has a core (world->asym), the barrier is asymmetric, as in urcu's
 * membarrier flavour: senders, who are many and in a hurry, issue none; the
 * rare sleeper issues membarrier(), which runs a full barrier on every
 * running thread of the process, so that either it sees the message or the
 * sender sees -1. A fiber rank follows the same protocol; only its sleep
 * and wake differ (it yields to its worker, the waker pushes it onto the
 * worker's run queue: fiber.c).
 */
#ifndef TUTTI_WAIT_H
#define TUTTI_WAIT_H

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* Whether ranks a and b are fibers of one worker: they never run at once,
 * and that thread sees its own writes in order, so no barrier is needed
 * between them, and a full one is the costliest instruction of a send. */
static inline bool same_worker(const struct tutti_rank *a, const struct tutti_rank *b) {
  return a->world->fibers && a->worker == b->worker;
}

/* The sender's half of the doorbell protocol, after publishing to d: a full
 * barrier, or only the compiler's when the sleeper pays (tutti__block) or
 * when d is a fiber of the sender's own worker. */
static inline void publish_barrier(const struct tutti_rank *r, const struct tutti_rank *d) {
  if (r->world->asym || same_worker(r, d))
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
  else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Called after publishing something rank d may be waiting for. The caller
 * has issued publish_barrier(), or a seq_cst store or RMW, after publishing.
 * The doorbell has three states: 0 awake, -1 asleep (or about to be), 1
 * being woken. The waker claims with -1 -> 1, takes the sleeper off the
 * blocked count, and only then lets it go (1 -> 0): were the sleeper
 * released first, it could block again and be counted twice before the
 * waker's decrement, and the count would report a deadlock that is not.
 * A fiber that has not run yet (TUTTI__UNSTARTED, on no count) is made
 * runnable by its first message, so that a rank with work starts before
 * ranks that would only wait (fiber.c "Starting").
 * waker: the rank that counts the wake-up, or NULL. */
static inline void wake(struct tutti_rank *waker, struct tutti_rank *d) {
  int32_t expect = -1, now = __atomic_load_n(&d->doorbell, __ATOMIC_SEQ_CST);
  if (now != -1) {
    if (now == TUTTI__UNSTARTED) tutti__fiber_start_soon(waker, d);
    return;
  }
  if (waker && tutti__one_thread(d->world)) {
    /* The waker's thread is the only one that runs, and the sleeper a
     * suspended fiber of it: the same steps, with plain loads and stores
     * (no locked instruction on the path every message takes). */
    struct tutti_world *w = d->world;
    __atomic_store_n(&w->live_blocked, __atomic_load_n(&w->live_blocked, __ATOMIC_RELAXED) - 1,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&d->doorbell, 0, __ATOMIC_RELAXED);
    tutti__fiber_ready(d, true);
    waker->n_wakeups++;
    return;
  }
  if (!__atomic_compare_exchange_n(&d->doorbell, &expect, 1, false, __ATOMIC_SEQ_CST,
                                   __ATOMIC_SEQ_CST))
    return;
  __atomic_fetch_sub(&d->world->live_blocked, 1, __ATOMIC_SEQ_CST);
  __atomic_store_n(&d->doorbell, 0, __ATOMIC_SEQ_CST);
  if (d->world->fibers) /* a queue push; a system call only if its worker idles */
    tutti__fiber_ready(d, waker && same_worker(waker, d));
  else
    syscall(SYS_futex, &d->doorbell, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
  if (waker) waker->n_wakeups++;
}

/* A fiber about to wait for rank `peer` (negative: any) starts it if it
 * has not started (fiber.c "Starting"): its worker would else start
 * ranks in order, each of which may only come to wait as well. */
static inline void start_awaited(struct tutti_rank *r, int peer) {
  struct tutti_world *w = r->world;
  if (w->fibers && peer >= 0 && peer < w->nranks &&
      __atomic_load_n(&w->ranks[peer]->doorbell, __ATOMIC_RELAXED) == TUTTI__UNSTARTED)
    tutti__fiber_start_soon(r, w->ranks[peer]);
}

static inline struct cds_wfcq_node *link_of(struct cds_wfcq_node *n) {
  return __atomic_load_n(&n->next, __ATOMIC_ACQUIRE); /* a plain load on x86 */
}

/* Something new in the inbox: a first node not yet read, or a successor of
 * the one read in place (r->seen, see progress_inbox in p2p.c). Only links
 * are polled, never the tail, which every sender writes. A message whose
 * enqueue has swapped the tail but not yet linked itself shows up a moment
 * later: the enqueuer links it before its full barrier and doorbell check,
 * so tutti__block cannot miss it. */
static inline bool inbox_nonempty(struct tutti_rank *r) {
  struct cds_wfcq_node *n = link_of(&r->inbox_head.node);
  return n && (n != r->seen || link_of(n));
}

/* Take the first node of the inbox off, knowing its successor `next`:
 * wfcqueue's dequeue then only moves the head, and never the tail, so no
 * call into liburcu is needed. A sender writes the head's link only into
 * an empty queue, and this one holds two nodes. */
static inline void inbox_pop(struct tutti_rank *r, struct cds_wfcq_node *next) {
  __atomic_store_n(&r->inbox_head.node.next, next, __ATOMIC_RELAXED);
}

/* Append n to d's inbox. A world of fibers on one worker thread runs all
 * its ranks on that thread, so nothing races for the queue: two plain
 * stores do wfcqueue's enqueue without its locked exchange. */
static inline void inbox_push(struct tutti_world *w, struct tutti_rank *d,
                              struct cds_wfcq_node *n) {
  if (tutti__one_thread(w)) {
    wfcq_append_alone(&d->inbox_tail, n);
  } else {
    cds_wfcq_node_init(n);
    cds_wfcq_enqueue(&d->inbox_head, &d->inbox_tail, n);
  }
}

static inline bool aborted(struct tutti_world *w) {
  return __atomic_load_n(&w->aborted, __ATOMIC_ACQUIRE) != 0;
}

/* Sleep until woken, unless something is already there: a message, a full
 * fastbox, *done (the flag the caller waits for; may be NULL) or an abort.
 * Out of line: the rank is about to sleep, or to pay a full barrier. */
void tutti__block(struct tutti_rank *r, const int *done);

/* Test-only scheduling noise (TUTTI_PERTURB) at the points where the order
 * of threads matters. */
#define PERTURB(r)                                                                                 \
  do {                                                                                             \
    if (__builtin_expect((r)->world->flags & TUTTI_PERTURB, 0)) tutti__perturb(r);                 \
  } while (0)

/* TUTTI_WALLCLOCK: advance the rank's modeled clock to v and hold the
 * thread until real time catches up. */
void tutti__pace(struct tutti_rank *r, double v);

static inline double cost(const tutti_cost_t *c, size_t m) {
  return tutti_cost_eval(c, (double)m);
}

#endif

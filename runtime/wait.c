/*
 * wait.c -- how a rank waits and how a run ends when waiting cannot: the
 * sleeper's side of the doorbell (wait.h has the waker's), exact deadlock
 * detection, the claim of a run's first failure and the abort that wakes
 * every rank; also the test-only scheduling noise and wall-clock pacing.
 *
 * Deadlock. world->live_blocked packs (live ranks, committed sleepers). A
 * rank counts itself only after its re-check failed (it is then certain to
 * sleep until woken), and a waker uncounts it when it claims the wake-up, so
 * the blocked half never exceeds the ranks truly asleep with no wake-up
 * coming. When it equals the live half, nobody can send anything again:
 * that is a deadlock, detected exactly, with no timeout.
 *
 * Failure: the first failure (a rank's error, tutti_abort, a deadlock, a
 * refused thread) is claimed once, with a text naming the rank; then every
 * rank is woken and every blocking call returns an error.
 */
#include <linux/membarrier.h>
#include <sched.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "fastbox.h"
#include "pool.h"
#include "wait.h"

/* ------------------------------------------------------------ the sleeper */

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

void tutti__wake(struct tutti_rank *d) {
  wake(NULL, d);
}

/* Sleep until the doorbell is 0 again (through the "being woken" state).
 * A fiber yields to its worker instead: its waker makes it runnable after
 * setting the doorbell to 0, and a stale wake-up finds it still nonzero. */
static void sleep_until_awake(struct tutti_rank *r) {
  int32_t v;
  while ((v = __atomic_load_n(&r->doorbell, __ATOMIC_SEQ_CST)) != 0)
    if (r->world->fibers)
      tutti__fiber_suspend(r);
    else
      syscall(SYS_futex, &r->doorbell, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
}

static void declare_deadlock(struct tutti_world *w);

void tutti__block(struct tutti_rank *r, const int *done) {
  struct tutti_world *w = r->world;
  flush_returns(r); /* a sender may be short of buffers while we sleep */
  start_awaited(r, r->waiting.blocked ? r->waiting.peer : -1);
  if (tutti__one_thread(w)) {
    /* Every sender is a fiber of our own thread and none runs until we
     * suspend: no barrier to pay. */
    __atomic_store_n(&r->doorbell, -1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
  } else {
    __atomic_store_n(&r->doorbell, -1, __ATOMIC_SEQ_CST);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  }
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
/* appends, never past the buffer (len stays below its size) */
#define ADD(...)                                                                                   \
  do {                                                                                             \
    if (len < sizeof buf) {                                                                        \
      int k_ = snprintf(buf + len, sizeof buf - len, __VA_ARGS__);                                 \
      len = k_ < 0 ? len : len + (size_t)k_ < sizeof buf ? len + (size_t)k_ : sizeof buf - 1;      \
    }                                                                                              \
  } while (0)
  ADD("deadlock:");
  for (int i = 0; i < w->nranks; i++) {
    const tutti_waitinfo_t *wi = &w->ranks[i]->waiting;
    if (!wi->blocked) continue;
    nblocked++;
    if (listed >= 16 || len >= sizeof buf - 200) continue;
    listed++;
    if (wi->peer == TUTTI_ANY_SOURCE)
      ADD(" rank %d waits in %s from any source", i, wi->op);
    else
      ADD(" rank %d waits in %s %s %d", i, wi->op, strcmp(wi->op, "recv") == 0 ? "from" : "with",
          wi->peer);
    if (wi->tag == TUTTI_ANY_TAG)
      ADD(" (any tag)");
    else
      ADD(" (tag %d)", wi->tag);
    const char *doing = w->ranks[i]->doing;
    if (doing) ADD(" in %.100s", doing);
    ADD(";");
  }
  if (listed < nblocked && len < sizeof buf - 40) ADD(" ... and %d more;", nblocked - listed);
#undef ADD
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

/* ----------------------------------------------------------------- failing */

/* failed: 0, then 1 while the first failure writes its code and text, then
 * 2. A later failure (an echo) returns only once they are written: the
 * abort it goes on to raise must carry them, since a rank that sees the
 * abort reads fail_err (two ranks failing at once raced here). */
void tutti__fail(struct tutti_world *w, int rank, int err, const char *fmt, ...) {
  int32_t expected = 0;
  if (!__atomic_compare_exchange_n(&w->failed, &expected, 1, false, __ATOMIC_SEQ_CST,
                                   __ATOMIC_SEQ_CST)) {
    while (__atomic_load_n(&w->failed, __ATOMIC_ACQUIRE) != 2) sched_yield(); /* a vsnprintf */
    return; /* the first failure is the cause; later ones are its echoes */
  }
  w->fail_err = err;
  w->fail_rank = rank;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(w->errtext, sizeof w->errtext, fmt, ap);
  va_end(ap);
  __atomic_store_n(&w->failed, 2, __ATOMIC_RELEASE);
}

void tutti__abort_all(struct tutti_world *w) {
  __atomic_store_n(&w->aborted, 1, __ATOMIC_SEQ_CST);
  for (int i = 0; i < w->nranks; i++) tutti__wake(w->ranks[i]);
}

/* --------------------------------------------------------------- perturbing */

static uint64_t rng_next(struct tutti_rank *r) {
  uint64_t x = r->rng; /* xorshift64 */
  x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  return r->rng = x;
}

/* Yields and sleeps of up to 50 us (PERTURB, wait.h). */
void tutti__perturb(struct tutti_rank *r) {
  uint64_t x = rng_next(r);
  if ((x & 7) == 0) tutti__relax(r);
  if ((x & 0x3f0) == 0) {
    struct timespec ts = {0, (long)(1000 + (x >> 20) % 50000)};
    nanosleep(&ts, NULL);
  }
}

/* ------------------------------------------------------- wall-clock pacing */

/* Sleeps in slices of at most 10 ms so that an abort is not kept waiting. */
void tutti__pace(struct tutti_rank *r, double v) {
  struct tutti_world *w = r->world;
  if (v > r->vclock) r->vclock = v;
  double target = w->wall_start + r->vclock * w->time_scale;
  for (;;) {
    double now = tutti__now(), left = target - now;
    if (left <= 0 || aborted(w)) break;
    /* a live view sees the clock advance with real time, never ahead of it */
    double at = (now - w->wall_start) / w->time_scale, was;
    __atomic_load(&r->vreached, &was, __ATOMIC_RELAXED);
    if (at > was) __atomic_store(&r->vreached, &at, __ATOMIC_RELAXED);
    if (left > 0.01) left = 0.01;
    struct timespec ts = {0, (long)(left * 1e9)};
    nanosleep(&ts, NULL);
  }
  __atomic_store(&r->vreached, &r->vclock, __ATOMIC_RELAXED);
}

/*
 * fiber.c -- ranks as fibers (tutti_config_t.ranks_as): each rank a
 * user-level context with its own small stack, run M:N on worker threads
 * (at most one per core; by default one per 1024 ranks: world.c
 * workers_of), as SimGrid SMPI, Adaptive MPI and MPC run MPI ranks.
 *
 * Why: a rank thread that must wait sleeps in the kernel, and waking it
 * costs a futex system call and a switch (tens of microseconds across
 * cores, microseconds on one), and the kernel stops at some
 * tens of thousands of threads (pid_max, max_map_count). A fiber that must
 * wait switches to its worker's scheduler instead (tens of nanoseconds),
 * and a waker pushes it onto that worker's run queue.
 *
 * What stays: the mailboxes, the doorbell protocol and the deadlock count
 * (wait.h, wait.c) are the same for both; only sleeping and waking differ
 * (sleep_until_awake in wait.c suspends, wake() in wait.h calls
 * tutti__fiber_ready). A fiber never migrates: the ranks are dealt to the
 * workers in contiguous blocks (neighbours in rank order, which the tree
 * algorithms pair most, share a worker and its cache) and each worker alone
 * resumes its fibers, so a fiber's context is never touched by two threads.
 *
 * What a worker runs next (next_to_run), first to last: a rank one of its
 * own ranks woke (depth first: the last woken first); one another worker
 * woke, or, breadth first, any rank made runnable (the run queue); one
 * that yielded for its eager buffers (depth first: the last first); one of
 * its ranks that has not started (depth first); one that yielded to every
 * other (depth first; breadth first it is back in the run queue). The run
 * queue is a wait-free concurrent queue (urcu's wfcqueue, as the inboxes):
 * wakers on any worker push, the worker alone pops; the other lists are
 * the worker's own. `queued` keeps a rank in one of them at most once.
 * With one worker, whose thread is the only one that runs, a waker pushes
 * with plain stores. A wake-up may be stale (the fiber saw its doorbell
 * cleared and went on before it was resumed); it then finds its doorbell
 * nonzero again and suspends, so stale runs are harmless.
 * A worker with nothing to run polls its queue briefly while another
 * worker runs (IDLE_POLLS), then sleeps on its `idle` futex: idle = 1,
 * full barrier, re-check the queue; a waker pushes (a full barrier) and
 * clears idle if set -- one of the two sees the other.
 *
 * Starting. A fiber gets its stack when it first runs and gives it back
 * when it ends: the next fiber its worker starts takes it (fiber_make), so
 * a run touches the stacks of the fibers alive at once. A worker of fewer
 * than DEPTH_FIRST_FROM ranks runs them breadth first: all are queued in
 * order at the start, and each runs in turn, so the ranks a message wakes
 * have their next messages waiting when they run (fewer switches and
 * sleeps). With more, holding every stack at once would cost gigabytes, so
 * its ranks run depth first: an unstarted fiber's doorbell is
 * TUTTI__UNSTARTED; its first message makes it runnable (wake, wait.h), a
 * rank about to wait for it starts it (tutti__block, tutti_test), and the
 * worker starts the rest in order only when it has nothing else; the last
 * woken runs first, so a rank runs on as soon as it has something to do.
 * A binomial broadcast then holds the stacks along one path of its tree,
 * some log2 P, where starting every fiber first holds all P. A yield that
 * waits for anything (a poll, a gate) goes after the unstarted ranks,
 * which may be what it waits for.
 *
 * Context switching is boost.context's make_fcontext/jump_fcontext (a few
 * instructions, no system call: Debian's libboost-context-dev) when the
 * build found it, else glibc's makecontext/swapcontext (a sigprocmask
 * system call per switch). Both sanitizers are told of every switch.
 *
 * Stacks come from the world's one region (world.c stacks_reserve): a
 * guard page below each while vm.max_map_count allows (a rank that runs
 * into it ends the run with TUTTI_ESTACK naming the rank, caught by a
 * SIGSEGV handler on an alternate stack), and always a canary below its
 * frames (canary_of), checked when the fiber ends and, without guard pages,
 * whenever it switches out; with them, every CANARY_EVERY-th time (a rank
 * that has written over it fails the same way, after the fact: without a
 * guard page an overflow may first have corrupted the stack below). The
 * canary is a line of its own, cold by the next switch when fibers are
 * many: checked at every switch it was a tenth of a 1024-fiber barrier,
 * where the guard page already stops the overflows that run down the
 * stack.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

#ifdef TUTTI_HAVE_FCONTEXT
/* boost/context/detail/fcontext.hpp, C linkage */
typedef void *fcontext_t;
typedef struct {
  fcontext_t fctx;
  void *data;
} transfer_t;
transfer_t jump_fcontext(fcontext_t const to, void *vp);
fcontext_t make_fcontext(void *sp, size_t size, void (*fn)(transfer_t));
#else
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__) /* gcc */
#define TUTTI_ASAN 1
#elif defined(__has_feature) /* clang */
#if __has_feature(address_sanitizer)
#define TUTTI_ASAN 1
#endif
#endif
#ifdef TUTTI_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef TUTTI_TSAN
#include <sanitizer/tsan_interface.h>
#endif

#define CANARY 0x7475747469737461ull /* "tuttista" */
#define CANARY_WORDS 8
#define CANARY_EVERY 64       /* with guard pages, switches between checks */
#define DEPTH_FIRST_FROM 8192 /* a worker's ranks, whose stacks take 64 MiB ("Starting") */

struct fifo {
  struct tutti_rank *first, *last; /* linked by next_woken */
};

struct tutti_worker {
  struct __cds_wfcq_head head TUTTI_ALIGNED; /* the run queue */
  struct cds_wfcq_tail tail TUTTI_ALIGNED;
  int32_t idle TUTTI_ALIGNED; /* futex: 1 while it sleeps for want of work */
  int32_t gone;               /* 1 once all its ranks have ended */

  /* private to the worker thread */
  struct tutti_world *world TUTTI_ALIGNED;
  struct tutti_worker *all; /* every worker of the run, nall of them */
  int nall;
  pthread_t thread;
  bool started;
  int first, n, live;           /* its ranks [first, first + n), those not ended */
  bool depth;                   /* its ranks run depth first ("Starting") */
  int next;                     /* ranks before first + next were started or queued */
  int fresh;                    /* stack slots first .. first + fresh - 1 have been used */
  int nfree;                    /* ... of which these are free again, the last freed first */
  int *free_slots;              /* room for n */
  struct tutti_rank *woken;     /* ranks its own ranks woke, the last woken first */
  struct tutti_rank *throttled; /* ranks that yielded for their buffers, the last first */
  struct fifo yielded;          /* ranks that yielded to every other (after) */
  struct tutti_rank *cur;
  void *scratch_kept[TUTTI__SCRATCH_KEEP]; /* blocks its ranks freed (scratch.c) */
  sigjmp_buf overflow;                     /* where the SIGSEGV handler returns to */
  stack_t altstack;
#ifdef TUTTI_HAVE_FCONTEXT
  fcontext_t sched; /* the scheduler, while a fiber runs */
#else
  ucontext_t sched;
#endif
#ifdef TUTTI_ASAN
  const void *sched_lo; /* the scheduler's stack, for ASan */
  size_t sched_size;
#endif
#ifdef TUTTI_TSAN
  void *tsan_sched;
#endif
};

static __thread struct tutti_worker *self; /* set on worker threads */

bool tutti__fiber_here(void) {
  return self != NULL;
}

struct tutti_rank *tutti__fiber_current(void) {
  return self ? self->cur : NULL;
}

/* A fiber's stack is the slot it was given when it started; a rank
 * thread's is the slot of its rank. */
static char *stack_lo(const struct tutti_rank *r) {
  const struct tutti_world *w = r->world;
  size_t slot = (size_t)(w->fibers ? r->slot : r->rank);
  return w->stacks + slot * w->stack_slot + w->stack_guard;
}

#define CANARY_BYTES (CANARY_WORDS * sizeof(uint64_t))

/* With a guard page the canary is the bottom of the fiber's own stack.
 * Without one (past some 32000 fibers) it is the top of the slot below
 * (world.c leaves a page below the first), which that slot's fiber touches
 * anyway: a canary in each fiber's own bottom page would touch one more
 * page per fiber, 4 GiB and seconds of page faults at 10^6 fibers. */
static uint64_t *canary_of(const struct tutti_rank *r) {
  char *lo = stack_lo(r);
  return (uint64_t *)(r->world->stack_guard ? lo : lo - CANARY_BYTES);
}

void *tutti__fiber_canary(const struct tutti_rank *r) {
  return canary_of(r);
}

static size_t stack_size(const struct tutti_world *w) {
  return w->stack_slot - w->stack_guard - (w->stack_guard ? 0 : CANARY_BYTES);
}

/* ------------------------------------------------------------ switching */

#ifdef TUTTI_ASAN
/* AddressSanitizer's view of a switch: before it, where we go; after it,
 * where we came from. `save` NULL: the fiber leaving ends for good. */
static inline void san_leave_to(void **save, const void *lo, size_t size) {
  __sanitizer_start_switch_fiber(save, lo, size);
}

static inline void san_arrived(void *save, const void **lo, size_t *size) {
  __sanitizer_finish_switch_fiber(save, lo, size);
}
#endif

#ifdef TUTTI_HAVE_FCONTEXT
static void fiber_entry(transfer_t t) {
  struct tutti_rank *r = t.data;
  r->worker->sched = t.fctx;
#else
static void fiber_entry(unsigned lo, unsigned hi) {
  struct tutti_rank *r = (struct tutti_rank *)(((uintptr_t)hi << 32) | lo);
#endif
#ifdef TUTTI_ASAN
  san_arrived(NULL, &r->worker->sched_lo, &r->worker->sched_size);
#endif
  tutti__rank_body(r);
  tutti__fiber_exit(r);
}

/* The worker runs r until it suspends or ends. */
static void resume(struct tutti_worker *k, struct tutti_rank *r) {
  k->cur = r;
#ifdef TUTTI_TSAN
  __tsan_switch_to_fiber(r->san_fiber, 0);
#endif
#ifdef TUTTI_ASAN
  void *fake = NULL;
  san_leave_to(&fake, stack_lo(r), stack_size(r->world));
#endif
#ifdef TUTTI_HAVE_FCONTEXT
  r->fctx = jump_fcontext(r->fctx, r).fctx;
#else
  swapcontext(&k->sched, r->fctx);
#endif
#ifdef TUTTI_ASAN
  san_arrived(fake, NULL, NULL);
#endif
  k->cur = NULL;
}

/* From the fiber r to its worker's scheduler; back when resumed. */
static void to_scheduler(struct tutti_rank *r, bool for_good) {
  struct tutti_worker *k = r->worker;
#ifdef TUTTI_TSAN
  __tsan_switch_to_fiber(k->tsan_sched, 0);
#endif
#ifdef TUTTI_ASAN
  san_leave_to(for_good ? NULL : &r->san_fiber, k->sched_lo, k->sched_size);
#endif
#ifdef TUTTI_HAVE_FCONTEXT
  k->sched = jump_fcontext(k->sched, NULL).fctx;
#else
  swapcontext(r->fctx, &k->sched);
#endif
#ifdef TUTTI_ASAN
  san_arrived(r->san_fiber, &k->sched_lo, &k->sched_size);
#endif
  (void)for_good;
}

void tutti__fiber_suspend(struct tutti_rank *r) {
  to_scheduler(r, false);
}

void tutti__fiber_exit(struct tutti_rank *r) {
  r->fdone = true;
  to_scheduler(r, true);
  abort(); /* never resumed */
}

/* ---------------------------------------------------------------- waking */

static void futex(int32_t *addr, int op, int32_t val) {
  syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

/* Whether r was queued already; else it is now, in neither list yet. */
static bool claim(struct tutti_rank *r, bool alone) {
  if (!alone) return __atomic_exchange_n(&r->queued, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&r->queued, __ATOMIC_RELAXED)) return true;
  __atomic_store_n(&r->queued, 1, __ATOMIC_RELAXED);
  return false;
}

/* r onto its worker's run queue, from k's own thread (local) or any. */
static void push_queue(struct tutti_worker *k, struct tutti_rank *r, bool local) {
  if (local && tutti__one_thread(r->world)) {
    wfcq_append_alone(&k->tail, &r->runq);
    return;
  }
  cds_wfcq_node_init(&r->runq);
  cds_wfcq_enqueue(&k->head, &k->tail, &r->runq);
}

void tutti__fiber_ready(struct tutti_rank *r, bool local) {
  struct tutti_worker *k = r->worker;
  if (claim(r, local && tutti__one_thread(r->world))) return; /* already queued */
  if (local && k->depth) { /* the caller runs on k, which alone touches `woken` */
    r->next_woken = k->woken;
    k->woken = r;
    return;
  }
  push_queue(k, r, local);
  if (local) return;                       /* the caller runs on k: k is not idle */
  __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the push, before reading idle */
  if (__atomic_load_n(&k->idle, __ATOMIC_SEQ_CST) == 1 &&
      __atomic_exchange_n(&k->idle, 0, __ATOMIC_SEQ_CST) == 1)
    futex(&k->idle, FUTEX_WAKE_PRIVATE, 1);
}

void tutti__fiber_start_soon(struct tutti_rank *waker, struct tutti_rank *r) {
  int32_t unstarted = TUTTI__UNSTARTED; /* else its worker started it, or another waker queued it */
  if (__atomic_compare_exchange_n(&r->doorbell, &unstarted, 0, false, __ATOMIC_SEQ_CST,
                                  __ATOMIC_SEQ_CST))
    tutti__fiber_ready(r, waker && waker->world->fibers && waker->worker == r->worker);
}

static void fifo_push(struct fifo *f, struct tutti_rank *r) {
  r->next_woken = NULL;
  *(f->first ? &f->last->next_woken : &f->first) = r;
  f->last = r;
}

static struct tutti_rank *fifo_pop(struct fifo *f) {
  struct tutti_rank *r = f->first;
  if (r) f->first = r->next_woken;
  return r;
}

void tutti__fiber_yield(struct tutti_rank *r) {
  struct tutti_worker *k = r->worker;
  if (!claim(r, tutti__one_thread(r->world))) {
    if (k->depth)
      fifo_push(&k->yielded, r);
    else
      push_queue(k, r, true);
  }
  tutti__fiber_suspend(r);
}

void tutti__fiber_yield_to_started(struct tutti_rank *r) {
  struct tutti_worker *k = r->worker;
  if (!claim(r, tutti__one_thread(r->world))) {
    if (k->depth)
      r->next_woken = k->throttled, k->throttled = r;
    else
      push_queue(k, r, true);
  }
  tutti__fiber_suspend(r);
}

/* Polls of an empty run queue before sleeping, while another worker
 * runs: what it runs mostly wakes a rank of ours within microseconds (a
 * barrier's, a reduction's partner), and a sleeping worker costs that
 * waker a futex call and itself a wake-up across cores. Not
 * longer: on a shared machine a poll takes the core from someone. */
#define IDLE_POLLS 256

static bool others_awake(const struct tutti_worker *k) {
  for (int j = 0; j < k->nall; j++) {
    const struct tutti_worker *o = &k->all[j];
    if (o != k && !__atomic_load_n(&o->idle, __ATOMIC_RELAXED) &&
        !__atomic_load_n(&o->gone, __ATOMIC_RELAXED))
      return true;
  }
  return false;
}

/* Sleep until a waker clears idle, unless the queue has something. */
static void idle_wait(struct tutti_worker *k) {
  if (others_awake(k))
    for (int i = 0; i < IDLE_POLLS; i++) {
      if (!cds_wfcq_empty(&k->head, &k->tail)) return;
      caa_cpu_relax();
    }
  __atomic_store_n(&k->idle, 1, __ATOMIC_SEQ_CST);
  if (!cds_wfcq_empty(&k->head, &k->tail)) {
    __atomic_store_n(&k->idle, 0, __ATOMIC_SEQ_CST);
    return;
  }
  while (__atomic_load_n(&k->idle, __ATOMIC_SEQ_CST) == 1) futex(&k->idle, FUTEX_WAIT_PRIVATE, 1);
}

/* ------------------------------------------------------------- overflow */

/* Fibers and rank threads alike (world.c rank_main): r's stack, `stack`
 * bytes from stack_lo(r) (a thread's slot has the same layout below its
 * alternate signal stack), is lost. */
void tutti__stack_overflowed(struct tutti_rank *r, size_t stack, const char *how) {
  struct tutti_world *w = r->world;
  tutti__fail(w, r->rank, TUTTI_ESTACK,
              "rank %d overflowed its stack of %zu KiB (%s; give ranks more: tutti --stack "
              "SIZE, TUTTI_STACK or tutti_config_t.stack_size)",
              r->rank, stack >> 10, how);
  tutti__abort_all(w);
#ifdef TUTTI_ASAN
  /* Its frames never return to clear their redzones' shadow, which the
   * next run's frames on this stack would meet as "overflows". */
  __asan_unpoison_memory_region(stack_lo(r), stack);
#endif
}

static void overflowed(struct tutti_worker *k, struct tutti_rank *r, const char *how) {
  tutti__stack_overflowed(r, stack_size(k->world), how);
  r->fdone = true; /* its stack is lost: it is never resumed */
}

static bool canary_intact(const struct tutti_rank *r) {
  const uint64_t *c = canary_of(r);
  for (int i = 0; i < CANARY_WORDS; i++)
    if (c[i] != CANARY) return false;
  return true;
}

static struct sigaction old_segv;
static __thread struct tutti__guard *thread_guard; /* set on rank threads (world.c) */

void tutti__guard_thread(struct tutti__guard *g) {
  thread_guard = g;
}

/* A fault in the guard page of the fiber that runs: back to its worker's
 * scheduler; in a rank thread's: back to the thread's start (world.c
 * rank_main). siglongjmp restores the signal mask. Any other fault is not
 * ours: the handler before ours gets it when the access is retried. */
static void on_segv(int sig, siginfo_t *si, void *uc) {
  struct tutti_worker *k = self;
  char *a = si->si_addr;
  if (k && k->cur && k->world->stack_guard) {
    char *lo = stack_lo(k->cur);
    if (a < lo && a >= lo - k->world->stack_guard) siglongjmp(k->overflow, 1);
  }
  struct tutti__guard *g = thread_guard;
  if (!k && g && a >= g->lo && a < g->lo + g->len) siglongjmp(g->jb, 1);
  (void)sig, (void)uc;
  sigaction(SIGSEGV, &old_segv, NULL);
}

static void install_segv(void) {
  struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_ONSTACK};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &old_segv);
}

static pthread_once_t segv_once = PTHREAD_ONCE_INIT;

void tutti__segv_install(void) {
  pthread_once(&segv_once, install_segv);
}

/* --------------------------------------------------------------- workers */

/* r's stack, as it starts: the slot its worker's last ended fiber left,
 * else a slot of the worker's range not used yet, charged to the budget
 * then (a refusal fails the run; r runs on, to see it aborted). */
static void fiber_make(struct tutti_worker *k, struct tutti_rank *r) {
  struct tutti_world *w = k->world;
  if (k->nfree) {
    r->slot = k->free_slots[--k->nfree];
  } else {
    r->slot = k->first + k->fresh++;
    uint64_t touch =
        w->stack_size < TUTTI__FIBER_STACK_TOUCH ? w->stack_size : TUTTI__FIBER_STACK_TOUCH;
    if (!tutti__mem_charge(&w->mem, TUTTI__MEM_STACKS, touch) &&
        !__atomic_load_n(&w->aborted, __ATOMIC_RELAXED))
      tutti__mem_refused(w, r->rank, TUTTI__MEM_STACKS, touch);
  }
#ifdef TUTTI_ASAN
  /* the frames its last fiber left on it when it ended never returned */
  __asan_unpoison_memory_region(stack_lo(r), stack_size(w));
#endif
  uint64_t *c = canary_of(r);
  for (int i = 0; i < CANARY_WORDS; i++) c[i] = CANARY;
#ifdef TUTTI_HAVE_FCONTEXT
  r->fctx = make_fcontext(stack_lo(r) + stack_size(w), stack_size(w), fiber_entry);
#else
  ucontext_t *uc = r->fctx;
  getcontext(uc);
  uc->uc_stack.ss_sp = stack_lo(r);
  uc->uc_stack.ss_size = stack_size(w);
  uc->uc_link = NULL;
  uintptr_t p = (uintptr_t)r;
  makecontext(uc, (void (*)(void))fiber_entry, 2, (unsigned)p, (unsigned)(p >> 32));
#endif
#ifdef TUTTI_TSAN
  r->san_fiber = __tsan_create_fiber(0);
#else
  r->san_fiber = NULL;
#endif
}

/* The next of k's ranks that nothing has started or queued yet, started
 * by k now; NULL when there is none. */
static struct tutti_rank *next_unstarted(struct tutti_worker *k) {
  while (k->next < k->n) {
    struct tutti_rank *r = k->world->ranks[k->first + k->next++];
    int32_t unstarted = TUTTI__UNSTARTED;
    if (__atomic_compare_exchange_n(&r->doorbell, &unstarted, 0, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
      return r;
  }
  return NULL;
}

/* What k runs next: a rank its ranks woke, the last first; one other
 * workers woke; one that yielded for its buffers; one not started yet;
 * one that yielded to all. NULL: none. */
static struct tutti_rank *next_to_run(struct tutti_worker *k) {
  for (;;) {
    struct cds_wfcq_node *n;
    struct tutti_rank *r = NULL;
    if ((r = k->woken))
      k->woken = r->next_woken;
    else if ((n = __cds_wfcq_dequeue_blocking(&k->head, &k->tail)))
      r = caa_container_of(n, struct tutti_rank, runq);
    else if ((r = k->throttled))
      k->throttled = r->next_woken;
    else if ((r = next_unstarted(k)))
      return r;
    else if (!(r = fifo_pop(&k->yielded)))
      return NULL;
    __atomic_store_n(&r->queued, 0, __ATOMIC_SEQ_CST); /* a wake-up from now on queues it again */
    if (!r->fdone) return r;                           /* else a stale wake-up of an ended rank */
  }
}

void **tutti__fiber_kept(struct tutti_rank *r) {
  return r->worker->scratch_kept;
}

static void *worker_main(void *arg) {
  struct tutti_worker *k = arg;
  struct tutti_world *w = k->world;
  while (__atomic_load_n(&w->gate, __ATOMIC_ACQUIRE) == 0) futex(&w->gate, FUTEX_WAIT_PRIVATE, 0);
  if (w->start_failed) return NULL;
  self = k;
  k->altstack.ss_size = 64 << 10;
  k->altstack.ss_sp = malloc(k->altstack.ss_size);
  if (k->altstack.ss_sp) sigaltstack(&k->altstack, NULL);
#ifdef TUTTI_TSAN
  k->tsan_sched = __tsan_get_current_fiber();
#endif
  k->live = k->n;
  k->free_slots = malloc((size_t)k->n * sizeof *k->free_slots); /* NULL: no slot is reused */
  if (sigsetjmp(k->overflow, 1)) { /* on_segv: k->cur ran into its guard page */
#ifdef TUTTI_TSAN
    __tsan_switch_to_fiber(k->tsan_sched, 0);
#endif
    struct tutti_rank *r = k->cur;
    k->cur = NULL;
    overflowed(k, r, "it ran into the guard page below");
    k->live--;
  }
  while (k->live > 0) {
    struct tutti_rank *r = next_to_run(k);
    if (!r) {
      idle_wait(k);
      continue;
    }
    if (r->slot < 0) fiber_make(k, r);
    resume(k, r);
    bool due = r->fdone || !w->stack_guard || ++r->switches % CANARY_EVERY == 0;
    bool bad = due && !canary_intact(r);
    if (bad) overflowed(k, r, "its canary at the bottom was overwritten");
    if (!r->fdone) continue;
    k->live--;
#ifdef TUTTI_TSAN
    __tsan_destroy_fiber(r->san_fiber); /* ThreadSanitizer counts its fibers as threads */
    r->san_fiber = NULL;
#endif
    if (!bad && k->free_slots) k->free_slots[k->nfree++] = r->slot; /* a lost stack is not reused */
  }
  __atomic_store_n(&k->gone, 1, __ATOMIC_RELAXED);
  tutti__scratch_drop(k->scratch_kept);
#ifdef TUTTI_TSAN
  for (int i = k->first; i < k->first + k->n; i++)
    if (w->ranks[i]->san_fiber) __tsan_destroy_fiber(w->ranks[i]->san_fiber);
#endif
  __atomic_add_fetch(&w->stacks_used, (uint64_t)k->fresh, __ATOMIC_RELAXED);
  free(k->free_slots);
  if (k->altstack.ss_sp) {
    stack_t off = {.ss_flags = SS_DISABLE};
    sigaltstack(&off, NULL);
    free(k->altstack.ss_sp);
  }
  self = NULL;
  return NULL;
}

void tutti__fibers_run(struct tutti_world *w) {
  int W = w->nworkers;
  struct tutti_worker *ks = NULL;
  if (!w->stacks || posix_memalign((void **)&ks, TUTTI_CACHELINE, (size_t)W * sizeof *ks)) {
    free(ks);
    tutti__fail(w, -1, TUTTI_ENOMEM,
                "could not reserve %d fiber stacks of %zu KiB (use fewer ranks or a smaller "
                "stack: tutti --stack SIZE, TUTTI_STACK)",
                w->nranks, w->stack_size >> 10);
    return;
  }
#ifndef TUTTI_HAVE_FCONTEXT
  ucontext_t *ucs = calloc((size_t)w->nranks, sizeof *ucs);
  if (!ucs) {
    free(ks);
    tutti__fail(w, -1, TUTTI_ENOMEM, "out of memory for %d fiber contexts", w->nranks);
    return;
  }
  for (int i = 0; i < w->nranks; i++) w->ranks[i]->fctx = &ucs[i];
#endif
  if (w->stack_guard) tutti__segv_install();
  memset(ks, 0, (size_t)W * sizeof *ks);
  w->stacks_used = 0;
  for (int j = 0; j < W; j++) {
    struct tutti_worker *k = &ks[j];
    __cds_wfcq_init(&k->head, &k->tail);
    k->world = w;
    k->all = ks, k->nall = W;
    k->first = (int)((int64_t)w->nranks * j / W);
    k->n = (int)((int64_t)w->nranks * (j + 1) / W) - k->first;
    /* here, before any worker runs: senders read a peer's worker
     * (same_worker, wait.h) while the other workers make their fibers */
    k->depth = k->n >= (w->depth_first_from ? w->depth_first_from : DEPTH_FIRST_FROM);
    k->next = k->depth ? 0 : k->n;
    for (int i = k->first; i < k->first + k->n; i++) {
      struct tutti_rank *r = w->ranks[i];
      r->worker = k;
      r->fdone = false, r->slot = -1, r->san_fiber = NULL;
      r->queued = !k->depth;
      r->doorbell = k->depth ? TUTTI__UNSTARTED : 0; /* depth: started by a message, or by k */
      if (!k->depth) push_queue(k, r, false);        /* every rank, in order */
    }
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, (size_t)1 << 20);
  for (int j = 0; j < W; j++) {
    tutti__bind_attr(w, &attr, j);
    int e = j == 0 && w->thread_refused >= 0
                ? EAGAIN
                : pthread_create(&ks[j].thread, &attr, worker_main, &ks[j]);
    if (e) {
      tutti__fail(w, -1, TUTTI_ETHREADS, "could not create fiber worker thread %d of %d: %s", j, W,
                  strerror(e));
      w->start_failed = true;
      break;
    }
    ks[j].started = true;
  }
  pthread_attr_destroy(&attr);
  w->wall_start = tutti__now();
  __atomic_store_n(&w->gate, 1, __ATOMIC_RELEASE);
  futex(&w->gate, FUTEX_WAKE_PRIVATE, INT_MAX);
  for (int j = 0; j < W; j++)
    if (ks[j].started) pthread_join(ks[j].thread, NULL);
  free(ks);
#ifndef TUTTI_HAVE_FCONTEXT
  free(ucs);
#endif
}

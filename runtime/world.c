/*
 * world.c -- a world of rank threads: creation, one run, failure handling.
 *
 * A run creates every rank thread behind a closed gate, so a refusal by the
 * OS half-way (EAGAIN: pid_max, threads-max, max_map_count) can still end
 * the run cleanly: no rank function has started, the gate opens on an
 * aborted world, every created thread returns at once and is joined.
 *
 * Failure: the first failure (a rank's error, tutti_abort, a deadlock, a
 * refused thread) is claimed once, with a text naming the rank; then every
 * rank is woken and every blocking call returns an error (tutti__fail and
 * tutti__abort_all, in wait.c, which the message path calls too).
 *
 * With fibers (config ranks_as) the ranks run on fiber.c's workers instead;
 * everything else here is the same for both. Which of the two a world gets
 * when neither its config nor TUTTI_RANKS_AS says is config.c's
 * tutti_ranks_as_choose (fibers), on tutti_workers_choose's workers for a
 * world that knows no sizes.
 *
 * What the config leaves to the environment (TUTTI_RANKS_AS, TUTTI_BIND,
 * TUTTI_WORKERS, TUTTI_STACK, TUTTI_PERTURB) is read and checked in
 * config.c, the same code as tutti_config_check.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "pool.h" /* run_ahead_of */
#include "replay.h"

#define NONE_EAGER_LIMIT ((size_t)64 << 10)

static __thread struct tutti_rank *current_rank; /* set on rank threads */

tutti_config_t tutti_config_default(int nranks) {
  return (tutti_config_t){.nranks = nranks, .spin = -1};
}

/* Whether to pin threads: the choice of the config or $TUTTI_BIND
 * (config.c), else pin when every thread has a CPU of its own -- and
 * there are two at least: a lone thread has no peer to share a core with,
 * and pinning it would put every one-thread world of concurrent programs
 * on the first CPU. */
static bool bind_cores(int bind, int threads, int ncpu) {
  if (bind != TUTTI_BIND_DEFAULT) return bind == TUTTI_BIND_CORES;
  return threads >= 2 && threads <= ncpu;
}

/* The fiber workers: the config's or $TUTTI_WORKERS (config.c), else
 * tutti_workers_choose's for a world that knows no sizes; at most one per
 * rank. */
static int workers_of(int nranks, int workers, long ncpu) {
  long n = workers ? workers : tutti_workers_choose(nranks, 0, (int)ncpu);
  return (int)(n > nranks ? nranks : n);
}

/* The automatic max_events (tutti_config_t): the logs of all ranks
 * together within a quarter of physical memory, so that a run that would
 * record too much fails with a message instead of meeting the OOM killer
 * (the replay needs about as much again, runtime/MODEL.md "Memory"). One
 * budget for all, not a share each: at 262144 ranks on 24 GiB a share
 * would be 1024 events, and a flat root records 2P. 0: memory unknown, no
 * budget. */
static uint64_t auto_event_budget(void) {
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || psize <= 0) return 0;
  return (uint64_t)pages * (uint64_t)psize / 4 / sizeof(struct tutti_ev);
}

/* Every log shares a budget of `total` events (0: none), less what the
 * logs already hold; between runs. */
static void set_event_budget(struct tutti_world *w, uint64_t total) {
  uint64_t held = 0;
  for (int i = 0; i < w->nranks; i++) held += w->ranks[i]->log.cap;
  w->ev_budget_total = total;
  w->ev_budget = total > held ? total - held : 0;
  for (int i = 0; i < w->nranks; i++) w->ranks[i]->log.budget = total ? &w->ev_budget : NULL;
}

int tutti_world_create(tutti_world_t **out, const tutti_config_t *cfg) {
  if (!out || !cfg) return TUTTI_EINVAL;
  *out = NULL;
  if (current_rank || tutti__fiber_here()) return TUTTI_EBUSY;
  /* the config and the environment, checked as tutti_config_check does */
  struct tutti__settings set;
  int rc = tutti__settings_of(cfg, &set, NULL, 0);
  if (rc) return rc;
  bool fibers = set.fibers;
  struct tutti_world *w = calloc(1, sizeof *w);
  if (!w) return TUTTI_ENOMEM;
  w->nranks = cfg->nranks;
  w->fault_rank = w->thread_refused = -1;
  w->fibers = fibers;
  w->stack_size = set.stack_size;
  if (cfg->model)
    w->model = *cfg->model;
  else
    w->model.preset = TUTTI_MODEL_NONE, w->model.eager_limit = NONE_EAGER_LIMIT;
  w->modeled = w->model.preset != TUTTI_MODEL_NONE;
  w->record = w->modeled || (cfg->flags & TUTTI_RECORD);
  w->eager_limit = w->model.eager_limit;
  w->flags = cfg->flags | (set.perturb ? TUTTI_PERTURB : 0);
  w->seed = set.seed;
  w->rules = cfg->rules;
  w->wallclock = (cfg->flags & TUTTI_WALLCLOCK) != 0;
  w->nodata = (cfg->flags & TUTTI_NO_DATA) != 0;
  w->time_scale = cfg->time_scale > 0 ? cfg->time_scale : 1.0;
  long ncpu = tutti__cpus();
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) != 0) CPU_ZERO(&cpus);
  w->nworkers = workers_of(w->nranks, set.workers, ncpu);
  w->run_ahead = run_ahead_of(w->nranks, w->nworkers);
  /* the CPUs we may use unknown: no binding */
  if (bind_cores(set.bind, fibers ? w->nworkers : w->nranks, (int)ncpu) && CPU_COUNT(&cpus) > 0) {
    w->bind_cpus = malloc((size_t)CPU_COUNT(&cpus) * sizeof *w->bind_cpus);
    if (!w->bind_cpus) goto nomem;
    for (int c = 0; c < CPU_SETSIZE; c++)
      if (CPU_ISSET(c, &cpus)) w->bind_cpus[w->nbind++] = c;
    w->own_cores = !fibers && w->nranks <= w->nbind;
  }
  /* Spin about as long as a sleep and wake-up would cost when each
   * rank has a core; when oversubscribed, the peer we wait for needs our
   * core, so sleep almost at once. A fiber yields at once: its peer may
   * be the next fiber of its worker, and a switch costs less than a poll. */
  w->spin = cfg->spin >= 0 ? cfg->spin : fibers ? 0 : (w->nranks <= ncpu ? 2000 : 16);
  /* Ranks that each have a core send often and sleep seldom: let the
   * sleeper pay for the barrier (see tutti__block in wait.c). */
  w->asym = !fibers && w->nranks <= ncpu && tutti__membarrier_ready();
  /* The ranks in one mapping, zeroed by the kernel: one call instead of an
   * allocation and a free a rank, and no allocator headers between them
   * (fewer pages to touch). Every rank is initialized right away, so all
   * of it is touched: in huge pages where the kernel allows them (advice,
   * mm/transparent_hugepage), a fault every 2 MiB, not every 4 KiB. */
  w->ranks = calloc((size_t)w->nranks, sizeof *w->ranks);
  if (!w->ranks) goto nomem;
  size_t len = (size_t)w->nranks * sizeof *w->rank_store;
  void *store = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (store == MAP_FAILED) goto nomem;
#ifdef MADV_HUGEPAGE
  if (len >= (size_t)4 << 20) madvise(store, len, MADV_HUGEPAGE); /* failure is harmless */
#endif
  w->rank_store = store, w->rank_store_len = len;
  for (int i = 0; i < w->nranks; i++) {
    w->ranks[i] = &w->rank_store[i];
    tutti__rank_init(w->ranks[i], w, i);
  }
  for (int i = 0; i < w->nranks; i++) w->ranks[i]->log.max = cfg->max_events;
  if (!cfg->max_events) set_event_budget(w, auto_event_budget());
  /* the memory budget: the ranks themselves first, charged whatever the
   * limit (a limit they pass fails the first run, with its text) */
  w->mem.by[TUTTI__MEM_RANKS] = w->mem.used = len + (size_t)w->nranks * sizeof *w->ranks;
  if (cfg->max_memory)
    w->mem.limit = cfg->max_memory, w->mem.source = "max_memory";
  else
    w->mem.limit = tutti__mem_default(&w->mem.source);
  for (int i = 0; i < w->nranks; i++) w->ranks[i]->log.mem = &w->mem;
  *out = w;
  return 0;
nomem:
  tutti_world_destroy(w);
  return TUTTI_ENOMEM;
}

void tutti_world_destroy(tutti_world_t *w) {
  if (!w) return;
  if (w->rank_store) {
    for (int i = 0; i < w->nranks; i++) tutti__rank_drop_messages(w->ranks[i]);
    for (int i = 0; i < w->nranks; i++) tutti__rank_fini(w->ranks[i]);
    munmap(w->rank_store, w->rank_store_len);
  }
  free(w->ranks);
  free(w->bind_cpus);
  if (w->stacks) munmap(w->stacks - w->stacks_pad, w->stacks_len);
  tutti__replay_free(w->replay);
  if (w->coll_shared && w->coll_shared_fini) w->coll_shared_fini(w->coll_shared);
  free(w->coll_shared);
  free(w);
}

int tutti_world_workers(const tutti_world_t *w) {
  return !w ? TUTTI_EINVAL : w->fibers ? w->nworkers : 0;
}

int tutti_world_size(const tutti_world_t *w) {
  return w ? w->nranks : TUTTI_EINVAL;
}

const char *tutti_world_error(const tutti_world_t *w) {
  return w ? w->errtext : "no world";
}

int tutti_world_waitinfo(const tutti_world_t *w, int rank, tutti_waitinfo_t *out) {
  if (!w || !out) return TUTTI_EINVAL;
  if (rank < 0 || rank >= w->nranks) return TUTTI_ERANK;
  if (w->running) return TUTTI_EBUSY;
  *out = w->ranks[rank]->waiting;
  return 0;
}

int tutti_world_stats(const tutti_world_t *w, tutti_stats_t *out) {
  if (!w || !out) return TUTTI_EINVAL;
  if (w->running) return TUTTI_EBUSY;
  *out = (tutti_stats_t){.wall_time = w->wall_time,
                         .workers = w->fibers ? w->nworkers : 0,
                         .stacks = w->fibers ? w->stacks_used : (uint64_t)w->nranks};
  for (int i = 0; i < w->nranks; i++) {
    const struct tutti_rank *r = w->ranks[i];
    out->messages += r->n_msgs;
    out->bytes += r->n_bytes;
    out->eager += r->n_eager;
    out->rendezvous += r->n_rdv;
    out->sleeps += r->n_sleeps;
    out->wakeups += r->n_wakeups;
    out->events += r->log.n;
  }
  return 0;
}

double tutti_world_paced_clock(const tutti_world_t *w, int rank) {
  if (!w || !w->wallclock || rank < 0 || rank >= w->nranks) return NAN;
  double v;
  __atomic_load(&w->ranks[rank]->vreached, &v, __ATOMIC_RELAXED);
  return v;
}

/* ------------------------------------------------------------- test hooks */

int tutti__world_inject(tutti_world_t *w, int kind, int rank, uint64_t k, int err) {
  if (!w || w->running || rank < -1 || rank >= w->nranks) return TUTTI_EINVAL;
  if (kind == TUTTI__FAULT_MSG) {
    if (rank >= 0 && (k < 1 || err >= 0)) return TUTTI_EINVAL;
    w->fault_rank = rank, w->fault_at = k, w->fault_err = err;
  } else if (kind == TUTTI__FAULT_EVLOG) {
    if (k > UINT32_MAX) return TUTTI_EINVAL;
    for (int i = 0; i < w->nranks; i++) w->ranks[i]->log.refuse = i == rank ? (uint32_t)k : 0;
  } else if (kind == TUTTI__FAULT_THREAD) {
    w->thread_refused = rank;
  } else if (kind == TUTTI__NO_GUARDS) {
    if (w->stacks) return TUTTI_EINVAL; /* reserved at the first run */
    w->no_guards = true;
  } else if (kind == TUTTI__DEPTH_FIRST) {
    if (k > INT_MAX) return TUTTI_EINVAL;
    w->depth_first_from = (int)k;
  } else if (kind == TUTTI__FAULT_BUDGET) {
    if (!w->ev_budget_total) return TUTTI_EINVAL; /* max_events set, or no budget */
    set_event_budget(w, k);
  } else {
    return TUTTI_EINVAL;
  }
  return 0;
}

uint64_t tutti__world_posts(const tutti_world_t *w, int rank) {
  return w && !w->running && rank >= 0 && rank < w->nranks ? w->ranks[rank]->n_posts : 0;
}

/* ----------------------------------------------------------------- failing */

void tutti_abort(tutti_rank_t *r, int err) {
  if (err >= 0) err = TUTTI_EABORTED;
  struct tutti_world *w = r->world;
  tutti__fail(w, r->rank, err, "rank %d called tutti_abort: %s (%s)", r->rank, tutti_err_name(err),
              tutti_strerror(err));
  tutti__abort_all(w);
  r->err = err;
  tutti__rank_pending(r, NULL, 0); /* its code's buffers may go with it */
  tutti__rank_departs(r);
  current_rank = NULL;
  if (w->fibers) tutti__fiber_exit(r);
  pthread_exit(NULL);
}

tutti_rank_t *tutti_rank_self(void) {
  struct tutti_rank *f = tutti__fiber_current();
  return f ? f : current_rank;
}

int tutti_rank_yield(tutti_rank_t *r) {
  if (!r || r != tutti_rank_self()) return TUTTI_EINVAL;
  if (r->world->fibers)
    tutti__fiber_yield(r);
  else
    sched_yield();
  return 0;
}

/* ------------------------------------------------------------------ running */

void tutti__rank_body(struct tutti_rank *r) {
  struct tutti_world *w = r->world;
  current_rank = r;
  int rc = w->fn(r, w->arg);
  current_rank = NULL;
  r->err = rc;
  if (rc != 0) {
    int err = rc < 0 ? rc : TUTTI_ERANKFAIL;
    const char *in = r->doing ? " in " : "", *doing = r->doing ? r->doing : "";
    if (rc < 0 && strcmp(tutti_err_name(rc), "TUTTI_E?") != 0)
      tutti__fail(w, r->rank, err, "rank %d failed: %s (%s)%s%s", r->rank, tutti_err_name(rc),
                  tutti_strerror(rc), in, doing);
    else if (rc < 0)
      tutti__fail(w, r->rank, err, "rank %d failed with error %d%s%s", r->rank, rc, in, doing);
    else
      tutti__fail(w, r->rank, err, "rank %d returned %d, not 0%s%s", r->rank, rc, in, doing);
    tutti__abort_all(w);
  }
  /* Requests it left pending: an error of the rank whatever has arrived
   * (a run must not succeed or deadlock by timing), made harmless first. */
  char what[96];
  int n = tutti__rank_pending_count(r, what, sizeof what);
  if (n && rc == 0) {
    r->err = TUTTI_EPENDING;
    tutti__fail(w, r->rank, TUTTI_EPENDING,
                "rank %d returned with %d request%s pending (%s); wait for each (tutti_wait, "
                "tutti_waitall, tutti_test) before returning",
                r->rank, n, n == 1 ? "" : "s", what);
  }
  if (n) tutti__rank_pending(r, NULL, 0); /* after the claim: see internal.h */
  if (n && rc == 0) tutti__abort_all(w);
  tutti__rank_departs(r);
}

/* A rank thread that ran into its guard page (fiber.c's handler jumped
 * back to rank_main): it ends as a fiber does, the run failing with
 * TUTTI_ESTACK naming it; its requests are made harmless. */
static void thread_overflowed(struct tutti_rank *r) {
  struct tutti_world *w = r->world;
  current_rank = NULL;
  tutti__stack_overflowed(r, w->stack_slot - w->stack_guard - w->stack_alt,
                          "it ran into the guard page below");
  r->err = TUTTI_ESTACK;
  tutti__rank_pending(r, NULL, 0);
  tutti__rank_departs(r);
}

static void *rank_main(void *arg) {
  struct tutti_rank *r = arg;
  struct tutti_world *w = r->world;
  while (__atomic_load_n(&w->gate, __ATOMIC_ACQUIRE) == 0)
    syscall(SYS_futex, &w->gate, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
  if (w->start_failed) return NULL; /* the run never started */
  if (!w->stacks || !w->stack_guard || !w->stack_alt) {
    tutti__rank_body(r);
    return NULL;
  }
  /* A guard page below the stack, an alternate signal stack above it: a
   * fault in the guard page is caught (fiber.c on_segv) and ends the rank
   * with TUTTI_ESTACK, as a fiber's does, instead of the process. */
  char *slot = w->stacks + (size_t)r->rank * w->stack_slot;
  struct tutti__guard g = {.lo = slot, .len = w->stack_guard};
  stack_t alt = {.ss_sp = slot + w->stack_slot - w->stack_alt, .ss_size = w->stack_alt};
  if (sigaltstack(&alt, NULL) != 0) { /* no way out of an overflow: run as is */
    tutti__rank_body(r);
    return NULL;
  }
  if (sigsetjmp(g.jb, 1) == 0) {
    tutti__guard_thread(&g);
    tutti__rank_body(r);
    tutti__guard_thread(NULL);
  } else {
    tutti__guard_thread(NULL);
    thread_overflowed(r);
  }
  stack_t off = {.ss_flags = SS_DISABLE};
  sigaltstack(&off, NULL);
  return NULL;
}

static int read_int_file(const char *path) {
  FILE *f = fopen(path, "r");
  int v = -1;
  if (f) {
    if (fscanf(f, "%d", &v) != 1) v = -1;
    fclose(f);
  }
  return v;
}

#ifndef PR_FUTEX_HASH /* Linux 6.16; Debian 12's headers predate it */
#define PR_FUTEX_HASH 78
#define PR_FUTEX_HASH_SET_SLOTS 1
#define PR_FUTEX_HASH_GET_SLOTS 2
#endif

/* Since Linux 6.16 a process's private futexes hash into a table of its
 * own, of 4 x min(threads, CPUs) slots: 16 on two cores, so with 16384
 * sleeping ranks every wake-up would walk a chain of about 1000 waiters.
 * Grow the table to
 * two slots per rank (never shrink it: other worlds of the process may
 * be running). Older kernels refuse the call, which is fine: their one
 * global table is sized by the machine. */
static void futex_hash_grow(int nranks) {
  long want = 16, cap = 1L << 17, have = prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_GET_SLOTS, 0, 0, 0);
  while (want < 2L * nranks && want < cap) want *= 2;
  if (have >= 0 && have < want) prctl(PR_FUTEX_HASH, PR_FUTEX_HASH_SET_SLOTS, want, 0, 0);
}

/* Each guard page splits the region's mapping in two; past this many
 * ranks the guards would use up vm.max_map_count (65530 by default), so
 * fibers that many go without (fiber.c checks a canary instead). */
static bool guards_affordable(const struct tutti_world *w) {
  if (w->no_guards) return false;
  long cap = read_int_file("/proc/sys/vm/max_map_count");
  return cap <= 0 || 2L * w->nranks + 8192 < cap;
}

#ifndef MADV_GUARD_INSTALL /* Linux 6.13; Debian 12's headers predate it */
#define MADV_GUARD_INSTALL 102
#endif

/* A guard page: a guard region where the kernel has them (Linux 6.13),
 * which leaves the stacks one mapping, else PROT_NONE, which splits the
 * mapping at each guard: 32768 mappings for 16384 ranks, each one more
 * for the kernel to set up and unmap. *madv:
 * still trying guard regions (cleared at their first refusal). */
static int guard_page(char *p, size_t len, bool *madv) {
  if (*madv && madvise(p, len, MADV_GUARD_INSTALL) == 0) return 0;
  *madv = false;
  return mprotect(p, len, PROT_NONE);
}

/* The rank stacks as one region, reserved at the first run and kept until
 * the world is destroyed: slot i is a guard page, then rank i's
 * stack (fibers too many for guards: a page, for rank 0's canary, then
 * slots of bare stacks; fiber.c canary_of). glibc's own stacks cost an
 * mmap and an mprotect per thread and, past its 40 MiB stack cache, an
 * munmap at each join, whose TLB
 * shootdowns across cores made most of the system time of starting and
 * joining 16384 ranks. If the region cannot be had, threads use glibc's
 * stacks, and so they do under ThreadSanitizer, whose ~900 KiB of thread
 * state per thread does not fit in a given stack (pthread_create fails);
 * fibers cannot run without it. */
/* A rank thread's alternate signal stack, above its stack in its slot:
 * room for the kernel's signal frame (the CPU's extended state) and the
 * SIGSEGV handler's few calls; touched only by a signal. */
#if defined(__SANITIZE_ADDRESS__) || defined(TUTTI_TSAN)
#define THREAD_ALTSTACK ((size_t)64 << 10)
#else
#define THREAD_ALTSTACK ((size_t)16 << 10)
#endif

static void stacks_reserve(struct tutti_world *w) {
#ifdef __SANITIZE_THREAD__
  if (!w->fibers) return;
#endif
  if (w->stacks) return;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t guard = !w->fibers || guards_affordable(w) ? page : 0;
  size_t alt = w->fibers ? 0 : THREAD_ALTSTACK; /* fibers: one per worker (fiber.c) */
  size_t slot = guard + (w->stack_size + page - 1) / page * page + alt, pad = guard ? 0 : page;
  if (slot > (SIZE_MAX - pad) / (size_t)w->nranks) return;
  size_t len = pad + slot * (size_t)w->nranks;
  char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (p == MAP_FAILED) return;
  bool madv = true;
  for (int i = 0; guard && i < w->nranks; i++)
    if (guard_page(p + (size_t)i * slot, guard, &madv)) {
      munmap(p, len);
      return;
    }
  w->stacks = p + pad, w->stack_slot = slot, w->stacks_len = len, w->stack_guard = guard;
  w->stacks_pad = pad, w->stack_alt = alt;
}

void tutti__bind_attr(const struct tutti_world *w, pthread_attr_t *attr, int i) {
  if (!w->bind_cpus) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(w->bind_cpus[i % w->nbind], &one);
  pthread_attr_setaffinity_np(attr, sizeof one, &one);
}

void tutti__run_wide(void *(*fn)(void *), void *parts, size_t size, int n) {
  pthread_t t[TUTTI__WIDE_MAX];
  bool started[TUTTI__WIDE_MAX] = {0};
  for (int k = 1; k < n; k++)
    started[k] = !pthread_create(&t[k], NULL, fn, (char *)parts + k * size);
  fn(parts);
  for (int k = 1; k < n; k++)
    if (started[k])
      pthread_join(t[k], NULL);
    else
      fn((char *)parts + k * size);
}

/* A slice of the ranks whose threads one spawner creates. */
struct spawn {
  struct tutti_world *w;
  int lo, hi;
  int failed, err; /* the first rank whose thread was refused (hi: none), errno */
};

static void *spawn_slice(void *arg) {
  struct spawn *s = arg;
  struct tutti_world *w = s->w;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, w->stack_size);
  s->failed = s->hi;
  for (int i = s->lo; i < s->hi; i++) {
    if (w->stacks) /* between its guard page and its alternate signal stack */
      pthread_attr_setstack(&attr, w->stacks + (size_t)i * w->stack_slot + w->stack_guard,
                            w->stack_slot - w->stack_guard - w->stack_alt);
    tutti__bind_attr(w, &attr, i);
    int e = i == w->thread_refused
                ? EAGAIN
                : pthread_create(&w->ranks[i]->thread, &attr, rank_main, w->ranks[i]);
    if (e) {
      s->failed = i, s->err = e;
      break;
    }
    w->ranks[i]->started = true;
  }
  pthread_attr_destroy(&attr);
  return NULL;
}

/* Ranks per spawner thread: creating a thread is mostly kernel work (its
 * kernel stack, its task) done on the creator's core, so past a few
 * thousand ranks one spawner per CPU shares it out. */
#define SPAWN_SLICE 2048

/* One thread per rank, created behind the closed gate by the spawners,
 * then joined. The lowest refused rank is the one reported. */
static void threads_run(struct tutti_world *w) {
  struct spawn sp[TUTTI__WIDE_MAX];
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n > w->nranks / SPAWN_SLICE) n = w->nranks / SPAWN_SLICE;
  if (n > TUTTI__WIDE_MAX) n = TUTTI__WIDE_MAX;
  if (n < 1) n = 1;
  for (int k = 0; k < n; k++)
    sp[k] = (struct spawn){
        .w = w, .lo = (int)((long)w->nranks * k / n), .hi = (int)((long)w->nranks * (k + 1) / n)};
  tutti__run_wide(spawn_slice, sp, sizeof *sp, (int)n);
  for (int k = 0; k < n; k++)
    if (sp[k].failed < sp[k].hi) {
      int i = sp[k].failed;
      tutti__fail(w, i, TUTTI_ETHREADS,
                  "could not create rank thread %d of %d: %s (limits: kernel.pid_max %d, "
                  "kernel.threads-max %d, vm.max_map_count %d, stack %zu KiB per rank; use fewer "
                  "ranks or a smaller stack, TUTTI_STACK)",
                  i, w->nranks, strerror(sp[k].err), read_int_file("/proc/sys/kernel/pid_max"),
                  read_int_file("/proc/sys/kernel/threads-max"),
                  read_int_file("/proc/sys/vm/max_map_count"), w->stack_size >> 10);
      w->start_failed = true; /* read by the threads after the gate opens */
      break;
    }
  w->wall_start = tutti__now();
  __atomic_store_n(&w->gate, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &w->gate, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
  for (int i = 0; i < w->nranks; i++)
    if (w->ranks[i]->started) pthread_join(w->ranks[i]->thread, NULL);
}

int tutti_world_run(tutti_world_t *w, tutti_rank_fn *fn, void *arg) {
  if (!w || !fn) return TUTTI_EINVAL;
  if (w->running || current_rank || tutti__fiber_here()) return TUTTI_EBUSY;
  w->running = true;
  w->fn = fn;
  w->arg = arg;
  w->aborted = 0;
  w->failed = 0;
  w->fail_err = 0;
  w->fail_rank = -1;
  w->errtext[0] = 0;
  w->gate = 0;
  w->start_failed = false;
  w->live_blocked = (uint64_t)w->nranks << 32;
  tutti__replay_free(w->replay);
  w->replay = NULL;
  for (int i = 0; i < w->nranks; i++) tutti__rank_drop_messages(w->ranks[i]);
  for (int i = 0; i < w->nranks; i++) {
    tutti__rank_reset(w->ranks[i]);
    w->ranks[i]->started = false;
  }

  /* The budget: what the reset freed is given back (messages, channels,
   * the last replay), the logs and the ranks stay; the stacks, reserved
   * once (glibc's: a stack a rank; fibers: their workers' too), are
   * charged before anything runs: a thread's whole reservation; a fiber's
   * TUTTI__FIBER_STACK_TOUCH of it when its worker first hands it out. */
  w->mem.by[TUTTI__MEM_MESSAGES] = w->mem.by[TUTTI__MEM_CHANNELS] = 0;
  w->mem.by[TUTTI__MEM_REPLAY] = w->mem.by[TUTTI__MEM_STACKS] = 0;
  w->mem.used = w->mem.by[TUTTI__MEM_LOGS] + w->mem.by[TUTTI__MEM_RANKS];
  double t0 = tutti__now();
  stacks_reserve(w);
  uint64_t stacks = w->stacks ? w->stacks_len : (uint64_t)w->nranks * w->stack_size;
  if (w->fibers) /* the workers'; each fiber stack as it is first used (fiber.c) */
    stacks = (uint64_t)w->nworkers * (((size_t)1 << 20) + ((size_t)64 << 10));
  if (!tutti__mem_charge(&w->mem, TUTTI__MEM_STACKS, stacks)) {
    tutti__mem_refused(w, -1, TUTTI__MEM_STACKS, stacks);
    w->running = false;
    return w->fail_err;
  }
  if (w->fibers) {
    tutti__fibers_run(w);
  } else {
    futex_hash_grow(w->nranks);
    if (w->stacks && w->stack_alt) tutti__segv_install();
    threads_run(w);
  }
  w->wall_time = tutti__now() - t0;
  w->running = false;

  int rc = w->failed ? w->fail_err : 0;
  if (!rc && w->record) { /* the replay's arrays, charged before they are made */
    uint64_t ev = 0, msgs = 0;
    for (int i = 0; i < w->nranks; i++) ev += w->ranks[i]->log.n, msgs += w->ranks[i]->n_msgs;
    uint64_t need =
        ev * sizeof(uint64_t) + msgs * sizeof(struct tutti_replay_msg) + (uint64_t)w->nranks * 256;
    if (!tutti__mem_charge(&w->mem, TUTTI__MEM_REPLAY, need))
      return tutti__mem_refused(w, -1, TUTTI__MEM_REPLAY, need);
  }
  if (!rc && w->record) {
    rc = tutti__replay_world(w);
    if (rc && !w->errtext[0])
      snprintf(w->errtext, sizeof w->errtext, "replay failed: %s", tutti_strerror(rc));
  }
  return rc;
}

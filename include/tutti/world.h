/*
 * world.h -- the world of emulated ranks: configure, create, run, inspect
 * and destroy one; a world runs its ranks' code over the contract of
 * p2p.h. What a run's replay tells (modeled times, traces, explanations)
 * is report.h's; the machine a world runs on, machine.h's.
 *
 * Threads: a world runs one POSIX thread (or fiber) per rank. A
 * tutti_rank_t handle belongs to its rank: the p2p calls must be called
 * only by the rank the handle was given to (no mutual exclusion is
 * provided, and none is needed between different ranks). World functions
 * (create, run, destroy, report) are called by the one thread that owns
 * the world, never from a rank.
 *
 * tutti.h includes this header; it may also be included on its own.
 */
#ifndef TUTTI_WORLD_H
#define TUTTI_WORLD_H

#include <stddef.h>
#include <stdint.h>

#include "tutti/export.h"
#include "tutti/p2p.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- the world */

/* The largest config.time_scale (wall seconds per modeled second). */
#define TUTTI_TIME_SCALE_MAX 1e9

typedef struct tutti_world tutti_world_t;

enum tutti_world_flags {
  /* Test-only: inject random yields and short sleeps into the runtime's
   * message path, to show that modeled times do not depend on scheduling. */
  TUTTI_PERTURB = 1u << 0,
  /* Record events even with the none model (for traces of native runs). */
  TUTTI_RECORD = 1u << 1,
  /* Live demos: pace the run in real time by the model. A message is
   * delivered no earlier than its modeled arrival, a blocking send holds
   * the sender for O_s, local work sleeps for its modeled time -- scaled by
   * time_scale wall seconds per modeled second (postal: per step). A
   * rank's send port is paced (rule 1: its sends start one after another);
   * receive ports and links are not (the replay still computes exact
   * times, so where messages queue there the run may take less wall time
   * than modeled), and on an oversubscribed machine threads wake late:
   * events may come later than modeled. */
  TUTTI_WALLCLOCK = 1u << 2,
  /* Timing-only runs (runtime/MODEL.md "Timing-only runs"): messages carry
   * their sizes, protocols and events exactly as in a data run -- so the
   * modeled times are bit-identical -- but no payload byte is copied or
   * read: sends and receives move no data, tutti_reduce_local_r charges
   * gamma * bytes without computing, tutti_local_copy copies nothing.
   * Buffers are never touched, so they may be as large as the address
   * space allows (memory the OS backs lazily costs nothing); their contents
   * after a call are unspecified. Buffers must still be non-NULL where a
   * data run needs them (the argument checks are the same). */
  TUTTI_NO_DATA = 1u << 3,
};

/* What a rank runs on (tutti_config_t.ranks_as). Threads: one POSIX thread
 * per rank, which the kernel schedules and wakes. Fibers: each rank a
 * user-level context with its own small stack, run M:N by worker
 * threads, at most one per core (runtime/fiber.c); a rank that would sleep
 * yields to its worker instead, so a wake-up is a queue push, not a system
 * call, and a world may have as many ranks as memory allows (up to 2^20),
 * far past the OS's thread limits. Modeled times are the same in both. A
 * fiber rank must wait only in tutti calls or yield while it waits
 * (tutti_rank_yield): a mutex or a condition variable shared by ranks
 * would block its worker's other ranks. */
enum tutti_ranks_as {
  /* $TUTTI_RANKS_AS ("threads" or "fibers"), else tutti's choice:
   * tutti_ranks_as_choose(nranks, 0, 0) -- fibers -- but threads for a
   * TUTTI_WALLCLOCK world (a paced rank sleeps) */
  TUTTI_RANKS_AS_DEFAULT = 0,
  TUTTI_RANKS_AS_THREADS,
  TUTTI_RANKS_AS_FIBERS,
};

/* The way tutti runs `nranks` ranks that nothing else decides for
 * (TUTTI_RANKS_AS_DEFAULT with TUTTI_RANKS_AS unset; the tutti command
 * without --ranks-as): TUTTI_RANKS_AS_FIBERS or TUTTI_RANKS_AS_THREADS,
 * a pure function of its arguments. max_bytes: the bytes per rank of the
 * largest call the ranks will make (0: unknown, or none moved, as in a
 * timing-only run); ncpu: the CPUs the ranks may use (<= 0: those this
 * process may use now). Fibers, at every size: a hand-off between two
 * ranks of a worker is a switch on one core, with the message in its
 * cache, where a thread would sleep and be woken by the kernel, often
 * from the other core; where a call's copies want several cores, fibers
 * run on several workers (tutti_workers_choose), which wake each other
 * far less often than a thread a rank would. `tutti bench coll` measures
 * the default beside both on a machine (bench/CLI.md). */
TUTTI_API int tutti_ranks_as_choose(int nranks, size_t max_bytes, int ncpu);

/* The worker threads tutti gives `nranks` fibers that nothing else
 * decides for (tutti_config_t.workers 0, TUTTI_WORKERS unset), with
 * max_bytes and ncpu as for tutti_ranks_as_choose; a pure function of its
 * arguments, at least 1 and at most nranks and ncpu. One per 1024 ranks
 * (a world of 0 max_bytes: tutti_world_create's), but one per CPU for
 * calls of 1 MiB per rank or more on 16 ranks or more, whose copies then
 * run on every core at once. TUTTI_EINVAL for nranks < 1. */
TUTTI_API int tutti_workers_choose(int nranks, size_t max_bytes, int ncpu);

/* Where rank threads (fibers: worker threads) run (tutti_config_t.bind).
 * Cores: thread i is pinned to the i-th CPU the process may use (round
 * robin when there are more threads than CPUs), as mpirun binds its
 * processes to cores. Unpinned, two ranks that each spin for the other
 * can land on one core while the other core idles or runs someone else,
 * and every message then waits for a time slice: on a shared 2-core VM an
 * 8-byte ping-pong took 0.2 us in some repetitions and 3-10 us in others
 * (runtime/README.md "Binding"). */
enum tutti_bind {
  /* $TUTTI_BIND ("cores" or "none"), else cores when every thread has a CPU
   * of its own (2 or more ranks, or fiber workers, and at most the CPUs),
   * else none */
  TUTTI_BIND_DEFAULT = 0,
  TUTTI_BIND_NONE,
  TUTTI_BIND_CORES,
};

/* The largest world (config.nranks) and the largest rank stack
 * (config.stack_size, TUTTI_STACK): beyond them tutti_config_check and
 * tutti_world_create refuse. A stack is address space reserved per rank,
 * guard page and rounding added; with this bound that arithmetic, and
 * ranks times stacks, cannot wrap around a 64-bit size. */
#define TUTTI_MAX_RANKS (1 << 20)
#define TUTTI_MAX_STACK ((size_t)1 << 30)

typedef struct tutti_config {
  int nranks; /* >= 1 */
  /* bytes per rank stack; 0: $TUTTI_STACK (bytes, or with a K or M suffix;
   * 0: unset), else 128 KiB for a thread, 32 KiB for a fiber (4x both under
   * sanitizers); at least PTHREAD_STACK_MIN (16 KiB on x86-64), at most
   * TUTTI_MAX_STACK */
  size_t stack_size;
  const tutti_model_t *model; /* NULL: the none model (eager_limit 64 KiB) */
  unsigned flags;             /* enum tutti_world_flags */
  unsigned seed;              /* seed of TUTTI_PERTURB */
  int spin;                   /* polls before a waiting rank sleeps; <0: automatic */
  /* TUTTI_WALLCLOCK: wall seconds per modeled second; 0: 1; at most
   * TUTTI_TIME_SCALE_MAX (1e9), so that a paced run's wall times stay finite */
  double time_scale;
  /* Events a rank may record (modeled or TUTTI_RECORD runs; 24 bytes
   * each): one more fails the run with TUTTI_ENOMEM naming the rank, before
   * memory runs out. 0: automatic (one budget for the logs of all ranks
   * together, a quarter of physical memory; runtime/MODEL.md "Memory"). */
  uint32_t max_events;
  /* What `auto` algorithms follow (coll.h, tutti_rules_t); NULL: none. Not
   * copied: it must outlive the world. */
  const struct tutti_rules *rules;
  int ranks_as; /* enum tutti_ranks_as */
  /* fibers: worker threads; 0: $TUTTI_WORKERS, else
   * tutti_workers_choose(nranks, 0, 0): one per 1024 ranks up to one per
   * CPU the process may use (a small world runs on one: its hand-offs stay
   * on one core, where a second worker's cross-core wake-ups cost more
   * than its core brings). A program that knows its sizes may set the
   * choice for them, as the tutti command does. */
  int workers;
  int bind; /* enum tutti_bind */
  /* Bytes the run may hold: rank stacks and state, messages in flight
   * (eager buffers, rendezvous requests), channels, event logs and the
   * replay. What would grow past it fails the run with TUTTI_EMEMORY, the
   * text naming what grew, before the kernel's limits or its OOM killer
   * act. 0: automatic, the smallest of half of physical memory, half of
   * the address space RLIMIT_AS (ulimit -v) leaves and half of what the
   * cgroup's memory.max leaves (runtime/MODEL.md "Memory"). */
  uint64_t max_memory;
} tutti_config_t;

/* A config with every field at its default and nranks = n. */
TUTTI_API tutti_config_t tutti_config_default(int nranks);

/* Whether tutti_world_create would accept cfg as the environment stands
 * now: its fields, and the variables that apply to it -- TUTTI_RANKS_AS,
 * TUTTI_BIND and TUTTI_STACK where the config leaves ranks_as, bind and
 * stack_size at 0, TUTTI_WORKERS where it leaves workers at 0 (even for
 * threads), TUTTI_PERTURB always. The model's constants are checked
 * against units.h's ranges (every cost's floor and a at most
 * TUTTI_TIME_MAX, its b and gamma at most TUTTI_PER_BYTE_MAX), time_scale
 * against TUTTI_TIME_SCALE_MAX. The same checks, made by the same code,
 * as tutti_world_create's. Returns 0, or the code tutti_world_create
 * would return (TUTTI_ERANK for nranks, TUTTI_ENOTSUP for TUTTI_WALLCLOCK
 * with fibers, else TUTTI_EINVAL) with a one-line reason in err that names
 * the field or variable and what it accepts:
 *   TUTTI_BIND='x' is not a placement; accepted: cores, none
 *   config.stack_size 100 is below the minimum 16384
 * err gets "" on success; it may be NULL (or errlen 0) for none, and a
 * longer reason is cut at errlen - 1 bytes. What only a running system
 * can refuse (memory, threads) is not checked; nor is the caller (a rank
 * gets TUTTI_EBUSY from tutti_world_create). Reads the environment, so it
 * must not run while another thread calls setenv. */
TUTTI_API int tutti_config_check(const tutti_config_t *cfg, char *err, size_t errlen);

TUTTI_API int tutti_world_create(tutti_world_t **out, const tutti_config_t *cfg);
/* Run fn(rank, arg) on every rank thread and wait for all of them.
 * Returns 0, or the first failure: a rank's own error code (the world's
 * error text names the rank), TUTTI_EDEADLOCK (the text lists what each rank
 * waits for), TUTTI_ETHREADS (the text names the OS limit). Every thread is
 * joined before it returns. A world may be run several times; modeled
 * clocks start at 0 in each run. */
typedef int tutti_rank_fn(tutti_rank_t *rank, void *arg);
TUTTI_API int tutti_world_run(tutti_world_t *w, tutti_rank_fn *fn, void *arg);
/* The text of the last run's failure ("" after a success). */
TUTTI_API const char *tutti_world_error(const tutti_world_t *w);
TUTTI_API int tutti_world_size(const tutti_world_t *w);
TUTTI_API void tutti_world_destroy(tutti_world_t *w);

/* What a blocked rank waited for when the world deadlocked or was aborted. */
typedef struct tutti_waitinfo {
  int blocked;    /* 1 if the rank was blocked in a call */
  const char *op; /* "recv", "send", "wait", "waitall", "sendrecv" */
  int peer;       /* the peer, or TUTTI_ANY_SOURCE */
  int tag;
} tutti_waitinfo_t;
TUTTI_API int tutti_world_waitinfo(const tutti_world_t *w, int rank, tutti_waitinfo_t *out);

/* Counters of the last run. */
typedef struct tutti_stats {
  uint64_t messages; /* messages sent */
  uint64_t bytes;    /* payload bytes sent */
  uint64_t eager, rendezvous;
  uint64_t sleeps;  /* times a rank slept on its futex doorbell (a fiber: yielded to wait) */
  uint64_t wakeups; /* futex wakes issued (fibers: ranks made runnable) */
  uint64_t events;  /* events recorded for replay */
  double wall_time; /* seconds from the first thread start to the last join */
  int workers;      /* the worker threads that ran the ranks as fibers; 0: ranks were threads */
  uint64_t stacks;  /* rank stacks in use at once, at most: one a rank thread; fibers share */
} tutti_stats_t;
TUTTI_API int tutti_world_stats(const tutti_world_t *w, tutti_stats_t *out);
/* TUTTI_WALLCLOCK: how far `rank` has come in the running (or last) run,
 * in modeled seconds (postal: steps): its paced clock as real time has
 * reached it (wall seconds since the start / time_scale, at most the
 * modeled time of what it has sent, received and computed so far; it
 * stands still while the rank waits for a message). Readable from another
 * thread while tutti_world_run runs (a live view: `tutti run --realtime
 * --timeline`). NaN for a world without TUTTI_WALLCLOCK or a bad rank. */
TUTTI_API double tutti_world_paced_clock(const tutti_world_t *w, int rank);

/* The worker threads that run w's ranks as fibers (tutti_config_t.ranks_as),
 * or 0 when each rank is a thread; TUTTI_EINVAL for NULL. */
TUTTI_API int tutti_world_workers(const tutti_world_t *w);

/* The world a rank belongs to (for programs; collectives never need it). */
TUTTI_API tutti_world_t *tutti_rank_world(const tutti_rank_t *r);

/* Let the other ranks run, for a rank that waits for others outside tutti
 * calls (a flag, a spinning barrier): a fiber goes to the back of its
 * worker's run queue and returns when its turn comes again (the ranks it
 * waits for may be fibers of the same worker thread, which run only while
 * it yields); a rank thread calls sched_yield. Called by r's own rank
 * only. 0, or TUTTI_EINVAL for NULL or a handle of another rank than the
 * calling fiber. */
TUTTI_API int tutti_rank_yield(tutti_rank_t *r);

#ifdef __cplusplus
}
#endif

#endif /* TUTTI_WORLD_H */

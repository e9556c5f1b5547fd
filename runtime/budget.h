/*
 * budget.h -- a world's memory budget (tutti_config_t.max_memory): the
 * bytes a run holds, by kind, against one limit, so that a run that would
 * grow past it fails with TUTTI_EMEMORY naming what grew before the kernel
 * acts (RLIMIT_AS makes malloc fail, a cgroup or the OOM killer kills).
 *
 * What is charged: what grows with the run, where it is allocated -- an
 * eager buffer when a pool makes one (not per message: pooled buffers are
 * reused), a chunk of requests (a rendezvous envelope lives in its send
 * request), a fastbox, a channel table's growth, an event log's growth,
 * the rank stacks and the ranks once, the replay's arrays before it runs.
 * Buffers are charged while they exist, in a pool or in flight; what a run
 * frees in the middle (a message above the pools' largest class) is given
 * back at once, the rest when the next run resets the ranks.
 *
 * Concurrency: `used` and `by[]` are atomic (relaxed: they order nothing,
 * and a charge that crosses the limit is taken back, so `used` may pass the
 * limit for an instant but no charge that passes it stands). One atomic add
 * per allocation, no lock; any thread may charge.
 */
#ifndef TUTTI_BUDGET_H
#define TUTTI_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tutti__mem_kind {
  TUTTI__MEM_MESSAGES, /* messages in flight: eager buffers, fastboxes, requests */
  TUTTI__MEM_CHANNELS, /* per-peer channel tables */
  TUTTI__MEM_LOGS,     /* event logs */
  TUTTI__MEM_STACKS,   /* rank stacks (and their guard pages), fiber workers' stacks */
  TUTTI__MEM_RANKS,    /* the ranks' own state */
  TUTTI__MEM_REPLAY,   /* the replay's arrays */
  TUTTI__MEM_KINDS
};

struct tutti__budget {
  uint64_t used __attribute__((aligned(64))); /* atomic: bytes charged */
  uint64_t by[TUTTI__MEM_KINDS];              /* atomic: the same, by kind */
  uint64_t limit;                             /* 0: no limit */
  const char *source;                         /* what the limit came from (the error names it) */
};

/* Charge `bytes` of `kind`; false (nothing charged) when that would pass
 * the limit. Any thread. */
static inline bool tutti__mem_charge(struct tutti__budget *b, int kind, uint64_t bytes) {
  uint64_t now = __atomic_add_fetch(&b->used, bytes, __ATOMIC_RELAXED);
  if (__builtin_expect(b->limit && now > b->limit, 0)) {
    __atomic_sub_fetch(&b->used, bytes, __ATOMIC_RELAXED);
    return false;
  }
  __atomic_add_fetch(&b->by[kind], bytes, __ATOMIC_RELAXED);
  return true;
}

static inline void tutti__mem_uncharge(struct tutti__budget *b, int kind, uint64_t bytes) {
  __atomic_sub_fetch(&b->by[kind], bytes, __ATOMIC_RELAXED);
  __atomic_sub_fetch(&b->used, bytes, __ATOMIC_RELAXED);
}

/* What kind k is called in errors: "messages in flight", "event logs", ... */
const char *tutti__mem_kind_name(int kind);

/* The automatic limit (max_memory 0): the smallest of half of physical
 * memory, half of the address space RLIMIT_AS leaves, half of what the
 * cgroup's memory.max leaves; *source names which. 0: none known. */
uint64_t tutti__mem_default(const char **source);

/* "X MiB" style, into buf. */
const char *tutti__mem_bytes(uint64_t bytes, char *buf, size_t len);

#endif

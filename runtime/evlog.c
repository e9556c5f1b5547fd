/*
 * evlog.c -- the per-rank event log: an array that doubles, owned by one
 * rank thread, read by the replay engine after the threads are joined.
 *
 * Where the arrays live. Its first EVLOG_LENT events go in a room its
 * owner may lend (a rank's own, so that a tree's ranks, a few events
 * each, allocate nothing). A small log (up to 512 events, 12 KiB) is
 * malloc'd, so the many small logs of a huge world cost what they did.
 * A bigger one is a block of one process-wide arena: an address range
 * reserved once and marked for transparent huge pages, cut into
 * power-of-two blocks by a buddy allocator. Why: a modeled run's logs are
 * most of its memory (1 GiB for 10^7 messages), and first touching them in
 * 4 KiB pages costs a fault per page (under a hypervisor, a trap with it),
 * where a 2 MiB page costs one for 512 of them. Logs of 1 MiB, a 1024-rank
 * run's, never get huge pages of their own; packed side by side in the
 * arena they do. A growing block takes its free upper buddy in place (no
 * copy) when it can; freed blocks merge with their buddies, so the
 * lockstep doubling of many logs reuses the memory the previous size left.
 * When the last block is freed the arena gives its memory back
 * (MADV_DONTNEED). No arena (the reservation refused, or full): malloc, as
 * for small logs.
 */
#include "internal.h" /* first: it sets _GNU_SOURCE */

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "evlog.h"

/* ------------------------------------------------------------- the arena */

enum {
  ARENA_MIN = 12,  /* the smallest block: 4 KiB (and the state's unit) */
  ARENA_FROM = 14, /* a log's first block: at least 16 KiB */
  ARENA_HUGE = 21  /* 2 MiB: the reservation's alignment */
};

/* A free block's links. They live in a side table, one entry per 4 KiB
 * unit, not in the block: the first split writes a free block of every
 * order up to the top, and a header at each would make a 2 MiB page
 * resident per order past 2 MiB (the arena is marked for huge pages), a
 * few dozen MiB that no log uses. */
struct fblk {
  struct fblk *next, *prev;
};

static struct {
  pthread_mutex_t lock;
  int tried;             /* the reservation was attempted */
  int top;               /* the arena is one block of 2^top bytes */
  char *base;            /* NULL: no arena */
  uint8_t *state;        /* per 4 KiB unit: order + 1 of the free block starting there, else 0 */
  struct fblk *links;    /* per 4 KiB unit: the links of the free block starting there */
  struct fblk *free[64]; /* free blocks by order */
  size_t live;           /* bytes in blocks handed out */
  size_t high;           /* the highest end of a block handed out since the arena was empty */
} arena = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct fblk *links_of(const char *p) {
  return &arena.links[(size_t)(p - arena.base) >> ARENA_MIN];
}

static char *block_of(const struct fblk *b) {
  return arena.base + ((size_t)(b - arena.links) << ARENA_MIN);
}

static void list_push(int order, char *p) {
  struct fblk *b = links_of(p);
  b->prev = NULL;
  b->next = arena.free[order];
  if (b->next) b->next->prev = b;
  arena.free[order] = b;
  arena.state[(size_t)(p - arena.base) >> ARENA_MIN] = (uint8_t)(order + 1);
}

static void list_remove(int order, char *p) {
  struct fblk *b = links_of(p);
  if (b->prev)
    b->prev->next = b->next;
  else
    arena.free[order] = b->next;
  if (b->next) b->next->prev = b->prev;
  arena.state[(size_t)(p - arena.base) >> ARENA_MIN] = 0;
}

/* Whether the block of 2^order bytes at offset off is free, whole. */
static int is_free(size_t off, int order) {
  return arena.state[off >> ARENA_MIN] == order + 1;
}

/* Reserve the address range once: a power of two at least the physical
 * memory (the logs' automatic limit is a quarter of it), committing
 * nothing until it is touched. */
static void arena_init(void) {
  arena.tried = 1;
  if (sizeof(size_t) < 8) return; /* no room for it: malloc */
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || psize <= 0) return;
  uint64_t phys = (uint64_t)pages * (uint64_t)psize;
  int top = 30;
  while (top < 46 && (UINT64_C(1) << top) < phys) top++;
  size_t size = (size_t)1 << top, units = size >> ARENA_MIN, huge = (size_t)1 << ARENA_HUGE;
  int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  char *p = mmap(NULL, size + huge, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) return;
  uint8_t *st = mmap(NULL, units, PROT_READ | PROT_WRITE, flags, -1, 0);
  void *ln = mmap(NULL, units * sizeof(struct fblk), PROT_READ | PROT_WRITE, flags, -1, 0);
  if (st == MAP_FAILED || ln == MAP_FAILED) {
    if (st != MAP_FAILED) munmap(st, units);
    if (ln != MAP_FAILED) munmap(ln, units * sizeof(struct fblk));
    munmap(p, size + huge);
    return;
  }
  char *base = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
#ifdef MADV_HUGEPAGE
  madvise(base, size, MADV_HUGEPAGE); /* advice: without it, small pages */
#endif
  arena.base = base;
  arena.state = st;
  arena.links = ln;
  arena.top = top;
  list_push(top, base);
}

/* A block of 2^order bytes, or NULL. Caller holds the lock. */
static char *arena_take(int order) {
  int k = order;
  while (k <= arena.top && !arena.free[k]) k++;
  if (k > arena.top) return NULL;
  char *p = block_of(arena.free[k]);
  list_remove(k, p);
  while (k > order) { /* keep the lower half, free the upper */
    k--;
    list_push(k, p + ((size_t)1 << k));
  }
  size_t end = (size_t)(p - arena.base) + ((size_t)1 << order);
  if (end > arena.high) arena.high = end;
  arena.live += (size_t)1 << order;
  return p;
}

/* Give back a block, merging it with its free buddies; the last one back
 * returns the arena's memory to the system. Caller holds the lock. */
static void arena_give(char *p, int order) {
  size_t off = (size_t)(p - arena.base);
  arena.live -= (size_t)1 << order;
  while (order < arena.top) {
    size_t buddy = off ^ ((size_t)1 << order);
    if (!is_free(buddy, order)) break;
    list_remove(order, arena.base + buddy);
    off &= ~((size_t)1 << order);
    order++;
  }
  list_push(order, arena.base + off);
  if (arena.live == 0 && arena.high) { /* all free: one block again, nothing resident */
    madvise(arena.base, arena.high, MADV_DONTNEED);
    madvise(arena.state, (arena.high >> ARENA_MIN) + 1, MADV_DONTNEED);
    madvise(arena.links, ((arena.high >> ARENA_MIN) + 1) * sizeof(struct fblk), MADV_DONTNEED);
    memset(arena.free, 0, sizeof arena.free);
    arena.high = 0;
    list_push(arena.top, arena.base);
  }
}

/* Grow the block at p (2^order bytes, or NULL) to 2^want bytes, keeping
 * its first `keep` bytes: in place when the blocks above it are free, else
 * a new block and a copy. Returns the block, or NULL (p is then kept). */
static char *arena_grow(char *p, int order, int want, size_t keep) {
  pthread_mutex_lock(&arena.lock);
  if (!arena.tried) arena_init();
  char *q = NULL;
  if (arena.base && want <= arena.top) {
    if (p) { /* in place: p is the lower half of each larger block up to 2^want */
      size_t off = (size_t)(p - arena.base);
      int k = order;
      while (k < want && !(off & ((size_t)1 << k)) && is_free(off + ((size_t)1 << k), k)) k++;
      if (k == want) {
        for (k = order; k < want; k++) list_remove(k, p + ((size_t)1 << k));
        arena.live += ((size_t)1 << want) - ((size_t)1 << order);
        if (off + ((size_t)1 << want) > arena.high) arena.high = off + ((size_t)1 << want);
        q = p;
      }
    }
    if (!q && (q = arena_take(want)) != NULL && p) {
      memcpy(q, p, keep);
      arena_give(p, order);
    }
  }
  pthread_mutex_unlock(&arena.lock);
  return q;
}

static void arena_free(char *p, int order) {
  pthread_mutex_lock(&arena.lock);
  arena_give(p, order);
  pthread_mutex_unlock(&arena.lock);
}

/* The smallest order whose block holds `bytes`. */
static int order_of(size_t bytes) {
  int k = ARENA_MIN;
  while (((size_t)1 << k) < bytes) k++;
  return k;
}

/* ------------------------------------------------------------- the budget */

/* Takes up to `want` events of the budget (at least one); 0 if spent. */
static uint64_t budget_take(uint64_t *budget, uint64_t want) {
  uint64_t left = __atomic_load_n(budget, __ATOMIC_RELAXED), got;
  do {
    if (left == 0) return 0;
    got = left < want ? left : want;
  } while (!__atomic_compare_exchange_n(budget, &left, left - got, 1, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED));
  return got;
}

static void budget_give(uint64_t *budget, uint64_t n) {
  if (budget && n) __atomic_fetch_add(budget, n, __ATOMIC_RELAXED);
}

static uint32_t refuse(struct tutti_evlog *log, uint8_t why) {
  log->refusal = why;
  return UINT32_MAX;
}

/* ------------------------------------------------------------------ API */

#define EV sizeof(struct tutti_ev)

/* The bytes of the log charged to its memory budget: none for the lent room. */
static uint64_t charged(const struct tutti_evlog *log) {
  return log->ev == log->lent ? 0 : (uint64_t)log->cap * EV;
}

/* The next capacity: twice the last (at least 16). Once twice the array
 * reaches 2^ARENA_FROM bytes it is what a power-of-two block holds, so a
 * block is all log: the first block is the largest power of two within
 * twice the last array,
 * then the block doubles (cap stays within 2n + 1 events, n = the events
 * when it grew). */
static uint64_t next_cap(const struct tutti_evlog *log) {
  uint64_t c = log->cap;
  if (!c) return EVLOG_LENT;
  if (log->order) { /* the rest of its block first (a limit may have cut it short) */
    uint64_t whole = ((uint64_t)1 << log->order) / EV;
    return c < whole ? whole : ((uint64_t)1 << (log->order + 1)) / EV;
  }
  if (2 * c * EV < ((uint64_t)1 << ARENA_FROM)) return 2 * c;
  uint64_t b = (uint64_t)1 << ARENA_FROM;
  while (2 * b <= 2 * c * EV) b *= 2;
  return b / EV > c ? b / EV : 2 * c; /* 2c: malloc'd, no arena */
}

uint32_t tutti__evlog_push(struct tutti_evlog *log, const struct tutti_ev *ev) {
  if (log->n == log->cap) {
    uint32_t max = log->max ? log->max : UINT32_MAX;         /* UINT32_MAX: the failure value */
    if (log->n >= max) return refuse(log, TUTTI_EVLOG_FULL); /* full: refuse, do not wrap */
    uint64_t want = next_cap(log);
    uint32_t cap = want > max ? max : (uint32_t)want;
    if (log->budget) { /* a budget nearly spent still gives what it has left */
      uint64_t got = budget_take(log->budget, cap - log->cap);
      if (!got) return refuse(log, TUTTI_EVLOG_BUDGET);
      cap = log->cap + (uint32_t)got;
    }
    bool lend = !log->cap && log->lent && cap <= EVLOG_LENT && (!log->refuse || cap <= log->refuse);
    uint64_t grow = lend ? 0 : (uint64_t)cap * EV - charged(log);
    if (log->mem && !tutti__mem_charge(log->mem, TUTTI__MEM_LOGS, grow)) {
      if (log->budget) budget_give(log->budget, cap - log->cap);
      return refuse(log, TUTTI_EVLOG_MEMORY);
    }
    struct tutti_ev *p = NULL;
    int order = 0;
    if (lend) {
      p = log->lent;
    } else if (!log->refuse || cap <= log->refuse) { /* else the test hook's refusal */
      size_t bytes = (size_t)cap * EV;
      if (bytes > ((size_t)3 << (ARENA_FROM - 2))) { /* a block, over 3/4 used */
        order = order_of(bytes);
        p = (struct tutti_ev *)arena_grow(log->order ? (char *)log->ev : NULL, log->order, order,
                                          (size_t)log->n * EV);
        if (p && !log->order) { /* it moves from malloc, or from the lent room */
          if (log->n) memcpy(p, log->ev, (size_t)log->n * EV);
          if (log->ev != log->lent) free(log->ev);
        }
      }
      if (!p) { /* small, or no arena: malloc */
        order = 0;
        if (log->order || log->ev == log->lent) {
          p = malloc(bytes);
          if (p) {
            if (log->n) memcpy(p, log->ev, (size_t)log->n * EV);
            if (log->order) arena_free((char *)log->ev, log->order);
          }
        } else {
          p = realloc(log->ev, bytes);
        }
      }
    }
    if (!p) {
      if (log->budget) budget_give(log->budget, cap - log->cap);
      if (log->mem) tutti__mem_uncharge(log->mem, TUTTI__MEM_LOGS, grow);
      return refuse(log, TUTTI_EVLOG_NOMEM);
    }
    log->ev = p;
    log->cap = cap;
    log->order = (uint8_t)order;
  }
  struct tutti_ev *e = &log->ev[log->n];
  *e = *ev;
  if (e->kind == TUTTI_EV_SEND) e->ref = log->nsend++;
  return log->n++;
}

void tutti__evlog_clear(struct tutti_evlog *log) {
  log->n = log->nsend = 0;
}

void tutti__evlog_free(struct tutti_evlog *log) {
  budget_give(log->budget, log->cap);
  if (log->mem) tutti__mem_uncharge(log->mem, TUTTI__MEM_LOGS, charged(log));
  if (log->order)
    arena_free((char *)log->ev, log->order);
  else if (log->ev != log->lent)
    free(log->ev);
  log->ev = NULL;
  log->n = log->cap = log->nsend = 0;
  log->order = 0;
}

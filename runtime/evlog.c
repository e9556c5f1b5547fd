/*
 * evlog.c -- the per-rank event log: an array that doubles, owned by one
 * rank thread, read by the replay engine after the threads are joined.
 */
#include <stdlib.h>

#include "evlog.h"

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

uint32_t tutti__evlog_push(struct tutti_evlog *log, const struct tutti_ev *ev) {
  if (log->n == log->cap) {
    uint32_t max = log->max ? log->max : UINT32_MAX;         /* UINT32_MAX: the failure value */
    if (log->n >= max) return refuse(log, TUTTI_EVLOG_FULL); /* full: refuse, do not wrap */
    uint32_t cap = log->cap ? (log->cap > max / 2 ? max : log->cap * 2) : (max < 16 ? max : 16);
    if (log->budget) { /* a budget nearly spent still gives what it has left */
      uint64_t got = budget_take(log->budget, cap - log->cap);
      if (!got) return refuse(log, TUTTI_EVLOG_BUDGET);
      cap = log->cap + (uint32_t)got;
    }
    struct tutti_ev *p = NULL;
    if (!log->refuse || cap <= log->refuse) /* else the test hook's refusal */
      p = realloc(log->ev, (size_t)cap * sizeof *p);
    if (!p) {
      if (log->budget) budget_give(log->budget, cap - log->cap);
      return refuse(log, TUTTI_EVLOG_NOMEM);
    }
    log->ev = p;
    log->cap = cap;
  }
  log->ev[log->n] = *ev;
  return log->n++;
}

void tutti__evlog_clear(struct tutti_evlog *log) {
  log->n = 0;
}

void tutti__evlog_free(struct tutti_evlog *log) {
  budget_give(log->budget, log->cap);
  free(log->ev);
  log->ev = NULL;
  log->n = log->cap = 0;
}

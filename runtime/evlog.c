/*
 * evlog.c -- the per-rank event log: an array that doubles, owned by one
 * rank thread, read by the replay engine after the threads are joined.
 */
#include <stdlib.h>

#include "evlog.h"

uint32_t tutti__evlog_push(struct tutti_evlog *log, const struct tutti_ev *ev) {
  if (log->n == log->cap) {
    uint32_t max = log->max ? log->max : UINT32_MAX; /* UINT32_MAX: the failure value */
    if (log->n >= max) return UINT32_MAX;            /* full: refuse, do not wrap */
    uint32_t cap = log->cap ? (log->cap > max / 2 ? max : log->cap * 2) : (max < 64 ? max : 64);
    if (log->refuse && cap > log->refuse) return UINT32_MAX; /* the test hook's refusal */
    struct tutti_ev *p = realloc(log->ev, (size_t)cap * sizeof *p);
    if (!p) return UINT32_MAX;
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
  free(log->ev);
  log->ev = NULL;
  log->n = log->cap = 0;
}

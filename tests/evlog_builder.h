/*
 * evlog_builder.h -- synthetic per-rank event logs for replay tests, built
 * the way the runtime records them (blocking send = SEND + WAIT, ...), then
 * bld_match links each RECV to its SEND by runtime/MODEL.md's rule (the k-th
 * receive for (s, t) takes the k-th send from s with tag t).
 * Shared by test_unit_replay*.c and test_unit_contention.c; needs Criterion
 * and evlog.h.
 */
#ifndef TUTTI_TEST_EVLOG_BUILDER_H
#define TUTTI_TEST_EVLOG_BUILDER_H

#include <stdlib.h>

#include "evlog.h"

#define UNRESOLVED (UINT32_MAX - 1) /* resolved by bld_match */

struct bld {
  int P;
  struct tutti_evlog *logs;
  const struct tutti_evlog **ptrs;
};

static inline struct bld *bld_new(int P) {
  struct bld *b = calloc(1, sizeof *b);
  cr_assert(b != NULL);
  b->P = P;
  b->logs = calloc((size_t)P, sizeof *b->logs);
  b->ptrs = calloc((size_t)P, sizeof *b->ptrs);
  cr_assert(b->logs != NULL && b->ptrs != NULL);
  for (int r = 0; r < P; r++) b->ptrs[r] = &b->logs[r];
  return b;
}

static inline void bld_free(struct bld *b) {
  for (int r = 0; r < b->P; r++) tutti__evlog_free(&b->logs[r]);
  free(b->logs);
  free(b->ptrs);
  free(b);
}

static inline uint32_t push(struct bld *b, int r, int kind, int peer, int tag, uint32_t ref,
                            uint64_t bytes) {
  struct tutti_ev e = {.kind = (uint8_t)kind, .peer = peer, .tag = tag, .ref = ref, .bytes = bytes};
  uint32_t i = tutti__evlog_push(&b->logs[r], &e);
  cr_assert(i != UINT32_MAX);
  return i;
}

static inline uint32_t b_isend(struct bld *b, int r, int dst, int tag, uint64_t bytes) {
  return push(b, r, TUTTI_EV_SEND, dst, tag, 0, bytes);
}
static inline uint32_t b_irecv(struct bld *b, int r, int src, int tag) {
  return push(b, r, TUTTI_EV_RECV, src, tag, UNRESOLVED, 0);
}
static inline void b_wait(struct bld *b, int r, uint32_t op) {
  push(b, r, TUTTI_EV_WAIT, 0, 0, op, 0);
}
static inline void b_send(struct bld *b, int r, int dst, int tag, uint64_t bytes) {
  b_wait(b, r, b_isend(b, r, dst, tag, bytes));
}
static inline void b_recv(struct bld *b, int r, int src, int tag) {
  b_wait(b, r, b_irecv(b, r, src, tag));
}
static inline void b_sendrecv(struct bld *b, int r, int dst, int stag, uint64_t bytes, int src,
                              int rtag) {
  uint32_t s = b_isend(b, r, dst, stag, bytes);
  uint32_t q = b_irecv(b, r, src, rtag);
  b_wait(b, r, s);
  b_wait(b, r, q);
}
static inline void b_compute(struct bld *b, int r, double seconds) {
  uint32_t i = push(b, r, TUTTI_EV_COMPUTE, 0, 0, 0, 0);
  b->logs[r].ev[i].u.seconds = seconds;
}
static inline void b_reduce(struct bld *b, int r, uint64_t bytes) {
  push(b, r, TUTTI_EV_REDUCE, 0, 0, 0, bytes);
}
static inline void b_span(struct bld *b, int r, const char *name) {
  uint32_t i = push(b, r, TUTTI_EV_SPAN_BEGIN, 0, 0, 0, 0);
  b->logs[r].ev[i].u.name = name;
}
static inline void b_end(struct bld *b, int r) {
  push(b, r, TUTTI_EV_SPAN_END, 0, 0, 0, 0);
}

/* Resolve every receive: the k-th RECV at d for (s, t) names the k-th SEND
 * from s to d with tag t (and takes its size). */
static inline void bld_match(struct bld *b) {
  for (int d = 0; d < b->P; d++) {
    struct tutti_evlog *L = &b->logs[d];
    for (uint32_t j = 0; j < L->n; j++) {
      struct tutti_ev *e = &L->ev[j];
      if (e->kind != TUTTI_EV_RECV || e->ref != UNRESOLVED) continue;
      int k = 0;
      for (uint32_t i = 0; i < j; i++)
        k += L->ev[i].kind == TUTTI_EV_RECV && L->ev[i].peer == e->peer && L->ev[i].tag == e->tag;
      const struct tutti_evlog *S = &b->logs[e->peer];
      for (uint32_t i = 0; i < S->n; i++) {
        const struct tutti_ev *se = &S->ev[i];
        if (se->kind == TUTTI_EV_SEND && se->peer == d && se->tag == e->tag && k-- == 0) {
          e->ref = i;
          e->bytes = se->bytes;
          break;
        }
      }
      cr_assert(e->ref != UNRESOLVED, "rank %d event %u: no matching send", d, j);
    }
  }
}

#endif

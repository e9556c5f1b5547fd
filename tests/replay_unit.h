/*
 * replay_unit.h -- what the replay unit tests share (test_unit_replay*.c,
 * test_unit_contention.c):
 * replaying a hand-built log that must succeed, the models (Hockney,
 * postal, constant costs), a relative comparison of times, and the
 * broadcast patterns. Needs Criterion, internal.h and evlog_builder.h
 * included first.
 */
#ifndef TUTTI_TESTS_REPLAY_UNIT_H
#define TUTTI_TESTS_REPLAY_UNIT_H

#include <math.h>
#include <stdint.h>

#include "replay.h"

static inline struct tutti_replay *replay(struct bld *b, const tutti_model_t *m) {
  bld_match(b);
  struct tutti_replay *rp = NULL;
  char err[256];
  int rc = tutti__replay_run(m, b->P, b->ptrs, &rp, err, sizeof err);
  cr_assert(eq(int, rc, 0), "replay failed: %s", err);
  return rp;
}

/* ----------------------------------------------------------------- models */

static inline tutti_cost_t C0(double a, double bb) {
  return (tutti_cost_t){.floor = 0, .a = a, .b = bb};
}

static inline tutti_model_t hockney(double alpha, double beta) {
  tutti_model_t m = {.preset = TUTTI_MODEL_HOCKNEY, .params = {alpha, beta}};
  m.send_cpu = m.send_port = m.latency = m.recv_port = C0(alpha, beta);
  m.recv_cpu = C0(0, 0);
  m.eager_limit = 0;
  return m;
}

static inline tutti_model_t postal(double L) {
  tutti_model_t m = {.preset = TUTTI_MODEL_POSTAL, .params = {L}};
  m.send_cpu = m.send_port = m.recv_port = C0(1, 0);
  m.latency = C0(L, 0);
  m.recv_cpu = C0(0, 0);
  m.eager_limit = TUTTI_EAGER_ALL;
  return m;
}

/* a custom model with constant costs */
static inline tutti_model_t consts(double os, double sp, double lat, double rport, double orr,
                                   size_t eager_limit) {
  tutti_model_t m = {.preset = TUTTI_MODEL_CUSTOM};
  m.send_cpu = C0(os, 0);
  m.send_port = C0(sp, 0);
  m.latency = C0(lat, 0);
  m.recv_port = C0(rport, 0);
  m.recv_cpu = C0(orr, 0);
  m.eager_limit = eager_limit;
  return m;
}

#define US 1e-6
#define NEAR(got, want)                                                                            \
  cr_assert(epsilon_eq(dbl, (got), (want), 1e-12 * fabs((double)(want)) + 1e-20),                  \
            "%s = %.17g, want %.17g", #got, (double)(got), (double)(want))

/* ------------------------------------------------------- pattern builders */

static inline int ceil_log2(int P) {
  int k = 0;
  while ((1 << k) < P) k++;
  return k;
}

/* Binomial broadcast from 0, largest subtree first (as MPICH): rank r
 * receives from r - lowbit(r) and sends to r + mask for mask = lowbit/2 .. 1. */
static inline void binomial_bcast(struct bld *b, uint64_t bytes, int tag) {
  int P = b->P, top = 1 << ceil_log2(P);
  for (int r = 0; r < P; r++) {
    int low = r ? (r & -r) : top;
    if (r) b_recv(b, r, r - low, tag);
    for (int mask = low / 2; mask >= 1; mask /= 2)
      if (r + mask < P) b_send(b, r, r + mask, tag, bytes);
  }
}

static inline void flat_bcast(struct bld *b, uint64_t bytes) {
  for (int r = 1; r < b->P; r++) b_send(b, 0, r, 0, bytes);
  for (int r = 1; r < b->P; r++) b_recv(b, r, 0, 0);
}

#endif

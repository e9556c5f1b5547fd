/*
 * test_unit_replay.c -- the replay engine (runtime/replay.c) and its traces
 * (runtime/trace.c) on hand-built event logs: every worked example of
 * runtime/MODEL.md, each rule alone, closed forms for P = 1..64, determinism,
 * malformed logs, the report, the Chrome trace and the ASCII timeline.
 * The same rules on links: test_unit_contention.c; on the runtime's own
 * logs of whole runs: test_e2e_modeled.c.
 *
 * Logs are appended the way the runtime does it: a blocking send is SEND +
 * WAIT on it, a blocking receive RECV + WAIT, sendrecv SEND, RECV, WAIT,
 * WAIT. Receives are written first with an unknown ref and resolved at the
 * end by runtime/MODEL.md's matching rule (the k-th receive rank d posts for (s, t)
 * matches the k-th send from s to d with tag t), as the runtime records it.
 */
#include "internal.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

#include "evlog_builder.h"
#include "json_reader.h"

static struct tutti_replay *replay(struct bld *b, const tutti_model_t *m) {
  bld_match(b);
  struct tutti_replay *rp = NULL;
  char err[256];
  int rc = tutti__replay_run(m, b->P, b->ptrs, &rp, err, sizeof err);
  cr_assert(eq(int, rc, 0), "replay failed: %s", err);
  return rp;
}

static int replay_err(struct bld *b, const tutti_model_t *m, char *err, size_t n) {
  struct tutti_replay *rp = (struct tutti_replay *)1;
  int rc = tutti__replay_run(m, b->P, b->ptrs, &rp, err, n);
  cr_assert(rp == NULL);
  return rc;
}

/* ----------------------------------------------------------------- models */

static tutti_cost_t C0(double a, double bb) {
  return (tutti_cost_t){0, a, bb};
}

static tutti_model_t hockney(double alpha, double beta) {
  tutti_model_t m = {.preset = TUTTI_MODEL_HOCKNEY, .params = {alpha, beta}};
  m.send_cpu = m.send_port = m.latency = m.recv_port = C0(alpha, beta);
  m.recv_cpu = C0(0, 0);
  m.eager_limit = 0;
  return m;
}

static tutti_model_t postal(double L) {
  tutti_model_t m = {.preset = TUTTI_MODEL_POSTAL, .params = {L}};
  m.send_cpu = m.send_port = m.recv_port = C0(1, 0);
  m.latency = C0(L, 0);
  m.recv_cpu = C0(0, 0);
  m.eager_limit = TUTTI_EAGER_ALL;
  return m;
}

/* a custom model with constant costs */
static tutti_model_t consts(double os, double sp, double lat, double rport, double orr,
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
/* a message's times are in the replay's units (timebase.h): to seconds */
#define SEC(t) tutti__tu_to_s(t)
#define NEAR(got, want)                                                                            \
  cr_assert(epsilon_eq(dbl, (got), (want), 1e-12 * fabs((double)(want)) + 1e-20),                  \
            "%s = %.17g, want %.17g", #got, (double)(got), (double)(want))

/* ------------------------------------------------------- pattern builders */

static int ceil_log2(int P) {
  int k = 0;
  while ((1 << k) < P) k++;
  return k;
}

/* Binomial broadcast from 0, largest subtree first (as MPICH): rank r
 * receives from r - lowbit(r) and sends to r + mask for mask = lowbit/2 .. 1. */
static void binomial_bcast(struct bld *b, uint64_t bytes, int tag) {
  int P = b->P, top = 1 << ceil_log2(P);
  for (int r = 0; r < P; r++) {
    int low = r ? (r & -r) : top;
    if (r) b_recv(b, r, r - low, tag);
    for (int mask = low / 2; mask >= 1; mask /= 2)
      if (r + mask < P) b_send(b, r, r + mask, tag, bytes);
  }
}

static void flat_bcast(struct bld *b, uint64_t bytes) {
  for (int r = 1; r < b->P; r++) b_send(b, 0, r, 0, bytes);
  for (int r = 1; r < b->P; r++) b_recv(b, r, 0, 0);
}

static void flat_gather(struct bld *b, uint64_t bytes) {
  for (int r = 1; r < b->P; r++) b_send(b, r, 0, 0, bytes);
  for (int r = 1; r < b->P; r++) b_recv(b, 0, r, 0);
}

/* The optimal postal broadcast (Bar-Noy and Kipnis): at every step every
 * informed rank sends to a new one; a message sent at t arrives at t + L. */
static void fibonacci_bcast(struct bld *b, int L) {
  int P = b->P, next = 1;
  int *informed = calloc((size_t)P, sizeof *informed), *parent = calloc((size_t)P, sizeof *parent);
  for (int r = 1; r < P; r++) informed[r] = -1;
  for (int t = 0; next < P; t++)
    for (int r = 0; r < next && next < P; r++)
      if (informed[r] >= 0 && informed[r] <= t) {
        parent[next] = r;
        informed[next++] = t + L;
      }
  for (int r = 0; r < P; r++) {
    if (r) b_recv(b, r, parent[r], 0);
    for (int c = r + 1; c < P; c++)
      if (parent[c] == r) b_send(b, r, c, 0, 0);
  }
  free(informed);
  free(parent);
}

/* ------------------------------------------------ runtime/MODEL.md worked examples */

Test(model_examples, hockney_binomial_8, .timeout = 10) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(8);
  binomial_bcast(b, 1000, 0);
  struct tutti_replay *rp = replay(b, &m);
  NEAR(rp->modeled_time, 6 * US);
  tutti__replay_free(rp);
  bld_free(b);
}

Test(model_examples, hockney_binomial_5, .timeout = 10) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(5);
  binomial_bcast(b, 1000, 0);
  struct tutti_replay *rp = replay(b, &m);
  NEAR(rp->modeled_time, 6 * US);
  tutti__replay_free(rp);
  bld_free(b);
}

Test(model_examples, hockney_flat_bcast_8, .timeout = 10) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(8);
  flat_bcast(b, 1000);
  struct tutti_replay *rp = replay(b, &m);
  NEAR(rp->modeled_time, 14 * US);
  for (int r = 1; r < 8; r++) NEAR(rp->rank_end[r], 2 * r * US);
  tutti__replay_free(rp);
  bld_free(b);
}

Test(model_examples, hockney_flat_gather_8, .timeout = 10) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(8);
  flat_gather(b, 1000);
  struct tutti_replay *rp = replay(b, &m);
  NEAR(rp->modeled_time, 14 * US);
  NEAR(rp->rank_end[0], 14 * US);
  for (int r = 1; r < 8; r++) NEAR(rp->rank_end[r], 2 * r * US); /* served one by one */
  tutti__replay_free(rp);
  bld_free(b);
}

Test(model_examples, hockney_sendrecv_exchange, .timeout = 10) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(2);
  b_sendrecv(b, 0, 1, 0, 1000, 1, 0);
  b_sendrecv(b, 1, 0, 0, 1000, 0, 0);
  struct tutti_replay *rp = replay(b, &m);
  NEAR(rp->rank_end[0], 2 * US);
  NEAR(rp->rank_end[1], 2 * US);
  tutti__replay_free(rp);
  bld_free(b);
}

Test(model_examples, postal_flat_bcast_4, .timeout = 10) {
  tutti_model_t m = postal(2);
  struct bld *b = bld_new(4);
  flat_bcast(b, 0);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, rp->modeled_time, 4));
  for (int r = 1; r < 4; r++) {
    const struct tutti_replay_msg *msg = tutti__replay_msg(rp, 0, (uint32_t)(2 * (r - 1)));
    cr_assert(msg != NULL);
    cr_assert(eq(dbl, SEC(msg->start), r - 1));  /* sends start at 0, 1, 2 */
    cr_assert(eq(dbl, SEC(msg->arrive), r + 1)); /* and arrive at 2, 3, 4 */
    cr_assert(eq(dbl, rp->rank_end[r], r + 1));
  }
  tutti__replay_free(rp);
  bld_free(b);
}

Test(model_examples, postal_binomial_8, .timeout = 10) {
  tutti_model_t m = postal(2);
  struct bld *b = bld_new(8);
  binomial_bcast(b, 0, 0);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, rp->modeled_time, 6));
  tutti__replay_free(rp);
  bld_free(b);
}

Test(model_examples, postal_fibonacci_8, .timeout = 10) {
  tutti_model_t m = postal(2);
  /* F(t) = 1,1,2,3,5,8,13: P = F(t) reached at time t */
  static const int F[] = {1, 1, 2, 3, 5, 8, 13};
  for (int t = 2; t < 7; t++) {
    struct bld *b = bld_new(F[t]);
    fibonacci_bcast(b, 2);
    struct tutti_replay *rp = replay(b, &m);
    cr_assert(eq(dbl, rp->modeled_time, t), "P = %d", F[t]);
    tutti__replay_free(rp);
    bld_free(b);
  }
  struct bld *b = bld_new(8);
  fibonacci_bcast(b, 2);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, rp->modeled_time, 5));
  tutti__replay_free(rp);
  bld_free(b);
}

/* ------------------------------------------------------ each rule alone */

/* rules 1 and 3: below eager_limit the sender does not wait for the
 * receiver; at or above it the transfer waits for the receive. */
Test(rules, eager_vs_rendezvous, .timeout = 10) {
  tutti_model_t m = consts(1, 1, 5, 1, 0, 100);
  for (int rdv = 0; rdv < 2; rdv++) {
    struct bld *b = bld_new(2);
    b_send(b, 0, 1, 0, rdv ? 100 : 99);
    b_compute(b, 1, 10);
    b_recv(b, 1, 0, 0);
    struct tutti_replay *rp = replay(b, &m);
    const struct tutti_replay_msg *msg = tutti__replay_msg(rp, 0, 0);
    if (!rdv) {
      cr_assert(msg->flags & RPM_EAGER);
      cr_assert(eq(dbl, SEC(msg->start), 0));
      cr_assert(eq(dbl, rp->rank_end[0], 1));  /* s + O_s */
      cr_assert(eq(dbl, SEC(msg->ready), 5));  /* served at a = 5, buffered */
      cr_assert(eq(dbl, rp->rank_end[1], 10)); /* max(post 10, e 5) + 0 */
      cr_assert(eq(u64, rp->eager, 1));
    } else {
      cr_assert(eq(int, msg->flags &RPM_EAGER, 0));
      cr_assert(eq(dbl, SEC(msg->start), 10)); /* the receive posts at 10 */
      cr_assert(eq(dbl, rp->rank_end[0], 11));
      cr_assert(eq(dbl, rp->rank_end[1], 15)); /* s + L + O_r */
      cr_assert(eq(u64, rp->rendezvous, 1));
    }
    tutti__replay_free(rp);
    bld_free(b);
  }
  /* TUTTI_EAGER_ALL: any size is eager */
  tutti_model_t all = consts(1, 1, 5, 1, 0, TUTTI_EAGER_ALL);
  struct bld *b = bld_new(2);
  b_send(b, 0, 1, 0, UINT64_C(1) << 40);
  b_recv(b, 1, 0, 0);
  struct tutti_replay *rp = replay(b, &all);
  cr_assert(tutti__replay_msg(rp, 0, 0)->flags & RPM_EAGER);
  tutti__replay_free(rp);
  bld_free(b);
}

/* rule 1: the send port serializes transfers: s = max(C, SP), SP = s + S */
Test(rules, send_port_serialization, .timeout = 10) {
  tutti_model_t m = consts(1, 3, 5, 0, 0, TUTTI_EAGER_ALL);
  struct bld *b = bld_new(4);
  uint32_t q[3];
  for (int i = 0; i < 3; i++) q[i] = b_isend(b, 0, i + 1, 0, 8);
  for (int i = 0; i < 3; i++) b_wait(b, 0, q[i]);
  for (int r = 1; r < 4; r++) b_recv(b, r, 0, 0);
  struct tutti_replay *rp = replay(b, &m);
  for (int i = 0; i < 3; i++) {
    const struct tutti_replay_msg *msg = tutti__replay_msg(rp, 0, q[i]);
    cr_assert(eq(dbl, SEC(msg->start), 3 * i));
    cr_assert(eq(dbl, SEC(msg->sdone), 3 * i + 1));
    cr_assert(eq(dbl, rp->rank_end[i + 1], 3 * i + 5));
  }
  cr_assert(eq(dbl, rp->rank_end[0], 7));
  tutti__replay_free(rp);
  bld_free(b);
}

/* rule 2: the receive port serves in order of arrival, ties by source rank
 * then send order -- not in the order the receives were posted. */
Test(rules, recv_port_serialization_and_ties, .timeout = 10) {
  tutti_model_t m = consts(0, 0, 1, 2, 0, TUTTI_EAGER_ALL);
  struct bld *b = bld_new(4);
  for (int r = 1; r < 4; r++) b_send(b, r, 0, 0, 8);
  uint32_t q[4];
  for (int r = 3; r >= 1; r--) q[r] = b_irecv(b, 0, r, 0); /* posted in reverse */
  for (int r = 3; r >= 1; r--) b_wait(b, 0, q[r]);
  struct tutti_replay *rp = replay(b, &m);
  for (int r = 1; r < 4; r++) /* all arrive at 1: e = 2, 4, 6 by source rank */
    cr_assert(eq(dbl, tutti__replay_done(rp, 0, q[r]), 2 * r), "from %d", r);
  cr_assert(eq(dbl, rp->rank_end[0], 6));
  tutti__replay_free(rp);
  bld_free(b);

  /* same source, same arrival: send order */
  b = bld_new(2);
  b_isend(b, 1, 0, 5, 8);
  b_isend(b, 1, 0, 6, 8);
  uint32_t q6 = b_irecv(b, 0, 1, 6), q5 = b_irecv(b, 0, 1, 5);
  b_wait(b, 0, q6);
  b_wait(b, 0, q5);
  rp = replay(b, &m);
  cr_assert(eq(dbl, tutti__replay_done(rp, 0, q5), 2));
  cr_assert(eq(dbl, tutti__replay_done(rp, 0, q6), 4));
  tutti__replay_free(rp);
  bld_free(b);

  /* arrival order beats rank order */
  b = bld_new(3);
  b_compute(b, 1, 1);
  b_send(b, 1, 0, 0, 8); /* arrives at 2 */
  b_send(b, 2, 0, 0, 8); /* arrives at 1 */
  uint32_t a1 = b_irecv(b, 0, 1, 0), a2 = b_irecv(b, 0, 2, 0);
  b_wait(b, 0, a1);
  b_wait(b, 0, a2);
  rp = replay(b, &m);
  cr_assert(eq(dbl, tutti__replay_done(rp, 0, a2), 2)); /* max(1, 0 + 2) */
  cr_assert(eq(dbl, tutti__replay_done(rp, 0, a1), 4)); /* max(2, 2 + 2) */
  tutti__replay_free(rp);
  bld_free(b);
}

/* rule 3: a rendezvous transfer waits for both ports */
Test(rules, rendezvous_ports, .timeout = 10) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(3);
  uint32_t s1 = b_isend(b, 0, 1, 0, 1000), s2 = b_isend(b, 0, 2, 0, 1000);
  b_wait(b, 0, s1);
  b_wait(b, 0, s2);
  b_recv(b, 1, 0, 0);
  b_recv(b, 2, 0, 0);
  struct tutti_replay *rp = replay(b, &m);
  NEAR(SEC(tutti__replay_msg(rp, 0, s1)->start), 0);
  NEAR(SEC(tutti__replay_msg(rp, 0, s2)->start), 2 * US);
  NEAR(rp->rank_end[2], 4 * US);
  tutti__replay_free(rp);
  bld_free(b);
}

/* rule 4: a blocking send returns at s + O_s; O_r is added at the receiver */
Test(rules, blocking_send_and_recv_cpu, .timeout = 10) {
  /* logp L=5, o=1, g=2: O_s = 1, S = 2, L = 6, R = 2, O_r = 1 */
  tutti_model_t m = consts(1, 2, 6, 2, 1, TUTTI_EAGER_ALL);
  struct bld *b = bld_new(2);
  b_send(b, 0, 1, 0, 8);
  b_send(b, 0, 1, 0, 8);
  b_recv(b, 1, 0, 0);
  b_recv(b, 1, 0, 0);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, SEC(tutti__replay_msg(rp, 0, 0)->sdone), 1));
  cr_assert(eq(dbl, SEC(tutti__replay_msg(rp, 0, 2)->start), 2)); /* posted at 1, SP = 2 */
  cr_assert(eq(dbl, rp->rank_end[0], 3));
  cr_assert(eq(dbl, tutti__replay_done(rp, 1, 0), 7)); /* e = 6, + O_r */
  cr_assert(eq(dbl, tutti__replay_done(rp, 1, 2), 9)); /* e = max(8, 6 + 2), + O_r */
  tutti__replay_free(rp);
  bld_free(b);
}

/* rule 5: a nonblocking send overlaps local work */
Test(rules, nonblocking_overlap, .timeout = 10) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  for (int nb = 0; nb < 2; nb++) {
    struct bld *b = bld_new(2);
    if (nb) {
      uint32_t s = b_isend(b, 0, 1, 0, 1000);
      b_compute(b, 0, 5 * US);
      b_wait(b, 0, s);
    } else {
      b_send(b, 0, 1, 0, 1000);
      b_compute(b, 0, 5 * US);
    }
    b_recv(b, 1, 0, 0);
    struct tutti_replay *rp = replay(b, &m);
    NEAR(rp->rank_end[0], nb ? 5 * US : 7 * US);
    NEAR(rp->rank_end[1], 2 * US);
    tutti__replay_free(rp);
    bld_free(b);
  }
}

/* rule 6: reduce_local costs gamma * bytes; compute adds its time */
Test(rules, gamma_and_compute, .timeout = 10) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  m.gamma = 1e-9;
  struct bld *b = bld_new(1);
  b_reduce(b, 0, 1000);
  b_compute(b, 0, 2.5 * US);
  struct tutti_replay *rp = replay(b, &m);
  NEAR(rp->rank_end[0], 3.5 * US);
  cr_assert(eq(dbl, rp->rank_end[0], 1e-9 * 1000.0 + 2.5 * US)); /* exactly that sum */
  tutti__replay_free(rp);
  bld_free(b);
}

/* rule 4: the clock never goes back; a wait on a finished op costs nothing */
Test(rules, clock_never_goes_back, .timeout = 10) {
  tutti_model_t m = postal(2);
  struct bld *b = bld_new(2);
  b_send(b, 0, 1, 0, 0);
  b_compute(b, 1, 10);
  b_recv(b, 1, 0, 0);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, rp->rank_end[1], 10));
  tutti__replay_free(rp);
  bld_free(b);
}

/* A failed receive is never matched: its wait completes at once. */
Test(rules, failed_recv_is_skipped, .timeout = 10) {
  tutti_model_t m = postal(2);
  struct bld *b = bld_new(2);
  uint32_t q = push(b, 1, TUTTI_EV_RECV, 0, 0, 12345, 8);
  b->logs[1].ev[q].flags = TUTTI_EVF_FAILED;
  b_wait(b, 1, q);
  b_compute(b, 1, 1);
  push(b, 0, TUTTI_EV_RECV, 1, 0, UINT32_MAX, 0); /* posted, never matched */
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, rp->rank_end[1], 1));
  cr_assert(isnan(tutti__replay_done(rp, 1, q)));
  cr_assert(isnan(tutti__replay_done(rp, 0, 0)));
  tutti__replay_free(rp);
  bld_free(b);
}

/* rule 7: a call's time is its last finish minus its last entry */
Test(rules, call_times, .timeout = 10) {
  tutti_model_t m = postal(2);
  struct bld *b = bld_new(2);
  double c[2][2] = {{1, 2}, {3, 1}}; /* [rank][call] */
  for (int r = 0; r < 2; r++)
    for (int k = 0; k < 2; k++) {
      b_span(b, r, k ? "b" : "a");
      b_compute(b, r, c[r][k]);
      b_end(b, r);
    }
  b_compute(b, 0, 10);
  struct tutti_replay *rp = replay(b, &m);
  tutti_report_t rep;
  cr_assert(eq(int, tutti__replay_report(rp, &rep), 0));
  cr_assert(eq(int, rep.ncalls, 2));
  cr_assert(eq(str, (char *)rep.calls[0].name, "a"));
  cr_assert(eq(dbl, rep.calls[0].entry_min, 0));
  cr_assert(eq(dbl, rep.calls[0].entry_max, 0));
  cr_assert(eq(dbl, rep.calls[0].finish_max, 3));
  cr_assert(eq(dbl, rep.calls[0].time, 3));
  cr_assert(eq(dbl, rep.calls[1].entry_min, 1));
  cr_assert(eq(dbl, rep.calls[1].entry_max, 3));
  cr_assert(eq(dbl, rep.calls[1].finish_max, 4));
  cr_assert(eq(dbl, rep.calls[1].time, 1));
  cr_assert(eq(dbl, rep.rank_last_call[0], 3));
  cr_assert(eq(dbl, rep.rank_last_call[1], 4));
  cr_assert(eq(dbl, rep.rank_end[0], 13));
  cr_assert(eq(dbl, rep.modeled_time, 13));
  cr_assert(eq(u64, rep.events, 13));
  tutti__replay_free(rp);
  bld_free(b);
}

/* rule 7 with messages: consecutive broadcasts keep their clocks */
Test(rules, consecutive_calls, .timeout = 10) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(8);
  for (int k = 0; k < 3; k++) {
    for (int r = 0; r < 8; r++) b_span(b, r, "bcast");
    binomial_bcast(b, 1000, k);
    for (int r = 0; r < 8; r++) b_end(b, r);
  }
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(int, rp->ncalls, 3));
  for (int k = 0; k < 3; k++) {
    NEAR(rp->calls[k].time, 6 * US);
    NEAR(rp->calls[k].finish_max, 6 * (k + 1) * US);
  }
  tutti__replay_free(rp);
  bld_free(b);
}

/* ----------------------------------------------------------- closed forms */

Test(closed_forms, hockney_p1_to_64, .timeout = 60) {
  const double a = 1 * US, beta = 1e-9, m = 1000, t = a + beta * m;
  tutti_model_t model = hockney(a, beta);
  for (int P = 1; P <= 64; P++) {
    struct bld *b = bld_new(P);
    flat_bcast(b, 1000);
    struct tutti_replay *rp = replay(b, &model);
    NEAR(rp->modeled_time, (P - 1) * t);
    tutti__replay_free(rp);
    bld_free(b);

    b = bld_new(P);
    binomial_bcast(b, 1000, 0);
    rp = replay(b, &model);
    NEAR(rp->modeled_time, ceil_log2(P) * t);
    tutti__replay_free(rp);
    bld_free(b);

    b = bld_new(P);
    flat_gather(b, 1000);
    rp = replay(b, &model);
    NEAR(rp->modeled_time, (P - 1) * t);
    tutti__replay_free(rp);
    bld_free(b);
  }
}

Test(closed_forms, postal_flat_p1_to_64, .timeout = 60) {
  for (int L = 1; L <= 4; L++) {
    tutti_model_t model = postal(L);
    for (int P = 1; P <= 64; P++) {
      struct bld *b = bld_new(P);
      flat_bcast(b, 0);
      struct tutti_replay *rp = replay(b, &model);
      cr_assert(eq(dbl, rp->modeled_time, P == 1 ? 0 : (P - 2) + L), "P = %d L = %d", P, L);
      tutti__replay_free(rp);
      bld_free(b);
    }
  }
}

/* ----------------------------------------------------------- determinism */

static uint64_t rng_next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

/* Rounds of random pairs exchanging random sizes (eager and rendezvous),
 * with some local work. rank_major: append rank by rank instead of round
 * by round (same per-rank order, another construction interleaving). */
static struct bld *random_pairs(int P, int rounds, uint64_t seed, int rank_major) {
  struct bld *b = bld_new(P);
  int *perm = malloc((size_t)P * sizeof *perm);
  uint64_t *sizes = malloc((size_t)P * sizeof *sizes);
  struct op {
    int peer;
    uint64_t bytes;
  } *plan = malloc((size_t)P * (size_t)rounds * sizeof *plan);
  for (int k = 0; k < rounds; k++) {
    for (int i = 0; i < P; i++) perm[i] = i;
    for (int i = P - 1; i > 0; i--) {
      int j = (int)(rng_next(&seed) % (uint64_t)(i + 1)), t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    for (int i = 0; i < P; i++) sizes[i] = rng_next(&seed) % 3000;
    for (int i = 0; i < P; i++) plan[k * P + i] = (struct op){-1, 0};
    for (int i = 0; i + 1 < P; i += 2) {
      plan[k * P + perm[i]] = (struct op){perm[i + 1], sizes[perm[i]]};
      plan[k * P + perm[i + 1]] = (struct op){perm[i], sizes[perm[i + 1]]};
    }
  }
  for (int outer = 0; outer < (rank_major ? P : rounds); outer++)
    for (int inner = 0; inner < (rank_major ? rounds : P); inner++) {
      int r = rank_major ? outer : inner, k = rank_major ? inner : outer;
      struct op o = plan[k * P + r];
      if (o.peer < 0)
        b_compute(b, r, 1e-6 * (r % 3));
      else
        b_sendrecv(b, r, o.peer, k, o.bytes, o.peer, k);
      if (r % 5 == 0) b_reduce(b, r, 100);
    }
  free(perm);
  free(sizes);
  free(plan);
  return b;
}

static tutti_model_t mixed_model(void) {
  tutti_model_t m = {.preset = TUTTI_MODEL_CUSTOM};
  m.send_cpu = (tutti_cost_t){0.3e-6, 0.2e-6, 0.1e-9};
  m.send_port = (tutti_cost_t){0.5e-6, 0.4e-6, 0.5e-9};
  m.latency = (tutti_cost_t){0, 1.1e-6, 0.7e-9};
  m.recv_port = (tutti_cost_t){0.2e-6, 0.1e-6, 0.6e-9};
  m.recv_cpu = (tutti_cost_t){0, 0.05e-6, 0.01e-9};
  m.gamma = 0.3e-9;
  m.eager_limit = 1500;
  return m;
}

Test(determinism, replay_twice_bit_identical, .timeout = 30) {
  tutti_model_t m = mixed_model();
  struct bld *b = random_pairs(61, 50, 42, 0);
  struct tutti_replay *r1 = replay(b, &m), *r2 = replay(b, &m);
  cr_assert(r1->eager > 0 && r1->rendezvous > 0);
  cr_assert(eq(u32, r1->nmsgs, r2->nmsgs));
  cr_assert(memcmp(r1->msgs, r2->msgs, r1->nmsgs * sizeof *r1->msgs) == 0);
  cr_assert(memcmp(r1->rank_end, r2->rank_end, 61 * sizeof(double)) == 0);
  tutti__replay_free(r1);
  tutti__replay_free(r2);
  bld_free(b);
}

Test(determinism, construction_order_does_not_matter, .timeout = 30) {
  tutti_model_t m = mixed_model();
  struct bld *a = random_pairs(64, 40, 7, 0), *b = random_pairs(64, 40, 7, 1);
  struct tutti_replay *ra = replay(a, &m), *rb = replay(b, &m);
  for (int r = 0; r < 64; r++) {
    cr_assert(eq(u32, a->logs[r].n, b->logs[r].n));
    cr_assert(memcmp(a->logs[r].ev, b->logs[r].ev, a->logs[r].n * sizeof(struct tutti_ev)) == 0);
  }
  cr_assert(memcmp(ra->msgs, rb->msgs, ra->nmsgs * sizeof *ra->msgs) == 0);
  cr_assert(memcmp(ra->rank_end, rb->rank_end, 64 * sizeof(double)) == 0);
  cr_assert(ra->modeled_time > 0);
  tutti__replay_free(ra);
  tutti__replay_free(rb);
  bld_free(a);
  bld_free(b);
}

/* The first pass on one thread per CPU (past tutti__replay_wide_events)
 * gives what it gives on one: the same ops, messages and times. */
Test(determinism, wide_first_pass_equals_narrow, .timeout = 30) {
  tutti_model_t m = mixed_model();
  struct bld *b = random_pairs(61, 50, 42, 0);
  uint64_t keep = tutti__replay_wide_events;
  tutti__replay_wide_events = UINT64_MAX;
  struct tutti_replay *one = replay(b, &m);
  tutti__replay_wide_events = 0;
  struct tutti_replay *wide = replay(b, &m);
  tutti__replay_wide_events = keep;
  cr_assert(eq(u64, one->events, wide->events));
  cr_assert(memcmp(one->ops, wide->ops, one->events * sizeof *one->ops) == 0);
  cr_assert(eq(u32, one->nmsgs, wide->nmsgs));
  cr_assert(memcmp(one->msgs, wide->msgs, one->nmsgs * sizeof *one->msgs) == 0);
  cr_assert(memcmp(one->rank_end, wide->rank_end, 61 * sizeof(double)) == 0);
  cr_assert(eq(int, one->ncalls, wide->ncalls));
  tutti__replay_free(one);
  tutti__replay_free(wide);
  bld_free(b);
}

/* ... and the same first error, in rank order, wherever the ranks are cut. */
Test(errors, wide_first_pass_reports_the_lowest_rank, .timeout = 30) {
  tutti_model_t m = mixed_model();
  const int bad[][2] = {{2, 57}, {57, -1}, {0, 60}};
  for (int c = 0; c < 3; c++) {
    char want[256], got[256];
    struct bld *b = random_pairs(61, 20, 5, 0);
    for (int k = 0; k < 2; k++)
      if (bad[c][k] >= 0) push(b, bad[c][k], TUTTI_EV_WAIT, 0, 0, 1u << 30, 0); /* a later event */
    uint64_t keep = tutti__replay_wide_events;
    tutti__replay_wide_events = UINT64_MAX;
    cr_assert(eq(int, replay_err(b, &m, want, sizeof want), TUTTI_EINVAL));
    tutti__replay_wide_events = 0;
    cr_assert(eq(int, replay_err(b, &m, got, sizeof got), TUTTI_EINVAL));
    tutti__replay_wide_events = keep;
    char rank[32];
    snprintf(rank, sizeof rank, "rank %d event", bad[c][0]);
    cr_assert(not(eq(ptr, strstr(want, rank), NULL)), "%s", want);
    cr_assert(eq(str, got, want));
    bld_free(b);
  }
}

/* ----------------------------------------------------------- bad logs */

Test(errors, bad_logs, .timeout = 10) {
  tutti_model_t m = postal(2);
  char err[256];

  struct bld *b = bld_new(1); /* a WAIT on a later event */
  push(b, 0, TUTTI_EV_WAIT, 0, 0, 3, 0);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "WAIT") != NULL, "%s", err);
  bld_free(b);

  b = bld_new(1); /* a WAIT on a COMPUTE */
  b_compute(b, 0, 1);
  push(b, 0, TUTTI_EV_WAIT, 0, 0, 0, 0);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  bld_free(b);

  b = bld_new(2); /* a RECV naming a send with another tag */
  b_send(b, 0, 1, 3, 8);
  push(b, 1, TUTTI_EV_RECV, 0, 4, 0, 8);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "not a SEND") != NULL, "%s", err);
  bld_free(b);

  b = bld_new(2); /* received twice */
  b_send(b, 0, 1, 0, 8);
  push(b, 1, TUTTI_EV_RECV, 0, 0, 0, 8);
  push(b, 1, TUTTI_EV_RECV, 0, 0, 0, 8);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "already received") != NULL, "%s", err);
  bld_free(b);

  b = bld_new(2); /* peer out of range */
  b_send(b, 0, 7, 0, 8);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  bld_free(b);

  b = bld_new(2); /* spans differ */
  b_span(b, 0, "bcast");
  b_end(b, 0);
  b_span(b, 1, "reduce");
  b_end(b, 1);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "reduce") != NULL && strstr(err, "bcast") != NULL, "%s", err);
  bld_free(b);

  b = bld_new(2); /* a span missing on one rank */
  b_span(b, 0, "bcast");
  b_end(b, 0);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  bld_free(b);

  b = bld_new(1); /* nested spans */
  b_span(b, 0, "a");
  b_span(b, 0, "b");
  b_end(b, 0);
  b_end(b, 0);
  cr_assert(eq(int, replay_err(b, &m, err, sizeof err), TUTTI_EINVAL));
  bld_free(b);

  tutti_model_t h = hockney(1 * US, 1e-9); /* a rendezvous send nobody receives */
  b = bld_new(2);
  b_send(b, 0, 1, 0, 8);
  cr_assert(eq(int, replay_err(b, &h, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "cannot finish") != NULL && strstr(err, "rank 0") != NULL, "%s", err);
  bld_free(b);

  tutti_model_t bad = postal(2); /* a negative cost */
  bad.latency = (tutti_cost_t){-1, -1, 0};
  b = bld_new(1);
  cr_assert(eq(int, replay_err(b, &bad, err, sizeof err), TUTTI_EINVAL));
  bld_free(b);

  /* a topology must be bound to exactly the replay's ranks */
  tutti_topo_t *t = NULL;
  cr_assert(eq(int, tutti_topo_from_spec("tree:2", NULL, &t, err, sizeof err), 0), "%s", err);
  tutti_model_t topo = postal(2);
  topo.topo = t;
  b = bld_new(2);
  cr_assert(eq(int, replay_err(b, &topo, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "not bound") != NULL, "%s", err);
  bld_free(b);
  cr_assert(eq(int, tutti_topo_bind_text(t, 2, NULL, 0, err, sizeof err), 0), "%s", err);
  b = bld_new(1);
  cr_assert(eq(int, replay_err(b, &topo, err, sizeof err), TUTTI_EINVAL));
  cr_assert(strstr(err, "bound to 2 ranks but the world has 1") != NULL, "%s", err);
  bld_free(b);
  tutti_topo_free(t);
}

/* An eager message nobody receives still passes through the ports. */
Test(errors, unreceived_eager_is_fine, .timeout = 10) {
  tutti_model_t m = consts(0, 0, 1, 2, 0, TUTTI_EAGER_ALL);
  struct bld *b = bld_new(3);
  b_send(b, 1, 0, 0, 8); /* never received; arrives at 1, served at 2 */
  b_compute(b, 2, 1);
  b_send(b, 2, 0, 0, 8); /* arrives at 2, served at 4 */
  b_recv(b, 0, 2, 0);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, rp->rank_end[0], 4));
  tutti__replay_free(rp);
  bld_free(b);
}

/* ----------------------------------------------------------- report API */

Test(report, world_wrappers, .timeout = 10) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(8);
  for (int r = 0; r < 8; r++) b_span(b, r, "bcast");
  binomial_bcast(b, 1000, 0);
  for (int r = 0; r < 8; r++) b_end(b, r);
  struct tutti_replay *rp = replay(b, &m);

  struct tutti_world w;
  memset(&w, 0, sizeof w);
  w.nranks = 8;
  w.record = true;
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(&w, &rep), TUTTI_ENOTSUP));
  cr_assert(eq(int, tutti_world_report(NULL, &rep), TUTTI_EINVAL));
  w.replay = rp;
  cr_assert(eq(int, tutti_world_report(&w, &rep), 0));
  cr_assert(eq(int, rep.nranks, 8));
  cr_assert(eq(int, rep.ncalls, 1));
  NEAR(rep.calls[0].time, 6 * US);
  cr_assert(eq(u64, rep.messages, 7));
  cr_assert(eq(u64, rep.bytes, 7000));
  cr_assert(eq(u64, rep.rendezvous, 7));
  cr_assert(eq(u64, rep.events, 8 * 2 + 7 * 4));
  cr_assert(rep.replay_bytes > 0 && rep.replay_wall_time >= 0);
  for (int r = 0; r < 8; r++) NEAR(rep.rank_last_call[r], rep.rank_end[r]);
  w.running = true;
  cr_assert(eq(int, tutti_world_report(&w, &rep), TUTTI_EBUSY));
  w.running = false;

  FILE *f = tmpfile();
  cr_assert(eq(int, tutti_world_trace(&w, f), 0));
  cr_assert(eq(int, tutti_world_timeline(&w, f, 40), 0));
  fclose(f);
  tutti__replay_free(rp);
  bld_free(b);
}

/* --------------------------------------------------------------- traces */

static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

static char *trace_text(const struct tutti_replay *rp) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(f != NULL);
  cr_assert(eq(int, tutti__replay_trace(rp, f), 0));
  fclose(f);
  return buf;
}

Test(trace, chrome_json_well_formed, .timeout = 30) {
  tutti_model_t m = mixed_model();
  struct bld *b = random_pairs(16, 10, 3, 0);
  for (int r = 0; r < 16; r++) {
    b_span(b, r, "a \"quoted\" call\\");
    b_compute(b, r, 2e-6);
    b_end(b, r);
  }
  b_send(b, 0, 1, 9, 1024); /* one isend that is never waited for */
  b_isend(b, 2, 3, 9, 8);
  b_recv(b, 1, 0, 9);
  b_recv(b, 3, 2, 9);
  struct tutti_replay *rp = replay(b, &m);
  char *txt = trace_text(rp);
  cr_assert(json_parse(txt).ok, "trace is not JSON");
  cr_assert(strstr(txt, "{\"traceEvents\":[") != NULL);
  cr_assert(strstr(txt, "\"displayTimeUnit\":\"ns\"") != NULL);
  cr_assert(eq(int, count(txt, "\"ph\":\"s\""), (int)rp->messages));
  cr_assert(eq(int, count(txt, "\"ph\":\"f\",\"bp\":\"e\""), (int)rp->messages));
  cr_assert(eq(int, count(txt, "\"name\":\"thread_name\""), 16));
  cr_assert(strstr(txt, "\"rank 15\"") != NULL);
  cr_assert(strstr(txt, "\"send 1 KiB to 1, tag 9\"") != NULL, "%s", txt);
  cr_assert(strstr(txt, "\"recv 8 B from 2, tag 9\"") != NULL);
  cr_assert(strstr(txt, "\"compute 2 us\"") != NULL);
  cr_assert(strstr(txt, "\"reduce 100 B\"") != NULL);
  cr_assert(eq(int, count(txt, "\"cat\":\"call\""), 16));
  free(txt);
  tutti__replay_free(rp);
  bld_free(b);
}

/* In the trace a rank's slices never partially overlap (Perfetto needs
 * them nested): sends, receives and compute slices tile each rank. */
Test(trace, slices_do_not_overlap, .timeout = 30) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(8);
  flat_bcast(b, 1000);
  struct tutti_replay *rp = replay(b, &m);
  char *txt = trace_text(rp);
  double last_end[8] = {0};
  for (const char *p = txt; (p = strstr(p, "\"ph\":\"X\"")); p++) {
    int tid;
    double ts, dur;
    const char *q = strstr(p, "\"tid\":");
    cr_assert(q != NULL && sscanf(q, "\"tid\":%d,\"ts\":%lf,\"dur\":%lf", &tid, &ts, &dur) == 3);
    cr_assert(ts >= last_end[tid] - 1e-9, "rank %d: slice at %g before %g", tid, ts, last_end[tid]);
    last_end[tid] = ts + dur;
  }
  cr_assert(strstr(txt, "\"ts\":12.000000,\"dur\":2.000000") != NULL); /* root's 7th send */
  free(txt);
  tutti__replay_free(rp);
  bld_free(b);
}

static char *timeline_text(const struct tutti_replay *rp, int width) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(f != NULL);
  cr_assert(eq(int, tutti__replay_timeline(rp, f, width), 0));
  fclose(f);
  return buf;
}

static int rows(const char *txt) {
  int n = 0;
  for (const char *p = txt; p; p = strchr(p, '\n')) {
    if (*p == '\n') p++;
    if (p[0] == 'r' && p[1] >= '0' && p[1] <= '9') n++;
  }
  return n;
}

Test(trace, timeline_rows, .timeout = 30) {
  tutti_model_t m = hockney(1 * US, 1e-9);
  struct bld *b = bld_new(8);
  flat_bcast(b, 1000);
  b_compute(b, 3, 4 * US);
  struct tutti_replay *rp = replay(b, &m);
  char *txt = timeline_text(rp, 56);
  cr_assert(eq(int, rows(txt), 8), "%s", txt);
  cr_assert(strstr(txt, "r0    |SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS|") != NULL,
            "%s", txt);
  cr_assert(strstr(txt, "r1    |RRRRRRRR      ") != NULL, "%s", txt); /* receives [0, 2] of 14 us */
  cr_assert(strstr(txt, "r3    |................RRRRRRRRCCCCCCCCCCCCCCCC       ") != NULL, "%s",
            txt);
  cr_assert(strstr(txt, "14 us") != NULL, "%s", txt);
  free(txt);
  tutti__replay_free(rp);
  bld_free(b);

  b = bld_new(40);
  binomial_bcast(b, 1000, 0);
  rp = replay(b, &m);
  txt = timeline_text(rp, 0);
  cr_assert(eq(int, rows(txt), 32), "%s", txt);
  cr_assert(strstr(txt, "first 32 of 40") != NULL, "%s", txt);
  free(txt);
  tutti__replay_free(rp);
  bld_free(b);
}

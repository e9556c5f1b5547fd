/*
 * test_unit_replay.c -- the replay engine (runtime/replay.c) on hand-built
 * event logs, against runtime/MODEL.md: every worked example, each rule
 * alone, closed forms for P = 1..64. Determinism, malformed logs, the
 * report and the traces: test_unit_replay_report.c. The same rules on
 * links: test_unit_contention.c; on the runtime's own logs of whole runs:
 * test_e2e_modeled.c.
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
#include "replay_unit.h"

/* a message's times are in the replay's units (timebase.h): to seconds */
#define SEC(t) tutti__tu_to_s(t)

/* ------------------------------------------------------- pattern builders */

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

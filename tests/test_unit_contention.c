/*
 * test_unit_contention.c -- runtime/MODEL.md "Topology (links and contention)" in
 * the replay, on synthetic event logs with hand-computed link times: two
 * flows into one link, a slow link after a fast one, opposite directions
 * of a full-duplex link, a shared middle link, a message to oneself, two
 * rendezvous flows. Whole runs on links: test_e2e_contention.c.
 */
#include "internal.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

/* ------------------------------------------------------------ topologies */

#include "topo_helpers.h"

/* The id of the link named `name` ("s0 -> root"), by its name. */
static int link_id(const tutti_topo_t *t, const char *name) {
  for (int l = 0; l < tutti_topo_nlinks(t); l++) {
    char buf[160];
    cr_assert(eq(int, tutti_topo_link_name(t, l, buf, sizeof buf), 0));
    if (!strcmp(buf, name)) return l;
  }
  cr_fatal("no link named '%s'", name);
  return -1;
}

#include "evlog_builder.h" /* all messages here use tag 0 */
#include "replay_unit.h"   /* replay(): a replay that must succeed */

/* Every cost 0 but the latency beta*m, all eager: link times by hand. */
static tutti_model_t wire(double beta) {
  tutti_model_t m = {.preset = TUTTI_MODEL_CUSTOM};
  m.latency = (tutti_cost_t){.floor = 0, .a = 0, .b = beta};
  m.eager_limit = TUTTI_EAGER_ALL;
  return m;
}

static tutti_link_stats_t stats(const struct tutti_replay *rp, const tutti_topo_t *t,
                                const char *name) {
  tutti_link_stats_t st;
  cr_assert(eq(int, tutti_linkset_stats(rp->links, link_id(t, name), &st), 0));
  return st;
}

/* The arrival (data complete at the receiver) of src's idx-th event. */
static double arrive(const struct tutti_replay *rp, int src, uint32_t idx) {
  const struct tutti_replay_msg *msg = tutti__replay_msg(rp, src, idx);
  cr_assert(msg != NULL);
  return tutti__tu_to_s(msg->arrive); /* units (timebase.h) to seconds */
}

/* --------------------------------------------- hand-computed examples */

/* tree:4 (one switch): ranks 0 and 1 each send 10 B to rank 2 at 0, at
 * 1 s/B. Both heads reach s0 -> leaf 2 at 0; rank 0 goes first (rule 8),
 * arrives at 10; rank 1's head waits until 10, arrives at 20. */
Test(links, two_flows_into_one_link, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:4", NULL, 3, NULL, 1.0);
  tutti_model_t m = wire(1.0);
  m.topo = t;
  struct bld *b = bld_new(3);
  b_send(b, 0, 2, 0, 10);
  b_send(b, 1, 2, 0, 10);
  b_recv(b, 2, 0, 0);
  b_recv(b, 2, 1, 0);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, arrive(rp, 0, 0), 10));
  cr_assert(eq(dbl, arrive(rp, 1, 0), 20));
  cr_assert(eq(dbl, rp->rank_end[2], 20));
  tutti_link_stats_t st = stats(rp, t, "s0 -> leaf 2 (rank 2)");
  cr_assert(eq(u64, st.messages, 2));
  cr_assert(eq(dbl, st.bytes, 20));
  cr_assert(eq(dbl, st.busy, 20));
  cr_assert(eq(dbl, st.wait, 10));
  cr_assert(eq(int, st.max_queue, 2));
  st = stats(rp, t, "leaf 1 (rank 1) -> s0"); /* its own link: no queue */
  cr_assert(eq(int, st.max_queue, 1));
  cr_assert(eq(dbl, st.wait, 0));
  /* without the topology both arrive at 10 */
  tutti_model_t plain = wire(1.0);
  struct tutti_replay *p0 = replay(b, &plain);
  cr_assert(eq(dbl, arrive(p0, 1, 0), 10));
  cr_assert(eq(ptr, p0->links, NULL));
  tutti__replay_free(p0);
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);
}

/* tree:2x2, rank 0 (leaf 0) to rank 2 (leaf 2): up leaf 0 (lat 1, 1 s/B),
 * up s0 (lat 5, 2 s/B), down s1 (lat 5, 2 s/B), down leaf 2 (lat 1,
 * 1 s/B); 10 B. runtime/MODEL.md's recurrence, h_0 = e_0 = 0:
 *   h1 = 0,  e1 = max(0 + 10, 0)       = 10
 *   h2 = 1,  e2 = max(1 + 20, 10 + 1)  = 21   the slow link sets the pace
 *   h3 = 6,  e3 = max(6 + 20, 21 + 5)  = 26
 *   h4 = 11, e4 = max(11 + 10, 26 + 5) = 31   a fast link after a slow one
 *   complete: e4 + lat4 = 32 */
Test(links, slow_link_after_fast_one, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:2x2", "1s/1B/s, 5s/0.5B/s", 4, NULL, 0);
  tutti_model_t m = wire(1.0);
  m.topo = t;
  struct bld *b = bld_new(4);
  b_send(b, 0, 2, 0, 10);
  b_recv(b, 2, 0, 0);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, arrive(rp, 0, 0), 32));
  cr_assert(eq(dbl, rp->rank_end[2], 32));
  tutti_link_stats_t st = stats(rp, t, "root -> s1");
  cr_assert(eq(dbl, st.busy, 26 - 6)); /* e3 - h3 */
  st = stats(rp, t, "s1 -> leaf 2 (rank 2)");
  cr_assert(eq(dbl, st.busy, 31 - 11)); /* held until the tail left it */
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);
}

/* Full duplex: 0 -> 2 and 2 -> 0 at once over s0 <-> root <-> s1 do not
 * interfere: both arrive at 10, as alone; each direction carries one. */
Test(links, opposite_directions_do_not_interfere, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:2x2", NULL, 4, NULL, 1.0);
  tutti_model_t m = wire(1.0);
  m.topo = t;
  struct bld *b = bld_new(4);
  uint32_t s0 = b_isend(b, 0, 2, 0, 10), r0 = b_irecv(b, 0, 2, 0);
  uint32_t s2 = b_isend(b, 2, 0, 0, 10), r2 = b_irecv(b, 2, 0, 0);
  b_wait(b, 0, s0), b_wait(b, 0, r0), b_wait(b, 2, s2), b_wait(b, 2, r2);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, arrive(rp, 0, s0), 10));
  cr_assert(eq(dbl, arrive(rp, 2, s2), 10));
  const char *names[] = {"s0 -> root", "root -> s0", "root -> s1", "s1 -> root"};
  for (int i = 0; i < 4; i++) {
    tutti_link_stats_t st = stats(rp, t, names[i]);
    cr_assert(eq(u64, st.messages, 1), "%s", names[i]);
    cr_assert(eq(int, st.max_queue, 1), "%s", names[i]);
    cr_assert(eq(dbl, st.wait, 0), "%s", names[i]);
  }
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);
}

/* 0 -> 2 and 1 -> 3 share s0 -> root and root -> s1 (cut-through): the
 * second waits at s0 -> root until 10, then follows 10 behind, arriving
 * at 20; its own leaf links are idle. */
Test(links, shared_middle_link, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:2x2", NULL, 4, NULL, 1.0);
  tutti_model_t m = wire(1.0);
  m.topo = t;
  struct bld *b = bld_new(4);
  b_send(b, 0, 2, 0, 10);
  b_send(b, 1, 3, 0, 10);
  b_recv(b, 2, 0, 0);
  b_recv(b, 3, 1, 0);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, arrive(rp, 0, 0), 10));
  cr_assert(eq(dbl, arrive(rp, 1, 0), 20));
  tutti_link_stats_t st = stats(rp, t, "s0 -> root");
  cr_assert(eq(int, st.max_queue, 2));
  cr_assert(eq(dbl, st.wait, 10));
  st = stats(rp, t, "root -> s1"); /* the second head arrives as the first leaves */
  cr_assert(eq(int, st.max_queue, 1));
  cr_assert(eq(dbl, st.wait, 0));
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);
}

/* A message to oneself has an empty path: complete at s + L(0)
 * (topo/README.md), here 0; with latency L(0) = 3, at 3. */
Test(links, message_to_oneself, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:2", NULL, 2, NULL, 1.0);
  tutti_model_t m = wire(1.0);
  m.latency.a = 3;
  m.topo = t;
  struct bld *b = bld_new(2);
  uint32_t s = b_isend(b, 0, 0, 0, 10), r = b_irecv(b, 0, 0, 0);
  b_wait(b, 0, s), b_wait(b, 0, r);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, arrive(rp, 0, s), 3));
  tutti_report_t rep;
  cr_assert(eq(int, tutti__replay_report(rp, &rep), 0));
  cr_assert(eq(int, rep.links_used, 0));
  cr_assert(eq(int, rep.nlinks, 4));
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);
}

/* Rendezvous (rule 3) through links: the receive completes at the path's
 * completion + O_r; the second of two flows into one link waits. */
Test(links, rendezvous_two_flows, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:4", NULL, 3, NULL, 1.0);
  tutti_model_t m = wire(1.0);
  m.eager_limit = 0;
  m.recv_cpu = (tutti_cost_t){.floor = 0, .a = 2, .b = 0};
  m.topo = t;
  struct bld *b = bld_new(3);
  b_send(b, 0, 2, 0, 10);
  b_send(b, 1, 2, 0, 10);
  uint32_t a = b_irecv(b, 2, 0, 0), c = b_irecv(b, 2, 1, 0);
  b_wait(b, 2, a), b_wait(b, 2, c);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, tutti__replay_done(rp, 2, a), 12));
  cr_assert(eq(dbl, tutti__replay_done(rp, 2, c), 22));
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);
}

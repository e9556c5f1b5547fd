/*
 * test_unit_fair.c -- runtime/MODEL.md "Sharing" (sharing = fair) in the
 * replay, on synthetic event logs with hand-computed times: two and three
 * equal flows on one link (each gets 1/2, 1/3), unequal sizes (the short
 * one ends, the long one speeds up), max-min on a two-level tree (a flow
 * limited elsewhere leaves its share to the others), the ports without a
 * topology, a message alone costing exactly what fifo gives, and the
 * links' statistics (flows instead of queues). Whole
 * runs under fair sharing: test_e2e_fair.c.
 */
#include "internal.h"

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "topo_helpers.h"

#include "evlog_builder.h" /* all messages here use tag 0 */
#include "replay_unit.h"   /* replay(): a replay that must succeed */

/* Every cost 0 but the latency beta*m, all eager: with a topology the
 * links carry the bytes (L(0) = 0), so flow times by hand. */
static tutti_model_t wire_fair(double beta) {
  tutti_model_t m = {.preset = TUTTI_MODEL_CUSTOM};
  m.latency = (tutti_cost_t){.floor = 0, .a = 0, .b = beta};
  m.eager_limit = TUTTI_EAGER_ALL;
  m.sharing = TUTTI_SHARING_FAIR;
  return m;
}

/* The arrival (data complete at the receiver) of src's idx-th event. */
static double arrive(const struct tutti_replay *rp, int src, uint32_t idx) {
  const struct tutti_replay_msg *msg = tutti__replay_msg(rp, src, idx);
  cr_assert(msg != NULL);
  return tutti__tu_to_s(msg->arrive);
}

/* tree:4 (one switch), 1 s/B everywhere: n ranks each send 10 B to rank
 * n at 0. They share s0 -> leaf n (each its own leaf link up): each gets
 * 1/n of it, so all arrive at 10 n -- where fifo gives 10, 20, 30. */
static void equal_flows(int n) {
  tutti_topo_t *t = mktopo("tree:4", NULL, n + 1, NULL, 1.0);
  tutti_model_t m = wire_fair(1.0);
  m.topo = t;
  struct bld *b = bld_new(n + 1);
  for (int r = 0; r < n; r++) b_send(b, r, n, 0, 10);
  for (int r = 0; r < n; r++) b_recv(b, n, r, 0);
  struct tutti_replay *rp = replay(b, &m);
  for (int r = 0; r < n; r++) cr_assert(eq(dbl, arrive(rp, r, 0), 10.0 * n), "rank %d", r);
  cr_assert(eq(dbl, rp->rank_end[n], 10.0 * n));
  m.sharing = TUTTI_SHARING_FIFO; /* the same logs, one at a time */
  struct tutti_replay *f = replay(b, &m);
  for (int r = 0; r < n; r++) cr_assert(eq(dbl, arrive(f, r, 0), 10.0 * (r + 1)), "rank %d", r);
  tutti__replay_free(f);
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);
}

Test(fair, two_equal_flows_get_half_each, .timeout = 10) {
  equal_flows(2);
}

Test(fair, three_equal_flows_get_a_third_each, .timeout = 10) {
  equal_flows(3);
}

/* 10 B and 20 B into one link: both at 1/2 until the short one ends at
 * 20 (10 B at 0.5 B/s); the long one has 10 B left, alone at 1 B/s: 30. */
Test(fair, short_flow_ends_long_one_speeds_up, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:4", NULL, 3, NULL, 1.0);
  tutti_model_t m = wire_fair(1.0);
  m.topo = t;
  struct bld *b = bld_new(3);
  b_send(b, 0, 2, 0, 10);
  b_send(b, 1, 2, 0, 20);
  b_recv(b, 2, 0, 0);
  b_recv(b, 2, 1, 0);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, arrive(rp, 0, 0), 20));
  cr_assert(eq(dbl, arrive(rp, 1, 0), 30));
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);
}

/* A flow that starts later: 0 -> 2 (20 B) alone from 0 to 5 moves 5 B;
 * 1 -> 2 (10 B) starts at 5 (rank 1 computes 5 s first): both at 1/2,
 * 1 -> 2 ends at 25, then 0 -> 2 has 20 - 5 - 10 = 5 B left, alone: 30. */
static struct bld *joining_flows(void) {
  struct bld *b = bld_new(3);
  b_send(b, 0, 2, 0, 20);
  b_compute(b, 1, 5);
  b_send(b, 1, 2, 0, 10);
  b_recv(b, 2, 0, 0);
  b_recv(b, 2, 1, 0);
  return b;
}

Test(fair, a_flow_joins_later, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:4", NULL, 3, NULL, 1.0);
  tutti_model_t m = wire_fair(1.0);
  m.topo = t;
  struct bld *b = joining_flows();
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, arrive(rp, 1, 1), 25));
  cr_assert(eq(dbl, arrive(rp, 0, 0), 30));
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);
}

/* The links' statistics under fair sharing (topo.h), and the passages
 * the traces draw: the flows of a_flow_joins_later above. On s0 -> leaf 2
 * both flows: busy from 0 to 30, shared from 5 to 25, two at once, idle
 * from 30; rank 1's own link up carries its flow alone from 5 to 25. */
Test(fair, links_count_their_flows, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:4", NULL, 3, NULL, 1.0);
  tutti_model_t m = wire_fair(1.0);
  m.topo = t;
  struct bld *b = joining_flows();
  struct tutti_replay *rp = replay(b, &m);
  int path[4];
  cr_assert(eq(int, tutti_topo_route_ranks(t, 1, 2, path, 4), 2));
  tutti_link_stats_t up, down;
  cr_assert(eq(int, tutti_linkset_stats(rp->links, path[0], &up), 0));
  cr_assert(eq(int, tutti_linkset_stats(rp->links, path[1], &down), 0));
  cr_assert(eq(u64, down.messages, 2));
  cr_assert(eq(dbl, down.bytes, 30));
  cr_assert(eq(dbl, down.busy, 30));
  cr_assert(eq(dbl, down.wait, 20));
  cr_assert(eq(int, down.max_queue, 2));
  cr_assert(eq(dbl, down.free, 30));
  cr_assert(eq(u64, up.messages, 1));
  cr_assert(eq(dbl, up.bytes, 10));
  cr_assert(eq(dbl, up.busy, 20));
  cr_assert(eq(dbl, up.wait, 0));
  cr_assert(eq(int, up.max_queue, 1));
  cr_assert(eq(dbl, up.free, 25));
  /* asked for them (the traces), each flow's passages: 1 -> 2 over both
   * of its links from 5 to 25 */
  struct tutti_replay *hr = NULL;
  char err[256];
  cr_assert(
      eq(int, tutti__replay_run_ex(&m, 3, b->ptrs, TUTTI__REPLAY_HOPS, &hr, err, sizeof err), 0),
      "%s", err);
  cr_assert(eq(u64, hr->nhops, 4)); /* two flows, two links each */
  int seen = 0;
  for (uint64_t i = 0; i < hr->nhops; i++) {
    const struct tutti_replay_hop *h = &hr->hops[i];
    if (h->msg != (uint32_t)(tutti__replay_msg(hr, 1, 1) - hr->msgs)) continue;
    cr_assert(h->link == path[0] || h->link == path[1], "link %d", h->link);
    cr_assert(eq(dbl, tutti__tu_to_s(h->arrive), 5));
    cr_assert(eq(dbl, tutti__tu_to_s(h->head), 5));
    cr_assert(eq(dbl, tutti__tu_to_s(h->end), 25));
    seen++;
  }
  cr_assert(eq(int, seen, 2));
  tutti__replay_free(hr);
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);
}

/* A two-level tree, tree:2x3: ranks 0-2 under s0, 3-5 under s1. With
 * every link at 1 s/B, 0 -> 3, 1 -> 4, 2 -> 5 (10 B each) share s0 ->
 * root and root -> s1: a third each, all at 30. */
Test(fair, three_flows_across_a_two_level_tree, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:2x3", NULL, 6, NULL, 1.0);
  tutti_model_t m = wire_fair(1.0);
  m.topo = t;
  struct bld *b = bld_new(6);
  for (int r = 0; r < 3; r++) b_send(b, r, r + 3, 0, 10);
  for (int r = 0; r < 3; r++) b_recv(b, r + 3, r, 0);
  struct tutti_replay *rp = replay(b, &m);
  for (int r = 0; r < 3; r++) cr_assert(eq(dbl, arrive(rp, r, 0), 30), "rank %d", r);
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);
}

/* Max-min: leaf links at 2 s/B (0.5 B/s), the switches' links at 1 s/B.
 * 0 -> 3 and 1 -> 3 share leaf 3's down link: 0.25 B/s each, their
 * bottleneck. 2 -> 4 crosses s0 -> root with them: an equal split would
 * give it a third of 1 B/s, but the two use only 0.5 B/s there, so it
 * gets the rest, up to its own leaf links' 0.5 B/s: 10 B arrive at 20,
 * the two others at 40 (2 -> 4 ending does not change their rate). */
Test(fair, max_min_a_flow_limited_elsewhere_leaves_its_share, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:2x3", "0s/0.5B/s, 0s/1B/s", 6, NULL, 0);
  tutti_model_t m = wire_fair(1.0);
  m.topo = t;
  struct bld *b = bld_new(6);
  b_send(b, 0, 3, 0, 10);
  b_send(b, 1, 3, 0, 10);
  b_send(b, 2, 4, 0, 10);
  b_recv(b, 3, 0, 0);
  b_recv(b, 3, 1, 0);
  b_recv(b, 4, 2, 0);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, arrive(rp, 2, 0), 20));
  cr_assert(eq(dbl, arrive(rp, 0, 0), 40));
  cr_assert(eq(dbl, arrive(rp, 1, 0), 40));
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);
}

/* A message alone costs what fifo gives, to the unit: the path of
 * test_unit_contention.c's slow_link_after_fast_one (lat 1, 5, 5, 1; 1,
 * 2, 2, 1 s/B; 10 B): L(0) + 12 + 10 * 2 = 32; and with L(0) = 3 and
 * beta 0.8 ns/B at 1 MiB and an odd size, equal to the bit. */
Test(fair, alone_costs_what_fifo_gives, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:2x2", "1s/1B/s, 5s/0.5B/s", 4, NULL, 0);
  tutti_model_t m = wire_fair(1.0);
  m.topo = t;
  struct bld *b = bld_new(4);
  b_send(b, 0, 2, 0, 10);
  b_recv(b, 2, 0, 0);
  struct tutti_replay *rp = replay(b, &m);
  cr_assert(eq(dbl, arrive(rp, 0, 0), 32));
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);

  t = mktopo("tree:2x2", "0.3us/10Gbps, 1.7us/1.25GB/s", 4, NULL, 0);
  tutti_model_t h = hockney(3e-6, 0.8e-9);
  h.topo = t;
  for (int eager = 0; eager < 2; eager++) {
    h.eager_limit = eager ? TUTTI_EAGER_ALL : 0;
    b = bld_new(4);
    b_send(b, 0, 3, 0, 1048573);
    b_recv(b, 3, 0, 0);
    h.sharing = TUTTI_SHARING_FIFO;
    struct tutti_replay *fifo = replay(b, &h);
    h.sharing = TUTTI_SHARING_FAIR;
    struct tutti_replay *fair = replay(b, &h);
    cr_assert(eq(i64, fair->modeled, fifo->modeled));
    cr_assert(
        eq(i64, tutti__replay_msg(fair, 0, 0)->arrive, tutti__replay_msg(fifo, 0, 0)->arrive));
    tutti__replay_free(fifo);
    tutti__replay_free(fair);
    bld_free(b);
  }
  tutti_topo_free(t);

  /* no topology: L(m), whatever the size's piece */
  h = hockney(1e-6, 1e-9);
  h.latency.pieces = h.send_port.pieces = h.recv_port.pieces = 1;
  h.latency.piece[0] = h.send_port.piece[0] = h.recv_port.piece[0] =
      (tutti_cost_piece_t){.from = 4096, .floor = 0, .a = 3e-6, .b = 0.5e-9};
  for (uint64_t bytes = 1000; bytes < 100000; bytes = bytes * 7 + 1) {
    b = bld_new(2);
    b_send(b, 0, 1, 0, bytes);
    b_recv(b, 1, 0, 0);
    h.sharing = TUTTI_SHARING_FIFO;
    struct tutti_replay *fifo = replay(b, &h);
    h.sharing = TUTTI_SHARING_FAIR;
    struct tutti_replay *fair = replay(b, &h);
    cr_assert(eq(i64, fair->modeled, fifo->modeled), "%llu B", (unsigned long long)bytes);
    tutti__replay_free(fifo);
    tutti__replay_free(fair);
    bld_free(b);
  }
}

/* No topology, Hockney 1 us + 1 ns/B, 1000 B (2 us alone), eager: rank 0
 * isends to 1 and 2 at once. fifo: its send port serves them one after
 * the other, arrivals 2 and 4 us. fair: latency phase 1 us, then both
 * share its send port (1 ns/B): 1 + 2 * 1 = 3 us each. */
Test(fair, ports_without_a_topology, .timeout = 10) {
  tutti_model_t h = hockney(1e-6, 1e-9);
  h.eager_limit = TUTTI_EAGER_ALL;
  struct bld *b = bld_new(3);
  uint32_t a = b_isend(b, 0, 1, 0, 1000), c = b_isend(b, 0, 2, 0, 1000);
  b_wait(b, 0, a), b_wait(b, 0, c);
  b_recv(b, 1, 0, 0);
  b_recv(b, 2, 0, 0);
  struct tutti_replay *fifo = replay(b, &h);
  NEAR(arrive(fifo, 0, a), 2 * US);
  NEAR(arrive(fifo, 0, c), 4 * US);
  h.sharing = TUTTI_SHARING_FAIR;
  struct tutti_replay *fair = replay(b, &h);
  NEAR(arrive(fair, 0, a), 3 * US);
  NEAR(arrive(fair, 0, c), 3 * US);
  NEAR(fair->rank_end[1], 3 * US);
  tutti__replay_free(fifo);
  tutti__replay_free(fair);
  bld_free(b);
}

/* The header travels in every flow (runtime/MODEL.md "The envelope"):
 * two equal flows of 10 B with header 6 B on one link of 1 s/B share it,
 * 16 B each at 1/2 B/s, both at 32; a message alone with a header costs
 * what fifo gives with it, to the unit, on a path and on ports. */
Test(fair, flows_carry_the_header, .timeout = 10) {
  tutti_topo_t *t = mktopo("tree:4", NULL, 3, NULL, 1.0);
  tutti_model_t m = wire_fair(1.0);
  m.topo = t;
  m.header = 6;
  struct bld *b = bld_new(3);
  for (int r = 0; r < 2; r++) b_send(b, r, 2, 0, 10);
  for (int r = 0; r < 2; r++) b_recv(b, 2, r, 0);
  struct tutti_replay *rp = replay(b, &m);
  for (int r = 0; r < 2; r++) cr_assert(eq(dbl, arrive(rp, r, 0), 32.0), "rank %d", r);
  tutti__replay_free(rp);
  bld_free(b);
  tutti_topo_free(t);

  t = mktopo("tree:2x2", "0.3us/10Gbps, 1.7us/1.25GB/s", 4, NULL, 0);
  for (int topo = 0; topo < 2; topo++) {
    tutti_model_t h = hockney(3e-6, 0.8e-9);
    h.topo = topo ? t : NULL;
    h.header = 16;
    b = bld_new(4);
    b_send(b, 0, 3, 0, 100003);
    b_recv(b, 3, 0, 0);
    struct tutti_replay *fifo = replay(b, &h);
    h.sharing = TUTTI_SHARING_FAIR;
    struct tutti_replay *fair = replay(b, &h);
    cr_assert(eq(i64, fair->modeled, fifo->modeled), "topology %d", topo);
    h.header = 0;
    struct tutti_replay *bare = replay(b, &h);
    cr_assert(gt(i64, fair->modeled, bare->modeled), "topology %d: the header costs", topo);
    tutti__replay_free(bare);
    tutti__replay_free(fifo);
    tutti__replay_free(fair);
    bld_free(b);
  }
  tutti_topo_free(t);
}

/* Rule 4 under fair sharing: a blocking rendezvous send returns when
 * its flow ends. No topology, Hockney 1 us + 1 ns/B with O_s = 0, 1000 B
 * (2 us alone), all rendezvous: rank 0 sends to 1, then to 2, blocking.
 * The first returns at 2 us, not at s + O_s = 0, so the second runs alone
 * after it: arrivals 2 and 4 us. Detached, the first returns at once and
 * the two share the send port: both arrive at 1 + 2 * 1 = 3 us. */
Test(fair, a_rendezvous_send_returns_when_its_flow_ends, .timeout = 10) {
  tutti_model_t h = hockney(1e-6, 1e-9); /* eager_limit 0 */
  h.send_cpu = (tutti_cost_t){0};
  h.sharing = TUTTI_SHARING_FAIR;
  struct bld *b = bld_new(3);
  b_send(b, 0, 1, 0, 1000);
  b_send(b, 0, 2, 0, 1000);
  b_recv(b, 1, 0, 0);
  b_recv(b, 2, 0, 0);
  struct tutti_replay *rp = replay(b, &h);
  NEAR(rp->rank_end[1], 2 * US);
  NEAR(rp->rank_end[2], 4 * US);
  NEAR(rp->rank_end[0], 4 * US);
  h.detached_limit = 4096;
  struct tutti_replay *det = replay(b, &h);
  NEAR(det->rank_end[1], 3 * US);
  NEAR(det->rank_end[2], 3 * US);
  tutti__replay_free(det);
  tutti__replay_free(rp);
  bld_free(b);
}

/* A model that is neither fifo nor fair is refused by the replay. */
Test(fair, unknown_sharing_is_refused, .timeout = 10) {
  tutti_model_t h = hockney(1e-6, 1e-9);
  h.sharing = 7;
  struct bld *b = bld_new(2);
  b_send(b, 0, 1, 0, 10);
  b_recv(b, 1, 0, 0);
  bld_match(b);
  struct tutti_replay *rp = NULL;
  char err[256];
  cr_assert(eq(int, tutti__replay_run(&h, 2, b->ptrs, &rp, err, sizeof err), TUTTI_EINVAL));
  cr_assert(ne(ptr, strstr(err, "fifo"), NULL), "%s", err);
  cr_assert(ne(ptr, strstr(err, "fair"), NULL), "%s", err);
  bld_free(b);
}

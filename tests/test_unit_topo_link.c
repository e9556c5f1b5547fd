/*
 * test_unit_topo_link.c -- the network topology (topo/): runtime/MODEL.md's
 * cut-through link step by hand-computed examples, one hop at a time in
 * head-arrival order as the replay will drive it; printing trees as text
 * and Graphviz; the limits of depth, leaves and levels.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_unit.h"

/* -------------------------------------------------------------- links */

#define US 1e-6

Test(link, step_is_the_rule) {
  /* idle link: the head goes at once, the tail m*beta later (times are
   * whole picoseconds, runtime/MODEL.md "Time base": exactly 2e-6) */
  tutti_hop_t h = tutti_link_step(1 * US, 0, 1 * US, 0, 1e-9, 1000);
  cr_assert(ieee_ulp_eq(dbl, h.head, 1 * US, 0));
  cr_assert(ieee_ulp_eq(dbl, h.end, 2e-6, 0));
  cr_assert(ieee_ulp_eq(dbl, h.free, h.end, 0));
  /* busy link: the head waits until it is free */
  h = tutti_link_step(1 * US, 5 * US, 1 * US, 0, 1e-9, 1000);
  cr_assert(ieee_ulp_eq(dbl, h.head, 5e-6, 0)); /* 5 * US in whole ps */
  cr_assert(ieee_ulp_eq(dbl, h.end, 6e-6, 0));
  /* a slow link before: the tail comes late, the link is held for it */
  h = tutti_link_step(1 * US, 0, 9 * US, 0.5 * US, 1e-9, 1000);
  cr_assert(ieee_ulp_eq(dbl, h.head, 1 * US, 0));
  cr_assert(ieee_ulp_eq(dbl, h.end, 9.5 * US, 4));
}

Test(link, one_message_on_an_idle_path_costs_the_model) {
  /* Hockney alpha = 1us, beta = 1ns/B, m = 1000: L(m) = 2us. Every link of
   * the 4-link path has beta_l = beta and lat 0: s + L(0) + m*beta. */
  tutti_topo_t *t = open_ok("tree:4x8", NULL);
  tutti_topo_default_links(t, 0, 1e-9);
  tutti_linkset_t *ls;
  cr_assert(eq(int, tutti_linkset_create(t, &ls), 0));
  int path[8];
  int k = tutti_topo_route(t, 0, 31, path, 8);
  cr_assert(eq(int, k, 4));
  tutti_model_t m;
  tutti_model_hockney(&m, 1e-6, 1e-9);
  double L0 = tutti_cost_eval(&m.latency, 0);
  tutti_transit_t tr = {0 + L0, 0 + L0};
  cr_assert(eq(int, tutti_linkset_path(ls, path, k, &tr, 1000), 0));
  cr_assert(ieee_ulp_eq(dbl, tr.tail, 2e-6, 0), "complete %.17g", tr.tail); /* whole ps */
  /* started later, on links already used and free again */
  double s = 3 * US;
  tr = (tutti_transit_t){s + L0, s + L0};
  cr_assert(eq(int, tutti_linkset_path(ls, path, k, &tr, 1000), 0));
  cr_assert(ieee_ulp_eq(dbl, tr.tail, 5e-6, 0), "complete %.17g", tr.tail);
  /* the same on a one-link-per-side path and on the same switch */
  tutti_linkset_reset(ls);
  tr = (tutti_transit_t){s + L0, s + L0};
  k = tutti_topo_route(t, 0, 1, path, 8);
  cr_assert(eq(int, tutti_linkset_path(ls, path, k, &tr, 1000), 0));
  cr_assert(ieee_ulp_eq(dbl, tr.tail, 5e-6, 0));
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

/* A small replay of messages over a bound topology, hop by hop in the
 * order the replay will use: the smallest (head arrival, source rank, send
 * order) first. Each message: start s (its h_0 = s + L0), bytes. */
struct msg {
  int src, dst, seq;
  double start, bytes;
  tutti_transit_t tr;
  int hop, done;
};

static void run_hops(const tutti_topo_t *t, tutti_linkset_t *ls, struct msg *m, int n, double L0) {
  for (int i = 0; i < n; i++) {
    m[i].tr = (tutti_transit_t){m[i].start + L0, m[i].start + L0};
    m[i].hop = 0;
    m[i].done = 0;
  }
  for (;;) {
    int best = -1;
    for (int i = 0; i < n; i++) {
      if (m[i].done) continue;
      if (best < 0 || m[i].tr.head < m[best].tr.head ||
          (m[i].tr.head == m[best].tr.head &&
           (m[i].src < m[best].src || (m[i].src == m[best].src && m[i].seq < m[best].seq))))
        best = i;
    }
    if (best < 0) return;
    struct msg *x = &m[best];
    int link = tutti_topo_path_link_ranks(t, x->src, x->dst, x->hop++);
    if (link < 0) {
      x->done = 1; /* x->tr.tail: the data is complete at the receiver */
      continue;
    }
    cr_assert(eq(int, tutti_linkset_hop(ls, link, &x->tr, x->bytes, NULL), 0));
  }
}

Test(link, two_flows_into_one_link_queue_fcfs) {
  /* tree:2x4, roundrobin: ranks 0 and 2 on s0, 1 and 3 on s1. Ranks 0 and
   * 2 send 1000 B across at time 0; every link lat 1us, beta 1ns/B.
   *   rank 0: leaf up h=0 e=1 | s0->root h=1 e=2 | root->s1 h=2 e=3 |
   *           s1->leaf h=3 e=4 | complete 4 + 1 = 5 us
   *   rank 2: leaf up h=0 e=1 | s0->root arrives 1, free at 2: h=2 e=3 |
   *           root->s1 arrives 3 h=3 e=4 | s1->leaf h=4 e=5 | complete 6 us
   * At s0->root both heads arrive at 1us: the lower source rank goes first. */
  tutti_topo_t *t = open_ok("tree:2x4", "1us/1GB/s");
  bind_ok(t, 8, "roundrobin", 0);
  tutti_linkset_t *ls;
  tutti_linkset_create(t, &ls);
  struct msg m[2] = {{.src = 2, .dst = 3, .seq = 0, .start = 0, .bytes = 1000},
                     {.src = 0, .dst = 1, .seq = 0, .start = 0, .bytes = 1000}};
  run_hops(t, ls, m, 2, 0);
  cr_assert(ieee_ulp_eq(dbl, m[1].tr.tail, 5 * US, 4), "rank 0 done at %g", m[1].tr.tail);
  cr_assert(ieee_ulp_eq(dbl, m[0].tr.tail, 6 * US, 4), "rank 2 done at %g", m[0].tr.tail);
  tutti_link_stats_t st;
  int up = link_between(t, "s0", "root");
  tutti_linkset_stats(ls, up, &st);
  cr_assert(eq(u64, st.messages, 2));
  cr_assert(eq(dbl, st.bytes, 2000));
  cr_assert(eq(int, st.max_queue, 2));
  cr_assert(ieee_ulp_eq(dbl, st.wait, 1 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, st.busy, 2 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, st.free, 3 * US, 4));
  /* the busiest links: the shared ones first (each busy 2us) */
  int top[16], down = link_between(t, "root", "s1");
  cr_assert(eq(int, tutti_linkset_top(ls, TUTTI_LINKS_BY_BUSY, 4, top), 4));
  int both = (top[0] == up && top[1] == down) || (top[0] == down && top[1] == up);
  cr_assert(eq(int, both, 1), "top links %d %d, want %d and %d", top[0], top[1], up, down);
  cr_assert(eq(int, tutti_linkset_top(ls, TUTTI_LINKS_BY_QUEUE, 1, top), 1));
  cr_assert(eq(int, top[0], up));
  cr_assert(eq(int, tutti_linkset_top(ls, TUTTI_LINKS_BY_BYTES, 16, top), 6)); /* links used */
  /* the same two with the sources' ranks the other way round: rank 0 still
   * first at the shared link, whichever the caller lists first */
  tutti_linkset_reset(ls);
  struct msg r[2] = {{.src = 0, .dst = 1, .start = 0, .bytes = 1000},
                     {.src = 2, .dst = 3, .start = 0, .bytes = 1000}};
  run_hops(t, ls, r, 2, 0);
  cr_assert(ieee_ulp_eq(dbl, r[0].tr.tail, 5 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, r[1].tr.tail, 6 * US, 4));
  /* a later head waits less: rank 2 starts at 0.5us, arrives at s0->root
   * at 1.5us, the link is free at 2us */
  tutti_linkset_reset(ls);
  r[1].start = 0.5 * US;
  run_hops(t, ls, r, 2, 0);
  cr_assert(ieee_ulp_eq(dbl, r[1].tr.tail, 6 * US, 4));
  tutti_linkset_stats(ls, up, &st);
  cr_assert(ieee_ulp_eq(dbl, st.wait, 0.5 * US, 4));
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

Test(link, same_rank_ties_go_by_send_order) {
  /* one rank sends two messages at once to two ranks of the other switch:
   * its own leaf link serializes them, send order first */
  tutti_topo_t *t = open_ok("tree:2x4", NULL);
  tutti_topo_default_links(t, 0, 1e-9);
  bind_ok(t, 8, "roundrobin", 0);
  tutti_linkset_t *ls;
  tutti_linkset_create(t, &ls);
  struct msg m[2] = {{.src = 0, .dst = 3, .seq = 1, .start = 0, .bytes = 1000},
                     {.src = 0, .dst = 1, .seq = 0, .start = 0, .bytes = 1000}};
  run_hops(t, ls, m, 2, 0);
  cr_assert(ieee_ulp_eq(dbl, m[1].tr.tail, 1 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, m[0].tr.tail, 2 * US, 4));
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

Test(link, slow_link_governs) {
  /* lat 0, m = 1000: fast (1ns/B) then slow (4ns/B), and slow then fast:
   * either way the message is complete at m * 4ns = 4us */
  tutti_hop_t a = tutti_link_step(0, 0, 0, 0, 1e-9, 1000);
  tutti_hop_t b = tutti_link_step(a.head, 0, a.end, 0, 4e-9, 1000);
  cr_assert(ieee_ulp_eq(dbl, b.head, 0, 0));
  cr_assert(ieee_ulp_eq(dbl, b.end, 4 * US, 4));
  a = tutti_link_step(0, 0, 0, 0, 4e-9, 1000);
  b = tutti_link_step(a.head, 0, a.end, 0, 1e-9, 1000);
  cr_assert(ieee_ulp_eq(dbl, b.head, 0, 0), "cut-through: the head goes on at once");
  cr_assert(ieee_ulp_eq(dbl, b.end, 4 * US, 4), "the fast link waits for the tail");
  /* the same through a file: leaf links at 10 Gbps, the s0 - s1 link at
   * 1 Gbps with 2us latency; 1000 B from leaf 0 to leaf 1:
   *   leaf 0 -> s0 (1us, 0.8ns/B): h=0, e=0.8us
   *   s0 -> s1 (2us, 8ns/B): h=1us, e=max(9us, 1.8us)=9us
   *   s1 -> leaf 1 (1us, 0.8ns/B): h=3us, e=max(3.8us, 11us)=11us
   *   complete 12us */
  tutti_topo_t *t = NULL;
  char err[512];
  cr_assert(eq(int,
               tutti_topo_parse_ini("[switch s0]\nleaves = 0\nchildren = s1\n"
                                    "leaf_links = 1us/10Gbps\n[switch s1]\nleaves = 1\n"
                                    "uplink = 2us/1Gbps\nleaf_links = 1us/10Gbps\n",
                                    "slow.ini", NULL, &t, err, sizeof err),
               0),
            "%s", err);
  tutti_linkset_t *ls;
  tutti_linkset_create(t, &ls);
  int path[4], k = tutti_topo_route(t, 0, 1, path, 4);
  cr_assert(eq(int, k, 3));
  tutti_transit_t tr = {0, 0};
  tutti_hop_t hop;
  cr_assert(eq(int, tutti_linkset_hop(ls, path[0], &tr, 1000, &hop), 0));
  cr_assert(ieee_ulp_eq(dbl, hop.end, 0.8 * US, 4));
  cr_assert(eq(int, tutti_linkset_hop(ls, path[1], &tr, 1000, &hop), 0));
  cr_assert(ieee_ulp_eq(dbl, hop.head, 1 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, hop.end, 9 * US, 4));
  cr_assert(eq(int, tutti_linkset_hop(ls, path[2], &tr, 1000, &hop), 0));
  cr_assert(ieee_ulp_eq(dbl, hop.head, 3 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, hop.end, 11 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, tr.tail, 12 * US, 4));
  tutti_link_stats_t st;
  tutti_linkset_stats(ls, path[2], &st);
  cr_assert(ieee_ulp_eq(dbl, st.busy, 8 * US, 4), "held until the tail left: %g", st.busy);
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

Test(link, opposite_directions_do_not_interfere) {
  /* full duplex: 0 -> 1 and 1 -> 0 across s0 - root - s1 at once share no
   * directed link and both cost the idle time */
  tutti_topo_t *t = open_ok("tree:2x4", "1us/1GB/s");
  bind_ok(t, 8, "roundrobin", 0);
  int p[8], q[8];
  int k = tutti_topo_route_ranks(t, 0, 1, p, 8), j = tutti_topo_route_ranks(t, 1, 0, q, 8);
  cr_assert(eq(int, k, 4));
  cr_assert(eq(int, j, 4));
  for (int a = 0; a < k; a++)
    for (int b = 0; b < j; b++) cr_assert(ne(int, p[a], q[b]));
  tutti_linkset_t *ls;
  tutti_linkset_create(t, &ls);
  struct msg m[2] = {{.src = 0, .dst = 1, .start = 0, .bytes = 1000},
                     {.src = 1, .dst = 0, .start = 0, .bytes = 1000}};
  run_hops(t, ls, m, 2, 0);
  cr_assert(ieee_ulp_eq(dbl, m[0].tr.tail, 5 * US, 4));
  cr_assert(ieee_ulp_eq(dbl, m[1].tr.tail, 5 * US, 4));
  for (int l = 0; l < tutti_topo_nlinks(t); l++) {
    tutti_link_stats_t st;
    tutti_linkset_stats(ls, l, &st);
    cr_assert(eq(dbl, st.wait, 0));
    cr_assert(le(int, st.max_queue, 1));
  }
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

Test(link, queue_length_and_order_check) {
  tutti_topo_t *t = open_ok("tree:2", NULL);
  tutti_topo_default_links(t, 0, 1e-9);
  tutti_linkset_t *ls;
  tutti_linkset_create(t, &ls);
  int link = tutti_topo_leaf_link(t, 0);
  /* three at once: queues 1, 2, 3; ends 1, 2, 3 us */
  for (int i = 0; i < 3; i++) {
    tutti_transit_t tr = {0, 0};
    tutti_hop_t h;
    cr_assert(eq(int, tutti_linkset_hop(ls, link, &tr, 1000, &h), 0));
    cr_assert(ieee_ulp_eq(dbl, h.end, (i + 1) * US, 4));
  }
  /* one at 2.5us finds one still there (ends at 3us): queue 2 */
  tutti_transit_t tr = {2.5 * US, 2.5 * US};
  cr_assert(eq(int, tutti_linkset_hop(ls, link, &tr, 1000, NULL), 0));
  tutti_link_stats_t st;
  tutti_linkset_stats(ls, link, &st);
  cr_assert(eq(int, st.max_queue, 3));
  cr_assert(eq(u64, st.messages, 4));
  cr_assert(ieee_ulp_eq(dbl, st.free, 4 * US, 4));
  /* one at 100us: alone */
  tr = (tutti_transit_t){100 * US, 100 * US};
  cr_assert(eq(int, tutti_linkset_hop(ls, link, &tr, 0, NULL), 0));
  /* a head earlier than the last is refused and changes nothing */
  tr = (tutti_transit_t){50 * US, 50 * US};
  cr_assert(eq(int, tutti_linkset_hop(ls, link, &tr, 1000, NULL), TUTTI_EINVAL));
  cr_assert(ieee_ulp_eq(dbl, tr.tail, 50 * US, 0));
  tutti_linkset_stats(ls, link, &st);
  cr_assert(eq(u64, st.messages, 5));
  cr_assert(eq(int, tutti_linkset_hop(ls, 4, &tr, 1, NULL), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_linkset_hop(ls, link, &tr, -1, NULL), TUTTI_EINVAL));
  /* a long queue grows its FIFO */
  tutti_linkset_reset(ls);
  for (int i = 0; i < 100; i++) {
    tr = (tutti_transit_t){0, 0};
    cr_assert(eq(int, tutti_linkset_hop(ls, link, &tr, 1000, NULL), 0));
  }
  tutti_linkset_stats(ls, link, &st);
  cr_assert(eq(int, st.max_queue, 100));
  cr_assert(ieee_ulp_eq(dbl, st.free, 100 * US, 64));
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

Test(link, report_names_the_busiest) {
  tutti_topo_t *t = open_ok("tree:2x4", "1us/1GB/s");
  bind_ok(t, 8, "roundrobin", 0);
  tutti_linkset_t *ls;
  tutti_linkset_create(t, &ls);
  struct msg m[2] = {{.src = 0, .dst = 1, .start = 0, .bytes = 1000},
                     {.src = 2, .dst = 3, .start = 0, .bytes = 1000}};
  run_hops(t, ls, m, 2, 0);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(eq(int, tutti_linkset_report(ls, 2, 6 * US, f), 0));
  fclose(f);
  HAS(buf, "link");
  HAS(buf, "busy%");
  /* the two shared links, each 2 of 6 us busy */
  char *first = strchr(buf, '\n') + 1, *second = strchr(first, '\n') + 1;
  int up = !strncmp(first, "s0 -> root ", 11) || !strncmp(second, "s0 -> root ", 11);
  int down = !strncmp(first, "root -> s1 ", 11) || !strncmp(second, "root -> s1 ", 11);
  cr_assert(eq(int, up + down, 2), "%s", buf);
  HAS(first, "2000 B");
  HAS(first, "33.3%");
  HAS(second, "33.3%");
  cr_assert(eq(int, (int)(strchr(strchr(first, '\n') + 1, '\n') - buf) + 1, (int)len), "two rows");
  free(buf);
  tutti_linkset_free(ls);
  tutti_topo_free(t);
}

/* ----------------------------------------------------------- printing */

static char *print_to_string(const tutti_topo_t *t, int dot) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(eq(int, dot ? tutti_topo_dot(t, f) : tutti_topo_print(t, f), 0));
  fclose(f);
  return buf;
}

Test(print, ascii_tree_with_ranks) {
  tutti_topo_t *t = open_ok("tree:2x4", "1us/10Gbps, 2us/40Gbps");
  bind_ok(t, 8, "roundrobin", 0);
  char *s = print_to_string(t, 0);
  cr_assert(eq(str, s,
               "tree:2x4: 3 switches, 8 leaves, depth 2; 8 ranks, mapping roundrobin\n"
               "root\n"
               "|-- s0  link 2 us, 5 GB/s\n"
               "|   `-- leaves 0-3: ranks 0 2 4 6  links 1 us, 1.25 GB/s\n"
               "`-- s1  link 2 us, 5 GB/s\n"
               "    `-- leaves 4-7: ranks 1 3 5 7  links 1 us, 1.25 GB/s\n"));
  free(s);
  tutti_topo_free(t);
}

Test(print, ascii_hosts_overrides_and_partial) {
  tutti_topo_t *t = file_ok("cluster.ini");
  bind_ok(t, 10, "roundrobin:2", TUTTI_TOPO_PARTIAL);
  char *s = print_to_string(t, 0);
  /* roundrobin deals to core (the login node), h0, h1, h2, h3: core is
   * full after rank 0, so the rest of that block goes to h0 */
  HAS(s, "core\n|-- leaf 16: rank 0  link 1 us, 1.25 GB/s\n");
  HAS(s, "|   |-- h0 (host)  link 1 us, 1.25 GB/s\n");
  HAS(s, "|   |   `-- leaves 0-3: ranks 1 8 9 -  links 50 ns, 100 GB/s\n");
  HAS(s, "|       |-- leaf 4: rank 2  link 50 ns, 100 GB/s\n");
  HAS(s, "|       |-- leaf 5: rank 3  link 100 ns, 50 GB/s\n");
  HAS(s, "`-- rack1  link up 2 us, 5 GB/s; down 3 us, 2.5 GB/s\n");
  HAS(s, "        `-- leaves 12-15: ranks 6 7 - -  links 50 ns, 100 GB/s\n");
  free(s);
  tutti_topo_free(t);
  /* unset links say so; unbound leaves carry no ranks */
  t = open_ok("tree:3", NULL);
  s = print_to_string(t, 0);
  cr_assert(eq(str, s, "tree:3: 1 switch, 3 leaves, depth 1\ns0\n`-- leaves 0-2  links not set\n"));
  free(s);
  tutti_topo_default_links(t, 0, 1e-9);
  s = print_to_string(t, 0);
  HAS(s, "links 0 s, 1 GB/s (default)");
  free(s);
  tutti_topo_free(t);
}

Test(print, dot_graph) {
  tutti_topo_t *t = file_ok("lecture-2sw.ini");
  bind_ok(t, 8, "identity", 0);
  char *s = print_to_string(t, 1);
  HAS(s, "graph topology {\n");
  HAS(s, "  n0 [label=\"s0\"];\n");
  HAS(s, "  n2 [shape=ellipse, label=\"leaf 0\\nrank 0\"];\n");
  HAS(s, "  n0 -- n1 [label=\"2 us, 5 GB/s\"];\n");
  HAS(s, "  n0 -- n2 [label=\"1 us, 1.25 GB/s\"];\n");
  cr_assert(eq(int, s[strlen(s) - 2], '}'));
  free(s);
  tutti_topo_free(t);
}

Test(print, arguments) {
  cr_assert(eq(int, tutti_topo_print(NULL, stdout), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_topo_dot(NULL, stdout), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_topo_nleaves(NULL), TUTTI_EINVAL));
  tutti_topo_free(NULL);
  tutti_linkset_free(NULL);
  tutti_linkset_t *ls;
  cr_assert(eq(int, tutti_linkset_create(NULL, &ls), TUTTI_EINVAL));
}

/* ------------------------------------------------------------ limits */

/* A chain of k switches, s0 at the top: each has leaf i and the next
 * below it; 3 lines a section, so s(i)'s children line is 3i + 3. */
static char *chain_ini(int k) {
  size_t cap = (size_t)k * 48 + 64, off = 0;
  char *s = malloc(cap);
  cr_assert(ne(ptr, s, NULL));
  for (int i = 0; i < k; i++) {
    off += (size_t)snprintf(s + off, cap - off, "[switch s%d]\nleaves = %d\n", i, i);
    if (i + 1 < k)
      off += (size_t)snprintf(s + off, cap - off, "children = s%d\n", i + 1);
    else
      off += (size_t)snprintf(s + off, cap - off, "; bottom\n");
  }
  return s;
}

/* Issue 19: `tutti topo` on a chain of ~21000 switches overflowed the
 * stack (recursive drawing), and a chain deeper than the replay's 16-bit
 * hop counter loaded, then failed in the run. The depth limit is the
 * replay's, checked at load; the deepest tree loads, routes, maps and
 * draws, and the drawing stays small (it stops at 64 levels). */
Test(limits, deepest_tree_loads_and_draws, .timeout = 60) {
  int k = TUTTI_TOPO_MAX_DEPTH; /* leaf k-1 is k links below the root */
  char *text = chain_ini(k);
  tutti_topo_t *t = NULL;
  char err[1024] = "";
  cr_assert(eq(int, tutti_topo_parse_ini(text, "deep.ini", NULL, &t, err, sizeof err), 0), "%s",
            err);
  cr_assert(eq(int, tutti_topo_depth(t), TUTTI_TOPO_MAX_DEPTH));
  cr_assert(eq(int, tutti_topo_path_len(t, 0, k - 1), k + 1)); /* up 1, down k */
  bind_ok(t, 4, "dfs", TUTTI_TOPO_PARTIAL);
  int order[4];
  cr_assert(eq(int, tutti_topo_chain_order(t, NULL, 4, 0, order), 0));
  char *s = print_to_string(t, 0);
  size_t len = strlen(s);
  cr_assert(lt(sz, len, (size_t)100000), "%zu bytes for a chain", len);
  HAS(s, "`-- ... 32702 switches and 32703 leaves below, not drawn (deeper than 64 levels");
  free(s);
  char *dot = print_to_string(t, 1); /* the DOT form has every switch */
  HAS(dot, "label=\"s32766\"");
  free(dot);
  tutti_topo_free(t);
  free(text);
}

Test(limits, deeper_than_the_replay_is_refused_at_load, .timeout = 60) {
  char *text = chain_ini(TUTTI_TOPO_MAX_DEPTH + 1);
  tutti_topo_t *t = (tutti_topo_t *)0x1;
  char err[1024] = "";
  cr_assert(
      eq(int, tutti_topo_parse_ini(text, "deep.ini", NULL, &t, err, sizeof err), TUTTI_EPARSE));
  cr_assert(eq(ptr, t, (tutti_topo_t *)0x1));
  /* s32767 is listed by s32766, whose children line is 3 * 32766 + 3 */
  HAS(err, "deep.ini:98301: key 'children': 's32767' is 32767 levels below the root");
  HAS(err, "accepted: a tree at most 32767 levels deep");
  free(text);
}

/* Issue 19: `leaves = 60-16777215` allocated 199 MB before an error on a
 * later line, and tree:16777216 built 16M leaves for a 4-rank run. A
 * topology has at most as many leaves as a world has ranks (2^20), checked
 * on the text; so has a spec, which also has at most 64 numbers. */
Test(limits, leaves_and_levels_refused_on_the_text) {
  tutti_topo_t *t = (tutti_topo_t *)0x1;
  char err[1024] = "";
  const char *text = "[switch s0]\nleaves = 0-59\nleaves = 60-16777215\n";
  cr_assert(
      eq(int, tutti_topo_parse_ini(text, "big.ini", NULL, &t, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "big.ini:3: key 'leaves': '60-16777215' is not a leaf number or range");
  HAS(err, "leaves below 1048576");
  cr_assert(
      eq(int, tutti_topo_from_spec("tree:16777216", NULL, &t, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "more than 1048576 leaves");
  char spec[256] = "tree:1";
  for (int i = 1; i <= TUTTI_TOPO_SPEC_MAX_LEVELS; i++) strcat(spec, "x1");
  cr_assert(eq(int, tutti_topo_from_spec(spec, NULL, &t, err, sizeof err), TUTTI_EPARSE));
  HAS(err, "more than 64 levels");
  cr_assert(eq(ptr, t, (tutti_topo_t *)0x1));
  spec[strlen(spec) - 2] = '\0'; /* 64 numbers: fine */
  t = open_ok(spec, NULL);
  cr_assert(eq(int, tutti_topo_depth(t), 64));
  tutti_topo_free(t);
  t = open_ok("tree:1048576", NULL); /* the limit itself */
  cr_assert(eq(int, tutti_topo_nleaves(t), TUTTI_TOPO_MAX_LEAVES));
  tutti_topo_free(t);
}

/* Issue 19: a big machine with a few ranks printed one "-" per empty leaf
 * (32 MB for tree:16777216 -n 4); four or more in a row are counted. */
Test(limits, empty_leaves_are_counted) {
  tutti_topo_t *t = open_ok("tree:1048576", NULL);
  bind_ok(t, 4, "identity", TUTTI_TOPO_PARTIAL);
  char *s = print_to_string(t, 0);
  HAS(s, "`-- leaves 0-1048575: ranks 0-3 (1048572 empty)  links not set\n");
  cr_assert(lt(sz, strlen(s), (size_t)1000));
  free(s);
  tutti_topo_free(t);
  t = open_ok("tree:2x4", NULL);
  bind_ok(t, 5, "identity", TUTTI_TOPO_PARTIAL);
  s = print_to_string(t, 0);
  HAS(s, "leaves 4-7: ranks 4 - - -  links");
  free(s);
  tutti_topo_free(t);
}

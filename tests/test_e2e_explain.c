/*
 * test_e2e_explain.c -- `tutti explain COLL ALGO` (bench/cli_explain.c,
 * runtime/explain.c): every registered algorithm (enumerated from the
 * registry) at P = 1, 2, 5, 8 explains with exit 0 and every section, its
 * per-message lines agree with the run's modeled time (the last receive's
 * end is the measured time, or the finish line names the local work after
 * it) and, at P = 8, with `tutti run --json`'s message count; runtime/
 * MODEL.md's worked examples read as they should (flat tree: the root
 * sends 7 times in a row, 14 us; binomial: 3 rounds, 6 us; postal flat:
 * 4 steps); the waits show (a receiver that posts late, a link queue);
 * bad input is exit 2 with one line. The rounds: in time order for every
 * algorithm, an exchange's sends in one (dissemination with k = 3: 2
 * rounds), a barrier's why of its own, pipeline fill and drain named; a
 * topology's costly link named; each rank's time in its four states.
 * Under the sanitizers, where each `tutti` process starts slowly, every
 * algorithm at P = 1, 5 and 8.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_helpers.h"
#include "sanitized.h"
#include "tutti/tutti.h"

/* The number after `key` at the start of a line ("measured   14 us"). */
static double line_value(const char *out, const char *key) {
  const char *p = out;
  size_t k = strlen(key);
  while (p && *p) {
    if (!strncmp(p, key, k)) return strtod(p + k, NULL);
    p = strchr(p, '\n');
    if (p) p++;
  }
  return NAN;
}

/* Message lines: "  * 0 -> 4   8 B  posted 0  start 0  end 1.008  ...";
 * their count and the latest end. */
static int message_lines(const char *out, double *max_end) {
  int n = 0;
  *max_end = -1;
  for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    int src, dst;
    if (strncmp(p, "  ", 2) || (p[2] != '*' && p[2] != ' ') ||
        sscanf(p + 3, "%d -> %d", &src, &dst) != 2)
      continue;
    const char *e = strstr(p, " end ");
    const char *nl = strchr(p, '\n');
    cr_assert(e && (!nl || e < nl), "a message line without an end: %.80s", p);
    double t = strtod(e + 5, NULL);
    if (t > *max_end) *max_end = t;
    n++;
  }
  return n;
}

/* The output with its lines joined: the why paragraph is wrapped. */
static char *joined(const char *out) {
  char *t = strdup(out);
  cr_assert(ne(ptr, t, NULL));
  for (char *p = t; *p; p++)
    if (*p == '\n') *p = ' ';
  return t;
}

static void check_explained(const char *coll, const char *algo, int P, int is_tree) {
  char n[16];
  snprintf(n, sizeof n, "%d", P);
  int data = strcmp(coll, "barrier") != 0;
  struct cli c =
      data ? CLI("explain", coll, algo, "-n", n, "-m", "64") : CLI("explain", coll, algo, "-n", n);
  cr_assert(eq(int, c.status, 0), "%s %s P=%d: exit %d: %s", coll, algo, P, c.status, c.err);
  const char *drawing = is_tree ? "== tree" : "== schedule";
  HAS(c.out, drawing);
  HAS(c.out, "== rounds");
  HAS(c.out, "== cost");
  HAS(c.out, "== why");
  double measured = line_value(c.out, "measured   "), finish = NAN, end;
  cr_assert(isfinite(measured), "%s %s P=%d: no measured time", coll, algo, P);
  const char *f = strstr(c.out, "\nfinish  rank ");
  cr_assert(ne(ptr, (void *)f, NULL), "%s %s P=%d: no finish line", coll, algo, P);
  f = strstr(f, " at ");
  finish = strtod(f + 4, NULL);
  cr_assert(eq(dbl, finish, measured), "%s %s P=%d: finish %g, measured %g", coll, algo, P, finish,
            measured);
  int msgs = message_lines(c.out, &end);
  if (P == 1) cr_assert(eq(int, msgs, 0), "%s %s: messages on one rank", coll, algo);
  if (msgs && !strstr(c.out, "local work after"))
    cr_assert(eq(dbl, end, measured), "%s %s P=%d: last end %g, measured %g", coll, algo, P, end,
              measured);
  else
    cr_assert(le(dbl, end, measured));
  if (P == 8) { /* the message count of an independent run */
    struct cli r = data ? CLI("run", coll, algo, "-n", n, "-m", "64", "--json")
                        : CLI("run", coll, algo, "-n", n, "--json");
    cr_assert(eq(int, r.status, 0));
    const char *m = strstr(r.out, "\"messages\":");
    cr_assert(ne(ptr, (void *)m, NULL));
    cr_assert(eq(int, msgs, atoi(m + 11)), "%s %s: %d message lines, run says %s", coll, algo, msgs,
              m);
    cli_free(&r);
  }
  cli_free(&c);
}

Test(explain, every_registered_algorithm, .timeout = 300) {
  const tutti_algo_desc_t *d;
  int count = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    static const int ranks[] = {1, 5, 8}; /* the header comment */
#else
    static const int ranks[] = {1, 2, 5, 8};
#endif
    for (size_t k = 0; k < sizeof ranks / sizeof *ranks; k++) {
      const tutti_algo_t *a;
      cr_assert(eq(int, tutti_algo_select(d->coll, d->name, NULL, &a, NULL, 0), 0));
      if (tutti_algo_check(a, ranks[k], TUTTI_SUM, NULL, 0)) continue; /* a restriction */
      check_explained(tutti_coll_name(d->coll), d->name, ranks[k], d->tree != NULL);
      count++;
    }
  }
  cr_assert(gt(int, count, 100), "only %d explanations", count);
}

/* runtime/MODEL.md: flat broadcast, P = 8, 1000 B under alpha = 1 us,
 * beta = 1 ns/B: the root sends 7 times in a row, 14 us. */
Test(explain, flat_tree_root_sends_in_a_row, .timeout = 30) {
  struct cli c = CLI("explain", "bcast", "flat", "-n", "8", "-m", "1000");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(dbl, line_value(c.out, "measured   "), 14));
  char *j = joined(c.out);
  cr_assert(eq(dbl, line_value(c.out, "predicts   "), 14));
  HAS(j, "Rank 0 sends 7 times in a row");
  HAS(j, "P-1 = 7");
  HAS(j, "critical path is 7 messages long");
  HAS(c.out, "waited 12 for its port (busy sending to 6 until 12)");
  HAS(c.out, "round 7\n");
  cr_assert(eq(ptr, strstr(c.out, "round 8\n"), NULL));
  free(j);
  cli_free(&c);
}

/* A tie for last is named whole by run and by explain alike: the same
 * ranks, explain's critical rank among them. */
Test(explain, run_and_explain_name_one_tie, .timeout = 30) {
  struct cli r = CLI("run", "bcast", "pipelined-chain:segments=4", "-n", "6", "-m", "4000");
  cr_assert(eq(int, r.status, 0), "%s", r.err);
  HAS(r.out, "last: ranks 4 and 5 at 16 us");
  struct cli c = CLI("explain", "bcast", "pipelined-chain:segments=4", "-n", "6", "-m", "4000");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "finish  rank 5 last, at 16 (tied with rank 4)");
  char *j = joined(c.out);
  HAS(j, "Rank 5 finishes last, at 16 us (with rank 4, at the same time).");
  free(j);
  cli_free(&c);
  cli_free(&r);
}

/* With a topology the header's lines read as "model: ..." does: the
 * topology's label is apart from its spec. */
Test(explain, topology_header, .timeout = 30) {
  struct cli c =
      CLI("explain", "bcast", "binomial", "-n", "8", "-m", "64KiB", "--topology", "tree:2x4");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "\ntopology: tree:2x4: 3 switches, 8 leaves");
  HAS(c.out, "\nlinks: latency 0, 1 GB/s each");
  cr_assert(eq(ptr, strstr(c.out, "topologytree"), NULL), "%s", c.out);
  cli_free(&c);
}

/* Binomial, P = 8: 3 rounds, 6 us, a chain 0->4->6->7 through the tree. */
Test(explain, binomial_three_rounds, .timeout = 30) {
  struct cli c = CLI("explain", "bcast", "binomial", "-n", "8", "-m", "1000");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(dbl, line_value(c.out, "measured   "), 6));
  char *j = joined(c.out);
  HAS(c.out, "├── 4");
  HAS(j, "7 messages in 3 rounds");
  HAS(j, "0->4, 4->6, 6->7");
  HAS(j, "The formula predicts exactly the measured time.");
  free(j);
  cli_free(&c);
}

/* "ceil(log2 P) sends" is said of a tree's doubling rounds only: a chain's
 * segments to one peer are not rounds, whatever their count (37, 5 =
 * log2 32, and 1000, once a shift past the int's width). */
Test(explain, log2_rounds_only_for_a_doubling_tree, .timeout = 60) {
  struct cli c = CLI("explain", "bcast", "binomial", "-n", "8", "-m", "1000");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  char *j = joined(c.out);
  HAS(j, "Rank 0 sends 3 times in a row");
  HAS(j, "ceil(log2 P) = 3 sends, the count doubling each round.");
  free(j);
  cli_free(&c);
  const char *segs[] = {"pipelined-chain:segments=37", "pipelined-chain:segments=5",
                        "pipelined-chain:segments=1000"};
  for (int i = 0; i < 3; i++) {
    c = CLI("explain", "bcast", segs[i], "-n", "32", "-m", "1000");
    cr_assert(eq(int, c.status, 0), "%s: %s", segs[i], c.err);
    j = joined(c.out);
    HAS(j, "times in a row");
    cr_expect(eq(ptr, strstr(j, "ceil(log2 P)"), NULL), "%s: %s", segs[i], j);
    free(j);
    cli_free(&c);
  }
}

/* Postal L = 2, flat broadcast, P = 4: sends at 0, 1, 2 arrive at 2, 3, 4;
 * the closed form down the flat tree predicts those 4 steps. */
Test(explain, postal_steps, .timeout = 30) {
  struct cli c = CLI("explain", "bcast", "flat", "-n", "4", "--model", "postal:L=2");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(dbl, line_value(c.out, "measured   "), 4));
  cr_assert(eq(dbl, line_value(c.out, "predicts   "), 4));
  HAS(c.out, "times in steps");
  HAS(c.out, "start 2        end 4");
  cli_free(&c);
}

/* ------------------------------------------------------------ rounds */

/* The rounds, in the order printed: each one's earliest start. */
static int round_starts(const char *out, double *first, int most) {
  int round = 0, n = 0;
  for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    int r;
    if (!strncmp(p, "  ... ", 6)) break; /* a long run's middle left out: the head is enough */
    if (sscanf(p, "round %d\n", &r) == 1 && !strncmp(p, "round ", 6) && p[6] != ' ') {
      cr_assert(eq(int, r, round + 1), "round %d after round %d", r, round);
      round = r;
      if (r <= most) first[r - 1] = INFINITY, n = r;
      continue;
    }
    const char *st = strstr(p, " start "), *nl = strchr(p, '\n');
    if (round && round <= most && !strncmp(p, "  ", 2) && st && (!nl || st < nl)) {
      double t = strtod(st + 7, NULL);
      if (t < first[round - 1]) first[round - 1] = t;
    }
  }
  return n;
}

/* The message lines of the rounds section, as far as they are shown. */
struct line {
  int round, src;
  double start;
  int waited_post; /* it waited for its receiver to post */
  int dst;
};

static int message_rounds(const char *out, struct line *l, int most) {
  int round = 0, n = 0;
  for (const char *p = out; p && *p && n < most; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    if (!strncmp(p, "  ... ", 6)) break;
    if (!strncmp(p, "round ", 6) && p[6] != ' ') round = atoi(p + 6);
    const char *nl = strchr(p, '\n'), *st = strstr(p, " start "),
               *w = strstr(p, "to post its receive");
    if (!round || strncmp(p, "  ", 2) || !st || (nl && st > nl)) continue;
    cr_assert(eq(int, sscanf(p + 3, "%d -> %d", &l[n].src, &l[n].dst), 2), "%.80s", p);
    l[n].round = round;
    l[n].start = strtod(st + 7, NULL);
    l[n].waited_post = w && (!nl || w < nl);
    n++;
  }
  return n;
}

/* A round never starts before the one above it, and a send that waited
 * for its receiver to post is in no earlier round than what the receiver
 * had started sending before it posted -- for every registered algorithm,
 * small and large messages, Hockney and postal (dual-root's and two-tree's
 * rendezvous waits once put a round 1 message after round 2's). */
Test(explain, rounds_in_time_order, .timeout = 900) {
#if SANITIZED
  static const int ranks[] = {8};
#else
  static const int ranks[] = {5, 8, 14};
#endif
  static const char *const sizes[] = {"8", "64KiB"};
  static const char *const models[] = {"hockney:alpha=1us,beta=1ns", "postal:L=2"};
  const tutti_algo_desc_t *d;
  int checked = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
    for (size_t k = 0; k < sizeof ranks / sizeof *ranks; k++)
      for (size_t s = 0; s < 2; s++)
        for (size_t mi = 0; mi < 2; mi++) {
          const tutti_algo_t *a;
          cr_assert(eq(int, tutti_algo_select(d->coll, d->name, NULL, &a, NULL, 0), 0));
          if (tutti_algo_check(a, ranks[k], TUTTI_SUM, NULL, 0)) continue;
          if (d->coll == TUTTI_COLL_BARRIER && s) continue;
          char n[16];
          snprintf(n, sizeof n, "%d", ranks[k]);
          struct cli c = d->coll == TUTTI_COLL_BARRIER
                             ? CLI("explain", "barrier", d->name, "-n", n, "--model", models[mi])
                             : CLI("explain", tutti_coll_name(d->coll), d->name, "-n", n, "-m",
                                   sizes[s], "--model", models[mi]);
          cr_assert(eq(int, c.status, 0), "%s: %s", d->name, c.err);
          double first[4096];
          int nr = round_starts(c.out, first, 4096);
          for (int r = 1; r < nr; r++)
            cr_assert(ge(dbl, first[r], first[r - 1]),
                      "%s %s P=%s m=%s %s: round %d starts at %g, "
                      "round %d at %g",
                      tutti_coll_name(d->coll), d->name, n, sizes[s], models[mi], r + 1, first[r],
                      r, first[r - 1]);
          static struct line l[400]; /* the lines shown: at most 300 */
          int nl = message_rounds(c.out, l, 400);
          for (int x = 0; x < nl; x++)
            for (int y = 0; y < nl && l[x].waited_post; y++)
              cr_assert(
                  eq(int,
                     l[y].src == l[x].dst && l[y].start < l[x].start && l[y].round > l[x].round, 0),
                  "%s %s P=%s m=%s %s: %d->%d in round %d waited for rank %d, which sent in "
                  "round %d before",
                  tutti_coll_name(d->coll), d->name, n, sizes[s], models[mi], l[x].src, l[x].dst,
                  l[x].round, l[x].dst, l[y].round);
          checked++;
          cli_free(&c);
        }
  cr_assert(gt(int, checked, 100));
}

/* The k-way dissemination barrier, k = 3, P = 9: 2 rounds, in each a rank
 * sends to its k-1 = 2 partners i + j 3^r (j = 1, 2): 1, 2 then 3, 6. */
Test(explain, dissemination_k3_has_two_rounds, .timeout = 30) {
  struct cli c = CLI("explain", "barrier", "dissemination:k=3", "-n", "9");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "== schedule: 2 rounds");
  HAS(c.out, "\nrank  0  >1,2 >3,6\n");
  HAS(c.out, "\nrank  8  >0,1 >2,5\n");
  cr_assert(eq(ptr, strstr(c.out, "\nround 3\n"), NULL));
  char *j = joined(c.out);
  HAS(j, "36 messages in 2 rounds");
  HAS(j, "up to 2 partners a round");
  free(j);
  cli_free(&c);
}

/* A barrier is not a broadcast: no "count doubling"; its why says that a
 * round's send waits for the round before's receive. */
Test(explain, barrier_has_its_own_why, .timeout = 30) {
  struct cli c = CLI("explain", "barrier", "dissemination", "-n", "8");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  char *j = joined(c.out);
  cr_assert(eq(ptr, strstr(j, "doubling"), NULL), "%s", j);
  HAS(j, "A barrier moves no data");
  HAS(j, "Every send of round r+1 waits for its rank's receive of round r");
  HAS(j, "the 3 rounds follow one another");
  free(j);
  cli_free(&c);
}

/* Dual-root's exchanges carry an empty half while the pipeline fills and
 * drains: each 0 B message says which. */
Test(explain, empty_messages_are_explained, .timeout = 30) {
  struct cli c = CLI("explain", "allreduce", "dual-root:blocks=4", "-n", "14", "-m", "64KiB");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  int empty = 0, fill = 0, drain = 0;
  for (const char *p = c.out; (p = strstr(p, "      0 B  posted")); p++) {
    const char *nl = strchr(p, '\n'), *w = strstr(p, "empty: rank ");
    cr_assert(w && w < nl, "a 0 B message unexplained: %.*s", (int)(nl - p), p);
    empty++;
    fill += strstr(p, "(the pipeline filling)") < nl && strstr(p, "(the pipeline filling)") != NULL;
    drain += strstr(p, "any more (draining)") < nl && strstr(p, "any more (draining)") != NULL;
  }
  cr_assert(gt(int, fill, 0));
  cr_assert(gt(int, drain, 0));
  cr_assert(eq(int, fill + drain, empty));
  char *j = joined(c.out);
  HAS(j, "carry 0 B: the empty half of an exchange");
  free(j);
  cli_free(&c);
}

/* ------------------------------------------------------------ topology */

/* tree:2x4 with 1 Gbps uplinks: the flat tree's messages to the other
 * switch cross 4 links (leaf, uplink, downlink, leaf), those to its own 2;
 * the why names the uplink that costs the time. */
Test(explain, topology_names_the_costly_link, .timeout = 30) {
  struct cli c = CLI("explain", "bcast", "flat", "-n", "8", "-m", "1000", "--topology", "tree:2x4",
                     "--links", "1us/10Gbps,1us/1Gbps");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  char *j = joined(c.out);
  HAS(j, "the messages of the critical path cross 2 to 4 links");
  HAS(j, "the one that costs it most is s0 -> root (latency 1 us, 125 MB/s, 1 Gbps)");
  free(j);
  cli_free(&c);
}

/* ------------------------------------------------------------ states */

/* Flat broadcast, P = 8, 1000 B (MODEL.md: 2 us a message, 14 us): the
 * root's port is busy 0..14 with sends queued behind it until 12; rank r
 * is blocked on its receive until 2r, then done until 14. */
Test(explain, states_of_a_flat_tree, .timeout = 30) {
  struct cli c = CLI("explain", "bcast", "flat", "-n", "8", "-m", "1000");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "\n== states: each rank's time in each, in us\n");
  HAS(c.out, "\nrank     sending     queued    blocked       done\n");
  HAS(c.out, "\n   0           2         12          0          0\n");
  HAS(c.out, "\n   1           0          0          2         12\n");
  HAS(c.out, "\n   7           0          0         14          0\n");
  char *j = joined(c.out);
  HAS(j, "Rank 0 was queued longest, 12 us");
  HAS(j, "Rank 7 was blocked longest, 14 us");
  free(j);
  cli_free(&c);
}

/* The ring allreduce has no tree: a schedule grid, rank i sending to i+1
 * in each of its 2(P-1) rounds. */
Test(explain, ring_schedule_grid, .timeout = 30) {
  struct cli c = CLI("explain", "allreduce", "ring", "-n", "5", "-m", "20");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "== schedule: 8 rounds");
  HAS(c.out, "rank  4   >0  >0  >0  >0  >0  >0  >0  >0");
  cli_free(&c);
}

/* Waits: a flat reduce's root receives in rank order, so later senders
 * wait for it to post (rendezvous); a slow uplink queues the flat tree's
 * messages to the other switch. */
Test(explain, waits_are_named, .timeout = 30) {
  struct cli c = CLI("explain", "reduce", "flat", "-n", "5", "-m", "1000");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "for rank 0 to post its receive (rendezvous)");
  char *j = joined(c.out);
  HAS(j, "waited for the receiver to post");
  free(j);
  cli_free(&c);
  c = CLI("explain", "bcast", "flat", "-n", "8", "-m", "1000", "--topology", "tree:2x4", "--links",
          "1us/10Gbps,1us/1Gbps");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "for links (longest at s0 -> root)");
  j = joined(c.out);
  HAS(j, "queued for busy links");
  free(j);
  cli_free(&c);
}

Test(explain, bad_input, .timeout = 30) {
  struct cli c = CLI("explain", "bcast", "binomial", "-n", "33");
  fails_with(c, 2, "1..32");
  cli_free(&c);
  c = CLI("explain", "bcast", "nosuch", "-n", "4");
  fails_with(c, 2, "nosuch");
  cli_free(&c);
  c = CLI("explain", "nosuch", "flat", "-n", "4");
  fails_with(c, 2, "unknown collective");
  cli_free(&c);
  c = CLI("explain", "bcast", "flat", "-n", "4", "--model", "none");
  fails_with(c, 2, "none model");
  cli_free(&c);
  c = CLI("explain", "bcast", "flat", "-n", "4", "--iters", "2");
  fails_with(c, 2, "--iters");
  cli_free(&c);
  c = CLI("explain", "bcast");
  fails_with(c, 2, "ALGO");
  cli_free(&c);
}

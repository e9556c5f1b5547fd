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
 * bad input is exit 2 with one line. Under the sanitizers, where each
 * `tutti` process starts slowly, every algorithm at P = 1, 5 and 8.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_helpers.h"
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

/* Postal L = 2, flat broadcast, P = 4: sends at 0, 1, 2 arrive at 2, 3, 4. */
Test(explain, postal_steps, .timeout = 30) {
  struct cli c = CLI("explain", "bcast", "flat", "-n", "4", "--model", "postal:L=2");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  cr_assert(eq(dbl, line_value(c.out, "measured   "), 4));
  HAS(c.out, "times in steps");
  HAS(c.out, "predicts   - (the formula is Hockney's");
  HAS(c.out, "start 2        end 4");
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

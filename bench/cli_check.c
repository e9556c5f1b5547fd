/*
 * cli_check.c -- `tutti check [COLL] ALGO|FILE`: an algorithm, built-in or
 * a plugin's, through the sweep tutti's own tests make of every algorithm:
 *
 * - correctness: every rank's result against verify.c's sequential
 *   reference on P = 1, 2, 3, 5, 7, 16, 17, 64 and 97 ranks (--ranks
 *   changes the list), every root (a run of P calls rotating it), counts
 *   0, 1, P + 1 (no multiple of P) and 1000, sum and -- unless the
 *   algorithm is for commutative ops only -- the non-commutative matmul2,
 *   eager and rendezvous messages, ranks as threads and as fibers;
 * - cost: when the algorithm registers a Hockney cost, that cost against
 *   the engine's modeled time of the same call under Hockney (alpha 1 us,
 *   beta 1 ns/B, gamma 0.2 ns/B, all rendezvous): equal (to 1e-9
 *   relative) where it says exact, never below where it says bound; and
 *   when it registers a message count, that count equal to the engine's;
 *   P as above, 0, 8, 1000 and 65536 bytes, the first and last root.
 *
 * A call the algorithm refuses for its parameters (more segments than
 * bytes, a power-of-two algorithm on 5 ranks) is skipped and counted, not
 * failed. Prints a table per algorithm and the first failure in full.
 * Exit: 0 everything passed, 1 something failed, 2 bad usage.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CHECK_OPTS (CLI_O(RANKS) | CLI_O(PARAM) | CLI_O(PLUGIN) | CLI_O(HELP))
#define CHECK_RANKS "1,2,3,5,7,16,17,64,97"
#define MAX_TARGETS 64
#define MAX_P 64 /* rank counts in a list */

static const tutti_hockney_t H = {1e-6, 1e-9, 2e-10};

struct tally {
  long calls, skipped, failed;
  char first[1024]; /* the first failure, in full */
};

static void fail_once(struct tally *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_once(struct tally *t, const char *fmt, ...) {
  t->failed++;
  if (t->first[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->first, sizeof t->first, fmt, ap);
  va_end(ap);
}

static tutti_world_t *world(int P, const tutti_model_t *m, int fibers) {
  tutti_config_t c = tutti_config_default(P);
  c.model = m;
  c.ranks_as = fibers ? TUTTI_RANKS_AS_FIBERS : TUTTI_RANKS_AS_THREADS;
  tutti_world_t *w = NULL;
  return tutti_world_create(&w, &c) ? NULL : w;
}

/* ------------------------------------------------------------ correctness */

/* Every (op, count) of one P on one world (protocol and mode fixed): one
 * job each, P calls rotating the root (two calls without a root). */
static void sweep_world(tutti_world_t *w, const tutti_algo_t *a, int P, const char *proto,
                        const char *mode, struct tally *t) {
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  unsigned tr = tutti_coll_traits(d->coll);
  int rooted = (tr & TUTTI_COLL_ROOTED) != 0, reduces = (tr & TUTTI_COLL_REDUCES) != 0;
  long counts[] = {0, 1, (long)P + 1, 1000};
  int ncounts = tr & TUTTI_COLL_DATA ? 4 : 1;
  int nops = reduces ? (d->restrictions & TUTTI_ALGO_COMMUTATIVE ? 1 : 2) : 1;
  for (int o = 0; o < nops; o++)
    for (int c = 0; c < ncounts; c++) {
      struct cli_job j = {.algo = a, .coll = d->coll, .count = counts[c], .root = 0};
      j.type = reduces ? (o ? TUTTI_INT64 : TUTTI_INT32) : TUTTI_BYTE;
      j.op = reduces ? (o ? TUTTI_MATMUL2 : TUTTI_SUM) : NULL;
      j.iters = rooted ? P : 2;
      j.rotate = rooted;
      size_t bytes = (size_t)j.count * tutti_type_size(j.type);
      char why[512] = "", what[128];
      snprintf(what, sizeof what, "count %ld (%s%s%s), %s, %s", j.count, tutti_type_name(j.type),
               reduces ? ", " : "", reduces ? tutti_op_name(j.op) : "", proto, mode);
      if (tutti_algo_check_call(a, P, rooted ? 0 : -1, bytes, j.op, why, sizeof why) &&
          tutti_algo_check_call(a, P, -1, bytes, j.op, why, sizeof why)) {
        t->skipped += j.iters; /* refused for its parameters: not this algorithm's case */
        continue;
      }
      struct cli_result res;
      if (cli_exec(w, &j, &res)) {
        fail_once(t, "P = %d, %s: out of memory", P, what);
        return;
      }
      t->calls += j.iters;
      if (res.rc) {
        fail_once(t, "P = %d, %s: the run failed: %s", P, what, res.error);
        return; /* the world may be in no state for more */
      }
      if (!res.verified) {
        int root = rooted ? res.bad_call % P : -1;
        char rt[32] = "";
        if (rooted) snprintf(rt, sizeof rt, "root %d, ", root);
        fail_once(t, "P = %d, %s%s: %s", P, rt, what, res.why);
      }
    }
}

/* One P: both protocols, threads and fibers. */
static void sweep_P(const tutti_algo_t *a, int P, struct tally *t) {
  for (int proto = 0; proto < 2; proto++) {
    tutti_model_t m;
    tutti_model_hockney(&m, H.alpha, H.beta);
    m.gamma = H.gamma;
    m.eager_limit = proto ? TUTTI_EAGER_ALL : 0;
    for (int fibers = 0; fibers < 2; fibers++) {
      tutti_world_t *w = world(P, &m, fibers);
      if (!w) {
        fail_once(t, "P = %d: cannot make a world of %d ranks", P, P);
        return;
      }
      long before = t->failed;
      sweep_world(w, a, P, proto ? "eager" : "rendezvous", fibers ? "fibers" : "threads", t);
      tutti_world_destroy(w);
      if (t->failed > before) return; /* one failure per P is enough to see */
    }
  }
}

/* ------------------------------------------------------------ cost */

/* The engine's modeled time and message count of one call of a rooted at
 * root with m bytes per rank, under H: 0, or -1 with why. */
static int engine_time(tutti_world_t *w, const tutti_algo_t *a, int root, size_t m, double *t,
                       double *msgs, char *why, size_t n) {
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  unsigned tr = tutti_coll_traits(d->coll);
  int reduces = (tr & TUTTI_COLL_REDUCES) != 0;
  struct cli_job j = {.algo = a, .coll = d->coll, .root = root, .iters = 1, .no_data = 1};
  j.type = reduces ? TUTTI_INT32 : TUTTI_BYTE;
  j.op = reduces ? TUTTI_SUM : NULL;
  j.count = (long)(m / tutti_type_size(j.type));
  struct cli_result res;
  if (cli_exec(w, &j, &res) || res.rc || !res.has_report) {
    snprintf(why, n, "%s", res.rc ? res.error : "no report");
    return -1;
  }
  *t = res.report.modeled_time;
  *msgs = (double)res.report.messages;
  return 0;
}

static void cost_P(const tutti_algo_t *a, int P, struct tally *t) {
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  int rooted = (tutti_coll_traits(d->coll) & TUTTI_COLL_ROOTED) != 0;
  int data = (tutti_coll_traits(d->coll) & TUTTI_COLL_DATA) != 0;
  static const size_t sizes[] = {0, 8, 1000, 65536};
  tutti_model_t m;
  tutti_model_hockney(&m, H.alpha, H.beta);
  m.gamma = H.gamma;
  tutti_config_t c = tutti_config_default(P);
  c.model = &m;
  c.flags |= TUTTI_NO_DATA; /* the same modeled times, no payload */
  tutti_world_t *w = NULL;
  if (tutti_world_create(&w, &c)) {
    fail_once(t, "cost, P = %d: cannot make a world", P);
    return;
  }
  for (int s = 0; s < (data ? 4 : 1); s++)
    for (int k = 0; k < (rooted && P > 1 ? 2 : 1); k++) {
      int root = k ? P - 1 : 0, bound = 0;
      size_t bytes = sizes[s];
      char why[512] = "";
      if (tutti_algo_check_call(a, P, rooted ? root : -1, bytes, NULL, why, sizeof why)) {
        t->skipped++;
        continue;
      }
      double want = d->cost_fn ? tutti_algo_cost(a, P, root, bytes, &H, &bound) : NAN, got;
      double count = tutti_algo_messages(a, P, root, bytes, &H), sent;
      if (isnan(want) && isnan(count)) {
        t->skipped++; /* not defined here: the cost and the count say so */
        continue;
      }
      t->calls++;
      if (engine_time(w, a, root, bytes, &got, &sent, why, sizeof why)) {
        fail_once(t, "cost, P = %d, root %d, %zu B: the run failed: %s", P, root, bytes, why);
        continue;
      }
      if (!isnan(count) && count != sent)
        fail_once(t, "messages, P = %d, root %d, %zu B: the engine sent %.0f, the count says %g", P,
                  root, bytes, sent, count);
      if (isnan(want)) continue;
      double tol = 1e-9 * (want > got ? want : got) + 1e-15;
      char s1[32], s2[32];
      tutti_format_time(got, s1, sizeof s1), tutti_format_time(want, s2, sizeof s2);
      if (bound && got > want + tol)
        fail_once(t, "cost, P = %d, root %d, %zu B: the engine's %s is above the bound %s", P, root,
                  bytes, s1, s2);
      else if (!bound && fabs(got - want) > tol)
        fail_once(t, "cost, P = %d, root %d, %zu B: the engine's %s, the cost %s (exact, it says)",
                  P, root, bytes, s1, s2);
    }
  tutti_world_destroy(w);
}

/* ------------------------------------------------------------ the command */

/* One algorithm, its table; 1 if anything failed. */
static int check(const tutti_algo_t *a, const int *Ps, int nP) {
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  unsigned tr = tutti_coll_traits(d->coll);
  char spec[256], from[4200];
  tutti_algo_format(a, spec, sizeof spec);
  printf("%s %s (%s)\n", tutti_coll_name(d->coll), spec, cli_origin(d, from, sizeof from));
  printf("  correctness: every rank's result against the sequential reference;\n"
         "  %s%s%seager and rendezvous, threads and fibers\n  cost: %s\n",
         tr & TUTTI_COLL_ROOTED ? "every root, " : "",
         tr & TUTTI_COLL_DATA ? "counts 0, 1, P+1, 1000, " : "",
         !(tr & TUTTI_COLL_REDUCES)                 ? ""
         : d->restrictions & TUTTI_ALGO_COMMUTATIVE ? "sum, "
                                                    : "sum and matmul2, ",
         d->cost_fn && d->msgs_fn ? "the registered Hockney cost and message count against the "
                                    "engine's time and messages"
         : d->cost_fn             ? "the registered Hockney cost against the engine's time"
         : d->msgs_fn             ? "the registered message count against the engine's messages"
                                  : "none registered");
  printf("  %6s  %-12s  %8s  %8s  %s\n", "ranks", "correctness", "calls", "skipped", "cost");
  struct tally all = {0}, cost_all = {0};
  for (int i = 0; i < nP; i++) {
    int P = Ps[i];
    struct tally t = {0}, ct = {0};
    if ((d->restrictions & TUTTI_ALGO_POW2) && (P & (P - 1))) {
      printf("  %6d  %-12s  %8s  %8s  %s\n", P, "skipped", "-", "-", "(P a power of two only)");
      continue;
    }
    sweep_P(a, P, &t);
    int checks = d->cost_fn || d->msgs_fn;
    if (checks) cost_P(a, P, &ct);
    char cost[64] = "-";
    if (checks)
      snprintf(cost, sizeof cost, "%s (%ld points)", ct.failed ? "FAILED" : "passed", ct.calls);
    printf("  %6d  %-12s  %8ld  %8ld  %s\n", P,
           t.failed  ? "FAILED"
           : t.calls ? "passed"
                     : "-",
           t.calls, t.skipped, cost);
    fflush(stdout);
    all.calls += t.calls, all.skipped += t.skipped, all.failed += t.failed;
    cost_all.calls += ct.calls, cost_all.failed += ct.failed;
    if (!all.first[0] && t.first[0]) snprintf(all.first, sizeof all.first, "%s", t.first);
    if (!cost_all.first[0] && ct.first[0])
      snprintf(cost_all.first, sizeof cost_all.first, "%s", ct.first);
  }
  int bad = all.failed || cost_all.failed;
  printf("  %s: %ld calls verified, %ld skipped", bad ? "FAILED" : "passed", all.calls,
         all.skipped);
  if (d->cost_fn || d->msgs_fn)
    printf("; the cost at %ld points%s\n", cost_all.calls,
           cost_all.failed ? ", not all as the engine" : "");
  else
    printf("\n");
  if (all.first[0]) printf("  first failure: %s\n", all.first);
  if (cost_all.first[0]) printf("  first cost failure: %s\n", cost_all.first);
  return bad;
}

static void help(void) {
  printf("usage: tutti check [COLL] ALGO|FILE [--ranks LIST] [--plugin FILE]\n\n"
         "Check an algorithm as tutti's tests check its own: every rank's result\n"
         "against the sequential reference on P = " CHECK_RANKS " ranks, every\n"
         "root, counts 0, 1, P+1 and 1000, sum and (unless the algorithm is for\n"
         "commutative ops only) the non-commutative matmul2, eager and rendezvous\n"
         "messages, ranks as threads and as fibers; and, when it registers a Hockney\n"
         "cost, that cost against the engine's modeled time of the same call (equal\n"
         "where it says exact, never below where it says bound), and its message\n"
         "count, when it registers one, equal to the engine's. ALGO may carry its\n"
         "parameters (lambda-tree:lambda=0.7); a FILE (a plugin: .so or .c) checks\n"
         "every algorithm it registers; COLL alone checks every algorithm of COLL.\n"
         "Exit: 0 all passed, 1 a check failed (the first failure in full), 2 bad usage.\n\n"
         "options:\n");
  cli_print_options(stdout, CHECK_OPTS);
}

static int is_file(const char *s) {
  size_t n = strlen(s);
  return strchr(s, '/') || (n > 2 && !strcmp(s + n - 2, ".c")) ||
         (n > 3 && !strcmp(s + n - 3, ".so"));
}

int tutti_cli_check(int argc, char **argv) {
  struct cli_opts o;
  int st = cli_parse("check", CHECK_OPTS, 2, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) return help(), 0;
  if (!o.npos)
    return cli_fail(CLI_EUSAGE, "check", "missing ALGO; accepted: tutti check [COLL] ALGO|FILE");
  int Ps[MAX_P], nP = 0;
  const char *list = o.given & CLI_O(RANKS) ? o.ranks_list : CHECK_RANKS;
  for (const char *s = list; s && *s && nP < MAX_P;) {
    char *end;
    long P = strtol(s, &end, 10);
    if (end == s || P < 1 || P > 4096 || (*end && *end != ','))
      return cli_fail(CLI_EUSAGE, "check",
                      "--ranks: '%s' is not a list of rank counts; accepted: integers from 1 to "
                      "4096 separated by commas",
                      list);
    Ps[nP++] = (int)P;
    s = *end ? end + 1 : end;
  }
  const tutti_algo_t *targets[MAX_TARGETS];
  int n = 0, coll = -1;
  char err[1024];
  const char *what = o.pos[o.npos - 1];
  if (o.npos == 2 && tutti_coll_find(o.pos[0], &coll))
    return cli_fail(CLI_EUSAGE, "check", "unknown collective '%s'; accepted: %s", o.pos[0],
                    cli_coll_names());
  const tutti_algo_desc_t *d;
  if (o.npos == 2) { /* COLL ALGO: one algorithm (a name or a plugin's file) */
    if (tutti_algo_select(coll, what, o.params, &targets[n++], err, sizeof err))
      return cli_fail(CLI_EUSAGE, "check", "%s", err);
  } else if (!tutti_coll_find(what, &coll)) { /* COLL: all of it */
    for (int i = 0; (d = tutti_algo_desc_at(i)) && n < MAX_TARGETS; i++)
      if (d->coll == coll && !tutti_algo_select(coll, d->name, NULL, &targets[n], NULL, 0)) n++;
  } else if (is_file(what)) { /* FILE: every algorithm it registers */
    char real[PATH_MAX];
    if (tutti_plugin_load(what, err, sizeof err) || !realpath(what, real))
      return cli_fail(CLI_EUSAGE, "check", "%s", err);
    for (int i = 0; (d = tutti_algo_desc_at(i)) && n < MAX_TARGETS; i++) {
      const char *origin = tutti_algo_origin(d);
      if (origin && !strcmp(origin, real) &&
          !tutti_algo_select(d->coll, d->name, o.params, &targets[n], err, sizeof err))
        n++;
    }
  } else {
    return cli_fail(CLI_EUSAGE, "check",
                    "'%s' is neither a collective nor a plugin file; accepted: tutti check COLL "
                    "ALGO, tutti check COLL, tutti check FILE",
                    what);
  }
  int bad = 0;
  for (int i = 0; i < n; i++) {
    if (i) printf("\n");
    bad |= check(targets[i], Ps, nP);
  }
  return bad ? CLI_EVERIFY : CLI_OK;
}

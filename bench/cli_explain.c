/*
 * cli_explain.c -- `tutti explain COLL ALGO -n N [run options]`: one
 * collective on at most 32 ranks, explained for a class. Its sections:
 *   tree      the tree of a tree algorithm (what `tutti tree` draws), or the
 *   schedule  of any other: a rank x round grid of who sends to whom,
 *             from the run's recorded messages;
 *   rounds    every message: who sends how many bytes to whom, its start
 *             and end in modeled time, and what it waited for (a busy
 *             port, a receiver not yet posted, a link queue; a 0 B half of
 *             an exchange while a pipeline fills or drains);
 *   states    each rank's time sending, queued, blocked and done (report.h);
 *   cost      the registry's Hockney formula and what the run's model
 *             predicts in closed form, against the engine's time
 *             (cli_explain_cost.c, cli_explain_forms.c);
 *   why       a paragraph built from facts of the run: the critical path,
 *             the longest run of back-to-back sends by one rank (a
 *             barrier's rounds), the waits, the link that cost the time.
 * Everything about why a message waited comes from the runtime
 * (tutti_world_explain, runtime/explain.c); this file only prints it.
 *
 * Exit: 0, 1 (the result failed verification: printed, then the line),
 * 2 bad input (too many ranks, unknown algorithm, ...: one line), 3 the
 * world failed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_explain.h"

#define EXPLAIN_MAX_RANKS 32 /* beyond this the drawings stop being readable */
#define GRID_COLS 24         /* rounds per block of the schedule grid */
#define GRID_MAX_ROUNDS 96
#define LINES_HEAD 200 /* message lines shown of a long run: the first ... */
#define LINES_TAIL 100 /* ... and the last */

#define EXPLAIN_OPTS                                                                               \
  (CLI_O(RANKS) | CLI_O(BYTES) | CLI_O(ROOT) | CLI_O(MODEL) | CLI_O(PROFILE) | CLI_O(TOPOLOGY) |   \
   CLI_O(MAPPING) | CLI_O(LINKS) | CLI_O(PARAM) | CLI_O(OP) | CLI_O(DTYPE) | CLI_O(TIMELINE) |     \
   CLI_O(PLUGIN) | CLI_O(HELP))

static void explain_help(FILE *f) {
  fprintf(f,
          "usage: tutti explain COLL ALGO -n N [options]\n\n"
          "Run one collective on N <= %d emulated ranks and explain its modeled time:\n"
          "the tree (tree algorithms) or the schedule (rank x round: who sends to whom);\n"
          "every message with its bytes, start and end time and what it waited for (a\n"
          "busy port, a receiver that had not posted, a link queue); the registry's\n"
          "Hockney cost formula and what the model predicts in closed form (Hockney,\n"
          "postal, LogP where one is known), against the time the engine measured; each\n"
          "rank's time sending, queued, blocked and done; and a paragraph on why.\n"
          "COLL is one of: %s; ALGO one of its algorithms (tutti list COLL).\n\n"
          "options:\n",
          EXPLAIN_MAX_RANKS, cli_coll_names());
  cli_print_options(f, EXPLAIN_OPTS);
  fprintf(f,
          "\nA round is one send per rank (an exchange's sends share one): a message comes\n"
          "after the rounds its sender sent in or received a message of before sending\n"
          "it, and after what its start waited for, so each round starts no earlier than\n"
          "the one before. Times are the model's (postal: steps). Exit: 0 explained, 1\n"
          "verification failed, 2 bad usage or input (more than %d ranks: use tutti run\n"
          "--timeline or --trace), 3 runtime failure.\n",
          EXPLAIN_MAX_RANKS);
}

#define tm cli_explain_time

/* ------------------------------------------------------------ drawing */

static void print_tree(FILE *f, const struct cli_job *j, const tutti_model_t *m, int P,
                       size_t bytes) {
  tutti_treespec_t spec;
  if (cli_job_tree(j, m, bytes, &spec)) return;
  char extra[64] = "";
  if (spec.kind == TUTTI_TREE_LAMBDA) snprintf(extra, sizeof extra, ", lambda = %g", spec.lambda);
  if (spec.kind == TUTTI_TREE_KNOMIAL) snprintf(extra, sizeof extra, ", k = %d", spec.k);
  if (spec.kind == TUTTI_TREE_POSTAL) snprintf(extra, sizeof extra, ", L = %d", spec.L);
  fprintf(f, "== tree: %s%s, root %d; children in send order%s\n\n",
          tutti_tree_kind_name(spec.kind), extra, j->root,
          j->coll == TUTTI_COLL_BCAST || j->coll == TUTTI_COLL_SCATTER ? " (data flows down)"
          : j->coll == TUTTI_COLL_BARRIER ? " (up to the root, then down)"
                                          : " (data flows up)");
  tutti_tree_print(&spec, P, j->root, f, 0);
}

/* The schedule as a grid: a row per rank, a column per round, ">d" where
 * the rank sends to d in that round (">d,e" to several: an exchange's
 * partners), columns as wide as the widest cell. */
#define CELL 16
static void print_grid(FILE *f, const tutti_explain_t *ex, int P, int rounds) {
  fprintf(f, "== schedule: %d round%s, a row per rank, >d = sends to rank d in that round\n",
          rounds, rounds == 1 ? "" : "s");
  int shown = rounds < GRID_MAX_ROUNDS ? rounds : GRID_MAX_ROUNDS;
  char(*cell)[CELL] = calloc((size_t)P * (size_t)(shown ? shown : 1), sizeof *cell);
  if (!cell) return;
  int width = 4;
  for (size_t i = 0; i < ex->nmsgs; i++) {
    const tutti_msg_info_t *g = &ex->msgs[i];
    if (g->round < 1 || g->round > shown) continue;
    char *c = cell[(size_t)g->src * (size_t)shown + (size_t)g->round - 1];
    size_t n = strlen(c);
    if (n + 12 < CELL) /* room for ",1048575" and a "+" */
      snprintf(c + n, CELL - n, "%s%d", n ? "," : ">", g->dst);
    else if (c[n - 1] != '+')
      snprintf(c + n, CELL - n, "+");
    if ((int)strlen(c) + 1 > width) width = (int)strlen(c) + 1;
  }
  int cols = 96 / width < GRID_COLS ? 96 / width : GRID_COLS;
  for (int c0 = 0; c0 < shown; c0 += cols) {
    int c1 = c0 + cols < shown ? c0 + cols : shown;
    fprintf(f, "\nround   ");
    for (int c = c0; c < c1; c++) fprintf(f, "%*d", width, c + 1);
    fprintf(f, "\n");
    for (int r = 0; r < P; r++) {
      fprintf(f, "rank %2d ", r);
      for (int c = c0; c < c1; c++) {
        const char *x = cell[(size_t)r * (size_t)shown + (size_t)c];
        fprintf(f, "%*s", width, *x ? x : ".");
      }
      fprintf(f, "\n");
    }
  }
  if (shown < rounds) fprintf(f, "(rounds %d..%d not drawn)\n", shown + 1, rounds);
  free(cell);
}

/* ------------------------------------------------------------ the rounds */

static int by_round(const void *a, const void *b, void *arg) {
  const tutti_msg_info_t *m = arg;
  const tutti_msg_info_t *p = &m[*(const uint32_t *)a], *q = &m[*(const uint32_t *)b];
  if (p->round != q->round) return p->round < q->round ? -1 : 1;
  if (p->start != q->start) return p->start < q->start ? -1 : 1;
  if (p->src != q->src) return p->src < q->src ? -1 : 1;
  return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void link_name(const tutti_model_t *m, int link, char *buf, size_t n) {
  if (!m->topo || tutti_topo_link_name(m->topo, link, buf, n)) snprintf(buf, n, "link %d", link);
}

/* One message: "  * 0 -> 4   8 B   start 0  end 1.008   waited ..." */
static void print_msg(FILE *f, const tutti_explain_t *ex, uint32_t i, const tutti_model_t *m,
                      struct xunit u, int empty) {
  const tutti_msg_info_t *g = &ex->msgs[i];
  char b[32], t1[32], t2[32], t3[32], why[512] = "";
  size_t len = 0;
#define WHY(...)                                                                                   \
  (len += (size_t)snprintf(why + len, len < sizeof why ? sizeof why - len : 0, __VA_ARGS__))
  const tutti_msg_info_t *k = g->blocker >= 0 ? &ex->msgs[g->blocker] : NULL;
  switch (g->wait) {
  case TUTTI_WAIT_SEND_PORT:
    WHY("; waited %s for its port (busy sending to %d until %s)",
        tm(u, g->start - g->posted, t1, sizeof t1), k ? k->dst : -1,
        tm(u, g->start, t2, sizeof t2));
    break;
  case TUTTI_WAIT_RECV_POST:
    WHY("; waited %s for rank %d to post its receive (rendezvous)",
        tm(u, g->start - g->posted, t1, sizeof t1), g->dst);
    break;
  case TUTTI_WAIT_HANDSHAKE:
    WHY("; waited %s for its handshake with rank %d (request, clear-to-send)",
        tm(u, g->start - (g->posted > g->recv_posted ? g->posted : g->recv_posted), t1, sizeof t1),
        g->dst);
    break;
  case TUTTI_WAIT_RECV_PORT:
    WHY("; waited %s for rank %d's port (busy receiving from %d)",
        tm(u, g->start - (g->posted > g->recv_posted ? g->posted : g->recv_posted), t1, sizeof t1),
        g->dst, k ? k->src : -1);
    break;
  }
  if (g->link_wait > 0) {
    char ln[TUTTI_LINK_NAME_MAX];
    link_name(m, g->link, ln, sizeof ln);
    WHY("; queued %s for links (longest at %s)", tm(u, g->link_wait, t1, sizeof t1), ln);
  }
  if (g->port_wait > 0) {
    const tutti_msg_info_t *q = g->port_blocker >= 0 ? &ex->msgs[g->port_blocker] : NULL;
    WHY("; arrived, waited %s for rank %d's port (busy with %d's message)",
        tm(u, g->port_wait, t1, sizeof t1), g->dst, q ? q->src : -1);
  }
  if (g->eager && g->recv_posted > g->arrive + g->port_wait)
    WHY("; buffered until rank %d posted its receive at %s", g->dst,
        tm(u, g->recv_posted, t1, sizeof t1));
  else if (!g->eager && g->posted > g->recv_posted)
    WHY("; rank %d had posted its receive at %s", g->dst, tm(u, g->recv_posted, t1, sizeof t1));
  if (!len) WHY("; no wait");
  if (empty) /* cli_explain_empty_kinds */
    WHY("; empty: rank %d has no block for rank %d %s", g->src, g->dst,
        empty == 1 ? "yet (the pipeline filling)" : "any more (draining)");
#undef WHY
  fprintf(f, "  %c %2d -> %-2d %9s  posted %-8s start %-8s end %-8s%s\n", g->critical ? '*' : ' ',
          g->src, g->dst, tutti_format_bytes((size_t)g->bytes, b, sizeof b),
          tm(u, g->posted, t1, sizeof t1), tm(u, g->start, t2, sizeof t2),
          tm(u, g->done, t3, sizeof t3), why + 1);
}

static void print_rounds(FILE *f, const struct cli_job *j, const tutti_explain_t *ex,
                         const tutti_model_t *m, struct xunit u, const tutti_report_t *rep) {
  fprintf(f,
          "\n== rounds: every message (* on the critical path), times in %s; end = the receive "
          "completed\n",
          u.name);
  uint32_t *ord = malloc(sizeof *ord * (ex->nmsgs ? ex->nmsgs : 1));
  if (!ord) return;
  for (uint32_t i = 0; i < ex->nmsgs; i++) ord[i] = i;
  qsort_r(ord, ex->nmsgs, sizeof *ord, by_round, ex->msgs);
  char *empty = j->coll == TUTTI_COLL_BARRIER ? NULL : cli_explain_empty_kinds(ex, rep->nranks);
  int round = 0;
  size_t n = ex->nmsgs;
  for (size_t k = 0; k < n; k++) {
    if (n > LINES_HEAD + LINES_TAIL && k == LINES_HEAD) {
      fprintf(f, "\n  ... %zu messages not shown ...\n", n - LINES_HEAD - LINES_TAIL);
      k = n - LINES_TAIL;
      round = 0;
    }
    const tutti_msg_info_t *g = &ex->msgs[ord[k]];
    if (g->round != round) fprintf(f, "\nround %d\n", round = g->round);
    print_msg(f, ex, ord[k], m, u, empty ? empty[ord[k]] : 0);
  }
  if (!n) fprintf(f, "\n  (no messages)\n");
  free(ord);
  free(empty);
  char t1[32];
  double last_msg = -1;
  for (size_t i = 0; i < n; i++)
    if (ex->msgs[i].done > last_msg) last_msg = ex->msgs[i].done;
  int L = ex->last_rank, tied;
  char with[96];
  cli_ranks_at(rep->rank_end, rep->nranks, rep->rank_end[L], L, &tied, with, sizeof with);
  fprintf(f, "\nfinish  rank %d last, at %s", L, tm(u, rep->rank_end[L], t1, sizeof t1));
  if (tied) fprintf(f, " (tied with rank%s %s)", tied > 1 ? "s" : "", with);
  if (n && rep->rank_end[L] > last_msg)
    fprintf(f, " (local work after its last message: %s)",
            tm(u, rep->rank_end[L] - last_msg, t1, sizeof t1));
  fprintf(f, "\n");
}

/* ------------------------------------------------------------ the states */

/* Each rank's time in each of the four states (report.h), and the rank
 * queued longest. */
static void print_states(FILE *f, const tutti_explain_t *ex, int P, struct xunit u) {
  double *tot = cli_explain_state_times(ex, P);
  if (!tot) return;
  char t[TUTTI_NSTATES][32];
  fprintf(f,
          "\n== states: each rank's time in each, in %s\n"
          "sending: its port busy, a message on its way; queued: its port busy, more of\n"
          "its own sends waiting behind; blocked: on a receive, or a send on its\n"
          "receiver; done: past its last event; the rest of its time it computes, or\n"
          "has not begun\n\n",
          u.name);
  fprintf(f, "rank  %10s %10s %10s %10s\n", "sending", "queued", "blocked", "done");
  for (int r = 0; r < P; r++) {
    for (int s = 1; s < TUTTI_NSTATES; s++) tm(u, tot[r * TUTTI_NSTATES + s], t[s], sizeof t[s]);
    fprintf(f, "%4d  %10s %10s %10s %10s\n", r, t[TUTTI_STATE_SENDING], t[TUTTI_STATE_QUEUED],
            t[TUTTI_STATE_BLOCKED], t[TUTTI_STATE_DONE]);
  }
  free(tot);
}

/* ------------------------------------------------------------ the command */

int tutti_cli_explain(int argc, char **argv) {
  struct cli_opts o;
  int st = cli_parse_world("explain", EXPLAIN_OPTS, 2, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    explain_help(stdout);
    return 0;
  }
  if (o.nranks > EXPLAIN_MAX_RANKS)
    return cli_fail(CLI_EUSAGE, "explain",
                    "-n %d: too many ranks to explain readably; accepted: 1..%d (for larger "
                    "runs: tutti run --timeline or --trace FILE)",
                    o.nranks, EXPLAIN_MAX_RANKS);
  struct cli_job j;
  size_t bytes = 0;
  if ((st = cli_job_make("explain", &o, o.npos > 0 ? o.pos[0] : NULL, o.npos > 1 ? o.pos[1] : NULL,
                         &j, &bytes)))
    return st;
  tutti_machine_t mach;
  if ((st = cli_model("explain", &o, o.nranks, &mach))) return st;
  const tutti_model_t *m = &mach.model;
  if (m->preset == TUTTI_MODEL_NONE) {
    tutti_machine_free(&mach);
    return cli_fail(CLI_EUSAGE, "explain",
                    "--model: the none model has no modeled time to explain; accepted: a cost "
                    "model (--model hockney:..., postal:L=2, --profile NAME)");
  }
  cli_job_levels(&j, m, o.nranks);
  tutti_config_t cfg = tutti_config_default(o.nranks);
  cfg.model = m;
  tutti_world_t *w;
  int rc = tutti_world_create(&w, &cfg);
  if (rc) {
    tutti_machine_free(&mach);
    return cli_fail(CLI_ERUNTIME, "explain", "cannot create a world of %d ranks: %s", o.nranks,
                    tutti_strerror(rc));
  }
  struct cli_result res;
  tutti_explain_t ex;
  rc = cli_exec(w, &j, &res);
  if (!rc && !res.rc && !res.has_report) rc = TUTTI_ENOTSUP;
  if (!rc && !res.rc) rc = tutti_world_explain(w, &ex);
  if (rc || res.rc) {
    tutti_world_destroy(w);
    tutti_machine_free(&mach);
    return cli_fail(CLI_ERUNTIME, "explain", "%s", rc ? tutti_strerror(rc) : res.error);
  }
  const tutti_report_t *rep = &res.report;
  double T = rep->ncalls ? rep->calls[0].time : rep->modeled_time;
  struct xunit u = cli_explain_unit(m, T);
  char spec[256], desc[512], s1[64];
  tutti_algo_format(j.algo, spec, sizeof spec);
  tutti_model_describe(m, desc, sizeof desc);
  printf("%s %s on %d rank%s", tutti_coll_name(j.coll), spec, o.nranks, o.nranks == 1 ? "" : "s");
  if (tutti_coll_traits(j.coll) & TUTTI_COLL_DATA)
    printf(", %s per rank", tutti_format_bytes(bytes, s1, sizeof s1));
  if (tutti_coll_traits(j.coll) & TUTTI_COLL_ROOTED) printf(", root %d", j.root);
  if (j.op) printf(", op %s", tutti_op_name(j.op));
  printf("\nmodel: %s%s%s%s\n", desc, o.model ? "" : "  [profile ", o.model ? "" : mach.label,
         o.model ? "" : "]");
  cli_print_topology(stdout, &mach, 0); /* "topology: ...", as "model: ..." above */
  printf("%s\n\n", tutti_algo_desc(j.algo)->summary);

  int rounds = 0;
  for (size_t i = 0; i < ex.nmsgs; i++)
    if (ex.msgs[i].round > rounds) rounds = ex.msgs[i].round;
  if (tutti_algo_desc(j.algo)->tree)
    print_tree(stdout, &j, m, o.nranks, bytes);
  else
    print_grid(stdout, &ex, o.nranks, rounds);
  print_rounds(stdout, &j, &ex, m, u, rep);
  print_states(stdout, &ex, o.nranks, u);
  cli_explain_cost_why(stdout, &j, m, &ex, rep, o.nranks, bytes);
  st = res.verified ? CLI_OK : CLI_EVERIFY;
  if (o.given & CLI_O(TIMELINE)) {
    printf("\n");
    if ((rc = tutti_world_timeline(w, stdout, 0)) && rc != TUTTI_EIO)
      st = cli_fail(CLI_ERUNTIME, "explain", "--timeline: %s", tutti_strerror(rc));
  }
  fflush(stdout);
  tutti_explain_free(&ex);
  tutti_world_destroy(w);
  tutti_machine_free(&mach);
  if (st == CLI_EVERIFY) cli_fail(CLI_EVERIFY, "explain", "verification failed: %s", res.why);
  return st;
}

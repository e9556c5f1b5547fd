/*
 * cli_explain.c -- `tutti explain COLL ALGO -n N [run options]`: one
 * collective on at most 32 ranks, explained for a class. Four sections:
 *   tree      the tree of a tree algorithm (what `tutti tree` draws), or the
 *   schedule  of any other: a rank x round grid of who sends to whom,
 *             from the run's recorded messages;
 *   rounds    every message: who sends how many bytes to whom, its start
 *             and end in modeled time, and what it waited for (a busy
 *             port, a receiver not yet posted, a link queue);
 *   cost      the registry's Hockney formula, the time its cost function
 *             predicts, and the time the engine measured;
 *   why       a paragraph built from facts of the run: the critical path,
 *             the longest run of back-to-back sends by one rank, the waits.
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

#include "cli.h"

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
          "Hockney cost formula, the time it predicts and the time the engine measured;\n"
          "and a paragraph on why, from the run's critical path.\n"
          "COLL is one of: %s; ALGO one of its algorithms (tutti list COLL).\n\n"
          "options:\n",
          EXPLAIN_MAX_RANKS, cli_coll_names());
  cli_print_options(f, EXPLAIN_OPTS);
  fprintf(f,
          "\nA round is one send per rank: a message's round is 1 + the latest round its\n"
          "sender sent in or received a message of before sending it. Times are the\n"
          "model's (postal: steps). Exit: 0 explained, 1 verification failed, 2 bad usage\n"
          "or input (more than %d ranks: use tutti run --timeline or --trace), 3 runtime\n"
          "failure.\n",
          EXPLAIN_MAX_RANKS);
}

/* ------------------------------------------------------------ times */

/* One unit for a whole explanation, so that columns compare at a glance. */
struct unit {
  double scale;
  const char *name;
};

static struct unit pick_unit(const tutti_model_t *m, double T) {
  if (tutti_model_steps(m)) return (struct unit){1, "steps"};
  if (T >= 1) return (struct unit){1, "s"};
  if (T >= 1e-3) return (struct unit){1e3, "ms"};
  if (T >= 1e-6 || T == 0) return (struct unit){1e6, "us"};
  return (struct unit){1e9, "ns"};
}

static const char *tm(struct unit u, double t, char *buf, size_t n) {
  if (isnan(t))
    snprintf(buf, n, "-");
  else
    snprintf(buf, n, "%.6g", t * u.scale);
  return buf;
}

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
 * the rank sends to d in that round. */
static void print_grid(FILE *f, const tutti_explain_t *ex, int P, int rounds) {
  fprintf(f, "== schedule: %d round%s, a row per rank, >d = sends to rank d in that round\n",
          rounds, rounds == 1 ? "" : "s");
  int shown = rounds < GRID_MAX_ROUNDS ? rounds : GRID_MAX_ROUNDS;
  int *cell = malloc(sizeof *cell * (size_t)P * (size_t)(shown ? shown : 1));
  if (!cell) return;
  for (size_t i = 0; i < (size_t)P * (size_t)shown; i++) cell[i] = -1;
  for (size_t i = 0; i < ex->nmsgs; i++) {
    const tutti_msg_info_t *g = &ex->msgs[i];
    if (g->round >= 1 && g->round <= shown)
      cell[(size_t)g->src * (size_t)shown + (size_t)g->round - 1] = g->dst;
  }
  for (int c0 = 0; c0 < shown; c0 += GRID_COLS) {
    int c1 = c0 + GRID_COLS < shown ? c0 + GRID_COLS : shown;
    fprintf(f, "\nround   ");
    for (int c = c0; c < c1; c++) fprintf(f, "%4d", c + 1);
    fprintf(f, "\n");
    for (int r = 0; r < P; r++) {
      fprintf(f, "rank %2d ", r);
      for (int c = c0; c < c1; c++) {
        int d = cell[(size_t)r * (size_t)shown + (size_t)c];
        char c4[16] = ".";
        if (d >= 0) snprintf(c4, sizeof c4, ">%d", d);
        fprintf(f, "%4s", c4);
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
                      struct unit u) {
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
#undef WHY
  fprintf(f, "  %c %2d -> %-2d %9s  posted %-8s start %-8s end %-8s%s\n", g->critical ? '*' : ' ',
          g->src, g->dst, tutti_format_bytes((size_t)g->bytes, b, sizeof b),
          tm(u, g->posted, t1, sizeof t1), tm(u, g->start, t2, sizeof t2),
          tm(u, g->done, t3, sizeof t3), why + 1);
}

static void print_rounds(FILE *f, const tutti_explain_t *ex, const tutti_model_t *m, struct unit u,
                         const tutti_report_t *rep) {
  fprintf(f,
          "\n== rounds: every message (* on the critical path), times in %s; end = the receive "
          "completed\n",
          u.name);
  uint32_t *ord = malloc(sizeof *ord * (ex->nmsgs ? ex->nmsgs : 1));
  if (!ord) return;
  for (uint32_t i = 0; i < ex->nmsgs; i++) ord[i] = i;
  qsort_r(ord, ex->nmsgs, sizeof *ord, by_round, ex->msgs);
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
    print_msg(f, ex, ord[k], m, u);
  }
  if (!n) fprintf(f, "\n  (no messages)\n");
  free(ord);
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

/* ------------------------------------------------------------ cost */

/* The run's model as Hockney parameters, if it is exactly the preset
 * (with any gamma) and has no topology. */
static int hockney_of(const tutti_model_t *m, tutti_hockney_t *h) {
  tutti_model_t ref;
  if (m->preset != TUTTI_MODEL_HOCKNEY || tutti_model_hockney(&ref, m->params[0], m->params[1]))
    return 0;
  if (memcmp(&ref.send_cpu, &m->send_cpu, sizeof ref.send_cpu) ||
      memcmp(&ref.send_port, &m->send_port, sizeof ref.send_port) ||
      memcmp(&ref.latency, &m->latency, sizeof ref.latency) ||
      memcmp(&ref.recv_port, &m->recv_port, sizeof ref.recv_port) ||
      memcmp(&ref.recv_cpu, &m->recv_cpu, sizeof ref.recv_cpu) || ref.eager_limit != m->eager_limit)
    return 0;
  *h = (tutti_hockney_t){m->params[0], m->params[1], m->gamma};
  return 1;
}

static void print_cost(FILE *f, const struct cli_job *j, const tutti_model_t *m, int P,
                       size_t bytes, double T, struct unit u, double *predicted) {
  char t1[32], t2[32];
  fprintf(f,
          "\n== cost\nformula    %s  (the registry's, Hockney: alpha + beta m a message, gamma m a "
          "reduction)\n",
          tutti_algo_desc(j->algo)->cost);
  tutti_hockney_t h;
  *predicted = NAN;
  if (!hockney_of(m, &h)) {
    fprintf(f, "predicts   - (the formula is Hockney's; this run's model is %s%s)\n",
            tutti_model_preset_name(m->preset),
            m->preset == TUTTI_MODEL_HOCKNEY ? " with fields changed" : "");
  } else {
    int bound = 0;
    double c = tutti_algo_cost(j->algo, P, j->root, bytes, &h, &bound);
    *predicted = c;
    if (isnan(c))
      fprintf(f, "predicts   - (no cost function for these arguments)\n");
    else
      fprintf(f,
              "predicts   %s %s%s (alpha = %g us, beta = %g ns/B, gamma = %g ns/B, P = %d, m = "
              "%zu B)\n",
              tm(u, c, t1, sizeof t1), u.name, bound ? ", an upper bound" : "", h.alpha * 1e6,
              h.beta * 1e9, h.gamma * 1e9, P, bytes);
  }
  fprintf(f, "measured   %s %s (the engine's modeled time", tm(u, T, t2, sizeof t2), u.name);
  if (m->topo) fprintf(f, ", with the topology's links");
  fprintf(f, ")\n");
}

/* ------------------------------------------------------------ why */

static void print_why(FILE *f, const struct cli_job *j, const tutti_explain_t *ex,
                      const tutti_model_t *m, const tutti_report_t *rep, int P, double T,
                      double predicted, struct unit u) {
  char t1[32], t2[32], t3[32];
  fprintf(f, "\n== why\n");
  char para[4096];
  size_t len = 0;
#define SAY(...)                                                                                   \
  (len += (size_t)snprintf(para + len, len < sizeof para ? sizeof para - len : 0, __VA_ARGS__))
  if (!ex->nmsgs) {
    SAY("No message moves on %d rank%s, so the call takes %s %s: only local work.", P,
        P == 1 ? "" : "s", tm(u, T, t1, sizeof t1), u.name);
  } else {
    int rounds = 0;
    for (size_t i = 0; i < ex->nmsgs; i++)
      if (ex->msgs[i].round > rounds) rounds = ex->msgs[i].round;
    int tied = 0;
    char with[96];
    cli_ranks_at(rep->rank_end, P, rep->rank_end[ex->last_rank], ex->last_rank, &tied, with,
                 sizeof with);
    SAY("%zu message%s in %d round%s. Rank %d finishes last, at %s %s", ex->nmsgs,
        ex->nmsgs == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s", ex->last_rank,
        tm(u, rep->rank_end[ex->last_rank], t1, sizeof t1), u.name);
    if (tied) SAY(" (with rank%s %s, at the same time)", tied > 1 ? "s" : "", with);
    SAY(".");
    /* the critical path */
    if (ex->npath) {
      SAY(" Its critical path is %zu message%s long:", ex->npath, ex->npath == 1 ? "" : "s");
      size_t show = ex->npath <= 12 ? ex->npath : 12;
      for (size_t k = 0; k < show; k++) {
        const tutti_msg_info_t *g = &ex->msgs[ex->path[k]];
        SAY("%s %d->%d", k ? "," : "", g->src, g->dst);
      }
      if (show < ex->npath) SAY(", ... (%zu more)", ex->npath - show);
      SAY(", each waiting for the one before");
      int nport = 0, npost = 0, nlink = 0;
      uint64_t pbytes = 0;
      for (size_t k = 0; k < ex->npath; k++) {
        const tutti_msg_info_t *g = &ex->msgs[ex->path[k]];
        pbytes += g->bytes;
        nport +=
            g->wait == TUTTI_WAIT_SEND_PORT || g->wait == TUTTI_WAIT_RECV_PORT || g->port_wait > 0;
        npost += g->wait == TUTTI_WAIT_RECV_POST;
        nlink += g->link_wait > 0;
      }
      if (nport || npost || nlink) {
        SAY(" (");
        int first = 1;
        if (nport) SAY("%d behind a busy port", nport), first = 0;
        if (npost) SAY("%s%d for a receiver to post", first ? "" : ", ", npost), first = 0;
        if (nlink) SAY("%s%d in a link queue", first ? "" : ", ", nlink);
        SAY(")");
      }
      tutti_hockney_t h;
      if (!isnan(predicted) && m->preset == TUTTI_MODEL_HOCKNEY && !m->topo) {
        h.alpha = m->params[0], h.beta = m->params[1];
        double est = (double)ex->npath * h.alpha + (double)pbytes * h.beta;
        char t4[32];
        SAY(": %zu start-up%s (%zu alpha = %s %s) and %llu bytes on it (beta m = %s %s) make %s "
            "%s of the %s %s measured",
            ex->npath, ex->npath == 1 ? "" : "s", ex->npath,
            tm(u, (double)ex->npath * h.alpha, t1, sizeof t1), u.name, (unsigned long long)pbytes,
            tm(u, (double)pbytes * h.beta, t2, sizeof t2), u.name, tm(u, est, t3, sizeof t3),
            u.name, tm(u, T, t4, sizeof t4), u.name);
        SAY(T > est ? " (the rest: local work and waits)." : ".");
      } else {
        SAY(".");
      }
    }
    /* the longest run of back-to-back sends by one rank; spread: each of
     * its sends to another rank than the one before (a tree's rounds, not
     * a pipeline's segments to one peer) */
    int best = 0, who = -1, best_spread = 0;
    double from = 0, to = 0;
    for (int r = 0; r < P; r++) {
      double pfree = -1, s0 = 0;
      int run = 0, spread = 1, last = -1;
      /* its messages in start order: message ids follow send order, and a
       * port starts them in that order */
      for (size_t i = 0; i < ex->nmsgs; i++) {
        const tutti_msg_info_t *g = &ex->msgs[i];
        if (g->src != r || isnan(g->start)) continue;
        if (run && g->start <= pfree)
          run++, spread = spread && g->dst != last;
        else
          run = 1, s0 = g->start, spread = 1;
        pfree = g->send_port_free;
        last = g->dst;
        if (run > best) best = run, who = r, from = s0, to = pfree, best_spread = spread;
      }
    }
    int lg = 0; /* ceil(log2 P); P is at most the rank limit, 2^20 */
    while (lg < 31 && (1L << lg) < P) lg++;
    if (best >= 2) {
      SAY(" Rank %d sends %d times in a row, its port never idle from %s to %s %s", who, best,
          tm(u, from, t1, sizeof t1), tm(u, to, t2, sizeof t2), u.name);
      if (best == P - 1 && P > 2)
        SAY(": P-1 = %d start-ups one after another, one per other rank.", P - 1);
      else if (P > 2 && best == lg && best_spread)
        SAY(": ceil(log2 P) = %d sends, the count doubling each round.", best);
      else
        SAY(".");
    } else {
      SAY(" No rank sends twice back to back.");
    }
    /* the waits, over every message */
    int npost = 0, nsport = 0, nrport = 0, nlink = 0;
    double tpost = 0, tport = 0, tlink = 0, lmax = 0;
    int lworst = -1;
    for (size_t i = 0; i < ex->nmsgs; i++) {
      const tutti_msg_info_t *g = &ex->msgs[i];
      double w = g->start - g->posted;
      if (g->wait == TUTTI_WAIT_RECV_POST) npost++, tpost = w > tpost ? w : tpost;
      if (g->wait == TUTTI_WAIT_SEND_PORT) nsport++, tport = w > tport ? w : tport;
      if (g->wait == TUTTI_WAIT_RECV_PORT || g->port_wait > 0) nrport++;
      if (g->link_wait > 0) {
        nlink++, tlink += g->link_wait;
        if (g->link_wait > lmax) lmax = g->link_wait, lworst = g->link;
      }
    }
    if (npost)
      SAY(" %d rendezvous transfer%s waited for the receiver to post (the longest %s %s): a "
          "receiver still busy elsewhere holds its sender.",
          npost, npost == 1 ? "" : "s", tm(u, tpost, t1, sizeof t1), u.name);
    if (nsport)
      SAY(" %d transfer%s waited for the sender's own port (the longest %s %s).", nsport,
          nsport == 1 ? "" : "s", tm(u, tport, t1, sizeof t1), u.name);
    if (nrport)
      SAY(" %d message%s waited for a receiver's port, busy with another message.", nrport,
          nrport == 1 ? "" : "s");
    if (nlink) {
      char ln[TUTTI_LINK_NAME_MAX];
      link_name(m, lworst, ln, sizeof ln);
      SAY(" %d message%s queued for busy links (%s %s in all; the longest wait at %s): "
          "contention the formula does not see.",
          nlink, nlink == 1 ? "" : "s", tm(u, tlink, t1, sizeof t1), u.name, ln);
    }
    if (!npost && !nsport && !nrport && !nlink)
      SAY(" Nothing waited for a port, a link or a receiver.");
  }
  if (!isnan(predicted)) {
    double d = T - predicted, tol = 1e-9 * (T > predicted ? T : predicted) + 1e-15;
    if (fabs(d) <= tol)
      SAY(" The formula predicts exactly the measured time.");
    else if (d < 0)
      SAY(" The run is %s %s faster than the formula's bound.", tm(u, -d, t1, sizeof t1), u.name);
    else
      SAY(" The run is %s %s slower than the formula predicts.", tm(u, d, t1, sizeof t1), u.name);
  }
  if (j->note[0]) SAY(" Note: %s.", j->note);
#undef SAY
  /* wrapped at 78 columns */
  const char *p = para;
  while (*p == ' ') p++;
  while (*p) {
    size_t n = strlen(p), cut = n;
    if (n > 78) {
      cut = 78;
      while (cut > 0 && p[cut] != ' ') cut--;
      if (!cut) cut = 78;
    }
    fprintf(f, "%.*s\n", (int)cut, p);
    p += cut;
    while (*p == ' ') p++;
  }
}

int cli_explain_cost_why(FILE *f, const struct cli_job *j, const tutti_model_t *m,
                         const tutti_explain_t *ex, const tutti_report_t *rep, int P,
                         size_t bytes) {
  double T = rep->ncalls ? rep->calls[0].time : rep->modeled_time, predicted;
  struct unit u = pick_unit(m, T);
  print_cost(f, j, m, P, bytes, T, u, &predicted);
  print_why(f, j, ex, m, rep, P, T, predicted, u);
  return ferror(f) ? TUTTI_EIO : 0;
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
  struct unit u = pick_unit(m, T);
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
  print_rounds(stdout, &ex, m, u, rep);
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

/*
 * cli_explain_cost.c -- the "== cost" and "== why" sections of `tutti
 * explain` (cli_explain_cost_why, cli.h), which the --html page shows too.
 *
 * Cost: the registry's Hockney formula, and what the run's model predicts
 * in closed form, evaluated for this run beside the engine's measured time:
 *   hockney  the registry's cost function (tutti_algo_cost_elem: blocks of
 *            whole elements of the run's datatype), T_1(P) of a tree
 *            evaluated where the formula names it;
 *   postal   Bar-Noy & Kipnis's view: F_L(t) ranks reached by time t,
 *            f_L(P) = min{t : F_L(t) >= P} the optimal broadcast; down a
 *            tree T_L(P), a rank that has the message at t sending its i-th
 *            child at t + i (i from 0), which has it at t + i + L; up a
 *            tree U_L(P), each rank's port taking one arrival a step; and
 *            the round counts of the exchange algorithms (ring, recursive
 *            doubling, dissemination, ...);
 *   logp / loggp  down a tree only: the i-th child's send starts i
 *            max(g, o + G m) after its parent has the message and the child
 *            has it o + G m + L + o after the start (its port served it).
 * The postal and LogP forms are cli_explain_forms.c's; each is exact where
 * given (tests/test_e2e_explain_cost.c holds every one against the engine),
 * and where none is known the section says why. They model the presets
 * exactly (runtime/MODEL.md's table, no field overridden) with no
 * topology; anything else is measured only.
 *
 * Why: a paragraph from the run's facts -- the critical path, the longest
 * run of sends by one rank, a barrier's rounds, the waits, the link that
 * cost the time on a topology, the ranks' states (report.h), and the
 * closed form against the measured time.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_explain.h"

/* ------------------------------------------------------------ units */

struct xunit cli_explain_unit(const tutti_model_t *m, double T) {
  if (tutti_model_steps(m)) return (struct xunit){1, "steps"};
  if (T >= 1) return (struct xunit){1, "s"};
  if (T >= 1e-3) return (struct xunit){1e3, "ms"};
  if (T >= 1e-6 || T == 0) return (struct xunit){1e6, "us"};
  return (struct xunit){1e9, "ns"};
}

const char *cli_explain_time(struct xunit u, double t, char *buf, size_t n) {
  if (isnan(t))
    snprintf(buf, n, "-");
  else
    snprintf(buf, n, "%.6g", t * u.scale);
  return buf;
}

#define tm cli_explain_time

double *cli_explain_state_times(const tutti_explain_t *ex, int P) {
  double *tot = calloc((size_t)(P > 0 ? P : 1) * TUTTI_NSTATES, sizeof *tot);
  if (!tot) return NULL;
  for (size_t i = 0; i < ex->nspans; i++) {
    const tutti_state_span_t *s = &ex->spans[i];
    if (s->rank >= 0 && s->rank < P) tot[s->rank * TUTTI_NSTATES + s->state] += s->to - s->from;
  }
  return tot;
}

char *cli_explain_empty_kinds(const tutti_explain_t *ex, int P) {
  char *k = calloc(ex->nmsgs ? ex->nmsgs : 1, 1);
  if (!k || P < 1 || P > 1024) return k; /* beyond: a pair table too large to say */
  size_t pp = (size_t)P * (size_t)P;
  size_t *first = malloc(pp * sizeof *first), *last = malloc(pp * sizeof *last);
  if (!first || !last) {
    free(first), free(last), free(k);
    return NULL;
  }
  for (size_t i = 0; i < pp; i++) first[i] = SIZE_MAX, last[i] = 0;
  for (size_t i = 0; i < ex->nmsgs; i++) { /* data messages per pair, in send order */
    const tutti_msg_info_t *g = &ex->msgs[i];
    size_t pr = (size_t)g->src * (size_t)P + (size_t)g->dst;
    if (!g->bytes) continue;
    if (first[pr] == SIZE_MAX) first[pr] = i;
    last[pr] = i;
  }
  for (size_t i = 0; i < ex->nmsgs; i++) {
    const tutti_msg_info_t *g = &ex->msgs[i];
    size_t pr = (size_t)g->src * (size_t)P + (size_t)g->dst,
           back = (size_t)g->dst * (size_t)P + (size_t)g->src;
    if (g->bytes || first[pr] == SIZE_MAX || first[back] == SIZE_MAX) continue;
    k[i] = i < first[pr] ? 1 : i > last[pr] ? 2 : 0;
  }
  free(first), free(last);
  return k;
}

/* ------------------------------------------------------------ the model */

/* The run's model as exactly one preset (every field as the preset sets
 * it, any gamma and header: the forms charge the header), with no
 * topology: its preset, else -1. */
static int preset_of(const tutti_model_t *m) {
  tutti_model_t ref;
  int rc;
  const double *p = m->params;
  if (m->topo) return -1;
  switch (m->preset) {
  case TUTTI_MODEL_HOCKNEY:
    rc = tutti_model_hockney(&ref, p[0], p[1]);
    break;
  case TUTTI_MODEL_POSTAL:
    rc = tutti_model_postal(&ref, p[0]);
    break;
  case TUTTI_MODEL_LOGP:
    rc = tutti_model_logp(&ref, p[0], p[1], p[2]);
    break;
  case TUTTI_MODEL_LOGGP:
    rc = tutti_model_loggp(&ref, p[0], p[1], p[2], p[3]);
    break;
  default:
    return -1;
  }
  if (rc || memcmp(&ref.send_cpu, &m->send_cpu, sizeof ref.send_cpu) ||
      memcmp(&ref.send_port, &m->send_port, sizeof ref.send_port) ||
      memcmp(&ref.latency, &m->latency, sizeof ref.latency) ||
      memcmp(&ref.recv_port, &m->recv_port, sizeof ref.recv_port) ||
      memcmp(&ref.recv_cpu, &m->recv_cpu, sizeof ref.recv_cpu) ||
      ref.eager_limit != m->eager_limit || m->rendezvous != ref.rendezvous ||
      m->detached_limit != ref.detached_limit) /* the forms know rule 3 as ready, no detaching */
    return -1;
  return m->preset;
}

/* What a model predicts: the value (NaN: nothing), exact or a bound, and
 * the name the why paragraph gives it. */
struct pred {
  double t;
  int bound; /* 0 exact, 1 an upper bound, -1 a lower bound */
  const char *what;
};

/* ------------------------------------------------------------ cost */

/* The run's model as Hockney parameters, if it is exactly the preset. */
static int hockney_of(const tutti_model_t *m, tutti_hockney_t *h) {
  if (m->preset != TUTTI_MODEL_HOCKNEY) return 0;
  tutti_model_t copy = *m;
  copy.topo = NULL; /* the formula knows no links; the measured line says so */
  if (preset_of(&copy) != TUTTI_MODEL_HOCKNEY) return 0;
  /* a message of m bytes costs alpha + beta (m + header) (runtime/MODEL.md) */
  *h = (tutti_hockney_t){m->params[0] + m->params[1] * (double)m->header, m->params[1], m->gamma};
  return 1;
}

static void print_cost(FILE *f, const struct cli_job *j, const tutti_model_t *m,
                       const tutti_explain_t *ex, int P, size_t bytes, double T, struct xunit u,
                       struct pred *pr) {
  char t1[32], t2[32];
  const tutti_algo_desc_t *d = tutti_algo_desc(j->algo);
  const char *formula = d->cost ? d->cost : "-";
  fprintf(f,
          "\n== cost\nformula    %s  (the registry's, Hockney: alpha + beta m a message, gamma m a "
          "reduction)\n",
          formula);
  *pr = (struct pred){NAN, 0, "formula"};
  tutti_hockney_t h;
  int preset = preset_of(m);
  if (hockney_of(m, &h)) {
    if (d->tree && strstr(formula, "T_1(P)")) { /* evaluate what it names */
      tutti_treespec_t spec;
      long T1;
      if (!cli_job_tree(j, m, bytes, &spec) && !tutti_tree_postal_time(&spec, P, 1, &T1))
        fprintf(f,
                "T_1(P)     %ld for P = %d: this tree's rounds when a rank sends to its children "
                "one after the other, a message time each (postal L = 1)\n",
                T1, P);
    }
    int bound = 0;
    double c =
        tutti_algo_cost_elem(j->algo, P, j->root, bytes, tutti_type_size(j->type), &h, &bound);
    pr->t = c, pr->bound = bound;
    if (isnan(c))
      fprintf(f, "predicts   - (no cost function for these arguments)\n");
    else
      fprintf(f,
              "predicts   %s %s%s (alpha%s = %g us, beta = %g ns/B, gamma = %g ns/B, P = %d, m = "
              "%zu B)\n",
              tm(u, c, t1, sizeof t1), u.name, bound ? ", an upper bound" : "",
              m->header ? " + beta header" : "", h.alpha * 1e6, h.beta * 1e9, h.gamma * 1e9, P,
              bytes);
  } else if (preset == TUTTI_MODEL_POSTAL || preset == TUTTI_MODEL_LOGP ||
             preset == TUTTI_MODEL_LOGGP) {
    struct xform fm = {0};
    const char *name = tutti_model_preset_name(preset);
    int L = (int)m->params[0], opt = preset == TUTTI_MODEL_POSTAL ? tutti_postal_f(L, P) : -1;
    if (preset == TUTTI_MODEL_POSTAL)
      cli_explain_postal_form(j, m, ex, P, bytes, &fm);
    else
      cli_explain_logp_form(j, m, P, bytes, &fm);
    if (fm.text) fprintf(f, "%-10s %s\n", name, fm.text);
    if (opt >= 0 && fm.text && d->tree && P > 1 &&
        (j->coll == TUTTI_COLL_BCAST || j->coll == TUTTI_COLL_SCATTER)) {
      fprintf(f,
              "optimum    f_L(P) = min{t : F_L(t) >= P} = %d steps, F_L(t) the ranks that can have "
              "the message by step t: 1 for t < L, F_L(t-1) + F_L(t-L) after (Bar-Noy & "
              "Kipnis); F_%d =",
              opt, L);
      for (int t = 0; t <= opt && t < 12; t++)
        fprintf(f, "%s %ld", t ? "," : "", tutti_postal_F(L, t));
      fprintf(f, "%s: no broadcast to %d ranks is faster\n", opt >= 12 ? ", ..." : "", P);
    }
    if (fm.text) {
      pr->t = fm.t, pr->bound = fm.bound, pr->what = "closed form";
      const char *colon = strchr(fm.text, ':');
      if (preset == TUTTI_MODEL_POSTAL)
        fprintf(f, "predicts   %s %s: %.*s for P = %d, L = %d", tm(u, fm.t, t1, sizeof t1), u.name,
                colon ? (int)(colon - fm.text) : 0, fm.text, P, L);
      else
        fprintf(f, "predicts   %s %s (%s: L = %g us, o = %g us, g = %g us",
                tm(u, fm.t, t1, sizeof t1), u.name, name, m->params[0] * 1e6, m->params[1] * 1e6,
                m->params[2] * 1e6);
      if (preset == TUTTI_MODEL_LOGGP) fprintf(f, ", G = %g ns/B", m->params[3] * 1e9);
      if (preset != TUTTI_MODEL_POSTAL) fprintf(f, ", P = %d, m = %zu B)", P, bytes);
      if (fm.note[0]) fprintf(f, " (%s)", fm.note);
      fprintf(f, "\n");
    } else {
      fprintf(f, "%-10s none here for %s %s: %s\n", name, tutti_coll_name(j->coll), d->name,
              tutti_algo_builtin(d)
                  ? fm.none
                  : "an algorithm from outside tutti brings only its Hockney cost");
      fprintf(f, "predicts   - (no %s closed form for it)\n", name);
    }
  } else {
    fprintf(f, "predicts   - (no closed form for this model: %s%s)\n",
            tutti_model_preset_name(m->preset),
            m->topo && m->preset != TUTTI_MODEL_CUSTOM ? " with a topology"
            : m->preset != TUTTI_MODEL_CUSTOM          ? " with fields changed"
                                                       : "");
  }
  fprintf(f, "measured   %s %s (the engine's modeled time", tm(u, T, t2, sizeof t2), u.name);
  if (m->topo) fprintf(f, ", with the topology's links");
  fprintf(f, ")\n");
}

/* ------------------------------------------------------------ why */

struct para {
  char text[6144];
  size_t len;
};

#define SAY(...)                                                                                   \
  (p->len += (size_t)snprintf(p->text + p->len,                                                    \
                              p->len < sizeof p->text ? sizeof p->text - p->len : 0, __VA_ARGS__))

static void link_name(const tutti_model_t *m, int link, char *buf, size_t n) {
  if (!m->topo || tutti_topo_link_name(m->topo, link, buf, n)) snprintf(buf, n, "link %d", link);
}

/* The critical path: its messages, what they waited for, and under
 * Hockney the start-ups and bytes that make the time. */
static void why_path(struct para *p, const tutti_explain_t *ex, const tutti_model_t *m, double T,
                     const struct pred *pr, struct xunit u) {
  char t1[32], t2[32], t3[32], t4[32];
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
    nport += g->wait == TUTTI_WAIT_SEND_PORT || g->wait == TUTTI_WAIT_RECV_PORT || g->port_wait > 0;
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
  if (!isnan(pr->t) && m->preset == TUTTI_MODEL_HOCKNEY && !m->topo) {
    double alpha = m->params[0], beta = m->params[1];
    double est = (double)ex->npath * alpha + (double)pbytes * beta;
    SAY(": %zu start-up%s (%zu alpha = %s %s)", ex->npath, ex->npath == 1 ? "" : "s", ex->npath,
        tm(u, (double)ex->npath * alpha, t1, sizeof t1), u.name);
    if (pbytes)
      SAY(" and %llu bytes on it (beta m = %s %s)", (unsigned long long)pbytes,
          tm(u, (double)pbytes * beta, t2, sizeof t2), u.name);
    SAY(" make%s %s %s of the %s %s measured", pbytes ? "" : "s", tm(u, est, t3, sizeof t3), u.name,
        tm(u, T, t4, sizeof t4), u.name);
    SAY(T > est ? " (the rest: local work and waits)." : ".");
  } else {
    SAY(".");
  }
}

/* The longest run of back-to-back sends by one rank; spread: each of its
 * sends to another rank than the one before (a tree's rounds, not a
 * pipeline's segments to one peer). */
static void why_sends(struct para *p, const tutti_explain_t *ex, int P, struct xunit u) {
  char t1[32], t2[32];
  int best = 0, who = -1, best_spread = 0;
  double from = 0, to = 0;
  for (int r = 0; r < P; r++) {
    double pfree = -1, s0 = 0;
    int run = 0, spread = 1, last = -1;
    /* its messages in start order: ids follow send order, and a port
     * starts them in that order */
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
}

/* A barrier's rounds: every message is empty, and a round's sends wait
 * for the rank's receive of the round before. */
static void why_barrier(struct para *p, const tutti_explain_t *ex, int rounds) {
  int most = 0, chained = 1, later = 0;
  for (size_t i = 0; i < ex->nmsgs; i++) {
    const tutti_msg_info_t *g = &ex->msgs[i];
    int same = 0;
    for (size_t k = 0; k < ex->nmsgs; k++)
      same += ex->msgs[k].src == g->src && ex->msgs[k].round == g->round;
    most = same > most ? same : most;
    if (g->round < 2) continue;
    later++;
    int heard = 0; /* its sender's receive of the round before, complete when it posted */
    for (size_t k = 0; k < ex->nmsgs && !heard; k++) {
      const tutti_msg_info_t *o = &ex->msgs[k];
      heard = o->dst == g->src && o->round == g->round - 1 && o->done <= g->posted;
    }
    chained = chained && heard;
  }
  SAY(" A barrier moves no data: its %zu messages are empty, so its time is start-ups and "
      "latencies alone.",
      ex->nmsgs);
  if (most > 1)
    SAY(" A rank sends to up to %d partners a round, one after the other on its port (k-port "
        "rounds: k-1 = %d).",
        most, most);
  if (later && chained)
    SAY(" Every send of round r+1 waits for its rank's receive of round r: a rank can tell the "
        "others only what it has heard, so the %d rounds follow one another, and after the last "
        "every rank has heard, directly or not, from every other.",
        rounds);
  else if (later)
    SAY(" A send of a later round waits for what its rank has heard before it: after the last "
        "of the %d rounds every rank has heard, directly or not, from every other.",
        rounds);
}

/* The waits, over every message. */
static void why_waits(struct para *p, const tutti_explain_t *ex, const tutti_model_t *m,
                      struct xunit u) {
  char t1[32];
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

/* With a topology: the hops of the critical path and the link that cost it
 * most (carrying its messages, and their queue there). */
static void why_links(struct para *p, const tutti_explain_t *ex, const tutti_model_t *m, int P,
                      struct xunit u) {
  char t1[32], t2[32], ln[TUTTI_LINK_NAME_MAX], bw[64], lat[32];
  int nl = tutti_topo_nlinks(m->topo);
  if (nl <= 0 || !ex->npath || !ex->nhops) return;
  double *hold = calloc((size_t)nl, sizeof *hold), *queue = calloc((size_t)nl, sizeof *queue);
  char *on = calloc(ex->nmsgs ? ex->nmsgs : 1, 1);
  if (!hold || !queue || !on) goto out;
  for (size_t k = 0; k < ex->npath; k++) on[ex->path[k]] = 1;
  int most = 0, least = -1;
  for (size_t k = 0; k < ex->npath; k++) {
    const tutti_msg_info_t *g = &ex->msgs[ex->path[k]];
    int h = g->src >= 0 && g->src < P && g->dst >= 0 && g->dst < P
                ? tutti_topo_path_len(m->topo, tutti_topo_leaf_of_rank(m->topo, g->src),
                                      tutti_topo_leaf_of_rank(m->topo, g->dst))
                : 0;
    most = h > most ? h : most;
    least = least < 0 || h < least ? h : least;
  }
  for (size_t i = 0; i < ex->nhops; i++) {
    const tutti_hop_info_t *h = &ex->hops[i];
    if (h->msg >= ex->nmsgs || !on[h->msg] || h->link < 0 || h->link >= nl) continue;
    hold[h->link] += h->end - h->head;
    queue[h->link] += h->head - h->arrive;
  }
  int worst = -1;
  for (int l = 0; l < nl; l++)
    if (hold[l] + queue[l] > 0 && (worst < 0 || hold[l] + queue[l] > hold[worst] + queue[worst]))
      worst = l;
  if (worst < 0) goto out;
  tutti_topo_link_t lk;
  link_name(m, worst, ln, sizeof ln);
  if (tutti_topo_link_get(m->topo, worst, &lk)) goto out;
  if (least == most)
    SAY(" On the topology each message of the critical path crosses %d link%s", most,
        most == 1 ? "" : "s");
  else
    SAY(" On the topology the messages of the critical path cross %d to %d links", least, most);
  if (lk.beta > 0) { /* bytes and bits a second: "125 MB/s, 1 Gbps" */
    double bits = 8 / lk.beta;
    size_t n = strlen(tutti_format_bandwidth(1 / lk.beta, bw, sizeof bw));
    int giga = bits >= 1e9 * (1 - 1e-9); /* 8 / (8e-9) is a hair below 1e9 in double */
    snprintf(bw + n, sizeof bw - n, ", %.4g %sbps", giga ? bits / 1e9 : bits / 1e6,
             giga ? "G" : "M");
  } else {
    snprintf(bw, sizeof bw, "no per-byte cost");
  }
  SAY("; the one that costs it most is %s (latency %s, %s): it carries them for %s %s", ln,
      tutti_format_time(lk.lat, lat, sizeof lat), bw, tm(u, hold[worst], t1, sizeof t1), u.name);
  if (queue[worst] > 0)
    SAY(" and they queue %s %s there", tm(u, queue[worst], t2, sizeof t2), u.name);
  SAY(".");
out:
  free(hold), free(queue), free(on);
}

/* The ranks' states (report.h): who was queued, and blocked, longest. */
static void why_states(struct para *p, const tutti_explain_t *ex, int P, struct xunit u) {
  char t1[32];
  double *tot = cli_explain_state_times(ex, P);
  if (!tot) return;
  int q = 0, b = 0;
  for (int r = 1; r < P; r++) {
    if (tot[r * TUTTI_NSTATES + TUTTI_STATE_QUEUED] > tot[q * TUTTI_NSTATES + TUTTI_STATE_QUEUED])
      q = r;
    if (tot[r * TUTTI_NSTATES + TUTTI_STATE_BLOCKED] > tot[b * TUTTI_NSTATES + TUTTI_STATE_BLOCKED])
      b = r;
  }
  double tq = tot[q * TUTTI_NSTATES + TUTTI_STATE_QUEUED],
         tb = tot[b * TUTTI_NSTATES + TUTTI_STATE_BLOCKED];
  if (tq > 0)
    SAY(" Rank %d was queued longest, %s %s: its port busy and more of its own sends waiting "
        "behind it.",
        q, tm(u, tq, t1, sizeof t1), u.name);
  if (tb > 0)
    SAY(" Rank %d was blocked longest, %s %s, waiting on a receive or on a receiver.", b,
        tm(u, tb, t1, sizeof t1), u.name);
  free(tot);
}

static void print_why(FILE *f, const struct cli_job *j, const tutti_explain_t *ex,
                      const tutti_model_t *m, const tutti_report_t *rep, int P, double T,
                      const struct pred *pr, struct xunit u) {
  char t1[32];
  fprintf(f, "\n== why\n");
  struct para para = {.len = 0}, *p = &para;
  int barrier = j->coll == TUTTI_COLL_BARRIER;
  if (!ex->nmsgs) {
    SAY("No message moves on %d rank%s, so the call takes %s %s: only local work.", P,
        P == 1 ? "" : "s", tm(u, T, t1, sizeof t1), u.name);
  } else {
    int rounds = 0, empty = 0;
    char *kinds = barrier ? NULL : cli_explain_empty_kinds(ex, P);
    for (size_t i = 0; i < ex->nmsgs; i++) {
      if (ex->msgs[i].round > rounds) rounds = ex->msgs[i].round;
      empty += kinds && kinds[i];
    }
    free(kinds);
    int tied = 0;
    char with[96];
    cli_ranks_at(rep->rank_end, P, rep->rank_end[ex->last_rank], ex->last_rank, &tied, with,
                 sizeof with);
    SAY("%zu message%s in %d round%s. Rank %d finishes last, at %s %s", ex->nmsgs,
        ex->nmsgs == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s", ex->last_rank,
        tm(u, rep->rank_end[ex->last_rank], t1, sizeof t1), u.name);
    if (tied) SAY(" (with rank%s %s, at the same time)", tied > 1 ? "s" : "", with);
    SAY(".");
    if (ex->npath) why_path(p, ex, m, T, pr, u);
    if (barrier)
      why_barrier(p, ex, rounds);
    else
      why_sends(p, ex, P, u);
    if (empty)
      SAY(" %d message%s carry 0 B: the empty half of an exchange whose sender has no block for "
          "its partner yet (the pipeline filling) or any more (draining); each still costs its "
          "start-up.",
          empty, empty == 1 ? "" : "s");
    why_waits(p, ex, m, u);
    if (m->topo) why_links(p, ex, m, P, u);
    why_states(p, ex, P, u);
  }
  if (!isnan(pr->t)) {
    double d = T - pr->t, tol = 1e-9 * (T > pr->t ? T : pr->t) + 1e-15;
    if (fabs(d) <= tol)
      SAY(" The %s predicts exactly the measured time.", pr->what);
    else if (d < 0)
      SAY(" The run is %s %s faster than the %s%s.", tm(u, -d, t1, sizeof t1), u.name, pr->what,
          pr->bound ? "'s bound" : " predicts");
    else
      SAY(" The run is %s %s slower than the %s predicts.", tm(u, d, t1, sizeof t1), u.name,
          pr->what);
  }
  if (j->note[0]) SAY(" Note: %s.", j->note);
  /* wrapped at 78 columns */
  const char *s = p->text;
  while (*s == ' ') s++;
  while (*s) {
    size_t n = strlen(s), cut = n;
    if (n > 78) {
      cut = 78;
      while (cut > 0 && s[cut] != ' ') cut--;
      if (!cut) cut = 78;
    }
    fprintf(f, "%.*s\n", (int)cut, s);
    s += cut;
    while (*s == ' ') s++;
  }
}

#undef SAY

int cli_explain_cost_why(FILE *f, const struct cli_job *j, const tutti_model_t *m,
                         const tutti_explain_t *ex, const tutti_report_t *rep, int P,
                         size_t bytes) {
  double T = rep->ncalls ? rep->calls[0].time : rep->modeled_time;
  struct xunit u = cli_explain_unit(m, T);
  struct pred pr;
  print_cost(f, j, m, ex, P, bytes, T, u, &pr);
  print_why(f, j, ex, m, rep, P, T, &pr, u);
  return ferror(f) ? TUTTI_EIO : 0;
}

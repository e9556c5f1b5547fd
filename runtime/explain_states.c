/*
 * explain_states.c -- each rank's four states over a replayed run
 * (report.h's enum tutti_rank_state: sending, queued, blocked, done), as
 * spans in the explanation explain.c builds: its sends (port busy from
 * start to start + S(m), waiting from post to start) and receives (from
 * post to completion), swept in time order. `tutti explain`, the trace
 * and the --html page show them under the same names.
 */
#include "internal.h" /* first: it sets _GNU_SOURCE */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

const char *tutti_rank_state_name(int state) {
  static const char *const name[TUTTI_NSTATES] = {"", "sending", "queued", "blocked", "done"};
  return state >= 0 && state < TUTTI_NSTATES ? name[state] : NULL;
}

/* A change of a rank's counts at a time: its port's transfers (busy), its
 * messages on their way (snd: the port busy and not yet received), its
 * sends posted and not started (pend), its receives posted and not
 * complete (recv). */
struct change {
  double t;
  int rank;
  int8_t busy, snd, pend, recv;
};

/* Sort c[0..n) by (rank, t) in place: a heap sort, which allocates
 * nothing (glibc's qsort may malloc a buffer and, should that fail, go on
 * without saying so -- an allocation failure explain would not report). */
static int change_before(const struct change *p, const struct change *q) {
  return p->rank != q->rank ? p->rank < q->rank : p->t < q->t;
}

static void sift(struct change *c, size_t i, size_t n) {
  for (;;) {
    size_t m = i, l = 2 * i + 1, r = l + 1;
    if (l < n && change_before(&c[m], &c[l])) m = l;
    if (r < n && change_before(&c[m], &c[r])) m = r;
    if (m == i) return;
    struct change x = c[i];
    c[i] = c[m], c[m] = x, i = m;
  }
}

static void sort_changes(struct change *c, size_t n) {
  for (size_t i = n / 2; i-- > 0;) sift(c, i, n);
  for (size_t e = n; e > 1; e--) {
    struct change x = c[0];
    c[0] = c[e - 1], c[e - 1] = x;
    sift(c, 0, e - 1);
  }
}

/* The states of report.h's enum tutti_rank_state, every rank's as spans:
 * a sweep over each rank's changes in time order (NaN: never, so the
 * count holds to the end). */
int tutti__explain_states(const struct tutti_replay *rp, const tutti_msg_info_t *msgs, size_t n,
                          tutti_explain_t *ex) {
  int P = rp->nranks;
  size_t cap = 7 * n + (size_t)P, k = 0;
  struct change *c = malloc(cap * sizeof *c);
  double *last = malloc((size_t)P * sizeof *last);
  if (!c || !last) {
    free(c), free(last);
    return TUTTI_ENOMEM;
  }
  for (int r = 0; r < P; r++) last[r] = rp->rank_end[r];
#define CHANGE(T, R, B, N, S, V)                                                                   \
  do {                                                                                             \
    if (!isnan(T)) c[k++] = (struct change){(T), (R), (B), (N), (S), (V)};                         \
  } while (0)
  for (size_t i = 0; i < n; i++) {
    const tutti_msg_info_t *g = &msgs[i];
    /* on its way until received, or until its port is free if that is
     * earlier (never received: the port) */
    double sent = g->done < g->send_port_free ? g->done : g->send_port_free;
    if (!isnan(g->posted)) {
      CHANGE(g->posted, g->src, 0, 0, 1, 0);
      CHANGE(g->start, g->src, 0, 0, -1, 0);
    }
    CHANGE(g->start, g->src, 1, 1, 0, 0);
    CHANGE(g->send_port_free, g->src, -1, 0, 0, 0);
    if (!isnan(g->start)) CHANGE(sent, g->src, 0, -1, 0, 0);
    if (!isnan(g->recv_posted)) {
      CHANGE(g->recv_posted, g->dst, 0, 0, 0, 1);
      CHANGE(g->done, g->dst, 0, 0, 0, -1);
    }
    if (sent > last[g->src]) last[g->src] = sent;
    if (g->done > last[g->dst]) last[g->dst] = g->done;
  }
  double end = rp->modeled_time;
  for (int r = 0; r < P; r++) {
    if (last[r] > end) end = last[r];
    CHANGE(last[r], r, 0, 0, 0, 0); /* where done begins */
  }
#undef CHANGE
  sort_changes(c, k);
  size_t ns = 0, scap = 16;
  tutti_state_span_t *s = malloc(scap * sizeof *s);
  int rc = s ? 0 : TUTTI_ENOMEM;
  for (size_t i = 0; i < k && !rc;) {
    int r = c[i].rank, busy = 0, snd = 0, pend = 0, recv = 0;
    for (; i < k && c[i].rank == r && !rc;) {
      double t = c[i].t;
      for (; i < k && c[i].rank == r && c[i].t == t; i++)
        busy += c[i].busy, snd += c[i].snd, pend += c[i].pend, recv += c[i].recv;
      double to = i < k && c[i].rank == r && c[i].t < end ? c[i].t : end;
      int st = busy > 0 && pend > 0   ? TUTTI_STATE_QUEUED
               : snd > 0              ? TUTTI_STATE_SENDING
               : pend > 0 || recv > 0 ? TUTTI_STATE_BLOCKED
               : t >= last[r]         ? TUTTI_STATE_DONE
                                      : TUTTI_STATE_NONE;
      if (st == TUTTI_STATE_NONE || !(to > t)) continue;
      if (ns && s[ns - 1].rank == r && s[ns - 1].state == st && s[ns - 1].to == t) {
        s[ns - 1].to = to; /* one span for one state */
        continue;
      }
      if (ns == scap) {
        tutti_state_span_t *m = realloc(s, 2 * scap * sizeof *m);
        if (!m) {
          rc = TUTTI_ENOMEM;
          break;
        }
        s = m, scap *= 2;
      }
      s[ns++] = (tutti_state_span_t){r, st, t, to};
    }
  }
  free(c);
  free(last);
  if (rc) {
    free(s);
    return rc;
  }
  ex->spans = s;
  ex->nspans = ns;
  return 0;
}

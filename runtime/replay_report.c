/*
 * replay_report.c -- what a finished replay (replay.h) gives its users:
 * tutti's report structures (report.h) for tutti_world_report and
 * tutti_world_links, the times of single messages for tests and traces
 * (in the time base's units or, converted, in seconds), and the world's
 * call that replays a recorded run. Reads the result only;
 * the simulation is replay.c.
 */
#include "internal.h" /* first: it sets _GNU_SOURCE */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

static const struct tutti_replay_msg *op_msg(const struct tutti_replay *rp, int rank, uint32_t idx,
                                             unsigned want) {
  if (!rp || rank < 0 || rank >= rp->nranks || idx >= rp->logs[rank]->n) return NULL;
  uint64_t op = rp->ops[rp->evoff[rank] + idx];
  return RPO_KIND(op) == want ? &rp->msgs[RPO_ID(op)] : NULL;
}

const struct tutti_replay_msg *tutti__replay_msg(const struct tutti_replay *rp, int src,
                                                 uint32_t idx) {
  return op_msg(rp, src, idx, RPO_SEND);
}

tutti__tu_t tutti__replay_done_tu(const struct tutti_replay *rp, int rank, uint32_t idx) {
  const struct tutti_replay_msg *msg = op_msg(rp, rank, idx, RPO_SEND);
  if (msg) return msg->sdone;
  msg = op_msg(rp, rank, idx, RPO_RECV);
  return msg ? msg->rdone : TUTTI__TU_NONE;
}

double tutti__replay_done(const struct tutti_replay *rp, int rank, uint32_t idx) {
  return tutti__tu_to_s(tutti__replay_done_tu(rp, rank, idx));
}

int tutti__replay_report(const struct tutti_replay *rp, tutti_report_t *out) {
  if (!rp || !out) return TUTTI_EINVAL;
  memset(out, 0, sizeof *out);
  out->nranks = rp->nranks;
  out->ncalls = rp->ncalls;
  out->calls = rp->calls;
  out->rank_last_call = rp->rank_last_call;
  out->rank_end = rp->rank_end;
  out->modeled_time = rp->modeled_time;
  out->messages = rp->messages;
  out->bytes = rp->bytes;
  out->eager = rp->eager;
  out->rendezvous = rp->rendezvous;
  out->events = rp->events;
  out->replay_wall_time = rp->wall_time;
  out->replay_cpu_time = rp->cpu_time;
  out->replay_bytes = rp->state_bytes;
  if (rp->links) {
    out->nlinks = tutti_topo_nlinks(rp->model.topo);
    for (int l = 0; l < out->nlinks; l++) {
      tutti_link_stats_t st;
      if (!tutti_linkset_stats(rp->links, l, &st) && st.messages) out->links_used++;
    }
  }
  return 0;
}

int tutti__replay_links(const struct tutti_replay *rp, int k, tutti_link_load_t *out, int *n) {
  if (!rp || k < 0 || (k && !out) || !n) return TUTTI_EINVAL;
  *n = 0;
  if (!rp->links || !k) return 0;
  int *ids = malloc((size_t)k * sizeof *ids);
  if (!ids) return TUTTI_ENOMEM;
  int got = tutti_linkset_top(rp->links, TUTTI_LINKS_BY_BUSY, k, ids);
  for (int i = 0; i < got; i++) {
    tutti_link_stats_t st;
    tutti_link_load_t *o = &out[i];
    tutti_linkset_stats(rp->links, ids[i], &st);
    memset(o, 0, sizeof *o);
    o->link = ids[i];
    tutti_topo_link_name(rp->model.topo, ids[i], o->name, sizeof o->name);
    o->messages = st.messages;
    o->bytes = (uint64_t)st.bytes; /* a sum of whole byte counts: exact below 2^53 */
    o->busy = st.busy;
    o->wait = st.wait;
    o->max_queue = st.max_queue;
  }
  free(ids);
  if (got < 0) return got;
  *n = got;
  return 0;
}

int tutti__replay_world(struct tutti_world *w) {
  if (!w) return TUTTI_EINVAL;
  tutti__replay_free(w->replay);
  w->replay = NULL;
  if (!w->record) return 0;
  const struct tutti_evlog **logs = malloc((size_t)w->nranks * sizeof *logs);
  if (!logs) {
    snprintf(w->errtext, sizeof w->errtext, "replay: out of memory");
    return TUTTI_ENOMEM;
  }
  for (int r = 0; r < w->nranks; r++) logs[r] = &w->ranks[r]->log;
  char err[sizeof w->errtext - 16];
  int rc = tutti__replay_run(&w->model, w->nranks, logs, &w->replay, err, sizeof err);
  free(logs);
  if (rc) snprintf(w->errtext, sizeof w->errtext, "replay: %s", err);
  return rc;
}

int tutti_world_report(const tutti_world_t *w, tutti_report_t *out) {
  if (!w || !out) return TUTTI_EINVAL;
  if (w->running) return TUTTI_EBUSY;
  if (!w->replay) return TUTTI_ENOTSUP;
  return tutti__replay_report(w->replay, out);
}

int tutti_world_links(const tutti_world_t *w, int k, tutti_link_load_t *out, int *n) {
  if (!w || k < 0 || (k && !out) || !n) return TUTTI_EINVAL;
  if (w->running) return TUTTI_EBUSY;
  if (!w->replay) return TUTTI_ENOTSUP;
  return tutti__replay_links(w->replay, k, out, n);
}

/*
 * replay.h -- the replay engine's internal API: a sequential discrete-event
 * simulation of the per-rank event logs (evlog.h) that gives every recorded
 * run its modeled time by runtime/MODEL.md rules 1-8, plus the trace writers built
 * on its result (trace.c).
 *
 * Files: replay_prep.c checks and indexes the logs, replay.c simulates,
 * replay_report.c serves the result (their shared state: replay_sim.h).
 *
 * Who calls what:
 *   world.c   after every rank thread of a recorded run (w->record) joined:
 *             tutti__replay_world(w) -- replaces w->replay; and in
 *             tutti_world_destroy (and before a new run): tutti__replay_free.
 *   tests,    tutti__replay_run on hand-built logs; tutti__replay_report,
 *   bench     tutti__replay_trace, tutti__replay_timeline on its result.
 *
 * Threads: everything here runs on one thread (the world's owner) after the
 * rank threads are joined. A replay borrows the logs it was built from: they
 * must stay alive and unchanged until tutti__replay_free (world.c: free the
 * replay before a new run clears the logs). No global state; two replays
 * may run concurrently on different logs.
 *
 * Determinism: the result is a pure function of the logs and the model --
 * bit-identical whatever the thread interleaving of the recorded run, since
 * the logs themselves are (each rank's own sequence, and the matched send
 * each receive names).
 *
 * Times: the simulation runs in the integer time base of timebase.h
 * (runtime/MODEL.md "Time base": int64 picoseconds), so equal sums are
 * equal and rule 8 never decides on a rounding error. Messages and hops
 * keep their times in those units; what goes to users (calls, rank ends,
 * the modeled time, tutti__replay_done) is converted back to seconds.
 */
#ifndef TUTTI_REPLAY_H
#define TUTTI_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "evlog.h"
#include "timebase.h"
#include "tutti/world.h"
#include "tutti/report.h"

struct tutti_world;

/* One message (one SEND event), 64 bytes. Times are in units of the time
 * base (timebase.h; tutti__tu_to_s gives seconds, postal: steps);
 * TUTTI__TU_NONE while unknown (in a finished replay: the fields of a
 * message that never started, or was never received). The send's post time
 * is not kept: it is the sender's clock at the SEND (trace.c recomputes it). */
struct tutti_replay_msg {
  tutti__tu_t start;  /* s: the transfer started (rules 1, 3) */
  tutti__tu_t arrive; /* data complete at the receiver: s + L(m) (rules 1,
                         3), or the end of its path (topology); while
                         RPM_TRANSIT: when its tail reaches the next link */
  tutti__tu_t ready;  /* eager: e, the receiver's port served it (rule 2);
                         rendezvous: = arrive; while RPM_TRANSIT: when its
                         head reaches the next link; rendezvous handshake,
                         posted and its receive not yet: the request's
                         arrival at the receiver */
  tutti__tu_t sdone;  /* a blocking send returns: s + O_s(m) (rule 4);
                         RPM_DETACHED: its post + O_s(m) */
  tutti__tu_t rpost;  /* the matching RECV was posted (receiver's clock) */
  tutti__tu_t rdone;  /* the receive completes (rules 2, 3, 4); while
                         RPM_TRANSIT (no receive can complete yet): the id
                         of the next link of its path, to save recomputing it */
  uint64_t bytes;
  int32_t dst;
  uint16_t flags; /* RPM_* below */
  uint16_t hop;   /* topology: links of its path crossed so far */
};

/* tutti_replay_msg.flags */
enum {
  RPM_EAGER = 1u << 0,    /* m < eager_limit (rule 1), else rendezvous (rule 3) */
  RPM_MATCHED = 1u << 1,  /* a (non-failed) RECV names it (set when it is posted) */
  RPM_POSTED = 1u << 2,   /* the SEND was posted */
  RPM_STARTED = 1u << 3,  /* s known: start, sdone (and arrive, no topology) */
  RPM_SERVED = 1u << 4,   /* ready known (eager: the receiver's port served it) */
  RPM_RPOSTED = 1u << 5,  /* the matching RECV was posted */
  RPM_RDONE = 1u << 6,    /* rdone known */
  RPM_TRANSIT = 1u << 7,  /* started, crossing the links of its path (topology) */
  RPM_DETACHED = 1u << 8, /* rendezvous, m < detached_limit: sdone known at its post */
};

/* One message's passage over one link (runtime/MODEL.md "Topology"), recorded only
 * by a replay asked for it (TUTTI__REPLAY_HOPS: the traces). Under sharing
 * = fair, its flow's bandwidth phase on each link that costs bytes:
 * arrive = head = the phase's start, end = its end (replay_fair.c). */
struct tutti_replay_hop {
  uint32_t msg;       /* message id (index into msgs) */
  int32_t link;       /* link id (topo.h "Ids") */
  tutti__tu_t arrive; /* its head reached the link: h_{i-1} + lat_{i-1} */
  tutti__tu_t head;   /* h_i: the link started to carry it (arrive + queueing) */
  tutti__tu_t end;    /* e_i: its tail left the link, which is free again */
};

/* tutti__replay_run_ex flags */
enum { TUTTI__REPLAY_HOPS = 1u << 0 };

/* The replay's compact form of an event, 8 bytes: what the simulation reads
 * instead of the 24-byte log entry (3 times fewer cache lines).
 *   bits 0..7 kind (RPO_*), bits 8..31 the peer of a RECV (the sender),
 *   bits 32..63 the message id of SEND, RECV, WAIT_SEND, WAIT_RECV;
 *   REDUCE: bits 8..63 its bytes. */
enum {
  RPO_SEND = 1,
  RPO_RECV,
  RPO_WAIT_SEND,  /* a WAIT on a SEND of this log */
  RPO_WAIT_RECV,  /* a WAIT on a RECV of this log */
  RPO_NOP,        /* a failed RECV, or a WAIT on one */
  RPO_COMPUTE,    /* the amount is read from the log */
  RPO_REDUCE,     /* bytes in bits 8..63 */
  RPO_REDUCE_LOG, /* 2^56 bytes or more: read from the log */
  RPO_SPAN_BEGIN,
  RPO_SPAN_END,
};
#define RPO_KIND(op) ((unsigned)((op)&0xff))
#define RPO_PEER(op) ((int)(((op) >> 8) & 0xffffff))
#define RPO_ID(op) ((uint32_t)((op) >> 32))
#define RPO_MAX_RANKS (1 << 24)

/* The result of one replay. Read-only for everyone but replay.c and
 * replay_prep.c. */
struct tutti_replay {
  int nranks;
  tutti_model_t model;             /* a copy (topo borrowed) */
  const struct tutti_evlog **logs; /* nranks borrowed logs (array owned) */
  uint64_t *evoff;                 /* nranks + 1: rank r's events are
                                      ops[evoff[r] .. evoff[r+1]) */
  uint64_t *ops;                   /* per event: its RPO_* form */
  struct tutti_replay_msg *msgs;   /* nmsgs, in (sender, send order) order */
  uint32_t nmsgs;

  tutti_call_time_t *calls; /* ncalls: one per span (rule 7), in seconds */
  int ncalls;
  double *rank_last_call; /* nranks: end of each rank's last span
                             (its end of run if it had none), seconds */
  double *rank_end;       /* nranks: each rank's final clock, seconds */

  uint64_t events, messages, bytes, eager, rendezvous;
  tutti_linkset_t *links;        /* every link's statistics; NULL
                                    without a topology (owned) */
  struct tutti_replay_hop *hops; /* nhops, in the order decided; only
                                    with TUTTI__REPLAY_HOPS (owned) */
  uint64_t nhops;

  double modeled_time; /* max of rank_end, seconds */
  tutti__tu_t modeled; /* the same in units */
  double wall_time;    /* seconds spent in tutti__replay_run */
  double cpu_time;     /* CPU seconds of its thread and its helpers */
  size_t state_bytes;  /* memory the replay allocated (peak,
                          logs not counted) */
};

/* Replay `nranks` logs under model m. logs[r] is rank r's log (a NULL entry
 * is an empty log). On success *out is a new replay (free it with
 * tutti__replay_free) and 0 is returned. Errors, each with a one-line
 * message in err (if not NULL, truncated to errlen; *out is then NULL):
 * A RECV flagged TUTTI_EVF_FAILED, or whose ref is UINT32_MAX (posted but
 * never matched), is skipped, and a WAIT on it completes at once.
 *   TUTTI_EINVAL   more than 2^24 ranks or 2^32-1 messages; a log that cannot be replayed: a WAIT
 * that references nothing (out of range, not earlier, not a SEND/RECV); a SEND/RECV peer out of
 * range; a RECV whose ref is not a SEND to this rank with the same tag and bytes, or a SEND
 *                  received twice; spans that nest, do not end, or differ
 *                  between ranks (name or count); a model cost that is
 *                  negative or not finite, or a constant beyond the time
 *                  base's range; a modeled time beyond it; a replay that cannot finish (a
 *                  rank waits for a rendezvous send whose receive was never
 *                  posted, and the like).
 *                  With a topology (m->topo): it is not bound to exactly
 *                  nranks ranks (tutti_topo_bind), or its depth exceeds
 *                  TUTTI__REPLAY_MAX_DEPTH.
 *   TUTTI_ENOMEM   out of memory.
 * m and logs are read, never written; logs are borrowed by the result, and
 * so is m->topo (it must outlive the result: link names, reports). */
int tutti__replay_run(const tutti_model_t *m, int nranks, const struct tutti_evlog *const logs[],
                      struct tutti_replay **out, char *err, size_t errlen);
/* The same with flags: TUTTI__REPLAY_HOPS also records every link passage
 * (rp->hops; 32 B a hop), which the traces draw. A replay is a pure
 * function of logs and model, so this gives the very times of the plain
 * run: the traces re-run it rather than make every run pay for the record. */
int tutti__replay_run_ex(const tutti_model_t *m, int nranks, const struct tutti_evlog *const logs[],
                         unsigned flags, struct tutti_replay **out, char *err, size_t errlen);

/* A message's hop counter is 16 bits: paths of at most 2 * this many links. */
#define TUTTI__REPLAY_MAX_DEPTH 32767

/* Free a replay (NULL is fine). Does not touch the logs. */
void tutti__replay_free(struct tutti_replay *rp);

/* Test hook: from this many events on, the replay's pass over the
 * logs runs on one thread per CPU (replay_prep.c); 0: always. */
extern uint64_t tutti__replay_wide_events;
/* For world.c: replay the joined ranks' logs of a recorded run into
 * w->replay (the previous one is freed first). Does nothing and returns 0
 * when !w->record. On failure w->replay is NULL, w->errtext holds
 * "replay: <reason>" and the error code is returned. Only the world's owner
 * thread may call it, after every rank thread has been joined. */
int tutti__replay_world(struct tutti_world *w);

/* Fill a public report from a replay (arrays point into rp). */
int tutti__replay_report(const struct tutti_replay *rp, tutti_report_t *out);

/* The k most loaded links of a replay with a topology, busiest first (as
 * tutti_world_links); *n = 0 without a topology. Returns 0, TUTTI_EINVAL,
 * TUTTI_ENOMEM. */
int tutti__replay_links(const struct tutti_replay *rp, int k, tutti_link_load_t *out, int *n);

/* The record of the message sent by rank src as event idx of its log, or
 * NULL if that event is not a SEND. */
const struct tutti_replay_msg *tutti__replay_msg(const struct tutti_replay *rp, int src,
                                                 uint32_t idx);

/* When the SEND or RECV event idx of `rank` completes: the time a blocking
 * call would have returned (rule 4; what a WAIT on it waits for), in
 * seconds. NaN for another kind of event, a failed RECV, or an operation
 * that never completed. */
double tutti__replay_done(const struct tutti_replay *rp, int rank, uint32_t idx);
/* The same in units; TUTTI__TU_NONE where that gives NaN. */
tutti__tu_t tutti__replay_done_tu(const struct tutti_replay *rp, int rank, uint32_t idx);

/* trace.c: Chrome trace-event JSON and an ASCII timeline of a replay
 * (see tutti_world_trace and tutti_world_timeline in report.h). */
int tutti__replay_trace(const struct tutti_replay *rp, FILE *out);
int tutti__replay_timeline(const struct tutti_replay *rp, FILE *out, int width);

/* explain.c: tutti_world_explain of a replay (report.h); links = 0 leaves
 * out the link queues (hops, link_wait), which need the replay run again. */
int tutti__replay_explain(const struct tutti_replay *rp, int links, tutti_explain_t *ex);
/* explain_states.c: every rank's state spans (ex->spans, ex->nspans) from
 * the run's n messages `msgs` as tutti__replay_explain found them; 0 or
 * TUTTI_ENOMEM. */
int tutti__explain_states(const struct tutti_replay *rp, const tutti_msg_info_t *msgs, size_t n,
                          tutti_explain_t *ex);

#endif

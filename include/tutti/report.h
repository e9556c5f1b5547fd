/*
 * report.h -- what a recorded run's replay tells: modeled time per call and
 * per rank (runtime/MODEL.md rule 7), message counts, the load of every network
 * link when the model has a topology, and traces of every message (Chrome
 * trace-event JSON for Perfetto, an ASCII timeline for terminals).
 *
 * tutti.h includes this header; it may also be included on its
 * own. All of it describes the last run of a world that recorded events (a
 * modeled run, or TUTTI_RECORD): after tutti_world_run returns, the world
 * replays the logs once and keeps the result until the next run or destroy.
 *
 * Threads: like every world function, these are called only by the thread
 * that owns the world, never from a rank and never while it runs. They do
 * not modify the world; several may be called one after another freely.
 *
 * Errors: 0, or TUTTI_EINVAL (NULL argument), TUTTI_EBUSY (the world is
 * running), TUTTI_ENOTSUP (the last run recorded nothing -- the none model
 * without TUTTI_RECORD -- or failed, or the world never ran), TUTTI_EIO
 * (the stream reported an error).
 */
#ifndef TUTTI_REPORT_H
#define TUTTI_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "tutti/export.h"
#include "tutti/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One call: the k-th span (tutti_span_begin .. tutti_span_end), which every
 * rank opens in the same order. Times are modeled seconds (postal: steps). */
typedef struct tutti_call_time {
  const char *name;  /* the span's name (as given to tutti_span_begin) */
  double entry_min;  /* the first rank entered it */
  double entry_max;  /* every rank had entered it */
  double finish_max; /* the last rank left it */
  double time;       /* rule 7: finish_max - entry_max (the first call is
                        entered by all at 0, so it is finish_max there) */
} tutti_call_time_t;

/* A run's report. Arrays belong to the world and stay valid until its next
 * run or destroy. */
typedef struct tutti_report {
  int nranks;
  int ncalls;                     /* spans per rank; 0 if none was opened */
  const tutti_call_time_t *calls; /* ncalls entries, in call order */
  const double *rank_last_call;   /* nranks: when each rank left its last
                                     call (its end of run if ncalls is 0) */
  const double *rank_end;         /* nranks: each rank's clock at its end */
  double modeled_time;            /* the latest rank_end */
  uint64_t messages;              /* messages sent */
  uint64_t bytes;                 /* payload bytes sent */
  uint64_t eager, rendezvous;     /* by the model's eager_limit */
  uint64_t events;                /* recorded events replayed */
  double replay_wall_time;        /* seconds the replay took */
  size_t replay_bytes;            /* memory of the replay's state (the
                                     event logs, 32 B/event, not counted) */
  int nlinks;                     /* the topology's directed links; 0
                                     without a topology */
  int links_used;                 /* links that carried a message */
  double replay_cpu_time;         /* CPU seconds the replay's threads ran
                                     (its wall time on a loaded machine
                                     counts the other processes too) */
} tutti_report_t;

/* Fill *out with the report of w's last run. */
TUTTI_API int tutti_world_report(const tutti_world_t *w, tutti_report_t *out);

#define TUTTI_LINK_NAME_MAX 128

/* One directed link's load over a run (runtime/MODEL.md "Topology"). Times are
 * modeled seconds (postal: steps). */
typedef struct tutti_link_load {
  int link;                       /* its id (topo.h "Ids") */
  char name[TUTTI_LINK_NAME_MAX]; /* "s0 -> root", "leaf 3 (rank 6) -> s0" */
  uint64_t messages;              /* messages it carried */
  uint64_t bytes;                 /* bytes it carried */
  double busy;                    /* time it was held: the sum over its
                                     messages of e_i - h_i */
  double wait;                    /* time message heads queued for it */
  int max_queue;                  /* most messages at it at once (queued or
                                     being carried), the arriving one counted */
} tutti_link_load_t;

/* The k most loaded links of w's last run, busiest first (ties: more
 * bytes, then the lower id), into out[0..*n); only links that carried a
 * message are listed (tutti_report_t.links_used of them), so *n <= k.
 * Without a topology *n = 0 and 0 is returned. The topology (the model's
 * topo) must still be alive: the names come from it. */
TUTTI_API int tutti_world_links(const tutti_world_t *w, int k, tutti_link_load_t *out, int *n);

/* Write w's last run as Chrome trace-event JSON ({"traceEvents":[...]},
 * timestamps in microseconds; postal steps are shown as 1 us each) that
 * Perfetto (ui.perfetto.dev) and chrome://tracing open: one track per rank
 * ("rank N"), a slice per call, per send, receive and local work ("send
 * 1 KiB to 5, tag 3", "recv 8 B from 2, tag 0", "compute 2 us",
 * "reduce 64 B"), and an arrow per received message from its send to its
 * receive. A slice covers the time the rank spent in that operation (a
 * nonblocking one that needed no waiting is a zero-length slice). Below
 * each rank's track, "rank N state" has a slice per span of one of its
 * four states ("sending", "queued", "blocked", "done": enum
 * tutti_rank_state below).
 * With a topology, a second process "links" has one track per link that
 * carried a message, and a slice per message for the time it held the
 * link ("msg 3->5 1 KiB", its queueing time in the args), so one sees
 * where messages queued. */
TUTTI_API int tutti_world_trace(const tutti_world_t *w, FILE *out);

/* Print w's last run as an ASCII timeline: a time axis, then one row per
 * rank (the first 32 of larger worlds, which it says), `width` columns of
 * time (<= 0: 64), each column marked by what the rank did then:
 * S sending, R receiving, # both, . waiting, C computing or reducing. */
TUTTI_API int tutti_world_timeline(const tutti_world_t *w, FILE *out, int width);

/* ------------------------------------------------------------ explain */

/* Why a transfer started later than its send was posted
 * (tutti_msg_info_t.wait; runtime/MODEL.md rules 1 and 3). */
enum tutti_wait_kind {
  TUTTI_WAIT_NONE = 0,  /* it started when posted */
  TUTTI_WAIT_SEND_PORT, /* the sender's port was busy with an earlier transfer (blocker) */
  TUTTI_WAIT_RECV_POST, /* rendezvous: the receiver had not posted its receive yet */
  TUTTI_WAIT_RECV_PORT, /* rendezvous: the receiver's port was busy (blocker) */
  TUTTI_WAIT_HANDSHAKE, /* rendezvous handshake: the request and clear-to-send crossing */
};

/* One message of a run, as the replay decided it. Times are modeled
 * seconds (postal: steps); NaN where the run has none (a message never
 * received). */
typedef struct tutti_msg_info {
  int src, dst, tag;
  int call; /* the call (span) its send was posted in, from 0; -1: none */
  uint64_t bytes;
  int eager;             /* eager (rules 1, 2), else rendezvous (rule 3) */
  int round;             /* its round in the schedule, from 1: after the rounds
                            its sender had sent in or received a message of
                            (and waited for it) before posting it. A rank's
                            sends go one per round (a tree's children: a flat
                            tree's root sends in rounds 1..P-1), but those of
                            an exchange -- a step between two waits on
                            receives that posts receives and at most as many
                            sends -- share one (sendrecv; dissemination's k-1
                            partners). A send that waited for its receiver to
                            post comes after the rounds the receiver had
                            reached when it posted; one of single sends that
                            waited for the receiver's port, after the message
                            that held it. So a round starts no earlier than
                            the one before it */
  double posted;         /* the send was posted (the sender's clock) */
  double recv_posted;    /* the receive was posted (the receiver's clock) */
  double start;          /* the transfer started */
  double send_port_free; /* start + S(m): the sender's port free again */
  double send_done;      /* a blocking send returned: start + O_s(m) */
  double arrive;         /* the data was complete at the receiver */
  double done;           /* the receive completed */
  int wait;              /* enum tutti_wait_kind: why start > posted */
  int blocker;           /* SEND_PORT, RECV_PORT: the message (index) that
                            held the port, or -1 */
  double port_wait;      /* eager: how long it waited, arrived, for the
                            receiver's port (rule 2) */
  int port_blocker;      /* ... behind this message, or -1 */
  double link_wait;      /* topology: its queueing for busy links, summed
                            over its path */
  int link;              /* the link it queued at longest, or -1 */
  int critical;          /* on the critical path */
} tutti_msg_info_t;

/* One passage of a message over one link of the topology (runtime/MODEL.md
 * "Topology"): a link carries one message at a time, so a link's passages
 * never overlap, and head - arrive is the time the message queued there. */
typedef struct tutti_hop_info {
  uint32_t msg;  /* the message (index into tutti_explain_t.msgs) */
  int link;      /* its link id (topo.h "Ids"; tutti_topo_link_name) */
  double arrive; /* the message's head reached the link */
  double head;   /* the link started to carry it */
  double end;    /* its tail left the link, which is free again */
} tutti_hop_info_t;

/* What a rank does at a time t of a run, one of four states, named alike
 * by `tutti explain`, the trace (tutti_world_trace) and the --html page
 * (tutti_rank_state_name); a rank in none is computing, or has not begun:
 *   sending  its send port busy with one of its messages (start <= t <
 *            send_port_free), no other send of its own waiting behind;
 *   queued   its port busy and more of its own sends posted, not started,
 *            behind it (a flat tree's root);
 *   blocked  its port idle, and a receive of its own posted and not
 *            complete, or a send of its own posted and not started (a
 *            rendezvous receiver that has not posted, or whose port is busy);
 *   done     past its last event: its end (rank_end), its sends' ports
 *            free, its receives complete. */
enum tutti_rank_state {
  TUTTI_STATE_NONE = 0,
  TUTTI_STATE_SENDING,
  TUTTI_STATE_QUEUED,
  TUTTI_STATE_BLOCKED,
  TUTTI_STATE_DONE,
  TUTTI_NSTATES
};
/* "sending", "queued", "blocked", "done"; "" for TUTTI_STATE_NONE, NULL
 * for anything else. */
TUTTI_API const char *tutti_rank_state_name(int state);

/* A rank in one state from `from` to `to` (modeled seconds; postal: steps). */
typedef struct tutti_state_span {
  int rank, state; /* enum tutti_rank_state, never NONE */
  double from, to; /* from < to */
} tutti_state_span_t;

typedef struct tutti_explain {
  size_t nmsgs;
  tutti_msg_info_t *msgs; /* one per message, by sender then send order;
                             blocker fields index this array */
  int last_rank;          /* the rank that finished last (of ties: the one
                             with the longest critical path) */
  size_t npath;
  uint32_t *path; /* the critical path, first to last: the messages
                     whose times decided when last_rank finished,
                     each waiting for the one before (through its
                     sender's clock, a busy port, or a receiver that
                     posted late) */
  size_t nhops;
  tutti_hop_info_t *hops; /* with a topology: every passage of a message
                             over a link, in the order the replay decided
                             them (a message's hops in path order);
                             NULL and 0 without one */
  size_t nspans;
  tutti_state_span_t *spans; /* every rank's states over the run, by rank
                                then time; the last span of a rank that
                                ended before the run is `done` until the
                                run's end */
} tutti_explain_t;

/* Why w's last run took its modeled time, message by message: fill *out
 * (its arrays are the caller's; free them with tutti_explain_free). Costs
 * a pass over the logs (and, with a topology, the replay once more).
 * Errors as above, and TUTTI_ENOMEM. */
TUTTI_API int tutti_world_explain(const tutti_world_t *w, tutti_explain_t *out);
TUTTI_API void tutti_explain_free(tutti_explain_t *ex);

#ifdef __cplusplus
}
#endif
#endif /* TUTTI_REPORT_H */

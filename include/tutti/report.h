/*
 * report.h -- what a recorded run's replay tells: modeled time per call and
 * per rank (runtime/MODEL.md rule 7), message counts, the load of every network
 * link when the model has a topology, and traces of every message (Chrome
 * trace-event JSON for Perfetto, an ASCII timeline for terminals).
 *
 * tutti.h includes this header at its end; it may also be included on its
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
#include "tutti/tutti.h"

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
  double replay_cpu_time;         /* CPU seconds the replay's thread ran
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
 * nonblocking one that needed no waiting is a zero-length slice).
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

#ifdef __cplusplus
}
#endif
#endif /* TUTTI_REPORT_H */

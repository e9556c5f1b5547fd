/*
 * evlog.h -- the per-rank event log that the replay engine reads.
 *
 * Each rank appends to its own log while it runs (owner-only writes, no
 * sharing, no locks; growing a log past 12 KiB takes a block of evlog.c's
 * huge-page arena under its lock). After every rank thread has been joined, the replay
 * engine (replay.c) reads all logs and computes modeled times by runtime/MODEL.md.
 *
 * The receiver records which send it matched (peer + index of the SEND in
 * the peer's log), so the replay never re-does matching. Since modeled runs
 * forbid wildcards, the real match is the deterministic one of runtime/MODEL.md: the
 * k-th receive rank d posts for (s, t) matches the k-th send from s to d
 * with tag t.
 */
#ifndef TUTTI_EVLOG_H
#define TUTTI_EVLOG_H

#include <stddef.h>
#include <stdint.h>

#include "budget.h"

enum tutti_ev_kind {
  TUTTI_EV_SEND = 1,   /* isend posted: peer = dest, tag, bytes; ref = its ordinal
                          among this log's SENDs (0, 1, ...), which
                          tutti__evlog_push writes: the replay numbers the
                          messages from it without a pass of its own */
  TUTTI_EV_RECV,       /* irecv posted: peer = matched source, tag = matched tag,
                          bytes = matched bytes, ref = index of the SEND in peer's
                          log. flags & TUTTI_EVF_FAILED: never matched (truncated,
                          aborted): the replay skips it and waits on it complete. */
  TUTTI_EV_WAIT,       /* ref = index in this log of the SEND or RECV waited for */
  TUTTI_EV_COMPUTE,    /* u.seconds of local work */
  TUTTI_EV_REDUCE,     /* bytes of reduce_local: gamma * bytes */
  TUTTI_EV_SPAN_BEGIN, /* u.name: a call starts (collective or user span) */
  TUTTI_EV_SPAN_END,
};

enum tutti_ev_flags {
  TUTTI_EVF_FAILED = 1u << 0,
  TUTTI_EVF_EAGER = 1u << 1, /* SEND: went eager in the real run (informative) */
};

/* 24 bytes: a log's memory is most of a modeled run's, and at 10^7
 * messages its first touch most of the run's time. `bytes` (SEND, RECV,
 * REDUCE) and `u` (COMPUTE, SPAN_*) share their 8 bytes: no kind has
 * both. */
struct tutti_ev {
  uint8_t kind;
  uint8_t flags;
  uint16_t spare;
  int32_t peer;
  int32_t tag;
  uint32_t ref;
  union {
    uint64_t bytes;
    union {
      double seconds;
      const char *name;
      uint64_t raw;
    } u;
  };
};
_Static_assert(sizeof(struct tutti_ev) == 24, "runtime/MODEL.md \"Memory\" says 24 bytes");

/* A log's first capacity, in events: the size of a lent buffer. */
#define EVLOG_LENT 16

enum tutti_evlog_refusal {
  TUTTI_EVLOG_FULL = 1, /* n == max */
  TUTTI_EVLOG_BUDGET,   /* the shared budget is spent */
  TUTTI_EVLOG_NOMEM,    /* realloc failed (or the test hook refused) */
  TUTTI_EVLOG_MEMORY,   /* the world's memory budget refused the growth */
};

struct tutti_evlog {
  struct tutti_ev *ev;
  uint32_t n, cap;
  uint32_t max;    /* at most this many events (tutti_config_t.max_events); 0: 2^32 - 1 */
  uint32_t refuse; /* test hook: growing past this many fails as if out of memory; 0: off */
  /* Capacity, in events, that the logs sharing it may still take (atomic;
   * a log takes what it grows by and gives it back when freed). A world's
   * automatic limit is such a budget, not a share per rank: a flat root
   * records 2P events while its leaves record 2. NULL: no budget. */
  uint64_t *budget;
  /* The world's memory budget, charged with what the log grows by and
   * given back when it is freed; NULL: none. */
  struct tutti__budget *mem;
  /* EVLOG_LENT events' room its owner lends for the first events, never
   * freed nor charged to mem (a rank's: counted with the rank); NULL: none */
  struct tutti_ev *lent;
  uint8_t refusal; /* why the last push failed, enum tutti_evlog_refusal */
  uint8_t order;   /* ev is a block of 2^order bytes of evlog.c's arena; 0: malloc'd or lent */
  uint32_t nsend;  /* SENDs among the n events */
};

/* Append one event (the log grows by doubling, never past max nor past
 * the budget); returns its index, or UINT32_MAX when it cannot (refusal
 * says why; the rank then fails with TUTTI_ENOMEM, p2p.c). A SEND is
 * stored with ref = nsend, its ordinal, whatever ev->ref says. */
uint32_t tutti__evlog_push(struct tutti_evlog *log, const struct tutti_ev *ev);
void tutti__evlog_clear(struct tutti_evlog *log);
void tutti__evlog_free(struct tutti_evlog *log);

#endif

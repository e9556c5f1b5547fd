/*
 * schedule.h -- a Hockney replay of a schedule of blocking operations, for
 * the cost functions of algorithms whose time has no closed form
 * (binary-reduce-bcast, two-tree). Internal to collectives/.
 *
 * A rank's schedule is a sequence of blocking operations, each an optional
 * send and an optional receive (a sendrecv when both), generated on
 * demand. Under Hockney every message is rendezvous, and with blocking
 * operations the matching side of a transfer is always the partner's
 * current operation (messages between two ranks match in order), so a
 * transfer starts when both operations are posted and ends alpha + beta
 * bytes later; an operation ends with its last transfer, plus gamma per
 * byte for each time it combines the received block. This is runtime/MODEL.md's
 * rules 3-5 for such programs. Pure; any thread.
 */
#ifndef TUTTI_COLL_SCHEDULE_H
#define TUTTI_COLL_SCHEDULE_H

#include "tutti/coll.h"

typedef struct tutti__bop {
  int speer, rpeer;      /* -1: none */
  long sblk, rblk;       /* the algorithm's block ids */
  double sbytes, rbytes; /* for the replay */
  int reduce;            /* how many times the received block is combined (gamma each) */
} tutti__bop_t;

/* The k-th operation (k = 0, 1, ...) of `rank` into *o: 1, or 2 for "no
 * operation at this k" (skipped), or 0 when the schedule has ended. */
typedef int tutti__bop_fn(const void *ctx, int rank, long k, tutti__bop_t *o);

/* The time the last rank finishes; NAN if the schedule deadlocks (a bug)
 * or memory runs out. */
double tutti__schedule_hockney(int P, tutti__bop_fn *fn, const void *ctx, const tutti_hockney_t *h);

/* How many messages the schedule sends, all ranks together: its sends. */
double tutti__schedule_sends(int P, tutti__bop_fn *fn, const void *ctx);

#endif /* TUTTI_COLL_SCHEDULE_H */

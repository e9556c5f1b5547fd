/*
 * replay_fair.h -- sharing = fair (runtime/MODEL.md "Sharing"): the flow
 * engine that replay.c hands a message's transfer to, from its start to
 * its delivery, instead of the ports' and links' one-at-a-time rules.
 * Private to runtime/replay*.c (their shared state: replay_sim.h).
 *
 * How replay.c drives it: once a transfer's start s is known (rules 1
 * and 3), tutti__fair_launch; at every PORT activity of a message in
 * transit (RPM_TRANSIT), tutti__fair_event; at the activity REFILL_KEY,
 * tutti__fair_refill. Both return 1 when the
 * message is delivered -- msg->arrive is then its data-complete time and
 * RPM_TRANSIT is clear, as transfer_delivered expects --, 0 when it is
 * still in flight (a PORT activity is queued for it), or a negative error.
 */
#ifndef TUTTI_REPLAY_FAIR_H
#define TUTTI_REPLAY_FAIR_H

#include "replay_sim.h"

struct fair;

/* Make s->fair for s's model and topology (replay_prep.c, after the model
 * is in units). 0 or TUTTI_ENOMEM. */
int tutti__fair_create(struct sim *s);
void tutti__fair_free(struct fair *f);
/* Its memory at its peak, in bytes (the replay's state_bytes). */
size_t tutti__fair_bytes(const struct fair *f);

/* Message id from src has started at msg->start: its latency phase. */
int tutti__fair_launch(struct sim *s, int src, uint32_t id);
/* A PORT activity at t for message id in transit: the end of its latency
 * phase (its flow starts) or a predicted end of its flow (superseded
 * predictions are ignored). */
int tutti__fair_event(struct sim *s, int src, uint32_t id, tutti__tu_t t);

/* The key of the refill that follows the flows' starts and ends at one
 * instant: after every other activity at that time (the largest key; a
 * PORT activity of no message, since message ids are below NONE). */
#define REFILL_KEY UINT64_MAX
/* That activity, popped at t: the rates of the components those starts
 * and ends touched, set anew. 0 or TUTTI_ENOMEM. */
int tutti__fair_refill(struct sim *s, tutti__tu_t t);

#endif

/*
 * fastbox.h -- per-pair fastboxes for small eager messages, inline for the
 * message path; offering and accepting a box (once per pair) are in
 * fastbox.c.
 *
 * A fastbox is one pair's single-slot mailbox for small eager messages, as
 * MPICH's nemesis and Open MPI's vader have: two cache lines that the
 * receiver polls and the sender fills, so a message costs the line
 * transfers of a ping-pong and nothing else. The sender allocates it once
 * it has sent BOX_AFTER messages to a peer, and offers it through the inbox;
 * the receiver accepts up to BOX_MAX (it polls every one it holds) and
 * refuses the rest. The box is a message header and payload:
 * box->seq is 0 when empty, else the pair sequence number of the message in
 * it; box->arrival carries the offer's state. Who writes which field when
 * is in internal.h's synchronization table.
 *
 * Order. Every message of a pair carries a sequence number, and a pair's
 * messages go by box or by inbox, whichever is free. Each path is FIFO and
 * the box holds one message, so the receiver restores the order by taking
 * the box first whenever the inbox brings a later number (the sender filled
 * the box before it enqueued that message, so the box is visible).
 */
#ifndef TUTTI_FASTBOX_H
#define TUTTI_FASTBOX_H

#include "chan.h"

enum { BOX_BYTES = 128, BOX_PAYLOAD = BOX_BYTES - MSG_HEADER, BOX_AFTER = 8 };
#define BOX_MAX ((int)(sizeof((struct tutti_rank *)0)->boxes / sizeof(struct boxref)))
enum { BOX_OFFERED = 0, BOX_OPEN, BOX_REFUSED };

static inline uint32_t next_seq(uint32_t s) {
  return s + 1 ? s + 1 : 1;
} /* 0: empty box */

/* The sender's side: offer a box to d ahead of the message numbered seq
 * (no box if memory is short: the inbox serves). */
void tutti__box_offer(struct tutti_rank *r, struct tutti_rank *d, struct chan *o, uint32_t seq);

/* The receiver's side of an offer (a MSG_BOXOFFER from the inbox). */
void tutti__box_accept(struct tutti_rank *r, struct msg *offer);

/* The sender's side: the box to this peer, if it is open and empty. */
static inline struct msg *box_claim(struct tutti_rank *r, struct chan *o, size_t bytes) {
  struct msg *b = o->box;
  if (!b || bytes > BOX_PAYLOAD) return NULL;
  uint32_t state = __atomic_load_n(&b->arrival, __ATOMIC_ACQUIRE);
  if (state == BOX_REFUSED) {
    free(b);
    o->box = NULL;
    return NULL;
  }
  if (state != BOX_OPEN || __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE)) return NULL;
  return b;
}

/* The receiver's side: whether any box it holds is full. */
static inline bool boxes_full(struct tutti_rank *r) {
  for (int i = 0; i < r->nboxes; i++)
    if (__atomic_load_n(&r->boxes[i].box->seq, __ATOMIC_ACQUIRE)) return true;
  return false;
}

static inline void take_box(struct tutti_rank *r, struct boxref *b) {
  struct msg *m = b->box;
  b->expect = next_seq(m->seq);
  deliver(r, m);
}

/* Take what the boxes hold, each in its pair's order. */
static inline void poll_boxes(struct tutti_rank *r) {
  for (int i = 0; i < r->nboxes; i++) {
    struct boxref *b = &r->boxes[i];
    if (__atomic_load_n(&b->box->seq, __ATOMIC_ACQUIRE) == b->expect) take_box(r, b);
  }
}

/* Take what the box from src holds, if there is one. */
static inline void poll_box_of(struct tutti_rank *r, int src) {
  struct chan *c = r->nboxes ? chan_get(r, src, false) : NULL;
  if (!c || !c->boxi1) return;
  struct boxref *b = &r->boxes[c->boxi1 - 1];
  if (__atomic_load_n(&b->box->seq, __ATOMIC_ACQUIRE) == b->expect) take_box(r, b);
}

/* An inbox message, in its pair's order with the box. */
static inline void deliver_inbox(struct tutti_rank *r, struct msg *m) {
  if (m->kind == MSG_BOXOFFER) {
    tutti__box_accept(r, m);
    pool_return(r, m);
    return;
  }
  struct chan *c = chan_get(r, m->src, false);
  if (c && c->boxi1) {
    struct boxref *b = &r->boxes[c->boxi1 - 1];
    if (m->seq != b->expect) {
      if (__atomic_load_n(&b->box->seq, __ATOMIC_ACQUIRE) != b->expect) { /* cannot happen */
        tutti__fail(r->world, r->rank, TUTTI_EINVAL,
                    "rank %d: internal error: message from %d "
                    "out of order",
                    r->rank, m->src);
        tutti__abort_all(r->world);
        return;
      }
      take_box(r, b);
    }
    b->expect = next_seq(m->seq);
  }
  deliver(r, m);
}

#endif

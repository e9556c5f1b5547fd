/*
 * chan.h -- channels and matching, inline for the message path (the table's
 * growth is in chan.c).
 *
 * The owner of an inbox sorts arrivals into per-source channels
 * (receiver-private, created the first time a source is seen, so memory
 * grows with the pairs that talk, never with P x P) holding unexpected
 * messages and posted receives. A message completes the earliest posted
 * receive that matches it, specific or wildcard, or waits in its channel
 * until a receive is posted; the wfcqueue is FIFO per producer, so this is
 * MPI's non-overtaking order per pair. Owner only.
 */
#ifndef TUTTI_CHAN_H
#define TUTTI_CHAN_H

#include <math.h>

#include "pool.h"
#include "wait.h"

/* ---------------------------------------------------------------- channels */

static inline uint32_t hash_peer(int peer) {
  return (uint32_t)peer * 2654435761u;
}

/* Create the channel of `peer` (not there yet), growing the table; NULL
 * when out of memory. */
struct chan *tutti__chan_add(struct tutti_rank *r, int peer);

/* The channel of `peer`, created on first use when `create`. The pointer is
 * valid until the next creation. */
static inline struct chan *chan_get(struct tutti_rank *r, int peer, bool create) {
  /* Most calls ask for the channel asked for last (the receive posted, then
   * the message it waits for). */
  if (r->lastchan && r->lastchan->peer == peer) return r->lastchan;
  if (r->chancap) {
    uint32_t mask = r->chancap - 1;
    for (uint32_t i = hash_peer(peer) & mask;; i = (i + 1) & mask) {
      if (r->chans[i].peer == peer) return r->lastchan = &r->chans[i];
      if (r->chans[i].peer < 0) break;
    }
  }
  return create ? tutti__chan_add(r, peer) : NULL;
}

static inline bool tag_match(int want, int tag) {
  return want == TUTTI_ANY_TAG || want == tag;
}

/* ---------------------------------------------------------------- matching */

/* Take the node read in place off the queue now (its memory is about to be
 * reused); when it is the last, this is wfcqueue's dequeue with the tail. */
static inline void unlink_seen(struct tutti_rank *r) {
  __cds_wfcq_dequeue_blocking(&r->inbox_head, &r->inbox_tail);
  r->seen = NULL;
}

/* Complete receive q with message m. Returns true if m was consumed; false
 * when it does not fit (q fails with ETRUNCATE, m stays to be received). */
static inline bool complete_recv(struct tutti_rank *r, struct tutti_request *q, struct msg *m) {
  q->st.source = m->src;
  q->st.tag = m->tag;
  q->st.bytes = m->bytes;
  if (m->bytes > q->cap) {
    q->err = q->st.error = TUTTI_ETRUNCATE;
    if (q->ev != UINT32_MAX) r->log.ev[q->ev].flags |= TUTTI_EVF_FAILED;
    q->done = 1;
    return false;
  }
  if (q->ev != UINT32_MAX) {
    struct tutti_ev *e = &r->log.ev[q->ev];
    e->peer = m->src, e->tag = m->tag, e->bytes = m->bytes, e->ref = m->send_ev;
  }
  const tutti_model_t *md = &r->world->model;
  if (m->kind != MSG_RTS) {  /* eager, from the inbox or a fastbox */
    if (r->world->wallclock) /* rules 1-2 without ports */
      q->vdone =
          fmax(q->vpost, m->vdepart + cost(&md->latency, m->bytes)) + cost(&md->recv_cpu, m->bytes);
    if (m->bytes && !r->world->nodata) payload_copy(q->buf, msg_data(m), m->bytes);
    pool_return(r, m);
  } else {
    struct tutti_request *sq = caa_container_of(m, struct tutti_request, rts);
    struct tutti_rank *sender = r->world->ranks[m->src];
    int posted = RTS_POSTED;
    if (!__atomic_compare_exchange_n(&sq->rts_state, &posted, RTS_COPYING, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
      /* Cancelled: the sender failed and may have freed its buffer. */
      if (&m->qnode == r->seen) unlink_seen(r);
      q->err = q->st.error = TUTTI_EABORTED;
      if (q->ev != UINT32_MAX) r->log.ev[q->ev].flags |= TUTTI_EVF_FAILED;
      q->done = 1;
      return true;
    }
    if (r->world->wallclock) { /* rule 3 without ports */
      double s = fmax(m->vdepart, q->vpost);
      q->vdone = s + cost(&md->latency, m->bytes) + cost(&md->recv_cpu, m->bytes);
      sq->vdone = s + cost(&md->send_cpu, m->bytes);
    }
    if (m->bytes && !r->world->nodata) memcpy(q->buf, sq->sbuf, m->bytes);
    if (&m->qnode == r->seen) unlink_seen(r);
    /* After this store the sender may reuse the request holding m. */
    tsan_release(sq);
    __atomic_store_n(&sq->done, 1, __ATOMIC_SEQ_CST);
    wake(r, sender);
  }
  q->done = 1;
  return true;
}

/* Unlink q from the singly linked list (head, tail) given its predecessor. */
#define UNLINK(head, tail, prev, q)                                                                \
  do {                                                                                             \
    if (prev)                                                                                      \
      (prev)->next = (q)->next;                                                                    \
    else                                                                                           \
      (head) = (q)->next;                                                                          \
    if ((tail) == (q)) (tail) = (prev);                                                            \
  } while (0)

/* A fastbox message that must wait (no receive matches, or it would
 * truncate) is copied into a buffer of our own, so that the box is free
 * again. */
static inline struct msg *box_to_local(struct tutti_rank *r, struct msg *box) {
  size_t pay = r->world->nodata ? 0 : box->bytes; /* no-data: a header alone */
  struct msg *m = pool_get(r, pay);
  if (!m) {
    tutti__fail(r->world, r->rank, TUTTI_ENOMEM, "rank %d: out of memory for a message", r->rank);
    tutti__abort_all(r->world);
    return NULL;
  }
  m->kind = MSG_EAGER;
  m->local = 1;
  m->src = box->src, m->tag = box->tag, m->bytes = box->bytes;
  m->send_ev = box->send_ev, m->vdepart = box->vdepart, m->seq = box->seq;
  if (pay) payload_copy(msg_data(m), msg_data(box), pay);
  pool_return(r, box);
  return m;
}

/* Message m arrived, in its pair's order: complete a receive, or keep it.
 * match false: keep it, even if a posted receive matches (a sender
 * delivering straight into an aborted receiver, p2p.c). */
static inline __attribute__((always_inline)) void deliver_as(struct tutti_rank *r, struct msg *m,
                                                             bool match) {
  struct chan *c = chan_get(r, m->src, true);
  if (!c) { /* out of memory in a receiver-private table: fail the rank */
    tutti__fail(r->world, r->rank, TUTTI_ENOMEM, "rank %d: out of memory for a channel", r->rank);
    tutti__abort_all(r->world);
    return;
  }
  /* The earliest posted receive that matches: specific or wildcard. */
  struct tutti_request *q = NULL, *qp = NULL, *best = NULL, *wq = NULL, *wp = NULL;
  if (match) {
    for (q = c->pq_head; q && !tag_match(q->tag, m->tag); qp = q, q = q->next) {
    }
    for (wq = r->wq_head; wq && !tag_match(wq->tag, m->tag); wp = wq, wq = wq->next) {
    }
  }
  if (q && (!wq || q->post_seq < wq->post_seq)) {
    best = q;
    UNLINK(c->pq_head, c->pq_tail, qp, q);
  } else if (wq) {
    best = wq;
    UNLINK(r->wq_head, r->wq_tail, wp, wq);
  }
  if (best && complete_recv(r, best, m)) return;
  if (m->kind == MSG_BOX && !(m = box_to_local(r, m))) return;
  /* Unexpected: only now does the receiver write into the message. */
  m->arrival = r->arrival_seq++;
  m->next = NULL;
  if (c->uq_tail)
    c->uq_tail->next = m;
  else
    c->uq_head = m;
  c->uq_tail = m;
  r->n_unexpected++;
}

static inline __attribute__((always_inline)) void deliver(struct tutti_rank *r, struct msg *m) {
  deliver_as(r, m, true);
}

/* Try to match a just-posted receive against the unexpected messages. */
static inline bool match_unexpected(struct tutti_rank *r, struct tutti_request *q) {
  struct chan *c = NULL;
  struct msg *m = NULL, *prev = NULL;
  if (q->src != TUTTI_ANY_SOURCE) {
    c = chan_get(r, q->src, false);
    if (c)
      for (m = c->uq_head; m && !tag_match(q->tag, m->tag); prev = m, m = m->next) {
      }
  } else if (r->n_unexpected) {
    /* Wildcard: the earliest arrival over all channels. */
    for (uint32_t i = 0; i < r->chancap; i++) {
      struct chan *ci = &r->chans[i];
      if (ci->peer < 0) continue;
      struct msg *mi, *pi = NULL;
      for (mi = ci->uq_head; mi && !tag_match(q->tag, mi->tag); pi = mi, mi = mi->next) {
      }
      /* Stamps wrap at 2^32; far fewer messages than that are ever waiting. */
      if (mi && (!m || (int32_t)(mi->arrival - m->arrival) < 0)) m = mi, prev = pi, c = ci;
    }
  }
  if (!m) return false;
  if (m->bytes <= q->cap) {
    /* Unlink before the copy: complete_recv hands an eager buffer back to
     * its sender, who may reuse it at once. */
    UNLINK(c->uq_head, c->uq_tail, prev, m);
    r->n_unexpected--;
  }
  complete_recv(r, q, m);
  return true;
}

#endif

/*
 * pending.c -- what a rank leaves behind when its function returns: its
 * requests still pending. A rendezvous send's receiver would copy from
 * the rank's buffer, and a posted receive would be filled, after the
 * rank's code may have freed that memory; whether the message came before
 * the return would decide between a success, a deadlock and a write into
 * freed memory. So every request still active when the rank returns is
 * an error of the rank (world.c: TUTTI_EPENDING, naming the rank and the
 * request), whatever has arrived, and each is made harmless here first.
 */
#include <stdio.h>

#include "internal.h"
#include "pool.h" /* struct req_chunk */

static void describe(const struct tutti_request *q, char *what, size_t len) {
  if (q->st.source == TUTTI_PROC_NULL) { /* a request on TUTTI_PROC_NULL, complete */
    snprintf(what, len, "%s TUTTI_PROC_NULL", q->kind == REQ_SEND ? "isend to" : "irecv from");
  } else if (q->kind == REQ_SEND) {
    snprintf(what, len, "isend to rank %d, tag %d", q->dest, q->stag);
  } else if (q->src == TUTTI_ANY_SOURCE) {
    snprintf(what, len, "irecv from any source, tag %d", q->tag);
  } else if (q->tag == TUTTI_ANY_TAG) {
    snprintf(what, len, "irecv from rank %d, any tag", q->src);
  } else {
    snprintf(what, len, "irecv from rank %d, tag %d", q->src, q->tag);
  }
}

int tutti__rank_pending_count(const struct tutti_rank *r, char *what, size_t len) {
  int n = 0;
  const struct tutti_request *first = NULL;
  /* Chunks are newest first, each in allocation order: the first pending
   * request of the oldest chunk is the earliest allocated. */
  for (const struct req_chunk *c = r->reqchunks; c; c = c->next)
    for (int i = c->n - 1; i >= 0; i--)
      if (c->reqs[i].active) n++, first = &c->reqs[i];
  if (n && what && len) describe(first, what, len);
  return n;
}

int tutti__rank_pending(struct tutti_rank *r, char *what, size_t len) {
  int n = tutti__rank_pending_count(r, what, len);
  if (!n) return 0;
  tutti__cancel_sends(r);
  /* No posted receive is left to match: a message that comes now stays
   * unexpected, and is freed with the rank's channels. */
  for (uint32_t i = 0; i < r->chancap; i++) r->chans[i].pq_head = r->chans[i].pq_tail = NULL;
  r->wq_head = r->wq_tail = NULL;
  return n;
}

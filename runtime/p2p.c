/*
 * p2p.c -- point-to-point messaging between rank threads: the public calls
 * (send, recv, isend, irecv, wait, waitall, test, sendrecv, compute, spans),
 * the send path and the receiver's progress. The parts they are built from:
 *   wait.h, wait.c    waking and sleeping (futex doorbells), exact deadlock
 *                     detection, failure and abort, wall-clock pacing
 *   pool.h            eager buffers, their batched return, requests
 *   chan.h, chan.c    per-peer channels and matching
 *   fastbox.h, .c     per-pair fastboxes for small eager messages
 *   rank.c            a rank's creation, reset and teardown
 *   rankinfo.c        a rank's number, size, model, chain; collective tags
 * What runs per message is inline in those headers, so the message path
 * compiles into this file as one unit; only what runs once per pair, per
 * sleep or per run is called out of line.
 *
 * Message path. Each rank has one inbox, a liburcu wait-free concurrent
 * queue (wfcqueue): any sender enqueues (wait-free, one xchg), only the
 * owner dequeues, so no lock is taken on the message path. The wfcqueue is
 * FIFO per producer, which gives MPI's non-overtaking order per pair. The
 * owner sorts arrivals into per-source channels (chan.h).
 *
 * Protocols. A message of m < eager_limit bytes is eager: copied into a
 * cache-line-aligned buffer from the sender's pool (header and up to 8
 * bytes in one line), and the sender goes on; the receiver copies it out
 * and hands the buffer back in a batch (pool.h). Larger messages are
 * rendezvous, single copy: the envelope (inside the send request) points at
 * the sender's buffer; the receiver copies straight from it, then marks the
 * request done and rings the sender's doorbell. A pair that keeps talking
 * gets a fastbox (fastbox.h): a message then costs the line transfers of a
 * ping-pong; the inbox serves whenever the box is busy, and per-pair
 * sequence numbers keep MPI's order across the two paths.
 *
 * Direct delivery. With all ranks fibers of one worker thread, in a run
 * that neither records nor paces (tutti__direct), a sender puts its message
 * into the receiver's channel itself (chan.h deliver), completing a posted
 * receive at once, in sending order. No inbox, no fastbox: no rank runs
 * meanwhile, and a rank gives its thread away only where its channels
 * are whole (tutti__block, and a yield before its send takes its own
 * channel, whose table a delivery may grow).
 *
 * Cache lines on the inbox path. A one-way message costs the receiver two
 * line transfers it cannot avoid with a linked queue: the link in the
 * previous node, then the new node. Everything else stays on one side: the
 * inbox tail is written only by senders (the receiver reads the queue's last
 * node in place instead of dequeuing it, see progress_inbox), the head only
 * by the receiver, returns go back in batches, and the sender fetches its
 * next buffer for writing while it waits.
 *
 * liburcu is used through its shared library (no _LGPL_SOURCE): the calls
 * cost a few ns next to a 70 ns cache-line transfer, and the sanitizers
 * then see only our own code, with explicit acquire/release annotations
 * where a message changes hands. Two steps of the wfcqueue are done in
 * line, where they touch only what one thread owns (wait.h inbox_pop,
 * and inbox_push on a one-worker fiber world), because there a small
 * message is only a few dozen instructions and a call would weigh.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>

#include "fastbox.h"
#include "tutti/p2p.h"
#include "tutti/units.h" /* TUTTI_TIME_MAX */

/* ------------------------------------------------------------------ events */

/* The rank's call failed (the world is aborted, or about to be): cancel
 * every rendezvous send it has pending, so that no receiver reads the
 * buffers its code may free on the way out (an algorithm returning its
 * error frees its scratch space without waiting for its requests). A send
 * whose receiver is copying already is waited for: a copy is short. Then
 * no other thread touches this rank's memory. Owner only; an error path. */
static void cancel_sends(struct tutti_rank *r) {
  for (struct req_chunk *c = r->reqchunks; c; c = c->next)
    for (int i = 0; i < c->n; i++) {
      struct tutti_request *q = &c->reqs[i];
      if (q->kind != REQ_SEND || q->rts.kind != MSG_RTS || tutti__load_acq(&q->done)) continue;
      int posted = RTS_POSTED;
      if (__atomic_compare_exchange_n(&q->rts_state, &posted, RTS_CANCELLED, false,
                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
          posted == RTS_CANCELLED)
        continue;
      while (!tutti__load_acq(&q->done)) tutti__relax(r); /* RTS_COPYING: the copy ends */
      tsan_acquire(q);
    }
}

void tutti__cancel_sends(struct tutti_rank *r) {
  cancel_sends(r);
}

/* The rank's call fails with err, which the caller has claimed (tutti__fail,
 * naming the rank): the world is aborted and the rank's sends cancelled. */
static int rank_fails(struct tutti_rank *r, int err) {
  tutti__abort_all(r->world);
  cancel_sends(r);
  return err;
}

/* Append ev to the rank's log. A log that cannot grow (full at max_events,
 * or out of memory) fails the run at once, naming the rank: the log is
 * incomplete, so no modeled time can come of this run, and the other ranks
 * should not keep filling theirs. */
static int push(struct tutti_rank *r, const struct tutti_ev *ev, uint32_t *index) {
  uint32_t i = tutti__evlog_push(&r->log, ev);
  if (__builtin_expect(i == UINT32_MAX, 0)) {
    struct tutti_world *w = r->world;
    uint32_t n = r->log.n;
    if (r->log.refusal == TUTTI_EVLOG_FULL)
      tutti__fail(w, r->rank, TUTTI_ENOMEM,
                  "rank %d: event log full at %" PRIu32 " events (the limit per rank, max_events; "
                  "%zu bytes each; raise it or record fewer calls)",
                  r->rank, n, sizeof(struct tutti_ev));
    else if (r->log.refusal == TUTTI_EVLOG_BUDGET)
      tutti__fail(w, r->rank, TUTTI_ENOMEM,
                  "rank %d: event logs full: all ranks' logs hold %" PRIu64 " events, the "
                  "automatic limit (a quarter of physical memory at %zu bytes each; set "
                  "max_events, or record fewer calls or ranks)",
                  r->rank, w->ev_budget_total, sizeof(struct tutti_ev));
    else if (r->log.refusal == TUTTI_EVLOG_MEMORY)
      return rank_fails(r, tutti__mem_refused(w, r->rank, TUTTI__MEM_LOGS,
                                              (uint64_t)(r->log.cap ? r->log.cap : 16) *
                                                  sizeof(struct tutti_ev)));
    else
      tutti__fail(w, r->rank, TUTTI_ENOMEM,
                  "rank %d: out of memory for its event log (%" PRIu32 " events, %zu bytes each)",
                  r->rank, n, sizeof(struct tutti_ev));
    return rank_fails(r, TUTTI_ENOMEM);
  }
  if (index) *index = i;
  return 0;
}

static int record(struct tutti_rank *r, uint8_t kind, int peer, int tag, uint64_t bytes,
                  uint32_t ref, uint32_t *index) {
  struct tutti_ev ev = {.kind = kind, .peer = peer, .tag = tag, .bytes = bytes, .ref = ref};
  return push(r, &ev, index);
}

/* Counts a posted message; the test hook's fault (tutti__world_inject)
 * fails the rank's fault_at-th, as a failing system call would. */
static int inject_fault(struct tutti_rank *r) {
  struct tutti_world *w = r->world;
  int err = w->fault_err;
  tutti__fail(w, r->rank, err, "rank %d failed: %s (%s) at its message %" PRIu64 " (injected)",
              r->rank, tutti_err_name(err), tutti_strerror(err), r->n_posts);
  return rank_fails(r, err);
}

static inline int count_post(struct tutti_rank *r) {
  r->n_posts++;
  if (__builtin_expect(r->world->fault_rank == r->rank, 0) && r->n_posts == r->world->fault_at)
    return inject_fault(r);
  return 0;
}

/* ---------------------------------------------------------------- progress */

/* Move everything in the inbox to its channel.
 *
 * The last node of the queue is read in place and left linked (r->seen):
 * dequeuing it would move the tail to the receiver and back to the next
 * sender, two cache-line transfers per message. A node with a successor
 * comes off without touching the tail. So seen's memory stays the queue's
 * until a successor appears: an eager buffer waits in r->held, and a
 * rendezvous envelope is dequeued for real before its send completes
 * (complete_recv). */
static void progress_inbox(struct tutti_rank *r) {
  struct cds_wfcq_node *n, *next;
  while ((n = link_of(&r->inbox_head.node))) {
    if (n == r->seen) {
      if (!(next = link_of(n))) break;
      inbox_pop(r, next);
      r->seen = NULL;
      struct msg *h = r->held;
      if (h) r->held = NULL, pool_return(r, h);
      continue;
    }
    struct msg *m = caa_container_of(n, struct msg, qnode);
    tsan_acquire(m);
    if ((next = link_of(n)))
      inbox_pop(r, next);
    else
      r->seen = n;
    deliver_inbox(r, m);
  }
}

/* Move everything in the inbox and the boxes to the channels. Owner only. */
static void progress(struct tutti_rank *r) {
  bool inbox = inbox_nonempty(r);
  if (!inbox && !r->nboxes) return;
  PERTURB(r);
  if (inbox) progress_inbox(r);
  if (r->nboxes) poll_boxes(r);
}

/* --------------------------------------------------------------- checking */

static int check_buf(const void *buf, long count, tutti_datatype_t type, size_t *bytes) {
  if (!tutti__type_ok(type)) return TUTTI_ETYPE;
  if (count < 0) return TUTTI_ECOUNT;
  if (count > 0 && !buf) return TUTTI_EBUFFER;
  /* not count > SIZE_MAX / size: a division on every message */
  if (__builtin_mul_overflow((size_t)count, type->size, bytes)) return TUTTI_ECOUNT;
  return 0;
}

static int check_peer(const struct tutti_rank *r, int peer, bool any_ok) {
  if (peer == TUTTI_PROC_NULL) return 0;
  if (any_ok && peer == TUTTI_ANY_SOURCE) return r->world->modeled ? TUTTI_EMODEL : 0;
  if (peer < 0 || peer >= r->size) return TUTTI_ERANK;
  return 0;
}

/* User tags are 0..TUTTI_TAG_UB. A reserved tag (above it; TUTTI_TAG_MAX is
 * INT32_MAX, so any int > TUTTI_TAG_UB is one) passes only once
 * tutti_coll_tag has handed it to this rank: the collectives send and
 * receive with the tags they took, and user code cannot reach a tag of a
 * collective this rank has not begun. A message with the tag of a
 * collective its sender has finished comes after all that collective's
 * messages (non-overtaking), so no collective takes it as its data. */
static int check_tag(const struct tutti_rank *r, int tag, bool any_ok) {
  if (any_ok && tag == TUTTI_ANY_TAG) return r->world->modeled ? TUTTI_EMODEL : 0;
  if (tag < 0) return TUTTI_ETAG;
  if (tag > TUTTI_TAG_UB && !r->coll_tags_all && (uint32_t)tag - TUTTI_TAG_UB - 1 >= r->coll_seq)
    return TUTTI_ETAG;
  return 0;
}

/* One message's arguments, in the order the errors are reported; a receive
 * accepts the wildcards. */
static int check_msg(const struct tutti_rank *r, const void *buf, long count, tutti_datatype_t type,
                     int *peer, int tag, bool recv, size_t *bytes) {
  int rc;
  *peer = tutti__peer_world(r, *peer); /* a group view's index: its world rank */
  if ((rc = check_buf(buf, count, type, bytes)) || (rc = check_peer(r, *peer, recv)) ||
      (rc = check_tag(r, tag, recv)))
    return rc;
  return 0;
}

/* ------------------------------------------------------------ public calls */

/* The request of every eager send in a run that neither records nor
 * paces: such a send is complete once posted and has nothing to note, so
 * it shares this one, which waits and tests only recognize (and set to
 * TUTTI_REQUEST_NULL); no rank writes it. Hot path: no request to allocate
 * and free per small send. */
static struct tutti_request sent_eager = {
    .kind = REQ_SEND, .active = 1, .done = 1, .ev = UINT32_MAX};
#define SENT (&sent_eager)

/* A request that is complete from the start (PROC_NULL peers). */
static int null_request(struct tutti_rank *r, int kind, tutti_request_t *req) {
  struct tutti_request *q = req_alloc(r, kind);
  if (!q) return nomem(r);
  q->st.source = TUTTI_PROC_NULL;
  q->st.tag = TUTTI_ANY_TAG;
  q->done = 1;
  *req = q;
  return 0;
}

/* Post a checked send. An eager send in a run that neither records nor
 * paces has nothing to wait for and nothing to note: it goes without a
 * request of its own (*req = SENT). */
static inline __attribute__((always_inline)) int post_send(struct tutti_rank *r, const void *buf,
                                                           size_t bytes, int dest, int tag,
                                                           tutti_request_t *req) {
  struct tutti_world *w = r->world;
  struct tutti_rank *d = w->ranks[dest];
  struct chan *o;
  struct tutti_request *q = NULL;
  struct msg *m, *box = NULL;
  uint32_t ev = 0;
  bool eager = bytes < w->eager_limit;
  /* The payload this message carries: none in a no-data run, whose eager
   * messages are headers alone (the size, and so the protocol, unchanged). */
  size_t pay = w->nodata ? 0 : bytes;
  int rc;
  if ((rc = count_post(r))) return rc;
  bool direct = tutti__direct(w);
  if (direct && eager) pool_throttle(r, pay); /* may yield: before o */
  if (!(o = chan_get(r, dest, true))) return nomem(r);
  /* The box's line is the receiver's (it emptied it): ask for it in
   * exclusive state now, one transfer, not a read and then an upgrade. */
  if (o->box && eager) prefetch_for_write(o->box);
  if (w->record || w->wallclock || !eager) {
    if (!(q = req_alloc(r, REQ_SEND))) return nomem(r);
    q->dest = dest, q->stag = tag;
    if (w->record && (rc = record(r, TUTTI_EV_SEND, dest, tag, bytes, 0, &ev))) {
      req_free(r, q);
      return rc;
    }
    q->ev = w->record ? ev : UINT32_MAX;
  }
  if (eager) {
    if (!direct && dest != r->rank) box = box_claim(r, o, pay);
    if (!direct && !box && w->fibers) pool_throttle(r, pay);
    if (!(m = box ? box : pool_get(r, pay))) {
      if (q) req_free(r, q);
      return nomem(r);
    }
    m->kind = box ? MSG_BOX : MSG_EAGER;
    m->local = 0;
    if (pay) payload_copy(msg_data(m), buf, pay);
    if (q) q->done = 1;
    r->n_eager++;
    if (w->record) r->log.ev[ev].flags |= TUTTI_EVF_EAGER;
  } else {
    m = &q->rts;
    m->kind = MSG_RTS;
    m->local = 0;
    q->sbuf = buf;
    r->n_rdv++;
  }
  if (w->wallclock) { /* q exists: a paced run always has one */
    /* rule 1's send port, in posting order as in the replay: a flat tree's
     * root sends one message after another in wall time too. For a
     * rendezvous the replay may start later (the receiver), never earlier. */
    double s = r->vclock > r->vsport ? r->vclock : r->vsport;
    size_t wire = bytes + w->model.header; /* costs at m + header */
    r->vsport = s + cost(&w->model.send_port, wire);
    m->vdepart = s;
    if (eager) q->vdone = s + cost(&w->model.send_cpu, wire);
  }
  uint32_t seq = o->seq = next_seq(o->seq);
  m->src = r->rank;
  m->tag = tag;
  m->bytes = bytes;
  m->send_ev = ev;
  r->n_msgs++;
  r->n_bytes += bytes;
  PERTURB(r);
  if (direct) {
    m->seq = seq;
    /* One worker runs every rank: once the run is aborted the receiver
     * may have left its call and freed the buffer its posted receive
     * names (the request stays linked, wait_one), so no receive is
     * completed into it; the message waits unexpected until the reset. */
    deliver_as(d, m, !aborted(w));
  } else if (box) {
    __atomic_store_n(&box->seq, seq, __ATOMIC_RELEASE);
  } else {
    if (eager && dest != r->rank && !o->box && ++o->nsent == BOX_AFTER)
      tutti__box_offer(r, d, o, seq);
    m->seq = seq;
    tsan_release(m);
    inbox_push(w, d, &m->qnode);
  }
  publish_barrier(r, d);
  wake(r, d);
  *req = q ? q : SENT;
  return 0;
}

int tutti_isend(tutti_rank_t *r, const void *buf, long count, tutti_datatype_t type, int dest,
                int tag, tutti_request_t *req) {
  size_t bytes;
  int rc;
  if ((rc = tutti__check_rank(r)) || !req) return rc ? rc : TUTTI_EINVAL;
  if ((rc = check_msg(r, buf, count, type, &dest, tag, false, &bytes))) return rc;
  if (dest == TUTTI_PROC_NULL) return null_request(r, REQ_SEND, req);
  return post_send(r, buf, bytes, dest, tag, req);
}

/* A receive about to be posted: take in what has arrived. The inbox, and
 * of the fastboxes only the source's: what another box holds is later
 * than the unexpected messages of its pair, so the first wait or test
 * matches it as well (and an inbox message behind it takes it out first).
 * Polling every box at every post was half the box reads of a barrier on
 * 1024 fibers, whose ranks each hold ten boxes. */
static inline __attribute__((always_inline)) void poll_for(struct tutti_rank *r, int source) {
  if (inbox_nonempty(r)) progress_inbox(r);
  if (source == TUTTI_ANY_SOURCE)
    poll_boxes(r);
  else
    poll_box_of(r, source);
}

/* Post receive q, which no message has matched, in its queue. */
static int enqueue_recv(struct tutti_rank *r, struct tutti_request *q) {
  struct tutti_request **head = &r->wq_head, **tail = &r->wq_tail; /* wildcard source */
  if (q->src != TUTTI_ANY_SOURCE) {
    struct chan *c = chan_get(r, q->src, true);
    if (!c) return nomem(r);
    head = &c->pq_head, tail = &c->pq_tail;
  }
  q->post_seq = r->post_seq++;
  if (*tail)
    (*tail)->next = q;
  else
    *head = q;
  *tail = q;
  return 0;
}

/* A receive request's own fields (req_init has set the rest). */
static void recv_fill(struct tutti_rank *r, struct tutti_request *q, void *buf, size_t bytes,
                      int source, int tag) {
  q->buf = buf, q->cap = bytes, q->src = source, q->tag = tag;
  q->vpost = r->vclock;
}

/* A checked receive from source (not PROC_NULL), posted: *out. */
static int post_recv(struct tutti_rank *r, void *buf, size_t bytes, int source, int tag,
                     struct tutti_request **out) {
  int rc;
  if ((rc = count_post(r))) return rc;
  struct tutti_request *q = req_alloc(r, REQ_RECV);
  if (!q) return nomem(r);
  recv_fill(r, q, buf, bytes, source, tag);
  if (r->world->record) {
    uint32_t ev = UINT32_MAX;
    /* ref stays UINT32_MAX until a send matches: an unmatched receive (the
     * run failed) then refers to nothing. */
    if ((rc = record(r, TUTTI_EV_RECV, source, tag, 0, UINT32_MAX, &ev))) {
      req_free(r, q);
      return rc;
    }
    q->ev = ev;
  }
  poll_for(r, source);
  if (!match_unexpected(r, q) && (rc = enqueue_recv(r, q))) {
    req_free(r, q);
    return rc;
  }
  *out = q;
  return 0;
}

int tutti_irecv(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int source, int tag,
                tutti_request_t *req) {
  size_t bytes;
  int rc;
  if ((rc = tutti__check_rank(r)) || !req) return rc ? rc : TUTTI_EINVAL;
  if ((rc = check_msg(r, buf, count, type, &source, tag, true, &bytes))) return rc;
  if (source == TUTTI_PROC_NULL) return null_request(r, REQ_RECV, req);
  return post_recv(r, buf, bytes, source, tag, req);
}

static int valid_request(struct tutti_rank *r, tutti_request_t q) {
  return q && (q == SENT || (q->owner == r && q->active));
}

/* Wait until q is done; the caller filled r->waiting. */
static int wait_done(struct tutti_rank *r, struct tutti_request *q) {
  struct tutti_world *w = r->world;
  for (;;) {
    progress(r);
    if (tutti__load_acq(&q->done)) break;
    if (aborted(w)) return w->fail_err == TUTTI_EDEADLOCK ? TUTTI_EDEADLOCK : TUTTI_EABORTED;
    int i;
    for (i = 0; i < w->spin; i++) {
      if (inbox_nonempty(r) || boxes_full(r) || tutti__load_acq(&q->done) || aborted(w)) break;
      /* Now and then give the core away: if the peer we wait for shares
       * it, spinning alone would only burn our time slice. */
      if ((i & 255) == 255)
        tutti__relax(r);
      else
        caa_cpu_relax();
    }
    if (i == w->spin) tutti__block(r, &q->done);
  }
  tsan_acquire(q);
  return 0;
}

static void set_waiting(struct tutti_rank *r, const char *op, struct tutti_request *q) {
  r->waiting = (tutti_waitinfo_t){.blocked = 1,
                                  .op = op,
                                  .peer = q->kind == REQ_RECV ? q->src : q->dest,
                                  .tag = q->kind == REQ_RECV ? q->tag : q->stag};
}

/* Finish a completed request: record the WAIT, hand out the status. */
static int finish(struct tutti_rank *r, tutti_request_t *req, tutti_status_t *st) {
  struct tutti_request *q = *req;
  int rc = q->err;
  if (r->world->wallclock && !rc) tutti__pace(r, q->vdone);
  if (st) *st = q->st, tutti__status_view(r, st);
  if (q->ev != UINT32_MAX && r->world->record) {
    int e = record(r, TUTTI_EV_WAIT, -1, 0, 0, q->ev, NULL);
    if (e && !rc) rc = e;
  }
  req_free(r, q);
  *req = TUTTI_REQUEST_NULL;
  return rc;
}

static int wait_one(struct tutti_rank *r, tutti_request_t *req, tutti_status_t *st,
                    const char *op) {
  struct tutti_request *q = *req;
  if (!q) {
    if (st) *st = (tutti_status_t){.source = TUTTI_PROC_NULL, .tag = TUTTI_ANY_TAG};
    return 0;
  }
  if (q == SENT) {
    if (st) *st = (tutti_status_t){0};
    *req = TUTTI_REQUEST_NULL;
    return 0;
  }
  if (!valid_request(r, q)) return TUTTI_EREQUEST;
  if (!tutti__load_acq(&q->done)) {
    set_waiting(r, op, q);
    int rc = wait_done(r, q);
    if (rc) { /* r->waiting stays: it is the deadlock report */
      /* The request stays owned by the rank (freed with it): a posted
       * receive may still be linked in a channel. */
      q->active = 0;
      *req = TUTTI_REQUEST_NULL;
      cancel_sends(r);
      return rc;
    }
    r->waiting.blocked = 0;
  }
  return finish(r, req, st);
}

int tutti_wait(tutti_rank_t *r, tutti_request_t *req, tutti_status_t *st) {
  int rc;
  if ((rc = tutti__check_rank(r)) || !req) return rc ? rc : TUTTI_EINVAL;
  return wait_one(r, req, st, "wait");
}

int tutti_waitall(tutti_rank_t *r, int n, tutti_request_t reqs[], tutti_status_t sts[]) {
  int rc;
  if ((rc = tutti__check_rank(r))) return rc;
  if (n < 0 || (n > 0 && !reqs)) return TUTTI_EINVAL;
  for (int i = 0; i < n; i++)
    if (reqs[i] && !valid_request(r, reqs[i])) return TUTTI_EREQUEST;
  int first = 0;
  for (int i = 0; i < n; i++) {
    if (reqs[i] == SENT) { /* wait_one's first case, without the call: a tree's sends */
      reqs[i] = TUTTI_REQUEST_NULL;
      if (sts) sts[i] = (tutti_status_t){0};
      continue;
    }
    rc = wait_one(r, &reqs[i], sts ? &sts[i] : NULL, "waitall");
    if (rc && !first) first = rc;
  }
  return first;
}

int tutti_test(tutti_rank_t *r, tutti_request_t *req, int *flag, tutti_status_t *st) {
  int rc;
  if ((rc = tutti__check_rank(r)) || !req || !flag) return rc ? rc : TUTTI_EINVAL;
  if (*req && !valid_request(r, *req)) return TUTTI_EREQUEST;
  if (!*req || *req == SENT) return wait_one(r, req, st, "test"), *flag = 1, 0;
  progress(r);
  if (!tutti__load_acq(&(*req)->done)) {
    *flag = 0;
    if (aborted(r->world)) return cancel_sends(r), TUTTI_EABORTED;
    /* A fiber that polls gives its worker to the rank it waits for,
     * which it starts if it has not started (fiber.c "Starting"). */
    if (r->world->fibers) {
      start_awaited(r, (*req)->kind == REQ_RECV ? (*req)->src : (*req)->dest);
      tutti__fiber_yield(r);
    }
    return 0;
  }
  tsan_acquire(*req);
  *flag = 1;
  return finish(r, req, st);
}

int tutti_send(tutti_rank_t *r, const void *buf, long count, tutti_datatype_t type, int dest,
               int tag) {
  size_t bytes;
  int rc;
  if ((rc = tutti__check_rank(r))) return rc;
  if ((rc = check_msg(r, buf, count, type, &dest, tag, false, &bytes))) return rc;
  if (dest == TUTTI_PROC_NULL) return 0;
  tutti_request_t q;
  if ((rc = post_send(r, buf, bytes, dest, tag, &q))) return rc;
  return wait_one(r, &q, NULL, "send");
}

/* A blocking receive whose message is already here, in a run that neither
 * records nor paces, completes on a request of its stack: hot path when
 * senders run ahead, no request to allocate, wait for and free. Otherwise
 * it is irecv and wait. */
int tutti_recv(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int source, int tag,
               tutti_status_t *st) {
  size_t bytes;
  int rc;
  if ((rc = tutti__check_rank(r))) return rc;
  if ((rc = check_msg(r, buf, count, type, &source, tag, true, &bytes))) return rc;
  tutti_request_t q;
  if (source != TUTTI_PROC_NULL && !r->world->record && !r->world->wallclock) {
    if ((rc = count_post(r))) return rc;
    struct tutti_request s;
    req_init(&s, r, REQ_RECV);
    recv_fill(r, &s, buf, bytes, source, tag);
    poll_for(r, source);
    if (match_unexpected(r, &s)) {
      if (st) *st = s.st, tutti__status_view(r, st);
      return s.err;
    }
    if (!(q = req_alloc(r, REQ_RECV))) return nomem(r);
    recv_fill(r, q, buf, bytes, source, tag);
    if ((rc = enqueue_recv(r, q))) {
      req_free(r, q);
      return rc;
    }
  } else if ((rc = source == TUTTI_PROC_NULL ? null_request(r, REQ_RECV, &q)
                                             : post_recv(r, buf, bytes, source, tag, &q))) {
    return rc; /* source is a world rank now: not tutti_irecv, which would map it again */
  }
  return wait_one(r, &q, st, "recv");
}

int tutti_sendrecv(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype, int dest,
                   int stag, void *rbuf, long rcount, tutti_datatype_t rtype, int source, int rtag,
                   tutti_status_t *st) {
  tutti_request_t q[2];
  tutti_status_t s[2];
  size_t b;
  int rc;
  /* Check both halves before posting either, so a bad receive does not
   * leave a send behind. */
  if ((rc = tutti__check_rank(r))) return rc;
  int src = source; /* checked here; mapped by tutti_irecv below */
  if ((rc = check_msg(r, rbuf, rcount, rtype, &src, rtag, true, &b))) return rc;
  if ((rc = tutti_isend(r, sbuf, scount, stype, dest, stag, &q[0]))) return rc;
  if ((rc = tutti_irecv(r, rbuf, rcount, rtype, source, rtag, &q[1]))) {
    wait_one(r, &q[0], NULL, "sendrecv");
    return rc;
  }
  int rc0 = wait_one(r, &q[0], &s[0], "sendrecv");
  int rc1 = wait_one(r, &q[1], &s[1], "sendrecv");
  if (st) *st = s[1];
  return rc0 ? rc0 : rc1;
}

int tutti_compute(tutti_rank_t *r, double seconds) {
  int rc;
  if ((rc = tutti__check_rank(r))) return rc;
  /* units.h's limit of a time: the replay's sums stay within the time
   * base (MODEL.md); also rejects NaN and infinity */
  if (!(seconds >= 0 && seconds <= TUTTI_TIME_MAX)) return TUTTI_EINVAL;
  if (r->world->wallclock) tutti__pace(r, r->vclock + seconds);
  if (!r->world->record) return 0;
  struct tutti_ev ev = {.kind = TUTTI_EV_COMPUTE, .peer = -1, .u.seconds = seconds};
  return push(r, &ev, NULL);
}

int tutti_reduce_local_r(tutti_rank_t *r, const void *in, void *inout, long count,
                         tutti_datatype_t type, tutti_op_t op) {
  int rc;
  if ((rc = tutti__check_rank(r))) return rc;
  /* A no-data run checks the arguments, charges gamma * bytes, computes nothing. */
  if ((rc = r->world->nodata ? tutti__reduce_check(in, inout, count, type, op)
                             : tutti_reduce_local(in, inout, count, type, op)))
    return rc;
  if (r->world->wallclock)
    tutti__pace(r, r->vclock + r->world->model.gamma * (double)count * (double)type->size);
  if (!r->world->record) return 0;
  return record(r, TUTTI_EV_REDUCE, -1, 0, (uint64_t)count * type->size, 0, NULL);
}

int tutti_span_begin(tutti_rank_t *r, const char *name) {
  int rc;
  if ((rc = tutti__check_rank(r))) return rc;
  if (!name || r->in_span) return TUTTI_EINVAL;
  r->in_span = true;
  if (!r->world->record) return 0;
  struct tutti_ev ev = {.kind = TUTTI_EV_SPAN_BEGIN, .peer = -1, .u.name = name};
  return push(r, &ev, NULL);
}

int tutti_span_end(tutti_rank_t *r) {
  int rc;
  if ((rc = tutti__check_rank(r))) return rc;
  if (!r->in_span) return TUTTI_EINVAL;
  r->in_span = false;
  if (!r->world->record) return 0;
  return record(r, TUTTI_EV_SPAN_END, -1, 0, 0, 0, NULL);
}

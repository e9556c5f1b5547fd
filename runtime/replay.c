/*
 * replay.c -- modeled time by record-and-replay: a sequential discrete-event
 * simulation (DES) of the per-rank event logs that implements runtime/MODEL.md rules
 * 1-8. Before it, replay_prep.c checks the logs and indexes them into the
 * simulation's state (replay_sim.h); after it, replay_report.c builds the
 * public report (report.h) from the result.
 *
 * Why: the rank threads run in whatever order the OS picks, so modeled time
 * cannot be computed online without making it depend on scheduling. Each
 * rank records what it did (evlog.h); once every thread has joined, this
 * file replays all logs in modeled-time order, which makes every time a pure
 * function of the logs -- bit-identical run after run.
 *
 * Time is an integer here: whole picoseconds in an int64 (topo/timebase.h,
 * runtime/MODEL.md "Time base"). replay_prep.c converts the model's costs
 * once; every rule below is integer maxima and saturating sums, so two
 * mathematically equal times are equal and rule 8's ties never depend on
 * which of two roundings won. The results are converted back to seconds
 * at the end (rule 7's call times as the integer difference).
 *
 * The simulation. Per rank: clock C, send port free SP, receive port free
 * RP (runtime/MODEL.md's state). Two kinds of activity sit in one queue
 * (replay_queue.h, a radix heap) keyed by (time, class, id) and are taken
 * strictly in that order:
 *   RANK  (C, 0, rank): the rank executes its next log events. It posts
 *         a send or receive only while its (clock, rank) is the smallest
 *         key (else it yields); what only it sees (waits whose completion
 *         is known, local work, spans) runs ahead. It leaves the queue when
 *         it waits for an operation whose completion is not known yet (it
 *         is woken when it is).
 *   PORT  (t, 1, src, message id): a decision on one message at a port --
 *         an eager send starting at its sender's port (rule 1), an eager
 *         message served by its receiver's port at its arrival time a
 *         (rule 2), a rendezvous transfer starting once both sides posted
 *         (rule 3).
 * Every decision at time t is made only after every activity with a smaller
 * key, and no activity is ever created with a time earlier than the one
 * being handled (all costs are >= 0), so a port never serves a message
 * before an earlier-arriving one could still appear: this is the
 * conservative condition, met by taking global events in time order.
 * Rule 8's ties fall out of the key: ports decide in (time, source rank,
 * send order) order; ranks at equal times go lowest rank first, and all
 * ranks at time t post their sends and receives before any port decides at
 * t (class RANK < PORT), so equal-time messages meet at a port in rule 8's
 * order (except when a zero cost makes a decision at t wake a rank that then
 * posts at t: causality comes first there). A rendezvous transfer is
 * decided at the later of its two posts, with both ports as they are then
 * (rule 3's max); a port reserved by it is busy for whatever is decided
 * after. A message's eager start is decided at its post time, inline when
 * no other start of the same sender is pending (same result, no queue trip).
 * With the handshake a rendezvous start is queued at the clear-to-send's
 * arrival instead, a time known once both sides posted (control messages
 * occupy nothing, so nothing decided later can move it). Every cost of a
 * message is taken at its bytes plus the model's header (RP_WIRE).
 *
 * Where each rule lives:
 *   rule 1 eager send ............ eager_start
 *   rule 2 eager reception ....... eager_arrive, post_recv
 *   rule 3 rendezvous ............ rdv_start; its handshake: ctl_at, ctl_time
 *   rule 4 blocking calls ........ WAIT in run_rank (s + O_s; max with C);
 *                                  a detached send's return: post_send
 *   rule 5 nonblocking ........... post_send/post_recv cost nothing; WAIT
 *   rule 6 local work ............ COMPUTE / REDUCE in run_rank
 *   rule 7 a call's time ......... SPAN_* in run_rank, end of tutti__replay_run
 *   rule 8 ties .................. the queue's key (hkey_*)
 *   topology, links .............. transfer_launch, link_hop
 *
 * Topology (runtime/MODEL.md "Topology (links and contention)"): both transfer
 * kinds go through transfer_launch() once their start s is known. Without
 * a topology the data is complete at s + L(m) at once. With one, the
 * message is in flight (RPM_TRANSIT; ready/arrive hold when its head/tail
 * reach the next link, hop counts the links crossed) from s + L(0), and
 * link_hop() moves it over one link at a time with the linkset's
 * cut-through step (topo/link.c), then queues a PORT activity at the time
 * its head reaches the next link. The queue's key makes that FCFS by head
 * arrival with rule 8's ties (source rank, then send order), and since no
 * activity is created earlier than the one being handled, a link never
 * serves a message before an earlier-arriving one could still appear.
 * After the last link transfer_delivered() takes over with arrive = the
 * tail's arrival, exactly as without topology (eager: the receiver's port,
 * rule 2; rendezvous: the receive completes at arrive + O_r, rule 3).
 * Fewer queue trips, same times: the first link, the sender's own leaf
 * link, carries only that sender's messages, whose starts are decided in
 * nondecreasing time: it is crossed at launch. So is every later link that
 * only one rank's messages cross (replay_prep.c): they reach it in the order
 * they left the link before. (Equal heads there go in that order, which is
 * send order unless a zero cost let two of them start at one instant.) A
 * hop or an eager arrival that would be the queue's next activity anyway
 * is handled at once too (next_anyway: the same order, no trip).
 * The path is recomputed per hop in O(depth); in flight, the message's
 * rdone (no receive can complete before delivery) holds its next link.
 *
 * Sharing (runtime/MODEL.md "Sharing"): under sharing = fair the ports'
 * S and R are 0 here (replay_prep.c), so rules 1-3 start a transfer at
 * its posts, and transfer_launch hands it to replay_fair.c, whose flows
 * share the ports' or the links' bandwidth; its PORT activities (the end
 * of a latency phase, a predicted end, the refill of an instant) come
 * back through port_event, and a delivered message goes on as above.
 *
 * Speed: the simulation reads an 8-byte op per event (RPO_*, built while
 * checking the logs, replay_prep.c) rather than the 24-byte log entry, and a WAIT names
 * its message directly. It is bound by memory latency (ranks interleave in
 * time), so what is read next is prefetched: a woken rank, the queue's
 * next entry (and, in a run, the entries a few places further), the
 * messages a rank is about to touch, and -- as a rank stops -- what it
 * reads when it resumes; the big arrays ask for huge pages.
 *
 * Memory: the replay state is 8 B per event (ops) + 64 B per message +
 * 64 B per rank (freed at the end) + the queue (16 B an activity pending:
 * at most ranks + messages in flight), next to the logs' own 24 B per event (resident: their
 * capacity, up to twice that, runtime/MODEL.md "Memory"); with a topology,
 * the linkset (about 72 B a link, kept for the report). All of it is
 * first touched here or in the run, and first touching fresh pages is a
 * large part of a big run's CPU (replay_prep.c zeroes on every CPU).
 */
#include "replay_sim.h"

#include "replay_fair.h"
#include "replay_queue.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define tmax tutti__tu_max
#define tadd tutti__tu_add

/* ------------------------------------------------------------ the key */

/* Its entries (struct hent: the key's layout): replay_sim.h; the queue:
 * replay_queue.h. */

static inline uint64_t hkey_rank(int r, uint32_t pos) {
  return (uint64_t)(uint32_t)r << 32 | pos;
}

/* ------------------------------------------------------------ sim state */

int tutti__replay_fail(struct sim *s, int err, const char *fmt, ...) {
  if (s->errbuf && s->errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->errbuf, s->errlen, fmt, ap);
    va_end(ap);
  }
  return s->err = err;
}

enum { AHEAD_FAR = 8, AHEAD_NEAR = 3 }; /* entries ahead: the fetch's two steps */

/* The queue's next entries will most likely be handled next: start fetching
 * what they read (the simulation is bound by memory latency). The next
 * one's rank or message; and when the next ones are a run (replay_queue.h),
 * further ahead in two steps: far ahead the rank and its line of ops (or
 * the message), nearer the messages those ops name (or the receiver), once
 * the line read for it has arrived. */
static inline void prefetch_next(const struct sim *s) {
  const struct queue *q = &s->q;
  const struct hent *far = NULL, *near = NULL;
  uint64_t k;
  if (!q->n) return;
  if (q->early.n) {
    k = q->early.a[0].k;
  } else { /* qpeek and qahead, the lowest bucket found once */
    const struct qbucket *b = &q->b[qlowest(q)];
    k = b->min.k;
    if (b->sorted) far = qrun_at(b, AHEAD_FAR), near = qrun_at(b, AHEAD_NEAR);
  }
  if (k & HK_PORT) {
    __builtin_prefetch(&s->msgs[(uint32_t)k], 1);
  } else {
    uint32_t r = (uint32_t)(k >> 32);
    __builtin_prefetch(&s->ranks[r], 1);
    __builtin_prefetch(s->rp->ops + s->rp->evoff[r] + (uint32_t)k);
  }
  if (far) {
    if (far->k & HK_PORT) {
      __builtin_prefetch(&s->msgs[(uint32_t)far->k], 1);
    } else {
      uint32_t r = (uint32_t)(far->k >> 32);
      __builtin_prefetch(&s->ranks[r], 1);
      __builtin_prefetch(s->rp->ops + s->rp->evoff[r] + (uint32_t)far->k);
    }
  }
  if (near) {
    if (near->k & HK_PORT) {
      if ((uint32_t)near->k != NONE) /* not fair's refill (replay_fair.c) */
        __builtin_prefetch(&s->ranks[s->msgs[(uint32_t)near->k].dst], 1);
    } else {
      uint32_t r = (uint32_t)(near->k >> 32);
      const uint64_t *op = s->rp->ops + s->rp->evoff[r];
      uint32_t pos = (uint32_t)near->k, n = (uint32_t)(s->rp->evoff[r + 1] - s->rp->evoff[r]);
      for (uint32_t i = pos; i < pos + 3 && i < n; i++)
        if (RPO_KIND(op[i]) <= RPO_WAIT_RECV) __builtin_prefetch(&s->msgs[RPO_ID(op[i])], 1);
    }
  }
}

/* Wake a rank blocked on message id (its send side, or its receive side). */
static inline int wake(struct sim *s, int r, uint32_t id, uint32_t recv_side, tutti__tu_t done) {
  struct rp_rank *R = &s->ranks[r];
  if (R->wait_msg != id || R->wait_recv != recv_side) return 0;
  R->wait_msg = NONE;
  __builtin_prefetch(&R->op[R->pos + 1]); /* what it reads when it resumes */
  return qpush(&s->q, tmax(R->clock, done), hkey_rank(r, R->pos));
}

/* ---------------------------------------------------------- the rules */

/* Message id, from src, has started at msg->start: its data travels.
 * Without topology the data is complete at the receiver at s + L(m)
 * (rules 1 and 3); with one, it crosses its path first (link_hop). */
static int transfer_delivered(struct sim *s, int src, uint32_t id);
static int link_hop(struct sim *s, int src, uint32_t id);

static inline int transfer_launch(struct sim *s, int src, uint32_t id) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  if (s->fair) { /* sharing = fair: a flow (replay_fair.c) */
    int rc = tutti__fair_launch(s, src, id);
    return rc > 0 ? transfer_delivered(s, src, id) : rc;
  }
  if (!s->topo) {
    msg->arrive = tadd(msg->start, rp_cost(&s->latency, RP_WIRE(s, msg->bytes)));
    return transfer_delivered(s, src, id);
  }
  msg->ready = msg->arrive = tadd(msg->start, s->L0); /* h_0 = e_0 = s + L(0) */
  msg->hop = 0;
  msg->rdone = tutti_topo_path_link_ranks(s->topo, src, msg->dst, 0); /* -1: src == dst */
  msg->flags |= RPM_TRANSIT;
  return link_hop(s, src, id); /* its first link is the sender's own */
}

int tutti__replay_record_hop(struct sim *s, uint32_t id, int link, tutti__tu_t arrive,
                             const tutti__tu_hop_t *h) {
  if (s->nhops == s->hopcap) {
    size_t cap = s->hopcap ? 2 * s->hopcap : 1024;
    struct tutti_replay_hop *p = realloc(s->hops, cap * sizeof *p);
    if (!p) return TUTTI_ENOMEM;
    s->hops = p;
    s->hopcap = cap;
  }
  s->hops[s->nhops++] = (struct tutti_replay_hop){id, link, arrive, h->head, h->end};
  return 0;
}

/* Whether an activity with key (t, k), created now, would be the next one
 * taken from the queue: then it may be handled at once, in exactly the
 * order a trip through the queue gives -- but only while a PORT activity is being
 * handled (s->in_port): a running rank (run_rank) is not queued and may
 * still post, at its clock, activities that come first (rule 8). */
static inline int next_anyway(const struct sim *s, tutti__tu_t t, uint64_t k) {
  if (!s->in_port) return 0;
  struct hent me = {(uint64_t)t, k};
  return !s->q.n || hless(me, qpeek(&s->q));
}

/* runtime/MODEL.md's cut-through step over the next links of message id's path
 * (its head reaches the first of them now): cross one link, then the link
 * after too if only src's messages cross it (they reach it in the order
 * they left this one: a link is FIFO, and in a tree they all came the same
 * way) or if its head reaching it would be the next activity anyway; else
 * queue it for that link at the time its head gets there. With the path
 * done, the data is delivered when its tail arrives. */
static int link_hop(struct sim *s, int src, uint32_t id) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  tutti__tu_transit_t tr = {msg->ready, msg->arrive};
  int link = (int)msg->rdone; /* its next link (transfer_launch) */
  while (link >= 0) {
    tutti__tu_hop_t h;
    tutti__tu_t arrived = tr.head;
    int rc = tutti__linkset_hop_tu(s->links, link, &tr, (double)RP_WIRE(s, msg->bytes), &h);
    if (rc == TUTTI_ENOMEM) return rc;
    if (rc)
      return fail(s, TUTTI_EINVAL,
                  "internal error: link %d refused message %u from rank %d at %lld ps", link, id,
                  src, (long long)arrived);
    if (s->record && tutti__replay_record_hop(s, id, link, arrived, &h)) return TUTTI_ENOMEM;
    /* -1: past the path's end (src and dst are bound ranks: never an error) */
    link = tutti_topo_path_link_ranks(s->topo, src, msg->dst, ++msg->hop);
    if (link >= 0 && s->owner[link] != src && !next_anyway(s, tr.head, hkey_port(src, id))) {
      msg->ready = tr.head;
      msg->arrive = tr.tail;
      msg->rdone = link;
      return qpush(&s->q, tr.head, hkey_port(src, id));
    }
  }
  msg->flags &= ~RPM_TRANSIT;
  msg->ready = msg->rdone = TUTTI__TU_NONE;
  msg->arrive = tr.tail; /* e_k + lat_k */
  return transfer_delivered(s, src, id);
}

static int eager_arrive(struct sim *s, uint32_t id);

static int transfer_delivered(struct sim *s, int src, uint32_t id) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  if (msg->flags & RPM_EAGER) { /* rule 2: the receiver's port serves it at a */
    if (s->fair || next_anyway(s, msg->arrive, hkey_port(src, id))) return eager_arrive(s, id);
    __builtin_prefetch(&s->ranks[msg->dst]);
    return qpush(&s->q, msg->arrive, hkey_port(src, id));
  }
  /* Under fair sharing no port holds a rendezvous sender back, and its
   * buffer is in use until its flow ends: a send that is not detached
   * returns then, or at s + O_s(m) if later (rule 4, "Sharing"). */
  if (s->fair && !(msg->flags & RPM_DETACHED)) {
    msg->sdone = tmax(msg->sdone, msg->arrive);
    int rc = wake(s, src, id, 0, msg->sdone);
    if (rc) return rc;
  }
  /* rule 3: the receive completes at s + L(m) + O_r(m) */
  msg->ready = msg->arrive;
  msg->rdone = tadd(msg->arrive, rp_cost(&s->recv_cpu, RP_WIRE(s, msg->bytes)));
  msg->flags |= RPM_SERVED | RPM_RDONE;
  return wake(s, msg->dst, id, 1, msg->rdone);
}

/* Rule 1: an eager send posted at `post` starts at s = max(post, SP);
 * SP = s + S(m); a blocking send returns at s + O_s(m) (rule 4). */
static inline int eager_start(struct sim *s, int src, uint32_t id, tutti__tu_t post) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  struct rp_rank *S = &s->ranks[src];
  uint64_t m = RP_WIRE(s, msg->bytes);
  tutti__tu_t st = tmax(post, S->sp);
  S->sp = tadd(st, rp_cost(&s->send_port, m));
  msg->start = st;
  msg->sdone = tadd(st, rp_cost(&s->send_cpu, m));
  msg->flags |= RPM_STARTED;
  int rc = wake(s, src, id, 0, msg->sdone);
  return rc ? rc : transfer_launch(s, src, id);
}

/* Rule 2: at its arrival time a the receiver's port serves the message:
 * e = max(a, RP + R(m)); RP = e; the receive completes at
 * max(post, e) + O_r(m) -- now if it was posted, else when it is. */
static int eager_arrive(struct sim *s, uint32_t id) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  struct rp_rank *D = &s->ranks[msg->dst];
  uint64_t m = RP_WIRE(s, msg->bytes);
  tutti__tu_t ready = msg->arrive;
  if (!s->fair) { /* fair: no port serves it, its flow did (replay_fair.c) */
    ready = tmax(ready, tadd(D->rp, rp_cost(&s->recv_port, m)));
    D->rp = ready;
  }
  msg->ready = ready;
  msg->flags |= RPM_SERVED;
  if (!(msg->flags & RPM_RPOSTED)) return 0;
  msg->rdone = tadd(tmax(msg->rpost, ready), rp_cost(&s->recv_cpu, m));
  msg->flags |= RPM_RDONE;
  return wake(s, msg->dst, id, 1, msg->rdone);
}

/* Rule 3: a rendezvous transfer starts when both sides are ready:
 * s = max(send post, SP_sender, receive post, RP_receiver);
 * SP_sender = s + S(m); RP_receiver = s + R(m). It is decided at t, the
 * later of the two posts (so max(send post, receive post) = t) -- with
 * the handshake, the clear-to-send's arrival, later still (ctl_at) -- in
 * rule 8's port order. A detached send returned at its post already. */
static int rdv_start(struct sim *s, int src, uint32_t id, tutti__tu_t t) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  struct rp_rank *S = &s->ranks[src];
  struct rp_rank *D = &s->ranks[msg->dst];
  uint64_t m = RP_WIRE(s, msg->bytes);
  tutti__tu_t st = tmax(t, tmax(S->sp, D->rp));
  S->sp = tadd(st, rp_cost(&s->send_port, m));
  D->rp = tadd(st, rp_cost(&s->recv_port, m));
  msg->start = st;
  msg->flags |= RPM_STARTED;
  S->sp_pending--;
  if (msg->flags & RPM_DETACHED) return transfer_launch(s, src, id);
  msg->sdone = tadd(st, rp_cost(&s->send_cpu, m));
  if (s->fair) return transfer_launch(s, src, id); /* it returns when its flow ends */
  int rc = wake(s, src, id, 0, msg->sdone);
  return rc ? rc : transfer_launch(s, src, id);
}

/* Rule 3 with the handshake: how long a control message (header bytes)
 * takes from `from` to `to` -- L(header) without a topology; with one,
 * L(0) and the cut-through step over an idle path (runtime/MODEL.md
 * "Topology"), as link_hop takes it with every link free. It occupies no
 * port or link, so the same pair always takes the same time. */
static tutti__tu_t ctl_time(const struct sim *s, int from, int to) {
  if (!s->topo) return s->ctl;
  tutti__tu_t head = s->L0, tail = s->L0;
  int link;
  for (int i = 0; (link = tutti_topo_path_link_ranks(s->topo, from, to, i)) >= 0; i++) {
    tutti_topo_link_t p = {0, 0};
    tutti_topo_link_get(s->topo, link, &p);
    tutti__tu_t lat = tutti__tu_from_s(p.lat);
    tutti__tu_t end =
        tmax(tadd(head, tutti__tu_bytes(tutti__tu_rate(p.beta), (double)s->hdr)), tail);
    head = tadd(head, lat);
    tail = tadd(end, lat);
  }
  return tail;
}

/* When a rendezvous transfer posted at both ends is decided: the later
 * post (ready), or with the handshake the clear-to-send's arrival at the
 * sender -- it leaves the receiver at max(the request's arrival, the
 * receive's post). */
static inline tutti__tu_t ctl_at(const struct sim *s, int src, const struct tutti_replay_msg *msg,
                                 tutti__tu_t req, tutti__tu_t rpost) {
  if (!s->handshake) return tmax(req, rpost);
  return tadd(tmax(req, rpost), ctl_time(s, msg->dst, src));
}

/* A PORT activity popped at time t: the next decision on that message. */
static int port_event(struct sim *s, int src, uint32_t id, tutti__tu_t t) {
  if (id == NONE) return tutti__fair_refill(s, t); /* REFILL_KEY: the flows' rates anew */
  struct tutti_replay_msg *msg = &s->msgs[id];
  if (!(msg->flags & RPM_STARTED)) {
    if (msg->flags & RPM_EAGER) {
      s->ranks[src].sp_pending--;
      return eager_start(s, src, id, t); /* queued at its post time t */
    }
    return rdv_start(s, src, id, t);
  }
  if (msg->flags & RPM_TRANSIT) { /* its head reached a link, or its flow moved on */
    if (!s->fair) return link_hop(s, src, id);
    int rc = tutti__fair_event(s, src, id, t);
    return rc > 0 ? transfer_delivered(s, src, id) : rc;
  }
  if (s->fair) return 0; /* a flow's superseded end (replay_fair.c) */
  return eager_arrive(s, id);
}

/* Rules 1, 3, 5: an isend is posted at the current clock at no cost. An
 * eager start is decided right here when nothing else of this sender can
 * decide at its port before it (no start of its own queued or waiting for
 * a receiver: then the queued order would be exactly this order), else
 * queued in rule 8's order. */
static inline int post_send(struct sim *s, int r, uint32_t id, tutti__tu_t C) {
  struct rp_rank *R = &s->ranks[r];
  struct tutti_replay_msg *msg = &s->msgs[id];
  msg->flags |= RPM_POSTED;
  if (msg->flags & RPM_EAGER) {
    if (R->sp_pending == 0) return eager_start(s, r, id, C);
    R->sp_pending++;
    return qpush(&s->q, C, hkey_port(r, id));
  }
  R->sp_pending++;
  if (msg->flags & RPM_DETACHED) /* its buffer copied: it returns now (rule 4) */
    msg->sdone = tadd(C, rp_cost(&s->send_cpu, RP_WIRE(s, msg->bytes)));
  /* the request reaches the receiver (handshake; else its post is all) */
  tutti__tu_t req = s->handshake ? tadd(C, ctl_time(s, r, msg->dst)) : C;
  if (msg->flags & RPM_RPOSTED)
    return qpush(&s->q, ctl_at(s, r, msg, req, msg->rpost), hkey_port(r, id));
  if (s->handshake) msg->ready = req;
  return 0;
}

/* Rules 2, 3, 5: an irecv is posted at the current clock at no cost. */
static inline int post_recv(struct sim *s, int src, uint32_t id, tutti__tu_t C) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  msg->rpost = C;
  msg->flags |= RPM_RPOSTED | RPM_MATCHED;
  if (msg->flags & RPM_EAGER) {
    if (msg->flags & RPM_SERVED) { /* buffered already */
      msg->rdone = tadd(tmax(C, msg->ready), rp_cost(&s->recv_cpu, msg->bytes));
      msg->flags |= RPM_RDONE;
    }
    return 0;
  }
  if (!(msg->flags & RPM_POSTED)) return 0;
  tutti__tu_t req = s->handshake ? msg->ready : C; /* the request, or the send's post <= C */
  msg->ready = TUTTI__TU_NONE;
  return qpush(&s->q, ctl_at(s, src, msg, req, C), hkey_port(src, id));
}

/* A rank stops at pos (it waits, or yields): what it reads when it
 * resumes is in cache now (its ops) or can be fetched now (the messages
 * they name, its next line of ops), long before it is taken again -- the
 * ranks interleave at random, so no hardware prefetcher sees the pattern. */
static inline void suspend_prefetch(const struct sim *s, const uint64_t *ops, uint32_t pos,
                                    uint32_t n) {
  uint32_t end = pos + 4 < n ? pos + 4 : n;
  uintptr_t line = (uintptr_t)&ops[pos] >> 6;
  for (uint32_t i = pos + 1; i < end; i++) {
    if ((uintptr_t)&ops[i] >> 6 != line) { /* not read yet: fetched, read at resume */
      __builtin_prefetch(&ops[i]);
      break;
    }
    if (RPO_KIND(ops[i]) <= RPO_WAIT_RECV) __builtin_prefetch(&s->msgs[RPO_ID(ops[i])], 1);
  }
}

/* A RANK activity: run rank r's log from where it stopped. Only its posts
 * (SEND, RECV) are seen by others and must come in (clock, rank) order:
 * before one, the rank yields if its clock has moved past the queue's next
 * entry. Everything else is its own business and runs ahead -- a WAIT on
 * a completion already decided takes its time, one not yet decided blocks
 * and is woken at max(clock, completion), the same either way; local work
 * and spans only move or read its clock -- which saves most yields. */
static int run_rank(struct sim *s, int r) {
  struct rp_rank *R = &s->ranks[r];
  const uint64_t *ops = R->op;
  tutti__tu_t C = R->clock, first = C; /* first: it was the queue's next entry at this clock */
  uint32_t pos = R->pos, n = R->n;
  int rc = 0;
  for (uint32_t i = pos + 1; i < pos + 4 && i < n; i++) /* the messages it will touch */
    if (RPO_KIND(ops[i]) <= RPO_WAIT_RECV) __builtin_prefetch(&s->msgs[RPO_ID(ops[i])], 1);
  while (pos < n) {
    uint64_t o = ops[pos];
    uint32_t id = RPO_ID(o);
    unsigned kind = RPO_KIND(o);
    if (kind <= RPO_RECV && C != first) { /* a post at a later clock: its turn? */
      struct hent me = {(uint64_t)C, hkey_rank(r, pos)};
      if (s->q.n && hless(qpeek(&s->q), me)) { /* someone else is earlier: yield */
        R->clock = C;
        R->pos = pos;
        return qpush(&s->q, C, me.k);
      }
      first = C;
    }
    switch (kind) {
    case RPO_SEND:
      rc = post_send(s, r, id, C);
      break;
    case RPO_RECV:
      rc = post_recv(s, RPO_PEER(o), id, C);
      break;
    case RPO_WAIT_SEND: /* rules 4, 5: C = max(C, when the call returns) */
      if (!(s->msgs[id].flags & (RPM_STARTED | RPM_DETACHED))) goto block;
      if (s->msgs[id].sdone > C) C = s->msgs[id].sdone;
      break;
    case RPO_WAIT_RECV:
      if (!(s->msgs[id].flags & RPM_RDONE)) goto block;
      if (s->msgs[id].rdone > C) C = s->msgs[id].rdone;
      break;
    case RPO_NOP: /* a failed receive: never matched, its wait is free */
      break;
    case RPO_COMPUTE: /* rule 6 */
      C = tadd(C, tutti__tu_from_s(R->ev[pos].u.seconds));
      break;
    case RPO_REDUCE: /* rule 6 */
      C = tadd(C, tutti__tu_bytes(s->gamma, (double)(o >> 8)));
      break;
    case RPO_REDUCE_LOG:
      C = tadd(C, tutti__tu_bytes(s->gamma, (double)R->ev[pos].bytes));
      break;
    case RPO_SPAN_BEGIN: { /* rule 7 */
      struct rp_call *c = &s->calls[R->spans];
      if (C < c->entry_min) c->entry_min = C;
      if (C > c->entry_max) c->entry_max = C;
      break;
    }
    case RPO_SPAN_END: {
      struct rp_call *c = &s->calls[R->spans++];
      if (C > c->finish_max) c->finish_max = C;
      s->last_call[r] = C;
      break;
    }
    }
    if (rc) break;
    pos++;
    continue;
  block:
    R->wait_msg = id;
    R->wait_recv = kind == RPO_WAIT_RECV;
    break;
  }
  R->clock = C;
  R->pos = pos;
  suspend_prefetch(s, ops, pos, n);
  return rc;
}

/* Every rank must have reached the end of its log. */
static int check_finished(struct sim *s) {
  for (int r = 0; r < s->rp->nranks; r++) {
    const struct rp_rank *R = &s->ranks[r];
    if (R->pos == R->n) continue;
    const struct tutti_ev *op = &R->ev[R->ev[R->pos].ref]; /* it stops only at a WAIT */
    const struct tutti_replay_msg *msg = &s->msgs[R->wait_msg];
    const char *why;
    if (op->kind == TUTTI_EV_SEND)
      why = (msg->flags & RPM_RPOSTED) ? "its receiver never got to it"
                                       : "no receive was posted for this rendezvous send";
    else
      why = (msg->flags & RPM_POSTED) ? "it never arrived" : "the sender never posted it";
    return fail(s, TUTTI_EINVAL,
                "replay cannot finish: rank %d waits at event %u for its %s rank %d (tag %d, "
                "%llu B): %s",
                r, R->pos, op->kind == TUTTI_EV_SEND ? "send to" : "receive from", (int)op->peer,
                (int)op->tag, (unsigned long long)op->bytes, why);
  }
  return 0;
}

/* ------------------------------------------------------------------ API */

/* The simulation's own state, none of it in the result. */
static void sim_free(struct sim *s) {
  qfree(&s->q);
  free(s->ranks);
  free(s->calls);
  free(s->last_call);
  free(s->owner);
  tutti__fair_free(s->fair);
}

int tutti__replay_run(const tutti_model_t *m, int nranks, const struct tutti_evlog *const logs[],
                      struct tutti_replay **out, char *err, size_t errlen) {
  return tutti__replay_run_ex(m, nranks, logs, 0, out, err, errlen);
}

int tutti__replay_run_ex(const tutti_model_t *m, int nranks, const struct tutti_evlog *const logs[],
                         unsigned flags, struct tutti_replay **out, char *err, size_t errlen) {
  /* and CPU seconds: on a loaded machine the wall time says more about
   * the other processes than about the replay (the threads that help
   * index the logs add theirs, replay_prep.c) */
  double t0 = tutti__now(), c0 = tutti__thread_cpu();
  struct sim s = {.errbuf = err, .errlen = errlen};
  if (err && errlen) err[0] = '\0';
  if (out) *out = NULL;
  if (!m || !logs || !out || nranks < 1)
    return fail(&s, TUTTI_EINVAL, "NULL model, logs or result, or %d ranks", nranks);
  if (tutti__replay_prepare(&s, m, nranks, logs, flags)) goto out;
  struct tutti_replay *rp = s.rp;

  /* the simulation: every rank starts at 0 with free ports */
  for (int r = 0; r < nranks; r++)
    if (qpush(&s.q, 0, hkey_rank(r, 0))) goto nomem;
  while (s.q.n) {
    struct hent h;
    if (qpop(&s.q, &h)) goto nomem;
    prefetch_next(&s);
    int rc;
    if (h.k & HK_PORT) {
      s.in_port = 1;
      rc = port_event(&s, (int)((h.k >> 32) & 0x7fffffff), (uint32_t)h.k, (tutti__tu_t)h.t);
    } else {
      s.in_port = 0;
      rc = run_rank(&s, (int)(h.k >> 32));
    }
    if (rc) {
      if (rc == TUTTI_ENOMEM) goto nomem;
      goto out;
    }
  }
  if (check_finished(&s)) goto out;

  /* rule 7, and the per-rank results, back in seconds */
  tutti__tu_t T = 0;
  for (int r = 0; r < nranks; r++) {
    tutti__tu_t C = s.ranks[r].clock;
    rp->rank_end[r] = tutti__tu_to_s(C);
    rp->rank_last_call[r] = rp->ncalls ? tutti__tu_to_s(s.last_call[r]) : rp->rank_end[r];
    if (C > T) T = C;
  }
  if (T >= TUTTI__TU_LIMIT) {
    fail(&s, TUTTI_EINVAL,
         "the modeled time exceeds the time base's range (%.4g s, 2^62 ps): check the model's "
         "costs",
         TUTTI__TU_MAX_S);
    goto out;
  }
  rp->modeled = T;
  rp->modeled_time = tutti__tu_to_s(T);
  for (int k = 0; k < rp->ncalls; k++) {
    const struct rp_call *u = &s.calls[k];
    tutti_call_time_t *c = &rp->calls[k];
    c->entry_min = tutti__tu_to_s(u->entry_min);
    c->entry_max = tutti__tu_to_s(u->entry_max);
    c->finish_max = tutti__tu_to_s(u->finish_max);
    c->time = tutti__tu_to_s(u->finish_max - u->entry_max); /* exact difference */
  }
  rp->state_bytes += s.q.bytes + tutti__fair_bytes(s.fair);
  sim_free(&s);
  rp->hops = s.hops;
  rp->nhops = s.nhops;
  rp->wall_time = tutti__now() - t0;
  rp->cpu_time = tutti__thread_cpu() - c0 + s.helper_cpu;
  *out = rp;
  return 0;

nomem:
  fail(&s, TUTTI_ENOMEM, "out of memory (%llu events)", (unsigned long long)rp->events);
out:
  sim_free(&s);
  free(s.hops);
  tutti__replay_free(s.rp);
  return s.err;
}

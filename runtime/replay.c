/*
 * replay.c -- modeled time by record-and-replay: a sequential discrete-event
 * simulation (DES) of the per-rank event logs that implements MODEL.md rules
 * 1-8, and the public report built on its result (report.h).
 *
 * Why: the rank threads run in whatever order the OS picks, so modeled time
 * cannot be computed online without making it depend on scheduling. Each
 * rank records what it did (evlog.h); once every thread has joined, this
 * file replays all logs in modeled-time order, which makes every time a pure
 * function of the logs -- bit-identical doubles run after run.
 *
 * The simulation. Per rank: clock C, send port free SP, receive port free
 * RP (MODEL.md's state). Two kinds of activity sit in one binary heap keyed
 * by (time, class, id) and are taken strictly in that order:
 *   RANK  (C, 0, rank): the rank executes its next log events. It keeps
 *         going without touching the heap while its (clock, rank) stays the
 *         smallest key, and leaves the heap when it waits for an operation
 *         whose completion is not known yet (it is woken when it is).
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
 * no other start of the same sender is pending (same result, no heap trip).
 *
 * Where each rule lives:
 *   rule 1 eager send ............ eager_start
 *   rule 2 eager reception ....... eager_arrive, post_recv
 *   rule 3 rendezvous ............ rdv_start
 *   rule 4 blocking calls ........ WAIT in run_rank (s + O_s; max with C)
 *   rule 5 nonblocking ........... post_send/post_recv cost nothing; WAIT
 *   rule 6 local work ............ COMPUTE / REDUCE in run_rank
 *   rule 7 a call's time ......... SPAN_* in run_rank, end of tutti__replay_run
 *   rule 8 ties .................. the heap key (hkey_*)
 *   topology, links .............. transfer_launch, link_hop
 *
 * Topology (MODEL.md "Topology (links and contention)"): both transfer
 * kinds go through transfer_launch() once their start s is known. Without
 * a topology the data is complete at s + L(m) at once. With one, the
 * message is in flight (RPM_TRANSIT; ready/arrive hold when its head/tail
 * reach the next link, hop counts the links crossed) from s + L(0), and
 * link_hop() moves it over one link at a time with the linkset's
 * cut-through step (topo/link.c), then queues a PORT activity at the time
 * its head reaches the next link. The heap's key makes that FCFS by head
 * arrival with rule 8's ties (source rank, then send order), and since no
 * activity is created earlier than the one being handled, a link never
 * serves a message before an earlier-arriving one could still appear.
 * After the last link transfer_delivered() takes over with arrive = the
 * tail's arrival, exactly as without topology (eager: the receiver's port,
 * rule 2; rendezvous: the receive completes at arrive + O_r, rule 3).
 * Fewer heap trips, same times: the first link, the sender's own leaf
 * link, carries only that sender's messages, whose starts are decided in
 * nondecreasing time: it is crossed at launch. So is every later link that
 * only one rank's messages cross (mark_owners): they reach it in the order
 * they left the link before. (Equal heads there go in that order, which is
 * send order unless a zero cost let two of them start at one instant.) A
 * hop or an eager arrival that would be the heap's next activity anyway
 * is handled at once too (next_anyway: the same order, no trip).
 * The path is recomputed per hop in O(depth); in flight, the message's
 * rdone (no receive can complete before delivery) holds its next link.
 *
 * Speed: the simulation reads an 8-byte op per event (RPO_*, built while
 * checking the logs) rather than the 32-byte log entry, and a WAIT names
 * its message directly. It is bound by memory latency (ranks interleave in
 * time), so a woken rank, the heap's next entry and the messages a rank is
 * about to touch are prefetched, and the big arrays ask for huge pages.
 *
 * Memory: the replay state is 8 B per event (ops) + 64 B per message +
 * 64 B per rank (freed at the end) + the heap (at most ranks + messages in
 * flight), next to the logs' own 32 B per event; with a topology, the
 * linkset (about 72 B a link, kept for the report).
 */
#include "internal.h" /* first: it sets _GNU_SOURCE */

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "replay.h"

#define NONE UINT32_MAX

/* c(m) = max(floor, a + b*m) (MODEL.md "Cost functions"); the same
 * definition as tutti_cost_eval, kept local so the engine depends on
 * nothing but the model struct. */
static inline double cost(const tutti_cost_t *c, double m) {
  double v = c->a + c->b * m;
  return v > c->floor ? v : c->floor;
}

static inline double dmax(double a, double b) {
  return a > b ? a : b;
}

#define OP(kind, peer, id) ((uint64_t)(id) << 32 | (uint64_t)(uint32_t)(peer) << 8 | (kind))

/* ------------------------------------------------------------------ heap */

/* A heap entry: t is the bit pattern of a time >= +0.0 (so unsigned order
 * is numeric order); k is the tie key: bit 63 the class (0 RANK, 1 PORT),
 * bits 62..32 the rank (RANK) or the sending rank (PORT), bits 31..0 the
 * message id (PORT; ids follow each sender's send order). For RANK the low
 * bits carry the rank's next event -- not part of the order, since a rank
 * is in the heap at most once -- so the next entry can be prefetched. */
struct hent {
  uint64_t t, k;
};

#define HK_PORT (UINT64_C(1) << 63)

static inline uint64_t tbits(double t) {
  uint64_t u;
  t += 0.0; /* -0.0 -> +0.0 */
  memcpy(&u, &t, sizeof u);
  return u;
}

static inline uint64_t hkey_rank(int r, uint32_t pos) {
  return (uint64_t)(uint32_t)r << 32 | pos;
}
static inline uint64_t hkey_port(int src, uint32_t id) {
  return HK_PORT | (uint64_t)(uint32_t)src << 32 | id;
}

static inline int hless(struct hent a, struct hent b) {
  return a.t < b.t || (a.t == b.t && a.k < b.k);
}

struct heap {
  struct hent *a;
  size_t n, cap, peak;
};

static int heap_grow(struct heap *h) {
  size_t cap = h->cap ? h->cap * 2 : 256;
  struct hent *p = realloc(h->a, cap * sizeof *p);
  if (!p) return TUTTI_ENOMEM;
  h->a = p;
  h->cap = cap;
  return 0;
}

static inline int heap_push(struct heap *h, double t, uint64_t k) {
  if (h->n == h->cap && heap_grow(h)) return TUTTI_ENOMEM;
  struct hent e = {tbits(t), k};
  size_t i = h->n++;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!hless(e, h->a[p])) break;
    h->a[i] = h->a[p];
    i = p;
  }
  h->a[i] = e;
  if (h->n > h->peak) h->peak = h->n;
  return 0;
}

static inline struct hent heap_pop(struct heap *h) {
  struct hent top = h->a[0];
  struct hent e = h->a[--h->n];
  size_t n = h->n, i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && hless(h->a[c + 1], h->a[c])) c++;
    if (!hless(h->a[c], e)) break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (n) h->a[i] = e;
  return top;
}

/* ------------------------------------------------------------ sim state */

struct rp_rank {
  double clock, sp, rp;      /* C, SP, RP */
  const uint64_t *op;        /* its ops */
  const struct tutti_ev *ev; /* its log (COMPUTE and REDUCE amounts) */
  uint32_t pos, n;           /* next event, number of events */
  uint32_t wait_msg;         /* blocked in a WAIT on this message, or NONE */
  uint32_t wait_recv;        /* ... for its receive (1) or its send (0) */
  uint32_t sp_pending;       /* its messages whose start is queued or waits
                                for the receiver (rendezvous) */
  int spans;                 /* spans completed */
};

struct sim {
  struct tutti_replay *rp;
  const tutti_model_t *m;
  struct tutti_replay_msg *msgs;
  struct rp_rank *ranks;
  struct heap heap;
  const tutti_topo_t *topo; /* NULL: no topology */
  tutti_linkset_t *links;   /* with a topology: every link's state */
  int32_t *owner;           /* per link: the one rank whose messages cross
                               it, or OWNER_NONE, OWNER_MANY */
  double L0;                /* L(0): start to the head entering the path */
  int record;               /* TUTTI__REPLAY_HOPS: append to hops */
  int in_port;              /* handling a PORT activity (not a rank's run) */
  struct tutti_replay_hop *hops;
  size_t nhops, hopcap;
  int err;
  char *errbuf;
  size_t errlen;
};

static int fail(struct sim *s, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct sim *s, int err, const char *fmt, ...) {
  if (s->errbuf && s->errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->errbuf, s->errlen, fmt, ap);
    va_end(ap);
  }
  return s->err = err;
}

static const char *kind_name(int kind) {
  switch (kind) {
  case TUTTI_EV_SEND:
    return "SEND";
  case TUTTI_EV_RECV:
    return "RECV";
  case TUTTI_EV_WAIT:
    return "WAIT";
  case TUTTI_EV_COMPUTE:
    return "COMPUTE";
  case TUTTI_EV_REDUCE:
    return "REDUCE";
  case TUTTI_EV_SPAN_BEGIN:
    return "SPAN_BEGIN";
  case TUTTI_EV_SPAN_END:
    return "SPAN_END";
  default:
    return "unknown";
  }
}

/* The heap's next entry will most likely be handled next: start fetching
 * what it reads (the simulation is bound by memory latency). */
static inline void prefetch_next(const struct sim *s) {
  if (!s->heap.n) return;
  uint64_t k = s->heap.a[0].k;
  if (k & HK_PORT) {
    __builtin_prefetch(&s->msgs[(uint32_t)k], 1);
  } else {
    uint32_t r = (uint32_t)(k >> 32);
    __builtin_prefetch(&s->ranks[r], 1);
    __builtin_prefetch(s->rp->ops + s->rp->evoff[r] + (uint32_t)k);
  }
}

/* Wake a rank blocked on message id (its send side, or its receive side). */
static inline int wake(struct sim *s, int r, uint32_t id, uint32_t recv_side, double done) {
  struct rp_rank *R = &s->ranks[r];
  if (R->wait_msg != id || R->wait_recv != recv_side) return 0;
  R->wait_msg = NONE;
  __builtin_prefetch(&R->op[R->pos + 1]); /* what it reads when it resumes */
  return heap_push(&s->heap, dmax(R->clock, done), hkey_rank(r, R->pos));
}

/* ---------------------------------------------------------- the rules */

/* Message id, from src, has started at msg->start: its data travels.
 * Without topology the data is complete at the receiver at s + L(m)
 * (rules 1 and 3); with one, it crosses its path first (link_hop). */
static int transfer_delivered(struct sim *s, int src, uint32_t id);
static int link_hop(struct sim *s, int src, uint32_t id);

static inline int transfer_launch(struct sim *s, int src, uint32_t id) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  if (!s->topo) {
    msg->arrive = msg->start + cost(&s->m->latency, (double)msg->bytes);
    return transfer_delivered(s, src, id);
  }
  msg->ready = msg->arrive = msg->start + s->L0; /* h_0 = e_0 = s + L(0) */
  msg->hop = 0;
  msg->rdone = tutti_topo_path_link_ranks(s->topo, src, msg->dst, 0); /* -1: src == dst */
  msg->flags |= RPM_TRANSIT;
  return link_hop(s, src, id); /* its first link is the sender's own */
}

static int record_hop(struct sim *s, uint32_t id, int link, double arrive, const tutti_hop_t *h) {
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
 * taken from the heap: then it may be handled at once, in exactly the order
 * a trip through the heap gives -- but only while a PORT activity is being
 * handled (s->in_port): a running rank (run_rank) is in no heap and may
 * still post, at its clock, activities that come first (rule 8). */
static inline int next_anyway(const struct sim *s, double t, uint64_t k) {
  if (!s->in_port) return 0;
  struct hent me = {tbits(t), k};
  return !s->heap.n || hless(me, s->heap.a[0]);
}

/* MODEL.md's cut-through step over the next links of message id's path
 * (its head reaches the first of them now): cross one link, then the link
 * after too if only src's messages cross it (they reach it in the order
 * they left this one: a link is FIFO, and in a tree they all came the same
 * way) or if its head reaching it would be the next activity anyway; else
 * queue it for that link at the time its head gets there. With the path
 * done, the data is delivered when its tail arrives. */
static int link_hop(struct sim *s, int src, uint32_t id) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  tutti_transit_t tr = {msg->ready, msg->arrive};
  int link = (int)msg->rdone; /* its next link (transfer_launch) */
  while (link >= 0) {
    tutti_hop_t h;
    double arrived = tr.head;
    int rc = tutti_linkset_hop(s->links, link, &tr, (double)msg->bytes, &h);
    if (rc == TUTTI_ENOMEM) return rc;
    if (rc)
      return fail(s, TUTTI_EINVAL,
                  "internal error: link %d refused message %u from rank %d at %.17g", link, id, src,
                  arrived);
    if (s->record && record_hop(s, id, link, arrived, &h)) return TUTTI_ENOMEM;
    /* -1: past the path's end (src and dst are bound ranks: never an error) */
    link = tutti_topo_path_link_ranks(s->topo, src, msg->dst, ++msg->hop);
    if (link >= 0 && s->owner[link] != src && !next_anyway(s, tr.head, hkey_port(src, id))) {
      msg->ready = tr.head;
      msg->arrive = tr.tail;
      msg->rdone = link;
      return heap_push(&s->heap, tr.head, hkey_port(src, id));
    }
  }
  msg->flags &= ~RPM_TRANSIT;
  msg->ready = msg->rdone = NAN;
  msg->arrive = tr.tail; /* e_k + lat_k */
  return transfer_delivered(s, src, id);
}

static int eager_arrive(struct sim *s, uint32_t id);

static int transfer_delivered(struct sim *s, int src, uint32_t id) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  if (msg->flags & RPM_EAGER) { /* rule 2: the receiver's port serves it at a */
    if (next_anyway(s, msg->arrive, hkey_port(src, id))) return eager_arrive(s, id);
    __builtin_prefetch(&s->ranks[msg->dst]);
    return heap_push(&s->heap, msg->arrive, hkey_port(src, id));
  }
  /* rule 3: the receive completes at s + L(m) + O_r(m) */
  msg->ready = msg->arrive;
  msg->rdone = msg->arrive + cost(&s->m->recv_cpu, (double)msg->bytes);
  msg->flags |= RPM_SERVED | RPM_RDONE;
  return wake(s, msg->dst, id, 1, msg->rdone);
}

/* Rule 1: an eager send posted at `post` starts at s = max(post, SP);
 * SP = s + S(m); a blocking send returns at s + O_s(m) (rule 4). */
static inline int eager_start(struct sim *s, int src, uint32_t id, double post) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  struct rp_rank *S = &s->ranks[src];
  double m = (double)msg->bytes;
  double st = dmax(post, S->sp);
  S->sp = st + cost(&s->m->send_port, m);
  msg->start = st;
  msg->sdone = st + cost(&s->m->send_cpu, m);
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
  double m = (double)msg->bytes;
  double ready = dmax(msg->arrive, D->rp + cost(&s->m->recv_port, m));
  D->rp = ready;
  msg->ready = ready;
  msg->flags |= RPM_SERVED;
  if (!(msg->flags & RPM_RPOSTED)) return 0;
  msg->rdone = dmax(msg->rpost, ready) + cost(&s->m->recv_cpu, m);
  msg->flags |= RPM_RDONE;
  return wake(s, msg->dst, id, 1, msg->rdone);
}

/* Rule 3: a rendezvous transfer starts when both sides are ready:
 * s = max(send post, SP_sender, receive post, RP_receiver);
 * SP_sender = s + S(m); RP_receiver = s + R(m). It is decided at t, the
 * later of the two posts (so max(send post, receive post) = t), in rule 8's
 * port order. */
static int rdv_start(struct sim *s, int src, uint32_t id, double t) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  struct rp_rank *S = &s->ranks[src];
  struct rp_rank *D = &s->ranks[msg->dst];
  double m = (double)msg->bytes;
  double st = dmax(t, dmax(S->sp, D->rp));
  S->sp = st + cost(&s->m->send_port, m);
  D->rp = st + cost(&s->m->recv_port, m);
  msg->start = st;
  msg->sdone = st + cost(&s->m->send_cpu, m);
  msg->flags |= RPM_STARTED;
  S->sp_pending--;
  int rc = wake(s, src, id, 0, msg->sdone);
  return rc ? rc : transfer_launch(s, src, id);
}

/* A PORT activity popped at time t: the next decision on that message. */
static int port_event(struct sim *s, int src, uint32_t id, double t) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  if (!(msg->flags & RPM_STARTED)) {
    if (msg->flags & RPM_EAGER) {
      s->ranks[src].sp_pending--;
      return eager_start(s, src, id, t); /* queued at its post time t */
    }
    return rdv_start(s, src, id, t);
  }
  if (msg->flags & RPM_TRANSIT) return link_hop(s, src, id); /* its head reached a link */
  return eager_arrive(s, id);
}

/* Rules 1, 3, 5: an isend is posted at the current clock at no cost. An
 * eager start is decided right here when nothing else of this sender can
 * decide at its port before it (no start of its own queued or waiting for
 * a receiver: then the queued order would be exactly this order), else
 * queued in rule 8's order. */
static inline int post_send(struct sim *s, int r, uint32_t id, double C) {
  struct rp_rank *R = &s->ranks[r];
  struct tutti_replay_msg *msg = &s->msgs[id];
  msg->flags |= RPM_POSTED;
  if (msg->flags & RPM_EAGER) {
    if (R->sp_pending == 0) return eager_start(s, r, id, C);
    R->sp_pending++;
    return heap_push(&s->heap, C, hkey_port(r, id));
  }
  R->sp_pending++;
  if (msg->flags & RPM_RPOSTED) return heap_push(&s->heap, C, hkey_port(r, id));
  return 0;
}

/* Rules 2, 3, 5: an irecv is posted at the current clock at no cost. */
static inline int post_recv(struct sim *s, int src, uint32_t id, double C) {
  struct tutti_replay_msg *msg = &s->msgs[id];
  msg->rpost = C;
  msg->flags |= RPM_RPOSTED;
  if (msg->flags & RPM_EAGER) {
    if (msg->flags & RPM_SERVED) { /* buffered already */
      msg->rdone = dmax(C, msg->ready) + cost(&s->m->recv_cpu, (double)msg->bytes);
      msg->flags |= RPM_RDONE;
    }
    return 0;
  }
  if (msg->flags & RPM_POSTED) return heap_push(&s->heap, C, hkey_port(src, id));
  return 0;
}

/* A RANK activity: run rank r's log from where it stopped, as long as its
 * (clock, rank) key stays the smallest. */
static int run_rank(struct sim *s, int r) {
  struct rp_rank *R = &s->ranks[r];
  struct tutti_replay *rp = s->rp;
  const uint64_t *ops = R->op;
  double C = R->clock;
  uint32_t pos = R->pos, n = R->n;
  int rc = 0;
  for (uint32_t i = pos + 1; i < pos + 4 && i < n; i++) /* the messages it will touch */
    if (RPO_KIND(ops[i]) <= RPO_WAIT_RECV) __builtin_prefetch(&s->msgs[RPO_ID(ops[i])], 1);
  while (pos < n) {
    uint64_t o = ops[pos];
    uint32_t id = RPO_ID(o);
    double before = C;
    switch (RPO_KIND(o)) {
    case RPO_SEND:
      rc = post_send(s, r, id, C);
      break;
    case RPO_RECV:
      rc = post_recv(s, RPO_PEER(o), id, C);
      break;
    case RPO_WAIT_SEND: /* rules 4, 5: C = max(C, when the call returns) */
      if (!(s->msgs[id].flags & RPM_STARTED)) goto block;
      if (s->msgs[id].sdone > C) C = s->msgs[id].sdone;
      break;
    case RPO_WAIT_RECV:
      if (!(s->msgs[id].flags & RPM_RDONE)) goto block;
      if (s->msgs[id].rdone > C) C = s->msgs[id].rdone;
      break;
    case RPO_NOP: /* a failed receive: never matched, its wait is free */
      break;
    case RPO_COMPUTE: /* rule 6 */
      C += R->ev[pos].u.seconds;
      break;
    case RPO_REDUCE: /* rule 6 */
      C += s->m->gamma * (double)(o >> 8);
      break;
    case RPO_REDUCE_LOG:
      C += s->m->gamma * (double)R->ev[pos].bytes;
      break;
    case RPO_SPAN_BEGIN: { /* rule 7 */
      tutti_call_time_t *c = &rp->calls[R->spans];
      if (C < c->entry_min) c->entry_min = C;
      if (C > c->entry_max) c->entry_max = C;
      break;
    }
    case RPO_SPAN_END: {
      tutti_call_time_t *c = &rp->calls[R->spans++];
      if (C > c->finish_max) c->finish_max = C;
      rp->rank_last_call[r] = C;
      break;
    }
    }
    if (rc) break;
    pos++;
    if (C != before && s->heap.n) {
      struct hent me = {tbits(C), hkey_rank(r, pos)};
      if (hless(s->heap.a[0], me)) { /* someone else is earlier: yield */
        R->clock = C;
        R->pos = pos;
        return heap_push(&s->heap, C, me.k);
      }
    }
    continue;
  block:
    R->wait_msg = id;
    R->wait_recv = RPO_KIND(o) == RPO_WAIT_RECV;
    break;
  }
  R->clock = C;
  R->pos = pos;
  return rc;
}

/* ------------------------------------------------------------ validation */

static int names_equal(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

static int cost_ok(const tutti_cost_t *c) {
  return isfinite(c->floor) && isfinite(c->a) && isfinite(c->b) &&
         (c->floor >= 0 || (c->a >= 0 && c->b >= 0));
}

static int check_model(struct sim *s, const tutti_model_t *m) {
  static const struct {
    size_t off;
    const char *name;
  } f[] = {
      {offsetof(tutti_model_t, send_cpu), "send_cpu"},
      {offsetof(tutti_model_t, send_port), "send_port"},
      {offsetof(tutti_model_t, latency), "latency"},
      {offsetof(tutti_model_t, recv_port), "recv_port"},
      {offsetof(tutti_model_t, recv_cpu), "recv_cpu"},
  };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
    if (!cost_ok((const tutti_cost_t *)((const char *)m + f[i].off)))
      return fail(s, TUTTI_EINVAL, "model cost %s can be negative or is not finite", f[i].name);
  if (!isfinite(m->gamma) || m->gamma < 0)
    return fail(s, TUTTI_EINVAL, "model gamma %g is negative or not finite", m->gamma);
  return 0;
}

/* A topology must be bound to exactly the replay's ranks (each rank on its
 * own leaf), and shallow enough for the 16-bit hop counter. */
static int check_topo(struct sim *s, const tutti_topo_t *t, int nranks) {
  int bound = tutti_topo_nranks(t);
  if (bound != nranks) {
    char d[256] = "";
    tutti_topo_describe(t, d, sizeof d);
    if (!bound)
      return fail(s, TUTTI_EINVAL,
                  "the topology (%s) is not bound to ranks; bind it to the world's %d ranks "
                  "(tutti_topo_bind)",
                  d, nranks);
    return fail(s, TUTTI_EINVAL, "the topology is bound to %d ranks but the world has %d (%s)",
                bound, nranks, d);
  }
  if (tutti_topo_depth(t) > TUTTI__REPLAY_MAX_DEPTH)
    return fail(s, TUTTI_EINVAL, "the topology is %d levels deep; the replay handles at most %d",
                tutti_topo_depth(t), TUTTI__REPLAY_MAX_DEPTH);
  return 0;
}

static const char *nm(const char *name) {
  return name ? name : "(null)";
}

/* Allocation of the big per-event and per-message arrays: 2 MiB aligned
 * and marked for transparent huge pages, since first touching millions of
 * 4 KiB pages costs as much as the simulation (free() releases it). */
static void *big_alloc(size_t bytes) {
  const size_t huge = (size_t)2 << 20;
  if (bytes < 2 * huge) return malloc(bytes ? bytes : 1);
  size_t len = (bytes + huge - 1) & ~(huge - 1);
  void *p;
  if (posix_memalign(&p, huge, len)) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(p, len, MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
  return p;
}

/* Pass 1, rank by rank: build the ops of everything but RECV and WAIT,
 * number the messages (in each sender's log order), check local
 * references. Rank 0's spans are the calls. */
static int prepare_local(struct sim *s, uint64_t *nmsgs_out) {
  struct tutti_replay *rp = s->rp;
  int P = rp->nranks;
  uint64_t nmsgs = 0;
  for (int r = 0; r < P; r++) {
    struct rp_rank *R = &s->ranks[r];
    uint64_t *op = rp->ops + rp->evoff[r];
    for (uint32_t i = 0; i < R->n; i++) {
      const struct tutti_ev *e = &R->ev[i];
      switch (e->kind) {
      case TUTTI_EV_SEND:
        if (e->peer < 0 || e->peer >= P)
          return fail(s, TUTTI_EINVAL, "rank %d event %u: SEND to rank %d, out of range 0..%d", r,
                      i, (int)e->peer, P - 1);
        if (nmsgs >= NONE)
          return fail(s, TUTTI_EINVAL, "more than %u messages: too many for the replay", NONE - 1);
        op[i] = OP(RPO_SEND, 0, nmsgs++);
        break;
      case TUTTI_EV_RECV:
        op[i] = OP(RPO_NOP, 0, 0); /* pass 2 */
        break;
      case TUTTI_EV_WAIT:
        if (e->ref >= i)
          return fail(s, TUTTI_EINVAL, "rank %d event %u: WAIT on event %u, not an earlier one", r,
                      i, e->ref);
        if (R->ev[e->ref].kind != TUTTI_EV_SEND && R->ev[e->ref].kind != TUTTI_EV_RECV)
          return fail(s, TUTTI_EINVAL, "rank %d event %u: WAIT on event %u, a %s", r, i, e->ref,
                      kind_name(R->ev[e->ref].kind));
        op[i] = OP(RPO_NOP, 0, 0); /* pass 2 */
        break;
      case TUTTI_EV_COMPUTE:
        if (!isfinite(e->u.seconds) || e->u.seconds < 0)
          return fail(s, TUTTI_EINVAL, "rank %d event %u: COMPUTE of %g s", r, i, e->u.seconds);
        op[i] = OP(RPO_COMPUTE, 0, 0);
        break;
      case TUTTI_EV_REDUCE: /* the size in the op, unless it is huge */
        op[i] = e->bytes < (UINT64_C(1) << 56) ? (e->bytes << 8 | RPO_REDUCE)
                                               : OP(RPO_REDUCE_LOG, 0, 0);
        break;
      case TUTTI_EV_SPAN_BEGIN:
        if (r == 0) rp->ncalls++;
        op[i] = OP(RPO_SPAN_BEGIN, 0, 0);
        break;
      case TUTTI_EV_SPAN_END:
        op[i] = OP(RPO_SPAN_END, 0, 0);
        break;
      default:
        return fail(s, TUTTI_EINVAL, "rank %d event %u: unknown event kind %d", r, i, e->kind);
      }
    }
  }
  *nmsgs_out = nmsgs;
  return 0;
}

/* Pass 2, rank by rank, on zeroed messages: fill each message at its SEND;
 * link each RECV to the SEND it names (checking that it is a SEND to this
 * rank with the same tag and size, received once); WAIT ops name their
 * message; spans must match rank 0's. */
static int prepare_links(struct sim *s) {
  struct tutti_replay *rp = s->rp;
  int P = rp->nranks;
  size_t lim = s->m->eager_limit;
  for (int r = 0; r < P; r++) {
    struct rp_rank *R = &s->ranks[r];
    uint64_t *op = rp->ops + rp->evoff[r];
    int k = 0, open = 0;
    for (uint32_t i = 0; i < R->n; i++) {
      const struct tutti_ev *e = &R->ev[i];
      /* the receives ahead read other ranks' logs at random: prefetch the
       * SEND they name (16 ahead), then its message (8 ahead) */
      if (i + 16 < R->n && R->ev[i + 16].kind == TUTTI_EV_RECV) {
        const struct tutti_ev *f = &R->ev[i + 16];
        if (f->peer >= 0 && f->peer < P && f->ref < s->ranks[f->peer].n) {
          __builtin_prefetch(&s->ranks[f->peer].ev[f->ref]);
          __builtin_prefetch(&s->ranks[f->peer].op[f->ref]);
        }
      }
      if (i + 8 < R->n && R->ev[i + 8].kind == TUTTI_EV_RECV) {
        const struct tutti_ev *f = &R->ev[i + 8];
        if (f->peer >= 0 && f->peer < P && f->ref < s->ranks[f->peer].n)
          __builtin_prefetch(&s->msgs[RPO_ID(s->ranks[f->peer].op[f->ref])], 1);
      }
      switch (e->kind) {
      case TUTTI_EV_SEND: {
        struct tutti_replay_msg *msg = &s->msgs[RPO_ID(op[i])];
        int eager = lim == TUTTI_EAGER_ALL || e->bytes < (uint64_t)lim;
        msg->start = msg->arrive = msg->ready = NAN;
        msg->sdone = msg->rpost = msg->rdone = NAN;
        msg->bytes = e->bytes;
        msg->dst = e->peer;
        msg->flags |= eager ? RPM_EAGER : 0; /* RPM_MATCHED may be set already */
        rp->eager += (uint64_t)eager;
        rp->bytes += e->bytes;
        break;
      }
      case TUTTI_EV_RECV: {
        /* failed, or never matched (ref still UINT32_MAX): stays RPO_NOP */
        if ((e->flags & TUTTI_EVF_FAILED) || e->ref == UINT32_MAX) break;
        int src = e->peer;
        if (src < 0 || src >= P)
          return fail(s, TUTTI_EINVAL, "rank %d event %u: RECV from rank %d, out of range 0..%d", r,
                      i, src, P - 1);
        const struct rp_rank *S = &s->ranks[src];
        if (e->ref >= S->n)
          return fail(s, TUTTI_EINVAL,
                      "rank %d event %u: RECV names event %u of rank %d, which has %u events", r, i,
                      e->ref, src, S->n);
        const struct tutti_ev *se = &S->ev[e->ref];
        if (se->kind != TUTTI_EV_SEND || se->peer != r || se->tag != e->tag ||
            se->bytes != e->bytes)
          return fail(s, TUTTI_EINVAL,
                      "rank %d event %u: RECV (tag %d, %llu B) names event %u of rank %d, which "
                      "is not a SEND to rank %d with that tag and size",
                      r, i, (int)e->tag, (unsigned long long)e->bytes, e->ref, src, r);
        uint32_t id = RPO_ID(S->op[e->ref]);
        if (s->msgs[id].flags & RPM_MATCHED)
          return fail(s, TUTTI_EINVAL,
                      "rank %d event %u: RECV names event %u of rank %d, already received", r, i,
                      e->ref, src);
        s->msgs[id].flags |= RPM_MATCHED;
        op[i] = OP(RPO_RECV, src, id);
        break;
      }
      case TUTTI_EV_WAIT: {
        uint64_t w = op[e->ref]; /* its SEND or RECV, done already */
        if (RPO_KIND(w) != RPO_NOP)
          op[i] = OP(RPO_KIND(w) == RPO_SEND ? RPO_WAIT_SEND : RPO_WAIT_RECV, 0, RPO_ID(w));
        break;
      }
      case TUTTI_EV_SPAN_BEGIN:
        if (open)
          return fail(s, TUTTI_EINVAL, "rank %d event %u: span '%s' begins inside span '%s'", r, i,
                      nm(e->u.name), nm(rp->calls[k].name));
        if (k >= rp->ncalls)
          return fail(s, TUTTI_EINVAL, "rank %d opens more spans than rank 0 (%d)", r, rp->ncalls);
        if (r == 0) {
          tutti_call_time_t *c = &rp->calls[k];
          c->name = e->u.name;
          c->entry_min = INFINITY;
          c->entry_max = -INFINITY;
          c->finish_max = -INFINITY;
        } else if (!names_equal(rp->calls[k].name, e->u.name)) {
          return fail(s, TUTTI_EINVAL, "rank %d: call %d is '%s', but '%s' on rank 0", r, k,
                      nm(e->u.name), nm(rp->calls[k].name));
        }
        open = 1;
        break;
      case TUTTI_EV_SPAN_END:
        if (!open) return fail(s, TUTTI_EINVAL, "rank %d event %u: span end outside a span", r, i);
        open = 0;
        k++;
        break;
      }
    }
    if (open)
      return fail(s, TUTTI_EINVAL, "rank %d: span '%s' never ends", r, nm(rp->calls[k].name));
    if (k != rp->ncalls)
      return fail(s, TUTTI_EINVAL, "rank %d has %d calls (spans), rank 0 has %d", r, k, rp->ncalls);
  }
  rp->rendezvous = rp->messages - rp->eager;
  return 0;
}

enum { OWNER_NONE = -1, OWNER_MANY = -2 };

/* With a topology: which links carry the messages of one rank only. Such a
 * link sees its messages arrive in the order they left the link before
 * (link_hop), so the replay crosses it without a heap trip -- every
 * sender's own leaf link, and often the receiver's. One route per run of
 * sends to the same destination: O(events + such runs * depth). */
static int mark_owners(struct sim *s) {
  const tutti_topo_t *t = s->topo;
  int nl = tutti_topo_nlinks(t), cap = 2 * tutti_topo_depth(t) + 1;
  int *path = malloc((size_t)cap * sizeof *path);
  s->owner = malloc((size_t)(nl > 0 ? nl : 1) * sizeof *s->owner);
  if (!path || !s->owner) {
    free(path);
    return TUTTI_ENOMEM;
  }
  for (int l = 0; l < nl; l++) s->owner[l] = OWNER_NONE;
  const struct tutti_replay *rp = s->rp;
  for (int r = 0; r < rp->nranks; r++) {
    int last = -1;
    for (uint64_t e = rp->evoff[r]; e < rp->evoff[r + 1]; e++) {
      if (RPO_KIND(rp->ops[e]) != RPO_SEND) continue;
      int dst = s->msgs[RPO_ID(rp->ops[e])].dst;
      if (dst == last) continue;
      last = dst;
      int k = tutti_topo_route_ranks(t, r, dst, path, cap);
      for (int i = 0; i < k; i++) {
        int32_t *o = &s->owner[path[i]];
        *o = *o == OWNER_NONE || *o == r ? r : OWNER_MANY;
      }
    }
  }
  free(path);
  s->rp->state_bytes += (size_t)nl * sizeof *s->owner;
  return 0;
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

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void tutti__replay_free(struct tutti_replay *rp) {
  if (!rp) return;
  free(rp->logs);
  free(rp->evoff);
  free(rp->ops);
  free(rp->msgs);
  free(rp->calls);
  free(rp->rank_last_call);
  free(rp->rank_end);
  tutti_linkset_free(rp->links);
  free(rp->hops);
  free(rp);
}

int tutti__replay_run(const tutti_model_t *m, int nranks, const struct tutti_evlog *const logs[],
                      struct tutti_replay **out, char *err, size_t errlen) {
  return tutti__replay_run_ex(m, nranks, logs, 0, out, err, errlen);
}

int tutti__replay_run_ex(const tutti_model_t *m, int nranks, const struct tutti_evlog *const logs[],
                         unsigned flags, struct tutti_replay **out, char *err, size_t errlen) {
  double t0 = now();
  struct sim s = {.errbuf = err, .errlen = errlen};
  if (err && errlen) err[0] = '\0';
  if (out) *out = NULL;
  if (!m || !logs || !out || nranks < 1)
    return fail(&s, TUTTI_EINVAL, "NULL model, logs or result, or %d ranks", nranks);
  if (nranks > RPO_MAX_RANKS)
    return fail(&s, TUTTI_EINVAL, "%d ranks: the replay handles at most %d", nranks, RPO_MAX_RANKS);
  s.m = m;
  if (check_model(&s, m)) return s.err;
  if (m->topo && check_topo(&s, m->topo, nranks)) return s.err;

  struct tutti_replay *rp = calloc(1, sizeof *rp);
  if (!rp) return fail(&s, TUTTI_ENOMEM, "out of memory");
  s.rp = rp;
  rp->nranks = nranks;
  rp->model = *m;
  size_t P = (size_t)nranks;
  rp->logs = calloc(P, sizeof *rp->logs);
  rp->evoff = calloc(P + 1, sizeof *rp->evoff);
  rp->rank_last_call = calloc(P, sizeof *rp->rank_last_call);
  rp->rank_end = calloc(P, sizeof *rp->rank_end);
  s.ranks = calloc(P, sizeof *s.ranks);
  if (!rp->logs || !rp->evoff || !rp->rank_last_call || !rp->rank_end || !s.ranks) goto nomem;
  rp->state_bytes =
      sizeof *rp + P * (sizeof *rp->logs + sizeof *rp->evoff + sizeof *rp->rank_last_call +
                        sizeof *rp->rank_end + sizeof *s.ranks);

  uint64_t nev = 0, nmsgs = 0;
  for (int r = 0; r < nranks; r++) {
    static const struct tutti_evlog empty;
    const struct tutti_evlog *L = logs[r] ? logs[r] : &empty;
    rp->logs[r] = L;
    rp->evoff[r] = nev;
    nev += L->n;
  }
  rp->evoff[P] = nev;
  rp->events = nev;
  rp->ops = big_alloc(nev * sizeof *rp->ops);
  if (!rp->ops) goto nomem;
  rp->state_bytes += nev * sizeof *rp->ops;
  for (int r = 0; r < nranks; r++) {
    struct rp_rank *R = &s.ranks[r];
    R->ev = rp->logs[r]->ev;
    R->op = rp->ops + rp->evoff[r];
    R->n = rp->logs[r]->n;
    R->wait_msg = NONE;
  }
  if (prepare_local(&s, &nmsgs)) goto out;
  rp->nmsgs = (uint32_t)nmsgs;
  rp->messages = nmsgs;
  rp->msgs = s.msgs = big_alloc(nmsgs * sizeof *rp->msgs);
  if (!rp->msgs) goto nomem;
  memset(rp->msgs, 0, nmsgs * sizeof *rp->msgs);
  rp->state_bytes += nmsgs * sizeof *rp->msgs;
  if (rp->ncalls) {
    rp->calls = calloc((size_t)rp->ncalls, sizeof *rp->calls);
    if (!rp->calls) goto nomem;
    rp->state_bytes += (size_t)rp->ncalls * sizeof *rp->calls;
  }
  if (prepare_links(&s)) goto out;
  if (m->topo) {
    if (tutti_linkset_create(m->topo, &rp->links)) goto nomem;
    s.topo = m->topo;
    s.links = rp->links;
    s.L0 = cost(&m->latency, 0);
    s.record = (flags & TUTTI__REPLAY_HOPS) != 0;
    rp->state_bytes += (size_t)tutti_topo_nlinks(m->topo) * 72; /* topo/README.md */
    if (mark_owners(&s)) goto nomem;
  }

  /* the simulation: every rank starts at 0 with free ports */
  s.heap.cap = P + 64;
  s.heap.a = malloc(s.heap.cap * sizeof *s.heap.a);
  if (!s.heap.a) goto nomem;
  for (int r = 0; r < nranks; r++) heap_push(&s.heap, 0.0, hkey_rank(r, 0)); /* cannot fail */
  while (s.heap.n) {
    struct hent h = heap_pop(&s.heap);
    prefetch_next(&s);
    int rc;
    if (h.k & HK_PORT) {
      double t;
      memcpy(&t, &h.t, sizeof t);
      s.in_port = 1;
      rc = port_event(&s, (int)((h.k >> 32) & 0x7fffffff), (uint32_t)h.k, t);
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

  /* rule 7, and the per-rank results */
  rp->modeled_time = 0;
  for (int r = 0; r < nranks; r++) {
    double C = s.ranks[r].clock;
    rp->rank_end[r] = C;
    if (!rp->ncalls) rp->rank_last_call[r] = C;
    if (C > rp->modeled_time) rp->modeled_time = C;
  }
  for (int k = 0; k < rp->ncalls; k++) {
    tutti_call_time_t *c = &rp->calls[k];
    c->time = c->finish_max - c->entry_max;
  }
  if (!isfinite(rp->modeled_time)) {
    fail(&s, TUTTI_EINVAL, "the modeled time is not finite (%g): check the model's costs",
         rp->modeled_time);
    goto out;
  }
  rp->state_bytes += s.heap.peak * sizeof *s.heap.a;
  free(s.heap.a);
  free(s.ranks);
  free(s.owner);
  rp->hops = s.hops;
  rp->nhops = s.nhops;
  rp->wall_time = now() - t0;
  *out = rp;
  return 0;

nomem:
  fail(&s, TUTTI_ENOMEM, "out of memory (%llu events)", (unsigned long long)rp->events);
out:
  free(s.heap.a);
  free(s.ranks);
  free(s.owner);
  free(s.hops);
  tutti__replay_free(rp);
  return s.err;
}

static const struct tutti_replay_msg *op_msg(const struct tutti_replay *rp, int rank, uint32_t idx,
                                             unsigned want) {
  if (!rp || rank < 0 || rank >= rp->nranks || idx >= rp->logs[rank]->n) return NULL;
  uint64_t op = rp->ops[rp->evoff[rank] + idx];
  return RPO_KIND(op) == want ? &rp->msgs[RPO_ID(op)] : NULL;
}

const struct tutti_replay_msg *tutti__replay_msg(const struct tutti_replay *rp, int src,
                                                 uint32_t idx) {
  return op_msg(rp, src, idx, RPO_SEND);
}

double tutti__replay_done(const struct tutti_replay *rp, int rank, uint32_t idx) {
  const struct tutti_replay_msg *msg = op_msg(rp, rank, idx, RPO_SEND);
  if (msg) return msg->sdone;
  msg = op_msg(rp, rank, idx, RPO_RECV);
  return msg ? msg->rdone : NAN;
}

int tutti__replay_report(const struct tutti_replay *rp, tutti_report_t *out) {
  if (!rp || !out) return TUTTI_EINVAL;
  memset(out, 0, sizeof *out);
  out->nranks = rp->nranks;
  out->ncalls = rp->ncalls;
  out->calls = rp->calls;
  out->rank_last_call = rp->rank_last_call;
  out->rank_end = rp->rank_end;
  out->modeled_time = rp->modeled_time;
  out->messages = rp->messages;
  out->bytes = rp->bytes;
  out->eager = rp->eager;
  out->rendezvous = rp->rendezvous;
  out->events = rp->events;
  out->replay_wall_time = rp->wall_time;
  out->replay_bytes = rp->state_bytes;
  if (rp->links) {
    out->nlinks = tutti_topo_nlinks(rp->model.topo);
    for (int l = 0; l < out->nlinks; l++) {
      tutti_link_stats_t st;
      if (!tutti_linkset_stats(rp->links, l, &st) && st.messages) out->links_used++;
    }
  }
  return 0;
}

int tutti__replay_links(const struct tutti_replay *rp, int k, tutti_link_load_t *out, int *n) {
  if (!rp || k < 0 || (k && !out) || !n) return TUTTI_EINVAL;
  *n = 0;
  if (!rp->links || !k) return 0;
  int *ids = malloc((size_t)k * sizeof *ids);
  if (!ids) return TUTTI_ENOMEM;
  int got = tutti_linkset_top(rp->links, TUTTI_LINKS_BY_BUSY, k, ids);
  for (int i = 0; i < got; i++) {
    tutti_link_stats_t st;
    tutti_link_load_t *o = &out[i];
    tutti_linkset_stats(rp->links, ids[i], &st);
    memset(o, 0, sizeof *o);
    o->link = ids[i];
    tutti_topo_link_name(rp->model.topo, ids[i], o->name, sizeof o->name);
    o->messages = st.messages;
    o->bytes = (uint64_t)st.bytes; /* a sum of whole byte counts: exact below 2^53 */
    o->busy = st.busy;
    o->wait = st.wait;
    o->max_queue = st.max_queue;
  }
  free(ids);
  if (got < 0) return got;
  *n = got;
  return 0;
}

int tutti__replay_world(struct tutti_world *w) {
  if (!w) return TUTTI_EINVAL;
  tutti__replay_free(w->replay);
  w->replay = NULL;
  if (!w->record) return 0;
  const struct tutti_evlog **logs = malloc((size_t)w->nranks * sizeof *logs);
  if (!logs) {
    snprintf(w->errtext, sizeof w->errtext, "replay: out of memory");
    return TUTTI_ENOMEM;
  }
  for (int r = 0; r < w->nranks; r++) logs[r] = &w->ranks[r]->log;
  char err[sizeof w->errtext - 16];
  int rc = tutti__replay_run(&w->model, w->nranks, logs, &w->replay, err, sizeof err);
  free(logs);
  if (rc) snprintf(w->errtext, sizeof w->errtext, "replay: %s", err);
  return rc;
}

int tutti_world_report(const tutti_world_t *w, tutti_report_t *out) {
  if (!w || !out) return TUTTI_EINVAL;
  if (w->running) return TUTTI_EBUSY;
  if (!w->replay) return TUTTI_ENOTSUP;
  return tutti__replay_report(w->replay, out);
}

int tutti_world_links(const tutti_world_t *w, int k, tutti_link_load_t *out, int *n) {
  if (!w || k < 0 || (k && !out) || !n) return TUTTI_EINVAL;
  if (w->running) return TUTTI_EBUSY;
  if (!w->replay) return TUTTI_ENOTSUP;
  return tutti__replay_links(w->replay, k, out, n);
}

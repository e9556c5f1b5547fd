/*
 * explain.c -- why a replayed run took the time it took, message by
 * message: what each transfer waited for (a busy port, a receiver not yet
 * posted, a link queue), the round of the algorithm's schedule it belongs
 * to, and the critical path -- the chain of messages that ended at the
 * rank that finished last. tutti_world_explain (report.h) serves it;
 * `tutti explain` (bench/cli_explain.c) prints it for a class.
 *
 * Why here and not in the CLI: these are the replay's own decisions
 * (runtime/MODEL.md rules 1-3). A transfer's start is the maximum of a few
 * terms -- the send's post, the sender's port (SP), and for rendezvous the
 * receive's post and the receiver's port (RP) -- and this file finds which
 * term won from the replay's result, with the replay's integer times, so
 * equal really means equal. It does not touch the simulation (replay.c):
 *   - post times: each rank's clock walked again over its log, exactly as
 *     the replay advances it (the arithmetic of trace.c);
 *   - SP before a message: a port serves one transfer at a time and its
 *     starts never decrease (s >= SP), so the sender's previous start
 *     plus S(m) of that message is SP; likewise RP at the receiver is the
 *     latest of e (eager, rule 2) or s + R(m) (rendezvous, rule 3) of the
 *     messages it took before;
 *   - link queues: the replay run again with TUTTI__REPLAY_HOPS, as the
 *     trace does (the same times, bit for bit), h_i - arrival per hop.
 *
 * Rounds (report.h's tutti_msg_info_t.round): a message comes after the
 * rounds its sender had sent in or received (waited for) before posting
 * it -- one send per rank per round, the way schedules are drawn in papers
 * (a flat tree's root sends in rounds 1..P-1, a binomial tree needs
 * ceil(log2 P)) -- but an exchange's sends share one (a step between two
 * waits on receives that posts receives and at most as many sends:
 * sendrecv, dissemination's k-1 partners), and a send whose start waited
 * comes after what it waited for: the rounds its receiver had reached when
 * it posted (rendezvous), or, among single sends, the message that held
 * the receiver's port. Each of these causes started no later than the
 * message, so a round starts no earlier than the one before it. Found by
 * walking the logs in an order that respects them all (a rank stops where
 * it needs a round not yet known).
 *
 * States (report.h's enum tutti_rank_state): explain_states.c.
 *
 * Memory: O(messages + events of one rank) besides the result; the
 * per-port sorts are O(messages log messages).
 */
#include "internal.h" /* first: it sets _GNU_SOURCE */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

#define NONE UINT32_MAX

/* A point of the critical path: a message and which of its completions. */
enum { SIDE_START, SIDE_RECV, SIDE_SERVE };
#define NODE(id, side) ((uint64_t)(id) << 2 | (side))
#define NODE_NONE UINT64_MAX

struct ex {
  const struct tutti_replay *rp;
  tutti__tu_cost_t S, R; /* send_port, recv_port in units */
  uint32_t *src;         /* per message: its sender */
  tutti__tu_t *post;     /* per message: the send's post (sender's clock) */
  uint64_t *post_after;  /* per message: what last raised the sender's clock before the post */
  uint64_t *rpost_after; /* ... the receiver's clock before the receive's post */
  tutti__tu_t *sp_before, *rp_before; /* the ports as the message found them */
  uint32_t *sp_by, *rp_by;            /* ... and the message that left them so */
};

/* The bytes a message's costs are taken at: payload + header (MODEL.md). */
static double wire(const struct ex *x, const struct tutti_replay_msg *g) {
  return (double)g->bytes + (double)x->rp->model.header;
}

static double sec(tutti__tu_t t) {
  return t == TUTTI__TU_NONE ? NAN : tutti__tu_to_s(t);
}

/* The message of event idx of rank r if it is a SEND or RECV, else NONE. */
static uint32_t ev_msg(const struct tutti_replay *rp, int r, uint32_t idx) {
  uint64_t op = rp->ops[rp->evoff[r] + idx];
  unsigned k = RPO_KIND(op);
  return k == RPO_SEND || k == RPO_RECV ? RPO_ID(op) : NONE;
}

/* Walk rank r's log with the replay's clock (trace.c's clock_step): post
 * times, and which completion last raised the clock before each post. */
static void walk_clocks(struct ex *x, int r, tutti_msg_info_t *out) {
  const struct tutti_replay *rp = x->rp;
  const struct tutti_ev *ev = rp->logs[r]->ev;
  tutti__tu_t C = 0;
  uint64_t cause = NODE_NONE;
  int call = -1, spans = 0;
  for (uint32_t i = 0; i < rp->logs[r]->n; i++) {
    const struct tutti_ev *e = &ev[i];
    uint32_t id;
    switch (e->kind) {
    case TUTTI_EV_SEND:
      if ((id = ev_msg(rp, r, i)) != NONE) {
        x->post[id] = C;
        x->post_after[id] = cause;
        out[id].call = call;
      }
      break;
    case TUTTI_EV_RECV:
      if ((id = ev_msg(rp, r, i)) != NONE) x->rpost_after[id] = cause;
      break;
    case TUTTI_EV_WAIT: {
      tutti__tu_t done = tutti__replay_done_tu(rp, r, e->ref);
      if (done != TUTTI__TU_NONE && done > C) {
        C = done;
        id = ev_msg(rp, r, e->ref);
        cause = NODE(id, ev[e->ref].kind == TUTTI_EV_SEND ? SIDE_START : SIDE_RECV);
      }
      break;
    }
    case TUTTI_EV_COMPUTE:
      C = tutti__tu_add(C, tutti__tu_from_s(e->u.seconds));
      break;
    case TUTTI_EV_REDUCE:
      C = tutti__tu_add(C, tutti__tu_bytes(tutti__tu_rate(rp->model.gamma), (double)e->bytes));
      break;
    case TUTTI_EV_SPAN_BEGIN:
      call = spans;
      break;
    case TUTTI_EV_SPAN_END:
      call = -1;
      spans++;
      break;
    }
  }
}

/* Rounds: see the header comment. A rank's log is cut into steps, each
 * ending at a WAIT on a receive; a step that posts receives and at most
 * as many sends is an exchange (its sends share one round), any other
 * step sends one message per round. Besides the rounds its sender had
 * reached, a send whose start waited for its receiver to post comes after
 * the rounds the receiver had reached when it posted (postround), and in
 * a step of single sends one that waited for the receiver's port comes
 * after the message that held it. The walk takes the ranks in an order
 * that respects all of these (a rank stops where it needs a round not yet
 * known and is woken when it is); were there a circle (zero-cost
 * messages), the lowest stopped rank goes on without that constraint.
 * Returns 0 or TUTTI_ENOMEM. */
enum { BLK_NONE, BLK_ROUND, BLK_POST };

struct walk {
  const struct tutti_replay *rp;
  tutti_msg_info_t *out;
  int *postround;                  /* per message: the receiver's round at its post; -1 */
  int32_t *head_round, *head_post; /* per message: ranks stopped on it (lists) */
  int32_t *next;                   /* per rank: the next in its list */
  uint32_t *pos, *seg_end; /* per rank: next event; its step's last event (NONE: none open) */
  int *cur, *exch, *shared, *bwhat, *force;
  uint32_t *bid;
  int *stack, top;
};

static int is_recv_wait(const struct tutti_replay *rp, int r, uint32_t i) {
  const struct tutti_ev *ev = rp->logs[r]->ev;
  return ev[i].kind == TUTTI_EV_WAIT && ev[ev[i].ref].kind == TUTTI_EV_RECV;
}

static void wake(struct walk *w, int32_t *head, int kind, uint32_t id) {
  for (int32_t r = head[id]; r >= 0; r = w->next[r])
    if (w->bwhat[r] == kind && w->bid[r] == id) w->bwhat[r] = BLK_NONE, w->stack[w->top++] = r;
  head[id] = -1;
}

static void stop(struct walk *w, int r, int kind, uint32_t id) {
  int32_t *head = kind == BLK_ROUND ? w->head_round : w->head_post;
  w->bwhat[r] = kind, w->bid[r] = id;
  w->next[r] = head[id];
  head[id] = r;
}

/* Take r off the list it is stopped on (the circle breaker). */
static void unstop(struct walk *w, int r) {
  int32_t *head = w->bwhat[r] == BLK_ROUND ? w->head_round : w->head_post, *p = &head[w->bid[r]];
  while (*p >= 0 && *p != r) p = &w->next[*p];
  if (*p == r) *p = w->next[r];
  w->bwhat[r] = BLK_NONE;
}

static void set_round(struct walk *w, uint32_t id, int round) {
  w->out[id].round = round;
  wake(w, w->head_round, BLK_ROUND, id);
}

/* The least round send `id` may take by its start's cause; -1: not known
 * yet (r is then stopped on it); 0 for an unknown one when r is forced on. */
static int start_bound(struct walk *w, int r, uint32_t id, int single) {
  const tutti_msg_info_t *o = &w->out[id];
  if (o->wait == TUTTI_WAIT_RECV_POST) {
    if (w->postround[id] >= 0) return w->postround[id] + 1;
    if (w->force[r]) return 0;
    stop(w, r, BLK_POST, id);
    return -1;
  }
  if (single && o->wait == TUTTI_WAIT_RECV_PORT && o->blocker >= 0) {
    uint32_t b = (uint32_t)o->blocker;
    if (w->out[b].round) return w->out[b].round + 1;
    if (w->force[r]) return 0;
    stop(w, r, BLK_ROUND, b);
    return -1;
  }
  return 0;
}

/* Walk rank r as far as it goes. */
static void walk_rank(struct walk *w, int r) {
  const struct tutti_replay *rp = w->rp;
  const struct tutti_ev *ev = rp->logs[r]->ev;
  uint32_t n = rp->logs[r]->n;
  while (w->pos[r] < n) {
    uint32_t i = w->pos[r], id;
    if (w->seg_end[r] == NONE) { /* open the step that starts here */
      uint32_t e = i;
      int ns = 0, nr = 0;
      for (; e < n && !is_recv_wait(rp, r, e); e++)
        ns += ev[e].kind == TUTTI_EV_SEND, nr += ev[e].kind == TUTTI_EV_RECV;
      w->seg_end[r] = e; /* n: the log ends the step */
      w->exch[r] = nr > 0 && ns > 0 && ns <= nr;
      w->shared[r] = 0;
      if (w->exch[r])
        for (uint32_t k = i; k < e; k++)
          if (ev[k].kind == TUTTI_EV_RECV && (id = ev_msg(rp, r, k)) != NONE) {
            w->postround[id] = w->cur[r];
            wake(w, w->head_post, BLK_POST, id);
          }
    }
    uint32_t e = w->seg_end[r];
    if (w->exch[r] && !w->shared[r]) { /* the exchange's one round */
      int R = w->cur[r] + 1;
      for (uint32_t k = i; k < e && k < n; k++) {
        if (ev[k].kind != TUTTI_EV_SEND || (id = ev_msg(rp, r, k)) == NONE) continue;
        int b = start_bound(w, r, id, 0);
        if (b < 0) return;
        if (b > R) R = b;
      }
      w->shared[r] = R;
      w->force[r] = 0;
      for (uint32_t k = i; k < e && k < n; k++)
        if (ev[k].kind == TUTTI_EV_SEND && (id = ev_msg(rp, r, k)) != NONE) set_round(w, id, R);
      if (R > w->cur[r]) w->cur[r] = R;
    }
    const struct tutti_ev *x = &ev[i];
    if (x->kind == TUTTI_EV_SEND && !w->exch[r] && (id = ev_msg(rp, r, i)) != NONE) {
      int R = w->cur[r] + 1, b = start_bound(w, r, id, 1);
      if (b < 0) return;
      if (b > R) R = b;
      w->cur[r] = R;
      w->force[r] = 0;
      set_round(w, id, R);
    } else if (x->kind == TUTTI_EV_RECV && !w->exch[r] && (id = ev_msg(rp, r, i)) != NONE) {
      w->postround[id] = w->cur[r];
      wake(w, w->head_post, BLK_POST, id);
    } else if (i == e) { /* the WAIT on a receive that ends the step */
      if ((id = ev_msg(rp, r, x->ref)) != NONE) {
        if (!w->out[id].round && !w->force[r]) {
          stop(w, r, BLK_ROUND, id); /* its sender wakes it */
          return;
        }
        w->force[r] = 0;
        if (w->out[id].round > w->cur[r]) w->cur[r] = w->out[id].round;
      }
      w->seg_end[r] = NONE;
    }
    w->pos[r]++;
  }
}

static int rounds(const struct ex *x, tutti_msg_info_t *out) {
  const struct tutti_replay *rp = x->rp;
  int P = rp->nranks;
  size_t n = rp->nmsgs ? rp->nmsgs : 1, p = (size_t)P;
  struct walk w = {.rp = rp, .out = out};
  w.postround = malloc(n * sizeof *w.postround);
  w.head_round = malloc(n * sizeof *w.head_round);
  w.head_post = malloc(n * sizeof *w.head_post);
  w.next = malloc(p * sizeof *w.next);
  w.pos = calloc(p, sizeof *w.pos);
  w.seg_end = malloc(p * sizeof *w.seg_end);
  w.cur = calloc(p, sizeof *w.cur);
  w.exch = calloc(p, sizeof *w.exch);
  w.shared = calloc(p, sizeof *w.shared);
  w.bwhat = calloc(p, sizeof *w.bwhat);
  w.force = calloc(p, sizeof *w.force);
  w.bid = calloc(p, sizeof *w.bid);
  w.stack = malloc(p * sizeof *w.stack);
  int rc = 0;
  if (!w.postround || !w.head_round || !w.head_post || !w.next || !w.pos || !w.seg_end || !w.cur ||
      !w.exch || !w.shared || !w.bwhat || !w.force || !w.bid || !w.stack) {
    rc = TUTTI_ENOMEM;
    goto out;
  }
  for (uint32_t i = 0; i < rp->nmsgs; i++)
    out[i].round = 0, w.postround[i] = -1, w.head_round[i] = w.head_post[i] = -1;
  for (int r = P - 1; r >= 0; r--) w.seg_end[r] = NONE, w.stack[w.top++] = r;
  for (;;) {
    while (w.top) walk_rank(&w, w.stack[--w.top]);
    int r = 0; /* all stopped: a circle; the lowest stopped rank goes on */
    while (r < P && w.bwhat[r] == BLK_NONE) r++;
    if (r == P) break;
    unstop(&w, r);
    w.force[r] = 1;
    w.stack[w.top++] = r;
  }
out:
  free(w.postround);
  free(w.head_round);
  free(w.head_post);
  free(w.next);
  free(w.pos);
  free(w.seg_end);
  free(w.cur);
  free(w.exch);
  free(w.shared);
  free(w.bwhat);
  free(w.force);
  free(w.bid);
  free(w.stack);
  return rc;
}

/* Sorting messages by a key (ties: id), for the port sequences. */
struct keyed {
  tutti__tu_t key;
  uint32_t id;
  uint32_t port; /* the rank whose port it is */
};

static int by_port_key(const void *a, const void *b) {
  const struct keyed *p = a, *q = b;
  if (p->port != q->port) return p->port < q->port ? -1 : 1;
  if (p->key != q->key) return p->key < q->key ? -1 : 1;
  return p->id < q->id ? -1 : p->id > q->id;
}

/* SP and RP as each message found them (see the header comment). */
static int ports(struct ex *x) {
  const struct tutti_replay *rp = x->rp;
  uint32_t n = rp->nmsgs;
  struct keyed *k = malloc((n ? n : 1) * sizeof *k);
  if (!k) return TUTTI_ENOMEM;
  for (int pass = 0; pass < 2; pass++) {
    uint32_t m = 0;
    for (uint32_t id = 0; id < n; id++) {
      const struct tutti_replay_msg *g = &rp->msgs[id];
      if (!(g->flags & RPM_STARTED)) continue;
      if (pass == 0) {
        k[m++] = (struct keyed){g->start, id, x->src[id]};
      } else if (g->flags & RPM_EAGER) {
        if (g->flags & RPM_SERVED) k[m++] = (struct keyed){g->ready, id, (uint32_t)g->dst};
      } else {
        k[m++] = (struct keyed){g->start, id, (uint32_t)g->dst};
      }
    }
    qsort(k, m, sizeof *k, by_port_key);
    tutti__tu_t *before = pass ? x->rp_before : x->sp_before;
    uint32_t *by = pass ? x->rp_by : x->sp_by;
    tutti__tu_t free_at = 0;
    uint32_t last = NONE;
    for (uint32_t i = 0; i < m; i++) {
      const struct tutti_replay_msg *g = &rp->msgs[k[i].id];
      if (i == 0 || k[i].port != k[i - 1].port) free_at = 0, last = NONE;
      before[k[i].id] = free_at;
      by[k[i].id] = last;
      tutti__tu_t end;
      if (pass == 0)
        end = tutti__tu_add(g->start, tutti__tu_cost(&x->S, wire(x, g)));
      else if (g->flags & RPM_EAGER)
        end = g->ready; /* rule 2: RP = e */
      else
        end = tutti__tu_add(g->start, tutti__tu_cost(&x->R, wire(x, g)));
      if (end >= free_at) free_at = end, last = k[i].id;
    }
  }
  free(k);
  return 0;
}

/* Why each transfer started when it did, and what an eager one waited
 * for at the receiver's port. */
static void causes(struct ex *x, tutti_msg_info_t *out) {
  const struct tutti_replay *rp = x->rp;
  for (uint32_t id = 0; id < rp->nmsgs; id++) {
    const struct tutti_replay_msg *g = &rp->msgs[id];
    tutti_msg_info_t *o = &out[id];
    o->wait = TUTTI_WAIT_NONE;
    o->blocker = o->port_blocker = -1;
    o->port_wait = 0;
    if (!(g->flags & RPM_STARTED)) continue;
    tutti__tu_t posted = x->post[id], st = g->start;
    if (g->flags & RPM_EAGER) {
      if (st > posted) o->wait = TUTTI_WAIT_SEND_PORT, o->blocker = (int)x->sp_by[id];
      if ((g->flags & RPM_SERVED) && g->ready > g->arrive) {
        o->port_wait = sec(g->ready - g->arrive);
        o->port_blocker = x->rp_by[id] == NONE ? -1 : (int)x->rp_by[id];
      }
      continue;
    }
    tutti__tu_t both = posted > g->rpost ? posted : g->rpost;
    if (st > both && st == x->sp_before[id])
      o->wait = TUTTI_WAIT_SEND_PORT, o->blocker = (int)x->sp_by[id];
    else if (st > both &&
             (rp->model.rendezvous != TUTTI_RENDEZVOUS_HANDSHAKE || st == x->rp_before[id]))
      o->wait = TUTTI_WAIT_RECV_PORT, o->blocker = (int)x->rp_by[id];
    else if (st > both) /* neither port: the clear-to-send's arrival (rule 3) */
      o->wait = TUTTI_WAIT_HANDSHAKE;
    else if (g->rpost > posted)
      o->wait = TUTTI_WAIT_RECV_POST;
    if (o->blocker == (int)NONE) o->blocker = -1;
  }
}

/* Link queues: the replay again with its hops recorded, kept for the
 * caller too (ex->hops). */
static int links(const struct tutti_replay *rp, tutti_msg_info_t *out, tutti_explain_t *ex) {
  struct tutti_replay *again = NULL;
  int rc =
      tutti__replay_run_ex(&rp->model, rp->nranks, rp->logs, TUTTI__REPLAY_HOPS, &again, NULL, 0);
  if (rc) return rc;
  double *most = calloc(rp->nmsgs ? rp->nmsgs : 1, sizeof *most);
  tutti_hop_info_t *hops = malloc((again->nhops ? again->nhops : 1) * sizeof *hops);
  if (!most || !hops) {
    free(most), free(hops);
    tutti__replay_free(again);
    return TUTTI_ENOMEM;
  }
  for (uint64_t i = 0; i < again->nhops; i++) {
    const struct tutti_replay_hop *h = &again->hops[i];
    hops[i] = (tutti_hop_info_t){h->msg, h->link, sec(h->arrive), sec(h->head), sec(h->end)};
    if (h->head <= h->arrive || h->msg >= rp->nmsgs) continue;
    double q = sec(h->head - h->arrive);
    out[h->msg].link_wait += q;
    if (q > most[h->msg]) most[h->msg] = q, out[h->msg].link = h->link;
  }
  free(most);
  ex->hops = hops;
  ex->nhops = again->nhops;
  tutti__replay_free(again);
  return 0;
}

/* The critical path of rank r: from the completion that set its final
 * clock, back through whichever term decided each time. *path (malloc'd,
 * last to first) and *n; *recv_end: its clock was last set by a receive. */
static int path_of(struct ex *x, const tutti_msg_info_t *out, int r, uint32_t **path, size_t *n,
                   int *recv_end) {
  const struct tutti_replay *rp = x->rp;
  uint64_t node = NODE_NONE;
  const struct tutti_ev *ev = rp->logs[r]->ev;
  tutti__tu_t C = 0;
  for (uint32_t i = 0; i < rp->logs[r]->n; i++) {
    if (ev[i].kind == TUTTI_EV_COMPUTE) C = tutti__tu_add(C, tutti__tu_from_s(ev[i].u.seconds));
    if (ev[i].kind == TUTTI_EV_REDUCE)
      C = tutti__tu_add(C, tutti__tu_bytes(tutti__tu_rate(rp->model.gamma), (double)ev[i].bytes));
    if (ev[i].kind != TUTTI_EV_WAIT) continue;
    tutti__tu_t done = tutti__replay_done_tu(rp, r, ev[i].ref);
    if (done != TUTTI__TU_NONE && done > C) {
      C = done;
      node = NODE(ev_msg(rp, r, ev[i].ref),
                  ev[ev[i].ref].kind == TUTTI_EV_SEND ? SIDE_START : SIDE_RECV);
    }
  }
  *recv_end = node != NODE_NONE && (node & 3) == SIDE_RECV;
  size_t cap = 64, guard = 3 * (size_t)rp->nmsgs + 3;
  *n = 0;
  *path = malloc(cap * sizeof **path);
  if (!*path) return TUTTI_ENOMEM;
  while (node != NODE_NONE && guard--) {
    uint32_t id = (uint32_t)(node >> 2);
    int side = (int)(node & 3);
    const struct tutti_replay_msg *g = &rp->msgs[id];
    if (!*n || (*path)[*n - 1] != id) {
      if (*n == cap) {
        uint32_t *p = realloc(*path, 2 * cap * sizeof *p);
        if (!p) return TUTTI_ENOMEM;
        *path = p, cap *= 2;
      }
      (*path)[(*n)++] = id;
    }
    if (side == SIDE_RECV && (g->flags & RPM_EAGER)) {
      if (g->rpost > g->ready) { /* buffered until its receiver posted */
        node = x->rpost_after[id];
        continue;
      }
      side = SIDE_SERVE;
    }
    if (side == SIDE_SERVE && out[id].port_blocker >= 0) {
      node = NODE((uint32_t)out[id].port_blocker, SIDE_SERVE);
      continue;
    }
    /* the start: what decided it */
    switch (out[id].wait) {
    case TUTTI_WAIT_SEND_PORT:
      node = NODE((uint32_t)out[id].blocker, SIDE_START);
      break;
    case TUTTI_WAIT_RECV_PORT: {
      uint32_t b = (uint32_t)out[id].blocker;
      node = b < rp->nmsgs ? NODE(b, (rp->msgs[b].flags & RPM_EAGER) ? SIDE_SERVE : SIDE_START)
                           : NODE_NONE;
      break;
    }
    case TUTTI_WAIT_RECV_POST:
      node = x->rpost_after[id];
      break;
    case TUTTI_WAIT_HANDSHAKE: /* it began at the later post */
      node = g->rpost > x->post[id] ? x->rpost_after[id] : x->post_after[id];
      break;
    default:
      node = x->post_after[id];
    }
    if (node != NODE_NONE && (node >> 2) >= rp->nmsgs) node = NODE_NONE;
  }
  return 0;
}

/* The critical path of the run: of the ranks that finished last, the one
 * whose path is longest (ties: more distinct senders on it -- a chain
 * through the tree says more than one rank's port; then a path that ends
 * in a receive; then the lowest rank). */
static int critical(struct ex *x, tutti_msg_info_t *out, tutti_explain_t *ex) {
  const struct tutti_replay *rp = x->rp;
  double T = 0;
  for (int r = 0; r < rp->nranks; r++)
    if (rp->rank_end[r] > T) T = rp->rank_end[r];
  uint32_t *best = NULL;
  size_t bn = 0;
  int bsenders = -1, brecv = 0;
  ex->last_rank = 0;
  uint8_t *seen = calloc(rp->nranks > 0 ? (size_t)rp->nranks : 1, 1);
  if (!seen) return TUTTI_ENOMEM;
  for (int r = 0; r < rp->nranks; r++) {
    if (rp->rank_end[r] != T) continue;
    uint32_t *path;
    size_t n;
    int recv_end, rc = path_of(x, out, r, &path, &n, &recv_end);
    if (rc) {
      free(path);
      free(best);
      free(seen);
      return rc;
    }
    int senders = 0;
    for (size_t i = 0; i < n; i++)
      if (!seen[out[path[i]].src]++) senders++;
    for (size_t i = 0; i < n; i++) seen[out[path[i]].src] = 0;
    if (!best || n > bn || (n == bn && senders > bsenders) ||
        (n == bn && senders == bsenders && recv_end && !brecv)) {
      free(best);
      best = path, bn = n, bsenders = senders, brecv = recv_end;
      ex->last_rank = r;
    } else {
      free(path);
    }
  }
  free(seen);
  for (size_t i = 0; i < bn / 2; i++) { /* first to last */
    uint32_t t = best[i];
    best[i] = best[bn - 1 - i];
    best[bn - 1 - i] = t;
  }
  for (size_t i = 0; i < bn; i++) out[best[i]].critical = 1;
  ex->path = best;
  ex->npath = bn;
  return 0;
}

int tutti__replay_explain(const struct tutti_replay *rp, int with_links, tutti_explain_t *ex) {
  memset(ex, 0, sizeof *ex);
  uint32_t n = rp->nmsgs;
  size_t nn = n ? n : 1;
  struct ex x = {.rp = rp};
  x.S = tutti__tu_cost_init(&rp->model.send_port);
  x.R = tutti__tu_cost_init(&rp->model.recv_port);
  tutti_msg_info_t *out = calloc(nn, sizeof *out);
  x.src = malloc(nn * sizeof *x.src);
  x.post = malloc(nn * sizeof *x.post);
  x.post_after = malloc(nn * sizeof *x.post_after);
  x.rpost_after = malloc(nn * sizeof *x.rpost_after);
  x.sp_before = malloc(nn * sizeof *x.sp_before);
  x.rp_before = malloc(nn * sizeof *x.rp_before);
  x.sp_by = malloc(nn * sizeof *x.sp_by);
  x.rp_by = malloc(nn * sizeof *x.rp_by);
  int rc = TUTTI_ENOMEM;
  if (!out || !x.src || !x.post || !x.post_after || !x.rpost_after || !x.sp_before ||
      !x.rp_before || !x.sp_by || !x.rp_by)
    goto out;
  uint32_t id = 0;
  for (int r = 0; r < rp->nranks; r++)
    for (uint64_t e = rp->evoff[r]; e < rp->evoff[r + 1]; e++)
      if (RPO_KIND(rp->ops[e]) == RPO_SEND) x.src[id++] = (uint32_t)r;
  for (uint32_t i = 0; i < n; i++) {
    x.post[i] = TUTTI__TU_NONE;
    x.post_after[i] = x.rpost_after[i] = NODE_NONE;
    x.sp_by[i] = x.rp_by[i] = NONE;
    x.sp_before[i] = x.rp_before[i] = 0;
    out[i].call = -1;
    out[i].link = -1;
  }
  for (int r = 0; r < rp->nranks; r++) walk_clocks(&x, r, out);
  if ((rc = ports(&x))) goto out;
  causes(&x, out);
  if ((rc = rounds(&x, out))) goto out;
  for (uint32_t i = 0; i < n; i++) {
    const struct tutti_replay_msg *g = &rp->msgs[i];
    tutti_msg_info_t *o = &out[i];
    o->src = (int)x.src[i];
    o->dst = g->dst;
    o->bytes = g->bytes;
    o->eager = (g->flags & RPM_EAGER) != 0;
    o->posted = sec(x.post[i]);
    o->recv_posted = (g->flags & RPM_RPOSTED) ? sec(g->rpost) : NAN;
    int started = (g->flags & RPM_STARTED) != 0;
    o->start = started ? sec(g->start) : NAN;
    o->send_done = started || (g->flags & RPM_DETACHED) ? sec(g->sdone) : NAN;
    o->send_port_free =
        started ? sec(tutti__tu_add(g->start, tutti__tu_cost(&x.S, wire(&x, g)))) : NAN;
    o->arrive = started && !(g->flags & RPM_TRANSIT) ? sec(g->arrive) : NAN;
    o->done = (g->flags & RPM_RDONE) ? sec(g->rdone) : NAN;
  }
  for (int r = 0; r < rp->nranks; r++) /* tags from the sends' events */
    for (uint32_t i = 0; i < rp->logs[r]->n; i++)
      if (rp->logs[r]->ev[i].kind == TUTTI_EV_SEND && (id = ev_msg(rp, r, i)) != NONE)
        out[id].tag = rp->logs[r]->ev[i].tag;
  if (with_links && rp->model.topo && (rc = links(rp, out, ex))) goto out;
  if ((rc = critical(&x, out, ex)) || (rc = tutti__explain_states(rp, out, n, ex))) goto out;
  ex->msgs = out;
  ex->nmsgs = n;
  out = NULL;
  rc = 0;
out:
  if (rc) { /* nothing of a failed explanation is the caller's */
    free(ex->hops);
    free(ex->path);
    memset(ex, 0, sizeof *ex);
  }
  free(out);
  free(x.src);
  free(x.post);
  free(x.post_after);
  free(x.rpost_after);
  free(x.sp_before);
  free(x.rp_before);
  free(x.sp_by);
  free(x.rp_by);
  return rc;
}

int tutti_world_explain(const tutti_world_t *w, tutti_explain_t *out) {
  if (!w || !out) return TUTTI_EINVAL;
  memset(out, 0, sizeof *out);
  if (w->running) return TUTTI_EBUSY;
  if (!w->replay) return TUTTI_ENOTSUP;
  return tutti__replay_explain(w->replay, 1, out);
}

void tutti_explain_free(tutti_explain_t *ex) {
  if (!ex) return;
  free(ex->msgs);
  free(ex->path);
  free(ex->hops);
  free(ex->spans);
  memset(ex, 0, sizeof *ex);
}

/*
 * replay_prep.c -- the replay's preparation: check the model and the
 * topology, then read every rank's log once to check it and turn it into
 * what the simulation (replay.c) reads -- an 8-byte op per event, the
 * messages numbered in each sender's order with every RECV and WAIT naming
 * its message, the spans as calls -- and, with a topology, find the links
 * that carry one rank's messages only. Every error names the rank and the
 * event; the first in rank and event order is the one reported. The logs
 * are read, never written. With millions of events the pass runs on one
 * thread per CPU (first touching memory is most of its cost). What it
 * makes, tutti__replay_free frees.
 */
#include "replay_sim.h"

#include "replay_fair.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define OP(kind, peer, id) ((uint64_t)(id) << 32 | (uint64_t)(uint32_t)(peer) << 8 | (kind))

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

/* ------------------------------------------------------------ validation */

static int names_equal(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

static int line_ok(double floor, double a, double b) {
  return isfinite(floor) && isfinite(a) && isfinite(b) && (floor >= 0 || (a >= 0 && b >= 0));
}

/* A constant the time base can hold (runtime/MODEL.md "Time base"). */
static int in_range(double seconds) {
  return fabs(seconds) < TUTTI__TU_MAX_S;
}

/* 0, 1 (negative or not finite) or 2 (beyond the time base), over every
 * piece of c. */
static int cost_bad(const tutti_cost_t *c) {
  if (c->pieces > TUTTI_COST_PIECES) return 1;
  for (size_t k = 0; k <= c->pieces; k++) { /* 0: the piece from 0 bytes */
    const tutti_cost_piece_t *p = &c->piece[k ? k - 1 : 0];
    double f = k ? p->floor : c->floor, a = k ? p->a : c->a, b = k ? p->b : c->b;
    if (!line_ok(f, a, b)) return 1;
    if (!in_range(a) || !in_range(f)) return 2;
  }
  return 0;
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
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    const tutti_cost_t *c = (const tutti_cost_t *)((const char *)m + f[i].off);
    int bad = cost_bad(c);
    if (bad == 1)
      return fail(s, TUTTI_EINVAL, "model cost %s can be negative or is not finite", f[i].name);
    if (bad == 2)
      return fail(s, TUTTI_EINVAL,
                  "model cost %s: a constant beyond the time base's range (%.4g s, 2^62 ps)",
                  f[i].name, TUTTI__TU_MAX_S);
  }
  if (!isfinite(m->gamma) || m->gamma < 0)
    return fail(s, TUTTI_EINVAL, "model gamma %g is negative or not finite", m->gamma);
  if (m->sharing != TUTTI_SHARING_FIFO && m->sharing != TUTTI_SHARING_FAIR)
    return fail(s, TUTTI_EINVAL, "model sharing %d is neither fifo (0) nor fair (1)", m->sharing);
  /* converted once (runtime/MODEL.md "Time base") */
  s->send_cpu = rp_cost_init(&m->send_cpu);
  s->send_port = rp_cost_init(&m->send_port);
  s->latency = rp_cost_init(&m->latency);
  s->recv_port = rp_cost_init(&m->recv_port);
  s->recv_cpu = rp_cost_init(&m->recv_cpu);
  s->gamma = tutti__tu_rate(m->gamma);
  s->hdr = m->header;
  s->handshake = m->rendezvous == TUTTI_RENDEZVOUS_HANDSHAKE;
  s->ctl = rp_cost(&s->latency, m->header);
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

/* ------------------------------------------------------- indexing the logs */

/* The messages are numbered in (sender, send order) order, and a SEND's
 * ref is its ordinal in its log (tutti__evlog_push), so rank r's k-th
 * send is message first[r] + k -- known before any log is read: one pass
 * indexes every log, each rank's independently of the others. A RECV
 * reads the SEND it names (one line of the sender's log) and marks it in
 * a bitmap of received messages (one bit a message, which stays in
 * cache), so a message is received once; its own record is written by
 * its sender, whole, so the array needs no zeroing. */
struct pass {
  struct sim *s; /* what is read: s->rp, s->ranks, first, calls' names */
  const uint64_t *first;
  uint64_t *recvd; /* the bitmap, shared */
  int r0, r1;
  int shared;            /* other threads set bits of recvd too: atomic */
  uint64_t eager, bytes; /* of its ranks' sends */
  pthread_t by;          /* the thread that ran it */
  double cpu;            /* and that thread's CPU seconds in it */
  struct sim e;          /* its errors */
  char errbuf[512];
};

/* Mark message id received; 1 if it was already. */
static int received(struct pass *x, uint32_t id) {
  uint64_t bit = UINT64_C(1) << (id & 63), *w = &x->recvd[id >> 6];
  if (x->shared) return (__atomic_fetch_or(w, bit, __ATOMIC_RELAXED) & bit) != 0;
  uint64_t old = *w;
  *w = old | bit;
  return (old & bit) != 0;
}

#define PASS_FAIL(...) return (void)fail(e, TUTTI_EINVAL, __VA_ARGS__)

/* Ranks [r0, r1): check every event and write its op (and a SEND's
 * message); spans must match rank 0's (the calls, named beforehand).
 * Errors go to x->e: the first of the range, in rank and event order. */
static void index_range(struct pass *x) {
  struct sim *s = x->s, *e = &x->e;
  struct tutti_replay *rp = s->rp;
  int P = rp->nranks;
  size_t lim = s->m->eager_limit, detached = s->m->detached_limit;
  for (int r = x->r0; r < x->r1; r++) {
    const struct rp_rank *R = &s->ranks[r];
    const struct tutti_ev *ev = R->ev;
    uint64_t *op = rp->ops + rp->evoff[r];
    uint64_t id = x->first[r]; /* its next send's message */
    int k = 0, open = 0;
    for (uint32_t i = 0; i < R->n; i++) {
      const struct tutti_ev *v = &ev[i];
      /* a receive ahead reads its sender's log at random: fetch it now */
      if (i + 16 < R->n && ev[i + 16].kind == TUTTI_EV_RECV) {
        const struct tutti_ev *f = &ev[i + 16];
        if (f->peer >= 0 && f->peer < P && f->ref < s->ranks[f->peer].n)
          __builtin_prefetch(&s->ranks[f->peer].ev[f->ref]);
      }
      switch (v->kind) {
      case TUTTI_EV_SEND: {
        if (v->peer < 0 || v->peer >= P)
          PASS_FAIL("rank %d event %u: SEND to rank %d, out of range 0..%d", r, i, (int)v->peer,
                    P - 1);
        if (v->ref != id - x->first[r])
          PASS_FAIL("rank %d event %u: SEND numbered %u, but it is send %llu of the log", r, i,
                    v->ref, (unsigned long long)(id - x->first[r]));
        /* the protocol by the payload, not the header (runtime/MODEL.md) */
        int eager = lim == TUTTI_EAGER_ALL || v->bytes < (uint64_t)lim;
        unsigned proto = eager ? RPM_EAGER : v->bytes < (uint64_t)detached ? RPM_DETACHED : 0;
        s->msgs[id] = (struct tutti_replay_msg){.start = TUTTI__TU_NONE,
                                                .arrive = TUTTI__TU_NONE,
                                                .ready = TUTTI__TU_NONE,
                                                .sdone = TUTTI__TU_NONE,
                                                .rpost = TUTTI__TU_NONE,
                                                .rdone = TUTTI__TU_NONE,
                                                .bytes = v->bytes,
                                                .dst = v->peer,
                                                .flags = (uint16_t)proto};
        x->eager += (uint64_t)eager;
        x->bytes += v->bytes;
        op[i] = OP(RPO_SEND, 0, id++);
        break;
      }
      case TUTTI_EV_RECV: {
        /* failed, or never matched (ref still UINT32_MAX): skipped */
        op[i] = OP(RPO_NOP, 0, 0);
        if ((v->flags & TUTTI_EVF_FAILED) || v->ref == UINT32_MAX) break;
        int src = v->peer;
        if (src < 0 || src >= P)
          PASS_FAIL("rank %d event %u: RECV from rank %d, out of range 0..%d", r, i, src, P - 1);
        const struct rp_rank *S = &s->ranks[src];
        if (v->ref >= S->n)
          PASS_FAIL("rank %d event %u: RECV names event %u of rank %d, which has %u events", r, i,
                    v->ref, src, S->n);
        const struct tutti_ev *se = &S->ev[v->ref];
        if (se->kind != TUTTI_EV_SEND || se->peer != r || se->tag != v->tag ||
            se->bytes != v->bytes)
          PASS_FAIL("rank %d event %u: RECV (tag %d, %llu B) names event %u of rank %d, which "
                    "is not a SEND to rank %d with that tag and size",
                    r, i, (int)v->tag, (unsigned long long)v->bytes, v->ref, src, r);
        if (se->ref >= rp->logs[src]->nsend) /* its own pass fails it too */
          PASS_FAIL("rank %d event %u: RECV names event %u of rank %d, a SEND numbered %u of %u", r,
                    i, v->ref, src, se->ref, rp->logs[src]->nsend);
        uint32_t mid = (uint32_t)(x->first[src] + se->ref);
        if (received(x, mid))
          PASS_FAIL("rank %d event %u: RECV names event %u of rank %d, already received", r, i,
                    v->ref, src);
        op[i] = OP(RPO_RECV, src, mid);
        break;
      }
      case TUTTI_EV_WAIT: {
        if (v->ref >= i)
          PASS_FAIL("rank %d event %u: WAIT on event %u, not an earlier one", r, i, v->ref);
        if (ev[v->ref].kind != TUTTI_EV_SEND && ev[v->ref].kind != TUTTI_EV_RECV)
          PASS_FAIL("rank %d event %u: WAIT on event %u, a %s", r, i, v->ref,
                    kind_name(ev[v->ref].kind));
        uint64_t w = op[v->ref]; /* its SEND or RECV, done already */
        op[i] = RPO_KIND(w) == RPO_NOP
                    ? w
                    : OP(RPO_KIND(w) == RPO_SEND ? RPO_WAIT_SEND : RPO_WAIT_RECV, 0, RPO_ID(w));
        break;
      }
      case TUTTI_EV_COMPUTE:
        if (!isfinite(v->u.seconds) || v->u.seconds < 0)
          PASS_FAIL("rank %d event %u: COMPUTE of %g s", r, i, v->u.seconds);
        op[i] = OP(RPO_COMPUTE, 0, 0);
        break;
      case TUTTI_EV_REDUCE: /* the size in the op, unless it is huge */
        op[i] = v->bytes < (UINT64_C(1) << 56) ? (v->bytes << 8 | RPO_REDUCE)
                                               : OP(RPO_REDUCE_LOG, 0, 0);
        break;
      case TUTTI_EV_SPAN_BEGIN:
        if (open)
          PASS_FAIL("rank %d event %u: span '%s' begins inside span '%s'", r, i, nm(v->u.name),
                    nm(rp->calls[k].name));
        if (k >= rp->ncalls) PASS_FAIL("rank %d opens more spans than rank 0 (%d)", r, rp->ncalls);
        if (!names_equal(rp->calls[k].name, v->u.name))
          PASS_FAIL("rank %d: call %d is '%s', but '%s' on rank 0", r, k, nm(v->u.name),
                    nm(rp->calls[k].name));
        open = 1;
        op[i] = OP(RPO_SPAN_BEGIN, 0, 0);
        break;
      case TUTTI_EV_SPAN_END:
        if (!open) PASS_FAIL("rank %d event %u: span end outside a span", r, i);
        open = 0;
        k++;
        op[i] = OP(RPO_SPAN_END, 0, 0);
        break;
      default:
        PASS_FAIL("rank %d event %u: unknown event kind %d", r, i, v->kind);
      }
    }
    if (id - x->first[r] != rp->logs[r]->nsend)
      PASS_FAIL("rank %d: its log counts %u sends but holds %llu", r, rp->logs[r]->nsend,
                (unsigned long long)(id - x->first[r]));
    if (open) PASS_FAIL("rank %d: span '%s' never ends", r, nm(rp->calls[k].name));
    if (k != rp->ncalls) PASS_FAIL("rank %d has %d calls (spans), rank 0 has %d", r, k, rp->ncalls);
  }
}

/* A part of the pass, on whichever thread tutti__run_wide gives it, with
 * that thread's CPU time: the replay's CPU is every thread's. */
static void *index_ranks(void *arg) {
  struct pass *x = arg;
  double c0 = tutti__thread_cpu();
  x->by = pthread_self();
  index_range(x);
  x->cpu = tutti__thread_cpu() - c0;
  return NULL;
}

/* Up to this many threads share the pass. */
enum { WIDE_MAX = 8 };

static int wide_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > WIDE_MAX ? WIDE_MAX : (int)n;
}

/* The pass on one thread per CPU (up to 8), each a range of ranks with
 * about as many events, when there are millions of events: it is the
 * first read of the logs by this thread, and under a hypervisor a first
 * read of pages another thread wrote may cost a fault each, which the
 * CPUs then take in parallel. The first error in rank order is the one
 * reported, however the ranks are cut. */
uint64_t tutti__replay_wide_events = UINT64_C(4) << 20;

static int index_all(struct sim *s, const uint64_t *first) {
  struct tutti_replay *rp = s->rp;
  int P = rp->nranks, n = rp->events < tutti__replay_wide_events ? 1 : wide_threads();
  if (n > P) n = P;
  struct pass one, *x = n == 1 ? &one : calloc((size_t)n, sizeof *x); /* heap: wide only */
  if (!x) return fail(s, TUTTI_ENOMEM, "out of memory");
  for (int k = 0, r = 0; k < n; k++) { /* cut where the events reach k+1 n-ths */
    x[k] = (struct pass){.s = s, .first = first, .recvd = s->recvd, .r0 = r, .shared = n > 1};
    x[k].e = (struct sim){.errbuf = x[k].errbuf, .errlen = sizeof x[k].errbuf};
    uint64_t cut = rp->events * (uint64_t)(k + 1) / (uint64_t)n;
    while (r < P && (k == n - 1 || rp->evoff[r + 1] <= cut)) r++;
    x[k].r1 = r;
  }
  tutti__run_wide(index_ranks, x, sizeof *x, n);
  int rc = 0;
  pthread_t me = pthread_self();
  for (int k = 0; k < n; k++) /* the helpers' CPU; the caller's own counts already */
    if (!pthread_equal(x[k].by, me)) s->helper_cpu += x[k].cpu;
  for (int k = 0; k < n; k++) {
    if (x[k].e.err) {
      rc = fail(s, x[k].e.err, "%s", x[k].errbuf);
      break;
    }
    rp->eager += x[k].eager;
    rp->bytes += x[k].bytes;
  }
  if (x != &one) free(x);
  rp->rendezvous = rp->messages - rp->eager;
  return rc;
}

/* The calls: rank 0's spans, by name (every rank's must match them). */
static int name_calls(struct sim *s) {
  struct tutti_replay *rp = s->rp;
  const struct rp_rank *R = &s->ranks[0];
  for (uint32_t i = 0; i < R->n; i++) rp->ncalls += R->ev[i].kind == TUTTI_EV_SPAN_BEGIN;
  if (!rp->ncalls) return 0;
  size_t P = (size_t)rp->nranks;
  rp->calls = calloc((size_t)rp->ncalls, sizeof *rp->calls);
  s->calls = calloc((size_t)rp->ncalls, sizeof *s->calls);
  s->last_call = calloc(P, sizeof *s->last_call);
  if (!rp->calls || !s->calls || !s->last_call) return TUTTI_ENOMEM;
  rp->state_bytes +=
      (size_t)rp->ncalls * (sizeof *rp->calls + sizeof *s->calls) + P * sizeof *s->last_call;
  for (uint32_t i = 0, k = 0; i < R->n; i++)
    if (R->ev[i].kind == TUTTI_EV_SPAN_BEGIN) {
      rp->calls[k].name = R->ev[i].u.name;
      s->calls[k++] = (struct rp_call){TUTTI__TU_INF, TUTTI__TU_NONE, TUTTI__TU_NONE};
    }
  return 0;
}

/* With a topology: which links carry the messages of one rank only. Such a
 * link sees its messages arrive in the order they left the link before
 * (link_hop), so the replay crosses it without a queue trip -- every
 * sender's own leaf link, and often the receiver's. One route per run of
 * sends to the same destination: O(events + such runs * depth). */
static int mark_owners(struct sim *s) {
  const tutti_topo_t *t = s->topo;
  int nl = tutti_topo_nlinks(t), depth = tutti_topo_depth(t), cap = 2 * (depth > 0 ? depth : 0) + 1;
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

/* ------------------------------------------------------------------ all */

int tutti__replay_prepare(struct sim *s, const tutti_model_t *m, int nranks,
                          const struct tutti_evlog *const logs[], unsigned flags) {
  if (nranks > RPO_MAX_RANKS)
    return fail(s, TUTTI_EINVAL, "%d ranks: the replay handles at most %d", nranks, RPO_MAX_RANKS);
  s->m = m;
  if (check_model(s, m)) return s->err;
  if (m->topo && check_topo(s, m->topo, nranks)) return s->err;

  struct tutti_replay *rp = calloc(1, sizeof *rp);
  if (!rp) return fail(s, TUTTI_ENOMEM, "out of memory");
  s->rp = rp;
  rp->nranks = nranks;
  rp->model = *m;
  size_t P = (size_t)nranks;
  rp->logs = calloc(P, sizeof *rp->logs);
  /* evoff, then each rank's first message (while preparing) */
  rp->evoff = calloc(2 * (P + 1), sizeof *rp->evoff);
  rp->rank_last_call = calloc(P, sizeof *rp->rank_last_call);
  rp->rank_end = calloc(P, sizeof *rp->rank_end);
  if (!rp->logs || !rp->evoff || !rp->rank_last_call || !rp->rank_end) goto nomem;
  uint64_t nev = 0, nmsgs = 0, *first = rp->evoff + P + 1;
  for (int r = 0; r < nranks; r++) {
    static const struct tutti_evlog empty;
    const struct tutti_evlog *L = logs[r] ? logs[r] : &empty;
    rp->logs[r] = L;
    rp->evoff[r] = nev;
    first[r] = nmsgs;
    nev += L->n;
    nmsgs += L->nsend;
  }
  rp->evoff[P] = nev;
  rp->events = nev;
  if (nmsgs >= NONE)
    return fail(s, TUTTI_EINVAL, "more than %u messages: too many for the replay", NONE - 1);
  rp->nmsgs = (uint32_t)nmsgs;
  rp->messages = nmsgs;
  /* the ranks' state and, behind it, the bitmap of received messages:
   * one block, freed when the simulation ends */
  size_t words = (size_t)(nmsgs + 63) / 64;
  s->ranks = calloc(1, P * sizeof *s->ranks + words * sizeof *s->recvd);
  rp->ops = big_alloc(nev * sizeof *rp->ops);
  rp->msgs = s->msgs = big_alloc(nmsgs * sizeof *rp->msgs);
  if (!s->ranks || !rp->ops || !rp->msgs) goto nomem;
  s->recvd = (uint64_t *)(s->ranks + P);
  rp->state_bytes = sizeof *rp +
                    P * (sizeof *rp->logs + 2 * sizeof *rp->evoff + sizeof *rp->rank_last_call +
                         sizeof *rp->rank_end + sizeof *s->ranks) +
                    words * sizeof *s->recvd + nev * sizeof *rp->ops + nmsgs * sizeof *rp->msgs;
  for (int r = 0; r < nranks; r++) {
    struct rp_rank *R = &s->ranks[r];
    R->ev = rp->logs[r]->ev;
    R->op = rp->ops + rp->evoff[r];
    R->n = rp->logs[r]->n;
    R->wait_msg = NONE;
  }
  int rc = name_calls(s);
  if (!rc) rc = index_all(s, first);
  if (rc == TUTTI_ENOMEM) goto nomem;
  if (rc) return s->err;
  if (m->topo) {
    if (tutti_linkset_create(m->topo, &rp->links)) goto nomem;
    s->topo = m->topo;
    s->links = rp->links;
    s->L0 = rp_cost(&s->latency, 0);
    s->record = (flags & TUTTI__REPLAY_HOPS) != 0;
    rp->state_bytes += (size_t)tutti_topo_nlinks(m->topo) * 72; /* topo/README.md */
    if (mark_owners(s)) goto nomem;
  }
  if (m->sharing == TUTTI_SHARING_FAIR) { /* the flows share; no port holds a message */
    static const tutti_cost_t zero;
    s->send_port = s->recv_port = rp_cost_init(&zero);
    if (tutti__fair_create(s)) goto nomem;
  }
  return 0;
nomem:
  return fail(s, TUTTI_ENOMEM, "out of memory (%llu events)", (unsigned long long)rp->events);
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

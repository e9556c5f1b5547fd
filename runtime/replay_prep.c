/*
 * replay_prep.c -- the replay's preparation: check the model and the
 * topology, then read every rank's log twice to check it and turn it into
 * what the simulation (replay.c) reads -- an 8-byte op per event, the
 * messages numbered in each sender's order with every RECV and WAIT naming
 * its message, the spans as calls -- and, with a topology, find the links
 * that carry one rank's messages only. Every error names the rank and the
 * event. The logs are read, never written. With millions of events the
 * first pass (the first write of the ops) and the zeroing of the message
 * array run on one thread per CPU (first touching memory is most of their
 * cost; see zero_wide).
 */
#include "replay_sim.h"

#include <math.h>
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
  /* converted once (runtime/MODEL.md "Time base") */
  s->send_cpu = rp_cost_init(&m->send_cpu);
  s->send_port = rp_cost_init(&m->send_port);
  s->latency = rp_cost_init(&m->latency);
  s->recv_port = rp_cost_init(&m->recv_port);
  s->recv_cpu = rp_cost_init(&m->recv_cpu);
  s->gamma = tutti__tu_rate(m->gamma);
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

/* Up to this many threads share the first touch of the replay's memory. */
enum { WIDE_MAX = 8 };

static int wide_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > WIDE_MAX ? WIDE_MAX : (int)n;
}

/* Zeroing a big array on every CPU at once. The first write to a page is
 * most of what the array costs -- the kernel clears the page, and under a
 * hypervisor a fault of the host may come with it -- so the replay's
 * arrays are first touched by one thread per CPU (below 64 MiB by this one
 * alone). */
struct zpart {
  char *p;
  size_t n;
};

static void *zero_part(void *arg) {
  struct zpart *z = arg;
  memset(z->p, 0, z->n);
  return NULL;
}

static void zero_wide(void *p, size_t bytes) {
  int n = bytes < ((size_t)64 << 20) ? 1 : wide_threads();
  struct zpart z[WIDE_MAX];
  size_t chunk = bytes / (size_t)n & ~(size_t)4095;
  for (int k = 0; k < n; k++)
    z[k] = (struct zpart){(char *)p + (size_t)k * chunk,
                          k == n - 1 ? bytes - (size_t)k * chunk : chunk};
  tutti__run_wide(zero_part, z, sizeof *z, n);
}

/* ------------------------------------------------------- indexing the logs */

/* Pass 1 over ranks [r0, r1): build the ops of everything but RECV and
 * WAIT, number the messages from 0 in the range (in each sender's log
 * order), check local references, count rank 0's spans (the calls).
 * Errors go to e, the first in rank order. */
struct pass1 {
  struct sim *s; /* what is read: s->rp, s->ranks */
  int r0, r1;
  uint64_t nmsgs; /* sends in the range */
  int ncalls;
  struct sim e; /* its errors */
  char errbuf[512];
};

static void *prepare_local(void *arg) {
  struct pass1 *x = arg;
  struct sim *s = x->s, *e = &x->e;
  int P = s->rp->nranks;
  uint64_t nmsgs = 0;
  for (int r = x->r0; r < x->r1; r++) {
    struct rp_rank *R = &s->ranks[r];
    uint64_t *op = s->rp->ops + s->rp->evoff[r];
    for (uint32_t i = 0; i < R->n; i++) {
      const struct tutti_ev *v = &R->ev[i];
      switch (v->kind) {
      case TUTTI_EV_SEND:
        if (v->peer < 0 || v->peer >= P)
          return fail(e, TUTTI_EINVAL, "rank %d event %u: SEND to rank %d, out of range 0..%d", r,
                      i, (int)v->peer, P - 1),
                 NULL;
        if (nmsgs >= NONE)
          return fail(e, TUTTI_EINVAL, "more than %u messages: too many for the replay", NONE - 1),
                 NULL;
        op[i] = OP(RPO_SEND, 0, nmsgs++);
        break;
      case TUTTI_EV_RECV:
        op[i] = OP(RPO_NOP, 0, 0); /* pass 2 */
        break;
      case TUTTI_EV_WAIT:
        if (v->ref >= i)
          return fail(e, TUTTI_EINVAL, "rank %d event %u: WAIT on event %u, not an earlier one", r,
                      i, v->ref),
                 NULL;
        if (R->ev[v->ref].kind != TUTTI_EV_SEND && R->ev[v->ref].kind != TUTTI_EV_RECV)
          return fail(e, TUTTI_EINVAL, "rank %d event %u: WAIT on event %u, a %s", r, i, v->ref,
                      kind_name(R->ev[v->ref].kind)),
                 NULL;
        op[i] = OP(RPO_NOP, 0, 0); /* pass 2 */
        break;
      case TUTTI_EV_COMPUTE:
        if (!isfinite(v->u.seconds) || v->u.seconds < 0)
          return fail(e, TUTTI_EINVAL, "rank %d event %u: COMPUTE of %g s", r, i, v->u.seconds),
                 NULL;
        op[i] = OP(RPO_COMPUTE, 0, 0);
        break;
      case TUTTI_EV_REDUCE: /* the size in the op, unless it is huge */
        op[i] = v->bytes < (UINT64_C(1) << 56) ? (v->bytes << 8 | RPO_REDUCE)
                                               : OP(RPO_REDUCE_LOG, 0, 0);
        break;
      case TUTTI_EV_SPAN_BEGIN:
        if (r == 0) x->ncalls++;
        op[i] = OP(RPO_SPAN_BEGIN, 0, 0);
        break;
      case TUTTI_EV_SPAN_END:
        op[i] = OP(RPO_SPAN_END, 0, 0);
        break;
      default:
        return fail(e, TUTTI_EINVAL, "rank %d event %u: unknown event kind %d", r, i, v->kind),
               NULL;
      }
    }
  }
  x->nmsgs = nmsgs;
  return NULL;
}

/* Pass 1 on one thread per CPU (up to 8), each a range of ranks with
 * about as many events, when there are millions of events: it is the
 * first read of the logs by this thread, and under a hypervisor a first
 * read of pages another thread wrote may cost a fault each, which the
 * CPUs then take in parallel. Then each range's message numbers move up by the sends of the ranges
 * before it, and the first error in rank order is the one reported. */
uint64_t tutti__replay_wide_events = UINT64_C(4) << 20;

static int prepare_local_all(struct sim *s, uint64_t *nmsgs_out) {
  struct tutti_replay *rp = s->rp;
  int P = rp->nranks, n = rp->events < tutti__replay_wide_events ? 1 : wide_threads();
  if (n > P) n = P;
  struct pass1 *x = calloc((size_t)n, sizeof *x);
  if (!x) return fail(s, TUTTI_ENOMEM, "out of memory");
  for (int k = 0, r = 0; k < n; k++) { /* cut where the events reach k+1 n-ths */
    x[k].s = s, x[k].r0 = r;
    x[k].e = (struct sim){.errbuf = x[k].errbuf, .errlen = sizeof x[k].errbuf};
    uint64_t cut = rp->events * (uint64_t)(k + 1) / (uint64_t)n;
    while (r < P && (k == n - 1 || rp->evoff[r + 1] <= cut)) r++;
    x[k].r1 = r;
  }
  tutti__run_wide(prepare_local, x, sizeof *x, n);
  uint64_t base = 0;
  int rc = 0;
  for (int k = 0; k < n && !rc; k++) {
    if (x[k].e.err) {
      rc = fail(s, x[k].e.err, "%s", x[k].errbuf);
      break;
    }
    rp->ncalls += x[k].ncalls;
    if (base + x[k].nmsgs >= NONE) {
      rc = fail(s, TUTTI_EINVAL, "more than %u messages: too many for the replay", NONE - 1);
      break;
    }
    if (base) /* the range's sends numbered from 0: move them up */
      for (uint64_t i = rp->evoff[x[k].r0]; i < rp->evoff[x[k].r1]; i++)
        if (RPO_KIND(rp->ops[i]) == RPO_SEND) rp->ops[i] += base << 32;
    base += x[k].nmsgs;
  }
  free(x);
  *nmsgs_out = base;
  return rc;
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
        msg->start = msg->arrive = msg->ready = TUTTI__TU_NONE;
        msg->sdone = msg->rpost = msg->rdone = TUTTI__TU_NONE;
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
          rp->calls[k].name = e->u.name;
          s->calls[k] = (struct rp_call){TUTTI__TU_INF, TUTTI__TU_NONE, TUTTI__TU_NONE};
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
  rp->evoff = calloc(P + 1, sizeof *rp->evoff);
  rp->rank_last_call = calloc(P, sizeof *rp->rank_last_call);
  rp->rank_end = calloc(P, sizeof *rp->rank_end);
  s->ranks = calloc(P, sizeof *s->ranks);
  if (!rp->logs || !rp->evoff || !rp->rank_last_call || !rp->rank_end || !s->ranks) goto nomem;
  rp->state_bytes =
      sizeof *rp + P * (sizeof *rp->logs + sizeof *rp->evoff + sizeof *rp->rank_last_call +
                        sizeof *rp->rank_end + sizeof *s->ranks);

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
    struct rp_rank *R = &s->ranks[r];
    R->ev = rp->logs[r]->ev;
    R->op = rp->ops + rp->evoff[r];
    R->n = rp->logs[r]->n;
    R->wait_msg = NONE;
  }
  if (prepare_local_all(s, &nmsgs)) return s->err;
  rp->nmsgs = (uint32_t)nmsgs;
  rp->messages = nmsgs;
  rp->msgs = s->msgs = big_alloc(nmsgs * sizeof *rp->msgs);
  if (!rp->msgs) goto nomem;
  zero_wide(rp->msgs, nmsgs * sizeof *rp->msgs);
  rp->state_bytes += nmsgs * sizeof *rp->msgs;
  if (rp->ncalls) {
    rp->calls = calloc((size_t)rp->ncalls, sizeof *rp->calls);
    s->calls = calloc((size_t)rp->ncalls, sizeof *s->calls);
    s->last_call = calloc(P, sizeof *s->last_call);
    if (!rp->calls || !s->calls || !s->last_call) goto nomem;
    rp->state_bytes +=
        (size_t)rp->ncalls * (sizeof *rp->calls + sizeof *s->calls) + P * sizeof *s->last_call;
  }
  if (prepare_links(s)) return s->err;
  if (m->topo) {
    if (tutti_linkset_create(m->topo, &rp->links)) goto nomem;
    s->topo = m->topo;
    s->links = rp->links;
    s->L0 = rp_cost(&s->latency, 0);
    s->record = (flags & TUTTI__REPLAY_HOPS) != 0;
    rp->state_bytes += (size_t)tutti_topo_nlinks(m->topo) * 72; /* topo/README.md */
    if (mark_owners(s)) goto nomem;
  }
  return 0;
nomem:
  return fail(s, TUTTI_ENOMEM, "out of memory (%llu events)", (unsigned long long)rp->events);
}

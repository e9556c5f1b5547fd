/*
 * replay_fair.c -- sharing = fair (runtime/MODEL.md "Sharing"): messages
 * as flows that share the bandwidth of what they cross max-min fairly, as
 * SimGrid's flow models do (CM02/LV08 without TCP's window), instead of
 * the ports' and links' one message at a time.
 *
 * A message's transfer, from its start s (rules 1 and 3), has two phases:
 *   latency   not shared: without a topology L(m) - W, with one L(0) plus
 *             the latencies of its path's links;
 *   bandwidth its m bytes cross its resources -- without a topology its
 *             sender's send port and its receiver's receive port, at the
 *             per-byte terms of S(m) and R(m); with one every link of its
 *             path, at beta_l -- at the max-min fair rate.
 * W = round(m * b_max), b_max the largest per-byte term on its way, is
 * what the bandwidth phase takes alone, so one message on an idle way
 * costs exactly what fifo gives: L(m) (while L(m) >= W), or the path's
 * L(0) + sum lat_l + max_l round(m beta_l).
 *
 * Max-min by progressive filling, in per-byte times (units per byte, the
 * inverse of a rate, so that a flow alone gets exactly b_max): a resource
 * with capacity `cap` left (1 when empty) and unfrozen flows of per-byte
 * terms summing to `weight` would give each p = weight / cap; the largest
 * p (the slowest, the bottleneck) is taken first, its unfrozen flows are
 * frozen at it, and their use b / p comes off the capacity of their other
 * resources; and so on until every flow is frozen. Ties: the lower
 * resource id first. A value below the last level (possible only by
 * rounding) is raised to it.
 *
 * When: rates change only when a flow starts or ends its bandwidth phase,
 * and only within the connected component of the resources that flow
 * touches (flows linked by shared resources); the rest keep their rates
 * and their predicted ends. The starts and ends of one instant t are
 * applied first and seed one refill, an activity queued after every
 * other at t (REFILL_KEY), so a rank posting n sends at once costs one
 * refill, not n. Each flow keeps (anchor, rem, p): rem bytes
 * left at time anchor at p units per byte; its end is anchor +
 * round(rem * p). When its p changes at t, rem -= (t - anchor) / p_old
 * (not below 0), anchor = t, and the end is predicted anew; a flow whose
 * p does not change keeps its end to the unit. A predicted end is a PORT
 * activity of the message at that time; a superseded one is ignored when
 * it comes up (the message's arrive holds the current prediction). A flow
 * predicted to end at t when a change comes at t keeps that end.
 *
 * Determinism: everything is a function of the replay's order of events,
 * which is fixed (the queue's key); the double operations run in one
 * fixed order (flows and resources in the order the component search
 * finds them, which follows the lists' insertion order), so a run is
 * bit-identical under any thread interleaving of the recorded run.
 *
 * Complexity: a refill costs O((R_c + F_c k) log(R_c + F_c k)) for a
 * component of R_c resources and F_c flows of at most k resources each
 * (the heap of the filling); a start adds one activity to the queue, an
 * instant with changes one, and every flow whose rate changes one more.
 * So the replay stays linear in events times log while messages share in
 * small groups, and is quadratic in the number of flows that share one
 * component at once (n messages through one port, ending at n instants:
 * n refills, each touching all of them).
 *
 * Memory: per flow slot (the most flows in flight at once) 64 B and
 * 24 B for each resource of the longest way (2 without a topology, twice
 * the depth with one); per resource about 40 B (2 per rank without a
 * topology, one per link with one); the filling's heap.
 */
#include "replay_fair.h"

#include "replay_queue.h"

#include <math.h>
#include <stdlib.h>

#define tadd tutti__tu_add

struct fres {     /* a resource: a port or a link */
  uint32_t head;  /* its first member (NONE: no flow crosses it) */
  uint32_t stamp; /* the last search that found it */
  uint32_t nunf;  /* in a filling: its flows not frozen yet */
  uint32_t ver;   /* in a filling: heap entries of another version are stale */
  double cap;     /* in a filling: capacity left, 1 = all of it */
  double weight;  /* in a filling: the per-byte terms of its unfrozen flows */
};

struct fmem {               /* a flow's use of one resource */
  uint32_t res, prev, next; /* prev, next: in res's list of members */
  double b;                 /* the flow's per-byte term there, units per byte */
};

struct fflow {
  uint32_t msg, stamp; /* stamp: the last search that found it */
  int32_t src;
  uint16_t k; /* its resources: members[slot * maxk ..][0..k) */
  uint8_t frozen;
  tutti__tu_t anchor, end;
  tutti__tu_t t0;      /* its bandwidth phase began */
  double rem, p, pnew; /* bytes left at anchor; units per byte (0: new) */
};

struct hitem { /* the filling's heap: largest p first, then lower res */
  double p;
  uint32_t res, ver;
};

struct fair {
  int nres, maxk;
  struct fres *res;
  tutti__tu_t *lat;              /* with a topology: per link, in units */
  double *rate;                  /* ... and beta_l in units per byte */
  tutti__tu_cost_t sport, rport; /* without: the ports' costs (per-byte terms) */
  struct fflow *flows;
  struct fmem *mem; /* maxk per flow slot */
  uint32_t nslots, freelist, stamp;
  uint32_t *freenext;     /* per slot: the next free one */
  uint32_t *cres, *cflow; /* the component found; cres[0 .. ncres) starts
                             as the seeds of the pending refill */
  size_t ncres, ncflow;
  int pending; /* a refill is queued at the current instant */
  struct hitem *heap;
  size_t hn, hcap;
  uint32_t *wres; /* one message's way: its resources */
  double *wb;     /* ... and its per-byte terms there */
  size_t bytes;
};

size_t tutti__fair_bytes(const struct fair *f) {
  return f ? f->bytes : 0;
}

void tutti__fair_free(struct fair *f) {
  if (!f) return;
  free(f->res);
  free(f->lat);
  free(f->rate);
  free(f->flows);
  free(f->mem);
  free(f->freenext);
  free(f->cres);
  free(f->cflow);
  free(f->heap);
  free(f->wres);
  free(f->wb);
  free(f);
}

int tutti__fair_create(struct sim *s) {
  struct fair *f = calloc(1, sizeof *f);
  if (!f) return TUTTI_ENOMEM;
  s->fair = f;
  int P = s->rp->nranks;
  if (s->topo) {
    f->nres = tutti_topo_nlinks(s->topo);
    f->maxk = 2 * tutti_topo_depth(s->topo);
    f->lat = malloc((size_t)(f->nres ? f->nres : 1) * sizeof *f->lat);
    f->rate = malloc((size_t)(f->nres ? f->nres : 1) * sizeof *f->rate);
    if (!f->lat || !f->rate) return TUTTI_ENOMEM;
    for (int l = 0; l < f->nres; l++) {
      tutti_topo_link_t lk = {0, 0};
      tutti_topo_link_get(s->topo, l, &lk);
      f->lat[l] = tutti__tu_from_s(lk.lat); /* as topo/link.c converts them */
      f->rate[l] = tutti__tu_rate(lk.beta);
    }
  } else {
    f->nres = 2 * P; /* rank r's send port r, its receive port P + r */
    f->maxk = 2;
    f->sport = tutti__tu_cost_init(&s->m->send_port);
    f->rport = tutti__tu_cost_init(&s->m->recv_port);
  }
  if (f->maxk < 1) f->maxk = 1;
  f->res = calloc((size_t)(f->nres ? f->nres : 1), sizeof *f->res);
  f->cres = malloc((size_t)(f->nres ? f->nres : 1) * sizeof *f->cres);
  f->wres = malloc((size_t)f->maxk * sizeof *f->wres);
  f->wb = malloc((size_t)f->maxk * sizeof *f->wb);
  if (!f->res || !f->cres || !f->wres || !f->wb) return TUTTI_ENOMEM;
  for (int r = 0; r < f->nres; r++) f->res[r].head = NONE;
  f->freelist = NONE;
  f->stamp = 1; /* 0: never found */
  f->bytes = sizeof *f + (size_t)f->nres * (sizeof *f->res + sizeof *f->cres + 16);
  return 0;
}

/* ------------------------------------------------------------ the heap */

static int hi_before(struct hitem a, struct hitem b) {
  return a.p > b.p || (a.p == b.p && a.res < b.res);
}

static int hpush(struct fair *f, double p, uint32_t res) {
  if (f->hn == f->hcap) {
    size_t cap = f->hcap ? 2 * f->hcap : 64;
    struct hitem *h = realloc(f->heap, cap * sizeof *h);
    if (!h) return TUTTI_ENOMEM;
    f->bytes += (cap - f->hcap) * sizeof *h;
    f->heap = h;
    f->hcap = cap;
  }
  struct hitem e = {p, res, f->res[res].ver};
  size_t i = f->hn++;
  while (i > 0 && hi_before(e, f->heap[(i - 1) / 2])) {
    f->heap[i] = f->heap[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  f->heap[i] = e;
  return 0;
}

static struct hitem hpop(struct fair *f) {
  struct hitem top = f->heap[0], e = f->heap[--f->hn];
  size_t i = 0, n = f->hn;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && hi_before(f->heap[c + 1], f->heap[c])) c++;
    if (!hi_before(f->heap[c], e)) break;
    f->heap[i] = f->heap[c];
    i = c;
  }
  if (n) f->heap[i] = e;
  return top;
}

/* ----------------------------------------------------- flows and ways */

/* The resources message msg crosses with a per-byte term above 0, into
 * res[]/b[] (at most f->maxk), and its latency phase *lam; returns how
 * many -- 0 when its bandwidth phase alone, W, rounds to 0 units: then it
 * is no flow. */
static int way(struct sim *s, int src, const struct tutti_replay_msg *msg, uint32_t *res, double *b,
               tutti__tu_t *lam) {
  struct fair *f = s->fair;
  double m = (double)RP_WIRE(s, msg->bytes); /* the header's bytes travel too */
  int k = 0;
  if (s->topo) {
    tutti__tu_t l = s->L0;
    for (int i = 0;; i++) {
      int link = tutti_topo_path_link_ranks(s->topo, src, msg->dst, i);
      if (link < 0) break;
      l = tadd(l, f->lat[link]);
      if (f->rate[link] > 0) res[k] = (uint32_t)link, b[k++] = f->rate[link];
    }
    *lam = l;
    double bmax = 0;
    for (int j = 0; j < k; j++) bmax = b[j] > bmax ? b[j] : bmax;
    return tutti__tu_bytes(bmax, m) > 0 ? k : 0;
  }
  double bs = tutti__tu_cost_line(&f->sport, m)->rate;
  double br = tutti__tu_cost_line(&f->rport, m)->rate;
  if (bs > 0) res[k] = (uint32_t)src, b[k++] = bs;
  if (br > 0) res[k] = (uint32_t)(s->rp->nranks + msg->dst), b[k++] = br;
  tutti__tu_t L = rp_cost(&s->latency, RP_WIRE(s, msg->bytes));
  tutti__tu_t W = tutti__tu_bytes(bs > br ? bs : br, m);
  *lam = L > W ? L - W : 0;
  return W > 0 ? k : 0;
}

static uint32_t slot_get(struct fair *f) {
  if (f->freelist != NONE) {
    uint32_t i = f->freelist;
    f->freelist = f->freenext[i];
    return i;
  }
  uint32_t n = f->nslots ? 2 * f->nslots : 64;
  struct fflow *fl = realloc(f->flows, n * sizeof *fl);
  if (fl) f->flows = fl;
  struct fmem *mm = realloc(f->mem, (size_t)n * (size_t)f->maxk * sizeof *mm);
  if (mm) f->mem = mm;
  uint32_t *fn = realloc(f->freenext, n * sizeof *fn);
  if (fn) f->freenext = fn;
  uint32_t *cf = realloc(f->cflow, n * sizeof *cf);
  if (cf) f->cflow = cf;
  if (!fl || !mm || !fn || !cf) return NONE;
  f->bytes +=
      (n - f->nslots) * (sizeof *fl + sizeof *fn + sizeof *cf + (size_t)f->maxk * sizeof *mm);
  for (uint32_t i = n; i-- > f->nslots + 1;) { /* all but the first new one are free */
    f->freenext[i] = f->freelist;
    f->freelist = i;
  }
  uint32_t i = f->nslots;
  f->nslots = n;
  return i;
}

/* ----------------------------------------------------------- the filling */

/* Flow fl moves at p units per byte from t on: its end predicted anew,
 * queued at it (the message's arrive holds it). */
static int predict(struct sim *s, struct fflow *fl, tutti__tu_t t, double p) {
  fl->anchor = t;
  fl->p = p;
  /* after t: the refill is the instant's last activity (a bandwidth
   * phase of 0 units alone is not a flow, way()) */
  fl->end = tadd(t, tutti__tu_bytes(p, fl->rem));
  if (fl->end <= t) fl->end = t + 1;
  s->msgs[fl->msg].arrive = fl->end;
  return qpush(&s->q, fl->end, hkey_port(fl->src, fl->msg));
}

/* Find the component of the seeds f->cres[0 .. ncres) (stamped with
 * f->stamp), set every rate in it max-min fairly, and predict anew the end
 * of every flow whose rate changed (queued at it). */
static int refill(struct sim *s, tutti__tu_t t) {
  struct fair *f = s->fair;
  const uint32_t K = (uint32_t)f->maxk, st = f->stamp;
  f->ncflow = 0;
  for (size_t i = 0; i < f->ncres; i++) { /* grows as it goes */
    for (uint32_t mi = f->res[f->cres[i]].head; mi != NONE; mi = f->mem[mi].next) {
      struct fflow *fl = &f->flows[mi / K];
      if (fl->stamp == st) continue;
      fl->stamp = st;
      f->cflow[f->ncflow++] = mi / K;
      for (uint32_t j = 0; j < fl->k; j++) {
        struct fres *r = &f->res[f->mem[mi / K * K + j].res];
        if (r->stamp != st) {
          r->stamp = st;
          f->cres[f->ncres++] = f->mem[mi / K * K + j].res;
        }
      }
    }
  }
  for (size_t i = 0; i < f->ncres; i++) {
    struct fres *r = &f->res[f->cres[i]];
    r->cap = 1;
    r->weight = 0;
    r->nunf = 0;
    r->ver++;
  }
  for (size_t i = 0; i < f->ncflow; i++) {
    struct fflow *fl = &f->flows[f->cflow[i]];
    fl->frozen = 0;
    for (uint32_t j = 0; j < fl->k; j++) {
      const struct fmem *mm = &f->mem[f->cflow[i] * K + j];
      f->res[mm->res].weight += mm->b;
      f->res[mm->res].nunf++;
    }
  }
  f->hn = 0;
  for (size_t i = 0; i < f->ncres; i++)
    if (f->res[f->cres[i]].nunf && hpush(f, f->res[f->cres[i]].weight, f->cres[i]))
      return TUTTI_ENOMEM;
  double last = INFINITY;
  while (f->hn) {
    struct hitem h = hpop(f);
    struct fres *r = &f->res[h.res];
    if (h.ver != r->ver || !r->nunf) continue;
    double level = h.p < last ? h.p : last;
    last = level;
    for (uint32_t mi = r->head; mi != NONE; mi = f->mem[mi].next) {
      struct fflow *fl = &f->flows[mi / K];
      if (fl->frozen) continue;
      fl->frozen = 1;
      fl->pnew = level;
      for (uint32_t j = 0; j < fl->k; j++) {
        const struct fmem *mm = &f->mem[mi / K * K + j];
        struct fres *o = &f->res[mm->res];
        o->nunf--;
        if (o == r) continue;
        o->cap -= mm->b / level;
        o->weight -= mm->b;
        o->ver++;
        if (o->nunf && hpush(f, o->cap > 0 ? o->weight / o->cap : INFINITY, mm->res))
          return TUTTI_ENOMEM;
      }
    }
  }
  for (size_t i = 0; i < f->ncflow; i++) {
    struct fflow *fl = &f->flows[f->cflow[i]];
    if (fl->pnew == fl->p || (fl->p > 0 && fl->end <= t)) continue;
    if (fl->p > 0) {
      fl->rem -= (double)(t - fl->anchor) / fl->p;
      if (fl->rem < 0) fl->rem = 0;
    }
    if (predict(s, fl, t, fl->pnew)) return TUTTI_ENOMEM;
  }
  f->ncres = 0;
  f->stamp++; /* the next instant's seeds */
  return 0;
}

/* Resource r's flows changed at t: a seed of the instant's refill, which
 * is queued once, after every other activity at t (key REFILL_KEY). */
static int seed(struct sim *s, uint32_t r, tutti__tu_t t) {
  struct fair *f = s->fair;
  if (f->res[r].stamp != f->stamp) {
    f->res[r].stamp = f->stamp;
    f->cres[f->ncres++] = r;
  }
  if (f->pending) return 0;
  f->pending = 1;
  return qpush(&s->q, t, REFILL_KEY);
}

int tutti__fair_refill(struct sim *s, tutti__tu_t t) {
  s->fair->pending = 0;
  return refill(s, t);
}

/* ------------------------------------------------------------ the hooks */

int tutti__fair_launch(struct sim *s, int src, uint32_t id) {
  struct fair *f = s->fair;
  struct tutti_replay_msg *msg = &s->msgs[id];
  tutti__tu_t lam;
  int k = way(s, src, msg, f->wres, f->wb, &lam);
  msg->arrive = tadd(msg->start, lam);
  if (s->topo) /* the links' statistics: it crosses every link of its path */
    for (int i = 0, link; (link = tutti_topo_path_link_ranks(s->topo, src, msg->dst, i)) >= 0; i++)
      tutti__linkset_carry(s->links, link, (double)RP_WIRE(s, msg->bytes));
  if (k == 0) return 1; /* nothing to share: delivered after its latency */
  msg->flags |= RPM_TRANSIT;
  msg->hop = 0; /* in its latency phase */
  return qpush(&s->q, msg->arrive, hkey_port(src, id));
}

/* Its flow starts at t: on its resources' lists, then their component
 * filled anew -- unless it is alone on every one of them: then it moves
 * at b_max, what the filling would give it, and no other flow's rate
 * changes, so its end is predicted now and no refill is due (one that is
 * due at t for another reason finds the same rate and leaves it). */
static int flow_start(struct sim *s, int src, uint32_t id, tutti__tu_t t) {
  struct fair *f = s->fair;
  struct tutti_replay_msg *msg = &s->msgs[id];
  const uint32_t K = (uint32_t)f->maxk;
  uint32_t i = slot_get(f);
  if (i == NONE) return TUTTI_ENOMEM;
  tutti__tu_t lam;
  int k = way(s, src, msg, f->wres, f->wb, &lam);
  f->flows[i] = (struct fflow){.msg = id,
                               .src = src,
                               .k = (uint16_t)k,
                               .anchor = t,
                               .t0 = t,
                               .rem = (double)RP_WIRE(s, msg->bytes),
                               .stamp = 0}; /* 0: no search's */
  int alone = 1;
  double bmax = 0;
  for (int j = 0; j < k; j++) {
    alone &= f->res[f->wres[j]].head == NONE;
    bmax = f->wb[j] > bmax ? f->wb[j] : bmax;
  }
  for (uint32_t j = 0; j < (uint32_t)k; j++) {
    struct fres *r = &f->res[f->wres[j]];
    f->mem[i * K + j] = (struct fmem){f->wres[j], NONE, r->head, f->wb[j]};
    if (r->head != NONE) f->mem[r->head].prev = i * K + j;
    r->head = i * K + j;
    if (s->topo) tutti__linkset_flow_tu(s->links, (int)f->wres[j], t, +1);
    if (!alone && seed(s, f->wres[j], t)) return TUTTI_ENOMEM;
  }
  msg->hop = 1; /* in its bandwidth phase */
  msg->rdone = i;
  return alone ? predict(s, &f->flows[i], t, bmax) : 0;
}

/* Its flow ends at t: off its resources' lists, the component of those
 * that other flows still cross filled anew; the message is delivered. */
static int flow_end(struct sim *s, uint32_t id, tutti__tu_t t) {
  struct fair *f = s->fair;
  struct tutti_replay_msg *msg = &s->msgs[id];
  const uint32_t K = (uint32_t)f->maxk;
  uint32_t i = (uint32_t)msg->rdone;
  const struct fflow *fl = &f->flows[i];
  for (uint32_t j = 0; j < fl->k; j++) {
    const struct fmem *mm = &f->mem[i * K + j];
    if (s->record && s->topo) { /* its passage over the link, for the traces */
      tutti__tu_hop_t h = {fl->t0, t};
      if (tutti__replay_record_hop(s, id, (int)mm->res, fl->t0, &h)) return TUTTI_ENOMEM;
    }
    struct fres *r = &f->res[mm->res];
    if (mm->prev != NONE)
      f->mem[mm->prev].next = mm->next;
    else
      r->head = mm->next;
    if (mm->next != NONE) f->mem[mm->next].prev = mm->prev;
    if (s->topo) tutti__linkset_flow_tu(s->links, (int)mm->res, t, -1);
    if (r->head != NONE && seed(s, mm->res, t)) return TUTTI_ENOMEM; /* empty: no rate to change */
  }
  f->freenext[i] = f->freelist;
  f->freelist = i;
  msg->flags &= ~RPM_TRANSIT;
  msg->ready = msg->rdone = TUTTI__TU_NONE;
  msg->arrive = t;
  return 1;
}

int tutti__fair_event(struct sim *s, int src, uint32_t id, tutti__tu_t t) {
  const struct tutti_replay_msg *msg = &s->msgs[id];
  if (msg->hop == 0) return flow_start(s, src, id, t);
  if (t != msg->arrive) return 0; /* a superseded prediction */
  return flow_end(s, id, t);
}

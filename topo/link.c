/*
 * link.c -- links under load: runtime/MODEL.md's cut-through step for one hop of a
 * message (a pure function), and a linkset -- every link's free time and
 * statistics -- that the replay drives hop by hop.
 *
 * The rule (runtime/MODEL.md "Topology"), for a message of m bytes started at s on
 * the path l_1..l_k:
 *
 *   h_0 = s + L(0);  e_0 = h_0
 *   h_i = max(h_{i-1} + lat_{i-1}, free_i)        (lat_0 = 0)
 *   e_i = max(h_i + m*beta_i, e_{i-1} + lat_{i-1})
 *   free_i = e_i
 *   data complete at the receiver: e_k + lat_k
 *
 * The head waits for the link (FCFS by head arrival); the link is held
 * until the tail has left it, which is never before the tail arrived from
 * the previous link -- so a slow link upstream governs a fast one below,
 * and the slowest link of an idle path sets the pace. A message as the
 * next link sees it is a tutti_transit (head = h + lat, tail = e + lat).
 *
 * Cost: one idle path of k links with lat = 0 and beta_l = beta costs
 * L(0) + m*beta, what the model costs with no topology when L(m) =
 * L(0) + beta*m -- exactly, to the unit: the state and the step are in
 * the replay's integer time base (timebase.h, runtime/MODEL.md "Time
 * base"), a link's lat and beta converted once when the linkset is
 * created, and m*beta rounded by the same rule as the model's b*m. The
 * public functions take and give seconds, converting at the boundary.
 *
 * Statistics per link: messages, bytes, busy time (sum of e - h), waiting
 * time (sum of h - arrival) and the longest queue. The queue at an arrival
 * is the messages whose tail has not left the link yet, plus the arriving
 * one; since arrivals come in order and a link's end times never decrease
 * (each message starts after the previous one ended), those are the last
 * few ends, kept in a FIFO per link that grows only as long as the longest
 * queue. Under sharing = fair (runtime/replay_fair.c) no message queues:
 * the replay counts the messages and bytes a link carried, and the flows
 * on it as they start and end (tutti__linkset_flow_tu), and the busy time
 * is the time one or more flows crossed it, the waiting time the time two
 * or more shared it, the longest queue the most flows at once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timebase.h"
#include "topo_impl.h"
#include "tutti/model.h"

/* The step in units (timebase.h): h = max(arrive, free), e = max(h +
 * bytes_tu, prev_tail), where bytes_tu = round(m * beta) and prev_tail =
 * e_{i-1} + lat_{i-1}. Integer sums saturate, so the order of the terms
 * cannot change a result. static, so that the hop inlines it. */
static inline tutti__tu_hop_t link_step_tu(tutti__tu_t arrive, tutti__tu_t free,
                                           tutti__tu_t prev_tail, tutti__tu_t bytes_tu) {
  tutti__tu_t h = tutti__tu_max(arrive, free);
  return (tutti__tu_hop_t){h, tutti__tu_max(tutti__tu_add(h, bytes_tu), prev_tail)};
}

/* The public step takes and gives seconds: each input is converted to
 * units, the step taken there, the result converted back -- the replay's
 * arithmetic exactly. */
tutti_hop_t tutti_link_step(double arrive, double free, double prev_end, double prev_lat,
                            double beta, double bytes) {
  tutti__tu_t tail = tutti__tu_add(tutti__tu_from_s(prev_end), tutti__tu_from_s(prev_lat));
  tutti__tu_hop_t h = link_step_tu(tutti__tu_from_s(arrive), tutti__tu_from_s(free), tail,
                                   tutti__tu_bytes(tutti__tu_rate(beta), bytes));
  double end = tutti__tu_to_s(h.end);
  return (tutti_hop_t){tutti__tu_to_s(h.head), end, end};
}

/* A link's parameters in units, converted once at create. */
struct lparam {
  tutti__tu_t lat;
  double rate; /* beta in units per byte */
};

struct lstate {
  tutti__tu_t free; /* free_i */
  tutti__tu_t last; /* the last head arrival (arrivals must not go back) */
  tutti__tu_t busy, wait;
  double bytes;
  uint64_t messages;
  int max_queue;
  int flows;                 /* sharing = fair: flows on it now, */
  tutti__tu_t since, since2; /* since when one, two or more were */
  int qhead, qcount, qcap;   /* FIFO of the ends still ahead; qcap a power of 2 */
  tutti__tu_t *q;
};

struct tutti_linkset {
  const tutti_topo_t *t;
  int nlinks;
  struct lstate *l;
  struct lparam *p; /* per entry of t->params */
};

int tutti_linkset_create(const tutti_topo_t *t, tutti_linkset_t **out) {
  if (!t || !out) return TUTTI_EINVAL;
  tutti_linkset_t *s = calloc(1, sizeof *s);
  int n = 2 * (t->nnodes - 1);
  if (!s) return TUTTI_ENOMEM;
  s->l = calloc((size_t)(n > 0 ? n : 1), sizeof *s->l);
  s->p = malloc((size_t)(t->nparams > 0 ? t->nparams : 1) * sizeof *s->p);
  if (!s->l || !s->p) {
    free(s->l);
    free(s->p);
    free(s);
    return TUTTI_ENOMEM;
  }
  for (int i = 0; i < t->nparams; i++)
    s->p[i] =
        (struct lparam){tutti__tu_from_s(t->params[i].lat), tutti__tu_rate(t->params[i].beta)};
  s->t = t;
  s->nlinks = n;
  *out = s;
  return 0;
}

void tutti_linkset_reset(tutti_linkset_t *s) {
  if (!s) return;
  for (int i = 0; i < s->nlinks; i++) {
    tutti__tu_t *q = s->l[i].q;
    int cap = s->l[i].qcap;
    memset(&s->l[i], 0, sizeof s->l[i]);
    s->l[i].q = q;
    s->l[i].qcap = cap;
  }
}

void tutti_linkset_free(tutti_linkset_t *s) {
  if (!s) return;
  for (int i = 0; i < s->nlinks; i++) free(s->l[i].q);
  free(s->l);
  free(s->p);
  free(s);
}

int tutti__linkset_hop_tu(tutti_linkset_t *s, int link, tutti__tu_transit_t *tr, double bytes,
                          tutti__tu_hop_t *hop) {
  struct lstate *L = &s->l[link];
  tutti__tu_t arrive = tr->head;
  if (arrive < L->last) return TUTTI_EINVAL;
  /* the ends still ahead of this arrival; make room for this one's */
  while (L->qcount && L->q[L->qhead] <= arrive) {
    L->qhead = L->qhead + 1 == L->qcap ? 0 : L->qhead + 1;
    L->qcount--;
  }
  if (L->qcount == L->qcap) {
    int cap = L->qcap ? 2 * L->qcap : 4;
    tutti__tu_t *q = malloc((size_t)cap * sizeof *q);
    if (!q) return TUTTI_ENOMEM;
    for (int i = 0; i < L->qcount; i++) q[i] = L->q[(L->qhead + i) % L->qcap];
    free(L->q);
    L->q = q;
    L->qcap = cap;
    L->qhead = 0;
  }
  const struct lparam *p = &s->p[s->t->lp[link]];
  tutti__tu_hop_t h = link_step_tu(arrive, L->free, tr->tail, tutti__tu_bytes(p->rate, bytes));
  int queue = L->qcount + 1;
  L->q[(L->qhead + L->qcount++) & (L->qcap - 1)] = h.end; /* a mask: the replay's hot path */
  if (queue > L->max_queue) L->max_queue = queue;
  L->free = h.end;
  L->last = arrive;
  L->messages++;
  L->bytes += bytes;
  L->busy = tutti__tu_add(L->busy, h.end - h.head);
  L->wait = tutti__tu_add(L->wait, h.head - arrive);
  tr->head = tutti__tu_add(h.head, p->lat);
  tr->tail = tutti__tu_add(h.end, p->lat);
  if (hop) *hop = h;
  return 0;
}

void tutti__linkset_carry(tutti_linkset_t *s, int link, double bytes) {
  s->l[link].messages++;
  s->l[link].bytes += bytes;
}

void tutti__linkset_flow_tu(tutti_linkset_t *s, int link, tutti__tu_t t, int delta) {
  struct lstate *L = &s->l[link];
  int was = L->flows;
  L->flows += delta;
  if (was == 0) L->since = t;
  if (was < 2 && L->flows >= 2) L->since2 = t;
  if (was >= 2 && L->flows < 2) L->wait = tutti__tu_add(L->wait, t - L->since2);
  if (L->flows == 0) {
    L->busy = tutti__tu_add(L->busy, t - L->since);
    L->free = t;
  }
  if (L->flows > L->max_queue) L->max_queue = L->flows;
}

int tutti_linkset_hop(tutti_linkset_t *s, int link, tutti_transit_t *tr, double bytes,
                      tutti_hop_t *hop) {
  if (!s || !tr || link < 0 || link >= s->nlinks || !(bytes >= 0)) return TUTTI_EINVAL;
  if (isnan(tr->head) || isnan(tr->tail)) return TUTTI_EINVAL;
  tutti__tu_transit_t t = {tutti__tu_from_s(tr->head), tutti__tu_from_s(tr->tail)};
  tutti__tu_hop_t h;
  int rc = tutti__linkset_hop_tu(s, link, &t, bytes, &h);
  if (rc) return rc;
  tr->head = tutti__tu_to_s(t.head);
  tr->tail = tutti__tu_to_s(t.tail);
  if (hop) {
    double end = tutti__tu_to_s(h.end);
    *hop = (tutti_hop_t){tutti__tu_to_s(h.head), end, end};
  }
  return 0;
}

int tutti_linkset_path(tutti_linkset_t *s, const int *links, int k, tutti_transit_t *tr,
                       double bytes) {
  if (!s || k < 0 || (k && !links) || !tr) return TUTTI_EINVAL;
  for (int i = 0; i < k; i++) {
    int rc = tutti_linkset_hop(s, links[i], tr, bytes, NULL);
    if (rc) return rc;
  }
  return 0;
}

int tutti_linkset_stats(const tutti_linkset_t *s, int link, tutti_link_stats_t *out) {
  if (!s || !out || link < 0 || link >= s->nlinks) return TUTTI_EINVAL;
  const struct lstate *L = &s->l[link];
  *out = (tutti_link_stats_t){.messages = L->messages,
                              .bytes = L->bytes,
                              .busy = tutti__tu_to_s(L->busy),
                              .wait = tutti__tu_to_s(L->wait),
                              .max_queue = L->max_queue,
                              .free = tutti__tu_to_s(L->free)};
  return 0;
}

struct rank_key {
  double k1, k2;
  int id;
};

static int cmp_key(const void *a, const void *b) {
  const struct rank_key *x = a, *y = b;
  if (x->k1 != y->k1) return x->k1 > y->k1 ? -1 : 1;
  if (x->k2 != y->k2) return x->k2 > y->k2 ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

int tutti_linkset_top(const tutti_linkset_t *s, int by, int k, int *links) {
  if (!s || k < 0 || (k && !links) || by < TUTTI_LINKS_BY_BUSY || by > TUTTI_LINKS_BY_QUEUE)
    return TUTTI_EINVAL;
  int n = 0;
  for (int i = 0; i < s->nlinks; i++) n += s->l[i].messages > 0;
  struct rank_key *keys = malloc((size_t)(n ? n : 1) * sizeof *keys);
  if (!keys) return TUTTI_ENOMEM;
  n = 0;
  for (int i = 0; i < s->nlinks; i++) {
    const struct lstate *L = &s->l[i];
    if (!L->messages) continue;
    keys[n].id = i;
    switch (by) {
    case TUTTI_LINKS_BY_BYTES:
      keys[n].k1 = L->bytes, keys[n].k2 = (double)L->busy;
      break;
    case TUTTI_LINKS_BY_QUEUE:
      keys[n].k1 = L->max_queue, keys[n].k2 = (double)L->busy;
      break;
    default:
      keys[n].k1 = (double)L->busy, keys[n].k2 = L->bytes;
      break;
    }
    n++;
  }
  qsort(keys, (size_t)n, sizeof *keys, cmp_key);
  if (k > n) k = n;
  for (int i = 0; i < k; i++) links[i] = keys[i].id;
  free(keys);
  return k;
}

int tutti_linkset_report(const tutti_linkset_t *s, int k, double horizon, FILE *f) {
  if (!s || !f || k < 0) return TUTTI_EINVAL;
  int *ids = malloc((size_t)(k ? k : 1) * sizeof *ids);
  if (!ids) return TUTTI_ENOMEM;
  int n = tutti_linkset_top(s, TUTTI_LINKS_BY_BUSY, k, ids);
  if (n < 0) {
    free(ids);
    return n;
  }
  fprintf(f, "%-36s %9s %12s %12s %12s %6s%s\n", "link", "messages", "bytes", "busy", "wait",
          "queue", horizon > 0 ? "   busy%" : "");
  for (int i = 0; i < n; i++) {
    const struct lstate *L = &s->l[ids[i]];
    char name[160], b[32], busy[32], wait[32];
    tutti_topo_link_name(s->t, ids[i], name, sizeof name);
    tutti_format_bytes(L->bytes < 1.8e19 ? (size_t)L->bytes : SIZE_MAX, b, sizeof b);
    double bsy = tutti__tu_to_s(L->busy);
    tutti_format_time(bsy, busy, sizeof busy);
    tutti_format_time(tutti__tu_to_s(L->wait), wait, sizeof wait);
    fprintf(f, "%-36s %9llu %12s %12s %12s %6d", name, (unsigned long long)L->messages, b, busy,
            wait, L->max_queue);
    if (horizon > 0) fprintf(f, " %7.1f%%", 100.0 * bsy / horizon);
    fputc('\n', f);
  }
  free(ids);
  return ferror(f) ? TUTTI_EIO : 0;
}

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
 * L(0) + beta*m.
 *
 * Statistics per link: messages, bytes, busy time (sum of e - h), waiting
 * time (sum of h - arrival) and the longest queue. The queue at an arrival
 * is the messages whose tail has not left the link yet, plus the arriving
 * one; since arrivals come in order and a link's end times never decrease
 * (each message starts after the previous one ended), those are the last
 * few ends, kept in a FIFO per link that grows only as long as the longest
 * queue.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topo_impl.h"
#include "tutti/model.h"

/* static, so that linkset_hop inlines it (an exported function in a
 * shared library is called through the PLT) */
static inline tutti_hop_t link_step(double arrive, double free, double prev_end, double prev_lat,
                                    double beta, double bytes) {
  double h = arrive > free ? arrive : free;
  double e = h + bytes * beta;
  double tail = prev_end + prev_lat;
  if (tail > e) e = tail;
  return (tutti_hop_t){h, e, e};
}

tutti_hop_t tutti_link_step(double arrive, double free, double prev_end, double prev_lat,
                            double beta, double bytes) {
  return link_step(arrive, free, prev_end, prev_lat, beta, bytes);
}

struct lstate {
  double free; /* free_i */
  double last; /* the last head arrival (arrivals must not go back) */
  double bytes, busy, wait;
  uint64_t messages;
  int max_queue;
  int qhead, qcount, qcap; /* FIFO of the ends still ahead; qcap a power of 2 */
  double *q;
};

struct tutti_linkset {
  const tutti_topo_t *t;
  int nlinks;
  struct lstate *l;
};

int tutti_linkset_create(const tutti_topo_t *t, tutti_linkset_t **out) {
  if (!t || !out) return TUTTI_EINVAL;
  tutti_linkset_t *s = calloc(1, sizeof *s);
  int n = 2 * (t->nnodes - 1);
  if (!s) return TUTTI_ENOMEM;
  s->l = calloc((size_t)(n > 0 ? n : 1), sizeof *s->l);
  if (!s->l) {
    free(s);
    return TUTTI_ENOMEM;
  }
  s->t = t;
  s->nlinks = n;
  *out = s;
  return 0;
}

void tutti_linkset_reset(tutti_linkset_t *s) {
  if (!s) return;
  for (int i = 0; i < s->nlinks; i++) {
    double *q = s->l[i].q;
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
  free(s);
}

int tutti_linkset_hop(tutti_linkset_t *s, int link, tutti_transit_t *tr, double bytes,
                      tutti_hop_t *hop) {
  if (!s || !tr || link < 0 || link >= s->nlinks || !(bytes >= 0)) return TUTTI_EINVAL;
  struct lstate *L = &s->l[link];
  double arrive = tr->head;
  if (arrive < L->last || isnan(arrive) || isnan(tr->tail)) return TUTTI_EINVAL;
  /* the ends still ahead of this arrival; make room for this one's */
  while (L->qcount && L->q[L->qhead] <= arrive) {
    L->qhead = L->qhead + 1 == L->qcap ? 0 : L->qhead + 1;
    L->qcount--;
  }
  if (L->qcount == L->qcap) {
    int cap = L->qcap ? 2 * L->qcap : 4;
    double *q = malloc((size_t)cap * sizeof *q);
    if (!q) return TUTTI_ENOMEM;
    for (int i = 0; i < L->qcount; i++) q[i] = L->q[(L->qhead + i) % L->qcap];
    free(L->q);
    L->q = q;
    L->qcap = cap;
    L->qhead = 0;
  }
  const tutti_topo_link_t *p = &s->t->params[s->t->lp[link]];
  tutti_hop_t h = link_step(arrive, L->free, tr->tail, 0, p->beta, bytes);
  int queue = L->qcount + 1;
  L->q[(L->qhead + L->qcount++) & (L->qcap - 1)] = h.end; /* a mask: the replay's hot path */
  if (queue > L->max_queue) L->max_queue = queue;
  L->free = h.free;
  L->last = arrive;
  L->messages++;
  L->bytes += bytes;
  L->busy += h.end - h.head;
  L->wait += h.head - arrive;
  tr->head = h.head + p->lat;
  tr->tail = h.end + p->lat;
  if (hop) *hop = h;
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
                              .busy = L->busy,
                              .wait = L->wait,
                              .max_queue = L->max_queue,
                              .free = L->free};
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
      keys[n].k1 = L->bytes, keys[n].k2 = L->busy;
      break;
    case TUTTI_LINKS_BY_QUEUE:
      keys[n].k1 = L->max_queue, keys[n].k2 = L->busy;
      break;
    default:
      keys[n].k1 = L->busy, keys[n].k2 = L->bytes;
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
    tutti_format_time(L->busy, busy, sizeof busy);
    tutti_format_time(L->wait, wait, sizeof wait);
    fprintf(f, "%-36s %9llu %12s %12s %12s %6d", name, (unsigned long long)L->messages, b, busy,
            wait, L->max_queue);
    if (horizon > 0) fprintf(f, " %7.1f%%", 100.0 * L->busy / horizon);
    fputc('\n', f);
  }
  free(ids);
  return ferror(f) ? TUTTI_EIO : 0;
}

/*
 * auto.c -- the `auto` algorithm of bcast, reduce, allreduce, gather,
 * scatter, allgather, reduce_scatter, alltoall, scan and exscan, and tutti_auto_choose (coll.h),
 * which every `auto` (the barrier's, barrier_auto.c, too) asks what to run.
 *
 * Idea: a rule of the world's rules (tutti_rank_rules: what `tutti tune`
 * measured) when one applies and its algorithm can run the call; else the
 * model choice: the registered algorithm of the collective (default
 * parameters, `auto` and the two-level algorithms excluded) whose
 * registered Hockney cost is least for the model's Hockney view at the
 * call's size (coll.h, tutti_auto_choose; the barrier keeps its own
 * closed forms, tutti_barrier_auto_choose). Every rank computes the same
 * choice from the same (model, rules, P, bytes), so the ranks agree
 * without a message; the ranks of a world share one computation (the
 * world's memo below), and a rank's call plan keeps the choice for the
 * calls after.
 *
 * Source: Open MPI's coll/tuned decision functions and its dynamic rules
 * file play the same part (a fixed decision, overridden by measured
 * rules); the Hockney costs are the candidates' own.
 *
 * Cost under Hockney: that of the candidate it chooses there, the least of
 * the others' costs (an upper bound when that candidate's is one).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "engine.h"
#include "tutti/coll.h"
#include "tutti/p2p.h"
#include "tutti/units.h"

/* Declared by their ALGO lines in registry.c. */
tutti_bcast_fn tutti__bcast_auto;
tutti_reduce_fn tutti__reduce_auto;
tutti_allreduce_fn tutti__allreduce_auto;
tutti_gather_fn tutti__gather_auto;
tutti_scatter_fn tutti__scatter_auto;
tutti_allgather_fn tutti__allgather_auto;
tutti_reduce_scatter_fn tutti__reduce_scatter_auto;
tutti_alltoall_fn tutti__alltoall_auto;
tutti_scan_fn tutti__scan_auto, tutti__exscan_auto;
tutti_cost_fn tutti__bcast_auto_cost, tutti__reduce_auto_cost, tutti__allreduce_auto_cost,
    tutti__gather_auto_cost, tutti__scatter_auto_cost, tutti__allgather_auto_cost,
    tutti__reduce_scatter_auto_cost, tutti__alltoall_auto_cost, tutti__scan_auto_cost,
    tutti__exscan_auto_cost;

int tutti_algo_is_auto(const tutti_algo_desc_t *d) {
  return d && !strcmp(d->name, "auto");
}

/* The least-cost candidate of coll under h: 0 with *best, *bound set, or
 * TUTTI_ENOTFOUND. op NULL: any op; root -1, bytes SIZE_MAX: not checked.
 * why (may be NULL) gets ", name cost" per candidate appended at *used
 * (steps: times are postal steps, shown as plain numbers). */
static int least(int coll, int P, int root, size_t bytes, size_t m, tutti_op_t op,
                 const tutti_hockney_t *h, const tutti_algo_t **best, double *tbest, int *bound,
                 char *why, size_t whylen, size_t *used, int steps) {
  const tutti_algo_desc_t *d;
  double tb = INFINITY;
  int listed = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
    if (d->coll != coll || tutti_algo_is_auto(d) || tutti_algo_is_two_level(d)) continue;
    const tutti_algo_t *a;
    char err[256];
    int b = 0;
    if (tutti_algo_select(coll, d->name, NULL, &a, NULL, 0) ||
        tutti_algo_check_call(a, P, root, bytes, op, err, sizeof err))
      continue;
    double t = tutti_algo_cost(a, P, root < 0 ? 0 : root, m, h, &b);
    if (isnan(t)) continue;
    if (why && *used < whylen) {
      char tt[64];
      if (steps)
        snprintf(tt, sizeof tt, "%g", t);
      else
        tutti_format_time(t, tt, sizeof tt);
      *used += (size_t)snprintf(why + *used, whylen - *used, "%s %s %s%s", listed++ ? "," : "",
                                d->name, b ? "<= " : "", tt);
    }
    if (t < tb * (1 - 1e-12)) tb = t, *best = a, *bound = b;
  }
  if (!isfinite(tb)) return TUTTI_ENOTFOUND;
  if (tbest) *tbest = tb;
  return 0;
}

/* One message of x bytes under m: what a rendezvous pays on the receive
 * side's path (L + O_r, as barrier_auto.c), plus O_s when eager; every
 * cost at x + header (runtime/MODEL.md), so the envelope lands in alpha. */
static double one_message(const tutti_model_t *m, double x) {
  x += (double)m->header;
  double t = tutti_cost_eval(&m->latency, x) + tutti_cost_eval(&m->recv_cpu, x);
  return m->eager_limit == 0 ? t : t + tutti_cost_eval(&m->send_cpu, x);
}

static int model_choice(int coll, const tutti_model_t *m, int P, size_t bytes, int root,
                        tutti_op_t op, const tutti_algo_t **chosen, char *why, size_t whylen,
                        size_t used);

int tutti_algo_hockney_view(const tutti_model_t *m, size_t bytes, tutti_hockney_t *h) {
  if (!m || !h) return TUTTI_EINVAL;
  *h = (tutti_hockney_t){1, 0, 0}; /* the none model: count message rounds */
  if (m->preset != TUTTI_MODEL_NONE) {
    double m1 = bytes ? (double)bytes : 1;
    h->alpha = one_message(m, 0);
    h->beta = (one_message(m, m1) - h->alpha) / m1;
    h->gamma = m->gamma;
  }
  return 0;
}

int tutti_auto_choose(int coll, const tutti_model_t *m, const tutti_rules_t *rules, int P,
                      size_t bytes, int root, tutti_op_t op, const tutti_algo_t **chosen, char *why,
                      size_t whylen) {
  if (!m || !chosen || P < 1 || coll < 0 || coll >= TUTTI_COLL_N) return TUTTI_EINVAL;
  if (why && whylen) why[0] = '\0';
  size_t used = 0;
  const tutti_algo_t *r;
  char rwhy[512] = "", err[256] = "";
  if (!tutti_rules_lookup(rules, coll, P, bytes, &r, rwhy, sizeof rwhy)) {
    if (!tutti_algo_check_call(r, P, root, bytes, op, err, sizeof err)) {
      *chosen = r;
      if (why && whylen) snprintf(why, whylen, "rule %s", rwhy);
      return 0;
    }
    if (why && whylen) /* a rule for another op or shape: the model decides */
      used = (size_t)snprintf(why, whylen, "rule %s cannot run here (%s); ", rwhy, err);
  }
  return model_choice(coll, m, P, bytes, root, op, chosen, why, whylen, used);
}

/* ------------------------------------------------------ the world's memo */

/* The choice is a pure function of (coll, P, root, bytes, whether the op
 * commutes) for a world, whose model and rules are fixed (P: a group
 * view's size, p2p.h, else the world's), and every
 * rank of a call makes it. Some candidates' costs replay their schedule
 * (scatter-allgather's ring: O(P^2)), so 1024 ranks each choosing would
 * cost a 1024-rank `auto` bcast ~10 CPU seconds: the ranks of a world
 * share one computation (tutti_rank_shared), the first computing it under
 * the lock, the others finding it. Only a rank's first call of a plan
 * asks (the plan keeps the choice), so the lock is seldom taken. A
 * zeroed pthread mutex is an unlocked one (glibc). */
#define MEMO_N 16
struct choice {
  int coll, P, root, opc, rc;
  size_t bytes;
  const tutti_algo_t *chosen;
};
struct world_memo {
  pthread_mutex_t lock;
  int n, next;
  struct choice v[MEMO_N];
};

int tutti__auto_choose_r(tutti_rank_t *r, int coll, size_t bytes, int root, tutti_op_t op,
                         const tutti_algo_t **chosen) {
  const tutti_model_t *m = tutti_rank_model(r);
  const tutti_rules_t *rules = (const tutti_rules_t *)tutti_rank_rules(r);
  int P = tutti_size(r);
  struct world_memo *w = tutti_rank_shared(r, sizeof *w, NULL);
  if (!w) return tutti_auto_choose(coll, m, rules, P, bytes, root, op, chosen, NULL, 0);
  struct choice k = {coll, P, root, op ? tutti_op_commutative(op) : 2, 0, bytes, NULL};
  pthread_mutex_lock(&w->lock);
  int i = 0;
  while (i < w->n && !(w->v[i].coll == k.coll && w->v[i].P == k.P && w->v[i].root == k.root &&
                       w->v[i].opc == k.opc && w->v[i].bytes == k.bytes))
    i++;
  if (i == w->n) { /* nobody made it yet */
    k.rc = tutti_auto_choose(coll, m, rules, P, bytes, root, op, &k.chosen, NULL, 0);
    i = w->n < MEMO_N ? w->n++ : w->next;
    if (i == w->next) w->next = (w->next + 1) % MEMO_N;
    w->v[i] = k;
  }
  *chosen = w->v[i].chosen;
  int rc = w->v[i].rc;
  pthread_mutex_unlock(&w->lock);
  return rc;
}

/* The model choice (tutti_auto_choose without the rules); why gets the
 * reasons from *used on. */
static int model_choice(int coll, const tutti_model_t *m, int P, size_t bytes, int root,
                        tutti_op_t op, const tutti_algo_t **chosen, char *why, size_t whylen,
                        size_t used) {
  if (coll == TUTTI_COLL_BARRIER) {
    int rc = tutti_barrier_auto_choose(m, P, chosen, why ? why + used : NULL,
                                       why && used < whylen ? whylen - used : 0);
    return rc;
  }
  tutti_hockney_t h;
  char a[64], b[64];
  tutti_algo_hockney_view(m, bytes, &h);
  int steps = m->preset == TUTTI_MODEL_POSTAL; /* times in steps, not seconds */
  if (steps)
    snprintf(a, sizeof a, "%g steps", h.alpha), snprintf(b, sizeof b, "%g steps", h.beta);
  else
    tutti_format_time(h.alpha, a, sizeof a), tutti_format_time(h.beta, b, sizeof b);
  if (why && used < whylen)
    used += (size_t)snprintf(why + used, whylen - used,
                             "least Hockney cost, alpha = %s, beta = %s/B:", a, b);
  int bound = 0;
  return least(coll, P, root, bytes, bytes, op, &h, chosen, NULL, &bound, why, whylen, &used,
               steps);
}

/* The registered Hockney cost: the least of the candidates' (what the
 * model choice picks under the Hockney preset, where the view is exact). */
static double auto_cost(int coll, int P, int root, size_t m, const tutti_hockney_t *h, int *bound) {
  const tutti_algo_t *c;
  double t;
  size_t used = 0;
  *bound = 0;
  return least(coll, P, root, m, m, NULL, h, &c, &t, bound, NULL, 0, &used, 0) ? NAN : t;
}

/* The registered message count: the chosen candidate's. */
static double auto_msgs(int coll, int P, int root, size_t m, const tutti_hockney_t *h) {
  const tutti_algo_t *c;
  double t;
  size_t used = 0;
  int bound = 0;
  return least(coll, P, root, m, m, NULL, h, &c, &t, &bound, NULL, 0, &used, 0)
             ? NAN
             : tutti_algo_messages(c, P, root, m, h);
}

/* Each `auto` takes its tag first, unconditionally (engine.h "Tags"); the
 * algorithm it runs takes its own. */
#define AUTO_TAG(r)                                                                                \
  do {                                                                                             \
    int tag_ = tutti_coll_tag(r);                                                                  \
    if (tag_ < 0) return tag_;                                                                     \
  } while (0)

/* The choice of `auto` a for this call: the plan's when it has one, else
 * made (and kept by the plan). */
static int choose(tutti_rank_t *r, const tutti_algo_t *a, int coll, size_t bytes, int root,
                  tutti_op_t op, const tutti_algo_t **c) {
  const tutti_algo_t **kept = tutti__plan_choice(r, a);
  if (kept && *kept) return *c = *kept, 0;
  int rc = tutti__auto_choose_r(r, coll, bytes, root, op, c);
  if (!rc && kept) *kept = *c;
  return rc;
}

int tutti__bcast_auto(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                      const tutti_algo_t *a) {
  AUTO_TAG(r);
  const tutti_algo_t *c;
  int rc = choose(r, a, TUTTI_COLL_BCAST, (size_t)count * tutti_type_size(type), root, NULL, &c);
  return rc ? rc : c->e->d.fn.bcast(r, buf, count, type, root, c);
}

int tutti__reduce_auto(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                       tutti_datatype_t type, tutti_op_t op, int root, const tutti_algo_t *a) {
  AUTO_TAG(r);
  const tutti_algo_t *c;
  int rc = choose(r, a, TUTTI_COLL_REDUCE, (size_t)count * tutti_type_size(type), root, op, &c);
  return rc ? rc : c->e->d.fn.reduce(r, sbuf, rbuf, count, type, op, root, c);
}

int tutti__gather_auto(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype,
                       void *rbuf, long rcount, tutti_datatype_t rtype, int root,
                       const tutti_algo_t *a) {
  AUTO_TAG(r);
  const tutti_algo_t *c;
  int rc = choose(r, a, TUTTI_COLL_GATHER, (size_t)scount * tutti_type_size(stype), root, NULL, &c);
  return rc ? rc : c->e->d.fn.gather(r, sbuf, scount, stype, rbuf, rcount, rtype, root, c);
}

int tutti__scatter_auto(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype,
                        void *rbuf, long rcount, tutti_datatype_t rtype, int root,
                        const tutti_algo_t *a) {
  AUTO_TAG(r);
  const tutti_algo_t *c;
  int rc =
      choose(r, a, TUTTI_COLL_SCATTER, (size_t)rcount * tutti_type_size(rtype), root, NULL, &c);
  return rc ? rc : c->e->d.fn.scatter(r, sbuf, scount, stype, rbuf, rcount, rtype, root, c);
}

/* The unrooted collectives of one send and one receive buffer, with an op
 * (allreduce, reduce_scatter, scan, exscan) and without (allgather,
 * alltoall). */
#define AUTO_OP(c, C)                                                                              \
  int tutti__##c##_auto(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,                 \
                        tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {             \
    AUTO_TAG(r);                                                                                   \
    const tutti_algo_t *ch;                                                                        \
    int rc = choose(r, a, TUTTI_COLL_##C, (size_t)count * tutti_type_size(type), -1, op, &ch);     \
    return rc ? rc : ch->e->d.fn.c(r, sbuf, rbuf, count, type, op, ch);                            \
  }
#define AUTO_NO_OP(c, C)                                                                           \
  int tutti__##c##_auto(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,                 \
                        tutti_datatype_t type, const tutti_algo_t *a) {                            \
    AUTO_TAG(r);                                                                                   \
    const tutti_algo_t *ch;                                                                        \
    int rc = choose(r, a, TUTTI_COLL_##C, (size_t)count * tutti_type_size(type), -1, NULL, &ch);   \
    return rc ? rc : ch->e->d.fn.c(r, sbuf, rbuf, count, type, ch);                                \
  }
AUTO_OP(allreduce, ALLREDUCE)
AUTO_OP(reduce_scatter, REDUCE_SCATTER)
AUTO_OP(scan, SCAN)
AUTO_OP(exscan, EXSCAN)
AUTO_NO_OP(allgather, ALLGATHER)
AUTO_NO_OP(alltoall, ALLTOALL)

#define AUTO_COST(c, C)                                                                            \
  double tutti__##c##_auto_cost(const tutti_algo_t *a, int P, int root, size_t m,                  \
                                const tutti_hockney_t *h, int *bound) {                            \
    (void)a;                                                                                       \
    return auto_cost(TUTTI_COLL_##C, P, root, m, h, bound);                                        \
  }
#define AUTO_MSGS(c, C)                                                                            \
  double tutti__##c##_auto_msgs(const tutti_algo_t *a, int P, int root, size_t m,                  \
                                const tutti_hockney_t *h) {                                        \
    (void)a;                                                                                       \
    return auto_msgs(TUTTI_COLL_##C, P, root, m, h);                                               \
  }
#define AUTO_BOTH(c, C) AUTO_COST(c, C) AUTO_MSGS(c, C)
AUTO_BOTH(bcast, BCAST)
AUTO_BOTH(reduce, REDUCE)
AUTO_BOTH(allreduce, ALLREDUCE)
AUTO_BOTH(gather, GATHER)
AUTO_BOTH(scatter, SCATTER)
AUTO_BOTH(allgather, ALLGATHER)
AUTO_BOTH(reduce_scatter, REDUCE_SCATTER)
AUTO_BOTH(alltoall, ALLTOALL)
AUTO_BOTH(scan, SCAN)
AUTO_BOTH(exscan, EXSCAN)

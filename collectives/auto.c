/*
 * auto.c -- the `auto` algorithm of bcast, reduce, allreduce, gather,
 * scatter, allgather and reduce_scatter, and tutti_auto_choose (coll.h), which every `auto` (the
 * barrier's, barrier_auto.c, too) asks what to run.
 *
 * Idea: a rule of the world's rules (tutti_rank_rules: what `tutti tune`
 * measured) when one applies and its algorithm can run the call; else the
 * model choice: the registered algorithm of the collective (default
 * parameters, `auto` excluded) whose registered Hockney cost is least for
 * the model's Hockney view at the call's size (coll.h, tutti_auto_choose;
 * the barrier keeps its own closed forms, tutti_barrier_auto_choose).
 * Every rank computes the same choice from the same (model, rules, P,
 * bytes), so the ranks agree without a message.
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
tutti_cost_fn tutti__bcast_auto_cost, tutti__reduce_auto_cost, tutti__allreduce_auto_cost,
    tutti__gather_auto_cost, tutti__scatter_auto_cost, tutti__allgather_auto_cost,
    tutti__reduce_scatter_auto_cost;

int tutti_algo_is_auto(const tutti_algo_desc_t *d) {
  return d && !strcmp(d->name, "auto");
}

/* The least-cost candidate of coll under h: 0 with *best, *bound set, or
 * TUTTI_ENOTFOUND. op NULL: any op; root -1, bytes SIZE_MAX: not checked.
 * why (may be NULL) gets ", name cost" per candidate appended at *used
 * (steps: times are postal steps, shown as plain numbers). */
static int least(int coll, int P, int root, size_t bytes, size_t m, tutti_op_t op,
                 const tutti_hockney_t *h, tutti_algo_t *best, double *tbest, int *bound, char *why,
                 size_t whylen, size_t *used, int steps) {
  const tutti_algo_desc_t *d;
  double tb = INFINITY;
  int listed = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)); i++) {
    if (d->coll != coll || tutti_algo_is_auto(d)) continue;
    tutti_algo_t a;
    char err[256];
    int b = 0;
    if (tutti_algo_select(coll, d->name, NULL, &a, NULL, 0) ||
        tutti_algo_check_call(&a, P, root, bytes, op, err, sizeof err))
      continue;
    double t = tutti_algo_cost(&a, P, root < 0 ? 0 : root, m, h, &b);
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
 * side's path (L + O_r, as barrier_auto.c), plus O_s when eager. */
static double one_message(const tutti_model_t *m, double x) {
  double t = tutti_cost_eval(&m->latency, x) + tutti_cost_eval(&m->recv_cpu, x);
  return m->eager_limit == 0 ? t : t + tutti_cost_eval(&m->send_cpu, x);
}

/* ------------------------------------------------------------ the shared choice */

/* The model choice is a pure function of (coll, P, root, bytes, whether
 * the op commutes, the model's costs), and every rank of a call makes it.
 * Some candidates' costs replay their schedule (scatter-allgather's ring:
 * O(P^2)), so 1024 ranks each choosing cost a 1024-rank `auto` bcast ~10
 * CPU seconds. The ranks of a call share one computation here: the first
 * computes it holding the lock, the others then find it. Keys compare the
 * model's fields bit for bit (not its topology, which no estimate reads);
 * a miss only recomputes.
 *
 * A hit takes no lock: every call of an `auto` collective looks here, and
 * a lock shared by all ranks cost a 2-rank barrier more than its messages
 * (under load, a waiter sleeps while the holder is descheduled). Entries
 * are immutable once published; one replaced may still be read, so it is
 * kept on the retired list, not freed (about 1 KiB per distinct call
 * shape past the eight slots). */
struct memo {
  int coll, P, root, opc, rc;
  size_t bytes;
  tutti_model_t model; /* topo NULL */
  tutti_algo_t chosen;
  struct memo *retired; /* the next one on the retired list */
};
#define MEMO_N 8
static struct memo *memo[MEMO_N]; /* published with release, read with acquire */
static struct memo *retired;
static int memo_next;
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static int model_same(const tutti_model_t *a, const tutti_model_t *b) {
  return a->preset == b->preset && a->eager_limit == b->eager_limit &&
         !memcmp(a->params, b->params, sizeof a->params) &&
         !memcmp(&a->send_cpu, &b->send_cpu, sizeof a->send_cpu) &&
         !memcmp(&a->send_port, &b->send_port, sizeof a->send_port) &&
         !memcmp(&a->latency, &b->latency, sizeof a->latency) &&
         !memcmp(&a->recv_port, &b->recv_port, sizeof a->recv_port) &&
         !memcmp(&a->recv_cpu, &b->recv_cpu, sizeof a->recv_cpu) &&
         !memcmp(&a->gamma, &b->gamma, sizeof a->gamma);
}

static int model_choice(int coll, const tutti_model_t *m, int P, size_t bytes, int root,
                        tutti_op_t op, tutti_algo_t *chosen, char *why, size_t whylen, size_t used);

static const struct memo *memo_find(const struct memo *k) {
  for (int i = 0; i < MEMO_N; i++) {
    const struct memo *e = __atomic_load_n(&memo[i], __ATOMIC_ACQUIRE);
    if (e && e->coll == k->coll && e->P == k->P && e->root == k->root && e->bytes == k->bytes &&
        e->opc == k->opc && model_same(&e->model, &k->model))
      return e;
  }
  return NULL;
}

/* model_choice through the memo (why NULL: nothing to explain). */
static int model_choice_shared(int coll, const tutti_model_t *m, int P, size_t bytes, int root,
                               tutti_op_t op, tutti_algo_t *chosen) {
  struct memo k = {.coll = coll, .P = P, .root = root, .bytes = bytes, .model = *m};
  k.opc = op ? tutti_op_commutative(op) : 2;
  k.model.topo = NULL;
  const struct memo *e = memo_find(&k);
  if (e) {
    *chosen = e->chosen;
    return e->rc;
  }
  pthread_mutex_lock(&memo_lock);
  if (!(e = memo_find(&k))) { /* nobody made it meanwhile */
    k.rc = model_choice(coll, m, P, bytes, root, op, &k.chosen, NULL, 0, 0);
    struct memo *n = malloc(sizeof *n);
    if (n) { /* else only this call has it */
      *n = k;
      struct memo *old = memo[memo_next];
      __atomic_store_n(&memo[memo_next], n, __ATOMIC_RELEASE);
      if (old) old->retired = retired, retired = old;
      memo_next = (memo_next + 1) % MEMO_N;
    }
    e = &k;
  }
  *chosen = e->chosen;
  int rc = e->rc;
  pthread_mutex_unlock(&memo_lock);
  return rc;
}

int tutti_auto_choose(int coll, const tutti_model_t *m, const tutti_rules_t *rules, int P,
                      size_t bytes, int root, tutti_op_t op, tutti_algo_t *chosen, char *why,
                      size_t whylen) {
  if (!m || !chosen || P < 1 || coll < 0 || coll >= TUTTI_COLL_N) return TUTTI_EINVAL;
  if (why && whylen) why[0] = '\0';
  size_t used = 0;
  tutti_algo_t r;
  char rwhy[512] = "", err[256] = "";
  if (!tutti_rules_lookup(rules, coll, P, bytes, &r, rwhy, sizeof rwhy)) {
    if (!tutti_algo_check_call(&r, P, root, bytes, op, err, sizeof err)) {
      *chosen = r;
      if (why && whylen) snprintf(why, whylen, "rule %s", rwhy);
      return 0;
    }
    if (why && whylen) /* a rule for another op or shape: the model decides */
      used = (size_t)snprintf(why, whylen, "rule %s cannot run here (%s); ", rwhy, err);
  }
  if (!why || !whylen) return model_choice_shared(coll, m, P, bytes, root, op, chosen);
  return model_choice(coll, m, P, bytes, root, op, chosen, why, whylen, used);
}

/* The model choice (tutti_auto_choose without the rules); why gets the
 * reasons from *used on. */
static int model_choice(int coll, const tutti_model_t *m, int P, size_t bytes, int root,
                        tutti_op_t op, tutti_algo_t *chosen, char *why, size_t whylen,
                        size_t used) {
  if (coll == TUTTI_COLL_BARRIER) {
    int rc = tutti_barrier_auto_choose(m, P, chosen, why ? why + used : NULL,
                                       why && used < whylen ? whylen - used : 0);
    return rc;
  }
  tutti_hockney_t h = {1, 0, 0}; /* the none model: count message rounds */
  char a[64], b[64];
  if (m->preset != TUTTI_MODEL_NONE) {
    double m1 = bytes ? (double)bytes : 1;
    h.alpha = one_message(m, 0);
    h.beta = (one_message(m, m1) - h.alpha) / m1;
    h.gamma = m->gamma;
  }
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
  tutti_algo_t c;
  double t;
  size_t used = 0;
  *bound = 0;
  return least(coll, P, root, m, m, NULL, h, &c, &t, bound, NULL, 0, &used, 0) ? NAN : t;
}

/* Each `auto` takes its tag first, unconditionally (engine.h "Tags"); the
 * algorithm it runs takes its own. */
#define AUTO_TAG(r)                                                                                \
  do {                                                                                             \
    int tag_ = tutti_coll_tag(r);                                                                  \
    if (tag_ < 0) return tag_;                                                                     \
  } while (0)

static int choose(tutti_rank_t *r, int coll, size_t bytes, int root, tutti_op_t op,
                  tutti_algo_t *c) {
  return tutti_auto_choose(coll, tutti_rank_model(r), tutti_rank_rules(r), tutti_size(r), bytes,
                           root, op, c, NULL, 0);
}

int tutti__bcast_auto(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type, int root,
                      const tutti_algo_t *a) {
  (void)a;
  AUTO_TAG(r);
  tutti_algo_t c;
  int rc = choose(r, TUTTI_COLL_BCAST, (size_t)count * tutti_type_size(type), root, NULL, &c);
  return rc ? rc : c.desc->fn.bcast(r, buf, count, type, root, &c);
}

int tutti__reduce_auto(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                       tutti_datatype_t type, tutti_op_t op, int root, const tutti_algo_t *a) {
  (void)a;
  AUTO_TAG(r);
  tutti_algo_t c;
  int rc = choose(r, TUTTI_COLL_REDUCE, (size_t)count * tutti_type_size(type), root, op, &c);
  return rc ? rc : c.desc->fn.reduce(r, sbuf, rbuf, count, type, op, root, &c);
}

int tutti__allreduce_auto(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                          tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;
  AUTO_TAG(r);
  tutti_algo_t c;
  int rc = choose(r, TUTTI_COLL_ALLREDUCE, (size_t)count * tutti_type_size(type), -1, op, &c);
  return rc ? rc : c.desc->fn.allreduce(r, sbuf, rbuf, count, type, op, &c);
}

int tutti__gather_auto(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype,
                       void *rbuf, long rcount, tutti_datatype_t rtype, int root,
                       const tutti_algo_t *a) {
  (void)a;
  AUTO_TAG(r);
  tutti_algo_t c;
  int rc = choose(r, TUTTI_COLL_GATHER, (size_t)scount * tutti_type_size(stype), root, NULL, &c);
  return rc ? rc : c.desc->fn.gather(r, sbuf, scount, stype, rbuf, rcount, rtype, root, &c);
}

int tutti__scatter_auto(tutti_rank_t *r, const void *sbuf, long scount, tutti_datatype_t stype,
                        void *rbuf, long rcount, tutti_datatype_t rtype, int root,
                        const tutti_algo_t *a) {
  (void)a;
  AUTO_TAG(r);
  tutti_algo_t c;
  int rc = choose(r, TUTTI_COLL_SCATTER, (size_t)rcount * tutti_type_size(rtype), root, NULL, &c);
  return rc ? rc : c.desc->fn.scatter(r, sbuf, scount, stype, rbuf, rcount, rtype, root, &c);
}

int tutti__allgather_auto(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                          tutti_datatype_t type, const tutti_algo_t *a) {
  (void)a;
  AUTO_TAG(r);
  tutti_algo_t c;
  int rc = choose(r, TUTTI_COLL_ALLGATHER, (size_t)count * tutti_type_size(type), -1, NULL, &c);
  return rc ? rc : c.desc->fn.allgather(r, sbuf, rbuf, count, type, &c);
}

int tutti__reduce_scatter_auto(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                               tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  (void)a;
  AUTO_TAG(r);
  tutti_algo_t c;
  int rc = choose(r, TUTTI_COLL_REDUCE_SCATTER, (size_t)count * tutti_type_size(type), -1, op, &c);
  return rc ? rc : c.desc->fn.reduce_scatter(r, sbuf, rbuf, count, type, op, &c);
}

#define AUTO_COST(c, C)                                                                            \
  double tutti__##c##_auto_cost(const tutti_algo_t *a, int P, int root, size_t m,                  \
                                const tutti_hockney_t *h, int *bound) {                            \
    (void)a;                                                                                       \
    return auto_cost(TUTTI_COLL_##C, P, root, m, h, bound);                                        \
  }
AUTO_COST(bcast, BCAST)
AUTO_COST(reduce, REDUCE)
AUTO_COST(allreduce, ALLREDUCE)
AUTO_COST(gather, GATHER)
AUTO_COST(scatter, SCATTER)
AUTO_COST(allgather, ALLGATHER)
AUTO_COST(reduce_scatter, REDUCE_SCATTER)

/*
 * hierarchical.c -- bcast, reduce, allreduce and barrier in two levels,
 * for machines of multicore hosts: the ranks of each host among
 * themselves over its fast links (`intra`), and one leader per host over
 * the network (`inter`), each level any of tutti's own algorithms of the
 * collective, named as a parameter (inter=binomial,intra=flat).
 *
 * Idea: a flat algorithm sends as many messages over the network as
 * within a host; two levels send one per host over the network and the
 * rest within the hosts, whose links cost less.
 *   bcast:     inter among the leaders from the root, then intra on
 *              every host from its leader;
 *   reduce:    intra to every host's leader, then inter to the root;
 *   allreduce: intra reduce to every host's leader, inter allreduce
 *              among the leaders, intra bcast from each leader;
 *   barrier:   intra, inter among the leaders, intra again (a rank
 *              leaves only when its leader has, who left only when every
 *              leader's host had entered).
 * The root's host is led by the root; every other host by its lowest
 * rank. Hosts are what the backend knows (p2p.h, tutti_rank_host): the
 * topology's [host] sections (else its lowest switches) in the emulator,
 * shared-memory nodes over MPI. Each level runs in a group view
 * (tutti_group_enter), so the algorithm it names runs unchanged on the
 * group's ranks.
 *
 * Rank order: an inner reduce keeps its group's order, so a
 * non-commutative op stays right when every host holds consecutive ranks
 * (the leaders are then in host order). Fallbacks, one level (`inter`
 * over all ranks): no hosts known (the emulator without a topology), and
 * a non-commutative reduce or allreduce on hosts that are not ranges.
 * One rank per host, or one host, is one level by itself. A level's
 * restrictions are the algorithm's (tutti__levels_check: a commutative-
 * only level refuses a non-commutative op before any message moves). In
 * a group view already, it fails with TUTTI_EBUSY on every rank: views
 * do not nest.
 *
 * Tags: the algorithm takes one; each level's algorithm takes its own in
 * its view, which restarts the count at leave (p2p.h), so every rank
 * takes the same tags afterwards whatever levels it was in.
 *
 * Source: Open MPI's coll/han (Luo et al., "HAN: a hierarchical
 * autotuned collective communication framework", IEEE Cluster 2020);
 * MPICH's SMP-aware collectives (MPIR_Bcast_intra_smp and its kin).
 *
 * Cost under Hockney (no hosts: the one-level fallback): inter's on P
 * ranks, e.g. ceil(log2 P)(alpha + beta m) for inter=binomial. With H
 * hosts of c ranks, inter costs alpha_e, beta_e and intra alpha_i,
 * beta_i, binomial on both levels: bcast and reduce
 * ceil(log2 H)(alpha_e + beta_e m) + ceil(log2 c)(alpha_i + beta_i m).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "tutti/coll.h"

/* A call's two levels, as rank r sees them: its host's ranks and the
 * leaders, both ascending world ranks, and the roots within each. */
struct levels {
  int one;         /* 1: one level, `inter` on every rank (a fallback) */
  int nlocal;      /* ranks on r's host */
  int nleaders;    /* hosts */
  int local_root;  /* r's host's leader, as an index into local */
  int leader_root; /* the root's leader, as an index into leaders; -1: r leads no host */
  int *local, *leaders;
};

/* The handle a level's parameter names (inter or intra), for coll. */
static int level_algo(const tutti_algo_t *a, const char *name, int coll, const tutti_algo_t **out) {
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  for (int i = 0; i < d->nparams; i++)
    if (!strcmp(d->params[i].name, name))
      return tutti_algo_select(coll,
                               tutti_algo_param_is_auto(a, i)
                                   ? "auto"
                                   : d->params[i].choices[(long)tutti_algo_param_at(a, i)],
                               NULL, out, NULL, 0);
  return TUTTI_EINVAL;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}
static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Where rank x sits in the ascending list l of n ranks, -1 if absent. */
static int index_of(const int *l, int n, int x) {
  const int *p = bsearch(&x, l, (size_t)n, sizeof *l, cmp_int);
  return p ? (int)(p - l) : -1;
}

/* The levels of a call rooted at root, with op (NULL: none), into v (room
 * for P + 1 ints: r's host's ranks, then the leaders, one of whom is on
 * r's host). O(P log P): hosts sorted by (host, rank), whose runs start
 * at each host's lowest rank. */
static int levels_find(tutti_rank_t *r, int root, tutti_op_t op, int *v, struct levels *lv) {
  const int P = tutti_size(r), me = tutti_rank(r);
  if (P < 1 || me < 0 || root < 0 || root >= P) return TUTTI_EINVAL;
  int *host = malloc(sizeof *host * (size_t)P), rc = 0;
  uint64_t *key = malloc(sizeof *key * (size_t)P);
  memset(lv, 0, sizeof *lv);
  if (!host || !key) {
    rc = TUTTI_ENOMEM;
    goto done;
  }
  for (int q = 0; q < P && !rc; q++) rc = tutti_rank_host(r, q, &host[q]);
  if (rc == TUTTI_ENOTSUP) lv->one = 1, rc = 0; /* no hosts known */
  if (rc || lv->one) goto done;
  const int mine = host[me], rhost = host[root];
  int ranges = 1, nlocal = 0, nl = 0;
  for (int q = 0; q < P; q++) {
    ranges += q && host[q] != host[q - 1];
    nlocal += host[q] == mine;
    key[q] = (uint64_t)(uint32_t)host[q] << 32 | (uint32_t)q;
  }
  qsort(key, (size_t)P, sizeof *key, cmp_u64);
  int *local = v, *leaders = v + nlocal;
  for (int q = 0, i = 0; q < P; q++)
    if (host[q] == mine) local[i++] = q;
  for (int i = 0; i < P; i++)
    if (!i || key[i] >> 32 != key[i - 1] >> 32) /* a host's lowest rank */
      leaders[nl++] = (int)(uint32_t)(key[i] >> 32) == rhost ? root : (int)(uint32_t)key[i];
  /* a non-commutative op keeps rank order across hosts only when each
   * host is a range of ranks */
  if (op && tutti_op_commutative(op) != 1 && ranges != nl) {
    lv->one = 1;
    goto done;
  }
  qsort(leaders, (size_t)nl, sizeof *leaders, cmp_int);
  lv->nlocal = nlocal, lv->nleaders = nl;
  lv->local = local, lv->leaders = leaders;
  lv->local_root = mine == rhost ? index_of(local, nlocal, root) : 0;
  lv->leader_root = index_of(leaders, nl, me) >= 0 ? index_of(leaders, nl, root) : -1;
done:
  free(host);
  free(key);
  return rc;
}

/* The levels for this call: kept by the call's plan when it has room,
 * else in scratch (*tmp, freed by the caller). */
struct kept {
  int ready, rc;
  struct levels lv;
  int v[];
};
#define KEPT_MAX 4096

static int levels(tutti_rank_t *r, int root, tutti_op_t op, struct levels *lv, int **tmp) {
  const int P = tutti_size(r);
  if (P < 1) return TUTTI_EINVAL;
  size_t need = sizeof(struct kept) + ((size_t)P + 1) * sizeof(int);
  struct kept *k = need <= KEPT_MAX ? tutti_plan_state(r, need) : NULL;
  *tmp = NULL;
  if (k && k->ready) {
    *lv = k->lv;
    lv->local = k->v, lv->leaders = k->v + lv->nlocal;
    return k->rc;
  }
  int *v = k ? k->v : (*tmp = malloc(((size_t)P + 1) * sizeof(int)));
  if (!v) return TUTTI_ENOMEM;
  int rc = levels_find(r, root, op, v, lv);
  if (k) k->ready = 1, k->rc = rc, k->lv = *lv;
  return rc;
}

/* Run one level's call in the view of n ranks (none when the group is
 * r alone: a collective on one rank moves nothing). */
#define IN_GROUP(ranks, n, call)                                                                   \
  do {                                                                                             \
    if ((n) > 1) {                                                                                 \
      if ((rc = tutti_group_enter(r, ranks, n))) goto out;                                         \
      rc = (call);                                                                                 \
      int rc2_ = tutti_group_leave(r);                                                             \
      if (rc || (rc = rc2_)) goto out;                                                             \
    }                                                                                              \
  } while (0)

/* The start every algorithm shares: its tag, its levels and algorithms
 * (intra_coll: the collective intra names, allreduce's a reduce). */
#define BEGIN(coll, intra_coll, root, op)                                                          \
  int tag = tutti_coll_tag(r); /* first, unconditionally: engine.h "Tags" */                       \
  if (tag < 0) return tag;                                                                         \
  const tutti_algo_t *inter, *intra;                                                               \
  struct levels lv;                                                                                \
  int *tmp, rc = level_algo(a, "inter", coll, &inter);                                             \
  if (rc || (rc = level_algo(a, "intra", intra_coll, &intra))) return rc;                          \
  if ((rc = levels(r, root, op, &lv, &tmp))) return free(tmp), rc;                                 \
  int leads = lv.leader_root >= 0

int tutti__bcast_hierarchical(tutti_rank_t *r, void *buf, long count, tutti_datatype_t type,
                              int root, const tutti_algo_t *a) {
  BEGIN(TUTTI_COLL_BCAST, TUTTI_COLL_BCAST, root, NULL);
  if (lv.one) {
    rc = tutti_bcast(r, buf, count, type, root, inter);
    goto out;
  }
  if (leads)
    IN_GROUP(lv.leaders, lv.nleaders, tutti_bcast(r, buf, count, type, lv.leader_root, inter));
  IN_GROUP(lv.local, lv.nlocal, tutti_bcast(r, buf, count, type, lv.local_root, intra));
out:
  free(tmp);
  return rc;
}

int tutti__reduce_hierarchical(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                               tutti_datatype_t type, tutti_op_t op, int root,
                               const tutti_algo_t *a) {
  BEGIN(TUTTI_COLL_REDUCE, TUTTI_COLL_REDUCE, root, op);
  void *part = NULL; /* a leader's host result, unless it is the root's */
  if (lv.one) {
    rc = tutti_reduce(r, sbuf, rbuf, count, type, op, root, inter);
    goto out;
  }
  const int isroot = tutti_rank(r) == root;
  if (leads && !isroot && lv.nlocal > 1 &&
      !(part = tutti_scratch_alloc(r, (size_t)count * tutti_type_size(type)))) {
    rc = TUTTI_ENOMEM;
    goto out;
  }
  /* leaders: the host's result in part (the root: in rbuf); a lone leader's is sbuf */
  IN_GROUP(lv.local, lv.nlocal,
           tutti_reduce(r, sbuf, isroot ? rbuf : part, count, type, op, lv.local_root, intra));
  const void *in = isroot ? (lv.nlocal > 1 ? TUTTI_IN_PLACE : sbuf) : lv.nlocal > 1 ? part : sbuf;
  if (leads)
    IN_GROUP(lv.leaders, lv.nleaders,
             tutti_reduce(r, in, rbuf, count, type, op, lv.leader_root, inter));
  if (isroot && lv.nleaders == 1 && lv.nlocal == 1 && sbuf != TUTTI_IN_PLACE)
    rc = tutti_local_copy(r, rbuf, sbuf, (size_t)count * tutti_type_size(type));
out:
  tutti_scratch_free(r, part);
  free(tmp);
  return rc;
}

int tutti__allreduce_hierarchical(tutti_rank_t *r, const void *sbuf, void *rbuf, long count,
                                  tutti_datatype_t type, tutti_op_t op, const tutti_algo_t *a) {
  BEGIN(TUTTI_COLL_ALLREDUCE, TUTTI_COLL_REDUCE, 0, op);
  if (lv.one) {
    rc = tutti_allreduce(r, sbuf, rbuf, count, type, op, inter);
    goto out;
  }
  const tutti_algo_t *intra_bcast;
  if ((rc = level_algo(a, "intra", TUTTI_COLL_BCAST, &intra_bcast))) goto out;
  /* every rank's input where the levels read it: rbuf for a leader, which
   * reduces into it in place, sbuf (or rbuf, in place) for the others */
  const void *in = sbuf == TUTTI_IN_PLACE && !leads ? rbuf : sbuf;
  if (lv.nlocal == 1 && sbuf != TUTTI_IN_PLACE &&
      (rc = tutti_local_copy(r, rbuf, sbuf, (size_t)count * tutti_type_size(type))))
    goto out;
  IN_GROUP(lv.local, lv.nlocal, tutti_reduce(r, in, rbuf, count, type, op, lv.local_root, intra));
  if (leads)
    IN_GROUP(lv.leaders, lv.nleaders,
             tutti_allreduce(r, TUTTI_IN_PLACE, rbuf, count, type, op, inter));
  IN_GROUP(lv.local, lv.nlocal, tutti_bcast(r, rbuf, count, type, lv.local_root, intra_bcast));
out:
  free(tmp);
  return rc;
}

int tutti__barrier_hierarchical(tutti_rank_t *r, const tutti_algo_t *a) {
  BEGIN(TUTTI_COLL_BARRIER, TUTTI_COLL_BARRIER, 0, NULL);
  if (lv.one) {
    rc = tutti_barrier(r, inter);
    goto out;
  }
  IN_GROUP(lv.local, lv.nlocal, tutti_barrier(r, intra));
  if (leads) IN_GROUP(lv.leaders, lv.nleaders, tutti_barrier(r, inter));
  IN_GROUP(lv.local, lv.nlocal, tutti_barrier(r, intra));
out:
  free(tmp);
  return rc;
}

int tutti_algo_is_two_level(const tutti_algo_desc_t *d) {
  return d && tutti_algo_builtin(d) && !strcmp(d->name, "hierarchical");
}

int tutti__levels_check(const tutti_algo_t *a, tutti_op_t op, char *err, size_t errlen) {
  const int coll = tutti_algo_desc(a)->coll;
  const int colls[2] = {coll, coll == TUTTI_COLL_ALLREDUCE ? TUTTI_COLL_REDUCE : coll};
  const char *const names[2] = {"inter", "intra"};
  for (int k = 0; k < 2; k++) {
    const tutti_algo_t *l;
    char why[256] = "";
    int rc = level_algo(a, names[k], colls[k], &l);
    if (!rc && (rc = tutti_algo_check(l, 1, op, why, sizeof why)) && err && errlen)
      snprintf(err, errlen, "%s '%s': %s: %s", tutti_coll_name(coll), tutti_algo_desc(a)->name,
               names[k], why);
    if (rc) return rc;
  }
  return 0;
}

/* Hockney knows no hosts: the one-level fallback's cost and messages,
 * inter's (an algorithm of a's own collective) on P. */
static const tutti_algo_t *inter_of(const tutti_algo_t *a) {
  const tutti_algo_t *inter;
  return level_algo(a, "inter", tutti_algo_desc(a)->coll, &inter) ? NULL : inter;
}
#define ONE_LEVEL(c)                                                                               \
  double tutti__##c##_hierarchical_cost(const tutti_algo_t *a, int P, int root, size_t m,          \
                                        const tutti_hockney_t *h, int *bound) {                    \
    const tutti_algo_t *inter = inter_of(a);                                                       \
    return inter ? tutti_algo_cost(inter, P, root, m, h, bound) : NAN;                             \
  }                                                                                                \
  double tutti__##c##_hierarchical_msgs(const tutti_algo_t *a, int P, int root, size_t m,          \
                                        const tutti_hockney_t *h) {                                \
    const tutti_algo_t *inter = inter_of(a);                                                       \
    return inter ? tutti_algo_messages(inter, P, root, m, h) : NAN;                                \
  }
ONE_LEVEL(bcast)
ONE_LEVEL(reduce)
ONE_LEVEL(allreduce)
ONE_LEVEL(barrier)

/*
 * algo_call.c -- what a selected algorithm (select.c) answers about one
 * call: the per-call checks of its parameters against the rank count,
 * root and size (tutti_algo_check_call runs them), its Hockney cost
 * (tutti_algo_cost, and tutti_algo_cost_elem with the element size), its
 * tree (tutti_algo_treespec) and the postal L a model's latency and gap
 * make for a message (tutti_algo_postal_L).
 */
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "engine.h"
#include "tutti/coll.h"
#include "tutti/units.h"

/* ---------------------------------------------------- per-call checks */

int tutti__check_segments(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes,
                          char *err, size_t errlen) {
  (void)nranks, (void)root;
  const tutti_algo_desc_t *d = &a->e->d;
  const tutti_params_t *p = tutti__params(a);
  long S = p->segments;
  if (S == TUTTI_PARAM_AUTO) return 0;
  if (p->segment) {
    tutti__errf(err, errlen,
                "%s '%s': both segments=%ld and segment=%zu given; accepted: one of them (segment "
                "sets the segments' size, segments their number)",
                tutti_coll_name(d->coll), d->name, S, p->segment);
    return TUTTI_EINVAL;
  }
  /* an empty message is one empty message, whatever S */
  if (bytes != SIZE_MAX && bytes > 0 && (size_t)S > bytes) {
    tutti__errf(err, errlen,
                "%s '%s': parameter '%s': %ld segments of a %zu-byte message; accepted: 1..%zu "
                "(whole bytes) or auto",
                tutti_coll_name(d->coll), d->name, d->params[i].name, S, bytes, bytes);
    return TUTTI_EINVAL;
  }
  return 0;
}

int tutti__check_order(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes, char *err,
                       size_t errlen) {
  (void)bytes;
  if (tutti__params(a)->order != TUTTI_ORDER_LIST || nranks < 1) return 0; /* nranks: checked */
  const tutti_algo_desc_t *d = &a->e->d;
  const char *who = tutti_coll_name(d->coll), *nm = d->params[i].name, *list = a->list[i];
  char acc[96];
  snprintf(acc, sizeof acc, "a permutation of the ranks 0..%d starting at the root", nranks - 1);
  long n = tutti__rank_list(list, NULL, 0);
  if (n != nranks) {
    tutti__errf(err, errlen,
                "%s '%s': %s=list:%.60s%s has %ld ranks for a world of %d; accepted: %s", who,
                d->name, nm, list, strlen(list) > 60 ? "..." : "", n, nranks, acc);
    return TUTTI_EINVAL;
  }
  int *order = malloc((size_t)nranks * sizeof *order);
  unsigned char *seen = calloc((size_t)nranks, 1);
  int rc = 0;
  if (!order || !seen) {
    tutti__errf(err, errlen, "out of memory");
    rc = TUTTI_ENOMEM;
    goto out;
  }
  tutti__rank_list(list, order, nranks);
  for (int k = 0; k < nranks && !rc; k++) {
    if (order[k] >= nranks) {
      tutti__errf(err, errlen, "%s '%s': %s=list: %d is not a rank of 0..%d; accepted: %s", who,
                  d->name, nm, order[k], nranks - 1, acc);
      rc = TUTTI_EINVAL;
    } else if (seen[order[k]]++) {
      tutti__errf(err, errlen, "%s '%s': %s=list: rank %d appears twice; accepted: %s", who,
                  d->name, nm, order[k], acc);
      rc = TUTTI_EINVAL;
    }
  }
  if (!rc && root >= 0 && order[0] != root) {
    tutti__errf(err, errlen, "%s '%s': %s=list starts at rank %d, not at the root %d; accepted: %s",
                who, d->name, nm, order[0], root, acc);
    rc = TUTTI_EINVAL;
  }
out:
  free(order);
  free(seen);
  return rc;
}

/* Not an error: recursive doubling on a P that is not a power of two runs
 * the ring, and says so. */
int tutti__check_allgather(const tutti_algo_t *a, int i, int nranks, int root, size_t bytes,
                           char *err, size_t errlen) {
  (void)root, (void)bytes;
  if (tutti__params(a)->allgather == TUTTI_ALLGATHER_RECDBL && (nranks & (nranks - 1)))
    tutti__errf(
        err, errlen,
        "%s '%s': %s=recursive-doubling needs a power-of-two number of ranks; %d ranks run the "
        "ring allgather instead",
        tutti_coll_name(a->e->d.coll), a->e->d.name, a->e->d.params[i].name, nranks);
  return 0;
}

/* The element size tutti_algo_cost_elem gives the built-in cost functions
 * for the call in progress on this thread (0: not known); their signature
 * (tutti_cost_fn, the plugins' too) has no place for it. */
static _Thread_local size_t cost_elem;

int tutti__cost_blocks(size_t m, long b, double *blk, int *even, long *count) {
  size_t e = cost_elem;
  if (!e || m % e || b < 1) return 0;
  size_t n = m / e, per = n / (size_t)b + (n % (size_t)b != 0);
  *even = n % (size_t)b == 0;
  *blk = *even ? (double)m / (double)b : (double)(per * e);
  if (count) *count = (long)n;
  return 1;
}

long tutti__cost_count(size_t m) {
  double blk;
  int even;
  long n = (long)m;
  tutti__cost_blocks(m, 1, &blk, &even, &n);
  return n;
}

double tutti_algo_cost_elem(const tutti_algo_t *a, int P, int root, size_t m, size_t elem,
                            const tutti_hockney_t *h, int *bound) {
  size_t was = cost_elem;
  cost_elem = elem && m % elem == 0 ? elem : 0;
  double t = tutti_algo_cost(a, P, root, m, h, bound);
  cost_elem = was;
  return t;
}

double tutti_algo_cost(const tutti_algo_t *a, int P, int root, size_t m, const tutti_hockney_t *h,
                       int *bound) {
  int b = 0;
  double t = NAN;
  /* P within the rank limit: a cost function may build a P-node tree */
  if (tutti__algo_valid(a) && a->e->d.cost_fn && h && P >= 1 && P <= TUTTI_COST_MAX_RANKS &&
      root >= 0 && root < P)
    t = a->e->d.cost_fn(a, P, root, m, h, &b);
  if (bound) *bound = b;
  return t;
}

double tutti_algo_messages(const tutti_algo_t *a, int P, int root, size_t m,
                           const tutti_hockney_t *h) {
  if (!tutti__algo_valid(a) || !a->e->d.msgs_fn || !h || P < 1 || P > TUTTI_COST_MAX_RANKS ||
      root < 0 || root >= P || m > (size_t)LONG_MAX)
    return NAN;
  return a->e->d.msgs_fn(a, P, root, m, h);
}

int tutti_algo_treespec(const tutti_algo_t *a, int L_auto, tutti_treespec_t *spec) {
  if (!tutti__algo_valid(a) || a->e->tree < 0 || !spec) return TUTTI_EINVAL;
  const struct tutti__entry *e = a->e;
  *spec = tutti_treespec_default(e->tree);
  if (L_auto < 1) L_auto = 1;
  int il = e->tp[TUTTI__TP_LAMBDA], iL = e->tp[TUTTI__TP_L], ik = e->tp[TUTTI__TP_K];
  if (il >= 0)
    spec->lambda = a->is_auto >> il & 1u ? tutti_lambda_auto_postal(L_auto) : a->value[il];
  if (iL >= 0) spec->L = a->is_auto >> iL & 1u ? L_auto : (int)a->value[iL];
  if (ik >= 0) spec->k = (int)a->value[ik];
  return tutti_tree_check(spec);
}

int tutti_algo_postal_L(const tutti_model_t *m, size_t bytes) {
  /* For the postal preset this is exactly L (latency L, gap 1). */
  double lat = tutti_cost_eval(&m->latency, (double)bytes + (double)m->header);
  double gap = tutti_cost_eval(&m->send_port, (double)bytes + (double)m->header);
  if (!(lat > 0 && gap > 0)) return TUTTI_TREE_DEFAULT_L;
  double L = lat / gap, most = tutti_tree_kind_param(TUTTI_TREE_POSTAL)->max;
  if (!(L >= 1)) return 1;
  return L > most ? (int)most : (int)lround(L);
}

/*
 * coll_helpers.h -- shared by the collective tests: pick (select an
 * algorithm by name or fail the test), mkworld (a world of n ranks under
 * a model, or native with NULL) and timed (the modeled time of one call
 * of a collective on a fresh world, runtime/MODEL.md rule 7), hockney and postal
 * (a preset model or fail the test). Needs Criterion and tutti.h.
 */
#ifndef TUTTI_TEST_COLL_HELPERS_H
#define TUTTI_TEST_COLL_HELPERS_H

#include <stdlib.h>

static inline tutti_model_t hockney(double alpha, double beta) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_hockney(&m, alpha, beta), 0));
  return m;
}

static inline tutti_model_t postal(double L) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_postal(&m, L), 0));
  return m;
}

static inline const tutti_algo_t *pick(int coll, const char *name, const char *params) {
  const tutti_algo_t *a = NULL;
  char err[256];
  int rc = tutti_algo_select(coll, name, params, &a, err, sizeof err);
  cr_assert(eq(int, rc, 0), "select %s %s: %s", name, params ? params : "", err);
  return a;
}

static inline tutti_world_t *mkworld(int n, const tutti_model_t *m) {
  tutti_config_t c = tutti_config_default(n);
  c.model = m;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  return w;
}

struct one {
  int coll;
  const tutti_algo_t *algo; /* NULL: the default */
  long count;
  tutti_datatype_t type;
  int root;
};

/* One call of o->coll, with the default algorithm (or TUTTI_<COLL>'s) when
 * o->algo is NULL. */
static inline int one_call(tutti_rank_t *r, void *arg) {
  const struct one *o = arg;
  int P = tutti_size(r), rc = 0;
  size_t bytes = (size_t)o->count * tutti_type_size(o->type);
  /* b: P blocks; a: one block, or P where both buffers hold P (alltoall) */
  int exchange = (tutti_coll_traits(o->coll) & TUTTI_COLL_EXCHANGE) != 0;
  char *a = calloc(exchange ? (size_t)P : 1, bytes + 1), *b = calloc((size_t)P, bytes + 1);
  const tutti_algo_t *al = o->algo;
  switch (o->coll) {
  case TUTTI_COLL_BCAST:
    rc = tutti_bcast(r, a, o->count, o->type, o->root, al);
    break;
  case TUTTI_COLL_REDUCE:
    rc = tutti_reduce(r, a, b, o->count, o->type, TUTTI_SUM, o->root, al);
    break;
  case TUTTI_COLL_GATHER:
    rc = tutti_gather(r, a, o->count, o->type, b, o->count, o->type, o->root, al);
    break;
  case TUTTI_COLL_SCATTER:
    rc = tutti_scatter(r, b, o->count, o->type, a, o->count, o->type, o->root, al);
    break;
  case TUTTI_COLL_BARRIER:
    rc = tutti_barrier(r, al);
    break;
  case TUTTI_COLL_ALLGATHER:
    rc = tutti_allgather(r, a, b, o->count, o->type, al);
    break;
  case TUTTI_COLL_REDUCE_SCATTER:
    rc = tutti_reduce_scatter(r, b, a, o->count, o->type, TUTTI_SUM, al);
    break;
  case TUTTI_COLL_ALLTOALL:
    rc = tutti_alltoall(r, a, b, o->count, o->type, al);
    break;
  case TUTTI_COLL_SCAN:
    rc = tutti_scan(r, a, b, o->count, o->type, TUTTI_SUM, al);
    break;
  case TUTTI_COLL_EXSCAN:
    rc = tutti_exscan(r, a, b, o->count, o->type, TUTTI_SUM, al);
    break;
  }
  free(a);
  free(b);
  return rc;
}

/* The modeled time of one call (runtime/MODEL.md rule 7) on a fresh world. */
static inline double timed(int P, const tutti_model_t *m, int coll, const tutti_algo_t *algo,
                           long count, tutti_datatype_t type, int root) {
  tutti_world_t *w = mkworld(P, m);
  struct one o = {coll, algo, count, type, root};
  cr_assert(eq(int, tutti_world_run(w, one_call, &o), 0), "%s", tutti_world_error(w));
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  cr_assert(eq(int, rep.ncalls, 1));
  double t = rep.calls[0].time;
  tutti_world_destroy(w);
  return t;
}

#endif

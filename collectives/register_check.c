/*
 * register_check.c -- what a description must hold to join the registry
 * (registry.c): a good name, parameters whose types, ranges, defaults and
 * words agree, a tree algorithm's shape parameters as tutti's own TREE
 * lines declare them (its movers and cost filled in from the engine), and
 * the deep copy a registration keeps of a caller's description. Every
 * algorithm, built-in or not, passes these same checks.
 */
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

/* Letters, digits, '-', '_' (and no leading '-'): what a selection's
 * "name:k=v" and a file name's ".c" never leave in doubt. */
static int good_name(const char *s, int dash) {
  if (!s || !*s || *s == '-' || strlen(s) > 64) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_' || (dash && *s == '-')))
      return 0;
  return 1;
}

static int nwords(const char *const *w) {
  int n = 0;
  while (w && w[n]) n++;
  return n;
}

/* The field a parameter type fills in the algorithm's struct. */
static size_t field_size(int type) {
  return type == TUTTI_PARAM_REAL   ? sizeof(double)
         : type == TUTTI_PARAM_SIZE ? sizeof(size_t)
                                    : sizeof(long);
}

/* Is d a description this registry can take? 0, or TUTTI_EINVAL with the
 * sentence (who: "bcast 'mine'"). Fills e's tree and tp. */
static int check_params(const tutti_algo_desc_t *d, const char *who, struct tutti__entry *e,
                        char *err, size_t errlen) {
  static const char *const types = "REAL, INT, SIZE, CHOICE";
  for (int i = 0; i < d->nparams; i++) {
    const tutti_param_desc_t *p = &d->params[i];
    if (!good_name(p->name, 0)) {
      tutti__errf(
          err, errlen,
          "%s: parameter %d has a bad name '%s'; accepted: letters, digits and '_', at most 64",
          who, i, p->name ? p->name : "(null)");
      return TUTTI_EINVAL;
    }
    for (int j = 0; j < i; j++)
      if (!strcmp(d->params[j].name, p->name)) {
        tutti__errf(err, errlen, "%s: parameter '%s' is declared twice; accepted: each name once",
                    who, p->name);
        return TUTTI_EINVAL;
      }
    if (p->type < TUTTI_PARAM_REAL || p->type > TUTTI_PARAM_CHOICE) {
      tutti__errf(err, errlen, "%s: parameter '%s' has unknown type %d; accepted: %s", who, p->name,
                  p->type, types);
      return TUTTI_EINVAL;
    }
    if (p->flags & ~(TUTTI_PARAM_AUTO_OK | TUTTI_PARAM_AUTO_DEFAULT)) {
      tutti__errf(err, errlen,
                  "%s: parameter '%s' has unknown flags 0x%x; accepted: TUTTI_PARAM_AUTO_OK, "
                  "TUTTI_PARAM_AUTO_DEFAULT",
                  who, p->name, p->flags);
      return TUTTI_EINVAL;
    }
    if ((p->flags & TUTTI_PARAM_AUTO_DEFAULT) && !(p->flags & TUTTI_PARAM_AUTO_OK)) {
      tutti__errf(err, errlen, "%s: parameter '%s': an auto default needs TUTTI_PARAM_AUTO_OK", who,
                  p->name);
      return TUTTI_EINVAL;
    }
    if (p->type == TUTTI_PARAM_CHOICE) {
      int n = nwords(p->choices);
      if (n == 0) {
        tutti__errf(err, errlen,
                    "%s: choice parameter '%s' has no words; accepted: a NULL-ended list", who,
                    p->name);
        return TUTTI_EINVAL;
      }
      for (int w = 0; w < n; w++)
        if (!*p->choices[w] || strchr(p->choices[w], ',') || strchr(p->choices[w], '=')) {
          tutti__errf(err, errlen,
                      "%s: parameter '%s': bad word '%s'; accepted: words without ',' or '='", who,
                      p->name, p->choices[w]);
          return TUTTI_EINVAL;
        }
      if (p->min != 0 || p->max != n - 1) {
        tutti__errf(
            err, errlen,
            "%s: choice parameter '%s': range [%g, %g]; accepted: [0, %d], its words' indices", who,
            p->name, p->min, p->max, n - 1);
        return TUTTI_EINVAL;
      }
    } else if (p->choices) {
      tutti__errf(err, errlen, "%s: parameter '%s' has words but is not a choice", who, p->name);
      return TUTTI_EINVAL;
    }
    if (isnan(p->min) || isnan(p->max) || p->min > p->max || isinf(p->min)) {
      tutti__errf(err, errlen, "%s: parameter '%s': min %g > max %g; accepted: a finite min <= max",
                  who, p->name, p->min, p->max);
      return TUTTI_EINVAL;
    }
    if (!(p->flags & TUTTI_PARAM_AUTO_DEFAULT) && !(p->def >= p->min && p->def <= p->max)) {
      tutti__errf(err, errlen, "%s: parameter '%s': default %g is out of its range [%g, %g]", who,
                  p->name, p->def, p->min, p->max);
      return TUTTI_EINVAL;
    }
    if (p->type == TUTTI_PARAM_SIZE && p->min < 0) {
      tutti__errf(err, errlen, "%s: size parameter '%s': min %g; accepted: >= 0", who, p->name,
                  p->min);
      return TUTTI_EINVAL;
    }
    if (d->params_size &&
        (p->offset % field_size(p->type) || p->offset + field_size(p->type) > d->params_size)) {
      tutti__errf(
          err, errlen,
          "%s: parameter '%s': offset %zu does not hold a %zu-byte field in params_size %zu", who,
          p->name, p->offset, field_size(p->type), d->params_size);
      return TUTTI_EINVAL;
    }
  }
  for (int t = 0; t < TUTTI__TP_N; t++) {
    e->tp[t] = -1;
    for (int i = 0; i < d->nparams; i++)
      if (!strcmp(d->params[i].name, tutti__tree_params[t].name)) e->tp[t] = i;
  }
  return 0;
}

static int check_tree(const tutti_algo_desc_t *d, const char *who, struct tutti__entry *e,
                      char *err, size_t errlen) {
  e->tree = -1;
  if (!d->tree) return 0;
  static const char *const kinds = "flat, chain, binary, binomial, knomial, lambda, postal";
  if (tutti_tree_kind_find(d->tree, &e->tree)) {
    tutti__errf(err, errlen, "%s: unknown tree kind '%s'; accepted: %s", who, d->tree, kinds);
    return TUTTI_EINVAL;
  }
  int c = d->coll;
  if (c != TUTTI_COLL_BCAST && c != TUTTI_COLL_REDUCE && c != TUTTI_COLL_GATHER &&
      c != TUTTI_COLL_SCATTER && c != TUTTI_COLL_BARRIER) {
    tutti__errf(
        err, errlen,
        "%s: %s has no tree mover; accepted: a tree for bcast, reduce, gather, scatter, barrier",
        who, tutti_coll_name(c));
    return TUTTI_EINVAL;
  }
  int contiguous = tutti_tree_contiguous(e->tree) == 1;
  if (!contiguous && (c == TUTTI_COLL_GATHER || c == TUTTI_COLL_SCATTER)) {
    tutti__errf(err, errlen,
                "%s: %s moves contiguous subtrees, and a %s tree's are not; accepted: flat, chain, "
                "binomial, knomial, lambda, postal",
                who, tutti_coll_name(c), d->tree);
    return TUTTI_EINVAL;
  }
  if (!contiguous && c == TUTTI_COLL_REDUCE && !(d->restrictions & TUTTI_ALGO_COMMUTATIVE)) {
    tutti__errf(err, errlen,
                "%s: a reduce on a %s tree cannot keep rank order; accepted: restrictions "
                "TUTTI_ALGO_COMMUTATIVE, or a contiguous tree",
                who, d->tree);
    return TUTTI_EINVAL;
  }
  for (int t = 0; t < TUTTI__TP_N; t++) {
    int i = e->tp[t];
    if (i < 0) continue;
    if (d->params[i].type != tutti__tree_params[t].type) {
      tutti__errf(err, errlen, "%s: tree parameter '%s' must be of type %s", who,
                  tutti__tree_params[t].name,
                  t == TUTTI__TP_LAMBDA    ? "REAL"
                  : t == TUTTI__TP_SEGMENT ? "SIZE"
                                           : "INT");
      return TUTTI_EINVAL;
    }
    if (t == TUTTI__TP_SEGMENT && c != TUTTI_COLL_BCAST && c != TUTTI_COLL_REDUCE) {
      tutti__errf(err, errlen,
                  "%s: %s's tree mover does not segment; accepted: segment for bcast, reduce", who,
                  tutti_coll_name(c));
      return TUTTI_EINVAL;
    }
  }
  return 0;
}

/* The tree movers and their costs, per collective (engine.h). */
static void tree_fns(int coll, tutti_algo_desc_t *d) {
  switch (coll) {
  case TUTTI_COLL_BCAST:
    d->fn.bcast = tutti__bcast_tree;
    break;
  case TUTTI_COLL_REDUCE:
    d->fn.reduce = tutti__reduce_tree;
    break;
  case TUTTI_COLL_GATHER:
    d->fn.gather = tutti__gather_tree;
    break;
  case TUTTI_COLL_SCATTER:
    d->fn.scatter = tutti__scatter_tree;
    break;
  default:
    d->fn.barrier = tutti__barrier_tree;
    break;
  }
  if (!d->msgs_fn) d->msgs_fn = tutti__tree_msgs;
  if (d->cost_fn) return;
  switch (coll) {
  case TUTTI_COLL_BCAST:
    d->cost_fn = tutti__bcast_tree_cost;
    break;
  case TUTTI_COLL_REDUCE:
    d->cost_fn = tutti__reduce_tree_cost;
    break;
  case TUTTI_COLL_GATHER:
    d->cost_fn = tutti__gather_tree_cost;
    break;
  case TUTTI_COLL_SCATTER:
    d->cost_fn = tutti__scatter_tree_cost;
    break;
  default:
    d->cost_fn = tutti__barrier_tree_cost;
    break;
  }
}

/* d checked on its own into e (not yet registered): 0 or TUTTI_EINVAL. */
int tutti__desc_into(const tutti_algo_desc_t *d, struct tutti__entry *e, char *err, size_t errlen) {
  char who[128];
  if (!d) {
    tutti__errf(err, errlen, "no algorithm description given");
    return TUTTI_EINVAL;
  }
  if (d->abi != TUTTI_ALGO_ABI) {
    tutti__errf(
        err, errlen,
        "algorithm '%s' was written for ABI version %u, %s; this tutti accepts %d (rebuild it "
        "against this tutti's headers)",
        good_name(d->name, 1) ? d->name : "?", d->abi,
        d->abi > TUTTI_ALGO_ABI ? "from a newer tutti" : "from an older tutti", TUTTI_ALGO_ABI);
    return TUTTI_EINVAL;
  }
  if (d->coll < 0 || d->coll >= TUTTI_COLL_N) {
    char all[160] = "";
    for (int i = 0; i < TUTTI_COLL_N; i++)
      snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "",
               tutti_coll_name(i));
    tutti__errf(err, errlen, "algorithm '%s': unknown collective %d; accepted: %s",
                good_name(d->name, 1) ? d->name : "?", d->coll, all);
    return TUTTI_EINVAL;
  }
  if (!good_name(d->name, 1)) {
    tutti__errf(
        err, errlen,
        "%s algorithm: bad name '%s'; accepted: letters, digits, '-' and '_', at most 64, not "
        "starting with '-'",
        tutti_coll_name(d->coll), d->name ? d->name : "(null)");
    return TUTTI_EINVAL;
  }
  snprintf(who, sizeof who, "%s '%s'", tutti_coll_name(d->coll), d->name);
  if (d->nparams < 0 || d->nparams > TUTTI_MAX_PARAMS || (d->nparams && !d->params)) {
    tutti__errf(err, errlen, "%s: %d parameters; accepted: 0..%d, in params", who, d->nparams,
                TUTTI_MAX_PARAMS);
    return TUTTI_EINVAL;
  }
  if (!d->fn.any && !d->tree) {
    tutti__errf(err, errlen, "%s: no function and no tree; accepted: fn.%s, or a tree kind", who,
                tutti_coll_name(d->coll));
    return TUTTI_EINVAL;
  }
  if (d->restrictions & ~(unsigned)(TUTTI_ALGO_COMMUTATIVE | TUTTI_ALGO_POW2)) {
    tutti__errf(
        err, errlen,
        "%s: unknown restriction bits 0x%x; accepted: TUTTI_ALGO_COMMUTATIVE, TUTTI_ALGO_POW2", who,
        d->restrictions);
    return TUTTI_EINVAL;
  }
  if (!d->summary || !*d->summary) {
    tutti__errf(err, errlen, "%s: no summary; accepted: its idea in one line", who);
    return TUTTI_EINVAL;
  }
  int rc = check_params(d, who, e, err, errlen);
  if (!rc) rc = check_tree(d, who, e, err, errlen);
  if (rc) return rc;
  e->d = *d;
  if (d->nparams) memcpy(e->params, d->params, (size_t)d->nparams * sizeof *d->params);
  e->d.params = e->params;
  if (e->tree >= 0 && !d->fn.any) tree_fns(d->coll, &e->d);
  return 0;
}

/* A deep copy of a caller's description (its strings, parameters and
 * words), which the caller may then free; tutti__desc_free undoes it. A
 * copy made for a registration that fails is freed; one registered lives
 * as long as the process (the entry points to it). */
int tutti__desc_dup(const tutti_algo_desc_t *d, tutti_algo_desc_t **out) {
  int np = d && d->nparams > 0 && d->nparams <= TUTTI_MAX_PARAMS && d->params ? d->nparams : 0;
  tutti_algo_desc_t *c = calloc(1, sizeof *c + (size_t)np * sizeof(tutti_param_desc_t));
  *out = c;
  if (!c) return TUTTI_ENOMEM;
  if (!d) return 0;
  *c = *d;
  tutti_param_desc_t *ps = (tutti_param_desc_t *)(c + 1);
  if (np) memcpy(ps, d->params, (size_t)np * sizeof *ps);
  c->params =
      np ? ps : d->params; /* a bad count keeps the caller's, for tutti__desc_into to refuse */
  int bad = 0;
#define OWN(f)                                                                                     \
  do {                                                                                             \
    if ((f) && !((f) = strdup(f))) bad = 1;                                                        \
  } while (0)
  OWN(c->name);
  OWN(c->tree);
  OWN(c->summary);
  OWN(c->source);
  OWN(c->cost);
  for (int i = 0; i < np; i++) {
    OWN(ps[i].name);
    OWN(ps[i].help);
    if (ps[i].choices) {
      int n = nwords(ps[i].choices);
      const char **w = calloc((size_t)n + 1, sizeof *w);
      for (int k = 0; w && k < n; k++)
        if (!(w[k] = strdup(ps[i].choices[k]))) bad = 1;
      if (!w) bad = 1;
      ps[i].choices = w;
    }
  }
#undef OWN
  if (bad) {
    tutti__desc_free(c);
    *out = NULL;
    return TUTTI_ENOMEM;
  }
  return 0;
}

void tutti__desc_free(tutti_algo_desc_t *c) {
  if (!c) return;
  free((char *)c->name), free((char *)c->tree), free((char *)c->summary);
  free((char *)c->source), free((char *)c->cost);
  tutti_param_desc_t *ps = (tutti_param_desc_t *)(c + 1);
  if (c->params == ps)
    for (int i = 0; i < c->nparams; i++) {
      free((char *)ps[i].name), free((char *)ps[i].help);
      for (int k = 0; ps[i].choices && ps[i].choices[k]; k++) free((char *)ps[i].choices[k]);
      free((void *)ps[i].choices);
    }
  free(c);
}

int tutti__desc_check(const tutti_algo_desc_t *d, char *err, size_t errlen) {
  struct tutti__entry *e = calloc(1, sizeof *e);
  if (!e) {
    tutti__errf(err, errlen, "out of memory");
    return TUTTI_ENOMEM;
  }
  int rc = tutti__desc_into(d, e, err, errlen);
  free(e);
  return rc;
}

/*
 * rules.c -- a set of rules for the `auto` algorithms (coll.h,
 * tutti_rules_t): which algorithm to run for a collective, a rank count
 * and a range of message sizes. Built once (tutti_rules_add, or a rules
 * file: topo/rules_file.c), then only read, by any number of threads.
 *
 * A lookup scans the set: a few hundred rules at most (what `tutti tune`
 * writes for its grid), once per `auto` call, is cheaper than any index.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/coll.h"
#include "tutti/units.h"

struct rule {
  int coll, ranks, line;
  size_t lo, hi;
  const tutti_algo_t *algo;
};

struct tutti_rules {
  char source[256]; /* for `why` texts */
  int n, cap;
  struct rule *v;
};

int tutti_rules_create(tutti_rules_t **out, const char *source) {
  if (!out) return TUTTI_EINVAL;
  tutti_rules_t *r = calloc(1, sizeof *r);
  if (!r) return TUTTI_ENOMEM;
  snprintf(r->source, sizeof r->source, "%s", source ? source : "rules");
  *out = r;
  return 0;
}

void tutti_rules_free(tutti_rules_t *rules) {
  if (!rules) return;
  free(rules->v);
  free(rules);
}

int tutti_rules_count(const tutti_rules_t *rules) {
  return rules ? rules->n : 0;
}

static void errf(char *err, size_t n, const char *what) {
  if (err && n) snprintf(err, n, "%s", what);
}

static char *range_text(size_t lo, size_t hi, char *buf, size_t n) {
  char a[32], b[32];
  tutti_format_bytes(lo, a, sizeof a);
  if (hi == TUTTI_RULES_NO_LIMIT)
    snprintf(buf, n, "%s..", a);
  else
    snprintf(buf, n, "%s..%s", a, tutti_format_bytes(hi, b, sizeof b));
  return buf;
}

int tutti_rules_add(tutti_rules_t *rules, int coll, int ranks, size_t lo, size_t hi,
                    const tutti_algo_t *algo, int line, char *err, size_t errlen) {
  char msg[512];
  const tutti_algo_desc_t *d = tutti_algo_desc(algo);
  if (!rules || !d) return errf(err, errlen, "missing argument"), TUTTI_EINVAL;
  if (coll < 0 || coll >= TUTTI_COLL_N)
    return errf(err, errlen, "unknown collective"), TUTTI_EINVAL;
  if (ranks < 1) return errf(err, errlen, "ranks must be >= 1"), TUTTI_EINVAL;
  if (lo > hi) return errf(err, errlen, "the range's low end is above its high end"), TUTTI_EINVAL;
  if (d->coll != coll)
    return errf(err, errlen, "the algorithm is not one of this collective's"), TUTTI_EINVAL;
  if (tutti_algo_is_auto(d))
    return errf(err, errlen, "a rule names the algorithm to run, not auto"), TUTTI_EINVAL;
  for (int i = 0; i < rules->n; i++) {
    const struct rule *o = &rules->v[i];
    if (o->coll != coll || o->ranks != ranks || hi < o->lo || lo > o->hi) continue;
    char r1[80], r2[80];
    snprintf(msg, sizeof msg, "bytes %s overlaps bytes %s of line %d (both at ranks = %d)",
             range_text(lo, hi, r1, sizeof r1), range_text(o->lo, o->hi, r2, sizeof r2), o->line,
             ranks);
    return errf(err, errlen, msg), TUTTI_EINVAL;
  }
  if (rules->n == rules->cap) {
    int cap = rules->cap ? 2 * rules->cap : 16;
    struct rule *v = realloc(rules->v, (size_t)cap * sizeof *v);
    if (!v) return errf(err, errlen, "out of memory"), TUTTI_ENOMEM;
    rules->v = v, rules->cap = cap;
  }
  rules->v[rules->n++] = (struct rule){coll, ranks, line, lo, hi, algo};
  return 0;
}

int tutti_rules_lookup(const tutti_rules_t *rules, int coll, int P, size_t bytes,
                       const tutti_algo_t **out, char *why, size_t whylen) {
  if (!out || coll < 0 || coll >= TUTTI_COLL_N || P < 1) return TUTTI_EINVAL;
  if (!rules) return TUTTI_ENOTFOUND;
  int R = 0; /* the largest rank count at or below P */
  for (int i = 0; i < rules->n; i++)
    if (rules->v[i].coll == coll && rules->v[i].ranks <= P && rules->v[i].ranks > R)
      R = rules->v[i].ranks;
  for (int i = 0; R && i < rules->n; i++) {
    const struct rule *r = &rules->v[i];
    if (r->coll != coll || r->ranks != R || bytes < r->lo || bytes > r->hi) continue;
    *out = r->algo;
    if (why && whylen) {
      char rt[80];
      snprintf(why, whylen, "%s:%d: ranks >= %d, bytes %s", rules->source, r->line, R,
               range_text(r->lo, r->hi, rt, sizeof rt));
    }
    return 0;
  }
  return TUTTI_ENOTFOUND;
}

/*
 * rankinfo.c -- what a rank's code asks of it besides messages (p2p.h, the
 * backend contract): its number, the world's size, model and rules, the
 * contention-free chain, a status's element count, the collectives' tags
 * and their per-rank memo. Called from the rank's own thread.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>

#include "internal.h"
#include "tutti/p2p.h"  /* tutti_coll_tag, tutti_rank_model, tutti_rank_chain: the contract */
#include "tutti/topo.h" /* tutti_topo_chain_order */

/* In a group view (group.c), the rank's place in it and its size. */
int tutti_rank(const tutti_rank_t *r) {
  return r ? r->grp ? r->grp_me : r->rank : TUTTI_EINVAL;
}
int tutti_size(const tutti_rank_t *r) {
  return r ? r->grp ? r->grp_n : r->size : TUTTI_EINVAL;
}
tutti_world_t *tutti_rank_world(const tutti_rank_t *r) {
  return r ? r->world : NULL;
}

int tutti_coll_tag(tutti_rank_t *r) {
  if (!r) return TUTTI_EINVAL;
  const uint32_t span = (uint32_t)TUTTI_TAG_MAX - TUTTI_TAG_UB; /* reserved tags */
  uint32_t i = r->coll_seq++ % span;
  if (i == span - 1) r->coll_tags_all = true; /* p2p.c check_tag: every one handed out */
  return TUTTI_TAG_UB + 1 + (int)i;
}

void **tutti_rank_coll_cache(tutti_rank_t *r) {
  return r ? &r->coll_cache : NULL;
}

void *tutti_rank_coll_room(tutti_rank_t *r, size_t *size) {
  *size = r ? sizeof r->coll0 : 0;
  return r ? r->coll0 : NULL;
}

void tutti_rank_doing(tutti_rank_t *r, const char *what) {
  if (r) r->doing = what;
}

/* Published with a CAS: the loser frees its block and takes the winner's.
 * fini is read only when the world is destroyed, after its run. */
void *tutti_rank_shared(tutti_rank_t *r, size_t size, void (*fini)(void *)) {
  if (!r) return NULL;
  struct tutti_world *w = r->world;
  void *b = __atomic_load_n(&w->coll_shared, __ATOMIC_ACQUIRE);
  if (b) return b;
  void *mine = calloc(1, size ? size : 1);
  if (!mine) return NULL;
  if (__atomic_compare_exchange_n(&w->coll_shared, &b, mine, false, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE)) {
    w->coll_shared_fini = fini;
    return mine;
  }
  free(mine);
  return b;
}

const tutti_model_t *tutti_rank_model(const tutti_rank_t *r) {
  return &r->world->model;
}

const struct tutti_rules *tutti_rank_rules(const tutti_rank_t *r) {
  return r->world->rules;
}

int tutti_rank_chain(const tutti_rank_t *r, int root, int *prev, int *next) {
  const int P = tutti_size(r), me = tutti_rank(r);
  if (!r || !prev || !next || root < 0 || root >= P) return TUTTI_EINVAL;
  const int v = (me - root + P) % P;
  const struct tutti_topo *t = r->world->model.topo;
  if (!t || P == 1 || r->grp) { /* rank order from the root (a group's order in a view) */
    *prev = v ? (me - 1 + P) % P : -1;
    *next = v < P - 1 ? (me + 1) % P : -1;
    return 0;
  }
  /* The whole order, then this rank's place in it: O(P) per call, kept
   * nowhere, so a rank's memory stays independent of P between calls. */
  int *order = malloc((size_t)P * sizeof *order);
  if (!order) return TUTTI_ENOMEM;
  int rc = tutti_topo_chain_order(t, NULL, P, root, order);
  *prev = *next = -1;
  for (int i = 0; !rc && i < P; i++)
    if (order[i] == r->rank) {
      *prev = i ? order[i - 1] : -1;
      *next = i + 1 < P ? order[i + 1] : -1;
      break;
    }
  free(order);
  return rc;
}

int tutti_status_count(const tutti_status_t *st, tutti_datatype_t type, long *count) {
  if (!st || !count) return TUTTI_EINVAL;
  if (!tutti__type_ok(type)) return TUTTI_ETYPE;
  /* a whole count beyond LONG_MAX (a status with up to SIZE_MAX bytes)
   * has no long to hold it: refused, never wrapped to a negative count */
  size_t n = st->bytes / type->size;
  if (!(st->bytes % type->size) && n > (size_t)LONG_MAX)
    return *count = TUTTI_UNDEFINED, TUTTI_ECOUNT;
  *count = st->bytes % type->size ? TUTTI_UNDEFINED : (long)n;
  return 0;
}

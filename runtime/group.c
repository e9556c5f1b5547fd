/*
 * group.c -- group views and hosts (p2p.h "groups"): a rank that enters a
 * view sees a subset of the world's ranks, numbered 0..n-1 in world order,
 * so that an algorithm written for a whole world runs unchanged on one
 * host's ranks or on one leader per host. Only the rank's public face
 * changes: tutti_rank, tutti_size, the peers of p2p calls (p2p.c maps them
 * to world ranks at the entry points, tutti__peer_world), the statuses it
 * hands out and the chain. Inside, everything stays in world ranks: the
 * messages, the matching, the records, a deadlock's report.
 */
#include "internal.h"
#include "tutti/p2p.h"
#include "tutti/topo.h" /* tutti_topo_leaf_of_rank, tutti_topo_leaf_switch */

int tutti_group_enter(tutti_rank_t *r, const int *ranks, int n) {
  if (!r) return TUTTI_EINVAL;
  if (r->grp) return TUTTI_EBUSY;
  if (!ranks || n < 1 || n > r->size) return TUTTI_EINVAL;
  int me = -1;
  for (int i = 0; i < n; i++) {
    if (ranks[i] < 0 || ranks[i] >= r->size || (i && ranks[i] <= ranks[i - 1]))
      return TUTTI_EINVAL; /* not world ranks in ascending order */
    if (ranks[i] == r->rank) me = i;
  }
  if (me < 0) return TUTTI_EINVAL;
  r->grp = ranks, r->grp_n = n, r->grp_me = me;
  r->grp_seq = r->coll_seq;
  return 0;
}

int tutti_group_leave(tutti_rank_t *r) {
  if (!r) return TUTTI_EINVAL;
  if (!r->grp) return TUTTI_EBUSY;
  r->grp = NULL;
  r->coll_seq = r->grp_seq;
  return 0;
}

/* The group is ascending: a binary search finds a world rank's index. */
void tutti__status_view(const struct tutti_rank *r, tutti_status_t *st) {
  if (!r->grp || st->source < 0) return;
  int lo = 0, hi = r->grp_n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (r->grp[mid] < st->source)
      lo = mid + 1;
    else
      hi = mid;
  }
  st->source = lo < r->grp_n && r->grp[lo] == st->source ? lo : TUTTI_UNDEFINED;
}

int tutti_rank_host(const tutti_rank_t *r, int rank, int *host) {
  if (!r || !host || rank < 0 || rank >= r->size) return TUTTI_EINVAL;
  const struct tutti_topo *t = r->world->model.topo;
  if (!t) return TUTTI_ENOTSUP;
  int leaf = tutti_topo_leaf_of_rank(t, rank);
  int sw = leaf < 0 ? leaf : tutti_topo_leaf_switch(t, leaf);
  if (sw < 0) return TUTTI_EINVAL;
  *host = sw;
  return 0;
}

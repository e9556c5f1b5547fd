/*
 * route.c -- the unique path between two leaves of a tree of switches: up
 * from the source to the lowest switch above both, then down to the
 * destination, as directed link ids (topo.h "Ids").
 *
 * Both ends climb to equal depth, then together until they meet: O(depth)
 * time, no memory. tutti_topo_path_link gives one hop of the path without
 * storing it, so the replay can keep a hop counter per message.
 */
#include "topo_impl.h"

/* Links up from node u (du of them) and down to node v (dv). */
static void split(const tutti_topo_t *t, int u, int v, int *du, int *dv) {
  int a = 0, b = 0;
  while (t->dep[u] > t->dep[v]) u = t->parent[u], a++;
  while (t->dep[v] > t->dep[u]) v = t->parent[v], b++;
  while (u != v) u = t->parent[u], v = t->parent[v], a++, b++;
  *du = a;
  *dv = b;
}

int tutti_topo_route(const tutti_topo_t *t, int a, int b, int *links, int cap) {
  if (!t || a < 0 || b < 0 || a >= t->nleaves || b >= t->nleaves || cap < 0 || (!links && cap))
    return TUTTI_EINVAL;
  int u = t->nsw + a, v = t->nsw + b, du, dv;
  split(t, u, v, &du, &dv);
  int k = du + dv;
  if (k > cap) return TUTTI_ENOMEM;
  for (int i = 0; i < du; i++, u = t->parent[u]) links[i] = tutti__up_link(u);
  for (int i = 0; i < dv; i++, v = t->parent[v]) links[k - 1 - i] = tutti__up_link(v) + 1;
  return k;
}

int tutti_topo_path_link(const tutti_topo_t *t, int a, int b, int i) {
  if (!t || a < 0 || b < 0 || a >= t->nleaves || b >= t->nleaves || i < 0) return TUTTI_EINVAL;
  int u = t->nsw + a, v = t->nsw + b, du, dv;
  split(t, u, v, &du, &dv);
  if (i < du) {
    while (i-- > 0) u = t->parent[u];
    return tutti__up_link(u);
  }
  if (i >= du + dv) return -1;
  for (int j = du + dv - 1 - i; j > 0; j--) v = t->parent[v];
  return tutti__up_link(v) + 1;
}

int tutti_topo_path_len(const tutti_topo_t *t, int a, int b) {
  if (!t || a < 0 || b < 0 || a >= t->nleaves || b >= t->nleaves) return TUTTI_EINVAL;
  int du, dv;
  split(t, t->nsw + a, t->nsw + b, &du, &dv);
  return du + dv;
}

int tutti_topo_route_ranks(const tutti_topo_t *t, int src, int dst, int *links, int cap) {
  if (!t || src < 0 || dst < 0 || src >= t->nranks || dst >= t->nranks) return TUTTI_EINVAL;
  return tutti_topo_route(t, t->leaf_of_rank[src], t->leaf_of_rank[dst], links, cap);
}

int tutti_topo_path_link_ranks(const tutti_topo_t *t, int src, int dst, int i) {
  if (!t || src < 0 || dst < 0 || src >= t->nranks || dst >= t->nranks) return TUTTI_EINVAL;
  return tutti_topo_path_link(t, t->leaf_of_rank[src], t->leaf_of_rank[dst], i);
}

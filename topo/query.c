/*
 * query.c -- the plain queries of topo.h on a built topology: counts,
 * parents, switch names and ids, link ids and parameters, link and node
 * names, the one-line description; and tutti_topo_default_links, the
 * value of links no list or file set.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topo_impl.h"
#include "tutti/units.h"

int tutti_topo_default_links(tutti_topo_t *t, double lat, double beta) {
  if (!t || !(lat >= 0 && lat <= TUTTI_TIME_MAX) || !(beta >= 0 && beta <= TUTTI_PER_BYTE_MAX))
    return TUTTI_EINVAL;
  t->params[0].lat = lat;
  t->params[0].beta = beta;
  return 0;
}

int tutti_topo_unset_links(const tutti_topo_t *t) {
  return t ? t->unset : TUTTI_EINVAL;
}
int tutti_topo_nleaves(const tutti_topo_t *t) {
  return t ? t->nleaves : TUTTI_EINVAL;
}
int tutti_topo_nswitches(const tutti_topo_t *t) {
  return t ? t->nsw : TUTTI_EINVAL;
}
int tutti_topo_nlinks(const tutti_topo_t *t) {
  return t ? 2 * (t->nnodes - 1) : TUTTI_EINVAL;
}
int tutti_topo_depth(const tutti_topo_t *t) {
  return t ? t->depth : TUTTI_EINVAL;
}
int tutti_topo_levels(const tutti_topo_t *t) {
  return t ? t->levels : TUTTI_EINVAL;
}

int tutti_topo_leaf_switch(const tutti_topo_t *t, int leaf) {
  if (!t || leaf < 0 || leaf >= t->nleaves) return TUTTI_EINVAL;
  return t->parent[t->nsw + leaf];
}

int tutti_topo_switch_parent(const tutti_topo_t *t, int sw) {
  if (!t || sw < 0 || sw >= t->nsw) return TUTTI_EINVAL;
  return t->parent[sw];
}

const char *tutti_topo_switch_name(const tutti_topo_t *t, int sw) {
  if (!t || sw < 0 || sw >= t->nsw) return NULL;
  return t->names + t->name_off[sw];
}

int tutti_topo_switch_find(const tutti_topo_t *t, const char *name) {
  if (!t || !name) return TUTTI_EINVAL;
  for (int s = 0; s < t->nsw; s++)
    if (!strcmp(t->names + t->name_off[s], name)) return s;
  return TUTTI_ENOTFOUND;
}

int tutti_topo_leaf_link(const tutti_topo_t *t, int leaf) {
  if (!t || leaf < 0 || leaf >= t->nleaves) return TUTTI_EINVAL;
  return tutti__up_link(t->nsw + leaf);
}

int tutti_topo_switch_link(const tutti_topo_t *t, int sw) {
  if (!t || sw <= 0 || sw >= t->nsw) return TUTTI_EINVAL;
  return tutti__up_link(sw);
}

int tutti_topo_link_get(const tutti_topo_t *t, int link, tutti_topo_link_t *out) {
  if (!t || !out || link < 0 || link >= 2 * (t->nnodes - 1)) return TUTTI_EINVAL;
  *out = t->params[t->lp[link]];
  return 0;
}

void tutti__topo_node_name(const tutti_topo_t *t, int node, char *buf, size_t n) {
  if (node < t->nsw) {
    snprintf(buf, n, "%s", t->names + t->name_off[node]);
    return;
  }
  int l = node - t->nsw;
  if (t->rank_of_leaf && t->rank_of_leaf[l] >= 0)
    snprintf(buf, n, "leaf %d (rank %d)", l, t->rank_of_leaf[l]);
  else
    snprintf(buf, n, "leaf %d", l);
}

int tutti_topo_link_name(const tutti_topo_t *t, int link, char *buf, size_t n) {
  if (!t || !buf || n == 0 || link < 0 || link >= 2 * (t->nnodes - 1)) return TUTTI_EINVAL;
  char a[TUTTI_TOPO_NAME_MAX + 32], b[TUTTI_TOPO_NAME_MAX + 32];
  int v = tutti__link_node(link);
  tutti__topo_node_name(t, v, a, sizeof a);
  tutti__topo_node_name(t, t->parent[v], b, sizeof b);
  if (tutti__link_is_down(link))
    snprintf(buf, n, "%s -> %s", b, a);
  else
    snprintf(buf, n, "%s -> %s", a, b);
  return 0;
}

int tutti_topo_describe(const tutti_topo_t *t, char *buf, size_t n) {
  if (!t || !buf || n == 0) return TUTTI_EINVAL;
  int w = snprintf(buf, n, "%s: %d switch%s, %d leaves, depth %d", t->origin, t->nsw,
                   t->nsw == 1 ? "" : "es", t->nleaves, t->depth);
  if (t->nranks && w >= 0 && (size_t)w < n)
    snprintf(buf + w, n - (size_t)w, "; %d ranks, mapping %s", t->nranks, t->mapping);
  return 0;
}

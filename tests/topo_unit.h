/*
 * topo_unit.h -- what the topology unit tests share (test_unit_topo*.c):
 * the data files under tests/data/topo/, found through $TUTTI_SOURCE_DIR
 * (set by ctest), else the current directory; opening and binding that
 * must succeed; a link's ends and a chain's flows per directed link,
 * computed from the layout to check routes independently.
 */
#ifndef TUTTI_TESTS_TOPO_UNIT_H
#define TUTTI_TESTS_TOPO_UNIT_H

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo_impl.h" /* node ids, to check routes independently */
#include "tutti/topo.h"
#include "tutti/tutti.h"

#define HAS(msg, sub)                                                                              \
  cr_assert(ne(ptr, strstr(msg, sub), NULL), "message '%s' lacks '%s'", msg, sub)

static inline const char *data_path(const char *file) {
  static char buf[4096];
  const char *src = getenv("TUTTI_SOURCE_DIR");
  snprintf(buf, sizeof buf, "%s/tests/data/topo/%s", src && *src ? src : ".", file);
  return buf;
}

static inline tutti_topo_t *open_ok(const char *what, const char *links) {
  tutti_topo_t *t = NULL;
  char err[1024] = "";
  int rc = tutti_topo_open(what, links, &t, err, sizeof err);
  cr_assert(eq(int, rc, 0), "'%s': %s", what, err);
  cr_assert(ne(ptr, t, NULL));
  return t;
}

static inline tutti_topo_t *file_ok(const char *file) {
  return open_ok(data_path(file), NULL);
}

static inline void bind_ok(tutti_topo_t *t, int n, const char *mapping, unsigned flags) {
  char err[1024] = "";
  int rc = tutti_topo_bind_text(t, n, mapping, flags, err, sizeof err);
  cr_assert(eq(int, rc, 0), "bind %d '%s': %s", n, mapping, err);
}

/* The directed link's ends as nodes, from the layout (topo.h "Ids"). */
static inline void link_ends(const tutti_topo_t *t, int link, int *from, int *to) {
  int v = link / 2 + 1;
  *from = link & 1 ? t->parent[v] : v;
  *to = link & 1 ? v : t->parent[v];
}

/* Flows per directed link of a chain order[0] -> order[1] -> ...: route
 * each hop, count. Returns the most flows on one link; counts (nlinks
 * entries, may be NULL) receives every count. */
static inline int chain_flows(const tutti_topo_t *t, const int *order, int n, int *counts) {
  int nl = tutti_topo_nlinks(t), path[256], most = 0;
  int *c = counts ? counts : calloc((size_t)nl, sizeof *c);
  if (counts) memset(counts, 0, (size_t)nl * sizeof *counts);
  for (int i = 0; i + 1 < n; i++) {
    int k = tutti_topo_route_ranks(t, order[i], order[i + 1], path, 256);
    cr_assert(ge(int, k, 0));
    for (int j = 0; j < k; j++)
      if (++c[path[j]] > most) most = c[path[j]];
  }
  if (!counts) free(c);
  return most;
}

static inline int link_between(const tutti_topo_t *t, const char *from, const char *to) {
  int a = tutti_topo_switch_find(t, from), b = tutti_topo_switch_find(t, to);
  cr_assert(ge(int, a, 0), "no switch %s", from);
  cr_assert(ge(int, b, 0), "no switch %s", to);
  if (tutti_topo_switch_parent(t, a) == b) return tutti_topo_switch_link(t, a);
  cr_assert(eq(int, tutti_topo_switch_parent(t, b), a), "%s and %s are not neighbours", from, to);
  return tutti_topo_switch_link(t, b) + 1;
}

#endif

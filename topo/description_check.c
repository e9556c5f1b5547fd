/*
 * description_check.c -- the checks of an INI topology description that
 * need the whole file (children may be defined after their parent, so
 * nothing here can run while description.c reads): every child name
 * resolved, one parent each, no cycle, one root without an uplink, the
 * depth limit, leaves numbered 0..N-1; then the builder's children, root
 * and leaf count. Apart from the reading so that each reads on its own;
 * the state they share is description.h's. Every failure names the line
 * at fault (topo/README.md "The INI description").
 */
#include <stdio.h>
#include <stdlib.h>

#include "build.h"
#include "description.h"
#include "tutti/ini.h"
#include "topo_impl.h"

/* The depth limit (topo.h), on the parent links of a checked tree, before
 * anything is laid out: every switch has a leaf below it, so a switch
 * TUTTI_TOPO_MAX_DEPTH levels below the root makes the tree too deep.
 * Reported at the 'children' line that lists the first such switch (in
 * file order). Iterative: each switch's depth is found once, walking up to
 * a switch whose depth is known. */
static int check_depth(struct istate *st) {
  int nsw = st->nsw, bad = -1;
  int *dep = malloc((size_t)nsw * sizeof *dep), *path = malloc((size_t)nsw * sizeof *path);
  if (!dep || !path) {
    free(dep);
    free(path);
    tutti_ini_oom(&st->ini);
    return -1;
  }
  for (int s = 0; s < nsw; s++) dep[s] = -1;
  for (int s = 0; s < nsw; s++) {
    int k = 0, v = s;
    while (v >= 0 && dep[v] < 0) {
      path[k++] = v;
      v = st->sw[v].parent;
    }
    int d = v < 0 ? -1 : dep[v];
    while (k > 0) dep[path[--k]] = ++d;
    if (dep[s] == TUTTI_TOPO_MAX_DEPTH &&
        (bad < 0 || st->sw[s].parent_line < st->sw[bad].parent_line))
      bad = s;
  }
  free(dep);
  free(path);
  if (bad < 0) return 0;
  tutti_ini_fail(&st->ini, st->sw[bad].parent_line,
                 "key 'children': '%s' is %d levels below the root, so its leaves are deeper; "
                 "accepted: a tree at most %d levels deep (root to deepest leaf)",
                 st->b->sw[bad].name, TUTTI_TOPO_MAX_DEPTH, TUTTI_TOPO_MAX_DEPTH);
  return -1;
}

int tutti__desc_check_tree(struct istate *st) {
  struct build *b = st->b;
  int nsw = st->nsw;
  if (nsw <= 0) {
    tutti_ini_fail(&st->ini, 1,
                   "no switch; accepted: a tree of [switch NAME] (and [host NAME]) sections with "
                   "children and leaves");
    return -1;
  }
  /* names, and one parent each */
  for (int s = 0; s < nsw; s++) {
    struct isw *is = &st->sw[s];
    for (int i = 0; i < is->nch; i++) {
      int c = tutti__desc_name_find(st, is->ch[i].name);
      if (c < 0) {
        tutti_ini_fail(&st->ini, is->ch[i].line,
                       "key 'children': unknown switch '%s'; accepted: the name of a "
                       "[switch NAME] or [host NAME] section",
                       is->ch[i].name);
        return -1;
      }
      if (st->sw[c].parent >= 0) {
        tutti_ini_fail(&st->ini, is->ch[i].line,
                       "key 'children': '%s' listed as a child twice (first on line %d, "
                       "under '%s'); accepted: each switch below one parent, once",
                       is->ch[i].name, st->sw[c].parent_line, b->sw[st->sw[c].parent].name);
        return -1;
      }
      st->sw[c].parent = s;
      st->sw[c].parent_line = is->ch[i].line;
    }
  }
  for (int s = 0; s < nsw; s++) {
    struct isw *is = &st->sw[s];
    if (is->nch == 0 && is->nlv == 0) {
      tutti_ini_fail(&st->ini, is->line, "%s '%s': no children and no leaves; accepted: %s",
                     is->kind == TUTTI__SW_HOST ? "host" : "switch", b->sw[s].name,
                     is->kind == TUTTI__SW_HOST ? "leaves = LIST (its cores)"
                                                : "children = NAMES and/or leaves = LIST");
      return -1;
    }
    for (int i = 0; i < is->nov; i++) {
      int l = is->ov[i].leaf;
      if (l >= st->leafcap || st->leaf_owner[l] != s) {
        tutti_ini_fail(&st->ini, is->ov[i].line,
                       "key 'leaf_link.%d': leaf %d is not under '%s'; accepted: "
                       "leaf_link.N for a leaf N in this section's leaves",
                       l, l, b->sw[s].name);
        return -1;
      }
    }
  }
  /* cycles: follow parents; a walk that meets itself is a cycle */
  int *stamp = calloc((size_t)nsw, sizeof *stamp);
  if (!stamp) {
    tutti_ini_oom(&st->ini);
    return -1;
  }
  for (int s = 0; s < nsw; s++) {
    int v = s;
    while (v >= 0 && stamp[v] == 0) {
      stamp[v] = s + 1;
      v = st->sw[v].parent;
    }
    if (v < 0 || stamp[v] != s + 1) continue;
    /* v is on a cycle: its members in parent order, m[i+1] = parent of
     * m[i]; it is named at the listing that closes it (the last line
     * among its parent links), from that listing's parent downward */
    int k = 0, j = 0, line = 0;
    int u = v;
    do {
      stamp[k++] = u; /* stamps of this walk are done with: reuse as m[] */
      u = st->sw[u].parent;
    } while (u != v);
    for (int i = 0; i < k; i++)
      if (st->sw[stamp[i]].parent_line > line) {
        line = st->sw[stamp[i]].parent_line;
        j = i;
      }
    int top = stamp[j];
    char path[512];
    size_t off = 0;
    for (int i = 0; i <= k && off < sizeof path; i++) {
      int m = stamp[((j + 1 - i) % k + k) % k];
      int w = snprintf(path + off, sizeof path - off, "%s%s", i ? " > " : "", b->sw[m].name);
      if (w > 0) off += (size_t)w;
    }
    tutti_ini_fail(&st->ini, line,
                   "key 'children': '%s' closes a cycle: %s (each above the next); accepted: a "
                   "tree, no switch below itself",
                   b->sw[top].name, path);
    free(stamp);
    return -1;
  }
  free(stamp);
  /* one root */
  int root = -1;
  for (int s = 0; s < nsw; s++) {
    if (st->sw[s].parent >= 0) continue;
    if (root >= 0) {
      tutti_ini_fail(&st->ini, st->sw[s].line,
                     "%s '%s': below no switch, and neither is '%s' (line %d); "
                     "accepted: one root switch above every other switch",
                     st->sw[s].kind == TUTTI__SW_HOST ? "host" : "switch", b->sw[s].name,
                     b->sw[root].name, st->sw[root].line);
      return -1;
    }
    root = s;
  }
  if (st->sw[root].up_line) {
    tutti_ini_fail(&st->ini, st->sw[root].up_line,
                   "key 'uplink': '%s' is the root and has no parent; accepted: "
                   "uplink on switches below another",
                   b->sw[root].name);
    return -1;
  }
  if (check_depth(st)) return -1;
  /* leaves 0..N-1 */
  int nleaves = st->maxleaf + 1;
  for (int l = 0; l < nleaves; l++)
    if (st->leaf_owner[l] < 0) {
      tutti_ini_fail(&st->ini, st->maxleaf_line,
                     "key 'leaves': leaf %d is missing (leaves go up to %d, listed "
                     "here); accepted: leaves numbered 0..N-1, each once",
                     l, st->maxleaf);
      return -1;
    }
  if (nleaves == 0) {
    tutti_ini_fail(&st->ini, st->sw[root].line,
                   "no leaves; accepted: leaves = LIST in the switches");
    return -1;
  }
  /* builder children: leaves first, then child switches */
  for (int s = 0; s < nsw; s++) {
    struct isw *is = &st->sw[s];
    for (int i = 0; i < is->nlv; i++)
      if (tutti__build_kid(&b->sw[s], -is->lv[i] - 1)) {
        tutti_ini_oom(&st->ini);
        return -1;
      }
    for (int i = 0; i < is->nch; i++)
      if (tutti__build_kid(&b->sw[s], tutti__desc_name_find(st, is->ch[i].name))) {
        tutti_ini_oom(&st->ini);
        return -1;
      }
  }
  b->root = root;
  b->nleaves = nleaves;
  return 0;
}

/*
 * topo_impl.h -- the private layout of a topology, shared by the files of
 * topo/ only (topo.c builds it, query.c answers questions on it, route.c
 * walks it, mapping.c binds ranks to it, print.c draws it, link.c times
 * messages over it).
 *
 * Nodes: switches 0..nsw-1 in breadth-first order from the root (0), then
 * leaves: leaf l is node nsw + l. Every node but the root has an edge to
 * its parent: up link 2(v-1), down link 2(v-1)+1. Per node: parent, next
 * sibling, depth, and the two links' parameter indices (lp); per switch:
 * first child, name. Link parameters are few distinct values, so links
 * keep an index into params[] (params[0] is the default, "not set").
 */
#ifndef TUTTI_TOPO_IMPL_H
#define TUTTI_TOPO_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "tutti/topo.h"
#include "tutti/p2p.h"

enum { TUTTI__SW_SWITCH = 0, TUTTI__SW_HOST = 1 };

struct tutti_topo {
  int nsw, nleaves, nnodes;
  int depth;     /* edges from the root to the deepest leaf */
  int levels;    /* the root's height */
  int *parent;   /* nnodes; -1 for the root */
  int *next;     /* nnodes; next sibling or -1 */
  int *dep;      /* nnodes; depth of the node */
  int *first;    /* nsw; first child node or -1 */
  uint8_t *kind; /* nsw; TUTTI__SW_* */
  uint32_t *lp;  /* nlinks = 2 (nnodes - 1); index into params */
  tutti_topo_link_t *params;
  int nparams;
  int unset;     /* links whose index is 0 */
  char *names;   /* nsw NUL-terminated names, back to back */
  int *name_off; /* nsw */
  char *origin;  /* "tree:4x8" or the file name */
  int from_file; /* origin is a file name */
  int root_line; /* the root switch's section line (files) */
  /* the binding */
  int nranks;
  int *leaf_of_rank; /* nranks */
  int *rank_of_leaf; /* nleaves; -1 empty */
  char mapping[96];
};

static inline int tutti__node_of_leaf(const tutti_topo_t *t, int leaf) {
  return t->nsw + leaf;
}
static inline int tutti__up_link(int node) {
  return 2 * (node - 1);
}
static inline int tutti__link_node(int link) {
  return link / 2 + 1;
}
static inline int tutti__link_is_down(int link) {
  return link & 1;
}

/* The node name of a node: a switch's name, or "leaf N". */
void tutti__topo_node_name(const tutti_topo_t *t, int node, char *buf, size_t n);

#endif /* TUTTI_TOPO_IMPL_H */

/*
 * tree_build.h -- between the tree builders (tree_build.c) and the API of
 * include/tutti/tree.h over them (tree.c): one rank's neighbourhood in
 * ranks relative to the root, as a builder writes it. Internal to
 * collectives/. Pure: no global state, callable from any thread.
 */
#ifndef TUTTI_COLL_TREE_BUILD_H
#define TUTTI_COLL_TREE_BUILD_H

#include "tutti/tree.h"

/* One rank's neighbourhood in relative ranks. */
struct node {
  int parent;    /* -1 for the root */
  int lo, count; /* subtree [lo, lo+count); lo is meaningless for binary */
  int *children; /* the first `max` are written */
  int max, n;
  int no_children; /* only the parent and the subtree are wanted */
};

/* The neighbourhood of relative rank v (0..n-1, the root 0) in a tree of
 * n ranks; spec already checked (tutti_tree_check). Children beyond
 * nd->max are counted in nd->n, not written. 0, or TUTTI_ENOMEM (a
 * postal tree with L > 64 allocates its window of Fibonacci numbers). */
int tutti__tree_node_rel(const tutti_treespec_t *spec, int v, int n, struct node *nd);

#endif

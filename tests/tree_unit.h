/*
 * tree_unit.h -- what the tree unit tests share (test_unit_tree*.c): a
 * tree spec from its fields, and a spec's label for messages.
 */
#ifndef TUTTI_TESTS_TREE_UNIT_H
#define TUTTI_TESTS_TREE_UNIT_H

#include <stdio.h>

#include <tutti/tree.h>

static inline tutti_treespec_t spec_of(int kind, int k, double lambda, int L) {
  tutti_treespec_t s = {kind, k, lambda, L};
  return s;
}

static inline const char *label(const tutti_treespec_t *s) {
  static char buf[64];
  snprintf(buf, sizeof buf, "%s k=%d lambda=%g L=%d", tutti_tree_kind_name(s->kind), s->k,
           s->lambda, s->L);
  return buf;
}

#endif

/*
 * test_unit_tree_api.c -- the tree API around the builders
 * (collectives/tree.c), no messaging: kind names and lookup, printing as
 * text (at most 64 levels drawn, so in linear size) and as Graphviz DOT,
 * whole lambda-near-1 and flat postal trees in linear time, and every
 * bad argument. The builders themselves: test_unit_tree.c.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>

#include <tutti/tutti.h>
#include <tutti/tree.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree_unit.h"

/* ------------------------------------------------------ names and printing */

Test(tree, names) {
  const char *names[] = {"flat", "chain", "binary", "binomial", "knomial", "lambda", "postal"};
  cr_assert(eq(int, TUTTI_TREE_NKINDS, 7));
  for (int i = 0; i < TUTTI_TREE_NKINDS; i++) {
    int kind = -1;
    cr_assert(eq(str, (char *)tutti_tree_kind_name(i), (char *)names[i]));
    cr_assert(eq(int, tutti_tree_kind_find(names[i], &kind), 0));
    cr_assert(eq(int, kind, i));
    cr_assert(ne(str, (char *)tutti_tree_kind_help(i), "invalid"));
    cr_assert(eq(int, tutti_tree_contiguous(i), i != TUTTI_TREE_BINARY));
    tutti_treespec_t s = tutti_treespec_default(i);
    cr_assert(eq(int, tutti_tree_check(&s), 0));
  }
  tutti_treespec_t d = tutti_treespec_default(TUTTI_TREE_LAMBDA);
  cr_assert(eq(dbl, d.lambda, 0.6));
  int kind = 99;
  cr_assert(eq(int, tutti_tree_kind_find("Lambda", &kind), TUTTI_ENOTFOUND));
  cr_assert(eq(int, tutti_tree_kind_find("", &kind), TUTTI_ENOTFOUND));
  cr_assert(eq(int, kind, 99), "untouched on failure");
  cr_assert(eq(int, tutti_tree_kind_find(NULL, &kind), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_kind_find("flat", NULL), TUTTI_EINVAL));
  cr_assert(eq(str, (char *)tutti_tree_kind_name(-1), "invalid"));
  cr_assert(eq(str, (char *)tutti_tree_kind_name(TUTTI_TREE_NKINDS), "invalid"));
  cr_assert(eq(str, (char *)tutti_tree_kind_help(TUTTI_TREE_NKINDS), "invalid"));
  cr_assert(eq(int, tutti_tree_contiguous(TUTTI_TREE_NKINDS), TUTTI_EINVAL));
}

static char *print_tree(const tutti_treespec_t *s, int n, int root, int dot) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(not(eq(ptr, f, NULL)));
  cr_assert(eq(int, tutti_tree_print(s, n, root, f, dot), 0));
  fclose(f);
  return buf;
}

Test(tree, print_ascii) {
  tutti_treespec_t l6 = spec_of(TUTTI_TREE_LAMBDA, 0, 0.6, 0);
  char *got = print_tree(&l6, 10, 0, 0);
  cr_assert(eq(str, got,
               "0\n"
               "├── 6\n"
               "│   ├── 8\n"
               "│   │   └── 9\n"
               "│   └── 7\n"
               "├── 4\n"
               "│   └── 5\n"
               "├── 2\n"
               "│   └── 3\n"
               "└── 1\n"));
  free(got);
  got = print_tree(&l6, 10, 7, 0); /* absolute ranks */
  cr_assert(eq(str, got,
               "7\n"
               "├── 3\n"
               "│   ├── 5\n"
               "│   │   └── 6\n"
               "│   └── 4\n"
               "├── 1\n"
               "│   └── 2\n"
               "├── 9\n"
               "│   └── 0\n"
               "└── 8\n"));
  free(got);
  got = print_tree(&l6, 1, 0, 0);
  cr_assert(eq(str, got, "0\n"));
  free(got);
  tutti_treespec_t c = tutti_treespec_default(TUTTI_TREE_CHAIN);
  got = print_tree(&c, 3, 1, 0);
  cr_assert(eq(str, got, "1\n└── 2\n    └── 0\n"));
  free(got);
  got = print_tree(&c, 500, 0, 0); /* deep: drawn to 64 levels */
  cr_assert(not(eq(ptr, strstr(got, "└── 64\n"), NULL)));
  cr_assert(eq(ptr, strstr(got, "└── 65\n"), NULL));
  cr_assert(not(eq(ptr,
                   strstr(got, "└── ... 435 more ranks below, not drawn (deeper than 64 "
                               "levels; the DOT form has them)\n"),
                   NULL)));
  free(got);
  got = print_tree(&c, 500, 0, 1);
  cr_assert(not(eq(ptr, strstr(got, "  498 -> 499 [label=\"1\"];\n"), NULL)), "DOT draws all");
  free(got);
}

/* Issue 19: `tutti tree chain -n 4000` printed 32 MB of indentation (O(n^2)
 * bytes); the drawing of any tree is now at most 64 levels wide. */
Test(tree, print_size_is_linear) {
  tutti_treespec_t c = tutti_treespec_default(TUTTI_TREE_CHAIN);
  char *got = print_tree(&c, 4000, 17, 0);
  size_t len = strlen(got);
  cr_assert(lt(sz, len, (size_t)100000), "%zu bytes for a chain of 4000", len);
  cr_assert(not(eq(ptr, strstr(got, "└── ... 3935 more ranks below"), NULL)));
  free(got);
  /* a rank at the cut with one rank below */
  got = print_tree(&c, TUTTI_TREE_PRINT_DEPTH + 2, 0, 0);
  cr_assert(not(eq(ptr, strstr(got, "└── ... 1 more rank below"), NULL)));
  free(got);
  got = print_tree(&c, TUTTI_TREE_PRINT_DEPTH + 1, 0, 0); /* exactly 64 deep: no cut */
  cr_assert(eq(ptr, strstr(got, "more rank"), NULL));
  free(got);
}

/* Issue 19: lambda near 1 was quadratic: each rank walked the root's
 * splits one by one (n - v of them), so `tutti tree lambda --param
 * lambda=0.99999` took 7.2 s at 40k ranks, over a minute at 2M; a flat
 * postal tree (L >= n-1) did the same. Whole trees of 200k ranks and
 * single ranks of a 2^31-rank tree now take milliseconds; one split at a
 * time they took minutes (the timeout is 100x what they need). */
Test(tree, lambda_near_one_is_not_quadratic, .timeout = 60) {
  tutti_treespec_t l = spec_of(TUTTI_TREE_LAMBDA, 0, 0.99999, 0);
  tutti_treespec_t p = spec_of(TUTTI_TREE_POSTAL, 0, 0, INT_MAX);
  for (int i = 0; i < 2; i++) {
    const tutti_treespec_t *s = i ? &p : &l;
    char *got = print_tree(s, 200000, 0, 1);
    /* lambda: the root keeps floor(0.99999 * 200000 + 1/2) = 199998 */
    const char *first = i ? "  0 -> 199999 [label=\"1\"];\n" : "  0 -> 199998 [label=\"1\"];\n";
    cr_assert(not(eq(ptr, strstr(got, first), NULL)), "%s", label(s));
    free(got);
    for (int v = 1; v <= 40; v++) {
      int par = -2, lo = -1, cnt = -1;
      cr_assert(eq(int, tutti_tree_node(s, v, INT_MAX, 0, &par, NULL, 0, NULL), 0));
      cr_assert(eq(int, tutti_tree_subtree(s, v, INT_MAX, 0, &lo, &cnt), 0));
      cr_assert(eq(int, par, 0), "%s v=%d: parent %d", label(s), v, par);
      cr_assert(eq(int, lo, v));
      cr_assert(eq(int, cnt, 1), "%s v=%d", label(s), v);
    }
  }
}

Test(tree, print_dot) {
  tutti_treespec_t p = spec_of(TUTTI_TREE_POSTAL, 0, 0, 2);
  char *got = print_tree(&p, 5, 1, 1);
  /* n = 5, L = 2: 0 -> 3, 2, 1; 3 -> 4 (relative), shifted by 1 */
  cr_assert(eq(str, got,
               "digraph tree {\n"
               "  // postal (L=2), 5 ranks, root 1; edge labels: send order\n"
               "  node [shape=circle];\n"
               "  1 [shape=doublecircle];\n"
               "  1 -> 4 [label=\"1\"];\n"
               "  1 -> 3 [label=\"2\"];\n"
               "  1 -> 2 [label=\"3\"];\n"
               "  4 -> 0 [label=\"1\"];\n"
               "}\n"));
  free(got);
}

/* ------------------------------------------------------------ error paths */

Test(tree, errors) {
  tutti_treespec_t ok = tutti_treespec_default(TUTTI_TREE_LAMBDA);
  int p, kids[4], nk, lo, cnt;
  long steps;

  /* specs */
  tutti_treespec_t bad[] = {
      spec_of(-1, 2, 0.6, 2),
      spec_of(TUTTI_TREE_NKINDS, 2, 0.6, 2),
      spec_of(TUTTI_TREE_KNOMIAL, 1, 0.6, 2),
      spec_of(TUTTI_TREE_KNOMIAL, 0, 0.6, 2),
      spec_of(TUTTI_TREE_KNOMIAL, -5, 0.6, 2),
      spec_of(TUTTI_TREE_LAMBDA, 2, 0.49, 2),
      spec_of(TUTTI_TREE_LAMBDA, 2, 1.0, 2),
      spec_of(TUTTI_TREE_LAMBDA, 2, -0.6, 2),
      spec_of(TUTTI_TREE_LAMBDA, 2, NAN, 2),
      spec_of(TUTTI_TREE_LAMBDA, 2, INFINITY, 2),
      spec_of(TUTTI_TREE_POSTAL, 2, 0.6, 0),
      spec_of(TUTTI_TREE_POSTAL, 2, 0.6, -1),
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const tutti_treespec_t *s = &bad[i];
    cr_assert(eq(int, tutti_tree_check(s), TUTTI_EINVAL), "bad spec %zu", i);
    cr_assert(eq(int, tutti_tree_node(s, 0, 4, 0, &p, kids, 4, &nk), TUTTI_EINVAL), "%zu", i);
    cr_assert(eq(int, tutti_tree_subtree(s, 0, 4, 0, &lo, &cnt), TUTTI_EINVAL), "%zu", i);
    cr_assert(eq(int, tutti_tree_subtree_size(s, 0, 4, 0, &cnt), TUTTI_EINVAL), "%zu", i);
    cr_assert(eq(int, tutti_tree_postal_time(s, 4, 2, &steps), TUTTI_EINVAL), "%zu", i);
    cr_assert(eq(int, tutti_tree_print(s, 4, 0, stdout, 0), TUTTI_EINVAL), "%zu", i);
  }
  /* a field the kind does not use is not validated */
  tutti_treespec_t flat = spec_of(TUTTI_TREE_FLAT, 0, NAN, 0);
  cr_assert(eq(int, tutti_tree_check(&flat), 0));
  cr_assert(eq(int, tutti_tree_check(NULL), TUTTI_EINVAL));
  /* the edges of the valid ranges */
  tutti_treespec_t edge[] = {
      spec_of(TUTTI_TREE_LAMBDA, 0, 0.5, 0), spec_of(TUTTI_TREE_LAMBDA, 0, nextafter(1.0, 0), 0),
      spec_of(TUTTI_TREE_KNOMIAL, INT_MAX, 0, 0), spec_of(TUTTI_TREE_POSTAL, 0, 0, 1)};
  for (int i = 0; i < 4; i++)
    cr_assert(eq(int, tutti_tree_node(&edge[i], 3, 7, 0, &p, kids, 4, &nk), 0));

  /* sizes, ranks, roots */
  cr_assert(eq(int, tutti_tree_node(NULL, 0, 4, 0, &p, kids, 4, &nk), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_node(&ok, 0, 0, 0, &p, kids, 4, &nk), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_node(&ok, 0, -3, 0, &p, kids, 4, &nk), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_node(&ok, -1, 4, 0, &p, kids, 4, &nk), TUTTI_ERANK));
  cr_assert(eq(int, tutti_tree_node(&ok, 4, 4, 0, &p, kids, 4, &nk), TUTTI_ERANK));
  cr_assert(eq(int, tutti_tree_node(&ok, 0, 4, -1, &p, kids, 4, &nk), TUTTI_ERANK));
  cr_assert(eq(int, tutti_tree_node(&ok, 0, 4, 4, &p, kids, 4, &nk), TUTTI_ERANK));
  cr_assert(eq(int, tutti_tree_node(&ok, 0, 4, 0, &p, kids, -1, &nk), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_node(&ok, 0, 4, 0, &p, NULL, 1, &nk), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_node(&ok, 0, 4, 0, NULL, NULL, 0, NULL), 0), "all optional");

  cr_assert(eq(int, tutti_tree_subtree(NULL, 0, 4, 0, &lo, &cnt), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_subtree(&ok, 0, 0, 0, &lo, &cnt), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_subtree(&ok, 5, 4, 0, &lo, &cnt), TUTTI_ERANK));
  cr_assert(eq(int, tutti_tree_subtree(&ok, 0, 4, -2, &lo, &cnt), TUTTI_ERANK));
  cr_assert(eq(int, tutti_tree_subtree(&ok, 0, 4, 0, NULL, &cnt), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_subtree(&ok, 0, 4, 0, &lo, NULL), TUTTI_EINVAL));
  tutti_treespec_t bin = tutti_treespec_default(TUTTI_TREE_BINARY);
  cr_assert(eq(int, tutti_tree_subtree(&bin, 0, 4, 0, &lo, &cnt), TUTTI_ENOTSUP));
  cr_assert(eq(int, tutti_tree_subtree_size(&ok, 0, 4, 0, NULL), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_subtree_size(&ok, 4, 4, 0, &cnt), TUTTI_ERANK));
  cr_assert(eq(int, tutti_tree_subtree_size(&ok, 0, 0, 0, &cnt), TUTTI_EINVAL));

  cr_assert(eq(int, tutti_tree_postal_time(NULL, 4, 2, &steps), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_postal_time(&ok, 0, 2, &steps), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_postal_time(&ok, 4, 0, &steps), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_postal_time(&ok, 4, 2, NULL), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_postal_time(&ok, 1, 2, &steps), 0));
  cr_assert(eq(long, steps, 0), "one rank takes no time");

  cr_assert(eq(long, tutti_postal_F(0, 3), TUTTI_EINVAL));
  cr_assert(eq(long, tutti_postal_F(2, -1), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_postal_f(0, 3), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_postal_f(2, 0), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_postal_f(INT_MAX, 3), TUTTI_EINVAL), "INT_MAX + 1 does not fit");
  cr_assert(eq(dbl, tutti_lambda_auto_postal(-3), (double)TUTTI_EINVAL));

  cr_assert(eq(int, tutti_tree_print(NULL, 4, 0, stdout, 0), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_print(&ok, 0, 0, stdout, 0), TUTTI_EINVAL));
  cr_assert(eq(int, tutti_tree_print(&ok, 4, 4, stdout, 0), TUTTI_ERANK));
  cr_assert(eq(int, tutti_tree_print(&ok, 4, 0, NULL, 1), TUTTI_EINVAL));
  FILE *full = fopen("/dev/full", "w");
  if (full) {
    cr_assert(eq(int, tutti_tree_print(&ok, 100, 0, full, 0), TUTTI_EIO));
    fclose(full);
    full = fopen("/dev/full", "w");
    cr_assert(eq(int, tutti_tree_print(&ok, 100, 0, full, 1), TUTTI_EIO));
    fclose(full);
  }
}

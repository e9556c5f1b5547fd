/*
 * test_e2e_cli_tree.c -- `tutti tree NAME` through the binary: a name is
 * an algorithm's before it is a tree kind's, so a registered tree
 * algorithm named like a kind (binomial, flat, binary) draws its own tree
 * with its own parameters; a bare kind's parameter is checked by the
 * registry (tutti_tree_kind_select), with its ranges and its messages,
 * one line and exit 2.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_helpers.h"
#include "tutti/tutti.h"

/* The first registered tree algorithm whose name is a tree kind's. */
static const tutti_algo_desc_t *named_like_a_kind(void) {
  const tutti_algo_desc_t *d;
  int kind;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
    if (d->tree && !tutti_tree_kind_find(d->name, &kind)) return d;
  return NULL;
}

/* Every registered tree algorithm named like a kind is drawn as the
 * algorithm: its title names the collective and its parameters. */
Test(tree, algorithm_names_come_before_kinds, .timeout = 60) {
  const tutti_algo_desc_t *d;
  int kind, seen = 0;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
    if (!d->tree || tutti_tree_kind_find(d->name, &kind)) continue;
    const tutti_algo_desc_t *first = NULL, *x; /* `tutti tree` takes the first of a name */
    for (int k = 0; (x = tutti_algo_desc_at(k)) != NULL && !first; k++)
      if (x->tree && !strcmp(x->name, d->name)) first = x;
    if (first != d) continue;
    const tutti_algo_t *a;
    char err[512], spec[256], want[320];
    cr_assert(eq(int, tutti_algo_select(d->coll, d->name, NULL, &a, err, sizeof err), 0), "%s",
              err);
    tutti_algo_format(a, spec, sizeof spec);
    snprintf(want, sizeof want, "# %s %s: %s tree", tutti_coll_name(d->coll), spec, d->tree);
    struct cli c = CLI("tree", d->name, "-n", "6");
    cr_assert(eq(int, c.status, 0), "tree %s: %s", d->name, c.err);
    cr_expect(eq(int, strncmp(c.out, want, strlen(want)), 0), "tree %s: '%s', want '%s...'",
              d->name, c.out, want);
    cli_free(&c);
    seen++;
  }
  cr_assert(gt(int, seen, 0), "no registered tree algorithm is named like a tree kind");
}

/* Such an algorithm keeps its own parameters: the binomial bcast's
 * segment, which the bare binomial tree does not have. */
Test(tree, an_algorithm_named_like_a_kind_keeps_its_parameters, .timeout = 60) {
  const tutti_algo_desc_t *d = named_like_a_kind();
  cr_assert(ne(ptr, (void *)d, NULL));
  const char *p = NULL;
  for (int i = 0; i < d->nparams && !p; i++)
    if (!strcmp(d->params[i].name, "segment")) p = "segment=8KiB";
  if (!p) cr_skip_test("%s declares no segment", d->name);
  struct cli c = CLI("tree", d->name, "-n", "8", "--param", p);
  cr_assert(eq(int, c.status, 0), "tree %s --param %s: %s", d->name, p, c.err);
  char want[256];
  snprintf(want, sizeof want, "# %s %s:%s: %s tree", tutti_coll_name(d->coll), d->name, p, d->tree);
  cr_expect(eq(int, strncmp(c.out, want, strlen(want)), 0), "'%s', want '%s...'", c.out, want);
  cli_free(&c);
}

/* A bare kind's parameter: drawn when in the registry's range, refused
 * with the registry's own message otherwise -- the same line
 * tutti_tree_kind_select writes, after "tutti tree: ". */
Test(tree, a_kinds_parameter_is_the_registrys, .timeout = 60) {
  struct cli c = CLI("tree", "knomial", "-n", "9", "--param", "k=3");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "# knomial tree, k = 3;");
  cli_free(&c);
  c = CLI("tree", "postal", "-n", "9", "--param", "L=auto");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  HAS(c.out, "# postal tree, L = 2;");
  cli_free(&c);
  const struct {
    int kind;
    const char *param;
  } bad[] = {{TUTTI_TREE_LAMBDA, "lambda=1"},  {TUTTI_TREE_KNOMIAL, "k=1"},
             {TUTTI_TREE_POSTAL, "L=0"},       {TUTTI_TREE_LAMBDA, "k=3"},
             {TUTTI_TREE_CHAIN, "lambda=0.6"}, {TUTTI_TREE_KNOMIAL, "k=two"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    tutti_treespec_t spec;
    char err[512], want[600];
    cr_assert(eq(int, tutti_tree_kind_select(bad[i].kind, bad[i].param, 2, &spec, err, sizeof err),
                 TUTTI_EINVAL),
              "%s --param %s", tutti_tree_kind_name(bad[i].kind), bad[i].param);
    cr_assert(ne(ptr, strstr(err, "accepted: "), NULL), "'%s' says nothing accepted", err);
    snprintf(want, sizeof want, "tutti tree: %s\n", err);
    c = CLI("tree", tutti_tree_kind_name(bad[i].kind), "-n", "4", "--param", bad[i].param);
    fails_with(c, 2, NULL);
    cr_expect(eq(str, c.err, want), "tree %s --param %s", tutti_tree_kind_name(bad[i].kind),
              bad[i].param);
    cli_free(&c);
  }
  /* the range in the message is the registry's declaration */
  const tutti_param_desc_t *k = tutti_tree_kind_param(TUTTI_TREE_KNOMIAL);
  cr_assert(ne(ptr, (void *)k, NULL));
  char range[80];
  cr_assert(eq(int, tutti_param_range(k, range, sizeof range), 0));
  c = CLI("tree", "knomial", "-n", "4", "--param", "k=1");
  fails_with(c, 2, range);
  cli_free(&c);
}

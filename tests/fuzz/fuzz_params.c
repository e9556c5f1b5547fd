/*
 * fuzz_params.c -- libFuzzer target: algorithm selection with --param
 * lists (tutti_algo_select), as `tutti run COLL NAME --param P` and
 * TUTTI_<COLL>=NAME:P take them. The input is three lines:
 *   COLL        bcast (anything else: every collective in turn)
 *   NAME        lambda-tree, or lambda-tree:lambda=0.7 (empty: the default)
 *   PARAMS      lambda=0.7,segment=8KiB (empty: none)
 * A selected algorithm is then formatted, checked on a few rank counts,
 * costed, and its tree (for a tree algorithm) built on a small world. A
 * NAME that is a file (a plugin) is skipped (fuzz.h).
 */
#include <math.h>

#include "fuzz.h"
#include "tutti/tutti.h"

enum { P = 37 }; /* small: the selection is what is fuzzed, not the tree builders' scale */

static void use(const tutti_algo_t *a) {
  char err[512], buf[512];
  tutti_hockney_t h = {1e-6, 1e-9, 1e-10};
  tutti_treespec_t spec;
  int children[P], nchildren, parent;

  tutti_algo_format(a, buf, sizeof buf);
  tutti_algo_param(a, "lambda");
  for (int n = 1; n <= 8; n += 7) tutti_algo_check(a, n, NULL, err, sizeof err);
  tutti_algo_cost(a, P, 3, 1000, &h, NULL);
  if (tutti_algo_treespec(a, 2, &spec) == 0 && tutti_tree_check(&spec) == 0)
    for (int r = 0; r < P; r++) tutti_tree_node(&spec, r, P, 3, &parent, children, P, &nchildren);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size), *f[3];
  char err[512];
  const tutti_algo_t *a;
  int coll;

  fuzz_lines(text, f, 3);
  if (fuzz_names_a_file(f[1])) {
    free(text);
    return 0;
  }
  if (tutti_coll_find(f[0], &coll) == 0) {
    if (tutti_algo_select(coll, f[1], fuzz_opt(f[2]), &a, err, sizeof err) == 0) use(a);
  } else {
    for (coll = 0; coll < TUTTI_COLL_N; coll++)
      if (tutti_algo_select(coll, f[1], fuzz_opt(f[2]), &a, err, sizeof err) == 0) use(a);
  }
  free(text);
  return 0;
}

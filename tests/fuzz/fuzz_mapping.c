/*
 * fuzz_mapping.c -- libFuzzer target: mapping texts (--mapping, a
 * profile's mapping key; tutti_topo_mapping_parse), printed back and
 * applied to tree:4x8 and to a small INI tree whose depth-first order is
 * not the identity, with as many ranks as the mapping lists (else every
 * leaf), partial and exact.
 */
#include "fuzz_topo.h"

static const char *const trees_ini = "[switch root]\n"
                                     "children = a, b\n"
                                     "leaves = 5\n"
                                     "[switch a]\n"
                                     "leaves = 3, 0-2\n"
                                     "[host b]\n"
                                     "leaves = 4, 6\n";

static tutti_topo_t *trees[2];

static void build_trees(void) {
  char err[512];
  if (tutti_topo_from_spec("tree:4x8", NULL, &trees[0], err, sizeof err) ||
      tutti_topo_parse_ini(trees_ini, "fuzz.ini", NULL, &trees[1], err, sizeof err)) {
    fprintf(stderr, "fuzz_mapping: %s\n", err);
    abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  char err[512], buf[512];
  tutti_topo_mapping_t m;
  int leaf_of_rank[32];

  if (!trees[0]) build_trees(); /* kept for the whole run */
  if (tutti_topo_mapping_parse(text, &m, err, sizeof err) == 0) {
    tutti_topo_mapping_format(&m, buf, sizeof buf);
    for (int i = 0; i < 2; i++) {
      int n = tutti_topo_nleaves(trees[i]);
      int nr = m.kind == TUTTI_MAP_LIST && m.n <= n ? m.n : n;
      for (unsigned flags = 0; flags <= TUTTI_TOPO_PARTIAL; flags++)
        tutti_topo_mapping_apply(trees[i], &m, nr, flags, leaf_of_rank, err, sizeof err);
    }
    tutti_topo_mapping_clear(&m);
  }
  free(text);
  return 0;
}

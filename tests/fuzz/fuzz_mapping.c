/*
 * fuzz_mapping.c -- libFuzzer target: mapping texts (--mapping, a
 * profile's mapping key; tutti_topo_mapping_parse), printed back and
 * applied to tree:4x8 and to a small INI tree whose depth-first order is
 * not the identity, with as many ranks as the mapping lists (else every
 * leaf), partial and exact.
 */
#include "fuzz_topo.h"
#include "tutti/units.h"

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
  /* A list of more than FUZZ_MAX_LEAVES leaves that the parser would
   * accept is skipped (as the topology targets skip large trees,
   * fuzz_topo.h): its parse sorts that many pairs, which under ASan a few
   * long ranges make cost a thousand times a short list's, and the
   * fuzzer then spends its runs there. Shorter lists run the same lines;
   * one past TUTTI_TOPO_MAX_LEAVES is refused before any allocation and
   * still runs. Counting is cheap (tutti_parse_rank_list, no output). */
  if (!strncmp(text, "list:", 5) && !getenv("TUTTI_FUZZ_UNCAPPED")) {
    long count = tutti_parse_rank_list(text + 5, TUTTI_TOPO_MAX_LEAVES - 1, NULL, 0, NULL);
    if (count > FUZZ_MAX_LEAVES && count <= TUTTI_TOPO_MAX_LEAVES) {
      free(text);
      return 0;
    }
  }
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

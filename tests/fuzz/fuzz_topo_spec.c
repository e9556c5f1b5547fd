/*
 * fuzz_topo_spec.c -- libFuzzer target: the compact topology spec, a link
 * list and a mapping, as --topology, --links and --mapping take them. The
 * input is three lines:
 *   SPEC        tree:4x8 (through tutti_topo_open when it starts with
 *               "tree:", else tutti_topo_from_spec: open would read a file)
 *   LINKS       1us/10Gbps, 2us/40Gbps (empty: none)
 *   MAPPING     roundrobin:2 (empty: identity)
 * and the tree is then bound with the mapping, routed and printed
 * (fuzz_topo.h). A spec of more than FUZZ_MAX_LEAVES leaves is skipped
 * (fuzz_topo.h says why).
 */
#include "fuzz_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size), *f[3];
  char err[512];
  tutti_topo_t *t;

  fuzz_lines(text, f, 3);
  if (fuzz_too_big(f[0], 1)) {
    free(text);
    return 0;
  }
  int rc = strncmp(f[0], "tree:", 5) == 0
               ? tutti_topo_open(f[0], fuzz_opt(f[1]), &t, err, sizeof err)
               : tutti_topo_from_spec(f[0], fuzz_opt(f[1]), &t, err, sizeof err);
  if (rc == 0) {
    fuzz_topo_use(t, f[2]);
    tutti_topo_free(t);
  }
  free(text);
  return 0;
}

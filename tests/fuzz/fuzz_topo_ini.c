/*
 * fuzz_topo_ini.c -- libFuzzer target: topology INI descriptions
 * (tutti_topo_parse_ini, the parser under --topology FILE), the tree then
 * bound, routed and printed (fuzz_topo.h). No link list is given, so the
 * file's own [topology] links are read. Text naming a number above
 * FUZZ_MAX_LEAVES is skipped (fuzz_topo.h says why).
 */
#include "fuzz_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  char err[512];
  tutti_topo_t *t;

  if (!fuzz_too_big(text, 0) &&
      tutti_topo_parse_ini(text, "fuzz.ini", NULL, &t, err, sizeof err) == 0) {
    fuzz_topo_use(t, NULL);
    tutti_topo_free(t);
  }
  free(text);
  return 0;
}

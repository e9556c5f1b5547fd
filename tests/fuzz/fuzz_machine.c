/*
 * fuzz_machine.c -- libFuzzer target: the machine builder
 * (tutti_machine_build), which takes what `tutti run` takes as --model,
 * --profile, --topology, --links, --mapping and --ranks. The input is six
 * lines, each empty for "not given":
 *   MODEL       hockney:alpha=1us,beta=1ns
 *   PROFILE     a built-in profile's name (any other text: not given,
 *               since a name that is no built-in is opened as a file)
 *   TOPOLOGY    tree:4x8 (only specs: anything else would be read as a
 *               file; not given above FUZZ_MAX_LEAVES leaves, fuzz_topo.h)
 *   LINKS       1us/10Gbps, 2us/40Gbps
 *   MAPPING     roundrobin:2
 *   RANKS       a number (clamped to [-1, 65536]); empty: 0, one per leaf
 */
#include "fuzz_topo.h"
#include "tutti/tutti.h"

static int is_builtin(const char *name) {
  const tutti_profile_info_t *b;
  for (int i = 0; (b = tutti_profile_builtin(i)); i++)
    if (strcmp(b->name, name) == 0) return 1;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size), *f[6];
  char err[512], buf[1024];
  tutti_machine_t m;
  int bad;

  fuzz_lines(text, f, 6);
  tutti_machine_spec_t s = tutti_machine_spec_default();
  s.model = fuzz_opt(f[0]);
  s.profile = is_builtin(f[1]) ? f[1] : NULL;
  s.topology = strncmp(f[2], "tree:", 5) == 0 && !fuzz_too_big(f[2], 1) ? f[2] : NULL;
  s.links = fuzz_opt(f[3]);
  s.mapping = fuzz_opt(f[4]);
  long n = strtol(f[5], NULL, 10);
  s.nranks = n < -1 ? -1 : n > 65536 ? 65536 : (int)n;
  if (tutti_machine_build(&s, &m, &bad, err, sizeof err) == 0) {
    tutti_model_describe(&m.model, buf, sizeof buf);
    tutti_machine_free(&m);
  }
  free(text);
  return 0;
}

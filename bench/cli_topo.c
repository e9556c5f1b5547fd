/*
 * cli_topo.c -- `tutti topo`: a network topology, a tree of switches with
 * the ranks on its leaves (ASCII or --dot), and the contention-free chain
 * order. Building and binding the topology is the library's
 * (tutti_machine_build, through cli_model); the topology lines and link
 * tables of the other commands' reports are cli_links.c's.
 *
 * Exit: 0, or 2 for a bad spec, file, mapping, link list or rank count.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

#define TOPO_OPTS                                                                                  \
  (CLI_O(RANKS) | CLI_O(MAPPING) | CLI_O(LINKS) | CLI_O(ROOT) | CLI_O(MODEL) | CLI_O(PROFILE) |    \
   CLI_O(DOT) | CLI_O(HELP))

#define CHAIN_SHOWN 64

static void topo_help(FILE *f) {
  fprintf(f, "usage: tutti topo SPEC|FILE [-n N] [--mapping M] [--links LIST] [--root R] [--dot]\n"
             "       tutti topo --profile P [...]     (the profile's [topology])\n\n"
             "Draw a network topology: its switches, the latency and bandwidth of every link,\n"
             "and which rank sits on which leaf under a mapping; then the contention-free\n"
             "chain order from rank R (Patarasuk, Faraj & Yuan: a chain in that order puts at\n"
             "most one flow on every directed link). SPEC is tree:A[xB...] (a root switch\n"
             "over A switches of B leaves ...); FILE an INI description (topo/README.md).\n"
             "Without -n, one rank per leaf; with fewer ranks than leaves, the leaves the\n"
             "mapping does not reach stay empty. Links no list sets take latency 0 and the\n"
             "model's beta (--model/--profile, default teaching-hockney), as in tutti run.\n\n"
             "options:\n");
  cli_print_options(f, TOPO_OPTS);
}

int tutti_cli_topo(int argc, char **argv) {
  struct cli_opts o;
  int st = cli_parse("topo", TOPO_OPTS, 1, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    topo_help(stdout);
    return 0;
  }
  if (o.npos) o.topology = o.pos[0];
  if (!o.topology && !o.profile)
    return cli_fail(CLI_EUSAGE, "topo",
                    "missing SPEC|FILE; accepted: tree:A[xB...] (e.g. tree:2x4), an INI file, or "
                    "--profile P with a [topology] section");
  tutti_machine_t mach;
  int n = (o.given & CLI_O(RANKS)) ? o.nranks : 0;
  if ((st = cli_model("topo", &o, n, &mach))) return st;
  if (!mach.topo) {
    st = cli_fail(CLI_EUSAGE, "topo",
                  "--profile: '%s' has no [topology] section; accepted: a SPEC|FILE argument, "
                  "or a profile with one",
                  mach.label);
    tutti_machine_free(&mach);
    return st;
  }
  n = tutti_topo_nranks(mach.topo);
  if (o.root >= n) {
    tutti_machine_free(&mach);
    return cli_fail(CLI_EUSAGE, "topo", "--root: %d is out of range for %d ranks; accepted: 0..%d",
                    o.root, n, n - 1);
  }
  int rc;
  if (o.given & CLI_O(DOT)) {
    rc = tutti_topo_dot(mach.topo, stdout);
  } else {
    rc = tutti_topo_print(mach.topo, stdout);
    int *order = rc ? NULL : malloc((size_t)n * sizeof *order);
    if (!rc && !order) rc = TUTTI_ENOMEM;
    if (!rc) rc = tutti_topo_chain_order(mach.topo, NULL, n, o.root, order);
    if (!rc) {
      printf("contention-free chain from rank %d:", o.root);
      for (int i = 0; i < n && i < CHAIN_SHOWN; i++) printf(" %d", order[i]);
      if (n > CHAIN_SHOWN) printf(" ... (%d ranks)", n);
      printf("\n");
    }
    free(order);
  }
  tutti_machine_free(&mach);
  /* a write error (TUTTI_EIO) is main's to report, with the cause */
  if (rc && rc != TUTTI_EIO) return cli_fail(CLI_ERUNTIME, "topo", "%s", tutti_strerror(rc));
  return 0;
}

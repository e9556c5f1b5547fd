/*
 * cli_topo.c -- the network topology in the `tutti` command: `tutti topo`
 * (a tree of switches with the ranks on its leaves, ASCII or --dot, and
 * the contention-free chain order), and the topology lines, link tables
 * and JSON of `run` and `suite` (cli.h). Building and binding the
 * topology is the library's (tutti_machine_build, through cli_model).
 *
 * Exit: 0, or 2 for a bad spec, file, mapping, link list or rank count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ------------------------------------------------------------ run and suite */

/* "topology     " padded to width, or "topology: " when width is 0 */
static void label(FILE *f, const char *what, int width) {
  if (width > 0)
    fprintf(f, "%-*s", width, what);
  else
    fprintf(f, "%s: ", what);
}

void cli_print_topology(FILE *f, const tutti_machine_t *mach, int width) {
  if (!mach->topo) return;
  const tutti_model_t *m = &mach->model;
  char desc[4400] = "", bw[64];
  tutti_topo_describe(mach->topo, desc, sizeof desc);
  label(f, "topology", width);
  fprintf(f, "%s%s\n", desc, mach->topo_from_profile ? "  [from the profile]" : "");
  if (m->latency.b > 0)
    tutti_format_bandwidth(1.0 / m->latency.b, bw, sizeof bw);
  else
    snprintf(bw, sizeof bw, "unlimited bandwidth (no contention)");
  int unset = tutti_topo_unset_links(mach->topo);
  label(f, "links", width);
  if (!mach->links && unset == tutti_topo_nlinks(mach->topo))
    fprintf(f, "latency 0, %s each (the model's beta; --links sets them)\n", bw);
  else if (unset > 0)
    fprintf(f, "%s; %d unset: latency 0, %s\n", mach->links ? mach->links : "from the file", unset,
            bw);
  else
    fprintf(f, "%s\n", mach->links ? mach->links : "from the file");
}

void cli_json_topology(FILE *f, const tutti_machine_t *mach) {
  if (!mach->topo) {
    fputs("null", f);
    return;
  }
  char desc[4400] = "";
  tutti_topo_describe(mach->topo, desc, sizeof desc);
  fputs("{\"spec\":", f);
  cli_json_str(f, mach->topo_spec);
  fputs(",\"source\":", f);
  cli_json_str(f, mach->topo_from_profile ? "profile" : "--topology");
  fputs(",\"mapping\":", f);
  cli_json_str(f, mach->mapping ? mach->mapping : "identity");
  fputs(",\"links\":", f);
  if (mach->links)
    cli_json_str(f, mach->links);
  else
    fputs("null", f);
  fprintf(f, ",\"leaves\":%d,\"switches\":%d,\"nlinks\":%d,\"depth\":%d,\"description\":",
          tutti_topo_nleaves(mach->topo), tutti_topo_nswitches(mach->topo),
          tutti_topo_nlinks(mach->topo), tutti_topo_depth(mach->topo));
  cli_json_str(f, desc);
  fputc('}', f);
}

/* The links of w's last run that carried a message, busiest first;
 * *used gets how many carried one. NULL (and *n = 0) without them. */
static tutti_link_load_t *loads(const tutti_world_t *w, int k, int *n, int *used) {
  tutti_report_t rep;
  *n = *used = 0;
  if (tutti_world_report(w, &rep) || !rep.links_used) return NULL;
  *used = rep.links_used;
  if (k > rep.links_used || k <= 0) k = rep.links_used;
  tutti_link_load_t *l = malloc((size_t)k * sizeof *l);
  if (l && tutti_world_links(w, k, l, n)) *n = 0;
  return l;
}

void cli_print_links(FILE *f, const tutti_world_t *w, const tutti_model_t *m, int k) {
  int n, used;
  tutti_link_load_t *l = loads(w, k, &n, &used);
  if (!n) {
    free(l);
    return;
  }
  fprintf(f, "busiest links (%d of the %d that carried messages; queue: the most at once)\n", n,
          used);
  fprintf(f, "  %-30s %9s %11s %11s %11s %6s\n", "link", "messages", "bytes", "busy", "queued",
          "queue");
  for (int i = 0; i < n; i++) {
    char b[32], busy[32], wait[32];
    fprintf(f, "  %-30s %9llu %11s %11s %11s %6d\n", l[i].name, (unsigned long long)l[i].messages,
            tutti_format_bytes((size_t)l[i].bytes, b, sizeof b),
            tutti_format_model_time(m, l[i].busy, busy, sizeof busy),
            tutti_format_model_time(m, l[i].wait, wait, sizeof wait), l[i].max_queue);
  }
  free(l);
}

void cli_json_links(FILE *f, const tutti_world_t *w) {
  int n, used;
  tutti_link_load_t *l = loads(w, 0, &n, &used);
  fputc('[', f);
  for (int i = 0; i < n; i++) {
    fprintf(f, "%s{\"link\":%d,\"name\":", i ? "," : "", l[i].link);
    cli_json_str(f, l[i].name);
    fprintf(f, ",\"messages\":%llu,\"bytes\":%llu,\"busy\":", (unsigned long long)l[i].messages,
            (unsigned long long)l[i].bytes);
    cli_json_num(f, l[i].busy);
    fputs(",\"wait\":", f);
    cli_json_num(f, l[i].wait);
    fprintf(f, ",\"max_queue\":%d}", l[i].max_queue);
  }
  fputc(']', f);
  free(l);
}

/* ------------------------------------------------------------ tutti topo */

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

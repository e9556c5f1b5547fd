/*
 * cli_links.c -- a machine's topology and the load on its links in the
 * reports of the commands that run worlds: the "topology" and "links"
 * lines of run, suite and explain, the busiest-link table of run and
 * `bench lecture`, and the JSON "topology" of run, suite and compare and
 * "links" of run. Read-only: the machine and a finished world's report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* "topology     " padded to width (a space at least), or "topology: " when
 * width is 0 */
static void label(FILE *f, const char *what, int width) {
  if (width > 0)
    fprintf(f, "%-*s%s", width, what, (int)strlen(what) < width ? "" : " ");
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
  int fair = m->sharing == TUTTI_SHARING_FAIR; /* flows share, none queues */
  fprintf(f, "busiest links (%d of the %d that carried messages; %s: the most at once)\n", n, used,
          fair ? "flows" : "queue");
  fprintf(f, "  %-30s %9s %11s %11s %11s %6s\n", "link", "messages", "bytes", "busy",
          fair ? "shared" : "queued", fair ? "flows" : "queue");
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

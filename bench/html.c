/*
 * html.c -- the step-through page (html.h). The page itself -- its CSS and
 * the script that draws and walks it -- is html_page.html, compiled in as
 * a byte array (bench/CMakeLists.txt); this file writes that template with
 * one object of data at its marker:
 *
 *   {"heading":..., "steps":false, "runs":[{"title":..., "sub":..., "coll":"bcast",
 *    "P":16, "root":0, "T":modeled seconds, "ends":[each rank's end],
 *    "msgs":[[src,dst,bytes,posted,start,done,recv_posted,round,send_port_free,
 *             critical], ...],
 *    "tree":{"root":0,"kids":[[..]..]} or null,
 *    "links":[{"id":3,"name":"s0 -> root","n":messages,"q":longest queue,
 *              "hops":[[msg,arrive,head,end]..]}],
 *    "topo":{"switches":[[name,parent,uplink]..],"leaves":[[leaf,switch,rank,uplink]..]}
 *           or null,
 *    "explain":"== cost\n..."}]}
 *
 * A topology's switches are those above the run's ranks (parents first, by
 * id), indexed from 0 in that list; a link's down twin is its uplink + 1
 * (topo.h "Ids").
 * Times are the model's (seconds, or postal steps) written as the shortest
 * text that reads back the same double, so the page's last time is the
 * engine's modeled time bit for bit. Messages are arrays, not objects: a
 * page of 32 ranks may hold thousands.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "html.h"

static const char page[] = {
#include "html_page.inc"
    0};

#define MARKER "/*@DATA@*/"

/* A JSON string that is also safe inside <script>: no "</script>", no
 * "<!--", whatever a topology file names its switches. */
static void jstr(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&')
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void tree_json(FILE *f, const struct html_run *r) {
  if (!r->tree) {
    fputs("null", f);
    return;
  }
  int P = r->nranks, kids[HTML_MAX_RANKS], n;
  fprintf(f, "{\"root\":%d,\"kids\":[", r->root);
  for (int v = 0; v < P; v++) {
    if (tutti_tree_node(r->tree, v, P, r->root, NULL, kids, HTML_MAX_RANKS, &n)) n = 0;
    fputs(v ? ",[" : "[", f);
    for (int i = 0; i < n && i < HTML_MAX_RANKS; i++) fprintf(f, "%s%d", i ? "," : "", kids[i]);
    fputc(']', f);
  }
  fputs("]}", f);
}

/* The switches above the ranks' leaves and those leaves: the switch tree
 * the page draws. null when there is no topology, or more than
 * HTML_MAX_SWITCHES switches to draw. */
static void topo_json(FILE *f, const struct html_run *r) {
  const tutti_topo_t *t = r->model->topo;
  int sw[HTML_MAX_SWITCHES], n = 0;
  for (int k = 0; t && k < r->nranks && n >= 0; k++) {
    int leaf = tutti_topo_leaf_of_rank(t, k);
    for (int s = leaf < 0 ? -1 : tutti_topo_leaf_switch(t, leaf); s >= 0 && n >= 0;
         s = tutti_topo_switch_parent(t, s)) {
      int seen = 0;
      for (int i = 0; i < n && !seen; i++) seen = sw[i] == s;
      if (seen) break; /* its parents are in already */
      if (n == HTML_MAX_SWITCHES)
        n = -1;
      else
        sw[n++] = s;
    }
  }
  if (!t || n <= 0) {
    fputs("null", f);
    return;
  }
  for (int i = 1; i < n; i++) /* by id: breadth first, so parents first */
    for (int k = i; k > 0 && sw[k - 1] > sw[k]; k--) {
      int x = sw[k];
      sw[k] = sw[k - 1], sw[k - 1] = x;
    }
#define LOCAL(id, out)                                                                             \
  do {                                                                                             \
    out = -1;                                                                                      \
    for (int i_ = 0; i_ < n; i_++)                                                                 \
      if (sw[i_] == (id)) out = i_;                                                                \
  } while (0)
  fputs("{\"switches\":[", f);
  for (int i = 0; i < n; i++) {
    int parent, up = tutti_topo_switch_link(t, sw[i]);
    LOCAL(tutti_topo_switch_parent(t, sw[i]), parent);
    fputs(i ? ",[" : "[", f);
    jstr(f, tutti_topo_switch_name(t, sw[i]));
    fprintf(f, ",%d,%d]", parent, up < 0 ? -1 : up);
  }
  fputs("],\"leaves\":[", f);
  int first = 1, nleaves = tutti_topo_nleaves(t);
  for (int leaf = 0; leaf < nleaves; leaf++) {
    int rank = tutti_topo_rank_of_leaf(t, leaf), s;
    if (rank < 0 || rank >= r->nranks) continue;
    LOCAL(tutti_topo_leaf_switch(t, leaf), s);
    fprintf(f, "%s[%d,%d,%d,%d]", first ? "" : ",", leaf, s, rank, tutti_topo_leaf_link(t, leaf));
    first = 0;
  }
#undef LOCAL
  fputs("]}", f);
}

static int by_link(const void *a, const void *b) {
  const tutti_hop_info_t *p = *(tutti_hop_info_t *const *)a, *q = *(tutti_hop_info_t *const *)b;
  if (p->link != q->link) return p->link < q->link ? -1 : 1;
  return p < q ? -1 : p > q;
}

/* A lane per link that carried a message, in link id order. */
static int links_json(FILE *f, const struct html_run *r) {
  const tutti_explain_t *ex = r->ex;
  fputc('[', f);
  if (!ex->nhops || !r->model->topo) return fputc(']', f), 0;
  const tutti_hop_info_t **ord = malloc(ex->nhops * sizeof *ord);
  if (!ord) return TUTTI_ENOMEM;
  for (size_t i = 0; i < ex->nhops; i++) ord[i] = &ex->hops[i];
  qsort(ord, ex->nhops, sizeof *ord, by_link);
  for (size_t i = 0; i < ex->nhops; i++) {
    const tutti_hop_info_t *h = ord[i];
    if (!i || ord[i - 1]->link != h->link) {
      char name[TUTTI_LINK_NAME_MAX];
      if (tutti_topo_link_name(r->model->topo, h->link, name, sizeof name))
        snprintf(name, sizeof name, "link %d", h->link);
      const tutti_link_load_t *load = NULL;
      for (int k = 0; k < r->nloads && !load; k++)
        if (r->loads[k].link == h->link) load = &r->loads[k];
      fprintf(f, "%s{\"id\":%d,\"name\":", i ? "]}," : "", h->link);
      jstr(f, name);
      fprintf(f, ",\"n\":%llu,\"q\":%d,\"hops\":[",
              load ? (unsigned long long)load->messages : 0ULL, load ? load->max_queue : 0);
    } else {
      fputc(',', f);
    }
    fprintf(f, "[%u,", h->msg);
    cli_json_num(f, h->arrive);
    fputc(',', f);
    cli_json_num(f, h->head);
    fputc(',', f);
    cli_json_num(f, h->end);
    fputc(']', f);
  }
  free(ord);
  fputs("]}]", f);
  return 0;
}

static int run_json(FILE *f, const struct html_run *r) {
  fputs("{\"title\":", f);
  jstr(f, r->title);
  fputs(",\"sub\":", f);
  jstr(f, r->sub);
  fputs(",\"coll\":", f);
  jstr(f, r->coll);
  fprintf(f, ",\"P\":%d,\"root\":%d,\"T\":", r->nranks, r->root);
  cli_json_num(f, r->modeled_time);
  fputs(",\"ends\":[", f);
  for (int k = 0; r->rank_end && k < r->nranks; k++) {
    if (k) fputc(',', f);
    cli_json_num(f, r->rank_end[k]);
  }
  fputc(']', f);
  fputs(",\"msgs\":[", f);
  for (size_t i = 0; i < r->ex->nmsgs; i++) {
    const tutti_msg_info_t *g = &r->ex->msgs[i];
    fprintf(f, "%s\n[%d,%d,%llu,", i ? "," : "", g->src, g->dst, (unsigned long long)g->bytes);
    const double t[] = {g->posted, g->start, g->done, g->recv_posted};
    for (size_t k = 0; k < sizeof t / sizeof *t; k++) {
      cli_json_num(f, t[k]);
      fputc(',', f);
    }
    fprintf(f, "%d,", g->round);
    cli_json_num(f, g->send_port_free);
    fprintf(f, ",%d]", g->critical ? 1 : 0);
  }
  fputs("],\"tree\":", f);
  tree_json(f, r);
  fputs(",\"links\":", f);
  int rc = links_json(f, r);
  fputs(",\"topo\":", f);
  topo_json(f, r);
  fputs(",\"explain\":", f);
  if (r->text)
    jstr(f, r->text);
  else
    fputs("null", f);
  fputs("}", f);
  return rc;
}

int html_write(FILE *f, const char *heading, const struct html_run *runs, int n) {
  if (!f || n < 1) return TUTTI_EINVAL;
  for (int i = 0; i < n; i++)
    if (runs[i].nranks < 1 || runs[i].nranks > HTML_MAX_RANKS) return TUTTI_EINVAL;
  const char *mark = strstr(page, MARKER);
  if (!mark) return TUTTI_EINVAL; /* the build embedded a page without its marker */
  fwrite(page, 1, (size_t)(mark - page), f);
  fputs("{\"heading\":", f);
  jstr(f, heading);
  fprintf(f, ",\"steps\":%s,\"runs\":[\n", tutti_model_steps(runs[0].model) ? "true" : "false");
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) {
    if (i) fputs(",\n", f);
    rc = run_json(f, &runs[i]);
  }
  fputs("]}", f);
  mark += strlen(MARKER);
  fwrite(mark, 1, strlen(mark), f);
  if (!rc && ferror(f)) rc = TUTTI_EIO;
  return rc;
}

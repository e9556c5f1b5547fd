/*
 * cli_html.c -- the --html pages of `tutti run` and `tutti compare`
 * (cli_page_*): the option's checks, one run's explanation, tree, title
 * and subtitle drawn from its finished world, explain's "cost" and "why"
 * text (cli_explain_cost_why, the very text `tutti explain` prints), each
 * link's load, and the page written by html.c to its output file
 * (cli_out.c), committed with the error naming the file. Both commands
 * build their pages here, the same way; html.c writes a page from its
 * runs' data and reads no option.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "html.h"

int cli_page_check(const char *cmd, const struct cli_opts *o, const tutti_machine_t *mach,
                   struct cli_out *out) {
  if (out) memset(out, 0, sizeof *out);
  if (!o->html) return 0;
  if (o->nranks > HTML_MAX_RANKS)
    return cli_fail(CLI_EUSAGE, cmd,
                    "--html: %d ranks are too many for a readable page; accepted: -n 1..%d (for "
                    "larger runs: --timeline or --trace FILE)",
                    o->nranks, HTML_MAX_RANKS);
  if (mach && mach->model.preset == TUTTI_MODEL_NONE)
    return cli_fail(CLI_EUSAGE, cmd,
                    "--html: the none model has no modeled time to draw; accepted: a cost model "
                    "(--model hockney:..., postal:L=2, --profile NAME)");
  return mach ? cli_out_open(out, cmd, "--html", o->html, 0) : 0;
}

int cli_page_fill(struct cli_page *p, const tutti_world_t *w, const struct cli_job *j,
                  const tutti_machine_t *mach, const struct cli_result *res, int P, size_t bytes) {
  memset(p, 0, sizeof *p);
  if (!res->has_report) return TUTTI_ENOTSUP;
  int rc = tutti_world_explain(w, &p->ex);
  if (rc) return rc;
  char spec[256], desc[512] = "", topo[256] = "", b[32];
  tutti_algo_format(j->algo, spec, sizeof spec);
  tutti_model_describe(&mach->model, desc, sizeof desc);
  if (mach->topo) tutti_topo_describe(mach->topo, topo, sizeof topo);
  snprintf(p->title, sizeof p->title, "%s %s", tutti_coll_name(j->coll), spec);
  unsigned tr = tutti_coll_traits(j->coll);
  size_t len = (size_t)snprintf(p->sub, sizeof p->sub, "%d rank%s", P, P == 1 ? "" : "s");
#define SUB(...)                                                                                   \
  (len +=                                                                                          \
   (size_t)snprintf(p->sub + len, len < sizeof p->sub ? sizeof p->sub - len : 0, __VA_ARGS__))
  if (tr & TUTTI_COLL_DATA) SUB(", %s per rank", tutti_format_bytes(bytes, b, sizeof b));
  if (tr & TUTTI_COLL_ROOTED) SUB(", root %d", j->root);
  SUB("; %s", desc);
  if (topo[0]) SUB("; %s", topo);
#undef SUB
  p->run = (struct html_run){.title = p->title,
                             .sub = p->sub,
                             .coll = tutti_coll_name(j->coll),
                             .nranks = P,
                             .ex = &p->ex,
                             .modeled_time = res->report.modeled_time,
                             .rank_end = res->report.rank_end,
                             .model = &mach->model,
                             .root = j->root};
  if (!cli_job_tree(j, &mach->model, bytes, &p->tree)) p->run.tree = &p->tree;
  /* the text beside the picture: explain's own, whatever it says */
  size_t len_text = 0;
  FILE *mf = open_memstream(&p->run.text, &len_text);
  if (!mf) return TUTTI_ENOMEM;
  rc = cli_explain_cost_why(mf, j, &mach->model, &p->ex, &res->report, P, bytes);
  if (fclose(mf) && !rc) rc = TUTTI_ENOMEM;
  if (rc) return rc == TUTTI_EIO ? TUTTI_ENOMEM : rc; /* a memory stream fails for memory */
  /* each link's messages and longest queue, for the switch tree's labels */
  int used = res->report.links_used;
  if (used > 0) {
    p->run.loads = calloc((size_t)used, sizeof *p->run.loads);
    if (!p->run.loads) return TUTTI_ENOMEM;
    if ((rc = tutti_world_links(w, used, p->run.loads, &p->run.nloads))) return rc;
  }
  return 0;
}

void cli_page_free(struct cli_page *p) {
  tutti_explain_free(&p->ex);
  free(p->run.text);
  free(p->run.loads);
  p->run.text = NULL, p->run.loads = NULL;
}

int cli_page_write(struct cli_out *out, const char *heading, const struct cli_page *pages, int n) {
  struct html_run runs[CLI_MAX_POS];
  for (int i = 0; i < n && i < CLI_MAX_POS; i++) runs[i] = pages[i].run;
  int rc = html_write(out->f, heading, runs, n);
  if (rc && rc != TUTTI_EIO) { /* not a write: the writer would not know */
    cli_out_discard(out);
    return cli_fail(CLI_ERUNTIME, out->cmd, "--html: %s", tutti_strerror(rc));
  }
  return cli_out_commit(out); /* a write that failed is named there */
}

int cli_page_run(struct cli_out *out, const tutti_world_t *w, const struct cli_job *j,
                 const tutti_machine_t *mach, const struct cli_result *res, int P, size_t bytes) {
  struct cli_page pg;
  int rc = cli_page_fill(&pg, w, j, mach, res, P, bytes), st;
  if (rc) {
    cli_out_discard(out);
    st = cli_fail(CLI_ERUNTIME, "run", "--html: %s", tutti_strerror(rc));
  } else {
    char heading[400];
    snprintf(heading, sizeof heading, "tutti run %s", pg.title);
    st = cli_page_write(out, heading, &pg, 1);
  }
  cli_page_free(&pg);
  return st;
}

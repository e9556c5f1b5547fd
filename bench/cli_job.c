/*
 * cli_job.c -- what `tutti` and `tutti-mpi` resolve the same way for one
 * collective job: its --op and --dtype, and the calls a rank would refuse
 * (bad input before the run). Linked into both commands (neither part
 * needs a world).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_job_types(const char *cmd, const struct cli_opts *o, int coll, tutti_op_t *op,
                  tutti_datatype_t *type) {
  unsigned traits = tutti_coll_traits(coll);
  int reduces = (traits & TUTTI_COLL_REDUCES) != 0;
  char names[256];
  *op = NULL;
  *type = reduces ? TUTTI_INT32 : TUTTI_BYTE;
  if (o->op && !reduces)
    return cli_fail(CLI_EUSAGE, cmd, "--op: %s takes no op; accepted: --op with %s",
                    tutti_coll_name(coll),
                    cli_coll_with(TUTTI_COLL_REDUCES, " or ", names, sizeof names));
  if (!(traits & TUTTI_COLL_DATA) && (o->given & (CLI_O(BYTES) | CLI_O(DTYPE))))
    return cli_fail(
        CLI_EUSAGE, cmd, "--%s: %s moves no data; accepted: %s without --bytes and --dtype",
        o->given & CLI_O(BYTES) ? "bytes" : "dtype", tutti_coll_name(coll), tutti_coll_name(coll));
  if (o->dtype && tutti_type_find(o->dtype, type))
    return cli_fail(CLI_EUSAGE, cmd,
                    "--dtype: unknown datatype '%s'; accepted: byte, int32, int64, float, double",
                    o->dtype);
  if (!reduces) return 0;
  if (tutti_op_find(o->op ? o->op : "sum", op))
    return cli_fail(CLI_EUSAGE, cmd,
                    "--op: unknown op '%s'; accepted: sum, prod, min, max, band, bor, bxor, land, "
                    "lor, matmul2",
                    o->op);
  if (tutti_op_check(*op, *type))
    return cli_fail(CLI_EUSAGE, cmd,
                    "--op: %s is not defined on %s; accepted: sum, prod, min, max on every type; "
                    "band, bor, bxor, land, lor on byte, int32, int64; matmul2 on int32, int64",
                    tutti_op_name(*op), tutti_type_name(*type));
  return 0;
}

int cli_job_check(const char *cmd, struct cli_job *j, int nranks, size_t bytes) {
  /* a rotating root takes min(iters, nranks) distinct roots */
  int calls = j->rotate ? (j->iters < nranks ? j->iters : nranks) : 1;
  char err[1024] = "";
  for (int k = 0; k < calls; k++) {
    int root = (int)(((long)j->root + k) % nranks);
    if (!tutti_algo_check_call(j->algo, nranks, root, bytes, j->op, err, sizeof err)) {
      if (!k) snprintf(j->note, sizeof j->note, "%.*s", (int)sizeof j->note - 1, err);
      continue;
    }
    if (!k) return cli_fail(CLI_EUSAGE, cmd, "%s", err);
    return cli_fail(CLI_EUSAGE, cmd, "--rotate-root: call %d is rooted at rank %d: %s", k + 1, root,
                    err);
  }
  return 0;
}

/* A level's algorithm as hierarchical's parameter `name` reads ("binomial"). */
static void level_text(const tutti_algo_t *a, const char *name, char *buf, size_t n) {
  const tutti_algo_desc_t *d = tutti_algo_desc(a);
  snprintf(buf, n, "?");
  for (int i = 0; i < d->nparams; i++)
    if (!strcmp(d->params[i].name, name)) tutti_algo_param_text(a, i, buf, n);
}

void cli_job_levels(struct cli_job *j, const tutti_model_t *m, int nranks) {
  const tutti_algo_desc_t *d = tutti_algo_desc(j->algo);
  if (!tutti_algo_is_two_level(d) || j->note[0]) return;
  char inter[64], intra[64];
  level_text(j->algo, "inter", inter, sizeof inter);
  level_text(j->algo, "intra", intra, sizeof intra);
  const tutti_topo_t *t = m->topo;
  if (!t) {
    snprintf(j->note, sizeof j->note,
             "no topology, so no hosts: one level, inter=%s on every rank (--topology gives "
             "hosts)",
             inter);
    return;
  }
  /* hosts as the ranks find them (tutti_rank_host): their leaves' switches */
  int nsw = tutti_topo_nswitches(t), hosts = 0, ranges = 0, prev = -1;
  unsigned char *seen = calloc((size_t)nsw, 1);
  if (!seen) return;
  for (int q = 0; q < nranks; q++) {
    int sw = tutti_topo_leaf_switch(t, tutti_topo_leaf_of_rank(t, q));
    if (sw < 0 || sw >= nsw) break;
    hosts += !seen[sw];
    seen[sw] = 1;
    ranges += sw != prev;
    prev = sw;
  }
  free(seen);
  if (hosts == nranks && nranks > 1)
    snprintf(j->note, sizeof j->note, "every rank on a host of its own: one level, inter=%s",
             inter);
  else if (hosts == 1 && nranks > 1)
    snprintf(j->note, sizeof j->note, "all %d ranks on one host: one level, intra=%s", nranks,
             intra);
  else if (j->op && tutti_op_commutative(j->op) != 1 && ranges != hosts)
    snprintf(j->note, sizeof j->note,
             "hosts are not ranges of consecutive ranks and %s does not commute: one level, "
             "inter=%s on every rank",
             tutti_op_name(j->op), inter);
}

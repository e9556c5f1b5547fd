/*
 * cli_job.c -- what `tutti` and `tutti-mpi` resolve the same way for one
 * collective job: its --op and --dtype, and the calls a rank would refuse
 * (bad input before the run). Linked into both commands (neither part
 * needs a world).
 */
#include <stdio.h>

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

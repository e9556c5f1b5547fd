/*
 * cli_names.h -- the registry's names the command tests use
 * (test_e2e_cli.c, test_e2e_cli_run.c), taken from the registry so that a
 * renamed default or parameter is followed, and the fields `tutti run
 * --json` must have (bench/CLI.md).
 */
#ifndef TUTTI_TESTS_CLI_NAMES_H
#define TUTTI_TESTS_CLI_NAMES_H

#include <string.h>

#include "tutti/tutti.h"

/* the fields of `tutti run --json` (bench/CLI.md) */
static const char *const run_keys[] = {"collective",   "algorithm",     "params",   "ranks",
                                       "bytes",        "root",          "iters",    "model",
                                       "modeled_time", "modeled_times", "per_rank", "messages",
                                       "bytes_moved",  "wall_time",     "verified"};

/* ------------------------------------------------------------ the registry's names */

static inline const char *bcast_default(void) {
  const tutti_algo_desc_t *d = tutti_algo_desc_default(TUTTI_COLL_BCAST);
  cr_assert(ne(ptr, (void *)d, NULL), "bcast has no default algorithm");
  return d->name;
}

static inline int reduces(int coll) {
  return (tutti_coll_traits(coll) & TUTTI_COLL_REDUCES) != 0;
}

/* An algorithm with a parameter named `param`, NULL if none. */
static inline const tutti_algo_desc_t *with_param(const char *param) {
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
    for (int k = 0; k < d->nparams; k++)
      if (!strcmp(d->params[k].name, param)) return d;
  return NULL;
}

#endif

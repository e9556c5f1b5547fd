/*
 * cli_world.c -- the options of a command that runs worlds: what its worlds
 * take from them (cli_config), how their ranks run by default
 * (cli_default_way: tutti's choice of way and workers for the sizes the
 * command will run), and
 * the environment those worlds read, checked by the library itself
 * (tutti_config_check): the command names a bad variable and exits 2
 * accepting exactly what a world accepts, with no parser of its own. And
 * --rules FILE (cli_rules), the rules the worlds of run, suite and sweep
 * give `auto`, loaded and checked by the library (tutti_rules_load).
 */
#include <stdlib.h>

#include "cli.h"

void cli_default_way(tutti_config_t *cfg, int ranks_as, size_t max_bytes) {
  const char *env = getenv("TUTTI_RANKS_AS"), *wenv = getenv("TUTTI_WORKERS");
  cfg->ranks_as = ranks_as;
  if (ranks_as != TUTTI_RANKS_AS_DEFAULT || (env && *env)) return; /* named: no choice */
  cfg->ranks_as = tutti_ranks_as_choose(cfg->nranks, max_bytes, 0);
  /* tutti's way for these sizes: its workers too, unless the variable
   * names them (a paced world's ranks are threads: no workers) */
  if (cfg->ranks_as == TUTTI_RANKS_AS_FIBERS && !(wenv && *wenv) && !(cfg->flags & TUTTI_WALLCLOCK))
    cfg->workers = tutti_workers_choose(cfg->nranks, max_bytes, 0);
}

size_t cli_max_size(const size_t *sizes, int n) {
  size_t m = 0;
  for (int i = 0; i < n; i++) m = sizes[i] > m ? sizes[i] : m;
  return m;
}

void cli_config(const struct cli_opts *o, tutti_config_t *cfg, size_t max_bytes) {
  /* a timing-only run copies no payload: tutti's choice for no bytes
   * (modeled times do not depend on it, tested) */
  cli_default_way(cfg, o->ranks_as, o->no_data ? 0 : max_bytes);
  cfg->bind = o->bind;
  cfg->stack_size = o->stack;
  cfg->max_events = o->max_events;
  cfg->max_memory = o->max_memory; /* 0: the runtime's own default */
  if (o->no_data) cfg->flags |= TUTTI_NO_DATA;
}

int cli_world_env(const char *cmd, const struct cli_opts *o) {
  /* The options applied as every world of the command applies them (an
   * option decides, so its variable is not read); the rank count is
   * checked per world, so one rank stands in. */
  tutti_config_t cfg = tutti_config_default(1);
  if (o) cli_config(o, &cfg, 0);
  char err[512];
  if (tutti_config_check(&cfg, err, sizeof err)) return cli_fail(CLI_EUSAGE, cmd, "%s", err);
  return 0;
}

int cli_parse_world(const char *cmd, uint64_t accepted, int maxpos, int argc, char **argv,
                    struct cli_opts *o) {
  int st = cli_parse(cmd, accepted, maxpos, argc, argv, o);
  if (st || (o->given & CLI_O(HELP))) return st;
  return cli_world_env(cmd, o);
}

int cli_rules(const char *cmd, const struct cli_opts *o, tutti_rules_t **out) {
  *out = NULL;
  if (!o->rules) return 0;
  char err[1024] = "";
  int rc = tutti_rules_load(o->rules, out, err, sizeof err);
  if (rc == TUTTI_ENOMEM) return cli_fail(CLI_ERUNTIME, cmd, "--rules: %s", err);
  return rc ? cli_fail(CLI_EUSAGE, cmd, "--rules: %s", err) : 0;
}

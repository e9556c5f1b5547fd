/*
 * cli_world.c -- the options of a command that runs worlds, with the
 * environment those worlds read checked by the library itself
 * (tutti_config_check): the command names a bad variable and exits 2
 * accepting exactly what a world accepts, with no parser of its own. And
 * --rules FILE (cli_rules), the rules the worlds of run, suite and sweep
 * give `auto`, loaded and checked by the library (tutti_rules_load).
 */
#include "cli.h"

int cli_world_env(const char *cmd, const struct cli_opts *o) {
  /* The options applied as every world of the command applies them (an
   * option decides, so its variable is not read); the rank count is
   * checked per world, so one rank stands in. */
  tutti_config_t cfg = tutti_config_default(1);
  if (o) cli_config(o, &cfg);
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

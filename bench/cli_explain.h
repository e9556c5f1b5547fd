/*
 * cli_explain.h -- what the two files of `tutti explain` share:
 * cli_explain.c (the command, its drawing, rounds and states) and
 * cli_explain_cost.c (the "== cost" and "== why" sections, which the
 * --html page shows too: cli_explain_cost_why, cli.h).
 */
#ifndef TUTTI_CLI_EXPLAIN_H
#define TUTTI_CLI_EXPLAIN_H

#include <stdio.h>

#include "cli.h"

/* One unit for a whole explanation, so that columns compare at a glance:
 * postal steps, else s, ms, us or ns as T (the call's time) reads best. */
struct xunit {
  double scale;
  const char *name;
};
struct xunit cli_explain_unit(const tutti_model_t *m, double T);
/* t in unit u, "%.6g"; "-" for NaN. */
const char *cli_explain_time(struct xunit u, double t, char *buf, size_t n);

/* Each rank's time in each state of report.h's enum tutti_rank_state
 * (explain's spans, summed): tot[r * TUTTI_NSTATES + state], seconds.
 * NULL when out of memory. */
double *cli_explain_state_times(const tutti_explain_t *ex, int P);

/* Why each 0 B message of a collective that moves data is empty, from the
 * run: per message 1 (pipeline fill: its sender sends that rank data only
 * later, and the rank sends it data: the empty half of an exchange), 2
 * (pipeline drain: only earlier), else 0 (a barrier's, or between two
 * data messages). malloc'd, nmsgs bytes; NULL when out of memory. */
char *cli_explain_empty_kinds(const tutti_explain_t *ex, int P);

/* A closed form of the run's model for its algorithm (cli_explain_forms.c):
 * text, one line, starting with the form itself up to a ':' (postal),
 * and its value t for the run, exact (bound 0) -- or text NULL, t NaN and
 * `none` saying why there is none. */
struct xform {
  const char *text;
  double t;
  int bound;
  char note[160]; /* its terms evaluated, or "" */
  const char *none;
};
/* Postal (the preset exactly, no topology): down and up trees, the
 * exchange algorithms' rounds. */
void cli_explain_postal_form(const struct cli_job *j, const tutti_model_t *m,
                             const tutti_explain_t *ex, int P, size_t bytes, struct xform *f);
/* LogP and LogGP: a broadcast's and a scatter's time down a tree. */
void cli_explain_logp_form(const struct cli_job *j, const tutti_model_t *m, int P, size_t bytes,
                           struct xform *f);

#endif

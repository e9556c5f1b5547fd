/*
 * cli_point.c -- one (algorithm, P, m) of `tutti suite` and `tutti sweep`:
 * run it on a world, verify it, and write it as a JSON object or a CSV
 * row. The suite and the sweep differ in what they enumerate and how they
 * print a collection, never in how a point is run or what its fields mean.
 * A timing-only `auto` takes the figures of the point that ran its choice
 * (cli_points_run).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void point_run(tutti_world_t **w, const tutti_config_t *cfg, int P, struct cli_point *r) {
  int red = (tutti_coll_traits(r->coll) & TUTTI_COLL_REDUCES) != 0;
  tutti_datatype_t type = red && r->bytes % 4 == 0 ? TUTTI_INT32 : TUTTI_BYTE;
  r->nranks = P;
  r->dtype = tutti_type_name(type);
  struct cli_job j = {.algo = r->algo,
                      .coll = r->coll,
                      .type = type,
                      .op = red ? TUTTI_SUM : NULL,
                      .root = 0,
                      .iters = 1,
                      .no_data = (cfg->flags & TUTTI_NO_DATA) != 0};
  j.count = (long)(r->bytes / tutti_type_size(type));
  char err[512] = "";
  if (tutti_algo_check(r->algo, P, j.op, err, sizeof err)) {
    r->skipped = 1;
    snprintf(r->note, sizeof r->note, "%s", err);
    return;
  }
  if (!*w) {
    r->failed = 1;
    snprintf(r->note, sizeof r->note, "no world to run on");
    return;
  }
  /* over --max-memory: timing only, on a world of its own (the flag is the
   * world's), with the same modeled times (runtime/MODEL.md) */
  tutti_world_t *alone = NULL;
  if (!j.no_data && cli_mem_over_algo(r->coll, tutti_algo_desc(r->algo)->name, P, r->bytes,
                                      r->timing_only, sizeof r->timing_only)) {
    tutti_config_t nd = *cfg;
    nd.flags |= TUTTI_NO_DATA;
    j.no_data = 1;
    if (tutti_world_create(&alone, &nd)) {
      r->failed = 1;
      snprintf(r->note, sizeof r->note, "cannot create a timing-only world of %d ranks", P);
      return;
    }
  }
  int rc = cli_exec(alone ? alone : *w, &j, &r->res);
  r->res.report.calls = NULL, r->res.report.rank_last_call = NULL, r->res.report.rank_end = NULL;
  if (alone) tutti_world_destroy(alone);
  if (rc || r->res.rc) {
    r->failed = 1;
    snprintf(r->note, sizeof r->note, "%s", rc ? tutti_strerror(rc) : r->res.error);
    if (alone) return; /* the shared world ran nothing: it stays */
    /* a fresh world for the next run, whatever this one left behind */
    tutti_world_destroy(*w);
    if (tutti_world_create(w, cfg)) *w = NULL;
    return;
  }
  r->verified = r->res.verified;
  r->unchecked = r->res.unchecked;
  if (!r->verified) snprintf(r->note, sizeof r->note, "%s", r->res.why);
  r->time = r->res.has_report && cfg->model->preset != TUTTI_MODEL_NONE ? r->res.report.modeled_time
                                                                        : r->res.stats.wall_time;
}

/* The point on the progress line: "64 ranks, 1 MiB: allgather ring". */
static void label(const struct cli_point *r, int P, char *buf, size_t n) {
  char spec[200] = "", sz[32] = "";
  tutti_algo_format(r->algo, spec, sizeof spec);
  if (tutti_coll_traits(r->coll) & TUTTI_COLL_DATA)
    snprintf(buf, n, "%d rank%s, %s: %s %s", P, P == 1 ? "" : "s",
             tutti_format_bytes(r->bytes, sz, sizeof sz), tutti_coll_name(r->coll), spec);
  else
    snprintf(buf, n, "%d rank%s: %s %s", P, P == 1 ? "" : "s", tutti_coll_name(r->coll), spec);
}

void cli_point_run(tutti_world_t **w, const tutti_config_t *cfg, int P, struct cli_point *r) {
  char what[200];
  label(r, P, what, sizeof what);
  cli_progress_point(what);
  point_run(w, cfg, P, r);
  cli_release_memory(); /* the next point starts from what outlives this one */
  cli_progress_done(
      cli_point_weight(r->coll, r->desc->name, P, r->bytes, (cfg->flags & TUTTI_NO_DATA) != 0));
}

/* An `auto` point of a timing-only run: the figures of the point among
 * pts[0..n) that ran what it would run, if there is one (1). */
static int reuse(const tutti_config_t *cfg, int P, struct cli_point *r, const struct cli_point *pts,
                 int n) {
  if (!(cfg->flags & TUTTI_NO_DATA) || !tutti_algo_is_auto(r->desc)) return 0;
  int red = (tutti_coll_traits(r->coll) & TUTTI_COLL_REDUCES) != 0;
  const tutti_algo_t *c;
  char spec[256];
  if (tutti_auto_choose(r->coll, cfg->model, cfg->rules, P, r->bytes, 0, red ? TUTTI_SUM : NULL, &c,
                        NULL, 0))
    return 0;
  for (int i = 0; i < n; i++) {
    const struct cli_point *d = &pts[i];
    if (d == r || !d->nranks || d->skipped || d->failed || d->algo != c) continue;
    tutti_algo_format(d->algo, spec, sizeof spec);
    r->nranks = P, r->dtype = d->dtype, r->res = d->res, r->time = d->time;
    r->verified = d->verified, r->unchecked = d->unchecked;
    snprintf(r->same_run_as, sizeof r->same_run_as, "%s", spec);
    return 1;
  }
  return 0;
}

void cli_points_run(tutti_world_t **w, const tutti_config_t *cfg, int P, struct cli_point *pts,
                    int n) {
  int no_data = (cfg->flags & TUTTI_NO_DATA) != 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < n; i++) {
      struct cli_point *r = &pts[i];
      if (tutti_algo_is_auto(r->desc) != pass) continue;
      if (!r->failed && (!pass || !reuse(cfg, P, r, pts, n)))
        cli_point_run(w, cfg, P, r);
      else /* not selected, or auto's choice ran already: nothing to run */
        cli_progress_done(cli_point_weight(r->coll, r->desc->name, P, r->bytes, no_data));
    }
}

void cli_point_json(FILE *f, const struct cli_point *r, int modeled, int with_ranks) {
  fputc('{', f);
  cli_json_algo(f, r->desc, r->algo);
  if (with_ranks) fprintf(f, ",\"ranks\":%d", r->nranks);
  fprintf(f, ",\"bytes\":%zu,\"dtype\":", r->bytes);
  cli_json_str(f, r->dtype);
  int ran = !r->skipped && !r->failed;
  fputs(",\"modeled_time\":", f);
  if (ran && modeled)
    cli_json_num(f, r->time);
  else
    fputs("null", f);
  if (ran)
    fprintf(f, ",\"messages\":%llu,\"bytes_moved\":%llu", (unsigned long long)r->res.stats.messages,
            (unsigned long long)r->res.stats.bytes);
  else
    fputs(",\"messages\":null,\"bytes_moved\":null", f);
  fputs(",\"wall_time\":", f);
  if (ran)
    cli_json_num(f, r->res.stats.wall_time);
  else
    fputs("null", f);
  fprintf(f, ",\"verified\":%s,\"winner\":%s,\"skipped\":",
          ran && r->unchecked  ? "null"
          : ran && r->verified ? "true"
                               : "false",
          r->winner ? "true" : "false");
  if (r->skipped)
    cli_json_str(f, r->note);
  else
    fputs("null", f);
  fputs(",\"error\":", f);
  if (r->failed || (ran && !r->verified))
    cli_json_str(f, r->note);
  else
    fputs("null", f);
  fputs(",\"same_run_as\":", f);
  if (r->same_run_as[0])
    cli_json_str(f, r->same_run_as);
  else
    fputs("null", f);
  fputs(",\"timing_only\":", f);
  if (r->timing_only[0])
    cli_json_str(f, r->timing_only);
  else
    fputs("null", f);
  fputc('}', f);
}

/* A CSV field: quoted when it holds a comma, a quote or a line break,
 * its quotes doubled (RFC 4180). */
static void csv_str(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

void cli_point_csv_header(FILE *f) {
  fputs("collective,algorithm,algorithm_spec,ranks,bytes,dtype,modeled_time,wall_time,messages,"
        "bytes_moved,verified,winner,note\n",
        f);
}

void cli_point_csv(FILE *f, const struct cli_point *r, int modeled) {
  char spec[256] = "";
  tutti_algo_format(r->algo, spec, sizeof spec);
  int ran = !r->skipped && !r->failed;
  csv_str(f, tutti_coll_name(r->coll));
  fputc(',', f);
  csv_str(f, r->desc->name);
  fputc(',', f);
  csv_str(f, spec);
  fprintf(f, ",%d,%zu,%s,", r->nranks, r->bytes, r->dtype ? r->dtype : "");
  /* the shortest text that reads back the same double; empty: no value */
  char num[40];
  if (ran && modeled) fputs(tutti_format_shortest(r->time, num, sizeof num), f);
  fputc(',', f);
  if (ran) fputs(tutti_format_shortest(r->res.stats.wall_time, num, sizeof num), f);
  fputc(',', f);
  if (ran)
    fprintf(f, "%llu,%llu", (unsigned long long)r->res.stats.messages,
            (unsigned long long)r->res.stats.bytes);
  else
    fputc(',', f);
  /* verified: empty when a no-data run checked nothing */
  fprintf(f, ",%s,%s,",
          ran && r->unchecked  ? ""
          : ran && r->verified ? "true"
                               : "false",
          r->winner ? "true" : "false");
  char same[300] = "";
  if (r->same_run_as[0])
    snprintf(same, sizeof same, "the run of %s, auto's choice", r->same_run_as);
  csv_str(f, r->skipped || r->failed || !r->verified ? r->note
             : r->timing_only[0]                     ? r->timing_only
                                                     : same);
  fputc('\n', f);
}

/*
 * cli_run.c -- `tutti run COLL ALGO [options]`: run one collective on
 * emulated ranks, check every rank's result against verify.c's sequential
 * reference on every call, and report modeled time, messages, wall time
 * and the verdict as a table or as bench/CLI.md's JSON; --trace FILE writes the
 * Chrome trace, --timeline prints the ASCII timeline.
 *
 * This file is the command: its checks of its input, the world, the
 * paced run (--realtime) and the files it writes. The job runs through
 * cli_exec.c (checking and timing every call, as for every command), the
 * report -- --help, the table, the JSON -- is cli_report.c's and the
 * --html page cli_html.c's, so that none of them is read through another.
 *
 * Exit: 0 verified, 1 a result differs from the reference, 2 bad input
 * (names the flag and what it accepts; the registry's own text for
 * algorithms and parameters), 3 the world failed (its error text).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* --realtime --timeline on a terminal: run the job once unpaced and keep
 * its timeline text (*frame, malloc'd) and modeled time; on any failure
 * *frame stays NULL and the paced run goes on without the live view. */
static void live_frame(const struct cli_job *j, const tutti_config_t *cfg, char **frame,
                       double *T) {
  tutti_world_t *w;
  if (tutti_world_create(&w, cfg)) return;
  struct cli_result res;
  char *text = NULL;
  size_t len = 0;
  FILE *mem;
  if (!cli_exec(w, j, &res) && !res.rc && res.has_report && (mem = open_memstream(&text, &len))) {
    int bad = tutti_world_timeline(w, mem, 0) != 0;
    if (fclose(mem) || bad) {
      free(text);
      text = NULL;
    }
    *T = res.report.modeled_time;
  }
  *frame = text;
  tutti_world_destroy(w);
}

int tutti_cli_run(int argc, char **argv) {
  struct cli_opts o;
  int st = cli_parse_world("run", CLI_RUN_OPTS, 2, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    cli_run_help(stdout);
    return 0;
  }
  if (o.npos < 1)
    return cli_fail(CLI_EUSAGE, "run",
                    "missing COLL and ALGO; accepted: tutti run COLL ALGO, COLL one of %s",
                    cli_coll_names());
  int coll;
  if (tutti_coll_find(o.pos[0], &coll))
    return cli_fail(CLI_EUSAGE, "run", "unknown collective '%s'; accepted: %s", o.pos[0],
                    cli_coll_names());
  if (o.npos < 2) {
    char names[1024] = "";
    size_t len = 0;
    const tutti_algo_desc_t *d;
    for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++)
      if (d->coll == coll && len < sizeof names)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", d->name);
    return cli_fail(CLI_EUSAGE, "run", "missing ALGO of %s; accepted: %s", o.pos[0], names);
  }
  /* the algorithm and its parameters: the registry's own messages */
  struct cli_job j = {.coll = coll, .iters = o.iters, .root = o.root};
  char err[1024] = "";
  if (tutti_algo_select(coll, o.pos[1], o.params, &j.algo, err, sizeof err))
    return cli_fail(CLI_EUSAGE, "run", "%s", err);
  unsigned traits = tutti_coll_traits(coll);
  if (!(traits & TUTTI_COLL_ROOTED) && (o.given & (CLI_O(ROOT) | CLI_O(ROTATE)))) {
    char names[256];
    return cli_fail(CLI_EUSAGE, "run", "--%s: %s has no root; accepted: --root with %s",
                    o.given & CLI_O(ROOT) ? "root" : "rotate-root", tutti_coll_name(coll),
                    cli_coll_with(TUTTI_COLL_ROOTED, ", ", names, sizeof names));
  }
  if (o.root >= o.nranks)
    return cli_fail(CLI_EUSAGE, "run", "--root: %d is out of range for %d ranks; accepted: 0..%d",
                    o.root, o.nranks, o.nranks - 1);
  if ((st = cli_page_check("run", &o, NULL, NULL))) return st;
  j.rotate = (o.given & CLI_O(ROTATE)) != 0;
  if ((st = cli_job_types("run", &o, coll, &j.op, &j.type))) return st;
  size_t bytes = traits & TUTTI_COLL_DATA ? o.bytes : 0, tsize = tutti_type_size(j.type);
  char s1[64];
  if (bytes % tsize)
    return cli_fail(CLI_EUSAGE, "run",
                    "--bytes: %s is not a whole number of %s elements (%zu B each); accepted: a "
                    "multiple of %zu B, or another --dtype",
                    tutti_format_bytes(bytes, s1, sizeof s1), tutti_type_name(j.type), tsize,
                    tsize);
  if (bytes / tsize > (size_t)LONG_MAX || bytes > SIZE_MAX / (size_t)o.nranks)
    return cli_fail(CLI_EUSAGE, "run",
                    "--bytes: %s per rank is too large for %d ranks; accepted: less",
                    tutti_format_bytes(bytes, s1, sizeof s1), o.nranks);
  j.count = (long)(bytes / tsize);
  /* the root of every call, rotating or not, and the note of a fallback */
  if ((st = cli_job_check("run", &j, o.nranks, bytes))) return st;
  /* its memory before anything runs: over --max-memory, timing only (below) */
  tutti_machine_t mach;
  if ((st = cli_model("run", &o, o.nranks, &mach))) return st;
  cli_mem_begin("run", &o, 0, &mach.model);
  cli_give_back_memory(); /* one point: what a rank frees goes back at once */
  if ((st = cli_mem_add(coll, tutti_algo_desc(j.algo)->name, o.nranks, bytes)) ||
      (st = cli_mem_plan(NULL))) {
    tutti_machine_free(&mach);
    return st;
  }
  int json = (o.given & CLI_O(JSON)) != 0, timeline = (o.given & CLI_O(TIMELINE)) != 0;
  if (json && timeline) {
    tutti_machine_free(&mach);
    return cli_fail(CLI_EUSAGE, "run",
                    "--timeline: not with --json (the timeline is text); accepted: one of them, "
                    "or --trace FILE with --json");
  }
  if (o.no_data && mach.model.preset == TUTTI_MODEL_NONE) {
    tutti_machine_free(&mach);
    return cli_fail(CLI_EUSAGE, "run",
                    "--no-data: the none model has no modeled time to measure; accepted: "
                    "--no-data with a cost model (--model hockney:..., --profile)");
  }
  if (o.realtime > 0 && mach.model.preset == TUTTI_MODEL_NONE) {
    tutti_machine_free(&mach);
    return cli_fail(CLI_EUSAGE, "run",
                    "--realtime: the none model has no modeled time to pace by; accepted: "
                    "--realtime with a cost model (--model hockney:..., --profile)");
  }
  if (o.realtime > 0 && o.ranks_as == TUTTI_RANKS_AS_FIBERS) {
    tutti_machine_free(&mach);
    return cli_fail(CLI_EUSAGE, "run",
                    "--realtime: not with --ranks-as fibers (a paced rank sleeps, and a fiber "
                    "would hold its worker's other ranks); accepted: --realtime with threads");
  }
  if (mach.topo && mach.model.preset == TUTTI_MODEL_NONE) {
    tutti_machine_free(&mach);
    return cli_fail(CLI_EUSAGE, "run",
                    "--topology: the none model has no modeled time for links to shape; "
                    "accepted: a topology with a cost model (--model hockney:..., --profile)");
  }
  /* --html and --trace: opened before the run, committed after it (cli_out.c) */
  struct cli_out page, trace = {0};
  if ((st = cli_page_check("run", &o, &mach, &page)) ||
      (o.trace && (st = cli_out_open(&trace, "run", "--trace", o.trace, 0)))) {
    cli_out_discard(&page);
    tutti_machine_free(&mach);
    return st;
  }

  tutti_rules_t *rules = NULL;
  if ((st = cli_rules("run", &o, &rules))) {
    cli_out_discard(&trace), cli_out_discard(&page);
    tutti_machine_free(&mach);
    return st;
  }
  cli_job_levels(&j, &mach.model, o.nranks);
  tutti_config_t cfg = tutti_config_default(o.nranks);
  cfg.model = &mach.model;
  cli_config(&o, &cfg, bytes);
  cfg.rules = rules;
  if (trace.f || timeline) cfg.flags |= TUTTI_RECORD;
  j.no_data = o.no_data;
  if (!j.no_data && cli_mem_over_algo(coll, tutti_algo_desc(j.algo)->name, o.nranks, bytes,
                                      j.timing_only, sizeof j.timing_only)) {
    j.no_data = 1; /* the same modeled times (runtime/MODEL.md "Timing-only runs") */
    cfg.flags |= TUTTI_NO_DATA;
  }
  j.ungated = o.realtime > 0; /* paced: calls keep the model's pace, not a common start */
  tutti_world_t *w;
  /* live: the timeline of an unpaced run first, the picture the paced run reveals */
  char *frame = NULL;
  double frame_T = 0;
  if (o.realtime > 0 && timeline && isatty(fileno(stdout))) live_frame(&j, &cfg, &frame, &frame_T);
  if (o.realtime > 0) {
    cfg.ranks_as = TUTTI_RANKS_AS_THREADS; /* whatever $TUTTI_RANKS_AS says: checked above */
    cfg.workers = 0;
    cfg.flags |= TUTTI_WALLCLOCK;
    cfg.time_scale = o.realtime;
  }
  int rc = tutti_world_create(&w, &cfg);
  if (rc) {
    free(frame);
    cli_out_discard(&trace), cli_out_discard(&page);
    tutti_rules_free(rules);
    tutti_machine_free(&mach);
    return cli_fail(CLI_ERUNTIME, "run", "cannot create a world of %d ranks: %s", o.nranks,
                    tutti_strerror(rc));
  }
  struct cli_result res;
  struct cli_live *live = frame ? cli_live_start(stdout, w, frame, frame_T, o.realtime) : NULL;
  /* a paced run is watched by its own timeline, or by the class */
  long calls_done = 0;
  char what[200];
  snprintf(what, sizeof what, "%d rank%s: %s %s", o.nranks, o.nranks == 1 ? "" : "s",
           tutti_coll_name(coll), o.pos[1]);
  cli_progress_start("run", 1, 1, (o.given & CLI_O(QUIET)) || o.realtime > 0);
  j.calls_done = &calls_done;
  cli_progress_watch(what, &calls_done, j.iters);
  rc = cli_exec(w, &j, &res);
  cli_progress_watch_stop();
  cli_live_stop(live);
  free(frame);
  if (rc || res.rc) {
    tutti_world_destroy(w);
    tutti_rules_free(rules);
    tutti_machine_free(&mach);
    cli_out_discard(&trace), cli_out_discard(&page);
    return cli_fail(CLI_ERUNTIME, "run", "%s", rc ? tutti_strerror(rc) : res.error);
  }
  struct cli_auto_choice ac;
  cli_auto_choice(&j, &mach.model, rules, o.nranks, bytes, &ac);
  if (json)
    cli_json_run(&j, &o, &mach, &res, bytes, w, &ac);
  else
    cli_print_run(&j, &o, &mach, &res, bytes, w, &ac);
  st = res.verified ? CLI_OK : CLI_EVERIFY;
  if (timeline) {
    printf("\n");
    /* a write error (TUTTI_EIO) is main's to report, with the cause */
    if ((rc = tutti_world_timeline(w, stdout, 0)) && rc != TUTTI_EIO)
      st = cli_fail(CLI_ERUNTIME, "run", "--timeline: %s", tutti_strerror(rc));
  }
  if (trace.f) {
    /* a write that failed (TUTTI_EIO) is the writer's to name, with its cause */
    if ((rc = tutti_world_trace(w, trace.f)) && rc != TUTTI_EIO) {
      cli_out_discard(&trace);
      st = cli_fail(CLI_ERUNTIME, "run", "--trace: %s", tutti_strerror(rc));
    } else if ((rc = cli_out_commit(&trace))) {
      st = rc;
    }
  }
  if (page.f && (rc = cli_page_run(&page, w, &j, &mach, &res, o.nranks, bytes))) st = rc;
  fflush(stdout); /* the report before a verification failure's line on stderr */
  tutti_world_destroy(w);
  tutti_rules_free(rules);   /* the world pointed to them */
  tutti_machine_free(&mach); /* the world's model pointed to it */
  if (st == CLI_EVERIFY) cli_fail(CLI_EVERIFY, "run", "verification failed: %s", res.why);
  return st;
}

/*
 * cli_report.c -- what `tutti run` prints: its --help, and the report of
 * a run (cli_exec's figures, cli_exec.c) as the table or as bench/CLI.md's
 * JSON object, with what `auto` chose and why.
 *
 * Apart from cli_run.c so that the command -- its checks of its input,
 * the world, the files it writes -- reads without the formatting of its
 * twenty-odd report lines and JSON fields, and the file stays short.
 * Nothing here runs a world or changes one: it reads the finished run.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_run_help(FILE *f) {
  fprintf(f,
          "usage: tutti run COLL ALGO [options]\n\n"
          "Run one collective on emulated ranks under a cost model, check every rank's\n"
          "result against a sequential reference, and report the modeled time.\n"
          "COLL is one of: %s; ALGO one of its algorithms (tutti list COLL).\n\n"
          "options:\n",
          cli_coll_names());
  cli_print_options(f, CLI_RUN_OPTS);
  fprintf(f, "\nUnits: sizes B, kB, MB, KiB, MiB, GiB; times s, ms, us, ns, ps; bandwidth\n"
             "B/s, GB/s, Gbps. --bytes is per rank (gather, scatter, allgather and\n"
             "reduce_scatter move one such block per rank, alltoall one from every rank to\n"
             "every rank); with a --dtype of N bytes it must be a multiple of N. --op and\n"
             "--dtype apply to reduce, allreduce, reduce_scatter, scan and exscan (matmul2,\n"
             "non-commutative, needs int32 or int64); --root to bcast, reduce, gather and\n"
             "scatter; barrier moves no data.\n"
             "Topology: --topology puts the ranks on the leaves of a tree of switches whose\n"
             "links carry one message at a time (runtime/MODEL.md); it replaces a profile's\n"
             "[topology], and --mapping / --links replace its mapping and link list. Fewer\n"
             "ranks than leaves leave the leaves the mapping does not reach empty. Links no\n"
             "list sets take latency 0 and the model's beta, so a message alone on its path\n"
             "costs what it costs without topology. The table lists the busiest links,\n"
             "--json all that carried data, --trace a track per link (tutti topo draws one).\n"
             "--no-data: a timing-only run: every message keeps its size, protocol and modeled\n"
             "time (bit-identical to a data run's) but carries no payload, reductions compute\n"
             "nothing, nothing is verified, and buffers of any size cost no memory.\n"
             "--max-memory SIZE (default half of physical memory): a run whose memory\n"
             "estimate (bench/CLI.md \"Memory estimate\") passes it runs timing only, and\n"
             "says so; --strict-memory stops before running instead (exit 2).\n"
             "--html FILE: one self-contained page (no network needed) drawing the tree or\n"
             "schedule, the ranks' timeline with every message an arrow from send to receive,\n"
             "the links' queues; step through it with buttons, a slider or the arrow keys.\n"
             "It needs a cost model and at most 32 ranks (tutti compare --html: several\n"
             "algorithms on one time axis).\n"
             "--realtime SCALE paces the run by the model for live demos: a message arrives\n"
             "no earlier than SCALE x its modeled arrival in wall time (hockney: 1e5 shows\n"
             "10 us as 1 s; postal: 0.5 is half a second per step); with --timeline on a\n"
             "terminal the timeline is redrawn as messages arrive (elsewhere it prints once,\n"
             "at the end). Modeled times and results are those of an unpaced run. What\n"
             "pacing cannot show: on an oversubscribed machine (more ranks than cores) the\n"
             "threads wake late -- events never come earlier than modeled, but later, and\n"
             "ranks that act at the same modeled moment take turns, so simultaneity is not\n"
             "visible and the wall time is only a lower bound. A rank's sends are paced\n"
             "through its send port, but receive ports and links are not: where messages\n"
             "queue at a receiver (a gather's root) or on a link, the modeled times have\n"
             "the queueing and the wall clock does not.\n"
             "Exit: 0 verified, 1 verification failed, 2 bad usage or input, 3 runtime\n"
             "failure (deadlock, a rank's error, output that could not be written).\n");
}

static const char *fmt_mt(const tutti_model_t *m, double t, char *buf, size_t n) {
  return tutti_format_model_time(m, t, buf, n);
}

#define LINKS_SHOWN 8

/* Where the wall time went: the run (its CPU split between the calls and
 * the checking), the replay, the reference built before the run. */
static void print_split(const struct cli_result *res) {
  char s1[64], s2[64], s3[64];
  printf("split         run %s, replay ", tutti_format_time(res->stats.wall_time, s1, sizeof s1));
  if (res->has_report) {
    const tutti_report_t *rep = &res->report;
    double t = rep->replay_wall_time, c = rep->replay_cpu_time;
    printf("%s (CPU %s; %llu events", tutti_format_time(t, s2, sizeof s2),
           tutti_format_time(c, s3, sizeof s3), (unsigned long long)rep->events);
    if (t > 0) printf(", %.3g/s", (double)rep->events / t);
    if (c > 0) printf(", %.3g per CPU second", (double)rep->events / c);
    printf(")");
  } else {
    printf("none");
  }
  printf(", reference %s\n", tutti_format_time(res->reference_time, s3, sizeof s3));
  double share = res->ranks_cpu > 0 ? 100 * res->check_cpu / res->ranks_cpu : 0;
  printf("rank CPU      %s over all ranks, ", tutti_format_time(res->ranks_cpu, s1, sizeof s1));
  if (res->unchecked) /* --no-data: the calls alone */
    printf("nothing checked");
  else
    printf("%.0f%% of it checking (%s)", share, tutti_format_time(res->check_cpu, s2, sizeof s2));
  printf("; %llu wake-ups, %llu sleeps", (unsigned long long)res->stats.wakeups,
         (unsigned long long)res->stats.sleeps);
  if (res->stats.workers > 0)
    printf("; fibers on %d worker thread%s, %llu stack%s", res->stats.workers,
           res->stats.workers == 1 ? "" : "s", (unsigned long long)res->stats.stacks,
           res->stats.stacks == 1 ? "" : "s");
  printf("\n");
}

void cli_auto_choice(const struct cli_job *j, const tutti_model_t *m, const tutti_rules_t *rules,
                     int P, size_t bytes, struct cli_auto_choice *out) {
  out->spec[0] = out->why[0] = '\0';
  if (!tutti_algo_is_auto(tutti_algo_desc(j->algo))) return;
  const tutti_algo_t *c;
  int root = tutti_coll_traits(j->coll) & TUTTI_COLL_ROOTED ? j->root : -1;
  if (!tutti_auto_choose(j->coll, m, rules, P, bytes, root, j->op, &c, out->why, sizeof out->why))
    tutti_algo_format(c, out->spec, sizeof out->spec);
}

void cli_print_run(const struct cli_job *j, const struct cli_opts *o, const tutti_machine_t *mach,
                   const struct cli_result *res, size_t bytes, const tutti_world_t *w,
                   const struct cli_auto_choice *ac) {
  const tutti_model_t *m = &mach->model;
  char s1[64], s2[64], desc[512] = "", spec[256] = "";
  tutti_algo_format(j->algo, spec, sizeof spec);
  tutti_model_describe(m, desc, sizeof desc);
  int P = o->nranks;
  printf("collective    %s\n", tutti_coll_name(j->coll));
  printf("algorithm     %s\n", spec);
  if (ac->spec[0]) { /* what auto ran, and the rule or the estimates it chose by */
    int by_rule = !strncmp(ac->why, "rule ", 5) && !strstr(ac->why, "cannot run here");
    printf("chose         %s%s\n", ac->spec,
           by_rule ? " (by the rules file)" : " (least estimate; ties: first registered)");
    printf("%-13s %s\n", by_rule ? "rule" : "estimates", by_rule ? ac->why + 5 : ac->why);
  }
  if (res->stats.workers > 0) /* how many workers: the machine's, in the rank CPU line */
    printf("ranks         %d, as fibers\n", P);
  else
    printf("ranks         %d\n", P);
  if (tutti_coll_traits(j->coll) & TUTTI_COLL_DATA)
    printf("bytes         %s per rank (%ld x %s)\n", tutti_format_bytes(bytes, s1, sizeof s1),
           j->count, tutti_type_name(j->type));
  if (j->op) printf("op            %s\n", tutti_op_name(j->op));
  if (tutti_coll_traits(j->coll) & TUTTI_COLL_ROOTED)
    printf("root          %d%s\n", j->root, j->rotate ? " (rotating: call k uses root + k)" : "");
  if (o->model)
    printf("model         %s\n", desc);
  else
    printf("model         %s  [profile %s]\n", desc, mach->label);
  cli_print_topology(stdout, mach, 14);
  if (m->preset == TUTTI_MODEL_NONE || !res->has_report) {
    printf("modeled time  none (the none model runs at native speed)\n");
  } else {
    const tutti_report_t *rep = &res->report;
    printf("modeled time  %s%s\n", fmt_mt(m, rep->modeled_time, s1, sizeof s1),
           j->iters > 1 ? " (all calls)" : "");
    if (j->iters > 1 && rep->ncalls > 0) {
      /* the table shows the first 32 calls; --json has them all */
      int shown = rep->ncalls < 32 ? rep->ncalls : 32;
      printf("per call     ");
      for (int k = 0; k < shown; k++) {
        if (k && k % 8 == 0) printf("\n             ");
        printf(" %s%s", fmt_mt(m, rep->calls[k].time, s1, sizeof s1), k + 1 < shown ? "," : "");
      }
      if (shown < rep->ncalls) printf(" ... (%d calls; --json lists all)", rep->ncalls);
      printf("\n");
    }
    int lo = 0, hi = 0;
    for (int i = 1; i < rep->nranks; i++) {
      if (rep->rank_last_call[i] < rep->rank_last_call[lo]) lo = i;
      if (rep->rank_last_call[i] > rep->rank_last_call[hi]) hi = i;
    }
    if (rep->rank_last_call[lo] == rep->rank_last_call[hi])
      printf("ranks done    all at %s\n", fmt_mt(m, rep->rank_last_call[lo], s1, sizeof s1));
    else { /* a tie names every rank in it, as explain does */
      char first[96], last[96];
      int nf, nl;
      cli_ranks_at(rep->rank_last_call, rep->nranks, rep->rank_last_call[lo], -1, &nf, first,
                   sizeof first);
      cli_ranks_at(rep->rank_last_call, rep->nranks, rep->rank_last_call[hi], -1, &nl, last,
                   sizeof last);
      printf("ranks done    first: rank%s %s at %s, last: rank%s %s at %s\n", nf > 1 ? "s" : "",
             first, fmt_mt(m, rep->rank_last_call[lo], s1, sizeof s1), nl > 1 ? "s" : "", last,
             fmt_mt(m, rep->rank_last_call[hi], s2, sizeof s2));
    }
  }
  printf("messages      %llu (%s moved; %llu eager, %llu rendezvous)\n",
         (unsigned long long)res->stats.messages,
         tutti_format_bytes((size_t)res->stats.bytes, s1, sizeof s1),
         (unsigned long long)res->stats.eager, (unsigned long long)res->stats.rendezvous);
  printf("wall time     %s (thread start to last join, verification included)\n",
         tutti_format_time(res->stats.wall_time, s1, sizeof s1));
  if (!isnan(res->call_wall))
    printf("wall time     %s per call, checking excluded (the slowest rank's time inside the "
           "calls / %d)\n",
           tutti_format_time(res->call_wall, s1, sizeof s1), j->iters);
  if (o->realtime > 0)
    printf("paced         %g wall s per modeled %s (--realtime): wall time >= %s\n", o->realtime,
           m->preset == TUTTI_MODEL_POSTAL ? "step" : "s",
           tutti_format_time(o->realtime * res->report.modeled_time, s1, sizeof s1));
  print_split(res);
  if (res->unchecked)
    printf("verified      not checked (%s)\n",
           j->timing_only[0] ? j->timing_only : "--no-data: no payload moved");
  else
    printf("verified      %s\n", res->verified ? "yes" : "NO");
  if (j->note[0]) printf("note          %s\n", j->note);
  if (mach->topo && res->has_report) {
    printf("\n");
    cli_print_links(stdout, w, m, LINKS_SHOWN);
  }
}

void cli_json_run(const struct cli_job *j, const struct cli_opts *o, const tutti_machine_t *mach,
                  const struct cli_result *res, size_t bytes, const tutti_world_t *w,
                  const struct cli_auto_choice *ac) {
  const tutti_model_t *m = &mach->model;
  FILE *f = stdout;
  int modeled = m->preset != TUTTI_MODEL_NONE && res->has_report;
  const tutti_report_t *rep = &res->report;
  fputc('{', f);
  cli_json_algo(f, tutti_algo_desc(j->algo), j->algo);
  fputs(",\"auto_chose\":", f); /* what an auto ran, and why; null for the others */
  if (ac->spec[0])
    cli_json_str(f, ac->spec);
  else
    fputs("null", f);
  fputs(",\"auto_why\":", f);
  if (ac->spec[0])
    cli_json_str(f, ac->why);
  else
    fputs("null", f);
  fprintf(f, ",\"ranks\":%d,\"bytes\":%zu,\"count\":%ld,\"dtype\":", o->nranks, bytes, j->count);
  cli_json_str(f, tutti_type_name(j->type));
  fputs(",\"op\":", f);
  if (j->op)
    cli_json_str(f, tutti_op_name(j->op));
  else
    fputs("null", f);
  if (tutti_coll_traits(j->coll) & TUTTI_COLL_ROOTED)
    fprintf(f, ",\"root\":%d", j->root);
  else
    fputs(",\"root\":null", f);
  fprintf(f, ",\"rotate_root\":%s,\"iters\":%d,\"profile\":", j->rotate ? "true" : "false",
          j->iters);
  if (o->model)
    fputs("null", f);
  else
    cli_json_str(f, mach->label);
  fputs(",\"model\":", f);
  tutti_model_json(m, f);
  fputs(",\"time_unit\":", f);
  cli_json_str(f, tutti_model_time_unit(m));
  fputs(",\"modeled_time\":", f);
  if (modeled)
    cli_json_num(f, rep->modeled_time);
  else
    fputs("null", f);
  fputs(",\"modeled_times\":", f);
  if (modeled) {
    fputc('[', f);
    if (rep->ncalls > 0)
      for (int k = 0; k < rep->ncalls; k++) {
        if (k) fputc(',', f);
        cli_json_num(f, rep->calls[k].time);
      }
    else
      cli_json_num(f, rep->modeled_time);
    fputc(']', f);
  } else
    fputs("null", f);
  fputs(",\"per_rank\":", f);
  if (modeled) {
    fputc('[', f);
    for (int i = 0; i < rep->nranks; i++) {
      if (i) fputc(',', f);
      cli_json_num(f, rep->rank_last_call[i]);
    }
    fputc(']', f);
  } else
    fputs("null", f);
  fprintf(f, ",\"messages\":%llu,\"bytes_moved\":%llu,\"eager\":%llu,\"rendezvous\":%llu",
          (unsigned long long)res->stats.messages, (unsigned long long)res->stats.bytes,
          (unsigned long long)res->stats.eager, (unsigned long long)res->stats.rendezvous);
  fputs(",\"wall_time\":", f);
  cli_json_num(f, res->stats.wall_time);
  fputs(",\"wall_per_call\":", f); /* null: not measured (cli_result.call_wall) */
  cli_json_num(f, res->call_wall);
  fputs(",\"realtime\":", f); /* --realtime's scale, null when not paced */
  if (o->realtime > 0)
    cli_json_num(f, o->realtime);
  else
    fputs("null", f);
  fputs(",\"replay_wall_time\":", f);
  if (res->has_report)
    cli_json_num(f, res->report.replay_wall_time);
  else
    fputs("null", f);
  fputs(",\"replay_cpu_time\":", f);
  if (res->has_report)
    cli_json_num(f, res->report.replay_cpu_time);
  else
    fputs("null", f);
  fprintf(f, ",\"events\":%llu,\"reference_time\":",
          (unsigned long long)(res->has_report ? res->report.events : 0));
  cli_json_num(f, res->reference_time);
  fputs(",\"ranks_cpu_time\":", f);
  cli_json_num(f, res->ranks_cpu);
  fputs(",\"check_cpu_time\":", f);
  cli_json_num(f, res->check_cpu);
  fprintf(f, ",\"workers\":%d,\"stacks\":%llu", res->stats.workers,
          (unsigned long long)res->stats.stacks);
  fprintf(f, ",\"wakeups\":%llu,\"sleeps\":%llu", (unsigned long long)res->stats.wakeups,
          (unsigned long long)res->stats.sleeps);
  fprintf(f, ",\"verified\":%s,\"no_data\":%s",
          res->unchecked  ? "null"
          : res->verified ? "true"
                          : "false",
          res->unchecked ? "true" : "false");
  fputs(",\"timing_only\":", f); /* over --max-memory: why it ran without data */
  if (j->timing_only[0])
    cli_json_str(f, j->timing_only);
  else
    fputs("null", f);
  struct cli_mem mem; /* the run as it ran: with data, or timing only */
  if (cli_mem_point(j->coll, tutti_algo_desc(j->algo)->name, o->nranks, bytes, j->no_data, &mem,
                    NULL))
    fputs(",\"memory_estimate\":null", f);
  else
    fprintf(f, ",\"memory_estimate\":%llu", (unsigned long long)mem.total);
  fputs(",\"note\":", f);
  if (j->note[0])
    cli_json_str(f, j->note);
  else
    fputs("null", f);
  fputs(",\"topology\":", f);
  cli_json_topology(f, mach);
  fputs(",\"links\":", f); /* every link that carried a message, busiest first */
  if (mach->topo && modeled)
    cli_json_links(f, w);
  else
    fputs("null", f);
  fputs("}\n", f);
}

/*
 * cli_compare.c -- `tutti compare COLL ALGO1 ALGO2 ... [options]`: the same
 * collective by two or more algorithms on the same machine, ranks and
 * message size, each on a world of its own and verified. Prints a short
 * table -- modeled time (postal: "6 steps"), messages, bytes moved, and
 * each time as a multiple of the fastest, after the model's line as
 * explain prints it when --model or --profile chose it -- or one JSON
 * object (--json); --html FILE writes the step-through page (html.h) with
 * the runs one above the other on one time axis, so a class sees where one
 * algorithm loses to another. The page's pieces are cli_html.c's, shared
 * with `tutti run --html`.
 *
 * Exit: 0 every run verified, 1 one failed verification (the table first),
 * 2 bad input (fewer than two algorithms, an unknown one, --html with more
 * than HTML_MAX_RANKS ranks or the none model, --html with --json), 3 a
 * world failed or the page could not be written.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "html.h"

#define COMPARE_OPTS                                                                               \
  (CLI_O(RANKS) | CLI_O(BYTES) | CLI_O(ROOT) | CLI_O(MODEL) | CLI_O(PROFILE) | CLI_O(TOPOLOGY) |   \
   CLI_O(MAPPING) | CLI_O(LINKS) | CLI_O(OP) | CLI_O(DTYPE) | CLI_O(JSON) | CLI_O(HTML) |          \
   CLI_O(PLUGIN) | CLI_O(HELP))

static void compare_help(FILE *f) {
  fprintf(f,
          "usage: tutti compare COLL ALGO1 ALGO2 ... [options]\n\n"
          "Run one collective by each algorithm (2 to %d of them) on the same machine, ranks\n"
          "and size, verify every result, and print a table: modeled time, messages, bytes\n"
          "moved, and each time as a multiple of the fastest. An ALGO takes its parameters\n"
          "after a colon: lambda-tree:lambda=0.7. COLL is one of: %s.\n\n"
          "options:\n",
          CLI_MAX_POS - 1, cli_coll_names());
  cli_print_options(f, COMPARE_OPTS);
  fprintf(f,
          "\n--html FILE writes one self-contained page (no network needed) with the runs one\n"
          "above the other on one time axis: each one's tree or schedule, its ranks' timeline\n"
          "with every message an arrow, its links' queues; step through with the buttons,\n"
          "the slider or the arrow keys. It needs a cost model and at most %d ranks, and is\n"
          "for people, as --json is for scripts: not both. Exit: 0 every run verified, 1 one\n"
          "failed verification, 2 bad usage or input, 3 runtime failure.\n",
          HTML_MAX_RANKS);
}

struct entry {
  struct cli_job job;
  size_t bytes;
  tutti_world_t *w;
  struct cli_result res;
};

static void print_table(const struct entry *e, int n, const struct cli_opts *o,
                        const tutti_machine_t *mach, double best) {
  const tutti_model_t *m = &mach->model;
  char s1[64], s2[64], spec[256];
  if (o->given & (CLI_O(MODEL) | CLI_O(PROFILE))) { /* the model chosen, as explain names it */
    char desc[512];
    tutti_model_describe(m, desc, sizeof desc);
    printf("model: %s%s%s%s\n", desc, o->model ? "" : "  [profile ", o->model ? "" : mach->label,
           o->model ? "" : "]");
  }
  int width = 9;
  for (int i = 0; i < n; i++) {
    tutti_algo_format(e[i].job.algo, spec, sizeof spec);
    int len = (int)strlen(spec);
    if (len > width) width = len;
  }
  printf("%-*s  %14s  %9s  %12s  %8s  %s\n", width, "algorithm", "modeled time", "messages",
         "bytes moved", "x fastest", "verified");
  for (int i = 0; i < n; i++) {
    const struct cli_result *r = &e[i].res;
    tutti_algo_format(e[i].job.algo, spec, sizeof spec);
    tutti_format_model_time(m, r->report.modeled_time, s1, sizeof s1);
    if (tutti_model_steps(m)) /* a bare count is steps: say so, as seconds carry theirs */
      snprintf(s1 + strlen(s1), sizeof s1 - strlen(s1), " step%s",
               r->report.modeled_time == 1 ? "" : "s");
    printf("%-*s  %14s  %9llu  %12s  %8.3g  %s\n", width, spec, s1,
           (unsigned long long)r->stats.messages,
           tutti_format_bytes((size_t)r->stats.bytes, s2, sizeof s2),
           best > 0 ? r->report.modeled_time / best : 1.0, r->verified ? "yes" : "NO");
  }
}

static void print_json(const struct entry *e, int n, const struct cli_opts *o,
                       const tutti_machine_t *mach, double best) {
  FILE *f = stdout;
  fputs("{\"collective\":", f);
  cli_json_str(f, tutti_coll_name(e[0].job.coll));
  fprintf(f, ",\"ranks\":%d,\"bytes\":%zu,\"model\":", o->nranks, e[0].bytes);
  tutti_model_json(&mach->model, f);
  fputs(",\"time_unit\":", f);
  cli_json_str(f, tutti_model_time_unit(&mach->model));
  fputs(",\"topology\":", f);
  cli_json_topology(f, mach);
  fputs(",\"results\":[", f);
  for (int i = 0; i < n; i++) {
    char spec[256];
    const struct cli_result *r = &e[i].res;
    fputs(i ? ",{\"algorithm\":" : "{\"algorithm\":", f);
    cli_json_str(f, tutti_algo_desc(e[i].job.algo)->name);
    fputs(",\"algorithm_spec\":", f);
    tutti_algo_format(e[i].job.algo, spec, sizeof spec);
    cli_json_str(f, spec);
    fputs(",\"modeled_time\":", f);
    cli_json_num(f, r->report.modeled_time);
    fprintf(f, ",\"messages\":%llu,\"bytes_moved\":%llu,\"ratio\":",
            (unsigned long long)r->stats.messages, (unsigned long long)r->stats.bytes);
    cli_json_num(f, best > 0 ? r->report.modeled_time / best : 1.0);
    fprintf(f, ",\"verified\":%s}", r->verified ? "true" : "false");
  }
  fputs("]}\n", f);
}

int tutti_cli_compare(int argc, char **argv) {
  /* the limit named before the parser meets the first argument past it */
  int npos = cli_count_pos(argc, argv);
  if (npos > CLI_MAX_POS)
    return cli_fail(CLI_EUSAGE, "compare",
                    "%d algorithms; accepted: tutti compare COLL ALGO1 ALGO2 ..., 2 to %d "
                    "algorithms (compare more in a sweep: tutti sweep COLL --algos LIST)",
                    npos - 1, CLI_MAX_POS - 1);
  struct cli_opts o;
  int st = cli_parse_world("compare", COMPARE_OPTS, CLI_MAX_POS, argc, argv, &o);
  if (st) return st;
  if (o.given & CLI_O(HELP)) {
    compare_help(stdout);
    return 0;
  }
  if (o.npos < 3)
    return cli_fail(CLI_EUSAGE, "compare",
                    "%s; accepted: tutti compare COLL ALGO1 ALGO2 ..., 2 to %d algorithms "
                    "(tutti list COLL)",
                    o.npos < 1 ? "missing COLL and its algorithms" : "fewer than two algorithms",
                    CLI_MAX_POS - 1);
  if (o.html && (o.given & CLI_O(JSON)))
    return cli_fail(CLI_EUSAGE, "compare",
                    "--html: not with --json (the page is for people, JSON for scripts); "
                    "accepted: one of them");
  if ((st = cli_page_check("compare", &o, NULL, NULL))) return st;
  int n = o.npos - 1;
  struct entry e[CLI_MAX_POS];
  memset(e, 0, sizeof e);
  for (int i = 0; i < n; i++)
    if ((st = cli_job_make("compare", &o, o.pos[0], o.pos[i + 1], &e[i].job, &e[i].bytes)))
      return st;
  tutti_machine_t mach;
  if ((st = cli_model("compare", &o, o.nranks, &mach))) return st;
  if (mach.model.preset == TUTTI_MODEL_NONE) {
    tutti_machine_free(&mach);
    return cli_fail(CLI_EUSAGE, "compare",
                    "--model: the none model has no modeled time to compare; accepted: a cost "
                    "model (--model hockney:..., postal:L=2, --profile NAME)");
  }
  struct cli_out page; /* --html: opened before the runs, committed after them */
  if ((st = cli_page_check("compare", &o, &mach, &page))) {
    tutti_machine_free(&mach);
    return st;
  }
  tutti_config_t cfg = tutti_config_default(o.nranks);
  cfg.model = &mach.model;
  int done = 0, rc = 0;
  const char *why = NULL;
  for (; done < n && !rc; done++) {
    if ((rc = tutti_world_create(&e[done].w, &cfg))) {
      why = tutti_strerror(rc);
      break;
    }
    rc = cli_exec(e[done].w, &e[done].job, &e[done].res);
    if (!rc && e[done].res.rc) rc = e[done].res.rc, why = e[done].res.error;
    if (rc && !why) why = tutti_strerror(rc);
  }
  double best = INFINITY;
  for (int i = 0; i < n && !rc; i++)
    if (e[i].res.report.modeled_time < best) best = e[i].res.report.modeled_time;
  if (!rc) {
    if (o.given & CLI_O(JSON))
      print_json(e, n, &o, &mach, best);
    else
      print_table(e, n, &o, &mach, best);
    fflush(stdout);
    st = CLI_OK;
    for (int i = 0; i < n; i++)
      if (!e[i].res.verified && st == CLI_OK) {
        char spec[256];
        tutti_algo_format(e[i].job.algo, spec, sizeof spec);
        st = cli_fail(CLI_EVERIFY, "compare", "%s: verification failed: %s", spec, e[i].res.why);
      }
  } else {
    st = cli_fail(CLI_ERUNTIME, "compare", "%s", why);
  }
  if (page.f && !rc) {
    struct cli_page pages[CLI_MAX_POS];
    int filled = 0;
    for (; filled < n && !rc; filled++)
      rc = cli_page_fill(&pages[filled], e[filled].w, &e[filled].job, &mach, &e[filled].res,
                         o.nranks, e[filled].bytes);
    if (rc) {
      filled--;
      cli_out_discard(&page);
      st = cli_fail(CLI_ERUNTIME, "compare", "--html: %s", tutti_strerror(rc));
    } else {
      char heading[256];
      snprintf(heading, sizeof heading, "tutti compare %s: %d algorithms on %d ranks", o.pos[0], n,
               o.nranks);
      int wst = cli_page_write(&page, heading, pages, n);
      if (wst) st = wst;
    }
    for (int i = 0; i < filled; i++) cli_page_free(&pages[i]);
  } else {
    cli_out_discard(&page);
  }
  for (int i = 0; i < n; i++)
    if (e[i].w) tutti_world_destroy(e[i].w);
  tutti_machine_free(&mach);
  return st;
}

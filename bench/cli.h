/*
 * cli.h -- the `tutti` command's commands (bench/CLI.md) and the pieces
 * they share. The files call down, never around: main.c dispatches to the
 * commands (tutti_cli_*), one file each (cli_run.c, cli_compare.c, ...;
 * cli_list.c holds list, tree and profiles); a command file calls no
 * function of another command file, only the lower pieces below --
 * options (cli_opts.c, cli_world.c), one job made, run and verified
 * (cli_exec.c, verify.c, verify_call.c), run's report (cli_report.c),
 * topology and link reports (cli_links.c), --html pages (cli_html.c,
 * html.c), suite and sweep points (cli_point.c), JSON (cli_json.c), the
 * live timeline (cli_live.c), every output file (cli_out.c), the memory
 * and time a job will take (cli_estimate.c) -- which call no command file
 * either (tests/test_unit_cli_calls.c keeps it so).
 *
 * Every command function takes the arguments after its name and returns
 * the exit status of bench/CLI.md: CLI_OK, CLI_EVERIFY (a result failed
 * verification), CLI_EUSAGE (bad usage or input), CLI_ERUNTIME (deadlock,
 * a rank's error); anything but CLI_OK has printed one line on stderr,
 * "tutti CMD: what is wrong; accepted: what would be".
 *
 * Threads: everything here runs on the command's main thread, except the
 * rank function inside cli_exec and the verify_* checks it calls, which
 * read shared state that nobody writes while the world runs.
 */
#ifndef TUTTI_CLI_H
#define TUTTI_CLI_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "html.h"
#include "tutti/tutti.h"

enum cli_status { CLI_OK = 0, CLI_EVERIFY = 1, CLI_EUSAGE = 2, CLI_ERUNTIME = 3 };

/* The commands. */
int tutti_cli_list(int argc, char **argv);
int tutti_cli_run(int argc, char **argv);
int tutti_cli_tree(int argc, char **argv);
int tutti_cli_profiles(int argc, char **argv);
int tutti_cli_suite(int argc, char **argv);
int tutti_cli_topo(int argc, char **argv);
int tutti_cli_sweep(int argc, char **argv);
int tutti_cli_calibrate(int argc, char **argv);
struct cli_job;
int tutti_cli_explain(int argc, char **argv);
/* explain's "== cost" and "== why" sections of one finished run (its
 * explanation and report), written to f: what `tutti explain` prints and
 * the --html page shows beside its picture. 0 or TUTTI_EIO. */
int cli_explain_cost_why(FILE *f, const struct cli_job *j, const tutti_model_t *m,
                         const tutti_explain_t *ex, const tutti_report_t *rep, int P, size_t bytes);
int tutti_cli_tune(int argc, char **argv);
int tutti_cli_compare(int argc, char **argv);
int tutti_cli_new(int argc, char **argv);
int tutti_cli_check(int argc, char **argv);

/* ------------------------------------------------------------ options */

/* X(ENUM, short or 0, "long", "METAVAR" or NULL for a flag, "help") -- one
 * list feeds the parser, the error texts and every --help. */
#define CLI_OPTION_MAP(X)                                                                          \
  X(RANKS, 'n', "ranks", "N", "number of ranks, 1 to 2^20 (default 16)")                           \
  X(BYTES, 'm', "bytes", "SIZE", "bytes per rank: 8, 1000B, 64KiB, 1MiB (default 8)")              \
  X(ROOT, 0, "root", "R", "root rank, 0..N-1 (default 0)")                                         \
  X(MODEL, 0, "model", "SPEC",                                                                     \
    "hockney:alpha=1us,beta=1ns | postal:L=2 | logp:L=5us,o=1us,g=2us | loggp:L=,o=,g=,G= | none") \
  X(PROFILE, 0, "profile", "NAME|FILE",                                                            \
    "a built-in profile (tutti profiles) or an INI file; default teaching-hockney")                \
  X(TOPOLOGY, 0, "topology", "SPEC|FILE",                                                          \
    "a tree of switches with contended links: tree:4x8 or an INI file (topo/README.md)")           \
  X(MAPPING, 0, "mapping", "M",                                                                    \
    "rank-to-leaf mapping: identity | dfs | roundrobin[:B] | random:SEED | list:3,0,2,1")          \
  X(LINKS, 0, "links", "LIST",                                                                     \
    "link latency/bandwidth per level, leaf links first: 1us/10Gbps,2us/40Gbps (default: 0 "       \
    "and the model's beta)")                                                                       \
  X(PARAM, 0, "param", "K=V", "an algorithm parameter, repeatable: lambda=0.6, segment=8KiB")      \
  X(OP, 0, "op", "OP",                                                                             \
    "reduction op: sum prod min max band bor bxor land lor matmul2 (default sum)")                 \
  X(DTYPE, 0, "dtype", "T",                                                                        \
    "byte | int32 | int64 | float | double (default: int32 for reductions, else byte)")            \
  X(ITERS, 0, "iters", "K", "consecutive calls, >= 1 (default 1)")                                 \
  X(ROTATE, 0, "rotate-root", NULL, "call k uses root (R + k) mod N")                              \
  X(MAX_EVENTS, 0, "max-events", "N",                                                              \
    "events a rank may record (24 B each), else exit 3; default: a quarter of memory")             \
  X(JSON, 0, "json", NULL, "print one JSON object instead of the table")                           \
  X(TRACE, 0, "trace", "FILE", "write a Chrome trace-event JSON of every message (Perfetto)")      \
  X(TIMELINE, 0, "timeline", NULL, "print an ASCII timeline of the ranks")                         \
  X(HTML, 0, "html", "FILE",                                                                       \
    "write a self-contained page that steps through the run (at most 32 ranks)")                   \
  X(REALTIME, 0, "realtime", "SCALE",                                                              \
    "pace the run: SCALE wall seconds per modeled second (postal: per step)")                      \
  X(DOT, 0, "dot", NULL, "print a Graphviz digraph instead of the drawing")                        \
  X(MARKDOWN, 0, "markdown", NULL, "print a results page: a Markdown table")                       \
  X(ALGOS, 0, "algos", "LIST",                                                                     \
    "algorithms to compare, default all: binomial,lambda-tree:lambda=0.7,flat")                    \
  X(SIZES, 0, "sizes", "LIST", "bytes per rank: 8..64MiB (doubling), 8,1KiB,1MiB, or both mixed")  \
  X(CSV, 0, "csv", "FILE", "write the results as CSV to FILE (- for stdout)")                      \
  X(PLOT, 0, "plot", "FILE",                                                                       \
    "draw modeled time against size with gnuplot into FILE.svg or FILE.png")                       \
  X(NO_DATA, 0, "no-data", NULL,                                                                   \
    "timing only: message sizes without payload, no verification, buffers cost no memory")         \
  X(RANKS_AS, 0, "ranks-as", "KIND",                                                               \
    "threads | fibers: what each rank runs on (default $TUTTI_RANKS_AS, else tutti's choice by "   \
    "ranks, size and CPUs: bench/CLI.md \"The default way\")")                                     \
  X(BIND, 0, "bind", "WHERE",                                                                      \
    "cores | none: pin each rank thread (fibers: worker) to a CPU of its own (default cores when " \
    "2 or more fit, or $TUTTI_BIND)")                                                              \
  X(STACK, 0, "stack", "SIZE",                                                                     \
    "stack per rank, 16KiB to 1GiB (default 128KiB for a thread, 32KiB for a fiber)")              \
  X(RULES, 0, "rules", "FILE", "auto follows this rules file (tutti tune --rules-out)")            \
  X(RULES_OUT, 0, "rules-out", "FILE", "write the winners as a rules file (--rules reads it)")     \
  X(OMPI_RULES, 0, "ompi-rules", "FILE",                                                           \
    "write the winners as Open MPI 4.1's coll/tuned dynamic rules file")                           \
  X(OMPI_RULES_JSON, 0, "ompi-rules-json", "FILE",                                                 \
    "write the winners as Open MPI 6.0's JSON coll/tuned rules file")                              \
  X(MPICH_RULES, 0, "mpich-rules", "FILE",                                                         \
    "write the winners as MPICH 4.0's collective selection JSON file")                             \
  X(QUIET, 'q', "quiet", NULL, "no progress line on stderr (drawn only on a terminal anyway)")     \
  X(PLUGIN, 0, "plugin", "FILE",                                                                   \
    "load algorithms from a plugin, repeatable: a shared object or one C file (tutti new)")        \
  X(MAX_MEMORY, 0, "max-memory", "SIZE",                                                           \
    "memory a point may take with data, else it runs timing only: 512MiB, 4GiB (default half of "  \
    "physical memory)")                                                                            \
  X(STRICT_MEMORY, 0, "strict-memory", NULL,                                                       \
    "stop before running anything when a point would not fit --max-memory")                        \
  X(HELP, 'h', "help", NULL, "this text")

enum cli_opt_id {
#define CLI_X_ID(e, s, l, meta, help) CLI_OPT_##e,
  CLI_OPTION_MAP(CLI_X_ID)
#undef CLI_X_ID
      CLI_NOPTS
};
#define CLI_O(e) (UINT64_C(1) << CLI_OPT_##e)
/* The options whose value names a file the command writes, and those
 * whose value may name a file it reads: every option of the table whose
 * value is a FILE is in one of the two (tests/test_e2e_outputs.c fails
 * otherwise), and that test writes every output option of every command to
 * a full disk and to /dev/full. Two outputs of one command naming one
 * file, or an output naming one of its inputs, are refused by cli_parse
 * before anything runs (bench/CLI.md "Output files"). */
#define CLI_OUT_OPTS                                                                               \
  (CLI_O(TRACE) | CLI_O(HTML) | CLI_O(CSV) | CLI_O(PLOT) | CLI_O(RULES_OUT) | CLI_O(OMPI_RULES) |  \
   CLI_O(OMPI_RULES_JSON) | CLI_O(MPICH_RULES))
#define CLI_IN_OPTS (CLI_O(PROFILE) | CLI_O(TOPOLOGY) | CLI_O(RULES) | CLI_O(PLUGIN))

#define CLI_MAX_POS 8 /* compare COLL and up to 7 algorithms */

/* What the parser found; every field keeps its default unless given. */
struct cli_opts {
  uint64_t given; /* CLI_O(...) bits of the options seen (64: room to grow) */
  int nranks;     /* 16 */
  size_t bytes;   /* 8 */
  int root;       /* 0 */
  const char *model, *profile, *op, *dtype, *trace;
  const char *topology, *mapping, *links; /* NULL unless given */
  char params[1024];                      /* every --param joined: "k=v,k=v" */
  int iters;                              /* 1 */
  const char *ranks_list;                 /* --ranks as given, when a list (sweep) */
  const char *algos, *sizes, *csv, *plot; /* NULL unless given */
  uint32_t max_events;                    /* 0: the library's automatic limit */
  int no_data;                            /* --no-data: a timing-only run (TUTTI_NO_DATA) */
  double realtime;                        /* --realtime SCALE (TUTTI_WALLCLOCK); 0: not paced */
  int npos;
  const char *pos[CLI_MAX_POS];
  const char *rules, *rules_out, *ompi_rules; /* NULL unless given */
  const char *ompi_rules_json, *mpich_rules;  /* NULL unless given */
  const char *html;                           /* --html FILE, NULL unless given */
  int ranks_as;                               /* enum tutti_ranks_as; 0: the default */
  int bind;                                   /* enum tutti_bind; 0: the default */
  size_t stack;                               /* --stack SIZE; 0: the default */
  uint64_t max_memory;                        /* --max-memory SIZE; 0: half of physical memory */
};

/* Load the plugins of $TUTTI_PLUGINS (a colon-separated list), once per
 * process, for command `cmd`: 0, or CLI_EUSAGE after the one-line error.
 * --plugin FILE loads its file while the options are parsed. */
int cli_plugins_env(const char *cmd);

/* Parse argv for command `cmd`, accepting the options in `accepted` and up
 * to maxpos positional arguments (options and positionals may mix; "--"
 * ends the options). Forms: -n 8, -n8, --ranks 8, --ranks=8. An option
 * with a value given twice is an error (--param repeats; a flag without a
 * value may). Returns 0, or CLI_EUSAGE after printing the one-line error.
 * --help sets CLI_O(HELP). */
int cli_parse(const char *cmd, uint64_t accepted, int maxpos, int argc, char **argv,
              struct cli_opts *o);
/* cli_parse for a command that runs worlds (run, suite, sweep, tune,
 * compare, explain, calibrate; cli_world.c), then the environment those worlds will read where the
 * options leave it a choice (TUTTI_RANKS_AS unless --ranks-as, TUTTI_BIND
 * unless --bind, TUTTI_STACK unless --stack, TUTTI_WORKERS,
 * TUTTI_PERTURB), by the library's own check (tutti_config_check): a bad
 * value is CLI_EUSAGE with the line naming the variable, not a world that
 * cannot be created. Not after --help. Apart from cli_parse because
 * tutti-mpi, which links cli_opts.c, has no worlds. */
int cli_parse_world(const char *cmd, uint64_t accepted, int maxpos, int argc, char **argv,
                    struct cli_opts *o);
/* Its check alone, with o's options applied (o NULL: none, as for the
 * benchmark programs, which parse their own): 0 or CLI_EUSAGE. */
int cli_world_env(const char *cmd, const struct cli_opts *o);
/* --ranks and --sizes lists: items separated by commas, each a value or a
 * range A..B that doubles from A up to B (8..64MiB: 8, 16, ..., 64MiB).
 * Values are >= 1 ranks (at most max_ranks) or sizes in tutti_parse_size's
 * units; at most 4096 values, kept in the order given, duplicates dropped.
 * *out is malloc'd. 0, or CLI_EUSAGE after the one-line error naming
 * --FLAG. */
int cli_parse_ranks(const char *cmd, const char *text, int max_ranks, int **out, int *n);
int cli_parse_sizes(const char *cmd, const char *text, size_t **out, int *n);
/* The positional arguments cli_parse would find in argv, however many
 * (it stops at maxpos): for a command that names its own limit. 0 when
 * -h or --help is among the options. */
int cli_count_pos(int argc, char **argv);
/* The option lines of a --help text, for the options in `accepted`. */
void cli_print_options(FILE *f, uint64_t accepted);
/* Print "tutti CMD: <message>\n" on stderr ("tutti: " for a NULL cmd), control
 * bytes (C0, DEL, C1) and bytes that are not valid UTF-8 shown as \xNN;
 * returns `status`. */
int cli_fail(int status, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* 1 while a progress line is on stderr (cli_progress.c sets it): cli_fail
 * erases it first, so that its line stands alone. */
extern int cli_line_shown;

/* 1 when paths a and b name one file: the same file where it exists (a
 * symbolic link and what it names are one), else the same name in the
 * same folder, each folder by its real path (x, ./x and d/../x are one). */
int cli_same_file(const char *a, const char *b);

/* ------------------------------------------------------------ progress */

/* The progress line on stderr (cli_progress.c): drawn only when stderr is
 * a terminal and `quiet` is 0. A command starts it with its number of
 * points and their total weight; cli_point_run reports each point it runs
 * (cli_progress_point before, cli_progress_done after), so a command that
 * runs points through cli_point.c shows them. cli_progress_clear erases the
 * line before the command writes to stdout; cli_progress_end at the end. */
void cli_progress_start(const char *cmd, int total, double weight, int quiet);
void cli_progress_point(const char *what);
void cli_progress_done(double weight);
void cli_progress_clear(void);
/* A duration for people: m:ss, or h:mm:ss from an hour (negative: 0:00). */
const char *cli_clock_text(double s, char *buf, size_t n);
void cli_progress_end(void);
/* One long run (run): from 2 s on, a line redrawn every half second with
 * the time gone and, when *calls_done counts up to calls (> 1), what is
 * left; cli_progress_watch_stop erases it. Drawn only as cli_progress_start
 * says (a terminal, not quiet). */
void cli_progress_watch(const char *what, const long *calls_done, int calls);
void cli_progress_watch_stop(void);
/* What a point of `algo` (its name, default parameters; NULL: its collective's typical
 * one) weighs for the time left: its ranks and messages, with data its bytes. */
double cli_point_weight(int coll, const char *algo, int P, size_t bytes, int no_data);

/* ------------------------------------------------------------ output files */

/* A file a command writes (cli_out.c; bench/CLI.md "Output files"), opened
 * before the command runs anything and committed when it is done: the
 * writes go to a temporary file beside PATH ("PATH.XXXXXX"), renamed over
 * PATH by cli_out_commit once every write, the flush and the close
 * succeeded; on any failure, or cli_out_discard, or an exit before either,
 * the temporary file is removed and PATH is left as it was. A special file
 * that exists (/dev/null, /dev/full, a FIFO, /dev/stdout) is written
 * directly, its errors reported the same way. */
struct cli_out {
  FILE *f;                /* the command writes here; NULL when not open */
  const char *cmd, *what; /* the error line: "tutti CMD: WHAT: ..." (WHAT: "--csv", "PROFILE") */
  const char *path;       /* as given */
  char target[4096];      /* the file replaced: path, or the file its symbolic link names */
  char tmp[4096 + 8];     /* the temporary file; "" when written directly or gone */
  int fd, err, flags;     /* err: the first write's or the close's errno */
};
enum {
  CLI_OUT_DASH = 1, /* "-" is the standard output (--csv -), checked by main at the end */
  CLI_OUT_FRESH = 2 /* a file that exists is refused, never replaced (tutti new) */
};
/* Open *o for command cmd's output WHAT at path: 0, or CLI_EUSAGE after
 * "tutti CMD: WHAT: cannot write 'PATH': why; accepted: a writable file
 * path" (a missing folder, a folder, no permission; with CLI_OUT_FRESH a
 * file that exists). */
int cli_out_open(struct cli_out *o, const char *cmd, const char *what, const char *path, int flags);
/* Flush, close and rename into place: CLI_OK, or CLI_ERUNTIME after
 * "tutti CMD: WHAT: writing 'PATH' failed: why" with the temporary file
 * removed. Nothing for an *o never opened (f NULL). */
int cli_out_commit(struct cli_out *o);
/* Give up the output: the temporary file removed, PATH untouched. */
void cli_out_discard(struct cli_out *o);
/* For a program that parses its own options (the benchmarks), as
 * cli_parse does for the commands: 0 unless output a and b (either may be
 * NULL or "-") name one file (cli_same_file), else CLI_EUSAGE after "tutti
 * CMD: FLAG_A and FLAG_B both write 'A'"; with b_reads, b is an input and
 * only a file that exists counts ("FLAG_A would write over 'A', which
 * FLAG_B reads"). */
int cli_out_apart(const char *cmd, const char *flag_a, const char *a, const char *flag_b,
                  const char *b, int b_reads);

/* The machine of --model or --profile (default teaching-hockney) and its
 * network: --topology, else the profile's [topology] section, with
 * --links and --mapping -- tutti_machine_build (tutti/machine.h) with
 * TUTTI_TOPO_PARTIAL, bound to `nranks` ranks (<= 0: one per leaf). What
 * is left here is the flag an error names: --model, --profile (also for
 * the profile's own [topology] values), --topology, --links, --mapping,
 * --ranks. The caller frees the machine (tutti_machine_free) after the
 * last world using mach->model. Returns 0, or CLI_EUSAGE after printing
 * the error (CLI_ERUNTIME when out of memory). */
int cli_model(const char *cmd, const struct cli_opts *o, int nranks, tutti_machine_t *mach);
/* cli_world.c: what every command's worlds take from the options: --ranks-as, --stack,
 * --no-data, --max-events; max_bytes: the bytes per rank of the largest
 * call the world will run (0: unknown), for tutti's choice of how ranks
 * run (cli_default_way). */
void cli_config(const struct cli_opts *o, tutti_config_t *cfg, size_t max_bytes);
/* cfg's way of running its ranks: `ranks_as` when set (--ranks-as), else
 * TUTTI_RANKS_AS_DEFAULT when TUTTI_RANKS_AS is set (the world reads it),
 * else tutti_ranks_as_choose's for calls of up to max_bytes per rank and,
 * for fibers (TUTTI_WORKERS unset), tutti_workers_choose's workers. Set
 * cfg->nranks and cfg->flags first. */
void cli_default_way(tutti_config_t *cfg, int ranks_as, size_t max_bytes);
/* The largest of sizes[0..n) (0 for none). */
size_t cli_max_size(const size_t *sizes, int n);
/* cli_links.c: the lines "topology ..." and "links ..." of the run,
 * suite and explain reports, labels padded to `width` columns. */
void cli_print_topology(FILE *f, const tutti_machine_t *mach, int width);
/* A "topology" object for JSON ({"spec":..,"mapping":..,...}), or null. */
void cli_json_topology(FILE *f, const tutti_machine_t *mach);
/* The busiest links of a world's last run as a table (at most k rows;
 * nothing without a topology). */
void cli_print_links(FILE *f, const tutti_world_t *w, const tutti_model_t *m, int k);
/* "links": [...] every link that carried a message, busiest first. */
void cli_json_links(FILE *f, const tutti_world_t *w);
/* Collective names for messages: "bcast, reduce, ..." */
const char *cli_coll_names(void);
/* Where d comes from, for people: "built-in", "plugin ./mine.c" (a path
 * under the working directory shown from it), "plugin /abs/path.so", or
 * "registered by the program". Into buf; returns buf. */
char *cli_origin(const tutti_algo_desc_t *d, char *buf, size_t n);
/* The collectives with every trait in `traits` (tutti_coll_traits), into
 * buf: "bcast, reduce, gather, scatter"; `last` separates the last two
 * (", " or " or "). Returns buf. */
char *cli_coll_with(unsigned traits, const char *last, char *buf, size_t n);
/* The ranks r < n with t[r] == at, but `skip` (-1: none), into buf:
 * "5", "4 and 5", "1, 2 and 3", "1, 2, 3, 4, 5, 6 and 9 more"; how many
 * in *count (may be NULL). run's and explain's ties are named with it, so
 * both name the same ranks. Returns buf. */
char *cli_ranks_at(const double *t, int n, double at, int skip, int *count, char *buf, size_t len);

/* --rules FILE (cli_world.c): *out the parsed rules, NULL when the option
 * was not given. 0, or CLI_EUSAGE after the one-line error ("tutti CMD:
 * --rules: FILE:LINE: what; accepted: what"). Free with tutti_rules_free. */
int cli_rules(const char *cmd, const struct cli_opts *o, tutti_rules_t **out);

/* --realtime --timeline on a terminal (cli_live.c): while `paced` runs
 * (a TUTTI_WALLCLOCK world), a thread redraws `frame` -- the timeline
 * text of the same job's unpaced run, whose modeled time is T -- on f,
 * each rank's row shown up to tutti_world_paced_clock, so the class sees
 * every message when it arrives. cli_live_stop erases the frame. NULL:
 * the thread could not start (the run goes on without the live view). */
struct cli_live;
struct cli_live *cli_live_start(FILE *f, const tutti_world_t *paced, const char *frame, double T,
                                double scale);
void cli_live_stop(struct cli_live *l);

/* ------------------------------------------------------------ JSON */

void cli_json_str(FILE *f, const char *s);
/* A double as the shortest text that reads back the same; null if not finite. */
void cli_json_num(FILE *f, double x);
/* The algorithm's parameters as a JSON object: {"lambda":0.6,"k":"auto"}. */
void cli_json_params(FILE *f, const tutti_algo_t *a);
/* The fields every result object opens with, without braces:
 * "collective":...,"algorithm":...,"algorithm_spec":...,"params":{...}
 * (run --json, suite and sweep points, tutti-mpi run --json), of
 * algorithm d selected as a (NULL when its selection failed: "" and {}). */
void cli_json_algo(FILE *f, const tutti_algo_desc_t *d, const tutti_algo_t *a);

/* ------------------------------------------------------------ running one */

struct cli_job {
  const tutti_algo_t *algo;
  int coll;   /* enum tutti_coll */
  long count; /* elements per rank */
  tutti_datatype_t type;
  tutti_op_t op; /* reductions only, else NULL */
  int root;
  int iters;
  int rotate;            /* root of call k: (root + k) mod nranks */
  int no_data;           /* timing only: the world has TUTTI_NO_DATA; nothing is verified */
  int ungated;           /* calls do not start together (a paced run): no call_wall */
  char note[256];        /* how the call runs otherwise than asked (tutti_algo_check_call), or "" */
  char timing_only[160]; /* why a data run went timing only (cli_mem_over_algo), or "" */
  long *calls_done;      /* when set: rank 0 counts its finished calls here (atomically) */
};

struct cli_result {
  int rc;                 /* tutti_world_run's code (0: ran) */
  char error[512];        /* its error text */
  int verified;           /* every rank's result matched the sequential reference (no_data: 1) */
  int unchecked;          /* a no-data run: nothing was checked (print null, not verified) */
  char why[256];          /* the first mismatch */
  int bad_rank, bad_call; /* its rank and call (0, 1, ...); -1 when verified */
  int has_report;         /* the run recorded events (modeled, or TUTTI_RECORD) */
  tutti_report_t report;
  tutti_stats_t stats;
  /* Where the wall time went: the reference built before the run (wall
   * seconds), and the ranks' CPU seconds summed over ranks, all of it and
   * the part spent preparing and checking buffers (the rest is the
   * collective calls). The replay's wall time is report.replay_wall_time. */
  double reference_time, ranks_cpu, check_cpu;
  /* Wall seconds per call without the checking: the slowest rank's wall
   * time inside the calls over the number of calls. A checked run starts
   * every call on every rank together, after each rank prepared its
   * buffers (so no rank's call waits for another's checking); a no-data
   * run has no checking and times its calls back to back. NAN when not
   * measured (an ungated job, or a gate that gave up: see cli_exec.c). */
  double call_wall;
};

/* Run job on world w (its size is the number of ranks), verifying each
 * call against verify.c's reference (cli_exec.c, as the rest of this
 * section). Returns 0, or TUTTI_ENOMEM before running. res->rc says
 * whether the world ran. */
int cli_exec(tutti_world_t *w, const struct cli_job *job, struct cli_result *res);
/* The job of `tutti explain`, `compare` (cli_exec.c): collective
 * coll_name, algorithm algo_name (with o->params) and o's --bytes, --root,
 * --op, --dtype, checked as `tutti run` checks them; one call. *bytes the
 * bytes per rank it moves. 0, or CLI_EUSAGE after the one-line error
 * naming `cmd` (coll_name or algo_name NULL: "missing COLL and ALGO"). */
int cli_job_make(const char *cmd, const struct cli_opts *o, const char *coll_name,
                 const char *algo_name, struct cli_job *j, size_t *bytes);
/* tutti_algo_check_call for every call of job j on nranks ranks moving
 * `bytes` per rank: at its root, and with rotate at each root its calls
 * take (an explicit chain starts at one root only), so that what a rank
 * would refuse is bad input before the run (cli_job.c; tutti-mpi too).
 * 0 with j->note the check's note at the first root (a fallback the call
 * takes, or ""), or CLI_EUSAGE after the one-line error naming `cmd`. */
int cli_job_check(const char *cmd, struct cli_job *j, int nranks, size_t bytes);
/* For hierarchical (collectives/hierarchical.c): when the call runs in
 * one level on model m's topology, why, as j->note (a note already there
 * stays): no topology, a host per rank, one host, or a non-commutative
 * op on hosts that are not rank ranges (cli_job.c). */
void cli_job_levels(struct cli_job *j, const tutti_model_t *m, int nranks);
/* o's --op and --dtype for collective coll (int32 and sum for a reduction
 * by default, else byte and no op), each checked against what coll takes:
 * 0, or CLI_EUSAGE after the one-line error naming `cmd` (cli_job.c; both
 * commands). */
int cli_job_types(const char *cmd, const struct cli_opts *o, int coll, tutti_op_t *op,
                  tutti_datatype_t *type);
/* The tree a tree algorithm of job j uses on model m (its auto parameters
 * resolved as the ranks resolve them), into *spec: 0, or TUTTI_ENOTSUP for
 * an algorithm that is not a tree. */
int cli_job_tree(const struct cli_job *j, const tutti_model_t *m, size_t bytes,
                 tutti_treespec_t *spec);

/* ------------------------------------------------------------ run's report */

/* The options `tutti run` takes (cli_run.c parses them, its --help lists them). */
#define CLI_RUN_OPTS                                                                               \
  (CLI_O(RANKS) | CLI_O(BYTES) | CLI_O(ROOT) | CLI_O(MODEL) | CLI_O(PROFILE) | CLI_O(TOPOLOGY) |   \
   CLI_O(MAPPING) | CLI_O(LINKS) | CLI_O(PARAM) | CLI_O(OP) | CLI_O(DTYPE) | CLI_O(ITERS) |        \
   CLI_O(ROTATE) | CLI_O(MAX_EVENTS) | CLI_O(JSON) | CLI_O(TRACE) | CLI_O(TIMELINE) |              \
   CLI_O(NO_DATA) | CLI_O(PLUGIN) | CLI_O(HELP) | CLI_O(RULES) | CLI_O(HTML) | CLI_O(REALTIME) |   \
   CLI_O(RANKS_AS) | CLI_O(BIND) | CLI_O(STACK) | CLI_O(QUIET) | CLI_O(MAX_MEMORY) |               \
   CLI_O(STRICT_MEMORY))
/* `tutti run --help` on f (cli_report.c). */
void cli_run_help(FILE *f);
/* What an `auto` ran: its choice (tutti_auto_choose, the same call the
 * ranks made) into spec and why; "" for any other algorithm. */
struct cli_auto_choice {
  char spec[256], why[1024];
};
void cli_auto_choice(const struct cli_job *j, const tutti_model_t *m, const tutti_rules_t *rules,
                     int P, size_t bytes, struct cli_auto_choice *out);
/* The report of job j's run on stdout (P = o->nranks ranks, bytes per
 * rank, on world w, the run's result res): the table, or bench/CLI.md's
 * JSON object of `tutti run --json` on one line. */
void cli_print_run(const struct cli_job *j, const struct cli_opts *o, const tutti_machine_t *mach,
                   const struct cli_result *res, size_t bytes, const tutti_world_t *w,
                   const struct cli_auto_choice *ac);
void cli_json_run(const struct cli_job *j, const struct cli_opts *o, const tutti_machine_t *mach,
                  const struct cli_result *res, size_t bytes, const tutti_world_t *w,
                  const struct cli_auto_choice *ac);

/* ------------------------------------------------------------ pages */

/* One run drawn on a --html page (cli_html.c), with what it points to. */
struct cli_page {
  struct html_run run;
  tutti_explain_t ex;
  tutti_treespec_t tree;
  char title[320], sub[1024];
};

/* --html's checks (nothing without o->html): at most HTML_MAX_RANKS ranks;
 * with a machine, a cost model, and FILE opened as the output *out
 * (cli_out_open; *out zeroed first, so committing or discarding it is safe
 * either way). 0, or CLI_EUSAGE after the one-line error naming `cmd`. */
int cli_page_check(const char *cmd, const struct cli_opts *o, const tutti_machine_t *mach,
                   struct cli_out *out);
/* Fill *p from world w's last run of job j (P ranks, bytes per rank): the
 * explanation (tutti_world_explain), the tree, a title and a subtitle.
 * 0 or a TUTTI_E* code; free with cli_page_free either way. */
int cli_page_fill(struct cli_page *p, const tutti_world_t *w, const struct cli_job *j,
                  const tutti_machine_t *mach, const struct cli_result *res, int P, size_t bytes);
void cli_page_free(struct cli_page *p);
/* Write pages[0..n) (n <= CLI_MAX_POS) to out and commit it: CLI_OK, or
 * CLI_ERUNTIME after "tutti CMD: --html: writing 'path' failed: why". */
int cli_page_write(struct cli_out *out, const char *heading, const struct cli_page *pages, int n);
/* `tutti run --html`: the page of one run (fill, write, commit out, free):
 * CLI_OK or CLI_ERUNTIME after the one-line error. */
int cli_page_run(struct cli_out *out, const tutti_world_t *w, const struct cli_job *j,
                 const tutti_machine_t *mach, const struct cli_result *res, int P, size_t bytes);

/* ------------------------------------------------------------ points */

/* One (algorithm, P, m) of the suite or a sweep, run and verified on a
 * world of P ranks (cli_point.c). */
struct cli_point {
  const tutti_algo_desc_t *desc;
  const tutti_algo_t *algo;
  int coll, order, nranks;
  size_t bytes;
  const char *dtype;
  int skipped, failed, verified, winner;
  int unchecked; /* --no-data: timing only, verified stays 1 but means nothing was checked */
  double time;   /* modeled, or wall under the none model */
  struct cli_result res;
  char note[512];        /* skipped: the reason; failed: the error; not verified: why */
  char same_run_as[256]; /* an `auto` whose figures are this spec's run (cli_points_run) */
  char
      timing_only[160]; /* over --max-memory: ran timing only, and why (cli_mem_over_algo); or "" */
};

/* Run point r on *w (cfg made it; P ranks): reductions sum on int32 (byte
 * when the size is not a multiple of 4), root 0, one call. A restriction
 * the rank count breaks marks it skipped; a failed run marks it failed and
 * replaces *w by a fresh world (NULL if that fails). The report's arrays
 * are dropped: they live only until the world's next run. */
void cli_point_run(tutti_world_t **w, const tutti_config_t *cfg, int P, struct cli_point *r);
/* Run the points pts[0..n) of one (collective, P, size) by cli_point_run,
 * an `auto` after the others; points marked failed already are left
 * alone. In a timing-only world (TUTTI_NO_DATA) an `auto` whose choice
 * (tutti_auto_choose) is one of the points, parameters and all, takes
 * that point's figures (same_run_as) instead of running it again: the
 * same code on the same sizes gives the same modeled time, and at 1024
 * ranks the large sizes' `auto` was a third of a sweep's time. With data
 * every point runs, so `auto`'s own dispatch is verified. */
void cli_points_run(tutti_world_t **w, const tutti_config_t *cfg, int P, struct cli_point *pts,
                    int n);
/* One point as a JSON object (the suite's "results" entries; with_ranks
 * adds "ranks", as a sweep's entries have). */
void cli_point_json(FILE *f, const struct cli_point *r, int modeled, int with_ranks);
/* The CSV header line and one row (RFC 4180 quoting), the columns of
 * bench/CLI.md "CSV". */
void cli_point_csv_header(FILE *f);
void cli_point_csv(FILE *f, const struct cli_point *r, int modeled);

/* ------------------------------------------------------------ memory estimate */

/* What a point holds at its peak (cli_estimate.c; the formula per
 * collective is bench/CLI.md "Memory estimate"), in bytes: the users'
 * buffers a data run touches, the reference it checks against, the
 * algorithms' scratch, and the runtime (rank threads, event logs and the
 * replay, a fixed part for the process). A timing-only point has no
 * buffers, reference or scratch. */
struct cli_mem {
  uint64_t buffers, reference, scratch, runtime, total;
};
/* The estimate of coll's `algo` (as cli_point_weight) on P ranks, `bytes` each: 0, or -1
 * past 64 bits (*figure then the product that overflowed, in bytes). */
int cli_mem_point(int coll, const char *algo, int P, size_t bytes, int no_data, struct cli_mem *m,
                  double *figure);
/* One command's job (one per process, as the progress line): begin with
 * the options (--max-memory, default half of physical memory, with a
 * warning line on stderr when it is more than the machine has;
 * --strict-memory; --no-data; --quiet; kept: a job of many points,
 * cli_keep_memory, whose points may run any algorithm) and the model the
 * points run under (kept), add every point it will run, then plan before
 * running anything. cli_mem_add: 0, or CLI_EUSAGE after the line naming
 * the point whose estimate overflows. cli_mem_plan: with
 * --strict-memory, CLI_EUSAGE after the line naming the first point that
 * does not fit and its bytes; else 0, after one line with the largest
 * point's memory, the points over the budget and about how long the job
 * takes, on stderr when it is a terminal and not --quiet (where the
 * progress line goes); *weight (may be NULL): the job's, cli_point_weight's sum. */
void cli_mem_begin(const char *cmd, const struct cli_opts *o, int kept, const tutti_model_t *model);
int cli_mem_add(int coll, const char *algo, int P, size_t bytes);
int cli_mem_plan(double *weight);
/* 1 when a data point of coll's algorithm `algo` (as cli_point_weight; P
 * ranks, bytes per rank) would not fit the budget: it runs timing only,
 * and note gets "timing only: needs X > --max-memory Y"; 0 otherwise (and
 * always in a timing-only job). A job of many points counts the scratch
 * of the algorithms that hold more (cli_estimate.c). */
int cli_mem_over_algo(int coll, const char *algo, int P, size_t bytes, char *note, size_t n);
/* For the commands that run many points in one process (suite, sweep,
 * tune): while a point runs, memory it frees stays in the process for
 * its next call instead of going back to the kernel (glibc: no mmap'd
 * chunks, no trimming), since a page the process touches first costs the
 * kernel a clearing (under a hypervisor, a host fault with it); between
 * points cli_release_memory gives it back. */
void cli_keep_memory(void);
/* After each point (cli_point_run): give every malloc arena's free pages
 * back to the kernel (malloc_trim). What a point frees lies in the arenas
 * of the rank threads that freed it, where the next point's threads may
 * not reuse it: kept, a job's peak grew with its points past its largest
 * point's; given back, a job holds at most its largest point's peak and
 * what outlives the points (the world, the results). */
void cli_release_memory(void);
/* For run, one point: a block of 128 KiB or more is mapped when malloc'd
 * and given back to the kernel when freed (glibc: a fixed mmap threshold,
 * not the dynamic one that, from the first such block freed, serves them
 * from the arenas). A block a rank thread frees lies in its arena, where
 * the ranks of other arenas cannot reuse it: a collective whose ranks
 * take scratch in turn (a chain's, a sweep's rounds) held all of it, not
 * what they held at once. Its pages are faulted in again at every call
 * of --iters. */
void cli_give_back_memory(void);

/* ------------------------------------------------------------ verify.c */

/* A sequential reference: what every rank's buffers must hold, computed
 * independently of the algorithms (the ops re-implemented, folds in rank
 * order x0 op x1 op ... op x(P-1)). Inputs are a hash of (rank, element,
 * call), chosen per op so that every order of evaluation gives the same
 * bits (small integers for sums, +-1 for float products). */
struct verify {
  int coll, nranks, kind; /* kind: verify.c's op, -1 for no op */
  tutti_datatype_t type;
  size_t tsize;
  long count;            /* elements of a rank's input (reduce_scatter: all P blocks) */
  int nvar;              /* inputs repeat every nvar calls */
  unsigned char *expect; /* reductions: nvar * count elements, the folds */
  uint64_t *digest;      /* scan, exscan: nvar * P digests, of each rank's prefix */
  /* Shared references (verify_ref_get): one rank's whole input of one
   * call and its complement, built once and read by every rank that needs
   * them, so a broadcast's P buffers are prepared and checked at memory
   * speed instead of by P hashes per element. Guarded by lock. */
  pthread_mutex_t lock;
  struct verify_ref *refs;
};

/* One rank's whole input (count elements) of one call: data, and inv, its
 * bitwise complement (the poison). */
struct verify_ref {
  struct verify_ref *next;
  int rank, var, users;
  unsigned char *data, *inv;
};

int verify_init(struct verify *v, int coll, tutti_datatype_t type, tutti_op_t op, int nranks,
                long count, int iters);
void verify_free(struct verify *v);
/* Elements [first, first + n) of `rank`'s input of call `call`. */
void verify_input(const struct verify *v, int rank, int call, void *buf, long first, long n);
/* The bitwise complement of what verify_input (or, for _fold, the fold)
 * writes: a receive buffer filled with it holds no right element until
 * the algorithm writes one. */
void verify_poison(const struct verify *v, int rank, int call, void *buf, long first, long n);
void verify_poison_fold(const struct verify *v, int call, void *buf);
/* -1 if buf holds rank's input elements [first, first + n), else the index
 * (from 0) of the first element that differs. */
long verify_check_input(const struct verify *v, int rank, int call, const void *buf, long first,
                        long n);
/* -1 if buf holds the fold of call `call`'s inputs, else the first bad index. */
long verify_check_fold(const struct verify *v, int call, const void *buf);
/* rank's whole input of call `call` (count elements) and its complement,
 * shared: built by the first caller, kept while anyone holds it; NULL when
 * out of memory (use verify_input and friends then). Thread-safe. */
const struct verify_ref *verify_ref_get(struct verify *v, int rank, int call);
void verify_ref_put(struct verify *v, const struct verify_ref *ref);
/* -1 if the count elements at buf equal ref's data, else the first bad index. */
long verify_check_ref(const struct verify *v, const struct verify_ref *ref, const void *buf);
/* The same for elements [first, first + n) of the fold, held at buf
 * (reduce_scatter's block of rank i: first = i count). */
void verify_poison_fold_range(const struct verify *v, int call, void *buf, long first, long n);
long verify_check_fold_range(const struct verify *v, int call, const void *buf, long first, long n);
/* -1 if buf still holds what verify_poison wrote, else the first bad index. */
long verify_check_poison(const struct verify *v, int rank, int call, const void *buf, long first,
                         long n);
/* -1 if the count elements at buf are the prefix x_0 op ... op x_upto of
 * call `call` (scan's result at rank upto, exscan's at upto + 1), else
 * the first bad index. Checked by digest (verify.c). */
long verify_check_prefix(const struct verify *v, int upto, int call, const void *buf);
/* One call (verify_call.c) of job's collective (algorithm, count, type,
 * op) rooted at `root`: a is the send buffer, b the receive buffer, big
 * the P blocks (gather's result and scatter's source at the root,
 * allgather's result, reduce_scatter's input; alltoall's 2P: the P to
 * send, then the P received; NULL where none). The call's code. */
int cli_call(tutti_rank_t *r, const struct cli_job *job, int root, void *a, void *b, void *big);
/* One call `call` of the reference's collective at rank `me` (root: the
 * call's), on cli_call's buffer layout with blocks of blk bytes: before
 * it, its inputs written and its results poisoned; after it, -1 when
 * every buffer holds what it must, else the first bad index, *what the
 * buffer and *from the source rank of a bad block (-1 otherwise). The
 * barrier has no buffers: the caller checks it. Where a rank's check
 * found the send buffer changed, its results are not looked at. */
void verify_prepare(const struct verify *v, int me, int root, int call, void *a, void *b,
                    unsigned char *big, size_t blk);
long verify_result(const struct verify *v, int me, int root, int call, const void *a, const void *b,
                   const unsigned char *big, size_t blk, int *from, const char **what);

#endif

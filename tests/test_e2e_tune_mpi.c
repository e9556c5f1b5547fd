/*
 * test_e2e_tune_mpi.c -- Open MPI runs what `tutti tune` wrote for it
 * (bench/CLI.md "MPI libraries' rules files"), shown by its own runs of
 * tests/mpi/rules_probe.c, every collective tutti tunes at 6 and 8 ranks
 * and 8 B, 64 KiB and 1 MiB per rank:
 *
 * - Open MPI 4.1 (Debian's openmpi-bin) with `--ompi-rules`: its release
 *   build prints nothing of its choices (coll_base_verbose names the
 *   components only), so tests/mpi/probe_ompi.c stands in front of its
 *   algorithm functions and logs, per call and rank, the one Open MPI
 *   entered and its segment size. Each call must enter the function of the
 *   file's rule (the test's own reading of the file: its numbers, '#'
 *   comments skipped, the communicator's and the size key's rule), with
 *   its segment size, on every rank; the rule must name Open MPI's
 *   algorithm of tutti's winner (the --rules-out file) unless a note above
 *   it says why not; and the run must differ from Open MPI's fixed
 *   decision somewhere. A knomial bcast (tests/plugins/knomial.c) is
 *   written as knomial with its radix, which Open MPI takes from the
 *   --mca the file names. alltoall's key is the whole buffer; scan's
 *   and exscan's the datatype's size x the communicator size, whatever
 *   the count (Open MPI 4.1's coll_tuned_decision_dynamic.c), which a
 *   run with rules of its own shows, as it shows that Open MPI reads
 *   their rules at all: a rule naming recursive_doubling at and above
 *   that key, linear below it, for a call of any size.
 * MPICH's run of `--mpich-rules`: test_e2e_tune_mpich.c; what both share:
 * tune_mpi.h.
 *
 * Uninstrumented MPI programs: not under the sanitizers (the header of
 * test_e2e_tune.c says why).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"
#include "sanitized.h"
#include "tune_mpi.h"

/* ------------------------------------------------------------ Open MPI */

/* The test's own reading of Open MPI's classic file. */
struct orule {
  long lo, alg, fan, seg;
  int noted; /* a '#' line came right before it */
};
struct ocomm {
  long size;
  int n;
  struct orule r[32];
};
struct ocoll {
  long id;
  int n;
  struct ocomm *c;
};

/* The next number of the file, '#' comments skipped; sets *noted when a
 * note ("# at 8 ranks, 1 MiB, tutti's best ...") came since the last number. */
static long onum(const char **p, int *noted) {
  for (;;) {
    while (isspace((unsigned char)**p)) (*p)++;
    if (**p != '#') break;
    if (!strncmp(*p, "# at ", 5) && noted) *noted = 1;
    while (**p && **p != '\n') (*p)++;
  }
  char *end;
  long v = strtol(*p, &end, 10);
  cr_assert(end != *p, "not a number at '%.20s'", *p);
  *p = end;
  return v;
}

static int oread(const char *text, struct ocoll *v) {
  const char *p = text;
  int n = (int)onum(&p, NULL);
  for (int i = 0; i < n; i++) {
    v[i].id = onum(&p, NULL);
    v[i].n = (int)onum(&p, NULL);
    v[i].c = calloc((size_t)v[i].n, sizeof *v[i].c);
    cr_assert(v[i].c != NULL);
    for (int k = 0; k < v[i].n; k++) {
      v[i].c[k].size = onum(&p, NULL);
      v[i].c[k].n = (int)onum(&p, NULL);
      cr_assert(v[i].c[k].n <= 32);
      for (int r = 0; r < v[i].c[k].n; r++) {
        int noted = 0;
        struct orule *x = &v[i].c[k].r[r];
        x->lo = onum(&p, &noted);
        x->alg = onum(&p, NULL), x->fan = onum(&p, NULL), x->seg = onum(&p, NULL);
        x->noted = noted;
      }
    }
  }
  return n;
}

/* Open MPI's lookup: the largest size at or below P (the first below all),
 * then the largest rule start at or below the key. */
static const struct orule *olookup(const struct ocoll *v, int n, long id, int P, long key) {
  for (int i = 0; i < n; i++) {
    if (v[i].id != id) continue;
    const struct ocomm *c = &v[i].c[0];
    for (int k = 0; k < v[i].n && v[i].c[k].size <= P; k++) c = &v[i].c[k];
    const struct orule *r = &c->r[0];
    for (int k = 0; k < c->n && c->r[k].lo <= key; k++) r = &c->r[k];
    return r;
  }
  return NULL;
}

/* The size key of Open MPI's lookup for a call of m bytes per rank on P
 * ranks: the message, the whole buffer, or (scan, exscan) the datatype's
 * size x P, MPI_INT's here, whatever the count. */
enum { KEY_MESSAGE, KEY_WHOLE, KEY_TYPE_BY_SIZE };

/* Open MPI 4.1's id of a collective, its functions by algorithm number
 * (ompi_info --param coll tuned --level 9), and its size key. */
static const struct {
  const char *coll;
  long id;
  int key;
  const char *fn[10];
} ompi[NCOLL] = {
    {"bcast",
     7,
     0,
     {"", "bcast_intra_basic_linear", "bcast_intra_chain", "bcast_intra_pipeline",
      "bcast_intra_split_bintree", "bcast_intra_bintree", "bcast_intra_binomial",
      "bcast_intra_knomial", "bcast_intra_scatter_allgather",
      "bcast_intra_scatter_allgather_ring"}},
    {"reduce",
     11,
     0,
     {"", "reduce_intra_basic_linear", "reduce_intra_chain", "reduce_intra_pipeline",
      "reduce_intra_binary", "reduce_intra_binomial", "reduce_intra_in_order_binary",
      "reduce_intra_redscat_gather"}},
    {"allreduce",
     2,
     0,
     {"", "allreduce_intra_basic_linear", "allreduce_intra_nonoverlapping",
      "allreduce_intra_recursivedoubling", "allreduce_intra_ring", "allreduce_intra_ring_segmented",
      "allreduce_intra_redscat_allgather"}},
    {"gather", 9, KEY_WHOLE, {"", "gather_intra_basic_linear", "gather_intra_binomial"}},
    {"scatter", 15, KEY_WHOLE, {"", "scatter_intra_basic_linear", "scatter_intra_binomial"}},
    {"barrier",
     6,
     0,
     {"", "barrier_intra_basic_linear", "barrier_intra_doublering",
      "barrier_intra_recursivedoubling", "barrier_intra_bruck", "barrier_intra_two_procs",
      "barrier_intra_tree"}},
    {"allgather",
     0,
     KEY_WHOLE,
     {"", "allgather_intra_basic_linear", "allgather_intra_bruck",
      "allgather_intra_recursivedoubling", "allgather_intra_ring"}},
    {"reduce_scatter",
     12,
     KEY_WHOLE,
     {"", "reduce_scatter_intra_nonoverlapping", "reduce_scatter_intra_basic_recursivehalving",
      "reduce_scatter_intra_ring", "reduce_scatter_intra_butterfly"}},
    {"reduce_scatter_block",
     13,
     KEY_WHOLE,
     {"", "", "reduce_scatter_block_intra_recursivedoubling",
      "reduce_scatter_block_intra_recursivehalving", "reduce_scatter_block_intra_butterfly"}},
    {"alltoall",
     3,
     KEY_WHOLE,
     {"", "alltoall_intra_basic_linear", "alltoall_intra_pairwise", "alltoall_intra_bruck",
      "alltoall_intra_linear_sync", "alltoall_intra_two_procs"}},
    {"scan", 14, KEY_TYPE_BY_SIZE, {"", "scan_intra_linear", "scan_intra_recursivedoubling"}},
    {"exscan", 8, KEY_TYPE_BY_SIZE, {"", "exscan_intra_linear", "exscan_intra_recursivedoubling"}},
};

static long okey(int c, int P, long m) {
  return ompi[c].key == KEY_WHOLE ? m * P : ompi[c].key == KEY_TYPE_BY_SIZE ? 4L * P : m;
}

/* Open MPI's number of tutti's winner `spec` of collective c on P ranks
 * (bench/CLI.md's table, read independently of the writer), 0: none. */
static long ompi_of_winner(int c, const char *spec, int P) {
  const char *col = ompi[c].coll;
  int pow2 = !(P & (P - 1));
#define IS(name) (!strncmp(spec, name, strlen(name)) && strchr(":", spec[strlen(name)]))
  if (!strcmp(col, "bcast"))
    return IS("flat")                ? 1
           : IS("binary")            ? 5
           : IS("binomial")          ? 6
           : IS("pipelined-chain")   ? (strstr(spec, "order=rank") ? 3 : 0)
           : IS("scatter-allgather") ? (strstr(spec, "recursive-doubling") && pow2 ? 8 : 9)
                                     : 0;
  if (!strcmp(col, "reduce")) return IS("flat") ? 1 : IS("binary") ? 4 : IS("binomial") ? 5 : 0;
  if (!strcmp(col, "allreduce"))
    return IS("reduce-bcast")         ? 2
           : IS("recursive-doubling") ? 3
           : IS("ring")               ? 4
           : IS("rabenseifner")       ? 6
                                      : 0;
  if (!strcmp(col, "gather") || !strcmp(col, "scatter"))
    return IS("flat") ? 1 : IS("binomial") ? 2 : 0;
  if (!strcmp(col, "barrier"))
    return IS("flat")                           ? 1
           : IS("recursive-doubling")           ? 3
           : !strcmp(spec, "dissemination:k=2") ? 4
           : IS("binomial")                     ? 6
                                                : 0;
  if (!strcmp(col, "allgather"))
    return IS("bruck") ? 2 : IS("recursive-doubling") ? 3 : IS("ring") ? 4 : 0;
  if (!strcmp(col, "reduce_scatter")) return IS("recursive-halving") ? 2 : IS("ring") ? 3 : 0;
  if (!strcmp(col, "alltoall")) /* Open MPI's pairwise shifts on every P: tutti's ring */
    return IS("linear")     ? 1
           : IS("ring")     ? 2
           : IS("pairwise") ? (pow2 ? 0 : 2)
           : IS("bruck")    ? 3
                            : 0;
  if (!strcmp(col, "scan") || !strcmp(col, "exscan")) return IS("linear") ? 1 : 0;
  return IS("recursive-halving") ? 3 : 0; /* reduce_scatter_block */
#undef IS
}

/* tutti's winner of (collective, P, m) from dir/rules.ini, "" if none. */
static void winner(const char *ini, const char *coll, int P, long m, char *out, size_t n) {
  char *copy = strdup(ini), *save, sect[64];
  cr_assert(copy != NULL);
  snprintf(sect, sizeof sect, "[%s]", coll);
  int in = 0, R = 0;
  out[0] = '\0';
  for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    unsigned long long lo, hi = ~0ULL;
    int off = 0;
    if (line[0] == '[') in = !strcmp(line, sect);
    if (!in || line[0] == ';' || sscanf(line, "ranks = %d", &R) == 1 || R != P) continue;
    if (sscanf(line, "%llu..%llu = %n", &lo, &hi, &off) != 2 || !off)
      hi = ~0ULL, off = 0, sscanf(line, "%llu.. = %n", &lo, &off);
    if (off && (unsigned long long)m >= lo && (unsigned long long)m <= hi)
      snprintf(out, n, "%s", line + off);
  }
  free(copy);
}

/* The first algorithm function each rank entered in phase ph of a probe
 * run's output, its segment and radix; 0 if the rank logged none. */
static int entered(const char *log, int rank, const char *ph, char *fn, long *seg, long *radix) {
  char want[160];
  snprintf(want, sizeof want, "PROBE %d %s ompi_coll_base_", rank, ph);
  for (const char *p = log; (p = strstr(p, want)); p++)
    if (p == log || p[-1] == '\n')
      return sscanf(p + strlen(want) - strlen("ompi_coll_base_"), "%127s seg %ld radix %ld", fn,
                    seg, radix) == 3;
  return 0;
}

static const char *ompi_cc(void) {
  return in_path("mpicc.openmpi") ? "mpicc.openmpi" : "mpicc";
}
static const char *ompi_run(void) {
  return in_path("mpirun.openmpi") ? "mpirun.openmpi" : "mpirun";
}

Test(mpi, ompi_runs_the_rules, .init = setup, .fini = teardown, .timeout = 900,
     .disabled = SANITIZED) {
  if (!in_path(ompi_cc()) || !in_path(ompi_run()))
    cr_skip_test("Open MPI's mpicc or mpirun not found: not run");
  tune("--ompi-rules", "ompi.rules", "6,8", "gige", 0);
  build(ompi_cc(), "probe", "probe_ompi");
  char path[700], *ini, *file, *log, calls[2048];
  snprintf(path, sizeof path, "%s/ompi.rules", dir);
  file = read_text(path);
  snprintf(path, sizeof path, "%s/rules.ini", dir);
  ini = read_text(path);
  cr_assert(file && ini);
  struct ocoll v[16];
  int n = oread(file, v), shown[NCOLL] = {0}, differ = 0;
  cr_assert(eq(int, n, NCOLL), "collectives in the file: %d", n);
  phases(calls, sizeof calls);
  for (int i = 0; i < 2; i++) {
    int P = Ps[i];
    char *fixed;
    int rc = sh(&log,
                "%s --oversubscribe --allow-run-as-root -n %d -x LD_PRELOAD=%s/probe_ompi.so "
                "--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "
                "%s/ompi.rules %s/probe%s",
                ompi_run(), P, dir, dir, dir, calls);
    cr_assert(eq(int, rc, 0), "mpirun with the rules: %s", log);
    rc = sh(&fixed,
            "%s --oversubscribe --allow-run-as-root -n %d -x LD_PRELOAD=%s/probe_ompi.so "
            "%s/probe%s",
            ompi_run(), P, dir, dir, calls);
    cr_assert(eq(int, rc, 0), "mpirun without: %s", fixed);
    for (int c = 0; c < NCOLL; c++)
      for (int s = 0; s < 3; s++) {
        int barrier = !strcmp(ompi[c].coll, "barrier");
        if (barrier && s) break;
        long m = barrier ? 0 : sizes[s];
        long key = okey(c, P, m);
        const struct orule *r = olookup(v, n, ompi[c].id, P, key);
        cr_assert(r != NULL && r->alg > 0 && r->alg < 10, "%s: no rule", ompi[c].coll);
        const char *want = ompi[c].fn[r->alg];
        char ph[64];
        snprintf(ph, sizeof ph, "%s:%ld", ompi[c].coll, m);
        for (int rank = 0; rank < P; rank++) {
          char fn[128], f0[128];
          long seg, radix, s0, r0;
          cr_assert(entered(log, rank, ph, fn, &seg, &radix),
                    "%d ranks, %s: rank %d entered "
                    "no algorithm",
                    P, ph, rank);
          cr_assert(eq(str, fn + strlen("ompi_coll_base_"), (char *)want),
                    "%d ranks, %s, rank %d: Open MPI ran %s, the file's rule says %s (%ld)", P, ph,
                    rank, fn, want, r->alg);
          if (r->alg == 3 && ompi[c].id == 7)
            cr_assert(eq(long, seg, r->seg), "%s: segment %ld, the rule's %ld", ph, seg, r->seg);
          if (entered(fixed, rank, ph, f0, &s0, &r0) && (strcmp(f0, fn) || s0 != seg)) differ++;
        }
        /* the rule is tutti's choice: its winner's Open MPI algorithm, or a note */
        char spec[256];
        const char *mine =
            strcmp(ompi[c].coll, "reduce_scatter_block") ? ompi[c].coll : "reduce_scatter";
        winner(ini, mine, P, m, spec, sizeof spec); /* tutti's reduce_scatter has even blocks */
        cr_assert(strlen(spec) > 0, "%s: no winner in the rules file", ph);
        if (!r->noted)
          cr_assert(eq(long, ompi_of_winner(c, spec, P), r->alg),
                    "%d ranks, %s: tutti's winner %s, the rule %ld and no note", P, ph, spec,
                    r->alg);
        cr_log_info("Open MPI, %d ranks, %s: ran %s as the rule says (tutti: %s)", P, ph, want,
                    spec);
        shown[c]++;
      }
    free(log), free(fixed);
  }
  for (int c = 0; c < NCOLL; c++) cr_assert(shown[c] > 0, "%s never shown", ompi[c].coll);
  cr_assert(differ > 0, "the rules changed nothing against Open MPI's fixed decision");
  for (int i = 0; i < n; i++) free(v[i].c);
  free(file), free(ini);
}

/* A k-nomial bcast is written as Open MPI's knomial (7) with its radix,
 * and Open MPI runs it with the radix the file's --mca line gives. */
Test(mpi, ompi_runs_knomial_with_its_radix, .init = setup, .fini = teardown, .timeout = 300,
     .disabled = SANITIZED) {
  if (!in_path(ompi_cc()) || !in_path(ompi_run()) || !in_path("cc"))
    cr_skip_test("Open MPI's mpicc or mpirun, or cc, not found: not run");
  tune("--ompi-rules", "ompi.rules", "16", "postal:L=4", 1);
  build(ompi_cc(), "probe", "probe_ompi");
  char path[700], *file, *log;
  snprintf(path, sizeof path, "%s/ompi.rules", dir);
  file = read_text(path);
  cr_assert(file != NULL);
  struct ocoll v[16];
  int n = oread(file, v);
  const struct orule *r = olookup(v, n, 7, 16, 8);
  cr_assert(r && r->alg == 7 && r->fan == 4, "bcast at 16 ranks: algorithm %ld, fan-out %ld",
            r ? r->alg : -1, r ? r->fan : -1);
  HAS(file, "--mca coll_tuned_bcast_algorithm_knomial_radix 4");
  int rc = sh(&log,
              "%s --oversubscribe --allow-run-as-root -n 16 -x LD_PRELOAD=%s/probe_ompi.so "
              "--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "
              "%s/ompi.rules --mca coll_tuned_bcast_algorithm_knomial_radix 4 %s/probe bcast:8",
              ompi_run(), dir, dir, dir);
  cr_assert(eq(int, rc, 0), "mpirun: %s", log);
  for (int rank = 0; rank < 16; rank++) {
    char fn[128];
    long seg, radix;
    cr_assert(entered(log, rank, "bcast:8", fn, &seg, &radix), "rank %d: nothing", rank);
    cr_assert(eq(str, fn, "ompi_coll_base_bcast_intra_knomial"), "rank %d ran %s", rank, fn);
    cr_assert(eq(long, radix, 4), "rank %d: radix %ld", rank, radix);
  }
  for (int i = 0; i < n; i++) free(v[i].c);
  free(file), free(log);
}

/* Open MPI 4.1 reads scan (14) and exscan (8) rules, keyed by the
 * datatype's size x the communicator size whatever the count (what
 * cli_rules_ompi.c's single rule per communicator size rests on): on 4
 * ranks MPI_INT's key is 16, so rules switching to recursive_doubling (2)
 * at 16 run it for every count, at 17 linear (1), as the probe shows. */
Test(mpi, ompi_scan_key_is_type_size_by_ranks, .init = setup, .fini = teardown, .timeout = 300,
     .disabled = SANITIZED) {
  if (!in_path(ompi_cc()) || !in_path(ompi_run()) || !in_path("cc"))
    cr_skip_test("Open MPI's mpicc or mpirun, or cc, not found: not run");
  build(ompi_cc(), "probe", "probe_ompi");
  static const struct {
    long from;
    const char *want; /* the function's suffix for both */
  } cases[] = {{16, "intra_recursivedoubling"}, {17, "intra_linear"}};
  for (int i = 0; i < 2; i++) {
    char path[700], *log;
    snprintf(path, sizeof path, "%s/scan.rules", dir);
    FILE *w = fopen(path, "w");
    cr_assert(w != NULL);
    fprintf(w, "2\n8\n1\n1 2\n0 1 0 0\n%ld 2 0 0\n14\n1\n1 2\n0 1 0 0\n%ld 2 0 0\n", cases[i].from,
            cases[i].from);
    fclose(w);
    int rc = sh(&log,
                "%s --oversubscribe --allow-run-as-root -n 4 -x LD_PRELOAD=%s/probe_ompi.so "
                "--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename "
                "%s %s/probe scan:8 scan:1048576 exscan:8 exscan:1048576",
                ompi_run(), dir, path, dir);
    cr_assert(eq(int, rc, 0), "mpirun: %s", log);
    static const char *const ph[] = {"scan:8", "scan:1048576", "exscan:8", "exscan:1048576"};
    for (int k = 0; k < 4; k++)
      for (int rank = 0; rank < 4; rank++) {
        char fn[128], want[128];
        long seg, radix;
        snprintf(want, sizeof want, "ompi_coll_base_%.*s_%s", (int)strcspn(ph[k], ":"), ph[k],
                 cases[i].want);
        cr_assert(entered(log, rank, ph[k], fn, &seg, &radix), "rank %d, %s: nothing", rank, ph[k]);
        cr_assert(eq(str, fn, want), "rules from %ld, rank %d, %s: ran %s", cases[i].from, rank,
                  ph[k], fn);
      }
    free(log);
  }
}

/*
 * test_e2e_tune_mpich.c -- MPICH runs what `tutti tune --mpich-rules`
 * wrote for it (bench/CLI.md "MPI libraries' rules files"): Debian's
 * mpich 4.0 (ch4:ucx), its binaries by their suffixed names beside Open
 * MPI's (mpicc.mpich, mpiexec.mpich); skipped with a message where it is
 * not installed, unless TUTTI_REQUIRE_MPICH=1 (CI), then failed. MPICH hides its algorithms inside
 * libmpich and prints nothing of its choices, so tests/mpi/probe_ucx.c records every message
 * (sender, receiver, bytes) of its UCX device, which all of them take with
 * MPIR_CVAR_NOLOCAL=1. At 6 and 8 ranks and 8 B, 64 KiB and 1 MiB per
 * rank, every collective tutti tunes: the messages of each call of
 * tests/mpi/rules_probe.c run with the file (and
 * MPIR_CVAR_DEVICE_COLLECTIVES=none, as bench/CLI.md says) are those of
 * the algorithm the test's own walk of the file finds, run by itself
 * (forced by its MPIR_CVAR_<COLL>_INTRA_ALGORITHM, with
 * MPIR_CVAR_COLLECTIVE_FALLBACK=error so that it cannot quietly run
 * another), and differ from another algorithm's where MPICH has one for
 * the collective; and the calls of collectives the file leaves to MPICH
 * (scan and exscan, whose algorithms are none of tutti's; the v- and
 * non-blocking ones: a collective missing from the file fails an
 * assertion in MPICH) run. alltoall's pairwise and scattered send the
 * same messages in another order, so its messages are compared in each
 * rank's order. What both MPI tests share:
 * tune_mpi.h. Not under the sanitizers (test_e2e_tune.c's header).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_helpers.h"
#include "sanitized.h"
#include "tune_mpi.h"

/* ------------------------------------------------ the file, as MPICH reads it (tune_mpi.h:
 * jobject) */

struct call {
  const char *coll;
  int P;
  long m;
};

/* One test of csel.c against the call: 1, 0, or -1 for one this test
 * cannot decide (the node structure of the run). */
static int test_key(const char *k, const struct call *c) {
  long v, pof2 = 1, count = c->m / 4, total = c->m * c->P;
  while (2 * pof2 <= c->P) pof2 *= 2;
  if (!strncmp(k, "collective=", 11)) return !strcmp(k + 11, c->coll);
  if (!strcmp(k, "comm_type=intra") || !strcmp(k, "is_multi_threaded=no")) return 1;
  if (!strcmp(k, "comm_type=inter") || !strcmp(k, "is_multi_threaded=yes")) return 0;
  if (!strcmp(k, "comm_size=any") || !strcmp(k, "avg_msg_size=any") ||
      !strcmp(k, "total_msg_size=any") || !strcmp(k, "count=any") ||
      !strcmp(k, "comm_hierarchy=any"))
    return 1;
  if (!strcmp(k, "comm_size=pow2")) return !(c->P & (c->P - 1));
  if (sscanf(k, "comm_size<=%ld", &v) == 1) return c->P <= v;
  if (sscanf(k, "comm_size<%ld", &v) == 1) return c->P < v;
  if (sscanf(k, "avg_msg_size<=%ld", &v) == 1) return c->m <= v;
  if (sscanf(k, "avg_msg_size<%ld", &v) == 1) return c->m < v;
  if (sscanf(k, "total_msg_size<=%ld", &v) == 1) return total <= v;
  if (sscanf(k, "total_msg_size<%ld", &v) == 1) return total < v;
  if (!strcmp(k, "count<pow2")) return count < pof2;
  if (!strcmp(k, "is_op_built_in=yes") || !strcmp(k, "is_commutative=yes") ||
      !strcmp(k, "is_block_regular=yes") || !strcmp(k, "is_sendbuf_inplace=no"))
    return 1; /* MPI_SUM on MPI_INT, equal blocks, separate buffers */
  if (!strcmp(k, "is_op_built_in=no") || !strcmp(k, "is_commutative=no") ||
      !strcmp(k, "is_block_regular=no") || !strcmp(k, "is_sendbuf_inplace=yes"))
    return 0;
  return -1;
}

/* The algorithm the file selects for the call ("" when undecidable). */
static const char *walk(const struct jn *v, int n, const struct call *c) {
  for (int i = 0; i < n; i++) {
    if (!strncmp(v[i].key, "algorithm=", 10)) return v[i].key + 10;
    int t = test_key(v[i].key, c);
    if (t < 0) return "";
    if (t) return walk(v[i].kid, v[i].n, c);
  }
  cr_fatal("no branch of the file takes %s on %d ranks, %ld B", c->coll, c->P, c->m);
  return "";
}

/* ------------------------------------------------------------ runs */

/* MPICH's algorithms of each collective, by their CVAR values. */
static const char *const algs[NCOLL][4] = {
    {"binomial", "scatter_recursive_doubling_allgather", "scatter_ring_allgather"},
    {"binomial", "reduce_scatter_gather"},
    {"recursive_doubling", "reduce_scatter_allgather"},
    {"binomial"},
    {"binomial"},
    {"dissemination"},
    {"recursive_doubling", "brucks", "ring"},
    {"recursive_halving", "pairwise"},
    {"recursive_halving", "pairwise"},
    {"scattered", "pairwise", "brucks"},
    {NULL}, /* scan, exscan: not in the file's rules */
    {NULL},
};

/* "MPIR_Bcast_intra_binomial" -> "binomial" */
static const char *cvar_value(const char *alg) {
  const char *p = strstr(alg, "_intra_");
  cr_assert(p != NULL, "not an intra algorithm: %s", alg);
  return p + 7;
}

/* The environment forcing collective c to algorithm a: "MPIR_CVAR_BCAST_INTRA_ALGORITHM=a". */
static void force(char *buf, size_t n, int c, const char *a) {
  size_t k = (size_t)snprintf(buf, n, " MPIR_CVAR_");
  for (const char *s = colls[c]; *s && k + 1 < n; s++) buf[k++] = (char)toupper(*s);
  snprintf(buf + k, n - k, "_INTRA_ALGORITHM=%s", a);
}

/* The messages of phase ph in a probe log: "from to bytes" lines, sorted;
 * ordered: by sender only, each rank's in the order it sent them. */
static char *messages(const char *log, const char *ph, int ordered) {
  char want[160];
  snprintf(want, sizeof want, " %s send ", ph);
  size_t cap = 4096, len = 0, nl = 0;
  char **lines = NULL, *out;
  int *senders = NULL;
  for (const char *p = log; (p = strstr(p, want)); p++) {
    const char *b = p;
    while (b > log && b[-1] != '\n') b--;
    int from, to;
    long bytes;
    if (strncmp(b, "PROBE ", 6) || sscanf(b, "PROBE %d", &from) != 1 ||
        sscanf(p + strlen(want), "%d %ld", &to, &bytes) != 2)
      continue;
    lines = realloc(lines, (nl + 1) * sizeof *lines);
    senders = realloc(senders, (nl + 1) * sizeof *senders);
    cr_assert(lines != NULL && senders != NULL);
    senders[nl] = from;
    lines[nl] = malloc(48);
    snprintf(lines[nl++], 48, "%d %d %ld\n", from, to, bytes);
  }
  for (size_t i = 1; i < nl; i++) /* insertion sort, stable: tens of lines */
    for (size_t j = i;
         j > 0 && (ordered ? senders[j - 1] > senders[j] : strcmp(lines[j - 1], lines[j]) > 0);
         j--) {
      char *t = lines[j];
      int f = senders[j];
      lines[j] = lines[j - 1], lines[j - 1] = t;
      senders[j] = senders[j - 1], senders[j - 1] = f;
    }
  out = malloc(cap);
  cr_assert(out != NULL);
  out[0] = '\0';
  for (size_t i = 0; i < nl; i++) {
    if (len + 48 >= cap) out = realloc(out, cap *= 2);
    cr_assert(out != NULL);
    len += (size_t)snprintf(out + len, cap - len, "%s", lines[i]);
    free(lines[i]);
  }
  free(lines), free(senders);
  return out;
}

/* Whether collective c's algorithms may differ in the order of their
 * messages only (alltoall: pairwise and scattered send a block to every
 * rank). */
static int ordered(int c) {
  return !strcmp(colls[c], "alltoall");
}

static int mpich_run(char **log, int P, const char *env, const char *calls) {
  return sh(log,
            "env MPIR_CVAR_NOLOCAL=1 MPIR_CVAR_DEVICE_COLLECTIVES=none%s mpiexec.mpich -n %d "
            "-env LD_PRELOAD %s/probe_ucx.so %s/probe%s",
            env, P, dir, dir, calls);
}

Test(mpi, mpich_runs_the_rules, .init = setup, .fini = teardown, .timeout = 900,
     .disabled = SANITIZED) {
  const char *require = getenv("TUTTI_REQUIRE_MPICH"); /* CI: a missing MPICH fails */
  if (require && !strcmp(require, "1"))
    cr_assert(in_path("mpicc.mpich") && in_path("mpiexec.mpich"),
              "TUTTI_REQUIRE_MPICH=1 but mpicc.mpich or mpiexec.mpich is not found");
  if (!in_path("mpicc.mpich") || !in_path("mpiexec.mpich"))
    cr_skip_test("MPICH not installed (mpicc.mpich, mpiexec.mpich; Debian: apt-get install mpich "
                 "libmpich-dev): its reading of --mpich-rules is not tested");
  tune("--mpich-rules", "mpich.json", "6,8", "gige", 0);
  build("mpicc.mpich", "probe", "probe_ucx");
  char path[700], calls[2048], env[2048], *log;
  snprintf(path, sizeof path, "%s/mpich.json", dir);
  char *text = read_text(path);
  cr_assert(text != NULL);
  HAS(text, "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE");
  const char *p = text;
  int ntop;
  struct jn *top = jobject(&p, &ntop);
  phases(calls, sizeof calls);
  int shown[NCOLL] = {0}, apart[NCOLL] = {0};
  for (int i = 0; i < 2; i++) {
    int P = Ps[i];
    char with_untuned[2100];
    snprintf(with_untuned, sizeof with_untuned, "%s untuned:64", calls);
    snprintf(env, sizeof env, " MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=%s", path);
    int rc = mpich_run(&log, P, env, with_untuned);
    cr_assert(eq(int, rc, 0), "mpiexec.mpich with the file, %d ranks: %s", P, log);
    /* per phase: the file's algorithm, and the messages with the file */
    struct {
      int c;
      long m;
      char ph[64];
      const char *alg;
      char *got;
      int done;
    } ph[40];
    int nph = 0;
    for (int c = 0; c < NCOLL; c++)
      for (int s = 0; s < 3; s++) {
        int barrier = !strcmp(colls[c], "barrier");
        if ((barrier && s) || !algs[c][0]) break; /* !algs[c][0]: MPICH's own, not tuned */
        long m = barrier ? 0 : sizes[s];
        struct call call = {colls[c], P, m};
        ph[nph].c = c, ph[nph].m = m, ph[nph].done = 0;
        snprintf(ph[nph].ph, sizeof ph[nph].ph, "%s:%ld", colls[c], m);
        ph[nph].alg = walk(top, ntop, &call);
        cr_assert(strlen(ph[nph].alg) > 0, "%s: the file's choice depends on more than the call",
                  ph[nph].ph);
        ph[nph].got = messages(log, ph[nph].ph, ordered(c));
        cr_assert(strlen(ph[nph].got) > 0 || P == 1, "%s: no message", ph[nph].ph);
        nph++;
      }
    free(log);
    /* the same calls with each algorithm forced: as many runs as a
     * collective has different choices */
    for (int left = nph; left;) {
      char sel[NCOLL][64] = {{0}}, run_calls[2048] = "";
      env[0] = '\0';
      for (int k = 0; k < nph; k++)
        if (!ph[k].done && !sel[ph[k].c][0]) {
          snprintf(sel[ph[k].c], sizeof sel[0], "%s", cvar_value(ph[k].alg));
          char one[128];
          force(one, sizeof one, ph[k].c, sel[ph[k].c]);
          strncat(env, one, sizeof env - strlen(env) - 1);
        }
      for (int k = 0; k < nph; k++)
        if (!ph[k].done && !strcmp(sel[ph[k].c], cvar_value(ph[k].alg))) {
          strncat(run_calls, " ", sizeof run_calls - strlen(run_calls) - 1);
          strncat(run_calls, ph[k].ph, sizeof run_calls - strlen(run_calls) - 1);
        }
      strncat(env, " MPIR_CVAR_COLLECTIVE_FALLBACK=error", sizeof env - strlen(env) - 1);
      rc = mpich_run(&log, P, env, run_calls);
      cr_assert(eq(int, rc, 0), "mpiexec.mpich forced (%s): %s", env, log);
      for (int k = 0; k < nph; k++) {
        if (ph[k].done || strcmp(sel[ph[k].c], cvar_value(ph[k].alg))) continue;
        char *forced = messages(log, ph[k].ph, ordered(ph[k].c));
        cr_assert(eq(str, ph[k].got, forced),
                  "%d ranks, %s: MPICH with the file sent\n%s\nbut %s by itself sends\n%s", P,
                  ph[k].ph, ph[k].got, ph[k].alg, forced);
        cr_log_info("MPICH, %d ranks, %s: ran %s as the file says", P, ph[k].ph, ph[k].alg);
        shown[ph[k].c]++;
        ph[k].done = 1, left--;
        free(forced);
      }
      free(log);
    }
    /* another algorithm, where MPICH has one, sends other messages: the
     * messages tell the algorithms apart. Run r forces every collective's
     * r-th algorithm and compares the calls that expect another. */
    for (int r = 0; r < 3; r++) {
      env[0] = '\0';
      for (int c = 0; c < NCOLL; c++)
        if (algs[c][1] && algs[c][r]) {
          char one[128];
          force(one, sizeof one, c, algs[c][r]);
          strncat(env, one, sizeof env - strlen(env) - 1);
        }
      rc = mpich_run(&log, P, env, calls);
      cr_assert(eq(int, rc, 0), "mpiexec.mpich with other algorithms (%s): %s", env, log);
      for (int k = 0; k < nph; k++) {
        int c = ph[k].c;
        if (!algs[c][1] || !algs[c][r] || !strcmp(algs[c][r], cvar_value(ph[k].alg))) continue;
        char *other = messages(log, ph[k].ph, ordered(c));
        apart[c] += strcmp(other, ph[k].got) != 0;
        free(other);
      }
      free(log);
    }
    for (int k = 0; k < nph; k++) free(ph[k].got);
  }
  /* between and past the measured counts the rules hold too: MPICH runs
   * every call (a rule measured at 8 ranks on 9, where MPICH's recursive
   * doubling allgather would fail an assertion) */
  for (int P = 7; P <= 9; P += 2) {
    snprintf(env, sizeof env, " MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=%s", path);
    int rc = mpich_run(&log, P, env, calls);
    cr_assert(eq(int, rc, 0), "mpiexec.mpich with the file, %d ranks: %s", P, log);
    free(log);
  }
  for (int c = 0; c < NCOLL; c++) {
    if (!algs[c][0]) continue;
    cr_assert(shown[c] > 0, "%s never shown", colls[c]);
    if (algs[c][1]) cr_assert(apart[c] > 0, "%s: no call told apart", colls[c]);
  }
  jfree(top, ntop);
  free(text);
}

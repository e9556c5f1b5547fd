/*
 * test_e2e_soak.c -- many consecutive collectives in one world, and
 * determinism at scale.
 *
 * Memory: a native run of tens of thousands of small collectives (bcast
 * with rotating roots, allreduce, barrier) in one world run keeps its
 * resident set flat: what it holds after a tenth of the calls is what it
 * holds at the end, within a bound far below one byte per call. A modeled
 * run's event logs hold sizeof(struct tutti_ev) = 24 bytes per recorded
 * event (runtime/MODEL.md "Memory"), counted here from the logs' own
 * capacity and the stats. bench/soak.sh runs 10^6 calls. (Resident sizes
 * are not checked under the sanitizers: ASan's quarantine keeps freed
 * memory resident by design.)
 *
 * Determinism: repeated modeled runs of 1024 ranks under TUTTI_PERTURB
 * (set through the environment variable, as a user would) give
 * bit-identical reports; bench/soak.sh also runs 16384 ranks. Limits: the
 * ranks a world may have.
 *
 * TUTTI_TSAN_TEST: also built and run under ThreadSanitizer (tests/CMakeLists.txt).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* the logs' capacity */
#include "tutti/tutti.h"

#include "sanitized.h"

/* Resident pages of this process, in bytes. */
static long rss(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, res = 0;
  cr_assert(not(eq(ptr, f, NULL)));
  cr_assert(eq(int, fscanf(f, "%ld %ld", &size, &res), 2));
  fclose(f);
  return res * 4096;
}

struct soak {
  long calls;
  long rss_early, rss_end; /* rank 0's samples after a tenth and nine tenths of the calls */
};

static int soak_fn(tutti_rank_t *r, void *arg) {
  struct soak *s = arg;
  int me = tutti_rank(r), P = tutti_size(r);
  for (long i = 0; i < s->calls; i++) {
    int64_t x = me + i, y = 0;
    int rc;
    switch (i % 3) {
    case 0:
      rc = tutti_bcast(r, &x, 1, TUTTI_INT64, (int)(i % P), NULL);
      if (!rc && x != (int64_t)(i % P) + i) rc = TUTTI_EVERIFY;
      break;
    case 1:
      rc = tutti_allreduce(r, &x, &y, 1, TUTTI_INT64, TUTTI_SUM, NULL);
      if (!rc && y != (int64_t)P * (P - 1) / 2 + P * i) rc = TUTTI_EVERIFY;
      break;
    default:
      rc = tutti_barrier(r, NULL);
    }
    if (rc) return rc;
    if (me == 0 && i == s->calls / 10) s->rss_early = rss();
    if (me == 0 && i == s->calls - s->calls / 10) s->rss_end = rss();
  }
  return 0;
}

Test(soak, native_memory_is_flat, .timeout = 240) {
  struct soak s = {.calls = SANITIZED ? 3000 : 30000};
  tutti_config_t c = tutti_config_default(4);
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_assert(eq(int, tutti_world_run(w, soak_fn, &s), 0), "%s", tutti_world_error(w));
  long grown = s.rss_end - s.rss_early;
  cr_log_info("%ld calls: resident %ld KiB after a tenth, %ld KiB after nine tenths", s.calls,
              s.rss_early >> 10, s.rss_end >> 10);
  /* 24000 calls between the samples: 256 KiB is under 11 bytes a call,
   * and allows for pages first touched late (stacks, pools at their peak);
   * bench/soak.sh measures 10^6 calls. */
  if (!SANITIZED)
    cr_assert(lt(long, grown, 256L << 10), "resident memory grew by %ld KiB over %ld calls",
              grown >> 10, s.calls * 8 / 10);
  tutti_stats_t st;
  cr_assert(eq(int, tutti_world_stats(w, &st), 0));
  cr_assert(eq(u64, st.events, 0), "a native run records nothing");
  tutti_world_destroy(w);
}

/* A modeled run: every event costs its log 24 bytes; the log's capacity
 * stays within twice its events (doubling) and the limit. */
Test(soak, modeled_log_bytes_per_event, .timeout = 120) {
  struct soak s = {.calls = SANITIZED ? 1000 : 10000};
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  tutti_config_t c = tutti_config_default(4);
  c.model = &m;
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_assert(eq(int, tutti_world_run(w, soak_fn, &s), 0), "%s", tutti_world_error(w));
  cr_assert(eq(sz, sizeof(struct tutti_ev), 24), "runtime/MODEL.md \"Memory\" says 24 bytes");
  tutti_stats_t st;
  cr_assert(eq(int, tutti_world_stats(w, &st), 0));
  uint64_t n = 0, cap = 0;
  for (int i = 0; i < 4; i++) n += w->ranks[i]->log.n, cap += w->ranks[i]->log.cap;
  cr_assert(eq(u64, n, st.events));
  /* Each call records at least a span and a message on every rank. */
  cr_assert(ge(u64, n, 4 * 3 * (uint64_t)s.calls));
  cr_assert(le(u64, cap, 2 * n + 4 * 64));
  tutti_world_destroy(w);
}

/* --------------------------------------------------- determinism at scale */

struct scale_job {
  const tutti_algo_t *bcast;
};

static int scale_fn(tutti_rank_t *r, void *arg) {
  const struct scale_job *j = arg;
  int64_t x = tutti_rank(r) == 0 ? 42 : 0;
  int rc = tutti_bcast(r, &x, 1, TUTTI_INT64, 0, j->bcast);
  if (!rc && x != 42) rc = TUTTI_EVERIFY;
  if (!rc) rc = tutti_barrier(r, NULL);
  return rc;
}

static void perturbed_runs_identical(int P, int repeats) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_loggp(&m, 5e-6, 1e-6, 2e-6, 1e-9), 0));
  struct scale_job j;
  char err[256];
  cr_assert(eq(int,
               tutti_algo_select(TUTTI_COLL_BCAST, "lambda-tree", NULL, &j.bcast, err, sizeof err),
               0),
            "%s", err);
  double *ref = calloc((size_t)P, sizeof *ref);
  double ref_time = 0;
  for (int k = 0; k <= repeats; k++) {
    /* Run 0 unperturbed; then the switch through the environment, as a
     * user sets it, each with another seed. */
    char seed[16];
    snprintf(seed, sizeof seed, "%d", 1000 + k);
    if (k)
      setenv("TUTTI_PERTURB", seed, 1);
    else
      unsetenv("TUTTI_PERTURB");
    tutti_config_t c = tutti_config_default(P);
    c.model = &m;
    tutti_world_t *w;
    cr_assert(eq(int, tutti_world_create(&w, &c), 0));
    cr_assert(eq(int, !!(w->flags & TUTTI_PERTURB), k > 0), "TUTTI_PERTURB=%s", seed);
    cr_assert(eq(int, tutti_world_run(w, scale_fn, &j), 0), "%s", tutti_world_error(w));
    tutti_report_t rep;
    cr_assert(eq(int, tutti_world_report(w, &rep), 0));
    if (k == 0) {
      memcpy(ref, rep.rank_end, (size_t)P * sizeof *ref);
      ref_time = rep.modeled_time;
    } else {
      cr_assert(eq(int, memcmp(&ref_time, &rep.modeled_time, sizeof ref_time), 0),
                "P=%d run %d: %.17g vs %.17g", P, k, rep.modeled_time, ref_time);
      cr_assert(eq(int, memcmp(ref, rep.rank_end, (size_t)P * sizeof *ref), 0),
                "P=%d run %d: a rank's end differs", P, k);
    }
    tutti_world_destroy(w);
  }
  unsetenv("TUTTI_PERTURB");
  free(ref);
}

Test(determinism, perturbed_1024_ranks_bit_identical, .timeout = 300) {
  perturbed_runs_identical(SANITIZED ? 256 : 1024, 3);
}

/* A malformed TUTTI_PERTURB is refused, not ignored. */
Test(determinism, bad_perturb_variable_is_refused, .timeout = 30) {
  static const char *bad[] = {"x", "-1", "1.5", "99999999999", "1 "};
  tutti_config_t c = tutti_config_default(2);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    setenv("TUTTI_PERTURB", bad[i], 1);
    tutti_world_t *w = (tutti_world_t *)1;
    cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_EINVAL), "TUTTI_PERTURB=\"%s\"", bad[i]);
    cr_assert(eq(ptr, w, NULL));
  }
  static const char *off[] = {"", "0"};
  for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
    setenv("TUTTI_PERTURB", off[i], 1);
    tutti_world_t *w;
    cr_assert(eq(int, tutti_world_create(&w, &c), 0));
    cr_assert(eq(int, w->flags &TUTTI_PERTURB, 0), "TUTTI_PERTURB=\"%s\"", off[i]);
    tutti_world_destroy(w);
  }
  unsetenv("TUTTI_PERTURB");
}

/* ------------------------------------------------------------------ limits */

/* tests/README.md "What the tests guarantee": at most 2^20 ranks a world, refused up front. */
Test(limits, ranks_per_world, .timeout = 30) {
  tutti_config_t c = tutti_config_default((1 << 20) + 1);
  tutti_world_t *w = (tutti_world_t *)1;
  cr_assert(eq(int, tutti_world_create(&w, &c), TUTTI_ERANK));
  cr_assert(eq(ptr, w, NULL));
}

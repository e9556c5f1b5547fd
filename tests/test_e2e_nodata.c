/*
 * test_e2e_nodata.c -- timing-only runs (TUTTI_NO_DATA, `--no-data`;
 * runtime/MODEL.md "Timing-only runs"):
 * - every registered algorithm (enumerated from the registry) gives
 *   bit-identical modeled times, per-rank times and message counts with
 *   and without data, on several (P, m) under an all-rendezvous model, a
 *   model with both protocols, and a topology with contended links; the
 *   no-data run's buffers are mapped PROT_NONE, so a single touched byte
 *   of them would kill the test;
 * - tutti_reduce_local_r in a no-data run charges gamma * bytes and leaves
 *   its buffers alone; tutti_local_copy copies, except in a no-data run;
 * - the CLI: run, sweep and suite report "verified": null and say so;
 *   a run whose buffers would be tens of GiB completes with small peak RSS
 *   (the child's getrusage); bad combinations fail with one line;
 * - collectives/ copies only through the contract (no memcpy), so the
 *   runtime can skip every copy.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"
#include "coll_helpers.h"

/* ------------------------------------------------------------ one job */

struct job {
  const tutti_algo_t *algo;
  int coll, root, calls;
  long count; /* int32 elements */
  tutti_op_t op;
  char *region; /* no-data: every rank's buffers, PROT_NONE; NULL: allocate */
  size_t slot;  /* a, b and big lie a slot apart in region; alltoall receives P slots into big */
};

static int call(tutti_rank_t *r, const struct job *j, char *a, char *b, char *big) {
  int me = tutti_rank(r);
  switch (j->coll) {
  case TUTTI_COLL_BCAST:
    return tutti_bcast(r, a, j->count, TUTTI_INT32, j->root, j->algo);
  case TUTTI_COLL_REDUCE:
    return tutti_reduce(r, a, b, j->count, TUTTI_INT32, j->op, j->root, j->algo);
  case TUTTI_COLL_ALLREDUCE:
    return tutti_allreduce(r, a, b, j->count, TUTTI_INT32, j->op, j->algo);
  case TUTTI_COLL_GATHER:
    return tutti_gather(r, a, j->count, TUTTI_INT32, me == j->root ? big : NULL,
                        me == j->root ? j->count : 0, TUTTI_INT32, j->root, j->algo);
  case TUTTI_COLL_SCATTER:
    return tutti_scatter(r, me == j->root ? big : NULL, me == j->root ? j->count : 0, TUTTI_INT32,
                         b, j->count, TUTTI_INT32, j->root, j->algo);
  case TUTTI_COLL_ALLGATHER:
    return tutti_allgather(r, a, big, j->count, TUTTI_INT32, j->algo);
  case TUTTI_COLL_REDUCE_SCATTER:
    return tutti_reduce_scatter(r, big, b, j->count, TUTTI_INT32, j->op, j->algo);
  case TUTTI_COLL_ALLTOALL: /* big: the P blocks to send, then the P received */
    return tutti_alltoall(r, big, big + (size_t)tutti_size(r) * j->slot, j->count, TUTTI_INT32,
                          j->algo);
  case TUTTI_COLL_SCAN:
    return tutti_scan(r, a, b, j->count, TUTTI_INT32, j->op, j->algo);
  case TUTTI_COLL_EXSCAN:
    return tutti_exscan(r, a, b, j->count, TUTTI_INT32, j->op, j->algo);
  case TUTTI_COLL_BARRIER:
    return tutti_barrier(r, j->algo);
  }
  return TUTTI_ENOTSUP; /* a collective this file does not know: the test says so */
}

static int rank_fn(tutti_rank_t *r, void *arg) {
  const struct job *j = arg;
  size_t blk = (size_t)j->count * 4;
  int P = tutti_size(r), rc = 0;
  char *a, *b, *big;
  if (j->region) {
    a = j->region, b = j->region + j->slot, big = j->region + 2 * j->slot;
  } else { /* big: 2P blocks, alltoall's send and receive buffers */
    a = calloc(1, blk + 1), b = calloc(1, blk + 1), big = calloc(2 * (size_t)P, blk + 1);
    if (!a || !b || !big) rc = TUTTI_ENOMEM;
  }
  for (int k = 0; k < j->calls && !rc; k++) rc = call(r, j, a, b, big);
  if (!j->region) free(a), free(b), free(big);
  return rc;
}

/* What must be identical: every time of the report, every counter but the
 * wall-clock ones. */
struct outcome {
  double modeled, *end, *last;
  int nranks, ncalls;
  double call_time[4];
  tutti_stats_t st;
};

static struct outcome run_job(const tutti_model_t *m, int P, struct job *j, int nodata) {
  tutti_config_t c = tutti_config_default(P);
  c.model = m;
  if (nodata) c.flags |= TUTTI_NO_DATA;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  size_t len = 0;
  j->region = NULL;
  j->slot = (size_t)j->count * 4 + 1; /* calloc's blocks in rank_fn */
  if (nodata) {                       /* unreadable, unwritable: the run must not touch a byte */
    j->slot = ((size_t)j->count * 4 + 4095) / 4096 * 4096 + 4096;
    len = (2 + 2 * (size_t)P) * j->slot;
    j->region = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    cr_assert(ne(ptr, j->region, MAP_FAILED));
  }
  char spec[256] = "";
  tutti_algo_format(j->algo, spec, sizeof spec);
  int rc = tutti_world_run(w, rank_fn, j);
  cr_assert(eq(int, rc, 0), "%s %s P=%d count=%ld nodata=%d: %s", tutti_coll_name(j->coll), spec, P,
            j->count, nodata, tutti_world_error(w));
  struct outcome o = {.nranks = P};
  tutti_report_t rep;
  cr_assert(eq(int, tutti_world_report(w, &rep), 0));
  cr_assert(eq(int, tutti_world_stats(w, &o.st), 0));
  o.modeled = rep.modeled_time;
  o.ncalls = rep.ncalls;
  for (int k = 0; k < rep.ncalls && k < 4; k++) o.call_time[k] = rep.calls[k].time;
  o.end = malloc((size_t)P * sizeof *o.end);
  o.last = malloc((size_t)P * sizeof *o.last);
  cr_assert(o.end && o.last);
  memcpy(o.end, rep.rank_end, (size_t)P * sizeof *o.end);
  memcpy(o.last, rep.rank_last_call, (size_t)P * sizeof *o.last);
  tutti_world_destroy(w);
  if (j->region) munmap(j->region, len);
  j->region = NULL;
  return o;
}

/* Bit-identical, not merely close: compare the representations. */
static void same(const struct outcome *x, const struct outcome *y, const char *what) {
  cr_assert(eq(int, memcmp(&x->modeled, &y->modeled, sizeof x->modeled), 0),
            "%s: modeled %.17g vs %.17g", what, x->modeled, y->modeled);
  cr_assert(eq(int, x->ncalls, y->ncalls), "%s", what);
  cr_assert(eq(int, memcmp(x->call_time, y->call_time, sizeof x->call_time), 0), "%s", what);
  cr_assert(eq(int, memcmp(x->end, y->end, (size_t)x->nranks * sizeof *x->end), 0), "%s", what);
  cr_assert(eq(int, memcmp(x->last, y->last, (size_t)x->nranks * sizeof *x->last), 0), "%s", what);
  cr_assert(eq(u64, x->st.messages, y->st.messages), "%s", what);
  cr_assert(eq(u64, x->st.bytes, y->st.bytes), "%s", what);
  cr_assert(eq(u64, x->st.eager, y->st.eager), "%s", what);
  cr_assert(eq(u64, x->st.rendezvous, y->st.rendezvous), "%s", what);
  cr_assert(eq(u64, x->st.events, y->st.events), "%s", what);
}

static void drop(struct outcome *o) {
  free(o->end), free(o->last);
}

struct point {
  int P;
  size_t bytes;
};

/* Every registered algorithm at every point under model m: data and
 * no-data runs agree to the bit. Returns the runs compared. */
static int compare_all(const tutti_model_t *m, const struct point *pts, int npts,
                       const char *label) {
  int compared = 0;
  const tutti_algo_desc_t *d;
  for (int i = 0; (d = tutti_algo_desc_at(i)) != NULL; i++) {
    const tutti_algo_t *a = pick(d->coll, d->name, NULL);
    int data = (tutti_coll_traits(d->coll) & TUTTI_COLL_DATA) != 0;
    int reduces = (tutti_coll_traits(d->coll) & TUTTI_COLL_REDUCES) != 0;
    for (int p = 0; p < npts; p++) {
      int P = pts[p].P;
      /* non-commutative where the algorithm allows it: its rank-order path */
      tutti_op_t op = reduces ? TUTTI_MATMUL2 : NULL;
      if (tutti_algo_check(a, P, op, NULL, 0)) op = reduces ? TUTTI_SUM : NULL;
      if (tutti_algo_check(a, P, op, NULL, 0)) continue; /* e.g. a power of two only */
      struct job j = {.algo = a,
                      .coll = d->coll,
                      .root = P / 2, /* a nonzero root: the wrap-around paths */
                      .calls = 2,
                      .count = data ? (long)(pts[p].bytes / 4) : 0,
                      .op = op};
      if (tutti_algo_check_call(a, P, j.root, (size_t)j.count * 4, op, NULL, 0)) continue;
      char what[512];
      snprintf(what, sizeof what, "%s: %s %s P=%d m=%zu", label, tutti_coll_name(d->coll), d->name,
               P, (size_t)j.count * 4);
      struct outcome x = run_job(m, P, &j, 0), y = run_job(m, P, &j, 1);
      same(&x, &y, what);
      drop(&x), drop(&y);
      compared++;
    }
  }
  return compared;
}

static int nalgos(void) {
  int n = 0;
  while (tutti_algo_desc_at(n)) n++;
  return n;
}

Test(nodata, every_algorithm_bit_identical_hockney, .timeout = 120) {
  tutti_model_t m = hockney(1e-6, 1e-9); /* every message rendezvous */
  /* Under TSan, whose thread starts are slow, not the world of 13 ranks:
   * it drives no line or branch of the library that the other three do
   * not (gcov over the every_algorithm_ tests' TSan points). */
#ifdef __SANITIZE_THREAD__
  const struct point pts[] = {{1, 8}, {5, 4000}, {8, 65536}};
#else
  const struct point pts[] = {{1, 8}, {5, 4000}, {8, 65536}, {13, 100000}};
#endif
  int n = compare_all(&m, pts, (int)(sizeof pts / sizeof *pts), "hockney");
  /* every algorithm ran at least at P = 1 or 5 (no registered restriction
   * excludes both a power of two and a non-power) */
  cr_assert(ge(int, n, nalgos()), "%d comparisons for %d algorithms", n, nalgos());
}

Test(nodata, every_algorithm_bit_identical_both_protocols, .timeout = 120) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_loggp(&m, 3e-6, 1e-6, 2e-6, 1e-9), 0));
  m.eager_limit = 4096; /* small messages eager (and fastboxes), large rendezvous */
  const struct point pts[] = {{2, 8}, {7, 4000}, {12, 65536}};
  cr_assert(ge(int, compare_all(&m, pts, 3, "loggp"), nalgos()));
}

Test(nodata, every_algorithm_bit_identical_topology, .timeout = 120) {
  const struct point pts[][1] = {{{13, 65536}}, {{16, 8}}};
  int n = 0;
  for (int k = 0; k < 2; k++) {
    tutti_machine_spec_t s = tutti_machine_spec_default();
    s.model = "hockney:alpha=1us,beta=1ns";
    s.topology = "tree:4x4";
    s.links = "0/1GB/s,1us/250MB/s"; /* the uplinks are slower: contention shows */
    s.nranks = pts[k][0].P;
    tutti_machine_t mach;
    char err[512] = "";
    cr_assert(eq(int, tutti_machine_build(&s, &mach, NULL, err, sizeof err), 0), "%s", err);
    n += compare_all(&mach.model, pts[k], 1, "topology tree:4x4");
    tutti_machine_free(&mach);
  }
  cr_assert(ge(int, n, nalgos()));
}

/* ------------------------------------------------------------ the calls */

struct local {
  char *in, *io;
  long count;
};

static int local_fn(tutti_rank_t *r, void *arg) {
  struct local *l = arg;
  int rc = tutti_reduce_local_r(r, l->in, l->io, l->count, TUTTI_INT32, TUTTI_SUM);
  if (!rc) rc = tutti_local_copy(r, l->io, l->in, (size_t)l->count * 4);
  if (!rc && tutti_local_copy(r, NULL, l->in, 4) != TUTTI_EBUFFER) rc = TUTTI_EINVAL;
  if (!rc && tutti_reduce_local_r(r, l->in, l->io, -1, TUTTI_INT32, TUTTI_SUM) != TUTTI_ECOUNT)
    rc = TUTTI_EINVAL;
  return rc;
}

Test(nodata, reduce_local_charges_gamma_and_copies_nothing, .timeout = 30) {
  tutti_model_t m = hockney(1e-6, 1e-9);
  m.gamma = 2e-9;
  int32_t in[4] = {1, 2, 3, 4};
  for (int nodata = 0; nodata < 2; nodata++) {
    int32_t io[4] = {10, 20, 30, 40};
    struct local l = {(char *)in, (char *)io, 4};
    tutti_config_t c = tutti_config_default(1);
    c.model = &m;
    if (nodata) c.flags |= TUTTI_NO_DATA;
    tutti_world_t *w;
    cr_assert(eq(int, tutti_world_create(&w, &c), 0));
    cr_assert(eq(int, tutti_world_run(w, local_fn, &l), 0), "%s", tutti_world_error(w));
    tutti_report_t rep;
    cr_assert(eq(int, tutti_world_report(w, &rep), 0));
    /* gamma * 16 bytes either way (MODEL.md rule 6; copies are free) */
    cr_assert(eq(dbl, rep.modeled_time, 32e-9));
    if (nodata) /* neither the reduction nor the copy happened */
      cr_assert(eq(i32, io[0] + io[1] + io[2] + io[3], 100));
    else /* reduced into io, then io overwritten by the copy of in */
      cr_assert(eq(i32, io[0] * 1000 + io[1] * 100 + io[2] * 10 + io[3], 1234));
    tutti_world_destroy(w);
  }
}

/* ------------------------------------------------------------ the CLI */

Test(nodata, run_reports_unchecked_and_same_time, .timeout = 60) {
  struct cli d = CLI("run", "reduce", "binomial", "-n", "12", "-m", "64KiB", "--root", "5",
                     "--json"),
             n = CLI("run", "reduce", "binomial", "-n", "12", "-m", "64KiB", "--root", "5",
                     "--json", "--no-data");
  cr_assert(eq(int, d.status, 0), "%s", d.err);
  cr_assert(eq(int, n.status, 0), "%s", n.err);
  HAS(d.out, "\"verified\":true,\"no_data\":false");
  HAS(n.out, "\"verified\":null,\"no_data\":true");
  /* the same modeled time, as the same shortest text */
  char *td = strstr(d.out, "\"modeled_time\":"), *tn = strstr(n.out, "\"modeled_time\":");
  cr_assert(td && tn);
  cr_assert(eq(int, strncmp(td, tn, strcspn(td, ",")), 0), "%.40s vs %.40s", td, tn);
  HAS(strstr(n.out, "\"messages\":"), "\"messages\":11,");
  cli_free(&d), cli_free(&n);
  struct cli t = CLI("run", "bcast", "binomial", "-n", "4", "-m", "1KiB", "--no-data");
  cr_assert(eq(int, t.status, 0), "%s", t.err);
  HAS(t.out, "verified      not checked (--no-data");
  cli_free(&t);
}

Test(nodata, sweep_and_suite_report_unchecked, .timeout = 120) {
  struct cli s =
      CLI("sweep", "allreduce", "--ranks", "4,6", "--sizes", "8,4KiB", "--json", "--no-data");
  cr_assert(eq(int, s.status, 0), "%s", s.err);
  HAS(s.out, "\"no_data\":true");
  HAS(s.out, "\"all_verified\":null");
  cr_assert(eq(ptr, strstr(s.out, "\"verified\":true"), NULL), "a no-data point claims verified");
  HAS(s.out, "\"verified\":null");
  cli_free(&s);
  /* CSV: the verified column is empty, the time is there */
  struct cli c =
      CLI("sweep", "bcast", "--ranks", "5", "--sizes", "1KiB", "--algos", "binomial", "--no-data");
  cr_assert(eq(int, c.status, 0), "%s", c.err);
  char *row = strstr(c.out, "\nbcast,binomial,");
  cr_assert(ne(ptr, row, NULL), "%s", c.out);
  HAS(row, ",,true,"); /* ...,bytes_moved,verified(empty),winner,note */
  cli_free(&c);
  struct cli u = CLI("suite", "-n", "6", "-m", "1KiB", "--no-data");
  cr_assert(eq(int, u.status, 0), "%s", u.err);
  HAS(u.out, "timing only (--no-data");
  HAS(u.out, "not verified (--no-data)");
  cr_assert(eq(ptr, strstr(u.out, "  yes\n"), NULL), "a no-data row says verified: %s", u.out);
  cli_free(&u);
}

/* Peak RSS (KiB) of `tutti args...`, from the child's own rusage. */
static long child_maxrss(const char *const *args, int *status) {
  char bin[4096];
  const char *dir = getenv("TUTTI_BINARY_DIR");
  snprintf(bin, sizeof bin, "%s/tutti", dir && *dir ? dir : ".");
  const char *argv[32] = {"tutti"};
  int n = 1;
  for (; args[n - 1] && n < 31; n++) argv[n] = args[n - 1];
  argv[n] = NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  cr_assert(eq(int, posix_spawn(&pid, bin, &fa, NULL, (char *const *)argv, environ), 0));
  posix_spawn_file_actions_destroy(&fa);
  struct rusage ru;
  cr_assert(eq(int, (int)wait4(pid, status, 0, &ru), (int)pid));
  return ru.ru_maxrss;
}

Test(nodata, buffers_cost_no_memory, .timeout = 120) {
  /* Under a sanitizer the shadow memory dwarfs the bound: the test is for
   * plain builds. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  cr_skip("peak RSS is not meaningful under a sanitizer");
#endif
  /* 64 ranks x 256 MiB: 32 GiB of user buffers alone in a data run, plus
   * the algorithm's scratch; more than this machine's memory. */
  int st;
  long kib = child_maxrss((const char *const[]){"run", "reduce", "binomial", "-n", "64", "-m",
                                                "256MiB", "--no-data", NULL},
                          &st);
  cr_assert(eq(int, WIFEXITED(st) ? WEXITSTATUS(st) : 128, 0));
  cr_assert(lt(i64, (int64_t)kib, (int64_t)256 << 10), "peak RSS %ld KiB", kib);
  /* gather: the root's P blocks too (64 x 64 MiB), and a scatter */
  kib = child_maxrss((const char *const[]){"run", "gather", "binomial", "-n", "64", "-m", "64MiB",
                                           "--no-data", NULL},
                     &st);
  cr_assert(eq(int, WIFEXITED(st) ? WEXITSTATUS(st) : 128, 0));
  cr_assert(lt(i64, (int64_t)kib, (int64_t)256 << 10), "peak RSS %ld KiB", kib);
  /* alltoall: every rank's 2P blocks (64 x 2 x 64 x 64 MiB) and bruck's
   * pack buffers */
  kib = child_maxrss((const char *const[]){"run", "alltoall", "bruck", "-n", "64", "-m", "64MiB",
                                           "--no-data", NULL},
                     &st);
  cr_assert(eq(int, WIFEXITED(st) ? WEXITSTATUS(st) : 128, 0));
  cr_assert(lt(i64, (int64_t)kib, (int64_t)256 << 10), "peak RSS %ld KiB", kib);
  /* exscan: recursive doubling's two scratch buffers a rank */
  kib = child_maxrss((const char *const[]){"run", "exscan", "recursive-doubling", "-n", "64", "-m",
                                           "256MiB", "--no-data", NULL},
                     &st);
  cr_assert(eq(int, WIFEXITED(st) ? WEXITSTATUS(st) : 128, 0));
  cr_assert(lt(i64, (int64_t)kib, (int64_t)256 << 10), "peak RSS %ld KiB", kib);
}

Test(nodata, bad_combinations, .timeout = 30) {
  fails_with(CLI("run", "bcast", "binomial", "--model", "none", "--no-data"), 2,
             "--no-data: the none model has no modeled time");
  fails_with(CLI("sweep", "bcast", "--model", "none", "--no-data"), 2,
             "--no-data: the none model has no modeled time");
  fails_with(CLI("suite", "--model", "none", "--no-data"), 2,
             "--no-data: the none model has no modeled time");
  fails_with(CLI("run", "bcast", "binomial", "--no-data=1"), 2, "--no-data takes no value");
  fails_with(CLI("list", "--no-data"), 2, "unknown option '--no-data'");
}

/* ------------------------------------------------------------ the source */

/* Every local copy in collectives/ goes through tutti_local_copy (select.c
 * copies parameter text, registry.c and register_check.c algorithms'
 * descriptions, plugin.c file paths, plan.c a plan's own state and
 * rules_file.c a rules file's text, not data). */
static int copies_no_data(const char *file) {
  return !strcmp(file, "select.c") || !strcmp(file, "registry.c") ||
         !strcmp(file, "register_check.c") || !strcmp(file, "plugin.c") ||
         !strcmp(file, "plan.c") || !strcmp(file, "rules_file.c");
}

Test(nodata, collectives_copy_through_the_contract, .timeout = 10) {
  const char *src = getenv("TUTTI_SOURCE_DIR");
  if (!src || !*src) cr_skip("TUTTI_SOURCE_DIR is not set (run through ctest)");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/collectives", src);
  DIR *dp = opendir(dir);
  cr_assert(ne(ptr, dp, NULL));
  struct dirent *e;
  int files = 0;
  while ((e = readdir(dp))) {
    size_t len = strlen(e->d_name);
    if (len < 3 || strcmp(e->d_name + len - 2, ".c") || copies_no_data(e->d_name)) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    FILE *f = fopen(path, "r");
    cr_assert(ne(ptr, f, NULL));
    char line[1024];
    for (int ln = 1; fgets(line, sizeof line, f); ln++)
      cr_assert(eq(int, !strstr(line, "memcpy(") && !strstr(line, "memmove("), 1),
                "%s:%d copies with libc, not tutti_local_copy: %s", e->d_name, ln, line);
    fclose(f);
    files++;
  }
  closedir(dp);
  cr_assert(gt(int, files, 5));
}

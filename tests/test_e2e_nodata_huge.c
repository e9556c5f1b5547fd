/*
 * test_e2e_nodata_huge.c -- timing-only runs (TUTTI_NO_DATA) of any size
 * take no memory for payload (runtime/MODEL.md "Timing-only runs"): every
 * registered algorithm of every collective (enumerated from the
 * registry), at its defaults, on 4 ranks with 1 TiB a rank, runs and
 * reports a positive modeled time, its buffers PROT_NONE and its scratch
 * buffers (tutti_scratch_alloc) never backed; the process's peak RSS stays
 * under 200 MB (not under the sanitizers, whose shadow memory dwarfs it).
 * TUTTI_TSAN_TEST: rank threads.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "tutti/tutti.h"

#include "coll_helpers.h"

#define TIB ((size_t)1 << 40)

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

struct job {
  const tutti_algo_t *algo;
  int coll;
  long count; /* bytes: TUTTI_BYTE elements */
  char *a, *b, *big;
};

static int rank_fn(tutti_rank_t *r, void *arg) {
  const struct job *j = arg;
  int me = tutti_rank(r);
  switch (j->coll) {
  case TUTTI_COLL_BCAST:
    return tutti_bcast(r, j->a, j->count, TUTTI_BYTE, 0, j->algo);
  case TUTTI_COLL_REDUCE:
    return tutti_reduce(r, j->a, j->b, j->count, TUTTI_BYTE, TUTTI_SUM, 0, j->algo);
  case TUTTI_COLL_ALLREDUCE:
    return tutti_allreduce(r, j->a, j->b, j->count, TUTTI_BYTE, TUTTI_SUM, j->algo);
  case TUTTI_COLL_GATHER:
    return tutti_gather(r, j->a, j->count, TUTTI_BYTE, me == 0 ? j->big : NULL,
                        me == 0 ? j->count : 0, TUTTI_BYTE, 0, j->algo);
  case TUTTI_COLL_SCATTER:
    return tutti_scatter(r, me == 0 ? j->big : NULL, me == 0 ? j->count : 0, TUTTI_BYTE, j->b,
                         j->count, TUTTI_BYTE, 0, j->algo);
  case TUTTI_COLL_ALLGATHER:
    return tutti_allgather(r, j->a, j->big, j->count, TUTTI_BYTE, j->algo);
  case TUTTI_COLL_REDUCE_SCATTER:
    return tutti_reduce_scatter(r, j->big, j->b, j->count, TUTTI_BYTE, TUTTI_SUM, j->algo);
  case TUTTI_COLL_ALLTOALL: /* big: the P blocks to send, then the P received */
    return tutti_alltoall(r, j->big, j->big + (size_t)tutti_size(r) * (size_t)j->count, j->count,
                          TUTTI_BYTE, j->algo);
  case TUTTI_COLL_SCAN:
    return tutti_scan(r, j->a, j->b, j->count, TUTTI_BYTE, TUTTI_SUM, j->algo);
  case TUTTI_COLL_EXSCAN:
    return tutti_exscan(r, j->a, j->b, j->count, TUTTI_BYTE, TUTTI_SUM, j->algo);
  case TUTTI_COLL_BARRIER:
    return tutti_barrier(r, j->algo);
  }
  return TUTTI_ENOTSUP; /* a collective this file does not know: the test says so */
}

Test(nodata, every_algorithm_at_one_tib_a_rank, .timeout = 600) {
  const int P = 4;
  /* every rank's buffers in one reservation no byte of which is readable:
   * the run must touch none (ranks share them: nothing is written); big
   * holds 2P blocks, alltoall's send and receive buffers */
  size_t len = (2 + 2 * (size_t)P) * TIB;
  char *region = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED && SANITIZED) /* ThreadSanitizer's layout has no such hole */
    cr_skip("%zu TiB of address space: the sanitizer's layout has no room", len / TIB);
  cr_assert(ne(ptr, region, MAP_FAILED));
  tutti_model_t m = hockney(1e-6, 1e-9);
  tutti_config_t c = tutti_config_default(P);
  c.model = &m;
  c.flags |= TUTTI_NO_DATA;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  int n = 0;
  for (int i = 0; tutti_algo_desc_at(i); i++) {
    const tutti_algo_desc_t *d = tutti_algo_desc_at(i);
    if (!tutti_algo_builtin(d)) continue;
    struct job j = {
        pick(d->coll, d->name, NULL), d->coll, (long)TIB, region, region + TIB, region + 2 * TIB};
    int rc = tutti_world_run(w, rank_fn, &j);
    cr_expect(eq(int, rc, 0), "%s %s: %s", tutti_coll_name(d->coll), d->name, tutti_world_error(w));
    tutti_report_t rep;
    if (!rc && !tutti_world_report(w, &rep))
      cr_expect(gt(dbl, rep.modeled_time, 0), "%s %s", tutti_coll_name(d->coll), d->name);
    n++;
  }
  cr_expect(gt(int, n, 40), "the registry's built-ins: %d", n);
  tutti_world_destroy(w);
  munmap(region, len);
  if (!SANITIZED) {
    struct rusage ru;
    cr_assert(eq(int, getrusage(RUSAGE_SELF, &ru), 0));
    cr_expect(lt(long, ru.ru_maxrss, 200L * 1024), "peak RSS %ld KiB", ru.ru_maxrss);
  }
}

/* The contract's scratch: malloc'd memory with data, one never-touched
 * address without (the same for every size). */
static int scratch_fn(tutti_rank_t *r, void *arg) {
  int *nodata = arg;
  char *p = tutti_scratch_alloc(r, 64), *q = tutti_scratch_alloc(r, *nodata ? TIB : 0);
  int ok = p != NULL && q != NULL && (*nodata ? q == p : q != p);
  if (!*nodata) p[0] = p[63] = 1; /* memory of its own */
  tutti_scratch_free(r, p);
  tutti_scratch_free(r, q);
  tutti_scratch_free(r, NULL);
  return ok && tutti_scratch_alloc(NULL, 8) == NULL ? 0 : TUTTI_EINVAL;
}

Test(nodata, scratch_costs_nothing_without_data, .timeout = 30) {
  for (int nodata = 0; nodata < 2; nodata++) {
    tutti_config_t c = tutti_config_default(2);
    if (nodata) c.flags |= TUTTI_NO_DATA;
    tutti_world_t *w = NULL;
    cr_assert(eq(int, tutti_world_create(&w, &c), 0));
    cr_expect(eq(int, tutti_world_run(w, scratch_fn, &nodata), 0), "nodata %d: %s", nodata,
              tutti_world_error(w));
    tutti_world_destroy(w);
  }
}

/*
 * test_e2e_ranks_as.c -- how ranks run when nothing names a way
 * (include/tutti/world.h tutti_ranks_as_choose, bench/CLI.md --ranks-as):
 * - a world of the default config runs its ranks as the choice for no
 *   sizes says (fibers), a paced world (TUTTI_WALLCLOCK) as threads, and
 *   TUTTI_RANKS_AS still decides when set;
 * - `tutti run` without --ranks-as runs them as the choice says for its
 *   rank count and size, on the workers tutti_workers_choose gives (the
 *   JSON's workers: 0 for threads);
 * - ranks that wait for each other outside tutti calls finish when they
 *   yield (tutti_rank_yield), as threads and as fibers of one worker;
 * - modeled times do not depend on the way: a few algorithms' modeled
 *   time and every rank's last call's end are the same text (the
 *   shortest that reads back as the same double) whether the ranks run
 *   the default way, as threads or as fibers.
 * TUTTI_TSAN_TEST
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"
#include "json_reader.h"

#ifdef __SANITIZE_THREAD__
#define BIG 8 /* thread starts make most of the time under TSan */
#else
#define BIG 16
#endif

static void clean_env(void) {
  unsetenv("TUTTI_RANKS_AS");
  unsetenv("TUTTI_WORKERS");
}

static int workers_of(const tutti_config_t *c) {
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, c), 0));
  int k = tutti_world_workers(w);
  tutti_world_destroy(w);
  return k;
}

Test(ranks_as, a_default_world_runs_as_tutti_chooses, .init = clean_env, .timeout = 60) {
  for (int P = 1; P <= 64; P *= 4) {
    tutti_config_t c = tutti_config_default(P);
    int want = tutti_ranks_as_choose(P, 0, 0);
    cr_assert(eq(int, workers_of(&c) > 0, want == TUTTI_RANKS_AS_FIBERS), "P=%d", P);
    /* a paced rank sleeps: threads, whatever the choice */
    tutti_model_t m;
    tutti_model_hockney(&m, 1e-6, 1e-9);
    c.model = &m, c.flags = TUTTI_WALLCLOCK;
    cr_assert(eq(int, workers_of(&c), 0), "P=%d paced", P);
    /* the variable still decides */
    c = tutti_config_default(P);
    setenv("TUTTI_RANKS_AS", "threads", 1);
    cr_assert(eq(int, workers_of(&c), 0));
    setenv("TUTTI_RANKS_AS", "fibers", 1);
    cr_assert(gt(int, workers_of(&c), 0));
    unsetenv("TUTTI_RANKS_AS");
  }
}

/* One modeled run through the command: its JSON (freed by the caller). */
static struct cli modeled(const char *coll, const char *algo, const char *P, const char *bytes,
                          const char *env, const char *ranks_as) {
  const char *model = "hockney:alpha=1us,beta=1ns";
  const char *args[16] = {"run", coll, algo, "-n", P, "--model", model, "--json"};
  int n = 8;
  if (bytes) args[n++] = "-m", args[n++] = bytes; /* none for the barrier */
  if (ranks_as) args[n++] = "--ranks-as", args[n++] = ranks_as;
  args[n] = NULL;
  struct cli c = run_env(env, args);
  cr_assert(eq(int, c.status, 0), "%s %s -n %s -m %s: exit %d: %s", coll, algo, P,
            bytes ? bytes : "-", c.status, c.err);
  return c;
}

/* The value of key in the JSON, as text up to the next comma or brace. */
static char *text_of(const struct jp *p, const char *key) {
  const char *v = json_get(p, key);
  size_t n = 0;
  for (int depth = 0; v[n] && (depth || (v[n] != ',' && v[n] != '}')); n++)
    depth += v[n] == '[' ? 1 : v[n] == ']' ? -1 : 0;
  return strndup(v, n);
}

Test(ranks_as, run_chooses_by_size_and_modeled_times_do_not_depend_on_it, .init = clean_env,
     .timeout = 600) {
  const struct {
    const char *coll, *algo;
  } algos[] = {{"bcast", "binomial"},
               {"allreduce", "reduce-bcast"},
               {"reduce", "lambda-tree"},
               {"barrier", "dissemination"}};
  const char *sizes[] = {"8", "1MiB"};
  char P[16];
  snprintf(P, sizeof P, "%d", BIG);
  int compared = 0;
  for (size_t a = 0; a < sizeof algos / sizeof *algos; a++)
    for (int s = 0; s < 2; s++) {
      int data = strcmp(algos[a].coll, "barrier") != 0;
      if (!data && s) continue;
      size_t bytes = data && s ? (size_t)1 << 20 : data ? 8 : 0;
      int chosen = tutti_ranks_as_choose(BIG, bytes, 0);
      char *mt[3] = {0}, *ends[3] = {0};
      for (int k = 0; k < 3; k++) {
        const char *as = k == 0 ? NULL : k == 1 ? "threads" : "fibers";
        struct cli c = modeled(algos[a].coll, algos[a].algo, P, data ? sizes[s] : NULL, NULL, as);
        struct jp p = json_parse(c.out);
        int threads = json_num(&p, "workers") == 0;
        if (k == 0) {
          cr_assert(eq(int, threads, chosen == TUTTI_RANKS_AS_THREADS), "%s %s at %s: default",
                    algos[a].coll, sizes[s], P);
          if (!threads) /* and on the workers tutti chooses for the size */
            cr_assert(eq(int, (int)json_num(&p, "workers"), tutti_workers_choose(BIG, bytes, 0)),
                      "%s %s at %s: workers", algos[a].coll, sizes[s], P);
        } else
          cr_assert(eq(int, threads, k == 1));
        mt[k] = text_of(&p, "modeled_time");
        ends[k] = text_of(&p, "per_rank");
        cli_free(&c);
      }
      for (int k = 1; k < 3; k++) {
        cr_assert(eq(str, mt[k], mt[0]), "%s %s: modeled %s, default %s", algos[a].coll, sizes[s],
                  mt[k], mt[0]);
        cr_assert(eq(str, ends[k], ends[0]), "%s %s: rank ends differ", algos[a].coll, sizes[s]);
      }
      for (int k = 0; k < 3; k++) free(mt[k]), free(ends[k]);
      compared++;
    }
  cr_assert(eq(int, compared, 7));
  /* the variable decides over the choice */
  struct cli c = modeled("bcast", "binomial", P, "8", "TUTTI_RANKS_AS=threads", NULL);
  struct jp p = json_parse(c.out);
  cr_assert(eq(dbl, json_num(&p, "workers"), 0));
  cli_free(&c);
}

/* tutti_rank_yield: ranks that wait for each other outside tutti calls
 * (here a flag each rank raises in turn) finish when they yield while
 * they wait, fibers of one worker included (each rank a thread too);
 * NULL is refused. */
struct relay {
  int turn; /* the rank whose turn it is (atomically) */
  int refused;
};

static int relay_fn(tutti_rank_t *r, void *arg) {
  struct relay *x = arg;
  int me = tutti_rank(r), P = tutti_size(r);
  for (int lap = 0; lap < 3; lap++) {
    while (__atomic_load_n(&x->turn, __ATOMIC_ACQUIRE) != lap * P + me)
      if (tutti_rank_yield(r)) return 1;
    __atomic_store_n(&x->turn, lap * P + me + 1, __ATOMIC_RELEASE);
  }
  if (me == 0 && tutti_rank_yield(NULL) == TUTTI_EINVAL)
    __atomic_add_fetch(&x->refused, 1, __ATOMIC_RELAXED);
  return 0;
}

Test(ranks_as, a_rank_that_waits_outside_calls_yields, .init = clean_env, .timeout = 60) {
  for (int as = TUTTI_RANKS_AS_DEFAULT; as <= TUTTI_RANKS_AS_FIBERS; as++) {
    tutti_config_t c = tutti_config_default(6);
    c.ranks_as = as;
    tutti_world_t *w;
    cr_assert(eq(int, tutti_world_create(&w, &c), 0));
    struct relay x = {0, 0};
    cr_assert(eq(int, tutti_world_run(w, relay_fn, &x), 0), "%s", tutti_world_error(w));
    cr_assert(eq(int, x.turn, 18));
    cr_assert(eq(int, x.refused, 1));
    tutti_world_destroy(w);
  }
  /* not from a rank, nor for one */
  cr_assert(eq(int, tutti_rank_yield(NULL), TUTTI_EINVAL));
}

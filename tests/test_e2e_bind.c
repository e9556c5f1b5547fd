/*
 * test_e2e_bind.c -- where rank threads and fiber workers run
 * (tutti_config_t.bind, $TUTTI_BIND; include/tutti/tutti.h): by default
 * each pinned to a CPU of its own when there are no more of them than the
 * CPUs the process may use, unpinned otherwise; "cores" pins round robin
 * whatever the count; "none" never pins; anything else is refused. Each
 * rank reads its own thread's affinity from inside the run.
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <sched.h>
#include <stdlib.h>

#include "tutti/tutti.h"

#include "cli_helpers.h"

#define MAXR 64

static cpu_set_t seen[MAXR];

static int where(tutti_rank_t *r, void *arg) {
  (void)arg;
  return sched_getaffinity(0, sizeof seen[0], &seen[tutti_rank(r)]) ? TUTTI_EINVAL : 0;
}

/* The CPUs this process may use, in order. */
static int allowed(int *cpu, cpu_set_t *all) {
  cr_assert(eq(int, sched_getaffinity(0, sizeof *all, all), 0));
  int n = 0;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, all)) cpu[n++] = c;
  return n;
}

static void run(int P, int bind, int ranks_as, int workers) {
  tutti_config_t c = tutti_config_default(P);
  c.bind = bind, c.ranks_as = ranks_as, c.workers = workers;
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  memset(seen, 0, sizeof seen);
  cr_assert(eq(int, tutti_world_run(w, where, NULL), 0), "%s", tutti_world_error(w));
  tutti_world_destroy(w);
}

static void expect_on(int rank, int cpu) {
  cr_expect(eq(int, CPU_COUNT(&seen[rank]), 1), "rank %d may run on %d CPUs, want 1", rank,
            CPU_COUNT(&seen[rank]));
  int on = CPU_ISSET(cpu, &seen[rank]) != 0;
  cr_expect(eq(int, on, 1), "rank %d is not on CPU %d", rank, cpu);
}

static void expect_free(int rank, const cpu_set_t *all) {
  int same = CPU_EQUAL(&seen[rank], all) != 0;
  cr_expect(eq(int, same, 1), "rank %d is pinned (%d CPUs, the process has %d)", rank,
            CPU_COUNT(&seen[rank]), CPU_COUNT(all));
}

Test(bind, each_rank_on_a_cpu_of_its_own_when_they_fit, .timeout = 30) {
  int cpu[CPU_SETSIZE];
  cpu_set_t all;
  int n = allowed(cpu, &all), P = n < MAXR ? n : MAXR;
  run(P, TUTTI_BIND_DEFAULT, TUTTI_RANKS_AS_THREADS, 0);
  for (int i = 0; i < P; i++)
    if (P >= 2)
      expect_on(i, cpu[i]);
    else
      expect_free(i, &all);
}

/* A lone rank has no peer to share a core with: pinned, every one-rank
 * world of concurrent programs would pile onto the first CPU. */
Test(bind, a_lone_rank_stays_unpinned, .timeout = 30) {
  int cpu[CPU_SETSIZE];
  cpu_set_t all;
  allowed(cpu, &all);
  run(1, TUTTI_BIND_DEFAULT, TUTTI_RANKS_AS_THREADS, 0);
  expect_free(0, &all);
  run(5, TUTTI_BIND_DEFAULT, TUTTI_RANKS_AS_FIBERS, 1);
  for (int i = 0; i < 5; i++) expect_free(i, &all);
}

Test(bind, more_ranks_than_cpus_stay_unpinned, .timeout = 30) {
  int cpu[CPU_SETSIZE];
  cpu_set_t all;
  int n = allowed(cpu, &all);
  cr_assert(lt(int, n, MAXR), "this test needs fewer than %d CPUs", MAXR);
  run(n + 1, TUTTI_BIND_DEFAULT, TUTTI_RANKS_AS_THREADS, 0);
  for (int i = 0; i <= n; i++) expect_free(i, &all);
}

Test(bind, cores_pins_round_robin_past_the_cpus, .timeout = 30) {
  int cpu[CPU_SETSIZE];
  cpu_set_t all;
  int n = allowed(cpu, &all), P = 2 * n + 1 < MAXR ? 2 * n + 1 : MAXR;
  run(P, TUTTI_BIND_CORES, TUTTI_RANKS_AS_THREADS, 0);
  for (int i = 0; i < P; i++) expect_on(i, cpu[i % n]);
}

Test(bind, none_never_pins, .timeout = 30) {
  int cpu[CPU_SETSIZE];
  cpu_set_t all;
  allowed(cpu, &all);
  run(1, TUTTI_BIND_NONE, TUTTI_RANKS_AS_THREADS, 0);
  expect_free(0, &all);
}

/* Each fiber runs on its worker's thread: worker j holds ranks
 * [P j / W, P (j+1) / W) (fiber.c) and is pinned to the j-th CPU. */
Test(bind, fiber_workers_pinned_when_they_fit, .timeout = 30) {
  int cpu[CPU_SETSIZE];
  cpu_set_t all;
  int n = allowed(cpu, &all), W = n < 4 ? n : 4, P = 3 * W;
  run(P, TUTTI_BIND_DEFAULT, TUTTI_RANKS_AS_FIBERS, W);
  for (int i = 0; i < P; i++)
    if (W >= 2)
      expect_on(i, cpu[i * W / P]);
    else
      expect_free(i, &all);
  run(P, TUTTI_BIND_NONE, TUTTI_RANKS_AS_FIBERS, W);
  for (int i = 0; i < P; i++) expect_free(i, &all);
}

Test(bind, the_environment_decides_the_default, .timeout = 30) {
  int cpu[CPU_SETSIZE];
  cpu_set_t all;
  allowed(cpu, &all);
  setenv("TUTTI_BIND", "none", 1);
  run(1, TUTTI_BIND_DEFAULT, TUTTI_RANKS_AS_THREADS, 0);
  expect_free(0, &all);
  setenv("TUTTI_BIND", "cores", 1);
  run(1, TUTTI_BIND_DEFAULT, TUTTI_RANKS_AS_THREADS, 0);
  expect_on(0, cpu[0]);
  /* the config's own choice wins over the variable */
  run(1, TUTTI_BIND_NONE, TUTTI_RANKS_AS_THREADS, 0);
  expect_free(0, &all);
  unsetenv("TUTTI_BIND");
}

Test(bind, bad_values_are_refused, .timeout = 30) {
  tutti_world_t *w = NULL;
  tutti_config_t c = tutti_config_default(2);
  c.bind = 7;
  cr_expect(eq(int, tutti_world_create(&w, &c), TUTTI_EINVAL));
  cr_expect(eq(ptr, w, NULL));
  c.bind = TUTTI_BIND_DEFAULT;
  setenv("TUTTI_BIND", "sockets", 1);
  cr_expect(eq(int, tutti_world_create(&w, &c), TUTTI_EINVAL));
  unsetenv("TUTTI_BIND");
}

/* The command: --bind's values, and $TUTTI_BIND named when it is wrong. */
Test(bind, the_command_names_a_bad_placement, .timeout = 60) {
  struct cli c = CLI("run", "barrier", "dissemination", "-n", "2", "--bind", "none");
  cr_expect(eq(int, c.status, 0), "%s", c.err);
  cli_free(&c);
  c = CLI_ENV("TUTTI_BIND=cores", "run", "barrier", "dissemination", "-n", "3");
  cr_expect(eq(int, c.status, 0), "%s", c.err);
  cli_free(&c);
  fails_with(CLI("run", "barrier", "flat", "--bind", "sockets"), 2,
             "--bind: 'sockets' is not a placement; accepted: cores, none");
  fails_with(CLI("suite", "--bind"), 2, "--bind: missing value");
  fails_with(CLI_ENV("TUTTI_BIND=numa", "sweep", "bcast"), 2,
             "TUTTI_BIND='numa' is not a placement; accepted: cores, none");
  /* the option decides, so the variable is not read */
  c = CLI_ENV("TUTTI_BIND=numa", "run", "barrier", "flat", "-n", "2", "--bind", "cores");
  cr_expect(eq(int, c.status, 0), "%s", c.err);
  cli_free(&c);
}

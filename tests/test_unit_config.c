/*
 * test_unit_config.c -- tutti_config_check (include/tutti/tutti.h): a good
 * config passes with an empty reason; each bad field and each bad value of
 * a variable a world reads fails with the code tutti_world_create returns
 * and one line naming the field or variable and what it accepts; a field
 * the config sets hides its variable; err may be NULL or short. And the
 * values it accepts are those a world then runs with (tutti__settings_of,
 * the reader both share: runtime/config.c). And how ranks run when nothing
 * names a way (tutti_ranks_as_choose, tutti_workers_choose): a function of
 * the ranks, the bytes and the CPUs alone, by world.h's rule.
 *
 * Each Test runs in a process of its own (Criterion, and nocriterion under
 * TSan, fork per test), so setenv here never reaches another test; each
 * starts from an environment without the variables (clean_env).
 */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h" /* tutti__settings_of: what a world is made of */
#include "tutti/tutti.h"

static const char *const vars[] = {"TUTTI_RANKS_AS", "TUTTI_BIND", "TUTTI_WORKERS", "TUTTI_STACK",
                                   "TUTTI_PERTURB"};

static void clean_env(void) {
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) unsetenv(vars[i]);
}

/* cfg fails with `code` and exactly the reason `want`, and a world is
 * refused with the same code. */
static void refused(const tutti_config_t *cfg, int code, const char *want) {
  char err[512];
  memset(err, 'x', sizeof err);
  cr_assert(eq(int, tutti_config_check(cfg, err, sizeof err), code), "%s", err);
  cr_expect(eq(str, err, (char *)want));
  tutti_world_t *w = (tutti_world_t *)1;
  cr_expect(eq(int, tutti_world_create(&w, cfg), code), "world: %s", want);
  cr_expect(eq(ptr, w, NULL));
}

/* cfg passes with "" in err, and a world can be made of it. */
static void accepted(const tutti_config_t *cfg) {
  char err[256];
  memset(err, 'x', sizeof err);
  cr_assert(eq(int, tutti_config_check(cfg, err, sizeof err), 0), "%s", err);
  cr_expect(eq(str, err, ""));
  tutti_world_t *w = NULL;
  cr_expect(eq(int, tutti_world_create(&w, cfg), 0));
  tutti_world_destroy(w);
}

Test(config, a_good_config_passes_with_an_empty_reason, .init = clean_env, .timeout = 30) {
  tutti_config_t c = tutti_config_default(4);
  accepted(&c);
  c.ranks_as = TUTTI_RANKS_AS_FIBERS, c.workers = 2, c.bind = TUTTI_BIND_NONE;
  c.stack_size = 64 << 10, c.time_scale = 0.5;
  accepted(&c);
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  c = tutti_config_default(4);
  c.model = &m;
  accepted(&c);
  /* the variables at good values, and empty ones (unset) */
  setenv("TUTTI_RANKS_AS", "fibers", 1);
  setenv("TUTTI_BIND", "none", 1);
  setenv("TUTTI_WORKERS", "2", 1);
  setenv("TUTTI_STACK", "256K", 1);
  setenv("TUTTI_PERTURB", "7", 1);
  accepted(&c);
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) setenv(vars[i], "", 1);
  accepted(&c);
}

/* ------------------------------------------------------ the variables */

struct bad_env {
  const char *var, *value, *want;
};

Test(config, each_bad_variable_is_named_with_what_it_accepts, .init = clean_env, .timeout = 30) {
  char stack_msg[256];
  snprintf(stack_msg, sizeof stack_msg,
           "accepted: bytes with an optional K or M suffix, from %zu to %zu (1024M): 256K, 1M",
           (size_t)PTHREAD_STACK_MIN, TUTTI_MAX_STACK);
  const struct bad_env cases[] = {
      {"TUTTI_RANKS_AS", "fibres",
       "TUTTI_RANKS_AS='fibres' is not a kind; accepted: threads, fibers"},
      {"TUTTI_RANKS_AS", "Fibers",
       "TUTTI_RANKS_AS='Fibers' is not a kind; accepted: threads, fibers"},
      {"TUTTI_BIND", "numa", "TUTTI_BIND='numa' is not a placement; accepted: cores, none"},
      {"TUTTI_BIND", "cores ", "TUTTI_BIND='cores ' is not a placement; accepted: cores, none"},
      {"TUTTI_WORKERS", "two", "TUTTI_WORKERS='two' is not a worker count; accepted: 1 to 1048576"},
      {"TUTTI_WORKERS", "0", "TUTTI_WORKERS='0' is not a worker count; accepted: 1 to 1048576"},
      {"TUTTI_WORKERS", "1048577",
       "TUTTI_WORKERS='1048577' is not a worker count; accepted: 1 to 1048576"},
      {"TUTTI_WORKERS", "-3", "TUTTI_WORKERS='-3' is not a worker count; accepted: 1 to 1048576"},
      {"TUTTI_PERTURB", "often",
       "TUTTI_PERTURB='often' is not a seed; accepted: a decimal number from 0 (off) to "
       "4294967295"},
      {"TUTTI_PERTURB", "-1",
       "TUTTI_PERTURB='-1' is not a seed; accepted: a decimal number from 0 (off) to 4294967295"},
      {"TUTTI_PERTURB", "4294967296",
       "TUTTI_PERTURB='4294967296' is not a seed; accepted: a decimal number from 0 (off) to "
       "4294967295"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    clean_env();
    setenv(cases[i].var, cases[i].value, 1);
    tutti_config_t c = tutti_config_default(2);
    refused(&c, TUTTI_EINVAL, cases[i].want);
  }
  /* TUTTI_STACK: malformed, a unit it does not know, too small, too large
   * (past TUTTI_MAX_STACK by a byte, by a KiB, near 2^64, past 2^64) */
  const char *stacks[] = {"big",
                          "1G",
                          "256KiB",
                          "-64K",
                          " 64K",
                          "100",
                          "15K",
                          "1025M",
                          "1073741825",
                          "18014398509481983K",
                          "18446744073709551615",
                          "99999999999999999999K"};
  for (size_t i = 0; i < sizeof stacks / sizeof *stacks; i++) {
    clean_env();
    setenv("TUTTI_STACK", stacks[i], 1);
    char want[512];
    snprintf(want, sizeof want, "TUTTI_STACK='%s' is not a stack size; %s", stacks[i], stack_msg);
    tutti_config_t c = tutti_config_default(2);
    refused(&c, TUTTI_EINVAL, want);
  }
}

/* ----------------------------------------------------- the config's fields */

Test(config, each_bad_field_is_named_with_what_it_accepts, .init = clean_env, .timeout = 30) {
  tutti_config_t c = tutti_config_default(0);
  refused(&c, TUTTI_ERANK, "config.nranks 0 is out of range; accepted: 1 to 1048576");
  c.nranks = (1 << 20) + 1;
  refused(&c, TUTTI_ERANK, "config.nranks 1048577 is out of range; accepted: 1 to 1048576");

  char want[256];
  c = tutti_config_default(2);
  c.stack_size = 100;
  snprintf(want, sizeof want, "config.stack_size 100 is below the minimum %zu",
           (size_t)PTHREAD_STACK_MIN);
  refused(&c, TUTTI_EINVAL, want);
  /* above the limit, up to SIZE_MAX (a fiber world's slots would wrap) */
  const size_t big[] = {TUTTI_MAX_STACK + 1, SIZE_MAX - 4095, SIZE_MAX};
  for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
    c = tutti_config_default(2);
    c.stack_size = big[i];
    snprintf(want, sizeof want, "config.stack_size %zu is above the maximum 1073741824 (1 GiB)",
             big[i]);
    refused(&c, TUTTI_EINVAL, want);
  }
  c = tutti_config_default(2);
  c.stack_size = TUTTI_MAX_STACK; /* the limit itself is accepted */
  cr_expect(eq(int, tutti_config_check(&c, NULL, 0), 0));

  c = tutti_config_default(2);
  c.ranks_as = 7;
  refused(&c, TUTTI_EINVAL,
          "config.ranks_as 7 is not a kind; accepted: TUTTI_RANKS_AS_DEFAULT, "
          "TUTTI_RANKS_AS_THREADS, TUTTI_RANKS_AS_FIBERS");
  c = tutti_config_default(2);
  c.bind = -1;
  refused(&c, TUTTI_EINVAL,
          "config.bind -1 is not a placement; accepted: TUTTI_BIND_DEFAULT, TUTTI_BIND_NONE, "
          "TUTTI_BIND_CORES");
  c = tutti_config_default(2);
  c.workers = -2;
  refused(&c, TUTTI_EINVAL,
          "config.workers -2 is negative; accepted: 0 (automatic) or a worker count");
  c = tutti_config_default(2);
  c.time_scale = NAN;
  refused(&c, TUTTI_EINVAL,
          "config.time_scale nan is out of range; accepted: 0 (one wall second per modeled "
          "second) or a number > 0 and at most 1e+09");
  /* infinite or beyond the limit: a paced run would never end */
  c.flags = TUTTI_WALLCLOCK, c.ranks_as = TUTTI_RANKS_AS_THREADS;
  c.time_scale = INFINITY;
  refused(&c, TUTTI_EINVAL,
          "config.time_scale inf is out of range; accepted: 0 (one wall second per modeled "
          "second) or a number > 0 and at most 1e+09");
  c.time_scale = 1.5e9;
  refused(&c, TUTTI_EINVAL,
          "config.time_scale 1.5e+09 is out of range; accepted: 0 (one wall second per modeled "
          "second) or a number > 0 and at most 1e+09");
  c.time_scale = -1;
  refused(&c, TUTTI_EINVAL,
          "config.time_scale -1 is out of range; accepted: 0 (one wall second per modeled "
          "second) or a number > 0 and at most 1e+09");
  c.time_scale = TUTTI_TIME_SCALE_MAX;
  accepted(&c);
  c = tutti_config_default(2);
  c.ranks_as = TUTTI_RANKS_AS_FIBERS, c.flags = TUTTI_WALLCLOCK;
  refused(&c, TUTTI_ENOTSUP,
          "config.flags TUTTI_WALLCLOCK with ranks as fibers: a paced rank sleeps and would hold "
          "its worker's other ranks; accepted: TUTTI_WALLCLOCK with threads");
  /* fibers chosen by the variable: the same */
  c.ranks_as = TUTTI_RANKS_AS_DEFAULT;
  setenv("TUTTI_RANKS_AS", "fibers", 1);
  cr_expect(eq(int, tutti_config_check(&c, NULL, 0), TUTTI_ENOTSUP));
}

Test(config, a_bad_model_is_named_by_its_field, .init = clean_env, .timeout = 30) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  tutti_config_t c = tutti_config_default(2);
  c.model = &m;
  m.preset = 42;
  refused(&c, TUTTI_EINVAL,
          "config.model->preset 42 is not a preset; accepted: TUTTI_MODEL_NONE to "
          "TUTTI_MODEL_CUSTOM");
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  m.latency.b = -1;
  refused(&c, TUTTI_EINVAL,
          "config.model->latency.b (floor 0, a 1e-06, b -1) is out of range; accepted: floor "
          "and a from 0 to 1e+06 s, b from 0 to 1e+06 s/B");
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  m.gamma = -0.5;
  refused(&c, TUTTI_EINVAL,
          "config.model->gamma -0.5 is out of range; accepted: a cost per byte from 0 to 1e+06 "
          "s/B");
  /* beyond units.h's limits, refused here rather than by the replay */
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  m.latency.b = 1e300;
  refused(&c, TUTTI_EINVAL,
          "config.model->latency.b (floor 0, a 1e-06, b 1e+300) is out of range; accepted: floor "
          "and a from 0 to 1e+06 s, b from 0 to 1e+06 s/B");
  m.latency.b = TUTTI_PER_BYTE_MAX;
  accepted(&c);
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  m.recv_cpu.floor = 2e6;
  refused(&c, TUTTI_EINVAL,
          "config.model->recv_cpu.floor (floor 2e+06, a 0, b 0) is out of range; accepted: floor "
          "and a from 0 to 1e+06 s, b from 0 to 1e+06 s/B");
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  m.send_port.a = NAN;
  refused(&c, TUTTI_EINVAL,
          "config.model->send_port.a (floor 0, a nan, b 1e-09) is out of range; accepted: floor "
          "and a from 0 to 1e+06 s, b from 0 to 1e+06 s/B");
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  m.gamma = INFINITY;
  refused(&c, TUTTI_EINVAL,
          "config.model->gamma inf is out of range; accepted: a cost per byte from 0 to 1e+06 "
          "s/B");
  m.gamma = TUTTI_PER_BYTE_MAX;
  accepted(&c);
  /* a topology not bound, then bound to other ranks */
  cr_assert(eq(int, tutti_model_hockney(&m, 1e-6, 1e-9), 0));
  tutti_topo_t *t = NULL;
  char err[256] = "";
  cr_assert(eq(int, tutti_topo_from_spec("tree:4", NULL, &t, err, sizeof err), 0), "%s", err);
  m.topo = t;
  refused(&c, TUTTI_EINVAL,
          "config.model->topo is not bound, config.nranks is 2; accepted: a topology bound to "
          "the world's ranks (tutti_topo_bind)");
  cr_assert(eq(int, tutti_topo_bind_text(t, 3, NULL, TUTTI_TOPO_PARTIAL, err, sizeof err), 0), "%s",
            err);
  refused(&c, TUTTI_EINVAL,
          "config.model->topo is bound to 3 ranks, config.nranks is 2; accepted: a topology "
          "bound to the world's ranks (tutti_topo_bind)");
  c.nranks = 3;
  accepted(&c);
  tutti_topo_free(t);
}

/* -------------------------------------------------------- err itself */

Test(config, err_may_be_null_or_short, .init = clean_env, .timeout = 30) {
  tutti_config_t c = tutti_config_default(2);
  cr_expect(eq(int, tutti_config_check(&c, NULL, 0), 0));
  cr_expect(eq(int, tutti_config_check(NULL, NULL, 0), TUTTI_EINVAL));
  char err[16];
  cr_expect(eq(int, tutti_config_check(NULL, err, sizeof err), TUTTI_EINVAL));
  cr_expect(eq(str, err, "no config (NULL"), "cut at errlen - 1");
  setenv("TUTTI_BIND", "numa", 1);
  cr_expect(eq(int, tutti_config_check(&c, NULL, 0), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_config_check(&c, NULL, 100), TUTTI_EINVAL));
  memset(err, 'x', sizeof err);
  cr_expect(eq(int, tutti_config_check(&c, err, 0), TUTTI_EINVAL));
  cr_expect(eq(chr, err[0], 'x'), "errlen 0: nothing written");
  cr_expect(eq(int, tutti_config_check(&c, err, 1), TUTTI_EINVAL));
  cr_expect(eq(chr, err[0], '\0'));
  cr_expect(eq(chr, err[1], 'x'), "errlen 1: only the terminator");
  cr_expect(eq(int, tutti_config_check(&c, err, 11), TUTTI_EINVAL));
  cr_expect(eq(str, err, "TUTTI_BIND"));
}

/* ----------------------------------------------------------- precedence */

/* A field the config sets is the choice: its variable is not read, not
 * even to be refused. TUTTI_PERTURB, a switch of its own, is read always. */
Test(config, a_field_set_hides_its_variable, .init = clean_env, .timeout = 30) {
  tutti_config_t c = tutti_config_default(2);
  setenv("TUTTI_RANKS_AS", "fibres", 1);
  c.ranks_as = TUTTI_RANKS_AS_THREADS;
  accepted(&c);
  unsetenv("TUTTI_RANKS_AS");
  setenv("TUTTI_BIND", "numa", 1);
  c.bind = TUTTI_BIND_NONE;
  accepted(&c);
  unsetenv("TUTTI_BIND");
  setenv("TUTTI_WORKERS", "two", 1);
  c.workers = 1;
  accepted(&c);
  unsetenv("TUTTI_WORKERS");
  setenv("TUTTI_STACK", "tiny", 1);
  c.stack_size = 64 << 10;
  accepted(&c);
  unsetenv("TUTTI_STACK");
  setenv("TUTTI_PERTURB", "often", 1);
  c.flags = TUTTI_PERTURB, c.seed = 3;
  cr_expect(eq(int, tutti_config_check(&c, NULL, 0), TUTTI_EINVAL));
}

/* What a world is made of: the config's field where set, else the
 * variable's value as read for the check, else the default. */
Test(config, a_world_runs_with_what_the_check_read, .init = clean_env, .timeout = 30) {
  tutti_config_t c = tutti_config_default(2);
  c.seed = 5;
  struct tutti__settings s;
  cr_assert(eq(int, tutti__settings_of(&c, &s, NULL, 0), 0));
  cr_expect(eq(int, s.fibers, tutti_ranks_as_choose(2, 0, 0) == TUTTI_RANKS_AS_FIBERS));
  cr_expect(eq(int, s.bind, TUTTI_BIND_DEFAULT));
  cr_expect(eq(int, s.workers, 0));
  cr_expect(eq(int, s.perturb, 0));
  cr_expect(eq(u32, s.seed, 5));
  cr_expect(s.stack_size >= ((size_t)(s.fibers ? 32 : 128) << 10), "the default: %zu",
            s.stack_size);

  setenv("TUTTI_RANKS_AS", "fibers", 1);
  setenv("TUTTI_BIND", "cores", 1);
  setenv("TUTTI_WORKERS", "3", 1);
  setenv("TUTTI_STACK", "1m", 1);
  setenv("TUTTI_PERTURB", "77", 1);
  cr_assert(eq(int, tutti__settings_of(&c, &s, NULL, 0), 0));
  cr_expect(eq(int, s.fibers, 1));
  cr_expect(eq(int, s.bind, TUTTI_BIND_CORES));
  cr_expect(eq(int, s.workers, 3));
  cr_expect(eq(sz, s.stack_size, (size_t)1 << 20));
  cr_expect(eq(int, s.perturb, 1));
  cr_expect(eq(u32, s.seed, 77));
  tutti_world_t *w;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  cr_expect(eq(int, tutti_world_workers(w), 2), "3 workers, at most one per rank");
  cr_expect(eq(u32, w->flags & TUTTI_PERTURB, TUTTI_PERTURB));
  cr_expect(eq(u32, w->seed, 77));
  cr_expect(eq(sz, w->stack_size, (size_t)1 << 20));
  tutti_world_destroy(w);

  /* the config's fields win */
  c.ranks_as = TUTTI_RANKS_AS_THREADS, c.bind = TUTTI_BIND_NONE, c.workers = 1;
  c.stack_size = 64 << 10;
  cr_assert(eq(int, tutti__settings_of(&c, &s, NULL, 0), 0));
  cr_expect(eq(int, s.fibers, 0));
  cr_expect(eq(int, s.bind, TUTTI_BIND_NONE));
  cr_expect(eq(int, s.workers, 1));
  cr_expect(eq(sz, s.stack_size, (size_t)64 << 10));
  /* 0 and "": the defaults */
  setenv("TUTTI_STACK", "0", 1);
  setenv("TUTTI_PERTURB", "0", 1);
  setenv("TUTTI_RANKS_AS", "", 1);
  c = tutti_config_default(2);
  c.ranks_as = TUTTI_RANKS_AS_THREADS;
  cr_assert(eq(int, tutti__settings_of(&c, &s, NULL, 0), 0));
  cr_expect(eq(int, s.fibers, 0));
  cr_expect(eq(int, s.perturb, 0));
  cr_expect(s.stack_size >= ((size_t)128 << 10), "the thread default: %zu", s.stack_size);
}

/* ------------------------------------------------------- tutti's choice */

static const int Ps[] = {1, 2, 3, 4, 7, 8, 9, 16, 31, 32, 64, 1024, 1025, 4096, 1 << 20};
static const size_t Ms[] = {0, 8, 64 << 10, (1 << 20) - 1, 1 << 20, (size_t)1 << 30, SIZE_MAX};
static const int Cpus[] = {1, 2, 3, 8, 64, 1024};
#define N(a) (sizeof(a) / sizeof *(a))

/* The way ranks run by default is a function of (ranks, bytes, CPUs)
 * alone: asked again, or with the variables a world reads set, it says
 * the same; it never depends on this machine when ncpu is given, and
 * ncpu <= 0 means this process's CPUs. */
Test(ranks_as, the_choice_depends_on_ranks_bytes_and_cpus_only, .init = clean_env, .timeout = 30) {
  int first[N(Ps)][N(Ms)][N(Cpus)], firstw[N(Ps)][N(Ms)][N(Cpus)];
  for (int pass = 0; pass < 2; pass++) {
    if (pass) {
      setenv("TUTTI_RANKS_AS", "threads", 1);
      setenv("TUTTI_WORKERS", "3", 1);
    }
    for (size_t p = 0; p < N(Ps); p++)
      for (size_t m = 0; m < N(Ms); m++)
        for (size_t c = 0; c < N(Cpus); c++) {
          int a = tutti_ranks_as_choose(Ps[p], Ms[m], Cpus[c]);
          cr_assert(a == TUTTI_RANKS_AS_THREADS || a == TUTTI_RANKS_AS_FIBERS, "%d", a);
          int k = tutti_workers_choose(Ps[p], Ms[m], Cpus[c]);
          if (!pass) first[p][m][c] = a, firstw[p][m][c] = k;
          cr_assert(eq(int, a, first[p][m][c]), "P=%d m=%zu ncpu=%d changed", Ps[p], Ms[m],
                    Cpus[c]);
          cr_assert(eq(int, k, firstw[p][m][c]), "P=%d m=%zu ncpu=%d: workers changed", Ps[p],
                    Ms[m], Cpus[c]);
        }
  }
  int here = tutti__cpus();
  cr_assert(ge(int, here, 1));
  for (size_t p = 0; p < N(Ps); p++)
    for (size_t m = 0; m < N(Ms); m++) {
      cr_expect(eq(int, tutti_ranks_as_choose(Ps[p], Ms[m], 0),
                   tutti_ranks_as_choose(Ps[p], Ms[m], here)));
      cr_expect(eq(int, tutti_ranks_as_choose(Ps[p], Ms[m], -1),
                   tutti_ranks_as_choose(Ps[p], Ms[m], here)));
      cr_expect(
          eq(int, tutti_workers_choose(Ps[p], Ms[m], 0), tutti_workers_choose(Ps[p], Ms[m], here)));
    }
}

/* What world.h promises: fibers at every size; one worker per 1024 ranks,
 * but one per CPU for calls of 1 MiB or more on 16 ranks or more; never
 * more workers than ranks or CPUs, never fewer than one; more bytes never
 * fewer workers. A world that knows no sizes runs the choice for 0 bytes. */
Test(ranks_as, the_choice_follows_its_documented_rule, .init = clean_env, .timeout = 30) {
  for (size_t p = 0; p < N(Ps); p++)
    for (size_t c = 0; c < N(Cpus); c++) {
      int P = Ps[p], ncpu = Cpus[c], last = 0;
      for (size_t m = 0; m < N(Ms); m++) {
        cr_expect(eq(int, tutti_ranks_as_choose(P, Ms[m], ncpu), TUTTI_RANKS_AS_FIBERS));
        int k = tutti_workers_choose(P, Ms[m], ncpu), want = (P + 1023) / 1024;
        if (Ms[m] >= (1 << 20) && P >= 16) want = ncpu;
        want = want < ncpu ? want : ncpu;
        want = want < P ? want : P;
        cr_expect(eq(int, k, want), "P=%d m=%zu ncpu=%d", P, Ms[m], ncpu);
        cr_expect(ge(int, k, last), "P=%d m=%zu ncpu=%d: fewer workers for more bytes", P, Ms[m],
                  ncpu);
        last = k;
      }
    }
  cr_expect(eq(int, tutti_workers_choose(16, 1 << 20, 2), 2));
  cr_expect(eq(int, tutti_workers_choose(15, 1 << 20, 2), 1));
  cr_expect(eq(int, tutti_workers_choose(16, (1 << 20) - 1, 2), 1));
  cr_expect(eq(int, tutti_workers_choose(4096, 8, 2), 2));
  cr_expect(eq(int, tutti_workers_choose(4096, 8, 64), 4));
  cr_expect(eq(int, tutti_workers_choose(0, 8, 2), TUTTI_EINVAL));
  cr_expect(eq(int, tutti_workers_choose(-1, 8, 2), TUTTI_EINVAL));
  /* a default world: the choice for no sizes */
  for (int P = 1; P <= 4096; P *= 8) {
    tutti_config_t cfg = tutti_config_default(P);
    tutti_world_t *w = NULL;
    cr_assert(eq(int, tutti_world_create(&w, &cfg), 0));
    cr_expect(eq(int, tutti_world_workers(w), tutti_workers_choose(P, 0, 0)), "P=%d", P);
    tutti_world_destroy(w);
  }
}

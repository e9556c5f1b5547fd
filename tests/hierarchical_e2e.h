/*
 * hierarchical_e2e.h -- what test_e2e_hierarchical.c and
 * test_e2e_hierarchical_times.c share: a rank's failure noted for the
 * test thread, worlds, the native model.
 */
#ifndef TUTTI_TESTS_HIERARCHICAL_E2E_H
#define TUTTI_TESTS_HIERARCHICAL_E2E_H

#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tutti/tutti.h"

#include "coll_helpers.h"
#include "sanitized.h"
#include "topo_helpers.h"

/* ------------------------------------------------------ a rank's failure */

/* The first failure of any rank, in words; the rank then returns an error,
 * which ends the run (every other rank's blocking call: TUTTI_EABORTED). */
struct fails {
  int failed;
  char why[768];
};

__attribute__((format(printf, 3, 4))) static inline void failf(struct fails *F, int me,
                                                               const char *fmt, ...) {
  if (__atomic_exchange_n(&F->failed, 1, __ATOMIC_ACQ_REL)) return;
  int k = snprintf(F->why, sizeof F->why, "rank %d: ", me);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(F->why + k, sizeof F->why - (size_t)k, fmt, ap);
  va_end(ap);
}

/* In a rank function with `F` and `me` in scope. */
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      failf(F, me, __VA_ARGS__);                                                                   \
      return TUTTI_EINVAL;                                                                         \
    }                                                                                              \
  } while (0)

static inline tutti_world_t *mkworld_cfg(int n, const tutti_model_t *m, unsigned flags) {
  tutti_config_t c = tutti_config_default(n);
  c.model = m;
  c.flags = flags;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  return w;
}

/* Run fn; fail the test with the ranks' first failure or the run's error. */
static inline void run_ok(tutti_world_t *w, tutti_rank_fn *fn, void *arg, const struct fails *F,
                          const char *what) {
  int rc = tutti_world_run(w, fn, arg);
  cr_assert(eq(int, F->failed, 0), "%s: %s", what, F->why);
  cr_assert(eq(int, rc, 0), "%s: %s", what, tutti_world_error(w));
}

static inline tutti_model_t native(void) {
  tutti_model_t m;
  cr_assert(eq(int, tutti_model_none(&m), 0));
  return m;
}

#endif

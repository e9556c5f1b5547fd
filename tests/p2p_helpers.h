/*
 * p2p_helpers.h -- what the world and messaging tests share
 * (test_e2e_world.c, test_e2e_p2p.c): a native world with a chosen eager
 * limit, flags and spin, and a Hockney model whose messages all go by
 * rendezvous. Needs Criterion (or tests/nocriterion) and tutti.h.
 */
#ifndef TUTTI_TESTS_P2P_HELPERS_H
#define TUTTI_TESTS_P2P_HELPERS_H

/* A native (unmodeled) world of rank threads (whose sleeping path and
 * spin these tests exercise; fibers have test_e2e_fibers.c) with a chosen
 * eager limit. */
static inline tutti_world_t *world(int n, size_t eager_limit, unsigned flags, int spin) {
  static tutti_model_t m;
  m = (tutti_model_t){.preset = TUTTI_MODEL_NONE, .eager_limit = eager_limit};
  tutti_config_t c = tutti_config_default(n);
  c.ranks_as = TUTTI_RANKS_AS_THREADS;
  c.model = &m;
  c.flags = flags;
  c.spin = spin;
  c.seed = 42;
  tutti_world_t *w = NULL;
  cr_assert(eq(int, tutti_world_create(&w, &c), 0));
  return w;
}

static inline tutti_model_t hockney(void) {
  tutti_cost_t ab = {.floor = 0, .a = 1e-6, .b = 1e-9};
  return (tutti_model_t){.preset = TUTTI_MODEL_HOCKNEY,
                         .send_cpu = ab,
                         .send_port = ab,
                         .latency = ab,
                         .recv_port = ab,
                         .eager_limit = 0};
}

#endif

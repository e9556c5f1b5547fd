/*
 * topo_helpers.h -- mktopo: a topology spec bound to n ranks under a
 * mapping, for the contention tests (links a list does not set get
 * latency 0 and the given beta, as the CLI's defaults). Fails the test on
 * any error. Needs Criterion (or tests/nocriterion) and tutti.h.
 */
#ifndef TUTTI_TEST_TOPO_HELPERS_H
#define TUTTI_TEST_TOPO_HELPERS_H

static inline tutti_topo_t *mktopo(const char *spec, const char *links, int n, const char *mapping,
                                   double beta) {
  tutti_topo_t *t = NULL;
  char err[512] = "";
  cr_assert(eq(int, tutti_topo_open(spec, links, &t, err, sizeof err), 0), "%s", err);
  cr_assert(eq(int, tutti_topo_default_links(t, 0, beta), 0));
  cr_assert(eq(int, tutti_topo_bind_text(t, n, mapping, TUTTI_TOPO_PARTIAL, err, sizeof err), 0),
            "%s", err);
  return t;
}

#endif

/*
 * fuzz_topo.h -- what the topology targets share: the cap on the trees
 * they build, and what they do with a tree they parsed (bind it with a
 * mapping, route, chain, run one message over a linkset, describe and
 * print it).
 */
#ifndef TUTTI_FUZZ_TOPO_H
#define TUTTI_FUZZ_TOPO_H

#include "fuzz.h"
#include "tutti/topo.h"

/* Inputs that name a tree of more than FUZZ_MAX_LEAVES leaves are
 * skipped: under ASan a legal tree of up to 2^20 leaves (or of many
 * switches) costs seconds, which a fuzzer finds at once and then spends
 * its runs on, and which -timeout would report only on a slow enough
 * machine. Larger trees are refused before allocation since issue 19's
 * defect 7 was fixed; crashes/ keeps that defect's reproducers, which run
 * uncapped with TUTTI_FUZZ_UNCAPPED=1 in the environment. A test of the
 * limits belongs to the unit tests, not here. */
#define FUZZ_MAX_LEAVES 65536

/* 1 if s may describe more than FUZZ_MAX_LEAVES leaves: with product 0,
 * if it holds a decimal number above the cap (an INI file's leaf range or
 * leaf_link.N: its leaves are numbered 0..N-1); with product 1, if its
 * numbers multiply past it (a spec's factors). Conservative: it counts
 * every digit run, a bandwidth's too. */
static inline int fuzz_too_big(const char *s, int product) {
  static int uncapped = -1;
  if (uncapped < 0) uncapped = getenv("TUTTI_FUZZ_UNCAPPED") != NULL;
  if (uncapped) return 0;
  unsigned long long all = 1;
  while (*s) {
    if (*s < '0' || *s > '9') {
      s++;
      continue;
    }
    unsigned long long v = 0;
    for (; *s >= '0' && *s <= '9'; s++)
      if (v <= FUZZ_MAX_LEAVES) v = v * 10 + (unsigned)(*s - '0');
    if (product && v > 0) all = all * v > FUZZ_MAX_LEAVES ? FUZZ_MAX_LEAVES + 1ull : all * v;
    if (v > FUZZ_MAX_LEAVES || all > FUZZ_MAX_LEAVES) return 1;
  }
  return 0;
}

/* Trees of more leaves are only described: the parsers are what is
 * fuzzed, and printing thousands of leaves finds nothing new. */
#define FUZZ_TOPO_USE_MAX 4096

static inline void fuzz_topo_use(tutti_topo_t *t, const char *mapping) {
  char err[512], buf[512];
  int n = tutti_topo_nleaves(t);

  tutti_topo_describe(t, buf, sizeof buf);
  if (n < 1 || n > FUZZ_TOPO_USE_MAX) return;
  tutti_topo_default_links(t, 0, 1e-9);
  if (tutti_topo_bind_text(t, n, mapping, TUTTI_TOPO_PARTIAL, err, sizeof err) == 0) {
    int nr = tutti_topo_nranks(t);
    int *order = malloc(sizeof *order * (size_t)nr);
    int cap = 2 * tutti_topo_depth(t) + 2;
    int *path = malloc(sizeof *path * (size_t)cap);
    if (!order || !path) abort();
    tutti_topo_chain_order(t, NULL, nr, nr - 1, order);
    int k = tutti_topo_route_ranks(t, 0, nr - 1, path, cap);
    tutti_linkset_t *ls;
    if (k >= 0 && tutti_linkset_create(t, &ls) == 0) {
      tutti_transit_t tr = {1e-6, 1e-6};
      tutti_linkset_path(ls, path, k, &tr, 1024);
      tutti_linkset_report(ls, 4, 1.0, fuzz_devnull());
      tutti_linkset_free(ls);
    }
    free(path);
    free(order);
  }
  tutti_topo_print(t, fuzz_devnull());
  tutti_topo_dot(t, fuzz_devnull());
}

#endif /* TUTTI_FUZZ_TOPO_H */

/*
 * spec.c -- the compact spec of a topology, "tree:A[xB[xC...]]"
 * (topo/README.md): a root switch over A switches, each over B ..., the
 * last number the leaves of each lowest switch; switches named root,
 * sw<depth>.<i>, s<i>. Fills the builder of build.h level by level.
 * The limits of topo.h (at most TUTTI_TOPO_SPEC_MAX_LEVELS numbers,
 * TUTTI_TOPO_MAX_LEAVES leaves and as many switches) are checked on the
 * text, before anything is allocated.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "errtext.h"
#include "topo_impl.h"

int tutti_topo_from_spec(const char *spec, const char *links, tutti_topo_t **out, char *err,
                         size_t errlen) {
  if (!spec || !out) {
    tutti__seterr(err, errlen, "topology: invalid arguments");
    return TUTTI_EINVAL;
  }
  long long f[TUTTI_TOPO_SPEC_MAX_LEVELS];
  int k = 0;
  if (strncmp(spec, "tree:", 5) != 0) {
    tutti__seterr(err, errlen, "topology '%s': not a tree spec; accepted: %s", spec,
                  TUTTI__TOPO_SPEC_ACCEPTED);
    return TUTTI_EPARSE;
  }
  const char *p = spec + 5;
  long long leaves = 1, switches = 1, level = 1;
  for (;;) {
    long long v = tutti__whole(&p, INT_MAX); /* a product above the limit is said below */
    if (v < 1) {
      tutti__seterr(err, errlen, "topology '%s': number %d is %s; accepted: %s", spec, k + 1,
                    v == 0 ? "0" : "missing or too large", TUTTI__TOPO_SPEC_ACCEPTED);
      return TUTTI_EPARSE;
    }
    if (k == TUTTI_TOPO_SPEC_MAX_LEVELS) {
      tutti__seterr(err, errlen, "topology '%s': more than %d levels; accepted: %s", spec,
                    TUTTI_TOPO_SPEC_MAX_LEVELS, TUTTI__TOPO_SPEC_ACCEPTED);
      return TUTTI_EPARSE;
    }
    f[k++] = v;
    leaves *= v;
    if (leaves > TUTTI_TOPO_MAX_LEAVES) {
      tutti__seterr(err, errlen, "topology '%s': more than %d leaves; accepted: %s", spec,
                    TUTTI_TOPO_MAX_LEAVES, TUTTI__TOPO_SPEC_ACCEPTED);
      return TUTTI_EPARSE;
    }
    if (*p == '\0') break;
    if (*p != 'x') {
      tutti__seterr(err, errlen, "topology '%s': unexpected '%c' after number %d; accepted: %s",
                    spec, *p, k, TUTTI__TOPO_SPEC_ACCEPTED);
      return TUTTI_EPARSE;
    }
    p++;
  }
  for (int i = 0; i + 1 < k; i++) {
    level *= f[i];
    switches += level;
  }
  if (switches > TUTTI_TOPO_MAX_LEAVES) {
    tutti__seterr(err, errlen, "topology '%s': more than %d switches; accepted: %s", spec,
                  TUTTI_TOPO_MAX_LEAVES, TUTTI__TOPO_SPEC_ACCEPTED);
    return TUTTI_EPARSE;
  }
  struct build b;
  if (tutti__build_init(&b)) {
    tutti__seterr(err, errlen, "topology '%s': out of memory", spec);
    return TUTTI_ENOMEM;
  }
  int rc = TUTTI_ENOMEM;
  char msg[768];
  if (links && links[0]) {
    rc = tutti__build_levels(&b, links, msg, sizeof msg);
    if (rc) {
      tutti__seterr(err, errlen, "links '%s': %s", links, msg);
      goto done;
    }
    rc = TUTTI_ENOMEM;
  }
  /* switches level by level, left to right: level d starts at first[d] */
  long long first = 0, count = 1, leaf = 0;
  for (int d = 0; d < k; d++) {
    for (long long i = 0; i < count; i++) {
      char name[TUTTI_TOPO_NAME_MAX];
      if (switches == 1)
        snprintf(name, sizeof name, "s0");
      else if (d == 0)
        snprintf(name, sizeof name, "root");
      else if (d == k - 1)
        snprintf(name, sizeof name, "s%lld", i);
      else
        snprintf(name, sizeof name, "sw%d.%lld", d, i);
      int s = tutti__build_switch(&b, name, TUTTI__SW_SWITCH);
      if (s < 0) goto done;
      for (long long c = 0; c < f[d]; c++) {
        int kid = d == k - 1 ? (int)(-(leaf++) - 1) : (int)(first + count + i * f[d] + c);
        if (tutti__build_kid(&b.sw[s], kid)) goto done;
      }
    }
    first += count;
    count *= f[d];
  }
  b.root = 0;
  b.nleaves = (int)leaves;
  rc = tutti__build_finalize(&b, spec, 0, 0, "links", out, err, errlen);
done:
  if (rc == TUTTI_ENOMEM) tutti__seterr(err, errlen, "topology '%s': out of memory", spec);
  tutti__build_free(&b);
  return rc;
}

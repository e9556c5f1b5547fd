/*
 * machine.c -- tutti_machine_build (machine.h): a cost model from a model
 * spec, a model value or a latency profile, and the topology of the spec
 * or the profile's [topology], with its links defaulted to the model's
 * beta and bound to the world's ranks. The command's --model, --profile,
 * --topology, --links, --mapping and --ranks, and the benchmarks, all
 * build their machine here.
 *
 * Only public headers: the model and profile code and the topology code
 * are used through tutti/model.h and tutti/topo.h, as any program would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tutti/machine.h"
#include "tutti/model.h"
#include "tutti/topo.h"

tutti_machine_spec_t tutti_machine_spec_default(void) {
  return (tutti_machine_spec_t)TUTTI_MACHINE_SPEC_INIT;
}

const char *tutti_machine_input_name(int input) {
  switch (input) {
  case TUTTI_MACHINE_IN_MODEL:
    return "model";
  case TUTTI_MACHINE_IN_PROFILE:
    return "profile";
  case TUTTI_MACHINE_IN_TOPOLOGY:
    return "topology";
  case TUTTI_MACHINE_IN_LINKS:
    return "links";
  case TUTTI_MACHINE_IN_MAPPING:
    return "mapping";
  case TUTTI_MACHINE_IN_RANKS:
    return "ranks";
  default:
    return "none";
  }
}

static void seterr(char *err, size_t errlen, const char *msg) {
  if (err && errlen) snprintf(err, errlen, "%s", msg);
}

/* A copy of s, NULL for NULL or ""; *oom set when the copy failed. */
static char *dup_text(const char *s, int *oom) {
  if (!s || !*s) return NULL;
  char *d = strdup(s);
  if (!d) *oom = 1;
  return d;
}

/* The failure path: the code, with the input at fault. */
static int fail(int rc, int input, int *bad) {
  if (bad) *bad = input;
  return rc;
}

/* The model of spec into *m, and its label (allocated) into *label. */
static int build_model(const tutti_machine_spec_t *spec, tutti_profile_t *p, tutti_model_t *m,
                       char **label, int *bad, char *err, size_t errlen) {
  if ((spec->model != NULL) + (spec->model_value != NULL) + (spec->profile != NULL) > 1) {
    seterr(err, errlen,
           "a model and a profile: give one of them, not both; accepted: a model spec, a model "
           "value or a profile (a profile holds a model)");
    return fail(TUTTI_EINVAL, TUTTI_MACHINE_IN_MODEL, bad);
  }
  const char *name;
  int rc;
  if (spec->model) {
    if ((rc = tutti_model_parse(spec->model, m, err, errlen)))
      return fail(rc, TUTTI_MACHINE_IN_MODEL, bad);
    name = spec->model;
  } else if (spec->model_value) {
    *m = *spec->model_value;
    name = tutti_model_preset_name(m->preset);
  } else {
    const char *which = spec->profile ? spec->profile : tutti_profile_builtin(0)->name;
    if ((rc = tutti_profile_load(which, p, err, errlen)))
      return fail(rc, TUTTI_MACHINE_IN_PROFILE, bad);
    *m = p->model;
    name = p->name;
  }
  m->topo = NULL;
  if (!(*label = strdup(name))) {
    seterr(err, errlen, "out of memory");
    return fail(TUTTI_ENOMEM, TUTTI_MACHINE_IN_NONE, bad);
  }
  return 0;
}

/* The topology of spec, else of the profile p (already loaded, or zero),
 * bound, into m; nothing without either. A given topology replaces the
 * profile's whole [topology], and a value the profile supplied is the
 * profile's fault. */
static int build_topo(const tutti_machine_spec_t *spec, const tutti_profile_t *p,
                      tutti_machine_t *m, int *bad, char *err, size_t errlen) {
  const char *topo = spec->topology, *links = spec->links, *mapping = spec->mapping;
  int topo_in = TUTTI_MACHINE_IN_TOPOLOGY, links_in = TUTTI_MACHINE_IN_LINKS,
      mapping_in = TUTTI_MACHINE_IN_MAPPING;
  if (!topo && (p->topo_spec[0] || p->topo_file[0])) {
    topo = p->topo_spec[0] ? p->topo_spec : p->topo_file;
    topo_in = TUTTI_MACHINE_IN_PROFILE;
    if (!links && p->topo_links[0]) links = p->topo_links, links_in = TUTTI_MACHINE_IN_PROFILE;
    if (!mapping && p->topo_mapping[0])
      mapping = p->topo_mapping, mapping_in = TUTTI_MACHINE_IN_PROFILE;
    m->topo_from_profile = 1;
  }
  if (!mapping) mapping_in = topo_in; /* identity: only the tree can be at fault */
  if (!topo) {
    if (!spec->mapping && !spec->links) return 0; /* a model alone */
    seterr(err, errlen,
           "there is no topology to apply it to; accepted: a mapping or link list with a "
           "topology, or a profile with a [topology] section");
    return fail(TUTTI_ENOTSUP, spec->mapping ? TUTTI_MACHINE_IN_MAPPING : TUTTI_MACHINE_IN_LINKS,
                bad);
  }
  int oom = 0;
  m->topo_spec = dup_text(topo, &oom);
  m->links = dup_text(links, &oom);
  m->mapping = dup_text(mapping, &oom);
  if (oom) {
    seterr(err, errlen, "out of memory");
    return fail(TUTTI_ENOMEM, TUTTI_MACHINE_IN_NONE, bad);
  }
  int rc = tutti_topo_open(topo, links, &m->topo, err, errlen);
  if (rc) {
    /* a bad link list is the list's fault, whatever the tree */
    tutti_topo_t *plain = NULL;
    int bad_links = links && *links && tutti_topo_open(topo, NULL, &plain, NULL, 0) == 0;
    tutti_topo_free(plain);
    return fail(rc,
                rc == TUTTI_ENOMEM ? TUTTI_MACHINE_IN_NONE
                : bad_links        ? links_in
                                   : topo_in,
                bad);
  }
  /* runtime/MODEL.md: unset links cost 0 + beta*m per link, beta the model's own */
  tutti_topo_default_links(m->topo, 0, m->model.latency.b);
  int leaves = tutti_topo_nleaves(m->topo), n = spec->nranks > 0 ? spec->nranks : leaves;
  if ((rc = tutti_topo_bind_text(m->topo, n, mapping, spec->bind_flags, err, errlen))) {
    int count = n > leaves || (!(spec->bind_flags & TUTTI_TOPO_PARTIAL) && n != leaves);
    return fail(rc,
                rc == TUTTI_ENOMEM ? TUTTI_MACHINE_IN_NONE
                : count            ? TUTTI_MACHINE_IN_RANKS
                                   : mapping_in,
                bad);
  }
  m->nranks = n;
  m->model.topo = m->topo;
  return 0;
}

int tutti_machine_build(const tutti_machine_spec_t *spec, tutti_machine_t *out, int *bad, char *err,
                        size_t errlen) {
  if (bad) *bad = TUTTI_MACHINE_IN_NONE;
  if (!spec || !out) {
    seterr(err, errlen, "machine: NULL spec or machine");
    return TUTTI_EINVAL;
  }
  if (spec->nranks < 0) {
    if (err && errlen)
      snprintf(err, errlen, "%d ranks; accepted: a number of ranks >= 1, or 0 for one per leaf",
               spec->nranks);
    return fail(TUTTI_EINVAL, TUTTI_MACHINE_IN_RANKS, bad);
  }
  tutti_profile_t *p = calloc(1, sizeof *p); /* 6 KiB of text: not on the stack */
  if (!p) {
    seterr(err, errlen, "out of memory");
    return TUTTI_ENOMEM;
  }
  tutti_machine_t m = {0};
  int rc = build_model(spec, p, &m.model, &m.label, bad, err, errlen);
  if (!rc) rc = build_topo(spec, p, &m, bad, err, errlen);
  free(p); /* the topology's texts may have pointed into it: m holds copies */
  if (rc) {
    tutti_machine_free(&m);
    return rc;
  }
  if (err && errlen) err[0] = '\0';
  *out = m;
  return 0;
}

void tutti_machine_free(tutti_machine_t *m) {
  if (!m) return;
  tutti_topo_free(m->topo);
  free(m->label);
  free(m->topo_spec);
  free(m->links);
  free(m->mapping);
  memset(m, 0, sizeof *m);
}

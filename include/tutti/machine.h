/*
 * machine.h -- the machine a world runs on, built in one call: a cost
 * model (a model spec, a model built in code, or a latency profile) and,
 * when there is one, its network topology (a spec or file, or the
 * profile's [topology] section) with link parameters and a rank-to-leaf
 * mapping, bound to the world's ranks. This is what the `tutti` command's
 * --model, --profile, --topology, --links, --mapping and --ranks do, for
 * any program:
 *
 *   tutti_machine_spec_t s = tutti_machine_spec_default();
 *   s.profile = "gige";             (or s.model = "hockney:alpha=1us,beta=1ns")
 *   s.topology = "tree:4x8";        (NULL: the profile's, if it has one)
 *   s.mapping = "roundrobin:2";
 *   s.nranks = 16;
 *   tutti_machine_t m;
 *   if (tutti_machine_build(&s, &m, NULL, err, sizeof err)) ...
 *   tutti_config_t cfg = tutti_config_default(16);
 *   cfg.model = &m.model;           (model.topo is the bound topology)
 *   ... create, run and destroy worlds ...
 *   tutti_machine_free(&m);
 *
 * The rules, as runtime/MODEL.md and topo/README.md state them:
 * - The model: at most one of model, model_value and profile; none of
 *   them means the first built-in profile (teaching-hockney).
 * - The topology: spec->topology, else the profile's [topology] spec or
 *   file, else none. A given topology replaces the profile's whole
 *   section; a given links or mapping then replaces the profile's links
 *   or mapping (with a given topology the profile's are not used).
 * - Links that neither a link list nor a topology file sets get latency 0
 *   and the model's per-byte latency cost (tutti_topo_default_links): one
 *   message alone on a path then costs what it costs with no topology.
 * - The topology is bound to nranks ranks with the mapping (0: one rank
 *   per leaf) and bind_flags (tutti_topo_bind; the default
 *   TUTTI_TOPO_PARTIAL lets a profile of a large machine serve a run of
 *   fewer ranks, the leaves the mapping does not reach staying empty).
 *
 * Errors: tutti_machine_build returns 0 or a negative TUTTI_E* code, writes
 * a one-line message to err (the message of the model, profile or topology
 * function at fault, which names the value and what is accepted), and sets
 * *bad to the input at fault (enum tutti_machine_input), so that a program
 * can name its own flag or key for it. A value that came from the profile
 * (its [topology] spec, file, links or mapping) is the profile's fault:
 * TUTTI_MACHINE_IN_PROFILE. The codes:
 *   TUTTI_EINVAL    NULL spec or out; with MODEL: more than one of model,
 *                   model_value and profile; with RANKS: nranks < 0, or
 *                   a rank count the topology cannot hold (more ranks than
 *                   leaves; without TUTTI_TOPO_PARTIAL, not exactly one per
 *                   leaf); with MAPPING (or PROFILE): a mapping that does
 *                   not fit the tree (a list of the wrong length)
 *   TUTTI_EPARSE    a bad model spec, profile file, topology, link list or
 *                   mapping text
 *   TUTTI_ENOTFOUND no such profile or topology file
 *   TUTTI_EIO       an unreadable file
 *   TUTTI_ENOTSUP   with MAPPING or LINKS: a mapping or link list but no
 *                   topology to apply it to (MAPPING when both are given)
 *   TUTTI_ENOMEM    out of memory (input NONE)
 * On failure *out is left unchanged and nothing is allocated.
 *
 * Threads: building and freeing touch only the spec, the machine and the
 * files named; any thread may build machines concurrently. A built machine
 * is read-only: any number of worlds, on any threads, may run on its model
 * at once (the topology's binding is fixed). Free it after the last world
 * that uses it is destroyed (reports name links from it).
 *
 * Memory: the topology (topo.h: about 24 bytes a leaf, 8 a bound rank)
 * and a few strings, owned by the machine until tutti_machine_free.
 *
 * tutti.h includes this header; it may also be included on its
 * own.
 */
#ifndef TUTTI_MACHINE_H
#define TUTTI_MACHINE_H

#include <stddef.h>

#include "tutti/p2p.h"
#include "tutti/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What to build a machine from. Every string is NULL when not given; the
 * call copies what it keeps, so the strings need not outlive it. */
typedef struct tutti_machine_spec {
  const char *model;                /* a model spec (tutti_model_parse), or NULL */
  const tutti_model_t *model_value; /* a model built in code (its topo is ignored), or NULL */
  const char *profile;              /* a built-in profile name or an INI file, or NULL */
  const char *topology;             /* tree:A[xB...] or a topology INI file (tutti_topo_open) */
  const char *links;                /* per-level link list, leaf links first (topo.h) */
  const char *mapping;              /* rank-to-leaf mapping text (tutti_topo_mapping_parse) */
  int nranks;                       /* ranks to bind the topology to; 0: one per leaf */
  unsigned bind_flags;              /* tutti_topo_bind flags; default TUTTI_TOPO_PARTIAL */
} tutti_machine_spec_t;

/* Nothing given (the default profile, its topology if any), one rank per
 * leaf, TUTTI_TOPO_PARTIAL. */
#define TUTTI_MACHINE_SPEC_INIT                                                                    \
  { NULL, NULL, NULL, NULL, NULL, NULL, 0, TUTTI_TOPO_PARTIAL }
TUTTI_API tutti_machine_spec_t tutti_machine_spec_default(void);

/* The input at fault when tutti_machine_build fails. */
enum tutti_machine_input {
  TUTTI_MACHINE_IN_NONE = 0, /* none in particular (out of memory, NULL arguments) */
  TUTTI_MACHINE_IN_MODEL,    /* spec->model or spec->model_value */
  TUTTI_MACHINE_IN_PROFILE,  /* spec->profile, or a value the profile supplied */
  TUTTI_MACHINE_IN_TOPOLOGY, /* spec->topology */
  TUTTI_MACHINE_IN_LINKS,    /* spec->links */
  TUTTI_MACHINE_IN_MAPPING,  /* spec->mapping */
  TUTTI_MACHINE_IN_RANKS,    /* spec->nranks */
};
/* "model", "profile", "topology", "links", "mapping", "ranks"; "none" for
 * anything else (never NULL). */
TUTTI_API const char *tutti_machine_input_name(int input);

/* A built machine. Every field is the machine's own: read them, do not
 * free or change them (tutti_machine_free does). */
typedef struct tutti_machine {
  tutti_model_t model;   /* the cost model; model.topo is topo (NULL: none) */
  tutti_topo_t *topo;    /* the topology, bound to nranks ranks; NULL without one */
  int nranks;            /* the ranks topo is bound to; 0 without a topology */
  int topo_from_profile; /* 1: the topology is the profile's [topology] section */
  char *label;           /* the profile's name, the model spec, or (model_value) its preset */
  char *topo_spec;       /* the topology spec or file used; NULL without a topology */
  char *links;           /* the link list used; NULL when none was given */
  char *mapping;         /* the mapping text used; NULL when none (identity) */
} tutti_machine_t;

/* Build the machine `spec` describes into *out (rules and errors above).
 * bad (may be NULL) receives the input at fault, TUTTI_MACHINE_IN_NONE on
 * success; err (may be NULL) the message, "" on success. Reads the profile
 * and topology files it names. */
TUTTI_API int tutti_machine_build(const tutti_machine_spec_t *spec, tutti_machine_t *out, int *bad,
                                  char *err, size_t errlen);

/* Free what the machine owns (its topology and strings) and zero it. A
 * zeroed machine, or NULL, is a no-op; no world may still run on it. */
TUTTI_API void tutti_machine_free(tutti_machine_t *m);

#ifdef __cplusplus
}
#endif
#endif /* TUTTI_MACHINE_H */

/*
 * tutti.h -- the public API of tutti, whole: this header includes every
 * sub-header (each may also be included on its own, and includes only
 * what lies beneath it) and defines the version.
 *
 *   p2p.h      the backend contract: ranks, point-to-point messages,
 *              datatypes and reduction ops, cost models' types
 *   units.h    sizes, times and rates as text
 *   ini.h      the strict reader of tutti's INI files
 *   model.h    cost models and latency profiles
 *   world.h    the world of emulated ranks: create, run, destroy
 *   report.h   what a run's replay tells: modeled times, traces, why
 *   tree.h     the pure tree builders
 *   coll.h     the collectives, their registry and rules
 *   plugin.h   algorithms from outside (plugins)
 *   topo.h     network topologies: switches, links, rank mappings
 *   machine.h  a model, a topology and a mapping built in one call
 *
 * (tutti/mpi.h, the backend over MPI, needs <mpi.h> and is not included.)
 *
 * One API, opaque handles, negative error codes (see tutti_strerror).
 * Every public function checks its arguments at the top and returns 0 or a
 * negative TUTTI_E* code; nothing here aborts the process.
 */
#ifndef TUTTI_TUTTI_H
#define TUTTI_TUTTI_H

#define TUTTI_VERSION_MAJOR 0
#define TUTTI_VERSION_MINOR 4
#define TUTTI_VERSION_PATCH 0
#define TUTTI_VERSION_STRING "0.4.0"

#include "tutti/p2p.h"
#include "tutti/units.h"
#include "tutti/ini.h"
#include "tutti/model.h"
#include "tutti/world.h"
#include "tutti/report.h"
#include "tutti/tree.h"
#include "tutti/coll.h"
#include "tutti/plugin.h"
#include "tutti/topo.h"
#include "tutti/machine.h"

#endif /* TUTTI_TUTTI_H */
